"""Century: Spice Road rules as pure Numba kernels over one structured NumPy record per game.

A batch is a 1-D array of ``STATE_DTYPE``. Every kernel takes the batch and a game index, so
one compiled function serves single games (batch of one) and large batches alike. Rule IDs
(CSR-…) refer to docs/century.md.

Turn flow. A turn is one of the four main actions (CSR-T1). Compound choices are split into
sub-decisions that keep the same player to act:

==============  =========================================================================
phase           what the player chooses
==============  =========================================================================
MAIN            play a card / acquire market slot k / rest / claim point slot j
UPGRADE         upgrade one yellow, red or green cube one step, or stop (CSR-P3, CSR-P4)
TRADE           how many times to repeat the trade card just played, 1..10 (CSR-P5)
PAY             which colour of cube to leave on the next card left of the target (CSR-A1)
DISCARD         which colour to return while the caravan holds more than 10 (CSR-K1)
OVER            nothing: the game has ended
==============  =========================================================================
"""

import sys

import numpy as np
from numba import types

from meeple_gym.century.data import (
    DECK_TYPES,
    KIND_SPICE,
    KIND_TRADE,
    KIND_UPGRADE,
    MERCHANT_IN,
    MERCHANT_KIND,
    MERCHANT_OUT,
    MERCHANT_UPGRADES,
    POINT_COST,
    POINT_VALUE,
    STARTING_SPICE_TYPE,
    STARTING_UPGRADE_TYPE,
)
from meeple_gym.core.jit import array_arg, kernel, standalone_kernel, word_loader
from meeple_gym.core.records import clear_record
from meeple_gym.core.rng import randint, shuffle
from meeple_gym.core.stepping import batch_kernels

MIN_PLAYERS = 2
MAX_PLAYERS = 5
N_COLOURS = 4
YELLOW, RED, GREEN, BROWN = 0, 1, 2, 3
N_TYPES = MERCHANT_KIND.shape[0]  # 45 merchant card types
N_DECK = DECK_TYPES.shape[0]  # 43 market cards
N_POINT = POINT_VALUE.shape[0]  # 36 point cards
MARKET_SIZE = 6  # CSR-S4
POINT_ROW_SIZE = 5  # CSR-S1
CARAVAN_LIMIT = 10  # CSR-K1
# A turn starts with at most 10 cubes and every trade needs at least one cube, so no trade can
# be repeated more than 10 times (CSR-P5).
MAX_TRADE_REPEATS = 10
# CSR-E4: uniform-random play ends below ~5,000 sub-decisions (99.9th percentile ~2,300);
# past this cap the game is truncated, not terminated.
STEP_CAP = 20000

# Card states in STATE_DTYPE["cards"].
NOT_OWNED, IN_HAND, PLAYED = 0, 1, 2

PHASE_MAIN, PHASE_UPGRADE, PHASE_TRADE, PHASE_PAY, PHASE_DISCARD, PHASE_OVER = range(6)
PHASE_NAMES = ("main", "upgrade", "trade", "pay", "discard", "over")

# Action layout: one fixed Discrete space, see docs/century.md for the table.
A_PLAY = 0  # + merchant type (45)
A_ACQUIRE = A_PLAY + N_TYPES  # + market slot (6)
A_REST = A_ACQUIRE + MARKET_SIZE
A_CLAIM = A_REST + 1  # + point slot (5)
A_UPGRADE = A_CLAIM + POINT_ROW_SIZE  # + colour yellow/red/green (3)
A_STOP = A_UPGRADE + 3
A_TRADE = A_STOP + 1  # + (repeats - 1) (10)
A_PLACE = A_TRADE + MAX_TRADE_REPEATS  # + colour (4)
A_RETURN = A_PLACE + N_COLOURS  # + colour (4)
NUM_ACTIONS = A_RETURN + N_COLOURS  # 79

