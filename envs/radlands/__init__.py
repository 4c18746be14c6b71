"""Radlands (2 players): card tables in ``data``; rules are cited by RAD- checklist IDs."""
