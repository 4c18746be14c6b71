"""The vector env's two auto-reset modes (envs/core/vector_env.py): next-step, the default, and
same-step play the same games; the next-step contract; and the wrappers of Gymnasium and
TorchRL on the vector env, untouched."""

from __future__ import annotations

import pickle
import threading

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import data_equivalence
from gymnasium.vector import AutoresetMode, SyncVectorEnv
from vector_layouts import info_layout, layouts_by_kind

import meeple_gym as mg
from meeple_gym import IllegalActionError, OpponentError, OptionError
from meeple_gym.core.gym_env import GAME_IDS, SingleAgentEnv
from meeple_gym.core.vector_env import BatchVectorEnv

NEXT, SAME = AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP


def make_vec(game="century", num_envs=4, **kwargs):
    return gymnasium.make_vec(
        GAME_IDS[game], num_envs=num_envs, vectorization_mode="vector_entry_point", **kwargs
    )


class RowPolicy:
    """Uniform legal actions, one RNG per row, drawn only where the row has a decision: a
    row's moves depend on its own decisions alone, so it plays the same moves in either mode
    and in any batch size. ``illegal`` is the chance of playing a forbidden action instead. A
    row with nothing legal (a next-step end) gets -1, which the env must ignore."""

    def __init__(self, num_envs: int, seed: int = 0, illegal: float = 0.0):
        self.rngs = [np.random.default_rng([seed, i]) for i in range(num_envs)]
        self.illegal = illegal

    def __call__(self, masks) -> np.ndarray:
        out = np.full(len(masks), -1, dtype=np.int64)
        for i, mask in enumerate(np.asarray(masks)):
            legal = np.flatnonzero(mask)
            if legal.size == 0:
                continue
            rng = self.rngs[i]
            if self.illegal and rng.random() < self.illegal:
                legal = np.flatnonzero(mask == 0)
            out[i] = legal[rng.integers(legal.size)]
        return out


class ObsAgent:
    """An ``act_batch`` opponent whose move in a row depends only on that row's observation
    and mask (deterministic, so the same row gets the same moves in any grouping of rows)."""

    def act_batch(self, observations, masks):
        out = np.empty(len(masks), dtype=np.int64)
        for i, (o, m) in enumerate(zip(observations, masks, strict=True)):
            legal = np.flatnonzero(m)
            out[i] = legal[int(o.sum(dtype=np.float64) * 7919) % legal.size]
        return out


def play_episodes(env, seed, episodes, max_steps, illegal=0.0, prepare=None):
    """Step ``env`` with ``RowPolicy`` until every row finished ``episodes`` episodes; returns
    each row's episodes (its learner decisions and how it ended) and the steps taken. Checks
    on every step what both modes promise, and the next-step contract in that mode."""
    inner = env.unwrapped
    batch = inner.batch
    next_step = env.metadata["autoreset_mode"] is NEXT
    n = env.num_envs
    obs, info = env.reset(seed=seed)
    if prepare is not None:
        prepare(batch)
    policy = RowPolicy(n, illegal=illegal)
    current = [[] for _ in range(n)]
    finished = [[] for _ in range(n)]
    resetting = np.zeros(n, dtype=np.bool_)  # next-step rows whose action is ignored
    for step in range(max_steps):
        if min(len(f) for f in finished) >= episodes:
            return [f[:episodes] for f in finished], step
        decide = ~resetting
        # Every row not showing an end is its learner's decision, its mask that position's.
        assert (batch.current_player[decide] == info["seat"][decide]).all()
        np.testing.assert_array_equal(obs[decide], batch.observation[decide])
        np.testing.assert_array_equal(info["action_mask"][decide], batch.legal_mask[decide])
        assert info["action_mask"][decide].any(axis=1).all()
        np.testing.assert_array_equal(inner.action_masks(), info["action_mask"] != 0)
        for i in np.flatnonzero(decide):
            current[i].append((obs[i].tobytes(), info["action_mask"][i].tobytes(), info["seat"][i]))
        obs, reward, term, trunc, info = env.step(policy(info["action_mask"]))
        done = term | trunc
        assert (reward[~done] == 0).all()
        if next_step:
            assert "final_obs" not in info and "final_info" not in info
            # The rows reset on this step: a new episode's first decision, nothing to report.
            assert not done[resetting].any()
            # The rows that ended: their final position, where nothing is legal.
            assert not info["action_mask"][done].any()
            ends, final_obs = info, obs
            resetting = done
        else:
            ends, final_obs = info.get("final_info", {}), info.get("final_obs")
            if done.any():
                np.testing.assert_array_equal(info["_final_obs"], done)
        for i in np.flatnonzero(done):
            scored = "_score" in ends and ends["_score"][i]
            finished[i].append(
                {
                    "decisions": current[i],
                    "final_obs": np.asarray(final_obs[i]).tobytes(),
                    "reward": np.atleast_1d(reward[i]).tolist(),
                    "terminated": bool(term[i]),
                    "truncated": bool(trunc[i]),
                    "seat": int(ends["seat"][i]),
                    "score": np.atleast_1d(ends["score"][i]).tolist() if scored else None,
                    "illegal": bool("_illegal_action" in ends and ends["_illegal_action"][i]),
                }
            )
            current[i] = []
    raise AssertionError(f"not every row finished {episodes} episodes in {max_steps} steps")


