"""The game's life cycle at the table: start, resume after a restart, end, undo, and the
forced moves the table sends by itself.

A game is its seats, options, seed and event list (docs/contracts.md): the state is rebuilt
by replaying the stored events (``engines.replay``). Every accepted event goes through
``apply``: the engine checks it, the store commits it with its source (the input that
produced it), the game's ledger (``pi.ledger``) records it, and then the forced moves that
follow are sent (a move with nothing to choose; ``forced_event``).
"""
from __future__ import annotations

import logging
import secrets
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import engines
from engines.core import short
from pi import inputs
from pi.ledger import Ledger, entry_of, rebuild
from pi.words import Result, error, no_game, ok, refused

log = logging.getLogger(__name__)

#: Forced moves in a row after one change, at most (a game that keeps forcing is a bug).
MAX_FORCED = 200

#: What an undo takes back first while a secret choice is open.
REOPEN = {"en": "the secret choices made so far; every seat chooses again",
          "ja": "ここまでの秘密の選択（全員が選び直します）"}


@dataclass
class GameRecord:
    """The current game as the store keeps it: what ``setup`` needs, and the seat links."""

    id: Any
    game: str
    seats: list[dict[str, str]]
    options: dict[str, Any]
    seed: int
    tokens: dict[str, str] = field(default_factory=dict)
    over: bool = False  # ended by its rules (in History already)

    def public(self) -> dict[str, Any]:
        """Everything but the seat tokens (those are the seats' private links)."""
        return {"id": self.id, "game": self.game, "seats": self.seats, "options": self.options, "over": self.over}


