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

from meeple_gym.core.folding import first_code, observation_variant
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
def _add_colors(s, q, out, at):
    """``rules._color_count`` of the 5 colours into ``out[at:at + 5]`` (zero before) in one
    pass over the city instead of five."""
    if R._is_rugwort(s, q):
        for t in range(NT):
            out[at + np.int64(R.COLOR[t])] += s.rug_city[t]
        return
    for k in range(SLOTS):
        t = s.city[q, k]
        if t >= 0:
            out[at + np.int64(R.COLOR[t])] += 1.0


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
    _add_colors(s, q, out, b + P_COLORS)
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


# ---- compact observation (``observation="compact"``) -----------------------------------------
# The same information as the full vector in 1472 floats instead of 6935 (4.7x fewer bytes to
# write per step): every one-hot becomes one categorical code (index + 1, 0 = none; the
# pending decision kind and task kinds keep their own ids, 0 = none), a Meadow card or a
# city card is its type code instead of 48 one-hot entries, and the rows that only said
# "present" are implied by a code above 0. Counts, flags and caps are the full vector's, so
# ``compact_from_full`` maps one to the other exactly (the test's slow reference). Codes are
# categories, not magnitudes: embed them (or one-hot them in the model) rather than scale them.
#
# Player block i (seat ``(player + i) % seats``, as in the full vector), ``C_PLAYER_BLOCK``
# (316) each: 0-5 present, Rugwort, decider, turn, went first, passed; 6 season code (season
# + 1; 0 for Rugwort); 7 hand size; 8-11 resources; 12 point tokens; 13 score + SCORE_SHIFT;
# 14-17 workers owned, available, placed for good, out; 18-44 workers on basic locations,
# forest positions, Haven, Journey, events, Rugwort's Inn / Post Office (full rows 21-47);
# 45 city spaces; 46-50 cards per colour; 51 events achieved; 52-315 city slots 0..21, 12
# each: card type code, occupied, point tokens, Storehouse stock (4), prisoners, workers of
# relative seats 0..3.
#
# Shared rows after the 4 blocks (``C_*`` offsets): Meadow 0..7 (type code, blocked); forest
# positions 0..3 (forest code); dealt special events 0..3 (special code); event owners 0..19
# (relative seat + 1); parked event points 0..19; deck, discard, tucked sizes; number of
# players; game over; own hand (48 counts); revealed count and revealed cards 0..7 (type
# codes; decider only); solo: Rugwort's city (48 counts), his card count, his year (1-3),
# plays this turn; pending decision kind (``rules.PK_*``); top task: kind, subject code
# (card, location or event id + 1), worker visit, card owner (relative seat + 1), stage,
# count, min, max, resources to gain, 4 allowed kinds, 4 given; parent task: kind, subject
# code; card being played: present, card code, origin code, payment method code, play
# stage, cost (4), reductions left, Judge swap-away code.
C_P_HEAD = P_SEASON  # 0-5 as in the full block
C_P_SEASON = 6
C_P_HAND_N = 7
C_P_RESOURCES = 8
C_P_TOKENS = 12
C_P_SCORE = 13
C_P_WORKERS = 14  # 14..51 are the full rows P_WORKERS..P_EVENTS, shifted by 3
C_P_SHIFT = P_WORKERS - C_P_WORKERS
C_P_CITY = P_CITY - C_P_SHIFT  # 52
C_S_TYPE = 0
C_S_OCCUPIED = 1
C_S_TOKENS = 2
C_S_STORE = 3
C_S_JAIL = 7
C_S_WORKERS = 8
C_SLOT_BLOCK = C_S_WORKERS + MAXP  # 12
C_PLAYER_BLOCK = C_P_CITY + SLOTS * C_SLOT_BLOCK
C_MEADOW = MAXP * C_PLAYER_BLOCK
C_FOREST = C_MEADOW + 2 * R.MEADOW
C_SPECIALS = C_FOREST + R.MAX_FOREST
C_EVENT_OWNER = C_SPECIALS + R.N_SPECIAL_DEALT
C_EVENT_STORE = C_EVENT_OWNER + NE
C_DECK_N = C_EVENT_STORE + NE
C_DISCARD_N = C_DECK_N + 1
C_TUCKED = C_DISCARD_N + 1
C_NUM_PLAYERS = C_TUCKED + 1
C_GAME_OVER = C_NUM_PLAYERS + 1
C_HAND = C_GAME_OVER + 1
C_REVEALED_N = C_HAND + NT
C_REVEALED = C_REVEALED_N + 1
C_RUG_CITY = C_REVEALED + N_REVEALED
C_RUG_CARDS = C_RUG_CITY + NT
C_RUG_YEAR = C_RUG_CARDS + 1
C_PLAYS_THIS_TURN = C_RUG_YEAR + 1
C_PEND_KIND = C_PLAYS_THIS_TURN + 1
C_TOP_KIND = C_PEND_KIND + 1
C_TOP_SUBJECT = C_TOP_KIND + 1
C_TOP_VISIT = C_TOP_SUBJECT + 1
C_TOP_OWNER = C_TOP_VISIT + 1
C_TOP_STAGE = C_TOP_OWNER + 1
C_TOP_COUNT = C_TOP_STAGE + 1
C_TOP_MIN = C_TOP_COUNT + 1
C_TOP_MAX = C_TOP_MIN + 1
C_TOP_GAIN_LEFT = C_TOP_MAX + 1
C_TOP_KINDS = C_TOP_GAIN_LEFT + 1
C_TOP_GIVEN = C_TOP_KINDS + 4
C_PARENT_KIND = C_TOP_GIVEN + 4
C_PARENT_SUBJECT = C_PARENT_KIND + 1
C_PLAY_PRESENT = C_PARENT_SUBJECT + 1
C_PLAY_CARD = C_PLAY_PRESENT + 1
C_PLAY_ORIGIN = C_PLAY_CARD + 1
C_PLAY_METHOD = C_PLAY_ORIGIN + 1
C_PLAY_STAGE = C_PLAY_METHOD + 1
C_PLAY_COST = C_PLAY_STAGE + 1
C_PLAY_REDUCTIONS = C_PLAY_COST + 4
C_PLAY_JUDGE_FROM = C_PLAY_REDUCTIONS + 1
COMPACT_OBS_SIZE = C_PLAY_JUDGE_FROM + 1  # 1472


