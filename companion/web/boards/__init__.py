"""How each card game's table looks: view models, pictures and words, kept out of the engines."""
