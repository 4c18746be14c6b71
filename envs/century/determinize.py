"""Century's determinization (docs/century.md; the contract is in envs/core/game.py).

Caravans, hands, played piles, coins, the market and the point row are public in Century
(encoders/century.py), so no seat holds a secret: the only hidden information is the order of
the two face-down decks (``merchant_deck[merchant_deck_top:]``, ``point_deck[point_deck_top:]``)
and the RNG word. Both decks are shuffled uniformly and the RNG word is replaced; the dealt
prefixes of the deck arrays (cards already public) are kept. ``player`` is accepted for the
common signature; every seat knows the same.
"""

import numpy as np
from numba import types

from meeple_gym.century.rules import N_DECK, N_POINT, STATES
from meeple_gym.core.jit import standalone_kernel
from meeple_gym.core.rng import next_u64, shuffle
from meeple_gym.core.stepping import determinize_kernel


@standalone_kernel(STATES, types.int64, types.int64, types.uint64)
def determinize_into(states, g, player, key):
    """Reshuffle the unseen rest of both decks of game ``g`` and replace its RNG word, from the
    RNG word ``key``; ``player`` changes nothing (module docstring)."""
    s = states[g]
    words = np.zeros(1, np.uint64)
    words[0] = key
    top = s.merchant_deck_top
    shuffle(words, s.merchant_deck[top:], N_DECK - top)
    top = s.point_deck_top
    shuffle(words, s.point_deck[top:], N_POINT - top)
    s.rng[0] = next_u64(words, 0)


determinize_batch = determinize_kernel("century", determinize_into)
