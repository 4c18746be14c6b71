"""Endeavor observation encoder: layout, seat rotation, bounds, no hidden leaks, batch.

Hidden (END-O1, END-S4, END-O2): another player's role pick and token count while anyone is
still planning, another player's empire hand (only its size) and role hand, the order of every
deck (city regions, empire, buildings, roles) and the RNG word. The leak tests change exactly
those things in a copy of a position and require the observation to stay the same; the
visibility tests change public things and require it to change. Both kinds run on the full and
on the compact observation (``observation="compact"``, tests/test_endeavor_compact_obs.py has
the rest of its tests), which must hide and show the same things.
"""

import numpy as np
import pytest
from game_cases import assert_batch_encode_equals_single, observation_views, view_fixture

from meeple_gym.core.rng import game_key
from meeple_gym.encoders import endeavor as enc
from meeple_gym.endeavor import data as D
from meeple_gym.endeavor.rules import (
    A_ROLE,
    A_TOKENS,
    MAXP,
    NUM_ACTIONS,
    PH_OVER,
    PH_PLAN_ROLE,
    PH_PLAN_TOKENS,
    PH_ROLE,
    PH_START_CITY,
    apply_action,
    legal_mask_into,
)

PLAYER_COUNTS = (2, 3, 4)
TOKENS = {2: 15, 3: 18, 4: 15}  # END-S1
EMPIRE_DRAW = {2: 4, 3: 3, 4: 3}  # END-S4


def game_over(s):
    return s["phase"] == PH_OVER


VIEWS = observation_views("endeavor", over=game_over)
GAME, COMPACT = VIEWS["full"], VIEWS["compact"]

view = view_fixture(VIEWS)  # the full or the compact observation


def new_game(num_players, seed):
    return GAME.new(num_players, game_key(seed), 0)


def random_positions(num_players, seed, every=3):
    """Copies of one uniform-random game's state every ``every`` decisions, end included."""
    return GAME.random_positions(new_game(num_players, seed), seed, every)


observe = GAME.observe


def block(i):
    return enc.PLAYERS + int(i) * enc.PLAYER_BLOCK


def slot_block(k):
    return enc.SLOTS + int(k) * enc.SLOT_BLOCK


def leak_positions(every=4):
    for n in PLAYER_COUNTS:
        for seed in range(3):
            yield from random_positions(n, 100 * n + seed, every)


def planning(states):
    return states[0]["phase"] in (PH_PLAN_ROLE, PH_PLAN_TOKENS)


# ---- layout ----------------------------------------------------------------------------------


