"""examples/minimal_game: a game outside meeple_gym that registers itself as "minimal" on import
(docs/adding-a-game.md) and then works through every entry point a built-in game does."""

from __future__ import annotations

import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import meeple_gym as mg
from meeple_gym.core.errors import SnapshotError

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def minimal():
    """The example game, registered for this module's tests only (other modules count games)."""
    sys.path.insert(0, str(ROOT))
    try:
        import examples.minimal_game as game

        game.register()  # idempotent; again after an earlier module's teardown
        yield game
    finally:
        mg.unregister_game("minimal")
        sys.path.remove(str(ROOT))


def _play_aec(env, seed: int, rng: np.random.Generator) -> tuple[dict, dict]:
    """The final snapshot and each agent's last reward of one random game."""
    env.reset(seed=seed)
    rewards = {}
    for agent in env.agent_iter():
        obs, rewards[agent], terminated, truncated, _ = env.last()
        action = None
        if not (terminated or truncated):
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
    return env.unwrapped.to_dict(), rewards


def test_importing_registers_the_game_and_its_gym_id(minimal):
    assert "minimal" in mg.available_games()
    spec = mg.get_spec("minimal")
    assert spec.gym_id == "meeple_gym/Minimal-v0" and spec.gym_id in gymnasium.registry
    assert spec.default_players == 2 and spec.heuristic.endswith(":MinimalHeuristicAgent")


def test_mg_make_plays_whole_games_that_snapshot_and_render(minimal):
    env = mg.make("minimal", render_mode="ansi")
    rng = np.random.default_rng(0)
    for seed in range(20):
        final, rewards = _play_aec(env, seed, rng)
        assert final["terminated"] and final["pile"] == 0
        assert sum(final["taken"]) == final["start_pile"]
        assert final["score"][final["winner"]] == 1
        assert sorted(rewards.values()) == [-1.0, 1.0]
        assert "won" in env.unwrapped.render()
        again = mg.make("minimal")
        again.reset(seed=seed)
        again.unwrapped.from_dict(final)
        assert again.unwrapped.to_dict() == final
    assert env.unwrapped.action_to_string(3) == "roll"


def test_the_same_seed_deals_the_same_game(minimal):
    a = _play_aec(mg.make("minimal"), 7, np.random.default_rng(1))
    b = _play_aec(mg.make("minimal"), 7, np.random.default_rng(1))
    assert a == b


def test_snapshots_refuse_unreachable_positions(minimal):
    env = mg.make("minimal")
    env.reset(seed=0)
    good = env.unwrapped.to_dict()
    for key, value in (("pile", good["pile"] - 1), ("step_count", 5), ("winner", 0)):
        bad = dict(good, **{key: value})
        with pytest.raises(SnapshotError):
            env.unwrapped.from_dict(bad)


def test_pettingzoo_api_test_passes(minimal):
    from pettingzoo.test import api_test

    api_test(mg.make("minimal"), num_cycles=50)


def test_make_batch_steps_and_rolls_out(minimal):
    batch = mg.make_batch("minimal", 64, seed=3)
    batch.reset()
    rng = np.random.default_rng(3)
    ended = 0
    for _ in range(40):
        mask = batch.legal_mask
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in mask], dtype=np.int64)
        _, rewards, terminated, _ = batch.step(actions)
        ended += int(terminated.sum())
        assert np.all(rewards[terminated].sum(axis=1) == 0)  # +1 and -1
    assert ended > 64  # every game lasts at most 25 steps: each slot finished at least once
    result = batch.random_rollout(100)
    assert result is not None


def test_gymnasium_make_of_its_id(minimal):
    env = gymnasium.make("meeple_gym/Minimal-v0")
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(int(info["action_mask"].argmax()))
        done = terminated or truncated
    assert reward in (-1.0, 1.0)
    env.close()


def _win_rate(opponent, learner, games: int = 200) -> float:
    env = mg.SingleAgentEnv("minimal", opponent=opponent)
    wins = 0
    for seed in range(games):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            action = learner.act({"observation": obs, "action_mask": info["action_mask"]})
            obs, reward, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        wins += reward > 0
    return wins / games


def test_single_agent_env_against_its_heuristic_and_random(minimal):
    from examples.minimal_game.heuristic import MinimalHeuristicAgent
    from meeple_gym.baselines.random_agent import RandomAgent

    heuristic, random = MinimalHeuristicAgent(), RandomAgent(0)
    # Nim's strategy beats random play by far, and random play loses to it: the opponent
    # names resolve to the game's own heuristic (GameSpec.heuristic) and the random agent.
    assert _win_rate("random", heuristic) > 0.7
    assert _win_rate("heuristic", random) < 0.3


def test_vector_env_against_its_heuristic(minimal):
    env = gymnasium.make_vec("meeple_gym/Minimal-v0", num_envs=8, opponent="heuristic")
    obs, info = env.reset(seed=0)
    for _ in range(30):
        obs, _, _, _, info = env.step(info["action_mask"].argmax(axis=1))
    assert obs.shape == (8, mg.get_spec("minimal").obs_size)
    env.close()


def test_evaluator_and_search_read_the_spec(minimal):
    from meeple_gym.baselines.evaluate import make_agent, play_match

    result = play_match("minimal", 2, ["heuristic", "random"], num_games=100, seed=0)
    assert result["win_rate"] > 0.7  # the first agent's, the heuristic's
    agent = make_agent("ismcts:sims=20", "minimal", 0)
    batch = mg.make_batch("minimal", 4, seed=1)
    batch.reset()
    actions = agent.act_states(batch.get_states())
    assert all(batch.legal_mask[i, a] for i, a in enumerate(actions))


def test_openspiel_registers_it(minimal):
    pyspiel = pytest.importorskip("pyspiel")
    import meeple_gym.openspiel as mgo

    mgo.register_games()
    game = pyspiel.load_game("python_meeple_minimal(seed=3)")
    state = game.new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[-1])
    assert sorted(state.returns()) == [-1.0, 1.0]
    assert game.max_game_length() == mg.get_spec("minimal").step_cap


def test_it_passes_the_conformance_suite(minimal):
    # What docs/testing.md promises a user's own game: the shipped suite runs on it unchanged.
    from meeple_gym.testing import check_game

    report = check_game("minimal", quick=True)
    assert {run[0] for run in report.runs} >= {"masks", "snapshots", "batch_equivalence"}