@kernel
def _compact_workers(s, player, q, b, out):
    """``_encode_workers`` in the compact layout (same counts, compact offsets)."""
    rq = _rel(s, player, q)
    for w in range(s.workers[q]):
        loc = np.int64(s.wloc[q, w])
        if loc == R.W_FREE:
            out[b + P_FREE - C_P_SHIFT] += 1.0
            continue
        if s.wperm[q, w]:
            out[b + P_PERMANENT - C_P_SHIFT] += 1.0
        if loc == R.W_LIMBO:
            out[b + P_LIMBO - C_P_SHIFT] += 1.0
        elif loc == R.W_RUG_INN or loc == R.W_RUG_POST:
            out[b + P_AT_RUGWORT - C_P_SHIFT + loc - R.W_RUG_INN] += 1.0
        elif loc >= R.W_CITY:
            owner = (loc - R.W_CITY) // 32
            slot = (loc - R.W_CITY) % 32
            ro = _rel(s, player, owner)
            sb = ro * C_PLAYER_BLOCK + C_P_CITY + slot * C_SLOT_BLOCK
            out[sb + C_S_WORKERS + rq] += 1.0
        elif loc >= R.W_EVENT:
            e = loc - R.W_EVENT
            if e < R.N_BASIC_EVENTS:
                out[b + P_AT_EVENT - C_P_SHIFT + e] += 1.0
            else:
                for j in range(R.N_SPECIAL_DEALT):
                    if s.specials[j] == e:
                        out[b + P_AT_EVENT - C_P_SHIFT + R.N_BASIC_EVENTS + j] += 1.0
        elif loc == R.HAVEN:
            out[b + P_AT_HAVEN - C_P_SHIFT] += 1.0
        elif BASIC_INDEX[loc] >= 0:
            out[b + P_AT_BASIC - C_P_SHIFT + BASIC_INDEX[loc]] += 1.0
        elif JOURNEY_INDEX[loc] >= 0:
            out[b + P_AT_JOURNEY - C_P_SHIFT + JOURNEY_INDEX[loc]] += 1.0
        elif FOREST_INDEX[loc] >= 0:
            for j in range(R.MAX_FOREST):
                if s.forest[j] == loc:
                    out[b + P_AT_FOREST - C_P_SHIFT + j] += 1.0


