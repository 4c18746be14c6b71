"""Radlands rules as Numba kernels over one structured record per game (2 players).

The contract (board model, RNG order, decisions, action layout, options) is docs/radlands.md.
Card effects are the bytecode programs of ``envs/radlands/effects.py``; this module is the
machine that runs them. Its parts:

- board helpers: columns as ordered entity lists, protection, placement, damage/destroy;
- a small VM: a stack of frames, each running one program (or one internal op) for an owner
  and a source card; an op that needs a choice stores the legal actions in ``pend_mask`` and
  returns; the next action resumes the same op (``fr_stage`` tells how far it got);
- the turn: draft, events phase, replenish, the actions menu, end of turn.

Cards on the board carry a ``uid`` (camps 1..6, people from 7 up) so that programs can refer
to "this card" or "that person" even after columns slide.
"""

import numpy as np
from numba import types

from meeple_gym.core.jit import array_arg, kernel, record_arg, standalone_kernel
from meeple_gym.core.records import clear_record, copy_values
from meeple_gym.core.rng import randint, shuffle
from meeple_gym.core.stepping import batch_kernels
from meeple_gym.radlands import data as D
from meeple_gym.radlands.effects import CONDITION, OP, SET, TARGET, compile_programs

# ---- tables ---------------------------------------------------------------------------------
_PROGRAMS = compile_programs()
CODE = _PROGRAMS["code"]
LENGTH = _PROGRAMS["length"]
PERSON_PROG = _PROGRAMS["person_ability"]
CAMP_PROG = _PROGRAMS["camp_ability"]
EVENT_PROG = _PROGRAMS["event"]
JUNK_PROG = _PROGRAMS["junk"]
ENTER_PROG = _PROGRAMS["enter_play"]
RAIDERS_PROG = int(_PROGRAMS["raiders"])

N_CAMPS = D.N_CAMPS
N_PT = D.N_PERSON_TYPES
N_ET = D.N_EVENT_TYPES
N_DT = D.N_DECK_TYPES
DECK_SIZE = D.DECK_SIZE
FIRST_EVENT = D.FIRST_EVENT_TYPE
RAIDERS = N_DT  # queue code of a player's Raiders
PERSON_COST = D.PERSON_COST.astype(np.int16)
PERSON_ABILITY_COST = D.PERSON_ABILITY_COST.astype(np.int16)
PERSON_N_ABILITIES = D.PERSON_N_ABILITIES.astype(np.int8)
CAMP_ABILITY_COST = D.CAMP_ABILITY_COST.astype(np.int16)
CAMP_N_ABILITIES = D.CAMP_N_ABILITIES.astype(np.int8)
CAMP_DRAW = D.CAMP_DRAW.astype(np.int8)
EVENT_COST = D.EVENT_COST.astype(np.int16)
EVENT_BOMB = D.EVENT_BOMB.astype(np.int8)
DECK_TYPE_JUNK = D.DECK_TYPE_JUNK.astype(np.int8)
DECK_TYPE_COUNTS = D.DECK_TYPE_COUNTS.astype(np.int8)
FIRST_GAME = np.array([D.FIRST_GAME_A, D.FIRST_GAME_B], np.int8)
VARIABLE = D.VARIABLE_COST

# camps and people whose traits the kernel checks by id
C_BONFIRE = D.CAMP_ID["bonfire"]
C_COMMAND_POST = D.CAMP_ID["command_post"]
C_JUGGERNAUT = D.CAMP_ID["juggernaut"]
C_OASIS = D.CAMP_ID["oasis"]
C_OBELISK = D.CAMP_ID["obelisk"]
C_PILLBOX = D.CAMP_ID["pillbox"]
C_CONSTRUCTION_YARD = D.CAMP_ID["construction_yard"]
P_ARGO = D.PERSON_ID["argo_yesky"]
P_HOLDOUT = D.PERSON_ID["holdout"]
P_KARLI = D.PERSON_ID["karli_blaze"]
P_RESCUE_TEAM = D.PERSON_ID["rescue_team"]
P_VERA = D.PERSON_ID["vera_vosh"]
P_ZETO = D.PERSON_ID["zeto_khan"]
ARGO_PROG = int(PERSON_PROG[P_ARGO, 0])
ARGO_COST = int(PERSON_ABILITY_COST[P_ARGO, 0])

# Numba cannot read dicts: the effect vocabulary as plain int constants.
OP_ADRENALINE = OP["ADRENALINE"]
OP_ADVANCE_EVENT = OP["ADVANCE_EVENT"]
OP_AND_OR = OP["AND_OR"]
OP_BOMBARD_DRAW = OP["BOMBARD_DRAW"]
OP_CHOOSE = OP["CHOOSE"]
OP_COLUMN_DAMAGE = OP["COLUMN_DAMAGE"]
OP_COLUMN_DESTROY_PEOPLE = OP["COLUMN_DESTROY_PEOPLE"]
OP_DAMAGE = OP["DAMAGE"]
OP_DAMAGE_SET = OP["DAMAGE_SET"]
OP_DESTROY = OP["DESTROY"]
OP_DESTROY_SET = OP["DESTROY_SET"]
OP_DISCARD_HAND = OP["DISCARD_HAND"]
OP_DRAW = OP["DRAW"]
OP_DRAW_2_DISCARD_1 = OP["DRAW_2_DISCARD_1"]
OP_DRAW_DISCARD = OP["DRAW_DISCARD"]
OP_FAMINE = OP["FAMINE"]
OP_FLIP_PUNK = OP["FLIP_PUNK"]
OP_GAIN_PUNK = OP["GAIN_PUNK"]
OP_HIGH_GROUND = OP["HIGH_GROUND"]
OP_IF = OP["IF"]
OP_JUGGERNAUT = OP["JUGGERNAUT"]
OP_MERCENARY = OP["MERCENARY"]
OP_MILL_JUNK = OP["MILL_JUNK"]
OP_MIMIC = OP["MIMIC"]
OP_OCTAGON = OP["OCTAGON"]
OP_PARACHUTE = OP["PARACHUTE"]
OP_PUSH_BACK = OP["PUSH_BACK"]
OP_RAID = OP["RAID"]
OP_REARRANGE = OP["REARRANGE"]
OP_REBUILD = OP["REBUILD"]
OP_RESTORE = OP["RESTORE"]
OP_RESTORE_MANY = OP["RESTORE_MANY"]
OP_RESTORE_READY = OP["RESTORE_READY"]
OP_RETURN_TO_HAND = OP["RETURN_TO_HAND"]
OP_TRUCE = OP["TRUCE"]
OP_WAREHOUSE = OP["WAREHOUSE"]
OP_WATER = OP["WATER"]
T_ANY_ENEMY_CAMP = TARGET["ANY_ENEMY_CAMP"]
T_ANY_ENEMY_CARD = TARGET["ANY_ENEMY_CARD"]
T_ANY_ENEMY_PERSON = TARGET["ANY_ENEMY_PERSON"]
T_OWN_CAMP = TARGET["OWN_CAMP"]
T_OWN_CARD = TARGET["OWN_CARD"]
T_OWN_DAMAGED_CARD = TARGET["OWN_DAMAGED_CARD"]
T_OWN_DAMAGED_PERSON = TARGET["OWN_DAMAGED_PERSON"]
T_OWN_PERSON = TARGET["OWN_PERSON"]
T_SELF = TARGET["SELF"]
T_UNPROT_DAMAGED_ENEMY_CARD = TARGET["UNPROT_DAMAGED_ENEMY_CARD"]
T_UNPROT_ENEMY_CAMP = TARGET["UNPROT_ENEMY_CAMP"]
T_UNPROT_ENEMY_CARD = TARGET["UNPROT_ENEMY_CARD"]
T_UNPROT_ENEMY_PERSON = TARGET["UNPROT_ENEMY_PERSON"]
SET_ALL_DAMAGED_ENEMY_PEOPLE = SET["ALL_DAMAGED_ENEMY_PEOPLE"]
SET_ALL_ENEMY_CAMPS = SET["ALL_ENEMY_CAMPS"]
SET_ALL_UNPROT_ENEMY_PEOPLE = SET["ALL_UNPROT_ENEMY_PEOPLE"]
COND_ANY_EVENT_RESOLVED = CONDITION["ANY_EVENT_RESOLVED"]
COND_ENTERED_THIS_TURN_AT_LEAST_2 = CONDITION["ENTERED_THIS_TURN_AT_LEAST_2"]
COND_OPPONENT_HAS_EVENT = CONDITION["OPPONENT_HAS_EVENT"]
COND_OWN_PEOPLE_AT_MOST_1 = CONDITION["OWN_PEOPLE_AT_MOST_1"]
COND_OWN_PUNK = CONDITION["OWN_PUNK"]
COND_OWN_RAIDERS_RESOLVED = CONDITION["OWN_RAIDERS_RESOLVED"]
COND_PREVIOUS_HIT_CAMP = CONDITION["PREVIOUS_HIT_CAMP"]

# ---- sizes and codes ------------------------------------------------------------------------
N_PLAYERS = 2
COLS = 3
DEPTH = 3  # entities per column: the camp and at most 2 people (RAD-B2)
MAX_FRAMES = 10
STEP_CAP = 20000  # sub-decisions; a game past it is truncated (no RAD rule: engine safety)
MAX_REARRANGE = 6  # High Ground moves before the rearrangement ends by itself
ENTERED_CAP = 100  # people entered this turn are counted up to here (only >= 2 matters)

EMPTY, CAMP, PERSON = 0, 1, 2
PHASE_DRAFT, PHASE_ACTIONS, PHASE_DECISION, PHASE_OVER = range(4)
PHASE_NAMES = ("draft", "actions", "decision", "over")
INTERNAL = -1  # fr_prog of a frame that runs one internal op
# internal ops, numbered after the table ops
I_PLAY = len(OP)  # arg = person type: the Play-a-person action (RAD-A1, RAD-A2)
# I_PLAY + 1 … + 3 were ops nothing pushed; the numbers stay free so that records and the
# observation's op one-hot (encoders/radlands.py) keep their layout.
I_RESOLVE_EVENT = I_PLAY + 4  # arg = deck type or RAIDERS: run it, then discard / return it
# after-frame actions
FIN_NONE, FIN_DISCARD, FIN_RAIDERS = 0, 1, 2
VERA_PER_TURN, VERA_PER_CARD = 0, 1
ZETO_PLACED, ZETO_RESOLVED = 0, 1

# ---- action layout (docs/radlands.md) -------------------------------------------------------
A_KEEP = 0
A_PLAY_PERSON = A_KEEP + 6
A_PLAY_EVENT = A_PLAY_PERSON + N_PT
A_JUNK = A_PLAY_EVENT + N_ET
A_JUNK_SILO = A_JUNK + N_DT
A_TAKE_SILO = A_JUNK_SILO + 1
A_DRAW = A_TAKE_SILO + 1
A_USE = A_DRAW + 1  # + (c * 3 + i) * 3 + k
A_END_TURN = A_USE + COLS * DEPTH * 3
A_TARGET = A_END_TURN + 1  # + (side * 3 + c) * 3 + i, side 0 = the decider's own
A_PLACE = A_TARGET + 2 * COLS * DEPTH  # + c * 3 + i
A_CHOOSE = A_PLACE + COLS * DEPTH  # + k
A_SELECT_HAND = A_CHOOSE + 4  # + deck type
A_SELECT_COLUMN = A_SELECT_HAND + N_DT  # + side * 3 + c
A_SELECT_EVENT = A_SELECT_COLUMN + 2 * COLS  # + side * 3 + slot
A_SKIP = A_SELECT_EVENT + 2 * 3
NUM_ACTIONS = A_SKIP + 1

