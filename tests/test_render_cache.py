"""The page cache: bounded in bytes, and what it keeps holds no viewer's secrets."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.app import create_app
from companion.text.bytecache import ByteLRU
from companion.web.shell.render_cache import cut, fill


def test_the_apps_page_cache_is_byte_bounded_by_the_setting(tmp_path) -> None:
    app = create_app(
        {"TESTING": True, "DATABASE": str(tmp_path / "c.sqlite3"), "RENDER_CACHE_BYTES": 12345}
    )
    cache = app.extensions["companion.render_cache"]
    assert isinstance(cache, ByteLRU)
    assert cache.max_bytes == 12345


def test_the_default_bound_leaves_room_under_64_mib(tmp_path) -> None:
    app = create_app({"TESTING": True, "DATABASE": str(tmp_path / "c.sqlite3")})
    assert app.extensions["companion.render_cache"].max_bytes <= 48 * 1024 * 1024


def test_cut_keeps_no_secret_and_fill_puts_the_viewers_back() -> None:
    html = '<a href="/c/HOSTTOKEN/text/3">x</a><input value="CSRF1">/c/HOSTTOKEN/'
    parts = cut(html, ["CSRF1", "HOSTTOKEN"])
    assert not any(b"HOSTTOKEN" in p or b"CSRF1" in p for p in parts if isinstance(p, bytes))
    assert fill(parts, ["CSRF1", "HOSTTOKEN"]) == html.encode()
    assert fill(parts, ["C2", "SEATTOKEN"]) == (
        b'<a href="/c/SEATTOKEN/text/3">x</a><input value="C2">/c/SEATTOKEN/'
    )


alphabet = st.sampled_from("ab<>/\"'xyz")


@settings(deadline=None)  # timing varies with the machine's load, not the code
@given(st.lists(st.one_of(st.text(alphabet, max_size=8), st.sampled_from(["@@", "%%"]))))
def test_cut_then_fill_gives_the_page_back(pieces: list[str]) -> None:
    html = "".join(pieces)
    parts = cut(html, ["@@", "%%"])
    kept = b"".join(p for p in parts if isinstance(p, bytes))
    assert b"@@" not in kept and b"%%" not in kept
    assert fill(parts, ["@@", "%%"]) == html.encode()


def test_every_cached_page_is_keyed_by_who_views_it(app, client, monkeypatch) -> None:
    """Each kept page names its stream, version, language and the link's role, seat and write
    permission: a page kept for one viewer is never served to another kind of viewer."""
    from play_helpers import create
    from table_helpers import new_table

    from companion.store import capabilities
    from companion.store.db import connect
    from companion.store.events import stream_version

    kept: list[tuple] = []
    cache = app.extensions["companion.render_cache"]
    real_put = cache.put
    monkeypatch.setattr(cache, "put", lambda key, *rest: (kept.append(key), real_put(key, *rest)))
    db = connect(app.config["DATABASE"])
    for prefix, host, paths in (
        ("c", create(client), ["", "?fragment=1", "story"]),
        ("t", new_table(client, "traitors-flame"), ["", "?fragment=1"]),
    ):
        stream = capabilities.resolve(db, host).stream_id
        seat = capabilities.issue(db, stream, "seat", 1)
        for token in (host, seat, capabilities.issue(db, stream, "reader")):
            cap = capabilities.resolve(db, token)
            viewer = (stream, stream_version(db, stream), None, cap.role, cap.seat, cap.can_write)
            for lang in ("en", "ja"):
                for path in paths:
                    cache.clear()
                    kept.clear()
                    joiner = "&" if "?" in path else "?"
                    response = client.get(f"/{prefix}/{token}/{path}{joiner}lang={lang}")
                    assert response.status_code == 200 and kept, path
                    for key in kept:
                        if key[0] == "known":  # by the store's row of the link: the same facts
                            row = key[2]
                            assert (row[0], row[1], row[4]) == (cap.role, cap.seat, viewer[1])
                            continue
                        assert (key[1], key[2], None, *key[4:7]) == viewer and key[3] == lang, key
