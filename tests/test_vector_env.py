"""The Gymnasium vector env over the batched kernels (envs/core/vector_env.py,
docs/gymnasium.md)."""

from __future__ import annotations

import dataclasses
import pickle

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode, SyncVectorEnv, VectorEnv
from vector_layouts import info_layout, layouts_by_kind

import meeple_gym as mg
from meeple_gym import ActionError, IllegalActionError, OptionError
from meeple_gym.baselines.evaluate import make_agent
from meeple_gym.core.errors import NotResetError
from meeple_gym.core.gym_env import GAME_IDS, SingleAgentEnv
from meeple_gym.core.rng import PyRng, py_derive_key
from meeple_gym.core.sampling import policy_words
from meeple_gym.core.vector_env import BatchVectorEnv


def make_vec(game="century", num_envs=8, autoreset_mode=AutoresetMode.SAME_STEP, **kwargs):
    """The tests here check same-step mode; tests/test_vector_autoreset.py covers the default,
    next-step mode, and checks that both play the same games."""
    return gymnasium.make_vec(
        GAME_IDS[game],
        num_envs=num_envs,
        vectorization_mode="vector_entry_point",
        autoreset_mode=autoreset_mode,
        **kwargs,
    )


def obs_policy(obs, masks):
    """A learner whose choice in a row depends only on that row's observation and mask, so
    two runs that show a row the same positions make the same moves in it."""
    out = np.empty(len(masks), dtype=np.int64)
    for i, (o, m) in enumerate(zip(obs, masks, strict=True)):
        legal = np.flatnonzero(m)
        out[i] = legal[int(o.sum(dtype=np.float64) * 7919) % legal.size]
    return out


def run(env, seed, steps):
    obs, info = env.reset(seed=seed)
    traj = [(obs.copy(), info["seat"].copy())]
    for _ in range(steps):
        actions = obs_policy(obs, info["action_mask"])
        obs, reward, term, trunc, info = env.step(actions)
        final = info.get("final_obs")
        final = [None] * len(obs) if final is None else list(final)
        traj.append((obs.copy(), actions, reward, term, trunc, final))
    return traj


def test_make_vec_gives_a_vector_env_with_gymnasium_spaces():
    env = make_vec(num_envs=5, num_players=2, opponent="random")
    assert isinstance(env, VectorEnv) and isinstance(env.unwrapped, BatchVectorEnv)
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    single = SingleAgentEnv("century", num_players=2)
    assert env.single_observation_space == single.observation_space
    assert env.single_action_space == single.action_space
    assert env.observation_space == gymnasium.vector.utils.batch_space(single.observation_space, 5)
    assert env.action_space == gymnasium.spaces.MultiDiscrete([single.action_space.n] * 5)
    obs, info = env.reset(seed=0)
    assert obs.dtype == np.float32 and env.observation_space.contains(obs)
    assert info["action_mask"].shape == (5, single.action_space.n)
    assert info["action_mask"].dtype == np.int8
    masks = env.unwrapped.action_masks()
    assert masks.dtype == np.bool_ and (masks == (info["action_mask"] != 0)).all()
    obs, reward, term, trunc, info = env.step(obs_policy(obs, masks))
    assert env.observation_space.contains(obs)
    assert reward.shape == (5,) and reward.dtype == np.float64
    assert term.dtype == np.bool_ and trunc.dtype == np.bool_ and term.shape == (5,)
    assert env.spec.id == GAME_IDS["century"] and env.spec.kwargs["num_envs"] == 5
    env.close()


