"""Running an instance: the ``companion`` command, the production server, backups and restores,
moving to a shared store, the operator's commands over chronicles and tables, and deleting a
stream with everything kept for it (which the host's delete page uses too)."""
