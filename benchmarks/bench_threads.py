"""Threads under load: BatchEnv.step steps/s on 1 and 2 Numba threads, before and after a
change (two git revisions), with and without a second busy process, in alternating rounds.

    python benchmarks/bench_threads.py main threads --games radlands everdell \
        [--sizes 1 4 16 64 256 1024 4096] [--rounds 3] [--busy both] [--workdir DIR]

Each revision is exported like benchmarks/compare_trees.py does (or, given as
``python:/path/to/python``, that interpreter's installed meeple-gym runs, with the kernel cache
``--cache-before``/``--cache-after``: no compile when those hold the kernels) and measured in
a fresh child process per (round, side, load): ``meeple_gym.bench.batched_step`` (random legal
actions, ``copy=False``) for every batch size and 1 or 2 threads, 0.3 s a cell. The "fixed"
side runs the after tree with ``MEEPLE_GYM_THREADS=fixed`` (no policy: every kernel on the
requested count), which shows where 2 threads start to pay, i.e. the batch threshold.
"busy" starts ``python -c "while True: pass"`` for the time of the child and kills it after.
Medians over rounds are printed and written to ``results/threads.json`` with the load
average at each run.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from compare_trees import prepare_sides  # noqa: E402

OUT = Path(__file__).parent / "results" / "threads.json"

CHILD = """
import json, os
from meeple_gym import bench
out = {{}}
for game in {games!r}:
    r = bench.batched_step(game, 2, batch_sizes={sizes!r}, threads=(1, 2), seconds=0.3)
    out[game] = [[x["batch_size"], x["threads"], x["steps_per_s"], x.get("policy_threads")]
                 for x in r["runs"]]
out["load"] = os.getloadavg()[0]
print(json.dumps(out))
"""


def measure(side: tuple, games, sizes, busy: bool, mode: str | None) -> dict:
    python, tree, cache = side
    env = dict(os.environ, MEEPLE_GYM_CACHE_DIR=cache)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    env.pop("MEEPLE_GYM_THREADS", None)
    if mode:
        env["MEEPLE_GYM_THREADS"] = mode
    hog = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if busy else None
    try:
        done = subprocess.run(
            [python, "-c", CHILD.format(games=list(games), sizes=list(sizes))],
            env=env,
            capture_output=True,
            text=True,
            cwd=tree or Path(cache).parent,
        )
    finally:
        if hog is not None:
            hog.kill()
            hog.wait()
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def median(values):
    values = sorted(values)
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--games", nargs="+", default=["radlands", "everdell"])
    parser.add_argument("--sizes", nargs="+", type=int, default=[1, 4, 16, 64, 256, 1024, 4096])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--busy", choices=["yes", "no", "both"], default="both")
    parser.add_argument("--no-fixed", action="store_true", help="skip the fixed-threads side")
    parser.add_argument("--workdir", help="keep trees and kernel caches here between runs")
    parser.add_argument(
        "--before-mode",
        choices=["auto", "batch", "fixed"],
        help="MEEPLE_GYM_THREADS for the before side (e.g. the after tree without its policy)",
    )
    parser.add_argument("--cache-before", help="kernel cache of a python: side")
    parser.add_argument("--cache-after", help="kernel cache of a python: side")
    args = parser.parse_args()
    loads = {"yes": [True], "no": [False], "both": [False, True]}[args.busy]
    work = Path(args.workdir or tempfile.mkdtemp(prefix="bench-threads-"))
    work.mkdir(parents=True, exist_ok=True)
    trees = prepare_sides(args, work)
    sides = [("before", args.before_mode), ("after", None)] + (
        [] if args.no_fixed else [("fixed", "fixed")]
    )
    raw = []
    for rnd in range(args.rounds):
        for busy in loads:
            for side, mode in sides:
                tree = trees["before" if side == "before" else "after"]
                got = measure(tree, args.games, args.sizes, busy, mode)
                raw.append({"round": rnd, "busy": busy, "side": side, **got})
                print(f"round {rnd} busy={busy} {side}: load {got['load']:.2f}", flush=True)
    table = {}
    for game in args.games:
        for busy in loads:
            for side, _ in sides:
                for size in args.sizes:
                    for t in (1, 2):
                        rates = [
                            cell[2]
                            for r in raw
                            if r["busy"] == busy and r["side"] == side
                            for cell in r[game]
                            if cell[0] == size and cell[1] == t
                        ]
                        chosen = [
                            cell[3]
                            for r in raw
                            if r["busy"] == busy and r["side"] == side
                            for cell in r[game]
                            if cell[0] == size and cell[1] == t
                        ]
                        key = f"{game} busy={busy} {side} batch={size} threads={t}"
                        table[key] = {"median": median(rates), "policy_threads": chosen}
    for game in args.games:
        for busy in loads:
            print(f"\n{game}, {'with' if busy else 'without'} a busy process (steps/s, median)")
            head = "".join(f"{f'{side} {t}T':>14}" for side, _ in sides for t in (1, 2))
            print(f"  batch{head}")
            for size in args.sizes:
                cells = "".join(
                    f"{table[f'{game} busy={busy} {side} batch={size} threads={t}']['median']:>14,.0f}"  # noqa: E501
                    for side, _ in sides
                    for t in (1, 2)
                )
                print(f"  {size:>5}{cells}")
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps({"args": vars(args), "runs": raw, "medians": table}, indent=1) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
