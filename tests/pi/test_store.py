"""The event store: WAL, durability, undo without loss, restart, and clear errors."""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass

import pytest

from pi.store import SCHEMA_VERSION, GameRecord, Store, StoreError

SEATS = [{"name": "Aki", "colour": "red"}, {"name": "Ben", "colour": "blue"}]
DECLARE = {"type": "declare", "seat": "Aki", "value": 3}
THROW = {"type": "throw", "dice": [{"colour": "red", "face": 3}, {"colour": "blue", "face": 6}]}


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "data" / "dicetable.sqlite3")
    yield s
    s.close()


def test_wal_and_full_sync_and_schema_version(store):
    assert store.journal_mode == "wal"
    db = sqlite3.connect(store.path)
    try:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    finally:
        db.close()
    assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    assert store._db.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_game_and_events_round_trip(store):
    gid = store.new_game("alea", SEATS, {"deck": "physical"}, seed=42)
    assert store.append(gid, DECLARE) == 1
    assert store.append(gid, THROW) == 2
    assert store.events(gid) == [DECLARE, THROW]
    record = store.game(gid)
    assert isinstance(record, GameRecord)
    assert (record.game, record.seats, record.options, record.seed) == (
        "alea", SEATS, {"deck": "physical"}, 42)
    assert record.ended is None and record.winner is None
    assert store.unfinished() == record
    with pytest.raises(KeyError):
        store.game(gid + 1)
    with pytest.raises(KeyError):
        store.append(gid + 1, DECLARE)


def test_unicode_survives(store):
    gid = store.new_game("alea", [{"name": "明", "colour": "red"}], {}, seed=1)
    store.append(gid, {"type": "declare", "seat": "明", "value": 0})
    assert store.events(gid)[0]["seat"] == "明"


def test_undo_marks_rather_than_deletes(store):
    gid = store.new_game("alea", SEATS, {}, seed=1)
    store.append(gid, DECLARE)
    store.append(gid, THROW)
    assert store.undo_last(gid) == [THROW]
    assert store.events(gid) == [DECLARE]
    assert store.undo_last(gid) == [DECLARE]
    assert store.undo_last(gid) == []
    assert store.events(gid) == []
    history = store.history(gid)
    assert [h.event for h in history] == [DECLARE, THROW]
    assert all(h.undone is not None for h in history)
    assert store.append(gid, THROW) == 3  # seq keeps counting
    assert store.events(gid) == [THROW]
    store.append(gid, DECLARE)
    assert store.undo_last(gid, count=5) == [DECLARE, THROW]  # several at once, no more than there are
    assert store.events(gid) == []


def test_replace_last_corrects_a_throw_in_one_step(store):
    gid = store.new_game("alea", SEATS, {}, seed=1)
    store.append(gid, DECLARE)
    store.append(gid, THROW)
    fixed = {"type": "throw", "dice": [{"colour": "red", "face": 4}, {"colour": "blue", "face": 6}]}
    assert store.replace_last(gid, fixed) == 3
    assert store.events(gid) == [DECLARE, fixed]
    other = store.new_game("alea", SEATS, {}, seed=2)
    with pytest.raises(ValueError, match="no event to replace"):
        store.replace_last(other, fixed)
    assert store.events(other) == []


def test_end_game_and_unfinished(store):
    first = store.new_game("alea", SEATS, {}, seed=1)
    second = store.new_game("alea", SEATS, {}, seed=2)
    assert store.unfinished().id == second
    store.end_game(second, winner="Ben")
    assert store.game(second).winner == "Ben" and store.game(second).ended is not None
    assert store.unfinished().id == first
    store.end_game(first)
    assert store.unfinished() is None
    assert [g.id for g in store.games()] == [first, second]
    with pytest.raises(KeyError):
        store.end_game(99)


@dataclass(frozen=True)
class Die:
    id: int
    colour: str
    face: int
    box: tuple
    confidence: float
    status: str
    cocked: bool


