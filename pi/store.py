"""The event store: SQLite in WAL mode, one file in the data directory.

A game is its seed plus its event list (docs/contracts.md): `games` holds what `setup()`
needs, `events` every accepted event in order with the input that produced it (its
source: the camera, a phone, a seat button, the host, typed, corrected, forced by the
table) and, for a throw, the name of its thrown-dice field; `rolls` every settled roll the
camera read. Nothing is deleted: `undo_last` marks an event undone, and `events()` returns
the active ones in order, which is what a replay needs.

The dice statistics count the faces the games applied (a corrected throw's corrected
faces, a typed throw's typed ones) and, outside a game, the camera's reads (`thrown()`).

Durability: every write is one transaction committed with `synchronous=FULL` before the
method returns, so an event the table has announced survives a power cut. After a restart,
`unfinished()` gives the newest game not ended and `events()` its active events.

A card that is read-only when the store is opened (the kernel remounted it after an error)
does not stop the table: the store is read into memory without writing the file (SQLite's
read-only URI; an empty store when there is none yet), every write is refused as on a card
that became read-only while running (`write_error` is "read_only" from the start), and the
pages show the last game as it was and say what to do.

One connection shared by the appliance's threads behind a lock. A second `Store` on the
same file (another process, or a restart) sees everything committed.
"""
from __future__ import annotations

import dataclasses
import errno
import json
import logging
import os
import sqlite3
import threading
import time as _time
import urllib.parse
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

#: The schema this code writes (PRAGMA user_version).
SCHEMA_VERSION = 4

_SCHEMA = """
CREATE TABLE games (
    id       INTEGER PRIMARY KEY,
    game     TEXT    NOT NULL,
    seats    TEXT    NOT NULL,  -- JSON list
    options  TEXT    NOT NULL,  -- JSON object
    seed     INTEGER NOT NULL,
    started  REAL    NOT NULL,  -- unix time
    ended    REAL,
    winner   TEXT
);
CREATE TABLE events (
    game_id  INTEGER NOT NULL REFERENCES games(id),
    seq      INTEGER NOT NULL,  -- 1, 2, ... per game, undone ones included
    event    TEXT    NOT NULL,  -- JSON object
    time     REAL    NOT NULL,
    undone   REAL,              -- when it was undone, NULL = active
    source   TEXT,              -- the input that produced it (pi.ledger.SOURCES), NULL before schema 3
    throw    TEXT,              -- a throw: the name of its thrown-dice field
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE rolls (
    id       INTEGER PRIMARY KEY,
    game_id  INTEGER REFERENCES games(id),  -- NULL: read outside a game
    time     REAL    NOT NULL,
    dice     TEXT    NOT NULL,  -- JSON list of {colour, face, box, confidence, status, cocked}
    source   TEXT    NOT NULL,
    counted  INTEGER NOT NULL DEFAULT 1  -- in the statistics: read outside a game (in a game its throws count)
);
CREATE INDEX rolls_by_game ON rolls (game_id, time);
CREATE TABLE seat_links (
    generation INTEGER NOT NULL  -- the table's seat links in use: 0 first, +1 per reissue (one row)
);
CREATE TABLE host_sessions (
    generation INTEGER NOT NULL  -- the host logins that count: 0 first, +1 per logout (one row)
);
"""

#: What each schema version adds to the one before (a store of an older version is
#: brought up to date when it is opened).
_MIGRATIONS = {
    2: ["CREATE TABLE links (game_id INTEGER PRIMARY KEY REFERENCES games(id), generation INTEGER NOT NULL)"],
    # Sources and throws of events; seat links of the table's seats, not of a game (every
    # link changes once); camera reads of older games stay in the statistics.
    3: ["ALTER TABLE events ADD COLUMN source TEXT",
        "ALTER TABLE events ADD COLUMN throw TEXT",
        "ALTER TABLE rolls ADD COLUMN counted INTEGER NOT NULL DEFAULT 1",
        "DROP TABLE links",
        "CREATE TABLE seat_links (generation INTEGER NOT NULL)"],
    # Host logins end on the server at a logout (a saved cookie no longer counts).
    4: ["CREATE TABLE host_sessions (generation INTEGER NOT NULL)"],
}


class StoreError(RuntimeError):
    """The database cannot be used; the message says what to do."""


