"""Everdell: where a batched step's time goes, and the compact observation against the full one.

    python benchmarks/bench_everdell_obs.py [--batch 1024 4096] [--threads 1 2] [--rounds 3]

Interleaved in one run (each round times every part once, in turn; medians over rounds), so
the machine's load hits every part alike. Parts, per batch size and thread count:

- ``step_full`` / ``step_compact``: ``BatchEnv.step`` with random legal actions, as ``meeple
  bench`` times it (``observation="full"`` / ``"compact"``);
- ``rules``: ``step_batch`` alone (rules, auto-reset and the new masks; no observation);
- ``masks``: ``legal_masks_batch`` alone (the masks part of ``rules``);
- ``encode_full`` / ``encode_compact``: ``encode_batch`` alone on the same states.

Shares: ``encode_full`` time over ``step_full`` time is the share spent on observations; the
rest is the rules (with masks) and the Python/checks around them. Writes
benchmarks/results/everdell_obs.json and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numba  # noqa: E402
import numpy as np  # noqa: E402

import meeple_gym as mg  # noqa: E402
from meeple_gym.core.sampling import policy_words, random_legal_actions  # noqa: E402

GAME = "everdell"


def _timed(fn, seconds: float) -> float:
    """Calls per second of ``fn`` over about ``seconds`` (at least 3 calls)."""
    n, start = 0, time.perf_counter()
    while True:
        fn()
        n += 1
        elapsed = time.perf_counter() - start
        if n >= 3 and elapsed >= seconds:
            return n / elapsed


def _parts(size: int, players: int, seed: int) -> dict:
    """name -> callable doing one batch-wide operation on ``size`` games."""
    parts = {}
    for obs in ("full", "compact"):
        batch = mg.make_batch(GAME, size, players, seed, copy=False, observation=obs)
        batch.reset()
        words = policy_words(seed, size)
        actions = np.empty(size, dtype=np.int64)

        def step(batch=batch, words=words, actions=actions):
            random_legal_actions(batch.legal_mask, words, actions)
            batch.step(actions)

        for _ in range(50):  # into mid-game positions for the encode-only parts
            step()
        parts[f"step_{obs}"] = step
        out = np.zeros((size, batch.spec.obs_size), np.float32)
        states, seats = batch.get_states(), batch.current_player.astype(np.int64)
        parts[f"encode_{obs}"] = lambda e=batch.spec.encode_batch, s=states, p=seats, o=out: e(
            s, p, o
        )
    spec = mg.get_spec(GAME)
    masks = np.zeros((size, spec.num_actions), np.int8)
    parts["masks"] = lambda: spec.legal_masks_batch(states, masks)
    parts["rules"] = _rules_step(spec, size, players, seed)
    return parts


def _rules_step(spec, size, players, seed):
    """``step_batch`` alone, as envs/bench.py ``kernel_step`` drives it."""
    seed64 = np.uint64(seed)
    options = spec.options_code(spec.options, players)
    states = np.zeros(size, dtype=spec.state_dtype)
    episodes = np.zeros(size, dtype=np.int64)
    masks = np.zeros((size, spec.num_actions), dtype=np.int8)
    rewards = np.zeros((size, spec.max_players), dtype=np.float32)
    term = np.zeros(size, dtype=np.bool_)
    trunc = np.zeros(size, dtype=np.bool_)
    scores = np.zeros((size, spec.seats(players)), dtype=np.int32)
    lengths = np.zeros(size, dtype=np.int64)
    finals = np.zeros(size, dtype=spec.state_dtype)
    spec.reset_batch(states, players, seed64, 0, episodes, options)
    spec.legal_masks_batch(states, masks)
    words = policy_words(seed, size)
    actions = np.empty(size, dtype=np.int64)
    off = np.full(size, -1, dtype=np.int64)
    no_words = np.zeros(size, dtype=np.uint64)

    def step():
        random_legal_actions(masks, words, actions)
        spec.step_batch(
            states, actions, masks, rewards, term, trunc, players, seed64, episodes,
            scores, lengths, finals, options, off, off, no_words,
        )  # fmt: skip

    return step


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--batch", type=int, nargs="+", default=[1024, 4096])
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=0.6)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "everdell_obs.json"))
    args = ap.parse_args(argv)
    rows = []
    for size in args.batch:
        parts = _parts(size, args.players, 0)
        for t in args.threads:
            numba.set_num_threads(t)
            rates = {name: [] for name in parts}
            for fn in parts.values():
                fn()  # warm at this thread count
            for _ in range(args.rounds):
                for name, fn in parts.items():
                    rates[name].append(_timed(fn, args.seconds) * size)
            med = {name: statistics.median(r) for name, r in rates.items()}
            row = {"batch": size, "threads": t, "steps_per_s": med, "all": rates}
            # Shares of one full step's time (1/rate is the time per game-step).
            row["share_obs_full"] = med["step_full"] / med["encode_full"]
            row["share_rules"] = med["step_full"] / med["rules"]
            row["share_masks"] = med["step_full"] / med["masks"]
            rows.append(row)
            print(
                f"batch {size:5d} threads {t}: "
                + ", ".join(f"{k} {v / 1e6:.3f}M" for k, v in med.items())
                + f" | share of a full step: observation {row['share_obs_full']:.0%}, rules"
                f"+masks {row['share_rules']:.0%} (masks {row['share_masks']:.0%})",
                flush=True,
            )
    result = {"game": GAME, "load": os.getloadavg(), "rows": rows, "argv": sys.argv[1:]}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(f"load average {result['load']}; written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
