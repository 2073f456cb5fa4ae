"""The table's sounds, made with numpy (no sound files to ship or download).

- ``locked``: a short two-note chime, when every seat has locked its secret choice;
- ``reveal``: a rising three-note arpeggio, as the choices are shown;
- ``refused``: a low double buzz, when a seat button's choice is refused.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from pi.voice.synth import RATE


def _note(freq: float, seconds: float, decay: float = 6.0, harmonics: tuple[float, ...] = (1.0, 0.3)) -> np.ndarray:
    t = np.arange(int(RATE * seconds)) / RATE
    wave = sum(a * np.sin(2 * np.pi * freq * (k + 1) * t) for k, a in enumerate(harmonics))
    attack = np.minimum(1.0, t / 0.005)  # no click at the start
    return (wave * attack * np.exp(-decay * t)).astype(np.float32)


def _gap(seconds: float) -> np.ndarray:
    return np.zeros(int(RATE * seconds), dtype=np.float32)


def _normal(samples: np.ndarray, peak: float = 0.6) -> np.ndarray:
    return (samples * (peak / max(1e-9, float(np.abs(samples).max())))).astype(np.float32)


@lru_cache(maxsize=None)
def sound(name: str) -> np.ndarray:
    """The samples of sound ``name`` (at ``RATE``); KeyError for an unknown name."""
    if name == "locked":
        return _normal(np.concatenate([_note(1318.5, 0.12, 18), _note(1975.5, 0.25, 10)]))
    if name == "reveal":
        notes = [_note(f, 0.11, 9, (1.0, 0.5, 0.2)) for f in (523.25, 659.25, 783.99)]
        return _normal(np.concatenate([*notes, _note(1046.5, 0.35, 6, (1.0, 0.5, 0.2)), _gap(0.1)]))
    if name == "refused":
        t = np.arange(int(RATE * 0.12)) / RATE
        buzz = np.sign(np.sin(2 * np.pi * 150 * t)) * 0.6 + np.sin(2 * np.pi * 300 * t) * 0.4
        pulse = (buzz * np.minimum(1.0, t / 0.004) * np.minimum(1.0, (t[-1] - t) / 0.01)).astype(np.float32)
        return _normal(np.concatenate([pulse, _gap(0.06), pulse]), 0.5)
    raise KeyError(f"no sound called {name!r}; the sounds are locked, reveal, refused")


NAMES = ("locked", "reveal", "refused")