def test_layout_size_matches_documented_table():
    # Sizes as listed in the module docstring, summed independently of the offset constants.
    player = (
        1 + 1 + 1 + 4 + 1 + 4 + 1 + 6 + 1 + 1 + 1 + 5 + 7 + 1 + 49 + 20 + 30 + 1 + 6 + 1 + 1 + 1
    )
    slot = 1 + 49 + 5 + 1 + 1 + 1 + 4 + 1 + 1 + 1
    shared = 17 * slot + 7 * 2 + 3 * 30 + 3 * 20 + 1 + 6 + 4 + 3 + 1 + 1 + 1 + 1 + 1 + 1 + 1
    private = 6 + 30
    assert enc.PLAYER_BLOCK == player == 144
    assert enc.SLOT_BLOCK == slot == 65
    assert enc.SLOTS == 4 * player == 576
    assert enc.ROUND == 4 * player + 17 * slot + 14 + 90 + 60 == 1845
    assert enc.OWN_ROLE_HAND == 4 * player + shared == 1866
    assert enc.OBS_SIZE == 4 * player + shared + private == 1902
    assert enc.OBS_LOW.shape == enc.OBS_HIGH.shape == (enc.OBS_SIZE,)
    assert not enc.OBS_HIGH.flags.writeable


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_setup_values(num_players):
    n = num_players
    states = new_game(n, seed=5)
    s = states[0]
    assert s["phase"] == PH_START_CITY
    for player in range(n):
        obs = observe(states, player)
        assert obs.shape == (enc.OBS_SIZE,) and obs.dtype == np.float32
        assert obs[enc.PHASE_ONEHOT + PH_START_CITY] == 1
        assert obs[enc.NUM_PLAYERS_ONEHOT : enc.NUM_PLAYERS_ONEHOT + 3].tolist() == [
            float(n == k) for k in (2, 3, 4)
        ]
        assert obs[enc.ROUND] == 1
        for i in range(MAXP):
            b = block(i)
            if i >= n:  # absent seats: the whole block is zero
                assert not obs[b : b + enc.PLAYER_BLOCK].any()
                continue
            assert obs[b + enc.P_PRESENT] == 1
            assert obs[b + enc.P_POOL] == TOKENS[n]
            assert obs[b + enc.P_EMPIRE_HAND_N] == EMPIRE_DRAW[n]
            assert obs[b + enc.P_ROLE_DECK_N] == 3  # END-O2 R: 6 roles, 3 in hand
            assert obs[b + enc.P_BOARD_N] == 0 and obs[b + enc.P_SCORE] == 0
            assert obs[b + enc.P_DECIDER] == ((player + i) % n == s["current_player"])
            assert obs[b + enc.P_FIRST] == ((player + i) % n == s["first_player"])
        # END-R2 / END-S2: Europe (4 slots) and West Africa (3) open and dealt.
        opens = obs[enc.REGIONS + enc.R_OPEN : enc.EMPIRE_MARKET : enc.REGION_BLOCK]
        decks = obs[enc.REGIONS + enc.R_DECK_N : enc.EMPIRE_MARKET : enc.REGION_BLOCK]
        assert opens.tolist() == [1, 1, 0, 0, 0, 0, 0]
        assert decks.tolist() == [3, 4, 7, 7, 7, 7, 7]
        present = [obs[slot_block(k) + enc.S_PRESENT] for k in range(17)]
        assert present == [1] * 7 + [0] * 10
        # END-S4 / END-S5: empire cards drawn; both markets are dealt after the returns.
        assert obs[enc.EMPIRE_DECK_N] == 30 - n * EMPIRE_DRAW[n]
        assert obs[enc.BUILDING_DECK_N] == 20
        # Own hands as flags, matching the state.
        hand = obs[enc.OWN_EMPIRE_HAND : enc.OWN_EMPIRE_HAND + 30]
        np.testing.assert_array_equal(hand, s["empire_hand"][player])
        roles = obs[enc.OWN_ROLE_HAND : enc.OWN_ROLE_HAND + 6]
        np.testing.assert_array_equal(roles, s["role_hand"][player])
        assert roles.sum() == 3


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_bounds_and_rotation_in_random_games(num_players):
    n = num_players
    checked = 0
    for seed in range(4):
        for states in random_positions(n, 10 * n + seed, every=2):
            s = states[0]
            for player in range(n):
                obs = observe(states, player)
                assert obs.dtype == np.float32
                assert np.all(obs >= enc.OBS_LOW) and np.all(obs <= enc.OBS_HIGH)
                # Block i is seat (player + i) % n, the rules' relative seat i.
                for i in range(n):
                    p = (player + i) % n
                    b = block(i)
                    assert obs[b + enc.P_POOL] == s["pool"][p]
                    np.testing.assert_array_equal(
                        obs[b + enc.P_GOODS : b + enc.P_SHIPS], s["goods"][p]
                    )
                    np.testing.assert_array_equal(
                        obs[b + enc.P_SHIPS : b + enc.P_BOARD_N], s["ships"][p]
                    )
                    assert obs[b + enc.P_MARKERS] == np.sum(s["slot_owner"] == p)
                for k in range(17):
                    owner = obs[slot_block(k) + enc.S_OWNER : slot_block(k) + enc.S_UPGRADED]
                    q = s["slot_owner"][k]
                    assert owner.tolist() == [
                        float(q >= 0 and (q - player) % n == j) for j in range(4)
                    ]
                    c = s["slot_city"][k]
                    city = obs[slot_block(k) + enc.S_CITY : slot_block(k) + enc.S_GOOD]
                    assert np.flatnonzero(city).tolist() == ([c] if c >= 0 else [])
                checked += 1
    assert checked > 300


def test_final_score_matches_the_rules():
    for n in PLAYER_COUNTS:
        *_, final = random_positions(n, 70 + n, every=1000)
        s = final[0]
        assert s["phase"] == PH_OVER and s["terminated"] == 1
        for player in range(n):
            obs = observe(final, player)
            for i in range(n):
                assert obs[block(i) + enc.P_SCORE] == s["score"][(player + i) % n]  # END-E2


# ---- hidden planning (END-O1) ----------------------------------------------------------------


