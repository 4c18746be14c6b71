"""Radlands' rules kernel alone across its history: which change cost what.

    python benchmarks/radlands_kernel_history.py [--rounds 5] [--seconds 0.5]
        [--trees old=7823bf4 rules=41802d4 measured=6256fca head=HEAD]

Each tree is exported with ``git archive`` (trees from before the single import name run as
``envs`` from their source root, later ones in the installed ``meeple_gym`` layout, as in
``compare_trees.py``) and run from PYTHONPATH over the current environment, so every side uses
the same Python, Numba and NumPy. Every tree runs on both threading layers (OpenMP and TBB,
``NUMBA_THREADING_LAYER``; TBB's library is loaded from the ``tbb`` package first, as
``meeple_gym.core.threads`` does), in a fresh process each, and the process reports the layer
Numba actually used.

The figure is the tree's own ``bench.kernel_step``: uniform-random self-play through Radlands'
``step_batch`` kernel, batch 1024, 2 players, 1 and 2 threads; steps per second of process CPU
time on 1 thread (robust to the load of a shared machine), per wall second on 2. The
variants alternate in ``--rounds`` rounds (one process per variant per round) so that the
load of a shared machine falls on all of them; the medians are reported. Each tree also
reports its mean random game length (``bench.rollout``, 2 players, 1 thread), since a step
that ends a game also pays for the reset. Writes ``results/radlands_kernel.json``.

``--installed NAME=PYTHON:CACHE_DIR`` measures installed trees instead (a venv each, with a
warm kernel cache), e.g. main against a branch. ``--profile`` splits a step of the installed
meeple_gym (1 thread, batch 1024, process CPU time) into the rules step with its mask
refresh, the mask alone, and the random policy, and the mask by phase.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = Path(__file__).parent / "results" / "radlands_kernel.json"

# The 4.5M figure's tree; the last commit with the rule fixes and OpenMP; the tree of the
# 2.55M figure (rule fixes, hardening, TBB); today's.
DEFAULT_TREES = ("old=7823bf4", "rules=41802d4", "measured=6256fca", "head=HEAD")
LAYERS = ("omp", "tbb")

CHILD = """
import ctypes, importlib, json, os, sys, time, types
from importlib import metadata
if os.environ["NUMBA_THREADING_LAYER"] == "tbb":
    # Numba's TBB layer finds libtbb only on the loader's path; load the wheel's copy first.
    for f in metadata.distribution("tbb").files or ():
        if f.name == "libtbb.so.12":
            ctypes.CDLL(str(f.locate()), mode=ctypes.RTLD_GLOBAL)
import numba
pkg = {pkg!r}
bench = importlib.import_module(pkg + ".bench")
out = {{}}
wall = bench.time
for t in (1, 2):
    # 1 thread: seconds of process CPU time (the load of a shared machine barely moves it);
    # 2 threads: wall seconds, as the bench takes them.
    bench.time = wall if t == 2 else types.SimpleNamespace(perf_counter=time.process_time)
    r = bench.kernel_step("radlands", 2, batch_sizes=(1024,), threads=(t,), seconds={seconds})
    out[str(t)] = r["best_steps_per_s"]
out["layer"] = numba.threading_layer()
out["file"] = bench.__file__
if {length}:
    runs = bench.rollout("radlands", player_counts=(2,), threads=(1,), seconds=1.0)["runs"]
    out["mean_length"] = runs[0]["mean_length"]
    out["rollout_games_per_s"] = runs[0]["games_per_s"]
