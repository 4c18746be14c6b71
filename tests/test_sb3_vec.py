"""meeple_gym.sb3: an SB3 VecEnv over the batched vector env (docs/sb3.md). Needs
stable-baselines3 and sb3-contrib (``pip install ".[test]"`` after a CPU torch build)."""

import numpy as np
import pytest

pytest.importorskip("stable_baselines3", reason="meeple_gym.sb3 needs stable-baselines3")
pytest.importorskip("sb3_contrib", reason="MaskablePPO comes from sb3-contrib")

from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks  # noqa: E402
from stable_baselines3.common.vec_env import (  # noqa: E402
    VecCheckNan,
    VecEnv,
    VecMonitor,
    VecNormalize,
)

import meeple_gym as mg  # noqa: E402
from meeple_gym.core.vector_env import BatchVectorEnv  # noqa: E402
from meeple_gym.sb3 import BatchVecEnv, make_sb3_vec_env  # noqa: E402

N = 6


def random_legal(masks: np.ndarray, rng) -> np.ndarray:
    return (rng.random(masks.shape) * masks).argmax(axis=1)


def play(venv, steps: int, seed: int = 0):
    """Random legal play; yields (obs, rewards, dones, infos, actions) per step."""
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        actions = random_legal(get_action_masks(venv), rng)
        yield (*venv.step(actions), actions)


def test_is_an_sb3_vecenv_with_the_games_spaces():
    venv = make_sb3_vec_env("century", N, seed=0)
    spec = mg.get_spec("century")
    assert isinstance(venv, VecEnv) and venv.num_envs == N
    assert venv.observation_space.shape == (spec.obs_size,)
    assert venv.action_space.n == spec.num_actions
    obs = venv.reset()
    assert isinstance(obs, np.ndarray)  # SB3: reset returns the observations only
    assert obs.shape == (N, spec.obs_size) and obs.dtype == np.float32
    assert [info["seat"] for info in venv.reset_infos] == venv.venv.batch.current_player.tolist()
    obs, rewards, dones, infos = venv.step(np.asarray(random_legal(venv.action_masks(), np.random)))
    assert obs.shape == (N, spec.obs_size)
    assert rewards.shape == (N,) and rewards.dtype == np.float32
    assert dones.shape == (N,) and dones.dtype == bool
    assert isinstance(infos, list) and len(infos) == N and all(isinstance(i, dict) for i in infos)


def test_observations_rewards_and_masks_are_the_vector_envs():
    """Same seed, same actions: the SB3 view returns exactly what BatchVectorEnv returns."""
    venv = make_sb3_vec_env("century", N, seed=5)
    ref = BatchVectorEnv("century", N, illegal_action="lose", autoreset_mode="SameStep")
    obs = venv.reset()
    ref_obs, ref_info = ref.reset(seed=5)
    np.testing.assert_array_equal(obs, ref_obs)
    rng = np.random.default_rng(1)
    for _ in range(300):
        masks = get_action_masks(venv)
        # One read of the batch's mask, the same as the vector env's own.
        np.testing.assert_array_equal(masks, ref_info["action_mask"].astype(bool))
        np.testing.assert_array_equal(masks, venv.action_masks())
        actions = random_legal(masks, rng)
        obs, rewards, dones, infos = venv.step(actions)
        ref_obs, ref_rew, term, trunc, ref_info = ref.step(actions)
        np.testing.assert_array_equal(obs, ref_obs)
        np.testing.assert_array_equal(rewards, ref_rew.astype(np.float32))
        np.testing.assert_array_equal(dones, term | trunc)


def test_auto_reset_puts_the_finished_episode_in_terminal_observation():
    venv = make_sb3_vec_env("century", N, seed=2)
    ref = BatchVectorEnv("century", N, illegal_action="lose", autoreset_mode="SameStep")
    venv.reset()
    ref.reset(seed=2)
    ended = 0
    for _obs, _rewards, dones, infos, actions in play(venv, 1500):
        ref_obs, _, term, trunc, ref_info = ref.step(actions)
        for i in range(N):
            if not dones[i]:
                assert "terminal_observation" not in infos[i]
                continue
            ended += 1
            final = ref_info["final_obs"][i]
            np.testing.assert_array_equal(infos[i]["terminal_observation"], final)
            # The returned row is already the next game's first learner decision.
            assert not np.array_equal(infos[i]["terminal_observation"], ref_obs[i])
            assert infos[i]["TimeLimit.truncated"] == bool(trunc[i] and not term[i])
            assert infos[i]["score"] == ref_info["final_info"]["score"][i]
            assert infos[i]["seat"] == ref_info["final_info"]["seat"][i]
    assert ended > 0


def test_step_cap_is_a_time_limit_truncation():
    """A truncated row (the game's step cap) says TimeLimit.truncated, for bootstrapping."""
    venv = make_sb3_vec_env("century", 1, seed=0)
    venv.reset()
    batch = venv.venv.batch
    # Move the live game close to its step cap; the cap check is in the rules kernel.
    from meeple_gym.century.rules import STEP_CAP

    batch._states["step_count"][0] = STEP_CAP - 1
    rng = np.random.default_rng(0)
    for _ in range(5):
        _, _, dones, infos = venv.step(random_legal(venv.action_masks(), rng))
        if dones[0]:
            break
    assert dones[0] and infos[0]["TimeLimit.truncated"] is True
    assert infos[0]["terminal_observation"].shape == venv.observation_space.shape


