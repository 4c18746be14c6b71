"""Snapshot save and load speed: ``to_dict`` and ``from_dict`` calls per second for each game.

    python benchmarks/bench_snapshots.py                 # every game
    python benchmarks/bench_snapshots.py --game century  # one game, repeatable

Positions come from seeded random games of every player count (the opening, every 20th
position on average and the end). Each position is timed on its own, best of ``--rounds`` x 5
calls, so that a busy machine's pauses fall out; the rate is positions / sum of the bests.
These are the plain codec calls; ``env.from_dict`` adds the gate's size check and round trip
(``envs/core/gate.py``).
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

import meeple_gym as mg


def sample(game: str, games: int = 6, rate: float = 0.05, seed: int = 1) -> list[dict]:
    spec = mg.get_spec(game)
    rng = np.random.default_rng(seed)
    out = []
    for k in range(games):
        env = mg.make(game, num_players=spec.min_players + k % len(spec.player_counts()))
        env.reset(seed=seed * 1000 + k)
        out.append(env.unwrapped.to_dict())
        while True:
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                break
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            if rng.random() < rate:
                out.append(env.unwrapped.to_dict())
        out.append(env.unwrapped.to_dict())
    return out


def _best_sum(fn, items, rounds: int) -> float:
    total = 0.0
    for x in items:
        best = float("inf")
        for _ in range(rounds * 5):
            t = time.perf_counter()
            fn(x)
            best = min(best, time.perf_counter() - t)
        total += best
    return total


def measure(game: str, rounds: int) -> dict:
    spec = mg.get_spec(game)
    snaps = sample(game)
    records = np.concatenate([spec.from_dict(s) for s in snaps])
    save = _best_sum(lambda g: spec.to_dict(records, g), range(len(records)), rounds)
    load = _best_sum(spec.from_dict, snaps, rounds)
    return {
        "positions": len(snaps),
        "to_dict_per_s": round(len(snaps) / save),
        "from_dict_per_s": round(len(snaps) / load),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", action="append", help="a game (repeatable; default: all)")
    parser.add_argument("--rounds", type=int, default=6, help="rounds of 5 calls per position")
    args = parser.parse_args()
    results = {game: measure(game, args.rounds) for game in args.game or mg.available_games()}
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
