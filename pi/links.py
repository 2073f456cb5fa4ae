"""Seat links and the table's key: each seat's private page is reached through a token that
nobody can guess and that stays the same after a restart, without being stored.

A link belongs to the table's seat (its button; a seat without one, to its name), not to a
game: it lasts the whole evening, across games, until the host reissues the links."""
from __future__ import annotations

import logging
import secrets
from typing import Any

log = logging.getLogger(__name__)


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


def seat_token(secret: bytes, seat: str, generation: int = 0) -> str:
    """The private link token of the table's seat ``seat`` (22 URL-safe characters, 128
    bits); ``generation`` counts the host's reissues (each makes new, unrelated tokens)."""
    import base64
    import hashlib
    import hmac

    digest = hmac.new(secret, f"seat-link\0{seat}\0{generation}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest[:16]).decode().rstrip("=")


def table_seat(seat: dict[str, str]) -> str:
    """The table's seat a game's seat sits at: its button (a config seat), else its name."""
    return seat.get("button") or seat["name"]
