"""Endeavor observation: a float32 vector of ``OBS_SIZE`` (1902) seen from one player; the
compact observation (``observation="compact"``, ``COMPACT_OBS_SIZE`` = 409) at the end.

It shows only what that player may know. Public: the round, phase and role sub-step, who
decides, every player's tokens, goods, ships, board cards, markers and score, the cities in the
face-up slots with their markers and upgrades, which regions are open, both markets, the deck
*sizes*, the roles each player has set aside (each was revealed when executed), and, once
execution runs, every player's role, tokens and execution position and the strength left of the
role being executed. Private: the observer's own role hand and empire hand. Never shown: the
RNG word; the order of any deck (city region decks, empire deck, building deck, role decks);
another player's empire hand (only its size, END-S4) or role hand; and while anyone is still
planning (END-O1), another player's role pick and token count — they are revealed together when
execution starts (phase ``role``; also after a game that ended normally).

Values are raw counts and flags (non-negative); ``OBS_HIGH`` bounds them (goods are clipped at
``GOODS_CAP``, a bound the rules never reach, see ``observation_space_bounds``).

Player blocks. Block i is seat ``(player + i) % num_players`` (the rules' relative seat ``i``,
as in ``A_ATTACK_SHIP``; block 0 is the observer); blocks ``num_players..3`` are all zero.
Block i starts at ``i * PLAYER_BLOCK`` (144):

=========  =====  =========================================================================
offset     size   meaning (inside a player block)
=========  =====  =========================================================================
0          1      present
1          1      this player is the decider (0 once the game is over)
2          1      this player went first (END-S6)
3-6        4      position in this round's planning order, one-hot (last round's execution
                  order, END-O3 ties)
7          1      has planned this round (role and tokens chosen; 1 during execution)
8-11       4      position in the execution order, one-hot (once execution runs)
12         1      has executed its role this round (once execution runs)
13-18      6      this round's role one-hot: Sailor, Merchant, Craftsman, Commander,
                  Politician, Governor (others' only once execution runs)
19         1      tokens on the role (others' only once execution runs)
20         1      tokens on the player board (pool)
21         1      force tokens lost for good (END-A4)
22-26      5      goods: tea, coffee, spice, cocoa, sugar (clipped at ``GOODS_CAP``)
27-33      7      ships per region (Europe … China, ``meeple_gym.endeavor.data.REGIONS`` order)
34         1      cards on the player board (END-B1, at most 9)
35-83      49     city cards on the board, one flag per city id
84-103     20     buildings on the board, one flag per building id
104-133    30     empire cards on the board, one flag per empire id
134        1      empire cards in the secret hand (the size only)
135-140    6      roles set aside (used since the role deck was last rebuilt, END-O2)
141        1      cards in the role deck (the size only)
142        1      cities holding this player's markers (END-S1: at most 3)
143        1      current score (``rules.score_of``, END-E2)
=========  =====  =========================================================================

Shared and private parts, absolute offsets:

=========  =====  =========================================================================
offset     size   meaning
=========  =====  =========================================================================
0-575      576    4 player blocks (above)
576-1680   1105   city slots 0..16 (``rules`` slot order: Europe 4, West Africa 3, then 2
                  per region), 65 each (below)
1681-1694  14     regions 0..6, 2 each: open (END-R2), cards left in the region's deck
1695-1784  90     empire market positions 0..2, empire id one-hot (30 each)
1785-1844  60     building market positions 0..2, building id one-hot (20 each)
1845       1      round (1..12, END-E4)
1846-1851  6      phase one-hot: start city, return empire card, plan role, plan tokens,
                  role, over (``rules.PHASE_NAMES``)
1852-1855  4      role sub-step one-hot (phase role only): main, home-port good, Governor
                  pays, Governor moves a marker
1856-1858  3      number of players one-hot (2, 3, 4)
1859       1      cards in the empire deck
1860       1      cards in the building deck
1861       1      strength left of the role being executed (phase role only)
1862       1      ships sent / attacks made by it so far (phase role only; each needs a token)
1863       1      the Merchant took a good this action (phase role only)
1864       1      the Merchant used the home port this action (phase role only)
1865       1      goods still to pay for the city being settled (Governor, phase role only)
1866-1871  6      own role hand, one flag per role (END-O2)
1872-1901  30     own empire hand, one flag per empire id (END-S4)
=========  =====  =========================================================================

A city slot: 0 present, 1-49 city id one-hot, 50-54 the city's good one-hot, 55 settle cost,
56 build cost, 57 points, 58-61 marker owner by relative seat one-hot (all zero: unclaimed),
62 upgraded, 63 already collected from in this Merchant action, 64 the city being settled by
the Governor. Slot ``k`` is the index of the ``A_SLOT`` / ``A_UPGRADE`` actions.
"""

