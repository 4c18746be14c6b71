"""Mutated snapshots and corrupted batch records, then legal play, with Numba's bounds checks on:
the engine refuses what it cannot prove safe, and every position reached from what it accepted is
again a valid one. The vector env's step under bad actions, likewise. A small run by default;
``-m slow`` runs many more cases."""

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


VECTOR_SCRIPT = Path(__file__).parent / "tools" / "fuzz_vector_env.py"


def _fuzz_vector(game: str, steps: int, seed: int) -> dict:
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1")
    summary, _ = run_json([str(VECTOR_SCRIPT), game, str(steps), str(seed)], env, timeout=3000)
    assert summary["envs"] == 6 and summary["steps"] > 0
    return summary


@pytest.mark.parametrize("game", GAMES)
def test_fuzz_vector_env_small(game):
    summary = _fuzz_vector(game, 1500, seed=1)
    # Refusals, forfeits and games played to their end must all occur, or some path of the
    # step went untested.
    assert summary["refused"] > 0 and summary["forfeits"] > 0 and summary["natural_ends"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_fuzz_vector_env_large(game):
    summary = _fuzz_vector(game, 20000, seed=2)
    assert summary["refused"] > 0 and summary["natural_ends"] > 0
