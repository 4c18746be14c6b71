"""Century: Spice Road observation: a float32 vector of ``OBS_SIZE`` (927) seen from one seat.

Everything in it is public. Caravans, hands and played piles of every player are open
information in this game: each card a player owns was taken from the face-up market or is a
starting card, and every play and rest happens in view of the table, so any player can track
them. The face-down merchant and point decks appear only as their sizes, never their order, and
the RNG word is never read.

Player blocks. Block 0 is the observing seat, block i is seat ``(player + i) % num_players``
(the seats in turn order starting from the observer); blocks ``num_players..4`` are all zero,
present flag included. Block i starts at ``PLAYER_OFFSET + i * PLAYER_BLOCK``:

=========  =====  =========================================================================
offset     size   meaning (raw values, no scaling)
=========  =====  =========================================================================
0          1      present: 1 for a seat in the game
1-4        4      caravan cubes: yellow, red, green, brown (counts)
5-49       45     merchant type t is in hand (0/1)
50-94      45     merchant type t is in the played pile (0/1)
95         1      number of point cards claimed
96         1      printed points of the claimed point cards
97         1      gold coins
98         1      silver coins
99-103     5      turn position relative to the first player, one-hot (0 = first player)
104        1      this seat is to act (0 once the game is over)
=========  =====  =========================================================================

Board, absolute offsets:

=========  =====  =========================================================================
offset     size   meaning
=========  =====  =========================================================================
0-524      525    5 player blocks of 105 (above)
525-824    300    market slots 1..6 (leftmost first), 50 each: merchant type one-hot (45),
                  present (1), cubes lying on the card Y/R/G/B (4)
825-854    30     point row slots 1..5, 6 each: cost Y/R/G/B (4), printed points (1),
                  present (1)
855        1      gold coins left
856        1      silver coins left
857-860    4      coin paid by point slot 1: gold, silver; by slot 2: gold, silver (0/1; CSR-C3)
861        1      merchant cards left in the face-down deck
862        1      point cards left in the face-down deck
863        1      end triggered (CSR-E1)
864-867    4      number of players one-hot (2, 3, 4, 5)
868-873    6      phase one-hot (main, upgrade, trade, pay, discard, over)
874-918    45     card being resolved in UPGRADE / TRADE, one-hot (all zero otherwise)
919        1      upgrades left on that card (UPGRADE)
920-925    6      target market slot of the acquisition being paid for, one-hot (PAY)
926        1      index (0-based) of the next slot that receives a cube (PAY)
=========  =====  =========================================================================

Values are raw counts and flags, all small non-negative integers; ``observation_space_bounds``
gives a proven upper bound for every entry (see the notes there).
"""

import numpy as np
from numba import prange, types

from meeple_gym.century.data import MERCHANT_UPGRADES, POINT_COST, POINT_VALUE
from meeple_gym.century.rules import (
    CARAVAN_LIMIT,
    IN_HAND,
    MARKET_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    N_COLOURS,
    N_DECK,
    N_POINT,
    N_TYPES,
    PHASE_OVER,
    PHASE_PAY,
    PHASE_UPGRADE,
    PLAYED,
    POINT_ROW_SIZE,
    STATES,
)
from meeple_gym.core.jit import array_arg, parallel_kernel, standalone_kernel

N_PHASES = 6

# ---- player block (relative offsets) ------------------------------------------------------
P_PRESENT = 0
P_CARAVAN = 1
P_IN_HAND = P_CARAVAN + N_COLOURS
P_PLAYED = P_IN_HAND + N_TYPES
P_POINT_COUNT = P_PLAYED + N_TYPES
P_POINTS = P_POINT_COUNT + 1
P_GOLD = P_POINTS + 1
P_SILVER = P_GOLD + 1
P_POSITION = P_SILVER + 1
P_TO_ACT = P_POSITION + MAX_PLAYERS
PLAYER_BLOCK = P_TO_ACT + 1  # 105

