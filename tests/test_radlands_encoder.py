"""Radlands observation encoder: layout, what each player sees, no hidden leaks, bounds, batch.

RAD-G4 lists what is hidden: punk identities (from both players), the opponent's hand, the
deck order; only the top of the discard pile is shown. RAD-S3: the draft picks are secret
until both players reveal them together. The leak tests change exactly those hidden things in
a copy of a position and require both players' observations to stay the same; they run on the
full and on the compact observation (``observation="compact"``, tests/test_radlands_compact_obs.py
has the rest of its tests), which must hide the same things.
"""

import numpy as np
import pytest
from game_cases import (
    assert_batch_encode_equals_single,
    assert_within,
    count_reshuffled_unseen,
    count_unseen_edits,
    observation_bounds,
    observation_views,
    view_fixture,
)

from meeple_gym.core.rng import game_key
from meeple_gym.encoders import radlands as enc
from meeple_gym.radlands.data import (
    CAMP_ID,
    DECK_SIZE,
    DECK_TYPE_ID,
    FIRST_EVENT_TYPE,
    FIRST_GAME_A,
    FIRST_GAME_B,
    N_CAMPS,
    N_DECK_TYPES,
    N_EVENT_TYPES,
    N_PERSON_TYPES,
)
from meeple_gym.radlands.effects import OP, TARGET
from meeple_gym.radlands.rules import (
    A_END_TURN,
    A_KEEP,
    A_PLAY_EVENT,
    CAMP,
    OPTION_FIRST_GAME_CAMPS,
    PERSON,
    PHASE_ACTIONS,
    PHASE_DECISION,
    PHASE_DRAFT,
    PHASE_OVER,
    RAIDERS,
    apply_action,
)

N_OPTION_BITS = 16  # every combination of the four OPTION_* bits


def game_over(s):
    return s["phase"] == PHASE_OVER


VIEWS = observation_views("radlands", over=game_over)
GAME, COMPACT = VIEWS["full"], VIEWS["compact"]

view = view_fixture(VIEWS)  # the full or the compact observation


def new_game(seed, options=0):
    return GAME.new(2, game_key(seed), np.int64(options))


def random_positions(seed, every=5, options=None):
    """Copies of one uniform-random game's state every ``every`` steps, end included."""
    states = new_game(seed, seed % N_OPTION_BITS if options is None else options)
    return GAME.random_positions(states, seed, every)


observe = GAME.observe


def both(states):
    return observe(states, 0), observe(states, 1)


def unseen_by_both(view):
    """``assert_unseen(a, b)``: both players' ``view`` of ``a`` and ``b`` is the same."""
    return lambda a, b: view.assert_same_view(a, b, range(2))


def column_block(side, c):
    return side * enc.SIDE_BLOCK + enc.S_COLS + c * enc.COL_BLOCK


def person_block(side, c, slot):
    return column_block(side, c) + enc.C_PEOPLE + slot * enc.PERSON_BLOCK


# ---- layout ----------------------------------------------------------------------------------


def test_layout_size_matches_documented_table():
    # Sizes as listed in the module docstring, summed independently of the offset constants.
    person = 1 + 26 + 1 + 1 + 1 + 1
    column = 34 + 1 + 1 + 1 + 1 + 3 + 2 * person
    side = 3 * column + 3 * 11 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1
    shared = 1 + 1 + 1 + 36 + 1 + 4 + 1 + 1 + 1 + 1 + 3
    private = 36 + 4 * 36
    draft = 6 * 34 + 6 + 3 * 34
    pending = 42 + enc.N_PROGRAMS + 6 + 13 + 2 + 1 + 1 + 18 + 18 + 26 + (1 + 26 + 1 + 1)
    assert enc.PERSON_BLOCK == person == 31
    assert enc.COL_BLOCK == column == 103
    assert enc.SIDE_BLOCK == side == 351
    assert enc.PEND_OP == 2 * side + shared + private + draft
    assert enc.OBS_SIZE == 2 * side + shared + private + draft + pending
    # The docstring's numbers assume the current effect tables (85 programs).
    assert enc.N_PROGRAMS == 85 and enc.OBS_SIZE == 1486
    assert enc.N_OPS == len(OP) + 5


