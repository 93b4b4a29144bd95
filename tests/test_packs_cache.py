"""Installed packs are parsed once per file change, however often the list is read."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from companion.packs import registry
from companion.packs.registry import get_pack, list_packs, pack_to_text


def _install(folder: Path, name: str) -> Path:
    text = pack_to_text(get_pack("standard", "en")).replace("name: standard", f"name: {name}")
    path = folder / f"{name}.en.md"
    path.write_text(text, encoding="utf-8")
    return path


def test_each_file_is_parsed_once_until_it_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = [_install(tmp_path, f"pack-{i}") for i in range(30)]
    parsed: list[str] = []
    real = registry.parse_pack_bytes

    def counting(data: bytes, source: str, *rest: object) -> registry.Pack:
        parsed.append(source)
        return real(data, source, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(registry, "parse_pack_bytes", counting)
    for _ in range(5):
        assert len(list_packs(tmp_path)) == 2 + 30
    assert sorted(p for p in parsed if str(tmp_path) in p) == sorted(map(str, paths))
    parsed.clear()
    changed = paths[3]
    changed.write_text(changed.read_text().replace("title: ", "title: Changed "), "utf-8")
    os.utime(changed, ns=(1, 1))
    packs = list_packs(tmp_path)
    assert parsed == [str(changed)]
    assert any(p.title.startswith("Changed") for p in packs)
