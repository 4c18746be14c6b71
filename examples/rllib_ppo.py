"""PPO in RLlib on a meeple-gym game, against a fixed opponent, with masked actions.

    pip install torch==2.13.0 && pip install -e ".[rllib]"   # CPU torch first; keeps gymnasium
    python examples/rllib_ppo.py --game century --opponent random --minutes 10

RLlib samples the Gymnasium entry point (``meeple_gym/Century-v0``) on its Ray env-runner actors
and trains RLlib's own masked-action module (``ActionMaskingTorchRLModule``, from its examples),
with no adapter: the env id is given as ``"meeple_gym:meeple_gym/Century-v0"``, so Gymnasium
imports meeple_gym in each runner, and ``observation_mode="rllib"`` hands over the Dict
``{"observations", "action_mask"}`` that module reads. After training, the greedy policy plays
``--eval-games`` games against the opponent, seats alternating, and the win rate with its Wilson
95% interval is printed (and written to ``--out`` as JSON).
"""

from __future__ import annotations

import argparse
import json
import math
import time

import gymnasium as gym

GAME_IDS = {
    "century": "meeple_gym/Century-v0",
    "radlands": "meeple_gym/Radlands-v0",
    "everdell": "meeple_gym/Everdell-v0",
    "endeavor": "meeple_gym/Endeavor-v0",
}


def make_env(config: dict):
    """The registered env with RLlib's masked observation (used by the evaluation below)."""
    import meeple_gym  # noqa: F401  (registers the ids)

    config = dict(config)
    return gym.make(GAME_IDS[config.pop("game")], observation_mode="rllib", **config)


def wilson(wins: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def evaluate(module, game: str, players: int, opponent: str, games: int, seed: int) -> dict:
    """Greedy masked play of the trained module, seat ``g % players`` in game ``g``."""
    import torch

    wins = draws = 0
    for g in range(games):
        config = {"game": game, "num_players": players, "opponent": opponent}
        env = make_env({**config, "seat": g % players})
        obs, info = env.reset(seed=seed + g)
        while True:
            batch = {"obs": {k: torch.from_numpy(v[None]) for k, v in obs.items()}}
            with torch.no_grad():
                logits = module.forward_inference(batch)["action_dist_inputs"][0]
            obs, reward, terminated, truncated, info = env.step(int(logits.argmax()))
            if terminated or truncated:
                break
        wins += reward > 0
        draws += reward == 0
    low, high = wilson(wins, games)
    return {
        "games": games,
        "wins": int(wins),
        "draws": int(draws),
        "win_rate": wins / games,
        "ci_low": low,
        "ci_high": high,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="century", choices=sorted(GAME_IDS))
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--opponent", default="random", help="random or heuristic")
    parser.add_argument("--minutes", type=float, default=10.0, help="training wall-time budget")
    parser.add_argument("--env-runners", type=int, default=2)
    parser.add_argument("--envs-per-runner", type=int, default=4)
    parser.add_argument("--batch", type=int, default=4000, help="train batch (env steps)")
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--eval-opponents", nargs="+", default=["random", "heuristic"])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="write the curve and the evaluation here (JSON)")
    args = parser.parse_args(argv)

    import ray
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    ray.init(num_cpus=args.env_runners + 1, include_dashboard=False, logging_level="warning")
    config = (
        PPOConfig()
        .environment(
            f"meeple_gym:{GAME_IDS[args.game]}",
            env_config={
                "num_players": args.players,
                "opponent": args.opponent,
                "observation_mode": "rllib",
            },
        )
        .env_runners(num_env_runners=args.env_runners, num_envs_per_env_runner=args.envs_per_runner)
        .rl_module(
            rl_module_spec=RLModuleSpec(
                module_class=ActionMaskingTorchRLModule,
                model_config={"head_fcnet_hiddens": [256, 256]},
            )
        )
        .training(
            lr=3e-4,
            gamma=0.995,
            train_batch_size_per_learner=args.batch,
            minibatch_size=512,
            num_epochs=4,
            entropy_coeff=0.01,
        )
        .debugging(seed=args.seed)
    )
    algo = config.build_algo()
    curve = []
    start = time.perf_counter()
    while time.perf_counter() - start < 60 * args.minutes:
        result = algo.train()
        runners = result["env_runners"]
        row = {
            "seconds": time.perf_counter() - start,
            "env_steps": int(result.get("num_env_steps_sampled_lifetime", 0)),
            "episode_return_mean": float(runners.get("episode_return_mean", float("nan"))),
            "episode_len_mean": float(runners.get("episode_len_mean", float("nan"))),
        }
        curve.append(row)
        print(
            f"{row['seconds']:7.0f} s  {row['env_steps']:>9,} steps  "
            f"return {row['episode_return_mean']:+.3f}  length {row['episode_len_mean']:.0f}",
            flush=True,
        )
    module = algo.get_module()
    report = {
        "game": args.game,
        "players": args.players,
        "opponent": args.opponent,
        "minutes": args.minutes,
        "env_runners": args.env_runners,
        "curve": curve,
        "eval": {},
    }
    for opponent in args.eval_opponents:
        res = evaluate(module, args.game, args.players, opponent, args.eval_games, 10**6)
        report["eval"][opponent] = res
        print(
            f"greedy policy vs {opponent}: {res['wins']}/{res['games']} wins "
            f"({res['win_rate']:.3f}, 95% CI [{res['ci_low']:.3f}, {res['ci_high']:.3f}])"
        )
    if args.out:
        with open(args.out, "w") as f:
            json.dump(report, f, indent=2)
    algo.stop()
    ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
