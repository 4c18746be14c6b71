"""Speed of the learned agent ``net``: writes benchmarks/results/net_agent.json and prints it.

    python benchmarks/bench_net.py                  # every game with shipped weights
    python benchmarks/bench_net.py --game everdell --batch 1024 --repeat 20

Positions come from heuristic self-play (a seeded batch of ``--batch`` games, each stopped at
a different move, so a batch holds early and late positions alike). ``act_batch`` of the
default agent (greedy, or sampling where the weights say so) is timed on the whole batch: the
median of ``--repeat`` calls after one warm call. Reported per game: ``decisions_per_s``
(batch size / median seconds), ``play`` (greedy or sample), the weights file's size, its hidden
layers, and whether torch was imported (it must not be). The target is
20,000 decisions/s at batch 1024 (docs/baselines.md, "The learned agent").
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

import meeple_gym as mg  # noqa: E402
from meeple_gym.baselines.evaluate import make_agent  # noqa: E402
from meeple_gym.baselines.net_agent import NetAgent, shipped_weights  # noqa: E402

GAMES = ("century", "radlands", "everdell", "endeavor")


def positions(game: str, size: int, seed: int):
    """Observations and masks of ``size`` live positions of heuristic self-play."""
    batch = mg.make_batch(game, size, 2, seed)
    obs = batch.reset()
    heuristic = make_agent("heuristic", game, seed)
    stop_at = np.random.default_rng(seed).integers(0, 100, size)
    out_obs = obs.copy()
    out_mask = batch.legal_mask.copy()
    for move in range(101):
        here = stop_at == move
        out_obs[here] = obs[here]
        out_mask[here] = batch.legal_mask[here]
        obs, *_ = batch.step(heuristic.act_batch(obs, batch.legal_mask))
    return out_obs, out_mask


def bench_game(game: str, size: int, repeat: int, seed: int) -> dict:
    obs, mask = positions(game, size, seed)
    agent = NetAgent(game)
    agent.act_batch(obs, mask)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        agent.act_batch(obs, mask)
        times.append(time.perf_counter() - start)
    seconds = float(np.median(times))
    return {
        "batch": size,
        "seconds": seconds,
        "decisions_per_s": size / seconds,
        "play": "greedy" if agent.greedy else "sample",
        "weights_bytes": shipped_weights(game).stat().st_size,
        "hidden": agent.meta["hidden"],
        "obs_size": agent.obs_size,
    }


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", choices=GAMES, action="append")
    p.add_argument("--batch", type=int, default=1024)
    p.add_argument("--repeat", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "net_agent.json"))
    args = p.parse_args(argv)
    games = args.game or [g for g in GAMES if shipped_weights(g).is_file()]
    result = {
        "command": "python benchmarks/bench_net.py " + " ".join(argv or sys.argv[1:]),
        "games": {g: bench_game(g, args.batch, args.repeat, args.seed) for g in games},
        "torch_imported": "torch" in sys.modules,
    }
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    for game, row in result["games"].items():
        print(
            f"{game:9s} {row['decisions_per_s']:>10,.0f} decisions/s at batch {row['batch']} "
            f"({row['play']}), weights {row['weights_bytes'] / 1e6:.2f} MB, hidden {row['hidden']}"
        )
    print(f"torch imported: {result['torch_imported']}")
    return result


if __name__ == "__main__":
    main()
