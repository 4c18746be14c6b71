"""Mutated snapshots and corrupted batch records, then legal play, with Numba's bounds checks on:
the engine refuses what it cannot prove safe, and every position reached from what it accepted is
again a valid one. A small run by default; ``-m slow`` runs many more cases."""

import os
from pathlib import Path

import pytest
from support import run_json

SCRIPT = Path(__file__).parent / "tools" / "fuzz_snapshots.py"
GAMES = ["century", "radlands", "everdell", "endeavor"]


def _fuzz(game: str, cases: int, seed: int) -> dict:
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1")
    summary, _ = run_json([str(SCRIPT), game, str(cases), str(seed)], env, timeout=3000)
    assert summary["cases"] == cases
    return summary


@pytest.mark.parametrize("game", GAMES)
def test_fuzz_snapshots_and_records_small(game):
    summary = _fuzz(game, 45, seed=1)
    # Both outcomes must occur, or the mutations test nothing.
    assert summary["refused"] > 0 and summary["records_refused"] > 0
    assert summary["accepted"] > 0 and summary["steps"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_fuzz_snapshots_and_records_large(game):
    summary = _fuzz(game, 1500, seed=2)
    assert summary["accepted"] > 0 and summary["records_accepted"] > 0
