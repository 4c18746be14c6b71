"""Peak memory (RSS) of `meeple rollout --observations --out FILE` over a number of games,
before and after, in one run: each measurement is a fresh process, its peak read from
``os.wait4``'s rusage (ru_maxrss), the two trees alternated.

    python benchmarks/bench_rollout_memory.py --games 200 2000 \
        --base-python /work/venv/bin/python --base-cache /work/cache-stream-base

The base tree (the one before the change) keeps every decision in memory: above
``--base-max-games`` it is not run, so as not to exhaust a shared machine's memory.
Writes benchmarks/results/rollout_memory.json and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results" / "rollout_memory.json"


def measure(python: str, cache: str, games: int, game: str, folder: str) -> dict:
    out = os.path.join(folder, f"rollout-{games}.npz")
    argv = [python, "-m", "meeple_gym.cli", "rollout", "--game", game, "--players", "2"]
    argv += ["--games", str(games), "--agents", "random", "--observations", "--json"]
    argv += ["--out", out]
    env = {**os.environ, "MEEPLE_GYM_CACHE_DIR": cache}
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    stdout = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed with status {proc.returncode}")
    summary = json.loads(stdout)
    row = {
        "games": games,
        "peak_rss_mb": usage.ru_maxrss / 1024,  # kilobytes on Linux
        "wall_s": wall,
        "decisions": summary.get("decisions"),
        "file_mb": os.path.getsize(out) / 2**20,
    }
    os.unlink(out)
    return row


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, nargs="+", default=[200, 2000])
    parser.add_argument("--game", default="century")
    parser.add_argument("--base-python", default="/work/venv/bin/python")
    parser.add_argument("--base-cache", default=os.path.expanduser("~/.cache/meeple-gym-base"))
    parser.add_argument("--new-python", default=sys.executable)
    parser.add_argument("--new-cache", default=os.environ.get("MEEPLE_GYM_CACHE_DIR", ""))
    parser.add_argument("--base-max-games", type=int, default=500)
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args(argv)
    rows = []
    load_start = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="meeple-rollout-memory-") as folder:
        for games in args.games:
            trees = [("before", args.base_python, args.base_cache)]
            if games > args.base_max_games:
                trees = []
            trees.append(("after", args.new_python, args.new_cache or None))
            for tree, python, cache in trees:
                row = {"tree": tree, **measure(python, cache or "", games, args.game, folder)}
                rows.append(row)
                print(
                    f"{tree:<7} {games:>7} games  peak RSS {row['peak_rss_mb']:8.0f} MB  "
                    f"{row['wall_s']:7.1f} s  {row['decisions']} decisions  "
                    f"file {row['file_mb']:.0f} MB",
                    flush=True,
                )
    result = {
        "command": "meeple rollout --game GAME --players 2 --games N --agents random "
        "--observations --out FILE --json",
        "game": args.game,
        "load_average_start": load_start,
        "load_average_end": os.getloadavg(),
        "base_max_games": args.base_max_games,
        "rows": rows,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(f"load average {load_start} -> {result['load_average_end']}; written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
