"""Compare two commits of meeple-gym: cold compile CPU seconds and steady step speed, per game.

    python benchmarks/compare_trees.py 64d6bc2 HEAD [--games century radlands] [--rounds 3]

Each commit is exported with ``git archive`` into the installed layout (``envs/`` becomes
``meeple_gym/``, with ``encoders/`` and ``baselines/`` inside it) and run from PYTHONPATH over
the current environment, so both sides use the same Python, Numba and NumPy. Figures:

- compile: CPU seconds (user + sys) of a fresh process with an empty kernel cache that
  compiles the ``single``, ``batch`` and ``rollout`` parts (``meeple_gym.core.warmup``);
- rollout: in-kernel random games per second, 1 thread, 2 players, 64 games a call, best of
  three 1 s runs by process CPU time;
- step: ``BatchEnv.step`` steps per second at batch 1024 on 1 thread
  (``meeple_gym.bench.batched_step``, random legal actions), best of three 1 s runs.

Sides alternate (A, B, A, B, ...) ``--rounds`` times so that a busy machine's load falls on
both. The result is printed and written to ``results/compare_trees.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = Path(__file__).parent / "results" / "compare_trees.json"

COMPILE = """
from meeple_gym.core.warmup import warm_part
for part in ("single", "batch", "rollout"):
    warm_part(({game!r}, part))
"""

STEADY = """
import json, time
import numba
import meeple_gym as mg
from meeple_gym import bench
numba.set_num_threads(1)
game = {game!r}
def best_rate(fn, per_call, runs=3, seconds=1.0):
    rates = []
    for _ in range(runs):
        calls, start = 0, time.process_time()
        while time.process_time() - start < seconds:
            fn()
            calls += 1
        rates.append(calls * per_call / (time.process_time() - start))
    return max(rates)
roller = mg.make_batch(game, 1, 2, seed=1)
roller.random_rollout(64, threads=1)
rollout = best_rate(lambda: roller.random_rollout(64, threads=1), 64)
steps = max(
    bench.batched_step(game, 2, batch_sizes=(1024,), threads=(1,), seconds=1.0)
    ["best_steps_per_s"]
    for _ in range(3)
)
print(json.dumps({{"rollout_games_per_s": rollout, "steps_per_s": steps}}))
"""


def export(rev: str, dest: Path) -> Path:
    """``rev`` in the installed layout under ``dest``; returns the PYTHONPATH entry."""
    src = dest / "src"
    src.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    tree = dest / "tree"
    (tree).mkdir()
    os.rename(src / "envs", tree / "meeple_gym")
    for name in ("encoders", "baselines"):
        os.rename(src / name, tree / "meeple_gym" / name)
    return tree


def prepare_sides(args, work: Path) -> dict:
    """``{"before": (python, tree, cache), "after": ...}`` from ``args.before``/``args.after``:
    a git revision is exported under ``work`` and run by this interpreter with ``PYTHONPATH``
    set to it (tree); ``python:/path/to/python`` runs that interpreter's installed meeple-gym
    (tree None), with the kernel cache ``args.cache_before``/``args.cache_after`` if given."""
    sides = {}
    for side in ("before", "after"):
        rev = getattr(args, side)
        if rev.startswith("python:"):
            cache = getattr(args, f"cache_{side}") or str(work / f"cache-{side}")
            sides[side] = (rev.removeprefix("python:"), None, cache)
            continue
        dest = work / side
        if dest.exists():
            subprocess.run(["rm", "-rf", str(dest)], check=True)
        sides[side] = (sys.executable, export(rev, dest), str(work / f"cache-{side}"))
    return sides


def run(tree: Path, code: str, cache: str) -> tuple[float, str]:
    """CPU seconds of a child python running ``code`` from ``tree``, and its output."""
    env = dict(os.environ, PYTHONPATH=str(tree), MEEPLE_GYM_CACHE_DIR=cache)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=tree
    )
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-2000:])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, done.stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument(
        "--games", nargs="+", default=["century", "endeavor", "radlands", "everdell"]
    )
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    results = {"before": args.before, "after": args.after, "games": {}}
    with tempfile.TemporaryDirectory() as tmp:
        trees = {
            side: export(getattr(args, side), Path(tmp) / side) for side in ("before", "after")
        }
        for game in args.games:
            rows = {side: {"compile_cpu_s": [], "rollout": [], "steps": []} for side in trees}
            warm = {side: tempfile.mkdtemp(dir=tmp) for side in trees}
            for _ in range(args.rounds):
                for side, tree in trees.items():
                    cpu, _ = run(tree, COMPILE.format(game=game), tempfile.mkdtemp(dir=tmp))
                    rows[side]["compile_cpu_s"].append(round(cpu, 1))
            for _ in range(args.rounds):
                for side, tree in trees.items():
                    _, out = run(tree, STEADY.format(game=game), warm[side])
                    figures = json.loads(out.strip().splitlines()[-1])
                    rows[side]["rollout"].append(round(figures["rollout_games_per_s"]))
                    rows[side]["steps"].append(round(figures["steps_per_s"]))
            results["games"][game] = rows
            print(game, json.dumps(rows), flush=True)
    OUT.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
