"""Several Python threads on one env object (envs/core/locking.py).

Every kernel releases the GIL, so without a lock two threads stepping one batch ran one
thread's action check while the other's kernel rewrote the mask: corrupt records or a crash.
Two threads on the same batch, vector env or AEC env must now leave valid records and the
result of some serial order of their calls; two threads on two batches must give exactly the
serial results.
"""

from __future__ import annotations

import dataclasses
import pickle
import threading

import numpy as np
import pytest

import meeple_gym as mg
from meeple_gym.core.gate import load_snapshot, validate_records
from meeple_gym.core.gym_env import SingleAgentEnv
from meeple_gym.core.sampling import policy_words, random_legal_actions
from meeple_gym.core.vector_env import BatchVectorEnv

GAMES = ("century", "radlands", "everdell", "endeavor")


def run_threads(*targets) -> None:
    """Run each target in its own thread, all released at once; re-raise the first error."""
    start = threading.Barrier(len(targets))
    errors = []

    def body(target):
        start.wait()
        try:
            target()
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread
            errors.append(exc)

    threads = [threading.Thread(target=body, args=(t,)) for t in targets]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]


def same(a, b) -> bool:
    return all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def lock_is_free_elsewhere(lock) -> bool:
    """Whether another thread could take ``lock`` right now."""
    result = []

    def probe():
        got = lock.acquire(blocking=False)
        if got:
            lock.release()
        result.append(got)

    t = threading.Thread(target=probe)
    t.start()
    t.join()
    return result[0]


def serial_order(step, save, restore, logs) -> list[int]:
    """An order of the threads' logged calls that ``step`` replays with the very same outputs
    (depth-first over the interleavings; the outputs make a wrong branch fail at once).
    Each log entry is (arguments, outputs); returns the thread index of each call in turn."""
    total = sum(len(log) for log in logs)
    pos = [0] * len(logs)
    order: list[int] = []

    def search() -> bool:
        if len(order) == total:
            return True
        saved = save()
        for k, log in enumerate(logs):
            if pos[k] == len(log):
                continue
            args, expected = log[pos[k]]
            try:
                got = step(args)
            except mg.ActionError:
                continue  # refused, nothing changed: not this thread's turn here
            if same(got, expected):
                pos[k] += 1
                order.append(k)
                if search():
                    return True
                pos[k] -= 1
                order.pop()
            restore(saved)
        return False

    assert search(), "no serial order of the calls gives the outputs the threads saw"
    return order


# ---- one batch, two threads ---------------------------------------------------------------
BATCH = 64
STEPS = 120


def step_batch_in_thread(batch, seed, log):
    """Legal actions drawn from a copy of the mask (which another thread's step may make
    stale: the step then refuses them and changes nothing); successful steps are logged."""
    words = policy_words(seed, batch.batch_size)
    actions = np.zeros(batch.batch_size, dtype=np.int64)
    for _ in range(STEPS):
        random_legal_actions(batch.legal_mask.copy(), words, actions)
        try:
            out = batch.step(actions)
        except mg.ActionError:
            continue
        log.append((actions.copy(), out))


@pytest.mark.parametrize("game", GAMES)
def test_two_threads_on_one_batch_leave_valid_records_of_a_serial_order(game):
    batch = mg.make_batch(game, BATCH, 2, seed=3)
    batch.reset()
    logs = ([], [])
    run_threads(*(lambda k=k: step_batch_in_thread(batch, 100 + k, logs[k]) for k in (0, 1)))
    assert logs[0] or logs[1]  # (one thread may be starved of the GIL: still a valid run)
    states = batch.get_states()
    # The game's own checks on every record (as for a foreign snapshot: no digest shortcut).
    validate_records(batch.spec, states)
    validate_records(batch.spec, batch.final_states[batch.episodes > 0])

    twin = mg.make_batch(game, BATCH, 2, seed=3)
    twin.reset()
    order = serial_order(
        twin.step,
        lambda: (twin.get_states(), twin.episodes.copy()),
        lambda saved: twin.set_states(*saved),
        logs,
    )
    assert len(order) == len(logs[0]) + len(logs[1])
    assert twin.get_states().tobytes() == states.tobytes()
    np.testing.assert_array_equal(twin.episodes, batch.episodes)


def test_every_public_batch_method_runs_its_kernels_under_the_lock():
    """reset, step, set_states, determinize and random_rollout hold the batch's lock while
    their kernels run (with the GIL released), so no other thread's call can interleave."""
    batch = mg.make_batch("century", 4, 2, seed=4)
    seen = []

    def probe(kernel):
        def call(*args):
            seen.append((kernel, lock_is_free_elsewhere(batch.lock)))
            return getattr(spec, kernel)(*args)

        return call

    spec = batch.spec
    names = ("reset_batch", "legal_masks_batch", "step_batch", "encode_batch", "determinize_batch")
    batch.spec = dataclasses.replace(spec, **{name: probe(name) for name in names})
    batch.reset()
    batch.step(np.argmax(batch.legal_mask, axis=1))
    batch.set_states(batch.get_states())
    batch.determinize(np.zeros(4, dtype=np.int64), 1)
    batch.random_rollout(2)
    assert {kernel for kernel, _ in seen} == set(names)
    assert not [kernel for kernel, free in seen if free]
    assert lock_is_free_elsewhere(batch.lock)


# ---- two batches, two threads -------------------------------------------------------------
def play_batch(game, size, seed, steps):
    batch = mg.make_batch(game, size, 2, seed=seed)
    out = [batch.reset()]
    words = policy_words(seed, size)
    actions = np.zeros(size, dtype=np.int64)
    for _ in range(steps):
        random_legal_actions(batch.legal_mask.copy(), words, actions)
        out.extend(batch.step(actions))
    out.append(batch.get_states().tobytes())
    return out


