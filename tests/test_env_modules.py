"""Each game's env module follows PettingZoo's classic layout: ``env()`` wraps ``raw_env``."""

import importlib

import numpy as np
import pytest
from pettingzoo.test import api_test

import meeple_gym as mg
from meeple_gym.core.errors import OptionError, PlayerCountError


@pytest.mark.parametrize("game", mg.available_games())
def test_env_module_builds_a_working_env(game):
    module = importlib.import_module(f"meeple_gym.{game}.env")
    env = module.env()
    assert isinstance(env.unwrapped, module.raw_env)
    assert env.metadata["name"] == f"meeple_{game}_v0"
    assert module.raw_env.__module__ == module.__name__
    api_test(env, num_cycles=50)
    env.reset(seed=1)
    mask = env.observe(env.agent_selection)["action_mask"]
    env.step(int(np.flatnonzero(mask)[0]))


@pytest.mark.parametrize("game", mg.available_games())
def test_env_module_checks_its_arguments(game):
    module = importlib.import_module(f"meeple_gym.{game}.env")
    with pytest.raises(PlayerCountError):
        module.raw_env(num_players=9)
    with pytest.raises(OptionError):
        module.env(no_such_option=1)
