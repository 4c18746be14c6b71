"""Stable-Baselines3 and sb3-contrib on the registered Gymnasium envs with no glue (docs/sb3.md):
SB3's own env checker passes for every game, and MaskablePPO trains a few thousand steps straight
from ``gymnasium.make``, finding ``action_masks()`` by itself. Needs torch (``pip install
torch==2.13.0`` for the CPU build, then ``.[test]``); skipped without it."""

import warnings

import gymnasium
import numpy as np
import pytest

import meeple_gym as mg

GAMES = mg.available_games()


@pytest.mark.parametrize("game", GAMES)
def test_sb3_check_env_passes(game):
    pytest.importorskip("stable_baselines3")
    from stable_baselines3.common.env_checker import check_env

    # The checker steps unmasked random actions: "lose" ends such an episode, as documented.
    env = gymnasium.make(f"meeple_gym/{game.capitalize()}-v0", illegal_action="lose")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a checker warning is a failure here
        check_env(env.unwrapped)


def test_maskable_ppo_trains_and_acts_legally_with_no_glue():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    env = gymnasium.make("meeple_gym/Century-v0", num_players=2, opponent="random")
    model = MaskablePPO("MlpPolicy", env, n_steps=512, batch_size=128, n_epochs=1, seed=0)
    model.learn(3072)
    assert model.num_timesteps >= 3072
    # The masks sb3-contrib reads through the env's wrappers are the env's own masks, and the
    # masked policy only picks legal actions (the default illegal_action="raise" would raise).
    vec = model.get_env()
    obs = vec.reset()
    for _ in range(200):
        masks = get_action_masks(vec)
        assert masks.dtype == bool and masks.any(axis=1).all()
        action, _ = model.predict(obs, action_masks=masks, deterministic=False)
        assert masks[np.arange(len(action)), action].all()
        obs, _, _, _ = vec.step(action)