def test_masks_come_from_one_call_not_one_per_env(monkeypatch):
    venv = make_sb3_vec_env("radlands", N, seed=0)
    venv.reset()
    calls = []
    real = venv.venv.action_masks
    monkeypatch.setattr(venv.venv, "action_masks", lambda: calls.append(1) or real())
    masks = get_action_masks(VecMonitor(venv))
    assert masks.shape == (N, venv.action_space.n) and masks.dtype == bool
    assert len(calls) == 1
    rows = venv.env_method("action_masks", indices=[4, 1])
    np.testing.assert_array_equal(np.stack(rows), masks[[4, 1]])


def test_attribute_methods_follow_the_vecenv_contract():
    venv = make_sb3_vec_env("century", N, seed=0)
    venv.reset()
    assert venv.get_attr("game") == ["century"] * N
    assert venv.get_attr("num_players", indices=[0, 2]) == [2, 2]
    assert venv.has_attr("action_masks") and not venv.has_attr("no_such_attribute")
    with pytest.raises(AttributeError):
        venv.get_attr("no_such_attribute")
    assert venv.env_is_wrapped(VecMonitor) == [False] * N
    venv.set_attr("marker", 7)
    assert venv.get_attr("marker") == [7] * N
    with pytest.raises(ValueError, match="share one vector env"):
        venv.set_attr("marker", 8, indices=[0])
    with pytest.raises(IndexError):
        venv.get_attr("game", indices=[N])
    calls = []
    venv.venv.probe = lambda x, y=0: calls.append((x, y)) or x + y
    # The rows share one env: the method runs once, its result is given to each index.
    assert venv.env_method("probe", 2, y=3, indices=[1, 3]) == [5, 5]
    assert calls == [(2, 3)]


def test_seed_makes_reset_and_play_deterministic():
    def run(seed):
        venv = make_sb3_vec_env("century", N)
        venv.seed(seed)
        first = venv.reset()
        out = [first]
        for obs, rewards, _, _, _ in play(venv, 200, seed=3):
            out += [obs, rewards]
        return out

    a, b, c = run(11), run(11), run(12)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not np.array_equal(a[0], c[0])


def test_sb3_wrappers_stack_on_it():
    venv = make_sb3_vec_env("century", N, seed=0)
    wrapped = VecNormalize(VecMonitor(VecCheckNan(venv, raise_exception=True)), gamma=0.99)
    obs = wrapped.reset()
    assert obs.shape == (N, venv.observation_space.shape[0])
    episodes = []
    for _obs, _rew, dones, infos, _ in play(wrapped, 1500):
        assert np.isfinite(_obs).all()
        episodes += [infos[i]["episode"] for i in np.flatnonzero(dones)]
        for i in np.flatnonzero(dones):
            # VecNormalize normalises the terminal observation like the others.
            assert infos[i]["terminal_observation"].shape == _obs.shape[1:]
    assert episodes and all(e["r"] in (-1.0, 0.0, 1.0) and e["l"] > 0 for e in episodes)


def test_refuses_self_play_and_views():
    with pytest.raises(mg.OptionError, match="one reward per env"):
        make_sb3_vec_env("century", 2, opponent="self")
    with pytest.raises(mg.OptionError, match="copy"):
        make_sb3_vec_env("century", 2, copy=False)
    with pytest.raises(mg.OptionError, match="copy=True"):
        BatchVecEnv(BatchVectorEnv("century", 2, copy=False))
    # SB3 stores every step as a move: the next-step reset (the default) would be one.
    with pytest.raises(mg.OptionError, match="SAME_STEP"):
        BatchVecEnv(BatchVectorEnv("century", 2))
    with pytest.raises(mg.OptionError, match="autoreset_mode"):
        make_sb3_vec_env("century", 2, autoreset_mode="SameStep")


def test_maskable_ppo_learns_a_few_hundred_steps_with_finite_loss():
    venv = VecMonitor(make_sb3_vec_env("century", 8, seed=0, illegal_action="raise"))
    model = MaskablePPO("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=2, seed=0)
    model.learn(512)  # "raise": any unmasked action would stop the run
    assert model.num_timesteps >= 512
    logged = model.logger.name_to_value
    for key in ("train/loss", "train/value_loss", "train/policy_gradient_loss"):
        assert np.isfinite(logged[key]), key


def test_maskable_ppo_is_deterministic_under_a_seed():
    def weights(seed):
        venv = make_sb3_vec_env("century", 4)
        model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=32, n_epochs=1, seed=seed)
        model.learn(64)
        return [p.detach().numpy().copy() for p in model.policy.parameters()]

    a, b = weights(3), weights(3)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_maskable_evaluate_policy_runs_on_it():
    from sb3_contrib.common.maskable.evaluation import evaluate_policy

    venv = VecMonitor(make_sb3_vec_env("century", 4, seed=0, illegal_action="raise"))
    model = MaskablePPO("MlpPolicy", venv, n_steps=16, batch_size=32, seed=0)
    rewards, lengths = evaluate_policy(
        model, venv, n_eval_episodes=4, return_episode_rewards=True, use_masking=True
    )
    assert len(rewards) == 4 and all(r in (-1.0, 0.0, 1.0) for r in rewards)
    assert all(n > 0 for n in lengths)