@kernel
def _compact_player(s, player, q, b, out):
    out[b + P_PRESENT] = 1.0
    rugwort = R._is_rugwort(s, q)
    out[b + P_RUGWORT] = 1.0 if rugwort else 0.0
    over = s.terminated == 1 or s.truncated == 1
    out[b + P_DECIDER] = 1.0 if not over and s.current_player == q else 0.0
    out[b + P_TURN] = 1.0 if not over and s.turn_player == q else 0.0
    out[b + P_FIRST] = 1.0 if s.first_player == q else 0.0
    out[b + P_PASSED] = s.passed[q]
    if not rugwort:
        out[b + C_P_SEASON] = s.season[q] + 1
    out[b + C_P_HAND_N] = s.hand_n[q]
    for r in range(4):
        out[b + C_P_RESOURCES + r] = _clip(s.resources[q, r], RESOURCE_CAP)
    out[b + C_P_TOKENS] = _clip(s.tokens[q], TOKEN_CAP)
    out[b + C_P_SCORE] = _clip(R.score_of(s, q) + SCORE_SHIFT, SCORE_CAP)
    out[b + C_P_WORKERS] = s.workers[q]
    events = 0
    for e in range(NE):
        events += s.event_owner[e] == q
    out[b + P_EVENTS - C_P_SHIFT] = events
    _add_colors(s, q, out, b + P_COLORS - C_P_SHIFT)
    if rugwort:
        if s.rug_basic >= 0:
            out[b + P_AT_BASIC - C_P_SHIFT + BASIC_INDEX[s.rug_basic]] += 1.0
        if s.rug_forest >= 0:
            out[b + P_AT_FOREST - C_P_SHIFT + np.int64(s.rug_forest)] += 1.0
        if s.rug_journey >= 0:
            out[b + P_AT_JOURNEY - C_P_SHIFT + JOURNEY_INDEX[s.rug_journey]] += 1.0
        return
    out[b + P_SPACES - C_P_SHIFT] = R._spaces_used(s, q, -1)
    _compact_workers(s, player, q, b, out)
    for k in range(SLOTS):
        t = np.int64(s.city[q, k])
        if t < 0:
            continue
        sb = b + C_P_CITY + k * C_SLOT_BLOCK
        out[sb + C_S_TYPE] = t + 1
        out[sb + C_S_OCCUPIED] = s.city_occupied[q, k]
        out[sb + C_S_TOKENS] = _clip(s.city_tokens[q, k], TOKEN_CAP)
        for r in range(4):
            out[sb + C_S_STORE + r] = _clip(s.city_store[q, k, r], RESOURCE_CAP)
        out[sb + C_S_JAIL] = (s.city_jail[q, k, 0] >= 0) + (s.city_jail[q, k, 1] >= 0)


