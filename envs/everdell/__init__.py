"""Everdell (1–4 players). Rules kernel in ``rules``; rules are cited by EVD- checklist IDs;
see docs/everdell.md."""