def to_planning(num_players, seed):
    """A game driven (first legal choices) to the start of round 1's planning."""
    states = new_game(num_players, seed)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    while states[0]["phase"] != PH_PLAN_ROLE:
        legal_mask_into(states, 0, mask)
        apply_action(states, 0, np.flatnonzero(mask)[0])
    return states


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_roles_and_tokens_revealed_only_when_execution_starts(num_players):
    n = num_players
    states = to_planning(n, seed=3)
    s = states[0]
    mask = np.zeros(NUM_ACTIONS, np.int8)
    picks = {}
    for turn in range(n):
        p = int(s["current_player"])
        legal_mask_into(states, 0, mask)
        role = int(np.flatnonzero(mask[A_ROLE : A_ROLE + 6])[-1])
        apply_action(states, 0, A_ROLE + role)
        assert s["phase"] == PH_PLAN_TOKENS
        own = observe(states, p)
        assert own[block(0) + enc.P_ROLE + role] == 1  # own pick shown while deciding tokens
        apply_action(states, 0, A_TOKENS + 2 + turn)
        picks[p] = (role, 2 + turn)
        if len(picks) < n:
            assert planning(states)
            for observer in range(n):
                obs = observe(states, observer)
                for q, (r, t) in picks.items():
                    b = block((q - observer) % n)
                    assert obs[b + enc.P_PLANNED] == 1
                    shown = obs[b + enc.P_ROLE : b + enc.P_ROLE + 6]
                    if q == observer:
                        assert shown.argmax() == r and shown.sum() == 1
                        assert obs[b + enc.P_PLACED] == t
                    else:
                        assert not shown.any() and obs[b + enc.P_PLACED] == 0
                assert not obs[enc.STRENGTH : enc.GOV_DUE + 1].any()
    # Everyone planned: execution starts and every pick is revealed to everyone (END-O1).
    assert s["phase"] == PH_ROLE
    for observer in range(n):
        obs = observe(states, observer)
        for q, (r, t) in picks.items():
            b = block((q - observer) % n)
            assert obs[b + enc.P_ROLE + r] == 1 and obs[b + enc.P_PLACED] == t
            assert obs[b + enc.P_EXEC_POS : b + enc.P_EXEC_POS + 4].sum() == 1
        assert obs[enc.STRENGTH] == s["strength"]
        assert obs[enc.SUB_ONEHOT + int(s["sub"])] == 1


def test_others_role_pick_and_tokens_do_not_leak_while_planning(view):
    # END-O1: a role pick and its tokens stay face down until execution starts.
    rng = np.random.default_rng(1)
    checked = 0
    for states in leak_positions(every=1):
        if not planning(states):
            continue
        s = states[0]
        n = int(s["num_players"])
        for owner in range(n):
            other = states.copy()
            o = other[0]
            o["role"][owner] = (s["role"][owner] + 1 + rng.integers(5)) % 6
            o["placed"][owner] = (s["placed"][owner] + 1 + rng.integers(5)) % 16
            view.assert_same_view(states, other, [q for q in range(n) if q != owner])
            if s["role"][owner] >= 0:  # the owner does see their own pick
                assert not np.array_equal(view.observe(states, owner), view.observe(other, owner))
            checked += 1
    assert checked > 200


def truncated_mid_planning():
    """A 3-player game cut off (the step cap) just after player ``p`` picked a role: ``(states,
    p)``."""
    states = to_planning(3, seed=8)
    s = states[0]
    p = int(s["current_player"])
    mask = np.zeros(NUM_ACTIONS, np.int8)
    legal_mask_into(states, 0, mask)
    apply_action(states, 0, int(np.flatnonzero(mask)[0]))
    s["phase"] = PH_OVER
    s["truncated"] = 1
    return states, p


def test_truncated_game_keeps_planning_hidden():
    states, p = truncated_mid_planning()
    for observer in range(3):
        obs = observe(states, observer)
        b = block((p - observer) % 3)
        assert obs[b + enc.P_ROLE : b + enc.P_ROLE + 6].any() == (observer == p)


def test_truncated_game_shows_a_pick_only_to_its_owner(view):
    # END-O1: a game cut off mid-planning never reached the reveal.
    states, p = truncated_mid_planning()
    other = states.copy()
    other[0]["role"][p] = (states[0]["role"][p] + 1) % 6
    view.assert_only_owner_sees(states, other, p, 3)


# ---- other hidden things ---------------------------------------------------------------------


def test_others_empire_hand_does_not_leak(view):
    # END-S4: another player's empire hand shows as its size only.
    checked = 0
    for states in leak_positions():
        s = states[0]
        n = int(s["num_players"])
        if s["empire_deck_n"] == 0:
            continue
        for owner in range(n):
            held = np.flatnonzero(s["empire_hand"][owner])
            if held.size == 0:
                continue
            # one hand card swapped with the top of the empire deck: the size stays
            other = states.copy()
            o = other[0]
            top = o["empire_deck"][o["empire_deck_n"] - 1]
            o["empire_hand"][owner, held[0]] = 0
            o["empire_hand"][owner, top] = 1
            o["empire_deck"][o["empire_deck_n"] - 1] = held[0]
            view.assert_only_owner_sees(states, other, owner, n)
            checked += 1
    assert checked > 100