STATE_DTYPE = np.dtype(
    [
        ("rng", np.uint64, (1,)),
        ("num_players", np.int8),
        ("phase", np.int8),
        ("current_player", np.int8),  # the decider: the agent to act
        ("turn_player", np.int8),
        ("first_player", np.int8),
        ("terminated", np.int8),
        ("truncated", np.int8),
        ("winner", np.int8),  # -1: none / draw
        ("step_count", np.int32),
        ("turn_count", np.int32),
        ("score", np.int16, (N_PLAYERS,)),  # undestroyed camps at the end
        # options
        ("opt_raiders_slot", np.int8),
        ("opt_vera", np.int8),
        ("opt_zeto", np.int8),
        # draft
        ("offer", np.int8, (N_PLAYERS, 6)),
        ("kept", np.int8, (N_PLAYERS, 6)),  # 1 once that offered camp is kept
        ("kept_n", np.int8, (N_PLAYERS,)),
        # board
        ("camp", np.int8, (N_PLAYERS, COLS)),
        ("camp_state", np.int8, (N_PLAYERS, COLS)),  # 0 intact, 1 damaged, 2 destroyed
        ("camp_used", np.int8, (N_PLAYERS, COLS)),
        ("col_len", np.int8, (N_PLAYERS, COLS)),
        ("ent_kind", np.int8, (N_PLAYERS, COLS, DEPTH)),
        ("ent_type", np.int8, (N_PLAYERS, COLS, DEPTH)),  # person deck type
        ("ent_uid", np.int16, (N_PLAYERS, COLS, DEPTH)),
        ("ent_damaged", np.int8, (N_PLAYERS, COLS, DEPTH)),
        ("ent_punk", np.int8, (N_PLAYERS, COLS, DEPTH)),
        ("ent_not_ready", np.int8, (N_PLAYERS, COLS, DEPTH)),
        ("ent_used_once", np.int8, (N_PLAYERS, COLS, DEPTH)),  # Vera, per-card reading
        ("next_uid", np.int16),
        ("juggernaut_moves", np.int8, (N_PLAYERS,)),
        # cards
        ("hand", np.int8, (N_PLAYERS, N_DT)),
        ("silo_in_hand", np.int8, (N_PLAYERS,)),
        ("deck", np.int8, (DECK_SIZE,)),  # top = deck[deck_n - 1]
        ("deck_n", np.int8),
        ("discard", np.int8, (DECK_SIZE,)),
        ("discard_n", np.int8),
        ("reshuffled", np.int8),
        ("queue", np.int8, (N_PLAYERS, 3)),  # deck type, RAIDERS or -1; index 0 = slot 1
        # turn
        ("water", np.int16),
        ("first_turn_done", np.int8),
        ("entered_this_turn", np.int8, (N_PLAYERS,)),
        ("event_resolved", np.int8),
        ("raiders_resolved", np.int8, (N_PLAYERS,)),
        ("high_ground", np.int8, (N_PLAYERS,)),
        ("zeto_used", np.int8),
        ("vera_used", np.int8),
        ("in_events_phase", np.int8),
        # VM
        ("depth", np.int8),
        ("fr_prog", np.int16, (MAX_FRAMES,)),
        ("fr_pc", np.int8, (MAX_FRAMES,)),
        ("fr_end", np.int8, (MAX_FRAMES,)),
        ("fr_stage", np.int8, (MAX_FRAMES,)),
        ("fr_owner", np.int8, (MAX_FRAMES,)),
        ("fr_src", np.int16, (MAX_FRAMES,)),
        ("fr_that", np.int16, (MAX_FRAMES,)),
        ("fr_flags", np.int8, (MAX_FRAMES,)),  # 1: previous step happened, 2: it hit a camp
        ("fr_op", np.int8, (MAX_FRAMES,)),
        ("fr_arg", np.int16, (MAX_FRAMES,)),
        ("fr_aux", np.int16, (MAX_FRAMES,)),
        ("fr_fin", np.int8, (MAX_FRAMES,)),
        ("fr_fin_arg", np.int8, (MAX_FRAMES,)),
        ("lift_type", np.int8),  # High Ground: the person being moved
        ("lift_uid", np.int16),
        ("lift_damaged", np.int8),
        ("lift_punk", np.int8),
        ("lift_not_ready", np.int8),
        ("lift_used_once", np.int8),
        ("revealed", np.int8, (4,)),  # cards just drawn or milled, for keep/discard choices
        ("revealed_n", np.int8),
        ("pend_mask", np.int8, (NUM_ACTIONS,)),
    ]
)
# Standalone kernels take the batch as a C-contiguous array of records (meeple_gym.core.jit).
STATES = array_arg(STATE_DTYPE)


# Programs with a compulsory sacrifice (DESTROY of an own person) anywhere: _simple_usable
# asks this for every ability on every legal mask, so it is looked up, not scanned.
SACRIFICES_OWN_PERSON = np.array(
    [
        any(CODE[g, j, 0] == OP_DESTROY and CODE[g, j, 1] == T_OWN_PERSON for j in range(LENGTH[g]))
        for g in range(CODE.shape[0])
    ],
    np.bool_,
)


# ---- board helpers --------------------------------------------------------------------------
@kernel
def _people_count(s, p):
    n = 0
    for c in range(COLS):
        n += s.col_len[p, c] - 1
    return n


@kernel
def _find_uid(s, uid):
    """Position of the card ``uid`` as p * 9 + c * 3 + i, or -1 when it left play."""
    if uid <= 0:
        return -1
    for p in range(N_PLAYERS):
        for c in range(COLS):
            for i in range(s.col_len[p, c]):
                if s.ent_uid[p, c, i] == uid:
                    return p * 9 + c * 3 + i
    return -1


@kernel
def _camp_index(s, p, c):
    for i in range(s.col_len[p, c]):
        if s.ent_kind[p, c, i] == CAMP:
            return i
    return 0


@kernel
def _trait_person_active(s, p, person_type):
    """True while player p has an undamaged, face-up ``person_type`` in play (RAD-K4)."""
    for c in range(COLS):
        for i in range(s.col_len[p, c]):
            if (
                s.ent_kind[p, c, i] == PERSON
                and s.ent_punk[p, c, i] == 0
                and s.ent_type[p, c, i] == person_type
                and s.ent_damaged[p, c, i] == 0
            ):
                return True
    return False


@kernel
def _unprotected(s, viewer, p, c, i):
    # RAD-B3: nothing of the owner's in front of it; High Ground lifts it for its owner.
    if i == s.col_len[p, c] - 1:
        return True
    return viewer != p and s.high_ground[viewer] == 1


@kernel
def _remove_entity(s, p, c, i):
    # RAD-A1: whatever stood in front slides back toward the camp.
    n = s.col_len[p, c]
    for j in range(i, n - 1):
        s.ent_kind[p, c, j] = s.ent_kind[p, c, j + 1]
        s.ent_type[p, c, j] = s.ent_type[p, c, j + 1]
        s.ent_uid[p, c, j] = s.ent_uid[p, c, j + 1]
        s.ent_damaged[p, c, j] = s.ent_damaged[p, c, j + 1]
        s.ent_punk[p, c, j] = s.ent_punk[p, c, j + 1]
        s.ent_not_ready[p, c, j] = s.ent_not_ready[p, c, j + 1]
        s.ent_used_once[p, c, j] = s.ent_used_once[p, c, j + 1]
    j = n - 1
    s.ent_kind[p, c, j] = EMPTY
    s.ent_type[p, c, j] = -1
    s.ent_uid[p, c, j] = 0
    s.ent_damaged[p, c, j] = 0
    s.ent_punk[p, c, j] = 0
    s.ent_not_ready[p, c, j] = 0
    s.ent_used_once[p, c, j] = 0
    s.col_len[p, c] = n - 1


@kernel
def _open_slot(s, p, c, i):
    # Move entities at index >= i one place forward to free index i.
    n = s.col_len[p, c]
    for j in range(n, i, -1):
        s.ent_kind[p, c, j] = s.ent_kind[p, c, j - 1]
        s.ent_type[p, c, j] = s.ent_type[p, c, j - 1]
        s.ent_uid[p, c, j] = s.ent_uid[p, c, j - 1]
        s.ent_damaged[p, c, j] = s.ent_damaged[p, c, j - 1]
        s.ent_punk[p, c, j] = s.ent_punk[p, c, j - 1]
        s.ent_not_ready[p, c, j] = s.ent_not_ready[p, c, j - 1]
        s.ent_used_once[p, c, j] = s.ent_used_once[p, c, j - 1]
    s.col_len[p, c] = n + 1


@kernel
def _move_entity(s, p, c, a, b):
    """Move the entity at index a to index b of its column; the others keep their order."""
    kind = s.ent_kind[p, c, a]
    t = s.ent_type[p, c, a]
    uid = s.ent_uid[p, c, a]
    damaged = s.ent_damaged[p, c, a]
    punk = s.ent_punk[p, c, a]
    not_ready = s.ent_not_ready[p, c, a]
    used_once = s.ent_used_once[p, c, a]
    _remove_entity(s, p, c, a)
    _open_slot(s, p, c, b)
    s.ent_kind[p, c, b] = kind
    s.ent_type[p, c, b] = t
    s.ent_uid[p, c, b] = uid
    s.ent_damaged[p, c, b] = damaged
    s.ent_punk[p, c, b] = punk
    s.ent_not_ready[p, c, b] = not_ready
    s.ent_used_once[p, c, b] = used_once


@kernel
def _camp_space(s, p, c):
    """The space of column c's camp: 0 (its starting spot) for every camp but a Juggernaut,
    which stands on space 0, 1 or 2, one per move made (subtleties §15; docs: board model)."""
    if s.camp[p, c] == C_JUGGERNAUT:
        return s.juggernaut_moves[p]
    return 0


@kernel
def _camp_index_after(n_after, space, i):
    """Where the camp stands once a person enters at index i of a column that then holds
    ``n_after`` people, the camp being on ``space``; -1 when i is no legal spot.

    A camp on space j has at most j people behind it and at most 2 - j in front, so the
    people behind it number between n + j - 2 and j (docs: board model)."""
    if i > n_after:
        return -1
    lo = max(0, n_after + space - 2)
    hi = min(space, n_after)
    for b in range(lo, hi + 1):
        if b != i:
            return b
    return -1


@kernel
def _can_place_at(s, p, c, i):
    """RAD-A1/A2: column c has room and index i is a legal final spot for a newcomer."""
    n = s.col_len[p, c] - 1  # people now
    if n >= DEPTH - 1:
        return False
    return _camp_index_after(n + 1, _camp_space(s, p, c), i) >= 0


@kernel
def _open_place(s, p, c, i):
    """Free index i of column c for a newcomer, which ends up exactly there: the people keep
    their order and the camp keeps its space, so a person may be shoved past a moved
    Juggernaut (subtleties §15). The caller fills every field of index i."""
    n = s.col_len[p, c] - 1
    b = _camp_index_after(n + 1, _camp_space(s, p, c), i)
    a = _camp_index(s, p, c)
    uid = s.ent_uid[p, c, a]
    used_once = s.ent_used_once[p, c, a]
    _remove_entity(s, p, c, a)
    _open_slot(s, p, c, i if b > i else i - 1)
    _open_slot(s, p, c, b)
    s.ent_kind[p, c, b] = CAMP
    s.ent_type[p, c, b] = -1
    s.ent_uid[p, c, b] = uid
    s.ent_damaged[p, c, b] = 0
    s.ent_punk[p, c, b] = 0
    s.ent_not_ready[p, c, b] = 0
    s.ent_used_once[p, c, b] = used_once


@kernel
def _board_full(s, p):
    return _people_count(s, p) >= COLS * (DEPTH - 1)


@kernel
def _new_uid(s):
    uid = s.next_uid
    s.next_uid = 7 if uid >= 30000 else uid + 1
    return uid


@kernel
def _discard_card(s, t):
    s.discard[s.discard_n] = t
    s.discard_n += 1


@kernel
def _end_game(s, winner):
    s.terminated = 1
    s.winner = winner
    s.phase = PHASE_OVER
    # events cut off mid-resolution still go to the discard, so all 66 cards stay accounted for
    for d in range(s.depth):
        if s.fr_fin[d] == FIN_DISCARD:
            s.discard[s.discard_n] = s.fr_fin_arg[d]
            s.discard_n += 1
        elif (
            s.fr_prog[d] == INTERNAL
            and s.fr_op[d] == I_RESOLVE_EVENT
            and s.fr_pc[d] == 0
            and s.fr_arg[d] < RAIDERS
        ):
            s.discard[s.discard_n] = s.fr_arg[d]
            s.discard_n += 1
    s.depth = 0
    _record_scores(s)


@kernel
def _record_scores(s):
    """A player's score is the number of their undestroyed camps (RAD-E1)."""
    for p in range(N_PLAYERS):
        alive = 0
        for c in range(COLS):
            if s.camp_state[p, c] < 2:
                alive += 1
        s.score[p] = alive


@kernel
def _check_camps(s):
    # RAD-E1: a player whose three camps are destroyed has lost, at once.
    lost0 = s.camp_state[0, 0] == 2 and s.camp_state[0, 1] == 2 and s.camp_state[0, 2] == 2
    lost1 = s.camp_state[1, 0] == 2 and s.camp_state[1, 1] == 2 and s.camp_state[1, 2] == 2
    if lost0 and lost1:
        _end_game(s, -1)
    elif lost0:
        _end_game(s, 1)
    elif lost1:
        _end_game(s, 0)


@kernel
def _take_top(s):
    """The top card of the draw deck, or -1 when the game just ended in a draw (RAD-E2)."""
    if s.deck_n == 0:
        if s.reshuffled == 1 or s.discard_n == 0:
            _end_game(s, -1)
            return -1
        # RAD-E2: the first time the deck runs out, the discard pile becomes the new deck.
        for k in range(s.discard_n):
            s.deck[k] = s.discard[k]
        s.deck_n = s.discard_n
        s.discard_n = 0
        s.reshuffled = 1
        shuffle(s.rng, s.deck, s.deck_n)
    s.deck_n -= 1
    return s.deck[s.deck_n]


@kernel
def _draw(s, p, n):
    for _ in range(n):
        t = _take_top(s)
        if t < 0:
            return
        s.hand[p, t] += 1


@kernel
def _destroy_at(s, p, c, i):
    """RAD-I1: a person goes to the discard, a punk back on top of the deck, a camp flips."""
    if s.ent_kind[p, c, i] == CAMP:
        s.camp_state[p, c] = 2
        if s.camp[p, c] == C_JUGGERNAUT:
            # subtleties §15: a destroyed Juggernaut goes back to its starting spot, behind
            # the people of its column, and its moves count from zero again
            s.juggernaut_moves[p] = 0
            if i > 0:
                _move_entity(s, p, c, i, 0)
        _check_camps(s)
        return
    t = s.ent_type[p, c, i]
    if s.ent_punk[p, c, i] == 1:
        s.deck[s.deck_n] = t  # RAD-K3: face down back on top of the deck
        s.deck_n += 1
    else:
        _discard_card(s, t)
    _remove_entity(s, p, c, i)


