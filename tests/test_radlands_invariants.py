"""Invariants over many uniform-random Radlands games, checked after every sub-decision.

The default run is small; ``pytest -m slow`` plays the large count.
"""

import numpy as np
import pytest

from meeple_gym.core.batch import play_random_games
from meeple_gym.core.rng import game_key
from meeple_gym.radlands import rules as R
from meeple_gym.radlands.spec import SPEC

ALL_OPTION_CODES = range(16)  # every combination of the four option bits


def _cards_in_play(s):
    """Where the 66 draw-deck cards are: deck, discard, hands, board, queues, resolving."""
    n = int(s["deck_n"]) + int(s["discard_n"]) + int(s["hand"].sum())
    n += int((s["ent_kind"] == R.PERSON).sum())
    n += int(((s["queue"] >= 0) & (s["queue"] < R.RAIDERS)).sum())
    n += int(s["lift_uid"] != 0)  # High Ground: a person between pick-up and drop
    depth = int(s["depth"])
    # an event program that is running holds its card until it is discarded
    n += int((s["fr_fin"][:depth] == R.FIN_DISCARD).sum())
    waiting = (
        (s["fr_prog"][:depth] == R.INTERNAL)
        & (s["fr_op"][:depth] == R.I_RESOLVE_EVENT)
        & (s["fr_pc"][:depth] == 0)
        & (s["fr_arg"][:depth] < R.RAIDERS)
    )
    return n + int(waiting.sum())


def _play_and_check(seed, options, rng):
    states = np.zeros(1, R.STATE_DTYPE)
    R.init_game(states, 0, 2, game_key(seed), np.int64(options))
    s = states[0]
    mask = np.zeros(R.NUM_ACTIONS, np.int8)
    steps = 0
    while s["phase"] != R.PHASE_OVER:
        R.legal_mask_into(states, 0, mask)
        legal = np.flatnonzero(mask)
        assert legal.size > 0, "no legal action before the end"
        R.apply_action(states, 0, int(rng.choice(legal)))
        steps += 1
        if s["phase"] == R.PHASE_OVER:
            break
        assert _cards_in_play(s) == R.DECK_SIZE  # RAD-S2: 66 cards, always accounted for
        people = (s["ent_kind"] == R.PERSON).sum(axis=2)
        assert people.max() <= 2  # RAD-B2
        assert s["water"] >= 0
        assert np.all(s["hand"] >= 0)
        if s["phase"] != R.PHASE_DRAFT:  # one camp per column, whatever moves (Juggernaut)
            assert np.all((s["ent_kind"] == R.CAMP).sum(axis=2) == 1)
    assert s["terminated"] == 1, "a random game hit the step cap"
    if s["winner"] >= 0:
        # RAD-E1: the loser has no undestroyed camp left
        assert np.all(s["camp_state"][1 - s["winner"]] == 2)
    return steps


@pytest.mark.parametrize("options", [0, 1, 2, 4, 8, 15])
def test_invariants_small(options):
    rng = np.random.default_rng(options)
    lengths = [_play_and_check(seed, options, rng) for seed in range(25)]
    assert min(lengths) > 0


@pytest.mark.slow
@pytest.mark.parametrize("options", ALL_OPTION_CODES)
def test_invariants_large(options):
    rng = np.random.default_rng(100 + options)
    for seed in range(150):
        _play_and_check(1000 + seed, options, rng)


def test_every_game_ends_in_kernel_rollouts():
    """RAD-E1/E2: random games end by a win or the deck-exhaustion draw, never the cap."""
    n = 3000
    out = play_random_games(SPEC, 0, n, 2, 5, 0, chunk=1000)
    length, scores, winner, truncated = (
        out[k] for k in ("length", "scores", "winner", "truncated")
    )
    assert not truncated.any()
    decided = winner >= 0
    assert decided.mean() > 0.9  # draws by deck exhaustion are rare
    # the winner keeps at least one camp, the loser none
    rows = np.flatnonzero(decided)
    assert np.all(scores[rows, winner[rows]] >= 1)
    assert np.all(scores[rows, 1 - winner[rows]] == 0)
