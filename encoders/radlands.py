"""Radlands observation: a float32 vector of ``OBS_SIZE`` (1486) seen from one player; the
compact observation (``observation="compact"``, ``COMPACT_OBS_SIZE`` = 214) at the end.

It shows only what RAD-G4 lets that player know: the board, both event queues, water, the
Water Silos, the player's own hand (the opponent's only as a size), deck and discard sizes,
the top discard card (never the pile below it), whether the deck was reshuffled, whose turn
and decision it is, the phase, and the decision being resolved. It never reads the RNG word,
the deck order, the opponent's hand, the type of any punk (RAD-K3: not even its owner may
look), nor the opponent's draft offer or picks before both are revealed (RAD-S3).

Values are raw counts and flags (small non-negative numbers); ``OBS_HIGH`` bounds them.

Side blocks. Block 0 is the observing player's side, block 1 the opponent's. Block b starts at
``b * SIDE_BLOCK`` (351). A side holds 3 column blocks of 103, one per column c at
``c * COL_BLOCK``:

=========  =====  =========================================================================
offset     size   meaning (inside a column block)
=========  =====  =========================================================================
0-33       34     camp id one-hot (all zero during the draft)
34         1      camp damaged
35         1      camp destroyed
36         1      camp used this turn (not ready, RAD-R1)
37         1      camp's first use kept it ready (Vera Vosh, per-card reading)
38-40      3      the camp's index in its column, one-hot (people behind it; see 344)
41-71      31     person slot 0, the back-most person of the column (layout below)
72-102     31     person slot 1, the person in front of slot 0
=========  =====  =========================================================================

A person slot: 0 present, 1-26 person type one-hot (face-up people only: a punk shows no
type), 27 punk, 28 damaged, 29 ready (RAD-R2), 30 first use kept it ready (Vera, per card).
A column's people are listed back to front without the camp; with the camp's place this
gives each entity's index ``i`` in the column, the one the TARGET / PLACE actions use.

=========  =====  =========================================================================
offset     size   meaning (inside a side block, after the 3 columns at 0-308)
=========  =====  =========================================================================
309-341    33     event queue slots 1..3, 11 each: event type one-hot (10), Raiders (1)
342        1      the Water Silo is in this player's hand (RAD-A6)
343        1      number of cards in hand (the Water Silo not counted)
344        1      Juggernaut's space in its column (0-2: its moves made; 0 = starting spot)
345        1      people put into play this turn, capped at 2 (Nest of Spies, Transplant Lab)
346        1      this player's Raiders resolved this turn (Scavenger Camp)
347        1      this player's High Ground is active: the other side counts as unprotected
348        1      this player is the turn player
349        1      this player is the decider (the one to act; 0 once the game is over)
350        1      this player went first (RAD-S5)
=========  =====  =========================================================================

Shared and private parts, absolute offsets:

=========  =====  =========================================================================
offset     size   meaning
=========  =====  =========================================================================
0-701      702    2 side blocks (own, then opponent)
702        1      water of the turn player, capped at 16 (no payment exceeds 6)
703        1      cards in the draw deck
704        1      cards in the discard pile
705-740    36     top card of the discard pile, deck type one-hot (RAD-G4: only the top)
741        1      the discard pile has been shuffled into the deck once (RAD-E2)
742-745    4      phase one-hot: draft, actions, decision, over
746        1      the turn player's events phase is running (RAD-T1)
747        1      an event resolved this turn (Watchtower)
748        1      Zeto Khan's first-event bonus is spent this turn
749        1      Vera Vosh's once-per-turn use is spent this turn
750-752    3      rule options: Raiders enter slot 2, Vera per card, Zeto counts resolved
753-788    36     own hand: number of cards of each deck type
789-932    144    revealed cards 1..4 (deck type one-hot, 36 each) of a pending Scientist,
                  Interrogate or Supply Depot choice; only for the card's owner
933-1136   204    draft, own offer slots 1..6: camp id one-hot (34 each)
1137-1142  6      draft, own offer slot k already kept
1143-1244  102    draft, own camp kept for column 1..3 so far (34 each, keeping order)
1245-1286  42     pending step: op one-hot (37 effect ops, then the internal ops play,
                  use, destroy, damage, resolve event; ``meeple_gym.radlands.effects.OPS`` order)
1287-1371  85     pending step: program of the innermost card program running, one-hot
                  (``effects.compile_programs`` numbering; program 0 means none)
1372-1377  6      pending step: step index in that program, one-hot
1378-1390  13     pending step: target kind one-hot (``effects.TARGETS``) of a DAMAGE,
                  DESTROY or RESTORE step, as seen by the decider
1391-1392  2      pending step's owner: observer, opponent (one-hot)
1393       1      pending step's stage (how far a multi-part op got, 0-4)
1394       1      pending step's count so far (Warehouse / Zeto / Mercenary discards,
                  High Ground moves)
1395-1412  18     pending step's source card, one-hot at (side*3 + c)*3 + i
1413-1430  18     person picked by Mimic / Adrenaline Lab / Parachute Base, same indexing
1431-1456  26     person type being played (play action, Parachute Base once picked)
1457-1485  29     High Ground: person being moved: present, type one-hot (26, face-up
                  only), punk, damaged
=========  =====  =========================================================================

The draft rows are zero outside the draft; the pending rows are zero outside the decision
phase. Sides, indices ``c`` and ``i`` and the revealed rows follow the state and action
layout of ``envs/radlands/rules.py`` (see docs/radlands.md).
"""

