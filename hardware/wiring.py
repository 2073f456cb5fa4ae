"""The seat panel's wiring, made from the config so that the guide never drifts from it.

Each seat has a three-wire cable to the Pi's 40-pin header: the button's pin, the LED's pin
and one ground pin of its own (every header pin takes one connector, and the header has eight
grounds for at most eight seats). At the seat, the button goes between its pin and the ground
(the Pi's internal pull-up holds the pin high); the LED's anode goes to its pin and its cathode
through the series resistor to the same ground.

`dicetable wiring [--config FILE]` prints the table that hardware/README.md holds;
`--svg OUT` writes the drawing (hardware/wiring.svg is the example config's). Both come from
`seat_wiring(seats)`: a seat's pins are BCM numbers in the config, turned into the header's
physical pin numbers by `HEADER`, and each seat gets the ground pins nearest its two pins.
"""
from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

#: The 40-pin header (every Pi since the B+), physical pin 1 to 40. Odd pins form the row on
#: the board's inner side, even pins the row along its edge; pin 1 has the square pad.
HEADER: tuple[str, ...] = (
    "3V3", "5V", "GPIO2", "5V", "GPIO3", "GND", "GPIO4", "GPIO14", "GND", "GPIO15",
    "GPIO17", "GPIO18", "GPIO27", "GND", "GPIO22", "GPIO23", "3V3", "GPIO24", "GPIO10", "GND",
    "GPIO9", "GPIO25", "GPIO11", "GPIO8", "GND", "GPIO7", "GPIO0", "GPIO1", "GPIO5", "GND",
    "GPIO6", "GPIO12", "GPIO13", "GND", "GPIO19", "GPIO16", "GPIO26", "GPIO20", "GND", "GPIO21",
)
#: BCM number -> physical header pin.
BCM_TO_PIN: dict[int, int] = {
    int(label[4:]): pin for pin, label in enumerate(HEADER, start=1) if label.startswith("GPIO")
}
#: The header's ground pins.
GROUND_PINS: tuple[int, ...] = tuple(pin for pin, label in enumerate(HEADER, start=1) if label == "GND")

#: The LED's series resistor at 3.3 V: a red, orange or yellow LED (about 2 V) then draws
#: about 4 mA, eight of them 32 mA, inside the header's 50 mA for all pins together.
LED_RESISTOR = "330 Ω"
#: For LEDs of about 3 V (blue, true green, white, pink, purple), which 330 Ω leaves dim:
#: about 3 mA each.
LED_RESISTOR_3V = "100 Ω"
#: Each seat's LED in its dice's colour helps a player find their button; black and clear
#: dice take a white LED.
_LED_2V = ("red", "orange", "yellow")
#: The longest cable from the header to a seat: the internal pull-up (about 50 kΩ) is weak,
#: and a longer wire picks up more noise than the panel's 20 ms noise filter is meant for.
LONGEST_WIRE_M = 1.5

#: The pages' colours for the seats' dice (pi/web/static/style.css).
COLOUR_FILL = {
    "red": "#d2322d", "orange": "#f5892a", "yellow": "#f2d43c", "green": "#237a34",
    "blue": "#2a63c6", "purple": "#7b3694", "pink": "#f7a6c4", "white": "#fafafa",
    "black": "#222222", "clear": "#e8f4f8",
}


@dataclass(frozen=True)
class SeatWiring:
    """Where one seat's three wires go: BCM numbers and physical header pins."""

    name: str
    colour: str
    button_bcm: int
    button_pin: int
    led_bcm: int
    led_pin: int
    ground_pin: int


def led_resistor(colour: str) -> str:
    """The series resistor for an LED of the seat's dice colour (white for black or clear)."""
    return LED_RESISTOR if colour in _LED_2V else LED_RESISTOR_3V


def header_pin(bcm: int) -> int:
    """The physical header pin of BCM GPIO ``bcm`` (ValueError if the header has none)."""
    try:
        return BCM_TO_PIN[bcm]
    except KeyError:
        raise ValueError(f"GPIO {bcm} is not on the 40-pin header; use a BCM number 2 to 27") from None


