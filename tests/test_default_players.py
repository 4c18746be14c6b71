"""Every entry point seats the same number of players when none is given: ``mg.make``,
``mg.make_batch``, the Gymnasium ids (single and vector) and ``make_parallel``. Everdell's solo
mode against Rugwort is asked for with ``num_players=1``, never the default."""

from __future__ import annotations

import gymnasium
import pytest

import meeple_gym as mg
from meeple_gym.core.gym_env import GAME_IDS


@pytest.mark.parametrize("game", mg.available_games())
def test_every_entry_point_defaults_to_the_same_player_count(game):
    expected = mg.get_spec(game).default_players
    assert mg.make(game).unwrapped.num_players == expected
    assert mg.make_batch(game, 1).num_players == expected
    assert mg.make_parallel(game).unwrapped.num_players == expected
    assert gymnasium.make(GAME_IDS[game]).unwrapped.num_players == expected
    vector = gymnasium.make_vec(GAME_IDS[game], 2, vectorization_mode="vector_entry_point")
    assert vector.unwrapped.num_players == expected


def test_everdell_defaults_to_two_players_not_the_solo_mode():
    assert mg.get_spec("everdell").default_players == 2
    assert len(mg.make("everdell").possible_agents) == 2