def test_rolls_are_kept(store):
    import numpy as np

    gid = store.new_game("alea", SEATS, {}, seed=1)
    die = Die(1, "red", 3, (np.float32(10.5), 20.0, 58.0, 70.0), np.float32(0.875), "new", False)
    plain = {"colour": "blue", "face": 0, "box": [1, 2, 3, 4], "confidence": 0.4,
             "status": "still", "cocked": True}
    store.record_roll(gid, [die, plain], time=1000.0, source="synthetic")
    store.record_roll(None, [plain], time=1001.0, source="camera")
    rolls = store.rolls(gid)
    assert len(rolls) == 1 and rolls[0].time == 1000.0 and rolls[0].source == "synthetic"
    assert rolls[0].dice[0] == {"id": 1, "colour": "red", "face": 3,
                                "box": [10.5, 20.0, 58.0, 70.0], "confidence": 0.875,
                                "status": "new", "cocked": False}
    assert rolls[0].dice[1] == plain
    assert [r.game_id for r in store.rolls()] == [gid, None]


def test_what_is_not_json_is_refused_and_nothing_is_written(store):
    gid = store.new_game("alea", SEATS, {}, seed=1)
    with pytest.raises(TypeError, match="cannot be stored as JSON"):
        store.append(gid, {"type": "throw", "dice": object()})
    assert store.events(gid) == [] and store.history(gid) == []


def test_a_second_store_sees_committed_data_without_a_clean_close(tmp_path):
    path = tmp_path / "dicetable.sqlite3"
    first = Store(path)
    gid = first.new_game("alea", SEATS, {"deck": "pi"}, seed=7)
    for value in range(3):
        first.append(gid, {"type": "declare", "seat": "Aki", "value": value})
    first.undo_last(gid)
    # No close: the process is "killed". A new process opens the same file.
    second = Store(path)
    try:
        record = second.unfinished()
        assert record.id == gid and record.options == {"deck": "pi"} and record.seed == 7
        assert [e["value"] for e in second.events(gid)] == [0, 1]
    finally:
        second.close()
        first.close()


def test_a_file_that_is_not_a_database_gives_a_clear_error(tmp_path):
    path = tmp_path / "dicetable.sqlite3"
    path.write_bytes(b"this is not sqlite at all\n" * 200)
    with pytest.raises(StoreError, match="damaged or is not a dicetable database.*move it aside"):
        Store(path)


def test_a_torn_file_gives_a_clear_error(tmp_path):
    path = tmp_path / "dicetable.sqlite3"
    with Store(path) as store:
        gid = store.new_game("alea", SEATS, {}, seed=1)
        for i in range(40):
            store.append(gid, {"type": "declare", "seat": "Aki", "value": i % 6, "pad": "x" * 2000})
    data = path.read_bytes()
    assert len(data) > 8 * 4096
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(StoreError, match="damaged"):
        Store(path)


def test_a_newer_schema_is_refused(tmp_path):
    path = tmp_path / "dicetable.sqlite3"
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(StoreError, match="newer dicetable"):
        Store(path)


def test_someone_elses_sqlite_file_is_refused(tmp_path):
    path = tmp_path / "other.sqlite3"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE photos (id INTEGER)")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match="something else"):
        Store(path)


def test_backup_copies_everything(store, tmp_path):
    gid = store.new_game("alea", SEATS, {}, seed=1)
    store.append(gid, THROW)
    store.backup(tmp_path / "copy.sqlite3")
    with Store(tmp_path / "copy.sqlite3") as copy:
        assert copy.events(gid) == [THROW]


def test_threads_share_one_store(store):
    import threading

    gid = store.new_game("alea", SEATS, {}, seed=1)
    seqs = []

    def work(n):
        for i in range(20):
            seqs.append(store.append(gid, {"type": "declare", "seat": f"S{n}", "value": i % 6}))

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(seqs) == list(range(1, 81))
    assert len(store.events(gid)) == 80


def test_a_store_of_the_first_schema_is_brought_up_to_date(tmp_path):
    import sqlite3

    from pi import store as store_module

    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    first = store_module._SCHEMA.split("CREATE TABLE links")[0]
    db.executescript(first + "PRAGMA user_version = 1;")
    db.execute("INSERT INTO games (game, seats, options, seed, started) VALUES ('alea', '[]', '{}', 1, 0)")
    db.commit()
    db.close()
    with Store(path) as s:
        assert s.link_generation(1) == 0 and s.new_links(1) == 1 and s.new_links(1) == 2
        assert s._db.execute("PRAGMA user_version").fetchone()[0] == store_module.SCHEMA_VERSION
