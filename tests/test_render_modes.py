"""Render modes and pictures in the envs (docs/pictures.md): ``rgb_array`` images from the AEC
env (public view) and the Gymnasium env (the learner's seat), ``picture(seat)`` and the
notebook hook, for every game."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import meeple_gym as mg
from meeple_gym.core.registry import GAME_IDS
from meeple_gym.core.svg import MIN_RGB_WIDTH

GAMES = ["century", "radlands", "everdell", "endeavor"]

cairosvg = pytest.importorskip("cairosvg", reason="rgb_array needs the pictures extra (CairoSVG)")


@pytest.mark.parametrize("game", GAMES)
def test_aec_rgb_array_is_the_public_picture(game):
    env = mg.make(game, 2, render_mode="rgb_array")
    env.reset(seed=3)
    image = env.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert image.shape[1] >= MIN_RGB_WIDTH
    assert np.array_equal(image, env.picture().to_rgb())
    raw = env.unwrapped
    assert env.picture().to_svg() == raw.spec.draw(raw._states, 0, None)
    assert env._repr_svg_() == env.picture().to_svg()  # the wrapped env shows inline too
    assert env.picture("player_1").to_svg() == env.picture(1).to_svg()
    with pytest.raises(mg.OptionError, match="seat"):
        env.picture(5)


@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_rgb_array_draws_the_learners_seat(game):
    env = gymnasium.make(GAME_IDS[game], render_mode="rgb_array", seat=1)
    env.reset(seed=2)
    image = env.render()
    assert image.shape[1] >= MIN_RGB_WIDTH and image.dtype == np.uint8
    inner = env.unwrapped
    assert inner.picture().to_svg() == inner.picture(1).to_svg()
    assert np.array_equal(image, inner.picture(1).to_rgb())


def test_pictures_need_a_game_and_refuse_before_reset():
    env = mg.make("century", 2, render_mode="rgb_array")
    assert env.unwrapped._repr_svg_() is None  # nothing to show yet
    with pytest.raises(mg.core.errors.NotResetError):
        env.render()
    with pytest.raises(mg.core.errors.NotResetError):
        env.picture()


def test_gymnasium_checker_accepts_rgb_array():
    from gymnasium.utils.env_checker import check_env

    env = gymnasium.make(GAME_IDS["century"], render_mode="rgb_array")
    check_env(env.unwrapped)  # it calls render() in the declared mode