# ---- board (absolute offsets) -------------------------------------------------------------
PLAYER_OFFSET = 0
MARKET_OFFSET = PLAYER_OFFSET + MAX_PLAYERS * PLAYER_BLOCK
M_TYPE = 0  # within a market slot
M_PRESENT = N_TYPES
M_CUBES = M_PRESENT + 1
MARKET_BLOCK = M_CUBES + N_COLOURS  # 50
POINT_ROW_OFFSET = MARKET_OFFSET + MARKET_SIZE * MARKET_BLOCK
R_COST = 0  # within a point slot
R_POINTS = N_COLOURS
R_PRESENT = R_POINTS + 1
POINT_BLOCK = R_PRESENT + 1  # 6
GOLD_LEFT = POINT_ROW_OFFSET + POINT_ROW_SIZE * POINT_BLOCK
SILVER_LEFT = GOLD_LEFT + 1
COIN_PAYS = SILVER_LEFT + 1  # + 2 * slot + (0 gold, 1 silver), slots 0 and 1
MERCHANT_DECK_SIZE = COIN_PAYS + 4
POINT_DECK_SIZE = MERCHANT_DECK_SIZE + 1
END_TRIGGERED = POINT_DECK_SIZE + 1
NUM_PLAYERS_ONEHOT = END_TRIGGERED + 1  # index num_players - 2
PHASE_ONEHOT = NUM_PLAYERS_ONEHOT + (MAX_PLAYERS - MIN_PLAYERS + 1)
PENDING_CARD = PHASE_ONEHOT + N_PHASES
UPGRADES_LEFT = PENDING_CARD + N_TYPES
ACQUIRE_SLOT = UPGRADES_LEFT + 1
PAY_INDEX = ACQUIRE_SLOT + MARKET_SIZE
OBS_SIZE = PAY_INDEX + 1  # 927


@standalone_kernel(STATES, types.int64, types.int64, array_arg(np.float32))
def encode_into(states, g, player, out):
    """Write the observation of seat ``player`` in game ``g`` into ``out`` (float32, OBS_SIZE)."""
    s = states[g]
    out[:] = 0.0
    n = s.num_players
    over = s.phase == PHASE_OVER
    for i in range(n):
        p = (player + i) % n
        b = PLAYER_OFFSET + i * PLAYER_BLOCK
        out[b + P_PRESENT] = 1.0
        for c in range(N_COLOURS):
            out[b + P_CARAVAN + c] = s.caravan[p, c]
        for t in range(N_TYPES):
            # CSR-P1/R1: hand and played pile are public (every acquisition and play is seen).
            if s.cards[p, t] == IN_HAND:
                out[b + P_IN_HAND + t] = 1.0
            elif s.cards[p, t] == PLAYED:
                out[b + P_PLAYED + t] = 1.0
        out[b + P_POINT_COUNT] = s.point_count[p]
        points = 0
        for card in range(N_POINT):
            if s.point_owner[card] == p:
                points += POINT_VALUE[card]
        out[b + P_POINTS] = points
        out[b + P_GOLD] = s.gold[p]
        out[b + P_SILVER] = s.silver[p]
        out[b + P_POSITION + (p - s.first_player) % n] = 1.0  # CSR-S6
        if not over and s.current_player == p:
            out[b + P_TO_ACT] = 1.0
    for k in range(MARKET_SIZE):
        b = MARKET_OFFSET + k * MARKET_BLOCK
        t = s.market[k]
        if t >= 0:
            out[b + M_TYPE + t] = 1.0
            out[b + M_PRESENT] = 1.0
        for c in range(N_COLOURS):
            out[b + M_CUBES + c] = s.market_cubes[k, c]  # CSR-A1/A3
    for j in range(POINT_ROW_SIZE):
        b = POINT_ROW_OFFSET + j * POINT_BLOCK
        card = s.point_row[j]
        if card >= 0:
            for c in range(N_COLOURS):
                out[b + R_COST + c] = POINT_COST[card, c]
            out[b + R_POINTS] = POINT_VALUE[card]
            out[b + R_PRESENT] = 1.0
    out[GOLD_LEFT] = s.gold_left
    out[SILVER_LEFT] = s.silver_left
    # CSR-C3: gold on slot 1 and silver on slot 2; silver moves to slot 1 once gold is out.
    if s.gold_left > 0:
        out[COIN_PAYS + 0] = 1.0
        if s.silver_left > 0:
            out[COIN_PAYS + 3] = 1.0
    elif s.silver_left > 0:
        out[COIN_PAYS + 1] = 1.0
    # Only the deck sizes: the order of the face-down cards is hidden.
    out[MERCHANT_DECK_SIZE] = N_DECK - s.merchant_deck_top
    out[POINT_DECK_SIZE] = N_POINT - s.point_deck_top
    out[END_TRIGGERED] = s.end_triggered
    out[NUM_PLAYERS_ONEHOT + n - MIN_PLAYERS] = 1.0
    out[PHASE_ONEHOT + s.phase] = 1.0
    if s.pending_type >= 0:
        out[PENDING_CARD + s.pending_type] = 1.0
    # Sub-decision details only in their own phase (the state keeps stale values elsewhere).
    if s.phase == PHASE_UPGRADE:
        out[UPGRADES_LEFT] = s.upgrades_left
    if s.phase == PHASE_PAY:
        out[ACQUIRE_SLOT + s.acquire_slot] = 1.0
        out[PAY_INDEX] = s.pay_index


