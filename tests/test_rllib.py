"""meeple_gym.rllib: the turn-based RLlib MultiAgentEnv, the tune-registered env names, and the
self-play example's config (docs/rllib.md). Needs ``pip install "meeple-gym[rllib]"``."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from argparse import Namespace
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from support import load_script, local_ray

pytest.importorskip("ray.rllib", reason='RLlib is not installed: pip install "meeple-gym[rllib]"')

import meeple_gym as mg  # noqa: E402
import meeple_gym.rllib as mgr  # noqa: E402
from meeple_gym.core.errors import (  # noqa: E402
    ActionError,
    GameOverError,
    IllegalActionError,
    NotResetError,
    OptionError,
)

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "rllib_selfplay.py"
# (game, num_players): every game, the smallest and the largest tables.
TABLES = [
    ("century", 2),
    ("century", 5),
    ("radlands", 2),
    ("everdell", 1),
    ("everdell", 4),
    ("endeavor", 2),
    ("endeavor", 4),
]
TABLE_IDS = [f"{g}-{n}p" for g, n in TABLES]


@pytest.fixture(scope="module")
def ray_session():
    # a tune registration belongs to the Ray session it was flushed to
    yield from local_ray(on_start=mgr.register_envs)


@pytest.fixture(scope="module")
def selfplay():
    return load_script("rllib_selfplay", EXAMPLE)


def masked_spec(hidden=(16,)):
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    return RLModuleSpec(
        module_class=ActionMaskingTorchRLModule, model_config={"head_fcnet_hiddens": list(hidden)}
    )


# ---- the env on its own ------------------------------------------------------------------------
@pytest.mark.parametrize(("game", "players"), TABLES, ids=TABLE_IDS)
def test_rllib_env_checker_passes(game, players):
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    env = mgr.MeepleMultiAgentEnv({"game": game, "num_players": players})
    assert env.possible_agents == [f"player_{i}" for i in range(players)]
    check_multiagent_environments(env)  # steps an unmasked random action: "lose" handles it


def test_observation_space_is_the_one_the_masking_module_reads():
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingRLModule

    env = mgr.MeepleMultiAgentEnv({"game": "century"})
    space = env.observation_spaces["player_0"]
    assert set(space.spaces) == {"observations", "action_mask"}
    assert space["action_mask"].dtype == np.float32
    assert (space["action_mask"].low == 0).all() and (space["action_mask"].high == 1).all()
    assert space["action_mask"].shape == (env.action_spaces["player_0"].n,)
    # The module itself accepts the space (it raises on anything else).
    module = ActionMaskingRLModule(
        observation_space=space,
        action_space=env.action_spaces["player_0"],
        model_config={"head_fcnet_hiddens": [8]},
    )
    assert module.observation_space == space["observations"]


@pytest.mark.parametrize(("game", "players"), TABLES, ids=TABLE_IDS)
def test_random_masked_play_matches_the_game(game, players):
    """Each step: one observation, for the seat the game has to act, with its mask; the game
    ends with every seat's last observation and the game's own rewards for every seat."""
    rng = np.random.default_rng(7)
    env = mgr.MeepleMultiAgentEnv({"game": game, "num_players": players, "illegal_action": "raise"})
    twin = mg.make(game, players)  # the plain AEC env, replaying the same actions
    obs, infos = env.reset(seed=11)
    twin.reset(seed=11)
    steps = 0
    while True:
        assert list(obs) == [twin.agent_selection] and list(infos) == list(obs)
        ((agent, o),) = obs.items()
        assert env.observation_spaces[agent].contains(o)
        expected = twin.observe(agent)
        np.testing.assert_array_equal(o["observations"], expected["observation"])
        np.testing.assert_array_equal(o["action_mask"], expected["action_mask"])
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, rewards, terminateds, truncateds, infos = env.step({agent: action})
        twin.step(action)  # raises on an illegal action, so every action here was legal
        steps += 1
        if terminateds["__all__"] or truncateds["__all__"]:
            break
        assert rewards == {agent: 0.0}
        assert terminateds == truncateds == {"__all__": False}
    agents = env.possible_agents
    assert steps > players
    assert set(obs) == set(rewards) == set(infos) == set(agents)
    assert rewards == {a: float(twin.rewards[a]) for a in agents}
    assert any(r != 0 for r in rewards.values())  # no draw at these seeds: a result to deliver
    assert terminateds == {**{a: True for a in agents}, "__all__": True}
    assert truncateds == {**{a: False for a in agents}, "__all__": False}
    for a in agents:
        assert infos[a]["score"] == twin.infos[a]["score"]
        assert not obs[a]["action_mask"].any()  # nobody acts any more
        np.testing.assert_array_equal(obs[a]["observations"], twin.observe(a)["observation"])
    with pytest.raises(GameOverError):
        env.step({agent: 0})


def test_bad_calls_fail_clearly():
    env = mgr.MeepleMultiAgentEnv({"game": "radlands"})
    with pytest.raises(NotResetError):
        env.step({"player_0": 0})
    obs, _ = env.reset(seed=0)
    (agent,) = obs
    other = next(a for a in env.possible_agents if a != agent)
    with pytest.raises(ActionError, match="turn"):
        env.step({other: 0})
    with pytest.raises(OptionError, match="unknown env_config keys"):
        mgr.MeepleMultiAgentEnv({"game": "century", "seed": 3})
    with pytest.raises(OptionError):
        mgr.MeepleMultiAgentEnv({"game": "century", "options": {"no_such_option": 1}})
    raising = mgr.MeepleMultiAgentEnv({"game": "radlands", "illegal_action": "raise"})
    obs, _ = raising.reset(seed=0)
    ((agent, o),) = obs.items()
    with pytest.raises(IllegalActionError):
        raising.step({agent: int(np.flatnonzero(o["action_mask"] == 0)[0])})


def test_illegal_action_lose_ends_the_game_as_a_loss():
    env = mgr.MeepleMultiAgentEnv({"game": "century", "num_players": 3})
    obs, _ = env.reset(seed=0)
    ((agent, o),) = obs.items()
    _, rewards, terminateds, _, infos = env.step(
        {agent: int(np.flatnonzero(o["action_mask"] == 0)[0])}
    )
    assert terminateds["__all__"]
    assert rewards == {a: (-1.0 if a == agent else 0.0) for a in env.possible_agents}
    assert infos[agent]["illegal_action"] is True


def test_game_options_reach_the_game():
    env = mgr.MeepleMultiAgentEnv({"game": "radlands", "options": {"raiders_slot": 2}})
    assert env.aec_env.unwrapped.options["raiders_slot"] == 2
    default = mgr.MeepleMultiAgentEnv({"game": "radlands"})
    assert default.aec_env.unwrapped.options["raiders_slot"] != 2


def test_single_agent_creator_makes_the_gymnasium_env():
    # What the tune-registered "meeple_gym/<Game>-v0" builds, in any process.
    env = mgr._single_agent_env("meeple_gym/Century-v0", {"observation_mode": "rllib"})
    obs, _ = env.reset(seed=0)
    assert set(obs) == {"observations", "action_mask"}
    # RLlib's "vector_entry_point" mode adds num_envs: the batched vector env, as gymnasium's.
    vec = mgr._single_agent_env("meeple_gym/Century-v0", {"num_envs": 3})
    assert vec.num_envs == 3
    # RLlib's env runner stores the step after an end as the next episode's reset.
    assert vec.metadata["autoreset_mode"] is gymnasium.vector.AutoresetMode.NEXT_STEP
    vec.close()


def test_rl_module_agent_plays_only_legal_actions():
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    from meeple_gym.baselines.evaluate import play_match

    env = mgr.MeepleMultiAgentEnv({"game": "century"})
    module = ActionMaskingTorchRLModule(
        observation_space=env.observation_spaces["player_0"],
        action_space=env.action_spaces["player_0"],
        model_config={"head_fcnet_hiddens": [8]},
    )
    greedy = mgr.RLModuleAgent(module)
    raw = mg.make("century", 2)
    raw.reset(seed=3)
    for _ in range(20):  # the greedy pick is legal in every position (never checked by RLlib)
        o = raw.observe(raw.agent_selection)
        action = greedy.act(o)
        assert o["action_mask"][action] == 1
        raw.step(action)
    # play_match checks every action against the mask; sampling keeps the untrained policy
    # out of the loops a greedy one can fall into.
    sampler = mgr.RLModuleAgent(module, name="sampled", explore=True, seed=1)
    result = play_match("century", 2, [sampler, "random"], 4, seed=0, progress=False)
    assert result["games"] == 4 and result["agents"] == ["sampled", "random"]


# ---- RLlib proper ----------------------------------------------------------------------------
def test_selfplay_config_trains_the_learner_and_keeps_the_opponent_frozen(ray_session, selfplay):
    import torch

    args = Namespace(
        game="radlands",
        players=2,
        env_runners=0,
        envs_per_runner=1,
        batch=400,
        hidden=[16],
        seed=0,
    )
    algo = selfplay.build_config(args).build_algo()
    try:

        def weights(module_id):
            path = f"learner_group/learner/rl_module/{module_id}"
            state = algo.get_state(components=path)["learner_group"]["learner"]["rl_module"]
            return {k: torch.as_tensor(v).clone() for k, v in state[module_id].items()}

        def same(a, b):
            return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)

        selfplay.sync_opponent(algo)
        start = weights(selfplay.LEARNER)
        assert same(weights(selfplay.OPPONENT), start)
        result = algo.train()
        sampled = result["env_runners"]["num_module_steps_sampled"]
        assert sampled[selfplay.LEARNER] > 0 and sampled[selfplay.OPPONENT] > 0
        assert not same(weights(selfplay.LEARNER), start)  # PPO updated the learner ...
        assert same(weights(selfplay.OPPONENT), start)  # ... and not the frozen opponent
        selfplay.sync_opponent(algo)
        assert same(weights(selfplay.OPPONENT), weights(selfplay.LEARNER))
        # The env runner plays the new copy: its opponent's acting weights (RLlib syncs no
        # critic to runners) are the learner's.
        acting = algo.learner_group.get_state(
            components=f"learner/rl_module/{selfplay.LEARNER}", inference_only=True
        )["learner"]["rl_module"][selfplay.LEARNER]
        runner_opponent = algo.get_module(selfplay.OPPONENT).state_dict()
        assert any(k.startswith("pi.") for k in acting)
        for key, value in acting.items():
            assert torch.equal(runner_opponent[key], torch.as_tensor(value)), key

        # Whole episodes through RLlib's own episode bookkeeping: one learner seat per game,
        # and both seats hold the game's zero-sum result, the seat that did not make the last
        # move included.
        episodes = algo.env_runner.sample(num_episodes=3, random_actions=False)
        finished = [e for e in episodes if e.is_done]
        assert finished
        for episode in finished:
            modules = sorted(episode.module_for(a) for a in episode.agent_ids)
            assert modules == [selfplay.LEARNER, selfplay.OPPONENT]
            returns = {a: e.get_return() for a, e in episode.agent_episodes.items()}
            assert set(returns) == {"player_0", "player_1"}
            assert sum(returns.values()) == 0.0
            assert set(returns.values()) in ({-1.0, 1.0}, {0.0})
        assert any(set(e.agent_episodes[a].get_return() for a in e.agent_ids) == {-1.0, 1.0}
                   for e in finished)  # fmt: skip
    finally:
        algo.stop()


def test_unprefixed_gym_id_works_on_a_remote_env_runner(ray_session):
    """``meeple_gym.rllib`` ships a creator for "meeple_gym/Century-v0" to the runners."""
    from ray.rllib.algorithms.ppo import PPOConfig

    config = (
        PPOConfig()
        .environment("meeple_gym/Century-v0", env_config={"observation_mode": "rllib"})
        .env_runners(num_env_runners=1, num_envs_per_env_runner=1, rollout_fragment_length=64)
        .rl_module(rl_module_spec=masked_spec())
        .training(train_batch_size_per_learner=64, minibatch_size=32, num_epochs=1)
    )
    algo = config.build_algo()
    try:
        assert algo.env_runner_group.num_remote_env_runners() == 1
        result = algo.train()
        assert result["env_runners"]["num_env_steps_sampled"] >= 64
    finally:
        algo.stop()


UNREGISTERED = textwrap.dedent(
    """
    import meeple_gym  # registers the ids with Gymnasium in this process only
    import ray
    from ray.rllib.algorithms.ppo import PPOConfig

    ray.init(num_cpus=1, include_dashboard=False, logging_level="warning")
    try:
        config = PPOConfig().environment("meeple_gym/Century-v0").env_runners(num_env_runners=1)
        config.build_algo()
    finally:
        ray.shutdown()
    """
)


def test_unprefixed_gym_id_without_meeple_gym_rllib_fails_on_the_runner():
    """What docs/rllib.md says happens without ``meeple_gym.rllib`` or the prefix: the remote
    runner has not imported meeple_gym, so Gymnasium does not know the namespace."""
    done = subprocess.run(
        [sys.executable, "-c", UNREGISTERED], capture_output=True, text=True, timeout=300
    )
    assert done.returncode != 0
    assert "Namespace meeple_gym not found" in done.stderr