import numpy as np
from numba import prange, types

from meeple_gym.core.folding import Folding, observation_variant
from meeple_gym.core.jit import array_arg, kernel, parallel_kernel, standalone_kernel
from meeple_gym.endeavor.rules import (
    B_MARKET,
    BLD_POINTS,
    BOARD,
    CITIES_PER_REGION,
    CITY_BUILD,
    CITY_GOOD,
    CITY_POINTS,
    CITY_SETTLE,
    EMP_POINTS,
    EMPIRE_DRAW,
    K_BUILDING,
    K_CITY,
    K_EMPIRE,
    MARKERS,
    MARKET,
    MAX_TOKENS,
    MAXP,
    N_ROLES,
    N_SLOTS,
    NB,
    NC,
    NEMP,
    NG,
    NR,
    PH_OVER,
    PH_PLAN_ROLE,
    PH_PLAN_TOKENS,
    PH_ROLE,
    PH_START_CITY,
    ROUND_LIMIT,
    STATES,
    SUB_GOV_MOVE,
    SUB_GOV_PAY,
    score_of,
)

N_PHASES = 6
N_SUBS = 4
MIN_PLAYERS = 2
# END-A2: a Merchant action yields at most 2 per marker city (upgraded), 1 from the home port and
# 1 per extra-good card on the 9-slot board; one action per player per round, at most 12 rounds.
GOODS_PER_ROUND = 2 * MARKERS + 1 + BOARD
GOODS_CAP = ROUND_LIMIT * GOODS_PER_ROUND  # 192

# ---- player block (relative offsets) ---------------------------------------------------------
P_PRESENT = 0
P_DECIDER = 1
P_FIRST = 2
P_ORDER = 3
P_PLANNED = P_ORDER + MAXP
P_EXEC_POS = P_PLANNED + 1
P_EXECUTED = P_EXEC_POS + MAXP
P_ROLE = P_EXECUTED + 1
P_PLACED = P_ROLE + N_ROLES
P_POOL = P_PLACED + 1
P_LOST = P_POOL + 1
P_GOODS = P_LOST + 1
P_SHIPS = P_GOODS + NG
P_BOARD_N = P_SHIPS + NR
P_BOARD_CITY = P_BOARD_N + 1
P_BOARD_BUILDING = P_BOARD_CITY + NC
P_BOARD_EMPIRE = P_BOARD_BUILDING + NB
P_EMPIRE_HAND_N = P_BOARD_EMPIRE + NEMP
P_ROLE_ASIDE = P_EMPIRE_HAND_N + 1
P_ROLE_DECK_N = P_ROLE_ASIDE + N_ROLES
P_MARKERS = P_ROLE_DECK_N + 1
P_SCORE = P_MARKERS + 1
PLAYER_BLOCK = P_SCORE + 1  # 144

# ---- city slot block (relative offsets) ------------------------------------------------------
S_PRESENT = 0
S_CITY = 1
S_GOOD = S_CITY + NC
S_SETTLE = S_GOOD + NG
S_BUILD = S_SETTLE + 1
S_POINTS = S_BUILD + 1
S_OWNER = S_POINTS + 1
S_UPGRADED = S_OWNER + MAXP
S_COLLECTED = S_UPGRADED + 1
S_SETTLING = S_COLLECTED + 1
SLOT_BLOCK = S_SETTLING + 1  # 65

R_OPEN = 0
R_DECK_N = 1
REGION_BLOCK = 2

# ---- absolute offsets ------------------------------------------------------------------------
PLAYERS = 0
SLOTS = PLAYERS + MAXP * PLAYER_BLOCK
REGIONS = SLOTS + N_SLOTS * SLOT_BLOCK
EMPIRE_MARKET = REGIONS + NR * REGION_BLOCK
BUILDING_MARKET = EMPIRE_MARKET + MARKET * NEMP
ROUND = BUILDING_MARKET + B_MARKET * NB
PHASE_ONEHOT = ROUND + 1
SUB_ONEHOT = PHASE_ONEHOT + N_PHASES
NUM_PLAYERS_ONEHOT = SUB_ONEHOT + N_SUBS
EMPIRE_DECK_N = NUM_PLAYERS_ONEHOT + (MAXP - MIN_PLAYERS + 1)
BUILDING_DECK_N = EMPIRE_DECK_N + 1
STRENGTH = BUILDING_DECK_N + 1
USED = STRENGTH + 1
TOOK_GOODS = USED + 1
HOME_USED = TOOK_GOODS + 1
GOV_DUE = HOME_USED + 1
OWN_ROLE_HAND = GOV_DUE + 1
OWN_EMPIRE_HAND = OWN_ROLE_HAND + N_ROLES
OBS_SIZE = OWN_EMPIRE_HAND + NEMP  # 1902


