"""The table: the one loop that takes inputs, applies them to the game, stores and publishes.

It knows no game by name. What the game waits for comes from the engine's ``expects``
(docs/contracts.md): a list of inputs, each saying who may send it, whether it is secret,
its fields and, for a throw, the dice it must show. Inputs reach the table two ways:

- ``act(seat, type, values, source)``: a player's input from a seat page or a seat button
  (``seat``), or the host's (``seat=None``), including dice typed by hand;
- ``settled_roll(roll, frame)``: a settled roll from the camera loop, turned into the throw
  input the game waits for.

Both end in ``apply``: the engine checks the event (an ``IllegalEvent`` becomes an error
result and nothing is stored), the store commits it, and only then the new version is
published (``wait_for_change`` wakes the live pages). Results are ``{"ok": True}`` or
``{"ok": False, "error": {"en", "ja"}}``; nothing raises into the web layer.

The jobs live beside it, each in its own module: ``pi.lifecycle`` (start, resume, end,
undo, forced moves), ``pi.throws`` (settled rolls, claims, typed and corrected throws),
``pi.snapshots`` (what the pages show), ``pi.buttons`` (seat buttons and LEDs),
``pi.camera_loop`` (the camera thread and its pictures), ``pi.demo`` (the demo's throw),
``pi.calibration`` (colour calibration), ``pi.links`` (seat links).
"""
from __future__ import annotations

import logging
import random
import secrets
import threading
import time
from typing import Any, Callable, Mapping, Sequence

from engines.core import short
from pi import inputs
from pi.buttons import Buttons
from pi.calibration import Calibration
from pi.camera_loop import FRAME_INTERVAL_S, CameraLoop
from pi.demo import Demo
from pi.inputs import InputError
from pi.ledger import Ledger
from pi.lifecycle import GameRecord, Lifecycle
from pi.links import seat_token, table_seat, table_secret
from pi.snapshots import due_words, snapshot
from pi.throws import Throws
from pi.words import Result, error, no_game, ok

log = logging.getLogger(__name__)


