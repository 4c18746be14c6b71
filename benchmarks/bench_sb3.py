"""SB3 on the batched kernels (meeple_gym.sb3.BatchVecEnv) against SB3's DummyVecEnv of single
envs (docs/sb3.md, "Speed").

    python benchmarks/bench_sb3.py            # writes benchmarks/results/sb3.json and prints

Two measurements, each with the two variants interleaved (A, B, A, B, ...) in one process so
that a load change on the shared machine hits both alike; the JSON keeps every round and the
ratios give their median, min and max:

- env: learner steps/s stepping ``n_envs`` games with uniformly random legal actions, the
  masks read through sb3-contrib's ``get_action_masks`` (what MaskablePPO does every step);
- learn: ``MaskablePPO.learn`` steps/s end to end (rollouts and updates), same hyperparameters
  and one torch thread for both.

A round runs for a fixed time (env) or a fixed number of steps (learn), after a warm-up.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "results" / "sb3.json"


def make_dummy(game: str, n_envs: int):
    import gymnasium as gym
    from stable_baselines3.common.vec_env import DummyVecEnv

    import meeple_gym  # noqa: F401  (registers the ids)

    env_id = f"meeple_gym/{game.capitalize()}-v0"
    return DummyVecEnv([lambda: gym.make(env_id) for _ in range(n_envs)])


def make_batched(game: str, n_envs: int):
    from meeple_gym.sb3 import make_sb3_vec_env

    return make_sb3_vec_env(game, n_envs)


VARIANTS = {"dummy": make_dummy, "batched": make_batched}


def env_round(venv, seconds: float, rng) -> dict:
    from sb3_contrib.common.maskable.utils import get_action_masks

    steps = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        masks = get_action_masks(venv)
        venv.step((rng.random(masks.shape) * masks).argmax(axis=1))
        steps += venv.num_envs
    return {"steps": steps, "seconds": elapsed, "steps_per_s": steps / elapsed}


def learn_round(venv, total: int, seed: int, ppo_kwargs: dict) -> dict:
    from sb3_contrib import MaskablePPO

    model = MaskablePPO("MlpPolicy", venv, seed=seed, **ppo_kwargs)
    start = time.perf_counter()
    model.learn(total)
    elapsed = time.perf_counter() - start
    return {"steps": model.num_timesteps, "seconds": elapsed, "steps_per_s": total / elapsed}


def ratios(rounds: dict, key: str = "steps_per_s") -> dict:
    """batched / dummy of each interleaved pair of rounds, with their spread."""
    pairs = [b[key] / a[key] for a, b in zip(rounds["dummy"], rounds["batched"], strict=True)]
    return {
        "per_round": pairs,
        "median": statistics.median(pairs),
        "min": min(pairs),
        "max": max(pairs),
    }


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="century")
    parser.add_argument("--n-envs", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=4, help="interleaved rounds per variant")
    parser.add_argument("--env-seconds", type=float, default=4.0, help="per env round")
    parser.add_argument("--learn-steps", type=int, default=32_768, help="per learn round")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)

    import torch

    torch.set_num_threads(1)  # docs/learning.md: 2 threads were slower on this 2-core machine
    ppo_kwargs = {"n_steps": 128, "batch_size": 1024, "n_epochs": 4}
    rng = np.random.default_rng(0)
    envs = {}
    for name, make in VARIANTS.items():
        envs[name] = make(args.game, args.n_envs)
        envs[name].seed(0)
        envs[name].reset()
        env_round(envs[name], 0.5, rng)  # warm-up (compiled kernels, caches)

    env_rounds = {name: [] for name in VARIANTS}
    learn_rounds = {name: [] for name in VARIANTS}
    for r in range(args.rounds):
        for name in VARIANTS:
            env_rounds[name].append(env_round(envs[name], args.env_seconds, rng))
            print(f"env   round {r} {name:8s} {env_rounds[name][-1]['steps_per_s']:10,.0f} steps/s")
    for r in range(args.rounds):
        for name in VARIANTS:
            learn_rounds[name].append(learn_round(envs[name], args.learn_steps, r, ppo_kwargs))
            print(
                f"learn round {r} {name:8s} {learn_rounds[name][-1]['steps_per_s']:10,.0f} steps/s"
            )

    result = {
        "game": args.game,
        "n_envs": args.n_envs,
        "opponent": "random",
        "baseline": "stable_baselines3 DummyVecEnv of gymnasium.make('meeple_gym/<Game>-v0')",
        "candidate": "meeple_gym.sb3.make_sb3_vec_env (BatchVecEnv over BatchVectorEnv)",
        "env": {"seconds_per_round": args.env_seconds, "rounds": env_rounds},
        "learn": {
            "steps_per_round": args.learn_steps,
            "maskable_ppo": ppo_kwargs,
            "torch_threads": 1,
            "rounds": learn_rounds,
        },
        "env_speedup": ratios(env_rounds),
        "learn_speedup": ratios(learn_rounds),
        "machine": {
            "cpus": os.cpu_count(),
            "python": platform.python_version(),
            "load_average_at_end": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        },
    }
    for key in ("env", "learn"):
        s = result[f"{key}_speedup"]
        med = {
            name: statistics.median(x["steps_per_s"] for x in result[key]["rounds"][name])
            for name in VARIANTS
        }
        print(
            f"{key:5s}: dummy {med['dummy']:,.0f} steps/s, batched {med['batched']:,.0f} steps/s; "
            f"speed-up median {s['median']:.1f}x (rounds {s['min']:.1f}x to {s['max']:.1f}x)"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written to {args.out}", file=sys.stderr)
    return result


if __name__ == "__main__":
    main()