def test_draft_shows_own_offer_and_picks_only():
    states = new_game(seed=4)
    s = states[0]
    assert s["phase"] == PHASE_DRAFT and s["current_player"] == 0
    for player in range(2):
        obs = observe(states, player)
        assert obs.shape == (enc.OBS_SIZE,) and obs.dtype == np.float32
        assert obs[enc.PHASE_ONEHOT + PHASE_DRAFT] == 1
        # RAD-S3: 6 camps offered, shown in offer order; nothing kept yet.
        for k in range(6):
            row = obs[enc.OFFER + k * N_CAMPS : enc.OFFER + (k + 1) * N_CAMPS]
            assert np.flatnonzero(row).tolist() == [s["offer"][player, k]]
        assert not obs[enc.KEPT : enc.KEPT + 6].any()
        assert not obs[enc.PICKS : enc.PICKS + 3 * N_CAMPS].any()
        # RAD-S2/S4: no card drawn before the camps are known.
        assert obs[enc.DECK_N] == DECK_SIZE and obs[enc.DISCARD_N] == 0
        assert obs[enc.S_DECIDER] == (player == 0)
        assert obs[enc.SIDE_BLOCK + enc.S_DECIDER] == (player == 1)
        # No camp on the board yet.
        for side in range(2):
            for c in range(3):
                b = column_block(side, c)
                assert not obs[b : b + enc.COL_BLOCK].any()
    # Player 0 keeps offer slots 4 then 1: kept flags and column order.
    apply_action(states, 0, A_KEEP + 3)
    apply_action(states, 0, A_KEEP + 0)
    obs = observe(states, 0)
    assert obs[enc.KEPT : enc.KEPT + 6].tolist() == [1, 0, 0, 1, 0, 0]
    picks = obs[enc.PICKS : enc.PICKS + 3 * N_CAMPS].reshape(3, N_CAMPS)
    assert picks[0].argmax() == s["offer"][0, 3] and picks[0].sum() == 1
    assert picks[1].argmax() == s["offer"][0, 0] and picks[1].sum() == 1
    assert not picks[2].any()


def test_board_after_first_game_setup():
    # RAD-S3 option: fixed camps; RAD-S4: each draws its camps' draw numbers (2 each).
    states = new_game(seed=8, options=OPTION_FIRST_GAME_CAMPS)
    s = states[0]
    assert s["phase"] == PHASE_ACTIONS
    turn = s["turn_player"]
    sets = (FIRST_GAME_A, FIRST_GAME_B)
    for player in range(2):
        obs = observe(states, player)
        assert obs[enc.PHASE_ONEHOT + PHASE_ACTIONS] == 1
        assert not obs[enc.OFFER : enc.PEND_OP].any()  # draft rows cleared after the draft
        for side in range(2):
            p = player if side == 0 else 1 - player
            for c in range(3):
                b = column_block(side, c)
                assert np.flatnonzero(obs[b + enc.C_CAMP : b + enc.C_CAMP + N_CAMPS]).tolist() == [
                    sets[p][c]
                ]
                assert obs[b + enc.C_CAMP_POS] == 1  # at the back of its column
                assert not obs[b + enc.C_CAMP_DAMAGED : b + enc.C_CAMP_POS].any()
                assert not obs[b + enc.C_PEOPLE : b + enc.COL_BLOCK].any()
            sb = side * enc.SIDE_BLOCK
            # 2 starting cards, plus the first turn's draw for the turn player (RAD-T2)
            assert obs[sb + enc.S_HAND_SIZE] == 2 + (p == turn)
            assert obs[sb + enc.S_TURN] == (p == turn)
            assert obs[sb + enc.S_FIRST] == (p == s["first_player"])
            assert not obs[sb + enc.S_QUEUE : sb + enc.S_QUEUE + 33].any()
        np.testing.assert_array_equal(obs[enc.HAND : enc.HAND + N_DECK_TYPES], s["hand"][player])
        # RAD-T2: the first player takes only 1 water on the very first turn.
        assert obs[enc.WATER] == 1
        assert obs[enc.DECK_N] == DECK_SIZE - 5