def test_info_layout_matches_sync_vector_env_over_the_single_agent_env():
    """Same keys, dtypes and shapes (final_obs/final_info included) as gymnasium's own
    SyncVectorEnv in same-step mode over SingleAgentEnv: libraries read either the same way."""
    n = 6
    ours = make_vec(num_envs=n, num_players=2, opponent="random")
    theirs = SyncVectorEnv(
        [lambda: SingleAgentEnv("century", num_players=2) for _ in range(n)],
        autoreset_mode=AutoresetMode.SAME_STEP,
    )

    def file(layouts, obs, term, trunc, info):
        if "final_obs" in info and "final" not in layouts:
            layouts["final"] = info_layout(info)
            ended = info["_final_obs"]
            assert (ended == (term | trunc)).all()
            assert all(o.shape == obs.shape[1:] for o in info["final_obs"][ended])
            assert all(o is None for o in info["final_obs"][~ended])
        elif "final_obs" not in info:
            layouts["step"] = info_layout(info)

    def act(obs, info):
        return obs_policy(obs, info["action_mask"])

    seen = {
        name: layouts_by_kind(env, act, file, 2000)
        for name, env in [("ours", ours), ("theirs", theirs)]
    }
    assert seen["ours"] == seen["theirs"]


def test_every_returned_row_is_the_learner_to_act():
    env = make_vec(num_envs=16, num_players=3, opponent="random")
    obs, info = env.reset(seed=2)
    batch = env.unwrapped.batch
    seats_seen = set()
    for _ in range(400):
        assert (batch.current_player == info["seat"]).all()
        assert info["action_mask"].any(axis=1).all()
        np.testing.assert_array_equal(info["action_mask"], batch.legal_mask)
        seats_seen.update(info["seat"].tolist())
        obs, *_, info = env.step(obs_policy(obs, info["action_mask"]))
    assert seats_seen == {0, 1, 2}  # the seat is drawn per episode


def test_learner_seat_follows_the_documented_stream_or_is_fixed():
    env = make_vec(num_envs=32, num_players=3)
    _, info = env.reset(seed=11)
    expected = [py_derive_key(11, i, 3) % 3 for i in range(32)]
    assert info["seat"].tolist() == expected
    fixed = make_vec(num_envs=8, num_players=3, seat=2)
    obs, info = fixed.reset(seed=0)
    for _ in range(200):
        assert (info["seat"] == 2).all()
        obs, *_, info = fixed.step(obs_policy(obs, info["action_mask"]))


def replay_row0(game, num_players, seed, steps, opponent):
    """Row 0 of the vector env against the same game on the AEC env (same deal: row 0 of a
    batch seeded ``s`` deals as ``mg.make(...).reset(seed=s)``), the opponent's moves redone
    independently. Checks observations, rewards, final observations and the final info."""
    env = make_vec(game, num_envs=4, num_players=num_players, opponent=opponent)
    aec = mg.make(game, num_players).unwrapped
    obs, info = env.reset(seed=seed)
    aec.reset(seed=seed)
    rng = PyRng(py_derive_key(seed, 0, 1))  # row 0's random-opponent stream
    heuristic = make_agent("heuristic", game, 0) if opponent == "heuristic" else None
    episodes = 0

    def over(seat):
        return aec.terminations[seat] or aec.truncations[seat]

    def play_opponents(seat):
        while not over(seat) and aec.agent_selection != seat:
            agent = aec.agent_selection
            od = aec.observe(agent)
            if heuristic is not None:
                aec.step(heuristic.act(od))
            else:
                legal = np.flatnonzero(od["action_mask"])
                aec.step(int(legal[rng.randint(legal.size)]))

    seat = f"player_{info['seat'][0]}"
    play_opponents(seat)
    for _ in range(steps):
        assert aec.agent_selection == seat
        np.testing.assert_array_equal(obs[0], aec.observe(seat)["observation"])
        np.testing.assert_array_equal(info["action_mask"][0], aec.observe(seat)["action_mask"])
        actions = obs_policy(obs, info["action_mask"])
        aec.step(int(actions[0]))
        play_opponents(seat)
        obs, reward, term, trunc, info = env.step(actions)
        assert bool(term[0] or trunc[0]) == over(seat)
        if over(seat):
            episodes += 1
            assert reward[0] == aec.rewards[seat] and term[0] == aec.terminations[seat]
            np.testing.assert_array_equal(info["final_obs"][0], aec.observe(seat)["observation"])
            assert info["final_info"]["score"][0] == aec.infos[seat]["score"]
            assert info["final_info"]["seat"][0] == aec.agent_name_mapping[seat]
            aec.reset()  # the AEC env's next game is the batch row's next deal
            seat = f"player_{info['seat'][0]}"
            play_opponents(seat)
        else:
            assert reward[0] == 0.0
    return episodes


