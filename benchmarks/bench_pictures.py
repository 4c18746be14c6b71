"""Pictures: milliseconds to draw one state as SVG (and to rasterise it), and replay page sizes.

    python benchmarks/bench_pictures.py          # every game; writes results/pictures.json

Positions are every state of a seeded random game at the game's largest player count (the
biggest pictures), drawn from the public view and from seat 0. Each state's time is the best of
three draws, so a busy machine's pauses fall out; the figures are the mean and the worst state.
Replays: a seeded heuristic-vs-random game per game, its page size and size per 300 steps.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

import meeple_gym as mg
from meeple_gym.core.svg import rasterize
from meeple_gym.replay import record_game, replay_html

OUT = Path(__file__).parent / "results" / "pictures.json"


def _best_ms(fn, rounds: int = 3) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best * 1000.0


def draw_times(game: str, seed: int = 0) -> dict:
    spec = mg.get_spec(game)
    players = spec.max_players
    recording = record_game(game, players, agents=["random"], seed=seed)
    draw_ms = [
        _best_ms(lambda s=s, v=v: spec.draw(s, 0, v)) for s in recording.states for v in (None, 0)
    ]
    svg = spec.draw(recording.states[len(recording.states) // 2], 0, None)
    return {
        "players": players,
        "states": len(recording.states),
        "draw_ms_mean": float(np.mean(draw_ms)),
        "draw_ms_max": float(np.max(draw_ms)),
        "svg_kb_mid_game": len(svg) / 1000.0,
        "rasterise_ms": _best_ms(lambda: rasterize(svg)),
    }


def replay_size(game: str, seed: int = 3) -> dict:
    recording = record_game(game, 2, agents=["heuristic", "random"], seed=seed)
    size = len(replay_html(recording).encode())
    return {
        "steps": recording.num_steps,
        "page_kb": size / 1000.0,
        "kb_per_300_steps": size / 1000.0 * 300 / max(1, recording.num_steps),
    }


def main() -> None:
    results = {}
    for game in mg.available_games():
        results[game] = {**draw_times(game), "replay": replay_size(game)}
        r = results[game]
        print(
            f"{game:9s} {r['players']}p: draw {r['draw_ms_mean']:.1f} ms mean, "
            f"{r['draw_ms_max']:.1f} ms worst over {r['states']} states x 2 views; "
            f"rasterise {r['rasterise_ms']:.0f} ms; replay of {r['replay']['steps']} steps "
            f"{r['replay']['page_kb']:.0f} kB ({r['replay']['kb_per_300_steps']:.0f} kB / 300)"
        )
    OUT.write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
