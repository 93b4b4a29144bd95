"""The byte-bounded LRU: it never holds more than its bound, and keeps the most recent."""

from __future__ import annotations

import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.text.bytecache import ByteLRU, size_of

BOUND = 64 * 1024


def test_many_distinct_large_entries_never_exceed_the_bound() -> None:
    cache = ByteLRU(BOUND)
    text = "🔥" * 5_000  # 20,000 bytes of UTF-8, only 5,000 characters
    for n in range(500):
        cache.put(("preview", n), f"{n}:{text}")
        assert cache.nbytes <= BOUND
    assert 0 < len(cache) <= BOUND // 20_000
    assert cache.get(("preview", 499)) == f"499:{text}"
    assert cache.get(("preview", 0)) is None


def test_the_size_counts_utf8_bytes_of_every_part() -> None:
    one = size_of("あ" * 100)
    split = size_of(["あ" * 50, "あ" * 50])
    assert one - size_of("") == 300
    assert split - size_of([]) >= 300


def test_the_least_recently_used_entry_goes_first() -> None:
    cache = ByteLRU(3 * size_of("x" * 100))
    for key in "abc":
        cache.put(key, "x" * 100)
    assert cache.get("a") is not None  # a is now the most recent
    cache.put("d", "x" * 100)
    assert cache.get("b") is None
    assert {k for k in "acd" if cache.get(k) is not None} == {"a", "c", "d"}


def test_replacing_a_value_charges_only_the_new_one() -> None:
    cache = ByteLRU(BOUND)
    cache.put("k", "x" * 1000)
    cache.put("k", "y" * 10)
    assert cache.nbytes == size_of("y" * 10)
    assert cache.get("k") == "y" * 10


def test_a_value_larger_than_the_bound_is_not_kept() -> None:
    cache = ByteLRU(1000)
    cache.put("small", "s")
    cache.put("huge", "h" * 5000)
    assert cache.get("huge") is None
    assert cache.get("small") == "s"
    assert cache.nbytes <= 1000


def test_a_negative_bound_is_refused() -> None:
    with pytest.raises(ValueError, match="-1"):
        ByteLRU(-1)


def test_threads_putting_at_once_keep_the_count_exact() -> None:
    cache = ByteLRU(50_000)

    def fill(worker: int) -> None:
        for n in range(300):
            cache.put((worker, n % 40), ["p" * (n % 700), "q" * 30])
            cache.get((worker, (n * 7) % 40))

    threads = [threading.Thread(target=fill, args=(w,)) for w in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    held = [cache.get((w, n)) for w in range(6) for n in range(40)]
    assert cache.nbytes == sum(size_of(v) for v in held if v is not None)
    assert cache.nbytes <= 50_000


@settings(deadline=None)  # timing varies with the machine's load, not the code
@given(
    st.integers(min_value=0, max_value=5_000),
    st.lists(st.tuples(st.integers(0, 20), st.text(max_size=400)), max_size=60),
)
def test_the_bound_holds_for_any_sequence_of_puts(bound: int, puts: list[tuple[int, str]]) -> None:
    cache = ByteLRU(bound)
    for key, value in puts:
        cache.put(key, value)
        assert cache.nbytes <= bound
    assert cache.nbytes == sum(size_of(v) for k in range(21) if (v := cache.get(k)) is not None)


def test_replayed_states_are_bounded_in_bytes(app) -> None:  # type: ignore[no-untyped-def]
    """Chronicle and match states are charged by their events, so long lives cannot grow a
    process past the bound."""
    from companion.streams import chronicles, matches

    for cache in (chronicles.CACHE, matches.CACHE):
        assert isinstance(cache, ByteLRU)
        assert 0 < cache.max_bytes <= 16 * 1024 * 1024
    cache = ByteLRU(10_000)
    for i in range(100):
        cache.put(i, object(), nbytes=1_000)
    assert cache.nbytes <= 10_000 and len(cache) == 8
