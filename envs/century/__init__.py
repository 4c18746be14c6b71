"""Century: Spice Road (2–5 players). Rules kernel in ``rules``; see docs/century.md."""
