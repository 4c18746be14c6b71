"""Radlands' compact observation (``observation="compact"``): the full observation's 1486 floats
in 214, each one-hot block of the full vector folded into one code (index + 1, 0 = none), every
other entry copied, in the same order.

The slow reference is ``encoders.radlands.compact_from_full``; ``compact_cases.Folding``
unfolds the codes again, so a compact vector that matches the reference both ways carries
exactly what the full one does. The leak tests (RAD-G4, RAD-K3, RAD-S3) run on both
observations in tests/test_radlands_encoder.py; the entry points (``make_batch``, PettingZoo,
Gymnasium, the vector env, ``meeple bench``) in tests/test_compact_obs.py.
"""

import numpy as np
from compact_cases import Folding
from test_radlands_encoder import (
    COMPACT,
    VIEWS,
    interrogate_decision,
    new_game,
    random_positions,
)
from test_radlands_rules import (
    CAMPS_0,
    CAMPS_1,
    DT,
    act,
    end_turn,
    give,
    place,
    position,
    pull,
    put,
    select_hand,
    set_queue,
    target,
    use,
)

from meeple_gym.encoders import radlands as enc
from meeple_gym.radlands.data import CAMP_ID, N_DECK_TYPES, N_EVENT_TYPES, N_PERSON_TYPES
from meeple_gym.radlands.effects import OP
from meeple_gym.radlands.rules import (
    A_KEEP,
    OP_MIMIC,
    OP_PARACHUTE,
    PHASE_ACTIONS,
    PHASE_DECISION,
    PHASE_DRAFT,
    PHASE_OVER,
    apply_action,
)

FOLDING = Folding(enc)


def column_at(side, c):
    return side * enc.K_SIDE_BLOCK + c * enc.K_COL_BLOCK


def person_at(side, c, slot):
    return column_at(side, c) + enc.K_PEOPLE + slot * enc.K_PERSON_BLOCK


# ---- layout ----------------------------------------------------------------------------------


def documented_blocks():
    """The one-hot blocks of the full vector, read off its documented table (module docstring
    of encoders/radlands.py), independently of the offset constants."""
    blocks = []
    for side in (0, 351):
        for c in range(3):
            cb = side + 103 * c
            blocks += [(cb, 34), (cb + 38, 3), (cb + 41 + 1, 26), (cb + 72 + 1, 26)]
        blocks += [(side + 309 + 11 * j, 11) for j in range(3)]
    blocks += [(705, 36), (742, 4)]
    blocks += [(789 + 36 * k, 36) for k in range(4)]
    blocks += [(933 + 34 * k, 34) for k in range(6)]
    blocks += [(1143 + 34 * c, 34) for c in range(3)]
    pending = [(1245, 42), (1287, 85), (1372, 6), (1378, 13), (1391, 2), (1395, 18), (1413, 18)]
    return blocks + pending + [(1431, 26), (1458, 26)]


def test_compact_folds_exactly_the_one_hot_blocks():
    FOLDING.assert_layout(documented_blocks(), [], 214)
    assert enc.COMPACT_OBS_SIZE * 6 < enc.OBS_SIZE


def full_counterpart(name):
    """The full layout's offset of the entry the compact offset ``name`` (K_* / KB_*) names,
    relative to its column, person slot or side block like ``name`` itself."""
    if name.startswith("KB_"):
        return enc.C_PEOPLE + getattr(enc, "PB_" + name[3:]), enc.K_PEOPLE
    rest = name[2:]
    for prefix in ("C_", "S_"):
        if hasattr(enc, prefix + rest):
            return getattr(enc, prefix + rest), 0
    return getattr(enc, "PHASE_ONEHOT" if rest == "PHASE" else rest), 0


