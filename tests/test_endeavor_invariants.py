"""Invariants over many uniform-random Endeavor games (2-4 players), checked after every
decision, and the determinism of the in-kernel random rollout (``play_random_games``).

The default run is small; ``pytest -m slow`` plays the large count.
"""

import numba
import numpy as np
import pytest
from endeavor_helpers import card_counts, extra_tokens_on_board, new_game

from meeple_gym.core.batch import play_random_games
from meeple_gym.endeavor import rules as R
from meeple_gym.endeavor.spec import SPEC

TOKENS = {2: 15, 3: 18, 4: 15}  # END-S1


def _check(s, n):
    for p in range(n):
        # END-S1, END-A1, END-A4: every token is on the board, at sea or lost for good; only
        # extra_tokens cards on the board add tokens
        at_home, at_sea, lost = int(s["pool"][p]), int(s["ships"][p].sum()), int(s["lost"][p])
        assert at_home + at_sea + lost == TOKENS[n] + extra_tokens_on_board(s, p)
        assert at_home >= 0 and (s["ships"][p] >= 0).all()
        assert (s["slot_owner"] == p).sum() <= R.MARKERS  # END-S1: 3 markers
        assert s["board_n"][p] <= R.BOARD  # END-B1
        assert (s["goods"][p] >= 0).all()
    assert ((s["slot_owner"] >= -1) & (s["slot_owner"] < n)).all()
    assert (s["slot_owner"][s["slot_city"] < 0] == -1).all()  # a marker needs a city
    cities, emp, bld = card_counts(s)  # END-C2: each card in exactly one place
    assert (cities == 1).all() and (emp == 1).all() and (bld == 1).all()
    assert 1 <= s["round"] <= R.ROUND_LIMIT  # END-E4


def _play_and_check(n, seed, rng):
    states = new_game(n, seed)
    s = states[0]
    mask = np.zeros(R.NUM_ACTIONS, np.int8)
    steps = 0
    while s["phase"] != R.PH_OVER:
        _check(s, n)
        R.legal_mask_into(states, 0, mask)
        legal = np.flatnonzero(mask)
        assert legal.size > 0, "no legal action before the end"
        R.apply_action(states, 0, int(rng.choice(legal)))
        steps += 1
    _check(s, n)
    R.legal_mask_into(states, 0, mask)
    assert not mask.any()
    # END-E1/E4: a normal end, never the engine's step cap
    assert s["terminated"] == 1 and s["truncated"] == 0
    for p in range(n):
        assert s["score"][p] == R.score_of(s, p)  # END-E2
    assert s["winners"] != 0  # END-E3: somebody wins (perhaps shared)
    return steps


@pytest.mark.parametrize("n", [2, 3, 4])
def test_invariants_small(n):
    rng = np.random.default_rng(n)
    lengths = [_play_and_check(n, seed, rng) for seed in range(25)]
    assert min(lengths) > 0


@pytest.mark.slow
@pytest.mark.parametrize("n", [2, 3, 4])
def test_invariants_large(n):
    rng = np.random.default_rng(100 + n)
    for seed in range(400):
        _play_and_check(n, 1000 + seed, rng)


def _rollout(num_players, num_games, chunk, threads, first_game=0):
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        out = play_random_games(SPEC, first_game, num_games, num_players, 5, 0, chunk=chunk)
    finally:
        numba.set_num_threads(previous)
    return out["length"], out["scores"], out["winner"], out["truncated"]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_rollouts_do_not_depend_on_chunks_threads_or_batch_start(n):
    """Same seed, same games, whatever the batch split, thread count or the batch's first game
    index; no game is cut off."""
    a = _rollout(n, 300, 1, 1)
    b = _rollout(n, 300, 7, numba.config.NUMBA_NUM_THREADS)
    c = _rollout(n, 300, 31, 1)
    for x, y, z in zip(a, b, c, strict=True):
        np.testing.assert_array_equal(x, y)
        np.testing.assert_array_equal(x, z)
    tail = _rollout(n, 100, 3, numba.config.NUMBA_NUM_THREADS, first_game=200)
    for x, y in zip(a, tail, strict=True):
        np.testing.assert_array_equal(x[200:], y)
    lengths, scores, winners, truncated = a
    assert not truncated.any() and (lengths > 0).all()
    assert ((winners >= -1) & (winners < n)).all() and (scores >= 0).all()