print(json.dumps(out))
"""


def export(rev: str, dest: Path) -> tuple[Path, str]:
    """``rev`` under ``dest``; returns its PYTHONPATH entry and package name."""
    src = dest / "src"
    src.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    if "meeple_gym" not in (src / "pyproject.toml").read_text():
        return src, "envs"
    tree = dest / "tree"
    tree.mkdir()
    os.rename(src / "envs", tree / "meeple_gym")
    for name in ("encoders", "baselines"):
        os.rename(src / name, tree / "meeple_gym" / name)
    return tree, "meeple_gym"


def run(path, pkg: str, layer: str, cache: Path, seconds: float, length: bool, python=None):
    """One fresh process of a tree (``path`` on PYTHONPATH) or of an installed interpreter
    (``path`` None, ``python`` its executable)."""
    env = dict(
        os.environ,
        PYTHONPATH=str(path or ""),
        MEEPLE_GYM_CACHE_DIR=str(cache),
        NUMBA_CACHE_DIR=str(cache / "numba"),
        NUMBA_THREADING_LAYER=layer,
        NUMBA_NUM_THREADS="2",
    )
    code = CHILD.format(pkg=pkg, seconds=seconds, length=length)
    done = subprocess.run(
        [python or sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=path
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr[-3000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def profile(size: int = 1024, seed: int = 0) -> dict:
    """Where a kernel step's time goes in the installed meeple_gym (1 thread)."""
    import time

    import numba
    import numpy as np

    import meeple_gym as mg
    from meeple_gym.core.sampling import policy_words, random_legal_actions
    from meeple_gym.radlands import rules

    numba.set_num_threads(1)
    spec = mg.get_spec("radlands")
    states = np.zeros(size, dtype=spec.state_dtype)
    episodes = np.zeros(size, dtype=np.int64)
    masks = np.zeros((size, spec.num_actions), dtype=np.int8)
    rewards = np.zeros((size, spec.max_players), dtype=np.float32)
    flags = [np.zeros(size, dtype=np.bool_) for _ in range(2)]
    scores = np.zeros((size, spec.seats(2)), dtype=np.int32)
    lengths = np.zeros(size, dtype=np.int64)
    finals = np.zeros(size, dtype=spec.state_dtype)
    options = spec.options_code(spec.options, 2)
    seed64 = np.uint64(seed)
    spec.reset_batch(states, 2, seed64, 0, episodes, options)
    spec.legal_masks_batch(states, masks)
    words = policy_words(seed, size)
    actions = np.empty(size, dtype=np.int64)
    no_seats = np.full(size, -1, dtype=np.int64)
    no_words = np.zeros(size, dtype=np.uint64)

    def policy():
        random_legal_actions(masks, words, actions)

    def rules_step():
        spec.step_batch(states, actions, masks, rewards, *flags, 2, seed64, episodes, scores,
                        lengths, finals, options, no_seats, no_seats, no_words)  # fmt: skip

    def per_game_ns(fn, n=100, count=size):
        best = float("inf")
        for _ in range(5):
            start = time.process_time()
            for _ in range(n):
                fn()
            best = min(best, (time.process_time() - start) / n)
        return best / count * 1e9

    for _ in range(300):  # past the draft, into the mix of a running batch
        policy()
        rules_step()
    phases = []
    for _ in range(200):
        phases.append(states["phase"].copy())
        policy()
        rules_step()
    phases = np.concatenate(phases)
    out = {
        "phase_share": {
            name: float((phases == getattr(rules, f"PHASE_{name.upper()}")).mean())
            for name in ("draft", "actions", "decision")
        },
        "step_ns": per_game_ns(lambda: (policy(), rules_step())),
        "mask_ns": per_game_ns(lambda: spec.legal_masks_batch(states, masks)),
        "policy_ns": per_game_ns(policy),
    }
    for name in ("actions", "decision"):
        some = states[states["phase"] == getattr(rules, f"PHASE_{name.upper()}")].copy()
        room = np.zeros((len(some), spec.num_actions), np.int8)
        fn = functools.partial(spec.legal_masks_batch, some, room)
        out[f"mask_ns_{name}"] = per_game_ns(fn, count=max(len(some), 1))
    return out


