"""Dice Nim's rule-of-thumb agent: the Nim strategy, from the observation only.

Leave the opponent a multiple of four stones (take ``pile % 4``); from a multiple of four no
take wins by force, so roll the die and hope.
"""

from __future__ import annotations

import numpy as np
from numba import types

from meeple_gym.baselines.kernel_agent import KernelAgent
from meeple_gym.core.jit import array_arg, standalone_kernel
from meeple_gym.core.masks import _legal_or

from .encoder import OBS_SIZE, PILE_ONEHOT
from .rules import A_ROLL, A_TAKE, MAX_PILE, NUM_ACTIONS


@standalone_kernel(array_arg(np.float32), array_arg(np.int8), returns=types.int64)
def heuristic_action(obs, mask):
    """The heuristic's action for one observation and mask (-1: nothing is legal)."""
    pile = 0
    for k in range(MAX_PILE + 1):
        if obs[PILE_ONEHOT + k] > 0.5:
            pile = k
    action = A_ROLL if pile % 4 == 0 else A_TAKE + pile % 4 - 1
    return _legal_or(action, mask, -1)


class MinimalHeuristicAgent(KernelAgent, policy=heuristic_action, game="minimal"):
    """Plays Nim perfectly when it can, rolls when it cannot; deterministic."""

    obs_size = OBS_SIZE
    num_actions = NUM_ACTIONS