@pytest.mark.parametrize("opponent", ["random", "heuristic"])
def test_row_replays_on_the_aec_env_with_final_observations(opponent):
    assert replay_row0("century", 2, seed=5, steps=1500, opponent=opponent) >= 2


def count_step_batch_calls(batch):
    """Wrap the batch's step kernel; the returned list grows by one item per call."""
    calls = []
    kernel = batch.spec.step_batch

    def counting(*args):
        calls.append(1)
        return kernel(*args)

    batch.spec = dataclasses.replace(batch.spec, step_batch=counting)
    return calls


@pytest.mark.parametrize("num_players", [2, 4])
def test_random_opponent_plays_inside_one_kernel_call_per_step(num_players):
    """The random opponent's moves, auto-resets and a new episode's opening moves all happen
    inside the one step_batch call of a learner step: no Python loop of sub-steps."""
    env = make_vec(num_envs=8, num_players=num_players, opponent="random")
    batch = env.unwrapped.batch
    calls = count_step_batch_calls(batch)
    obs, info = env.reset(seed=3)
    assert len(calls) == 1  # the opening opponent moves of every row
    ended = 0
    for _ in range(600):
        calls.clear()
        obs, _, term, trunc, info = env.step(obs_policy(obs, info["action_mask"]))
        assert len(calls) == 1
        assert (batch.current_player == info["seat"]).all()
        ended += int((term | trunc).sum())
    assert ended > 0  # episode ends (and re-deals with opponents to move) were covered


def test_step_batch_opponent_keeps_the_first_end_and_stops_at_the_second():
    """The kernel contract (envs/core/game.py) checked against random_rollout, an independent
    loop: with a seat nobody holds, the in-kernel opponent plays every seat. Game 0 of each
    row then plays out exactly as rollout game i (same deal, same policy words); its end is
    the one kept; the next game, which also ends, is re-dealt and left alone."""
    n, players, seed = 6, 2, 21
    spec = mg.get_spec("century")
    batch = mg.make_batch("century", n, players, seed=seed)
    batch.reset()
    nobody = np.full(n, players, dtype=np.int64)
    words = policy_words(seed, n)
    acts = np.full(n, -1, dtype=np.int64)
    batch._step_kernels(acts, observe=False, opponent=(nobody, nobody, words))
    rollout = batch.random_rollout(n)
    np.testing.assert_array_equal(batch.final_lengths, rollout["length"])
    np.testing.assert_array_equal(batch.final_scores, rollout["scores"])
    np.testing.assert_array_equal(batch.truncated, rollout["truncated"])
    np.testing.assert_array_equal(batch.terminated, ~rollout["truncated"])
    for i in range(n):
        if batch.terminated[i] and rollout["winner"][i] >= 0:
            assert batch.rewards[i, rollout["winner"][i]] == 1.0
    assert (batch.episodes == 2).all()
    dealt = np.zeros(n, dtype=spec.state_dtype)
    spec.reset_batch(dealt, players, np.uint64(seed), 0, np.full(n, 2), batch.options_code)
    assert batch.states.tobytes() == dealt.tobytes()


def test_a_next_game_ending_before_the_learner_moves_is_not_reported():
    """The fallback when a row's next game ends too before its learner acts (no real game
    does this; forced by giving the next game a seat nobody holds): the step reports the
    first end only, calls the kernel again where the new game's opponent is to act, and
    still returns learner rows."""
    env = make_vec(num_envs=8, num_players=2, opponent="random", seat=1)
    inner = env.unwrapped
    batch = inner.batch
    calls = count_step_batch_calls(batch)
    obs, info = env.reset(seed=4)
    for _ in range(20000):
        inner._next_seat[:] = 2
        episodes = batch.episodes.copy()
        calls.clear()
        obs, reward, term, trunc, info = env.step(obs_policy(obs, info["action_mask"]))
        assert (batch.current_player == info["seat"]).all() and (info["seat"] == 1).all()
        ended = term | trunc
        if ended.any():
            np.testing.assert_array_equal(batch.episodes[ended], episodes[ended] + 2)
            np.testing.assert_array_equal(batch.episodes[~ended], episodes[~ended])
            for r in np.flatnonzero(term):
                winner = batch.final_states["winner"][r]  # the first game's, kept
                assert reward[r] == (1.0 if winner == 1 else -1.0)
        if len(calls) == 2:
            return
        assert len(calls) == 1
    raise AssertionError("no step needed the second kernel call")


