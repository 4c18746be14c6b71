"""Agents for the ladder tests, imported by the ladder as ``ladder_agents:Class``."""

import numpy as np


class FirstLegal:
    """Always the lowest legal action: a weak, deterministic rung below random."""

    def act_batch(self, observations, masks):
        return np.argmax(np.asarray(masks) != 0, axis=1)


class Seeded:
    """Takes the game and seed keywords the ladder offers, and records them."""

    def __init__(self, game, seed):
        self.game, self.seed = game, seed
        self.rng = np.random.default_rng(seed)

    def act_batch(self, observations, masks):
        keys = np.where(np.asarray(masks) != 0, self.rng.random(np.shape(masks)), -1.0)
        return keys.argmax(axis=1)


class NoActBatch:
    pass