import numpy as np
from numba import prange, types

from meeple_gym.core.folding import Folding, observation_variant
from meeple_gym.core.jit import array_arg, kernel, parallel_kernel, standalone_kernel
from meeple_gym.radlands.effects import MAX_STEPS, OP, TARGETS
from meeple_gym.radlands.rules import (
    CAMP,
    CODE,
    COLS,
    DECK_SIZE,
    DECK_TYPE_COUNTS,
    DEPTH,
    I_PLAY,
    I_RESOLVE_EVENT,
    INTERNAL,
    N_CAMPS,
    N_DT,
    N_ET,
    N_PT,
    OP_ADRENALINE,
    OP_DAMAGE,
    OP_DESTROY,
    OP_DISCARD_HAND,
    OP_DRAW_2_DISCARD_1,
    OP_DRAW_DISCARD,
    OP_MERCENARY,
    OP_MILL_JUNK,
    OP_MIMIC,
    OP_PARACHUTE,
    OP_REARRANGE,
    OP_RESTORE,
    OP_WAREHOUSE,
    PERSON,
    PHASE_DECISION,
    PHASE_DRAFT,
    PHASE_OVER,
    RAIDERS,
    STATES,
    VERA_PER_CARD,
    ZETO_RESOLVED,
)

N_PHASES = 4
N_OPS = I_RESOLVE_EVENT + 1  # the table ops, then the kernel's internal ops
N_PROGRAMS = CODE.shape[0]
N_TARGET_KINDS = len(TARGETS)
WATER_CAP = 16  # the costliest payment is 6 (Parachute Base: play cost plus ability cost)
MAX_STAGE = 4  # Parachute Base's last stage
N_REVEALED = 4  # Interrogate draws 4

# ---- column block (relative offsets) -------------------------------------------------------
C_CAMP = 0
C_CAMP_DAMAGED = C_CAMP + N_CAMPS
C_CAMP_DESTROYED = C_CAMP_DAMAGED + 1
C_CAMP_USED = C_CAMP_DESTROYED + 1
C_CAMP_USED_ONCE = C_CAMP_USED + 1
C_CAMP_POS = C_CAMP_USED_ONCE + 1
C_PEOPLE = C_CAMP_POS + DEPTH
# person slot (relative to its start)
PB_PRESENT = 0
PB_TYPE = 1
PB_PUNK = PB_TYPE + N_PT
PB_DAMAGED = PB_PUNK + 1
PB_READY = PB_DAMAGED + 1
PB_USED_ONCE = PB_READY + 1
PERSON_BLOCK = PB_USED_ONCE + 1  # 31
COL_BLOCK = C_PEOPLE + (DEPTH - 1) * PERSON_BLOCK  # 103

# ---- side block (relative offsets) ---------------------------------------------------------
S_COLS = 0
S_QUEUE = S_COLS + COLS * COL_BLOCK
QUEUE_SLOT = N_ET + 1  # event types, then Raiders
S_SILO_IN_HAND = S_QUEUE + 3 * QUEUE_SLOT
S_HAND_SIZE = S_SILO_IN_HAND + 1
S_JUGGERNAUT = S_HAND_SIZE + 1
S_ENTERED = S_JUGGERNAUT + 1
S_RAIDERS_RESOLVED = S_ENTERED + 1
S_HIGH_GROUND = S_RAIDERS_RESOLVED + 1
S_TURN = S_HIGH_GROUND + 1
S_DECIDER = S_TURN + 1
S_FIRST = S_DECIDER + 1
SIDE_BLOCK = S_FIRST + 1  # 351

# ---- absolute offsets ----------------------------------------------------------------------
WATER = 2 * SIDE_BLOCK
DECK_N = WATER + 1
DISCARD_N = DECK_N + 1
DISCARD_TOP = DISCARD_N + 1
RESHUFFLED = DISCARD_TOP + N_DT
PHASE_ONEHOT = RESHUFFLED + 1
IN_EVENTS_PHASE = PHASE_ONEHOT + N_PHASES
EVENT_RESOLVED = IN_EVENTS_PHASE + 1
ZETO_USED = EVENT_RESOLVED + 1
VERA_USED = ZETO_USED + 1
OPTIONS = VERA_USED + 1
HAND = OPTIONS + 3
REVEALED = HAND + N_DT
OFFER = REVEALED + N_REVEALED * N_DT
KEPT = OFFER + 6 * N_CAMPS
PICKS = KEPT + 6
PEND_OP = PICKS + 3 * N_CAMPS
PEND_PROG = PEND_OP + N_OPS
PEND_PC = PEND_PROG + N_PROGRAMS
PEND_TARGET = PEND_PC + MAX_STEPS
PEND_OWNER = PEND_TARGET + N_TARGET_KINDS
PEND_STAGE = PEND_OWNER + 2
PEND_COUNT = PEND_STAGE + 1
PEND_SRC = PEND_COUNT + 1
PEND_THAT = PEND_SRC + 2 * COLS * DEPTH
PEND_PERSON = PEND_THAT + 2 * COLS * DEPTH
LIFT = PEND_PERSON + N_PT
LIFT_PRESENT = LIFT
LIFT_TYPE = LIFT + 1
LIFT_PUNK = LIFT_TYPE + N_PT
LIFT_DAMAGED = LIFT_PUNK + 1
OBS_SIZE = LIFT_DAMAGED + 1


