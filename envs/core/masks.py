"""Kernels over 0/1 action masks and observation vectors that the games and their rule-of-thumb
agents share (meeple_gym.baselines.*_heuristic): the first or only legal action, a one-hot
block's index, the legal fallback every heuristic decision ends with, and the parallel loop
that decides a batch of rows.

They live in ``meeple_gym.core`` so that an edit here invalidates the cached machine code of
every game that inlines them (meeple_gym.core.jit, "The on-disk cache").
"""

from __future__ import annotations

from numba import prange

from meeple_gym.core.jit import game_kernel, kernel, rebind

__all__ = ["_first_legal", "_legal_or", "_onehot", "_single_action", "policy_batch"]


@kernel
def _first_legal(mask):
    """The lowest legal action of ``mask``, -1 if there is none."""
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            return a
    return -1


@kernel
def _onehot(obs, start, n):
    """Which of the ``n`` entries of a one-hot block at ``obs[start]`` is set, -1 if none."""
    for k in range(n):
        if obs[start + k] != 0:
            return k
    return -1


@kernel
def _single_action(mask):
    """The one legal action of ``mask``, -1 if there are none or several."""
    only = -1
    for a in range(mask.shape[0]):
        if mask[a]:
            if only >= 0:
                return -1
            only = a
    return only


@kernel
def _legal_or(action, mask, fallback):
    """``action`` if ``mask`` allows it; else ``fallback`` if allowed (-1: no fallback); else
    the first legal action: whatever the reasoning, a heuristic only returns a legal action."""
    if action < 0 or action >= mask.shape[0] or mask[action] == 0:
        if fallback >= 0 and mask.shape[0] > fallback and mask[fallback] != 0:
            return fallback
        return _first_legal(mask)
    return action


def _policy_batch(obs, masks, out):
    """``out[i]`` = heuristic action for row ``i`` of ``obs`` (B, OBS_SIZE) and ``masks``."""
    for i in prange(obs.shape[0]):
        out[i] = policy(obs[i], masks[i])  # noqa: F821 - bound per game


def policy_batch(policy, game: str):
    """The parallel kernel ``(obs, masks, out)`` that runs the one-row kernel ``policy`` on every
    row, compiled into ``game``'s cache group (it inlines that game's heuristic)."""
    namespace = dict(globals())  # with __name__: Numba's cache locates the code by its module
    namespace["policy"] = policy
    return game_kernel(rebind(_policy_batch, namespace), game, parallel=True)
