"""A rule-of-thumb Radlands player that sees only the observation vector and the action mask.

It decodes the board with the layout of ``meeple_gym.encoders.radlands`` and reads the card
tables (``meeple_gym.radlands.data``) and the effect programs (``meeple_gym.radlands.effects``,
as compiled in ``meeple_gym.radlands.rules``); nothing else. Every card effect is scored by
walking its program: a hit on an unprotected enemy camp is worth a lot (most when it destroys a
camp, everything when it wins), killing people less, losses of its own cards count against.

Actions phase (RAD-T3): every legal action gets a score and the best one above zero is taken,
else ``END_TURN``. Roughly in order of worth: damage at enemy camps (finishing damaged ones),
raiding when its Raiders would resolve, playing people in front of unprotected live camps
(RAD-B3), restoring own damaged camps, other abilities, events; then the water sinks: junk
cards whose junk effect beats keeping them, draw a card with 2 spare water, bank 1 spare water
in the Water Silo (taken only at 1 water, junked only when that enables a card; no loop).

Decisions: targets by the same scores (the opponent's cards: most damage; its own cards, e.g.
the camp Raiders damage or a sacrifice: the least loss), placements in front of unprotected
live camps, keep/discard the cards of most/least worth, optional steps taken when they help.
Draft (RAD-S3): keep the camps with the best static worth.
"""

from __future__ import annotations

import numpy as np
from numba import types

from meeple_gym.baselines.kernel_agent import KernelAgent
from meeple_gym.core.jit import array_arg, kernel, record_arg, standalone_kernel
from meeple_gym.core.masks import _legal_or, _onehot
from meeple_gym.encoders import radlands as E
from meeple_gym.radlands import data as D
from meeple_gym.radlands import rules as R

# ---- static worth of cards (own judgement, rough units of "one camp hit ~ 5") ---------------
_PERSON_WORTH = {
    "argo_yesky": 5.0, "assassin": 3.0, "cult_leader": 2.0, "doomsayer": 2.0,
    "exterminator": 2.0, "gunner": 3.0, "holdout": 4.0, "karli_blaze": 5.0, "looter": 4.0,
    "magnus_karv": 5.0, "mimic": 2.5, "molgur_stang": 7.0, "muse": 3.5, "mutant": 3.0,
    "pyromaniac": 5.0, "rabble_rouser": 3.0, "repair_bot": 2.5, "rescue_team": 1.0,
    "scientist": 1.5, "scout": 3.0, "sniper": 5.0, "vanguard": 4.0, "vera_vosh": 3.0,
    "vigilante": 2.5, "wounded_soldier": 3.5, "zeto_khan": 2.0,
}  # fmt: skip
_EVENT_WORTH = {
    "banish": 3.0, "bombardment": 5.0, "famine": 1.5, "high_ground": 2.0, "interrogate": 1.5,
    "napalm": 3.0, "radiation": 1.5, "strafe": 2.5, "truce": 0.5, "uprising": 3.0,
}  # fmt: skip
# Draft worth of a camp's ability; its draw number is added on top (RAD-K1).
_CAMP_WORTH = {
    "adrenaline_lab": 1.0, "arcade": 1.5, "atomic_garden": 2.0, "blood_bank": 1.0,
    "bonfire": 1.5, "cache": 1.0, "cannon": 2.5, "catapult": 3.0, "command_post": 3.0,
    "construction_yard": 0.5, "garage": 2.5, "juggernaut": 3.0, "labor_camp": 0.5,
    "mercenary_camp": 2.5, "mulcher": 1.0, "nest_of_spies": 1.5, "oasis": 1.0,
    "obelisk": -4.0, "omen_clock": 1.0, "outpost": 2.5, "parachute_base": 0.5, "pillbox": 3.0,
    "railgun": 4.0, "reactor": 0.5, "resonator": 2.0, "scavenger_camp": 2.0,
    "scud_launcher": 4.0, "supply_depot": 2.5, "the_octagon": 1.0, "training_camp": 1.0,
    "transplant_lab": 1.0, "victory_totem": 3.0, "warehouse": 0.5, "watchtower": 1.5,
}  # fmt: skip
PERSON_WORTH = np.array([_PERSON_WORTH[k] for k in D.PERSON_KEYS])
CARD_WORTH = np.concatenate([PERSON_WORTH, [_EVENT_WORTH[k] for k in D.EVENT_KEYS]])
CAMP_DRAFT_WORTH = np.array([_CAMP_WORTH[k] for k in D.CAMP_KEYS]) + D.CAMP_DRAW
DECK_TYPE_COST = D.DECK_TYPE_COST.astype(np.int64)

PUNK_WORTH = 0.5
WATER_WEIGHT = 0.4  # a water spent on one thing is not spent on another
CAMP_KILL = 10.0
CAMP_HIT = 5.0
WIN = 100.0
RESTORE_CAMP = 4.5
DRAW_WORTH = 1.0
DELAY = 0.7  # a queued event resolves later, on a board that may have changed
NEG = -1e9

RAIDERS_CODE = R.N_ET  # queue code of the Raiders in the decoded board

BOARD_DTYPE = np.dtype(
    [
        ("kind", np.int64, (2, 3, 3)),  # 0 empty, 1 camp, 2 person (side 0 = own)
        ("typ", np.int64, (2, 3, 3)),  # person type, -1 for a punk
        ("dmg", np.int64, (2, 3, 3)),  # person damaged
        ("ready", np.int64, (2, 3, 3)),
        ("clen", np.int64, (2, 3)),
        ("camp", np.int64, (2, 3)),  # camp id, -1 during the draft
        ("cstate", np.int64, (2, 3)),  # 0 intact, 1 damaged, 2 destroyed
        ("cpos", np.int64, (2, 3)),
        ("queue", np.int64, (2, 3)),  # -1, event id, or RAIDERS_CODE
        ("people", np.int64, (2,)),
        ("punks", np.int64, (2,)),
        ("alive", np.int64, (2,)),
        ("hand_n", np.int64, (2,)),
        ("entered", np.int64, (2,)),
        ("raiders_resolved", np.int64, (2,)),
        ("jug", np.int64, (2,)),
        ("hand", np.int64, (R.N_DT,)),
        ("high_ground", np.int64),  # own High Ground: enemy cards are unprotected for us
        ("silo", np.int64),
        ("water", np.int64),
        ("deck_n", np.int64),
        ("reshuffled", np.int64),
        ("event_resolved", np.int64),
        ("raiders_slot", np.int64),
        # What a decision reads beyond the board: -1 when absent or outside its phase.
        ("phase", np.int64),
        ("offer", np.int64, (6,)),  # draft: own offered camps
        ("op", np.int64),  # decision: the pending op, program, step
        ("prog", np.int64),
        ("pc", np.int64),
        ("src", np.int64),  # the pending step's source card, (side*3 + c)*3 + i
        ("that", np.int64),  # the person Mimic / Adrenaline Lab / Parachute Base picked
        ("person", np.int64),  # the person type being played
        ("lift", np.int64),  # the type of the person High Ground moves
        ("revealed", np.int64, (E.N_REVEALED,)),  # drawn or milled cards to choose from
    ]
)