# ---- no leaks (RAD-G4, RAD-S3) ---------------------------------------------------------------


def leak_positions():
    for seed in range(6):
        yield from random_positions(300 + seed, every=3)


def test_deck_order_and_rng_do_not_leak(view):
    # RAD-G4: nobody knows the deck order; the RNG word decides only what is still unknown.
    rng = np.random.default_rng(1)
    assert count_reshuffled_unseen(leak_positions(), rng, unseen_by_both(view)) > 100


def test_punk_types_do_not_leak_on_either_side(view):
    # RAD-K3: a punk's card swapped with a deck card of another type (same counts, other
    # identity); not even the punk's owner may see the difference.

    def swap_punks(s):
        changed = False
        for p in range(2):
            for c in range(3):
                for i in range(s["col_len"][p, c]):
                    if s["ent_kind"][p, c, i] != PERSON or s["ent_punk"][p, c, i] == 0:
                        continue
                    t = s["ent_type"][p, c, i]
                    for k in range(s["deck_n"]):
                        if s["deck"][k] != t:
                            s["ent_type"][p, c, i], s["deck"][k] = s["deck"][k], t
                            changed = True
                            break
        return changed

    assert count_unseen_edits(leak_positions(), swap_punks, unseen_by_both(view)) > 20


def test_opponent_hand_contents_do_not_leak(view):
    # RAD-G4: the opponent's hand shows as a size only.
    checked = 0
    for states in leak_positions():
        for owner in range(2):
            other = states.copy()
            hand = other[0]["hand"][owner]
            held = np.flatnonzero(hand)
            if held.size == 0:
                continue
            # one card becomes another type; the size stays the same
            t = held[0]
            new = (t + 1 + np.arange(N_DECK_TYPES - 1)) % N_DECK_TYPES
            hand[t] -= 1
            hand[new[0]] += 1
            # the opponent sees no change, the owner does see their own hand
            view.assert_only_owner_sees(states, other, owner, 2)
            checked += 1
    assert checked > 100


def test_discard_pile_below_the_top_does_not_leak(view):
    # RAD-G4: only the top card of the discard pile is shown.

    def below_the_top(s):
        n = s["discard_n"]
        if n < 2:
            return False
        s["discard"][: n - 1] = (s["discard"][: n - 1] + 1) % N_DECK_TYPES
        return True

    assert count_unseen_edits(leak_positions(), below_the_top, unseen_by_both(view)) > 50


def draft_states(seed):
    """Draft positions: before any pick, mid-way for player 0, and while player 1 picks."""
    states = new_game(seed)
    yield states.copy()
    apply_action(states, 0, A_KEEP + 2)
    yield states.copy()
    apply_action(states, 0, A_KEEP + 5)
    apply_action(states, 0, A_KEEP + 0)
    yield states.copy()  # player 0 done, player 1 to pick
    apply_action(states, 0, A_KEEP + 1)
    yield states.copy()


def test_opponent_draft_offer_and_picks_do_not_leak(view):
    # RAD-S3: each player's offer and picks stay secret until both reveal their camps.
    rng = np.random.default_rng(3)
    for seed in range(5):
        for states in draft_states(seed):
            assert states[0]["phase"] == PHASE_DRAFT
            for owner in range(2):
                other = states.copy()
                s = other[0]
                # another offer and other picks for ``owner``
                s["offer"][owner] = rng.permutation(N_CAMPS)[:6]
                s["kept"][owner] = rng.permutation([1, 1, 1, 0, 0, 0])
                s["kept_n"][owner] = rng.integers(0, 4)
                s["camp"][owner] = rng.permutation(N_CAMPS)[:3]
                view.assert_only_owner_sees(states, other, owner, 2)


