"""Dice Nim's observation: a float32 vector of ``OBS_SIZE`` (30) seen from one seat.

Everything is public except the RNG word, which the observation never reads.

=========  =====  ==========================================================================
offset     size   meaning
=========  =====  ==========================================================================
0-25       26     stones left, one-hot (0 to MAX_PILE)
26         1      this seat is to act (0 once the game is over)
27         1      stones this seat took
28         1      stones the other seat took
29         1      what the last action's roll took (0: the last action was no roll)
=========  =====  ==========================================================================
"""

import numpy as np
from numba import prange, types

from meeple_gym.core.jit import array_arg, parallel_kernel, standalone_kernel

from .rules import MAX_PILE, MAX_TAKE, STATES

PILE_ONEHOT = 0
TO_ACT = PILE_ONEHOT + MAX_PILE + 1
MY_TAKEN = TO_ACT + 1
THEIR_TAKEN = MY_TAKEN + 1
LAST_ROLL = THEIR_TAKEN + 1
OBS_SIZE = LAST_ROLL + 1  # 30


@standalone_kernel(STATES, types.int64, types.int64, array_arg(np.float32))
def encode_into(states, g, player, out):
    """``out`` = the observation of seat ``player`` in game ``g``."""
    s = states[g]
    out[:] = 0.0
    out[PILE_ONEHOT + s.pile] = 1.0
    if s.terminated == 0 and s.truncated == 0 and s.current_player == player:
        out[TO_ACT] = 1.0
    out[MY_TAKEN] = s.taken[player]
    out[THEIR_TAKEN] = s.taken[1 - player]
    out[LAST_ROLL] = s.last_roll


@parallel_kernel
def encode_batch(states, players, out):
    """``out[g]`` = observation of seat ``players[g]`` in game ``g``, for every game."""
    for g in prange(states.shape[0]):
        encode_into(states, g, players[g], out[g])


# Upper bounds of every entry (the lower bound is 0), for the Box observation space.
OBS_HIGH = np.ones(OBS_SIZE, dtype=np.float32)
OBS_HIGH[MY_TAKEN] = OBS_HIGH[THEIR_TAKEN] = MAX_PILE
OBS_HIGH[LAST_ROLL] = MAX_TAKE
OBS_HIGH.setflags(write=False)