@kernel
def _decode(obs, b):
    """Fill the board record ``b`` from an observation (layout of encoders.radlands); every
    field, so ``_decode_compact`` of the compact observation fills the same values."""
    for s in range(2):
        sb = s * E.SIDE_BLOCK
        b.people[s] = 0
        b.punks[s] = 0
        b.alive[s] = 0
        for c in range(3):
            cb = sb + E.S_COLS + c * E.COL_BLOCK
            # One-hot blocks hold one set entry at most: the scans stop at it.
            camp = _onehot(obs, cb + E.C_CAMP, R.N_CAMPS)
            b.camp[s, c] = camp
            b.cstate[s, c] = 0
            if obs[cb + E.C_CAMP_DAMAGED] != 0:
                b.cstate[s, c] = 1
            if obs[cb + E.C_CAMP_DESTROYED] != 0:
                b.cstate[s, c] = 2
            if camp >= 0 and b.cstate[s, c] < 2:
                b.alive[s] += 1
            pos = max(_onehot(obs, cb + E.C_CAMP_POS, 3), 0)
            b.cpos[s, c] = pos
            n_people = 0
            for j in range(2):
                if obs[cb + E.C_PEOPLE + j * E.PERSON_BLOCK + E.PB_PRESENT] != 0:
                    n_people += 1
            n = n_people + (1 if camp >= 0 else 0)
            b.clen[s, c] = n
            slot = 0
            for i in range(3):
                b.kind[s, c, i] = 0
                b.typ[s, c, i] = -1
                b.dmg[s, c, i] = 0
                b.ready[s, c, i] = 0
                if i >= n:
                    continue
                if camp >= 0 and i == pos:
                    b.kind[s, c, i] = 1
                    b.typ[s, c, i] = camp
                    b.ready[s, c, i] = 1 if obs[cb + E.C_CAMP_USED] == 0 else 0
                    continue
                pb = cb + E.C_PEOPLE + slot * E.PERSON_BLOCK
                slot += 1
                b.kind[s, c, i] = 2
                b.people[s] += 1
                if obs[pb + E.PB_PUNK] != 0:
                    b.punks[s] += 1
                else:
                    b.typ[s, c, i] = _onehot(obs, pb + E.PB_TYPE, R.N_PT)
                b.dmg[s, c, i] = 1 if obs[pb + E.PB_DAMAGED] != 0 else 0
                b.ready[s, c, i] = 1 if obs[pb + E.PB_READY] != 0 else 0
        for j in range(3):
            b.queue[s, j] = _onehot(obs, sb + E.S_QUEUE + j * E.QUEUE_SLOT, E.QUEUE_SLOT)
        b.hand_n[s] = np.int64(obs[sb + E.S_HAND_SIZE])
        b.entered[s] = np.int64(obs[sb + E.S_ENTERED])
        b.raiders_resolved[s] = np.int64(obs[sb + E.S_RAIDERS_RESOLVED])
        b.jug[s] = np.int64(obs[sb + E.S_JUGGERNAUT])
    for t in range(R.N_DT):
        b.hand[t] = np.int64(obs[E.HAND + t])
    b.high_ground = np.int64(obs[E.S_HIGH_GROUND])
    b.silo = np.int64(obs[E.S_SILO_IN_HAND])
    b.water = np.int64(obs[E.WATER])
    b.deck_n = np.int64(obs[E.DECK_N])
    b.reshuffled = np.int64(obs[E.RESHUFFLED])
    b.event_resolved = np.int64(obs[E.EVENT_RESOLVED])
    b.raiders_slot = 2 if obs[E.OPTIONS] != 0 else 3
    b.phase = _onehot(obs, E.PHASE_ONEHOT, E.N_PHASES)
    _no_context(b)
    if b.phase == R.PHASE_DRAFT:
        for k in range(6):
            b.offer[k] = _onehot(obs, E.OFFER + k * R.N_CAMPS, R.N_CAMPS)
    elif b.phase == R.PHASE_DECISION:
        b.op = _onehot(obs, E.PEND_OP, E.N_OPS)
        b.prog = _onehot(obs, E.PEND_PROG, E.N_PROGRAMS)
        b.pc = _onehot(obs, E.PEND_PC, E.MAX_STEPS)
        b.src = _onehot(obs, E.PEND_SRC, 18)
        b.that = _onehot(obs, E.PEND_THAT, 18)
        b.person = _onehot(obs, E.PEND_PERSON, R.N_PT)
        b.lift = _onehot(obs, E.LIFT_TYPE, R.N_PT)
        for k in range(E.N_REVEALED):
            b.revealed[k] = _onehot(obs, E.REVEALED + k * R.N_DT, R.N_DT)


@kernel
def _no_context(b):
    b.offer[:] = -1
    b.op = -1
    b.prog = -1
    b.pc = -1
    b.src = -1
    b.that = -1
    b.person = -1
    b.lift = -1
    b.revealed[:] = -1


@kernel
def _code(obs, at):
    """A compact observation's category code at ``obs[at]`` as the index it names, -1: none."""
    return np.int64(obs[at]) - 1


