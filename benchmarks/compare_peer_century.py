"""Century self-play against the ENV peer (ngoxuanphong/ENV), side by side in one process.

    python benchmarks/compare_peer_century.py                       # 2,000 games a side, 3 rounds
    python benchmarks/compare_peer_century.py --peer /path/to/ENV --games 4000 --rounds 5

The peer is not a dependency and none of its code is in this project: it is imported from a
checkout given by ``--peer`` (the folder that holds its ``src/``; default /work/peer-env), e.g.

    git clone https://github.com/ngoxuanphong/ENV /work/peer-env       # or, from a bare mirror:
    git -C MIRROR archive HEAD src/Base/Century | tar -x -C /work/peer-env

Both sides play whole 5-player games with uniform random legal moves and no learning:

- ENV: its own evaluation loop ``run(bot_lv0, games)`` (``n_games_numba``: every step builds the
  player's state vector, its legal actions and draws one with ``np.random``). The loop is serial
  Numba (no ``prange``), so its speed does not depend on the thread count; it is timed under
  each thread setting all the same.
- meeple-gym: ``make_batch("century", 1, 5).random_rollout(games, threads=t)`` (the in-kernel
  rollout: ``step_batch`` playing every seat at random, one game per prange row).

Rounds alternate ENV, ours, ENV, ours ... for each thread count so that a change of machine
load falls on both; each timing is wall-clock seconds of one call after a warm-up call. Steps
per game: ours from the rollout's lengths, ENV's by replaying its loop with a step counter (an
njit loop over its ``initEnv``/``getAgentState``/``getValidActions``/``stepEnv``, untimed).
Reported: medians of games/s and steps/s per side, the ratio of medians per game and per step,
the load average; written to ``benchmarks/results/peer_century.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numba
import numpy as np

OUT = Path(__file__).parent / "results" / "peer_century.json"


def load_peer(path: str):
    """ENV's Century env module, imported from the checkout at ``path``."""
    sys.path.insert(0, str(path))
    try:
        from src.Base.Century import env as peer  # noqa: PLC0415 - only with --peer
    finally:
        sys.path.remove(str(path))
    return peer


def peer_step_counter(peer):
    """An njit loop over ENV's public kernels that plays one random game like its ``run`` loop
    (same 2,000-step cap) and returns its step count."""
    init_env, agent_state, valid_actions = peer.initEnv, peer.getAgentState, peer.getValidActions
    step_env, not_over = peer.stepEnv, peer.system_check_end

    @numba.njit
    def count_steps(games, seed):
        np.random.seed(seed)  # noqa: NPY002 - Numba's generator, the one ENV's bot draws from
        total = 0
        for _ in range(games):
            env_state = init_env()
            steps = 0
            while not_over(env_state) and steps < 2000:
                legal = np.where(valid_actions(agent_state(env_state)) == 1)[0]
                pick = np.random.randint(0, legal.shape[0])  # noqa: NPY002 - as ENV's bot
                env_state = step_env(env_state, legal[pick])
                steps += 1
            total += steps
        return total

    return count_steps


@numba.njit
def _seed_numba(seed):
    np.random.seed(seed)  # noqa: NPY002 - Numba's generator, the one ENV's bot draws from


def time_peer(peer, games: int, seed: int) -> float:
    _seed_numba(seed)
    start = time.perf_counter()
    peer.run(peer.bot_lv0, games, np.array([[0.0]]), 0)
    return time.perf_counter() - start


def time_ours(batch, games: int, threads: int) -> tuple[float, int]:
    start = time.perf_counter()
    out = batch.random_rollout(games, threads=threads)
    return time.perf_counter() - start, int(out["length"].sum())


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--peer", default="/work/peer-env", help="folder holding ENV's src/")
    parser.add_argument("--games", type=int, default=2000, help="games per side per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", default=str(OUT))
    args = parser.parse_args(argv)

    import meeple_gym as mg  # noqa: PLC0415 - after argparse so --help is quick

    peer = load_peer(args.peer)
    batch = mg.make_batch("century", 1, 5, seed=args.seed)
    # Warm-up: compile both sides before anything is timed.
    time_peer(peer, 4, args.seed)
    time_ours(batch, 4, 1)
    peer_steps = peer_step_counter(peer)(args.games, args.seed) / args.games
    _, our_total = time_ours(batch, args.games, 1)
    our_steps = our_total / args.games

    load_before = os.getloadavg()
    rows = []
    for threads in args.threads:
        numba.set_num_threads(threads)
        peer_s, ours_s = [], []
        for _ in range(args.rounds):
            peer_s.append(time_peer(peer, args.games, args.seed))
            ours_s.append(time_ours(batch, args.games, threads)[0])
        peer_gps = statistics.median(args.games / s for s in peer_s)
        ours_gps = statistics.median(args.games / s for s in ours_s)
        rows.append(
            {
                "threads": threads,
                "peer_games_per_s": round(peer_gps, 1),
                "ours_games_per_s": round(ours_gps, 1),
                "peer_steps_per_s": round(peer_gps * peer_steps),
                "ours_steps_per_s": round(ours_gps * our_steps),
                "ratio_games": round(ours_gps / peer_gps, 2),
                "ratio_steps": round(ours_gps * our_steps / (peer_gps * peer_steps), 2),
                "ratio_games_per_round": [
                    round(p / o, 2) for p, o in zip(peer_s, ours_s, strict=True)
                ],
                "peer_seconds": [round(s, 4) for s in peer_s],
                "ours_seconds": [round(s, 4) for s in ours_s],
            }
        )
    result = {
        "games_per_round": args.games,
        "rounds": args.rounds,
        "players": 5,
        "peer_steps_per_game": round(peer_steps, 1),
        "ours_steps_per_game": round(our_steps, 1),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "rows": rows,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(
        f"steps/game: ENV {peer_steps:.1f}, ours {our_steps:.1f}; "
        f"load {load_before[0]:.2f} -> {result['load_average_after'][0]:.2f}"
    )
    print("threads  ENV games/s  ours games/s  ENV steps/s  ours steps/s  x/game  x/step")
    for r in rows:
        print(
            f"{r['threads']:>7}  {r['peer_games_per_s']:>11,.0f}  {r['ours_games_per_s']:>12,.0f}"
            f"  {r['peer_steps_per_s']:>11,}  {r['ours_steps_per_s']:>12,}"
            f"  {r['ratio_games']:>6.2f}  {r['ratio_steps']:>6.2f}"
        )
    return result


if __name__ == "__main__":
    main()
