"""Search speed of the ISMCTS agent: writes benchmarks/results/search.json and prints it.

    python benchmarks/bench_search.py                    # every game, default budgets
    python benchmarks/bench_search.py --game radlands --positions 32

For each game, ``--positions`` positions are taken from heuristic self-play (every game of a
seeded batch stopped at a different move, decisions with one legal move left out, since the
agent plays those without searching), taken out with ``BatchEnv.get_states`` as a user
would. ``act_states`` searches all of them in one call, in parallel over positions, at 1 and 2
Numba threads (records the engine handed out skip the snapshot check; others pay it).
Reported per thread count:

- ``moves_per_s``: searched decisions per second (positions / wall time of the call);
- ``sims_per_s``: ISMCTS iterations per second (positions x sims / wall time);
- ``compile_s``: the first call's wall time minus a warm call's, in this process (0 when the
  kernel came from the on-disk cache);
- ``seconds``: the median of ``--repeat`` warm calls; ``cpu_moves_per_s``: positions per
  second of process CPU time (all threads), steadier than wall time on a busy machine;
  ``actions``: the moves the search chose (to check that two trees search alike).

What is measured is described in benchmarks/README.md, "Search".
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

import meeple_gym as mg  # noqa: E402
from meeple_gym import bench  # noqa: E402
from meeple_gym.baselines.evaluate import make_agent  # noqa: E402
from meeple_gym.baselines.ismcts import ISMCTSAgent  # noqa: E402

GAMES = ("century", "radlands", "everdell", "endeavor")


def heuristic_positions(game: str, num_players: int, count: int, seed: int) -> np.ndarray:
    """``count`` live records with two or more legal moves from heuristic self-play."""
    size = 4 * count
    batch = mg.make_batch(game, size, num_players, seed)
    obs = batch.reset()
    heuristic = make_agent("heuristic", game, seed)
    stop_at = np.random.default_rng(seed).integers(0, 120, size)
    chosen = np.full(size, False)
    records = np.zeros(size, dtype=batch.states.dtype)
    for move in range(121):
        ready = (stop_at <= move) & ~chosen & (batch.legal_mask.sum(axis=1) > 1)
        # As a user takes records out of a batch (the ISMCTS docs): get_states.
        records[ready] = batch.get_states()[ready]
        chosen |= ready
        if chosen.all():
            break
        obs, *_ = batch.step(heuristic.act_batch(obs, batch.legal_mask))
    picked = records[chosen]
    if picked.shape[0] < count:
        raise RuntimeError(f"only {picked.shape[0]} positions for {game}")
    return picked[:count]


def search_speed(game: str, positions: int, seed: int = 0, repeat: int = 1, **params) -> dict:
    states = heuristic_positions(game, 2, positions, seed)
    agent = ISMCTSAgent(game, seed=seed, **params)
    runs = []
    actions = None
    for threads in bench.thread_counts((1, 2)):
        with bench._Threads(threads):
            start = time.perf_counter()
            actions = agent.act_states(states)
            first = time.perf_counter() - start
            times, cpu = [], []
            for _ in range(repeat):
                start, start_cpu = time.perf_counter(), time.process_time()
                agent.act_states(states)
                times.append(time.perf_counter() - start)
                cpu.append(time.process_time() - start_cpu)
            elapsed = float(np.median(times))
        runs.append(
            {
                "threads": threads,
                "positions": positions,
                "seconds": round(elapsed, 3),
                "moves_per_s": round(positions / elapsed, 2),
                "sims_per_s": round(positions * agent.sims / elapsed),
                "compile_s": round(max(0.0, first - elapsed), 1),
                # Process CPU time: on a busy machine a steadier measure than wall time.
                "cpu_moves_per_s": round(positions / float(np.median(cpu)), 2),
            }
        )
    # The moves themselves, so that two trees can be checked to search alike.
    return {"agent": agent.name, "sims": agent.sims, "runs": runs, "actions": actions.tolist()}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=GAMES, action="append")
    parser.add_argument("--positions", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=1, help="timed calls (median reported)")
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "search.json"))
    args = parser.parse_args(argv)
    result = {"machine": bench.machine_info(), "package": mg.__file__, "games": {}}
    result["load_before"] = list(os.getloadavg())
    for game in args.game or GAMES:
        print(f"[bench] {game}: searching {args.positions} positions", file=sys.stderr)
        result["games"][game] = search_speed(game, args.positions, repeat=args.repeat)
        for run in result["games"][game]["runs"]:
            print(
                f"  {game:9s} {run['threads']} thread(s): {run['moves_per_s']:8.1f} moves/s "
                f"{run['sims_per_s']:>9,} sims/s",
                file=sys.stderr,
            )
    result["load_after"] = list(os.getloadavg())
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    print(f"written to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
