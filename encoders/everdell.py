"""Everdell observation: a float32 vector of ``OBS_SIZE`` (6935) seen from one player.

It shows what that player may know: every city (cards per slot, occupied tokens, point tokens,
Storehouse stock, Dungeon prisoner counts, whose workers stand on each card), every player's
resources, point tokens, current score, season, workers and where they stand, passed flag and
hand *size*; the observer's own hand (counts per card type); the Meadow, the forest cards, the
dealt special events and who achieved each event; in solo Rugwort's city and blocking workers;
the pending decision and the task it belongs to. It never reads the RNG word, the deck order or
contents, the discard pile's contents (face down, subtleties §2; only its size) or another
player's hand cards. The ``revealed`` cards (Postal Pigeon, Cemetery, Teacher, Ancient Scrolls,
the Meadow-pick forest card, the 2 cards a Post Office gives) are shown only to the decider.

Values are raw counts and flags (non-negative; the score is shifted by ``SCORE_SHIFT`` because
a Fool can take it to -2); ``OBS_HIGH`` bounds them. Resources and point tokens are unlimited
(EVD-S1), so those entries are clipped at the caps below.

Player blocks. Block i is seat ``(player + i) % seats`` (the rules' relative seat ``i``; in solo
block 1 is Rugwort, seat 1); unused blocks are all zero. Block i starts at
``i * PLAYER_BLOCK`` (1375):

=========  =====  =========================================================================
offset     size   meaning (inside a player block)
=========  =====  =========================================================================
0          1      present
1          1      this seat is Rugwort (solo)
2          1      this seat is the decider (0 once the game is over)
3          1      this seat's turn (the turn being resolved)
4          1      this seat went first (EVD-S7)
5          1      passed (EVD-E1)
6-9        4      season one-hot: winter, spring, summer, autumn (none for Rugwort)
10         1      cards in hand (the size only)
11-14      4      twig, resin, pebble, berry (clipped at ``RESOURCE_CAP``)
15         1      point tokens (clipped at ``TOKEN_CAP``)
16         1      current score (``rules.score_of``) + ``SCORE_SHIFT``, clipped at ``SCORE_CAP``
17         1      workers owned (EVD-S5)
18         1      workers available to place
19         1      workers placed for good (Journey, Cemetery, Monastery; never recalled)
20         1      workers whose card left the city (out until the next recall)
21-28      8      workers on basic locations 0..7 (``rules.BASIC_LOCS`` order)
29-32      4      workers on forest positions 0..3
33         1      workers in the Haven
34-37      4      workers on Journey 5, 4, 3, 2
38-45      8      workers on events: the 4 basic events, then dealt special events 0..3
46-47      2      workers on Rugwort's Inn, Post Office (solo)
48         1      city spaces used (EVD-P4; 0 for Rugwort, see the solo rows)
49-53      5      city cards of each colour: traveler, production, destination, governance,
                  prosperity
54         1      events achieved
55-1374    1320   city slots 0..21, 60 each (below)
=========  =====  =========================================================================

A city slot (slots are the rules' ``city`` slots: the ``A_CITY`` / ``A_PLACE_CITY`` indices):
0-47 card type one-hot, 48 present, 49 occupied token used (EVD-P3), 50 point tokens on the
card (Chapel, Clock Tower; clipped at ``TOKEN_CAP``), 51-54 Storehouse stock twig, resin,
pebble, berry (clipped at ``RESOURCE_CAP``), 55 Dungeon prisoners (0-2), 56-59 workers on the
card of relative seats 0..3 (EVD-W4).

Rugwort's workers (solo) are counted in his block: his basic-space worker, his forest worker
and his Journey worker in the basic / forest / Journey rows.

Shared and private rows, absolute offsets:

=========  =====  =========================================================================
offset     size   meaning
=========  =====  =========================================================================
0-5499     5500   4 player blocks
5500-5899  400    Meadow positions 0..7, 50 each: card type one-hot (48), present, blocked
                  by a Rugwort worker (solo: the observer may not take it)
5900-5943  44     forest positions 0..3, 11 each: forest card one-hot (``FOREST_LOCS`` order)
5944-6007  64     dealt special events 0..3, 16 each: special event one-hot (ids 4..19)
6008-6087  80     events 0..19, 4 each: achieved by relative seat 0..3, one-hot
6088-6107  20     points parked on events 0..19 (``event_store``)
6108       1      cards in the deck (its size only)
6109       1      cards in the discard pile (its size only)
6110       1      cards tucked under events
6111-6114  4      number of players one-hot (1, 2, 3, 4)
6115       1      game over
6116-6163  48     own hand: cards of each type
6164       1      revealed cards (decider only)
6165-6548  384    revealed cards 0..7, card type one-hot (48 each); decider only
6549-6596  48     solo: Rugwort's city, cards of each type
6597       1      solo: cards in Rugwort's city
6598-6600  3      solo: Rugwort's year one-hot (1, 2, 3)
6601       1      solo: cards put into play this turn (each makes Rugwort play one, capped 8)
6602-6630  29     pending decision kind one-hot (``rules.PK_*``; PK_NONE once over)
6631-6642  12     top task kind one-hot (0 none, ``rules.T_*``; the last entry is spare)
6643-6690  48     top task's card (T_PLAY, T_CARD) one-hot
6691-6717  27     top task's location (T_LOCATION) one-hot (location ids)
6718-6737  20     top task's event (T_EVENT) one-hot
=========  =====  =========================================================================

(continued)

=========  =====  =========================================================================
offset     size   meaning
=========  =====  =========================================================================
6738       1      top task is a worker visit on a card (T_CARD mode 1)
6739-6742  4      top task's card belongs to relative seat 0..3 (T_CARD)
6743       1      top task's stage
6744       1      top task's count so far (cards discarded, resources given, Meadow cards
                  taken, reductions used...)
6745       1      T_DISCARD / T_GIVE_RESOURCES: at least this many
6746       1      T_DISCARD / T_GIVE_RESOURCES: at most this many
6747       1      T_GAIN: resources still to gain (clipped at ``RESOURCE_CAP``)
6748-6751  4      T_GAIN / T_GIVE_RESOURCES: kinds allowed (twig, resin, pebble, berry)
6752-6755  4      T_GIVE_RESOURCES: resources given so far by kind
6756-6767  12     parent task (the one below the top) kind one-hot
6768-6815  48     parent task's card one-hot
6816-6842  27     parent task's location one-hot
6843-6862  20     parent task's event one-hot
6863       1      a card is being played (the topmost T_PLAY task; rows below are 0 if not)
6864-6911  48     card being played one-hot
6912-6917  6      where it comes from: hand, Meadow, free, Inn, forest (the 6th is spare)
6918-6924  7      payment method chosen (``rules.PAY_*``; none before it is chosen)
6925       1      play stage (``rules.PS_*``)
6926-6929  4      cost still to pay: twig, resin, pebble, berry (after a method is chosen)
6930       1      cost reductions left (Inn, Crane, Dungeon, forest Meadow pick)
6931-6934  4      Judge: the cost resource being swapped away, one-hot
=========  =====  =========================================================================

The ``A_CITY`` / ``A_PLACE_CITY`` / ``A_PLAYER`` actions count seats relative to the decider,
as the blocks here do, so the decider's observation lines up with its action indices.
"""

