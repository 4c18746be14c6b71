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

    def local_threads(threads, fn):
        previous = numba.get_num_threads()
        numba.set_num_threads(threads)
        try:
            return fn()
        finally:
            numba.set_num_threads(previous)

    batch = mg.make_batch(game, 1, players, seed=seed)
    batch.random_rollout(64)  # load the kernel outside the timing
    reference = batch.random_rollout(random_games)
    match_reference = play_match(game, players, agents, max_batch, seed, False, max_batch)

    start = time.perf_counter()
    ray.init(num_cpus=2, include_dashboard=False, logging_level="warning")
    init_s = time.perf_counter() - start
    start = time.perf_counter()
    distributed.rollout(game, players, 64, seed, backend="ray", num_workers=2, shard_games=32)
    first_s = time.perf_counter() - start
    log(f"ray.init {init_s:.1f} s; first tasks (workers start, load kernels) {first_s:.1f} s")

    variants = {}
    for n in (1, 2):
        variants[("random", "local", n)] = lambda n=n: local_threads(
            n, lambda: batch.random_rollout(random_games, n)
        )
        variants[("random", "ray", n)] = lambda n=n: distributed.rollout(
            game, players, random_games, seed, backend="ray", num_workers=n
        )
        variants[("match", "local", n)] = lambda n=n: local_threads(
            n, lambda: play_match(game, players, agents, match_games, seed, False, max_batch)
        )
        variants[("match", "ray", n)] = lambda n=n: distributed.play_match(
            game,
            players,
            agents,
            match_games,
            seed,
            False,
            max_batch,
            backend="ray",
            num_workers=n,
        )
    # Round-robin over the variants, best time of each: a load that comes and goes on a
    # shared machine then hits every variant alike.
    best = dict.fromkeys(variants, float("inf"))
    outputs = {}
    for r in range(args.repeats):
        for key, fn in variants.items():
            start = time.perf_counter()
            outputs[key] = fn()
            best[key] = min(best[key], time.perf_counter() - start)
        log(f"round {r + 1}/{args.repeats} done")
    ray.shutdown()

    # The same games everywhere: the random rollouts array by array, the matches as a whole.
    for n in (1, 2):
        if not same(reference, outputs[("random", "ray", n)]):
            raise SystemExit("ray random rollout differs from the local one")
        if outputs[("match", "ray", n)] != outputs[("match", "local", 1)]:
            raise SystemExit("ray match differs from the local one")
    if outputs[("match", "local", 1)]["games"] != match_games or match_reference is None:
        raise SystemExit("unexpected match result")

    rows = {"random": [], "match": []}
    for kind, games in (("random", random_games), ("match", match_games)):
        for n in (1, 2):
            t_ray, t_local = best[(kind, "ray", n)], best[(kind, "local", n)]
            rows[kind].append(
                {
                    "workers": n,
                    "ray_seconds": t_ray,
                    "ray_games_per_s": games / t_ray,
                    "local_threads": n,
                    "local_seconds": t_local,
                    "local_games_per_s": games / t_local,
                    "ray_over_local": t_ray / t_local,
                    "ray_overhead_s": t_ray - t_local,
                }
            )
            log(
                f"{kind}: ray {n} worker(s) {games / t_ray:,.0f} games/s, local {n} thread(s) "
                f"{games / t_local:,.0f} games/s (ray takes {t_ray / t_local:.2f}x)"
            )
        speedup = best[(kind, "ray", 1)] / best[(kind, "ray", 2)]
        log(f"{kind}: ray 2 workers vs 1: {speedup:.2f}x")
        rows[kind + "_ray_speedup_2_vs_1"] = speedup

    result.update(
        {
            "random": {
                "games": random_games,
                "tasks_per_worker": distributed.SHARDS_PER_WORKER,
                "rows": rows["random"],
                "ray_speedup_2_vs_1": rows["random_ray_speedup_2_vs_1"],
            },
            "match": {
                "agents": agents,
                "games": match_games,
                "max_batch": max_batch,
                "tasks": -(-match_games // max_batch),
                "rows": rows["match"],
                "ray_speedup_2_vs_1": rows["match_ray_speedup_2_vs_1"],
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
