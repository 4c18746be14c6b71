"""Endeavor's compact observation (``observation="compact"``): the full observation's 1902 floats
in 409, in the same order. Each one-hot block of the full vector becomes one code (index + 1,
0 = none); each player's 99 board-card flags (city, building, empire ids) become 9 codes, the
indices of the set flags + 1 in ascending order, padded with 0; every other entry is copied.

The slow reference is ``encoders.endeavor.compact_from_full``; ``compact_cases.Folding``
unfolds the codes again, so a compact vector that matches the reference both ways carries
exactly what the full one does. The leak and visibility tests (END-O1, END-O2, END-S4, deck
orders, the RNG word) run on both observations in tests/test_endeavor_encoder.py; the entry
points (``make_batch``, PettingZoo, Gymnasium, the vector env, ``meeple bench``) in
tests/test_compact_obs.py.
"""

import numpy as np
from compact_cases import Folding
from endeavor_helpers import (
    BUILDING,
    CITY,
    EMPIRE,
    GOVERNOR,
    HOME,
    KIND,
    MERCHANT,
    SAILOR,
    act,
    blank,
    good,
    pending,
    plan,
    put_city,
    put_on_board,
    region_slots,
    set_goods,
    set_ships,
    slot,
)
from test_endeavor_encoder import COMPACT, PLAYER_COUNTS, VIEWS, random_positions

from meeple_gym.encoders import endeavor as enc
from meeple_gym.endeavor import data as D
from meeple_gym.endeavor import rules as R

FOLDING = Folding(enc)


def player_at(i):
    return i * enc.C_PLAYER_BLOCK


def slot_at(k):
    return enc.C_SLOTS + k * enc.C_SLOT_BLOCK


# ---- layout ----------------------------------------------------------------------------------


def documented_blocks():
    """The one-hot blocks of the full vector, read off its documented tables (module docstring
    of encoders/endeavor.py), independently of the offset constants."""
    blocks = []
    for i in range(4):
        b = 144 * i
        blocks += [(b + 3, 4), (b + 8, 4), (b + 13, 6)]  # planning order, execution order, role
    for k in range(17):
        b = 576 + 65 * k
        blocks += [(b + 1, 49), (b + 50, 5), (b + 58, 4)]  # city, its good, marker owner
    blocks += [(1695 + 30 * i, 30) for i in range(3)]  # empire market
    blocks += [(1785 + 20 * i, 20) for i in range(3)]  # building market
    return blocks + [(1846, 6), (1852, 4), (1856, 3)]  # phase, role sub-step, players


def documented_board_flags():
    """Each player's board flags: cities 35-83, buildings 84-103, empire cards 104-133, at most
    9 set (END-B1)."""
    return [(144 * i + 35, 49 + 20 + 30, 9) for i in range(4)]


def test_compact_folds_exactly_the_one_hots_and_the_board_flags():
    FOLDING.assert_layout(documented_blocks(), documented_board_flags(), 409)
    assert enc.COMPACT_OBS_SIZE * 4 < enc.OBS_SIZE
    assert (enc.C_PLAYER_BLOCK, enc.C_SLOT_BLOCK) == (43, 10)


def full_counterpart(name):
    """The full layout's offset of the entry the compact offset ``name`` (CP_*, CS_*, C_*)
    names, and the full block it is relative to (0: absolute, or the first player block)."""
    renamed = {
        "CP_BOARD": "P_BOARD_CITY",
        "C_PHASE": "PHASE_ONEHOT",
        "C_SUB": "SUB_ONEHOT",
        "C_NUM_PLAYERS": "NUM_PLAYERS_ONEHOT",
    }
    if name in renamed:
        return getattr(enc, renamed[name]), 0
    if name.startswith("CS_"):
        return enc.SLOTS + getattr(enc, "S_" + name[3:]), enc.SLOTS
    prefix, rest = name.split("_", 1)
    return getattr(enc, {"CP": "P_", "C": ""}[prefix] + rest), 0


