"""Everdell determinization (docs/everdell.md): a full state consistent with what one seat knows.

``determinize_into(states, g, player, key)`` resamples in place, uniformly, everything in
game ``g`` that ``player`` may not know, and keeps the rest:

- the unknown cards: the draw deck, the discard pile (face down, subtleties §2: only its size
  is seen), the other players' hands, and the revealed cards when another player is the one
  deciding on them (Postal Pigeon, Teacher, Cemetery, Ancient Scrolls, the 2 cards a Post
  Office gives) are pooled and dealt back to the same places at random: pile sizes and hand
  sizes stay, deck order included. The 2 cards of a Meadow pick stay: they came from the
  face-up Meadow;
- the RNG word: the future reshuffles and, solo, Rugwort's d8 rolls. Rugwort has no hand;
  his city, workers and score are public.

Kept: the Meadow, every city, the forest, events, resources, workers, ``player``'s own hand,
all counts. A pending decision stays valid: it is asked again from the position
(``rules.rederive_pending``), and an arrangement under which the deciding player would not be
asked the same kind of question (an engine with one legal choice takes it at once) is
redrawn, so the draw is uniform over the arrangements consistent with the position.

``determinize_batch(states, players, seed)`` does this for every row
(meeple_gym.core.stepping.determinize_batch).

Not used: what a player with perfect recall could infer from the order of past events beyond
the record (e.g. the cards they gave an opponent with a Post Office, or which Meadow cards
were discarded): the record keeps no history, so the pool is every card the seat does not
see now.
"""

import numpy as np
from numba import types

from meeple_gym.core.jit import kernel, standalone_kernel
from meeple_gym.core.rng import next_u64, shuffle
from meeple_gym.core.stepping import determinize_kernel
from meeple_gym.everdell.rules import (
    DECK_SIZE,
    F_MEADOW_PICK,
    NT,
    NUM_ACTIONS,
    PK_TURN,
    STATES,
    T_LOCATION,
    rederive_pending,
)

# Redraws when the decider would not be asked the same question; past this the position is
# left as it was.
MAX_TRIES = 1000


@kernel
def _revealed_hidden(s, player):
    """The revealed cards are unknown to ``player``: another seat decides on them, and they
    are not the 2 face-up Meadow cards of a Meadow pick."""
    if s.revealed_n <= 0 or s.current_player == player or s.current_player < 0:
        return False
    d = s.depth - 1
    return not (d >= 0 and s.fr_kind[d] == T_LOCATION and s.fr_a[d] == F_MEADOW_PICK)


@kernel
def _gather(s, player, hidden_revealed, pool):
    """The unknown cards in slot order: deck, discard, other hands (seat order), revealed."""
    n = 0
    for k in range(s.deck_n):
        pool[n] = s.deck[k]
        n += 1
    for k in range(s.discard_n):
        pool[n] = s.discard[k]
        n += 1
    for q in range(s.num_players):
        if q != player:
            for t in range(NT):
                for _ in range(s.hand[q, t]):
                    pool[n] = t
                    n += 1
    if hidden_revealed:
        for k in range(s.revealed_n):
            pool[n] = s.revealed[k]
            n += 1
    return n


@kernel
def _deal(s, player, hidden_revealed, pool):
    """Write ``pool`` back into the slots ``_gather`` read, in the same order."""
    n = 0
    for k in range(s.deck_n):
        s.deck[k] = pool[n]
        n += 1
    for k in range(s.discard_n):
        s.discard[k] = pool[n]
        n += 1
    for q in range(s.num_players):
        if q != player:
            for t in range(NT):
                s.hand[q, t] = 0
            for _ in range(s.hand_n[q]):
                s.hand[q, pool[n]] += 1
                n += 1
    if hidden_revealed:
        for k in range(s.revealed_n):
            s.revealed[k] = pool[n]
            n += 1


@standalone_kernel(STATES, types.int64, types.int64, types.uint64)
def determinize_into(states, g, player, key):
    """Resample in place what ``player`` may not know in game ``g`` (module docstring), from
    the RNG word ``key`` (uint64)."""
    s = states[g]
    if player < 0 or player >= s.num_players:
        return
    words = np.zeros(1, np.uint64)
    words[0] = key
    hidden_revealed = _revealed_hidden(s, player)
    pool = np.empty(DECK_SIZE, np.int8)
    n = _gather(s, player, hidden_revealed, pool)
    original = pool[:n].copy()
    live = s.terminated == 0 and s.truncated == 0
    done = False
    for _ in range(MAX_TRIES):
        shuffle(words, pool, n)
        _deal(s, player, hidden_revealed, pool)
        if not live:
            done = True
            break
        # ask again on a scratch copy: a question that is no longer asked would run on
        scratch = states[g : g + 1].copy()
        asked = rederive_pending(scratch, 0)
        r = scratch[0]
        if asked and r.current_player == s.current_player and r.pend_kind == s.pend_kind:
            legal = 0
            for a in range(NUM_ACTIONS):
                legal += r.pend_mask[a]
            if s.pend_kind == PK_TURN or legal >= 2:
                for a in range(NUM_ACTIONS):
                    s.pend_mask[a] = r.pend_mask[a]
                done = True
                break
    if not done:
        # keep the true arrangement (still consistent) rather than an impossible one
        for k in range(n):
            pool[k] = original[k]
        _deal(s, player, hidden_revealed, pool)
    s.rng[0] = next_u64(words, 0)


determinize_batch = determinize_kernel("everdell", determinize_into)
