"""Ray backend: games/s on 1 and 2 Ray workers, and Ray's cost against the local run.

    python benchmarks/bench_ray.py                # writes benchmarks/results/ray.json
    python benchmarks/bench_ray.py --quick --json # smaller runs, JSON on stdout

Two workloads, each played locally and on a local Ray (``ray.init(num_cpus=2)``) with 1 and
2 workers, on the same seed, and checked to give the same games:

- ``random``: uniform-random self-play in the Numba kernel (``meeple rollout``); the local
  reference is ``BatchEnv.random_rollout`` on 1 and 2 Numba threads;
- ``match``: heuristic vs random through the batch env (``meeple eval``), one Ray task per
  batch of ``max_batch`` games; the local reference is ``play_match``.

Each figure is the best of ``--repeats`` runs (the machine may be shared). Ray's start-up
(``ray.init``) and its first task (worker processes importing meeple_gym and loading the
kernels) are timed separately and left out of the games/s figures.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import numba
import numpy as np

import meeple_gym as mg
from meeple_gym import distributed
from meeple_gym.baselines.evaluate import play_match
from meeple_gym.core.warmup import ensure_warm

OUT = Path(__file__).resolve().parent / "results" / "ray.json"


def best_of(repeats, fn):
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result


def same(a: dict, b: dict) -> bool:
    keys = [k for k in a if k != "meta"]
    return all(np.array_equal(a[k], b[k]) and a[k].dtype == b[k].dtype for k in keys)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="century")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="print the JSON")
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args(argv)

    import ray

    game, players = args.game, args.players
    random_games = 4_000 if args.quick else 40_000
    match_games, max_batch = (2_048, 512) if args.quick else (16_384, 2_048)
    agents = ["heuristic", "random"]
    ensure_warm([game], parts=("batch", "rollout"))
    seed = 0

    def log(msg):
        print(f"[bench_ray] {msg}", flush=True)

    result = {
        "game": game,
        "players": players,
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "numba": numba.__version__,
            "ray": ray.__version__,
            "numba_threads": numba.config.NUMBA_NUM_THREADS,
            "threading_layer": os.environ.get("NUMBA_THREADING_LAYER", "tbb (default)"),
            "loadavg_before": list(os.getloadavg()),
        },
        "repeats": args.repeats,
    }

    # Local references.
    batch = mg.make_batch(game, 1, players, seed=seed)
    batch.random_rollout(64)  # load the kernel outside the timing
    local = {}
    for threads in (1, 2):
        t, ref = best_of(args.repeats, lambda th=threads: batch.random_rollout(random_games, th))
        local[threads] = t
        log(f"random, local kernel, {threads} thread(s): {random_games / t:,.0f} games/s")
    t_match_local, match_ref = best_of(
        args.repeats,
        lambda: play_match(game, players, agents, match_games, seed, False, max_batch),
    )
    log(f"match, local play_match: {match_games / t_match_local:,.0f} games/s")

    # Ray: start-up and first task, then the same runs on 1 and 2 workers.
    start = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, logging_level="warning")
    init_s = time.perf_counter() - start
    start = time.perf_counter()
    distributed.rollout(game, players, 64, seed, backend="ray", num_workers=2, shard_games=32)
    first_s = time.perf_counter() - start
    log(f"ray.init {init_s:.1f} s; first tasks (workers start, load kernels) {first_s:.1f} s")

    rows = {"random": [], "match": []}
    for workers in (1, 2):
        t, out = best_of(
            args.repeats,
            lambda w=workers: distributed.rollout(
                game, players, random_games, seed, backend="ray", num_workers=w
            ),
        )
        if not same(ref, out):
            raise SystemExit("ray random rollout differs from the local one")
        rows["random"].append(
            {
                "workers": workers,
                "tasks": distributed.SHARDS_PER_WORKER * workers,
                "seconds": t,
                "games_per_s": random_games / t,
                "local_seconds": local[workers],
                "local_games_per_s": random_games / local[workers],
                "ray_over_local": t / local[workers],
                "overhead_s": t - local[workers],
            }
        )
        log(
            f"random, ray {workers} worker(s): {random_games / t:,.0f} games/s "
            f"({t / local[workers]:.2f}x the local time on {workers} thread(s))"
        )
        t, got = best_of(
            args.repeats,
            lambda w=workers: distributed.play_match(
                game,
                players,
                agents,
                match_games,
                seed,
                False,
                max_batch,
                backend="ray",
                num_workers=w,
            ),
        )
        if got != match_ref:
            raise SystemExit("ray match differs from the local one")
        rows["match"].append(
            {
                "workers": workers,
                "tasks": -(-match_games // max_batch),
                "seconds": t,
                "games_per_s": match_games / t,
                "local_seconds": t_match_local,
                "local_games_per_s": match_games / t_match_local,
                "ray_over_local": t / t_match_local,
            }
        )
        log(
            f"match, ray {workers} worker(s): {match_games / t:,.0f} games/s "
            f"({t / t_match_local:.2f}x the local time)"
        )
    ray.shutdown()

    result.update(
        {
            "random": {"games": random_games, "rows": rows["random"]},
            "match": {
                "agents": agents,
                "games": match_games,
                "max_batch": max_batch,
                "rows": rows["match"],
            },
            "ray_init_s": init_s,
            "ray_first_tasks_s": first_s,
            "identical_to_local": True,
        }
    )
    result["machine"]["loadavg_after"] = list(os.getloadavg())
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
        log(f"written to {args.out}")
    if args.json:
        print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