@kernel
def _position(s, observer, uid):
    """Index (side*3 + c)*3 + i of the card ``uid`` from ``observer``'s view, or -1."""
    if uid <= 0:
        return -1
    for p in range(2):
        side = 0 if p == observer else 1
        for c in range(COLS):
            for i in range(s.col_len[p, c]):
                if s.ent_uid[p, c, i] == uid:
                    return (side * 3 + c) * 3 + i
    return -1


@kernel
def _encode_side(s, p, b, out):
    for c in range(COLS):
        cb = b + S_COLS + c * COL_BLOCK
        slot = 0
        for i in range(s.col_len[p, c]):
            if s.ent_kind[p, c, i] == CAMP:
                out[cb + C_CAMP + s.camp[p, c]] = 1.0
                state = s.camp_state[p, c]
                out[cb + C_CAMP_DAMAGED] = 1.0 if state == 1 else 0.0
                out[cb + C_CAMP_DESTROYED] = 1.0 if state == 2 else 0.0
                out[cb + C_CAMP_USED] = s.camp_used[p, c]
                out[cb + C_CAMP_USED_ONCE] = s.ent_used_once[p, c, i]
                out[cb + C_CAMP_POS + i] = 1.0
            elif s.ent_kind[p, c, i] == PERSON and slot < DEPTH - 1:
                pb = cb + C_PEOPLE + slot * PERSON_BLOCK
                slot += 1
                out[pb + PB_PRESENT] = 1.0
                if s.ent_punk[p, c, i] == 1:
                    out[pb + PB_PUNK] = 1.0  # RAD-K3: a punk's type is never shown
                else:
                    out[pb + PB_TYPE + s.ent_type[p, c, i]] = 1.0
                damaged = s.ent_damaged[p, c, i]
                out[pb + PB_DAMAGED] = damaged
                out[pb + PB_READY] = 1.0 if damaged == 0 and s.ent_not_ready[p, c, i] == 0 else 0.0
                out[pb + PB_USED_ONCE] = s.ent_used_once[p, c, i]
    for j in range(3):
        e = s.queue[p, j]
        if e >= 0:
            code = N_ET if e == RAIDERS else e - N_PT
            out[b + S_QUEUE + j * QUEUE_SLOT + code] = 1.0
    out[b + S_SILO_IN_HAND] = s.silo_in_hand[p]
    size = 0
    for t in range(N_DT):
        size += s.hand[p, t]
    out[b + S_HAND_SIZE] = size  # the size is public, the contents are not (RAD-G4)
    out[b + S_JUGGERNAUT] = s.juggernaut_moves[p]
    out[b + S_ENTERED] = min(max(s.entered_this_turn[p], 0), 2)
    out[b + S_RAIDERS_RESOLVED] = s.raiders_resolved[p]
    out[b + S_HIGH_GROUND] = s.high_ground[p]


@kernel
def _encode_pending(s, player, out):
    d = s.depth - 1
    if d < 0:
        return
    prog = s.fr_prog[d]
    if prog == INTERNAL:
        op = s.fr_op[d]
    else:
        op = CODE[prog, s.fr_pc[d], 0]
    out[PEND_OP + op] = 1.0
    # the innermost card program: which card's text is resolving, and at which step
    for k in range(d, -1, -1):
        if s.fr_prog[k] != INTERNAL:
            out[PEND_PROG + s.fr_prog[k]] = 1.0
            if k == d:
                out[PEND_PC + s.fr_pc[k]] = 1.0
            break
    if prog != INTERNAL and (op == OP_DAMAGE or op == OP_DESTROY or op == OP_RESTORE):
        out[PEND_TARGET + CODE[prog, s.fr_pc[d], 1]] = 1.0
    owner = s.fr_owner[d]
    out[PEND_OWNER + (0 if owner == player else 1)] = 1.0
    stage = s.fr_stage[d]
    out[PEND_STAGE] = stage
    if op == OP_WAREHOUSE or op == OP_DISCARD_HAND or op == OP_MERCENARY or op == OP_REARRANGE:
        out[PEND_COUNT] = s.fr_aux[d]
    pos = _position(s, player, s.fr_src[d])
    if pos >= 0:
        out[PEND_SRC + pos] = 1.0
    if op == OP_MIMIC or op == OP_ADRENALINE or op == OP_PARACHUTE:
        pos = _position(s, player, s.fr_that[d])
        if pos >= 0 and stage >= 1:
            out[PEND_THAT + pos] = 1.0
    if op == I_PLAY:
        out[PEND_PERSON + s.fr_arg[d]] = 1.0  # a played card is shown to the table
    elif op == OP_PARACHUTE and stage >= 1:
        out[PEND_PERSON + s.fr_aux[d]] = 1.0
    if op == OP_REARRANGE and s.lift_uid != 0:
        out[LIFT_PRESENT] = 1.0
        if s.lift_punk == 1:
            out[LIFT_PUNK] = 1.0
        else:
            out[LIFT_TYPE + s.lift_type] = 1.0
        out[LIFT_DAMAGED] = s.lift_damaged
    # Cards drawn or milled for a keep / discard choice: only their owner looks at them.
    if owner == player and (
        op == OP_MILL_JUNK or op == OP_DRAW_DISCARD or op == OP_DRAW_2_DISCARD_1
    ):
        for k in range(min(s.revealed_n, N_REVEALED)):
            out[REVEALED + k * N_DT + s.revealed[k]] = 1.0