def test_same_seed_same_trajectory_and_batch_size_does_not_matter():
    a = run(make_vec(num_envs=6, num_players=2), seed=9, steps=300)
    b = run(make_vec(num_envs=6, num_players=2), seed=9, steps=300)
    assert data_equivalence(a, b, exact=True)
    c = run(make_vec(num_envs=3, num_players=2), seed=9, steps=300)
    for x, y in zip(a, c, strict=True):
        assert data_equivalence(x[0][:3], y[0])
        for u, v in zip(x[1:], y[1:], strict=True):
            assert data_equivalence(u[:3], v, exact=True)
    d = run(make_vec(num_envs=6, num_players=2), seed=10, steps=3)
    assert not np.array_equal(a[0][0], d[0][0])


def test_reset_without_seed_continues_the_seeded_stream():
    env = make_vec(num_envs=4)
    env.reset(seed=3)
    first, _ = env.reset()
    env.reset(seed=3)
    again, _ = env.reset()
    np.testing.assert_array_equal(first, again)


def test_self_play_returns_whoever_acts_and_rewards_per_seat():
    env = make_vec(num_envs=4, num_players=3, opponent="self")
    aec = mg.make("century", 3).unwrapped
    obs, info = env.reset(seed=4)
    aec.reset(seed=4)
    batch = env.unwrapped.batch
    ended = 0
    for _ in range(3000):
        assert (info["seat"] == batch.current_player).all()
        acting = f"player_{info['seat'][0]}"
        assert aec.agent_selection == acting
        np.testing.assert_array_equal(obs[0], aec.observe(acting)["observation"])
        actions = obs_policy(obs, info["action_mask"])
        aec.step(int(actions[0]))
        obs, reward, term, trunc, info = env.step(actions)
        assert reward.shape == (4, 3)
        if term[0] or trunc[0]:
            ended += 1
            assert reward[0].tolist() == [aec.rewards[f"player_{p}"] for p in range(3)]
            assert info["final_info"]["seat"][0] == aec.agent_name_mapping[acting]
            np.testing.assert_array_equal(info["final_obs"][0], aec.observe(acting)["observation"])
            aec.reset()
        else:
            assert (reward[0] == 0).all()
        if ended == 2:
            return
    raise AssertionError("row 0 did not finish two games")


def test_illegal_action_raise_changes_nothing():
    env = make_vec(num_envs=4, num_players=2, illegal_action="raise")
    obs, info = env.reset(seed=0)
    before = env.unwrapped.batch.get_states().tobytes()
    actions = obs_policy(obs, info["action_mask"])
    actions[2] = int(np.flatnonzero(info["action_mask"][2] == 0)[0])
    with pytest.raises(IllegalActionError, match="game 2"):
        env.step(actions)
    assert env.unwrapped.batch.get_states().tobytes() == before
    with pytest.raises(ActionError, match="out of range"):
        env.step(np.full(4, 79))
    with pytest.raises(ActionError, match="shape"):
        env.step(actions[:3])
    env.step(obs_policy(obs, info["action_mask"]))  # still usable


def test_illegal_action_lose_ends_only_that_row():
    env = make_vec(num_envs=4, num_players=2, illegal_action="lose")
    obs, info = env.reset(seed=0)
    episodes = env.unwrapped.batch.episodes.copy()
    actions = obs_policy(obs, info["action_mask"])
    actions[1] = int(np.flatnonzero(info["action_mask"][1] == 0)[0])
    new_obs, reward, term, trunc, info2 = env.step(actions)
    assert term.tolist() == [False, True, False, False] and not trunc.any()
    assert reward.tolist() == [0.0, -1.0, 0.0, 0.0]
    assert info2["final_info"]["illegal_action"].tolist() == [False, True, False, False]
    np.testing.assert_array_equal(info2["final_obs"][1], obs[1])
    assert env.unwrapped.batch.episodes[1] == episodes[1] + 1
    assert (
        info2["action_mask"][1].any() and info2["seat"][1] == env.unwrapped.batch.current_player[1]
    )
    # gymnasium's unmasked random actions run in this mode
    for _ in range(20):
        env.step(env.action_space.sample())


