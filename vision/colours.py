"""Naming a die's colour: the default palette, per-table calibration and classification."""
from __future__ import annotations

# Reference body colours (BGR, as OpenCV stores pixels) of the default palette's dice.
# The synthetic renderer draws named dice with these; classification compares with them.
DEFAULT_PALETTE: dict[str, tuple[int, int, int]] = {
    "red": (40, 30, 200),
    "orange": (30, 130, 245),
    "yellow": (40, 215, 235),
    "green": (70, 160, 40),
    "blue": (190, 90, 30),
    "purple": (140, 50, 120),
    "pink": (180, 130, 245),
    "white": (235, 235, 235),
    "black": (35, 35, 35),
    "clear": (0, 0, 0),  # translucent: drawn see-through, classified by its own rule
}
