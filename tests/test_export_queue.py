"""The book queue's fairness: shared jobs, a cap per chronicle, chronicles in turn, covers cut
as a printer cuts them, and numbers no log reaches."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask
from sqlite_utils import Database

from companion.export import CHARS_PER_PAGE, editions, jobs, upkeep
from companion.export.print_shop import spine_width_mm
from companion.store.db import connect
from companion.streams.demo import create_demo


@pytest.fixture
def db(app: Flask) -> Database:
    return connect(app.config["DATABASE"])


@pytest.fixture
def exports(tmp_path: Path) -> Path:
    path = tmp_path / "exports"
    path.mkdir()
    return path


def rows(db: Database, stream: str) -> int:
    query = "SELECT count(*) FROM exports WHERE stream_id = ?"
    return int(db.execute(query, [stream]).fetchone()[0])


def test_a_queued_book_of_an_older_version_is_moved_on_not_doubled(
    db: Database, exports: Path
) -> None:
    stream = create_demo(db, "en").id
    old, _ = jobs.request_book(db, exports, stream, 179, "story", "a5")
    newer, needed = jobs.request_book(db, exports, stream, 181, "story", "a5")
    assert newer.id == old.id and newer.version == 181 and newer.status == "queued" and needed
    assert rows(db, stream) == 1
    other, _ = jobs.request_book(db, exports, stream, 181, "story", "a4")
    assert other.id != old.id and rows(db, stream) == 2


def test_a_chronicle_has_only_its_share_of_the_queue(db: Database, exports: Path) -> None:
    stream = create_demo(db, "en").id
    for paper in ("a5", "a4", "b6"):
        jobs.request_book(db, exports, stream, 181, "story", paper, per_stream=4)
    again, _ = jobs.request_book(db, exports, stream, 181, "story", "a5", per_stream=4)
    assert again.status == "queued"  # the same book again is the same job, never refused
    with pytest.raises(jobs.QueueFullError) as full:  # the body and its cover: both or neither
        jobs.request_books(db, exports, stream, 181, "story", "a6", ["print", "cover-100"], 4)
    assert full.value.limit == 4 and rows(db, stream) == 3
    jobs.request_book(db, exports, stream, 181, "story", "a6", per_stream=4)
    with pytest.raises(jobs.QueueFullError):
        jobs.request_book(db, exports, stream, 181, "annotated", "a6", per_stream=4)
    assert rows(db, stream) == 4
    another = create_demo(db, "en").id  # another chronicle's share is its own
    jobs.request_book(db, exports, another, 181, "story", "a5", per_stream=4)


def test_chronicles_take_turns_in_the_queue(db: Database, exports: Path) -> None:
    flood, quiet = create_demo(db, "en").id, create_demo(db, "ja").id
    many = [jobs.request_book(db, exports, flood, 181, "story", p)[0].id for p in jobs_papers()]
    one = jobs.request_book(db, exports, quiet, 181, "story", "a5")[0].id
    order = []
    while (job := jobs.claim_next(db, pid=1, limit=100, owner="here-1-1")) is not None:
        order.append(job.id)
    # The flood's first book was asked for first; the quiet chronicle's comes next.
    assert order == [many[0], one, *many[1:]]


def test_a_chronicle_making_a_book_lets_another_go_first(db: Database, exports: Path) -> None:
    flood, quiet = create_demo(db, "en").id, create_demo(db, "ja").id
    first = jobs.request_book(db, exports, flood, 181, "story", "a5")[0]
    assert jobs.claim_next(db, pid=1, limit=1, owner="here-1-1") is not None
    second = jobs.request_book(db, exports, flood, 181, "story", "a4")[0]
    later = jobs.request_book(db, exports, quiet, 181, "story", "a5")[0]
    taken = jobs.claim_next(db, pid=2, limit=2, owner="here-1-1")
    assert taken is not None and taken.id == later.id != first.id != second.id


def test_a_chronicle_served_last_waits_for_one_not_served_yet(db: Database, exports: Path) -> None:
    flood, quiet = create_demo(db, "en").id, create_demo(db, "ja").id
    first = jobs.request_book(db, exports, flood, 181, "story", "a5")[0]
    more = [jobs.request_book(db, exports, flood, 181, "story", p)[0] for p in ("a4", "b6")]
    made = jobs.claim_next(db, pid=1, limit=1, owner="here-1-1")
    assert made is not None and made.id == first.id
    (exports / made.filename).write_bytes(b"%PDF")
    jobs.finish(db, made, exports)  # one worker, one book at a time: no book of the flood runs
    later = jobs.request_book(db, exports, quiet, 181, "story", "a5")[0]
    order = []
    while (job := jobs.claim_next(db, pid=1, limit=1, owner="here-1-1")) is not None:
        order.append(job.id)
        jobs.finish(db, job, exports)
    assert order == [later.id, more[0].id, more[1].id]


def jobs_papers() -> list[str]:
    return ["a5", "a4", "b6", "a6", "shinsho"]


def test_covers_whose_spines_round_alike_share_one_job(db: Database, exports: Path) -> None:
    stream = create_demo(db, "ja").id
    body, _ = jobs.request_book(db, exports, stream, 181, "story", "a5", "print")
    claimed = jobs.claim_next(db, pid=1, limit=1, owner="here-1-1")
    assert claimed is not None and claimed.id == body.id
    (exports / body.filename).write_bytes(b"%PDF body")
    jobs.finish(db, claimed, exports, pages=40)  # 20 leaves: 0.005 mm of paper is 0.1 mm of spine
    first = jobs.request_books(db, exports, stream, 181, "story", "a5", ["print", "cover-101"])
    same = jobs.request_books(db, exports, stream, 181, "story", "a5", ["print", "cover-102"])
    other = jobs.request_books(db, exports, stream, 181, "story", "a5", ["print", "cover-108"])
    assert first[1][0].id == same[1][0].id != other[1][0].id
    assert spine_width_mm(40, 0.101) == spine_width_mm(40, 0.102) != spine_width_mm(40, 0.108)
    cover = editions.parse_layout(first[1][0].layout)
    assert cover.thickness_mm is not None
    assert spine_width_mm(40, cover.thickness_mm) == spine_width_mm(40, 0.101)


def test_every_micrometre_of_paper_gives_as_many_covers_as_a_printer_cuts() -> None:
    for pages in (8, 40, 124, 400):
        layouts = {editions.same_cover(f"cover-{um}", pages) for um in range(40, 301)}
        spines = {spine_width_mm(pages, um / 1000) for um in range(40, 301)}
        assert len(layouts) == len(spines)
        assert len(spines) < 261 or pages > 200  # a long book's spine moves at every micrometre
    assert len({editions.same_cover(f"cover-{um}", 40) for um in range(40, 301)}) == 53


@pytest.mark.parametrize("version", [-1, 2**63, 9223372036854775808, 10**30])
def test_a_version_no_column_holds_finds_no_book(db: Database, version: int) -> None:
    stream = create_demo(db, "en").id
    assert jobs.find_book(db, stream, version, "story", "a5") is None


def test_a_made_book_whose_file_is_gone_says_so_and_is_made_again(
    db: Database, exports: Path
) -> None:
    stream = create_demo(db, "en").id
    job, _ = jobs.request_book(db, exports, stream, 181, "story", "a5")
    claimed = jobs.claim_next(db, pid=1, limit=1, owner="here-1-1")
    assert claimed is not None
    (exports / job.filename).write_bytes(b"%PDF")
    jobs.finish(db, claimed, exports)
    done = jobs.find(db, job.id)
    assert done is not None and done.shown_status(exports) == "done"
    (exports / job.filename).unlink()  # a restore, or the budget
    assert done.shown_status(exports) == "removed"
    again, needed = jobs.request_book(db, exports, stream, 181, "story", "a5")
    assert again.id == job.id and again.status == "queued" and needed


def test_the_time_limit_follows_the_books_pages_up_to_a_bound(db: Database, exports: Path) -> None:
    stream = create_demo(db, "en").id
    job, _ = jobs.request_book(db, exports, stream, 181, "story", "a5")
    assert upkeep.time_limit(db, job, 300) == 300  # the sample life: the limit as set
    before = upkeep.log_pages(db, job)
    per_page = jobs.CPU_PER_PAGE * jobs.TIME_MARGIN

    def text_of(chars: str, pages: int) -> None:
        text = chars * (pages * CHARS_PER_PAGE["a5"] // len(chars))
        data = '{"type": "x", "text": "' + text + '"}'
        db.execute("UPDATE events SET data = ? WHERE stream_id = ? AND seq = 2", [data, stream])

    text_of("波乃", 300)  # three hundred pages of Japanese
    pages = upkeep.log_pages(db, job)
    assert 299 < pages - before < 301  # (the event it replaces held a few lines)
    assert upkeep.time_limit(db, job, 300) == pytest.approx(pages * per_page)
    # A host that sets a slower limit gives every book that much more.
    assert upkeep.time_limit(db, job, 600) == pytest.approx(2 * pages * per_page)
    # Latin letters are narrower: the same number of characters is fewer pages, less time.
    text_of("wave", 300)
    assert 300 / 3 < upkeep.log_pages(db, job) - before < 300 / 2
    text_of("波乃", 10_000)  # a log far longer than any book (corrections): bounded
    assert upkeep.time_limit(db, job, 300) == 300 * jobs.MAX_SCALE