STATE_DTYPE = np.dtype(
    [
        ("rng", np.uint64, (1,)),  # the game's chance stream (mg.core.rng)
        ("num_players", np.int8),
        ("first_player", np.int8),
        ("current_player", np.int8),
        ("phase", np.int8),
        ("pending_type", np.int8),  # card being resolved in UPGRADE / TRADE, else -1
        ("upgrades_left", np.int8),
        ("acquire_slot", np.int8),  # target slot in PAY, else -1
        ("pay_index", np.int8),  # next slot that receives a cube in PAY
        ("end_triggered", np.int8),
        ("terminated", np.int8),
        ("truncated", np.int8),
        ("winner", np.int8),
        ("gold_left", np.int8),
        ("silver_left", np.int8),
        ("merchant_deck_top", np.int8),  # merchant_deck[top:] is the face-down deck
        ("point_deck_top", np.int8),
        ("step_count", np.int32),
        ("turn_count", np.int32),
        ("caravan", np.int16, (MAX_PLAYERS, N_COLOURS)),
        ("cards", np.int8, (MAX_PLAYERS, N_TYPES)),
        ("gold", np.int8, (MAX_PLAYERS,)),
        ("silver", np.int8, (MAX_PLAYERS,)),
        ("point_count", np.int8, (MAX_PLAYERS,)),
        ("point_owner", np.int8, (N_POINT,)),  # -1 unless claimed
        ("score", np.int16, (MAX_PLAYERS,)),  # filled when the game ends
        ("market", np.int8, (MARKET_SIZE,)),  # merchant type, -1 for an empty slot
        ("market_cubes", np.int16, (MARKET_SIZE, N_COLOURS)),
        ("merchant_deck", np.int8, (N_DECK,)),
        ("point_row", np.int8, (POINT_ROW_SIZE,)),  # point card id, -1 for an empty slot
        ("point_deck", np.int8, (N_POINT,)),
    ]
)
# Standalone kernels take the batch as a C-contiguous array of records (meeple_gym.core.jit).
STATES = array_arg(STATE_DTYPE)

_DECK_TYPES = np.asarray(DECK_TYPES)
# CSR-T1/P5: the cubes a card in hand needs to be played: a trade's input, nothing otherwise.
_PLAY_NEED = np.where((MERCHANT_KIND == KIND_TRADE)[:, None], MERCHANT_IN, 0).astype(np.int16)

# random_legal_action reads a player's row of ``cards`` 8 card states to a 64-bit word
# (little-endian: byte i of a word is bits 8i..8i+7), straight from the batch's memory
# (``word_loader``: no view, so no reference count on the batch per call). IN_HAND is bit 0 of
# a byte and PLAYED bit 1; a row's last word reads 3 bytes past the row (the next row, or the
# fields after ``cards``) and masks them off.
assert (NOT_OWNED, IN_HAND, PLAYED) == (0, 1, 2)
_CARDS_AT = STATE_DTYPE.fields["cards"][1]  # byte offset of cards[0, 0] in a record
_RECORD_BYTES = STATE_DTYPE.itemsize
_HAND_WORDS = (N_TYPES + 7) // 8
assert _CARDS_AT + MAX_PLAYERS * N_TYPES + 8 * _HAND_WORDS - N_TYPES <= _RECORD_BYTES
_LAST_WORD_MASK = np.uint64((1 << 8 * (N_TYPES - 8 * (_HAND_WORDS - 1))) - 1)
_BYTE_LSB = np.uint64(0x0101010101010101)
# (2 ** (8 * i)) * _BYTE_INDEX has i in its top byte: the index of a word's lowest set byte.
_BYTE_INDEX = np.uint64(0x0001020304050607)
_TOP_BYTE = np.uint64(56)
_ONE = np.uint64(1)
_LITTLE_ENDIAN = sys.byteorder == "little"
_load_word = word_loader()


def points_to_end(num_players):
    """CSR-E1: the point-card count that triggers the last round."""
    return 6 if num_players <= 3 else 5


@kernel
def _end_target(num_players):
    return 6 if num_players <= 3 else 5