def write_problem(exc: BaseException) -> str | None:
    """What a failed write says of the disk: "disk_full", "read_only", "io", or None when
    the failure is not the disk's (a missing game, a value that cannot be stored)."""
    if isinstance(exc, OSError):
        return {errno.ENOSPC: "disk_full", errno.EDQUOT: "disk_full", errno.EROFS: "read_only"}.get(exc.errno, "io")
    if isinstance(exc, sqlite3.Error):
        code = (getattr(exc, "sqlite_errorcode", None) or 0) & 0xFF
        text = str(exc).lower()
        if code == 13 or "disk is full" in text:  # SQLITE_FULL
            return "disk_full"
        if code == 8 or "readonly" in text or "read-only" in text:  # SQLITE_READONLY
            return "read_only"
        if code in (10, 14) or "disk i/o" in text:  # SQLITE_IOERR, SQLITE_CANTOPEN
            return "io"
    return None


def read_only_disk(folder: Path) -> bool:
    """Whether ``folder`` (or, when it does not exist, the nearest folder above it that
    does) is on a read-only file system: an SD card the kernel remounted read-only."""
    for place in (folder, *folder.absolute().parents):
        try:
            return bool(os.statvfs(place).f_flag & os.ST_RDONLY)
        except FileNotFoundError:
            continue
        except OSError:
            return False
    return False


@dataclass(frozen=True)
class GameRecord:
    """One game as stored: what `engine.setup(seats, options, seed)` needs, and its end."""

    id: int
    game: str
    seats: list[Any]
    options: dict[str, Any]
    seed: int
    started: float
    ended: float | None
    winner: str | None


@dataclass(frozen=True)
class EventRecord:
    """One stored event with its sequence number, time, undo mark, the input that produced
    it (None in games stored before sources were kept) and, for a throw, the name of its
    thrown-dice field."""

    game_id: int
    seq: int
    event: dict[str, Any]
    time: float
    undone: float | None
    source: str | None = None
    throw: str | None = None


@dataclass(frozen=True)
class RollRecord:
    """One settled roll as read by the camera."""

    id: int
    game_id: int | None
    time: float
    dice: list[dict[str, Any]]
    source: str


