"""Traitor's Flame."""