@standalone_kernel(STATES, types.int64, types.int64, types.uint64, types.int64)
def init_game(states, g, num_players, key, options=0):
    """Set game ``g`` to a fresh deal (CSR-S1…S7) from the RNG word ``key``.

    Century has no rule options; ``options`` (the packed option bits every game takes) is 0.
    """
    clear_record(states, g)  # every field 0; the lines below set the rest
    s = states[g]
    s.rng[0] = key
    s.num_players = num_players
    s.phase = PHASE_MAIN
    s.pending_type = -1
    s.acquire_slot = -1
    s.winner = -1
    s.cards[:, :] = NOT_OWNED
    s.point_owner[:] = -1
    # CSR-S1: shuffle the point cards, deal 5 face up.
    for i in range(N_POINT):
        s.point_deck[i] = i
    shuffle(s.rng, s.point_deck, N_POINT)
    for j in range(POINT_ROW_SIZE):
        s.point_row[j] = s.point_deck[j]
    s.point_deck_top = POINT_ROW_SIZE
    # CSR-S2: 2 x players gold and silver coins.
    s.gold_left = 2 * num_players
    s.silver_left = 2 * num_players
    # CSR-S4: shuffle the 43 market cards, deal 6 face up.
    for i in range(N_DECK):
        s.merchant_deck[i] = _DECK_TYPES[i]
    shuffle(s.rng, s.merchant_deck, N_DECK)
    for k in range(MARKET_SIZE):
        s.market[k] = s.merchant_deck[k]
    s.merchant_deck_top = MARKET_SIZE
    # CSR-S6: random first player, then seat order.
    s.first_player = randint(s.rng, 0, num_players)
    s.current_player = s.first_player
    for p in range(num_players):
        # CSR-S3: one "+2 yellow" and one "upgrade 2" each.
        s.cards[p, STARTING_SPICE_TYPE] = IN_HAND
        s.cards[p, STARTING_UPGRADE_TYPE] = IN_HAND
        # CSR-S7: starting cubes by position in turn order.
        position = (p - s.first_player) % num_players
        if position == 0:
            s.caravan[p, YELLOW] = 3
        elif position <= 2:
            s.caravan[p, YELLOW] = 4
        else:
            s.caravan[p, YELLOW] = 3
            s.caravan[p, RED] = 1


@kernel
def caravan_total(s, p):
    return s.caravan[p, 0] + s.caravan[p, 1] + s.caravan[p, 2] + s.caravan[p, 3]


@kernel
def _holds(s, p, cost, row):
    for c in range(N_COLOURS):
        if s.caravan[p, c] < cost[row, c]:
            return False
    return True


@kernel
def _holds_times(s, p, t, repeats):
    # CSR-P5: the input of trade card t, ``repeats`` times over.
    for c in range(N_COLOURS):
        if s.caravan[p, c] < repeats * MERCHANT_IN[t, c]:
            return False
    return True


@standalone_kernel(STATES, types.int64, array_arg(np.int8))
def legal_mask_into(states, g, mask):
    """Write the legal actions of game ``g``'s player to act into ``mask`` (int8, 0/1)."""
    s = states[g]
    mask[:] = 0
    p = s.current_player
    phase = s.phase
    if phase == PHASE_MAIN:
        for t in range(N_TYPES):
            # CSR-T1/P5: any card in hand; a trade needs its input at least once.
            if s.cards[p, t] == IN_HAND:
                if MERCHANT_KIND[t] != KIND_TRADE or _holds(s, p, MERCHANT_IN, t):
                    mask[A_PLAY + t] = 1
        total = caravan_total(s, p)
        for k in range(MARKET_SIZE):
            # CSR-A1/A2: slot k needs one cube for each of the k cards to its left.
            if s.market[k] >= 0 and total >= k:
                mask[A_ACQUIRE + k] = 1
        for t in range(N_TYPES):
            # CSR-R1: resting needs something to take back.
            if s.cards[p, t] == PLAYED:
                mask[A_REST] = 1
                break
        for j in range(POINT_ROW_SIZE):
            # CSR-C1: the exact cubes of the card.
            card = s.point_row[j]
            if card >= 0 and _holds(s, p, POINT_COST, card):
                mask[A_CLAIM + j] = 1
    elif phase == PHASE_UPGRADE:
        for c in range(3):  # CSR-P3: brown cannot be upgraded.
            if s.caravan[p, c] > 0:
                mask[A_UPGRADE + c] = 1
        mask[A_STOP] = 1  # CSR-P4
    elif phase == PHASE_TRADE:
        t = s.pending_type
        for n in range(1, MAX_TRADE_REPEATS + 1):
            ok = True
            for c in range(N_COLOURS):
                if s.caravan[p, c] < n * MERCHANT_IN[t, c]:
                    ok = False
            if not ok:
                break
            mask[A_TRADE + n - 1] = 1
    elif phase == PHASE_PAY:
        for c in range(N_COLOURS):
            if s.caravan[p, c] > 0:
                mask[A_PLACE + c] = 1
    elif phase == PHASE_DISCARD:
        for c in range(N_COLOURS):
            if s.caravan[p, c] > 0:
                mask[A_RETURN + c] = 1