def test_named_compact_offsets_are_the_folded_full_offsets():
    sizes = {"K_COL_BLOCK", "K_PERSON_BLOCK", "K_SIDE_BLOCK"}
    names = [n for n in vars(enc) if n.startswith(("K_", "KB_")) and n not in sizes]
    assert len(names) > 50
    for name in names:
        full, base = full_counterpart(name)
        assert base + getattr(enc, name) == enc.compact_offset(full), name
    # the blocks repeat with the same stride in both layouts; multi-entry fields stay in order
    for side in range(2):
        for c in range(3):
            full = side * enc.SIDE_BLOCK + c * enc.COL_BLOCK
            assert column_at(side, c) == enc.compact_offset(full)
            assert person_at(side, c, 1) == enc.compact_offset(full + enc.C_PEOPLE + 31)
    for k in range(4):
        assert enc.K_REVEALED + k == enc.compact_offset(enc.REVEALED + k * N_DECK_TYPES)
    for k in range(6):
        assert enc.K_OFFER + k == enc.compact_offset(enc.OFFER + k * 34)
    assert enc.K_QUEUE + 2 == enc.compact_offset(enc.S_QUEUE + 2 * enc.QUEUE_SLOT)
    assert enc.K_HAND + N_DECK_TYPES - 1 == enc.compact_offset(enc.HAND + N_DECK_TYPES - 1)


# ---- the kernel against the reference --------------------------------------------------------


def rare_positions():
    """Positions random play hardly reaches: a borrowed ability's person picked (Parachute Base
    at its ability step, Mimic choosing between two abilities) and a punk or a face-up person
    lifted by High Ground."""
    rabble = ("parachute_base", "garage", "supply_depot")
    states = position(camps0=rabble, water=5)
    put(states, 0, 2, "muse", punk=True)  # Rabble Rouser's second ability needs a punk
    put(states, 1, 0, "scout")
    give(states, 0, "rabble_rouser")
    act(states, use(0, 0), select_hand("rabble_rouser"), place(1, 1))
    yield states
    states = position(water=3)
    put(states, 0, 0, "mimic")
    put(states, 0, 1, "rabble_rouser")
    put(states, 0, 2, "muse", punk=True)
    put(states, 1, 0, "scout")
    act(states, use(0, 1), target(0, 1, 1))
    yield states
    for punk in (True, False):
        states = position(turn=1)
        put(states, 0, 0, "muse", punk=punk, damaged=True)
        put(states, 0, 1, "scout")
        set_queue(states, 0, ["high_ground", None, None])
        end_turn(states)
        act(states, target(0, 0, 1))
        yield states


def reference_positions():
    """Uniform-random games of every option mix (``seed % 16``), draft to end; every fourth
    position again as if Vera Vosh had been used (every card's first use kept ready, her
    once-per-turn use spent), which random games seldom show; and ``rare_positions``."""
    for seed in range(24):
        for k, states in enumerate(random_positions(seed, every=2)):
            yield states
            if k % 4 == 0:
                other = states.copy()
                other[0]["ent_used_once"][:] = 1
                other[0]["vera_used"] = 1
                yield other
    yield from rare_positions()


def test_compact_matches_the_reference_and_its_bounds():
    seen, phases, checked = FOLDING.check_kernel(VIEWS, reference_positions(), lambda s: range(2))
    assert phases == {PHASE_DRAFT, PHASE_ACTIONS, PHASE_DECISION, PHASE_OVER}
    assert checked > 3000
    # Every entry is non-zero somewhere, so a field the kernel dropped would have shown.
    assert seen.all(), np.flatnonzero(~seen)


# ---- what the codes say ----------------------------------------------------------------------


def test_board_codes():
    states = position(turn=1)
    s = states[0]
    put(states, 1, 2, "sniper", punk=True)  # a punk, a Sniper face down (RAD-K3)
    put(states, 1, 2, "looter", damaged=True)
    set_queue(states, 0, ["banish", None, "raiders"])
    give(states, 0, "muse", 2)
    pull(states, DT["scout"])
    s["discard"][0], s["discard_n"] = DT["scout"], 1
    for player in range(2):
        obs = COMPACT.observe(states, player)
        for side in range(2):
            p = player if side == 0 else 1 - player
            for c in range(3):
                camp = (CAMPS_0, CAMPS_1)[p][c]
                assert obs[column_at(side, c) + enc.K_CAMP] == CAMP_ID[camp] + 1
                assert obs[column_at(side, c) + enc.K_CAMP_POS] == 1  # at the back
        theirs = 1 if player == 0 else 0  # player 1's side
        punk, looter = person_at(theirs, 2, 0), person_at(theirs, 2, 1)
        assert obs[punk + enc.KB_PRESENT] == obs[punk + enc.KB_PUNK] == 1
        assert obs[punk + enc.KB_TYPE] == 0  # RAD-K3: no type, for its owner either
        assert obs[looter + enc.KB_TYPE] == DT["looter"] + 1 and obs[looter + enc.KB_PUNK] == 0
        assert obs[looter + enc.KB_DAMAGED] == 1 and obs[looter + enc.KB_READY] == 0
        queue = obs[(1 - theirs) * enc.K_SIDE_BLOCK + enc.K_QUEUE :][:3]
        assert queue.tolist() == [DT["banish"] - N_PERSON_TYPES + 1, 0, N_EVENT_TYPES + 1]
        assert obs[enc.K_DISCARD_TOP] == DT["scout"] + 1
        assert obs[enc.K_PHASE] == PHASE_ACTIONS + 1
        hand = obs[enc.K_HAND : enc.K_HAND + N_DECK_TYPES]
        np.testing.assert_array_equal(hand, s["hand"][player])  # own hand only (RAD-G4)
        assert obs[(1 - theirs) * enc.K_SIDE_BLOCK + enc.K_HAND_SIZE] == 2