def near_the_step_cap(batch):
    """Row 0's first game a few steps from century's step cap: it ends truncated."""
    from meeple_gym.century.rules import STEP_CAP

    batch._states["step_count"][0] = STEP_CAP - 4


CASES = [
    # game, players, opponent, episodes per row, illegal-action chance, prepare
    ("century", 2, "random", 2, 0.0, near_the_step_cap),
    ("century", 2, "heuristic", 2, 0.0, None),
    ("century", 2, ObsAgent(), 1, 0.0, None),
    ("century", 2, "random", 3, 0.004, None),
    ("century", 3, "self", 1, 0.0, None),
    ("radlands", 2, "random", 2, 0.0, None),
    ("radlands", 2, "heuristic", 2, 0.02, None),
    ("everdell", 2, "random", 2, 0.0, None),
    ("everdell", 1, "random", 2, 0.0, None),
    ("endeavor", 3, "random", 2, 0.0, None),
    ("endeavor", 2, "self", 2, 0.0, None),
]


@pytest.mark.parametrize(("game", "players", "opponent", "episodes", "illegal", "prepare"), CASES)
def test_both_modes_play_the_same_episodes(game, players, opponent, episodes, illegal, prepare):
    """Same seed, same per-row policy: every row sees the same episodes in both modes (its
    decisions, final observation, reward, end, seat, score, illegal action); next-step mode
    only adds one reset step after each end."""
    runs = {}
    for mode in (SAME, NEXT):
        env = make_vec(
            game,
            num_envs=4,
            num_players=players,
            opponent=opponent,
            autoreset_mode=mode,
            illegal_action="lose",
        )
        assert env.metadata["autoreset_mode"] is mode
        runs[mode] = play_episodes(env, 7, episodes, 20_000, illegal, prepare)
        env.close()
    (same, same_steps), (nxt, next_steps) = runs[SAME], runs[NEXT]
    assert same == nxt
    # A row's k-th end comes k - 1 reset steps later in next-step mode.
    assert next_steps == same_steps + episodes - 1
    ends = [e for row in same for e in row]
    if prepare is near_the_step_cap:
        assert same[0][0]["truncated"] and not same[0][0]["terminated"]
    if illegal:
        assert any(e["illegal"] and e["score"] is None for e in ends)
    assert any(e["score"] is not None for e in ends)