@kernel
def _decode_compact(obs, b):
    """``_decode`` of the compact observation (``encoders.radlands.encode_compact_into``):
    the same board, field for field, without one-hot scans."""
    for s in range(2):
        sb = s * E.K_SIDE_BLOCK
        b.people[s] = 0
        b.punks[s] = 0
        b.alive[s] = 0
        for c in range(3):
            cb = sb + c * E.K_COL_BLOCK
            camp = _code(obs, cb + E.K_CAMP)
            b.camp[s, c] = camp
            b.cstate[s, c] = 0
            if obs[cb + E.K_CAMP_DAMAGED] != 0:
                b.cstate[s, c] = 1
            if obs[cb + E.K_CAMP_DESTROYED] != 0:
                b.cstate[s, c] = 2
            if camp >= 0 and b.cstate[s, c] < 2:
                b.alive[s] += 1
            pos = max(_code(obs, cb + E.K_CAMP_POS), 0)
            b.cpos[s, c] = pos
            n_people = 0
            for j in range(2):
                if obs[cb + E.K_PEOPLE + j * E.K_PERSON_BLOCK + E.KB_PRESENT] != 0:
                    n_people += 1
            n = n_people + (1 if camp >= 0 else 0)
            b.clen[s, c] = n
            slot = 0
            for i in range(3):
                b.kind[s, c, i] = 0
                b.typ[s, c, i] = -1
                b.dmg[s, c, i] = 0
                b.ready[s, c, i] = 0
                if i >= n:
                    continue
                if camp >= 0 and i == pos:
                    b.kind[s, c, i] = 1
                    b.typ[s, c, i] = camp
                    b.ready[s, c, i] = 1 if obs[cb + E.K_CAMP_USED] == 0 else 0
                    continue
                pb = cb + E.K_PEOPLE + slot * E.K_PERSON_BLOCK
                slot += 1
                b.kind[s, c, i] = 2
                b.people[s] += 1
                if obs[pb + E.KB_PUNK] != 0:
                    b.punks[s] += 1
                else:
                    b.typ[s, c, i] = _code(obs, pb + E.KB_TYPE)
                b.dmg[s, c, i] = 1 if obs[pb + E.KB_DAMAGED] != 0 else 0
                b.ready[s, c, i] = 1 if obs[pb + E.KB_READY] != 0 else 0
        for j in range(3):
            b.queue[s, j] = _code(obs, sb + E.K_QUEUE + j)
        b.hand_n[s] = np.int64(obs[sb + E.K_HAND_SIZE])
        b.entered[s] = np.int64(obs[sb + E.K_ENTERED])
        b.raiders_resolved[s] = np.int64(obs[sb + E.K_RAIDERS_RESOLVED])
        b.jug[s] = np.int64(obs[sb + E.K_JUGGERNAUT])
    for t in range(R.N_DT):
        b.hand[t] = np.int64(obs[E.K_HAND + t])
    b.high_ground = np.int64(obs[E.K_HIGH_GROUND])
    b.silo = np.int64(obs[E.K_SILO_IN_HAND])
    b.water = np.int64(obs[E.K_WATER])
    b.deck_n = np.int64(obs[E.K_DECK_N])
    b.reshuffled = np.int64(obs[E.K_RESHUFFLED])
    b.event_resolved = np.int64(obs[E.K_EVENT_RESOLVED])
    b.raiders_slot = 2 if obs[E.K_OPTIONS] != 0 else 3
    b.phase = _code(obs, E.K_PHASE)
    _no_context(b)
    if b.phase == R.PHASE_DRAFT:
        for k in range(6):
            b.offer[k] = _code(obs, E.K_OFFER + k)
    elif b.phase == R.PHASE_DECISION:
        b.op = _code(obs, E.K_PEND_OP)
        b.prog = _code(obs, E.K_PEND_PROG)
        b.pc = _code(obs, E.K_PEND_PC)
        b.src = _code(obs, E.K_PEND_SRC)
        b.that = _code(obs, E.K_PEND_THAT)
        b.person = _code(obs, E.K_PEND_PERSON)
        b.lift = _code(obs, E.K_LIFT_TYPE)
        for k in range(E.N_REVEALED):
            b.revealed[k] = _code(obs, E.K_REVEALED + k)


# ---- worth of single cards ------------------------------------------------------------------
@kernel
def _person_worth(b, s, c, i):
    t = b.typ[s, c, i]
    return PUNK_WORTH if t < 0 else PERSON_WORTH[t]


@kernel
def _unprotected(b, s, c, i):
    # RAD-B3: the frontmost card of its column; our High Ground exposes the other side.
    return i == b.clen[s, c] - 1 or (s == 1 and b.high_ground == 1)


@kernel
def _enemy_hit(b, c, i):
    """Our gain from one damage on enemy card (1, c, i) (RAD-I2)."""
    if b.kind[1, c, i] == 1:
        if b.cstate[1, c] == 2:
            return 0.0
        if b.cstate[1, c] == 1:
            return WIN if b.alive[1] == 1 else CAMP_KILL
        return CAMP_HIT
    if b.typ[1, c, i] < 0 or b.dmg[1, c, i] == 1:
        return _enemy_kill(b, c, i)
    return 0.6 + 0.25 * _person_worth(b, 1, c, i)


@kernel
def _enemy_kill(b, c, i):
    """Our gain from destroying enemy card (1, c, i) (RAD-I1)."""
    if b.kind[1, c, i] == 1:
        if b.cstate[1, c] == 2:
            return 0.0
        return WIN if b.alive[1] == 1 else CAMP_KILL
    v = 1.5 + 0.5 * _person_worth(b, 1, c, i)
    # the person in front of a live camp: killing it exposes the camp
    if i == b.clen[1, c] - 1 and i > 0 and b.kind[1, c, i - 1] == 1 and b.cstate[1, c] < 2:
        v += 1.0
    return v


@kernel
def _own_hit_loss(b, c, i):
    """What one damage on our card (0, c, i) costs us."""
    if b.kind[0, c, i] == 1:
        if b.cstate[0, c] == 2:
            return 0.0
        if b.cstate[0, c] == 1:
            return WIN if b.alive[0] == 1 else CAMP_KILL + 2.0
        # rather a camp behind a shield (one more hit cannot follow at once), and a weak one
        exposed = 1.0 if _unprotected(b, 0, c, i) else 0.0
        return CAMP_HIT - 1.0 + exposed + 0.1 * CAMP_DRAFT_WORTH[b.camp[0, c]]
    if b.typ[0, c, i] < 0 or b.dmg[0, c, i] == 1:
        return _own_kill_loss(b, c, i)
    return 0.5 + 0.3 * _person_worth(b, 0, c, i)


@kernel
def _own_kill_loss(b, c, i):
    if b.kind[0, c, i] == 1:
        if b.cstate[0, c] == 2:
            return 0.0
        if b.alive[0] == 1:
            return WIN
        return CAMP_KILL + 2.0 if b.cstate[0, c] == 1 else CAMP_KILL + 4.0
    return 1.0 + 0.6 * _person_worth(b, 0, c, i)