@pytest.mark.parametrize("game", GAMES)
def test_two_threads_on_two_batches_match_the_serial_run(game):
    # 600 games: past PARALLEL_MIN_BATCH, so both threads run parallel kernels at once.
    runs = [(game, 600, 11, 20), (game, 600, 12, 20)]
    serial = [play_batch(*run) for run in runs]
    threaded = [None, None]

    def target(k):
        threaded[k] = play_batch(*runs[k])

    run_threads(*(lambda k=k: target(k) for k in (0, 1)))
    for a, b in zip(serial, threaded, strict=True):
        assert len(a) == len(b)
        for x, y in zip(a, b, strict=True):
            assert x == y if isinstance(x, bytes) else np.array_equal(x, y)


# ---- the vector env -----------------------------------------------------------------------
def vector_env(opponent="random", seed=0, num_envs=16):
    env = BatchVectorEnv("century", num_envs, 2, opponent=opponent, illegal_action="raise")
    env.reset(seed=seed)
    return env


def vector_outputs(result):
    obs, reward, term, trunc, info = result
    return obs, reward, term, trunc, info["seat"]


def step_vector_in_thread(env, seed, log, steps=80):
    words = policy_words(seed, env.num_envs)
    actions = np.zeros(env.num_envs, dtype=np.int64)
    for _ in range(steps):
        random_legal_actions(env.action_masks().astype(np.int8), words, actions)
        try:
            out = env.step(actions)
        except mg.ActionError:
            continue
        log.append((actions.copy(), vector_outputs(out)))


@pytest.mark.parametrize("opponent", ["random", "heuristic"])
def test_two_threads_on_one_vector_env_give_a_serial_order(opponent):
    env = vector_env(opponent)
    start = pickle.dumps(env)
    logs = ([], [])
    run_threads(*(lambda k=k: step_vector_in_thread(env, 20 + k, logs[k]) for k in (0, 1)))
    assert logs[0] or logs[1]
    states = env.batch.get_states()
    validate_records(env.batch.spec, states)

    holder = [pickle.loads(start)]  # the replay env, swapped out on restore
    order = serial_order(
        lambda actions: vector_outputs(holder[0].step(actions)),
        lambda: pickle.dumps(holder[0]),
        lambda saved: holder.__setitem__(0, pickle.loads(saved)),
        logs,
    )
    assert len(order) == len(logs[0]) + len(logs[1])
    assert holder[0].batch.get_states().tobytes() == states.tobytes()


def test_two_threads_on_two_vector_envs_match_the_serial_run():
    def play(seed):
        env = vector_env("heuristic", seed=seed, num_envs=8)
        log = []
        step_vector_in_thread(env, seed, log, steps=40)
        return log, env.batch.get_states().tobytes()

    serial = [play(s) for s in (1, 2)]
    threaded = [None, None]

    def target(k):
        threaded[k] = play(k + 1)

    run_threads(*(lambda k=k: target(k) for k in (0, 1)))
    for (log_a, end_a), (log_b, end_b) in zip(serial, threaded, strict=True):
        assert end_a == end_b and len(log_a) == len(log_b) == 40
        for (acts_a, out_a), (acts_b, out_b) in zip(log_a, log_b, strict=True):
            assert np.array_equal(acts_a, acts_b) and same(out_a, out_b)


class LockProbe:
    """An act_batch opponent that records whether its env's lock was held while it moved."""

    def __init__(self):
        self.lock = None
        self.free = []

    def act_batch(self, observations, masks):
        self.free.append(lock_is_free_elsewhere(self.lock))
        return np.argmax(np.asarray(masks) != 0, axis=1)


def test_wrapping_envs_hold_the_lock_over_their_whole_step():
    """The vector and single-agent envs hold the lock they wrap while their opponents move,
    between their kernel calls, so no other thread's call lands in the middle of a step."""
    probe = LockProbe()
    env = BatchVectorEnv("century", 4, 2, opponent=probe, seat=1)
    probe.lock = env.batch.lock
    env.reset(seed=0)
    env.step(np.argmax(env.action_masks(), axis=1))
    assert probe.free and not any(probe.free)
    assert lock_is_free_elsewhere(env.batch.lock)

    free = []

    def opponent(observation):
        free.append(lock_is_free_elsewhere(single.aec_env.unwrapped.lock))
        return int(np.flatnonzero(observation["action_mask"])[0])

    single = SingleAgentEnv("century", 2, opponent=opponent, seat=1)
    _, info = single.reset(seed=0)
    single.step(int(np.flatnonzero(info["action_mask"])[0]))
    assert free and not any(free)


# ---- the AEC env --------------------------------------------------------------------------
@pytest.mark.parametrize("game", GAMES)
def test_two_threads_on_one_aec_env_leave_a_valid_record(game):
    env = mg.make(game, 2)
    env.reset(seed=1)
    raw = env.unwrapped
    counts = [0, 0]

    def play(k):
        rng = np.random.default_rng(k)
        for _ in range(400):
            if not raw.agents or raw.terminations[raw.agent_selection]:
                return
            legal = np.flatnonzero(raw.action_masks())
            if legal.size == 0:
                continue
            try:
                env.step(int(rng.choice(legal)))
            except (mg.ActionError, mg.GameOverError):
                continue  # the other thread moved first
            counts[k] += 1

    run_threads(lambda: play(0), lambda: play(1))
    snapshot = raw.to_dict()
    load_snapshot(raw.spec, snapshot)  # the game's own checks, with a round trip
    # Every accepted step was applied once: none lost, none applied twice.
    assert int(raw.state_array[0]["step_count"]) == sum(counts)
