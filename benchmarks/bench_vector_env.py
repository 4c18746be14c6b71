"""Vector env overhead: the Gymnasium vector env's learner steps/s against BatchEnv.step's
steps/s (``meeple_gym.bench.vector_env``), before and after a change, alternating.

    python benchmarks/bench_vector_env.py main threads [--games century radlands everdell
        endeavor] [--rounds 3] [--batch-size 1024] [--threads 1 [2]] [--seconds 1.5]
        [--modes NextStep SameStep] [--workdir DIR] [--out FILE]

Each revision is exported as benchmarks/compare_trees.py does (or, given as
``python:/path/to/python``, that interpreter's installed meeple-gym is used, with the kernel
cache ``--cache-before``/``--cache-after``); each round runs one fresh child per side and game:
``--seconds`` (default 1.5) of alternating windows per thread count (``--threads``, default
1), opponent and auto-reset mode (``--modes``, default both). Revisions whose bench knows only
the random opponent report only it. Medians over rounds are printed and
written to ``--out`` (default ``results/vector_env.json``) with the load average of each run.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from compare_trees import prepare_sides  # noqa: E402

OUT = Path(__file__).parent / "results" / "vector_env.json"

CHILD = """
import inspect, json, os
import gymnasium
from meeple_gym import bench
kwargs = dict(batch_size={size}, threads={threads!r}, seconds={seconds!r})
runs = []
if "autoreset_modes" in inspect.signature(bench.vector_env).parameters:
    runs = bench.vector_env({game!r}, autoreset_modes={modes!r}, **kwargs)["runs"]
else:  # an older bench made same-step envs only: force each mode on make_vec
    make_vec = gymnasium.make_vec
    for mode in {modes!r}:
        gymnasium.make_vec = lambda *a, _m=mode, **k: make_vec(*a, **{{**k, "autoreset_mode": _m}})
        for r in bench.vector_env({game!r}, **kwargs)["runs"]:
            runs.append({{**r, "autoreset_mode": mode}})
print(json.dumps({{"load": os.getloadavg()[0], "runs": runs}}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument(
        "--games", nargs="+", default=["century", "radlands", "everdell", "endeavor"]
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=1024)
    parser.add_argument("--threads", type=int, nargs="+", default=[1])
    parser.add_argument("--seconds", type=float, default=1.5)
    parser.add_argument("--modes", nargs="+", default=["NextStep", "SameStep"])
    parser.add_argument("--out", type=Path, default=OUT, help=f"default {OUT}")
    parser.add_argument("--workdir", help="keep trees and kernel caches here between runs")
    parser.add_argument("--cache-before", help="kernel cache of a python: side")
    parser.add_argument("--cache-after", help="kernel cache of a python: side")
    args = parser.parse_args()
    work = Path(args.workdir or tempfile.mkdtemp(prefix="bench-vector-"))
    work.mkdir(parents=True, exist_ok=True)
    trees = prepare_sides(args, work)
    raw = []
    for rnd in range(args.rounds):
        for game in args.games:
            for side, (python, tree, cache) in trees.items():
                env = dict(os.environ, MEEPLE_GYM_CACHE_DIR=cache)
                if tree is not None:
                    env["PYTHONPATH"] = str(tree)
                code = CHILD.format(
                    game=game,
                    size=args.batch_size,
                    threads=tuple(args.threads),
                    seconds=args.seconds,
                    modes=tuple(args.modes),
                )
                done = subprocess.run(
                    [python, "-c", code], env=env, capture_output=True, text=True, cwd=tree or work
                )
                if done.returncode != 0:
                    raise RuntimeError(done.stderr[-2000:])
                got = json.loads(done.stdout.strip().splitlines()[-1])
                raw.append({"round": rnd, "game": game, "side": side, **got})
                for r in got["runs"]:
                    print(
                        f"round {rnd} {game} {side} {r['autoreset_mode']} "
                        f"{r.get('opponent', 'random')} {r['threads']}T: ratio "
                        f"{r['ratio']:.3f}, per game step {r.get('game_step_ratio', 0):.3f} "
                        f"(load {got['load']:.1f})",
                        flush=True,
                    )
    medians = {}
    for game in args.games:
        for side in trees:
            for mode, opponent, threads in itertools.product(
                args.modes, ("random", "self"), args.threads
            ):
                rows = [
                    r
                    for run in raw
                    if run["game"] == game and run["side"] == side
                    for r in run["runs"]
                    if r.get("opponent", "random") == opponent
                    and r["threads"] == threads
                    and r["autoreset_mode"] == mode
                ]
                if not rows:
                    continue
                key = f"{game} {side} {mode} {opponent} {threads}T"
                medians[key] = {
                    field: sorted(r.get(field, 0.0) for r in rows)[len(rows) // 2]
                    for field in (
                        "ratio",
                        "game_step_ratio",
                        "game_steps_per_learner_step",
                        "vector_learner_steps_per_s",
                        "batch_steps_per_s",
                    )
                }
                m = medians[key]
                print(
                    f"{key:<40} ratio {m['ratio']:.2f}  per game step {m['game_step_ratio']:.2f}"
                    f"  ({m['vector_learner_steps_per_s']:,.0f} vs {m['batch_steps_per_s']:,.0f})"
                )
    args.out.parent.mkdir(exist_ok=True)
    record = {"args": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()}}
    args.out.write_text(json.dumps({**record, "runs": raw, "medians": medians}, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