@kernel
def roles_revealed(s):
    """END-O1: roles and tokens are face down until execution starts; a game that ended
    normally ended after execution. A cut-off game (truncated) may have stopped mid-planning."""
    return s.phase == PH_ROLE or (s.phase == PH_OVER and s.terminated == 1)


@kernel
def _encode_player(s, p, player, b, out):
    n = int(s.num_players)
    out[b + P_PRESENT] = 1.0
    if s.phase != PH_OVER and s.current_player == p:
        out[b + P_DECIDER] = 1.0
    if s.first_player == p:
        out[b + P_FIRST] = 1.0
    planning = s.phase == PH_PLAN_ROLE or s.phase == PH_PLAN_TOKENS
    for i in range(n):
        if s.order[i] == p:
            out[b + P_ORDER + i] = 1.0
            if planning and i < s.pick_index:
                out[b + P_PLANNED] = 1.0
    revealed = roles_revealed(s)
    if revealed:
        out[b + P_PLANNED] = 1.0
        for i in range(n):
            if s.exec_order[i] == p:
                out[b + P_EXEC_POS + i] = 1.0
                if i < s.exec_index:
                    out[b + P_EXECUTED] = 1.0
    if (revealed or p == player) and s.role[p] >= 0:
        out[b + P_ROLE + int(s.role[p])] = 1.0
        out[b + P_PLACED] = s.placed[p]
    out[b + P_POOL] = s.pool[p]
    out[b + P_LOST] = s.lost[p]
    for g in range(NG):
        out[b + P_GOODS + g] = min(s.goods[p, g], GOODS_CAP)
    for r in range(NR):
        out[b + P_SHIPS + r] = s.ships[p, r]
    out[b + P_BOARD_N] = s.board_n[p]
    for i in range(s.board_n[p]):
        kind = s.board_kind[p, i]
        cid = int(s.board_id[p, i])
        if kind == K_CITY:
            out[b + P_BOARD_CITY + cid] = 1.0
        elif kind == K_BUILDING:
            out[b + P_BOARD_BUILDING + cid] = 1.0
        elif kind == K_EMPIRE:
            out[b + P_BOARD_EMPIRE + cid] = 1.0
    out[b + P_EMPIRE_HAND_N] = s.empire_hand[p].sum()  # END-S4: the size only
    for r in range(N_ROLES):
        out[b + P_ROLE_ASIDE + r] = s.role_aside[p, r]
    out[b + P_ROLE_DECK_N] = s.role_deck_n[p]  # END-O2: the size only, never the order
    markers = 0
    for k in range(N_SLOTS):
        if s.slot_owner[k] == p:
            markers += 1
    out[b + P_MARKERS] = markers
    out[b + P_SCORE] = score_of(s, p)


