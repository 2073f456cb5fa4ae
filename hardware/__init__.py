"""Seat buttons and LEDs through gpiozero, pin factory injected."""