@kernel
def _restore_worth(b, c, i):
    if b.kind[0, c, i] == 1:
        return RESTORE_CAMP
    return 0.5 + 0.4 * _person_worth(b, 0, c, i)


@kernel
def _target_ok(b, s, c, i, tk, sc, si):
    """Whether (s, c, i) fits target kind ``tk`` for us (sc, si: the source card or -1)."""
    if i >= b.clen[s, c]:
        return False
    kind = b.kind[s, c, i]
    person = kind == 2
    live_camp = kind == 1 and b.cstate[s, c] < 2
    if s == 1:
        unprot = _unprotected(b, s, c, i)
        if tk == R.T_UNPROT_ENEMY_CARD:
            return (person or live_camp) and unprot
        if tk == R.T_UNPROT_ENEMY_PERSON:
            return person and unprot
        if tk == R.T_UNPROT_ENEMY_CAMP:
            return live_camp and unprot
        if tk == R.T_UNPROT_DAMAGED_ENEMY_CARD:
            damaged = (person and b.dmg[s, c, i] == 1) or (live_camp and b.cstate[s, c] == 1)
            return damaged and unprot
        if tk == R.T_ANY_ENEMY_CARD:
            return person or live_camp
        if tk == R.T_ANY_ENEMY_PERSON:
            return person
        if tk == R.T_ANY_ENEMY_CAMP:
            return live_camp
        return False
    if tk == R.T_OWN_PERSON:
        return person
    if tk == R.T_OWN_DAMAGED_CARD:
        if c == sc and i == si:
            return False  # RAD-I3: a card never restores itself
        if person:
            return b.dmg[s, c, i] == 1
        return live_camp and b.cstate[s, c] == 1 and b.camp[s, c] != R.C_BONFIRE
    if tk == R.T_OWN_DAMAGED_PERSON:
        return person and b.dmg[s, c, i] == 1 and not (c == sc and i == si)
    if tk == R.T_OWN_CARD:
        return person or live_camp
    if tk == R.T_OWN_CAMP:
        return live_camp
    return False


@kernel
def _best_on(b, tk, destroy, sc, si):
    """Best gain from one damage (or destroy) on a target of kind ``tk`` chosen by us."""
    best = 0.0
    found = False
    for s in range(2):
        for c in range(3):
            for i in range(b.clen[s, c]):
                if not _target_ok(b, s, c, i, tk, sc, si):
                    continue
                if s == 1:
                    v = _enemy_kill(b, c, i) if destroy else _enemy_hit(b, c, i)
                else:
                    v = -(_own_kill_loss(b, c, i) if destroy else _own_hit_loss(b, c, i))
                if not found or v > best:
                    best = v
                    found = True
    return best


@kernel
def _enemy_least(b, people, camps, destroy):
    """Our gain when the opponent damages (destroys) one of their own cards of their pick."""
    best = 0.0
    found = False
    for c in range(3):
        for i in range(b.clen[1, c]):
            kind = b.kind[1, c, i]
            if (kind == 2 and people) or (kind == 1 and camps and b.cstate[1, c] < 2):
                v = _enemy_kill(b, c, i) if destroy else _enemy_hit(b, c, i)
                if not found or v < best:
                    best = v
                    found = True
    return best


@kernel
def _own_least_loss(b, people, camps, destroy):
    """Smallest loss among our own people / live camps (for sacrifices we must make)."""
    best = 0.0
    found = False
    for c in range(3):
        for i in range(b.clen[0, c]):
            kind = b.kind[0, c, i]
            if (kind == 2 and people) or (kind == 1 and camps and b.cstate[0, c] < 2):
                v = _own_kill_loss(b, c, i) if destroy else _own_hit_loss(b, c, i)
                if not found or v < best:
                    best = v
                    found = True
    return best


@kernel
def _punk_worth(b):
    """Gaining a punk (RAD-I6): a free shield in front of an unprotected live camp."""
    if b.people[0] >= 6:
        return 0.0
    best = 0.8
    for c in range(3):
        if b.cstate[0, c] < 2 and b.camp[0, c] >= 0 and b.clen[0, c] == 1:
            v = 3.0 + (1.0 if b.cstate[0, c] == 1 else 0.0)
            if v > best:
                best = v
    return best


@kernel
def _raid_worth(b):
    """RAD-I8: resolving our Raiders now is worth a camp hit the opponent picks."""
    pos = -1
    for j in range(3):
        if b.queue[0, j] == RAIDERS_CODE:
            pos = j
    if pos == 0:
        return _enemy_least(b, False, True, False)
    if pos > 0:
        return 2.0 if b.queue[0, pos - 1] < 0 else 0.0
    for j in range(b.raiders_slot - 1, 3):
        if b.queue[0, j] < 0:
            return 2.0
    return 0.0


@kernel
def _water_worth(b):
    """Extra water helps when it makes one more hand card affordable."""
    for t in range(R.N_DT):
        if b.hand[t] > 0 and DECK_TYPE_COST[t] == b.water + 1:
            return 1.2
    return 0.3


@kernel
def _cond(b, cond):
    if cond == R.COND_OWN_PEOPLE_AT_MOST_1:
        return b.people[0] <= 1
    if cond == R.COND_ENTERED_THIS_TURN_AT_LEAST_2:
        return b.entered[0] >= 2
    if cond == R.COND_ANY_EVENT_RESOLVED:
        return b.event_resolved == 1
    if cond == R.COND_OWN_RAIDERS_RESOLVED:
        return b.raiders_resolved[0] == 1
    if cond == R.COND_OPPONENT_HAS_EVENT:
        return b.queue[1, 0] >= 0 or b.queue[1, 1] >= 0 or b.queue[1, 2] >= 0
    if cond == R.COND_OWN_PUNK:
        return b.punks[0] > 0
    return True  # "the previous step hit a camp / happened": hope so


@kernel
def _set_worth(b, kind, destroy):
    both_sides = not (
        kind == R.SET_ALL_UNPROT_ENEMY_PEOPLE
        or kind == R.SET_ALL_DAMAGED_ENEMY_PEOPLE
        or kind == R.SET_ALL_ENEMY_CAMPS
    )
    v = 0.0
    for s in range(2):
        for c in range(3):
            for i in range(b.clen[s, c]):
                k = b.kind[s, c, i]
                if s == 1:
                    if kind == R.SET_ALL_UNPROT_ENEMY_PEOPLE:
                        ok = k == 2 and _unprotected(b, s, c, i)
                    elif kind == R.SET_ALL_DAMAGED_ENEMY_PEOPLE:
                        ok = k == 2 and b.dmg[s, c, i] == 1
                    elif kind == R.SET_ALL_ENEMY_CAMPS:
                        ok = k == 1 and b.cstate[s, c] < 2
                    else:
                        ok = k == 2
                    if ok:
                        v += _enemy_kill(b, c, i) if destroy else _enemy_hit(b, c, i)
                elif k == 2 and both_sides:
                    v -= _own_kill_loss(b, c, i) if destroy else _own_hit_loss(b, c, i)
    return v


