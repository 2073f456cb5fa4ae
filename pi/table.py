"""The table: the one loop that takes inputs, applies them to the game, stores and publishes.

It knows no game by name. What the game waits for comes from the engine's ``expects``
(docs/contracts.md): a list of inputs, each saying who may send it, whether it is secret,
its fields and, for a throw, the dice it must show. Inputs reach the table two ways:

- ``act(seat, type, values, source)``: a player's input from a seat page or a seat button
  (``seat``), or the host's (``seat=None``), including dice typed by hand;
- ``settled_roll(roll, frame)``: a settled roll from the camera loop, turned into the throw
  input the game waits for (which dice are new, which were picked up and thrown again).

Both end in ``_apply``: the engine checks the event (an ``IllegalEvent`` becomes an error
result and nothing is stored), the store commits it, and only then the new version is
published (``wait_for_change`` wakes the live pages). Results are ``{"ok": True}`` or
``{"ok": False, "error": {"en", "ja"}}``; nothing raises into the web layer.

A game is its seats, options, seed and event list: the state is rebuilt by replaying the
stored events (``resume()`` after a restart, ``undo()``).

The other jobs live beside it: ``pi.buttons`` (seat buttons and LEDs), ``pi.camera_loop``
(the camera thread and its pictures), ``pi.demo`` (the demo's throw), ``pi.calibration``
(colour calibration), ``pi.links`` (seat links).
"""
from __future__ import annotations

import hashlib
import json
import logging
import random
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from pi import inputs
from pi.buttons import Buttons
from pi.calibration import Calibration
from pi.camera_loop import FRAME_INTERVAL_S, CameraLoop
from pi.demo import Demo
from pi.inputs import InputError
from pi.links import seat_token, table_secret
from pi.words import Result, error, no_game, ok, refused

log = logging.getLogger(__name__)

# Settled-roll statuses (vision.settle): the die was not on the table before, was moved, or
# lay still since the last settled roll.
NEW, RETHROWN, STILL = "new", "rethrown", "still"

#: Forced moves in a row after one change, at most (a game that keeps forcing is a bug).
MAX_FORCED = 200


def _default_loader(name: str):
    import engines

    return engines.load(name)


@dataclass
class GameRecord:
    """The current game as the store keeps it: what ``setup`` needs, and the seat links."""

    id: Any
    game: str
    seats: list[dict[str, str]]
    options: dict[str, Any]
    seed: int
    tokens: dict[str, str] = field(default_factory=dict)

    def public(self) -> dict[str, Any]:
        """Everything but the seat tokens (those are the seats' private links)."""
        return {"id": self.id, "game": self.game, "seats": self.seats, "options": self.options}


@dataclass
class RollDie:
    """One die of a settled roll as the table keeps it (JSON-able through ``as_dict``)."""

    id: Any
    colour: str | None
    face: int
    box: tuple[float, float, float, float]
    confidence: float
    status: str
    cocked: bool
    sides: int = 6

    def as_dict(self) -> dict[str, Any]:
        out = {
            "id": self.id,
            "colour": self.colour,
            "face": self.face,
            "box": [round(float(v), 1) for v in self.box],
            "confidence": round(float(self.confidence), 3),
            "status": self.status,
            "cocked": self.cocked,
        }
        if self.sides != 6:
            out["sides"] = self.sides
        return out



def _thrown(event: Mapping[str, Any]) -> list[Any] | None:
    """The dice of a throw event (each die a ``{"colour", "face"}`` or ``[colour, face]``);
    None for any other event, e.g. one whose "dice" are faces kept or spent."""
    dice = event.get("dice")
    if not isinstance(dice, list) or not dice:
        return None
    ok = all(isinstance(d, Mapping) and "colour" in d or isinstance(d, list) and d and isinstance(d[0], str) for d in dice)
    return list(dice) if ok else None

