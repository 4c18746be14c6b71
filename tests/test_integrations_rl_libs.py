"""Tianshou and TorchRL on the PettingZoo envs with no glue (docs/pettingzoo.md, Libraries). Both
need torch; the tests skip when a library is not installed (``pip install ".[integrations]"`` brings
them)."""

import warnings

import numpy as np
import pytest

import meeple_gym as mg

GAMES = ["century", "radlands"]


@pytest.mark.parametrize("game", GAMES)
def test_tianshou_collects_masked_random_episodes(game):
    pytest.importorskip("torch")
    pytest.importorskip("tianshou")
    from tianshou.algorithm.multiagent.marl import MultiAgentOffPolicyAlgorithm
    from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm
    from tianshou.data import Collector
    from tianshou.env import DummyVectorEnv, PettingZooEnv

    def make():
        return PettingZooEnv(mg.make(game, 2))

    env = make()
    algorithms = [
        MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
        for _ in env.agents
    ]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=algorithms, env=env)
    collector = Collector(algorithm, DummyVectorEnv([make, make]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Tianshou's own notes about stats over 2-D returns
        stats = collector.collect(n_episode=4, reset_before_collect=True)
    # Every episode ran to the end on masked actions (an illegal one would have raised) and
    # paid the game's zero-sum terminal rewards.
    assert stats.n_collected_episodes == 4
    returns = np.asarray(stats.returns)
    assert returns.shape == (4, 2)
    assert np.allclose(returns.sum(axis=1), 0.0)
    assert set(np.round(returns.ravel(), 6)) <= {-1.0, 0.0, 1.0}


@pytest.mark.parametrize("mode", ["dict", "flat"])
@pytest.mark.parametrize("game", GAMES)
def test_torchrl_pettingzoo_wrapper_checks_and_rolls_out(game, mode):
    pytest.importorskip("torch")
    pytest.importorskip("torchrl")
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
    from torchrl.envs.utils import check_env_specs

    base = mg.make(game, 2, observation_mode=mode)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # TorchRL notes the PettingZoo version it was tested on
        env = PettingZooWrapper(
            env=base, use_mask=True, categorical_actions=True, return_state=True, seed=0
        )
    check_env_specs(env)
    rollout = env.rollout(300, break_when_any_done=False)
    assert rollout.batch_size[0] == 300
    state = rollout["state"]
    assert state.shape == (300, *base.unwrapped.state_space.shape)
    # TorchRL sampled its random actions inside the masks: each step exactly one agent acts.
    acting = sum(rollout[agent, "mask"].long() for agent in base.possible_agents)
    assert (acting == 1).all()
    for agent in base.possible_agents:
        chosen = rollout[agent, "action"]
        mask = rollout[agent, "action_mask"]
        acted = rollout[agent, "mask"].reshape(-1)
        assert mask[acted].gather(-1, chosen[acted].unsqueeze(-1)).all()