@kernel
def _column_worth(b, c, people_only):
    v = 0.0
    for i in range(b.clen[1, c]):
        if b.kind[1, c, i] == 2:
            v += _enemy_kill(b, c, i) if people_only else _enemy_hit(b, c, i)
        elif not people_only:
            v += _enemy_hit(b, c, i)
    return v


# Standalone: seven call sites in kernels that are each compiled on their own.
@standalone_kernel(
    record_arg(BOARD_DTYPE),
    types.int64,
    types.int64,
    types.int64,
    types.int64,
    returns=types.float64,
)
def _step_worth(b, prog, pc, sc, si):
    """Worth to us of one step of a program (control steps are handled by the caller)."""
    op = R.CODE[prog, pc, 0]
    arg = R.CODE[prog, pc, 1]
    by_opponent = R.CODE[prog, pc, 2] == 1
    if op == R.OP_DAMAGE or op == R.OP_DESTROY:
        destroy = op == R.OP_DESTROY
        if arg == R.T_SELF:
            if sc < 0:
                return 0.0
            return -(_own_kill_loss(b, sc, si) if destroy else _own_hit_loss(b, sc, si))
        if by_opponent:
            if arg == R.T_OWN_CAMP:  # Raiders, Juggernaut: the opponent picks one of theirs
                return _enemy_least(b, False, True, destroy)
            if arg == R.T_OWN_CARD:  # Scud Launcher
                return _enemy_least(b, True, True, destroy)
            # Vanguard's hit-back lands on one of our unprotected cards, their pick
            worst = 0.0
            for c in range(3):
                i = b.clen[0, c] - 1
                if i >= 0:
                    loss = _own_hit_loss(b, c, i)
                    if loss > worst:
                        worst = loss
            return -0.7 * worst
        if arg == R.T_OWN_PERSON:  # a sacrifice: the cheapest of ours
            return -_own_least_loss(b, True, False, True)
        return _best_on(b, arg, destroy, sc, si)
    if op == R.OP_RESTORE or op == R.OP_RESTORE_READY or op == R.OP_RESTORE_MANY:
        tk = arg if op == R.OP_RESTORE else R.T_OWN_DAMAGED_CARD
        if op == R.OP_RESTORE_READY:
            tk = R.T_OWN_DAMAGED_PERSON
        best = 0.0
        total = 0.0
        for c in range(3):
            for i in range(b.clen[0, c]):
                if _target_ok(b, 0, c, i, tk, sc, si):
                    v = _restore_worth(b, c, i)
                    total += v
                    if v > best:
                        best = v
        return total if op == R.OP_RESTORE_MANY else best
    if op == R.OP_DAMAGE_SET or op == R.OP_DESTROY_SET:
        return _set_worth(b, arg, op == R.OP_DESTROY_SET)
    if op == R.OP_COLUMN_DAMAGE or op == R.OP_COLUMN_DESTROY_PEOPLE:
        best = 0.0
        for c in range(3):
            v = _column_worth(b, c, op == R.OP_COLUMN_DESTROY_PEOPLE)
            if v > best:
                best = v
        return best
    if op == R.OP_DRAW:
        return DRAW_WORTH * arg
    if op == R.OP_GAIN_PUNK:
        return _punk_worth(b)
    if op == R.OP_WATER:
        return _water_worth(b) * arg
    if op == R.OP_RAID:
        return _raid_worth(b)
    if op == R.OP_MILL_JUNK:
        return 1.0
    if op == R.OP_ADVANCE_EVENT:
        for j in range(3):
            if b.queue[0, j] == RAIDERS_CODE:
                if j == 0:
                    return _enemy_least(b, False, True, False)
                if b.queue[0, j - 1] < 0:
                    return 2.0
        return -1.0
    if op == R.OP_PUSH_BACK:
        return 0.5
    if op == R.OP_FLIP_PUNK:
        return 1.0
    if op == R.OP_JUGGERNAUT:
        return _enemy_least(b, False, True, True) if b.jug[0] >= 2 else 3.0
    if op == R.OP_TRUCE:
        v = 0.0
        for s in range(2):
            for c in range(3):
                for i in range(b.clen[s, c]):
                    if b.kind[s, c, i] == 2:
                        w = 0.5 * _person_worth(b, s, c, i)
                        v += w if s == 1 else -w
        return v
    if op == R.OP_FAMINE:
        v = 0.0
        for s in range(2):
            total = 0.0
            keep = 0.0
            for c in range(3):
                for i in range(b.clen[s, c]):
                    if b.kind[s, c, i] == 2:
                        w = _enemy_kill(b, c, i) if s == 1 else _own_kill_loss(b, c, i)
                        total += w
                        if w > keep:
                            keep = w
            v += (total - keep) if s == 1 else -(total - keep)
        return v
    if op == R.OP_MERCENARY:
        return 3.0
    if op == R.OP_OCTAGON:
        if b.people[1] == 0:
            return -_own_least_loss(b, True, False, True)
        return _enemy_least(b, True, False, True) - _own_least_loss(b, True, False, True)
    if op == R.OP_DISCARD_HAND:
        return -0.7 * arg
    if op == R.OP_DRAW_DISCARD or op == R.OP_DRAW_2_DISCARD_1:
        return 1.5
    if op == R.OP_WAREHOUSE:
        return 0.5
    if op == R.OP_BOMBARD_DRAW:
        return DRAW_WORTH * (3 - b.alive[1])
    if op == R.OP_HIGH_GROUND:
        return 2.0
    if op == R.OP_RETURN_TO_HAND or op == R.OP_REBUILD or op == R.OP_PARACHUTE:
        return -2.0  # not worth it for this player
    return 0.0  # REARRANGE and anything new: neutral