class Table:
    """The appliance's one state, guarded by one lock, with all collaborators injected.

    ``panel`` is a ``hardware.panel.SeatPanel`` (or ``None``: phones only); ``camera`` a
    frame source with ``read()`` (``vision.camera``); ``detector`` has
    ``detect(image) -> [Detection]``; ``settler`` has ``update(detections, t)`` returning a
    status with ``.state`` and ``.roll`` (``vision.settle``). ``synthetic`` is the demo's
    ``SyntheticTable`` (it receives the demo's throws).
    """

    def __init__(
        self,
        config: Any,
        store: Any,
        engine_loader: Callable[[str], Any] = _default_loader,
        panel: Any = None,
        camera: Any = None,
        detector: Any = None,
        settler: Any = None,
        clock: Callable[[], float] = time.monotonic,
        synthetic: Any = None,
        rng: random.Random | None = None,
        secret: bytes | None = None,
        frame_interval: float = FRAME_INTERVAL_S,
    ) -> None:
        self.config = config
        self.store = store
        self.engine_loader = engine_loader
        self.secret = secret if secret is not None else table_secret(config)
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._stop = threading.Event()
        self.version = 0
        self.record: GameRecord | None = None
        self.engine: Any = None
        self.state: Any = None
        self.last_roll: list[RollDie] | None = None
        self.last_roll_frame: Any = None
        self.prompt: dict[str, str] | None = None
        self.prompt_dice: list[dict[str, Any]] = []  # the readable dice of the refused roll
        self.warning: dict[str, str] | None = None
        self.accepted_ids: set[Any] = set()
        # A throw whose d6 the camera read while the dice it cannot read (d10, d20) are
        # still to be typed by their owners: {"input", "dice", "missing": {seat: [(colour, sides)]}}.
        self.pending: dict[str, Any] | None = None
        # Several seats may throw at once with dice alike: the seat that claimed the next
        # roll, and a roll waiting for its thrower.
        self.claimed: str | None = None
        self.unclaimed: tuple[list[RollDie], Mapping[Any, RollDie]] | None = None
        self.notes: dict[str, dict[str, str]] = {}  # per seat, shown on its own page only
        self.config_seats = _config_seats(config)
        self.buttons = Buttons(self, panel)
        self.camera = CameraLoop(camera, detector, settler, clock, self.settled_roll, self.publish, frame_interval)
        self.demo = Demo(self, synthetic, detector, rng)
        self.calibration = Calibration(config, detector, lambda: self.camera.latest_frame, self.publish)

    # ------------------------------------------------------------------ publishing

    def publish(self) -> None:
        with self._changed:
            self.version += 1
            self._changed.notify_all()

    def wait_for_change(self, version: int, timeout: float | None = None) -> int:
        """Block until the table's version differs from ``version`` (or ``timeout``);
        returns the current version."""
        with self._changed:
            self._changed.wait_for(lambda: self.version != version or self._stop.is_set(), timeout)
            return self.version

    def warn(self, message: dict[str, str]) -> None:
        """Show ``message`` on the pages until the next one."""
        with self._lock:
            self.warning = message
        self.publish()

    def note(self, seat: str, message: dict[str, str]) -> None:
        """A message for ``seat``'s own page only (a refused secret choice says why there)."""
        with self._lock:
            self.notes[seat] = message
        self.publish()

    def add_warning(self, message: dict[str, str]) -> None:
        """Add ``message`` to what the pages say is degraded (kept beside earlier ones)."""
        with self._lock:
            if self.warning:
                message = {k: f"{self.warning[k]} / {message[k]}" for k in ("en", "ja")}
            self.warning = message
        self.publish()

    def _after_change(self) -> None:
        """Drive the buttons from what the game waits for now, then tell the pages."""
        self.buttons.sync()
        self.publish()

    # ------------------------------------------------------------------ seats

    def seat_names(self) -> list[str]:
        return [s["name"] for s in self.record.seats] if self.record else []

    def page_seats(self) -> list[str]:
        """The seats the pages list: the game's, or the config's before a game."""
        return self.seat_names() if self.record else [s["name"] for s in self.config_seats]

    def seat_colours(self) -> dict[str, str]:
        return {s["name"]: s["colour"] for s in self.record.seats} if self.record else {}

    def button_of(self, seat: str) -> str | None:
        """The config seat (button and LED) that game seat ``seat`` uses."""
        if self.record is not None:
            return next((s.get("button") for s in self.record.seats if s["name"] == seat), None)
        return seat if seat in [s["name"] for s in self.config_seats] else None

    def seat_of_button(self, button: str) -> str | None:
        if self.record is None:
            return None
        return next((s["name"] for s in self.record.seats if s.get("button") == button), None)

    def seat_for_token(self, token: str) -> str | None:
        """The seat whose private link ends in ``token`` (constant-time compare)."""
        with self._lock:
            if self.record is None or not token:
                return None
            for seat, known in self.record.tokens.items():
                if secrets.compare_digest(known.encode(), token.encode()):
                    return seat
        return None

    def _seats_with_buttons(self, seats: Sequence[Mapping[str, Any]]) -> tuple[list[dict[str, str]], Result | None]:
        """The game's seats, each with the seat button it uses (``"button"``: a config seat's
        name; by default the config seat of the same name). A player may take another name
        than the config's and keep that seat's button."""
        buttons = [s["name"] for s in self.config_seats]
        out: list[dict[str, str]] = []
        for s in seats:
            seat = {"name": str(s.get("name", "")).strip(), "colour": str(s.get("colour", "")).strip()}
            button = s.get("button") or (seat["name"] if seat["name"] in buttons else None)
            if button is not None:
                if button not in buttons:
                    return [], error(f"There is no seat button {button!r} in the config; the buttons are "
                                     f"{', '.join(buttons)}.", f"設定に {button} の席ボタンはありません。")
                if any(o.get("button") == button for o in out):
                    return [], error(f"Two seats use the button of {button!r}; give each seat its own.",
                                     f"{button} のボタンを2つの席が使っています。")
                seat["button"] = str(button)
            out.append(seat)
        return out, None

    def _links(self, game_id: Any, seats: Sequence[Mapping[str, str]]) -> dict[str, str]:
        generation = self.store.link_generation(game_id)
        return {s["name"]: seat_token(self.secret, game_id, s["name"], generation) for s in seats}

    def reissue_links(self) -> Result:
        """New seat links for the running game; the old ones stop working at once (an open
        page of an old link says to scan the new QR code)."""
        with self._lock:
            if self.record is None:
                return no_game()
            self.store.new_links(self.record.id)
            self.record.tokens = self._links(self.record.id, self.record.seats)
        log.info("seat links of game %s reissued", self.record.id)
        self.publish()
        return ok()

    # ------------------------------------------------------------------ game lifecycle

    def start_game(self, game: str, seats: Sequence[Mapping[str, Any]], options: Mapping[str, Any] | None = None,
                   seed: int | None = None) -> Result:
        """Set up a new game (ending any unfinished one) and store it."""
        try:
            engine = self.engine_loader(game)
        except (ValueError, NotImplementedError) as exc:
            return error(str(exc), f"このゲームはまだ遊べません: {exc}")
        seats, problem = self._seats_with_buttons(seats)
        if problem is not None:
            return problem
        options = dict(options or {})
        seed = secrets.randbits(31) if seed is None else int(seed)
        try:
            state = engine.setup(_engine_seats(seats), dict(options), seed)
        except ValueError as exc:  # SetupError
            return error(str(exc), f"ゲームを始められません: {exc}")
        with self._lock:
            if self.record is not None:
                self._end_stored()
            game_id = self.store.new_game(game, seats, options, seed)
            self.record = GameRecord(game_id, game, seats, options, seed, self._links(game_id, seats))
            self.engine, self.state = engine, state
            self._clear_round()
            self._force()
        self._after_change()
        log.info("started %s game %s with %s", game, game_id, ", ".join(s["name"] for s in seats))
        return ok(game_id=game_id)

    def resume(self) -> bool:
        """Bring back the store's unfinished game, replaying its events; True if there was one."""
        found = self.store.unfinished()
        if not found:
            return False
        seats = [dict(s) for s in found.seats]
        record = GameRecord(found.id, found.game, seats, dict(found.options or {}), int(found.seed),
                            self._links(found.id, seats))
        try:
            engine = self.engine_loader(record.game)
            state = _replay(engine, record, self.store.events(record.id))
        except ValueError as exc:  # an engine that no longer accepts the stored events
            log.error("cannot resume %s game %s: %s; the host can start a new game", record.game, record.id, exc)
            return False
        with self._lock:
            self.record, self.engine, self.state = record, engine, state
            self._clear_round()
            self._force()
        self._after_change()
        log.info("resumed %s game %s", record.game, record.id)
        return True

    def end_game(self) -> Result:
        with self._lock:
            if self.record is None:
                return no_game()
            self._end_stored()
            self.record, self.engine, self.state = None, None, None
            self._clear_round()
        self._after_change()
        return ok()

    def _end_stored(self) -> None:
        winners = self.engine.expects(self.state).get("winners") or []
        self.store.end_game(self.record.id, ", ".join(winners) or None)

    def undo(self) -> Result:
        """Take back the last action of a player or the host, with the forced moves that
        followed it (the store keeps them as undone; the state is replayed). A forced move
        alone is never undone: the table would only send it again."""
        with self._lock:
            if self.record is None:
                return no_game()
            events = self.store.events(self.record.id)
            forced = _forced_flags(self.engine, self.record, events)
            last = len(events)
            while last and forced[last - 1]:
                last -= 1
            if not last:
                return error("There is nothing to undo yet.", "取り消せる操作はまだありません。")
            self.store.undo_last(self.record.id, len(events) - last + 1)
            self.state = _replay(self.engine, self.record, events[:last - 1])
            self.prompt = None
            self.pending = None
            self.accepted_ids = set()
            self.buttons.reopen()
        self._after_change()
        return ok(forced=len(events) - last)

    def _clear_round(self) -> None:
        self.prompt = None
        self.notes = {}
        self.pending = None
        self.claimed, self.unclaimed = None, None
        self.demo.forget()
        self.accepted_ids = set()
        self.buttons.reopen()

    def expects_now(self) -> dict[str, Any] | None:
        """What the game waits for (the engine's ``expects``), None without a game."""
        with self._lock:
            return self.engine.expects(self.state) if self.state is not None else None

    # ------------------------------------------------------------------ the one way in

    def act(self, seat: str | None, type_: Any, values: Any, source: str = "phone") -> Result:
        """An input from ``seat`` (its page or its button) or from the host (``seat=None``):
        ``values`` are the input's field values (a page's form, or typed values)."""
        with self._lock:
            if self.record is None:
                return no_game()
            expects = self.engine.expects(self.state)
            if seat is not None and seat not in self.seat_names():
                return error(f"There is no seat called {seat!r} in this game.", f"{seat} という席はこのゲームにありません。")
            allowed = inputs.for_seat(expects, seat) if seat is not None else inputs.for_host(expects)
            inp = inputs.find(allowed, type_)
            if inp is None:
                return self._not_now(seat, type_, expects)
            try:
                event = inputs.event_from_values(inp, seat, values)
            except InputError as exc:
                return {"ok": False, "error": exc.message}
            result = self._apply(event)
            if result["ok"] and inputs.dice_field(inp):
                # The dice now on the table were taken in by hand: later new dice are the
                # ones the camera has not seen yet.
                self.prompt = None
                if self.last_roll:
                    self.accepted_ids |= {d.id for d in self.last_roll}
                self._round_over_check()
        if result["ok"]:
            if seat is not None:
                self.notes.pop(seat, None)
            log.info("%s from %s (%s)", type_, seat or "the host", source)
            if inp.get("secret") and seat is not None and source != "button":
                self.buttons.chosen_elsewhere(seat, event)
            self._after_change()
        return result

    def _not_now(self, seat: str | None, type_: Any, expects: Mapping[str, Any]) -> Result:
        who = seat or "The host"
        return error(f"{who} cannot send {type_!s} now. {self._due(expects, seat)['en']}",
                     f"{seat or 'ホスト'}はいま「{type_!s}」を送れません。{self._due(expects, seat)['ja']}")

    def _apply(self, event: dict[str, Any]) -> Result:
        """Engine check, then commit; then the forced moves that follow. Call with the lock held."""
        result = self._commit(event)
        if result["ok"]:
            self._force()
        return result

    def _force(self) -> None:
        """Send every forced move the game now waits for (one can lead to another)."""
        for _ in range(MAX_FORCED):
            event = forced_event(self.engine.expects(self.state))
            if event is None:
                return
            result = self._commit(event)
            if not result["ok"]:  # an engine that refuses the one move it offers
                log.error("the game refused its forced move %s: %s", event, result["error"]["en"])
                return
            log.info("forced %s for %s: nothing to choose", event["type"], event["seat"])
        log.error("more than %d forced moves in a row; the table waits for the host", MAX_FORCED)

    def _commit(self, event: dict[str, Any]) -> Result:
        """Engine check, then commit. Call with the lock held."""
        from engines import IllegalEvent

        try:
            state = self.engine.apply(self.state, event)
        except IllegalEvent as exc:
            result = refused(str(exc), getattr(exc, "ja", None))
            problems = getattr(exc, "problems", None)
            if problems and event.get("seat"):
                # A refused layout: the seat's own page draws it with the offending places.
                layout = next((v for v in event.values() if isinstance(v, list) and v and isinstance(v[0], list)), None)
                self.notes[event["seat"]] = {**result["error"], "problems": problems, "layout": layout}
            return result
        try:
            self.store.append(self.record.id, event)
        except Exception as exc:  # a full or failing disk: nothing changes
            log.exception("could not store an event")
            return error(f"The event could not be saved ({exc}); nothing changed. Check the data folder.",
                         f"保存できませんでした（{exc}）。何も変わっていません。データフォルダを確認してください。")
        self.state = state
        self.pending = None
        if "dice" in event:
            self.demo.forget()
        return ok()

    # ------------------------------------------------------------------ throws

    def settled_roll(self, roll: Any, frame: Any = None) -> Result:
        """A settled roll from vision: kept for statistics, shown, and (when the game
        waits for a throw and the dice fit) turned into that throw's event."""
        dice = [_roll_die(d) for d in getattr(roll, "dice", roll)]
        with self._lock:
            before = {d.id: d for d in self.last_roll or []}
            self.last_roll, self.last_roll_frame = dice, frame
            game_id = self.record.id if self.record else None
            try:
                self.store.record_roll(game_id, [d.as_dict() for d in dice], source="camera")
            except Exception as exc:  # statistics must never stop the game
                log.warning("could not record a roll: %s", exc)
            result = self._roll_to_throw(dice, before)
        self._after_change()
        return result

    def _roll_to_throw(self, dice: list[RollDie], before: Mapping[Any, RollDie]) -> Result:
        throws = inputs.throw_inputs(self.engine.expects(self.state)) if self.state is not None else []
        if not throws or not dice:
            return ok(applied=False)
        rethrown = [d for d in dice if d.status == RETHROWN and d.id in self.accepted_ids]
        inp = next((i for i in throws if i.get("camera") == "rethrown"), None) if rethrown else None
        if inp is None:
            throwers = _throwers(throws)
            if len(throwers) > 1:  # several seats may throw now: whose dice are these?
                if self.claimed not in {seat for _, seat in throwers}:
                    self.unclaimed = (dice, before)
                    who = [seat for _, seat in throwers]
                    self.prompt = {
                        "en": f"Several seats may throw now ({', '.join(who)}): the thrower taps "
                              "\"This was my throw\" on their seat page.",
                        "ja": f"いま振れる席が複数あります（{'、'.join(who)}）。振った人は自分の席のページで"
                              "「自分の振り」を押してください。",
                    }
                    return ok(applied=False, waiting=who)
                inp = next(dict(i, seats=[seat]) for i, seat in throwers if seat == self.claimed)
            elif throwers:
                inp = throwers[0][0]
        if inp is None:
            return ok(applied=False)
        self.unclaimed, self.claimed = None, None
        mode = inp.get("camera", "new")
        if mode == "all":
            chosen = dice
        elif mode == "rethrown":
            chosen = rethrown
        else:
            chosen = [d for d in dice if d.id not in self.accepted_ids and d.status != STILL] or [
                d for d in dice if d.id not in self.accepted_ids]
        self.prompt_dice = [inputs.die_dict(d) for d in chosen if inputs.readable(d)]
        if getattr(self.camera.detector, "reads_sides", False):
            chosen, unread = inputs.unsure_part(inp, chosen)  # d10/d20 it is unsure of are typed
        else:
            unread = inputs.unread_part(inp)
        if unread:
            return self._camera_part(inp, chosen, unread)
        problem = inputs.dice_problem(inp, chosen)
        if problem is None:
            try:
                event = inputs.camera_event(inp, chosen, before, self.seat_colours())
            except InputError as exc:
                problem = exc.message
        if problem is not None:
            self.prompt = problem
            return {"ok": False, "error": problem}
        result = self._apply(event)
        if not result["ok"]:
            self.prompt = result["error"]
            return result
        self.prompt = None
        if mode == "all":
            self.accepted_ids = {d.id for d in dice}
        else:
            self.accepted_ids |= {d.id for d in chosen}
        self._round_over_check()
        return result

    def claim_throw(self, seat: str) -> Result:
        """``seat`` says the dice on the tray (or the next ones) are its throw, when several
        seats may throw at once and their dice look alike."""
        with self._lock:
            if self.record is None:
                return no_game()
            throwers = {s for _, s in _throwers(inputs.throw_inputs(self.engine.expects(self.state)))}
            if seat not in throwers:
                return error("You have no throw to make now.", "いまあなたが振る番ではありません。")
            self.claimed = seat
            pending, self.unclaimed = self.unclaimed, None
            result = self._roll_to_throw(*pending) if pending else ok(applied=False)
        self._after_change()
        return result

    def read_layout(self, seat: str) -> Result:
        """``seat``'s dice laid flat under the camera (the last settled roll), placed on the
        grid of its input's ``layout`` field (e.g. a pyramid's rows), sent as that input."""
        from vision.grid import LayoutError, place_rows

        with self._lock:
            if self.record is None:
                return no_game()
            found = [(i, f) for i in inputs.for_seat(self.engine.expects(self.state), seat)
                     for f in i.get("fields", []) if f.get("kind") == "layout"]
            if not found:
                return error("The game is not waiting for a layout from you.", "いまはあなたの配置を待っていません。")
            inp, field = found[0]
            dice = [d for d in self.last_roll or [] if inputs.readable(d)]
            unread = len(self.last_roll or []) - len(dice)
            if unread:
                return error(f"The camera cannot read {unread} of the dice (cocked?); straighten them and try again.",
                             f"カメラが{unread}個のダイスを読めません（傾いている？）。直してからもう一度押してください。")
            try:
                placed = place_rows(dice, tuple(field.get("rows", ())))
            except LayoutError as exc:
                return error(f"The camera cannot place the dice: {exc}.", f"ダイスの配置を読み取れません: {exc}")
            rows = [[inputs.die_dict(dice[i]) if i is not None else None for i in row] for row in placed.rows]
        return self.act(seat, inp["type"], {field["name"]: rows}, source="camera")

    def _camera_part(self, inp: dict[str, Any], chosen: list[RollDie], unread: list[tuple[str, int, int]]) -> Result:
        """A throw with dice the camera cannot read (d10, d20 ``unread``): take the others
        from the camera and wait for each owner to type these on their seat page
        (``type_faces``)."""
        problem = inputs.dice_problem(inputs.without(inp, unread), chosen)
        if problem is not None:
            self.prompt = problem
            return {"ok": False, "error": problem}
        owners = {c: n for n, c in self.seat_colours().items()}
        missing: dict[str | None, list[tuple[str, int]]] = {}
        for colour, sides, n in unread:
            missing.setdefault(owners.get(colour), []).extend([(colour, sides)] * n)
        self.pending = {"input": inp, "dice": [inputs.die_dict(d) for d in chosen], "missing": missing,
                        "ids": [d.id for d in chosen]}
        who = [s for s in missing if s is not None]
        self.prompt = {
            "en": f"The camera read the other dice. {', '.join(who) or 'The host'}: type your "
                  f"{'/'.join(sorted({f'd{sd}' for v in missing.values() for _, sd in v}))} on your seat page.",
            "ja": f"ほかのダイスはカメラが読みました。{'、'.join(who) or 'ホスト'}: "
                  f"{'/'.join(sorted({f'd{sd}' for v in missing.values() for _, sd in v}))}の目を自分の席のページで入力してください。",
        }
        return ok(applied=False, waiting=who)

    def type_faces(self, seat: str | None, faces: Sequence[Any]) -> Result:
        """``seat``'s typed faces of its dice the camera cannot read, in the order
        ``pending_for(seat)`` lists them; the throw is applied once every owner has typed."""
        with self._lock:
            pending = self.pending
            wanted = pending["missing"].get(seat) if pending else None
            if not wanted:
                return error("No dice of yours are waiting to be typed.", "入力を待っているダイスはありません。")
            if len(faces) != len(wanted):
                return error(f"Type {len(wanted)} face(s), one per die.", f"ダイス1個につき1つ、{len(wanted)}個の目を入力してください。")
            typed = []
            for (colour, sides), face in zip(wanted, faces):
                try:
                    face = int(face)
                except (TypeError, ValueError):
                    face = None
                if face not in inputs.FACES[sides]:
                    faces_range = inputs.FACES[sides]
                    return error(f"A d{sides} shows {faces_range[0]} to {faces_range[-1]}.",
                                 f"d{sides}の目は{faces_range[0]}〜{faces_range[-1]}です。")
                typed.append({"colour": colour, "face": face, "sides": sides})
            pending["dice"] = pending["dice"] + typed
            pending["missing"] = {k: v for k, v in pending["missing"].items() if k != seat}
            if pending["missing"]:
                result = ok(applied=False)
            else:
                inp, dice, ids = pending["input"], pending["dice"], pending["ids"]
                event = inputs.event_from_values(inp, None, {**inputs.seat_value(inp), inputs.dice_field(inp): dice})
                result = self._apply(event)
                if result["ok"]:
                    self.prompt = None
                    self.accepted_ids |= set(ids)
                    self._round_over_check()
                else:
                    self.pending = None
                    self.prompt = result["error"]
        self._after_change()
        return result

    def pending_for(self, seat: str | None) -> list[dict[str, Any]]:
        """The dice ``seat`` must type because the camera cannot read them."""
        with self._lock:
            if not self.pending:
                return []
            return [{"colour": c, "sides": s} for c, s in self.pending["missing"].get(seat, [])]

    def _round_over_check(self) -> None:
        """When the throws of a round are over, the next dice that land are all new."""
        if not inputs.throw_inputs(self.engine.expects(self.state)):
            self.accepted_ids = set()
            self.camera.new_round()

    def round_is_fresh(self) -> bool:
        """No die of this round has been taken in yet (the tray can be cleared)."""
        with self._lock:
            return not self.accepted_ids

    def typed_throw(self, dice: Sequence[Mapping[str, Any]], seat: str | None = None) -> Result:
        """Dice typed by the host (camera down, or a misread throw) for the throw due now."""
        with self._lock:
            if self.record is None:
                return no_game()
            due = [i for i in inputs.throw_inputs(self.engine.expects(self.state)) if i.get("camera") != "rethrown"]
            if not due:
                return error("The game is not waiting for a throw.", "いまはダイスを振る場面ではありません。")
            inp = due[0]
            values: dict[str, Any] = {inputs.dice_field(inp): [dict(d) for d in dice]}
            if seat is not None:
                values["seat"] = seat
        return self.act(None, inp["type"], values, source="typed")

    def correct_throw(self, dice: Sequence[Mapping[str, Any]]) -> Result:
        """Replace the dice of the last accepted event (a throw) with the dice the host typed."""
        with self._lock:
            if self.record is None:
                return no_game()
            events = list(self.store.events(self.record.id))
            if not events or _thrown(events[-1]) is None:
                return error("The last event is not a throw; undo the later events first.",
                             "最後の操作はダイスの振りではありません。先に後の操作を取り消してください。")
            from engines import IllegalEvent

            event = {**events[-1], "dice": [dict(d) for d in dice]}
            try:
                state = self.engine.apply(_replay(self.engine, self.record, events[:-1]), event)
            except IllegalEvent as exc:
                return refused(str(exc))
            self.store.replace_last(self.record.id, event)
            self.state = state
            self.prompt = None
        self._after_change()
        return ok()

    def last_throw_dice(self) -> list[dict[str, Any]]:
        """The dice of the last event when it holds dice: what ``correct_throw`` replaces."""
        with self._lock:
            if self.record is None:
                return []
            events = list(self.store.events(self.record.id))
        return (_thrown(events[-1]) or []) if events else []

    # ------------------------------------------------------------------ views

    def snapshot(self, seat: str | None = None) -> dict[str, Any]:
        """What a page shows: the engine's public view (or ``seat``'s own view) and the
        table's extras. Never anyone's secret choice, nor who has chosen, before the reveal:
        the inputs shown are the public ones, plus ``seat``'s own."""
        with self._lock:
            view = self.engine.view(self.state, seat) if self.state is not None else None
            expects = self.engine.expects(self.state) if self.state is not None else None
            public = [dict(i, seats=[]) if i.get("secret") else i for i in inputs.inputs(expects)]
            # A seat's own secret input names only that seat, never who else still chooses.
            mine = [dict(i, seats=[seat]) if i.get("secret") else i
                    for i in inputs.for_seat(expects, seat)] if seat is not None else []
            snap: dict[str, Any] = {
                "game": self.record.public() if self.record else None,
                "title": title(self.engine, self.record.game) if self.record else None,
                "view": view,
                "due": self._due(expects, seat),
                "inputs": public,
                "my_inputs": mine,
                "forms": inputs.signature(mine if seat is not None else inputs.for_host(expects))
                + ("|faces" if seat is not None and (self.pending or {}).get("missing", {}).get(seat) else ""),
                "secret_open": any(i.get("secret") for i in public),
                "over": expects is not None and not public,
                "camera": self.camera.health(),
                "last_roll": [d.as_dict() for d in self.last_roll] if self.last_roll is not None else None,
                "prompt": self.prompt,
                "demo_pending": self.demo.pending,
                "claimable": seat is not None and len(_throwers(inputs.throw_inputs(expects))) > 1
                and seat in {t for _, t in _throwers(inputs.throw_inputs(expects))},
                "to_type": [{"colour": c, "sides": sd} for c, sd in (self.pending or {}).get("missing", {}).get(seat, [])]
                if seat is not None else [],
                "warning": self.warning,
                "note": self.notes.get(seat) if seat is not None else None,
                "seats": self.page_seats(),
            }
        snap["leds"] = self.buttons.leds(seat)
        # The version a page sees changes only when what it shows changes: a counter would
        # tell an observer that something happened (a seat locking its secret choice).
        snap["version"] = hashlib.sha256(json.dumps(snap, sort_keys=True, default=str).encode()).hexdigest()[:16]
        return snap

    def _due(self, expects: Mapping[str, Any] | None, seat: str | None) -> dict[str, str]:
        """What the table waits for, in words; a secret choice never says who still chooses."""
        if expects is None:
            return {"en": "No game yet: the host starts one on the host page.",
                    "ja": "ゲームはまだ始まっていません。ホスト画面から開始してください。"}
        items = inputs.inputs(expects)
        if not items:
            winners = expects.get("winners") or []
            if winners:
                return {"en": f"Game over: {', '.join(winners)} {'wins' if len(winners) == 1 else 'share the win'}.",
                        "ja": f"ゲーム終了: {'、'.join(winners)}の勝ち。"}
            return {"en": "Game over.", "ja": "ゲーム終了。"}
        en: list[str] = []
        ja: list[str] = []
        for inp in items:
            if inp.get("secret") and seat not in inp.get("seats", []):
                line = {"en": "Secret choice: every seat chooses on its button or seat page; nothing is shown "
                              "until all have chosen.",
                        "ja": "秘密の選択中: 各席がボタンか自分の席のページで選びます。全員が選ぶまで何も表示されません。"}
            else:
                line = inp.get("prompt") or {"en": str(inp.get("type")), "ja": str(inp.get("type"))}
            if line["en"] not in en:
                en.append(line["en"])
                ja.append(line.get("ja") or line["en"])
        return {"en": " / ".join(en), "ja": " / ".join(ja)}

    def frame_jpeg(self) -> bytes | None:
        return self.camera.frame_jpeg()

    def roll_jpeg(self) -> bytes | None:
        with self._lock:
            frame, roll = self.last_roll_frame, self.last_roll
        return self.camera.roll_jpeg(frame, roll)

    # ------------------------------------------------------------------ the camera thread

    def start(self) -> None:
        """Start the camera thread (read, detect, settle; report settled rolls)."""
        self._stop.clear()
        self.camera.start()

    def stop(self) -> None:
        """Stop the camera thread and wake every waiting live page."""
        self._stop.set()
        with self._changed:
            self._changed.notify_all()
        self.camera.stop()

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()


