"""Radlands determinization (docs/radlands.md): a full state consistent with what one seat knows.

``determinize_into(states, g, player, key)`` resamples in place, uniformly, everything in
game ``g`` that ``player`` may not know (RAD-G4, RAD-K3, RAD-S3), and keeps the rest:

- the unknown cards: the draw deck, the opponent's hand, every punk's type (both sides: not
  even its owner may look) and a punk lifted by High Ground are pooled and dealt back to the
  same places at random (deck order included). Cards the table has seen stay: the
  opponent's card being played (``play_person``) or picked by Parachute Base stays in their
  hand; cards the opponent just drew for Interrogate / Supply Depot are re-picked from their
  new hand;
- the draft: during it, the opponent's offer, their picks so far (the count is public) and
  the first player; after it, the 3 camps the opponent was offered and did not keep;
- the RNG word (the future reshuffle), which no seat may know.

Kept: the board, queues, discard pile (every card there arrived face up: public history),
``player``'s own hand and draft, all counts. A pending decision stays valid: its options are
recomputed and an arrangement under which the waiting player could not be waiting there (the
opponent choosing a person for Parachute Base must hold one) is redrawn, so the draw is
uniform over the arrangements consistent with the position.

``determinize_batch(states, players, seed)`` does this for every row
(meeple_gym.core.stepping.determinize_batch).

Not used: what a player with perfect recall could infer from the order of past events beyond
the record (e.g. which cards of a reshuffled discard pile can still be in the deck); the
record keeps no history, so the pool is every card the seat does not see now.
"""

import numpy as np
from numba import types

from meeple_gym.core.jit import kernel, standalone_kernel
from meeple_gym.core.rng import next_u64, randint, shuffle
from meeple_gym.core.stepping import determinize_kernel
from meeple_gym.radlands.rules import (
    CODE,
    COLS,
    DECK_SIZE,
    I_PLAY,
    INTERNAL,
    N_CAMPS,
    N_DT,
    NUM_ACTIONS,
    OP_DRAW_2_DISCARD_1,
    OP_DRAW_DISCARD,
    OP_PARACHUTE,
    PERSON,
    PHASE_DECISION,
    PHASE_DRAFT,
    STATES,
    pending_mask_into,
)

# Redraws when the waiting player could not be waiting under an arrangement; past this the
# position is left as it was (never reached in tests: the constraint is one card of a kind).
MAX_TRIES = 1000
# Deck, the opponent's hand, at most 12 punks and a lifted one: never more than the deck.
POOL_SIZE = DECK_SIZE


@kernel
def _frame_op(s, d):
    """The op frame ``d`` runs, or -1 once it has finished."""
    if s.fr_pc[d] >= s.fr_end[d]:
        return -1
    if s.fr_prog[d] == INTERNAL:
        return s.fr_op[d]
    return CODE[s.fr_prog[d], s.fr_pc[d], 0]


@kernel
def _redraft(s, player, words):
    """The opponent's draft offer and picks (RAD-S3), as far as ``player`` has not seen them."""
    opp = 1 - player
    if s.offer[opp, 5] < 0:
        return  # first-game camps: no draft, both sets are public
    draft = s.phase == PHASE_DRAFT
    seen = np.zeros(N_CAMPS, np.bool_)
    for k in range(6):
        seen[s.offer[player, k]] = True
    n_kept = s.kept_n[opp] if draft else 3
    if not draft:
        for c in range(COLS):
            seen[s.camp[opp, c]] = True  # revealed when the draft ended
    free = np.empty(N_CAMPS, np.int8)
    n = 0
    for camp in range(N_CAMPS):
        if not seen[camp]:
            free[n] = camp
            n += 1
    shuffle(words, free, n)
    slots = np.arange(6).astype(np.int8)
    shuffle(words, slots, 6)
    f = 0
    for k in range(6):
        s.kept[opp, k] = 0
    for c in range(n_kept):
        if draft:
            s.camp[opp, c] = free[f]
            f += 1
        s.offer[opp, slots[c]] = s.camp[opp, c]
        s.kept[opp, slots[c]] = 1
    for j in range(n_kept, 6):
        s.offer[opp, slots[j]] = free[f]
        f += 1
    if draft:
        s.first_player = randint(words, 0, 2)  # RAD-S5: drawn at setup, shown after the draft


