"""Frames in, dice out."""