@kernel
def _compact_subject(s, f):
    """Code of task frame ``f``'s card, location or event (id + 1; 0: another kind)."""
    kind = s.fr_kind[f]
    if kind == R.T_PLAY or kind == R.T_CARD or kind == R.T_LOCATION or kind == R.T_EVENT:
        return np.int64(s.fr_a[f]) + 1
    return 0


@kernel
def _compact_pending(s, player, out):
    out[C_PEND_KIND] = s.pend_kind
    if s.depth <= 0:
        return
    f = s.depth - 1
    kind = np.int64(s.fr_kind[f])
    out[C_TOP_KIND] = kind
    out[C_TOP_SUBJECT] = _compact_subject(s, f)
    if kind == R.T_CARD:
        out[C_TOP_VISIT] = 1.0 if s.fr_b[f] == 1 else 0.0
        out[C_TOP_OWNER] = _rel(s, player, s.fr_c[f]) + 1
    out[C_TOP_STAGE] = s.fr_stage[f]
    out[C_TOP_COUNT] = _clip(s.fr_n[f], R.HAND_LIMIT)
    if kind == R.T_DISCARD or kind == R.T_GIVE_RESOURCES:
        out[C_TOP_MIN] = s.fr_a[f]
        out[C_TOP_MAX] = s.fr_b[f]
    if kind == R.T_GAIN:
        out[C_TOP_GAIN_LEFT] = _clip(s.fr_a[f], RESOURCE_CAP)
    if kind == R.T_GAIN or kind == R.T_GIVE_RESOURCES:
        bits = s.fr_b[f] if kind == R.T_GAIN else s.fr_c[f]
        for r in range(4):
            out[C_TOP_KINDS + r] = (bits >> r) & 1
    if kind == R.T_GIVE_RESOURCES:
        for r in range(4):
            out[C_TOP_GIVEN + r] = s.fr_cost[f, r]
    if f >= 1:
        out[C_PARENT_KIND] = s.fr_kind[f - 1]
        out[C_PARENT_SUBJECT] = _compact_subject(s, f - 1)
    for g in range(f, -1, -1):
        if s.fr_kind[g] != R.T_PLAY:
            continue
        out[C_PLAY_PRESENT] = 1.0
        out[C_PLAY_CARD] = np.int64(s.fr_a[g]) + 1
        out[C_PLAY_ORIGIN] = np.int64(s.fr_b[g]) + 1
        stage = s.fr_stage[g]
        out[C_PLAY_STAGE] = stage
        if stage > R.PS_PAY and s.fr_b[g] != R.O_FREE:
            if s.fr_b[g] == R.O_HAND or s.fr_b[g] == R.O_MEADOW:
                out[C_PLAY_METHOD] = np.int64(s.fr_c[g]) + 1
            if stage < R.PS_SHEPHERD:
                for r in range(4):
                    out[C_PLAY_COST + r] = s.fr_cost[g, r]
        if stage == R.PS_REDUCE:
            out[C_PLAY_REDUCTIONS] = s.fr_n[g]
        if stage == R.PS_JUDGE_TO:
            out[C_PLAY_JUDGE_FROM] = np.int64(s.fr_d[g]) + 1
        break