@standalone_kernel(STATES, types.int64, types.int64, array_arg(np.float32))
def encode_into(states, g, player, out):
    """Write the observation of ``player`` in game ``g`` into ``out`` (float32, OBS_SIZE)."""
    s = states[g]
    out[:] = 0.0
    n = int(s.num_players)  # plain ints: int8 sums would wrap (plain-Python mode)
    for i in range(n):
        _encode_player(s, (player + i) % n, player, PLAYERS + i * PLAYER_BLOCK, out)
    in_role = s.phase == PH_ROLE
    for k in range(N_SLOTS):
        c = int(s.slot_city[k])
        b = SLOTS + k * SLOT_BLOCK
        if c >= 0:
            out[b + S_PRESENT] = 1.0
            out[b + S_CITY + c] = 1.0
            out[b + S_GOOD + int(CITY_GOOD[c])] = 1.0
            out[b + S_SETTLE] = CITY_SETTLE[c]
            out[b + S_BUILD] = CITY_BUILD[c]
            out[b + S_POINTS] = CITY_POINTS[c]
        q = int(s.slot_owner[k])
        if q >= 0:
            out[b + S_OWNER + (q - player) % n] = 1.0
        out[b + S_UPGRADED] = s.slot_upgraded[k]
        if in_role:
            if (s.city_used >> k) & 1:
                out[b + S_COLLECTED] = 1.0
            if (s.sub == SUB_GOV_PAY or s.sub == SUB_GOV_MOVE) and s.gov_slot == k:
                out[b + S_SETTLING] = 1.0
    for r in range(NR):
        b = REGIONS + r * REGION_BLOCK
        out[b + R_OPEN] = s.region_open[r]
        out[b + R_DECK_N] = s.region_deck_n[r]  # the size only, never the order
    for i in range(MARKET):
        e = int(s.empire_market[i])
        if e >= 0:
            out[EMPIRE_MARKET + i * NEMP + e] = 1.0
    for i in range(B_MARKET):
        bld = int(s.building_market[i])
        if bld >= 0:
            out[BUILDING_MARKET + i * NB + bld] = 1.0
    out[ROUND] = s["round"]  # a NumPy record's .round is its method (plain-Python mode)
    out[PHASE_ONEHOT + int(s.phase)] = 1.0
    out[NUM_PLAYERS_ONEHOT + n - MIN_PLAYERS] = 1.0
    out[EMPIRE_DECK_N] = s.empire_deck_n
    out[BUILDING_DECK_N] = s.building_deck_n
    # The role being executed is public; outside execution these fields hold stale values.
    if in_role:
        out[SUB_ONEHOT + int(s.sub)] = 1.0
        out[STRENGTH] = s.strength
        out[USED] = s.used
        out[TOOK_GOODS] = s.took_goods
        out[HOME_USED] = s.home_used
        out[GOV_DUE] = s.gov_due
    for r in range(N_ROLES):
        out[OWN_ROLE_HAND + r] = s.role_hand[player, r]
    for e in range(NEMP):
        out[OWN_EMPIRE_HAND + e] = s.empire_hand[player, e]


@parallel_kernel
def encode_batch(states, players, out):
    """``out[g]`` = observation of ``players[g]`` in game ``g``, for every game."""
    for g in prange(states.shape[0]):
        encode_into(states, g, players[g], out[g])


def _max_score():
    """A loose bound on ``rules.score_of``: 3 marker cities at the highest city points plus an
    upgrade, 9 board cards at the highest card points plus a region-points bonus of at most 3
    (END-S1: 3 markers) each, and 1 per 3 goods (all goods at most ``GOODS_CAP``)."""
    card_points = max(int(CITY_POINTS.max()), int(BLD_POINTS.max()), int(EMP_POINTS.max()))
    return MARKERS * (int(CITY_POINTS.max()) + 1) + BOARD * (card_points + MARKERS) + GOODS_CAP // 3


def observation_space_bounds():
    """``(low, high)`` float32 arrays of shape (OBS_SIZE,) containing every observation.

    Bounds (from the rules, not measured): flags and one-hots 1. Tokens (pool, placed, lost,
    ships in one region) at most ``rules.MAX_TOKENS`` (18 plus every extra-token card); the
    strength of a role at most that plus one bonus per board card. Goods per kind clipped at
    ``GOODS_CAP`` = 12 rounds x ``GOODS_PER_ROUND``, which they cannot exceed. Board cards at
    most 9, markers 3, empire hand 4 (the 2-player draw), role deck 6, deck sizes at most
    their card counts, round at most 12, costs and points at most the tables' maxima, goods
    still due at most the largest settle cost.
    """
    low = np.zeros(OBS_SIZE, dtype=np.float32)
    high = np.ones(OBS_SIZE, dtype=np.float32)
    for i in range(MAXP):
        b = PLAYERS + i * PLAYER_BLOCK
        high[b + P_PLACED] = MAX_TOKENS
        high[b + P_POOL] = MAX_TOKENS
        high[b + P_LOST] = MAX_TOKENS
        high[b + P_GOODS : b + P_GOODS + NG] = GOODS_CAP
        high[b + P_SHIPS : b + P_SHIPS + NR] = MAX_TOKENS
        high[b + P_BOARD_N] = BOARD
        high[b + P_EMPIRE_HAND_N] = int(EMPIRE_DRAW.max())
        high[b + P_ROLE_DECK_N] = N_ROLES
        high[b + P_MARKERS] = MARKERS
        high[b + P_SCORE] = _max_score()
    for k in range(N_SLOTS):
        b = SLOTS + k * SLOT_BLOCK
        high[b + S_SETTLE] = int(CITY_SETTLE.max())
        high[b + S_BUILD] = int(CITY_BUILD.max())
        high[b + S_POINTS] = int(CITY_POINTS.max())
    for r in range(NR):
        high[REGIONS + r * REGION_BLOCK + R_DECK_N] = CITIES_PER_REGION
    high[ROUND] = ROUND_LIMIT
    high[EMPIRE_DECK_N] = NEMP
    high[BUILDING_DECK_N] = NB
    high[STRENGTH] = MAX_TOKENS + BOARD
    high[USED] = MAX_TOKENS
    high[GOV_DUE] = int(CITY_SETTLE.max())
    return low, high


