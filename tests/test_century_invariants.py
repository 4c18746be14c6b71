"""Invariants over many uniform-random Century games, checked after every sub-decision.

The default run is small; ``pytest -m slow`` plays the large count.
"""

import numpy as np
import pytest

from meeple_gym.century import rules as R
from meeple_gym.century.data import DECK_TYPES, MERCHANT_IN, MERCHANT_OUT, POINT_COST, POINT_VALUE
from meeple_gym.century.spec import SPEC
from meeple_gym.core.batch import play_random_games
from meeple_gym.core.rng import game_key


def _new_game(num_players, seed):
    states = np.zeros(1, R.STATE_DTYPE)
    R.init_game(states, 0, num_players, game_key(seed))
    return states


def _face_down_and_up(deck, row, size):
    """How many copies of each card type lie in a deck's remaining cards and its open row (-1:
    an empty slot)."""
    counts = np.zeros(size, np.int64)
    for t in deck:
        counts[t] += 1
    for t in row:
        if t >= 0:
            counts[t] += 1
    return counts


def _cards_accounted_for(s):
    """Each market card sits in exactly one place; each point card likewise."""
    n = s["num_players"]
    places = _face_down_and_up(s["merchant_deck"][s["merchant_deck_top"] :], s["market"], R.N_TYPES)
    owned = (s["cards"][:n] != R.NOT_OWNED).sum(axis=0)
    assert np.array_equal(places[DECK_TYPES] + owned[DECK_TYPES], np.ones(DECK_TYPES.size))
    # every player always owns exactly one of each starting type (CSR-S3)
    assert np.all(owned[[0, 1]] == n)
    # market holds its cards left-aligned, empty slots only at the end (CSR-A3)
    filled = s["market"] >= 0
    assert not np.any(~filled[:-1] & filled[1:])
    points = _face_down_and_up(s["point_deck"][s["point_deck_top"] :], s["point_row"], R.N_POINT)
    points += s["point_owner"] >= 0
    assert np.all(points == 1)
    assert s["point_count"][:n].sum() == (s["point_owner"] >= 0).sum()
    # CSR-S2/C3: coins are never created or lost
    assert s["gold"][:n].sum() + s["gold_left"] == 2 * n
    assert s["silver"][:n].sum() + s["silver_left"] == 2 * n


def _cube_total(s):
    return int(s["caravan"].sum() + s["market_cubes"].sum())


def _expected_cube_change(s, action):
    """How many cubes enter (+) or leave (-) play through ``action`` (CSR-K2 supply)."""
    p = s["current_player"]
    phase = s["phase"]
    if phase == R.PHASE_MAIN:
        if action < R.A_ACQUIRE:
            return int(MERCHANT_OUT[action].sum()) if MERCHANT_IN[action].sum() == 0 else 0
        if R.A_CLAIM <= action < R.A_UPGRADE:
            return -int(POINT_COST[s["point_row"][action - R.A_CLAIM]].sum())
        return 0  # acquire moves cubes, rest moves none
    if phase == R.PHASE_TRADE:
        t = s["pending_type"]
        n = action - R.A_TRADE + 1
        return n * int(MERCHANT_OUT[t].sum() - MERCHANT_IN[t].sum())
    if phase == R.PHASE_DISCARD:
        return -1
    del p
    return 0  # upgrades and placements move or change cubes without adding any


def _scores_from_scratch(s):
    n = s["num_players"]
    out = []
    for p in range(n):
        printed = int(POINT_VALUE[s["point_owner"] == p].sum())
        cubes = int(s["caravan"][p, 1:].sum())
        out.append(printed + 3 * int(s["gold"][p]) + int(s["silver"][p]) + cubes)
    return out


def _play_and_check(num_players, seed, rng):
    states = _new_game(num_players, seed)
    mask = np.zeros(R.NUM_ACTIONS, np.int8)
    s = states[0]
    _cards_accounted_for(s)
    while s["phase"] != R.PHASE_OVER:
        R.legal_mask_into(states, 0, mask)
        legal = np.flatnonzero(mask)
        assert legal.size > 0, "mask empty before the end"
        action = int(rng.choice(legal))
        before_player, before_turns = int(s["current_player"]), int(s["turn_count"])
        before_total = _cube_total(s)
        expected = _expected_cube_change(s, action)
        R.apply_action(states, 0, action)
        if s["truncated"]:
            break
        assert _cube_total(s) - before_total == expected
        assert np.all(s["caravan"] >= 0) and np.all(s["market_cubes"] >= 0)
        if s["turn_count"] != before_turns:  # a turn just ended: CSR-K1
            assert s["caravan"][before_player].sum() <= R.CARAVAN_LIMIT
        _cards_accounted_for(s)
    assert s["terminated"] == 1, "a random game hit the step cap"
    assert list(s["score"][:num_players]) == _scores_from_scratch(s)
    # CSR-E1: every player had the same number of turns
    assert s["turn_count"] % num_players == 0
    return int(s["step_count"])


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_invariants_small(num_players):
    rng = np.random.default_rng(num_players)
    lengths = [_play_and_check(num_players, seed, rng) for seed in range(12)]
    assert min(lengths) > 0


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_invariants_large(num_players):
    rng = np.random.default_rng(100 + num_players)
    for seed in range(300):
        _play_and_check(num_players, 10_000 + seed, rng)


@pytest.mark.parametrize("num_players", [2, 5])
def test_every_game_ends_in_kernel_rollouts(num_players):
    """CSR-E4: random games end by the rules, far below the step cap."""
    n = 2000
    out = play_random_games(SPEC, 0, n, num_players, 3, 0, chunk=700)
    length, scores, winner, truncated = (
        out[k] for k in ("length", "scores", "winner", "truncated")
    )
    assert not truncated.any()
    assert length.max() < R.STEP_CAP
    assert np.all((winner >= 0) & (winner < num_players))
    # CSR-E3 never leaves a draw: the winner's score is the maximum
    assert np.all(scores[np.arange(n), winner] == scores[:, :num_players].max(axis=1))