def interrogate_decision():
    """The turn player ``p`` plays Interrogate (RAD-K5, bomb 0): draw 4, keep one. Returns
    ``(states, p, top4)``, the decision and the 4 cards drawn in draw order."""
    states = new_game(seed=12, options=OPTION_FIRST_GAME_CAMPS)
    s = states[0]
    p = s["turn_player"]
    interrogate = DECK_TYPE_ID["interrogate"]
    # move one Interrogate from the deck to p's hand (every copy stays in one place)
    k = int(np.flatnonzero(s["deck"][: s["deck_n"]] == interrogate)[0])
    s["deck"][k : s["deck_n"] - 1] = s["deck"][k + 1 : s["deck_n"]].copy()
    s["deck_n"] -= 1
    s["hand"][p, interrogate] += 1
    top4 = s["deck"][s["deck_n"] - 4 : s["deck_n"]][::-1].copy()
    apply_action(states, 0, A_PLAY_EVENT + interrogate - FIRST_EVENT_TYPE)
    assert s["phase"] == PHASE_DECISION and s["current_player"] == p
    return states, p, top4


def test_revealed_cards_only_for_their_owner():
    # RAD-G4: the 4 cards Interrogate draws are their owner's secret.
    states, p, top4 = interrogate_decision()
    own = observe(states, p)
    rows = own[enc.REVEALED : enc.REVEALED + 4 * N_DECK_TYPES].reshape(4, N_DECK_TYPES)
    assert rows.argmax(axis=1).tolist() == top4.tolist() and rows.sum() == 4
    assert own[enc.PEND_OP + OP["DRAW_DISCARD"]] == 1
    assert own[enc.PEND_OWNER + 0] == 1
    theirs = observe(states, 1 - p)
    assert not theirs[enc.REVEALED : enc.REVEALED + 4 * N_DECK_TYPES].any()
    assert theirs[enc.PEND_OP + OP["DRAW_DISCARD"]] == 1  # that Interrogate resolves is public
    assert theirs[enc.PEND_OWNER + 1] == 1


def test_revealed_cards_change_only_their_owners_view(view):
    # RAD-G4: other revealed cards (with the same hand size) change nothing for the opponent.
    states, p, _ = interrogate_decision()
    other = states.copy()
    other[0]["revealed"][:4] = (other[0]["revealed"][:4] + 1) % N_DECK_TYPES
    view.assert_only_owner_sees(states, other, p, 2)


# ---- what is shown ---------------------------------------------------------------------------


def test_punk_shows_a_flag_and_no_type():
    states = new_game(seed=21, options=OPTION_FIRST_GAME_CAMPS)
    s = states[0]
    # a punk (type Sniper underneath) in front of player 1's column 2 camp, damaged-free
    s["col_len"][1, 2] = 2
    s["ent_kind"][1, 2, 1] = PERSON
    s["ent_type"][1, 2, 1] = DECK_TYPE_ID["sniper"]
    s["ent_uid"][1, 2, 1] = 40
    s["ent_punk"][1, 2, 1] = 1
    for player in range(2):
        side = 0 if player == 1 else 1
        obs = observe(states, player)
        pb = person_block(side, 2, 0)
        assert obs[pb + enc.PB_PRESENT] == 1 and obs[pb + enc.PB_PUNK] == 1
        assert not obs[pb + enc.PB_TYPE : pb + enc.PB_TYPE + N_PERSON_TYPES].any()
        assert obs[pb + enc.PB_READY] == 1  # not damaged, no not-ready marker (RAD-R2)
    # the same slot as a face-up Sniper shows its type
    s["ent_punk"][1, 2, 1] = 0
    obs = observe(states, 1)
    pb = person_block(0, 2, 0)
    assert obs[pb + enc.PB_TYPE + DECK_TYPE_ID["sniper"]] == 1 and obs[pb + enc.PB_PUNK] == 0


