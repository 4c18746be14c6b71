"""Dice Nim's determinization (the contract is in envs/core/game.py).

Everything on the table is public; the only hidden information is the future of the die, that
is the RNG word, which is replaced. ``player`` is accepted for the common signature.
"""

import numpy as np
from numba import prange, types

from meeple_gym.core.jit import parallel_kernel, standalone_kernel
from meeple_gym.core.rng import STREAM_DETERMINIZE, derive_key, next_u64

from .rules import STATES


@standalone_kernel(STATES, types.int64, types.int64, types.uint64)
def determinize_into(states, g, player, key):
    words = np.zeros(1, np.uint64)
    words[0] = key
    states[g].rng[0] = next_u64(words, 0)


@parallel_kernel
def determinize_batch(states, players, seed):
    for i in prange(states.shape[0]):
        key = derive_key(seed, np.uint64(i), np.uint64(STREAM_DETERMINIZE))
        determinize_into(states, i, players[i], key)