@standalone_kernel(STATES, types.int64, types.int64, array_arg(np.float32))
def encode_into(states, g, player, out):
    """Write the observation of ``player`` in game ``g`` into ``out`` (float32, OBS_SIZE)."""
    s = states[g]
    out[:] = 0.0
    over = s.phase == PHASE_OVER
    draft = s.phase == PHASE_DRAFT
    for side in range(2):
        p = player if side == 0 else 1 - player
        b = side * SIDE_BLOCK
        _encode_side(s, p, b, out)
        out[b + S_TURN] = 1.0 if not draft and s.turn_player == p else 0.0
        out[b + S_DECIDER] = 1.0 if not over and s.current_player == p else 0.0
        out[b + S_FIRST] = 1.0 if not draft and s.first_player == p else 0.0
    out[WATER] = min(max(s.water, 0), WATER_CAP)
    out[DECK_N] = s.deck_n
    out[DISCARD_N] = s.discard_n
    if s.discard_n > 0:
        out[DISCARD_TOP + s.discard[s.discard_n - 1]] = 1.0
    out[RESHUFFLED] = s.reshuffled
    out[PHASE_ONEHOT + s.phase] = 1.0
    out[IN_EVENTS_PHASE] = s.in_events_phase
    out[EVENT_RESOLVED] = s.event_resolved
    out[ZETO_USED] = s.zeto_used
    out[VERA_USED] = s.vera_used
    out[OPTIONS + 0] = 1.0 if s.opt_raiders_slot == 2 else 0.0
    out[OPTIONS + 1] = 1.0 if s.opt_vera == VERA_PER_CARD else 0.0
    out[OPTIONS + 2] = 1.0 if s.opt_zeto == ZETO_RESOLVED else 0.0
    for t in range(N_DT):
        out[HAND + t] = s.hand[player, t]
    if draft:
        # RAD-S3: own offer and own picks only; the opponent's stay hidden until the reveal.
        for k in range(6):
            camp = s.offer[player, k]
            if camp >= 0:
                out[OFFER + k * N_CAMPS + camp] = 1.0
            out[KEPT + k] = s.kept[player, k]
        for c in range(min(s.kept_n[player], 3)):
            out[PICKS + c * N_CAMPS + s.camp[player, c]] = 1.0
    if s.phase == PHASE_DECISION:
        _encode_pending(s, player, out)


@parallel_kernel
def encode_batch(states, players, out):
    """``out[g]`` = observation of ``players[g]`` in game ``g``, for every game."""
    for g in prange(states.shape[0]):
        encode_into(states, g, players[g], out[g])


def observation_space_bounds():
    """``(low, high)`` float32 arrays of shape (OBS_SIZE,) containing every observation.

    Bounds: flags and one-hots 1. Hand counts per type at most that type's copies, hand size,
    deck and discard sizes at most the 66 draw-deck cards (every copy is in exactly one place).
    Water is capped at ``WATER_CAP``; Juggernaut moves at most 2 (the third resets them);
    people entered capped at 2; stage at most 4; a pending count is a number of discarded
    cards (at most the deck's 66) or of High Ground moves (at most 6).
    """
    low = np.zeros(OBS_SIZE, dtype=np.float32)
    high = np.ones(OBS_SIZE, dtype=np.float32)
    for side in range(2):
        b = side * SIDE_BLOCK
        high[b + S_HAND_SIZE] = DECK_SIZE
        high[b + S_JUGGERNAUT] = 2
        high[b + S_ENTERED] = 2
    high[WATER] = WATER_CAP
    high[DECK_N] = DECK_SIZE
    high[DISCARD_N] = DECK_SIZE
    high[HAND : HAND + N_DT] = DECK_TYPE_COUNTS
    high[PEND_STAGE] = MAX_STAGE
    high[PEND_COUNT] = DECK_SIZE
    return low, high


# Module-level copies for building a gymnasium ``Box(OBS_LOW, OBS_HIGH)``; read-only.
OBS_LOW, OBS_HIGH = observation_space_bounds()
OBS_LOW.setflags(write=False)
OBS_HIGH.setflags(write=False)

assert len(OP) + 5 == N_OPS, "the internal ops follow the table ops"


