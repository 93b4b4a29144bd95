"""The rules cores joined to the store: a chronicle of the legacy game, a card-game match, their
replay from events and snapshots, how much one chronicle may hold, and the demo life."""
