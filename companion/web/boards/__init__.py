"""Presentation of the card games: board view models, pictures and words, one package per game."""