# ---- compact observation (``observation="compact"``) -----------------------------------------
# The same information in 214 floats instead of 1486: every one-hot block of the full vector
# becomes one categorical code (index + 1, 0 = none), everything else is copied, in the same
# order. Codes: camp id, camp's index in its column, person type (0 for a punk: RAD-K3), queued
# event (1-10 event types, 11 Raiders), discard top and revealed cards (deck type), phase,
# offered and kept camps, pending op, program, step, target kind, owner (1 observer, 2
# opponent), source and picked card ((side*3 + c)*3 + i), person type being played or moved.
# ``compact_from_full`` maps one vector to the other exactly (the test's slow reference). Codes
# are categories, not magnitudes: embed them (or one-hot them in the model) rather than scale.
def _one_hot_blocks():
    """(start, length) of every one-hot block of the full vector, in order."""
    blocks = []
    for side in range(2):
        for c in range(COLS):
            cb = side * SIDE_BLOCK + S_COLS + c * COL_BLOCK
            blocks += [(cb + C_CAMP, N_CAMPS), (cb + C_CAMP_POS, DEPTH)]
            for j in range(DEPTH - 1):
                blocks.append((cb + C_PEOPLE + j * PERSON_BLOCK + PB_TYPE, N_PT))
        blocks += [(side * SIDE_BLOCK + S_QUEUE + j * QUEUE_SLOT, QUEUE_SLOT) for j in range(3)]
    blocks += [(DISCARD_TOP, N_DT), (PHASE_ONEHOT, N_PHASES)]
    blocks += [(REVEALED + k * N_DT, N_DT) for k in range(N_REVEALED)]
    blocks += [(OFFER + k * N_CAMPS, N_CAMPS) for k in range(6)]
    blocks += [(PICKS + c * N_CAMPS, N_CAMPS) for c in range(3)]
    blocks += [
        (PEND_OP, N_OPS),
        (PEND_PROG, N_PROGRAMS),
        (PEND_PC, MAX_STEPS),
        (PEND_TARGET, N_TARGET_KINDS),
        (PEND_OWNER, 2),
        (PEND_SRC, 2 * COLS * DEPTH),
        (PEND_THAT, 2 * COLS * DEPTH),
        (PEND_PERSON, N_PT),
        (LIFT_TYPE, N_PT),
    ]
    return blocks


ONE_HOT_BLOCKS = _one_hot_blocks()
FOLDING = Folding(OBS_SIZE, ONE_HOT_BLOCKS)
compact_offset = FOLDING.offset  # where a full offset's entry (or block code) sits compactly


# Column block, person slot and side block of the compact layout (relative offsets).
K_CAMP = 0  # camp id + 1
K_CAMP_DAMAGED = 1
K_CAMP_DESTROYED = 2
K_CAMP_USED = 3
K_CAMP_USED_ONCE = 4
K_CAMP_POS = 5  # the camp's index in its column + 1
K_PEOPLE = 6
KB_PRESENT = 0
KB_TYPE = 1  # person type + 1; 0 for a punk
KB_PUNK = 2
KB_DAMAGED = 3
KB_READY = 4
KB_USED_ONCE = 5
K_PERSON_BLOCK = 6
K_COL_BLOCK = K_PEOPLE + (DEPTH - 1) * K_PERSON_BLOCK  # 18
K_QUEUE = COLS * K_COL_BLOCK  # 3 codes: event type + 1, or N_ET + 1 for Raiders
K_SILO_IN_HAND = K_QUEUE + 3
K_HAND_SIZE = K_SILO_IN_HAND + 1
K_JUGGERNAUT = K_HAND_SIZE + 1
K_ENTERED = K_JUGGERNAUT + 1
K_RAIDERS_RESOLVED = K_ENTERED + 1
K_HIGH_GROUND = K_RAIDERS_RESOLVED + 1
K_TURN = K_HIGH_GROUND + 1
K_DECIDER = K_TURN + 1
K_FIRST = K_DECIDER + 1
K_SIDE_BLOCK = K_FIRST + 1  # 66
# Absolute offsets.
K_WATER = compact_offset(WATER)
K_DECK_N = K_WATER + 1
K_DISCARD_N = K_DECK_N + 1
K_DISCARD_TOP = K_DISCARD_N + 1  # deck type + 1
K_RESHUFFLED = K_DISCARD_TOP + 1
K_PHASE = K_RESHUFFLED + 1  # phase + 1
K_IN_EVENTS_PHASE = K_PHASE + 1
K_EVENT_RESOLVED = K_IN_EVENTS_PHASE + 1
K_ZETO_USED = K_EVENT_RESOLVED + 1
K_VERA_USED = K_ZETO_USED + 1
K_OPTIONS = K_VERA_USED + 1
K_HAND = K_OPTIONS + 3
K_REVEALED = K_HAND + N_DT  # 4 codes: deck type + 1
K_OFFER = K_REVEALED + N_REVEALED  # 6 codes: camp id + 1
K_KEPT = K_OFFER + 6
K_PICKS = K_KEPT + 6  # 3 codes: camp id + 1
K_PEND_OP = K_PICKS + 3
K_PEND_PROG = K_PEND_OP + 1
K_PEND_PC = K_PEND_PROG + 1
K_PEND_TARGET = K_PEND_PC + 1
K_PEND_OWNER = K_PEND_TARGET + 1
K_PEND_STAGE = K_PEND_OWNER + 1
K_PEND_COUNT = K_PEND_STAGE + 1
K_PEND_SRC = K_PEND_COUNT + 1
K_PEND_THAT = K_PEND_SRC + 1
K_PEND_PERSON = K_PEND_THAT + 1
K_LIFT_PRESENT = K_PEND_PERSON + 1
K_LIFT_TYPE = K_LIFT_PRESENT + 1
K_LIFT_PUNK = K_LIFT_TYPE + 1
K_LIFT_DAMAGED = K_LIFT_PUNK + 1
COMPACT_OBS_SIZE = K_LIFT_DAMAGED + 1  # 214