def test_deck_orders_role_hands_of_others_and_rng_do_not_leak(view):
    # Nobody sees a deck's order or the RNG word; another player's role hand (END-O2) shows
    # as nothing, its role deck as its size.
    rng = np.random.default_rng(2)
    checked = 0
    for states in leak_positions():
        s = states[0]
        n = int(s["num_players"])
        other = states.copy()
        o = other[0]
        for r in range(7):
            k = o["region_deck_n"][r]
            o["region_deck"][r, :k] = rng.permutation(o["region_deck"][r, :k])
        k = o["empire_deck_n"]
        o["empire_deck"][:k] = rng.permutation(o["empire_deck"][:k])
        k = o["building_deck_n"]
        o["building_deck"][:k] = rng.permutation(o["building_deck"][:k])
        for p in range(n):
            k = o["role_deck_n"][p]
            o["role_deck"][p, :k] = rng.permutation(o["role_deck"][p, :k])
        o["rng"][0] = np.uint64(rng.integers(1 << 62))
        view.assert_same_view(states, other, range(n))
        # A role of another player swapped between hand and deck (END-O2): sizes stay.
        for owner in range(n):
            if s["role_deck_n"][owner] == 0:
                continue
            swap = states.copy()
            w = swap[0]
            in_hand = [r for r in np.flatnonzero(w["role_hand"][owner]) if r != w["role"][owner]]
            if not in_hand:
                continue
            top = w["role_deck"][owner, w["role_deck_n"][owner] - 1]
            w["role_hand"][owner, in_hand[0]] = 0
            w["role_hand"][owner, top] = 1
            w["role_deck"][owner, w["role_deck_n"][owner] - 1] = in_hand[0]
            view.assert_only_owner_sees(states, swap, owner, n)
        checked += 1
    assert checked > 100


def public_edits(s, q):
    """Copies of position ``s`` with one public thing changed (player ``q``'s goods, ships,
    tokens; a region's open flag, the empire market, a marker on an unclaimed city)."""
    edits = [("goods", (q, 2), 1), ("ships", (q, 3), 1), ("pool", q, 1)]
    for field, index, delta in edits:
        other = s.copy()
        other[0][field][index] += delta
        yield other
    other = s.copy()
    other[0]["region_open"][6] = 1 - s[0]["region_open"][6]
    yield other
    other = s.copy()
    other[0]["empire_market"][0] = (s[0]["empire_market"][0] + 1) % 30
    yield other
    free = np.flatnonzero((s[0]["slot_city"] >= 0) & (s[0]["slot_owner"] < 0))
    if free.size:
        other = s.copy()
        other[0]["slot_owner"][free[0]] = q
        yield other


def test_public_changes_are_seen_by_everyone(view):
    checked = 0
    for states in leak_positions(every=9):
        n = int(states[0]["num_players"])
        for other in public_edits(states, n - 1):
            for observer in range(n):
                before, after = view.observe(states, observer), view.observe(other, observer)
                assert not np.array_equal(before, after)
            checked += 1
    assert checked > 100


def test_role_being_executed_is_public():
    checked = 0
    for states in leak_positions(every=2):
        s = states[0]
        if s["phase"] != PH_ROLE:
            continue
        n = int(s["num_players"])
        p = int(s["current_player"])
        for observer in range(n):
            obs = observe(states, observer)
            b = block((p - observer) % n)
            assert obs[b + enc.P_DECIDER] == 1
            assert obs[b + enc.P_ROLE + int(s["role"][p])] == 1
            assert obs[b + enc.P_PLACED] == s["placed"][p]
            assert obs[enc.STRENGTH] == s["strength"] and obs[enc.USED] == s["used"]
            # every player's pick is out: exec positions form a permutation
            pos = [obs[block(i) + enc.P_EXEC_POS : block(i) + enc.P_EXEC_POS + 4] for i in range(n)]
            assert sorted(int(x.argmax()) for x in pos) == list(range(n))
        checked += 1
    assert checked > 100


# ---- batch -----------------------------------------------------------------------------------


def test_encode_batch_matches_encode_into(view):
    rows = [st for st in leak_positions(every=11)]
    states = np.concatenate(rows)
    rng = np.random.default_rng(4)
    players = np.array([rng.integers(s["num_players"]) for s in states], dtype=np.int64)
    assert_batch_encode_equals_single(view.encoder, states, players)
    assert len(states) > 50


def test_card_tables_match_the_layout():
    assert len(D.CITY_KEYS) == 49 and len(D.BUILDING_KEYS) == 20 and len(D.EMPIRE_KEYS) == 30
    assert len(D.REGIONS) == 7 and len(D.GOODS) == 5 and len(D.ROLES) == 6
