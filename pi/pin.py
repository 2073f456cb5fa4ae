"""The host PIN, kept as a salted PBKDF2 hash so that it is never stored in clear.

``dicetable pin`` asks for a PIN and prints the config line to paste:
``host_pin_hash = "pbkdf2_sha256$100000$<salt>$<hash>"``. A config may still hold a
clear ``host_pin`` (the laptop default "0000"); ``dicetable run`` then says once, without
the PIN, that a hash is better.
"""
from __future__ import annotations

import argparse
import base64
import getpass
import hashlib
import hmac
import re
import secrets
import sys

ITERATIONS = 100_000
PIN_RE = re.compile(r"[0-9]{4,8}")
HASH_RE = re.compile(r"pbkdf2_sha256\$(\d+)\$([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+)")


def hash_pin(pin: str, salt: bytes | None = None, iterations: int = ITERATIONS) -> str:
    salt = salt if salt is not None else secrets.token_bytes(16)
    digest = hashlib.pbkdf2_hmac("sha256", pin.encode(), salt, iterations)
    return f"pbkdf2_sha256${iterations}${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


#: The iterations a hash may have: from a tenth of ours (older, faster settings) to a hundred
#: times ours (a login that takes half a minute on a Pi 4 is already too slow).
MIN_ITERATIONS, MAX_ITERATIONS = ITERATIONS // 10, ITERATIONS * 100


def parse_hash(encoded: str) -> tuple[int, bytes, bytes] | None:
    """The iterations, salt and SHA-256 digest of a ``host_pin_hash``; None when it is not
    one that ``hash_pin`` could have written (a character lost in copying, say)."""
    match = HASH_RE.fullmatch(encoded or "")
    if not match or len(match.group(1)) > 9 or not MIN_ITERATIONS <= int(match.group(1)) <= MAX_ITERATIONS:
        return None
    try:
        salt, digest = (base64.b64decode(match.group(k), validate=True) for k in (2, 3))
    except ValueError:  # binascii.Error: padding lost
        return None
    return (int(match.group(1)), salt, digest) if len(salt) >= 8 and len(digest) == 32 else None


def verify_pin(guess: str, encoded: str) -> bool:
    """Whether ``guess`` is the PIN of ``encoded`` (constant-time compare)."""
    parsed = parse_hash(encoded)
    if parsed is None or not isinstance(guess, str):
        return False
    iterations, salt, digest = parsed
    return hmac.compare_digest(hashlib.pbkdf2_hmac("sha256", guess.encode(), salt, iterations), digest)


def register(sub) -> None:
    p = sub.add_parser("pin", help="hash a host PIN for the config (host_pin_hash)",
                       description="Read a PIN of 4 to 8 digits (asked for, or one line on standard input) "
                       "and print the host_pin_hash line for the config file.")
    p.set_defaults(handler=main)


def main(args: argparse.Namespace) -> int:
    pin = getpass.getpass("host PIN (4 to 8 digits): ") if sys.stdin.isatty() else sys.stdin.readline().strip()
    if not PIN_RE.fullmatch(pin):
        print("dicetable pin: a PIN is 4 to 8 digits", file=sys.stderr)
        return 2
    print(f'host_pin_hash = "{hash_pin(pin)}"')
    return 0
