"""sb3-contrib's MaskablePPO on N games stepped in one kernel call (meeple_gym.sb3), evaluated
before and after training against the random opponent with the evaluator (docs/sb3.md).

    python examples/sb3_maskable.py --game century --total-timesteps 400000 --seed 0 \\
        --model runs/sb3_century.zip --out runs/sb3_century.json
    meeple eval --game century --agents sb3:runs/sb3_century.zip random

The untrained model is saved and evaluated first, so "before" and "after" are the same
policy network at step 0 and at the end, both playing their most likely legal action
(``sb3:PATH`` agents, meeple_gym.baselines.sb3_agent) for ``--eval-games`` games with seats
rotated, 95% Wilson intervals.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import numpy as np
import torch
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecMonitor

from meeple_gym.baselines.evaluate import play_match
from meeple_gym.sb3 import make_sb3_vec_env


class WinRateLog(BaseCallback):
    """The learner's share of won training games in each rollout (the learning curve)."""

    def __init__(self):
        super().__init__()
        self.rows: list[dict] = []
        self._outcomes: list[float] = []
        self._start = time.perf_counter()

    def _on_step(self) -> bool:
        for done, info in zip(self.locals["dones"], self.locals["infos"], strict=True):
            if done:
                self._outcomes.append(float(info["episode"]["r"]))
        return True

    def _on_rollout_end(self) -> None:
        games = len(self._outcomes)
        wins = sum(r > 0 for r in self._outcomes)
        self.rows.append(
            {
                "timesteps": int(self.num_timesteps),
                "seconds": round(time.perf_counter() - self._start, 2),
                "games": games,
                "train_win_rate": wins / games if games else None,
            }
        )
        self._outcomes = []


def evaluate(path: Path, args) -> dict:
    spec = f"sb3:{path}"
    result = play_match(args.game, 2, [spec, "random"], args.eval_games, seed=args.eval_seed)
    keys = ("games", "wins", "draws", "losses", "win_rate", "ci_low", "ci_high", "truncated")
    keys += ("mean_score", "mean_length")
    return {k: result[k] for k in keys}


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--game", default="century")
    p.add_argument("--n-envs", type=int, default=64)
    p.add_argument("--total-timesteps", type=int, default=400_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="torch threads (docs/learning.md)")
    p.add_argument("--eval-games", type=int, default=1000)
    p.add_argument("--eval-seed", type=int, default=0)
    p.add_argument("--model", type=Path, default=Path("runs/sb3_century.zip"))
    p.add_argument("--out", type=Path, default=Path("runs/sb3_century.json"))
    p.add_argument("--overwrite", action="store_true", help="replace an existing model or JSON")
    args = p.parse_args(argv)
    for path in (args.model, args.out):
        if path.exists() and not args.overwrite:
            # Before training: the shipped model the docs quote must not be replaced by a rerun.
            raise SystemExit(f"{path} exists; choose another path or pass --overwrite")

    torch.set_num_threads(args.threads)
    venv = VecMonitor(make_sb3_vec_env(args.game, args.n_envs, seed=args.seed))
    hyper = {
        "n_steps": 128,  # 64 envs x 128 = 8,192 decisions per update
        "batch_size": 2048,
        "n_epochs": 4,
        "learning_rate": 2.5e-4,
        "gamma": 0.995,
        "gae_lambda": 0.95,
        "ent_coef": 0.01,
        "policy_kwargs": {"net_arch": [128, 128]},
    }
    model = MaskablePPO("MlpPolicy", venv, seed=args.seed, **hyper)
    args.model.parent.mkdir(parents=True, exist_ok=True)
    before_path = args.model.with_name(args.model.stem + "_untrained.zip")
    model.save(before_path)
    print(f"evaluating the untrained model ({args.eval_games} games vs random)")
    before = evaluate(before_path, args)
    print(f"before: {before}")

    log = WinRateLog()
    start = time.perf_counter()
    model.learn(args.total_timesteps, callback=log)
    seconds = time.perf_counter() - start
    model.save(args.model)
    print(f"trained {model.num_timesteps} steps in {seconds:.0f} s")
    after = evaluate(args.model, args)
    print(f"after:  {after}")

    result = {
        "game": args.game,
        "opponent": "random",
        "n_envs": args.n_envs,
        "seed": args.seed,
        "torch_threads": args.threads,
        "hyperparameters": hyper,
        "timesteps": int(model.num_timesteps),
        "train_seconds": round(seconds, 1),
        "train_steps_per_s": round(model.num_timesteps / seconds),
        "eval_seed": args.eval_seed,
        "before": before,
        "after": after,
        "curve": log.rows,
        "load_average_at_end": list(os.getloadavg()),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, default=float) + "\n")
    print(f"written to {args.out}")
    return result


if __name__ == "__main__":
    np.set_printoptions(precision=3)
    main()
