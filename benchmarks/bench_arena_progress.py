"""Wall time of a match with its progress bar on, before and after the bar that moves at
every step, in one run: the two trees alternated, warm kernel caches, the bar drawn to a
pipe that is thrown away (tqdm still formats it). The bar must not make matches slower.

    python benchmarks/bench_arena_progress.py --base-python /work/venv/bin/python \
        --base-cache /work/cache-stream-base --repeats 3 -- eval --games 200

Everything after ``--`` is the ``meeple`` command (default: ``eval --games 200``, Century
heuristic vs random). Writes benchmarks/results/arena_progress.json and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results" / "arena_progress.json"


def run(python: str, cache: str, command: list[str]) -> float:
    argv = [python, "-m", "meeple_gym.cli", *command]
    start = time.perf_counter()
    subprocess.run(
        argv,
        env={**os.environ, "MEEPLE_GYM_CACHE_DIR": cache},
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,  # the bar is drawn, then dropped
    )
    return time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-python", default="/work/venv/bin/python")
    parser.add_argument("--base-cache", default=os.path.expanduser("~/.cache/meeple-gym-base"))
    parser.add_argument("--new-python", default=sys.executable)
    parser.add_argument("--new-cache", default=os.environ.get("MEEPLE_GYM_CACHE_DIR", ""))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", default=str(RESULTS))
    parser.add_argument("command", nargs="*", default=["eval", "--games", "200"])
    args = parser.parse_args(argv)
    trees = {
        "before": (args.base_python, args.base_cache),
        "after": (args.new_python, args.new_cache),
    }
    for python, cache in trees.values():
        run(python, cache, args.command)  # warm the caches (and the disk) first, not timed
    rows = []
    load_start = os.getloadavg()
    for rep in range(args.repeats):
        for tree, (python, cache) in trees.items():
            wall = run(python, cache, args.command)
            rows.append({"tree": tree, "repeat": rep, "wall_s": wall})
            print(f"{tree:<7} #{rep}: {wall:6.1f} s", flush=True)
    medians = {
        tree: statistics.median(r["wall_s"] for r in rows if r["tree"] == tree) for tree in trees
    }
    result = {
        "command": "meeple " + " ".join(args.command),
        "load_average_start": load_start,
        "load_average_end": os.getloadavg(),
        "median_wall_s": medians,
        "rows": rows,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(f"median before {medians['before']:.1f} s, after {medians['after']:.1f} s")
    print(f"load average {load_start} -> {result['load_average_end']}; written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