def test_the_mode_is_a_constructor_argument_next_step_by_default():
    env = make_vec(num_envs=2)
    assert env.metadata["autoreset_mode"] is NEXT and env.autoreset_mode is NEXT
    for value in (SAME, "SameStep"):
        same = make_vec(num_envs=2, autoreset_mode=value)
        assert same.metadata["autoreset_mode"] is SAME and same.autoreset_mode is SAME
    assert env.metadata["autoreset_mode"] is NEXT  # per instance, not shared
    assert BatchVectorEnv.metadata["autoreset_mode"] is NEXT
    assert BatchVectorEnv("century", 2, autoreset_mode="NextStep").autoreset_mode is NEXT
    for bad in ("same_step", AutoresetMode.DISABLED, 1, None):
        with pytest.raises(OptionError, match="autoreset_mode"):
            BatchVectorEnv("century", 2, autoreset_mode=bad)


def run_outputs(num_envs, seed, steps):
    """Every step's output per row, next-step mode: (obs, reward, ends, mask, seat, score)."""
    env = make_vec(num_envs=num_envs, opponent="random")
    obs, info = env.reset(seed=seed)
    policy = RowPolicy(num_envs, seed=1)
    out = []
    for _ in range(steps):
        obs, reward, term, trunc, info = env.step(policy(info["action_mask"]))
        assert not info["action_mask"][term | trunc].any()  # the default is next-step
        scored = info.get("_score", np.zeros(num_envs, dtype=bool))
        out.append(
            [
                (
                    obs[i].tobytes(),
                    reward[i],
                    term[i],
                    trunc[i],
                    info["action_mask"][i].tobytes(),
                    info["seat"][i],
                    info["score"][i] if scored[i] else None,
                )
                for i in range(num_envs)
            ]
        )
    return out


def test_next_step_rows_depend_only_on_the_seed_not_the_batch_size():
    a = run_outputs(6, seed=9, steps=700)
    assert a == run_outputs(6, seed=9, steps=700)
    b = run_outputs(3, seed=9, steps=700)
    assert [step[:3] for step in a] == b
    assert sum(row[2] or row[3] for step in b for row in step) >= 2  # ends were covered
    assert a != run_outputs(6, seed=10, steps=700)


def step_until_an_end(env, info, policy, limit=5000):
    for _ in range(limit):
        out = env.step(policy(info["action_mask"]))
        info = out[4]
        if (out[2] | out[3]).any():
            return out
    raise AssertionError("no row ended")


def test_next_step_returns_the_end_then_resets_the_row_ignoring_its_action():
    env = make_vec(num_envs=4, opponent="random", illegal_action="raise")
    inner, batch = env.unwrapped, env.unwrapped.batch
    spec = batch.spec
    obs, info = env.reset(seed=3)
    policy = RowPolicy(4)
    obs, reward, term, trunc, info = step_until_an_end(env, info, policy)
    ended = term | trunc
    i = int(np.flatnonzero(ended)[0])
    seat = int(info["seat"][i])
    # The ending step shows the finished game: its last position for the learner's seat,
    # which has no legal action, its reward and score; the next game is already dealt.
    final = np.zeros((1, spec.obs_size), dtype=np.float32)
    spec.encode_batch(batch.final_states[i : i + 1], np.array([seat]), final)
    np.testing.assert_array_equal(obs[i], final[0])
    first = np.zeros((1, spec.obs_size), dtype=np.float32)
    spec.encode_batch(batch.states[i : i + 1], np.array([seat]), first)
    assert not np.array_equal(obs[i], first[0])  # not the next game's opening
    assert not info["action_mask"][i].any() and not inner.action_masks()[i].any()
    assert info["_score"][i] and info["score"][i] == batch.final_scores[i, seat]
    assert reward[i] == batch.rewards[i, seat] and reward[i] in (-1.0, 0.0, 1.0)
    np.testing.assert_array_equal(info["_score"], ended)
    dealt = batch.states[i].tobytes()
    episodes = batch.episodes.copy()

    # The reset step ignores that row's action, even one out of range; pending rows survive
    # pickling. The other rows move as usual.
    clone = pickle.loads(pickle.dumps(env))
    actions = policy(info["action_mask"])
    assert actions[i] == -1  # the policy has nothing to pick there
    other = actions.copy()
    other[i] = 10**9
    a, b = env.step(actions), clone.step(other)
    assert data_equivalence(a, b, exact=True)
    obs, reward, term, trunc, info = a
    assert reward[i] == 0.0 and not term[i] and not trunc[i]
    assert not info.get("_score", np.zeros(4, dtype=bool))[i]
    assert batch.states[i].tobytes() == dealt and batch.episodes[i] == episodes[i]
    np.testing.assert_array_equal(obs[i], batch.observation[i])
    np.testing.assert_array_equal(info["action_mask"][i], batch.legal_mask[i])
    assert info["action_mask"][i].any() and info["seat"][i] == batch.current_player[i]
    # From here the row's actions count again: an illegal one raises.
    actions = policy(info["action_mask"])
    actions[i] = int(np.flatnonzero(info["action_mask"][i] == 0)[0])
    with pytest.raises(IllegalActionError, match=f"game {i}"):
        env.step(actions)


