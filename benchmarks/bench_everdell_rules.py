"""The Everdell rules kernel alone, commits side by side (interleaved in one run).

    python benchmarks/bench_everdell_rules.py BEFORE AFTER [MORE ...] [--rounds 5]
        [--threads 1] [--batch 1024] [--seconds 2]

Each commit is exported in the installed layout (``compare_trees.export``) and gets its own
kernel cache, compiled once before timing. Then each round runs one child process per commit,
in turn (before, after, ..., before, after, ...), timing ``meeple_gym.bench.kernel_step``
(``step_batch`` with random legal actions: rules, auto-reset and masks; no observation) for
``--seconds``.
Medians over rounds, each commit's ratio to the first one per round and the load average
are printed and written to benchmarks/results/everdell_rules.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from compare_trees import export, run  # noqa: E402

OUT = Path(__file__).parent / "results" / "everdell_rules.json"

TIMED = """
import json, numba
from meeple_gym import bench
numba.set_num_threads({threads})
r = bench.kernel_step("everdell", 2, batch_sizes=({batch},), threads=({threads},),
                      seconds={seconds})
print(json.dumps({{"steps_per_s": r["best_steps_per_s"]}}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("revs", nargs="+", help="commits; the first is the base of the ratios")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    code = TIMED.format(threads=args.threads, batch=args.batch, seconds=args.seconds)
    rows = {rev: [] for rev in args.revs}
    with tempfile.TemporaryDirectory() as tmp:
        trees = {rev: export(rev, Path(tmp) / f"tree{i}") for i, rev in enumerate(rows)}
        caches = {rev: tempfile.mkdtemp(dir=tmp) for rev in rows}
        for rev, tree in trees.items():  # compile once, untimed
            run(tree, code.replace(f"seconds={args.seconds}", "seconds=0.1"), caches[rev])
        load = [os.getloadavg()[0]]
        for _ in range(args.rounds):
            for rev, tree in trees.items():
                _, out = run(tree, code, caches[rev])
                rows[rev].append(round(json.loads(out.strip().splitlines()[-1])["steps_per_s"]))
            load.append(os.getloadavg()[0])
    base = rows[args.revs[0]]
    ratios = {rev: [round(a / b, 3) for a, b in zip(rows[rev], base, strict=True)] for rev in rows}
    result = {
        "revs": args.revs,
        "threads": args.threads,
        "batch": args.batch,
        "seconds": args.seconds,
        "steps_per_s": rows,
        "median_steps_per_s": {rev: statistics.median(rows[rev]) for rev in rows},
        "ratios": ratios,
        "median_ratio": {rev: statistics.median(ratios[rev]) for rev in rows},
        "load_1min": [round(x, 2) for x in load],
    }
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