# Module-level copies for building a gymnasium ``Box(OBS_LOW, OBS_HIGH)``; read-only.
OBS_LOW, OBS_HIGH = observation_space_bounds()
OBS_LOW.setflags(write=False)
OBS_HIGH.setflags(write=False)

assert PH_START_CITY == 0 and PH_OVER == N_PHASES - 1, "phase one-hot follows rules.PH_*"


# ---- compact observation (``observation="compact"``) -----------------------------------------
# The same information in 409 floats instead of 1902, in the same order: every one-hot block
# becomes one categorical code (index + 1, 0 = none), and a player's 99 board-card flags (city,
# building, empire ids, in that order) become the indices of the flags that are set, + 1, in
# ascending order, padded with 0 (a board holds at most ``BOARD`` = 9 cards; like the flags,
# a second copy of a card shows once). Everything else is copied. Codes: planning and
# execution position, role (per player); city, its good, marker owner by relative seat (per
# slot); market cards; phase, role sub-step, number of players (2-4 as 1-3).
# ``compact_from_full`` maps one vector to the other exactly (the test's slow reference). Codes
# are categories, not magnitudes: embed them (or one-hot them in the model) rather than scale.
N_BOARD_FLAGS = NC + NB + NEMP  # 99


def _one_hot_blocks():
    """(start, length) of every one-hot block of the full vector, in order."""
    blocks = []
    for i in range(MAXP):
        b = PLAYERS + i * PLAYER_BLOCK
        blocks += [(b + P_ORDER, MAXP), (b + P_EXEC_POS, MAXP), (b + P_ROLE, N_ROLES)]
    for k in range(N_SLOTS):
        b = SLOTS + k * SLOT_BLOCK
        blocks += [(b + S_CITY, NC), (b + S_GOOD, NG), (b + S_OWNER, MAXP)]
    blocks += [(EMPIRE_MARKET + i * NEMP, NEMP) for i in range(MARKET)]
    blocks += [(BUILDING_MARKET + i * NB, NB) for i in range(B_MARKET)]
    blocks += [
        (PHASE_ONEHOT, N_PHASES),
        (SUB_ONEHOT, N_SUBS),
        (NUM_PLAYERS_ONEHOT, MAXP - MIN_PLAYERS + 1),
    ]
    return blocks


ONE_HOT_BLOCKS = _one_hot_blocks()
# (start, length, codes): flag blocks listed as the ascending indices of their set flags.
SET_BLOCKS = [
    (PLAYERS + i * PLAYER_BLOCK + P_BOARD_CITY, N_BOARD_FLAGS, BOARD) for i in range(MAXP)
]


FOLDING = Folding(OBS_SIZE, ONE_HOT_BLOCKS, SET_BLOCKS)
compact_offset = FOLDING.offset  # where a full offset's entry (or block's first code) sits