def _place(pin: int) -> tuple[int, int]:
    """A header pin's (row, column): rows 0 to 19 from pin 1's end, column 0 odd, 1 even."""
    return (pin - 1) // 2, (pin - 1) % 2


def _distance(a: int, b: int) -> int:
    (ra, ca), (rb, cb) = _place(a), _place(b)
    return abs(ra - rb) + abs(ca - cb)


def seat_wiring(seats: Sequence) -> list[SeatWiring]:
    """Each seat's pins, and its own ground pin: the grounds are shared out so that the wires
    are as short as they can be together (fewest header rows spanned; ties go to the lower
    pin numbers, seat by seat). ``seats`` are config seats (name, colour, button_pin, led_pin)."""
    if len(seats) > len(GROUND_PINS):
        raise ValueError(f"{len(seats)} seats: the header has {len(GROUND_PINS)} ground pins, one per seat")
    pins = [(header_pin(s.button_pin), header_pin(s.led_pin)) for s in seats]
    best: tuple[int, ...] = ()
    best_cost = None
    for grounds in itertools.permutations(GROUND_PINS, len(seats)):
        cost = sum(_distance(b, g) + _distance(led, g) for (b, led), g in zip(pins, grounds))
        if best_cost is None or cost < best_cost:
            best, best_cost = grounds, cost
    return [SeatWiring(s.name, s.colour, s.button_pin, b, s.led_pin, led, g)
            for s, (b, led), g in zip(seats, pins, best)]


