"""The sample life as a chronicle anyone can open: replayed through the rules core."""

from __future__ import annotations

import random

from sqlite_utils import Database

from companion.samples import load_sample, sample_commands, sample_setup
from companion.streams import chronicles


def create_demo(db: Database, language: str) -> chronicles.Created:
    """A fresh copy of the sample life in ``language``, played to its epilogue."""
    sample = load_sample(language)
    created = chronicles.create(db, sample_setup(sample), random.Random(0))
    chronicle = chronicles.load(db, created.id)
    chronicles.execute(db, chronicle, sample_commands(sample), random.Random(0))
    return created