def test_draft_codes():
    # RAD-S3: the own offer as camp codes, kept flags and picks in column order.
    states = new_game(seed=4)
    s = states[0]
    apply_action(states, 0, A_KEEP + 3)
    apply_action(states, 0, A_KEEP + 0)
    obs = COMPACT.observe(states, 0)
    assert obs[enc.K_PHASE] == PHASE_DRAFT + 1
    assert obs[enc.K_OFFER : enc.K_OFFER + 6].tolist() == (s["offer"][0] + 1).tolist()
    assert obs[enc.K_KEPT : enc.K_KEPT + 6].tolist() == [1, 0, 0, 1, 0, 0]
    picks = [s["offer"][0, 3] + 1, s["offer"][0, 0] + 1, 0]
    assert obs[enc.K_PICKS : enc.K_PICKS + 3].tolist() == picks
    theirs = COMPACT.observe(states, 1)
    assert theirs[enc.K_OFFER : enc.K_OFFER + 6].tolist() == (s["offer"][1] + 1).tolist()
    assert not theirs[enc.K_KEPT : enc.K_PICKS + 3].any()


def test_decision_codes():
    # Interrogate: the drawn cards as deck-type codes, for their owner only (RAD-G4).
    states, p, top4 = interrogate_decision()
    own, theirs = COMPACT.observe(states, p), COMPACT.observe(states, 1 - p)
    assert own[enc.K_REVEALED : enc.K_REVEALED + 4].tolist() == (top4 + 1).tolist()
    assert not theirs[enc.K_REVEALED : enc.K_REVEALED + 4].any()
    assert own[enc.K_PEND_OP] == theirs[enc.K_PEND_OP] == OP["DRAW_DISCARD"] + 1
    assert (own[enc.K_PEND_OWNER], theirs[enc.K_PEND_OWNER]) == (1, 2)  # observer, opponent
    # Parachute Base dropped a Rabble Rouser at (c, i) = (1, 1) and asks for its ability.
    parachute, mimic, lifted_punk, lifted_muse = rare_positions()
    own, theirs = COMPACT.observe(parachute, 0), COMPACT.observe(parachute, 1)
    assert own[enc.K_PEND_OP] == OP_PARACHUTE + 1
    assert own[enc.K_PEND_PERSON] == theirs[enc.K_PEND_PERSON] == DT["rabble_rouser"] + 1
    assert (own[enc.K_PEND_THAT], theirs[enc.K_PEND_THAT]) == (4 + 1, 9 + 4 + 1)
    assert (own[enc.K_PEND_SRC], theirs[enc.K_PEND_SRC]) == (0 + 1, 9 + 0 + 1)  # the camp
    # Mimic at (0, 1) borrowing the Rabble Rouser at (1, 1).
    own = COMPACT.observe(mimic, 0)
    assert own[enc.K_PEND_OP] == OP_MIMIC + 1
    assert (own[enc.K_PEND_SRC], own[enc.K_PEND_THAT]) == (1 + 1, 4 + 1)
    # High Ground: the lifted person shows its type, a lifted punk none (RAD-K3).
    for lifted, code, punk in ((lifted_punk, 0, 1), (lifted_muse, DT["muse"] + 1, 0)):
        for player in range(2):
            obs = COMPACT.observe(lifted, player)
            assert obs[enc.K_LIFT_PRESENT] == obs[enc.K_LIFT_DAMAGED] == 1
            assert (obs[enc.K_LIFT_TYPE], obs[enc.K_LIFT_PUNK]) == (code, punk)