# Player block, slot block (relative offsets) and absolute offsets of the compact layout.
CP_PRESENT = 0
CP_DECIDER = 1
CP_FIRST = 2
CP_ORDER = 3  # planning position + 1
CP_PLANNED = 4
CP_EXEC_POS = 5  # execution position + 1
CP_EXECUTED = 6
CP_ROLE = 7  # role + 1
CP_PLACED = 8
CP_POOL = 9
CP_LOST = 10
CP_GOODS = 11
CP_SHIPS = CP_GOODS + NG
CP_BOARD_N = CP_SHIPS + NR
CP_BOARD = CP_BOARD_N + 1  # BOARD codes: board-flag index + 1, ascending, 0 = none
CP_EMPIRE_HAND_N = CP_BOARD + BOARD
CP_ROLE_ASIDE = CP_EMPIRE_HAND_N + 1
CP_ROLE_DECK_N = CP_ROLE_ASIDE + N_ROLES
CP_MARKERS = CP_ROLE_DECK_N + 1
CP_SCORE = CP_MARKERS + 1
C_PLAYER_BLOCK = CP_SCORE + 1  # 43
CS_PRESENT = 0
CS_CITY = 1  # city id + 1
CS_GOOD = 2  # good + 1
CS_SETTLE = 3
CS_BUILD = 4
CS_POINTS = 5
CS_OWNER = 6  # marker owner's relative seat + 1
CS_UPGRADED = 7
CS_COLLECTED = 8
CS_SETTLING = 9
C_SLOT_BLOCK = CS_SETTLING + 1  # 10
C_SLOTS = MAXP * C_PLAYER_BLOCK
C_REGIONS = C_SLOTS + N_SLOTS * C_SLOT_BLOCK
C_EMPIRE_MARKET = C_REGIONS + NR * REGION_BLOCK  # MARKET codes: empire id + 1
C_BUILDING_MARKET = C_EMPIRE_MARKET + MARKET  # B_MARKET codes: building id + 1
C_ROUND = C_BUILDING_MARKET + B_MARKET
C_PHASE = C_ROUND + 1  # phase + 1
C_SUB = C_PHASE + 1  # role sub-step + 1 (phase role only)
C_NUM_PLAYERS = C_SUB + 1  # number of players - 1
C_EMPIRE_DECK_N = C_NUM_PLAYERS + 1
C_BUILDING_DECK_N = C_EMPIRE_DECK_N + 1
C_STRENGTH = C_BUILDING_DECK_N + 1
C_USED = C_STRENGTH + 1
C_TOOK_GOODS = C_USED + 1
C_HOME_USED = C_TOOK_GOODS + 1
C_GOV_DUE = C_HOME_USED + 1
C_OWN_ROLE_HAND = C_GOV_DUE + 1
C_OWN_EMPIRE_HAND = C_OWN_ROLE_HAND + N_ROLES
COMPACT_OBS_SIZE = C_OWN_EMPIRE_HAND + NEMP  # 409

# The hand-written offsets above are the generic mapping's (the full layout, blocks folded).
assert COMPACT_OBS_SIZE == compact_offset(OBS_SIZE)
assert C_PLAYER_BLOCK == compact_offset(PLAYER_BLOCK)
assert (CP_ROLE, CP_BOARD, CP_SCORE) == tuple(
    compact_offset(x) for x in (P_ROLE, P_BOARD_CITY, P_SCORE)
)
assert (
    C_SLOTS == compact_offset(SLOTS)
    and C_SLOT_BLOCK == compact_offset(SLOTS + SLOT_BLOCK) - C_SLOTS
)
assert C_SLOTS + CS_SETTLING == compact_offset(SLOTS + S_SETTLING)
assert C_REGIONS == compact_offset(REGIONS) and C_ROUND == compact_offset(ROUND)
assert C_OWN_ROLE_HAND == compact_offset(OWN_ROLE_HAND)


@kernel
def _board_codes_into(s, p, out, at):
    """p's board cards as their flags' indices + 1 (city id, then ``NC`` + building id, then
    ``NC + NB`` + empire id), ascending, each once, into ``out[at:at + BOARD]``, which holds
    zeros before (insertion into a sorted list; a second copy shows once, as its flag)."""
    listed = 0
    for i in range(s.board_n[p]):
        kind = s.board_kind[p, i]
        code = int(s.board_id[p, i]) + 1
        if kind == K_BUILDING:
            code += NC
        elif kind == K_EMPIRE:
            code += NC + NB
        elif kind != K_CITY:
            continue
        pos = listed
        while pos > 0 and out[at + pos - 1] > code:
            pos -= 1
        if pos > 0 and out[at + pos - 1] == code:
            continue  # a second copy: the flag shows it once
        for j in range(listed, pos, -1):
            out[at + j] = out[at + j - 1]
        out[at + pos] = code
        listed += 1


