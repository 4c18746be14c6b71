"""Each library's own documented first call works on the Gymnasium ids with no extra arguments:
Gymnasium's and SB3's env checkers, SB3's ``make_vec_env`` and TorchRL's ``GymEnv``.

The ids end an episode as a loss on an illegal action (PettingZoo's classic convention), so the
checkers' unmasked sampled actions are played, not refused; unknown keywords raise a
``TypeError`` worded as Python words it, which those libraries catch to retry without them.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import meeple_gym as mg
from meeple_gym.core.gym_env import GAME_IDS

GAMES = mg.available_games()


def _illegal_action(mask) -> int:
    return int(np.flatnonzero(np.asarray(mask) == 0)[0])


@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_check_env_passes_on_defaults(game):
    from gymnasium.utils.env_checker import check_env

    check_env(gymnasium.make(GAME_IDS[game]).unwrapped)


@pytest.mark.parametrize("game", GAMES)
def test_sb3_check_env_passes_on_defaults(game):
    pytest.importorskip("stable_baselines3", reason="stable-baselines3 is not installed")
    from stable_baselines3.common.env_checker import check_env

    check_env(gymnasium.make(GAME_IDS[game]))


@pytest.mark.parametrize("game", GAMES)
def test_an_illegal_action_ends_the_episode_as_a_loss_by_default(game):
    env = gymnasium.make(GAME_IDS[game])
    _, info = env.reset(seed=0)
    _, reward, terminated, truncated, info = env.step(_illegal_action(info["action_mask"]))
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)

    vector = gymnasium.make_vec(GAME_IDS[game], 2, vectorization_mode="vector_entry_point")
    _, info = vector.reset(seed=0)
    actions = np.array([_illegal_action(row) for row in info["action_mask"]])
    _, rewards, terminations, _, info = vector.step(actions)
    assert rewards.tolist() == [-1.0, -1.0] and terminations.all()
    assert info["illegal_action"].all()  # next-step auto-reset: this step's own info


def test_refusing_an_illegal_action_names_the_option():
    env = gymnasium.make(GAME_IDS["century"], illegal_action="raise")
    _, info = env.reset(seed=0)
    with pytest.raises(mg.IllegalActionError, match='illegal_action="lose"'):
        env.step(_illegal_action(info["action_mask"]))
    aec = mg.make("century")
    aec.reset(seed=0)
    with pytest.raises(mg.IllegalActionError, match='illegal_action="lose"'):
        aec.step(_illegal_action(aec.last()[0]["action_mask"]))


def test_unknown_keywords_raise_a_type_error_worded_as_python_words_it():
    with pytest.raises(TypeError, match="unexpected keyword argument 'frameskip'"):
        gymnasium.make(GAME_IDS["century"], frameskip=4)
    with pytest.raises(mg.OptionError):  # still the project's own error, and a ValueError
        mg.make("century", frameskip=4)
    assert issubclass(mg.OptionError, ValueError)


def test_sb3_make_vec_env_on_defaults():
    pytest.importorskip("stable_baselines3", reason="stable-baselines3 is not installed")
    from stable_baselines3.common.env_util import make_vec_env

    pytest.importorskip("cairosvg", reason="rgb_array needs the pictures extra (CairoSVG)")
    # SB3 passes render_mode="rgb_array" (and would retry without it only on a TypeError):
    # the env accepts it, so the recorded pictures work too.
    venv = make_vec_env(GAME_IDS["century"], n_envs=4)
    assert venv.render_mode == "rgb_array"
    obs = venv.reset()
    images = venv.get_images()
    assert len(images) == 4 and images[0].ndim == 3 and images[0].shape[1] >= 600
    assert obs.shape == (4, mg.get_spec("century").obs_size)
    masks = np.stack(venv.env_method("action_masks"))
    obs, rewards, dones, infos = venv.step(masks.argmax(axis=1))
    assert obs.shape[0] == 4 and not dones.any()


def test_torchrl_gym_env_on_defaults():
    pytest.importorskip("torchrl", reason="torchrl is not installed")
    from torchrl.envs import GymEnv

    # GymEnv passes frameskip and drops it when the TypeError names it.
    env = GymEnv(GAME_IDS["century"])
    td = env.reset()
    assert td["observation"].shape == (mg.get_spec("century").obs_size,)