import numpy as np
from numba import prange, types

from meeple_gym.core.jit import array_arg, kernel, parallel_kernel, standalone_kernel
from meeple_gym.everdell import data as D
from meeple_gym.everdell import rules as R
from meeple_gym.everdell.rules import STATES

MAXP = R.MAXP
NT = R.NT
NE = R.NE
NL = R.NL
SLOTS = R.CITY_SLOTS
N_PK = R.N_PK
# Both one-hots keep one spare entry that stays 0 (a task kind and an origin the kernel no
# longer has), so the layout documented above does not move.
N_TASK_KINDS = 12  # 0 = none, then T_PLAY..T_RANGER, then the spare
N_ORIGINS = 6  # rules.O_HAND..O_FOREST, then the spare
N_PAY = 7
N_REVEALED = 8
N_FOREST_TYPES = R.N_FOREST_TYPES
N_SPECIALS = len(D.SPECIAL_EVENTS)
N_EVENT_SPOTS = R.N_BASIC_EVENTS + R.N_SPECIAL_DEALT

RESOURCE_CAP = 63
TOKEN_CAP = 127
SCORE_SHIFT = 2  # a city holding only a Fool scores -2
SCORE_CAP = 255
PLAYS_CAP = 8
EVENT_POINTS_CAP = int(max(D.EVENT_MAX_POINTS.max(), D.EVENT_POINTS.max()))  # 9