# The hand-written offsets above are the generic mapping's (the full layout, one-hots folded).
assert COMPACT_OBS_SIZE == compact_offset(OBS_SIZE)
assert K_SIDE_BLOCK == compact_offset(SIDE_BLOCK)
assert K_COL_BLOCK == compact_offset(COL_BLOCK)
assert K_QUEUE == compact_offset(S_QUEUE) and K_FIRST == compact_offset(S_FIRST)
assert K_LIFT_TYPE == compact_offset(LIFT_TYPE) and K_PEND_OP == compact_offset(PEND_OP)
assert (K_CAMP_POS, K_PEOPLE) == (compact_offset(C_CAMP_POS), compact_offset(C_PEOPLE))
assert K_PERSON_BLOCK == compact_offset(C_PEOPLE + PERSON_BLOCK) - K_PEOPLE


@kernel
def _compact_side(s, p, b, out):
    """``_encode_side`` in the compact layout: same entries, one-hots as codes."""
    for c in range(COLS):
        cb = b + c * K_COL_BLOCK
        out[cb : cb + K_COL_BLOCK] = 0.0
        slot = 0
        for i in range(s.col_len[p, c]):
            if s.ent_kind[p, c, i] == CAMP:
                out[cb + K_CAMP] = s.camp[p, c] + 1
                state = s.camp_state[p, c]
                out[cb + K_CAMP_DAMAGED] = 1.0 if state == 1 else 0.0
                out[cb + K_CAMP_DESTROYED] = 1.0 if state == 2 else 0.0
                out[cb + K_CAMP_USED] = s.camp_used[p, c]
                out[cb + K_CAMP_USED_ONCE] = s.ent_used_once[p, c, i]
                out[cb + K_CAMP_POS] = i + 1
            elif s.ent_kind[p, c, i] == PERSON and slot < DEPTH - 1:
                pb = cb + K_PEOPLE + slot * K_PERSON_BLOCK
                slot += 1
                out[pb + KB_PRESENT] = 1.0
                if s.ent_punk[p, c, i] == 1:
                    out[pb + KB_PUNK] = 1.0  # RAD-K3: a punk's type is never shown
                else:
                    out[pb + KB_TYPE] = s.ent_type[p, c, i] + 1
                damaged = s.ent_damaged[p, c, i]
                out[pb + KB_DAMAGED] = damaged
                out[pb + KB_READY] = 1.0 if damaged == 0 and s.ent_not_ready[p, c, i] == 0 else 0.0
                out[pb + KB_USED_ONCE] = s.ent_used_once[p, c, i]
    for j in range(3):
        e = s.queue[p, j]
        code = 0
        if e >= 0:
            code = N_ET + 1 if e == RAIDERS else e - N_PT + 1
        out[b + K_QUEUE + j] = code
    out[b + K_SILO_IN_HAND] = s.silo_in_hand[p]
    size = 0
    for t in range(N_DT):
        size += s.hand[p, t]
    out[b + K_HAND_SIZE] = size  # the size is public, the contents are not (RAD-G4)
    out[b + K_JUGGERNAUT] = s.juggernaut_moves[p]
    out[b + K_ENTERED] = min(max(s.entered_this_turn[p], 0), 2)
    out[b + K_RAIDERS_RESOLVED] = s.raiders_resolved[p]
    out[b + K_HIGH_GROUND] = s.high_ground[p]


@kernel
def _compact_pending(s, player, out):
    """``_encode_pending`` in the compact layout (the pending rows start zeroed)."""
    d = s.depth - 1
    if d < 0:
        return
    prog = s.fr_prog[d]
    if prog == INTERNAL:
        op = s.fr_op[d]
    else:
        op = CODE[prog, s.fr_pc[d], 0]
    out[K_PEND_OP] = op + 1
    for k in range(d, -1, -1):
        if s.fr_prog[k] != INTERNAL:
            out[K_PEND_PROG] = s.fr_prog[k] + 1
            if k == d:
                out[K_PEND_PC] = s.fr_pc[k] + 1
            break
    if prog != INTERNAL and (op == OP_DAMAGE or op == OP_DESTROY or op == OP_RESTORE):
        out[K_PEND_TARGET] = CODE[prog, s.fr_pc[d], 1] + 1
    owner = s.fr_owner[d]
    out[K_PEND_OWNER] = 1 if owner == player else 2
    stage = s.fr_stage[d]
    out[K_PEND_STAGE] = stage
    if op == OP_WAREHOUSE or op == OP_DISCARD_HAND or op == OP_MERCENARY or op == OP_REARRANGE:
        out[K_PEND_COUNT] = s.fr_aux[d]
    out[K_PEND_SRC] = _position(s, player, s.fr_src[d]) + 1
    if op == OP_MIMIC or op == OP_ADRENALINE or op == OP_PARACHUTE:
        pos = _position(s, player, s.fr_that[d])
        if pos >= 0 and stage >= 1:
            out[K_PEND_THAT] = pos + 1
    if op == I_PLAY:
        out[K_PEND_PERSON] = s.fr_arg[d] + 1  # a played card is shown to the table
    elif op == OP_PARACHUTE and stage >= 1:
        out[K_PEND_PERSON] = s.fr_aux[d] + 1
    if op == OP_REARRANGE and s.lift_uid != 0:
        out[K_LIFT_PRESENT] = 1.0
        if s.lift_punk == 1:
            out[K_LIFT_PUNK] = 1.0
        else:
            out[K_LIFT_TYPE] = s.lift_type + 1
        out[K_LIFT_DAMAGED] = s.lift_damaged
    # Cards drawn or milled for a keep / discard choice: only their owner looks at them.
    if owner == player and (
        op == OP_MILL_JUNK or op == OP_DRAW_DISCARD or op == OP_DRAW_2_DISCARD_1
    ):
        for k in range(min(s.revealed_n, N_REVEALED)):
            out[K_REVEALED + k] = s.revealed[k] + 1


