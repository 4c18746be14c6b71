"""The compact observation (``observation="compact"``) through every entry point, for each game
that has one: ``make_batch``, the spec variant, PettingZoo, Gymnasium, the vector env and
``meeple bench``.

What each game's compact vector holds is tested per game (tests/test_everdell_compact_obs.py,
tests/test_radlands_compact_obs.py, tests/test_endeavor_compact_obs.py): the kernel against the
slow reference ``encoders.<game>.compact_from_full``, the layout and the leak tests.
"""

import pickle
import warnings
from importlib import import_module

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import meeple_gym as mg
from meeple_gym.core.errors import OptionError

GAMES = ("everdell", "radlands", "endeavor")


def encoder(game):
    return import_module(f"meeple_gym.encoders.{game}")


def _play(batch, steps, seed=3):
    rng = np.random.default_rng(seed)
    obs = [batch.reset()]
    for _ in range(steps):
        acts = [rng.choice(np.flatnonzero(m)) for m in batch.legal_mask]
        obs.append(batch.step(np.array(acts))[0])
    return np.stack(obs)


@pytest.mark.parametrize("game", GAMES)
def test_make_batch_compact_same_game_and_deterministic(game):
    enc = encoder(game)
    full = mg.make_batch(game, 6, 2, seed=7)
    compact = mg.make_batch(game, 6, 2, seed=7, observation="compact")
    assert compact.spec.observation == "compact" and compact.spec.obs_size == enc.COMPACT_OBS_SIZE
    assert compact.observation.shape == (6, enc.COMPACT_OBS_SIZE)
    a, b = _play(full, 40), _play(compact, 40)
    np.testing.assert_array_equal(full.get_states(), compact.get_states())  # the same games
    assert b.shape[-1] == enc.COMPACT_OBS_SIZE
    for t in range(a.shape[0]):
        for g in range(6):
            np.testing.assert_array_equal(b[t, g], enc.compact_from_full(a[t, g]))
    again = _play(mg.make_batch(game, 6, 2, seed=7, observation="compact"), 40)
    np.testing.assert_array_equal(b, again)
    # Another batch size deals the same first rows (results do not depend on the batch size).
    small = mg.make_batch(game, 3, 2, seed=7, observation="compact").reset()
    np.testing.assert_array_equal(small, b[0, :3])


@pytest.mark.parametrize("game", GAMES)
def test_spec_variant_is_shared_and_pickles(game):
    enc = encoder(game)
    spec = mg.get_spec(game, "compact")
    assert spec is mg.get_spec(game).with_observation("compact")
    assert spec.with_observation("full") is mg.get_spec(game)
    assert pickle.loads(pickle.dumps(spec)) is spec
    assert spec.observation_names() == ("full", "compact")
    assert spec.obs_size == enc.COMPACT_OBS_SIZE and spec.obs_high is enc.COMPACT_OBS_HIGH
    assert spec.encode_batch is enc.encode_compact_batch


@pytest.mark.parametrize("game", GAMES)
def test_unknown_observation_is_refused(game):
    with pytest.raises(OptionError, match="observation"):
        mg.make_batch(game, 2, observation="tiny")


def test_a_game_without_a_compact_encoder_refuses_it():
    with pytest.raises(OptionError, match="observation"):
        mg.make("century", observation="compact")


@pytest.mark.parametrize("game", GAMES)
def test_pettingzoo_api_and_spaces_with_compact(game):
    enc = encoder(game)
    env = mg.make(game, 2, observation="compact")
    space = env.observation_space("player_0")["observation"]
    assert space.shape == (enc.COMPACT_OBS_SIZE,)
    np.testing.assert_array_equal(space.high, enc.COMPACT_OBS_HIGH)
    api_test(env, num_cycles=200)
    env.reset(seed=2)
    obs = env.observe(env.agent_selection)["observation"]
    assert obs.shape == (enc.COMPACT_OBS_SIZE,) and space.contains(obs)
    clone = pickle.loads(pickle.dumps(env.unwrapped))
    assert clone.spec.observation == "compact"


@pytest.mark.parametrize("game", GAMES)
def test_gymnasium_check_env_with_compact(game):
    enc = encoder(game)
    env = gymnasium.make(mg.get_spec(game).gym_id, observation="compact", render_mode="ansi")
    assert env.observation_space.shape == (enc.COMPACT_OBS_SIZE,)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize("game", GAMES)
def test_vector_env_with_compact(game):
    enc = encoder(game)
    envs = gymnasium.make_vec(
        mg.get_spec(game).gym_id,
        num_envs=3,
        vectorization_mode="vector_entry_point",
        observation="compact",
    )
    obs, info = envs.reset(seed=0)
    assert obs.shape == (3, enc.COMPACT_OBS_SIZE)
    assert envs.single_observation_space.shape == (enc.COMPACT_OBS_SIZE,)
    mask = info["action_mask"]
    obs, *_ = envs.step(np.array([np.flatnonzero(m)[0] for m in mask]))
    assert envs.observation_space.contains(obs)
    clone = pickle.loads(pickle.dumps(envs.unwrapped))
    assert clone.single_observation_space.shape == (enc.COMPACT_OBS_SIZE,)
    envs.close()


@pytest.mark.parametrize("game", GAMES)
def test_bench_measures_the_compact_observation(game):
    from meeple_gym import bench
    from meeple_gym.cli import build_parser

    r = bench.batched_step(
        game, batch_sizes=(4,), threads=(1,), seconds=0.01, observation="compact"
    )
    assert r["runs"][0]["steps_per_s"] > 0
    args = build_parser().parse_args(["bench", "--game", game, "--observation", "compact"])
    assert args.observation == "compact"


def test_bench_refuses_an_observation_the_game_lacks(capsys):
    from meeple_gym.cli import main

    assert main(["bench", "--game", "century", "--observation", "compact"]) == 2
    captured = capsys.readouterr()
    assert "observation" in captured.err and captured.out == ""


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("vector", [False, True])
def test_heuristic_opponent_reads_the_full_observation(game, vector):
    # The heuristic agent is a policy over the full vector: with observation="compact" the
    # learner sees the compact one and the heuristic opponent still gets the full one.
    size = encoder(game).COMPACT_OBS_SIZE
    kwargs = {"observation": "compact", "opponent": "heuristic"}
    gym_id = mg.get_spec(game).gym_id
    if vector:
        env = gymnasium.make_vec(
            gym_id, num_envs=2, vectorization_mode="vector_entry_point", **kwargs
        )
    else:
        env = gymnasium.make(gym_id, **kwargs)
    obs, info = env.reset(seed=0)
    for _ in range(40):
        mask = info["action_mask"]
        # (a vector row that just ended shows an all-zero mask; its action is not used)
        first = [int(np.argmax(m)) for m in np.atleast_2d(mask)]
        act = np.array(first) if vector else first[0]
        obs, _, term, trunc, info = env.step(act)
        assert obs.shape[-1] == size
        if not vector and (term or trunc):
            obs, info = env.reset()
    env.close()
