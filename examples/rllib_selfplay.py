"""Self-play PPO in RLlib on a meeple-gym game (multi-agent, masked actions), then a match
against the random baseline.

    pip install torch==2.13.0 && pip install -e ".[rllib]"   # CPU torch first (docs/rllib.md)
    python examples/rllib_selfplay.py --game century --minutes 5 --out selfplay.json

The env is ``meeple_gym.rllib.MeepleMultiAgentEnv`` (registered as ``"meeple_gym_multiagent"``):
turn-based, the seat to act observes ``{"observations", "action_mask"}``, the terminal rewards
reach every seat. Two RLModules, both RLlib's ``ActionMaskingTorchRLModule``: ``"learner"``,
trained by PPO, and ``"opponent"``, a frozen copy of the learner, refreshed every
``--sync-every`` training iterations. In each game one seat (drawn per episode) is the learner
and every other seat the opponent, so the learner always plays a recent version of itself.
After ``--minutes`` of training the greedy learner plays ``--eval-games`` games against each
``--eval-opponents`` baseline through ``meeple_gym.baselines.evaluate.play_match`` (seats
alternating, Wilson 95% interval), printed and written to ``--out`` as JSON.
"""

from __future__ import annotations

import argparse
import json
import time
import zlib

LEARNER, OPPONENT = "learner", "opponent"


def learner_seat(episode_id: str, num_players: int) -> int:
    """The learner's seat in an episode: drawn from the episode's (random) id, so each seat is
    the learner equally often; both seats of an episode map through the same id."""
    return zlib.crc32(episode_id.encode()) % num_players


def make_mapping_fn(num_players: int):
    def policy_mapping_fn(agent_id, episode, **kwargs):
        seat = int(agent_id.rsplit("_", 1)[1])  # "player_3" -> 3
        return LEARNER if seat == learner_seat(episode.id_, num_players) else OPPONENT

    return policy_mapping_fn


def build_config(args):
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import (
        ActionMaskingTorchRLModule,
    )

    from meeple_gym.rllib import MULTI_AGENT_ENV

    spec = RLModuleSpec(
        module_class=ActionMaskingTorchRLModule,
        model_config={"head_fcnet_hiddens": list(args.hidden)},
    )
    return (
        PPOConfig()
        .environment(MULTI_AGENT_ENV, env_config={"game": args.game, "num_players": args.players})
        .env_runners(num_env_runners=args.env_runners, num_envs_per_env_runner=args.envs_per_runner)
        .multi_agent(
            policies={LEARNER, OPPONENT},
            policy_mapping_fn=make_mapping_fn(args.players),
            policies_to_train=[LEARNER],
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(rl_module_specs={LEARNER: spec, OPPONENT: spec})
        )
        .training(
            lr=3e-4,
            gamma=0.995,
            train_batch_size_per_learner=args.batch,
            minibatch_size=min(512, args.batch),
            num_epochs=4,
            entropy_coeff=0.01,
        )
        .debugging(seed=args.seed)
    )


def sync_opponent(algo) -> None:
    """Copy the learner's weights into the opponent, in the learner group (checkpoints) and in
    every env runner (which plays it)."""
    group = algo.learner_group
    path = f"learner/rl_module/{LEARNER}"
    weights = group.get_state(components=path)["learner"]["rl_module"][LEARNER]
    group.set_state({"learner": {"rl_module": {OPPONENT: weights}}})
    # Set the runners' modules directly: RLlib's weight sync (Algorithm.set_state included)
    # skips a runner that already has the learner group's weights_seq_no, which the last
    # train() pushed, so it would leave their opponent as it was.
    playing = group.get_state(components=path, inference_only=True)["learner"]["rl_module"]
    playing = playing[LEARNER]
    algo.env_runner_group.foreach_env_runner(
        lambda runner: runner.module[OPPONENT].set_state(playing), local_env_runner=True
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="century")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--minutes", type=float, default=5.0, help="training wall-time budget")
    parser.add_argument("--env-runners", type=int, default=1)
    parser.add_argument("--envs-per-runner", type=int, default=4)
    parser.add_argument("--batch", type=int, default=4000, help="train batch (env steps)")
    parser.add_argument("--hidden", type=int, nargs="+", default=[256, 256])
    parser.add_argument("--sync-every", type=int, default=5, help="iterations between syncs")
    parser.add_argument("--eval-games", type=int, default=200)
    parser.add_argument("--eval-opponents", nargs="+", default=["random", "heuristic"])
    parser.add_argument(
        "--eval-sample", action="store_true", help="sample the learner's moves, not greedy"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", help="write the curve and the evaluation here (JSON)")
    args = parser.parse_args(argv)

    import ray

    import meeple_gym.rllib as mgr
    from meeple_gym.baselines.evaluate import play_match

    ray.init(num_cpus=args.env_runners + 1, include_dashboard=False, logging_level="warning")
    mgr.register_envs()  # tune registrations belong to the Ray session: make sure it has them
    algo = None
    try:
        algo = build_config(args).build_algo()
        sync_opponent(algo)  # both start from the same weights
        curve = []
        start = time.perf_counter()
        while time.perf_counter() - start < 60 * args.minutes:
            result = algo.train()
            synced = algo.iteration % args.sync_every == 0
            if synced:
                sync_opponent(algo)
            runners = result["env_runners"]
            module_returns = runners.get("module_episode_returns_mean", {})
            row = {
                "iteration": algo.iteration,
                "seconds": time.perf_counter() - start,
                "env_steps": int(runners.get("num_env_steps_sampled_lifetime", 0)),
                "episodes": int(runners.get("num_episodes_lifetime", 0)),
                # the learner's mean terminal reward against its frozen copy
                "learner_return_mean": float(module_returns.get(LEARNER, float("nan"))),
                "episode_len_mean": float(runners.get("episode_len_mean", float("nan"))),
                "synced": synced,
            }
            curve.append(row)
            print(
                f"{row['seconds']:6.0f} s  it {row['iteration']:3d}  {row['env_steps']:>8,} "
                f"steps  learner vs copy {row['learner_return_mean']:+.3f}  "
                f"length {row['episode_len_mean']:.0f}{'  (synced)' if synced else ''}",
                flush=True,
            )
        agent = mgr.RLModuleAgent(
            algo.get_module(LEARNER), name="selfplay-ppo", explore=args.eval_sample, seed=args.seed
        )
        report = {
            "game": args.game,
            "players": args.players,
            "minutes": args.minutes,
            "env_runners": args.env_runners,
            "envs_per_runner": args.envs_per_runner,
            "batch": args.batch,
            "hidden": list(args.hidden),
            "sync_every": args.sync_every,
            "eval_sample": args.eval_sample,
            "seed": args.seed,
            "curve": curve,
            "eval": {},
        }
        for opponent in args.eval_opponents:
            res = play_match(
                args.game,
                args.players,
                [agent, opponent],
                args.eval_games,
                seed=10**6 + args.seed,
                progress=False,
            )
            res.pop("winning_agent")  # one entry per game: long and not needed here
            report["eval"][opponent] = res
            mode = "sampled" if args.eval_sample else "greedy"
            print(
                f"{mode} learner vs {opponent}: {res['wins']}/{res['games']} wins, "
                f"{res['draws']} draws ({res['win_rate']:.3f}, 95% CI "
                f"[{res['ci_low']:.3f}, {res['ci_high']:.3f}])"
            )
        if args.out:
            with open(args.out, "w") as f:
                json.dump(report, f, indent=2)
    finally:
        if algo is not None:
            algo.stop()
        ray.shutdown()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