@standalone_kernel(STATES, types.int64, types.int64, array_arg(np.float32))
def encode_compact_into(states, g, player, out):
    """The compact observation of ``player`` in game ``g`` into ``out`` (COMPACT_OBS_SIZE)."""
    s = states[g]
    over = s.phase == PHASE_OVER
    draft = s.phase == PHASE_DRAFT
    for side in range(2):
        p = player if side == 0 else 1 - player
        b = side * K_SIDE_BLOCK
        _compact_side(s, p, b, out)
        out[b + K_TURN] = 1.0 if not draft and s.turn_player == p else 0.0
        out[b + K_DECIDER] = 1.0 if not over and s.current_player == p else 0.0
        out[b + K_FIRST] = 1.0 if not draft and s.first_player == p else 0.0
    out[K_WATER] = min(max(s.water, 0), WATER_CAP)
    out[K_DECK_N] = s.deck_n
    out[K_DISCARD_N] = s.discard_n
    out[K_DISCARD_TOP] = s.discard[s.discard_n - 1] + 1 if s.discard_n > 0 else 0
    out[K_RESHUFFLED] = s.reshuffled
    out[K_PHASE] = s.phase + 1
    out[K_IN_EVENTS_PHASE] = s.in_events_phase
    out[K_EVENT_RESOLVED] = s.event_resolved
    out[K_ZETO_USED] = s.zeto_used
    out[K_VERA_USED] = s.vera_used
    out[K_OPTIONS + 0] = 1.0 if s.opt_raiders_slot == 2 else 0.0
    out[K_OPTIONS + 1] = 1.0 if s.opt_vera == VERA_PER_CARD else 0.0
    out[K_OPTIONS + 2] = 1.0 if s.opt_zeto == ZETO_RESOLVED else 0.0
    for t in range(N_DT):
        out[K_HAND + t] = s.hand[player, t]
    out[K_REVEALED:COMPACT_OBS_SIZE] = 0.0
    if draft:
        # RAD-S3: own offer and own picks only; the opponent's stay hidden until the reveal.
        for k in range(6):
            out[K_OFFER + k] = s.offer[player, k] + 1  # -1 (taken from the offer): 0
            out[K_KEPT + k] = s.kept[player, k]
        for c in range(min(s.kept_n[player], 3)):
            out[K_PICKS + c] = s.camp[player, c] + 1
    if s.phase == PHASE_DECISION:
        _compact_pending(s, player, out)


@parallel_kernel
def encode_compact_batch(states, players, out):
    """``out[g]`` = compact observation of ``players[g]`` in game ``g``, for every game."""
    for g in prange(states.shape[0]):
        encode_compact_into(states, g, players[g], out[g])


compact_from_full = FOLDING.fold  # the slow reference of the compact kernel
# Bounds of the compact vector: the full vector's caps, and each code's number of categories.
COMPACT_OBS_LOW, COMPACT_OBS_HIGH = FOLDING.bounds(OBS_HIGH)
# ``GameSpec.observations["compact"]`` (envs/radlands/spec.py): what the compact spec reads.
COMPACT = observation_variant(encode_compact_into, encode_compact_batch, COMPACT_OBS_HIGH)


