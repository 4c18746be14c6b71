"""Uniform-random agent over the legal actions given by an action mask (works for any game)."""

from __future__ import annotations

import numpy as np

from meeple_gym.core.batch import MAX_SEED
from meeple_gym.core.options import check_int


class RandomAgent:
    """Picks uniformly among the legal actions; ``seed`` (0 to 2**64 - 1, or None for fresh
    entropy) makes the choices reproducible."""

    def __init__(self, seed: int | None = None):
        if seed is not None:
            seed = check_int("seed", seed, 0, MAX_SEED)
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict) -> int:
        """One action for a PettingZoo-style observation dict with an ``action_mask`` entry."""
        legal = np.flatnonzero(np.asarray(observation["action_mask"]))
        if legal.size == 0:
            raise ValueError("action_mask has no legal action")
        return int(legal[self.rng.integers(legal.size)])

    def act_batch(self, observations, masks: np.ndarray) -> np.ndarray:
        """One action per row of a (B, A) 0/1 mask array, as an int64 array of length B.

        ``observations`` is ignored (every agent shares the ``act_batch(observations, masks)``
        signature); pass ``None`` if you have none."""
        del observations
        masks = np.asarray(masks)
        if masks.ndim != 2:
            raise ValueError(f"masks must be 2-D (batch, actions), got shape {masks.shape}")
        legal = masks != 0
        if not legal.any(axis=1).all():
            raise ValueError("some mask rows have no legal action")
        # The argmax of i.i.d. uniform keys over the legal entries is a uniform legal pick.
        keys = np.where(legal, self.rng.random(masks.shape), -1.0)
        return keys.argmax(axis=1).astype(np.int64)