# Lookups from rules ids to the small one-hot indices used here (-1: not of that kind).
BASIC_INDEX = np.full(NL, -1, np.int64)
for _i, _loc in enumerate(D.BASIC_LOCATIONS):
    BASIC_INDEX[_loc] = _i
FOREST_INDEX = np.full(NL, -1, np.int64)
for _i, _loc in enumerate(D.FOREST_LOCATIONS):
    FOREST_INDEX[_loc] = _i
JOURNEY_INDEX = np.full(NL, -1, np.int64)
for _i, _loc in enumerate(D.JOURNEY_LOCATIONS):
    JOURNEY_INDEX[_loc] = _i
SPECIAL_INDEX = np.full(NE, -1, np.int64)
for _i, _e in enumerate(D.SPECIAL_EVENTS):
    SPECIAL_INDEX[_e] = _i
COLOR_COPIES = np.array(
    [int(D.CARD_COPIES[D.CARD_COLOR == c].sum()) for c in range(len(D.COLORS))], np.int64
)

# ---- player block (relative offsets) ---------------------------------------------------------
P_PRESENT = 0
P_RUGWORT = 1
P_DECIDER = 2
P_TURN = 3
P_FIRST = 4
P_PASSED = 5
P_SEASON = 6
P_HAND_N = P_SEASON + 4
P_RESOURCES = P_HAND_N + 1
P_TOKENS = P_RESOURCES + 4
P_SCORE = P_TOKENS + 1
P_WORKERS = P_SCORE + 1
P_FREE = P_WORKERS + 1
P_PERMANENT = P_FREE + 1
P_LIMBO = P_PERMANENT + 1
P_AT_BASIC = P_LIMBO + 1
P_AT_FOREST = P_AT_BASIC + R.N_BASIC
P_AT_HAVEN = P_AT_FOREST + R.MAX_FOREST
P_AT_JOURNEY = P_AT_HAVEN + 1
P_AT_EVENT = P_AT_JOURNEY + R.N_JOURNEY
P_AT_RUGWORT = P_AT_EVENT + N_EVENT_SPOTS
P_SPACES = P_AT_RUGWORT + 2
P_COLORS = P_SPACES + 1
P_EVENTS = P_COLORS + 5
P_CITY = P_EVENTS + 1
# city slot (relative to its start)
S_TYPE = 0
S_PRESENT = NT
S_OCCUPIED = S_PRESENT + 1
S_TOKENS = S_OCCUPIED + 1
S_STORE = S_TOKENS + 1
S_JAIL = S_STORE + 4
S_WORKERS = S_JAIL + 1
SLOT_BLOCK = S_WORKERS + MAXP  # 60
PLAYER_BLOCK = P_CITY + SLOTS * SLOT_BLOCK  # 1375

