"""The ONNX dice detector: preprocessing, inference, decoding."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Detection:
    """One die read in one image: its box in the image's own pixels, the top face (1-6,
    0 when unreadable or cocked), the model's confidence and the colour name (None when
    far from every known colour or not classified)."""

    box: tuple[float, float, float, float]
    face: int
    confidence: float
    colour: str | None = None