# A plain kernel, not a standalone one: it compiles only for a batch that asks for it.
@kernel
def encode_compact_into(states, g, player, out):
    """The compact observation of ``player`` in game ``g`` into ``out`` (COMPACT_OBS_SIZE)."""
    s = states[g]
    out[:] = 0.0
    seats = np.int64(s.seats)
    for i in range(seats):
        _compact_player(s, player, (player + i) % seats, i * C_PLAYER_BLOCK, out)
    solo = s.num_players == 1
    for i in range(R.MEADOW):
        t = np.int64(s.meadow[i])
        if t >= 0:
            out[C_MEADOW + 2 * i] = t + 1
        if solo and (s.rug_meadow >> i) & 1:
            out[C_MEADOW + 2 * i + 1] = 1.0
    for j in range(R.MAX_FOREST):
        loc = np.int64(s.forest[j])
        if loc >= 0:
            out[C_FOREST + j] = FOREST_INDEX[loc] + 1
    for j in range(R.N_SPECIAL_DEALT):
        out[C_SPECIALS + j] = SPECIAL_INDEX[s.specials[j]] + 1
    for e in range(NE):
        owner = s.event_owner[e]
        if owner >= 0:
            out[C_EVENT_OWNER + e] = _rel(s, player, owner) + 1
        out[C_EVENT_STORE + e] = _clip(s.event_store[e], EVENT_POINTS_CAP)
    out[C_DECK_N] = s.deck_n
    out[C_DISCARD_N] = s.discard_n
    out[C_TUCKED] = s.tucked
    out[C_NUM_PLAYERS] = s.num_players
    over = s.terminated == 1 or s.truncated == 1
    out[C_GAME_OVER] = 1.0 if over else 0.0
    if not (solo and player == R.RUGWORT):
        for t in range(NT):
            out[C_HAND + t] = s.hand[player, t]
    if not over and s.current_player == player:
        n = min(s.revealed_n, N_REVEALED)
        out[C_REVEALED_N] = n
        for i in range(n):
            out[C_REVEALED + i] = np.int64(s.revealed[i]) + 1
    if solo:
        total = 0
        for t in range(NT):
            out[C_RUG_CITY + t] = s.rug_city[t]
            total += s.rug_city[t]
        out[C_RUG_CARDS] = total
        out[C_RUG_YEAR] = s.rug_year
        out[C_PLAYS_THIS_TURN] = _clip(s.plays_this_turn, PLAYS_CAP)
    if not over:
        _compact_pending(s, player, out)
    else:
        out[C_PEND_KIND] = R.PK_NONE


@parallel_kernel
def encode_compact_batch(states, players, out):
    """``out[g]`` = compact observation of ``players[g]`` in game ``g``, for every game."""
    for g in prange(states.shape[0]):
        encode_compact_into(states, g, players[g], out[g])


