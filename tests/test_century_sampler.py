"""Century's rollout sampler (``rules.random_legal_action``) draws exactly what the generic
mask-and-draw (``legal_mask_into`` then ``sampling.random_legal``) draws: same action, same RNG
word afterwards, so the in-kernel rollout plays the same games as before it existed."""

import numpy as np
import pytest

import meeple_gym as mg
from meeple_gym.century import rules
from meeple_gym.core.rng import STREAM_POLICY, derive_key, game_key
from meeple_gym.core.sampling import random_legal


def _generic(states, mask, word):
    words = np.array([word], dtype=np.uint64)
    rules.legal_mask_into(states, 0, mask)
    return random_legal(mask, words, 0), words[0]


def _fast(states, word):
    words = np.array([word], dtype=np.uint64)
    scratch = np.full(rules.NUM_ACTIONS, 99, dtype=np.int8)
    return rules.random_legal_action(states, 0, scratch, words, 0), words[0]


@pytest.mark.parametrize("num_players", [2, 5])
def test_random_legal_action_matches_mask_and_draw_in_every_phase(num_players):
    mask = np.zeros(rules.NUM_ACTIONS, dtype=np.int8)
    phases = set()
    for game in range(4):
        states = np.zeros(1, dtype=rules.STATE_DTYPE)
        rules.init_game(states, 0, num_players, game_key(5, game), 0)
        step = 0
        while states[0]["phase"] != rules.PHASE_OVER:
            word = np.uint64(derive_key(7, game, step))
            expected = _generic(states, mask, word)
            assert _fast(states, word) == expected, (game, step)
            phases.add(int(states[0]["phase"]))
            rules.apply_action(states, 0, expected[0])
            step += 1
        # Game over: nothing legal, -1 and the word is left alone.
        word = np.uint64(12345)
        assert _fast(states, word) == _generic(states, mask, word) == (-1, word)
    assert phases == {
        rules.PHASE_MAIN,
        rules.PHASE_UPGRADE,
        rules.PHASE_TRADE,
        rules.PHASE_PAY,
        rules.PHASE_DISCARD,
    }


def test_random_legal_action_reads_each_game_of_a_batch():
    # Game 1's hand is read through a word view of the whole batch: its offset must be right.
    states = np.zeros(3, dtype=rules.STATE_DTYPE)
    mask = np.zeros(rules.NUM_ACTIONS, dtype=np.int8)
    for g in range(3):
        rules.init_game(states, g, 5, game_key(1, g), 0)
    states[1]["cards"][:, :] = rules.IN_HAND  # every card of every player, trades and all
    states[1]["caravan"][:, :] = 3
    one = states[1:2].copy()
    words = np.array([derive_key(2, 0, 1)], dtype=np.uint64)
    scratch = np.zeros(rules.NUM_ACTIONS, dtype=np.int8)
    for _ in range(50):
        before = words[0]
        got = rules.random_legal_action(states, 1, scratch, words, 0)
        assert (got, words[0]) == _generic(one, mask, before)


def test_rollout_replays_with_the_generic_sampler():
    seed, n = 3, 4
    rollout = mg.make_batch("century", 1, 5, seed=seed).random_rollout(n)
    mask = np.zeros(rules.NUM_ACTIONS, dtype=np.int8)
    for g in range(n):
        states = np.zeros(1, dtype=rules.STATE_DTYPE)
        rules.init_game(states, 0, 5, game_key(seed, g), 0)
        words = np.array([derive_key(seed, g, STREAM_POLICY)], dtype=np.uint64)
        while states[0]["phase"] != rules.PHASE_OVER:
            rules.legal_mask_into(states, 0, mask)
            rules.apply_action(states, 0, random_legal(mask, words, 0))
        assert rollout["length"][g] == states[0]["step_count"]
        assert np.array_equal(rollout["scores"][g], states[0]["score"][:5])