# ---- shared rows (absolute offsets) ----------------------------------------------------------
MEADOW = MAXP * PLAYER_BLOCK
M_TYPE = 0
M_PRESENT = NT
M_BLOCKED = M_PRESENT + 1
MEADOW_BLOCK = M_BLOCKED + 1  # 50
FOREST = MEADOW + R.MEADOW * MEADOW_BLOCK
SPECIALS = FOREST + R.MAX_FOREST * N_FOREST_TYPES
EVENT_OWNER = SPECIALS + R.N_SPECIAL_DEALT * N_SPECIALS
EVENT_STORE = EVENT_OWNER + NE * MAXP
DECK_N = EVENT_STORE + NE
DISCARD_N = DECK_N + 1
TUCKED = DISCARD_N + 1
NUM_PLAYERS_ONEHOT = TUCKED + 1  # index num_players - 1
GAME_OVER = NUM_PLAYERS_ONEHOT + MAXP
HAND = GAME_OVER + 1
REVEALED_N = HAND + NT
REVEALED = REVEALED_N + 1
RUG_CITY = REVEALED + N_REVEALED * NT
RUG_CARDS = RUG_CITY + NT
RUG_YEAR = RUG_CARDS + 1
PLAYS_THIS_TURN = RUG_YEAR + 3
PEND_KIND = PLAYS_THIS_TURN + 1
TOP_KIND = PEND_KIND + N_PK
TOP_CARD = TOP_KIND + N_TASK_KINDS
TOP_LOCATION = TOP_CARD + NT
TOP_EVENT = TOP_LOCATION + NL
TOP_VISIT = TOP_EVENT + NE
TOP_OWNER = TOP_VISIT + 1
TOP_STAGE = TOP_OWNER + MAXP
TOP_COUNT = TOP_STAGE + 1
TOP_MIN = TOP_COUNT + 1
TOP_MAX = TOP_MIN + 1
TOP_GAIN_LEFT = TOP_MAX + 1
TOP_KINDS = TOP_GAIN_LEFT + 1
TOP_GIVEN = TOP_KINDS + 4
PARENT_KIND = TOP_GIVEN + 4
PARENT_CARD = PARENT_KIND + N_TASK_KINDS
PARENT_LOCATION = PARENT_CARD + NT
PARENT_EVENT = PARENT_LOCATION + NL
PLAY_PRESENT = PARENT_EVENT + NE
PLAY_CARD = PLAY_PRESENT + 1
PLAY_ORIGIN = PLAY_CARD + NT
PLAY_METHOD = PLAY_ORIGIN + N_ORIGINS
PLAY_STAGE = PLAY_METHOD + N_PAY
PLAY_COST = PLAY_STAGE + 1
PLAY_REDUCTIONS = PLAY_COST + 4
PLAY_JUDGE_FROM = PLAY_REDUCTIONS + 1
OBS_SIZE = PLAY_JUDGE_FROM + 4  # 6935


@kernel
def _rel(s, player, q):
    """Seat ``q`` relative to ``player`` (the rules' relative seat); int64 so that plain-Python
    runs (NUMBA_DISABLE_JIT) do not overflow the state's int8 fields."""
    return (np.int64(q) - np.int64(player)) % np.int64(s.seats)


@kernel
def _clip(x, cap):
    return min(max(x, 0), cap)


@kernel
def _encode_workers(s, player, q, b, out):
    """Where seat q's workers stand: counts in q's block ``b``; workers on city cards go to
    the card's slot, by q's seat relative to ``player``."""
    rq = _rel(s, player, q)
    for w in range(s.workers[q]):
        loc = np.int64(s.wloc[q, w])
        if loc == R.W_FREE:
            out[b + P_FREE] += 1.0
            continue
        if s.wperm[q, w]:
            out[b + P_PERMANENT] += 1.0
        if loc == R.W_LIMBO:
            out[b + P_LIMBO] += 1.0
        elif loc == R.W_RUG_INN or loc == R.W_RUG_POST:
            out[b + P_AT_RUGWORT + loc - R.W_RUG_INN] += 1.0
        elif loc >= R.W_CITY:
            owner = (loc - R.W_CITY) // 32
            slot = (loc - R.W_CITY) % 32
            ro = _rel(s, player, owner)
            out[ro * PLAYER_BLOCK + P_CITY + slot * SLOT_BLOCK + S_WORKERS + rq] += 1.0
        elif loc >= R.W_EVENT:
            e = loc - R.W_EVENT
            if e < R.N_BASIC_EVENTS:
                out[b + P_AT_EVENT + e] += 1.0
            else:
                for j in range(R.N_SPECIAL_DEALT):
                    if s.specials[j] == e:
                        out[b + P_AT_EVENT + R.N_BASIC_EVENTS + j] += 1.0
        elif loc == R.HAVEN:
            out[b + P_AT_HAVEN] += 1.0
        elif BASIC_INDEX[loc] >= 0:
            out[b + P_AT_BASIC + BASIC_INDEX[loc]] += 1.0
        elif JOURNEY_INDEX[loc] >= 0:
            out[b + P_AT_JOURNEY + JOURNEY_INDEX[loc]] += 1.0
        elif FOREST_INDEX[loc] >= 0:
            for j in range(R.MAX_FOREST):
                if s.forest[j] == loc:
                    out[b + P_AT_FOREST + j] += 1.0