def test_next_step_illegal_action_lose_is_reported_in_the_steps_own_info():
    env = make_vec(num_envs=4, illegal_action="lose")
    obs, info = env.reset(seed=0)
    policy = RowPolicy(4)
    actions = policy(info["action_mask"])
    actions[1] = int(np.flatnonzero(info["action_mask"][1] == 0)[0])
    new_obs, reward, term, trunc, info2 = env.step(actions)
    assert term.tolist() == [False, True, False, False] and not trunc.any()
    assert reward.tolist() == [0.0, -1.0, 0.0, 0.0]
    assert info2["illegal_action"].tolist() == [False, True, False, False]
    assert info2["_illegal_action"].tolist() == [False, True, False, False]
    assert "_score" not in info2  # a forfeit has no score
    np.testing.assert_array_equal(new_obs[1], obs[1])  # where the illegal action was played
    assert not info2["action_mask"][1].any() and info2["seat"][1] == info["seat"][1]
    obs, reward, term, _, info3 = env.step(policy(info2["action_mask"]))
    batch = env.unwrapped.batch
    assert reward[1] == 0.0 and not term[1] and batch.episodes[1] == 1
    assert info3["action_mask"][1].any() and info3["seat"][1] == batch.current_player[1]


def test_next_step_copy_false_returns_views_also_on_an_end():
    env = make_vec(num_envs=4, copy=False)
    batch = env.unwrapped.batch
    spec = batch.spec
    obs, info = env.reset(seed=1)
    policy = RowPolicy(4)
    ended = 0
    for _ in range(3000):
        obs, _, term, trunc, info = env.step(policy(info["action_mask"]))
        assert not obs.flags.writeable and not info["action_mask"].flags.writeable
        assert np.shares_memory(obs, batch.observation)
        assert np.shares_memory(info["action_mask"], batch.legal_mask)
        rows = np.flatnonzero(term | trunc)
        if not rows.size:
            continue
        # The rows that ended show their final position, with no legal move ...
        ended += 1
        seats = info["seat"][rows].astype(np.int64)
        final = np.zeros((rows.size, spec.obs_size), dtype=np.float32)
        spec.encode_batch(batch.final_states[rows], seats, final)
        np.testing.assert_array_equal(obs[rows], final)
        assert not info["action_mask"][rows].any()
        # ... and the next step overwrites those views with their next game and its moves.
        dealt = batch.states[rows]
        legal = np.zeros((rows.size, spec.num_actions), dtype=np.int8)
        spec.legal_masks_batch(dealt.copy(), legal)
        obs, _, _, _, info = env.step(policy(info["action_mask"]))
        assert batch.states[rows].tobytes() == dealt.tobytes()  # the reset step moved nothing
        first = np.zeros((rows.size, spec.obs_size), dtype=np.float32)
        spec.encode_batch(dealt, info["seat"][rows].astype(np.int64), first)
        np.testing.assert_array_equal(obs[rows], first)
        np.testing.assert_array_equal(info["action_mask"][rows], legal)
        assert legal.any(axis=1).all()
        if ended >= 2:
            break
    assert ended >= 2