@kernel
def _pinned(s, opp, out):
    """Cards of the opponent's hand the table knows: a person being played, Parachute Base's
    pick (both still in hand until placed)."""
    out[:] = 0
    for d in range(s.depth):
        if s.fr_owner[d] != opp:
            continue
        op = _frame_op(s, d)
        if op == I_PLAY and s.fr_prog[d] == INTERNAL:
            out[s.fr_arg[d]] += 1
        elif op == OP_PARACHUTE and s.fr_prog[d] != INTERNAL and 1 <= s.fr_stage[d] <= 2:
            out[s.fr_aux[d]] += 1


@kernel
def _gather(s, opp, pinned, pool):
    """The unknown cards in slot order: deck bottom to top, the opponent's free hand cards,
    punks (p, c, i order), a lifted punk. Returns (count, free hand size)."""
    n = 0
    for k in range(s.deck_n):
        pool[n] = s.deck[k]
        n += 1
    h = 0
    for t in range(N_DT):
        for _ in range(s.hand[opp, t] - pinned[t]):
            pool[n] = t
            n += 1
            h += 1
    for p in range(2):
        for c in range(COLS):
            for i in range(s.col_len[p, c]):
                if s.ent_kind[p, c, i] == PERSON and s.ent_punk[p, c, i] == 1:
                    pool[n] = s.ent_type[p, c, i]
                    n += 1
    if s.lift_uid != 0 and s.lift_punk == 1:
        pool[n] = s.lift_type
        n += 1
    return n, h


@kernel
def _deal(s, opp, pinned, pool, h, redraw_revealed):
    """Write ``pool`` back into the slots ``_gather`` read, in the same order."""
    n = 0
    for k in range(s.deck_n):
        s.deck[k] = pool[n]
        n += 1
    for t in range(N_DT):
        s.hand[opp, t] = pinned[t]
    for k in range(h):
        s.hand[opp, pool[n + k]] += 1
    if redraw_revealed:
        # the cards just drawn: any revealed_n of the new hand (the pool is in random order)
        for k in range(s.revealed_n):
            s.revealed[k] = pool[n + k]
    n += h
    for p in range(2):
        for c in range(COLS):
            for i in range(s.col_len[p, c]):
                if s.ent_kind[p, c, i] == PERSON and s.ent_punk[p, c, i] == 1:
                    s.ent_type[p, c, i] = pool[n]
                    n += 1
    if s.lift_uid != 0 and s.lift_punk == 1:
        s.lift_type = pool[n]


@standalone_kernel(STATES, types.int64, types.int64, types.uint64)
def determinize_into(states, g, player, key):
    """Resample in place what ``player`` may not know in game ``g`` (module docstring), from
    the RNG word ``key`` (uint64)."""
    s = states[g]
    if player < 0 or player > 1:
        return
    opp = 1 - player
    words = np.zeros(1, np.uint64)
    words[0] = key
    _redraft(s, player, words)

    pinned = np.zeros(N_DT, np.int16)
    _pinned(s, opp, pinned)
    pool = np.empty(POOL_SIZE, np.int8)
    n, h = _gather(s, opp, pinned, pool)
    original = pool[:n].copy()
    revealed = s.revealed.copy()
    d = s.depth - 1
    redraw_revealed = False
    if s.phase == PHASE_DECISION and d >= 0 and s.fr_owner[d] == opp:
        op = _frame_op(s, d)
        redraw_revealed = (
            (op == OP_DRAW_DISCARD or op == OP_DRAW_2_DISCARD_1)
            and s.fr_stage[d] == 0
            and s.revealed_n <= h
        )
    mask = np.zeros(NUM_ACTIONS, np.int8)
    done = False
    for _ in range(MAX_TRIES):
        shuffle(words, pool, n)
        _deal(s, opp, pinned, pool, h, redraw_revealed)
        if s.phase != PHASE_DECISION:
            done = True
            break
        if pending_mask_into(states, g, mask) == s.current_player:
            for a in range(NUM_ACTIONS):
                s.pend_mask[a] = mask[a]
            done = True
            break
    if not done:
        # keep the true arrangement (still consistent) rather than an impossible one
        for k in range(n):
            pool[k] = original[k]
        _deal(s, opp, pinned, pool, h, False)
        for k in range(revealed.shape[0]):
            s.revealed[k] = revealed[k]
    s.rng[0] = next_u64(words, 0)


determinize_batch = determinize_kernel("radlands", determinize_into)
