"""The table: the one loop that takes inputs, applies them to the game, stores and publishes.

Inputs come from four places, each a method that returns a result a page can show
(``{"ok": True}`` or ``{"ok": False, "error": {"en": ..., "ja": ...}}``) and never raises
into the web layer:

- declarations: ``declare(seat, value, source)`` from the seat panel (its ``on_lock``) or a
  phone;
- settled rolls: ``settled_roll(roll, frame)`` from the camera thread (``start()``);
- host actions: ``start_game``, ``typed_throw``, ``correct_throw``, ``card``, ``undo``,
  ``end_game``;
- the demo: ``demo_throw()``, ``press(seat)`` / ``release(seat)`` on the mock pins.

Every engine event goes through ``_apply``: the engine checks it (an ``IllegalEvent``
becomes an error result and nothing is stored), the store commits it, and only then the
new version is published (``wait_for_change`` wakes the live pages).

A game is its seats, options, seed and event list: the engine state is rebuilt by replaying
the stored events (``resume()`` after a restart, ``undo()``), so both give back exactly the
state the table had.
"""
from __future__ import annotations

import logging
import random
import secrets
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

log = logging.getLogger(__name__)

Result = dict[str, Any]

# How often the camera thread reads a frame, and how often it re-encodes the live JPEG.
FRAME_INTERVAL_S = 0.1
JPEG_INTERVAL_S = 0.2
# Mean grey-level change (0-255) of a 80x60 copy of the frame above which the table moves.
MOTION_THRESHOLD = 1.5


def ok(**extra: Any) -> Result:
    return {"ok": True, **extra}


def error(en: str, ja: str) -> Result:
    return {"ok": False, "error": {"en": en, "ja": ja}}


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

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "colour": self.colour,
            "face": self.face,
            "box": [round(float(v), 1) for v in self.box],
            "confidence": round(float(self.confidence), 3),
            "status": self.status,
            "cocked": self.cocked,
        }


# Settled-roll statuses (vision.settle): the die was not on the table before, was moved, or
# lay still since the last settled roll.
NEW, RETHROWN, STILL = "new", "rethrown", "still"

# Dice colour names in Japanese (the default palette's; other names are shown as they are).
COLOURS_JA = {"red": "赤", "orange": "オレンジ", "yellow": "黄", "green": "緑", "blue": "青",
              "purple": "紫", "pink": "ピンク", "white": "白", "black": "黒", "clear": "透明"}


def colour_ja(colour: str) -> str:
    return COLOURS_JA.get(colour, colour)


def _count_words_en(counts: Mapping[str, int]) -> str:
    """``{"red": 3, "blue": 2}`` -> "3 red and 2 blue dice"."""
    parts = [f"{n} {'of any colour' if c == '*' else c}" for c, n in counts.items() if n]
    if not parts:
        return "no dice"
    total = sum(n for n in counts.values() if n)
    text = _join_en(parts)
    if "*" in counts:
        return text.replace(" of any colour", " dice of any colour" if counts["*"] != 1 else " die of any colour")
    return f"{text} {'die' if total == 1 else 'dice'}"


def _count_words_ja(counts: Mapping[str, int]) -> str:
    parts = [f"{'色を問わず' if c == '*' else colour_ja(c)}{n}個" for c, n in counts.items() if n]
    return "、".join(parts) if parts else "ダイスなし"


def _join_en(parts: Sequence[str]) -> str:
    parts = list(parts)
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