@kernel
def _encode_player(s, player, q, b, out):
    out[b + P_PRESENT] = 1.0
    rugwort = R._is_rugwort(s, q)
    out[b + P_RUGWORT] = 1.0 if rugwort else 0.0
    over = s.terminated == 1 or s.truncated == 1
    out[b + P_DECIDER] = 1.0 if not over and s.current_player == q else 0.0
    out[b + P_TURN] = 1.0 if not over and s.turn_player == q else 0.0
    out[b + P_FIRST] = 1.0 if s.first_player == q else 0.0
    out[b + P_PASSED] = s.passed[q]
    if not rugwort:
        out[b + P_SEASON + np.int64(s.season[q])] = 1.0
    out[b + P_HAND_N] = s.hand_n[q]  # EVD-D2: the size is public, the cards are not
    for r in range(4):
        out[b + P_RESOURCES + r] = _clip(s.resources[q, r], RESOURCE_CAP)
    out[b + P_TOKENS] = _clip(s.tokens[q], TOKEN_CAP)
    out[b + P_SCORE] = _clip(R.score_of(s, q) + SCORE_SHIFT, SCORE_CAP)
    out[b + P_WORKERS] = s.workers[q]
    events = 0
    for e in range(NE):
        events += s.event_owner[e] == q
    out[b + P_EVENTS] = events
    for c in range(5):
        out[b + P_COLORS + c] = R._color_count(s, q, c)
    if rugwort:
        # His blocking workers (solo): basic space, forest card, Journey.
        if s.rug_basic >= 0:
            out[b + P_AT_BASIC + BASIC_INDEX[s.rug_basic]] += 1.0
        if s.rug_forest >= 0:
            out[b + P_AT_FOREST + np.int64(s.rug_forest)] += 1.0
        if s.rug_journey >= 0:
            out[b + P_AT_JOURNEY + JOURNEY_INDEX[s.rug_journey]] += 1.0
        return
    out[b + P_SPACES] = R._spaces_used(s, q, -1)
    _encode_workers(s, player, q, b, out)
    for k in range(SLOTS):
        t = np.int64(s.city[q, k])
        if t < 0:
            continue
        sb = b + P_CITY + k * SLOT_BLOCK
        out[sb + S_TYPE + t] = 1.0
        out[sb + S_PRESENT] = 1.0
        out[sb + S_OCCUPIED] = s.city_occupied[q, k]
        out[sb + S_TOKENS] = _clip(s.city_tokens[q, k], TOKEN_CAP)
        for r in range(4):
            out[sb + S_STORE + r] = _clip(s.city_store[q, k, r], RESOURCE_CAP)
        out[sb + S_JAIL] = (s.city_jail[q, k, 0] >= 0) + (s.city_jail[q, k, 1] >= 0)


@kernel
def _encode_task(s, f, kind_at, card_at, loc_at, event_at, out):
    """Kind and subject (card, location or event) of task frame ``f``."""
    kind = np.int64(s.fr_kind[f])
    out[kind_at + kind] = 1.0
    if kind == R.T_PLAY or kind == R.T_CARD:
        out[card_at + np.int64(s.fr_a[f])] = 1.0
    elif kind == R.T_LOCATION:
        out[loc_at + np.int64(s.fr_a[f])] = 1.0
    elif kind == R.T_EVENT:
        out[event_at + np.int64(s.fr_a[f])] = 1.0