def _default_loader(name: str):
    import engines

    return engines.load(name)


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
        self.ledger: Ledger | None = None  # the game's events, their sources, log lines and rounds
        self.warning: dict[str, str] | None = None
        self.undone: dict[str, str] | None = None  # what the last undo took back, until the next event all see
        # An undo has reopened the open secret choice: the next one takes back what came before.
        self.reopened = False
        self.notes: dict[str, dict[str, str]] = {}  # per seat, shown on its own page only
        self.voice: Any = None  # pi.voice.worker.Voice once pi.voice.attach gave the table one
        self.config_seats = _config_seats(config)
        self.lifecycle = Lifecycle(self)
        self.throws = Throws(self)
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
        if self.voice is not None:
            self.voice.sound("refused")
        self.publish()

    def add_warning(self, message: dict[str, str]) -> None:
        """Add ``message`` to what the pages say is degraded (kept beside earlier ones)."""
        with self._lock:
            if self.warning:
                message = {k: f"{self.warning[k]} / {message[k]}" for k in ("en", "ja")}
            self.warning = message
        self.publish()

    def after_change(self) -> None:
        """Drive the buttons from what the game waits for now, then tell the pages."""
        self.buttons.sync()
        self.publish()

    def clear_round(self) -> None:
        """A new game, an undo or a restart: nothing said or waiting is left over."""
        self.notes = {}
        self.undone = None
        self.reopened = False
        self.throws.forget()
        self.demo.forget()
        self.buttons.reopen()

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

    def seats_with_buttons(self, seats: Sequence[Mapping[str, Any]]) -> tuple[list[dict[str, str]], Result | None]:
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

    def links(self, seats: Sequence[Mapping[str, str]]) -> dict[str, str]:
        """The private link token of each game seat: its table seat's, the same in every
        game until the host reissues the links."""
        generation = self.store.link_generation()
        return {s["name"]: seat_token(self.secret, table_seat(s), generation) for s in seats}

    def reissue_links(self) -> Result:
        """New seat links for every seat of the table; the old ones stop working at once (an
        open page of an old link says to scan the new QR code)."""
        with self._lock:
            self.store.new_links()
            if self.record is not None:
                self.record.tokens = self.links(self.record.seats)
        log.info("seat links reissued")
        self.publish()
        return ok()

    # ------------------------------------------------------------------ the game's life cycle

    def start_game(self, game: str, seats: Sequence[Mapping[str, Any]], options: Mapping[str, Any] | None = None,
                   seed: int | None = None) -> Result:
        return self.lifecycle.start(game, seats, options, seed)

    def resume(self) -> bool:
        return self.lifecycle.resume()

    def end_game(self) -> Result:
        return self.lifecycle.end()

    def undo(self) -> Result:
        return self.lifecycle.undo()

    def undo_words(self) -> dict[str, str] | None:
        return self.lifecycle.undo_words()

    def running(self) -> bool:
        """A game is being played (not ended by its rules): ending it loses it."""
        return self.lifecycle.running()

    def expects_now(self) -> dict[str, Any] | None:
        """What the game waits for (the engine's ``expects``), None without a game."""
        with self._lock:
            return self.engine.expects(self.state) if self.state is not None else None

    def choice_now(self) -> tuple[dict[str, Any] | None, int]:
        """``expects_now()`` with the number of the game's events that revealed secret
        choices, read together: a new secret choice may open at the very event that
        revealed the last one (everyone chose 0)."""
        with self._lock:
            reveals = sum(e.revealed for e in self.ledger.entries) if self.ledger else 0
            return self.expects_now(), reveals

    # ------------------------------------------------------------------ the one way in

    def act(self, seat: str | None, type_: Any, values: Any, source: str = "phone") -> Result:
        """An input from ``seat`` (its page or its button) or from the host (``seat=None``):
        ``values`` are the input's field values (a page's form, or typed values).
        ``source``: "phone", "button", "host", "camera" (a layout read), or "typed" (dice
        typed by hand); a throw sent from a page is stored as typed by the seat or host."""
        with self._lock:
            if self.record is None:
                return no_game()
            expects = self.expects_now()
            if seat is not None and seat not in self.seat_names():
                return error(f"There is no seat called {seat!r} in this game.", f"{seat} という席はこのゲームにありません。")
            allowed = inputs.for_seat(expects, seat) if seat is not None else inputs.for_host(expects)
            inp = inputs.find(allowed, type_, seat if seat is not None else inputs.named_seat(values))
            if inp is None:
                return self._not_now(seat, type_, expects)
            try:
                event = inputs.event_from_values(inp, seat, values)
            except InputError as exc:
                return {"ok": False, "error": exc.message}
            if inputs.dice_field(inp) and source in ("phone", "host", "typed"):
                source = "seat_typed" if seat is not None else "host_typed"
            index = len(self.ledger.entries)
            result = self.apply(event, source)
            if result["ok"] and inputs.dice_field(inp):
                self.throws.applied_by_hand(index, source)
        if result["ok"]:
            if seat is not None:
                self.notes.pop(seat, None)
            log.info("%s from %s (%s)", type_, seat or "the host", source)
            if inp.get("secret") and seat is not None and source != "button":
                self.buttons.chosen_elsewhere(seat, event)
            self.after_change()
        return result

    def _not_now(self, seat: str | None, type_: Any, expects: Mapping[str, Any]) -> Result:
        who = seat or "The host"
        due = due_words(expects, seat)
        shown = type_ if isinstance(type_, str) and len(type_) <= 40 else short(type_)
        return error(f"{who} cannot send {shown} now. {due['en']}",
                     f"{seat or 'ホスト'}はいまその操作はできません。{due['ja']}")  # the page's words, not a type

    def apply(self, event: dict[str, Any], source: str) -> Result:
        """The engine checks ``event``, the store commits it with its ``source``, forced
        moves follow. Call with the lock held."""
        return self.lifecycle.apply(event, source)

    # ------------------------------------------------------------------ throws

    def settled_roll(self, roll: Any, frame: Any = None) -> Result:
        return self.throws.settled_roll(roll, frame)

    def claim_throw(self, seat: str) -> Result:
        return self.throws.claim(seat)

    def read_layout(self, seat: str) -> Result:
        return self.throws.read_layout(seat)

    def type_faces(self, seat: str | None, faces: Sequence[Any]) -> Result:
        return self.throws.type_faces(seat, faces)

    def pending_for(self, seat: str | None) -> list[dict[str, Any]]:
        return self.throws.pending_for(seat)

    def round_is_fresh(self) -> bool:
        return self.throws.round_is_fresh()

    def typed_throw(self, dice: Sequence[Mapping[str, Any]], seat: str | None = None) -> Result:
        return self.throws.typed(dice, seat)

    def correct_throw(self, dice: Sequence[Mapping[str, Any]]) -> Result:
        return self.throws.correct(dice)

    def last_throw_dice(self) -> list[dict[str, Any]]:
        return self.throws.last_throw_dice()

    @property
    def prompt(self) -> dict[str, str] | None:
        """Why the camera's last roll was not applied (shown on every page)."""
        return self.throws.prompt

    @property
    def prompt_dice(self) -> list[dict[str, Any]]:
        return self.throws.prompt_dice

    @property
    def pending(self) -> dict[str, Any] | None:
        return self.throws.pending

    @property
    def last_roll(self) -> Any:
        return self.throws.last_roll

    # ------------------------------------------------------------------ views

    def snapshot(self, seat: str | None = None) -> dict[str, Any]:
        return snapshot(self, seat)

    def frame_jpeg(self) -> bytes | None:
        return self.camera.frame_jpeg()

    def roll_jpeg(self) -> bytes | None:
        return self.throws.roll_jpeg()

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


def _config_seats(config: Any) -> list[dict[str, str]]:
    out = []
    for s in getattr(config, "seats", None) or []:
        if isinstance(s, Mapping):
            out.append({"name": s["name"], "colour": s["colour"]})
        else:
            out.append({"name": s.name, "colour": s.colour})
    return out
