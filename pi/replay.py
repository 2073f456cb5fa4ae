"""Subcommands: replay, odds."""


def register(sub) -> None:
    """Add this module's subcommands to the `dicetable` parser."""