@kernel
def _simple_worth(b, prog, sc, si):
    """Worth of a program without borrowing (RAD-A7 abilities, events, junk icons)."""
    if prog < 0:
        return 0.0
    n = R.LENGTH[prog]
    v = 0.0
    pc = 0
    while pc < n:
        op = R.CODE[prog, pc, 0]
        if op == R.OP_IF:
            pc += 1 if _cond(b, R.CODE[prog, pc, 1]) else 2
            continue
        if op == R.OP_CHOOSE:
            k_n = R.CODE[prog, pc, 1]
            best = NEG
            for k in range(k_n):
                w = _step_worth(b, prog, pc + 1 + k, sc, si)
                if w > best:
                    best = w
            v += best
            pc += 1 + k_n
            continue
        if op == R.OP_AND_OR:
            a = _step_worth(b, prog, pc + 1, sc, si)
            c = _step_worth(b, prog, pc + 2, sc, si)
            v += max(a, c, a + c)
            pc += 3
            continue
        v += _step_worth(b, prog, pc, sc, si)
        pc += 1
    return v


@kernel
def _borrow_worth(b, adrenaline, sc, si):
    """Mimic / Adrenaline Lab: the best ability it could borrow, net of its cost."""
    best = NEG
    for s in range(2):
        if adrenaline and s == 1:
            continue
        for c in range(3):
            for i in range(b.clen[s, c]):
                if b.kind[s, c, i] != 2 or (s == 0 and c == sc and i == si):
                    continue
                t = b.typ[s, c, i]
                if t < 0:
                    continue
                if adrenaline:
                    ok = b.dmg[s, c, i] == 1
                elif s == 0:
                    ok = b.ready[s, c, i] == 1
                else:
                    ok = b.dmg[s, c, i] == 0
                if not ok:
                    continue
                for k in range(R.PERSON_N_ABILITIES[t]):
                    cost = R.PERSON_ABILITY_COST[t, k]
                    if cost == R.VARIABLE or cost > b.water:
                        continue
                    user_c = c if adrenaline else sc
                    user_i = i if adrenaline else si
                    w = _simple_worth(b, R.PERSON_PROG[t, k], user_c, user_i)
                    w -= WATER_WEIGHT * cost
                    if adrenaline:
                        w -= _own_kill_loss(b, c, i)
                    if w > best:
                        best = w
    return best


@kernel
def _program_worth(b, prog, sc, si):
    op = R.CODE[prog, 0, 0]
    if op == R.OP_MIMIC or op == R.OP_ADRENALINE:
        return _borrow_worth(b, op == R.OP_ADRENALINE, sc, si)
    return _simple_worth(b, prog, sc, si)


# ---- main actions (RAD-T3) ------------------------------------------------------------------
@kernel
def _play_cost(b, t, c):
    # Holdout is free in a destroyed camp's column; Oasis takes 1 off while its column is empty.
    cost = R.PERSON_COST[t]
    if t == R.P_HOLDOUT and b.cstate[0, c] == 2:
        return 0
    if b.camp[0, c] == R.C_OASIS and b.cstate[0, c] < 2 and b.clen[0, c] == 1:
        cost -= 1
    return max(cost, 0)


@kernel
def _place_worth(b, worth, c, i):
    """Worth of a person of ``worth`` entering our column c at index i (RAD-A1, RAD-B3)."""
    n = b.clen[0, c]
    if n >= 3:
        return NEG
    if i == 0:
        # behind a moved Juggernaut (subtleties §15): shielded by it, shielding nothing
        return 0.8
    v = 0.3
    if b.cstate[0, c] < 2 and b.camp[0, c] >= 0:
        if n == 1:
            v = 4.0 + (2.0 if b.cstate[0, c] == 1 else 0.0)
        else:
            v = 1.5
    if i < n and i > 0:
        # behind the current front person: shielded by it if that one is worth less
        front = _person_worth(b, 0, c, n - 1) if b.kind[0, c, n - 1] == 2 else 10.0
        v += 0.5 if worth > front else -0.5
    return v


@kernel
def _play_worth(b, t):
    """Worth of playing person type t now: its own worth, the best place, its entry effect."""
    best = NEG
    for c in range(3):
        if b.clen[0, c] >= 3 and b.people[0] < 6:
            continue
        cost = _play_cost(b, t, c)
        if cost > b.water:
            continue
        v = _place_worth(b, PERSON_WORTH[t], c, b.clen[0, c] if b.clen[0, c] < 3 else 2)
        if b.people[0] >= 6:
            v = 0.3 - _own_least_loss(b, True, False, True)  # RAD-A2: one of ours must go
        v -= WATER_WEIGHT * cost
        if v > best:
            best = v
    if best == NEG:
        return NEG
    return best + 0.8 * PERSON_WORTH[t] + _simple_worth(b, R.ENTER_PROG[t], -1, -1)


@kernel
def _keep_worth(b, t):
    """What a hand card is worth keeping: less with a big hand or a full board."""
    factor = 0.7
    if b.hand_n[0] > 5:
        factor = 0.4
    if DECK_TYPE_COST[t] > 3:
        factor = 0.3  # rarely affordable (RAD-T2 gives 3 water)
    if t < R.N_PT and b.people[0] >= 6:
        factor = 0.2
    return factor * CARD_WORTH[t]


@kernel
def _ability(b, c, i, k):
    """(program, cost) of ability k of our entity (0, c, i); Argo's trait adds one (RAD-K4)."""
    if b.kind[0, c, i] == 1:
        camp = b.camp[0, c]
        cost = R.CAMP_ABILITY_COST[camp, k]
        if cost == R.VARIABLE:
            cost = 0
        elif camp == R.C_PILLBOX:
            cost -= 3 - b.alive[0]
        elif camp == R.C_COMMAND_POST:
            cost -= b.punks[0]
        prog = np.int64(R.CAMP_PROG[camp, k]) if k < R.CAMP_N_ABILITIES[camp] else np.int64(-1)
        return prog, np.int64(max(cost, 0))
    t = b.typ[0, c, i]
    own = 0 if t < 0 else R.PERSON_N_ABILITIES[t]
    if k < own:
        cost = R.PERSON_ABILITY_COST[t, k]
        return np.int64(R.PERSON_PROG[t, k]), np.int64(0 if cost == R.VARIABLE else cost)
    return np.int64(R.ARGO_PROG), np.int64(R.ARGO_COST)