def test_opponent_seat_and_option_errors():
    with pytest.raises(OptionError, match="opponent"):
        BatchVectorEnv("century", 2, opponent="nobody")
    with pytest.raises(OptionError, match="seat"):
        BatchVectorEnv("century", 2, seat=2)
    with pytest.raises(OptionError, match="illegal_action"):
        BatchVectorEnv("century", 2, illegal_action="ignore")
    with pytest.raises(OptionError, match="raiders_slot"):
        BatchVectorEnv("radlands", 2, raiders_slot=1)
    with pytest.raises(NotResetError):
        BatchVectorEnv("century", 2).step(np.zeros(2, dtype=np.int64))


def test_copy_flag():
    env = make_vec(num_envs=4)
    obs, info = env.reset(seed=0)
    obs[:] = -1  # ours to keep: the env does not see this
    obs2, *_, info2 = env.step(obs_policy(env.unwrapped.batch.observation, info["action_mask"]))
    assert (obs2 >= 0).all() and obs2.flags.writeable
    views = make_vec(num_envs=4, copy=False)
    obs, info = views.reset(seed=0)
    assert not obs.flags.writeable and not info["action_mask"].flags.writeable
    with pytest.raises(ValueError):
        obs[0, 0] = 1.0


def test_record_episode_statistics_wrapper_counts_finished_episodes():
    env = gymnasium.wrappers.vector.RecordEpisodeStatistics(make_vec(num_envs=8))
    obs, info = env.reset(seed=0)
    finished = 0
    for _ in range(500):
        obs, reward, term, trunc, info = env.step(obs_policy(obs, info["action_mask"]))
        if "episode" in info:
            done = info["_episode"]
            assert (done == (term | trunc)).all()
            # rewards come only at the end, so an episode's return is its last reward
            np.testing.assert_array_equal(info["episode"]["r"][done], reward[done])
            finished += int(done.sum())
    assert finished > 0


def test_pickle_round_trip_continues_the_same_games():
    env = make_vec(num_envs=4, num_players=2, opponent="heuristic")
    obs, info = env.reset(seed=1)
    for _ in range(30):
        obs, *_, info = env.step(obs_policy(obs, info["action_mask"]))
    clone = pickle.loads(pickle.dumps(env))
    for _ in range(200):
        actions = obs_policy(obs, info["action_mask"])
        a = env.step(actions)
        b = clone.step(actions)
        assert data_equivalence(a, b, exact=True)
        obs, info = a[0], a[4]


@pytest.mark.parametrize(
    ("game", "num_players", "opponent"),
    [
        ("radlands", 2, "random"),
        ("radlands", 2, "heuristic"),
        ("everdell", 2, "heuristic"),
        ("everdell", 1, "random"),
        ("endeavor", 3, "random"),
        ("endeavor", 2, "self"),
    ],
)
def test_other_games_return_learner_rows(game, num_players, opponent):
    env = make_vec(game, num_envs=8, num_players=num_players, opponent=opponent)
    obs, info = env.reset(seed=0)
    batch = env.unwrapped.batch
    assert obs.shape == (8, mg.get_spec(game).obs_size)
    for _ in range(150):
        assert (batch.current_player == info["seat"]).all()
        assert info["action_mask"].any(axis=1).all()
        assert env.observation_space.contains(obs)
        obs, reward, term, trunc, info = env.step(obs_policy(obs, info["action_mask"]))
        if "final_obs" in info:
            assert all(
                env.single_observation_space.contains(o)
                for o in info["final_obs"][info["_final_obs"]]
            )


def test_everdell_solo_row_replays_on_the_aec_env():
    assert replay_row0("everdell", 1, seed=2, steps=300, opponent="random") >= 1