def test_named_compact_offsets_are_the_folded_full_offsets():
    sizes = {"C_PLAYER_BLOCK", "C_SLOT_BLOCK"}
    names = [n for n in vars(enc) if n.startswith(("CP_", "CS_", "C_")) and n not in sizes]
    assert len(names) == 20 + 10 + 17
    for name in names:
        full, base = full_counterpart(name)
        base_at = enc.compact_offset(base)
        assert base_at + getattr(enc, name) == enc.compact_offset(full), name
    assert enc.C_PLAYER_BLOCK == enc.compact_offset(enc.PLAYER_BLOCK)
    assert enc.COMPACT_OBS_SIZE == enc.compact_offset(enc.OBS_SIZE)
    # the blocks repeat with the same stride in both layouts; multi-entry fields stay in order
    for i in range(4):
        b = i * enc.PLAYER_BLOCK
        assert player_at(i) == enc.compact_offset(b)
        assert player_at(i) + enc.CP_BOARD + 9 == enc.compact_offset(b + enc.P_EMPIRE_HAND_N)
        assert player_at(i) + enc.CP_SHIPS + 6 == enc.compact_offset(b + enc.P_SHIPS + 6)
    for k in range(17):
        b = enc.SLOTS + k * enc.SLOT_BLOCK
        assert slot_at(k) == enc.compact_offset(b)
        assert slot_at(k) + enc.CS_OWNER == enc.compact_offset(b + enc.S_OWNER)
    for r in range(7):
        b = enc.REGIONS + r * enc.REGION_BLOCK
        assert enc.C_REGIONS + 2 * r + enc.R_DECK_N == enc.compact_offset(b + enc.R_DECK_N)
    for i in range(3):
        assert enc.C_EMPIRE_MARKET + i == enc.compact_offset(enc.EMPIRE_MARKET + 30 * i)
        assert enc.C_BUILDING_MARKET + i == enc.compact_offset(enc.BUILDING_MARKET + 20 * i)
    assert enc.C_OWN_EMPIRE_HAND + 29 == enc.compact_offset(enc.OWN_EMPIRE_HAND + 29)


# ---- positions random play seldom or never reaches ---------------------------------------------


def dealt():
    """Round 1 planning of 3 players (``endeavor_helpers.blank``) with an unclaimed city in
    every slot of every region, seat 0 with a ship in every region it can sail to and 18 tokens
    in its pool."""
    states = blank(3)
    for r, key in enumerate(D.REGIONS):
        cities = [c for c in range(R.NC) if R.CITY_REGION[c] == r]
        for c in cities[: len(region_slots(r))]:
            put_city(states, D.CITY_KEYS[c])
        if key != "europe":  # END-R4: no ships to Europe
            set_ships(states, 0, key, 1)
    states[0]["pool"][0] = 18
    return states


def merchant_positions():
    """For each 3 slots in turn: seat 0 holds their (upgraded) cities and its Merchant collects
    from each of them, then asks the home port for a good; a position after each step."""
    for first in range(0, R.N_SLOTS, R.MARKERS):
        states = dealt()
        own = list(range(first, min(first + R.MARKERS, R.N_SLOTS)))
        states[0]["slot_owner"][own] = 0
        states[0]["slot_upgraded"][own] = 1
        plan(states, [MERCHANT, SAILOR, SAILOR], [len(own) + 1, 0, 0])
        for k in own:
            act(states, slot(k))
            yield states.copy()
        act(states, HOME)
        assert pending(states) == (R.PH_ROLE, R.SUB_HOME_GOOD, 0)
        yield states.copy()


def governor_positions():
    """Seat 0's Governor (18 tokens) settles each of the 17 slots in turn, paying in tea (tea
    or coffee: a decision); from the fourth city on, one of its 3 markers moves (END-G,
    END-S1). A position at every payment decision and every marker move."""
    states = dealt()
    set_goods(states, 0, tea=40, coffee=40)
    plan(states, [GOVERNOR, SAILOR, SAILOR], [18, 0, 0])
    subs = set()
    for k in range(R.N_SLOTS):
        act(states, slot(k))
        while pending(states)[1] == R.SUB_GOV_PAY:
            subs.add(R.SUB_GOV_PAY)
            yield states.copy()
            act(states, good("tea"))
        if pending(states)[1] == R.SUB_GOV_MOVE:
            subs.add(R.SUB_GOV_MOVE)
            yield states.copy()
            act(states, slot(k - 3))  # the marker settled three cities ago moves
    assert subs == {R.SUB_GOV_PAY, R.SUB_GOV_MOVE}