class Probe:
    """An act_batch opponent that records whether its env's lock was held while it moved and
    fails (raises) once ``fail`` is set."""

    def __init__(self):
        self.lock = None
        self.free = []
        self.fail = False

    def act_batch(self, observations, masks):
        got = []
        t = threading.Thread(target=lambda: got.append(self.lock.acquire(blocking=False)))
        t.start()
        t.join()
        if got[0]:
            self.lock.release()
        self.free.append(got[0])
        if self.fail:
            raise RuntimeError("probe failed")
        return np.argmax(np.asarray(masks) != 0, axis=1)


@pytest.mark.parametrize("mode", [NEXT, SAME])
def test_lock_and_opponent_failure_in_both_modes(mode):
    probe = Probe()
    env = BatchVectorEnv("century", 4, 2, opponent=probe, seat=1, autoreset_mode=mode)
    probe.lock = env.batch.lock
    obs, info = env.reset(seed=0)
    policy = RowPolicy(4)
    step_until_an_end(env, info, policy)  # the new games' opening moves were asked for too
    assert probe.free and not any(probe.free)
    probe.fail = True
    with pytest.raises(OpponentError, match="probe failed"):
        for _ in range(100):
            env.step(policy(env.action_masks()))
    for call in (lambda: env.step(np.zeros(4, dtype=np.int64)), env.action_masks):
        with pytest.raises(OpponentError, match="call reset"):
            call()
    probe.fail = False
    obs, info = env.reset(seed=1)  # clears the failure and any row waiting to be reset
    assert info["action_mask"].any(axis=1).all()
    env.step(policy(info["action_mask"]))


def test_info_layout_matches_sync_vector_env_in_next_step_mode():
    """Same keys, dtypes and shapes as gymnasium's SyncVectorEnv in next-step mode over the
    single-agent env, on reset, on a plain step and on a step where a row ended."""
    n = 6
    ours = make_vec(num_envs=n, num_players=2, opponent="random")
    theirs = SyncVectorEnv(
        [lambda: SingleAgentEnv("century", num_players=2) for _ in range(n)],
        autoreset_mode=NEXT,
    )

    def file(layouts, obs, term, trunc, info):
        layouts.setdefault("end" if (term | trunc).any() else "step", info_layout(info))

    def with_policy(env):  # a fresh RowPolicy for each env
        policy = RowPolicy(n)
        return layouts_by_kind(env, lambda obs, info: policy(info["action_mask"]), file, 3000)

    seen = {"ours": with_policy(ours), "theirs": with_policy(theirs)}
    assert seen["ours"] == seen["theirs"]
    assert "score" in seen["ours"]["end"]


# ---- wrappers, untouched -----------------------------------------------------------------
def test_normalize_observation_wraps_the_default_env():
    from gymnasium.wrappers.vector import NormalizeObservation

    env = NormalizeObservation(make_vec(num_envs=8))
    raw = make_vec(num_envs=8)  # the same games unwrapped: the observations it normalises
    obs, _ = env.reset(seed=1)
    raw_obs, info = raw.reset(seed=1)
    seen = [raw_obs]
    policy = RowPolicy(8)
    ends = 0
    for _ in range(600):
        actions = policy(info["action_mask"])
        obs, *_ = env.step(actions)
        raw_obs, _, term, trunc, info = raw.step(actions)
        seen.append(raw_obs)
        ends += int((term | trunc).sum())
    assert ends > 0  # final observations were among them
    seen = np.concatenate(seen).astype(np.float64)
    rms = env.obs_rms
    np.testing.assert_allclose(rms.mean, seen.mean(axis=0), rtol=1e-3, atol=1e-4)
    np.testing.assert_allclose(rms.var, seen.var(axis=0), rtol=1e-3, atol=1e-4)
    expected = (raw_obs - rms.mean) / np.sqrt(rms.var + env.epsilon)
    np.testing.assert_allclose(obs, expected, rtol=1e-5, atol=1e-5)
    # Gymnasium refuses same-step mode here (the final observations would be skipped).
    with pytest.raises(ValueError, match="NEXT_STEP"):
        NormalizeObservation(make_vec(num_envs=2, autoreset_mode=SAME))


