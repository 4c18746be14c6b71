"""Agents of a "user package" for tests/test_integrations_agents.py."""

import numpy as np


class FirstLegalAct:
    """Only ``act(observation_dict) -> int``: the evaluator calls it once per game row."""

    def __init__(self, obs_size=None):
        self.obs_size = obs_size
        self.calls = 0

    def act(self, observation):
        if self.obs_size is not None:
            assert np.shape(observation["observation"]) == (self.obs_size,)
        self.calls += 1
        return int(np.flatnonzero(observation["action_mask"])[0])


class FirstLegalBatch:
    """The same policy with ``act_batch(observations, masks)``."""

    name = "first-legal"

    def act_batch(self, observations, masks):
        return np.argmax(np.asarray(masks) != 0, axis=1)


def make_first_legal(game, seed):
    """A factory, called with the game and seed keywords."""
    del game, seed
    return FirstLegalAct()


first_legal = FirstLegalBatch()  # an agent object, imported as it is