@standalone_kernel(
    STATES, types.int64, array_arg(np.int8), array_arg(np.uint64), types.int64, returns=types.int64
)
def random_legal_action(states, g, scratch, words, slot):
    """What ``random_legal`` would draw from ``legal_mask_into``'s mask of game ``g`` with
    ``words[slot]`` (-1 and no draw if nothing is legal), without building the mask.

    The in-kernel rollout's sampler: the mask and the scans over its 79 entries were 87% of a
    random step (benchmarks/README.md, "Century against the ENV peer"). The legal actions
    are listed in ascending order into ``scratch`` (int8, at least ``NUM_ACTIONS`` long,
    overwritten), so the draw picks the same one; the conditions are ``legal_mask_into``'s.
    """
    s = states[g]
    p = s.current_player
    phase = s.phase
    n = 0
    if phase == PHASE_MAIN:
        # A candidate is written, then kept (n advances) only if legal: few branches to miss.
        y, r, gr, b = s.caravan[p, 0], s.caravan[p, 1], s.caravan[p, 2], s.caravan[p, 3]
        # The hand row read 8 cards to a word: a player holds a few of the 45 types, and
        # visiting only those halves the cost of this phase (benchmarks/README.md).
        start = g * _RECORD_BYTES + _CARDS_AT + np.int64(p) * N_TYPES
        played = np.uint64(0)
        for block in range(_HAND_WORDS):
            w = _load_word(states, start + 8 * block)
            if block == _HAND_WORDS - 1:
                w &= _LAST_WORD_MASK
            played |= (w >> _ONE) & _BYTE_LSB  # bit 1 of a byte: PLAYED
            hand = w & _BYTE_LSB  # bit 0 of a byte: IN_HAND
            while hand != 0:
                low = hand & (~hand + _ONE)
                hand ^= low
                t = 8 * block + np.int64((low * _BYTE_INDEX) >> _TOP_BYTE)
                # Written, then kept only if affordable: whether a trade is affordable is
                # close to a coin flip, and the branch on it was the sampler's hottest
                # instruction (benchmarks/README.md, "Borrowed arguments").
                scratch[n] = A_PLAY + t
                n += (
                    (y >= _PLAY_NEED[t, 0])
                    & (r >= _PLAY_NEED[t, 1])
                    & (gr >= _PLAY_NEED[t, 2])
                    & (b >= _PLAY_NEED[t, 3])
                )
        total = y + r + gr + b
        for k in range(MARKET_SIZE):
            scratch[n] = A_ACQUIRE + k
            n += (s.market[k] >= 0) & (total >= k)
        scratch[n] = A_REST
        n += played != 0
        for j in range(POINT_ROW_SIZE):
            card = s.point_row[j]  # -1: an empty slot (its cost row is any row, unused)
            scratch[n] = A_CLAIM + j
            n += (
                (card >= 0)
                & (y >= POINT_COST[card, 0])
                & (r >= POINT_COST[card, 1])
                & (gr >= POINT_COST[card, 2])
                & (b >= POINT_COST[card, 3])
            )
    elif phase == PHASE_UPGRADE:
        for c in range(3):
            scratch[n] = A_UPGRADE + c
            n += s.caravan[p, c] > 0
        scratch[n] = A_STOP
        n += 1
    elif phase == PHASE_TRADE:
        t = s.pending_type
        for repeats in range(1, MAX_TRADE_REPEATS + 1):
            if not _holds_times(s, p, t, repeats):
                break
            scratch[n] = A_TRADE + repeats - 1
            n += 1
    elif phase == PHASE_PAY or phase == PHASE_DISCARD:
        first = A_PLACE if phase == PHASE_PAY else A_RETURN
        for c in range(N_COLOURS):
            scratch[n] = first + c
            n += s.caravan[p, c] > 0
    if n == 0:
        return -1
    return scratch[randint(words, slot, n)]


