"""Fixtures of the rendering tests."""
from __future__ import annotations

import pytest

from vision import polyhedra


@pytest.fixture
def drawn_looks(monkeypatch) -> list:
    """(sides, look) of every die `vision.polyhedra.draw` draws while the test runs."""
    drawn: list = []
    real = polyhedra.draw

    def draw(img, sides, value, *args, look=None, **kw):
        drawn.append((sides, look))
        return real(img, sides, value, *args, look=look, **kw)

    monkeypatch.setattr(polyhedra, "draw", draw)
    return drawn


@pytest.fixture
def truetype() -> list[str]:
    """The fonts of `vision.polyhedra.TRUETYPE` that Pillow finds here (none: the test is skipped)."""
    found = [f[1] for f in polyhedra.fonts() if f[0] == "ttf"]
    if not found:
        pytest.skip("Pillow finds none of vision.polyhedra.TRUETYPE here")
    return found