def table(wiring: Iterable[SeatWiring]) -> str:
    """The wiring as a Markdown table (hardware/README.md holds the example config's)."""
    lines = [
        "| seat | dice | button: BCM | button: header pin | LED: BCM | LED: header pin | ground pin | LED resistor |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for w in wiring:
        lines.append(f"| {w.name} | {w.colour} | GPIO{w.button_bcm} | {w.button_pin} | "
                     f"GPIO{w.led_bcm} | {w.led_pin} | {w.ground_pin} | {led_resistor(w.colour)} |")
    return "\n".join(lines) + "\n"


# --- the drawing ------------------------------------------------------------------------

_PIN_FILL = {"GPIO": "#bbbbbb", "GND": "#222222", "3V3": "#f7d9a8", "5V": "#f3b6b6"}
_PIN_KIND = {"GND": "ground", "3V3": "3.3 V", "5V": "5 V", "GPIO": "other GPIO"}
_STEP = 26  # header pitch in the drawing
_HX, _HY = 60, 70  # the header's top-left pin centre
_CARD_W, _CARD_H = 330, 150


def _text(x: int, y: int, text: str, size: int = 12, anchor: str = "start", weight: str = "normal",
          fill: str = "#222222") -> str:
    return (f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{fill}">{escape(text)}</text>')


def _header_svg(wiring: Sequence[SeatWiring]) -> list[str]:
    """The header from above, board edge at the top: even pins along the top row, odd below."""
    used: dict[int, tuple[str, str]] = {}
    for w in wiring:
        for pin, what in ((w.button_pin, "button"), (w.led_pin, "LED"), (w.ground_pin, "GND")):
            used[pin] = (w.colour, f"{w.name} {what}")
    out = [_text(_HX - 10, 30, "The Pi's 40-pin header from above (board edge at the top; "
                 "pin 1 has the square pad)", 14, weight="bold")]
    width = 19 * _STEP + 40
    out.append(f'<rect x="{_HX - 20}" y="{_HY - 20}" width="{width}" height="{_STEP + 40}" '
               'rx="6" fill="#f4f4f4" stroke="#888888"/>')
    for pin, label in enumerate(HEADER, start=1):
        row, col = _place(pin)
        x = _HX + row * _STEP
        y = _HY + (_STEP if col == 0 else 0)
        colour = used.get(pin, (None, ""))[0]
        fill = COLOUR_FILL[colour] if colour and label != "GND" else _PIN_FILL[_kind(label)]
        stroke = COLOUR_FILL[colour] if colour else "#666666"
        width_ = 4 if colour else 1
        if pin == 1:
            out.append(f'<rect x="{x - 8}" y="{y - 8}" width="16" height="16" fill="{fill}" '
                       f'stroke="{stroke}" stroke-width="{width_}"/>')
        else:
            out.append(f'<circle cx="{x}" cy="{y}" r="8" fill="{fill}" stroke="{stroke}" '
                       f'stroke-width="{width_}"/>')
        ny = y - 14 if col == 1 else y + 22
        out.append(_text(x, ny, str(pin), 10, "middle"))
    # What the pins' fills mean, then who is on each used pin, under the header.
    y = _HY + _STEP + 44
    for i, kind in enumerate(_PIN_FILL):
        x = _HX - 10 + i * 120
        out.append(f'<circle cx="{x + 6}" cy="{y - 4}" r="6" fill="{_PIN_FILL[kind]}" stroke="#666666"/>')
        out.append(_text(x + 18, y, _PIN_KIND[kind] + (" (wire nothing here)" if kind == "5V" else ""), 11))
    y += 26
    out.append(_text(_HX - 10, y, "Pins used (ringed in the seat's colour):", 12, weight="bold"))
    for i, pin in enumerate(sorted(used)):
        colour, who = used[pin]
        x = _HX - 10 + (i % 4) * 165
        yy = y + 20 + (i // 4) * 18
        out.append(f'<rect x="{x}" y="{yy - 10}" width="12" height="12" fill="{COLOUR_FILL[colour]}" '
                   'stroke="#444444"/>')
        out.append(_text(x + 18, yy, f"pin {pin}: {who}", 11))
    return out


def _kind(label: str) -> str:
    return "GPIO" if label.startswith("GPIO") else label


def _card_svg(w: SeatWiring, x: int, y: int) -> list[str]:
    """One seat's cable and parts: button and LED with its resistor, both to the seat's ground."""
    fill = COLOUR_FILL[w.colour]
    led_fill = fill if w.colour not in ("black", "clear") else COLOUR_FILL["white"]
    out = [f'<rect x="{x}" y="{y}" width="{_CARD_W}" height="{_CARD_H}" rx="8" fill="#ffffff" '
           f'stroke="{fill}" stroke-width="3"/>',
           _text(x + 12, y + 22, f"{w.name} ({w.colour} dice)", 14, weight="bold")]
    left, right = x + 12, x + _CARD_W - 40
    rows = ((y + 52, f"pin {w.button_pin} GPIO{w.button_bcm}"),
            (y + 92, f"pin {w.led_pin} GPIO{w.led_bcm}"),
            (y + 132, f"pin {w.ground_pin} GND"))
    for ry, label in rows:
        out.append(_text(left, ry + 4, label, 11))
    start = left + 96
    # Button: the pin, a push-button symbol, on to the ground rail.
    by = rows[0][0]
    out += [f'<line x1="{start}" y1="{by}" x2="{start + 60}" y2="{by}" stroke="#222222" stroke-width="2"/>',
            f'<circle cx="{start + 62}" cy="{by}" r="3" fill="#ffffff" stroke="#222222" stroke-width="2"/>',
            f'<circle cx="{start + 98}" cy="{by}" r="3" fill="#ffffff" stroke="#222222" stroke-width="2"/>',
            f'<line x1="{start + 58}" y1="{by - 10}" x2="{start + 102}" y2="{by - 10}" stroke="#222222" stroke-width="2"/>',
            f'<line x1="{start + 80}" y1="{by - 10}" x2="{start + 80}" y2="{by - 18}" stroke="#222222" stroke-width="2"/>',
            f'<line x1="{start + 101}" y1="{by}" x2="{right}" y2="{by}" stroke="#222222" stroke-width="2"/>',
            _text(start + 80, by + 18, "button", 10, "middle")]
    # LED: the pin to the anode, the cathode through the resistor to the ground rail.
    ly = rows[1][0]
    tri = f"{start + 40},{ly - 9} {start + 40},{ly + 9} {start + 58},{ly}"
    out += [f'<line x1="{start}" y1="{ly}" x2="{start + 40}" y2="{ly}" stroke="#222222" stroke-width="2"/>',
            f'<polygon points="{tri}" fill="{led_fill}" stroke="#222222" stroke-width="2"/>',
            f'<line x1="{start + 58}" y1="{ly - 9}" x2="{start + 58}" y2="{ly + 9}" stroke="#222222" stroke-width="2"/>',
            f'<line x1="{start + 58}" y1="{ly}" x2="{start + 90}" y2="{ly}" stroke="#222222" stroke-width="2"/>',
            f'<rect x="{start + 90}" y="{ly - 7}" width="40" height="14" fill="#ffffff" stroke="#222222" stroke-width="2"/>',
            f'<line x1="{start + 130}" y1="{ly}" x2="{right}" y2="{ly}" stroke="#222222" stroke-width="2"/>',
            _text(start + 49, ly + 22, "LED (long leg left)", 10, "middle"),
            _text(start + 110, ly - 12, led_resistor(w.colour), 10, "middle")]
    # The ground rail joins them.
    gy = rows[2][0]
    out += [f'<line x1="{start}" y1="{gy}" x2="{right}" y2="{gy}" stroke="#222222" stroke-width="2"/>',
            f'<line x1="{right}" y1="{by}" x2="{right}" y2="{gy}" stroke="#222222" stroke-width="2"/>',
            f'<circle cx="{right}" cy="{ly}" r="3" fill="#222222"/>',
            f'<circle cx="{right}" cy="{gy}" r="3" fill="#222222"/>']
    return out


def svg(wiring: Sequence[SeatWiring]) -> str:
    """The wiring drawing: the header with every used pin in its seat's colour, then one card
    per seat with its cable's three wires, its button, and its LED and resistor."""
    wiring = list(wiring)
    top = _HY + _STEP + 44 + 26 + 20 + ((len(wiring) * 3 + 3) // 4) * 18 + 16
    cards = []
    for i, w in enumerate(wiring):
        cards += _card_svg(w, 20 + (i % 2) * (_CARD_W + 20), top + (i // 2) * (_CARD_H + 20))
    height = top + ((len(wiring) + 1) // 2) * (_CARD_H + 20) + 50
    width = 2 * _CARD_W + 60
    notes = [_text(20, height - 32, f"Each seat: one cable of three wires, at most {LONGEST_WIRE_M:g} m. "
                   "No resistor on the button: the Pi's pull-up is inside.", 11),
             _text(20, height - 14, f"LED in the seat's colour: {LED_RESISTOR} for red, orange or yellow; "
                   f"{LED_RESISTOR_3V} for a 3 V LED (blue, green, white, pink, purple).", 11)]
    body = [*_header_svg(wiring), *cards, *notes]
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="sans-serif">\n'
            f'<rect width="{width}" height="{height}" fill="#ffffff"/>\n'
            + "\n".join(body) + "\n</svg>\n")


# --- the command ------------------------------------------------------------------------

def _arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", help="config file (default: the laptop defaults, which are the "
                   "example config's seats)")
    p.add_argument("--svg", metavar="OUT", help="also write the wiring drawing (SVG) to OUT")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("wiring", help="print the seat wiring (header pins) from the config; "
                       "--svg draws it", description=_DESCRIPTION)
    _arguments(p)
    p.set_defaults(handler=_run)


_DESCRIPTION = "The seat buttons' and LEDs' header pins and grounds, from the config."


def _run(args: argparse.Namespace) -> int:
    from pi import config

    try:
        seats = config.load(args.config).seats
    except config.ConfigError as exc:
        print(f"dicetable wiring: {exc}", file=sys.stderr)
        return 2
    wiring = seat_wiring(seats)
    sys.stdout.write(table(wiring))
    if args.svg:
        try:
            Path(args.svg).write_text(svg(wiring), encoding="utf-8")
        except OSError as exc:
            print(f"dicetable wiring: cannot write {args.svg} ({exc})", file=sys.stderr)
            return 1
        print(f"drawing written to {args.svg}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    """`python -m hardware.wiring [--config FILE] [--svg OUT]`: the same as `dicetable wiring`."""
    parser = argparse.ArgumentParser(prog="python -m hardware.wiring", description=_DESCRIPTION)
    _arguments(parser)
    return _run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
