"""Pure rule engines, one module per game, beside core.py.

``load(name)`` returns a game's engine module. ``replay`` (from core) sets a game up and
applies a list of events; the ``dicetable replay`` command and the host page use it.
"""
from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from engines.core import DataError, EngineError, IllegalEvent, ReplayStep, Seat, SetupError, replay

__all__ = ["GAMES", "load", "replay", "GameNotImplemented", "EngineError", "IllegalEvent", "DataError", "SetupError", "Seat",
           "ReplayStep"]

#: Every game of the project, by the name scripts and configs use.
GAMES = ("alea", "dieangler", "chiritsumo", "ariexpress", "flyingdwarves")


class GameNotImplemented(NotImplementedError, ValueError):
    """A game of the project whose engine is not written yet."""


def load(name: str) -> ModuleType:
    """The engine module of game ``name``.

    Raises ``ValueError`` listing the known games for an unknown name, and
    ``GameNotImplemented`` (a ``ValueError`` too) for a known game whose engine is not
    written yet.
    """
    if name not in GAMES:
        raise ValueError(f"unknown game {name!r}; the games are: {', '.join(GAMES)}")
    try:
        return importlib.import_module(f"engines.{name}")
    except ModuleNotFoundError as exc:
        if exc.name != f"engines.{name}":
            raise
        ready = [g for g in GAMES if importlib.util.find_spec(f"engines.{g}") is not None]
        raise GameNotImplemented(
            f"the {name} engine is not implemented yet; games you can play now: {', '.join(ready)}"
        ) from None
