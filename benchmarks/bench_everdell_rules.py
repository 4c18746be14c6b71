"""The Everdell rules kernel alone, commits side by side (interleaved in one run).

    python benchmarks/bench_everdell_rules.py BEFORE AFTER [MORE ...] [--rounds 5]
        [--threads 1] [--batch 1024] [--seconds 2]

Each commit is exported in the installed layout (``compare_trees.export``) and gets its own
kernel cache, compiled once before timing. Then each round runs one child process per commit,
in turn (before, after, ..., before, after, ...), timing what ``meeple_gym.bench.kernel_step``
times (``step_batch`` with random legal actions: rules, auto-reset and masks; no observation)
for ``--seconds`` of the child's CPU time: with one thread, CPU time is the kernel's own work,
so other processes on the machine stretch the wall clock far more than the figure.
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
import json, time, numba
import numpy as np
import meeple_gym as mg
from meeple_gym.core.sampling import policy_words, random_legal_actions
numba.set_num_threads({threads})
spec, n, p, seed = mg.get_spec("everdell"), {batch}, 2, np.uint64(0)
states, finals = np.zeros(n, spec.state_dtype), np.zeros(n, spec.state_dtype)
episodes, lengths = np.zeros(n, np.int64), np.zeros(n, np.int64)
masks = np.zeros((n, spec.num_actions), np.int8)
rewards = np.zeros((n, spec.max_players), np.float32)
term, trunc = np.zeros(n, np.bool_), np.zeros(n, np.bool_)
scores = np.zeros((n, spec.seats(p)), np.int32)
options = spec.options_code(spec.options, p)
spec.reset_batch(states, p, seed, 0, episodes, options)
spec.legal_masks_batch(states, masks)
words, actions = policy_words(0, n), np.empty(n, np.int64)
no_seats, no_words = np.full(n, -1, np.int64), np.zeros(n, np.uint64)
def step():
    random_legal_actions(masks, words, actions)
    spec.step_batch(states, actions, masks, rewards, term, trunc, p, seed, episodes, scores,
                    lengths, finals, options, no_seats, no_seats, no_words)
step()
calls, cpu = 0, time.process_time()
while calls < 3 or time.process_time() - cpu < {seconds}:
    step()
    calls += 1
print(json.dumps({{"steps_per_s": calls * n / (time.process_time() - cpu)}}))
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
            run(
                tree, TIMED.format(threads=args.threads, batch=args.batch, seconds=0.1), caches[rev]
            )
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