@kernel
def _draw_merchant(s):
    if s.merchant_deck_top < N_DECK:
        t = s.merchant_deck[s.merchant_deck_top]
        s.merchant_deck_top += 1
        return t
    return -1  # CSR-A3: the slot stays empty once the deck is out.


@kernel
def _take_market_card(s, p, k):
    # CSR-A1: the card goes to hand with every cube lying on it.
    t = s.market[k]
    s.cards[p, t] = IN_HAND
    for c in range(N_COLOURS):
        s.caravan[p, c] += s.market_cubes[k, c]
    # CSR-A3: cards right of k slide left with their cubes; refill the last slot.
    for i in range(k, MARKET_SIZE - 1):
        s.market[i] = s.market[i + 1]
        for c in range(N_COLOURS):
            s.market_cubes[i, c] = s.market_cubes[i + 1, c]
    s.market[MARKET_SIZE - 1] = _draw_merchant(s)
    for c in range(N_COLOURS):
        s.market_cubes[MARKET_SIZE - 1, c] = 0


@kernel
def _claim(s, p, j):
    card = s.point_row[j]
    # CSR-C1: pay the exact cost back to the supply.
    for c in range(N_COLOURS):
        s.caravan[p, c] -= POINT_COST[card, c]
    s.point_owner[card] = p
    s.point_count[p] += 1
    # CSR-C3: gold above slot 1 and silver above slot 2; silver moves to slot 1 once gold is out.
    if j == 0:
        if s.gold_left > 0:
            s.gold[p] += 1
            s.gold_left -= 1
        elif s.silver_left > 0:
            s.silver[p] += 1
            s.silver_left -= 1
    elif j == 1 and s.gold_left > 0 and s.silver_left > 0:
        s.silver[p] += 1
        s.silver_left -= 1
    # CSR-C2: slide left, refill from the point deck.
    for i in range(j, POINT_ROW_SIZE - 1):
        s.point_row[i] = s.point_row[i + 1]
    if s.point_deck_top < N_POINT:
        s.point_row[POINT_ROW_SIZE - 1] = s.point_deck[s.point_deck_top]
        s.point_deck_top += 1
    else:
        s.point_row[POINT_ROW_SIZE - 1] = -1
    # CSR-E1: the 5th (6th with 2-3 players) point card starts the last round.
    if s.point_count[p] >= _end_target(s.num_players):
        s.end_triggered = 1


@kernel
def final_scores_into(s, out):
    """CSR-E2: points + 3/gold + 1/silver + 1 per non-yellow cube."""
    for p in range(s.num_players):
        total = 3 * s.gold[p] + s.silver[p]
        total += s.caravan[p, RED] + s.caravan[p, GREEN] + s.caravan[p, BROWN]
        for card in range(N_POINT):
            if s.point_owner[card] == p:
                total += POINT_VALUE[card]
        out[p] = total


@kernel
def _finish_game(s):
    final_scores_into(s, s.score)
    n = s.num_players
    best = -1
    for position in range(n):
        # CSR-E3: walking in turn order with >=, a tie goes to the later player.
        p = (s.first_player + position) % n
        if best < 0 or s.score[p] >= s.score[best]:
            best = p
    s.winner = best
    s.terminated = 1
    s.phase = PHASE_OVER


@kernel
def _next_turn(s):
    n = s.num_players
    s.turn_count += 1
    nxt = (s.current_player + 1) % n
    s.phase = PHASE_MAIN
    s.pending_type = -1
    s.upgrades_left = 0
    s.acquire_slot = -1
    s.pay_index = 0
    # CSR-E1: once triggered, the round is finished so everyone has had as many turns.
    if s.end_triggered == 1 and nxt == s.first_player:
        _finish_game(s)
    else:
        s.current_player = nxt


