"""Dice Nim's rule-of-thumb agent: the Nim strategy, from the observation only.

Leave the opponent a multiple of four stones (take ``pile % 4``); from a multiple of four no
take wins by force, so roll the die and hope.
"""

from __future__ import annotations

import numpy as np
from numba import prange, types

from meeple_gym.baselines.kernel_agent import KernelAgent
from meeple_gym.core.jit import array_arg, kernel, parallel_kernel, standalone_kernel

from .encoder import OBS_SIZE, PILE_ONEHOT
from .rules import A_ROLL, A_TAKE, MAX_PILE, NUM_ACTIONS


@kernel
def _first_legal(mask):
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            return a
    return -1


@standalone_kernel(array_arg(np.float32), array_arg(np.int8), returns=types.int64)
def heuristic_action(obs, mask):
    """The heuristic's action for one observation and mask (-1: nothing is legal)."""
    pile = 0
    for k in range(MAX_PILE + 1):
        if obs[PILE_ONEHOT + k] > 0.5:
            pile = k
    action = A_ROLL if pile % 4 == 0 else A_TAKE + pile % 4 - 1
    if action < 0 or action >= mask.shape[0] or mask[action] == 0:
        action = _first_legal(mask)
    return action


@parallel_kernel
def heuristic_batch(obs, masks, out):
    """``out[i]`` = heuristic action for row ``i`` of ``obs`` (B, OBS_SIZE) and ``masks``."""
    for i in prange(obs.shape[0]):
        out[i] = heuristic_action(obs[i], masks[i])


class MinimalHeuristicAgent(KernelAgent):
    """Plays Nim perfectly when it can, rolls when it cannot; deterministic."""

    obs_size = OBS_SIZE
    num_actions = NUM_ACTIONS
    policy = staticmethod(heuristic_action)
    policy_batch = staticmethod(heuristic_batch)
