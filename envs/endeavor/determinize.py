"""Endeavor's determinization (docs/endeavor.md; the contract is in envs/core/game.py).

What seat ``player`` cannot see (encoders/endeavor.py) and is resampled here, uniformly among
the arrangements consistent with what it sees:

- the order of every city region deck and of the building deck (their contents are public:
  what has not been dealt);
- the empire cards it cannot see: the cards of the empire deck and the other players' secret
  hands are pooled and dealt back, each hand keeping its size. During the setup return
  (END-S4), the cards ``player`` has just put back on the deck stay where they are;
- every other player's role hand and role deck: the roles not set aside (nor revealed by
  execution) are pooled and dealt back (hand size kept, deck in random order); ``player``'s own
  role deck is reshuffled (it knows the contents, not the order);
- during planning (END-O1), the role and token count of every other player who has already
  chosen: the role uniform over that player's (resampled) hand, the tokens uniform over
  0..min(pool, MAX_TOKENS), the choices the rules allowed;
- the RNG word.

Public information (boards, goods, ships, markers, markets, slots, deck sizes, roles set
aside, executed roles) and ``player``'s own hands and choices are kept. A pending decision with
one legal action never exists (the rules take it at once, and the snapshot gate refuses it), so
when another player is to decide, the draw is repeated until that player has at least two legal
actions: the position shows that it has (a Politician holding a card it can take). The
acceptance rate is at least 2 / (unknown empire cards), so the retries are few.

Not used: what ``player`` could remember but the record does not hold. After the setup return
the empire deck is shuffled, and the record no longer says which cards ``player`` returned;
after a role deck is rebuilt (END-O2) it no longer says which roles another player kept in hand
from before. Those cards are treated as unknown, as the observation shows them.
"""

import numpy as np
from numba import types

from meeple_gym.core.jit import kernel, standalone_kernel
from meeple_gym.core.rng import next_u64, randint, shuffle
from meeple_gym.core.stepping import determinize_kernel
from meeple_gym.endeavor.data import EMPIRE_KEEP
from meeple_gym.endeavor.rules import (
    EMPIRE_DRAW,
    MAX_TOKENS,
    N_ROLES,
    NEMP,
    NR,
    PH_EMPIRE_RETURN,
    PH_OVER,
    PH_PLAN_ROLE,
    PH_PLAN_TOKENS,
    STATES,
    _fill_mask,
)

# A draw is repeated until the pending decision has two legal actions; the chance that this
# many draws all fail is below (1 - 2/27) ** 1000, about 1e-33.
MAX_DRAWS = 1000


@kernel
def _own_returns(s, player, known):
    """END-S4, during the return: flag the empire deck positions holding cards that ``player``
    has put back (pushed on top in seat order, each player returning DRAW - KEEP cards)."""
    known[:] = 0
    if s.phase != PH_EMPIRE_RETURN:
        return
    n = s.num_players
    each = EMPIRE_DRAW[n] - EMPIRE_KEEP
    base = NEMP - n * EMPIRE_DRAW[n]
    for i in range(s.pick_index + 1):
        if s.order[i] != player:
            continue
        returned = each
        if i == s.pick_index:
            returned = EMPIRE_DRAW[n] - s.empire_hand[player].sum()
        for j in range(returned):
            known[base + i * each + j] = 1


@kernel
def _deal_empire(s, player, words, known, pool, sizes):
    """Pool the empire cards ``player`` cannot see (unknown deck positions, other hands) and
    deal them back to the same places."""
    n = s.num_players
    m = 0
    for i in range(s.empire_deck_n):
        if not known[i]:
            pool[m] = s.empire_deck[i]
            m += 1
    for q in range(n):
        sizes[q] = 0
        if q == player:
            continue
        for e in range(NEMP):
            if s.empire_hand[q, e]:
                pool[m] = e
                m += 1
                sizes[q] += 1
                s.empire_hand[q, e] = 0
    shuffle(words, pool, m)
    m = 0
    for i in range(s.empire_deck_n):
        if not known[i]:
            s.empire_deck[i] = pool[m]
            m += 1
    for q in range(n):
        for _ in range(sizes[q]):
            s.empire_hand[q, pool[m]] = 1
            m += 1


@kernel
def _deal_roles(s, q, words, pool):
    """Another player's roles not set aside, pooled and dealt back to hand and deck. Once
    execution starts its role is revealed and stays in its hand (END-O1)."""
    planning = s.phase == PH_PLAN_ROLE or s.phase == PH_PLAN_TOKENS
    shown = -1 if planning else s.role[q]
    m = 0
    held = 0
    for r in range(N_ROLES):
        if s.role_hand[q, r] and r != shown:
            pool[m] = r
            m += 1
            held += 1
            s.role_hand[q, r] = 0
    for i in range(s.role_deck_n[q]):
        pool[m] = s.role_deck[q, i]
        m += 1
    shuffle(words, pool, m)
    for i in range(held):
        s.role_hand[q, pool[i]] = 1
    for i in range(s.role_deck_n[q]):
        s.role_deck[q, i] = pool[held + i]
    return held


@kernel
def _hidden_picks(s, player, q, words, held):
    """END-O1: another player's role and tokens, chosen this planning and not yet revealed."""
    if s.phase != PH_PLAN_ROLE and s.phase != PH_PLAN_TOKENS:
        return
    if q == player or s.role[q] < 0:
        return
    k = randint(words, 0, held)  # the k-th role of the new hand
    for r in range(N_ROLES):
        if s.role_hand[q, r]:
            if k == 0:
                s.role[q] = r
                break
            k -= 1
    # Tokens are placed with the role except by the decider, who is choosing them now.
    if not (s.phase == PH_PLAN_TOKENS and s.current_player == q):
        s.placed[q] = randint(words, 0, min(s.pool[q], MAX_TOKENS) + 1)


@kernel
def _legal_count(mask):
    count = 0
    for a in range(mask.shape[0]):
        count += mask[a]
    return count


@standalone_kernel(STATES, types.int64, types.int64, types.uint64)
def determinize_into(states, g, player, key):
    s = states[g]
    words = np.zeros(1, np.uint64)
    words[0] = key
    n = s.num_players
    for r in range(NR):
        shuffle(words, s.region_deck[r], s.region_deck_n[r])
    shuffle(words, s.building_deck, s.building_deck_n)
    shuffle(words, s.role_deck[player], s.role_deck_n[player])
    known = np.zeros(NEMP, np.int8)
    _own_returns(s, player, known)
    pool = np.zeros(NEMP, np.int8)
    sizes = np.zeros(n, np.int64)
    for _ in range(MAX_DRAWS):
        _deal_empire(s, player, words, known, pool, sizes)
        for q in range(n):
            if q != player:
                held = _deal_roles(s, q, words, pool)
                _hidden_picks(s, player, q, words, held)
        if s.phase == PH_OVER:
            break
        _fill_mask(s)
        # The player's own decisions depend on nothing resampled; another's must stay open.
        if s.current_player == player or _legal_count(s.pend_mask) >= 2:
            break
    s.rng[0] = next_u64(words, 0)


determinize_batch = determinize_kernel("endeavor", determinize_into)