@kernel
def _compact_player(s, p, player, b, out):
    """``_encode_player`` in the compact layout: same entries, one-hots and board flags coded."""
    n = int(s.num_players)
    out[b : b + C_PLAYER_BLOCK] = 0.0
    out[b + CP_PRESENT] = 1.0
    if s.phase != PH_OVER and s.current_player == p:
        out[b + CP_DECIDER] = 1.0
    if s.first_player == p:
        out[b + CP_FIRST] = 1.0
    planning = s.phase == PH_PLAN_ROLE or s.phase == PH_PLAN_TOKENS
    for i in range(n):
        if s.order[i] == p:
            if out[b + CP_ORDER] == 0:
                out[b + CP_ORDER] = i + 1
            if planning and i < s.pick_index:
                out[b + CP_PLANNED] = 1.0
    revealed = roles_revealed(s)
    if revealed:
        out[b + CP_PLANNED] = 1.0
        for i in range(n):
            if s.exec_order[i] == p:
                if out[b + CP_EXEC_POS] == 0:
                    out[b + CP_EXEC_POS] = i + 1
                if i < s.exec_index:
                    out[b + CP_EXECUTED] = 1.0
    if (revealed or p == player) and s.role[p] >= 0:
        out[b + CP_ROLE] = int(s.role[p]) + 1
        out[b + CP_PLACED] = s.placed[p]
    out[b + CP_POOL] = s.pool[p]
    out[b + CP_LOST] = s.lost[p]
    for g in range(NG):
        out[b + CP_GOODS + g] = min(s.goods[p, g], GOODS_CAP)
    for r in range(NR):
        out[b + CP_SHIPS + r] = s.ships[p, r]
    out[b + CP_BOARD_N] = s.board_n[p]
    _board_codes_into(s, p, out, b + CP_BOARD)
    out[b + CP_EMPIRE_HAND_N] = s.empire_hand[p].sum()  # END-S4: the size only
    for r in range(N_ROLES):
        out[b + CP_ROLE_ASIDE + r] = s.role_aside[p, r]
    out[b + CP_ROLE_DECK_N] = s.role_deck_n[p]  # END-O2: the size only, never the order
    markers = 0
    for k in range(N_SLOTS):
        if s.slot_owner[k] == p:
            markers += 1
    out[b + CP_MARKERS] = markers
    out[b + CP_SCORE] = score_of(s, p)


@standalone_kernel(STATES, types.int64, types.int64, array_arg(np.float32))
def encode_compact_into(states, g, player, out):
    """The compact observation of ``player`` in game ``g`` into ``out`` (COMPACT_OBS_SIZE)."""
    s = states[g]
    n = int(s.num_players)
    for i in range(MAXP):
        if i < n:
            _compact_player(s, (player + i) % n, player, i * C_PLAYER_BLOCK, out)
        else:
            out[i * C_PLAYER_BLOCK : (i + 1) * C_PLAYER_BLOCK] = 0.0
    in_role = s.phase == PH_ROLE
    for k in range(N_SLOTS):
        c = int(s.slot_city[k])
        b = C_SLOTS + k * C_SLOT_BLOCK
        out[b : b + C_SLOT_BLOCK] = 0.0
        if c >= 0:
            out[b + CS_PRESENT] = 1.0
            out[b + CS_CITY] = c + 1
            out[b + CS_GOOD] = int(CITY_GOOD[c]) + 1
            out[b + CS_SETTLE] = CITY_SETTLE[c]
            out[b + CS_BUILD] = CITY_BUILD[c]
            out[b + CS_POINTS] = CITY_POINTS[c]
        q = int(s.slot_owner[k])
        if q >= 0:
            out[b + CS_OWNER] = (q - player) % n + 1
        out[b + CS_UPGRADED] = s.slot_upgraded[k]
        if in_role:
            if (s.city_used >> k) & 1:
                out[b + CS_COLLECTED] = 1.0
            if (s.sub == SUB_GOV_PAY or s.sub == SUB_GOV_MOVE) and s.gov_slot == k:
                out[b + CS_SETTLING] = 1.0
    for r in range(NR):
        b = C_REGIONS + r * REGION_BLOCK
        out[b + R_OPEN] = s.region_open[r]
        out[b + R_DECK_N] = s.region_deck_n[r]  # the size only, never the order
    for i in range(MARKET):
        out[C_EMPIRE_MARKET + i] = int(s.empire_market[i]) + 1  # -1 (empty): 0
    for i in range(B_MARKET):
        out[C_BUILDING_MARKET + i] = int(s.building_market[i]) + 1
    out[C_ROUND] = s["round"]  # a NumPy record's .round is its method (plain-Python mode)
    out[C_PHASE] = int(s.phase) + 1
    out[C_NUM_PLAYERS] = n - MIN_PLAYERS + 1
    out[C_EMPIRE_DECK_N] = s.empire_deck_n
    out[C_BUILDING_DECK_N] = s.building_deck_n
    # The role being executed is public; outside execution these fields hold stale values.
    out[C_SUB] = int(s.sub) + 1 if in_role else 0
    out[C_STRENGTH:C_OWN_ROLE_HAND] = 0.0
    if in_role:
        out[C_STRENGTH] = s.strength
        out[C_USED] = s.used
        out[C_TOOK_GOODS] = s.took_goods
        out[C_HOME_USED] = s.home_used
        out[C_GOV_DUE] = s.gov_due
    for r in range(N_ROLES):
        out[C_OWN_ROLE_HAND + r] = s.role_hand[player, r]
    for e in range(NEMP):
        out[C_OWN_EMPIRE_HAND + e] = s.empire_hand[player, e]