@kernel
def _encode_pending(s, player, out):
    out[PEND_KIND + np.int64(s.pend_kind)] = 1.0
    if s.depth <= 0:
        return
    f = s.depth - 1
    kind = np.int64(s.fr_kind[f])
    _encode_task(s, f, TOP_KIND, TOP_CARD, TOP_LOCATION, TOP_EVENT, out)
    if kind == R.T_CARD:
        out[TOP_VISIT] = 1.0 if s.fr_b[f] == 1 else 0.0
        out[TOP_OWNER + _rel(s, player, s.fr_c[f])] = 1.0
    out[TOP_STAGE] = s.fr_stage[f]
    out[TOP_COUNT] = _clip(s.fr_n[f], R.HAND_LIMIT)
    if kind == R.T_DISCARD or kind == R.T_GIVE_RESOURCES:
        out[TOP_MIN] = s.fr_a[f]
        out[TOP_MAX] = s.fr_b[f]
    if kind == R.T_GAIN:
        out[TOP_GAIN_LEFT] = _clip(s.fr_a[f], RESOURCE_CAP)
    if kind == R.T_GAIN or kind == R.T_GIVE_RESOURCES:
        bits = s.fr_b[f] if kind == R.T_GAIN else s.fr_c[f]
        for r in range(4):
            out[TOP_KINDS + r] = (bits >> r) & 1
    if kind == R.T_GIVE_RESOURCES:
        for r in range(4):
            out[TOP_GIVEN + r] = s.fr_cost[f, r]
    if f >= 1:
        _encode_task(s, f - 1, PARENT_KIND, PARENT_CARD, PARENT_LOCATION, PARENT_EVENT, out)
    # The card being played: the topmost T_PLAY task (a card played is shown to the table).
    for g in range(f, -1, -1):
        if s.fr_kind[g] != R.T_PLAY:
            continue
        out[PLAY_PRESENT] = 1.0
        out[PLAY_CARD + np.int64(s.fr_a[g])] = 1.0
        out[PLAY_ORIGIN + np.int64(s.fr_b[g])] = 1.0
        stage = s.fr_stage[g]
        out[PLAY_STAGE] = stage
        if stage > R.PS_PAY and s.fr_b[g] != R.O_FREE:
            if s.fr_b[g] == R.O_HAND or s.fr_b[g] == R.O_MEADOW:
                out[PLAY_METHOD + np.int64(s.fr_c[g])] = 1.0
            if stage < R.PS_SHEPHERD:
                for r in range(4):
                    out[PLAY_COST + r] = s.fr_cost[g, r]
        if stage == R.PS_REDUCE:
            out[PLAY_REDUCTIONS] = s.fr_n[g]
        if stage == R.PS_JUDGE_TO:
            out[PLAY_JUDGE_FROM + np.int64(s.fr_d[g])] = 1.0
        break


@standalone_kernel(STATES, types.int64, types.int64, array_arg(np.float32))
def encode_into(states, g, player, out):
    """Write the observation of ``player`` in game ``g`` into ``out`` (float32, OBS_SIZE)."""
    s = states[g]
    out[:] = 0.0
    seats = np.int64(s.seats)
    for i in range(seats):
        q = (player + i) % seats
        _encode_player(s, player, q, i * PLAYER_BLOCK, out)
    solo = s.num_players == 1
    for i in range(R.MEADOW):
        t = np.int64(s.meadow[i])
        b = MEADOW + i * MEADOW_BLOCK
        if t >= 0:
            out[b + M_TYPE + t] = 1.0
            out[b + M_PRESENT] = 1.0
        if solo and (s.rug_meadow >> i) & 1:
            out[b + M_BLOCKED] = 1.0
    for j in range(R.MAX_FOREST):
        loc = np.int64(s.forest[j])
        if loc >= 0:
            out[FOREST + j * N_FOREST_TYPES + FOREST_INDEX[loc]] = 1.0
    for j in range(R.N_SPECIAL_DEALT):
        out[SPECIALS + j * N_SPECIALS + SPECIAL_INDEX[s.specials[j]]] = 1.0
    for e in range(NE):
        owner = s.event_owner[e]
        if owner >= 0:
            out[EVENT_OWNER + e * MAXP + _rel(s, player, owner)] = 1.0
        out[EVENT_STORE + e] = _clip(s.event_store[e], EVENT_POINTS_CAP)
    # Only the pile sizes: the deck order and the face-down discard pile stay hidden.
    out[DECK_N] = s.deck_n
    out[DISCARD_N] = s.discard_n
    out[TUCKED] = s.tucked
    out[NUM_PLAYERS_ONEHOT + np.int64(s.num_players) - 1] = 1.0
    over = s.terminated == 1 or s.truncated == 1
    out[GAME_OVER] = 1.0 if over else 0.0
    if not (solo and player == R.RUGWORT):
        for t in range(NT):
            out[HAND + t] = s.hand[player, t]
    if not over and s.current_player == player:
        n = min(s.revealed_n, N_REVEALED)
        out[REVEALED_N] = n
        for i in range(n):
            out[REVEALED + i * NT + np.int64(s.revealed[i])] = 1.0
    if solo:
        total = 0
        for t in range(NT):
            out[RUG_CITY + t] = s.rug_city[t]
            total += s.rug_city[t]
        out[RUG_CARDS] = total
        out[RUG_YEAR + np.int64(s.rug_year) - 1] = 1.0
        out[PLAYS_THIS_TURN] = _clip(s.plays_this_turn, PLAYS_CAP)
    if not over:
        _encode_pending(s, player, out)
    else:
        out[PEND_KIND + R.PK_NONE] = 1.0


