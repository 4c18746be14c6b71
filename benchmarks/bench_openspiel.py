"""OpenSpiel's ISMCTS on meeple-gym against the project's own ISMCTS, at equal budget.

    python benchmarks/bench_openspiel.py                       # Century and Radlands
    python benchmarks/bench_openspiel.py --games century radlands everdell endeavor \\
        --sims 100 --matches 10 --jobs 2

Writes benchmarks/results/openspiel.json (``--out``) and prints it. Needs OpenSpiel
(``pip install "meeple-gym[openspiel]"``).

Each game is played two-player, ``--matches`` times, seats alternating (OpenSpiel's bot is seat 0
in the even matches); match ``k`` is the ``k``-th deal of ``seed`` (``meeple_gym.openspiel``), the
same for every pairing. The contestants, all with ``--sims`` simulations per decision:

- ``openspiel``: ``open_spiel.python.algorithms.ismcts.ISMCTSBot``, one determinization per
  simulation through ``resample_from_infostate`` (the game's determinization kernel), UCT, the
  most visited move, and ``KernelRolloutEvaluator`` (uniform random play-outs to the end, run
  in Numba; its Python twin ``RandomRolloutEvaluator`` is 20-120x slower per play-out);
- ``ismcts-random``: ``ISMCTSAgent(rollout="random", depth=0, prior=0)``, the same ingredients in
  one Numba kernel;
- ``ismcts-default`` (``--defaults``): ``ISMCTSAgent`` with the game's defaults except the budget
  (heuristic play-outs, depth cap and progressive bias), what ``meeple eval --agents ismcts:sims=N``
  plays.

Both use the exploration constant of the project's defaults for the game (``--c`` overrides).
Reported per pairing: OpenSpiel's wins, losses and draws, its score rate (a draw counts half)
with a 95% Wilson interval, the mean game length and each side's decisions per second: its own
decisions, forced ones included, over the time it spent choosing them (one Numba thread each),
by the wall clock and by the process's CPU time, which other load on the machine disturbs less.
The games are deterministic for a seed (both sides seed their searches), so a rerun replays the
same moves; only the speeds change.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import platform
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

import numba  # noqa: E402
import pyspiel  # noqa: E402
from open_spiel.python.algorithms import ismcts  # noqa: E402

import meeple_gym.openspiel as mo  # noqa: E402
from meeple_gym.baselines.ismcts import ISMCTSAgent  # noqa: E402


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = score / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (round(max(0.0, centre - half), 3), round(min(1.0, centre + half), 3))


class OpenSpielSide:
    def __init__(self, game, sims: int, c: float, seed: int):
        rng = np.random.RandomState(seed)
        evaluator = mo.KernelRolloutEvaluator(n_rollouts=1, random_state=rng)
        self.bot = ismcts.ISMCTSBot(
            game, evaluator, uct_c=c, max_simulations=sims, random_state=rng
        )
        self.bot.set_resampler(mo.make_resampler(seed))

    def act(self, state) -> int:
        return int(self.bot.step(state))


class ProjectSide:
    def __init__(self, game: str, sims: int, c: float, seed: int, defaults: bool):
        params = {} if defaults else {"rollout": "random", "depth": 0, "prior": 0.0}
        self.agent = ISMCTSAgent(game, sims=sims, c=c, seed=seed, **params)

    def act(self, state) -> int:
        return int(self.agent.act_states(state.record)[0])


def play_pairing(name: str, project_label: str, args) -> dict:
    game = pyspiel.load_game(mo.short_name(name), {"seed": args.seed} | _players(name))
    c = args.c if args.c is not None else ISMCTSAgent.DEFAULTS[name]["c"]
    defaults = project_label == "ismcts-default"
    # Warm-up on a deal of its own: load (or compile) the kernels before any clock runs.
    warm = pyspiel.load_game(mo.short_name(name), _players(name)).new_initial_state()
    ProjectSide(name, 2, c, 0, defaults).act(warm)
    OpenSpielSide(game, 2, c, 0).act(warm)
    score = 0.0
    wins = losses = draws = 0
    lengths = []
    seconds = {"openspiel": 0.0, project_label: 0.0}
    cpu_seconds = {"openspiel": 0.0, project_label: 0.0}
    decisions = {"openspiel": 0, project_label: 0}
    for match in range(args.matches):
        state = game.new_initial_state()
        os_seat = match % 2
        sides = {
            "openspiel": OpenSpielSide(game, args.sims, c, args.seed * 1000 + match),
            project_label: ProjectSide(name, args.sims, c, args.seed * 1000 + match, defaults),
        }
        while not state.is_terminal():
            label = "openspiel" if state.current_player() == os_seat else project_label
            start, cpu_start = time.perf_counter(), time.process_time()
            action = sides[label].act(state)
            seconds[label] += time.perf_counter() - start
            cpu_seconds[label] += time.process_time() - cpu_start
            decisions[label] += 1
            state.apply_action(action)
        returns = state.returns()
        mine, theirs = returns[os_seat], returns[1 - os_seat]
        if mine > theirs:
            wins += 1
            score += 1.0
        elif mine < theirs:
            losses += 1
        else:
            draws += 1
            score += 0.5
        lengths.append(len(state.history()))
        print(
            f"  {name} match {match + 1}/{args.matches}: openspiel seat {os_seat}, returns "
            f"{returns}, {lengths[-1]} decisions",
            file=sys.stderr,
        )
    return {
        "game": name,
        "players": 2,
        "openspiel": f"ISMCTSBot(KernelRolloutEvaluator, uct_c={c:g}, sims={args.sims})",
        "project": ProjectSide(name, args.sims, c, 0, defaults).agent.name,
        "project_label": project_label,
        "matches": args.matches,
        "openspiel_wins": wins,
        "openspiel_losses": losses,
        "draws": draws,
        "openspiel_score_rate": round(score / args.matches, 3),
        "score_rate_95ci": wilson(score, args.matches),
        "mean_decisions_per_game": round(float(np.mean(lengths)), 1),
        "openspiel_moves_per_s": round(decisions["openspiel"] / seconds["openspiel"], 2),
        "project_moves_per_s": round(decisions[project_label] / seconds[project_label], 2),
        # Per CPU second of the process: steadier than wall time on a shared machine.
        "openspiel_moves_per_cpu_s": round(decisions["openspiel"] / cpu_seconds["openspiel"], 2),
        "project_moves_per_cpu_s": round(decisions[project_label] / cpu_seconds[project_label], 2),
    }


def _timed_pairing(task: tuple[str, str], args) -> dict:
    numba.set_num_threads(1)  # one search at a time per process: each side gets one core
    start = time.perf_counter()
    row = play_pairing(*task, args)
    row["wall_s"] = round(time.perf_counter() - start, 1)
    return row


def _players(name: str) -> dict:
    return {} if name == "radlands" else {"players": 2}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["century", "radlands"], choices=mo.GAMES)
    parser.add_argument("--sims", type=int, default=100)
    parser.add_argument("--matches", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--c", type=float, default=None, help="UCT constant (default: per game)")
    parser.add_argument(
        "--defaults", action="store_true", help="also play the project's ISMCTS at its defaults"
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="pairings played at once, one process each"
    )
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "openspiel.json"))
    args = parser.parse_args(argv)
    labels = ["ismcts-random"] + (["ismcts-default"] if args.defaults else [])
    tasks = [(name, label) for name in args.games for label in labels]
    if args.jobs > 1:
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(args.jobs, mp_context=context) as pool:
            results = list(pool.map(_timed_pairing, tasks, [args] * len(tasks)))
    else:
        results = [_timed_pairing(task, args) for task in tasks]
    report = {
        "command": " ".join(
            ["python benchmarks/bench_openspiel.py", *(sys.argv[1:] if argv is None else argv)]
        ),
        "sims": args.sims,
        "seed": args.seed,
        "machine": {
            "python": platform.python_version(),
            "open_spiel": _version("open_spiel"),
            "numba_threads": 1,
            "jobs": args.jobs,
            "cpus": os.cpu_count(),
        },
        "results": results,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))
    return report


def _version(dist: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "unknown"


if __name__ == "__main__":
    main()