class Lifecycle:
    """The life cycle of ``table``'s game (a ``pi.table.Table``: its ``record``, ``engine``
    and ``state``, its store and its lock)."""

    def __init__(self, table: Any) -> None:
        self.table = table

    def start(self, game: str, seats: Sequence[Mapping[str, Any]], options: Mapping[str, Any] | None = None,
              seed: int | None = None) -> Result:
        """Set up a new game (ending any unfinished one) and store it."""
        table = self.table
        try:
            engine = table.engine_loader(game)
        except (ValueError, NotImplementedError) as exc:
            return error(str(exc), f"ゲーム {short(game)} はまだ遊べません。遊べるのは {', '.join(engines.GAMES)} です")
        seats, problem = table.seats_with_buttons(seats)
        if problem is not None:
            return problem
        options = dict(options or {})
        # 63 bits: too many seeds for a player to search for the one that deals the cards seen
        seed = secrets.randbits(63) if seed is None else int(seed)
        try:
            state = engine.setup(engine_seats(seats), dict(options), seed)
        except ValueError as exc:  # SetupError
            return error(str(exc), f"ゲームを始められません: {getattr(exc, 'ja', exc)}")
        with table._lock:
            # The game it replaces ends in the same transaction: a start that fails (a full
            # disk, options the store cannot keep) leaves the game on the table as it was.
            ending = self.table.record.id if self.running() else None
            try:
                game_id = table.store.new_game(game, seats, options, seed, ending=ending)
            except Exception as exc:  # noqa: BLE001 - whatever the store says, nothing changed
                log.exception("could not store a new game")
                return error(f"The new game could not be saved ({exc}); nothing changed. Check the data folder.",
                             f"新しいゲームを保存できませんでした（{exc}）。何も変わっていません。データフォルダを確認してください。")
            if ending is not None:
                log.info("game %s ended by the host", ending)
            table.record = GameRecord(game_id, game, seats, options, seed, table.links(seats))
            table.engine, table.state, table.ledger = engine, state, Ledger.start(engine, state)
            table.clear_round()
            self.force()
        table.after_change()
        log.info("started %s game %s with %s", game, game_id, ", ".join(s["name"] for s in seats))
        return ok(game_id=game_id)

    def resume(self) -> bool:
        """Bring back the store's unfinished game, replaying its events; True if there was one."""
        table = self.table
        found = table.store.unfinished()
        if not found:
            return False
        seats = [dict(s) for s in found.seats]
        record = GameRecord(found.id, found.game, seats, dict(found.options or {}), int(found.seed),
                            table.links(seats))
        try:
            engine = table.engine_loader(record.game)
            ledger, state = rebuild(engine, replay(engine, record, []), table.store.records(record.id))
        except ValueError as exc:  # an engine that no longer accepts the stored events
            log.error("cannot resume %s game %s: %s; the host can start a new game", record.game, record.id, exc)
            return False
        with table._lock:
            table.record, table.engine, table.state, table.ledger = record, engine, state, ledger
            table.clear_round()
            self.force()
        table.after_change()
        log.info("resumed %s game %s", record.game, record.id)
        return True

    def running(self) -> bool:
        """A game is being played and has not ended by its rules: ending it loses it."""
        return self.table.record is not None and not self.table.record.over

    def end(self) -> Result:
        """Put the game away: one still being played goes to History as ended by the host."""
        table = self.table
        with table._lock:
            if table.record is None:
                return no_game()
            self._put_away()
            table.record, table.engine, table.state, table.ledger = None, None, None, None
            table.clear_round()
        table.after_change()
        return ok()

    def _put_away(self) -> None:
        if not self.table.record.over:
            self.table.store.end_game(self.table.record.id, None)
            log.info("game %s ended by the host", self.table.record.id)

    def _settle_end(self) -> None:
        """A game that has ended by its rules goes to History at once, with its winners;
        one that an undo or a correction takes back from its end is open again."""
        table = self.table
        expects = table.engine.expects(table.state)
        over = not inputs.inputs(expects)
        if over == table.record.over:
            return
        if over:
            table.store.end_game(table.record.id, ", ".join(expects.get("winners") or []) or None)
        else:
            table.store.reopen(table.record.id)
        table.record.over = over

    def undo(self) -> Result:
        """Take back, while a secret choice is open, every choice made in it so far (the
        same whether anyone has chosen or not: nobody may learn who has; once reopened,
        the next undo goes on to what came before, if anything did); else, the last action
        everyone has seen (``Ledger.undo_from``), with the forced moves after it and, for a
        reveal of secret choices, every choice of that round. The store keeps what was
        undone; the state is replayed; the answer says what was undone and how many events
        (``undone``)."""
        table = self.table
        with table._lock:
            if table.record is None:
                return no_game()
            plan = self._undo_plan()
            if plan is None:
                return error("There is nothing to undo yet.", "取り消せる操作はまだありません。")
            first, words = plan
            count = len(table.ledger.entries) - first
            self.take_back(first)
            self._settle_end()
            table.clear_round()
            table.reopened = words is REOPEN
            table.undone = {"en": f"Undone: {words['en']}.", "ja": f"取り消しました: {words['ja']}"}
        table.after_change()
        log.info("undone (%d events): %s", count, words["en"])
        return ok(message=table.undone, undone=count)

    def undo_words(self) -> dict[str, str] | None:
        """What ``undo`` would take back, in words (None: nothing). Never a secret choice
        nobody has seen: an open secret choice says nothing of who has chosen."""
        with self.table._lock:
            plan = self._undo_plan() if self.table.record is not None else None
        return None if plan is None else plan[1]

    def _undo_plan(self) -> tuple[int, dict[str, str]] | None:
        """(the first event undo takes back, what it takes back in words), or None."""
        table = self.table
        ledger = table.ledger
        first, last = ledger.undo_from(), ledger.last_action()
        choosing = any(i.get("secret") for i in inputs.inputs(table.engine.expects(table.state)))
        if choosing and (not table.reopened or first is None):
            return ledger.hidden_from(), REOPEN
        if first is None:
            return None
        words = ledger.words(last, table.engine.view(table.state).get("log") or [])
        en, ja = words["en"], words["ja"]
        if ledger.entries[last].secret:
            en, ja = en + "; every seat chooses again", ja + "（全員が選び直します）"
        forced = sum(1 for e in ledger.entries[first:] if e.source == "forced")
        if forced:
            en += "; and the move" if forced == 1 else f"; and the {forced} moves"
            en += " the table sent after it"
            ja += f"（その後テーブルが自動で送った{forced}件も）"
        return first, {"en": en, "ja": ja}

    def take_back(self, first: int) -> None:
        """Undo the game's events from the ``first``-th on (the state is replayed)."""
        table = self.table
        table.store.undo_last(table.record.id, len(table.ledger.entries) - first)
        table.ledger.truncate(first)
        table.state = self.replay([e.event for e in table.ledger.entries])

    def replace(self, index: int, event: dict[str, Any], source: str) -> Result:
        """Replace the game's ``index``-th event by ``event`` (a corrected throw). The
        events after it are taken back with it; the forced moves then follow again, and
        the other events after it (secret choices nobody has seen) are made again where
        the game still takes them. Call with the table's lock held."""
        from engines import IllegalEvent

        table = self.table
        entries = table.ledger.entries
        later = [e for e in entries[index + 1:] if e.source != "forced"]
        before = self.replay([e.event for e in entries[:index]])
        try:
            after = table.engine.apply(before, event)
        except IllegalEvent as exc:
            return refused(exc)
        entry = entry_of(table.engine, before, after, event, source)
        table.store.rewrite(table.record.id, len(entries) - index, [(event, source, entry.throw)])
        table.ledger.truncate(index)
        table.ledger.entries.append(entry)
        table.state = after
        self.force()
        for again in later:
            if not self.apply(again.event, again.source)["ok"]:
                log.info("%s of %s is not taken after the correction", again.event.get("type"), again.event.get("seat"))
        return ok()

    def replay(self, events: Sequence[Mapping[str, Any]]) -> Any:
        """The state of the table's game after ``events``."""
        return replay(self.table.engine, self.table.record, events)

    # ------------------------------------------------------------------ every event

    def apply(self, event: dict[str, Any], source: str) -> Result:
        """Engine check, then commit (with the input that produced the event: a key of
        ``pi.ledger.SOURCES``); then the forced moves that follow. Call with the table's
        lock held."""
        result = self._commit(event, source)
        if result["ok"]:
            self.force()
        return result

    def force(self) -> None:
        """Send every forced move the game now waits for (one can lead to another); then a
        game that has ended by its rules goes to History."""
        table = self.table
        for _ in range(MAX_FORCED):
            event = forced_event(table.engine.expects(table.state))
            if event is None:
                break
            result = self._commit(event, "forced")
            if not result["ok"]:  # an engine that refuses the one move it offers
                log.error("the game refused its forced move %s: %s", event, result["error"]["en"])
                break
            log.info("forced %s for %s: nothing to choose", event["type"], event["seat"])
        else:
            log.error("more than %d forced moves in a row; the table waits for the host", MAX_FORCED)
        self._settle_end()

    def _commit(self, event: dict[str, Any], source: str) -> Result:
        """Engine check, then commit. Call with the table's lock held."""
        from engines import IllegalEvent

        table = self.table
        try:
            state = table.engine.apply(table.state, event)
        except IllegalEvent as exc:
            result = refused(exc)
            problems = getattr(exc, "problems", None)
            if problems and event.get("seat"):
                # A refused layout: the seat's own page draws it with the offending places.
                layout = next((v for v in event.values() if isinstance(v, list) and v and isinstance(v[0], list)), None)
                table.notes[event["seat"]] = {**result["error"], "problems": problems, "layout": layout}
            return result
        entry = entry_of(table.engine, table.state, state, event, source)
        try:
            table.store.append(table.record.id, event, source, entry.throw)
        except Exception as exc:  # a full or failing disk: nothing changes
            log.exception("could not store an event")
            return error(f"The event could not be saved ({exc}); nothing changed. Check the data folder.",
                         f"保存できませんでした（{exc}）。何も変わっていません。データフォルダを確認してください。")
        table.ledger.entries.append(entry)
        table.state = state
        if not (entry.secret and not entry.revealed):  # seen by everyone: a new turn for undo
            table.reopened = False
            table.undone = None  # a hidden lock leaves it up: its going would show who locked
        table.throws.pending = None
        if "dice" in event:
            table.demo.forget()
        return ok()