@kernel
def _hit(s, p, c, i):
    """RAD-I2: one damage. Returns True when the card hit was a camp."""
    if s.ent_kind[p, c, i] == CAMP:
        if s.camp_state[p, c] == 0:
            s.camp_state[p, c] = 1
        else:
            _destroy_at(s, p, c, i)
        return True
    if s.ent_punk[p, c, i] == 1 or s.ent_damaged[p, c, i] == 1:
        _destroy_at(s, p, c, i)  # RAD-K3: any damage destroys a punk
    else:
        s.ent_damaged[p, c, i] = 1
    return False


@kernel
def _target_ok(s, decider, p, c, i, tk, src):
    """Whether entity (p, c, i) is a legal target of kind ``tk`` for ``decider``."""
    if i >= s.col_len[p, c]:
        return False
    kind = s.ent_kind[p, c, i]
    enemy = p != decider
    is_person = kind == PERSON
    alive_camp = kind == CAMP and s.camp_state[p, c] < 2
    if tk == T_UNPROT_ENEMY_CARD:
        return enemy and (is_person or alive_camp) and _unprotected(s, decider, p, c, i)
    if tk == T_UNPROT_ENEMY_PERSON:
        return enemy and is_person and _unprotected(s, decider, p, c, i)
    if tk == T_UNPROT_ENEMY_CAMP:
        return enemy and alive_camp and _unprotected(s, decider, p, c, i)
    if tk == T_UNPROT_DAMAGED_ENEMY_CARD:
        damaged = (is_person and s.ent_damaged[p, c, i] == 1) or (
            alive_camp and s.camp_state[p, c] == 1
        )
        return enemy and damaged and _unprotected(s, decider, p, c, i)
    if tk == T_ANY_ENEMY_CARD:
        return enemy and (is_person or alive_camp)
    if tk == T_ANY_ENEMY_PERSON:
        return enemy and is_person
    if tk == T_ANY_ENEMY_CAMP:
        return enemy and alive_camp
    if tk == T_OWN_PERSON:
        return not enemy and is_person
    if tk == T_OWN_DAMAGED_CARD:
        # RAD-I3: never the card doing the restoring; Bonfire can never be restored
        if enemy or s.ent_uid[p, c, i] == src:
            return False
        if is_person:
            return s.ent_damaged[p, c, i] == 1
        return alive_camp and s.camp_state[p, c] == 1 and s.camp[p, c] != C_BONFIRE
    if tk == T_OWN_DAMAGED_PERSON:
        return not enemy and is_person and s.ent_damaged[p, c, i] == 1
    if tk == T_OWN_CARD:
        return not enemy and (is_person or alive_camp)
    if tk == T_OWN_CAMP:
        return not enemy and alive_camp
    return False


@kernel
def _fill_targets(s, decider, tk, src, mask):
    """Mark every legal target in ``mask`` (TARGET actions); returns how many."""
    count = 0
    for p in range(N_PLAYERS):
        side = 0 if p == decider else 1
        for c in range(COLS):
            for i in range(s.col_len[p, c]):
                if _target_ok(s, decider, p, c, i, tk, src):
                    mask[A_TARGET + (side * 3 + c) * 3 + i] = 1
                    count += 1
    return count


@kernel
def _any_target(s, decider, tk, src):
    for p in range(N_PLAYERS):
        for c in range(COLS):
            for i in range(s.col_len[p, c]):
                if _target_ok(s, decider, p, c, i, tk, src):
                    return True
    return False


@kernel
def _decode_target(s, decider, action):
    """(p, c, i) of a TARGET action, as p * 9 + c * 3 + i."""
    k = action - A_TARGET
    side = k // 9
    p = decider if side == 0 else 1 - decider
    return p * 9 + (k % 9)


# ---- entering play, costs, readiness --------------------------------------------------------
WAIT, DONE, CONTINUE = 0, 1, 2


@kernel
def _push(s, prog, pc, end, owner, src, op, arg, fin, fin_arg):
    d = s.depth
    if d >= MAX_FRAMES:
        return  # cannot happen with the base cards (deepest nesting is about 6)
    s.fr_prog[d] = prog
    s.fr_pc[d] = pc
    s.fr_end[d] = end
    s.fr_stage[d] = 0
    s.fr_owner[d] = owner
    s.fr_src[d] = src
    s.fr_that[d] = 0
    s.fr_flags[d] = 0
    s.fr_op[d] = op
    s.fr_arg[d] = arg
    s.fr_aux[d] = 0
    s.fr_fin[d] = fin
    s.fr_fin_arg[d] = fin_arg
    s.depth = d + 1


@kernel
def _push_program(s, prog, owner, src, fin, fin_arg):
    if prog >= 0 and LENGTH[prog] > 0:
        _push(s, prog, 0, LENGTH[prog], owner, src, 0, 0, fin, fin_arg)
    elif fin == FIN_DISCARD:
        _discard_card(s, fin_arg)


@kernel
def _push_internal(s, op, arg, owner, src):
    _push(s, INTERNAL, 0, 1, owner, src, op, arg, FIN_NONE, 0)


@kernel
def _count_entry(s, p):
    # only "at least 2" is ever asked (Nest of Spies, Transplant Lab): the count stops at
    # ENTERED_CAP so that the int8 field never wraps
    if s.entered_this_turn[p] < ENTERED_CAP:
        s.entered_this_turn[p] += 1


@kernel
def _enter_person(s, p, c, i, t, punk):
    """Put a person into play at (p, c, i) and fire its entry trait (RAD-A1, RAD-A2)."""
    _open_place(s, p, c, i)
    uid = _new_uid(s)
    s.ent_kind[p, c, i] = PERSON
    s.ent_type[p, c, i] = t
    s.ent_uid[p, c, i] = uid
    s.ent_damaged[p, c, i] = 0
    s.ent_punk[p, c, i] = punk
    s.ent_used_once[p, c, i] = 0
    # RAD-R2: a person enters not ready, unless Karli Blaze's or Rescue Team's trait says so.
    ready = _trait_person_active(s, p, P_KARLI) or (punk == 0 and t == P_RESCUE_TEAM)
    s.ent_not_ready[p, c, i] = 0 if ready else 1
    _count_entry(s, p)
    if punk == 0 and ENTER_PROG[t] >= 0:
        _push_program(s, ENTER_PROG[t], p, uid, FIN_NONE, 0)
    return uid


@kernel
def _play_cost(s, p, t, c):
    cost = PERSON_COST[t]
    if t == P_HOLDOUT and s.camp_state[p, c] == 2:
        return 0  # Holdout is free in the column of a destroyed camp of yours
    if s.camp[p, c] == C_OASIS and s.camp_state[p, c] < 2 and s.col_len[p, c] == 1:
        cost -= 1  # Oasis: cheaper while its column holds none of your people
    return max(cost, 0)


@kernel
def _fill_placements(s, p, t, budget, mask):
    """PLACE actions for a person of type t (t < 0: a punk, free) within ``budget`` water."""
    count = 0
    for c in range(COLS):
        if t >= 0 and _play_cost(s, p, t, c) > budget:
            continue
        for i in range(DEPTH):
            if _can_place_at(s, p, c, i):
                mask[A_PLACE + c * 3 + i] = 1
                count += 1
    return count


@kernel
def _can_play_person(s, p, t, budget):
    if s.hand[p, t] <= 0:
        return False
    if _board_full(s, p):
        # RAD-A2: only with every column full may a person be destroyed to make room;
        # the freed column must then be affordable.
        for c in range(COLS):
            if _play_cost(s, p, t, c) <= budget:
                return True
        return False
    for c in range(COLS):
        if s.col_len[p, c] < DEPTH and _play_cost(s, p, t, c) <= budget:
            return True
    return False


@kernel
def _ability_prog(s, p, c, i, k):
    """Program of ability k of own entity (p, c, i), or -1 (Argo's trait adds one, RAD-K4)."""
    return _ability_prog_given(s, p, c, i, k, -1)


@kernel
def _ability_prog_given(s, p, c, i, k, argo):
    """``_ability_prog`` with ``argo`` 1 or 0 when whether p's Argo trait is active is already
    known, -1 to look it up (only if needed)."""
    if i >= s.col_len[p, c]:
        return -1
    if s.ent_kind[p, c, i] == CAMP:
        camp = s.camp[p, c]
        if s.camp_state[p, c] == 2 or k >= CAMP_N_ABILITIES[camp]:
            return -1
        return CAMP_PROG[camp, k]
    t = s.ent_type[p, c, i]
    own = 0 if s.ent_punk[p, c, i] == 1 else PERSON_N_ABILITIES[t]
    if k < own:
        return PERSON_PROG[t, k]
    if k == own and (s.ent_punk[p, c, i] == 1 or t != P_ARGO):
        if argo < 0:
            argo = 1 if _trait_person_active(s, p, P_ARGO) else 0
        if argo == 1:
            return ARGO_PROG
    return -1


@kernel
def _ability_cost(s, p, c, i, k):
    if s.ent_kind[p, c, i] == CAMP:
        camp = s.camp[p, c]
        cost = CAMP_ABILITY_COST[camp, k]
        if cost == VARIABLE:
            return VARIABLE
        if camp == C_PILLBOX:
            for cc in range(COLS):
                if s.camp_state[p, cc] == 2:
                    cost -= 1
        elif camp == C_COMMAND_POST:
            for cc in range(COLS):
                for ii in range(s.col_len[p, cc]):
                    if s.ent_punk[p, cc, ii] == 1:
                        cost -= 1
        return max(cost, 0)
    t = s.ent_type[p, c, i]
    own = 0 if s.ent_punk[p, c, i] == 1 else PERSON_N_ABILITIES[t]
    if k < own:
        return PERSON_ABILITY_COST[t, k]
    return ARGO_COST


@kernel
def _is_ready(s, p, c, i):
    if s.ent_kind[p, c, i] == CAMP:
        return s.camp_state[p, c] < 2 and s.camp_used[p, c] == 0  # RAD-R1
    return s.ent_damaged[p, c, i] == 0 and s.ent_not_ready[p, c, i] == 0  # RAD-R2


@kernel
def _mark_used(s, p, c, i):
    # RAD-T4: any use marks the card used, even at 0 water; Vera Vosh's trait may keep it ready.
    if _trait_person_active(s, p, P_VERA):
        if s.opt_vera == VERA_PER_TURN:
            if s.vera_used == 0:
                s.vera_used = 1
                return
        elif s.ent_used_once[p, c, i] == 0:
            s.ent_used_once[p, c, i] = 1
            return
    if s.ent_kind[p, c, i] == CAMP:
        s.camp_used[p, c] = 1
    else:
        s.ent_not_ready[p, c, i] = 1


# ---- conditions and usability ---------------------------------------------------------------
@kernel
def _cond(s, owner, cond, flags):
    if cond == COND_OWN_PEOPLE_AT_MOST_1:
        return _people_count(s, owner) <= 1
    if cond == COND_ENTERED_THIS_TURN_AT_LEAST_2:
        return s.entered_this_turn[owner] >= 2
    if cond == COND_ANY_EVENT_RESOLVED:
        return s.event_resolved == 1
    if cond == COND_OWN_RAIDERS_RESOLVED:
        return s.raiders_resolved[owner] == 1
    if cond == COND_OPPONENT_HAS_EVENT:
        q = s.queue[1 - owner]
        return q[0] >= 0 or q[1] >= 0 or q[2] >= 0
    if cond == COND_OWN_PUNK:
        for c in range(COLS):
            for i in range(s.col_len[owner, c]):
                if s.ent_punk[owner, c, i] == 1:
                    return True
        return False
    return (flags & 2) != 0  # COND_PREVIOUS_HIT_CAMP, the last condition


@kernel
def _fill_columns(s, decider, destroy_people_only, mask, write=True):
    """SELECT_COLUMN actions for the decider's opponent's columns holding a target
    (``write=False`` only counts them)."""
    count = 0
    p = 1 - decider
    for c in range(COLS):
        ok = False
        for i in range(s.col_len[p, c]):
            if s.ent_kind[p, c, i] == PERSON:
                ok = True
            elif not destroy_people_only and s.camp_state[p, c] < 2:
                ok = True
        if ok:
            if write:
                mask[A_SELECT_COLUMN + 3 + c] = 1
            count += 1
    return count


@kernel
def _fill_events(s, decider, mask, write=True):
    """SELECT_EVENT actions: events that can move one slot forward (Omen Clock)."""
    count = 0
    for p in range(N_PLAYERS):
        side = 0 if p == decider else 1
        for j in range(3):
            if s.queue[p, j] >= 0 and (j == 0 or s.queue[p, j - 1] < 0):
                if write:
                    mask[A_SELECT_EVENT + side * 3 + j] = 1
                count += 1
    return count


@kernel
def _fill_own(s, p, want_punk, want_destroyed_camp, mask):
    """TARGET actions on p's own punks, or on p's destroyed camps."""
    count = 0
    for c in range(COLS):
        for i in range(s.col_len[p, c]):
            kind = s.ent_kind[p, c, i]
            ok = (want_punk and kind == PERSON and s.ent_punk[p, c, i] == 1) or (
                want_destroyed_camp and kind == CAMP and s.camp_state[p, c] == 2
            )
            if ok:
                mask[A_TARGET + c * 3 + i] = 1
                count += 1
    return count