def visible_edits(states):
    """Copies with one public change each (RAD-B*, RAD-I*, RAD-A6, RAD-E2)."""
    base = states[0]
    edits = {}

    def edit(name, fn):
        other = states.copy()
        fn(other[0])
        edits[name] = other

    edit("camp damaged", lambda s: s["camp_state"].__setitem__((1, 0), 1))
    edit("camp destroyed", lambda s: s["camp_state"].__setitem__((0, 2), 2))
    edit("camp used", lambda s: s["camp_used"].__setitem__((0, 1), 1))
    edit("event queued", lambda s: s["queue"].__setitem__((1, 2), FIRST_EVENT_TYPE + 3))
    edit("raiders out", lambda s: s["queue"].__setitem__((0, 2), RAIDERS))
    edit("water", lambda s: s.__setitem__("water", base["water"] + 1))
    edit("silo taken", lambda s: s["silo_in_hand"].__setitem__(1, 1))
    edit("deck smaller", lambda s: s.__setitem__("deck_n", base["deck_n"] - 1))
    edit("reshuffled", lambda s: s.__setitem__("reshuffled", 1))
    edit("juggernaut", lambda s: s["juggernaut_moves"].__setitem__(0, 1))
    edit("high ground", lambda s: s["high_ground"].__setitem__(1, 1))

    def opponent_hand_grows(s):
        s["hand"][1, 0] += 1

    edit("hand size", opponent_hand_grows)

    def discard_top(s):
        s["discard"][0] = 5
        s["discard_n"] = 1

    edit("discard top", discard_top)

    def add_person(s):
        s["col_len"][0, 1] = 2
        s["ent_kind"][0, 1, 1] = PERSON
        s["ent_type"][0, 1, 1] = 7
        s["ent_uid"][0, 1, 1] = 50
        s["ent_damaged"][0, 1, 1] = 1

    edit("person", add_person)
    return edits


def test_visible_changes_show_for_both_players(view):
    states = new_game(seed=2, options=OPTION_FIRST_GAME_CAMPS)
    for name, other in visible_edits(states).items():
        for player in range(2):
            before, after = view.observe(states, player), view.observe(other, player)
            assert not np.array_equal(before, after), name


def test_sides_are_relative_to_the_observer():
    states = new_game(seed=2, options=OPTION_FIRST_GAME_CAMPS)
    s = states[0]
    s["camp_state"][1, 0] = 1  # player 1's first camp damaged
    s["queue"][0, 1] = RAIDERS  # player 0's Raiders in slot 2
    obs0, obs1 = both(states)
    assert obs0[column_block(1, 0) + enc.C_CAMP_DAMAGED] == 1
    assert obs1[column_block(0, 0) + enc.C_CAMP_DAMAGED] == 1
    raiders_slot2 = enc.S_QUEUE + 1 * enc.QUEUE_SLOT + N_EVENT_TYPES
    assert obs0[raiders_slot2] == 1 and obs1[enc.SIDE_BLOCK + raiders_slot2] == 1
    assert obs0[column_block(0, 0) + enc.C_CAMP_DAMAGED] == 0
    # the other player's camps, seen from each side, are the same blocks swapped
    np.testing.assert_array_equal(obs0[: enc.SIDE_BLOCK], obs1[enc.SIDE_BLOCK : 2 * enc.SIDE_BLOCK])
    np.testing.assert_array_equal(obs1[: enc.SIDE_BLOCK], obs0[enc.SIDE_BLOCK : 2 * enc.SIDE_BLOCK])


def test_raiders_decision_context_for_the_opponent():
    # RAD-I8: when Raiders resolve, the opponent picks one of their own camps to damage.
    states = new_game(seed=5, options=OPTION_FIRST_GAME_CAMPS)
    s = states[0]
    p = s["turn_player"]
    q = 1 - p
    s["queue"][q, 0] = RAIDERS  # q's Raiders resolve at the start of q's turn (RAD-T1)
    apply_action(states, 0, A_END_TURN)
    assert s["phase"] == PHASE_DECISION and s["current_player"] == p
    obs = observe(states, p)
    assert obs[enc.PEND_OP + OP["DAMAGE"]] == 1
    assert obs[enc.PEND_TARGET + TARGET["OWN_CAMP"]] == 1
    assert obs[enc.PEND_OWNER + 1] == 1  # the Raiders belong to the other player
    assert obs[enc.S_DECIDER] == 1 and obs[enc.SIDE_BLOCK + enc.S_TURN] == 1
    assert obs[enc.IN_EVENTS_PHASE] == 1
    assert obs[enc.PHASE_ONEHOT + PHASE_DECISION] == 1
    q_obs = observe(states, q)
    assert q_obs[enc.PEND_OWNER + 0] == 1 and q_obs[enc.S_DECIDER] == 0