@parallel_kernel
def encode_batch(states, players, out):
    """``out[g]`` = observation of seat ``players[g]`` in game ``g``, for every game."""
    for g in prange(states.shape[0]):
        encode_into(states, g, players[g], out[g])


def observation_space_bounds():
    """``(low, high)`` float32 arrays of shape (OBS_SIZE,) containing every observation.

    Bounds (all provable from the rules, not measured):
    - flags and one-hots: 1.
    - cubes on one market card: each acquisition puts at most one cube on each card (CSR-A1)
      and there are at most ``N_DECK`` acquisitions (the deck never refills), so <= 43.
    - caravan, per colour: a player starts an action with at most 10 cubes (CSR-K1; 4 at
      setup). One action adds at most 4 (a spice card), 40 (10 repeats of a 1-in/5-out trade,
      CSR-P5) or the cubes on one market card (<= 43), so <= 10 + 43.
    - point cards / points: at most all 36 cards / the sum of all printed points (loose).
    - coins: at most 2 x 5 of each (CSR-S2); deck sizes at most their size after setup.
    """
    low = np.zeros(OBS_SIZE, dtype=np.float32)
    high = np.ones(OBS_SIZE, dtype=np.float32)
    coin_high = 2 * MAX_PLAYERS
    for i in range(MAX_PLAYERS):
        b = PLAYER_OFFSET + i * PLAYER_BLOCK
        high[b + P_CARAVAN : b + P_CARAVAN + N_COLOURS] = CARAVAN_LIMIT + N_DECK
        high[b + P_POINT_COUNT] = N_POINT
        high[b + P_POINTS] = int(POINT_VALUE.sum())
        high[b + P_GOLD] = coin_high
        high[b + P_SILVER] = coin_high
    for k in range(MARKET_SIZE):
        b = MARKET_OFFSET + k * MARKET_BLOCK
        high[b + M_CUBES : b + M_CUBES + N_COLOURS] = N_DECK
    for j in range(POINT_ROW_SIZE):
        b = POINT_ROW_OFFSET + j * POINT_BLOCK
        high[b + R_COST : b + R_COST + N_COLOURS] = int(POINT_COST.max())
        high[b + R_POINTS] = int(POINT_VALUE.max())
    high[GOLD_LEFT] = coin_high
    high[SILVER_LEFT] = coin_high
    high[MERCHANT_DECK_SIZE] = N_DECK - MARKET_SIZE
    high[POINT_DECK_SIZE] = N_POINT - POINT_ROW_SIZE
    high[UPGRADES_LEFT] = int(MERCHANT_UPGRADES.max())
    high[PAY_INDEX] = MARKET_SIZE - 2  # cubes go left of the target, index <= 4
    return low, high


# Module-level copies for building a gymnasium ``Box(OBS_LOW, OBS_HIGH)``; read-only.
OBS_LOW, OBS_HIGH = observation_space_bounds()
OBS_LOW.setflags(write=False)
OBS_HIGH.setflags(write=False)