@kernel
def _borrow_ok(s, owner, src, p, c, i, k):
    """Can ``owner`` run ability k of person (p, c, i) with ``src`` as "this card"?"""
    t = s.ent_type[p, c, i]
    if s.ent_punk[p, c, i] == 1 or k >= PERSON_N_ABILITIES[t]:
        return False
    if PERSON_ABILITY_COST[t, k] == VARIABLE:
        return False  # no borrowing of Mimic's own borrowing
    if PERSON_ABILITY_COST[t, k] > s.water:
        return False
    return _simple_usable(s, PERSON_PROG[t, k], owner, src)


@kernel
def _fill_borrow(s, owner, src, adrenaline, mask, write=True):
    """TARGET actions for Mimic (adrenaline False) or Adrenaline Lab (True)."""
    count = 0
    for p in range(N_PLAYERS):
        side = 0 if p == owner else 1
        for c in range(COLS):
            for i in range(s.col_len[p, c]):
                if s.ent_kind[p, c, i] != PERSON or s.ent_uid[p, c, i] == src:
                    continue
                if adrenaline:
                    ok = p == owner and s.ent_damaged[p, c, i] == 1
                elif p == owner:
                    ok = _is_ready(s, p, c, i)
                else:
                    ok = s.ent_damaged[p, c, i] == 0
                if not ok:
                    continue
                user = s.ent_uid[p, c, i] if adrenaline else src
                for k in range(2):
                    if _borrow_ok(s, owner, user, p, c, i, k):
                        if write:
                            mask[A_TARGET + (side * 3 + c) * 3 + i] = 1
                        count += 1
                        break
    return count


@kernel
def _cheapest_ability(t):
    """The cheapest fixed ability cost of person type t (1000 when it has none)."""
    best = 1000
    for k in range(PERSON_N_ABILITIES[t]):
        cost = PERSON_ABILITY_COST[t, k]
        if cost != VARIABLE and cost < best:
            best = cost
    return best


@kernel
def _parachute_usable(s, p, t):
    """Whether a person of type t dropped by Parachute Base would have a usable ability: the
    engine's rule for abilities (docs "usable"), judged on the board before the drop. Cult
    Leader's sacrifice may pick himself (and Rescue Team may return itself: RETURN_TO_HAND
    is always usable below), so they always have a target."""
    for k in range(PERSON_N_ABILITIES[t]):
        prog = PERSON_PROG[t, k]
        if PERSON_ABILITY_COST[t, k] == VARIABLE:
            continue
        if CODE[prog, 0, 0] == OP_DESTROY and CODE[prog, 0, 1] == T_OWN_PERSON:
            return True
        if _simple_usable(s, prog, p, 0):
            return True
    return False


@kernel
def _parachute_ok(s, p, t):
    # Parachute Base pays the play cost and then an ability cost: both must fit, and the
    # ability must have a legal target (issue: no drop for the play cost alone)
    best = _cheapest_ability(t)
    if s.hand[p, t] <= 0 or best >= 1000 or not _can_play_person(s, p, t, s.water - best):
        return False
    return _parachute_usable(s, p, t)


@kernel
def _program_usable(s, prog, owner, src):
    """An ability is usable when its first targeted step has a target (docs/radlands.md)."""
    op = CODE[prog, 0, 0]
    if op == OP_MIMIC or op == OP_ADRENALINE:
        return _fill_borrow(s, owner, src, op == OP_ADRENALINE, s.pend_mask, False) > 0
    if op == OP_PARACHUTE:
        for t in range(N_PT):
            if _parachute_ok(s, owner, t):
                return True
        return False
    return _simple_usable(s, prog, owner, src)


