"""Everdell's compact observation (``observation="compact"``): the full observation's
information in fewer floats (the entry points, shared with Radlands: tests/test_compact_obs.py).

The slow reference is ``encoders.everdell.compact_from_full``, which decodes the full vector's
one-hots into the compact codes; the kernel must match it everywhere, so the compact vector
carries what the full one does and nothing more (the leak tests check that directly too).
"""

import numpy as np
from game_cases import (
    assert_batch_encode_equals_single,
    count_reshuffled_unseen,
    observation_views,
)

from meeple_gym.core.rng import game_key
from meeple_gym.encoders import everdell as enc

VIEWS = observation_views("everdell")
FULL, COMPACT = VIEWS["full"], VIEWS["compact"]


def positions(games_per_count=2, every=3):
    """Uniform-random games of every player count (and option mix), every ``every`` moves."""
    for n in (1, 2, 3, 4):
        for k in range(games_per_count):
            seed = 100 * n + k
            states = FULL.new(n, game_key(seed), 1 + seed % 3)
            yield from FULL.random_positions(states, seed, every)


def seats(states):
    return range(max(1, states[0]["num_players"]))


def test_compact_matches_the_reference_and_its_bounds():
    checked = 0
    for states in positions():
        for p in seats(states):
            compact = COMPACT.observe(states, p)  # starts as junk: every entry is written
            np.testing.assert_array_equal(compact, enc.compact_from_full(FULL.observe(states, p)))
            assert (compact >= enc.COMPACT_OBS_LOW).all() and (
                compact <= enc.COMPACT_OBS_HIGH
            ).all()
            checked += 1
    assert checked > 1000


def test_compact_is_smaller_and_decodes_one_hots():
    assert enc.COMPACT_OBS_SIZE * 4 < enc.OBS_SIZE
    states = FULL.new(2, game_key(5))
    full, compact = FULL.observe(states, 0), COMPACT.observe(states, 0)
    # The Meadow and the own hand read the same in both.
    for i in range(8):
        row = full[enc.MEADOW + i * enc.MEADOW_BLOCK : enc.MEADOW + i * enc.MEADOW_BLOCK + 48]
        assert compact[enc.C_MEADOW + 2 * i] == row.argmax() + 1 == states[0]["meadow"][i] + 1
    np.testing.assert_array_equal(compact[enc.C_HAND : enc.C_HAND + 48], states[0]["hand"][0])
    assert compact[enc.C_NUM_PLAYERS] == 2 and compact[enc.C_PEND_KIND] == states[0]["pend_kind"]


def test_other_hands_do_not_leak():
    rng = np.random.default_rng(1)
    checked = 0
    for states in positions(every=6):
        for owner in range(states[0]["num_players"]):
            held = np.flatnonzero(states[0]["hand"][owner])
            if held.size == 0:
                continue
            other = states.copy()
            hand = other[0]["hand"][owner]
            t = rng.choice(held)  # one card becomes another: same hand size
            hand[t] -= 1
            hand[(t + 1 + rng.integers(47)) % 48] += 1
            COMPACT.assert_only_owner_sees(states, other, owner, len(seats(states)))
            checked += 1
    assert checked > 50


def test_deck_and_discard_contents_do_not_leak():
    def edit(s):  # a deck card and the face-down discard pile change; sizes stay
        s["deck"][0] = (s["deck"][0] + 1) % 48
        n = s["discard_n"]
        s["discard"][:n] = (s["discard"][:n] + 5) % 48

    def unseen(a, b):
        COMPACT.assert_same_view(a, b, seats(a))

    rng = np.random.default_rng(2)
    assert count_reshuffled_unseen(positions(every=6), rng, unseen, edit) > 50


def test_batch_encode_equals_single():
    states = np.concatenate(list(positions(games_per_count=1, every=9)))
    rng = np.random.default_rng(4)
    players = np.array([rng.integers(max(1, s["num_players"])) for s in states], np.int64)
    assert_batch_encode_equals_single(enc.COMPACT, states, players)