# ---- the decoded board (the search's play-outs) ----------------------------------------------
# The heuristic (baselines/radlands_heuristic.py) reads an observation by decoding it into a
# record of named fields (its "board"). ``encode_view`` writes those fields straight from the
# game's record, seen from ``player``: the same values as decoding the compact vector
# (tests/test_search_speedups.py), without the 214 floats between (benchmarks/README.md,
# "Play-outs read a view"). Side 0 is the observer's, side 1 the opponent's.
#
# Fields per side and column: camp (id, -1 none), cstate (0 intact, 1 damaged, 2 destroyed),
# cpos (the camp's index), clen (cards shown), and per position kind (0 empty, 1 camp,
# 2 person), typ (camp id or person type, -1 for a punk: RAD-K3), dmg, ready; per side:
# queue (event type, ``N_ET`` for the Raiders, -1), people, punks, alive (camps standing),
# hand_n, entered, raiders_resolved, jug; the observer's hand, High Ground and Water Silo;
# water, deck_n, reshuffled, event_resolved, raiders_slot, phase; the draft's offer and the
# pending decision's op, prog, pc, src, that, person, lift and revealed cards (-1 when absent).
@kernel
def _view_side(s, p, side, b):
    people = punks = alive = 0
    for c in range(COLS):
        has_camp = False
        camp = -1
        pos = 0
        state = 0
        # The entries of the first two people (the compact vector shows DEPTH - 1 = 2).
        first = second = -1
        for i in range(s.col_len[p, c]):
            if s.ent_kind[p, c, i] == CAMP:
                has_camp = True
                camp = s.camp[p, c]
                state = s.camp_state[p, c]
                pos = i
            elif s.ent_kind[p, c, i] == PERSON:
                if first < 0:
                    first = i
                elif second < 0:
                    second = i
        shown = (first >= 0) + (second >= 0)
        b.camp[side, c] = camp
        b.cstate[side, c] = state if has_camp and (state == 1 or state == 2) else 0
        if camp >= 0 and b.cstate[side, c] < 2:
            alive += 1
        b.cpos[side, c] = pos
        n = shown + (1 if camp >= 0 else 0)
        b.clen[side, c] = n
        slot = 0
        for i in range(3):
            b.kind[side, c, i] = 0
            b.typ[side, c, i] = -1
            b.dmg[side, c, i] = 0
            b.ready[side, c, i] = 0
            if i >= n:
                continue
            if camp >= 0 and i == pos:
                b.kind[side, c, i] = 1
                b.typ[side, c, i] = camp
                b.ready[side, c, i] = 1 if s.camp_used[p, c] == 0 else 0
                continue
            k = first if slot == 0 else second
            slot += 1
            b.kind[side, c, i] = 2
            people += 1
            if s.ent_punk[p, c, k] == 1:
                punks += 1
            else:
                b.typ[side, c, i] = s.ent_type[p, c, k]
            damaged = s.ent_damaged[p, c, k] != 0
            b.dmg[side, c, i] = 1 if damaged else 0
            b.ready[side, c, i] = 1 if not damaged and s.ent_not_ready[p, c, k] == 0 else 0
    b.people[side] = people
    b.punks[side] = punks
    b.alive[side] = alive
    for j in range(3):
        e = s.queue[p, j]
        b.queue[side, j] = -1 if e < 0 else (N_ET if e == RAIDERS else e - N_PT)
    size = 0
    for t in range(N_DT):
        size += s.hand[p, t]
    b.hand_n[side] = size
    b.entered[side] = min(max(s.entered_this_turn[p], 0), 2)
    b.raiders_resolved[side] = s.raiders_resolved[p]
    b.jug[side] = s.juggernaut_moves[p]


@kernel
def _view_pending(s, player, b):
    d = s.depth - 1
    if d < 0:
        return
    prog = s.fr_prog[d]
    op = s.fr_op[d] if prog == INTERNAL else CODE[prog, s.fr_pc[d], 0]
    b.op = op
    for k in range(d, -1, -1):
        if s.fr_prog[k] != INTERNAL:
            b.prog = s.fr_prog[k]
            if k == d:
                b.pc = s.fr_pc[k]
            break
    stage = s.fr_stage[d]
    b.src = _position(s, player, s.fr_src[d])
    if op == OP_MIMIC or op == OP_ADRENALINE or op == OP_PARACHUTE:
        pos = _position(s, player, s.fr_that[d])
        if pos >= 0 and stage >= 1:
            b.that = pos
    if op == I_PLAY:
        b.person = s.fr_arg[d]
    elif op == OP_PARACHUTE and stage >= 1:
        b.person = s.fr_aux[d]
    if op == OP_REARRANGE and s.lift_uid != 0 and s.lift_punk != 1:
        b.lift = s.lift_type
    if s.fr_owner[d] == player and (
        op == OP_MILL_JUNK or op == OP_DRAW_DISCARD or op == OP_DRAW_2_DISCARD_1
    ):
        for k in range(min(s.revealed_n, N_REVEALED)):
            b.revealed[k] = s.revealed[k]


@kernel
def encode_view(s, player, b):
    for side in range(2):
        _view_side(s, player if side == 0 else 1 - player, side, b)
    for t in range(N_DT):
        b.hand[t] = s.hand[player, t]
    b.high_ground = s.high_ground[player]
    b.silo = s.silo_in_hand[player]
    b.water = min(max(s.water, 0), WATER_CAP)
    b.deck_n = s.deck_n
    b.reshuffled = s.reshuffled
    b.event_resolved = s.event_resolved
    b.raiders_slot = 2 if s.opt_raiders_slot == 2 else 3
    b.phase = s.phase
    for k in range(6):
        b.offer[k] = -1
    b.op = -1
    b.prog = -1
    b.pc = -1
    b.src = -1
    b.that = -1
    b.person = -1
    b.lift = -1
    for k in range(N_REVEALED):
        b.revealed[k] = -1
    if s.phase == PHASE_DRAFT:
        for k in range(6):
            b.offer[k] = s.offer[player, k]  # -1: taken from the offer
    elif s.phase == PHASE_DECISION:
        _view_pending(s, player, b)