@parallel_kernel
def encode_compact_batch(states, players, out):
    """``out[g]`` = compact observation of ``players[g]`` in game ``g``, for every game."""
    for g in prange(states.shape[0]):
        encode_compact_into(states, g, players[g], out[g])


compact_from_full = FOLDING.fold  # the slow reference of the compact kernel
# Bounds of the compact vector: the full vector's caps, and each code's number of categories.
COMPACT_OBS_LOW, COMPACT_OBS_HIGH = FOLDING.bounds(OBS_HIGH)
# ``GameSpec.observations["compact"]`` (envs/endeavor/spec.py): what the compact spec reads.
COMPACT = observation_variant(encode_compact_into, encode_compact_batch, COMPACT_OBS_HIGH)


# ---- the decoded view (the search's play-outs) ------------------------------------------------
# The heuristic (baselines/endeavor_heuristic.py) reads an observation by decoding it into a
# record of named fields (its "view"). ``encode_view`` writes the fields that come from the
# observation straight from the game's record, seen from ``player``: the same values as
# decoding the compact vector (tests/test_search_speedups.py), without the 409 floats between
# (benchmarks/README.md, "Play-outs read a view"). Seats are relative to the
# observer, as in the vectors; seats from ``num_players`` on are zero.
#
# Fields: n, rnd, phase, sub (0 outside role execution); per relative seat: pool, goods
# (clipped at ``GOODS_CAP``), ships, board_n, markers, board_codes (``_board_codes_into``);
# placed and role (the observer's; 0 and -1 without a role); per slot: slot_city (-1 empty),
# slot_owner (relative seat, -1 none), slot_up; gov_slot (the slot a Governor is settling, -1);
# open (per region); emarket and bmarket (the card ids, -1 empty); the observer's roles and
# hand (counts); strength and used (0 outside role execution).
@kernel
def encode_view(s, player, v):
    n = int(s.num_players)
    in_role = s.phase == PH_ROLE
    v.n = n
    v.rnd = s["round"]  # a NumPy record's .round is its method (plain-Python mode)
    v.phase = s.phase
    v.sub = max(0, int(s.sub)) if in_role else 0
    for i in range(MAXP):
        codes = v.board_codes[i]
        for j in range(BOARD):
            codes[j] = 0
        if i >= n:
            v.pool[i] = 0
            v.board_n[i] = 0
            v.markers[i] = 0
            for g in range(NG):
                v.goods[i, g] = 0
            for r in range(NR):
                v.ships[i, r] = 0
            continue
        p = player + i
        if p >= n:
            p -= n
        v.pool[i] = s.pool[p]
        v.board_n[i] = s.board_n[p]
        markers = 0
        for k in range(N_SLOTS):
            markers += s.slot_owner[k] == p
        v.markers[i] = markers
        for g in range(NG):
            v.goods[i, g] = min(s.goods[p, g], GOODS_CAP)
        for r in range(NR):
            v.ships[i, r] = s.ships[p, r]
        _board_codes_into(s, p, codes, 0)
    has_role = s.role[player] >= 0
    v.role = s.role[player] if has_role else -1
    v.placed = s.placed[player] if has_role else 0
    settling = in_role and (s.sub == SUB_GOV_PAY or s.sub == SUB_GOV_MOVE)
    v.gov_slot = -1
    for k in range(N_SLOTS):
        v.slot_city[k] = s.slot_city[k] if s.slot_city[k] >= 0 else -1
        q = int(s.slot_owner[k])
        if q >= 0:
            q -= player
            v.slot_owner[k] = q + n if q < 0 else q
        else:
            v.slot_owner[k] = -1
        v.slot_up[k] = s.slot_upgraded[k]
        if settling and s.gov_slot == k:
            v.gov_slot = k
    for r in range(NR):
        v.open[r] = s.region_open[r]
    for i in range(MARKET):
        v.emarket[i] = s.empire_market[i]
    for i in range(B_MARKET):
        v.bmarket[i] = s.building_market[i]
    for r in range(N_ROLES):
        v.roles[r] = s.role_hand[player, r]
    for e in range(NEMP):
        v.hand[e] = s.empire_hand[player, e]
    v.strength = s.strength if in_role else 0
    v.used = s.used if in_role else 0
