"""The store: one database (SQLite, or PostgreSQL shared by several servers), its migrations,
the append-only event log of every stream, capability links, drafts, snapshots and the signal a
write sends to whoever watches. Knows no game's rules."""
