"""Age of Summoners."""