@parallel_kernel
def encode_batch(states, players, out):
    """``out[g]`` = observation of ``players[g]`` in game ``g``, for every game."""
    for g in prange(states.shape[0]):
        encode_into(states, g, players[g], out[g])


def observation_space_bounds():
    """``(low, high)`` float32 arrays of shape (OBS_SIZE,) containing every observation.

    Bounds: flags and one-hots 1. Resources, point tokens, scores and resources to gain are
    clipped at their caps (EVD-S1: unlimited). Hand size at most 8 (EVD-D2); own hand counts,
    Rugwort's city counts and Meadow/revealed one-hots at most the type's copies / 1; deck,
    discard, tucked and Rugwort's cards at most the 128 cards (EVD-S4). Workers at most 6
    (EVD-S5), on any one spot too. City spaces at most 15 (EVD-P4); cards of one colour at
    most the copies of that colour; events at most 20. Prisoners at most 2 (two cells).
    Parked event points at most the largest event value (9). Task numbers: stage at most 14
    (``N_PLAY_STAGES - 1``), counts, minimum and maximum at most 8 (the hand limit), given
    resources at most 3 each; play cost at most the largest printed cost; reductions at most 3.
    """
    low = np.zeros(OBS_SIZE, dtype=np.float32)
    high = np.ones(OBS_SIZE, dtype=np.float32)
    for i in range(MAXP):
        b = i * PLAYER_BLOCK
        high[b + P_HAND_N] = R.HAND_LIMIT
        high[b + P_RESOURCES : b + P_RESOURCES + 4] = RESOURCE_CAP
        high[b + P_TOKENS] = TOKEN_CAP
        high[b + P_SCORE] = SCORE_CAP
        high[b + P_WORKERS : b + P_SPACES] = R.MAX_WORKERS
        high[b + P_SPACES] = R.CITY_LIMIT
        high[b + P_COLORS : b + P_COLORS + 5] = COLOR_COPIES
        high[b + P_EVENTS] = NE
        for k in range(SLOTS):
            sb = b + P_CITY + k * SLOT_BLOCK
            high[sb + S_TOKENS] = TOKEN_CAP
            high[sb + S_STORE : sb + S_STORE + 4] = RESOURCE_CAP
            high[sb + S_JAIL] = 2
            high[sb + S_WORKERS : sb + S_WORKERS + MAXP] = R.MAX_WORKERS
    high[EVENT_STORE : EVENT_STORE + NE] = EVENT_POINTS_CAP
    high[DECK_N] = R.DECK_SIZE
    high[DISCARD_N] = R.DECK_SIZE
    high[TUCKED] = R.DECK_SIZE
    high[HAND : HAND + NT] = np.minimum(D.CARD_COPIES, R.HAND_LIMIT)
    high[REVEALED_N] = N_REVEALED
    high[RUG_CITY : RUG_CITY + NT] = D.CARD_COPIES
    high[RUG_CARDS] = R.DECK_SIZE
    high[PLAYS_THIS_TURN] = PLAYS_CAP
    high[TOP_STAGE] = R.N_PLAY_STAGES - 1
    high[TOP_COUNT] = R.HAND_LIMIT
    high[TOP_MIN] = R.HAND_LIMIT
    high[TOP_MAX] = R.HAND_LIMIT
    high[TOP_GAIN_LEFT] = RESOURCE_CAP
    high[TOP_GIVEN : TOP_GIVEN + 4] = 3
    high[PLAY_STAGE] = R.N_PLAY_STAGES - 1
    high[PLAY_COST : PLAY_COST + 4] = int(D.CARD_COST.max()) + 1  # Judge adds one of a kind
    high[PLAY_REDUCTIONS] = 3
    return low, high


# Module-level copies for building a gymnasium ``Box(OBS_LOW, OBS_HIGH)``; read-only.
OBS_LOW, OBS_HIGH = observation_space_bounds()
OBS_LOW.setflags(write=False)
OBS_HIGH.setflags(write=False)
