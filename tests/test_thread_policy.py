"""The per-call thread policy (meeple_gym.core.thread_policy): serial below the batch
threshold, capped by free cores in "auto" mode, overridable, and never a different game."""

import math
import time

import numba
import numpy as np
import pytest

import meeple_gym as mg
from meeple_gym.core import batch as batch_module
from meeple_gym.core import thread_policy as tp
from meeple_gym.core.errors import OptionError

two_threads = pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 threads")


@pytest.fixture
def policy(monkeypatch):
    """Restore the mode and threshold after each test; free cores are set by the test."""
    mode, rows = tp.mode(), tp.parallel_min_batch()
    yield monkeypatch
    tp.set_mode(mode)
    tp.set_parallel_min_batch(rows)


def test_small_batches_run_serially_and_big_ones_get_the_cap(policy):
    tp.set_mode("batch")
    tp.set_parallel_min_batch(100)
    assert tp.threads_for(99, cap=2) == 1
    assert tp.threads_for(100, cap=2) == 2
    assert tp.threads_for(5000, cap=1) == 1


def test_auto_uses_no_more_threads_than_free_cores(policy):
    tp.set_mode("auto")
    tp.set_parallel_min_batch(100)
    policy.setattr(tp._load, "free_cores", lambda: 1.2)
    assert tp.threads_for(5000, cap=2) == 1
    policy.setattr(tp._load, "free_cores", lambda: 1.6)
    assert tp.threads_for(5000, cap=2) == 2
    assert tp.threads_for(5000, cap=1) == 1
    assert tp.threads_for(50, cap=2) == 1


def test_fixed_mode_keeps_numbas_count(policy):
    tp.set_mode("fixed")
    assert tp.threads_for(1, cap=2) == 2


def test_bad_settings_are_refused(policy):
    with pytest.raises(OptionError):
        tp.set_mode("fast")
    with pytest.raises(OptionError):
        tp.set_parallel_min_batch(0)


def test_environment_overrides(policy):
    policy.setenv(tp.MODE_ENV, "FIXED")
    policy.setenv(tp.MIN_BATCH_ENV, "64")
    assert tp._env_mode() == "fixed"
    assert tp._env_min_batch() == 64
    policy.setenv(tp.MODE_ENV, "nonsense")
    policy.setenv(tp.MIN_BATCH_ENV, "x")
    with pytest.warns(UserWarning, match=tp.MODE_ENV):
        assert tp._env_mode() == "auto"
    with pytest.warns(UserWarning, match=tp.MIN_BATCH_ENV):
        assert tp._env_min_batch() == tp.DEFAULT_PARALLEL_MIN_BATCH


def test_the_first_estimate_does_not_count_this_process_as_another(policy):
    """The first estimate reads the 1-minute load average, which includes this process: a
    process that kept one core busy for a minute must still see the other core free, and one
    that was idle must see what the others load."""
    policy.setattr(tp, "_cpus", lambda: 2)
    policy.setattr(tp, "_loadavg", lambda: 1.0)
    policy.setattr(tp, "_read_idle", lambda: None)  # no /proc: the load average only
    now, cpu = time.monotonic(), time.process_time()
    for own_rate, expected_threads in ((1.0, 2), (0.0, 1)):
        policy.setattr(tp, "_STARTED", (now - 120.0, cpu - 120.0 * own_rate))
        estimate = tp._Load().free_cores()
        share = own_rate * (1 - math.exp(-2.0))
        assert estimate == pytest.approx(min(2.0, max(1.0, 1.0 + share)), abs=0.02)
        assert int(estimate + 0.5) == expected_threads


def test_the_first_estimate_measures_the_window_since_import(policy):
    """The first call reads /proc/stat over the window since the estimate was made (import):
    the machine as it is, not the lagging load average (which still counted a process that had
    just ended as busy, and gave a fresh process 1 thread on an idle machine)."""
    policy.setattr(tp, "_cpus", lambda: 2)
    policy.setattr(tp, "_loadavg", lambda: 1.9)  # stale: the machine is idle now
    idle = [1000.0]
    policy.setattr(tp, "_read_idle", lambda: idle[0])
    load = tp._Load()
    now, own = time.monotonic(), time.process_time()
    # A second since import: the other core idle all along, this process busy on one.
    load.sample = (now - 1.0, idle[0] - 1.0, own - 1.0)
    assert load.free_cores() == pytest.approx(2.0, abs=0.05)
    # Right after import the window is too short to read: the load average stands in.
    policy.setattr(tp, "_STARTED", (time.monotonic(), time.process_time()))  # no own share
    fresh = tp._Load()
    assert fresh.free_cores() == pytest.approx(1.0, abs=0.05)