NINE_CARDS = (  # seat 0's board in this order: the kernel has to sort the codes
    ("empire", "navigation_acts"),
    ("building", "museum"),
    ("city", "shanghai"),
    ("empire", "act_of_parliament"),
    ("city", "amsterdam"),
    ("building", "cathedral"),
    ("city", "goree"),
    ("empire", "royal_charter"),
    ("building", "coffee_house"),
)
SIX_CARDS = (  # seat 1's, then second copies of its cards 0, 4, 0
    ("building", "observatory"),
    ("city", "lisbon"),
    ("empire", "cape_route"),
    ("building", "university"),
    ("city", "bristol"),
    ("city", "london"),
)


def board_positions():
    """4 players: seat 0 with 9 different board cards of all three kinds, seat 1 with 9 cards
    of which three are second copies (the rules hold one copy of each card; the flags show a
    card once, and so do the codes). Every player also shows a ship in Europe, which END-R4
    never allows: only so that that copied entry is non-zero somewhere."""
    states = blank(4)
    s = states[0]
    for kind, key in NINE_CARDS:
        put_on_board(states, 0, kind, key)
    for kind, key in SIX_CARDS:
        put_on_board(states, 1, kind, key)
    for i in (0, 4, 0):
        s["board_kind"][1, s["board_n"][1]] = s["board_kind"][1, i]
        s["board_id"][1, s["board_n"][1]] = s["board_id"][1, i]
        s["board_n"][1] += 1
    s["ships"][:, 0] = 1
    yield states


def stale_role_step():
    """A Governor's payment decision relabelled as planning: the fields of the role being
    executed (strength, sub-step, the city being settled, goods due) keep their values, which
    the encoders must show only during execution."""
    states = next(governor_positions())
    states[0]["phase"] = R.PH_PLAN_ROLE
    yield states


def rare_positions():
    yield from merchant_positions()
    yield from governor_positions()
    yield from board_positions()
    yield from stale_role_step()


def reference_positions():
    """Uniform-random games of 2, 3 and 4 players, every other decision, end included; and
    ``rare_positions``."""
    for n in PLAYER_COUNTS:
        for seed in range(4):
            yield from random_positions(n, 500 + 10 * n + seed, every=2)
    yield from rare_positions()


def seats(states):
    return range(int(states[0]["num_players"]))


# ---- the kernel against the reference --------------------------------------------------------


def test_compact_matches_the_reference_and_its_bounds():
    seen, phases, checked = FOLDING.check_kernel(VIEWS, reference_positions(), seats)
    assert phases == set(range(6))  # start city, return card, plan role, tokens, role, over
    assert checked > 2000
    # Every entry is non-zero somewhere, so a field the kernel dropped would have shown.
    assert seen.all(), np.flatnonzero(~seen)


# ---- what the codes say ----------------------------------------------------------------------

KIND_FIRST_CODE = {R.K_CITY: 1, R.K_BUILDING: 1 + R.NC, R.K_EMPIRE: 1 + R.NC + R.NB}
CARD_ID = {"city": CITY, "building": BUILDING, "empire": EMPIRE}


def card_codes(cards):
    """The codes of ``(kind, key)`` board cards, ascending."""
    return sorted(KIND_FIRST_CODE[KIND[kind]] + CARD_ID[kind][key] for kind, key in cards)


def board_codes(s, p):
    """p's board cards as codes, read off the record: ascending, each card once, 0-padded."""
    n = s["board_n"][p]
    cards = zip(s["board_kind"][p, :n], s["board_id"][p, :n], strict=True)
    codes = sorted({KIND_FIRST_CODE[int(kind)] + int(cid) for kind, cid in cards})
    return codes + [0] * (R.BOARD - len(codes))


