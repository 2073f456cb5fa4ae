"""The game's ledger: each accepted event with the input that produced it (its source),
whether it was a secret choice and whether it revealed the choices, the log lines it
added, and the round it was made in.

The store keeps the events and their sources; the ledger is rebuilt from them by replay
(after a restart, for a finished game's history) and grows with each event. It knows no
game: secret choices come from ``expects``, log lines and rounds from ``view`` (its
``log``, and its ``round`` where the game has rounds).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from pi import inputs

#: Where an event came from, in words (the store keeps the key).
SOURCES: dict[str, dict[str, str]] = {
    "camera": {"en": "read by the camera", "ja": "カメラの読み取り"},
    "camera_typed": {"en": "read by the camera, d10 and d20 typed by their owners",
                     "ja": "カメラの読み取り（d10・d20は持ち主が入力）"},
    "phone": {"en": "sent from the seat's phone", "ja": "席のスマホから"},
    "button": {"en": "entered on the seat button", "ja": "席のボタンで入力"},
    "host": {"en": "sent by the host", "ja": "ホストが送信"},
    "seat_typed": {"en": "typed on the seat's phone", "ja": "席のスマホで入力"},
    "host_typed": {"en": "typed by the host", "ja": "ホストが入力"},
    "corrected": {"en": "corrected by the host", "ja": "ホストが修正"},
    "forced": {"en": "sent by the table: nothing to choose", "ja": "選択肢がないためテーブルが送信"},
}

#: Sources the game log marks: whatever did not come from the camera or a player's own
#: button or phone choice.
MARKED = ("seat_typed", "host_typed", "corrected", "host", "forced")


def source_words(source: str | None) -> dict[str, str] | None:
    return SOURCES.get(source or "")


@dataclass(frozen=True)
class Entry:
    """One accepted event of the game and what the table knows of it."""

    event: dict[str, Any]
    source: str | None
    throw: str | None  # a throw: the name of its thrown-dice field
    secret: bool  # a secret choice
    revealed: bool  # a secret choice that closed the choosing (the last one made)
    lines: int  # the length of the game log after it
    round: Any  # the view's "round" after it (None where the game has none)


@dataclass
class Ledger:
    """The entries of a game's active events, in order, after its setup's log and round."""

    lines: int
    round: Any
    entries: list[Entry] = field(default_factory=list)

    @classmethod
    def start(cls, engine: Any, state: Any) -> Ledger:
        view = engine.view(state)
        return cls(len(view.get("log") or []), view.get("round"))

    def hidden_from(self) -> int:
        """Where the secret choices nobody has seen yet (the open choosing's) begin."""
        i = len(self.entries)
        while i and _hidden(self.entries[i - 1]):
            i -= 1
        return i

    def last_action(self) -> int | None:
        """The index of the last event a player or the host made that everyone has seen:
        past the secret choices not yet revealed (the host's page must not change when a
        seat locks) and the forced moves. None when there is none."""
        i = self.hidden_from()
        while i and self.entries[i - 1].source == "forced":
            i -= 1
        return i - 1 if i else None

    def undo_from(self) -> int | None:
        """The index of the first event an undo of the last action everyone has seen
        takes back: that action, with the forced moves and hidden secret choices after it;
        when that action revealed secret choices, every choice of that round (so nobody
        chooses again after seeing the others). None when there is nothing to undo."""
        i = self.last_action()
        if i is not None and self.entries[i].secret:
            while i and _hidden(self.entries[i - 1]):
                i -= 1
        return i

    def words(self, index: int, log: list[Mapping[str, str]]) -> dict[str, str]:
        """The event at ``index`` in words: the first line it added to the game ``log`` (what
        it did; the lines after it are what followed), else its type and seat."""
        entry = self.entries[index]
        start = self.entries[index - 1].lines if index else self.lines
        if entry.lines > start:
            line = log[start]
            return {"en": line.get("en", ""), "ja": line.get("ja") or line.get("en", "")}
        seat = entry.event.get("seat")
        what = f"{entry.event.get('type')}" + (f" ({seat})" if seat else "")
        return {"en": what, "ja": f"{seat}の入力" if seat else "直前の入力"}  # no event type on the Japanese page

    def rounds(self, log: list[Mapping[str, str]]) -> list[dict[str, Any]]:
        """The game ``log`` by rounds, oldest first: ``{"round", "lines"}`` each, a line in
        the round its event was made in (the event that ends a round, with its result, in
        that round). A game without rounds is one group (``round`` None)."""
        pieces = [(self.lines, self.round)]  # (where its lines end, the round it was made in)
        made_in = self.round
        for entry in self.entries:
            pieces.append((entry.lines, made_in))
            made_in = entry.round
        out: list[dict[str, Any]] = []
        start = 0
        for end, round_ in pieces:
            if end <= start:
                continue
            if out and out[-1]["round"] == round_:
                out[-1]["lines"].extend(log[start:end])
            else:
                out.append({"round": round_, "lines": list(log[start:end])})
            start = end
        return out

    def last_round(self, log: list[Mapping[str, str]]) -> dict[str, Any] | None:
        """The last round's result while the round now being played shows nothing of its
        own yet (until its first action everyone sees): that round's lines; else None."""
        groups = self.rounds(log)
        now = self.entries[-1].round if self.entries else self.round
        if now is None or not groups or groups[-1]["round"] == now:
            return None
        return groups[-1]

    def truncate(self, count: int) -> None:
        """Keep the first ``count`` entries (the others were undone)."""
        del self.entries[count:]

    def marked(self, log: list[Mapping[str, str]]) -> list[dict[str, str]]:
        """The game log with the first line of each event (what it did; the lines after
        it are what followed) marked by its source where that is worth saying
        (``MARKED``); a secret choice's never is (it would tell who chose last)."""
        out = [dict(line) for line in log]
        start = self.lines
        for entry in self.entries:
            words = source_words(entry.source)
            if entry.source in MARKED and not entry.secret and words and entry.lines > start:
                line = out[start]
                line["en"] = f"{line.get('en', '')} ({words['en']})"
                line["ja"] = f"{line.get('ja', '')}（{words['ja']}）"
            start = entry.lines
        return out


def entry_of(engine: Any, before: Any, after: Any, event: Mapping[str, Any], source: str | None) -> Entry:
    """The entry of ``event``, which took the game from ``before`` to ``after``."""
    expects = engine.expects(before)
    seat = event.get("seat")
    inp = next((i for i in inputs.inputs(expects) if i.get("type") == event.get("type")
                and (seat is None or seat in i.get("seats", []) or not i.get("seats"))), {})
    secret = bool(inp.get("secret"))
    waiting = _choosing(expects) - {seat}
    view = engine.view(after)
    return Entry(dict(event), source, inputs.dice_field(inp) if inp else None, secret,
                 secret and (not waiting or _choosing(engine.expects(after)) != waiting),
                 len(view.get("log") or []), view.get("round"))


def _hidden(entry: Entry) -> bool:
    """A secret choice not revealed when it was made (nobody has seen it, if the choosing
    is still open)."""
    return entry.secret and not entry.revealed


def _choosing(expects: Mapping[str, Any]) -> frozenset[str]:
    """The seats a secret choice is still open for."""
    return frozenset(s for i in inputs.inputs(expects) if i.get("secret") for s in i.get("seats", []))


def rebuild(engine: Any, state: Any, records: Iterable[Any]) -> tuple[Ledger, Any]:
    """The ledger of a game set up as ``state`` after its stored ``records``
    (``store.records``), and its state after them."""
    ledger = Ledger.start(engine, state)
    for record in records:
        after = engine.apply(state, dict(record.event))
        ledger.entries.append(entry_of(engine, state, after, record.event, record.source))
        state = after
    return ledger, state