def test_free_cores_is_between_one_and_the_cpus():
    free = tp.free_cores()
    assert 1.0 <= free <= tp._cpus()
    report = tp.report()
    assert report["mode"] in tp.MODES and report["free_cores"] >= 1.0


@two_threads
def test_use_threads_sets_and_restores_numbas_count(policy):
    tp.set_mode("batch")
    tp.set_parallel_min_batch(100)
    mg.make_batch("century", 2, 2).reset()  # start Numba's pool (the fast getters need it)
    previous = numba.get_num_threads()
    numba.set_num_threads(2)
    try:
        with tp.use_threads(10) as n:
            assert n == 1 and numba.get_num_threads() == 1
            with tp.use_threads(5000) as inner:  # nested: never above the outer choice
                assert inner == 1 and numba.get_num_threads() == 1
            assert numba.get_num_threads() == 1
        assert numba.get_num_threads() == 2
        with tp.use_threads(5000) as n:
            assert n == 2 and tp.get_threads() == 2
    finally:
        numba.set_num_threads(previous)


@two_threads
def test_batch_kernels_run_on_the_policys_threads(policy):
    tp.set_mode("batch")
    tp.set_parallel_min_batch(8)
    seen = []
    real = batch_module.BatchEnv._run_step_batch

    def spy(self, acts, opponent=None):
        seen.append(numba.get_num_threads())
        return real(self, acts, opponent)

    policy.setattr(batch_module.BatchEnv, "_run_step_batch", spy)
    previous = numba.get_num_threads()
    numba.set_num_threads(2)
    try:
        for size in (4, 8):
            batch = mg.make_batch("century", size, 2, seed=3)
            batch.reset()
            batch.step(batch.legal_mask.argmax(axis=1))
    finally:
        numba.set_num_threads(previous)
    assert seen == [1, 2]


def _play(size, steps=30):
    batch = mg.make_batch("century", size, 2, seed=11)
    obs = [batch.reset()[:4]]
    for _ in range(steps):
        mask = batch.legal_mask
        acts = (mask * np.arange(mask.shape[1])[::-1]).argmax(axis=1)  # a fixed legal pick
        obs.append(batch.step(acts)[0][:4])
    return np.stack(obs), batch.random_rollout(20)


@two_threads
def test_every_policy_plays_the_same_games(policy):
    previous = numba.get_num_threads()
    numba.set_num_threads(2)
    try:
        results = []
        for mode, free in (("fixed", 2.0), ("auto", 1.0), ("auto", 2.0)):
            tp.set_mode(mode)
            tp.set_parallel_min_batch(8)
            policy.setattr(tp._load, "free_cores", lambda free=free: free)
            results.append([_play(4), _play(64)])
    finally:
        numba.set_num_threads(previous)
    for other in results[1:]:
        for (obs_a, roll_a), (obs_b, roll_b) in zip(results[0], other, strict=True):
            assert np.array_equal(obs_a, obs_b)
            for key in roll_a:
                assert np.array_equal(roll_a[key], roll_b[key])


@two_threads
@pytest.mark.parametrize("fast", [True, False], ids=["numba-c-calls", "public-api-fallback"])
def test_both_thread_count_paths_set_and_restore(policy, fast):
    # The fenced fast path (Numba's C functions) and the public-API fallback behave alike.
    mg.make_batch("century", 2, 2).reset()  # start Numba's pool
    saved = dict(tp._raw)
    tp._raw.clear()
    if not fast:
        policy.setenv("MEEPLE_GYM_PLAIN_NUMBA", "1")
    assert tp.fast_calls_active() is fast
    tp.set_mode("batch")
    tp.set_parallel_min_batch(100)
    previous = numba.get_num_threads()
    numba.set_num_threads(2)
    try:
        assert tp.get_threads() == 2
        with tp.use_threads(10) as n:
            assert n == 1 and numba.get_num_threads() == 1 and tp.get_threads() == 1
        assert numba.get_num_threads() == 2
    finally:
        numba.set_num_threads(previous)
        tp._raw.clear()
        tp._raw.update(saved)
