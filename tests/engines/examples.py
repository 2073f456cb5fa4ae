"""The shipped example scripts (docs/examples/), replayed as `dicetable replay` replays them."""
from __future__ import annotations

import io
import json
from pathlib import Path

from pi.replay import play_script

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"


def replayed(name: str) -> tuple[list[dict], dict]:
    """The steps of docs/examples/`name` (each event, and whether it was accepted) and its
    final view; the replay must end well (exit status 0)."""
    out = io.StringIO()
    with open(EXAMPLES / name, encoding="utf-8") as stream:
        assert play_script(stream, out) == 0
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    return lines[:-1], lines[-1]["final"]