@kernel
def _simple_usable(s, prog, owner, src):
    # The borrowing ops never reach here: borrowed abilities cannot borrow again.
    n = LENGTH[prog]
    pc = 0
    # a compulsory sacrifice anywhere in the program needs a person of yours
    if SACRIFICES_OWN_PERSON[prog] and _people_count(s, owner) == 0:
        return False
    while pc < n:
        op = CODE[prog, pc, 0]
        arg = CODE[prog, pc, 1]
        decider = owner if CODE[prog, pc, 2] == 0 else 1 - owner
        if op == OP_IF:
            if not _cond(s, owner, arg, 0):
                return False
            pc += 1
            continue
        if op == OP_DAMAGE or op == OP_DESTROY:
            if arg == T_SELF:
                pc += 1
                continue
            return _any_target(s, decider, arg, src)
        if op == OP_RESTORE:
            return _any_target(s, owner, arg, src)
        if op == OP_RESTORE_MANY:  # Bonfire: "any number" still needs one to be useful
            return _any_target(s, owner, T_OWN_DAMAGED_CARD, src)
        if op == OP_RESTORE_READY:
            return _any_target(s, owner, T_OWN_DAMAGED_PERSON, src)
        if op == OP_AND_OR:
            a = CODE[prog, pc + 1, 1]
            b = CODE[prog, pc + 2, 1]
            return _any_target(s, owner, a, src) or _any_target(s, owner, b, src)
        if op == OP_COLUMN_DAMAGE or op == OP_COLUMN_DESTROY_PEOPLE:
            return _fill_columns(s, owner, op == OP_COLUMN_DESTROY_PEOPLE, s.pend_mask, False) > 0
        if op == OP_REBUILD:
            pos = _find_uid(s, src)
            if pos < 0 or s.camp_state[owner, (pos % 9) // 3] != 0:
                return False  # only while Construction Yard is undamaged
            for c in range(COLS):
                if s.camp_state[owner, c] == 2:
                    return True
            return False
        if op == OP_FLIP_PUNK:
            return _cond(s, owner, COND_OWN_PUNK, 0)
        if op == OP_ADVANCE_EVENT:
            return _fill_events(s, owner, s.pend_mask, False) > 0
        if op == OP_OCTAGON:
            return _people_count(s, owner) > 0  # its sacrifice is compulsory
        if op == OP_WAREHOUSE or op == OP_DISCARD_HAND:
            for t in range(N_DT):
                if s.hand[owner, t] > 0:
                    return True
            return op == OP_DISCARD_HAND
        return True
    return True


# ---- the VM ---------------------------------------------------------------------------------
@kernel
def _next(s, d):
    s.fr_pc[d] += 1
    s.fr_stage[d] = 0
    s.fr_aux[d] = 0


@kernel
def _wait(s, decider, skip_allowed):
    if skip_allowed:
        s.pend_mask[A_SKIP] = 1
    s.current_player = decider
    s.phase = PHASE_DECISION
    return WAIT


@kernel
def _uids_of(s, p_mask, people, camps, only_damaged, unprot_viewer, out):
    """Collect uids of matching cards (p_mask bit p selects player p) into ``out``."""
    n = 0
    for p in range(N_PLAYERS):
        if (p_mask >> p) & 1 == 0:
            continue
        for c in range(COLS):
            for i in range(s.col_len[p, c]):
                kind = s.ent_kind[p, c, i]
                if kind == PERSON and not people:
                    continue
                if kind == CAMP and (not camps or s.camp_state[p, c] == 2):
                    continue
                if only_damaged and kind == PERSON and s.ent_damaged[p, c, i] == 0:
                    continue
                if unprot_viewer >= 0 and not _unprotected(s, unprot_viewer, p, c, i):
                    continue
                out[n] = s.ent_uid[p, c, i]
                n += 1
    return n


@kernel
def _apply_to_uids(s, uids, n, destroy):
    for k in range(n):
        if s.terminated == 1:
            return
        pos = _find_uid(s, uids[k])
        if pos >= 0:
            p, c, i = pos // 9, (pos % 9) // 3, pos % 3
            if destroy:
                _destroy_at(s, p, c, i)
            else:
                _hit(s, p, c, i)


@kernel
def _raid(s, p):
    """RAD-I8: put Raiders out, advance them, or resolve them from slot 1."""
    q = s.queue[p]
    pos = -1
    for j in range(3):
        if q[j] == RAIDERS:
            pos = j
    if pos < 0:
        if _event_goes_off_now(s, p):
            _push_internal(s, I_RESOLVE_EVENT, RAIDERS, p, 0)
            return
        for j in range(s.opt_raiders_slot - 1, 3):
            if q[j] < 0:
                q[j] = RAIDERS
                return
    elif pos == 0:
        q[0] = -1
        _push_internal(s, I_RESOLVE_EVENT, RAIDERS, p, 0)
    elif q[pos - 1] < 0:
        q[pos - 1] = RAIDERS
        q[pos] = -1


@kernel
def _event_goes_off_now(s, p):
    """Zeto Khan: the first event a player puts out in their turn resolves at once."""
    if p != s.turn_player or s.zeto_used == 1:
        return False
    active = _trait_person_active(s, p, P_ZETO)
    if s.opt_zeto == ZETO_PLACED:
        s.zeto_used = 1  # the first event of the turn, boosted or not
    if active:
        s.zeto_used = 1
    return active


@kernel
def _lift(s, p, c, i):
    s.lift_type = s.ent_type[p, c, i]
    s.lift_uid = s.ent_uid[p, c, i]
    s.lift_damaged = s.ent_damaged[p, c, i]
    s.lift_punk = s.ent_punk[p, c, i]
    s.lift_not_ready = s.ent_not_ready[p, c, i]
    s.lift_used_once = s.ent_used_once[p, c, i]
    _remove_entity(s, p, c, i)


@kernel
def _drop(s, p, c, i):
    _open_place(s, p, c, i)
    s.ent_kind[p, c, i] = PERSON
    s.ent_type[p, c, i] = s.lift_type
    s.ent_uid[p, c, i] = s.lift_uid
    s.ent_damaged[p, c, i] = s.lift_damaged
    s.ent_punk[p, c, i] = s.lift_punk
    s.ent_not_ready[p, c, i] = s.lift_not_ready
    s.ent_used_once[p, c, i] = s.lift_used_once
    s.lift_uid = 0


@kernel
def _swap_lifted(s, p, c, i):
    """The lifted person takes the place of person (p, c, i), who is lifted instead."""
    t = s.ent_type[p, c, i]
    uid = s.ent_uid[p, c, i]
    damaged = s.ent_damaged[p, c, i]
    punk = s.ent_punk[p, c, i]
    not_ready = s.ent_not_ready[p, c, i]
    used_once = s.ent_used_once[p, c, i]
    s.ent_type[p, c, i] = s.lift_type
    s.ent_uid[p, c, i] = s.lift_uid
    s.ent_damaged[p, c, i] = s.lift_damaged
    s.ent_punk[p, c, i] = s.lift_punk
    s.ent_not_ready[p, c, i] = s.lift_not_ready
    s.ent_used_once[p, c, i] = s.lift_used_once
    s.lift_type = t
    s.lift_uid = uid
    s.lift_damaged = damaged
    s.lift_punk = punk
    s.lift_not_ready = not_ready
    s.lift_used_once = used_once


@kernel
def _fill_rearrange_places(s, owner, drops, mask):
    """High Ground's PLACE options: any free spot, or (while a drop is left after this one,
    MAX_REARRANGE) the place of a person in a full column, who is then lifted."""
    count = _fill_placements(s, owner, -1, 0, mask)
    if drops + 1 < MAX_REARRANGE:
        for c in range(COLS):
            if s.col_len[owner, c] == DEPTH:
                for i in range(DEPTH):
                    if s.ent_kind[owner, c, i] == PERSON:
                        mask[A_PLACE + c * 3 + i] = 1
                        count += 1
    return count


@kernel
def _step_possible(s, prog, pc, owner, src):
    op = CODE[prog, pc, 0]
    if op == OP_RESTORE or op == OP_DAMAGE:
        decider = owner if CODE[prog, pc, 2] == 0 else 1 - owner
        return _any_target(s, decider, CODE[prog, pc, 1], src)
    return True


# ---- what each op asks -----------------------------------------------------------------------
# For every op that can wait, one branch below says which decision it waits for at its frame's
# stage: it writes the legal options into ``mask`` and returns them as a question. The ops
# offer exactly that (they call these kernels), and _pending_choices recomputes a snapshot's
# pending decision from the same kernels, so the two cannot drift apart.
#
# A question packs the number of options written, whether SKIP is allowed too and the decider
# into one integer: count * Q_COUNT + Q_SKIP (if allowed) + decider. NO_QUESTION: the op never
# waits at this stage. The ops' questions are split over two kernels, _ask_target and
# _ask_other (see "the ops" for why not one kernel per op).
NO_QUESTION = -1
Q_SKIP = 2
Q_COUNT = 4


@kernel(fragment=True)
def _question(count, decider, skip):
    return count * Q_COUNT + (Q_SKIP if skip else 0) + decider


@kernel(fragment=True)
def _wait_for(s, q):
    """Wait for the answer to question ``q`` (its options are already in ``pend_mask``)."""
    return _wait(s, q & 1, (q & Q_SKIP) != 0)


@kernel(fragment=True)
def _offer(s, d, q):
    """Ask question ``q``; with no option the step has nothing to do and the program moves
    on."""
    if q < Q_COUNT:
        _next(s, d)
        return DONE
    return _wait_for(s, q)


@kernel(fragment=True)
def _fill_room(s, p, t, budget, mask):
    """TARGET actions on p's people who may be destroyed to make room for a person of type t
    (RAD-A2: every column is full): those in a column whose play cost fits ``budget``."""
    count = 0
    for c in range(COLS):
        if _play_cost(s, p, t, c) <= budget:
            for i in range(s.col_len[p, c]):
                if s.ent_kind[p, c, i] == PERSON:
                    mask[A_TARGET + c * 3 + i] = 1
                    count += 1
    return count


@kernel(fragment=True)
def _ask_borrowed(s, owner, user, that, mask):
    """CHOOSE among the usable abilities of person ``that`` run by ``user`` (Mimic, Adrenaline
    Lab, Parachute Base); a single option is taken without asking."""
    pos = _find_uid(s, that)
    if pos < 0:
        return NO_QUESTION
    count = 0
    for k in range(2):
        if _borrow_ok(s, owner, user, pos // 9, (pos % 9) // 3, pos % 3, k):
            mask[A_CHOOSE + k] = 1
            count += 1
    if count < 2:
        return NO_QUESTION
    return _question(count, owner, False)


@kernel(fragment=True)
def _ask_target(s, d, op, arg, owner, decider, src, stage, mask):
    """The question of an op that picks a card, a column or an event (ASK_KERNEL 0)."""
    if op == OP_DAMAGE or op == OP_DESTROY:
        # a target of kind arg (RAD-G1), unless the source card itself is the target
        if stage != 0 or arg == T_SELF:
            return NO_QUESTION
        return _question(_fill_targets(s, decider, arg, src, mask), decider, False)
    if op == OP_RESTORE or op == OP_RESTORE_READY or op == OP_RESTORE_MANY:
        if stage != 0:
            return NO_QUESTION
        tk = T_OWN_DAMAGED_CARD
        if op == OP_RESTORE:
            tk = arg
        elif op == OP_RESTORE_READY:
            tk = T_OWN_DAMAGED_PERSON
        return _question(_fill_targets(s, owner, tk, src, mask), owner, True)  # RAD-I3
    if op == OP_JUGGERNAUT:
        # stage 1: the opponent picks one of their camps to destroy
        if stage != 1:
            return NO_QUESTION
        return _question(_fill_targets(s, 1 - owner, T_OWN_CAMP, 0, mask), 1 - owner, False)
    if op == OP_OCTAGON or op == OP_FAMINE:
        # stage 0: the owner's sacrifice (keeps one person), stage 1: the opponent's
        if stage > 1:
            return NO_QUESTION
        who = owner if stage == 0 else 1 - owner
        count = 0
        if op == OP_OCTAGON or _people_count(s, who) >= 2:  # Famine: subtleties §16
            count = _fill_targets(s, who, T_OWN_PERSON, 0, mask)
        return _question(count, who, False)
    if stage != 0:
        return NO_QUESTION  # the ops below ask at stage 0 only
    if op == OP_COLUMN_DAMAGE or op == OP_COLUMN_DESTROY_PEOPLE:
        count = _fill_columns(s, owner, op == OP_COLUMN_DESTROY_PEOPLE, mask)
        return _question(count, owner, False)
    if op == OP_RETURN_TO_HAND:
        return _question(_fill_targets(s, owner, T_OWN_PERSON, 0, mask), owner, False)
    if op == OP_ADVANCE_EVENT:
        return _question(_fill_events(s, owner, mask), owner, False)
    if op == OP_PUSH_BACK:
        # CHOOSE: push the opponent's events back; optional
        queue = s.queue[1 - owner]
        if (queue[0] >= 0 and queue[1] < 0) or (queue[1] >= 0 and queue[2] < 0):
            mask[A_CHOOSE] = 1
            return _question(1, owner, True)
        return _question(0, owner, True)
    if op == OP_FLIP_PUNK or op == OP_REBUILD:
        # Training Camp: one of your punks; Construction Yard: one of your destroyed camps
        count = _fill_own(s, owner, op == OP_FLIP_PUNK, op == OP_REBUILD, mask)
        return _question(count, owner, False)
    return NO_QUESTION


@kernel(fragment=True)
def _ask_other(s, d, op, arg, owner, decider, src, stage, mask):
    """The question of every other op that can wait (ASK_KERNEL 1)."""
    opp = 1 - owner
    count = 0
    if op == OP_GAIN_PUNK or op == I_PLAY:
        # stage 0 makes room, stages 1 and 2 place; a punk is declined before the sacrifice
        # (SKIP), never after it
        optional = op == OP_GAIN_PUNK
        t = -1 if optional else arg
        if stage == 0:
            if not _board_full(s, owner):
                return NO_QUESTION
            if optional:
                return _question(_fill_targets(s, owner, T_OWN_PERSON, 0, mask), owner, True)
            return _question(_fill_room(s, owner, t, s.water, mask), owner, False)
        if stage > 2:
            return NO_QUESTION
        count = _fill_placements(s, owner, t, s.water if t >= 0 else 0, mask)
        return _question(count, owner, optional and stage == 1)
    if op == OP_MERCENARY:
        # the opponent: stage 0 which, 1 their card to destroy, 2 the cards to discard
        if stage == 0:
            mask[A_CHOOSE] = 1  # destroy one of their own cards
            cards = 0
            for t in range(N_DT):
                cards += s.hand[opp, t]
            if cards >= 2:
                mask[A_CHOOSE + 1] = 1  # or discard 2 (never the Water Silo)
            return _question(2 if cards >= 2 else 1, opp, False)
        if stage == 1:
            return _question(_fill_targets(s, opp, T_OWN_CARD, 0, mask), opp, False)
        if stage != 2 or s.fr_aux[d] >= 2:
            return NO_QUESTION
        for t in range(N_DT):
            if s.hand[opp, t] > 0:
                mask[A_SELECT_HAND + t] = 1
                count += 1
        return _question(count, opp, False)
    if op == OP_REARRANGE:
        # stage 0: a person of yours to move, or SKIP to stop; stage 1: where it goes
        if s.fr_aux[d] >= MAX_REARRANGE:
            return NO_QUESTION
        if stage == 0:
            return _question(_fill_targets(s, owner, T_OWN_PERSON, 0, mask), owner, True)
        if stage == 1 and s.lift_uid != 0:
            return _question(_fill_rearrange_places(s, owner, s.fr_aux[d], mask), owner, False)
        return NO_QUESTION
    if op == OP_PARACHUTE:
        # stage 0: the person; 1: room to make; 2: its place (where the play cost leaves
        # enough for its cheapest ability); 3: its ability
        t = s.fr_aux[d]
        if stage == 0:
            for u in range(N_PT):
                if _parachute_ok(s, owner, u):
                    mask[A_SELECT_HAND + u] = 1
                    count += 1
            return _question(count, owner, False)
        if stage == 1 and not _board_full(s, owner):
            return NO_QUESTION
        if stage == 1:
            count = _fill_room(s, owner, t, s.water - _cheapest_ability(t), mask)
            return _question(count, owner, False)
        if stage == 2:
            count = _fill_placements(s, owner, t, s.water - _cheapest_ability(t), mask)
            return _question(count, owner, False)
        if stage != 3:
            return NO_QUESTION
        return _ask_borrowed(s, owner, s.fr_that[d], s.fr_that[d], mask)
    if op == OP_MIMIC or op == OP_ADRENALINE:
        # stage 0: the person whose ability is used, stage 1: which of its abilities
        adrenaline = op == OP_ADRENALINE
        if stage == 0:
            return _question(_fill_borrow(s, owner, src, adrenaline, mask), owner, False)
        if stage != 1:
            return NO_QUESTION
        that = s.fr_that[d]
        return _ask_borrowed(s, owner, that if adrenaline else src, that, mask)
    if stage != 0:
        return NO_QUESTION  # the ops below ask at stage 0 only
    if op == OP_MILL_JUNK or op == OP_DRAW_DISCARD or op == OP_DRAW_2_DISCARD_1:
        # one of the cards just revealed; optional for Scientist's mill
        for k in range(s.revealed_n):
            mask[A_CHOOSE + k] = 1
        return _question(s.revealed_n, owner, op == OP_MILL_JUNK)
    if op == OP_CHOOSE or op == OP_AND_OR:
        # CHOOSE: one of the next arg steps; AND_OR: the next step, the one after, or both
        prog = s.fr_prog[d]
        if prog == INTERNAL:
            return NO_QUESTION
        pc = s.fr_pc[d]
        for k in range(arg if op == OP_CHOOSE else 2):
            if _step_possible(s, prog, pc + 1 + k, owner, src):
                mask[A_CHOOSE + k] = 1
                count += 1
        if op == OP_AND_OR and count == 2:
            mask[A_CHOOSE + 2] = 1
        return _question(count, owner, False)
    if op == OP_DISCARD_HAND or op == OP_WAREHOUSE:
        # DISCARD_HAND: arg cards; WAREHOUSE: one or more, then SKIP stops (never the Silo)
        if op == OP_DISCARD_HAND and s.fr_aux[d] >= arg:
            return NO_QUESTION
        for t in range(N_DT):
            if s.hand[owner, t] > 0:
                mask[A_SELECT_HAND + t] = 1
                count += 1
        return _question(count, owner, op == OP_WAREHOUSE and s.fr_aux[d] >= 1)
    return NO_QUESTION


# ---- the ops ---------------------------------------------------------------------------------
# Each op is one branch of a kernel below, the twin of an ``_op_`` method of the reference
# (envs/radlands/reference.py); ops that share their code share a branch. A kernel is called
# as ``(s, d, action, op, arg, owner, decider, src, stage)``: run the op of frame ``d``, or
# resume it with ``action``; it returns WAIT, DONE or CONTINUE. What an op asks comes from
# _ask_target or _ask_other. The ops are grouped into six kernels, not one kernel each: every
# kernel costs Numba a compile of its own, and one per op made Radlands' cold compile 5% slower
# even as fragments (meeple_gym.core.compiler.internal), 13% as plain kernels; six fragments
# compile as fast as the single 671-line function did (benchmarks/README.md, "Radlands ops and
# long functions").


@kernel(fragment=True)
def _pick_borrowed(s, owner, user, that):
    """Which ability of person ``that`` to run (_ask_borrowed): the single usable one, -1 for
    none, or -2 while the owner is asked."""
    s.pend_mask[:] = 0
    if _ask_borrowed(s, owner, user, that, s.pend_mask) >= Q_COUNT:
        return -2
    k = -1
    for j in range(2):
        if s.pend_mask[A_CHOOSE + j] == 1:
            k = j
    s.pend_mask[:] = 0
    return k


@kernel(fragment=True)
def _ops_hit(s, d, action, op, arg, owner, decider, src, stage):
    """Ops that damage, destroy or restore (RAD-I1…I4): the twins of the reference's
    ``_op_damage``, ``_op_destroy``, ``_op_restore*``, ``_op_*_set`` and ``_op_column_*``."""
    if op == OP_DAMAGE or op == OP_DESTROY:
        # DAMAGE (RAD-I2, RAD-I4) and DESTROY (RAD-I1): the source card itself, or a chosen target
        if arg == T_SELF:
            pos = _find_uid(s, src)
            if pos >= 0:
                p, c, i = pos // 9, (pos % 9) // 3, pos % 3
                if op == OP_DAMAGE:
                    _hit(s, p, c, i)
                else:
                    _destroy_at(s, p, c, i)
            _next(s, d)
            return DONE
        if action < 0:
            q = _ask_target(s, d, op, arg, owner, decider, src, stage, s.pend_mask)
            if q < Q_COUNT:
                s.fr_flags[d] = 0
                _next(s, d)
                return DONE
            return _wait_for(s, q)
        pos = _decode_target(s, decider, action)
        p, c, i = pos // 9, (pos % 9) // 3, pos % 3
        s.fr_that[d] = s.ent_uid[p, c, i]
        if op == OP_DAMAGE:
            camp_hit = _hit(s, p, c, i)
        else:
            camp_hit = s.ent_kind[p, c, i] == CAMP
            _destroy_at(s, p, c, i)
        s.fr_flags[d] = 3 if camp_hit else 1
        _next(s, d)
        return DONE
    if op == OP_RESTORE or op == OP_RESTORE_READY or op == OP_RESTORE_MANY:
        # RESTORE, RESTORE_READY and RESTORE_MANY (Bonfire: one after another until SKIP)
        if action == A_SKIP:
            _next(s, d)
            return DONE
        if action >= 0:
            pos = _decode_target(s, owner, action)
            p, c, i = pos // 9, (pos % 9) // 3, pos % 3
            if s.ent_kind[p, c, i] == CAMP:
                s.camp_state[p, c] = 0
            else:
                s.ent_damaged[p, c, i] = 0
                # RAD-I3: a restored person is not ready (Atomic Garden's is)
                s.ent_not_ready[p, c, i] = 0 if op == OP_RESTORE_READY else 1
            if op != OP_RESTORE_MANY:
                s.fr_flags[d] = 1
                _next(s, d)
                return DONE
            s.pend_mask[:] = 0  # then offer the next one
        return _offer(s, d, _ask_target(s, d, op, arg, owner, decider, src, stage, s.pend_mask))
    if op == OP_DAMAGE_SET or op == OP_DESTROY_SET:
        # DAMAGE_SET and DESTROY_SET: the set is fixed before the first hit (subtleties §5)
        uids = np.zeros(2 * COLS * DEPTH, np.int16)
        enemy = 1 << (1 - owner)
        if arg == SET_ALL_UNPROT_ENEMY_PEOPLE:
            n = _uids_of(s, enemy, True, False, False, owner, uids)
        elif arg == SET_ALL_DAMAGED_ENEMY_PEOPLE:
            n = _uids_of(s, enemy, True, False, True, -1, uids)
        elif arg == SET_ALL_ENEMY_CAMPS:
            n = _uids_of(s, enemy, False, True, False, -1, uids)
        else:
            n = _uids_of(s, 3, True, False, False, -1, uids)
        _next(s, d)
        _apply_to_uids(s, uids, n, op == OP_DESTROY_SET)
        return DONE
    if op == OP_COLUMN_DAMAGE or op == OP_COLUMN_DESTROY_PEOPLE:
        # COLUMN_DAMAGE and COLUMN_DESTROY_PEOPLE: every card (person) of a chosen enemy column
        people_only = op == OP_COLUMN_DESTROY_PEOPLE
        if action < 0:
            return _offer(s, d, _ask_target(s, d, op, arg, owner, decider, src, stage, s.pend_mask))
        p = 1 - owner
        c = (action - A_SELECT_COLUMN) % 3
        uids = np.zeros(DEPTH, np.int16)
        n = 0
        for i in range(s.col_len[p, c]):
            if s.ent_kind[p, c, i] == PERSON or (not people_only and s.camp_state[p, c] < 2):
                uids[n] = s.ent_uid[p, c, i]
                n += 1
        _next(s, d)
        _apply_to_uids(s, uids, n, people_only)
        return DONE
    return DONE  # not reached: _exec sends each op to its kernel (OP_KERNEL)


@kernel(fragment=True)
def _ops_supply(s, d, action, op, arg, owner, decider, src, stage):
    """Cards, water and punks (RAD-I5…I8, RAD-A1): ``_op_draw``, ``_op_water``,
    ``_op_bombard_draw``, ``_op_raid``, ``_op_high_ground``, ``_op_gain_punk`` (and the
    Play-a-person action), ``_op_mill_junk``, ``_op_return_to_hand``, ``_op_draw_discard``."""
    if op == OP_DRAW:
        _next(s, d)
        _draw(s, owner, arg)  # RAD-I5
        return DONE
    if op == OP_WATER:
        s.water += arg  # RAD-I7
        _next(s, d)
        return DONE
    if op == OP_BOMBARD_DRAW:
        n = 0
        for c in range(COLS):
            if s.camp_state[1 - owner, c] == 2:
                n += 1
        _next(s, d)
        _draw(s, owner, n)
        return DONE
    if op == OP_RAID:
        _next(s, d)
        _raid(s, owner)  # RAD-I8
        return DONE
    if op == OP_HIGH_GROUND:
        s.high_ground[owner] = 1
        _next(s, d)
        return DONE
    if op == OP_GAIN_PUNK or op == I_PLAY:
        # GAIN_PUNK (RAD-I6) and the Play-a-person action (RAD-A1): stage 0 makes room (RAD-A2),
        # stage 1 places, stage 2 places after a sacrifice. A punk is optional, a play is not; a
        # punk is declined before the sacrifice, never after it (a free self-destroy would break
        # RAD-G2).
        optional = op == OP_GAIN_PUNK
        t = -1 if optional else arg
        if action == A_SKIP:
            _next(s, d)
            return DONE
        if stage == 0 and action >= 0:
            pos = _decode_target(s, owner, action)
            _destroy_at(s, owner, (pos % 9) // 3, pos % 3)
            s.fr_stage[d] = 2
            s.pend_mask[:] = 0
            stage = 2
            action = -1
        if stage == 0:
            if _board_full(s, owner):
                return _wait_for(
                    s, _ask_other(s, d, op, arg, owner, decider, src, stage, s.pend_mask)
                )
            s.fr_stage[d] = 1
            stage = 1
        if action < 0:
            return _offer(s, d, _ask_other(s, d, op, arg, owner, decider, src, stage, s.pend_mask))
        c = (action - A_PLACE) // 3
        i = (action - A_PLACE) % 3
        _next(s, d)
        if optional:
            card = _take_top(s)  # RAD-I6: the deck's top card, unseen
            if card < 0:
                return DONE
            _enter_person(s, owner, c, i, card, 1)
        else:
            s.water -= _play_cost(s, owner, t, c)
            s.hand[owner, t] -= 1
            _enter_person(s, owner, c, i, t, 0)
        return DONE
    if op == OP_MILL_JUNK:
        # Scientist: mill arg cards, then optionally run one of their junk effects
        if action < 0:
            s.revealed_n = 0
            for _ in range(arg):
                card = _take_top(s)
                if card < 0:
                    _next(s, d)
                    return DONE
                _discard_card(s, card)
                s.revealed[s.revealed_n] = card
                s.revealed_n += 1
            return _wait_for(s, _ask_other(s, d, op, arg, owner, decider, src, stage, s.pend_mask))
        _next(s, d)
        if action != A_SKIP:
            junk = DECK_TYPE_JUNK[s.revealed[action - A_CHOOSE]]
            _push_program(s, JUNK_PROG[junk], owner, 0, FIN_NONE, 0)
        return DONE
    if op == OP_RETURN_TO_HAND:
        if action < 0:
            q = _ask_target(s, d, op, arg, owner, decider, src, stage, s.pend_mask)
            return _offer(s, d, q)
        pos = _decode_target(s, owner, action)
        c, i = (pos % 9) // 3, pos % 3
        s.hand[owner, s.ent_type[owner, c, i]] += 1  # a punk comes back as a face-up card
        _remove_entity(s, owner, c, i)
        _next(s, d)
        return DONE
    if op == OP_DRAW_DISCARD or op == OP_DRAW_2_DISCARD_1:
        # Interrogate keeps one of the arg drawn; Supply Depot discards one of the 2 drawn
        if action < 0:
            n = arg if op == OP_DRAW_DISCARD else 2
            s.revealed_n = 0
            for _ in range(n):
                card = _take_top(s)
                if card < 0:
                    _next(s, d)
                    return DONE
                s.hand[owner, card] += 1
                s.revealed[s.revealed_n] = card
                s.revealed_n += 1
            return _wait_for(s, _ask_other(s, d, op, arg, owner, decider, src, stage, s.pend_mask))
        chosen = action - A_CHOOSE
        for k in range(s.revealed_n):
            drop = k != chosen if op == OP_DRAW_DISCARD else k == chosen
            if drop:
                t = s.revealed[k]
                s.hand[owner, t] -= 1
                _discard_card(s, t)
        s.revealed_n = 0
        _next(s, d)
        return DONE
    return DONE  # not reached: _exec sends each op to its kernel (OP_KERNEL)


@kernel(fragment=True)
def _ops_board(s, d, action, op, arg, owner, decider, src, stage):
    """Events and camps with procedures of their own: ``_op_advance_event``,
    ``_op_push_back``, resolving an event, ``_op_flip_punk``, ``_op_rebuild``, ``_op_juggernaut``,
    ``_op_truce``."""
    if op == OP_ADVANCE_EVENT:
        if action < 0:
            q = _ask_target(s, d, op, arg, owner, decider, src, stage, s.pend_mask)
            return _offer(s, d, q)
        k = action - A_SELECT_EVENT
        p = owner if k // 3 == 0 else 1 - owner
        j = k % 3
        e = s.queue[p, j]
        s.queue[p, j] = -1
        _next(s, d)
        if j == 0:
            # leaving slot 1 resolves the event for its owner (subtleties §9)
            _push_internal(s, I_RESOLVE_EVENT, e, p, 0)
        else:
            s.queue[p, j - 1] = e
        return DONE
    if op == OP_PUSH_BACK:
        if action < 0:
            return _offer(s, d, _ask_target(s, d, op, arg, owner, decider, src, stage, s.pend_mask))
        if action == A_CHOOSE:
            queue = s.queue[1 - owner]
            for j in (1, 0):  # slot 2 first, so both can move when slot 3 is free
                if queue[j] >= 0 and queue[j + 1] < 0:
                    queue[j + 1] = queue[j]
                    queue[j] = -1
        _next(s, d)
        return DONE
    if op == I_RESOLVE_EVENT:
        # an event (or Raiders) goes off: its program runs, then it is discarded (or returned)
        _next(s, d)
        s.event_resolved = 1
        if arg == RAIDERS:
            s.raiders_resolved[owner] = 1
            _push_program(s, RAIDERS_PROG, owner, 0, FIN_RAIDERS, 0)
        else:
            _push_program(s, EVENT_PROG[arg - FIRST_EVENT], owner, 0, FIN_DISCARD, arg)
        return DONE
    if op == OP_FLIP_PUNK:
        # Training Camp
        if action < 0:
            return _offer(s, d, _ask_target(s, d, op, arg, owner, decider, src, stage, s.pend_mask))
        pos = _decode_target(s, owner, action)
        c, i = (pos % 9) // 3, pos % 3
        t = s.ent_type[owner, c, i]
        _next(s, d)
        if t < FIRST_EVENT:
            # a person stays where it is, face up, as if it had just entered play
            s.ent_punk[owner, c, i] = 0
            ready = _trait_person_active(s, owner, P_KARLI) or t == P_RESCUE_TEAM
            s.ent_not_ready[owner, c, i] = 0 if ready else 1
            _count_entry(s, owner)
            if ENTER_PROG[t] >= 0:
                _push_program(s, ENTER_PROG[t], owner, s.ent_uid[owner, c, i], FIN_NONE, 0)
        else:
            _remove_entity(s, owner, c, i)
            _discard_card(s, t)
            s.water += 1
            _push_internal(s, OP_GAIN_PUNK, 0, owner, 0)
        return DONE
    if op == OP_REBUILD:
        # Construction Yard: rebuild a destroyed camp, then destroy this camp
        if action < 0:
            return _offer(s, d, _ask_target(s, d, op, arg, owner, decider, src, stage, s.pend_mask))
        pos = _decode_target(s, owner, action)
        c = (pos % 9) // 3
        s.camp_state[owner, c] = 0
        s.camp_used[owner, c] = 1  # the rebuilt camp counts as used this turn
        _next(s, d)
        here = _find_uid(s, src)
        if here >= 0:
            _destroy_at(s, owner, (here % 9) // 3, here % 3)
        return DONE
    if op == OP_JUGGERNAUT:
        here = _find_uid(s, src)
        if stage == 0:
            if here < 0:
                _next(s, d)
                return DONE
            c, i = (here % 9) // 3, here % 3
            if s.juggernaut_moves[owner] < 2:
                # one space forward, even in an empty column; a person it passes drops behind it
                # (subtleties §15)
                s.juggernaut_moves[owner] += 1
                if i < s.col_len[owner, c] - 1:
                    _move_entity(s, owner, c, i, i + 1)
                _next(s, d)
                return DONE
            # third move: back to its starting spot, and the opponent destroys one of their camps
            s.juggernaut_moves[owner] = 0
            if i > 0:
                _move_entity(s, owner, c, i, 0)
            s.fr_stage[d] = 1
            return _offer(s, d, _ask_target(s, d, op, arg, owner, decider, src, 1, s.pend_mask))
        pos = _decode_target(s, 1 - owner, action)
        _next(s, d)
        _destroy_at(s, pos // 9, (pos % 9) // 3, pos % 3)
        return DONE
    if op == OP_TRUCE:
        for p in range(N_PLAYERS):
            for c in range(COLS):
                for i in range(s.col_len[p, c] - 1, -1, -1):
                    if s.ent_kind[p, c, i] == PERSON:
                        s.hand[p, s.ent_type[p, c, i]] += 1
                        _remove_entity(s, p, c, i)
        _next(s, d)
        return DONE
    return DONE  # not reached: _exec sends each op to its kernel (OP_KERNEL)


@kernel(fragment=True)
def _ops_sacrifice(s, d, action, op, arg, owner, decider, src, stage):
    """Ops that make a player give up cards or move people: ``_op_mercenary``,
    ``_op_octagon``, ``_op_famine``, ``_op_rearrange``."""
    if op == OP_MERCENARY:
        # the opponent destroys one of their cards (stage 1) or discards 2 (stage 2)
        opp = 1 - owner
        if stage == 0:
            if action < 0:
                q = _ask_other(s, d, op, arg, owner, decider, src, stage, s.pend_mask)
                return _wait_for(s, q)
            s.fr_stage[d] = 1 if action == A_CHOOSE else 2
            s.pend_mask[:] = 0
            stage = s.fr_stage[d]
            action = -1
        if stage == 1:
            if action < 0:
                q = _ask_other(s, d, op, arg, owner, decider, src, stage, s.pend_mask)
                return _wait_for(s, q)
            pos = _decode_target(s, opp, action)
            _next(s, d)
            _destroy_at(s, pos // 9, (pos % 9) // 3, pos % 3)
            return DONE
        if action >= 0:
            t = action - A_SELECT_HAND
            s.hand[opp, t] -= 1
            _discard_card(s, t)
            s.fr_aux[d] += 1
            s.pend_mask[:] = 0
        if s.fr_aux[d] >= 2:
            _next(s, d)
            return DONE
        return _wait_for(s, _ask_other(s, d, op, arg, owner, decider, src, stage, s.pend_mask))
    if op == OP_OCTAGON:
        # the owner sacrifices a person; if they did, the opponent sacrifices one
        if stage == 0:
            if action < 0:
                return _offer(s, d, _ask_target(s, d, op, arg, owner, decider, src, 0, s.pend_mask))
            pos = _decode_target(s, owner, action)
            _destroy_at(s, owner, (pos % 9) // 3, pos % 3)
            s.fr_stage[d] = 1
            s.pend_mask[:] = 0
            return _offer(s, d, _ask_target(s, d, op, arg, owner, decider, src, 1, s.pend_mask))
        pos = _decode_target(s, 1 - owner, action)
        _next(s, d)
        _destroy_at(s, 1 - owner, (pos % 9) // 3, pos % 3)
        return DONE
    if op == OP_FAMINE:
        # stage 0: the owner keeps one person, stage 1: the opponent does (subtleties §16)
        while stage < 2:
            who_keeps = owner if stage == 0 else 1 - owner
            if action < 0:
                q = _ask_target(s, d, op, arg, owner, decider, src, stage, s.pend_mask)
                if q >= Q_COUNT:
                    return _wait_for(s, q)
            else:
                pos = _decode_target(s, who_keeps, action)
                keep = s.ent_uid[who_keeps, (pos % 9) // 3, pos % 3]
                uids = np.zeros(2 * COLS, np.int16)
                n = _uids_of(s, 1 << who_keeps, True, False, False, -1, uids)
                for k in range(n):
                    if uids[k] != keep:
                        here = _find_uid(s, uids[k])
                        _destroy_at(s, who_keeps, (here % 9) // 3, here % 3)
                action = -1
                s.pend_mask[:] = 0
            stage += 1
            s.fr_stage[d] = stage
        _next(s, d)
        return DONE
    if op == OP_REARRANGE:
        # High Ground. Stage 0: pick a person of yours (or SKIP to stop); stage 1: where it goes.
        # Dropped into a full column it takes the place of a person there, who is lifted in turn,
        # so full columns can swap people ("rearrange as you like"). fr_aux counts the drops.
        if action == A_SKIP:
            _next(s, d)
            return DONE
        if stage == 1 and action >= 0:
            c = (action - A_PLACE) // 3
            i = (action - A_PLACE) % 3
            s.fr_aux[d] += 1
            s.pend_mask[:] = 0
            if s.col_len[owner, c] == DEPTH:
                _swap_lifted(s, owner, c, i)
                return _wait_for(s, _ask_other(s, d, op, arg, owner, decider, src, 1, s.pend_mask))
            _drop(s, owner, c, i)
            s.fr_stage[d] = 0
            stage = 0
            action = -1
        if stage == 0:
            if action < 0:
                q = _ask_other(s, d, op, arg, owner, decider, src, 0, s.pend_mask)
                return _offer(s, d, q)
            pos = _decode_target(s, owner, action)
            _lift(s, owner, (pos % 9) // 3, pos % 3)
            s.fr_stage[d] = 1
            s.pend_mask[:] = 0
        return _wait_for(s, _ask_other(s, d, op, arg, owner, decider, src, 1, s.pend_mask))
    return DONE  # not reached: _exec sends each op to its kernel (OP_KERNEL)


@kernel(fragment=True)
def _ops_flow(s, d, action, op, arg, owner, decider, src, stage):
    """Choices between steps and hand choices: CHOOSE, AND_OR and IF (the reference's
    ``_run``), ``_op_discard_hand`` and ``_op_warehouse``."""
    if op == OP_CHOOSE:
        # CHOOSE: run one of the next arg steps; with none possible, skip them all
        prog = s.fr_prog[d]
        pc = s.fr_pc[d]
        if action < 0:
            q = _ask_other(s, d, op, arg, owner, decider, src, stage, s.pend_mask)
            if q < Q_COUNT:
                s.fr_pc[d] = pc + 1 + arg
                return DONE
            return _wait_for(s, q)
        k = action - A_CHOOSE
        s.fr_pc[d] = pc + 1 + arg
        s.fr_stage[d] = 0
        _push(s, prog, pc + 1 + k, pc + 2 + k, owner, src, 0, 0, FIN_NONE, 0)
        return DONE
    if op == OP_AND_OR:
        # AND_OR: the next step, the one after it, or both
        prog = s.fr_prog[d]
        pc = s.fr_pc[d]
        if action < 0:
            q = _ask_other(s, d, op, arg, owner, decider, src, stage, s.pend_mask)
            if q < Q_COUNT:
                s.fr_pc[d] = pc + 3
                return DONE
            return _wait_for(s, q)
        k = action - A_CHOOSE
        s.fr_pc[d] = pc + 3
        s.fr_stage[d] = 0
        if k != 0:  # the second step runs after the first, so it goes on the stack first
            _push(s, prog, pc + 2, pc + 3, owner, src, 0, 0, FIN_NONE, 0)
        if k != 1:
            _push(s, prog, pc + 1, pc + 2, owner, src, 0, 0, FIN_NONE, 0)
        return DONE
    if op == OP_IF:
        # when the condition is false, skip the next step
        if _cond(s, owner, arg, s.fr_flags[d]):
            _next(s, d)
        else:
            s.fr_pc[d] += 2
            s.fr_stage[d] = 0
        return DONE
    if op == OP_DISCARD_HAND or op == OP_WAREHOUSE:
        # DISCARD_HAND and WAREHOUSE (SKIP: stop discarding, draw that many plus one)
        if action == A_SKIP:
            n = s.fr_aux[d] + 1
            _next(s, d)
            _draw(s, owner, n)
            return DONE
        if action >= 0:
            t = action - A_SELECT_HAND
            s.hand[owner, t] -= 1
            _discard_card(s, t)
            s.fr_aux[d] += 1
            s.pend_mask[:] = 0
        q = _ask_other(s, d, op, arg, owner, decider, src, stage, s.pend_mask)
        if q >= Q_COUNT:
            return _wait_for(s, q)
        n = s.fr_aux[d] + 1
        _next(s, d)
        if op == OP_WAREHOUSE:
            _draw(s, owner, n)  # an empty hand ends the discarding too
        return DONE
    return DONE  # not reached: _exec sends each op to its kernel (OP_KERNEL)


@kernel(fragment=True)
def _ops_borrow(s, d, action, op, arg, owner, decider, src, stage):
    """Borrowed abilities: ``_op_mimic``, ``_op_adrenaline``, ``_op_parachute``."""
    if op == OP_MIMIC or op == OP_ADRENALINE:
        # MIMIC and ADRENALINE: pick a person (stage 0), run one of its abilities (1), and after
        # it (2) Adrenaline Lab destroys that person
        adrenaline = op == OP_ADRENALINE
        if stage == 0:
            if action < 0:
                return _offer(s, d, _ask_other(s, d, op, arg, owner, decider, src, 0, s.pend_mask))
            pos = _decode_target(s, owner, action)
            s.fr_that[d] = s.ent_uid[pos // 9, (pos % 9) // 3, pos % 3]
            s.fr_stage[d] = 1
            stage = 1
            action = -1
        if stage == 1:
            pos = _find_uid(s, s.fr_that[d])
            p, c, i = pos // 9, (pos % 9) // 3, pos % 3
            user = s.fr_that[d] if adrenaline else src
            if action < 0:
                k = _pick_borrowed(s, owner, user, s.fr_that[d])
                if k == -2:
                    return _wait(s, owner, False)
            else:
                k = action - A_CHOOSE
            t = s.ent_type[p, c, i]
            s.fr_stage[d] = 2
            if k >= 0:
                s.water -= PERSON_ABILITY_COST[t, k]
                _push_program(s, PERSON_PROG[t, k], owner, user, FIN_NONE, 0)
            return CONTINUE
        if adrenaline:
            here = _find_uid(s, s.fr_that[d])
            if here >= 0:
                _destroy_at(s, here // 9, (here % 9) // 3, here % 3)
        _next(s, d)
        return DONE
    if op == OP_PARACHUTE:
        # stage 0: pick the person; 1: make room; 2: place; 3: pick its ability; 4: damage it
        if stage == 0:
            if action < 0:
                return _offer(s, d, _ask_other(s, d, op, arg, owner, decider, src, 0, s.pend_mask))
            s.fr_aux[d] = action - A_SELECT_HAND
            s.fr_stage[d] = 1
            stage = 1
            action = -1
            s.pend_mask[:] = 0
        t = s.fr_aux[d]
        if stage == 1:
            if action >= 0:
                pos = _decode_target(s, owner, action)
                _destroy_at(s, owner, (pos % 9) // 3, pos % 3)
                action = -1
                s.pend_mask[:] = 0
            elif _board_full(s, owner):
                # only people whose column can then take the person and pay its ability
                return _wait_for(s, _ask_other(s, d, op, arg, owner, decider, src, 1, s.pend_mask))
            s.fr_stage[d] = 2
            stage = 2
        if stage == 2:
            if action < 0:
                return _offer(s, d, _ask_other(s, d, op, arg, owner, decider, src, 2, s.pend_mask))
            c = (action - A_PLACE) // 3
            i = (action - A_PLACE) % 3
            s.water -= _play_cost(s, owner, t, c)
            s.hand[owner, t] -= 1
            s.fr_stage[d] = 3
            s.fr_that[d] = _enter_person(s, owner, c, i, t, 0)
            return CONTINUE
        if stage == 3:
            if _find_uid(s, s.fr_that[d]) < 0:
                _next(s, d)
                return DONE
            if action < 0:
                k = _pick_borrowed(s, owner, s.fr_that[d], s.fr_that[d])
                if k == -2:
                    return _wait(s, owner, False)
            else:
                k = action - A_CHOOSE
            s.fr_stage[d] = 4
            if k >= 0:
                s.water -= PERSON_ABILITY_COST[t, k]
                _push_program(s, PERSON_PROG[t, k], owner, s.fr_that[d], FIN_NONE, 0)
            return CONTINUE
        here = _find_uid(s, s.fr_that[d])
        _next(s, d)
        if here >= 0:
            _hit(s, here // 9, (here % 9) // 3, here % 3)
        return DONE
    return DONE  # not reached: _exec sends each op to its kernel (OP_KERNEL)


# Which kernel runs each op (_exec): 0 _ops_hit, 1 _ops_supply, 2 _ops_board, 3 _ops_sacrifice,
# 4 _ops_flow, 5 _ops_borrow; -1 for none.
_OP_KERNELS = (
    ("DAMAGE", "DESTROY", "RESTORE", "RESTORE_READY", "RESTORE_MANY", "DAMAGE_SET", "DESTROY_SET")
    + ("COLUMN_DAMAGE", "COLUMN_DESTROY_PEOPLE"),
    ("DRAW", "WATER", "BOMBARD_DRAW", "RAID", "HIGH_GROUND", "GAIN_PUNK", "MILL_JUNK")
    + ("RETURN_TO_HAND", "DRAW_DISCARD", "DRAW_2_DISCARD_1"),
    ("ADVANCE_EVENT", "PUSH_BACK", "FLIP_PUNK", "REBUILD", "JUGGERNAUT", "TRUCE"),
    ("MERCENARY", "OCTAGON", "FAMINE", "REARRANGE"),
    ("CHOOSE", "AND_OR", "IF", "DISCARD_HAND", "WAREHOUSE"),
    ("MIMIC", "ADRENALINE", "PARACHUTE"),
)
OP_KERNEL = np.full(I_RESOLVE_EVENT + 1, -1, np.int8)
for _k, _names in enumerate(_OP_KERNELS):
    for _name in _names:
        OP_KERNEL[OP[_name]] = _k
OP_KERNEL[I_PLAY] = 1
OP_KERNEL[I_RESOLVE_EVENT] = 2
assert (OP_KERNEL[: len(OP)] >= 0).all(), "every table op needs a kernel"


# Standalone: the interpreter's op dispatch is most of Radlands' code, and _run, _begin_turn and
# _end_turn each used to embed a copy of it (benchmarks/README.md, Compile time).
@standalone_kernel(record_arg(STATE_DTYPE), types.int64, types.int64, returns=types.int64)
def _exec(s, d, action):
    """Run (or resume with ``action``) the op at the top frame ``d``: WAIT, DONE or CONTINUE."""
    prog = s.fr_prog[d]
    if prog == INTERNAL:
        op = s.fr_op[d]
        arg = s.fr_arg[d]
        who = 0
    else:
        pc = s.fr_pc[d]
        op = CODE[prog, pc, 0]
        arg = CODE[prog, pc, 1]
        who = CODE[prog, pc, 2]
    owner = s.fr_owner[d]
    src = s.fr_src[d]
    decider = owner if who == 0 else 1 - owner
    stage = s.fr_stage[d]
    if action < 0:
        s.pend_mask[:] = 0
    kind = OP_KERNEL[op]
    if kind == 0:
        return _ops_hit(s, d, action, op, arg, owner, decider, src, stage)
    if kind == 1:
        return _ops_supply(s, d, action, op, arg, owner, decider, src, stage)
    if kind == 2:
        return _ops_board(s, d, action, op, arg, owner, decider, src, stage)
    if kind == 3:
        return _ops_sacrifice(s, d, action, op, arg, owner, decider, src, stage)
    if kind == 4:
        return _ops_flow(s, d, action, op, arg, owner, decider, src, stage)
    if kind == 5:
        return _ops_borrow(s, d, action, op, arg, owner, decider, src, stage)
    _next(s, d)  # an op with nothing to do
    return DONE


@kernel
def _pop(s):
    d = s.depth - 1
    if s.fr_fin[d] == FIN_DISCARD:
        _discard_card(s, s.fr_fin_arg[d])  # a resolved event goes to the discard pile
    s.depth = d  # FIN_RAIDERS: Raiders simply return to their owner (not in the queue)


@kernel
def _run(s):
    """Run the VM until it needs a decision or is empty; then continue the turn."""
    while s.terminated == 0:
        if s.depth == 0:
            if s.in_events_phase == 1:
                _finish_events_phase(s)
                if s.depth > 0:
                    continue
                return
            s.phase = PHASE_ACTIONS
            s.current_player = s.turn_player
            return
        d = s.depth - 1
        if s.fr_pc[d] >= s.fr_end[d]:
            _pop(s)
            continue
        if _exec(s, d, -1) == WAIT:
            return


@kernel
def _begin_turn(s):
    # RAD-T1: the event in slot 1 resolves first; the queue then moves up
    p = s.turn_player
    s.in_events_phase = 1
    e = s.queue[p, 0]
    if e >= 0:
        s.queue[p, 0] = -1
        _push_internal(s, I_RESOLVE_EVENT, e, p, 0)
    _run(s)


@kernel
def _finish_events_phase(s):
    p = s.turn_player
    s.in_events_phase = 0
    q = s.queue[p]
    for j in range(2):
        if q[j] < 0:
            q[j] = q[j + 1]
            q[j + 1] = -1
    # RAD-T2: draw, then water (1 on the first player's very first turn)
    _draw(s, p, 1)
    if s.terminated == 1:
        return
    s.water = 3 if s.first_turn_done == 1 else 1
    s.first_turn_done = 1
    s.phase = PHASE_ACTIONS
    s.current_player = p


@kernel
def _end_turn(s):
    # RAD-T5 and RAD-R1/R2: water and every this-turn marker go away
    s.water = 0
    for p in range(N_PLAYERS):
        for c in range(COLS):
            s.camp_used[p, c] = 0
            for i in range(DEPTH):
                s.ent_not_ready[p, c, i] = 0
                s.ent_used_once[p, c, i] = 0
        s.entered_this_turn[p] = 0
        s.raiders_resolved[p] = 0
        s.high_ground[p] = 0
    s.event_resolved = 0
    s.zeto_used = 0
    s.vera_used = 0
    s.turn_count += 1
    s.turn_player = 1 - s.turn_player
    _begin_turn(s)


@kernel
def _finish_draft(s):
    for p in range(N_PLAYERS):
        for c in range(COLS):
            camp = s.camp[p, c]
            s.col_len[p, c] = 1
            s.ent_kind[p, c, 0] = CAMP
            s.ent_uid[p, c, 0] = p * 3 + c + 1
            s.camp_state[p, c] = 2 if camp == C_OBELISK else 0  # Obelisk: destroyed at start
    for p in range(N_PLAYERS):  # RAD-S4: draw the camps' draw numbers, player 0 first
        total = 0
        for c in range(COLS):
            total += CAMP_DRAW[s.camp[p, c]]
        _draw(s, p, total)
    s.turn_player = s.first_player
    # The queues are empty at the start, so the first events phase has nothing to resolve:
    # straight to replenish (keeping the VM out of init_game keeps it quick to compile).
    _finish_events_phase(s)


# Option bits of the packed ``options`` integer (envs/radlands/spec.py encodes them).
OPTION_RAIDERS_SLOT_2 = 1  # Raiders enter slot 2 (the printed card) instead of 3 (RAD-I8)
OPTION_VERA_PER_CARD = 2  # Vera Vosh: each card's first use stays ready
OPTION_ZETO_RESOLVED = 4  # Zeto Khan: only an event that went off at once uses up the turn
OPTION_FIRST_GAME_CAMPS = 8  # RAD-S3's fixed first-game camps, no draft


@standalone_kernel(STATES, types.int64, types.int64, types.uint64, types.int64)
def init_game(states, g, num_players, key, options=0):
    """A fresh game (RAD-S1…S5) from RNG word ``key`` with the packed ``options`` bits."""
    raiders_slot = 2 if options & OPTION_RAIDERS_SLOT_2 else 3
    vera = VERA_PER_CARD if options & OPTION_VERA_PER_CARD else VERA_PER_TURN
    zeto = ZETO_RESOLVED if options & OPTION_ZETO_RESOLVED else ZETO_PLACED
    first_game = (options & OPTION_FIRST_GAME_CAMPS) != 0
    clear_record(states, g)  # every field 0; the lines below set the rest
    s = states[g]
    s.rng[0] = key
    s.num_players = 2
    s.winner = -1
    s.opt_raiders_slot = raiders_slot
    s.opt_vera = vera
    s.opt_zeto = zeto
    s.camp[:, :] = -1
    s.ent_kind[:, :, :] = EMPTY
    s.ent_type[:, :, :] = -1
    s.next_uid = 7
    s.discard[:] = -1
    s.queue[:, :] = -1
    s.revealed[:] = -1
    # 1. camps (RAD-S1, RAD-S3)
    camps = np.arange(N_CAMPS).astype(np.int8)
    if first_game:
        for p in range(N_PLAYERS):
            for k in range(3):
                s.offer[p, k] = FIRST_GAME[p, k]
                s.kept[p, k] = 1
                s.camp[p, k] = FIRST_GAME[p, k]
            for k in range(3, 6):
                s.offer[p, k] = -1
            s.kept_n[p] = 3
    else:
        shuffle(s.rng, camps, N_CAMPS)
        for p in range(N_PLAYERS):
            for k in range(6):
                s.offer[p, k] = camps[p * 6 + k]
    # 2. the draw deck (RAD-S2)
    n = 0
    for t in range(N_DT):
        for _ in range(DECK_TYPE_COUNTS[t]):
            s.deck[n] = t
            n += 1
    s.deck_n = n
    shuffle(s.rng, s.deck, n)
    # 3. first player (RAD-S5)
    s.first_player = randint(s.rng, 0, 2)
    if first_game:
        _finish_draft(s)
    else:
        s.phase = PHASE_DRAFT
        s.current_player = 0


# ---- legal actions and stepping --------------------------------------------------------------
@kernel
def _event_playable(s, p, e):
    t = FIRST_EVENT + e
    if s.hand[p, t] <= 0 or EVENT_COST[e] > s.water:
        return False
    if EVENT_BOMB[e] == 0 or (s.zeto_used == 0 and _trait_person_active(s, p, P_ZETO)):
        return True
    for j in range(EVENT_BOMB[e] - 1, 3):  # RAD-A4: first free slot at or behind its number
        if s.queue[p, j] < 0:
            return True
    return False


@standalone_kernel(STATES, types.int64, array_arg(np.int8))
def legal_mask_into(states, g, mask):
    s = states[g]
    mask[:] = 0
    if s.phase == PHASE_OVER:
        return
    if s.phase == PHASE_DECISION:
        copy_values(mask, s.pend_mask)
        return
    p = s.current_player
    if s.phase == PHASE_DRAFT:
        for k in range(6):
            if s.kept[p, k] == 0:
                mask[A_KEEP + k] = 1
        return
    # One pass over the hand: most of the 36 types are not held, and the person and event
    # checks only matter for held ones (the mask is ~40% of a step, benchmarks/README.md).
    for t in range(N_DT):
        if s.hand[p, t] <= 0:
            continue
        mask[A_JUNK + t] = 1  # RAD-A5: junking is always allowed
        if t < N_PT:
            if _can_play_person(s, p, t, s.water):
                mask[A_PLAY_PERSON + t] = 1
        elif _event_playable(s, p, t - FIRST_EVENT):
            mask[A_PLAY_EVENT + t - FIRST_EVENT] = 1
    if s.silo_in_hand[p] == 1:
        mask[A_JUNK_SILO] = 1
    elif s.water >= 1:
        mask[A_TAKE_SILO] = 1  # RAD-A6
    if s.water >= 2:
        mask[A_DRAW] = 1  # RAD-A3
    argo = 1 if _trait_person_active(s, p, P_ARGO) else 0  # once, not once per card
    for c in range(COLS):
        for i in range(s.col_len[p, c]):
            if not _is_ready(s, p, c, i):
                continue
            for k in range(3):
                prog = _ability_prog_given(s, p, c, i, k, argo)
                if prog < 0:
                    continue
                cost = _ability_cost(s, p, c, i, k)
                if cost > s.water:
                    continue
                if _program_usable(s, prog, p, s.ent_uid[p, c, i]):
                    mask[A_USE + (c * 3 + i) * 3 + k] = 1
    mask[A_END_TURN] = 1


@kernel
def _pending_choices(s, mask):
    """The decision the top frame is waiting for, recomputed from the position alone: fills
    ``mask`` with the legal choices exactly as ``_exec`` offers them (both ask _ask_target
    and _ask_other) and returns the decider, or -1 with ``mask`` cleared when the top frame
    cannot be waiting there (an unreachable stage or no choice).

    Only reads the record; snapshot.from_dict has already checked every index it uses (the
    frame's program, pc, stage, aux and that uid)."""
    mask[:] = 0
    d = s.depth - 1
    if d < 0:
        return -1
    prog = s.fr_prog[d]
    if prog == INTERNAL:
        op = s.fr_op[d]
        arg = s.fr_arg[d]
        who = 0
    else:
        op = CODE[prog, s.fr_pc[d], 0]
        arg = CODE[prog, s.fr_pc[d], 1]
        who = CODE[prog, s.fr_pc[d], 2]
    owner = s.fr_owner[d]
    decider = owner if who == 0 else 1 - owner
    src = s.fr_src[d]
    stage = s.fr_stage[d]
    q = _ask_target(s, d, op, arg, owner, decider, src, stage, mask)
    if q == NO_QUESTION:
        q = _ask_other(s, d, op, arg, owner, decider, src, stage, mask)
    if q < Q_COUNT:
        mask[:] = 0
        return -1
    if q & Q_SKIP:
        mask[A_SKIP] = 1
    return q & 1


@kernel
def pending_mask_into(states, g, mask):
    """Recompute game g's pending decision into ``mask``; returns its decider or -1."""
    return _pending_choices(states[g], mask)


@standalone_kernel(STATES, types.int64, types.int64)
def apply_action(states, g, action):
    """Apply a legal action (legality is the caller's job)."""
    s = states[g]
    s.step_count += 1
    if s.phase == PHASE_DRAFT:
        p = s.current_player
        s.kept[p, action - A_KEEP] = 1
        s.camp[p, s.kept_n[p]] = s.offer[p, action - A_KEEP]  # keeping order = column order
        s.kept_n[p] += 1
        if s.kept_n[p] == 3:
            if p == 0:
                s.current_player = 1
            else:
                _finish_draft(s)
    elif s.phase == PHASE_DECISION:
        d = s.depth - 1
        if _exec(s, d, action) != WAIT:
            _run(s)
    else:
        p = s.turn_player
        if action < A_PLAY_EVENT:
            _push_internal(s, I_PLAY, action - A_PLAY_PERSON, p, 0)
            _run(s)
        elif action < A_JUNK:
            e = action - A_PLAY_EVENT
            t = FIRST_EVENT + e
            s.hand[p, t] -= 1
            s.water -= EVENT_COST[e]
            now = _event_goes_off_now(s, p) or EVENT_BOMB[e] == 0
            if now:
                if s.opt_zeto == ZETO_RESOLVED and p == s.turn_player:
                    s.zeto_used = 1  # an event went off at once: Zeto's chance is spent
                _push_internal(s, I_RESOLVE_EVENT, t, p, 0)
                _run(s)
            else:
                for j in range(EVENT_BOMB[e] - 1, 3):
                    if s.queue[p, j] < 0:
                        s.queue[p, j] = t
                        break
        elif action < A_JUNK_SILO:
            t = action - A_JUNK
            s.hand[p, t] -= 1
            _discard_card(s, t)
            _push_program(s, JUNK_PROG[DECK_TYPE_JUNK[t]], p, 0, FIN_NONE, 0)
            _run(s)
        elif action == A_JUNK_SILO:
            s.silo_in_hand[p] = 0  # RAD-A5: the Silo returns to its owner's area
            s.water += 1
        elif action == A_TAKE_SILO:
            s.water -= 1
            s.silo_in_hand[p] = 1
        elif action == A_DRAW:
            s.water -= 2
            _draw(s, p, 1)
        elif action < A_END_TURN:
            k = action - A_USE
            c, i, a = k // 9, (k // 3) % 3, k % 3
            cost = _ability_cost(s, p, c, i, a)
            if cost > 0:
                s.water -= cost
            prog = _ability_prog(s, p, c, i, a)
            uid = s.ent_uid[p, c, i]
            _mark_used(s, p, c, i)
            _push_program(s, prog, p, uid, FIN_NONE, 0)
            _run(s)
        else:
            _end_turn(s)
    if s.terminated == 0 and s.step_count >= STEP_CAP:
        s.truncated = 1
        s.phase = PHASE_OVER
        _record_scores(s)


@kernel
def rewards_into(s, out):
    """+1 to the winner, -1 to the loser; 0 to both on a draw or truncation."""
    out[:] = 0.0
    if s.terminated == 1 and s.winner >= 0:
        out[s.winner] = 1.0
        out[1 - s.winner] = -1.0


# ---- batched kernels (same contract as every game, see envs/core/game.py) -------------------
# Numba cannot cache closures or kernels that take other kernels as arguments, so each game
# keeps these thin loops next to its own rules.


reset_batch, legal_masks_batch, step_batch = batch_kernels(
    "radlands", apply_action, legal_mask_into, init_game, rewards_into
)