@kernel
def _silo_helps(b):
    # Junk the Silo only with water left, to afford a hand card costing one more.
    if b.water < 1:
        return False
    for t in range(R.N_DT):
        if b.hand[t] > 0 and DECK_TYPE_COST[t] == b.water + 1:
            if t < R.N_PT and b.people[0] < 6:
                return True
            if t >= R.N_PT:
                e = t - R.FIRST_EVENT
                if _simple_worth(b, R.EVENT_PROG[e], -1, -1) > 0.5:
                    return True
    return False


@kernel
def _main_action(b, mask):
    best_a = R.A_END_TURN
    best_v = 0.0
    for t in range(R.N_PT):
        if mask[R.A_PLAY_PERSON + t] != 0:
            v = _play_worth(b, t)
            if v > best_v:
                best_v = v
                best_a = R.A_PLAY_PERSON + t
    for e in range(R.N_ET):
        if mask[R.A_PLAY_EVENT + e] != 0:
            v = _simple_worth(b, R.EVENT_PROG[e], -1, -1)
            if R.EVENT_BOMB[e] > 0:
                v *= DELAY
            v -= WATER_WEIGHT * R.EVENT_COST[e] + 0.3 * CARD_WORTH[R.FIRST_EVENT + e]
            if v > best_v:
                best_v = v
                best_a = R.A_PLAY_EVENT + e
    for t in range(R.N_DT):
        if mask[R.A_JUNK + t] != 0:
            v = _simple_worth(b, R.JUNK_PROG[R.DECK_TYPE_JUNK[t]], -1, -1) - _keep_worth(b, t)
            if v > best_v:
                best_v = v
                best_a = R.A_JUNK + t
    for c in range(3):
        for i in range(3):
            for k in range(3):
                a = R.A_USE + (c * 3 + i) * 3 + k
                if mask[a] == 0:
                    continue
                prog, cost = _ability(b, c, i, k)
                if prog < 0:
                    continue
                v = _program_worth(b, prog, c, i) - WATER_WEIGHT * cost
                if v > best_v:
                    best_v = v
                    best_a = a
    # water sinks (RAD-A3, RAD-A6): spare water is lost at the end of the turn (RAD-T5)
    if mask[R.A_DRAW] != 0 and not (b.reshuffled == 1 and b.deck_n < 4):
        v = DRAW_WORTH - 2 * WATER_WEIGHT
        if v > best_v:
            best_v = v
            best_a = R.A_DRAW
    if mask[R.A_JUNK_SILO] != 0 and _silo_helps(b) and best_v < 1.0:
        best_v = 1.0
        best_a = R.A_JUNK_SILO
    if mask[R.A_TAKE_SILO] != 0 and b.water == 1 and best_v <= 0.0:
        best_v = 0.05
        best_a = R.A_TAKE_SILO
    return best_a


# ---- decisions ------------------------------------------------------------------------------
@kernel
def _that_type(b):
    pos = b.that
    if pos < 0:
        return -1
    s, c, i = pos // 9, (pos // 3) % 3, pos % 3
    return b.typ[s, c, i]