def code(values, x):
    """The position of ``x`` in ``values`` + 1, 0 if absent."""
    values = [int(v) for v in values]
    return values.index(x) + 1 if x in values else 0


def assert_player_codes(s, obs, observer):
    n = int(s["num_players"])
    revealed = s["phase"] == R.PH_ROLE or (s["phase"] == R.PH_OVER and s["terminated"])
    for i in range(R.MAXP):
        b = player_at(i)
        if i >= n:
            assert not obs[b : b + enc.C_PLAYER_BLOCK].any()
            continue
        p = (observer + i) % n
        assert obs[b + enc.CP_ORDER] == code(s["order"][:n], p)
        assert obs[b + enc.CP_EXEC_POS] == (code(s["exec_order"][:n], p) if revealed else 0)
        shown = (revealed or p == observer) and s["role"][p] >= 0  # END-O1
        assert obs[b + enc.CP_ROLE] == (s["role"][p] + 1 if shown else 0)
        assert obs[b + enc.CP_BOARD_N] == s["board_n"][p]
        assert obs[b + enc.CP_BOARD : b + enc.CP_BOARD + R.BOARD].tolist() == board_codes(s, p)


def assert_shared_codes(s, obs, observer):
    n = int(s["num_players"])
    in_role = s["phase"] == R.PH_ROLE
    for k in range(R.N_SLOTS):
        b = slot_at(k)
        c, q = int(s["slot_city"][k]), int(s["slot_owner"][k])
        assert obs[b + enc.CS_CITY] == c + 1
        assert obs[b + enc.CS_GOOD] == (R.CITY_GOOD[c] + 1 if c >= 0 else 0)
        assert obs[b + enc.CS_OWNER] == ((q - observer) % n + 1 if q >= 0 else 0)  # relative
        assert obs[b + enc.CS_COLLECTED] == (in_role and (int(s["city_used"]) >> k) & 1)
        settling = in_role and s["sub"] in (R.SUB_GOV_PAY, R.SUB_GOV_MOVE) and s["gov_slot"] == k
        assert obs[b + enc.CS_SETTLING] == settling
    emp, bld = enc.C_EMPIRE_MARKET, enc.C_BUILDING_MARKET
    assert obs[emp : emp + R.MARKET].tolist() == (s["empire_market"] + 1).tolist()
    assert obs[bld : bld + R.B_MARKET].tolist() == (s["building_market"] + 1).tolist()
    assert obs[enc.C_PHASE] == s["phase"] + 1 and obs[enc.C_NUM_PLAYERS] == n - 1
    assert obs[enc.C_SUB] == (s["sub"] + 1 if in_role else 0)
    assert obs[enc.C_GOV_DUE] == (s["gov_due"] if in_role else 0)


def code_positions():
    for n in PLAYER_COUNTS:
        yield from random_positions(n, 70 + n, every=3)
    yield from rare_positions()


def test_codes_read_straight_from_the_state():
    checked = 0
    for states in code_positions():
        for observer in seats(states):
            obs = COMPACT.observe(states, observer)
            assert_player_codes(states[0], obs, observer)
            assert_shared_codes(states[0], obs, observer)
            checked += 1
    assert checked > 300


def test_board_codes_are_sorted_and_deduplicated():
    (states,) = board_positions()
    for observer in range(4):
        obs = COMPACT.observe(states, observer)
        seat0, seat1 = player_at(-observer % 4), player_at((1 - observer) % 4)
        assert obs[seat0 + enc.CP_BOARD :][: R.BOARD].tolist() == card_codes(NINE_CARDS)
        assert obs[seat1 + enc.CP_BOARD :][: R.BOARD].tolist() == card_codes(SIX_CARDS) + [0] * 3
        assert obs[seat0 + enc.CP_BOARD_N] == obs[seat1 + enc.CP_BOARD_N] == 9  # copies count
