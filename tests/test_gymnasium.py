"""The single-agent Gymnasium env (envs/core/gym_env.py, docs/gymnasium.md)."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import meeple_gym as mg
from meeple_gym.core.gym_env import GAME_IDS, SingleAgentEnv, register_envs

GAMES = sorted(GAME_IDS)


def first_legal(obs_dict) -> int:
    return int(np.flatnonzero(obs_dict["action_mask"])[0])


def play(env, seed, learner_seed=0, max_steps=100_000):
    """One episode with a uniform-random learner; returns the trajectory as plain lists."""
    rng = np.random.default_rng(learner_seed)
    obs, info = env.reset(seed=seed)
    traj = [(obs.copy(), info["seat"])]
    for _ in range(max_steps):
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, terminated, truncated, info = env.step(action)
        traj.append((obs.copy(), action, reward, terminated, truncated))
        if terminated or truncated:
            return traj
    raise AssertionError("episode did not end")


@pytest.mark.parametrize("game", GAMES)
def test_check_env_passes_for_every_game(game):
    # check_env steps an action sampled without the mask, hence illegal_action="lose".
    register_envs()
    env = gymnasium.make(GAME_IDS[game], illegal_action="lose", render_mode="ansi")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)  # also re-makes the env from its spec for each render mode
    assert [str(w.message) for w in caught] == []


def test_register_is_idempotent_and_make_works():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        register_envs()
        register_envs()
    for game, env_id in GAME_IDS.items():
        env = gymnasium.make(env_id, num_players=2, opponent="random")
        assert isinstance(env.unwrapped, SingleAgentEnv)
        assert env.unwrapped.game == game
        spec = mg.get_spec(game)
        assert env.observation_space.shape == (spec.obs_size,)
        assert env.observation_space.dtype == np.float32
        assert env.action_space == gymnasium.spaces.Discrete(spec.num_actions)
        obs, info = env.reset(seed=0)
        assert env.observation_space.contains(obs)
        assert info["action_mask"].dtype == np.int8 and info["action_mask"].any()


@pytest.mark.parametrize("opponent", ["random", ["random", "heuristic"]])
def test_same_seed_same_episode_and_other_seeds_differ(opponent):
    env = SingleAgentEnv("century", num_players=3, opponent=opponent)
    a, b = play(env, seed=7), play(env, seed=7)
    assert len(a) == len(b)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x[0], y[0])
        assert x[1:] == y[1:]
    # A fresh env with the same seed plays the same episode too.
    c = play(SingleAgentEnv("century", num_players=3, opponent=opponent), seed=7)
    assert len(c) == len(a)
    assert all(np.array_equal(x[0], y[0]) for x, y in zip(a, c, strict=True))
    first_obs = {play(env, seed=s)[0][0].tobytes() for s in range(5)}
    assert len(first_obs) > 1


def test_seat_is_random_per_episode_and_can_be_fixed():
    env = SingleAgentEnv("century", num_players=3)
    env.reset(seed=0)
    seats = set()
    for _ in range(40):
        _, info = env.reset()
        seats.add(info["seat"])
        # the AEC env waits for the learner's seat after reset
        assert env.aec_env.agent_selection == f"player_{info['seat']}"
    assert seats == {0, 1, 2}
    fixed = SingleAgentEnv("century", num_players=3, seat=2)
    for s in range(5):
        assert fixed.reset(seed=s)[1]["seat"] == 2
        assert fixed.aec_env.agent_selection == "player_2"


class CountingAgent:
    def __init__(self):
        self.calls = 0

    def act(self, observation):
        self.calls += 1
        return first_legal(observation)


def test_opponent_pool_is_sampled_per_seat_and_episode():
    a, b = CountingAgent(), CountingAgent()
    env = SingleAgentEnv("century", num_players=3, opponent=[a, b])
    env.reset(seed=3)
    drawn = set()
    for _ in range(20):
        before = (a.calls, b.calls)
        _, info = env.reset()
        opp = info["opponents"]
        assert opp[info["seat"]] == -1
        assert all(k in (0, 1) for i, k in enumerate(opp) if i != info["seat"])
        drawn.update(k for k in opp if k >= 0)
        # Only the drawn agents played the opponent moves before the learner's first turn.
        used = {k for k, (x, y) in enumerate(zip(before, (a.calls, b.calls), strict=True)) if y > x}
        assert used <= set(opp)
    assert drawn == {0, 1}


def test_callable_and_agent_object_opponents():
    seen = []

    def opponent(observation):
        seen.append((env.aec_env.agent_selection, observation["action_mask"].any()))
        return first_legal(observation)

    env = SingleAgentEnv("century", opponent=opponent, seat=1)
    traj = play(env, seed=0)
    # The callable made every move of seat 0, always on its own turn with a legal action.
    assert len(seen) >= len(traj) - 2
    assert set(seen) == {("player_0", True)}
    agent = CountingAgent()
    env = SingleAgentEnv("century", opponent=agent, seat=1)
    traj = play(env, seed=0)
    assert agent.calls >= len(traj) - 2
    with pytest.raises(mg.OptionError, match="opponent"):
        SingleAgentEnv("century", opponent=42)
    with pytest.raises(mg.OptionError, match="unknown agent"):
        SingleAgentEnv("century", opponent="nobody")
    with pytest.raises(mg.OptionError, match="empty"):
        SingleAgentEnv("century", opponent=[])


def test_heuristic_opponent_plays_a_game():
    register_envs()
    env = gymnasium.make("meeple_gym/Century-v0", opponent="heuristic")
    traj = play(env, seed=1)
    assert traj[-1][3] or traj[-1][4]


def test_illegal_action_raise_leaves_the_state_unchanged():
    env = SingleAgentEnv("century")
    obs, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    before = env.aec_env.to_dict()
    with pytest.raises(mg.IllegalActionError):
        env.step(illegal)
    assert env.aec_env.to_dict() == before
    np.testing.assert_array_equal(env.action_masks(), info["action_mask"].astype(bool))
    with pytest.raises(mg.ActionError):
        env.step(env.action_space.n)  # out of range: an ActionError in both modes
    with pytest.raises(mg.ActionError):
        env.step(1.5)
    env.step(first_legal(info))  # still playable


def test_illegal_action_lose_ends_the_episode():
    env = SingleAgentEnv("century", illegal_action="lose")
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs, reward, terminated, truncated, info = env.step(np.int64(illegal))
    assert (reward, terminated, truncated, info["illegal_action"]) == (-1.0, True, False, True)
    assert not env.action_masks().any()
    with pytest.raises(mg.GameOverError):
        env.step(0)
    env.reset()  # a new episode starts normally
    with pytest.raises(mg.OptionError):
        SingleAgentEnv("century", illegal_action="ignore")


def test_options_seat_and_render_pass_through():
    register_envs()
    env = gymnasium.make("meeple_gym/Radlands-v0", raiders_slot=2, render_mode="ansi")
    assert env.unwrapped.aec_env.unwrapped.options["raiders_slot"] == 2
    env.reset(seed=0)
    assert isinstance(env.render(), str) and env.render()
    with pytest.raises(mg.OptionError):
        gymnasium.make("meeple_gym/Radlands-v0", no_such_option=1)
    with pytest.raises(mg.OptionError):
        SingleAgentEnv("century", seat=2)
    with pytest.raises(mg.PlayerCountError):
        SingleAgentEnv("century", num_players=1)
    with pytest.raises(mg.OptionError, match="observation_mode"):
        SingleAgentEnv("century", observation_mode="dict")


@pytest.mark.parametrize("game", ["century", "radlands"])
def test_rllib_observation_mode_carries_the_mask_in_the_observation(game):
    # RLlib's action-masking module reads {"observations", "action_mask"}.
    register_envs()
    env = gymnasium.make(
        f"meeple_gym/{game.capitalize()}-v0", observation_mode="rllib", illegal_action="lose"
    )
    check_env(env.unwrapped, skip_render_check=True)
    # Same seed, same game as the flat mode: only the observation's packaging differs.
    flat = SingleAgentEnv(game)
    obs, info = env.reset(seed=3)
    flat_obs, _ = flat.reset(seed=3)
    for _ in range(40):
        assert env.observation_space.contains(obs)
        assert obs["action_mask"].dtype == np.float32
        np.testing.assert_array_equal(obs["action_mask"], info["action_mask"])
        np.testing.assert_array_equal(obs["observations"], flat_obs)
        action = int(np.flatnonzero(info["action_mask"])[0])
        obs, _, terminated, truncated, info = env.step(action)
        flat_obs, *_ = flat.step(action)
        if terminated or truncated:
            assert not obs["action_mask"].any()
            break


@pytest.mark.parametrize(
    "game,num_players,seat",
    [
        ("century", 3, 2),
        ("century", 3, None),
        ("radlands", 2, 1),
        ("everdell", 2, 1),
        ("everdell", 1, None),
        ("endeavor", 2, 1),
    ],
)
def test_episode_replays_on_the_aec_env(game, num_players, seat):
    """Replaying every move (learner's and opponents') on a fresh AEC env from the starting
    snapshot gives exactly the learner-seat observations, the masks, the end and the reward."""
    log = []

    def opponent(observation):
        legal = np.flatnonzero(observation["action_mask"])
        action = int(legal[len(log) % legal.size])  # deterministic, not always the first
        log.append(("opp", action))
        return action

    env = SingleAgentEnv(game, num_players=num_players, opponent=opponent, seat=seat)
    # Capture the dealt position right after the env resets its AEC game, before any move.
    raw = env.aec_env.unwrapped
    starts = []
    aec_reset = raw.reset

    def capturing_reset(seed=None, options=None):
        aec_reset(seed=seed, options=options)
        starts.append(raw.to_dict())

    raw.reset = capturing_reset
    rng = np.random.default_rng(1)
    obs, info = env.reset(seed=11)
    seat, start = info["seat"], starts[-1]
    learner_obs = [(obs, info["action_mask"])]
    end = None
    while end is None:
        assert np.array_equal(env.action_masks(), info["action_mask"].astype(bool))
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        log.append(("learner", action))
        obs, reward, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            end = (reward, terminated, truncated)
        else:
            learner_obs.append((obs, info["action_mask"]))

    aec = mg.make(game, num_players=num_players)
    aec.reset(seed=0)
    aec.from_dict(start)
    me = f"player_{seat}"
    checked = differs = 0
    for who, action in log:
        if who == "learner":
            assert aec.agent_selection == me
            o = aec.observe(me)
            other = aec.observe(f"player_{(seat + 1) % num_players}")["observation"]
            differs += not np.array_equal(other, o["observation"])
            np.testing.assert_array_equal(o["observation"], learner_obs[checked][0])
            np.testing.assert_array_equal(o["action_mask"], learner_obs[checked][1])
            checked += 1
        else:
            assert aec.agent_selection != me
        aec.step(action)
    assert checked == len(learner_obs)
    # The comparison can tell seats apart: another seat's view is not the learner's.
    assert differs > 0 or num_players == 1
    assert aec.terminations[me] or aec.truncations[me]
    assert end == (aec.rewards[me], aec.terminations[me], aec.truncations[me])
    np.testing.assert_array_equal(aec.observe(me)["observation"], obs)


def test_a_failing_opponent_ends_the_episode():
    calls = []

    def broken(observation):
        calls.append(1)
        raise RuntimeError("opponent bug")

    env = SingleAgentEnv("century", num_players=2, opponent=broken, seat=1)
    with pytest.raises(mg.OpponentError, match="opponent bug"):
        _, info = env.reset(seed=0)  # raises here if the opponent moves first
        env.step(int(np.flatnonzero(info["action_mask"])[0]))
    # Every later step names the failure (tests/test_opponent_failures.py covers the rest).
    with pytest.raises(mg.OpponentError, match="call reset"):
        env.step(0)
    assert not env.action_masks().any() and calls == [1]