def summarize(results: dict, out: Path) -> None:
    for row in results["variants"].values():
        row["median_1"] = statistics.median(row["1"])
        row["median_2"] = statistics.median(row["2"])
    results["rounds"] = len(results["load"])
    out.write_text(json.dumps(results, indent=2) + "\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--trees", nargs="+", help=f"NAME=REV ... (default {DEFAULT_TREES})")
    parser.add_argument(
        "--installed",
        nargs="+",
        default=[],
        help="NAME=PYTHON:CACHE_DIR ...: installed trees (venvs with warm caches), measured "
        "alongside or instead of --trees",
    )
    parser.add_argument("--layers", nargs="+", default=list(LAYERS))
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=0.5)
    parser.add_argument("--workdir", help="keep exported trees and their caches here (reused)")
    parser.add_argument("--profile", action="store_true", help="profile the installed tree")
    args = parser.parse_args()
    if args.profile:
        print(json.dumps(profile(), indent=2))
        return
    if args.trees is None:
        args.trees = [] if args.installed else list(DEFAULT_TREES)
    trees = dict(item.split("=", 1) for item in args.trees)
    installed = {}
    for item in args.installed:
        name, spec = item.split("=", 1)
        python, cache = spec.rsplit(":", 1)
        installed[name] = (python, Path(cache))
    results: dict = {"trees": {}, "variants": {}, "load": []}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(args.workdir or tmp)
        exported = {}
        for name, rev in trees.items():
            if (work / name / "src").exists():
                path = work / name / ("tree" if (work / name / "tree").exists() else "src")
                pkg = "meeple_gym" if path.name == "tree" else "envs"
            else:
                path, pkg = export(rev, work / name)
            exported[name] = (path, pkg, work / name / "cache")
        # Compile (or fill the cache) and take the game length outside the timed rounds, all
        # trees at once: on a shared machine a serial first compile of four trees is slow.
        with ThreadPoolExecutor(max(len(trees), 1)) as pool:
            firsts = dict(
                zip(
                    trees,
                    pool.map(lambda v: run(v[0], v[1], "omp", v[2], 0.05, True), exported.values()),
                    strict=True,
                )
            )
        for name, rev in trees.items():
            sha = subprocess.run(
                ["git", "-C", str(ROOT), "rev-parse", "--short", rev],
                check=True,
                capture_output=True,
                text=True,
            ).stdout.strip()
            results["trees"][name] = {"rev": rev, "commit": sha, **firsts[name]}
            print(name, sha, json.dumps(firsts[name]), flush=True)
        for name, (python, cache) in installed.items():
            first = run(None, "meeple_gym", "omp", cache, 0.05, True, python)
            results["trees"][name] = {"python": python, **first}
            print(name, python, json.dumps(first), flush=True)
        for _ in range(args.rounds):
            results["load"].append(os.getloadavg()[0])
            for name in [*trees, *installed]:
                for layer in args.layers:
                    key = f"{name}/{layer}"
                    if name in trees:
                        path, pkg, cache = exported[name]
                        got = run(path, pkg, layer, cache, args.seconds, False)
                        where = str(path)
                    else:
                        python, cache = installed[name]
                        got = run(None, "meeple_gym", layer, cache, args.seconds, False, python)
                        where = results["trees"][name]["file"]
                    if got["layer"] != layer or got["file"] != where and name in installed:
                        raise RuntimeError(f"{key} ran on {got['layer']} from {got['file']}")
                    if name in trees and not got["file"].startswith(where):
                        raise RuntimeError(f"{key} ran from {got['file']}")
                    row = results["variants"].setdefault(key, {"1": [], "2": []})
                    for t in ("1", "2"):
                        row[t].append(round(got[t]))
            print("round done, load", results["load"][-1], flush=True)
            summarize(results, args.out)  # after every round: a busy machine may cut it short
    for key, row in results["variants"].items():
        print(f"{key:16} 1 thread {row['median_1']:>10,.0f}  2 threads {row['median_2']:>10,.0f}")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
