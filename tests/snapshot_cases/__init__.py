"""Per-game data of the shared snapshot tests (``tests/test_snapshots.py``): how to sample a
game's positions, its valid bases and its corrupt inputs with the words each refusal must
name. Every module here offers the same names; ``snapshot_helpers.case(game)`` loads one."""
