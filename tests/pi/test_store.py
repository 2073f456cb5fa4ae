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


def test_rewrite_corrects_a_throw_and_what_followed_in_one_step(store):
    gid = store.new_game("alea", SEATS, {}, seed=1)
    store.append(gid, THROW, "camera", "dice")
    store.append(gid, DECLARE, "button")
    fixed = {"type": "throw", "dice": [{"colour": "red", "face": 4}, {"colour": "blue", "face": 6}]}
    store.rewrite(gid, 2, [(fixed, "corrected", "dice"), (DECLARE, "button", None)])
    assert store.events(gid) == [fixed, DECLARE]
    assert [(r.seq, r.source, r.throw) for r in store.records(gid)] == [(3, "corrected", "dice"), (4, "button", None)]
    assert [r.undone is not None for r in store.history(gid)] == [True, True, False, False]
    other = store.new_game("alea", SEATS, {}, seed=2)
    with pytest.raises(ValueError, match="fewer than 1 events"):
        store.rewrite(other, 1, [(fixed, "corrected", "dice")])
    assert store.events(other) == []


def test_each_event_keeps_its_source_and_throw_field(store):
    gid = store.new_game("alea", SEATS, {}, seed=1)
    store.append(gid, DECLARE, "phone")
    store.append(gid, THROW, "host_typed", "dice")
    store.append(gid, {"type": "pass", "seat": "Ben"}, "forced")
    assert [(r.event["type"], r.source, r.throw) for r in store.records(gid)] == [
        ("declare", "phone", None), ("throw", "host_typed", "dice"), ("pass", "forced", None)]


def test_the_statistics_count_applied_throws_and_reads_outside_a_game(store):
    gid = store.new_game("alea", SEATS, {}, seed=1)
    read = {"colour": "red", "face": 6, "status": "new"}
    store.record_roll(gid, [read])  # in a game: the throw the game applied counts instead
    store.append(gid, {"type": "throw", "dice": [{"colour": "red", "face": 5}]}, "camera", "dice")
    store.append(gid, {"type": "keep", "dice": [6, 6]}, "phone")  # faces kept, not thrown
    store.append(gid, {"type": "throw", "dice": [["blue", 2]]}, "host_typed", "dice")
    store.undo_last(gid)  # an undone throw is not counted
    store.append(gid, {"type": "build", "tape": {"dice": [{"colour": "red", "face": 1}]}}, "camera", "tape.dice")
    store.record_roll(None, [read])
    assert list(store.thrown()) == [[{"colour": "red", "face": 5}], [{"colour": "red", "face": 1}], [read]]


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
    store.append(gid, THROW, "camera", "dice")
    store.new_links()
    store.backup(tmp_path / "copy.sqlite3")
    with Store(tmp_path / "copy.sqlite3") as copy:
        assert copy.records(gid) == store.records(gid) and copy.link_generation() == 1


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


SCHEMA_1 = """
CREATE TABLE games (id INTEGER PRIMARY KEY, game TEXT NOT NULL, seats TEXT NOT NULL, options TEXT NOT NULL,
                    seed INTEGER NOT NULL, started REAL NOT NULL, ended REAL, winner TEXT);
CREATE TABLE events (game_id INTEGER NOT NULL REFERENCES games(id), seq INTEGER NOT NULL, event TEXT NOT NULL,
                     time REAL NOT NULL, undone REAL, PRIMARY KEY (game_id, seq));
CREATE TABLE rolls (id INTEGER PRIMARY KEY, game_id INTEGER REFERENCES games(id), time REAL NOT NULL,
                    dice TEXT NOT NULL, source TEXT NOT NULL);
CREATE INDEX rolls_by_game ON rolls (game_id, time);
"""


@pytest.mark.parametrize("version", [1, 2])
def test_an_older_store_is_brought_up_to_date(tmp_path, version):
    from pi import store as store_module

    path = tmp_path / "old.sqlite3"
    db = sqlite3.connect(path)
    db.executescript(SCHEMA_1 + ("CREATE TABLE links (game_id INTEGER PRIMARY KEY, generation INTEGER NOT NULL);"
                                 "INSERT INTO links VALUES (1, 3);" if version == 2 else "")
                     + f"PRAGMA user_version = {version};")
    db.execute("INSERT INTO games (game, seats, options, seed, started) VALUES ('alea', '[]', '{}', 1, 0)")
    db.execute("""INSERT INTO events VALUES (1, 1, '{"type": "throw", "dice": [["red", 4]]}', 0, NULL)""")
    db.execute("""INSERT INTO rolls (game_id, time, dice, source) VALUES (1, 0, '[{"colour": "red", "face": 4, "status": "new"}]', 'camera')""")
    db.commit()
    db.close()
    with Store(path) as s:
        assert s._db.execute("PRAGMA user_version").fetchone()[0] == store_module.SCHEMA_VERSION
        (old,) = s.records(1)
        assert old.event == {"type": "throw", "dice": [["red", 4]]} and old.source is None and old.throw is None
        # The camera's reads of a game stored before the throws were marked still count.
        assert list(s.thrown()) == [[{"colour": "red", "face": 4, "status": "new"}]]
        assert s.link_generation() == 0 and s.new_links() == 1 and s.new_links() == 2
        s.append(1, {"type": "pass"}, "forced")
        assert s.records(1)[-1].source == "forced"