def forced_event(expects: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The event the table sends by itself when the game waits on one seat only, for one
    input that leaves it nothing to choose (docs/contracts.md: a forced move): the only
    input, not secret, for exactly one seat, not a throw (a player's physical action), and
    each field has exactly one possible value. None otherwise."""
    found = inputs.inputs(expects)
    if len(found) != 1:
        return None
    (inp,) = found
    seats = inp.get("seats") or []
    if inp.get("secret") or inp.get("together") or len(seats) != 1 or inputs.dice_field(inp):
        return None
    values = {}
    for f in inp.get("fields", []):
        possible = _possible_values(f, seats[0])
        if possible is None or len(possible) != 1:
            return None
        values[f["name"]] = possible[0]
    return inputs.event_from_values(inp, seats[0], values)


def _possible_values(f: Mapping[str, Any], seat: str) -> list[Any] | None:
    """The values ``seat`` may give field ``f``, or enough of them to tell one from many
    (a choice's options, a number's range or its ``only`` values for the seat); None for a
    field whose values are open (dice, lists, text, yes or no)."""
    if f.get("kind") == "choice":
        return [o.get("value") for o in f.get("options", [])]
    if f.get("kind") == "number":
        lo, hi = int(f["min"]), int(f["max"])
        only = (f.get("only") or {}).get(seat)
        return [v for v in only if lo <= v <= hi] if only is not None else list(range(lo, min(hi, lo + 1) + 1))
    return None


def replay(engine: Any, record: GameRecord, events: Sequence[Mapping[str, Any]]) -> Any:
    """The state of ``record``'s game after ``events`` (``engines.replay``); ValueError
    naming the first event the engine refuses."""
    from engines import replay as engine_replay

    state, steps = engine_replay(engine, engine_seats(record.seats), record.options, record.seed,
                                 [dict(e) for e in events])
    refused_step = next((s for s in steps if not s.accepted), None)
    if refused_step is not None:
        raise ValueError(f"the game refuses its stored event {refused_step.event}: {refused_step.error}")
    return state


def engine_seats(seats: Sequence[Mapping[str, str]]) -> list[Any]:
    from engines import Seat

    return [Seat(s["name"], s["colour"]) for s in seats]