@kernel
def _target_score(b, op, s, c, i):
    if op == R.OP_RESTORE or op == R.OP_RESTORE_READY or op == R.OP_RESTORE_MANY:
        return _restore_worth(b, c, i) if s == 0 else NEG
    if op == R.OP_MIMIC or op == R.OP_ADRENALINE:
        t = b.typ[s, c, i]
        if t < 0:
            return NEG
        best = NEG
        src = b.src
        sc = (src // 3) % 3 if src >= 0 else -1
        si = src % 3 if src >= 0 else -1
        for k in range(R.PERSON_N_ABILITIES[t]):
            if R.PERSON_ABILITY_COST[t, k] == R.VARIABLE:
                continue
            uc = c if op == R.OP_ADRENALINE else sc
            ui = i if op == R.OP_ADRENALINE else si
            w = _simple_worth(b, R.PERSON_PROG[t, k], uc, ui)
            if w > best:
                best = w
        return best
    if op == R.OP_FAMINE:
        return _person_worth(b, 0, c, i) if s == 0 else NEG  # the one we keep
    if op == R.OP_REARRANGE:
        return NEG  # SKIP: the board is fine as it is
    if op == R.OP_FLIP_PUNK or op == R.OP_REBUILD or op == R.OP_RETURN_TO_HAND:
        return 0.0
    destroy = op != R.OP_DAMAGE
    if s == 1:
        return _enemy_kill(b, c, i) if destroy else _enemy_hit(b, c, i)
    return -(_own_kill_loss(b, c, i) if destroy else _own_hit_loss(b, c, i))


@kernel
def _hand_pick(b, mask, want_best):
    """SELECT_HAND: the card worth most (Parachute Base) or least (discards)."""
    best_a = -1
    best_v = NEG
    for t in range(R.N_DT):
        if mask[R.A_SELECT_HAND + t] == 0:
            continue
        v = CARD_WORTH[t] if want_best else -_keep_worth(b, t)
        if v > best_v:
            best_v = v
            best_a = R.A_SELECT_HAND + t
    return best_a


@kernel
def _choose_option(b, mask, op):
    prog = b.prog
    pc = b.pc
    best_a = -1
    best_v = NEG
    for k in range(4):
        a = R.A_CHOOSE + k
        if mask[a] == 0:
            continue
        v = 0.0
        if op == R.OP_CHOOSE and prog >= 0 and pc >= 0:
            v = _step_worth(b, prog, pc + 1 + k, -1, -1)
        elif op == R.OP_AND_OR and prog >= 0 and pc >= 0:
            first = _step_worth(b, prog, pc + 1, -1, -1)
            second = _step_worth(b, prog, pc + 2, -1, -1)
            v = first if k == 0 else (second if k == 1 else first + second)
        elif op == R.OP_MERCENARY:
            if k == 0:  # destroy one of our cards, the cheapest
                v = -_own_least_loss(b, True, True, True)
            else:  # or discard 2 cards, the two least worth keeping
                lo1 = 1e9
                lo2 = 1e9
                for t in range(R.N_DT):
                    for _ in range(min(b.hand[t], 2)):
                        w = _keep_worth(b, t)
                        if w < lo1:
                            lo2 = lo1
                            lo1 = w
                        elif w < lo2:
                            lo2 = w
                v = -(lo1 + lo2)
        elif op == R.OP_MILL_JUNK:
            t = b.revealed[k]
            if t >= 0:
                v = _simple_worth(b, R.JUNK_PROG[R.DECK_TYPE_JUNK[t]], -1, -1)
        elif op == R.OP_DRAW_DISCARD:  # Interrogate: the card kept
            t = b.revealed[k]
            v = CARD_WORTH[t] if t >= 0 else 0.0
        elif op == R.OP_DRAW_2_DISCARD_1:  # Supply Depot: the card discarded
            t = b.revealed[k]
            v = -CARD_WORTH[t] if t >= 0 else 0.0
        elif op == R.OP_PUSH_BACK:
            v = 0.5
        elif op == R.OP_MIMIC or op == R.OP_ADRENALINE or op == R.OP_PARACHUTE:
            t = b.person if op == R.OP_PARACHUTE else _that_type(b)
            if t >= 0 and k < R.PERSON_N_ABILITIES[t]:
                v = _simple_worth(b, R.PERSON_PROG[t, k], -1, -1)
        if v > best_v:
            best_v = v
            best_a = a
    if mask[R.A_SKIP] != 0 and best_v <= 0.0 and op != R.OP_AND_OR and op != R.OP_CHOOSE:
        return R.A_SKIP
    return best_a


@kernel
def _decision(b, mask):
    op = b.op
    # TARGET: the opponent's cards by damage done, ours by the least loss
    best_a = -1
    best_v = NEG
    for s in range(2):
        for c in range(3):
            for i in range(3):
                a = R.A_TARGET + (s * 3 + c) * 3 + i
                if mask[a] == 0:
                    continue
                v = _target_score(b, op, s, c, i)
                if best_a < 0 or v > best_v:
                    best_v = v
                    best_a = a
    if best_a >= 0:
        if mask[R.A_SKIP] != 0 and best_v <= 0.0:
            return R.A_SKIP  # optional: a punk not worth a person, a pointless restore
        return best_a
    # PLACE: the entering person (or punk) where it shields a live camp
    worth = PUNK_WORTH
    t = b.person
    if t >= 0:
        worth = PERSON_WORTH[t]
    lift = b.lift
    if lift >= 0:
        worth = PERSON_WORTH[lift]
    for c in range(3):
        for i in range(3):
            a = R.A_PLACE + c * 3 + i
            if mask[a] == 0:
                continue
            v = _place_worth(b, worth, c, i)
            if t >= 0 and op == R.I_PLAY:
                v -= WATER_WEIGHT * _play_cost(b, t, c)
            if best_a < 0 or v > best_v:
                best_v = v
                best_a = a
    if best_a >= 0:
        return best_a
    if mask[R.A_CHOOSE] != 0 or mask[R.A_CHOOSE + 1] != 0 or mask[R.A_CHOOSE + 2] != 0:
        return _choose_option(b, mask, op)
    # SELECT_HAND: Warehouse stops after one discard; discards lose the least
    if op == R.OP_WAREHOUSE and mask[R.A_SKIP] != 0:
        return R.A_SKIP
    a = _hand_pick(b, mask, op == R.OP_PARACHUTE)
    if a >= 0:
        return a
    # SELECT_COLUMN (Magnus Karv, Napalm): the enemy column that loses most
    for c in range(3):
        a = R.A_SELECT_COLUMN + 3 + c
        if mask[a] != 0:
            v = _column_worth(b, c, op == R.OP_COLUMN_DESTROY_PEOPLE)
            if best_a < 0 or v > best_v:
                best_v = v
                best_a = a
    if best_a >= 0:
        return best_a
    # SELECT_EVENT (Omen Clock): our own events forward, our Raiders first
    for s in range(2):
        for j in range(3):
            a = R.A_SELECT_EVENT + s * 3 + j
            if mask[a] == 0:
                continue
            v = -1.0 - (2.0 if j == 0 else 0.0)
            if s == 0:
                v = 3.0 - j if b.queue[0, j] == RAIDERS_CODE else 1.0
            if best_a < 0 or v > best_v:
                best_v = v
                best_a = a
    if best_a >= 0:
        return best_a
    return R.A_SKIP


@kernel
def heuristic_action(obs, mask):
    """The heuristic's action for one observation vector and its 0/1 action mask."""
    # A record view does not keep its array alive and Numba frees an array right after its
    # last use, so the array is passed down and held by the caller until the decision is made.
    boards = np.zeros(1, BOARD_DTYPE)
    _decode(obs, boards[0])
    return _board_action(mask, boards)


@kernel
def heuristic_action_compact(obs, mask):
    """``heuristic_action`` on the compact observation (``observation="compact"``): the same
    board, so the same action (tests/test_search_speedups.py); the search's play-outs use it."""
    boards = np.zeros(1, BOARD_DTYPE)
    _decode_compact(obs, boards[0])
    return _board_action(mask, boards)


@standalone_kernel(array_arg(BOARD_DTYPE), array_arg(np.int8), returns=types.int64)
def heuristic_action_view(boards, mask):
    """``heuristic_action`` on a board that ``view_into`` filled from a game's record: the
    search's play-outs (GameSpec.search ``rollout_view``)."""
    return _board_action(mask, boards)


@standalone_kernel(R.STATES, types.int64, types.int64, array_arg(BOARD_DTYPE))
def view_into(states, g, player, boards):
    """``boards[0]``: what ``player`` sees of game ``g``, as the decoders would read it from
    either observation (``meeple_gym.encoders.radlands.encode_view``)."""
    E.encode_view(states[g], player, boards[0])


@kernel
def new_view(size):
    """The buffer ``view_into`` fills (``size``, the search's observation size, is unused)."""
    return np.zeros(1, BOARD_DTYPE)


# Standalone: both observations' kernels share one compiled copy of the decisions.
@standalone_kernel(array_arg(np.int8), array_arg(BOARD_DTYPE), returns=types.int64)
def _board_action(mask, boards):
    b = boards[0]
    action = -1
    if b.phase == R.PHASE_DRAFT:
        best = NEG
        for k in range(6):
            if mask[R.A_KEEP + k] == 0:
                continue
            camp = b.offer[k]
            v = CAMP_DRAFT_WORTH[camp] if camp >= 0 else 0.0
            if v > best:
                best = v
                action = R.A_KEEP + k
    elif b.phase == R.PHASE_ACTIONS:
        action = _main_action(b, mask)
    elif b.phase == R.PHASE_DECISION:
        action = _decision(b, mask)
    return _legal_or(action, mask, R.A_SKIP)


class RadlandsHeuristicAgent(KernelAgent, policy=heuristic_action, game="radlands"):
    """A sensible-beginner Radlands player; deterministic, decides from the observation only."""

    obs_size = E.OBS_SIZE
    num_actions = R.NUM_ACTIONS