def episode_stats(mode, steps=1500):
    """Each row's (length, return) per episode from RecordEpisodeStatistics, checked on every
    end against the env's own count of that row's learner decisions and rewards."""
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    n = 6
    env = RecordEpisodeStatistics(make_vec("everdell", num_envs=n, autoreset_mode=mode))
    obs, info = env.reset(seed=2)
    policy = RowPolicy(n)
    lengths, returns = np.zeros(n, dtype=np.int64), np.zeros(n)
    resetting = np.zeros(n, dtype=np.bool_)
    stats = [[] for _ in range(n)]
    for _ in range(steps):
        obs, reward, term, trunc, info = env.step(policy(info["action_mask"]))
        lengths[~resetting] += 1
        returns[~resetting] += reward[~resetting]
        done = term | trunc
        if not done.any():
            assert "episode" not in info
        else:
            np.testing.assert_array_equal(info["_episode"], done)
            np.testing.assert_array_equal(info["episode"]["l"][done], lengths[done])
            np.testing.assert_array_equal(info["episode"]["r"][done], returns[done])
            for i in np.flatnonzero(done):
                stats[i].append((int(lengths[i]), float(returns[i])))
            lengths[done], returns[done] = 0, 0.0
        if mode is NEXT:
            resetting = done
    return stats


def test_record_episode_statistics_counts_the_same_episodes_in_both_modes():
    same, nxt = episode_stats(SAME), episode_stats(NEXT)
    for a, b in zip(same, nxt, strict=True):
        assert len(b) >= 2
        assert a[: len(b)] == b


def test_torchrl_gym_wrapper_rollout_marks_the_env_ends():
    pytest.importorskip("torchrl", reason="torchrl is not installed")
    import torch
    from torchrl.envs.libs.gym import GymWrapper

    n, steps = 8, 300
    # TorchRL refuses next-step mode (the default) by name; same-step is what it reads.
    with pytest.raises(RuntimeError, match="SAME_STEP"):
        GymWrapper(make_vec("everdell", num_envs=2))
    env = make_vec("everdell", num_envs=n, autoreset_mode=SAME)
    returned = []  # what the env itself returned, copied: TorchRL writes into those arrays
    step = env.step

    def recording_step(actions):
        out = step(actions)
        obs, reward, term, trunc, info = out
        returned.append((obs.copy(), reward.copy(), term.copy(), trunc.copy(), info))
        return out

    env.step = recording_step
    wrapped = GymWrapper(env)
    returned.clear()  # TorchRL's own spec checks stepped too
    policy = RowPolicy(n)
    num_actions = env.single_action_space.n

    def act(td):
        actions = torch.as_tensor(policy(td["action_mask"].numpy()))
        return td.set("action", torch.nn.functional.one_hot(actions, num_actions))

    wrapped.set_seed(0)
    td = wrapped.rollout(steps, policy=act, break_when_any_done=False)
    assert len(returned) == steps
    obs, reward, term, trunc = (np.stack([r[k] for r in returned], axis=1) for k in range(4))
    np.testing.assert_array_equal(td["next", "terminated"].squeeze(-1).numpy(), term)
    np.testing.assert_array_equal(td["next", "truncated"].squeeze(-1).numpy(), trunc)
    np.testing.assert_array_equal(td["next", "done"].squeeze(-1).numpy(), term | trunc)
    np.testing.assert_array_equal(td["next", "reward"].squeeze(-1).numpy(), reward)
    assert (term | trunc).sum() >= n  # every row ended about once or more
    for t, (_, _, _, _, info) in enumerate(returned):
        done = info.get("_final_obs", np.zeros(n, dtype=bool))
        for i in range(n):
            nxt = td["next", "observation"][i, t].numpy()
            if done[i]:  # the step's next observation is the finished game's last one ...
                np.testing.assert_array_equal(nxt, info["final_obs"][i])
                if t + 1 < steps:  # ... and the following step starts from the new game
                    np.testing.assert_array_equal(td["observation"][i, t + 1].numpy(), obs[i, t])
            else:
                np.testing.assert_array_equal(nxt, obs[i, t])
    assert mg.get_spec("everdell").obs_size == td["observation"].shape[-1]
