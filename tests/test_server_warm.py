"""A worker of `companion serve` compiles every template before it serves: its first visitor (and
its first change, when it only waited for the pages another worker made) pays no compiling."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from play_helpers import another_worker, create

from companion.ops import server


def _compiled(app: Flask, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    names: list[str] = []
    compile_ = app.jinja_env.compile

    def counted(source: Any, name: str | None = None, *args: Any, **kwargs: Any) -> Any:
        names.append(str(name))
        return compile_(source, name, *args, **kwargs)

    monkeypatch.setattr(app.jinja_env, "compile", counted)
    return names


def test_a_served_worker_compiles_nothing_for_its_first_pages(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = create(app.test_client())
    pages = (f"/c/{token}/", f"/c/{token}/?fragment=1", f"/c/{token}/story", "/")
    cold = another_worker(app, SHARED_RENDER_BYTES=0)
    compiled = _compiled(cold, monkeypatch)
    assert all(cold.test_client().get(page).status_code == 200 for page in pages)
    assert compiled, "a worker that was not warmed compiles as it serves"
    loaded = server._Gunicorn(lambda: another_worker(app, SHARED_RENDER_BYTES=0), {}).load()
    compiled = _compiled(loaded, monkeypatch)
    assert all(loaded.test_client().get(page).status_code == 200 for page in pages)
    assert compiled == []
    assert server.warm(loaded) == len(loaded.jinja_env.list_templates()) > 40