def _compact_map(full, code) -> np.ndarray:
    """The compact layout built from the full vector ``full``; ``code(one_hot)`` turns each
    one-hot into its entry (``first_code`` for observations, its length for the bounds)."""
    c = np.zeros(COMPACT_OBS_SIZE, np.float32)
    for i in range(MAXP):
        b, fb = i * C_PLAYER_BLOCK, i * PLAYER_BLOCK
        c[b : b + C_P_HEAD] = full[fb : fb + P_SEASON]
        c[b + C_P_SEASON] = code(full[fb + P_SEASON : fb + P_HAND_N])
        c[b + C_P_HAND_N : b + C_P_WORKERS] = full[fb + P_HAND_N : fb + P_WORKERS]
        c[b + C_P_WORKERS : b + C_P_CITY] = full[fb + P_WORKERS : fb + P_CITY]
        for k in range(SLOTS):
            sb, fsb = b + C_P_CITY + k * C_SLOT_BLOCK, fb + P_CITY + k * SLOT_BLOCK
            c[sb + C_S_TYPE] = code(full[fsb + S_TYPE : fsb + S_PRESENT])
            c[sb + C_S_OCCUPIED : sb + C_SLOT_BLOCK] = full[fsb + S_OCCUPIED : fsb + SLOT_BLOCK]
    for i in range(R.MEADOW):
        mb = MEADOW + i * MEADOW_BLOCK
        c[C_MEADOW + 2 * i] = code(full[mb + M_TYPE : mb + M_PRESENT])
        c[C_MEADOW + 2 * i + 1] = full[mb + M_BLOCKED]
    for j in range(R.MAX_FOREST):
        c[C_FOREST + j] = code(
            full[FOREST + j * N_FOREST_TYPES : FOREST + (j + 1) * N_FOREST_TYPES]
        )
    for j in range(R.N_SPECIAL_DEALT):
        c[C_SPECIALS + j] = code(full[SPECIALS + j * N_SPECIALS : SPECIALS + (j + 1) * N_SPECIALS])
    for e in range(NE):
        c[C_EVENT_OWNER + e] = code(full[EVENT_OWNER + e * MAXP : EVENT_OWNER + (e + 1) * MAXP])
    c[C_EVENT_STORE : C_EVENT_STORE + NE] = full[EVENT_STORE : EVENT_STORE + NE]
    c[C_DECK_N:C_NUM_PLAYERS] = full[DECK_N:NUM_PLAYERS_ONEHOT]
    c[C_NUM_PLAYERS] = code(full[NUM_PLAYERS_ONEHOT:GAME_OVER])
    c[C_GAME_OVER] = full[GAME_OVER]
    c[C_HAND : C_HAND + NT] = full[HAND : HAND + NT]
    c[C_REVEALED_N] = full[REVEALED_N]
    for i in range(N_REVEALED):
        c[C_REVEALED + i] = code(full[REVEALED + i * NT : REVEALED + (i + 1) * NT])
    c[C_RUG_CITY:C_RUG_YEAR] = full[RUG_CITY:RUG_YEAR]
    c[C_RUG_YEAR] = code(full[RUG_YEAR:PLAYS_THIS_TURN])
    c[C_PLAYS_THIS_TURN] = full[PLAYS_THIS_TURN]

    def kind(v):  # the kind ids themselves (0 = none)
        return max(code(v) - 1, 0)

    def subject(card, loc, event):
        return max(
            code(full[card : card + NT]), code(full[loc : loc + NL]), code(full[event : event + NE])
        )

    c[C_PEND_KIND] = kind(full[PEND_KIND:TOP_KIND])
    c[C_TOP_KIND] = kind(full[TOP_KIND:TOP_CARD])
    c[C_TOP_SUBJECT] = subject(TOP_CARD, TOP_LOCATION, TOP_EVENT)
    c[C_TOP_VISIT] = full[TOP_VISIT]
    c[C_TOP_OWNER] = code(full[TOP_OWNER:TOP_STAGE])
    c[C_TOP_STAGE:C_PARENT_KIND] = full[TOP_STAGE:PARENT_KIND]
    c[C_PARENT_KIND] = kind(full[PARENT_KIND:PARENT_CARD])
    c[C_PARENT_SUBJECT] = subject(PARENT_CARD, PARENT_LOCATION, PARENT_EVENT)
    c[C_PLAY_PRESENT] = full[PLAY_PRESENT]
    c[C_PLAY_CARD] = code(full[PLAY_CARD:PLAY_ORIGIN])
    c[C_PLAY_ORIGIN] = code(full[PLAY_ORIGIN:PLAY_METHOD])
    c[C_PLAY_METHOD] = code(full[PLAY_METHOD:PLAY_STAGE])
    c[C_PLAY_STAGE:C_PLAY_JUDGE_FROM] = full[PLAY_STAGE:PLAY_JUDGE_FROM]
    c[C_PLAY_JUDGE_FROM] = code(full[PLAY_JUDGE_FROM:OBS_SIZE])
    return c


def compact_from_full(full) -> np.ndarray:
    """The compact observation that goes with the full observation ``full``: the slow
    reference the compact kernel is tested against (the two carry the same information)."""
    return _compact_map(np.asarray(full, np.float32), first_code)


# Bounds of the compact vector: the full vector's caps, and each code's largest value.
COMPACT_OBS_LOW = np.zeros(COMPACT_OBS_SIZE, np.float32)
COMPACT_OBS_LOW.setflags(write=False)
# ``GameSpec.observations["compact"]`` (envs/everdell/spec.py): what the compact spec reads.
COMPACT = observation_variant(
    encode_compact_into, encode_compact_batch, _compact_map(OBS_HIGH, len)
)
COMPACT_OBS_HIGH = COMPACT.OBS_HIGH
