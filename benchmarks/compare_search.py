"""ISMCTS speed of two installs side by side: writes benchmarks/results/compare_search.json.

    python benchmarks/compare_search.py --before /work/venv/bin/python \
        --before-cache /work/cache-base --game everdell --positions 16 --rounds 3

Runs ``bench_search.py`` (this checkout's) alternately under the ``--before`` interpreter and
this one (A, B, A, B, ...), ``--rounds`` times, so that a busy machine's load falls on both.
Each run imports the ``meeple_gym`` its interpreter has installed (its path is reported). Per
game and thread count: the median moves/s and sims/s of each side, their ratio (also per
second of process CPU time, steadier on a busy machine), and whether both sides chose the same
move in every position (same seed, same positions).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "results" / "compare_search.json"


def run_side(python: str, cache: str | None, games, positions: int) -> dict:
    env = dict(os.environ)
    if cache:
        env["MEEPLE_GYM_CACHE_DIR"] = cache
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "search.json"
        cmd = [python, str(HERE / "bench_search.py"), "--positions", str(positions)]
        for game in games:
            cmd += ["--game", game]
        subprocess.run(cmd + ["--out", str(out)], env=env, check=True, stdout=subprocess.DEVNULL)
        return json.loads(out.read_text())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="python of the 'before' install")
    parser.add_argument("--before-cache", help="its MEEPLE_GYM_CACHE_DIR")
    parser.add_argument("--game", action="append", required=True)
    parser.add_argument("--positions", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args(argv)
    sides = {"before": [], "after": []}
    loads = [os.getloadavg()[0]]
    for _ in range(args.rounds):
        sides["before"].append(run_side(args.before, args.before_cache, args.game, args.positions))
        sides["after"].append(run_side(sys.executable, None, args.game, args.positions))
        loads.append(os.getloadavg()[0])
    result = {
        "positions": args.positions,
        "rounds": args.rounds,
        "load_1min": loads,
        "packages": {k: v[0]["package"] for k, v in sides.items()},
        "games": {},
    }
    for game in args.game:
        rows = {}
        first = {k: v[0]["games"][game] for k, v in sides.items()}
        for i, run in enumerate(first["before"]["runs"]):
            row = {}
            for side, results in sides.items():
                per = [r["games"][game]["runs"][i] for r in results]
                row[side] = {
                    "moves_per_s": statistics.median(p["moves_per_s"] for p in per),
                    "sims_per_s": statistics.median(p["sims_per_s"] for p in per),
                    "all_moves_per_s": [p["moves_per_s"] for p in per],
                    "cpu_moves_per_s": statistics.median(p["cpu_moves_per_s"] for p in per),
                }
            row["speedup"] = round(row["after"]["moves_per_s"] / row["before"]["moves_per_s"], 2)
            cpu = row["after"]["cpu_moves_per_s"] / row["before"]["cpu_moves_per_s"]
            row["cpu_speedup"] = round(cpu, 2)
            rows[f"{run['threads']}_threads"] = row
        same = all(
            r["games"][game]["actions"] == first["before"]["actions"]
            for results in sides.values()
            for r in results
        )
        result["games"][game] = {"agent": first["after"]["agent"], "same_moves": same, **rows}
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
