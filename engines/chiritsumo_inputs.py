"""What Chiritsumo waits for: ``expects(state)`` of docs/contracts.md, built from the
state of ``engines/chiritsumo.py`` (which re-exports it), and the texts of dice held.

Phase ``play``: a ``throw`` input for each seat still to throw (its dice per colour), then
a ``build`` input for each seat still to build, whose ``rows`` field (kind ``layout``)
gives the places per row from the bottom (``rows``: 4, 3, 2, 1) and the dice that seat
threw (``dice``: ``{"colour", "face"}`` each), the only dice it may place. Phase
``exchange``: ``exchange`` and ``pass`` of the seat due. Phase ``swap``: ``swap``.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engines.chiritsumo_pyramid import CLEAR, COLOURS, EN, JA, ROW_SIZES
from engines.core import an_input, colour_ja, field, option, text

#: A seat's stage in a round of throws and builds.
TO_THROW, TO_BUILD, BUILT = 0, 1, 2
#: The dust pile's name as an exchange partner.
DUST = "dust"


def row_example() -> list[list[list[Any] | None]]:
    """A layout to show as an example (a new value each time: expects may be changed)."""
    return [[["yellow", 4], ["yellow", 4], ["red", 4], ["red", 4]], [["yellow", 3], None, ["red", 3]], [None, None], [None]]


def counts_text(counts: Sequence[int]) -> str:
    """Dice counts per colour (COLOURS order) in English: ``1 clear, 3 yellow``."""
    parts = [f"{n} {c}" for c, n in zip(COLOURS, counts) if n]
    return ", ".join(parts) if parts else f"no {EN['dice']}"


def counts_ja(counts: Sequence[int]) -> str:
    """Dice counts per colour in Japanese: ``透明1・黄3``."""
    return "・".join(f"{colour_ja(c)}{n}" for c, n in zip(COLOURS, counts) if n) or "なし"


def expects(state: Any) -> dict[str, Any]:
    """What the game waits for now: the inputs of docs/contracts.md."""
    inputs = {"play": _play_inputs, "exchange": _exchange_inputs, "swap": _swap_inputs}.get(state.phase)
    names = [s.name for s in state.seats]
    return {"phase": state.phase, "inputs": inputs(state) if inputs else [], "winners": [names[i] for i in state.winners]}


def _play_inputs(state: Any) -> list[dict[str, Any]]:
    """A throw of each seat still to throw, then a build of each seat still to build."""
    return ([_throw_input(state, i) for i, stage in enumerate(state.stage) if stage == TO_THROW]
            + [_build_input(state, i) for i, stage in enumerate(state.stage) if stage == TO_BUILD])


def _throw_input(state: Any, i: int) -> dict[str, Any]:
    name, held = state.seats[i].name, state.held[i]
    return an_input(
        "throw", [name],
        text(f"{name}: throw all your {EN['dice']} ({counts_text(held)}).",
             f"{name}: {JA['held']}の{JA['dice']}をすべて振ってください（{counts_ja(held)}）。"),
        [field("dice", "dice", EN["dice"].capitalize(), JA["dice"])],
        dice=[{"colour": c, "sides": 6, "count": n} for c, n in zip(COLOURS, held) if n],
        camera="new", action=text(f"Throw your {EN['dice']}", f"{JA['dice']}を振る"),
    )


def _build_input(state: Any, i: int) -> dict[str, Any]:
    """Seat ``i``'s build: its ``rows`` field says the places per row (``rows``) and the
    dice the seat may place (``dice``, its throw), for a page that lays out the pyramid."""
    name = state.seats[i].name
    return an_input(
        "build", [name],
        text(f"{name}: build your {EN['pyramid']} from your {EN['throw']}, bottom {EN['row']} of 4 first, and lay it "
             f"out flat under the camera; {EN['dice']} you cannot place go off the tray.",
             f"{name}: {JA['throw']}の{JA['dice']}で{JA['pyramid']}を下の{JA['row']}の4個から組み、カメラの下に平らに"
             f"並べてください。置けない{JA['dice']}はトレイの外へ。"),
        [field("rows", "layout", f"{EN['pyramid']} {EN['row']}s, bottom first".capitalize(),
               f"{JA['pyramid']}の{JA['row']}（下から）", rows=list(ROW_SIZES),
               dice=[d.as_dict() for d in state.throws[i] or ()], example=row_example())],
        action=text(f"Build your {EN['pyramid']}", f"{JA['pyramid']}を組む"),
    )


def _exchange_inputs(state: Any) -> list[dict[str, Any]]:
    i = state.order[state.turn]
    name = state.seats[i].name
    partners = _partners(state, i)
    give = [c for c, n in zip(COLOURS, state.held[i]) if n]
    take = [c for k, c in enumerate(COLOURS) if any(_partner_held(state, p)[k] for p in partners)]
    pile = state.dust is not None
    return [
        an_input(
            "exchange", [name],
            text(f"{name}: {EN['exchange'].capitalize()}! Give one of your {EN['dice']} for one of another colour from "
                 f"another player{' or the ' + EN['dust_pile'] if pile else ''}, or {EN['pass']}.",
                 f"{name}: {JA['exchange']}！自分の{JA['dice']}1個を{'他のプレイヤーか' + JA['dust_pile'] if pile else '他のプレイヤー'}"
                 f"の別の色の{JA['dice']}1個と交換するか、{JA['pass']}してください。"),
            [field("with", "choice", f"{EN['exchange'].capitalize()} with", f"{JA['exchange']}の相手",
                   options=[_partner_option(p) for p in partners]),
             field("give", "choice", "You give", f"渡す{JA['dice']}", options=_colour_options(give)),
             field("take", "choice", "You take", f"もらう{JA['dice']}", options=_colour_options(take))],
            action=text(f"{EN['exchange'].capitalize()} a die", JA["exchange"]),
        ),
        an_input("pass", [name], text(f"{name}: {EN['pass'].capitalize()} (no {EN['exchange']}).",
                                      f"{name}: {JA['pass']}（{JA['exchange']}しない）。"),
                 action=text(EN["pass"].capitalize(), JA["pass"])),
    ]


def _swap_inputs(state: Any) -> list[dict[str, Any]]:
    name = state.seats[0].name
    give = [c for c, n in zip(COLOURS, state.held[0]) if n and c != CLEAR]
    return [an_input(
        "swap", [name],
        text(f"{name}: {EN['complete'].capitalize()}! {EN['swap'].capitalize()} one coloured die for a clear one from the "
             f"{EN['reserve']} ({state.reserve} left).",
             f"{name}: {JA['complete']}！色のついた{JA['dice']}1個を{JA['reserve']}の透明の{JA['dice']}と{JA['swap']}"
             f"してください（残り{state.reserve}個）。"),
        [field("give", "choice", "You give", f"渡す{JA['dice']}", options=_colour_options(give))],
    )]


def _colour_options(colours: Sequence[str]) -> list[dict[str, Any]]:
    return [option(c, c, colour_ja(c)) for c in colours]


def _partner_option(partner: str) -> dict[str, Any]:
    return option(DUST, f"the {EN['dust_pile']}", JA["dust_pile"]) if partner == DUST else option(partner, partner, partner)


def _partners(state: Any, i: int) -> list[str]:
    """Who seat ``i`` may exchange with now: other seats but the last exchanger, the pile."""
    names = [s.name for s in state.seats]
    out = [names[j] for j in range(len(names)) if j != i and j != state.last_exchanger]
    if state.dust is not None:
        out.append(DUST)
    return out


def _partner_held(state: Any, name: str) -> tuple[int, ...]:
    if name == DUST:
        assert state.dust is not None
        return state.dust
    return state.held[[s.name for s in state.seats].index(name)]
