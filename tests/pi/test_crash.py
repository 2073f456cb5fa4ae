"""Nothing is lost: a table in another process is killed with SIGKILL at 200 random
moments and started again; every event it acknowledged is in the store, the store is
intact, and the resumed state equals a clean replay of the stored events. A full disk or
a locked database gives a clear error and leaves the store as it was."""
from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path


import engines
from pi.store import Store
from pi.table import Table
from tests.pi.conftest import SEATS3, declare

ROOT = Path(__file__).resolve().parents[2]
KILLS = int(os.environ.get("DICETABLE_KILLS", "200"))


def _take(acked: dict[int, list[dict]], line: str) -> None:
    ack = json.loads(line)
    events = acked.setdefault(ack["game"], [])
    if "undone" in ack:
        del events[len(events) - ack["undone"]:]
    else:
        events.extend(ack["events"])


def _check_store(data_dir: Path, acked: dict[int, list[dict]], config) -> None:
    with Store(data_dir / "dicetable.sqlite3") as store:  # the quick_check runs as it opens
        assert store._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        for game_id, events in acked.items():
            stored = store.events(game_id)
            # Every acknowledged event is there. The process may have died between a
            # commit and its acknowledgement: an input's event (and forced moves after it)
            # stored, or an undo's events (a whole round's, or none) taken back.
            assert stored == events[:len(stored)] or stored[:len(events)] == events, (stored, events)
            taken_back = events[len(stored):]
            if taken_back:  # by the undo, not lost: kept in the history, marked undone last
                last = max((r.seq for r in store.records(game_id)), default=-1)
                later = sorted((r for r in store.history(game_id) if r.seq > last), key=lambda r: r.undone)
                newest = sorted(later[-len(taken_back):], key=lambda r: r.seq)
                assert [r.event for r in newest] == taken_back
            acked[game_id] = stored
        record = store.unfinished()
        if record is None:
            return
        table = Table(config, store)
        assert table.resume()
        seats = [{"name": s["name"], "colour": s["colour"]} for s in record.seats]
        clean, steps = engines.replay(engines.load(record.game), seats, record.options, record.seed,
                                      store.events(record.id))
        assert all(step.accepted for step in steps)
        assert table.snapshot()["view"] == engines.load(record.game).view(clean)


def test_sigkill_at_random_moments_loses_no_acknowledged_event(tmp_path, config):
    rng = random.Random(2024)
    data_dir = tmp_path / "data"
    config = config.__class__(**{**config.__dict__, "data_dir": data_dir})
    acked: dict[int, list[dict]] = {}
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for kill in range(KILLS):
        worker = subprocess.Popen([sys.executable, "-m", "tests.pi.crash_worker", str(data_dir)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
        try:
            for _ in range(rng.randint(0, 12)):
                line = worker.stdout.readline()
                if not line:
                    raise AssertionError(f"the worker stopped: {worker.stderr.read()}")
                _take(acked, line)
        finally:
            worker.send_signal(signal.SIGKILL)
            worker.wait()
            for line in worker.stdout:  # acknowledged before the kill, not yet read
                _take(acked, line)
            worker.stdout.close()
            worker.stderr.close()
        _check_store(data_dir, acked, config)
    assert sum(len(v) for v in acked.values()) > KILLS  # the games really went on
    assert len(acked) > 1  # ... past the end of a game into the next


def test_a_full_disk_gives_a_clear_error_and_changes_nothing(table, store):
    table.start_game("alea", SEATS3, {}, seed=1)
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count = {pages}")  # SQLite now fails as on a full disk
    before = table.snapshot()["view"]
    result = None
    for _ in range(200):  # until the file must grow
        result = declare(table, "Aki", 1)
        if not result["ok"]:
            break
        table.undo()
    assert not result["ok"] and "could not be saved" in result["error"]["en"] and "full" in result["error"]["en"]
    assert table.snapshot()["view"]["declarations"] is None
    assert store._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert before["scores"] == table.snapshot()["view"]["scores"]


def test_a_locked_database_gives_a_clear_error_and_changes_nothing(config, tmp_path):
    store = Store(config.db_path, busy_timeout=0.2)
    table = Table(config, store)
    table.start_game("alea", SEATS3, {}, seed=1)
    other = sqlite3.connect(config.db_path, isolation_level=None)
    other.execute("BEGIN EXCLUSIVE")
    try:
        result = declare(table, "Aki", 1)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert not result["ok"] and "locked" in result["error"]["en"] and result["error"]["ja"]
    assert table.snapshot("Aki")["view"]["mine"]["declaration"] is None
    assert declare(table, "Aki", 1)["ok"]  # once the lock is gone the table goes on
    store.close()