class Store:
    """SQLite event store at `path` (created with its folder when missing; ":memory:"
    for a throwaway store)."""

    def __init__(self, path: str | Path, *, clock=_time.time, busy_timeout: float = 10.0) -> None:
        self.path = path if str(path) == ":memory:" else Path(path)
        self._clock = clock
        # Why the last write failed (`write_problem`), None once a write succeeds again;
        # `on_write_problem()` is called when it changes (the pages say so).
        self.write_error: str | None = None
        self.on_write_problem: Any = None
        self._lock = threading.RLock()
        # True when the card was read-only at the start: the store is then a read-only view
        # (every write refused as on a card that became read-only while running; `write_error`
        # says so from the start).
        self.read_only = False
        if isinstance(self.path, Path) and read_only_disk(self.path.parent):
            self._read_only_view(None)
            return
        try:
            self._connect(busy_timeout)
        except (OSError, sqlite3.Error) as exc:
            if not isinstance(self.path, Path) or write_problem(exc) != "read_only":
                raise
            self._read_only_view(exc)

    def _connect(self, busy_timeout: float) -> None:
        """Open the store for writing; an error of a read-only card is raised as it is."""
        if isinstance(self.path, Path):
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                if write_problem(exc) == "read_only":
                    raise
                raise StoreError(f"cannot create the data folder {self.path.parent} ({exc}); "
                                 "set data_dir in the config to a writable folder") from None
        try:
            self._db = sqlite3.connect(str(self.path), check_same_thread=False,
                                       isolation_level=None, timeout=busy_timeout)
        except sqlite3.Error as exc:
            if write_problem(exc) == "read_only":
                raise
            raise StoreError(f"cannot open the event store {self.path} ({exc}); "
                             "check the data_dir in the config and its permissions") from None
        try:
            self._open()
        except sqlite3.DatabaseError as exc:
            self._db.close()
            if write_problem(exc) == "read_only":  # a write of the opening the card refused
                raise
            raise StoreError(
                f"{self.path} is damaged or is not a dicetable database ({exc}); move it aside "
                "(dicetable then starts a new one) or restore it from a backup"
            ) from None
        except BaseException:
            self._db.close()
            raise

    def _read_only_view(self, why: BaseException | None) -> None:
        """The card is read-only: copy what the store holds (nothing when there is no store
        yet) into memory, reading the file with SQLite's read-only URI (``immutable=1`` when
        the WAL's files cannot be made on the card), and refuse every write there
        (``query_only``). The file is never written; the pages show the last game as it was."""
        log.warning("the data folder %s is read-only (%s): the event store is opened read-only and "
                    "every write is refused", self.path.parent, why or "a read-only file system")
        self.read_only = True
        self._db = sqlite3.connect(":memory:", check_same_thread=False, isolation_level=None)
        if self.path.exists():
            uri = "file:" + urllib.parse.quote(str(self.path.absolute()))
            for query in ("?mode=ro", "?mode=ro&immutable=1"):
                try:
                    source = sqlite3.connect(uri + query, uri=True)
                    try:
                        source.backup(self._db)
                    finally:
                        source.close()
                    break
                except sqlite3.Error as exc:
                    error = exc
            else:
                self._db.close()
                raise StoreError(f"the card is read-only and the event store {self.path} cannot be "
                                 f"read ({error}); restart the Pi, and replace the card if it happens "
                                 "again") from None
        try:
            self._open(in_memory=True)
            self._db.execute("PRAGMA query_only = ON")
            self.write_error = "read_only"
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise StoreError(f"{self.path} is damaged or is not a dicetable database ({exc}), and "
                             "the card is read-only: restore the store from a backup") from None
        except BaseException:
            self._db.close()
            raise

    def _open(self, in_memory: bool = False) -> None:
        db = self._db
        db.execute("PRAGMA foreign_keys = ON")
        check = db.execute("PRAGMA quick_check").fetchone()[0]
        if check != "ok":
            raise sqlite3.DatabaseError(f"integrity check: {check}")
        version = db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(
                f"{self.path} was written by a newer dicetable (schema {version}; this one "
                f"reads up to {SCHEMA_VERSION}); update dicetable, or point data_dir elsewhere"
            )
        mode = db.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if mode.lower() != "wal" and self.path != ":memory:" and not in_memory:
            raise StoreError(f"{self.path}: cannot switch to WAL mode (got {mode}); "
                             "put data_dir on a local disk")
        db.execute("PRAGMA synchronous = FULL")
        if version == 0:
            tables = db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
            if tables:
                raise StoreError(f"{self.path} is an SQLite file of something else; "
                                 "point data_dir at a folder of its own")
            with self._transaction():
                for statement in _SCHEMA.split(";"):
                    if statement.strip():
                        db.execute(statement)
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        elif version < SCHEMA_VERSION:
            with self._transaction():
                for step in range(version + 1, SCHEMA_VERSION + 1):
                    for statement in _MIGRATIONS[step]:
                        db.execute(statement)
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _transaction(self):
        return _Transaction(self._db, self._wrote)

    def _wrote(self, exc: BaseException | None) -> None:
        if self.read_only:  # stays "read_only": a transaction that wrote nothing is no sign
            return
        problem = None if exc is None else write_problem(exc)
        if (exc is None or problem is not None) and problem != self.write_error:
            self.write_error = problem
            if self.on_write_problem is not None:
                self.on_write_problem()

    def check(self) -> str:
        """SQLite's quick integrity check of the file: "ok", or what is wrong."""
        with self._lock:
            return str(self._db.execute("PRAGMA quick_check").fetchone()[0])

    # --- games ---------------------------------------------------------------------------

    def new_game(self, game: str, seats: Iterable[Any], options: Mapping[str, Any] | None,
                 seed: int, ending: int | None = None) -> int:
        """Record a new game; returns its id. ``ending``: the game it takes the place of,
        ended in the same transaction (if anything fails, neither changes)."""
        seats_json = _dumps(list(seats), "seats")
        options_json = _dumps(dict(options or {}), "options")
        with self._lock, self._transaction():
            if ending is not None:
                self._end(ending, None)
            cur = self._db.execute(
                "INSERT INTO games (game, seats, options, seed, started) VALUES (?, ?, ?, ?, ?)",
                (game, seats_json, options_json, int(seed), self._clock()),
            )
            return int(cur.lastrowid)

    def game(self, game_id: int) -> GameRecord:
        """The game with this id (KeyError if none)."""
        with self._lock:
            row = self._db.execute(
                "SELECT id, game, seats, options, seed, started, ended, winner FROM games "
                "WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise KeyError(f"no game {game_id} in the store")
        return _game(row)

    def games(self) -> list[GameRecord]:
        """Every game, oldest first."""
        with self._lock:
            rows = self._db.execute(
                "SELECT id, game, seats, options, seed, started, ended, winner FROM games "
                "ORDER BY id").fetchall()
        return [_game(r) for r in rows]

    def unfinished(self) -> GameRecord | None:
        """The newest game not ended (to resume after a restart), or None."""
        with self._lock:
            row = self._db.execute(
                "SELECT id, game, seats, options, seed, started, ended, winner FROM games "
                "WHERE ended IS NULL ORDER BY id DESC LIMIT 1").fetchone()
        return None if row is None else _game(row)

    def end_game(self, game_id: int, winner: str | None = None) -> None:
        """Mark the game ended (with its winner, if any)."""
        with self._lock, self._transaction():
            self._end(game_id, winner)

    def _end(self, game_id: int, winner: str | None) -> None:
        cur = self._db.execute("UPDATE games SET ended = ?, winner = ? WHERE id = ?",
                               (self._clock(), winner, game_id))
        if cur.rowcount == 0:
            raise KeyError(f"no game {game_id} in the store")

    def reopen(self, game_id: int) -> None:
        """Mark an ended game as being played again (an undo took back its end)."""
        with self._lock, self._transaction():
            self._db.execute("UPDATE games SET ended = NULL, winner = NULL WHERE id = ?", (game_id,))

    # --- events --------------------------------------------------------------------------

    def append(self, game_id: int, event: Mapping[str, Any], source: str | None = None,
               throw: str | None = None) -> int:
        """Store an accepted event, with the input that produced it and, for a throw, the
        name of its thrown-dice field; committed to disk when this returns. Returns its seq."""
        text = _dumps(dict(event), "event")
        with self._lock, self._transaction():
            return self._append(game_id, text, source, throw)

    def _append(self, game_id: int, text: str, source: str | None, throw: str | None) -> int:
        row = self._db.execute("SELECT ended FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise KeyError(f"no game {game_id} in the store")
        seq = self._db.execute("SELECT coalesce(max(seq), 0) + 1 FROM events WHERE game_id = ?",
                               (game_id,)).fetchone()[0]
        self._db.execute("INSERT INTO events (game_id, seq, event, time, source, throw) VALUES (?, ?, ?, ?, ?, ?)",
                         (game_id, seq, text, self._clock(), source, throw))
        return int(seq)

    def events(self, game_id: int) -> list[dict[str, Any]]:
        """The game's active (not undone) events, in order: replaying them rebuilds it."""
        return [r.event for r in self.records(game_id)]

    def records(self, game_id: int) -> list[EventRecord]:
        """The game's active events with their sources, in order."""
        return [r for r in self.history(game_id) if r.undone is None]

    def history(self, game_id: int) -> list[EventRecord]:
        """Every event of the game, undone ones included, in order."""
        with self._lock:
            rows = self._db.execute(
                "SELECT game_id, seq, event, time, undone, source, throw FROM events WHERE game_id = ? "
                "ORDER BY seq", (game_id,)).fetchall()
        return [EventRecord(r[0], r[1], json.loads(r[2]), r[3], r[4], r[5], r[6]) for r in rows]

    def undo_last(self, game_id: int, count: int = 1) -> list[dict[str, Any]]:
        """Mark the last ``count`` active events undone in one transaction (they stay in
        `history`); returns them, newest first ([] when there is nothing to undo; fewer
        when the game has fewer)."""
        with self._lock, self._transaction():
            return [e for e in (self._undo_last(game_id) for _ in range(count)) if e is not None]

    def _undo_last(self, game_id: int) -> dict[str, Any] | None:
        row = self._db.execute(
            "SELECT seq, event FROM events WHERE game_id = ? AND undone IS NULL "
            "ORDER BY seq DESC LIMIT 1", (game_id,)).fetchone()
        if row is None:
            return None
        self._db.execute("UPDATE events SET undone = ? WHERE game_id = ? AND seq = ?",
                         (self._clock(), game_id, row[0]))
        return json.loads(row[1])

    def rewrite(self, game_id: int, undo: int, events: Iterable[tuple[Mapping[str, Any], str | None, str | None]]) -> None:
        """Undo the last ``undo`` active events and append ``events`` ((event, source,
        throw) each) in one transaction: a corrected throw, with what followed it."""
        texts = [(_dumps(dict(e), "event"), source, throw) for e, source, throw in events]
        with self._lock, self._transaction():
            if None in [self._undo_last(game_id) for _ in range(undo)]:
                raise ValueError(f"game {game_id} has fewer than {undo} events to replace")
            for text, source, throw in texts:
                self._append(game_id, text, source, throw)

    # --- seat links ----------------------------------------------------------------------

    def link_generation(self) -> int:
        """Which seat links of the table are valid: 0 at first, +1 per reissue."""
        return self._generation("seat_links")

    def new_links(self) -> int:
        """Make the seat links of the next generation the valid ones; returns it."""
        return self._next_generation("seat_links")

    # --- host logins ---------------------------------------------------------------------

    def host_generation(self) -> int:
        """Which host logins count: those made in this generation (0 at first)."""
        return self._generation("host_sessions")

    def end_host_sessions(self) -> int:
        """A logout: every host login made so far stops counting; returns the new generation."""
        return self._next_generation("host_sessions")

    def _generation(self, table: str) -> int:
        with self._lock:
            row = self._db.execute(f"SELECT generation FROM {table}").fetchone()
        return 0 if row is None else int(row[0])

    def _next_generation(self, table: str) -> int:
        with self._lock, self._transaction():
            generation = self._generation(table) + 1
            self._db.execute(f"DELETE FROM {table}")
            self._db.execute(f"INSERT INTO {table} (generation) VALUES (?)", (generation,))
        return generation

    # --- rolls ---------------------------------------------------------------------------

    def record_roll(self, game_id: int | None, dice: Iterable[Any], time: float | None = None,
                    source: str = "camera") -> int:
        """Keep one settled roll: each die a dict or dataclass with colour, face, box,
        confidence, status, cocked. A roll read outside a game counts in the statistics;
        in a game, the throws the game applied count instead. Returns the roll's id."""
        text = _dumps([_plain(d) for d in dice], "dice")
        with self._lock, self._transaction():
            cur = self._db.execute(
                "INSERT INTO rolls (game_id, time, dice, source, counted) VALUES (?, ?, ?, ?, ?)",
                (game_id, self._clock() if time is None else float(time), text, source, int(game_id is None)))
            return int(cur.lastrowid)

    def rolls(self, game_id: int | None = None) -> list[RollRecord]:
        """Rolls of one game, or every roll when game_id is None, oldest first."""
        with self._lock:
            if game_id is None:
                rows = self._db.execute(
                    "SELECT id, game_id, time, dice, source FROM rolls ORDER BY id").fetchall()
            else:
                rows = self._db.execute(
                    "SELECT id, game_id, time, dice, source FROM rolls WHERE game_id = ? "
                    "ORDER BY id", (game_id,)).fetchall()
        return [RollRecord(r[0], r[1], r[2], json.loads(r[3]), r[4]) for r in rows]

    def thrown(self) -> Iterator[list[Any]]:
        """The dice of every throw the statistics count, oldest first: the thrown dice of
        each active throw event (as the game applied them), and the dice of each counted
        camera roll (every die it read, with its status)."""
        with self._lock:
            events = self._db.execute(
                "SELECT event, throw FROM events WHERE throw IS NOT NULL AND undone IS NULL "
                "ORDER BY game_id, seq").fetchall()
            rolls = self._db.execute("SELECT dice FROM rolls WHERE counted ORDER BY id").fetchall()
        for text, throw in events:
            dice = json.loads(text)
            for key in throw.split("."):
                dice = dice.get(key) if isinstance(dice, dict) else None
            if isinstance(dice, list):
                yield dice
        for (text,) in rolls:
            yield json.loads(text)

    # --- upkeep --------------------------------------------------------------------------

    @property
    def journal_mode(self) -> str:
        with self._lock:
            return self._db.execute("PRAGMA journal_mode").fetchone()[0]

    def backup(self, dest: str | Path) -> None:
        """Write a consistent copy of the store to `dest` while it is in use."""
        target = sqlite3.connect(str(dest))
        try:
            with self._lock:
                self._db.backup(target)
        finally:
            target.close()

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT (or ROLLBACK on an exception)."""

    def __init__(self, db: sqlite3.Connection, done=lambda exc: None) -> None:
        self._db = db
        self._done = done  # told how the write ended: None, or its exception

    def __enter__(self) -> None:
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except Exception as exc:
            self._done(exc)
            raise

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            try:
                self._db.execute("COMMIT")
            except Exception as failed:  # sqlite3.Error; an OSError of the disk too
                self._rollback()
                self._done(failed)
                raise
            self._done(None)
        else:
            self._rollback()
            self._done(exc)

    def _rollback(self) -> None:
        # SQLite has already rolled back after some errors (a full disk): the original
        # error is the one to report, not "no transaction is active".
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")


def _game(row: tuple) -> GameRecord:
    return GameRecord(row[0], row[1], json.loads(row[2]), json.loads(row[3]), row[4], row[5],
                      row[6], row[7])


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return value


def _dumps(value: Any, what: str) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False, default=_default)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"the {what} cannot be stored as JSON ({exc}): {value!r}") from None


def _default(value: Any) -> Any:
    # numpy scalars and arrays (a detector's boxes and confidences) and tuples of them
    if hasattr(value, "tolist"):
        return value.tolist()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    raise TypeError(f"{type(value).__name__} is not JSON-able")
