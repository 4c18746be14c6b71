"""The cost of the per-object lock (envs/core/locking.py) where it weighs most: one game.

    python benchmarks/bench_lock.py                     # every game, 8 s per measurement
    python benchmarks/bench_lock.py --game century --seconds 4 --json

For each game, three loops with random legal actions, each timed with the lock (the public
methods) and without it (the bodies they call once they hold it: ``_step``, ``_last``):

- ``batch``: ``BatchEnv.step`` on a batch of one game (``copy=False``, 1 Numba thread);
- ``vector``: ``BatchVectorEnv.step`` with one row, the random opponent (``copy=False``);
- ``aec``: the PettingZoo loop's ``last()`` and ``step()`` on the raw AEC env
  (``env.unwrapped``, so no PettingZoo wrapper dilutes the figure).

The two variants run in alternating windows of 0.2 s of this thread's CPU time, so a change
of machine load hits both alike; reported are the median steps/s of each and the median of the
per-window-pair slowdowns. ``batch_a_a`` times the unlocked batch loop against itself the same
way: its "slowdown" is the measurement's own noise.

``lock_ns`` is the price of the decorator and an uncontended ``RLock`` on an empty method (the
difference to the same method undecorated), ``shim_ns`` that of the lock as the per-step
methods take it: in the public method, around a call of the body.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numba
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

import meeple_gym as mg  # noqa: E402
from meeple_gym.core.locking import locked, new_lock  # noqa: E402
from meeple_gym.core.sampling import policy_words, random_legal_actions  # noqa: E402
from meeple_gym.core.vector_env import BatchVectorEnv  # noqa: E402

GAMES = ("century", "radlands", "everdell", "endeavor")
WINDOW = 0.2  # seconds of thread CPU time per window


def _rate(step, block: int) -> float:
    """Steps per CPU second of ``step`` over one window."""
    n = 0
    start = time.thread_time()
    while True:
        for _ in range(block):
            step()
        n += block
        elapsed = time.thread_time() - start
        if elapsed >= WINDOW:
            return n / elapsed


def compare(with_lock, without_lock, seconds: float, block: int) -> dict:
    """Alternating windows of the two loops; medians of their rates and of the slowdowns."""
    locked_rates, bare_rates, slowdowns = [], [], []
    for i in range(max(2, round(seconds / (2 * WINDOW)))):
        if i % 2:  # alternate which goes first
            bare, lock = _rate(without_lock, block), _rate(with_lock, block)
        else:
            lock, bare = _rate(with_lock, block), _rate(without_lock, block)
        locked_rates.append(lock)
        bare_rates.append(bare)
        slowdowns.append(bare / lock - 1.0)
    return {
        "steps_per_s_with_lock": round(statistics.median(locked_rates)),
        "steps_per_s_without_lock": round(statistics.median(bare_rates)),
        "slowdown_pct": round(100 * statistics.median(slowdowns), 2),
        "us_per_step": round(1e6 / statistics.median(bare_rates), 2),
    }


def _random_loops(mask, step, bare_step):
    """The locked and the unlocked step loop, each with its own random legal actions."""
    words = policy_words(0, 1)
    actions = np.zeros(1, dtype=np.int64)

    def with_lock():
        random_legal_actions(mask, words, actions)
        step(actions)

    def without_lock():
        random_legal_actions(mask, words, actions)
        bare_step(actions)

    return with_lock, without_lock


def batch_loops(game: str):
    batch = mg.make_batch(game, 1, 2, seed=0, copy=False)
    batch.reset()
    return _random_loops(batch.legal_mask, batch.step, batch._step)


def vector_loops(game: str):
    env = BatchVectorEnv(game, 1, 2, opponent="random", copy=False, autoreset_mode="SameStep")
    env.reset(seed=0)
    return _random_loops(env.batch.legal_mask, env.step, env._step)


def aec_loops(game: str):
    raw = mg.make(game, 2).unwrapped
    raw.reset(seed=0)
    count = [0]

    def play(last, step):
        observation, _, terminated, truncated, _ = last(True)
        if terminated or truncated:
            raw.reset()
            return
        legal = np.flatnonzero(observation["action_mask"])
        count[0] += 1
        step(int(legal[count[0] % legal.size]))

    return (lambda: play(raw.last, raw.step)), (lambda: play(raw._last, raw._step))


class _Empty:
    def __init__(self):
        self._lock = new_lock()

    def bare(self):
        pass

    @locked
    def guarded(self):
        pass

    def shim(self):
        lock = self._lock
        lock.acquire()
        try:
            return self.bare()
        finally:
            lock.release()


def lock_ns(method: str, seconds: float) -> float:
    """Nanoseconds a locked call costs over the same call unlocked (median of windows)."""
    obj = _Empty()
    result = compare(getattr(obj, method), obj.bare, seconds, 10_000)
    return round(1e9 / result["steps_per_s_with_lock"] - 1e9 / result["steps_per_s_without_lock"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", action="append", choices=GAMES)
    parser.add_argument("--seconds", type=float, default=8.0, help="per measurement")
    parser.add_argument("--json", action="store_true", help="print JSON only")
    args = parser.parse_args()
    numba.set_num_threads(1)
    out = {
        "lock_ns": lock_ns("guarded", args.seconds / 2),
        "shim_ns": lock_ns("shim", args.seconds / 2),
        "games": {},
    }
    for game in args.game or GAMES:
        out["games"][game] = {
            "batch": compare(*batch_loops(game), args.seconds, 200),
            "batch_a_a": compare(batch_loops(game)[1], batch_loops(game)[1], args.seconds, 200),
            "vector": compare(*vector_loops(game), args.seconds, 200),
            "aec": compare(*aec_loops(game), args.seconds, 200),
        }
    if args.json:
        print(json.dumps(out, indent=2))
        return
    print(f"lock + decorator on an empty method: {out['lock_ns']} ns per call")
    print(f"lock around a call of the body (per-step methods): {out['shim_ns']} ns per call")
    print(f"{'game':10} {'loop':9} {'without':>10} {'with':>10} {'slowdown':>9} {'us/step':>8}")
    for game, loops in out["games"].items():
        for loop, r in loops.items():
            print(
                f"{game:10} {loop:9} {r['steps_per_s_without_lock']:>10,} "
                f"{r['steps_per_s_with_lock']:>10,} {r['slowdown_pct']:>8.2f}% "
                f"{r['us_per_step']:>8.2f}"
            )


if __name__ == "__main__":
    main()