# ---------------------------------------------------------------------- helpers


def forced_event(expects: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The event the table sends by itself when the game waits on one seat only, for one
    input that leaves it nothing to choose (ARCHITECTURE.md: a forced move): the only
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


def _throwers(throws: Sequence[Mapping[str, Any]]) -> list[tuple[dict[str, Any], str | None]]:
    """Who may make each (non-rethrow) throw due now: (input, seat) pairs; a group's
    throw is one pair with seat None."""
    out: list[tuple[dict[str, Any], str | None]] = []
    for inp in throws:
        if inp.get("camera") == "rethrown":
            continue
        if inp.get("together") or len(inp.get("seats", [])) <= 1:
            out.append((dict(inp), (inp.get("seats") or [None])[0] if not inp.get("together") else None))
        else:
            out.extend((dict(inp, seats=[seat]), seat) for seat in inp["seats"])
    return out


def title(engine: Any, name: str) -> dict[str, str]:
    """A game's name for the pages (the engine's ``TITLE``)."""
    return dict(getattr(engine, "TITLE", None) or {"en": name, "ja": name})


def _forced_flags(engine: Any, record: GameRecord, events: Sequence[Mapping[str, Any]]) -> list[bool]:
    """For each event of the game, whether it was a forced move when it was applied."""
    state = engine.setup(_engine_seats(record.seats), dict(record.options), record.seed)
    flags = []
    for event in events:
        flags.append(forced_event(engine.expects(state)) == dict(event))
        state = engine.apply(state, dict(event))
    return flags


def _replay(engine: Any, record: GameRecord, events: Sequence[Mapping[str, Any]]) -> Any:
    state = engine.setup(_engine_seats(record.seats), dict(record.options), record.seed)
    for event in events:
        state = engine.apply(state, dict(event))
    return state


def _engine_seats(seats: Sequence[Mapping[str, str]]) -> list[Any]:
    from engines import Seat

    return [Seat(s["name"], s["colour"]) for s in seats]


def _config_seats(config: Any) -> list[dict[str, str]]:
    out = []
    for s in getattr(config, "seats", None) or []:
        if isinstance(s, Mapping):
            out.append({"name": s["name"], "colour": s["colour"]})
        else:
            out.append({"name": s.name, "colour": s.colour})
    return out


def _roll_die(d: Any) -> RollDie:
    get = (lambda k, default=None: d.get(k, default)) if isinstance(d, Mapping) else (
        lambda k, default=None: getattr(d, k, default))
    face = get("face", 0)
    face = 0 if face is None else int(face)
    sides = int(get("sides", 6) or 6)
    return RollDie(
        id=get("id"),
        colour=get("colour"),
        face=face,
        box=tuple(get("box", (0, 0, 0, 0))),
        confidence=float(get("confidence", 1.0)),
        status=get("status", NEW),
        cocked=bool(get("cocked", False)) or (face == 0 and sides != 10),
        sides=sides,
    )
