"""Endeavor: Age of Sail, rules-sheet edition (2–4 players). Rules kernel in ``rules``; rules
are cited by END- checklist IDs; see docs/endeavor.md."""