@kernel
def _end_action(s, p):
    # CSR-K1: over 10 cubes at the end of the turn: the player returns cubes one at a time.
    if caravan_total(s, p) > CARAVAN_LIMIT:
        s.phase = PHASE_DISCARD
        s.pending_type = -1
        s.acquire_slot = -1
        s.pay_index = 0
    else:
        _next_turn(s)


@standalone_kernel(STATES, types.int64, types.int64)
def apply_action(states, g, action):
    """Apply a legal ``action`` to game ``g`` (legality is the caller's job)."""
    s = states[g]
    p = s.current_player
    phase = s.phase
    if phase == PHASE_MAIN:
        if action < A_ACQUIRE:
            t = action - A_PLAY
            s.cards[p, t] = PLAYED  # CSR-P1
            kind = MERCHANT_KIND[t]
            if kind == KIND_SPICE:  # CSR-P2: spice
                for c in range(N_COLOURS):
                    s.caravan[p, c] += MERCHANT_OUT[t, c]
                _end_action(s, p)
            elif kind == KIND_UPGRADE:  # CSR-P3: upgrade, one step at a time
                s.phase = PHASE_UPGRADE
                s.pending_type = t
                s.upgrades_left = MERCHANT_UPGRADES[t]
            else:  # CSR-P5: trade, choose the number of repeats next
                s.phase = PHASE_TRADE
                s.pending_type = t
        elif action < A_REST:
            k = action - A_ACQUIRE
            if k == 0:  # CSR-A2: the leftmost card is free
                _take_market_card(s, p, 0)
                _end_action(s, p)
            else:
                s.phase = PHASE_PAY
                s.acquire_slot = k
                s.pay_index = 0
        elif action == A_REST:
            for t in range(N_TYPES):  # CSR-R1
                if s.cards[p, t] == PLAYED:
                    s.cards[p, t] = IN_HAND
            _end_action(s, p)
        else:
            _claim(s, p, action - A_CLAIM)
            _end_action(s, p)
    elif phase == PHASE_UPGRADE:
        if action == A_STOP:
            _end_action(s, p)
        else:
            c = action - A_UPGRADE
            s.caravan[p, c] -= 1
            s.caravan[p, c + 1] += 1
            s.upgrades_left -= 1
            if s.upgrades_left == 0:
                _end_action(s, p)
    elif phase == PHASE_TRADE:
        t = s.pending_type
        repeats = action - A_TRADE + 1
        for c in range(N_COLOURS):
            s.caravan[p, c] += repeats * (MERCHANT_OUT[t, c] - MERCHANT_IN[t, c])
        _end_action(s, p)
    elif phase == PHASE_PAY:
        c = action - A_PLACE
        s.caravan[p, c] -= 1
        s.market_cubes[s.pay_index, c] += 1
        s.pay_index += 1
        if s.pay_index == s.acquire_slot:
            _take_market_card(s, p, s.acquire_slot)
            _end_action(s, p)
    elif phase == PHASE_DISCARD:
        s.caravan[p, action - A_RETURN] -= 1
        if caravan_total(s, p) <= CARAVAN_LIMIT:
            _next_turn(s)
    s.step_count += 1
    # CSR-E4: a cap on sub-decisions, reported as truncation.
    if s.terminated == 0 and s.step_count >= STEP_CAP:
        s.truncated = 1
        final_scores_into(s, s.score)
        s.phase = PHASE_OVER


@kernel
def rewards_into(s, out):
    """Terminal rewards: +1 to the winner, -1/(n-1) to each other player; 0 if truncated."""
    out[:] = 0.0
    if s.terminated == 1:
        n = s.num_players
        for p in range(n):
            out[p] = 1.0 if p == s.winner else -1.0 / (n - 1)


# ---- batched kernels (envs/core/stepping.py) -----------------------------------------------
reset_batch, legal_masks_batch, step_batch = batch_kernels(
    "century",
    apply_action,
    legal_mask_into,
    init_game,
    rewards_into,
    # Big-endian machines keep the generic mask-and-draw (same games, slower).
    random_action=random_legal_action if _LITTLE_ENDIAN else None,
)