def test_camp_place_follows_the_column_order():
    # docs/radlands.md: Juggernaut can stand in front of people; its place is shown.
    states = new_game(seed=3, options=OPTION_FIRST_GAME_CAMPS)
    s = states[0]
    s["camp"][0, 0] = CAMP_ID["juggernaut"]
    s["col_len"][0, 0] = 2
    s["ent_kind"][0, 0, 0] = PERSON
    s["ent_type"][0, 0, 0] = 3
    s["ent_uid"][0, 0, 0] = 60
    s["ent_kind"][0, 0, 1] = CAMP
    s["ent_uid"][0, 0, 1] = 1
    obs = observe(states, 0)
    b = column_block(0, 0)
    assert obs[b + enc.C_CAMP + CAMP_ID["juggernaut"]] == 1
    assert obs[b + enc.C_CAMP_POS : b + enc.C_CAMP_POS + 3].tolist() == [0, 1, 0]
    assert obs[person_block(0, 0, 0) + enc.PB_TYPE + 3] == 1
    assert obs[person_block(0, 0, 1) + enc.PB_PRESENT] == 0


def test_juggernaut_space_is_shown_even_in_an_empty_column():
    # docs/radlands.md board model (subtleties §15): Juggernaut stands on space 0..2 of its
    # column; in an empty column the order alone cannot tell the spaces apart.
    states = new_game(seed=3, options=OPTION_FIRST_GAME_CAMPS)
    states[0]["camp"][0, 0] = CAMP_ID["juggernaut"]
    seen = []
    for space in range(3):
        states[0]["juggernaut_moves"][0] = space
        own, opp = observe(states, 0), observe(states, 1)
        assert own[enc.S_JUGGERNAUT] == space
        assert opp[enc.SIDE_BLOCK + enc.S_JUGGERNAUT] == space
        seen.append(own.tobytes())
    assert len(set(seen)) == 3


# ---- batch and bounds ------------------------------------------------------------------------


def test_batch_encode_equals_single(view):
    positions = [st for seed in range(3) for st in random_positions(50 + seed, every=9)]
    states = np.concatenate(positions)
    players = (np.arange(len(states)) % 2).astype(np.int64)
    assert_batch_encode_equals_single(view.encoder, states, players)


def test_bounds_contain_observations_over_random_games():
    low, high = observation_bounds(enc)
    seen = 0
    phases = set()
    for seed in range(40):
        for states in random_positions(seed, every=2):
            phases.add(int(states[0]["phase"]))
            for player in range(2):
                obs = observe(states, player)
                assert_within(obs, low, high)
                # exactly one phase, and at most one decider
                assert obs[enc.PHASE_ONEHOT : enc.PHASE_ONEHOT + 4].sum() == 1
                assert obs[enc.S_DECIDER] + obs[enc.SIDE_BLOCK + enc.S_DECIDER] <= 1
                seen += 1
    assert phases == {PHASE_DRAFT, PHASE_ACTIONS, PHASE_DECISION, PHASE_OVER}
    assert seen > 3000


@pytest.mark.slow
def test_no_leaks_and_bounds_over_many_games(view):
    rng = np.random.default_rng(9)
    for seed in range(400):
        for states in random_positions(10_000 + seed, every=4):
            other = states.copy()
            s = other[0]
            n = s["deck_n"]
            s["deck"][:n] = rng.permutation(s["deck"][:n])
            s["rng"][0] = np.uint64(rng.integers(1 << 62))
            for p in range(2):
                for c in range(3):
                    for i in range(s["col_len"][p, c]):
                        if s["ent_punk"][p, c, i] == 1 and n > 0:
                            k = rng.integers(n)
                            s["ent_type"][p, c, i], s["deck"][k] = (
                                s["deck"][k],
                                s["ent_type"][p, c, i],
                            )
            unseen_by_both(view)(states, other)
            for player in range(2):
                obs = view.observe(states, player)
                assert np.all(obs <= view.encoder.OBS_HIGH) and np.all(obs >= 0)
