"""The Markdown export of a full life, made on every request or kept by stream version.

A life of 36 turning points with about ``--chars`` characters of text each is built first. The
route ``GET /c/<token>/export.md`` is then timed in-process (Flask test client, rate limits off),
alternating a request whose cached file was dropped just before (as every request was before the
cache) and a request that finds it, ``--runs`` times each; the medians, their ratio and the
bytes the cache holds are printed.

    .venv/bin/python bench/bench_markdown_export.py [--runs 30] [--chars 2000]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import lifegen  # noqa: E402

from companion.app import create_app  # noqa: E402
from companion.export import markdown  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--chars", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        database = Path(folder) / "bench.sqlite3"
        token = lifegen.full_life(database, chars=args.chars)
        config = {"DATABASE": str(database), "SECRET_KEY": "bench", "RATELIMIT_ENABLED": False}
        client = create_app(config).test_client()
        path = f"/c/{token}/export.md"
        size = len(client.get(path).data)  # the chronicle's state is cached from here on
        made, kept = [], []
        for _ in range(args.runs):
            markdown.CACHE.clear()
            made.append(timed(client, path))
            kept.append(timed(client, path))
    cold, warm = statistics.median(made), statistics.median(kept)
    print(f"markdown export of a full life ({size:,} bytes), median of {args.runs} requests:")
    print(f"  made on each request  {cold:8.2f} ms")
    print(f"  kept by version       {warm:8.2f} ms")
    print(f"  ratio                 {cold / warm:8.1f}x faster when kept")
    print(
        f"  cache holds           {markdown.CACHE.nbytes:,} bytes of {markdown.CACHE.max_bytes:,}"
    )


def timed(client: object, path: str) -> float:
    start = time.perf_counter()
    response = client.get(path)  # type: ignore[attr-defined]
    elapsed = (time.perf_counter() - start) * 1000
    assert response.status_code == 200, response.status_code
    return elapsed


if __name__ == "__main__":
    main()
