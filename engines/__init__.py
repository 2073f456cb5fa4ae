"""Pure rule engines, one module per game, beside core.py."""
