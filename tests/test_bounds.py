"""Every bound on what one visitor may hold is written once (``companion/base/bounds.py``), read
by the app, documented with its setting and default, and a wrong value says so in one line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import make_app

from companion.base import bounds
from companion.base.bounds import BOUNDS, BoundSettingError

ROOT = Path(__file__).resolve().parent.parent


def test_every_bound_is_documented_with_its_setting_and_default() -> None:
    server = (ROOT / "docs" / "server.md").read_text()
    for bound in BOUNDS:
        row = re.compile(rf"^\| `{bound.setting}` \| `{re.escape(str(bound.default))}` \| ", re.M)
        assert row.search(server), f"docs/server.md has no row for {bound.setting}"


def test_settings_are_read_and_defaults_stand_in(tmp_path: Path) -> None:
    app = make_app(tmp_path, STREAMS_PER_LINK=3)
    assert bounds.whole(app.config, "STREAMS_PER_LINK") == 3
    assert bounds.whole(app.config, "KEPT_PER_LINK") == 32
    assert bounds.number({}, "STREAM_PART_SECONDS") == 0.5


@pytest.mark.parametrize(
    ("setting", "value"),
    [
        ("STREAMS_PER_LINK", 0),
        ("STREAMS_PER_ADDRESS", -1),
        ("KEPT_PER_LINK", 2.5),
        ("HELD_FORM_BYTES", "many"),
        ("STREAM_WRITE_SECONDS", True),
        ("RATELIMIT_DRAFTS", ""),
        ("RATELIMIT_DRAFTS", "fast"),
    ],
)
def test_a_wrong_value_stops_the_app_with_one_line(
    tmp_path: Path, setting: str, value: object
) -> None:
    with pytest.raises(BoundSettingError) as refused:
        make_app(tmp_path, **{setting: value})
    said = str(refused.value)
    assert setting in said and "\n" not in said