class Table:
    """The appliance's one state, guarded by one lock, with all collaborators injected.

    ``panel`` is a ``hardware.panel.SeatPanel`` (or ``None``: phones only); ``camera`` a
    frame source with ``read()`` (``vision.camera``); ``detector`` has
    ``detect(image) -> [Detection]``; ``settler`` has ``update(detections, t)`` returning a
    status with ``.state`` and ``.roll`` (``vision.settle``). ``synthetic`` is the demo's
    ``SyntheticTable`` (it receives ``demo_throw``'s dice); without a detector the demo throw
    is applied as typed dice.
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
        self.panel = panel
        self.camera = camera
        self.detector = detector
        self.settler = settler
        self.clock = clock
        self.synthetic = synthetic
        self.rng = rng or random.Random()
        self.frame_interval = frame_interval
        self.secret = secret if secret is not None else table_secret(config)
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self.version = 0
        self.record: GameRecord | None = None
        self.engine: Any = None
        self.state: Any = None
        self.last_roll: list[RollDie] | None = None
        self.last_roll_frame: Any = None
        self.last_roll_time: float | None = None
        self.prompt: dict[str, str] | None = None
        self.prompt_dice: list[dict[str, Any]] = []  # the readable dice of the refused roll
        self.demo_thrown: list[dict[str, Any]] = []  # the demo's throw the camera has not applied yet
        self.camera_status: dict[str, Any] = {"ok": camera is not None, "message": None}
        if camera is None:
            self.camera_status["message"] = {
                "en": "No camera: type the dice on the host page.",
                "ja": "カメラがありません。ホスト画面でダイスの目を入力してください。",
            }
        self.warning: dict[str, str] | None = None
        self.accepted_ids: set[Any] = set()
        self._panel_open = False
        # The pictures are encoded once and shared by every page that asks: one thread at a
        # time, so a dozen phones fetching the same picture neither repeat the work nor
        # spread OpenCV's buffers over a dozen threads' memory.
        self._jpeg_lock = threading.Lock()
        self._frame_jpeg: bytes | None = None
        self._frame_jpeg_time = -1e9
        self._roll_jpeg: tuple[Any, bytes | None] = (None, None)  # (the roll it shows, JPEG)
        self._latest_frame: Any = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._in_panel_lock = threading.local()
        self._settler_reset = False
        self._still = False  # the settler reported the layout and nothing has moved since
        self._previous_small: Any = None
        self._calibration: dict[str, tuple[Any, list[Any]]] = {}
        self.seat_names = [s["name"] for s in _config_seats(config)]

    # ------------------------------------------------------------------ publishing

    def _publish(self) -> None:
        with self._changed:
            self.version += 1
            self._changed.notify_all()

    def wait_for_change(self, version: int, timeout: float | None = None) -> int:
        """Block until the table's version differs from ``version`` (or ``timeout``);
        returns the current version."""
        with self._changed:
            self._changed.wait_for(lambda: self.version != version or self._stop.is_set(), timeout)
            return self.version

    # ------------------------------------------------------------------ game lifecycle

    def start_game(
        self, game: str, seats: Sequence[Mapping[str, str]], options: Mapping[str, Any] | None = None,
        seed: int | None = None,
    ) -> Result:
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
                self.store.end_game(self.record.id, self._winner())
            game_id = self.store.new_game(game, seats, options, seed)
            self.record = GameRecord(game_id, game, seats, options, seed, self._links(game_id, seats))
            self.engine, self.state = engine, state
            self._clear_round()
        self._after_change()
        log.info("started %s game %s with %s", game, game_id, ", ".join(s["name"] for s in seats))
        return ok(game_id=game_id)

    def _seats_with_buttons(self, seats: Sequence[Mapping[str, Any]]) -> tuple[list[dict[str, str]], Result | None]:
        """The game's seats, each with the seat button it uses (``"button"``: a config seat's
        name; by default the config seat of the same name). A player may take another name
        than the config's and keep that seat's button."""
        buttons = set(self.seat_names)
        out: list[dict[str, str]] = []
        for s in seats:
            seat = {"name": str(s["name"]).strip(), "colour": str(s["colour"]).strip()}
            button = s.get("button") or (seat["name"] if seat["name"] in buttons else None)
            if button is not None:
                if button not in buttons:
                    return [], error(f"There is no seat button {button!r} in the config; the buttons are "
                                     f"{', '.join(self.seat_names)}.", f"設定に {button} の席ボタンはありません。")
                if any(o.get("button") == button for o in out):
                    return [], error(f"Two seats use the button of {button!r}; give each seat its own.",
                                     f"{button} のボタンを2つの席が使っています。")
                seat["button"] = str(button)
            out.append(seat)
        return out, None

    def _button(self, seat: str) -> str | None:
        """The panel seat (config seat name) whose button and LED belong to game seat ``seat``."""
        if self.record is not None:
            for s in self.record.seats:
                if s["name"] == seat:
                    return s.get("button")
            return None
        return seat if seat in self.seat_names else None

    def _seat_of_button(self, button: str) -> str | None:
        if self.record is None:
            return None
        for s in self.record.seats:
            if s.get("button") == button:
                return s["name"]
        return None

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
            state = self._replay(engine, record, self.store.events(record.id))
        except ValueError as exc:  # an engine that no longer accepts the stored events
            log.error("cannot resume %s game %s: %s; the host can start a new game", record.game, record.id, exc)
            return False
        with self._lock:
            self.record, self.engine, self.state = record, engine, state
            self._clear_round()
        self._after_change()
        log.info("resumed %s game %s", record.game, record.id)
        return True

    def end_game(self) -> Result:
        with self._lock:
            if self.record is None:
                return _no_game()
            self.store.end_game(self.record.id, self._winner())
            self.record, self.engine, self.state = None, None, None
            self._clear_round()
        self._after_change()
        return ok()

    def undo(self) -> Result:
        """Take back the last accepted event (the store forgets it; the state is replayed)."""
        with self._lock:
            if self.record is None:
                return _no_game()
            removed = self.store.undo_last(self.record.id)
            if removed is None:
                return error("There is nothing to undo yet.", "取り消せる操作はまだありません。")
            self.state = self._replay(self.engine, self.record, self.store.events(self.record.id))
            self.prompt = None
            self.accepted_ids = set()
            self._panel_open = False  # re-open the panel from the replayed state
        self._after_change()
        return ok()

    def _winner(self) -> str | None:
        return self._expects().get("winner") if self.state is not None else None

    def _links(self, game_id: Any, seats: Sequence[Mapping[str, str]]) -> dict[str, str]:
        """Each seat's private link token for this game: unguessable (an HMAC under the
        table's secret key) and the same after a restart, without storing it."""
        return {s["name"]: seat_token(self.secret, game_id, s["name"]) for s in seats}

    @staticmethod
    def _replay(engine: Any, record: GameRecord, events: Sequence[Mapping[str, Any]]) -> Any:
        state = engine.setup(_engine_seats(record.seats), dict(record.options), record.seed)
        for event in events:
            state = engine.apply(state, dict(event))
        return state

    def _clear_round(self) -> None:
        self.prompt = None
        self.demo_thrown = []
        self.accepted_ids = set()
        self._panel_open = False

    # ------------------------------------------------------------------ the one way in

    def _apply(self, event: dict[str, Any]) -> Result:
        """Engine check, then commit, then publish. Call with the lock held."""
        if self.record is None:
            return _no_game()
        from engines import IllegalEvent

        try:
            state = self.engine.apply(self.state, event)
        except IllegalEvent as exc:
            return error(str(exc), _ja_refused(str(exc)))
        try:
            self.store.append(self.record.id, event)
        except Exception as exc:  # a full or failing disk: nothing changes, nobody is told
            log.exception("could not store an event")
            return error(f"The event could not be saved ({exc}); nothing changed. Check the data folder.",
                         f"保存できませんでした（{exc}）。何も変わっていません。データフォルダを確認してください。")
        self.state = state
        if event.get("type") == "throw":
            self.demo_thrown = []
        return ok()

    def _expects(self) -> dict[str, Any]:
        if self.state is None:
            return {"kind": "none"}
        return self.engine.expects(self.state)

    def _after_change(self) -> None:
        """Drive the panel from what the game expects now, then tell the pages."""
        self._sync_panel()
        self._publish()

    def _sync_panel(self) -> None:
        if self.panel is None:
            return
        locked: dict[str, int] = {}
        with self._lock:
            expects = self._expects()
            kind = expects.get("kind")
            was_open = self._panel_open
            self._panel_open = kind == "declare"
            game_seats = [n for n in self.seat_names_in_game() if self._button(n) is not None]
            buttons = [self._button(n) for n in game_seats]
            if kind == "declare" and not was_open:
                # After an undo or a restart some seats may have declared already: their
                # LEDs show locked and their buttons stay still.
                waiting = set(expects.get("seats", game_seats))
                for seat in game_seats:
                    if seat not in waiting:
                        value = self._own_declaration(seat)
                        if value is not None:
                            locked[self._button(seat)] = value
        # Outside the table lock: the panel calls back into declare() from its own thread.
        if kind == "declare" and not was_open:
            self.panel.reset()
            self.panel.open(buttons)
            for button, value in locked.items():
                self._panel_lock(button, value)
        elif kind != "declare" and was_open:
            if self.state is None:
                self.panel.reset()
            else:
                self.panel.reveal()
        elif kind is None or kind == "none":
            self.panel.reset()

    def _own_declaration(self, seat: str) -> int | None:
        try:
            value = self.engine.view(self.state, seat).get("mine", {}).get("declaration")
        except (ValueError, AttributeError):
            return None
        return value if isinstance(value, int) else None

    # ------------------------------------------------------------------ declarations

    def declare(self, seat: str, value: int, source: str = "phone") -> Result:
        """A seat's secret declaration, from its button (``source="button"``) or its phone."""
        if getattr(self._in_panel_lock, "active", False):
            return ok()  # our own panel.lock() echoing back
        with self._lock:
            if self.record is None:
                return _no_game()
            expects = self._expects()
            if expects.get("kind") != "declare":
                return error(
                    "No declaration is being collected right now.",
                    "いまは宣言を受け付けていません。",
                )
            if seat not in self.seat_names_in_game():
                return error(f"There is no seat called {seat!r} in this game.", f"{seat} という席はこのゲームにありません。")
            try:
                value = int(value)
            except (TypeError, ValueError):
                return error("Choose a number from 0 to 5.", "0 から 5 の数を選んでください。")
            result = self._apply({"type": "declare", "seat": seat, "value": value})
        if result["ok"]:
            log.info("declaration locked by %s (%s)", seat, source)
            button = self._button(seat)
            if source != "button" and self.panel is not None and button is not None:
                self._panel_lock(button, value)
            self._after_change()
        return result

    def _panel_lock(self, button: str, value: int) -> None:
        lock = getattr(self.panel, "lock", None)
        if lock is None:
            return
        self._in_panel_lock.active = True
        try:
            lock(button, value)
        except Exception as exc:  # the LED is cosmetic; the declaration is stored
            log.warning("could not lock the seat panel of %s: %s", button, exc)
        finally:
            self._in_panel_lock.active = False

    def on_panel_lock(self, button: str, value: int) -> None:
        """The seat panel's ``on_lock`` callback (``button``: the config seat's name)."""
        seat = self._seat_of_button(button)
        if seat is None:
            log.warning("the button of %s is not used in this game; ignored", button)
            return
        result = self.declare(seat, value, "button")
        if not result["ok"]:
            log.warning("button declaration of %s refused: %s", seat, result["error"]["en"])
            self.warning = result["error"]
            self._publish()

    def seat_names_in_game(self) -> list[str]:
        return [s["name"] for s in self.record.seats] if self.record else []

    def seat_for_token(self, token: str) -> str | None:
        """The seat whose private link ends in ``token`` (constant-time compare)."""
        with self._lock:
            if self.record is None or not token:
                return None
            for seat, known in self.record.tokens.items():
                if secrets.compare_digest(known, token):
                    return seat
        return None

    # ------------------------------------------------------------------ cards

    def card(self, card: str) -> Result:
        """The host names the physical trap card just turned over."""
        with self._lock:
            result = self._apply({"type": "card", "card": str(card)})
        if result["ok"]:
            self._after_change()
        return result

    # ------------------------------------------------------------------ throws

    def settled_roll(self, roll: Any, frame: Any = None) -> Result:
        """A settled roll from vision: kept for statistics, shown, and (when the game
        waits for a throw and the dice match) turned into the throw event."""
        dice = [_roll_die(d) for d in getattr(roll, "dice", roll)]
        with self._lock:
            self.last_roll, self.last_roll_frame, self.last_roll_time = dice, frame, time.time()
            game_id = self.record.id if self.record else None
            try:
                self.store.record_roll(game_id, [d.as_dict() for d in dice], source="camera")
            except Exception as exc:  # statistics must never stop the game
                log.warning("could not record a roll: %s", exc)
            result = self._roll_to_throw(dice)
        self._after_change()
        return result

    def _roll_to_throw(self, dice: list[RollDie]) -> Result:
        expects = self._expects()
        if expects.get("kind") != "throw" or not dice:
            return ok(applied=False)
        if expects.get("reroll") or "*" in expects.get("dice", {}):
            chosen = dice  # an escape (or a tie-break) throws every die on the table
        else:
            chosen = [d for d in dice if d.id not in self.accepted_ids and d.status != STILL] or [
                d for d in dice if d.id not in self.accepted_ids
            ]
        self.prompt_dice = [{"colour": d.colour, "face": d.face} for d in chosen if d.colour and d.face]
        problem = self._check_dice(expects, chosen)
        if problem is not None:
            self.prompt = problem
            return {"ok": False, "error": problem}
        event = {"type": "throw", "dice": [{"colour": d.colour, "face": d.face} for d in chosen]}
        result = self._apply(event)
        if result["ok"]:
            self.prompt = None
            if expects.get("reroll") or "*" in expects.get("dice", {}):
                self.accepted_ids = {d.id for d in dice}
            else:
                self.accepted_ids |= {d.id for d in chosen}
            self._round_over_check()
        else:
            self.prompt = result["error"]
        return result

    def _round_over_check(self) -> None:
        """When the throws of a round are over, the next dice that land are all new."""
        if self._expects().get("kind") != "throw":
            self.accepted_ids = set()
            self._settler_reset = True

    def _check_dice(self, expects: Mapping[str, Any], dice: list[RollDie]) -> dict[str, str] | None:
        """A prompt to fix the throw when the dice seen differ from the dice expected."""
        want: dict[str, int] = {c: int(n) for c, n in expects.get("dice", {}).items() if n}
        unreadable = [d for d in dice if d.cocked or not 1 <= d.face <= 6 or not d.colour]
        readable = [d for d in dice if d not in unreadable]
        seen: dict[str, int] = {}
        for d in readable:
            seen[d.colour] = seen.get(d.colour, 0) + 1
        if "*" in want:
            match = not unreadable and sum(seen.values()) == want["*"] + sum(
                n for c, n in want.items() if c != "*"
            ) and all(seen.get(c, 0) >= n for c, n in want.items() if c != "*")
        else:
            match = not unreadable and seen == want
        if match:
            return None
        who = ", ".join(expects.get("seats", []))
        seen_en = _count_words_en(seen)
        seen_ja = _count_words_ja(seen)
        if unreadable:
            n = len(unreadable)
            seen_en = _join_en([p for p in [seen_en if seen else ""] if p] + [
                f"{'one die' if n == 1 else f'{n} dice'} it cannot read (cocked?)"
            ])
            seen_ja = (seen_ja + "、" if seen else "") + f"読めないダイス{n}個（傾いている？）"
        what = "Escape: rethrow all dice on the table. " if expects.get("reroll") else ""
        what_ja = "脱出: 卓上のダイスをすべて振り直します。" if expects.get("reroll") else ""
        return {
            "en": f"{what}Expected {_count_words_en(want)} ({who}); the camera sees {seen_en}. "
            "Rethrow or fix the dice on the host page.",
            "ja": f"{what_ja}期待: {_count_words_ja(want)}（{who}）。カメラの読み: {seen_ja}。"
            "振り直すか、ホスト画面でダイスを修正してください。",
        }

    def typed_throw(self, dice: Sequence[Mapping[str, Any]]) -> Result:
        """Dice typed on the host page (camera down, or fixing a throw the camera misread)."""
        with self._lock:
            if self.record is None:
                return _no_game()
            if self._expects().get("kind") != "throw":
                return error("The game is not waiting for a throw.", "いまはダイスを振る場面ではありません。")
            result = self._apply({"type": "throw", "dice": _clean_dice(dice)})
            if result["ok"]:
                self.prompt = None
                # The dice now on the table were taken in by hand: later new dice are the
                # ones the camera has not seen yet.
                if self.last_roll:
                    self.accepted_ids |= {d.id for d in self.last_roll}
                self._round_over_check()
        if result["ok"]:
            self._after_change()
        return result

    def correct_throw(self, dice: Sequence[Mapping[str, Any]]) -> Result:
        """Replace the last accepted throw with the dice the host typed."""
        with self._lock:
            if self.record is None:
                return _no_game()
            events = list(self.store.events(self.record.id))
            if not events or events[-1].get("type") != "throw":
                return error(
                    "The last event is not a throw; undo the later events first.",
                    "最後の操作はダイスの振りではありません。先に後の操作を取り消してください。",
                )
            from engines import IllegalEvent

            event = {"type": "throw", "dice": _clean_dice(dice)}
            try:
                state = self._replay(self.engine, self.record, events[:-1])
                state = self.engine.apply(state, event)
            except IllegalEvent as exc:
                return error(str(exc), _ja_refused(str(exc)))
            self.store.replace_last(self.record.id, event)
            self.state = state
            self.prompt = None
        self._after_change()
        return ok()

    def last_throw_dice(self) -> list[dict[str, Any]]:
        """The dice of the last event when it is a throw: what ``correct_throw`` can
        replace (the host's correction form); [] otherwise."""
        with self._lock:
            if self.record is None:
                return []
            events = list(self.store.events(self.record.id))
        if events and events[-1].get("type") == "throw":
            return list(events[-1]["dice"])
        return []

    # ------------------------------------------------------------------ demo controls

    def demo_throw(self) -> Result:
        """Roll random faces for whoever must throw now, as the synthetic camera's dice."""
        with self._lock:
            expects = self._expects()
            if expects.get("kind") != "throw":
                return error("Nobody has to throw right now.", "いまはダイスを振る人がいません。")
            counts = dict(expects.get("dice", {}))
            if "*" in counts:
                n = counts.pop("*")
                colours = [s["colour"] for s in self.record.seats if s["name"] in expects.get("seats", [])]
                for i in range(n):
                    c = colours[i % len(colours)] if colours else "white"
                    counts[c] = counts.get(c, 0) + 1
            dice = [(c, self.rng.randint(1, 6)) for c, n in counts.items() for _ in range(int(n))]
            # An escape (and a tie-break throw) rethrows everything; the first throw of a
            # round lands on an empty tray (the players collected the last round's dice).
            reroll = bool(expects.get("reroll")) or "*" in expects.get("dice", {})
            fresh = not reroll and not (self.engine.view(self.state).get("table") or [])
        if self.synthetic is not None:
            if fresh:
                self.synthetic.clear()
            self.synthetic.throw(dice, rethrow_all=reroll)
        thrown = [{"colour": c, "face": f} for c, f in dice]
        if self.detector is None or self.synthetic is None:
            return self.typed_throw(thrown)
        with self._lock:
            self.demo_thrown = thrown
        self._publish()
        return ok(thrown=thrown)

    def demo_apply_thrown(self) -> Result:
        """Apply the demo's last throw as typed dice (when the camera misread it)."""
        with self._lock:
            thrown = list(self.demo_thrown)
        if not thrown:
            return error("There is no demo throw waiting.", "待っているデモの振りはありません。")
        return self.typed_throw(thrown)

    def _button_pin(self, seat: str) -> Any:
        with self._lock:
            button = self._button(seat)
        if self.panel is None or button is None:
            return None
        return self.panel.button_pin(button)

    def press(self, seat: str) -> Result:
        pin = self._button_pin(seat)
        if pin is None:
            return error(f"There is no button for seat {seat!r}.", f"{seat} のボタンはありません。")
        pin.drive_low()
        return ok()

    def release(self, seat: str) -> Result:
        pin = self._button_pin(seat)
        if pin is None:
            return error(f"There is no button for seat {seat!r}.", f"{seat} のボタンはありません。")
        pin.drive_high()
        return ok()

    # ------------------------------------------------------------------ views

    def snapshot(self, seat: str | None = None) -> dict[str, Any]:
        """What a page shows: the engine's public view (or ``seat``'s own view) and the
        table's extras. Never anyone's declaration, nor who has locked, before the reveal."""
        with self._lock:
            view = self.engine.view(self.state, seat) if self.state is not None else None
            expects = self._expects()
            snap: dict[str, Any] = {
                "version": self.version,
                "game": self.record.public() if self.record else None,
                "view": view,
                "due": self._due_words(expects),
                "kind": expects.get("kind", "none"),
                "camera": dict(self.camera_status),
                "last_roll": [d.as_dict() for d in self.last_roll] if self.last_roll is not None else None,
                "prompt": self.prompt,
                "demo_pending": bool(self.demo_thrown),
                "warning": self.warning,
                "leds": self._leds(seat, expects.get("kind")),
                "seats": self._page_seats(),
            }
        return snap

    def _leds(self, seat: str | None, kind: str | None) -> dict[str, str]:
        """LED states for the virtual buttons. The public form never tells who has locked:
        while declarations are open every seat reads "open"."""
        names = self._page_seats()
        if self.panel is None:
            return {n: "off" for n in names}
        out = {}
        for name in names:
            button = self._button(name)
            if button is None:
                out[name] = "off"
            elif kind == "declare" and name != seat:
                out[name] = "open"
            else:
                try:
                    out[name] = self.panel.led(button)
                except Exception:
                    out[name] = "off"
        return out

    def _page_seats(self) -> list[str]:
        """The seats the pages list: the game's, or the config's before a game."""
        return self.seat_names_in_game() if self.record else list(self.seat_names)

    def _due_words(self, expects: Mapping[str, Any]) -> dict[str, str]:
        kind = expects.get("kind")
        if kind in (None, "none"):
            return {"en": "No game yet: the host starts one on the host page.",
                    "ja": "ゲームはまだ始まっていません。ホスト画面から開始してください。"}
        if kind == "declare":
            lo, hi = expects.get("min", 0), expects.get("max", 5)
            return {"en": f"Waiting for secret declarations ({lo}-{hi}) from every seat.",
                    "ja": f"全員の秘密の宣言（{lo}〜{hi}）を待っています。"}
        if kind == "card":
            return {"en": "Host: turn over the next trap card and name it on the host page.",
                    "ja": "ホスト: 次の罠カードをめくり、ホスト画面で選んでください。"}
        if kind == "throw":
            seats = list(expects.get("seats", []))
            counts = expects.get("dice", {})
            if expects.get("reroll"):
                total = sum(int(n) for n in counts.values())
                return {"en": f"Escape for {_join_en(seats)}: rethrow all {total} dice on the table.",
                        "ja": f"{'、'.join(seats)}の脱出: 卓上のダイス{total}個をすべて振り直してください。"}
            return {"en": f"{_join_en(seats)} to throw {_count_words_en(counts)}.",
                    "ja": f"{'、'.join(seats)}の番: {_count_words_ja(counts)}を振ってください。"}
        if kind == "over":
            winner = expects.get("winner")
            if winner:
                return {"en": f"Game over: {winner} wins.", "ja": f"ゲーム終了: {winner}の勝ち。"}
            return {"en": "Game over.", "ja": "ゲーム終了。"}
        return {"en": f"Waiting for: {kind}.", "ja": f"待機中: {kind}"}

    def frame_jpeg(self) -> bytes | None:
        """The latest camera frame as JPEG (encoded at most every ``JPEG_INTERVAL_S``)."""
        with self._jpeg_lock:
            with self._lock:
                frame = self._latest_frame
            now = self.clock()
            if frame is not None and (self._frame_jpeg is None or now - self._frame_jpeg_time >= JPEG_INTERVAL_S):
                self._frame_jpeg, self._frame_jpeg_time = _encode_jpeg(frame), now
            return self._frame_jpeg

    def roll_jpeg(self) -> bytes | None:
        """The last settled frame with every die's box and reading drawn (drawn once per roll)."""
        with self._jpeg_lock:
            with self._lock:
                frame, roll = self.last_roll_frame, self.last_roll
            if frame is None:
                return None
            shown, cached = self._roll_jpeg
            if shown is roll:  # settled_roll makes a new list for every roll
                return cached
            import cv2

            image = frame.copy()
            for d in roll or []:
                x0, y0, x1, y1 = (int(v) for v in d.box)
                colour = (0, 0, 255) if d.cocked or not d.face else (0, 200, 0) if d.status == NEW else (200, 200, 200)
                cv2.rectangle(image, (x0, y0), (x1, y1), colour, 2)
                text = f"{d.colour or '?'} {d.face if d.face else '?'}"
                cv2.putText(image, text, (x0, max(12, y0 - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 3)
                cv2.putText(image, text, (x0, max(12, y0 - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255), 1)
            cached = _encode_jpeg(image)
            self._roll_jpeg = (roll, cached)
            return cached

    # ------------------------------------------------------------------ colour calibration

    def calibration_status(self) -> dict[str, Any]:
        """The colours of the seats, and which have a captured calibration throw."""
        colours = [s["colour"] for s in _config_seats(self.config)]
        with self._lock:
            captured = {c: len(self._calibration[c][1]) for c in self._calibration}
        return {"colours": colours, "captured": captured,
                "available": self.camera is not None and self.detector is not None}

    def calibration_capture(self, colour: str) -> Result:
        """Keep the latest frame and its dice boxes as the calibration throw of ``colour``."""
        with self._lock:
            frame = self._latest_frame
        if frame is None or self.detector is None:
            return error("Calibration needs the camera and the detector; neither is reading now.",
                         "較正にはカメラと検出器が必要ですが、いまは読めていません。")
        boxes = [d.box for d in self.detector.detect(frame)]
        if not boxes:
            return error(f"No dice seen: throw the {colour} dice under the camera, then capture again.",
                         f"ダイスが見えません。{colour}のダイスをカメラの下に振ってから、もう一度取り込んでください。")
        with self._lock:
            self._calibration[colour] = (frame, boxes)
        self._publish()
        return ok(dice=len(boxes))

    def calibration_save(self) -> Result:
        """Learn the colours from the captured throws, save them in the data directory and
        hand them to the detector."""
        from vision.colours import ColourTable

        with self._lock:
            samples = [(c, frame, boxes) for c, (frame, boxes) in self._calibration.items()]
        if not samples:
            return error("Capture one throw of each colour first.", "先に色ごとに1回ずつ取り込んでください。")
        try:
            table = ColourTable.calibrate(samples)
        except ValueError as exc:
            return error(str(exc), f"較正できません: {exc}")
        path = colour_table_path(self.config)
        path.parent.mkdir(parents=True, exist_ok=True)
        table.save(path)
        if self.detector is not None and hasattr(self.detector, "colours"):
            self.detector.colours = table
        with self._lock:
            self._calibration.clear()
        self._publish()
        log.info("saved the colour calibration to %s", path)
        return ok()

    # ------------------------------------------------------------------ camera thread

    def start(self) -> None:
        """Start the camera thread (read, detect, settle; report settled rolls)."""
        if self.camera is None or self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(target=self._camera_loop, name="camera", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the camera thread and wake every waiting live page."""
        self._stop.set()
        with self._changed:
            self._changed.notify_all()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    @property
    def stopping(self) -> bool:
        return self._stop.is_set()

    def _camera_loop(self) -> None:
        from vision.camera import CameraError

        while not self._stop.is_set():
            started = self.clock()
            try:
                frame = self.camera.read()
            except CameraError as exc:  # a bare source; RetryingCamera returns None instead
                frame, reason = None, str(exc)
            except Exception as exc:  # a fault the appliance rides out
                log.exception("camera read failed")
                frame, reason = None, str(exc)
            else:
                reason = getattr(self.camera, "reason", None) or getattr(self.camera, "status", None)
            if frame is None:
                self._set_camera_status(False, str(reason or "no frame"))
                self._stop.wait(self.frame_interval)
                continue
            self._set_camera_status(True, None)
            with self._lock:
                self._latest_frame = frame
            if self.detector is not None and self.settler is not None:
                try:
                    if self._settler_reset:
                        self._settler_reset = False
                        self._still = False
                        self.settler.reset()
                    moved = self._motion(frame)
                    if moved or not self._still:
                        detections = self.detector.detect(frame)
                        status = self.settler.update(detections, self.clock())
                        # Once the table has settled and nothing moves, the detector rests.
                        self._still = getattr(status, "state", None) in ("settled", "empty") and not moved
                        if getattr(status, "roll", None) is not None:
                            self.settled_roll(status.roll, frame)
                except Exception:
                    log.exception("reading the dice failed; the game goes on with typed dice")
            self._stop.wait(max(0.0, self.frame_interval - (self.clock() - started)))

    def _motion(self, frame: Any) -> bool:
        """Whether this frame differs from the last one (a small grey copy, averaged): the
        camera thread skips the detector while the table lies still."""
        import cv2

        small = cv2.resize(frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY),
                           (80, 60), interpolation=cv2.INTER_AREA).astype("float32")
        previous, self._previous_small = self._previous_small, small
        if previous is None or previous.shape != small.shape:
            return True
        return float(cv2.absdiff(small, previous).mean()) > MOTION_THRESHOLD

    def _set_camera_status(self, good: bool, message: str | None) -> None:
        with self._lock:
            before = dict(self.camera_status)
            if good:
                self.camera_status = {"ok": True, "message": None}
            else:
                text = message or "camera unavailable"
                self.camera_status = {"ok": False, "message": {
                    "en": f"Camera problem: {text}. Retrying; type the dice on the host page meanwhile.",
                    "ja": f"カメラの不具合: {text}。再接続中です。その間はホスト画面でダイスを入力してください。",
                }}
            changed = before != self.camera_status
        if changed:
            if not good:
                log.warning("camera: %s", message)
            self._publish()


# ---------------------------------------------------------------------- helpers


def table_secret(config: Any) -> bytes:
    """The table's secret key (seat links, host sessions), kept in the data directory so
    links and logins survive a restart; a fresh one when the folder cannot keep it."""
    from pathlib import Path

    data_dir = getattr(config, "data_dir", None)
    if data_dir is None:
        return secrets.token_bytes(32)
    path = Path(data_dir) / "secret.key"
    try:
        if path.exists():
            key = bytes.fromhex(path.read_text().strip())
            if len(key) >= 16:
                return key
        path.parent.mkdir(parents=True, exist_ok=True)
        key = secrets.token_bytes(32)
        path.write_text(key.hex())
        path.chmod(0o600)
        return key
    except (OSError, ValueError) as exc:
        log.warning("cannot keep the table's key in %s (%s); seat links change at restart", path, exc)
        return secrets.token_bytes(32)


def seat_token(secret: bytes, game_id: Any, seat: str) -> str:
    """The private link token of ``seat`` in game ``game_id`` (22 URL-safe characters, 128 bits)."""
    import base64
    import hashlib
    import hmac

    digest = hmac.new(secret, f"seat-link\0{game_id}\0{seat}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:16]).decode().rstrip("=")


def colour_table_path(config: Any) -> Any:
    """Where the table's calibrated colours are kept (the detector loads them)."""
    from pathlib import Path

    return Path(config.data_dir) / "colours.json"


def _no_game() -> Result:
    return error("No game is running; the host starts one on the host page.",
                 "ゲームが始まっていません。ホスト画面から開始してください。")


def _ja_refused(message: str) -> str:
    return f"受け付けられませんでした: {message}"


def _engine_seats(seats: Sequence[Mapping[str, str]]) -> list[Any]:
    from engines import Seat

    return [Seat(s["name"], s["colour"]) for s in seats]


def _config_seats(config: Any) -> list[dict[str, str]]:
    seats = getattr(config, "seats", None) or []
    out = []
    for s in seats:
        if isinstance(s, Mapping):
            out.append({"name": s["name"], "colour": s["colour"]})
        else:
            out.append({"name": s.name, "colour": s.colour})
    return out


def _roll_die(d: Any) -> RollDie:
    get = (lambda k, default=None: d.get(k, default)) if isinstance(d, Mapping) else (
        lambda k, default=None: getattr(d, k, default))
    face = get("face", 0) or 0
    return RollDie(
        id=get("id"),
        colour=get("colour"),
        face=int(face),
        box=tuple(get("box", (0, 0, 0, 0))),
        confidence=float(get("confidence", 1.0)),
        status=get("status", NEW),
        cocked=bool(get("cocked", False)) or int(face) == 0,
    )


def _clean_dice(dice: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for d in dice:
        face = d.get("face")
        try:
            face = int(face)
        except (TypeError, ValueError):
            pass
        out.append({"colour": str(d.get("colour", "")).strip(), "face": face})
    return out


def _encode_jpeg(image: Any) -> bytes | None:
    import cv2

    good, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 70])
    return data.tobytes() if good else None
