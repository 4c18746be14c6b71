"""Can a network learn the rollout algorithm's choices? A data-size study (needs torch).

    python benchmarks/distill_targets.py --game everdell --train-games 256 512 1024 \
        --out benchmarks/results/net/everdell_rollout_targets.json

The question behind it: the heuristic's paired play-outs of every move (``RolloutAgent``,
meeple_gym.baselines.rollout) pick better moves than the heuristic itself, so a network that
learned those choices would beat the heuristic without searching. This measures how much of
that a network of the trainer's shape learns from a given number of games.

1. ``RolloutAgent`` (``--samples`` play-outs a move) plays ``--expert-games`` games against
   the heuristic, seats rotated: the strength of the targets.
2. Examples: the heuristic plays the heuristic, ``--train-games`` games for training and
   ``--valid-games`` others (another seed) for checking; at each decision of seat ``i % 2``
   of game ``i`` with a choice, the rollout values of every move are the target (the softmax
   of their mean score margins over ``--temperature`` points), and with chance 0.25 the
   rollout algorithm's move is played instead of the heuristic's (``net_train.collect``,
   ``targets="rollouts"``, the untrained correction as the learner).
3. For each training size (the first N games), a fresh correction to the heuristic
   (``--anchor-weight``, the trainer's ``Model``) trains ``--epochs`` passes; after each pass,
   on the held-out games: the share of decisions where its greedy move is not the heuristic's,
   and the *regret* of its move and of the heuristic's: how many points of mean score margin
   each gives up against the best move by the targets (measured with the same noisy values,
   so the best move's regret is 0 and a move can only look worse than it is). The pass with
   the least held-out regret is kept and plays ``--eval-games`` games against the heuristic.

Writes the figures as JSON and prints them.
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

from meeple_gym.baselines import net_train  # noqa: E402
from meeple_gym.baselines.evaluate import agent_seed, make_agent, play_match  # noqa: E402
from meeple_gym.baselines.net_agent import NetAgent  # noqa: E402
from meeple_gym.baselines.rollout import RolloutAgent  # noqa: E402
from meeple_gym.core.registry import get_spec  # noqa: E402


def examples(game, games, seed, samples, temperature):
    return net_train.collect(
        game,
        games,
        seed,
        learner=make_agent("heuristic", game),
        expert=RolloutAgent(game, samples=samples, seed=agent_seed(seed, 1)),
        expert_share=0.25,
        targets="rollouts",
        target_temperature=temperature,
    )


def first_games(data: dict, games: int) -> dict:
    keep = data["row"] < games
    return {k: v[keep] for k, v in data.items()}


def held_out(model, data: dict, temperature: float) -> dict:
    """Override share and regrets (points of mean margin) on ``data``."""
    import torch

    with torch.no_grad():
        logits, _ = model(torch.as_tensor(data["obs"]), torch.as_tensor(data["anchor"]))
    legal = data["mask"] != 0
    picks = np.where(legal, logits.numpy(), -np.inf).argmax(axis=1)
    # Margins up to a constant per row: temperature * log of the softmax target.
    margins = temperature * np.log(np.maximum(data["policy"], 1e-30))
    rows = np.arange(picks.size)
    best = margins[rows, data["target"]]
    policy_loss, _ = net_train.loss_terms(
        model,
        torch.as_tensor(data["obs"]),
        torch.as_tensor(legal),
        torch.as_tensor(data["target"]),
        torch.as_tensor(data["value"]),
        torch.as_tensor(data["anchor"]),
        torch.as_tensor(data["policy"]),
    )
    return {
        "policy_loss": float(policy_loss.detach()),
        "overrides": float(np.mean(picks != data["anchor"])),
        "regret": float(np.mean(best - margins[rows, picks])),
        "heuristic_regret": float(np.mean(best - margins[rows, data["anchor"]])),
    }


def study(args) -> dict:
    import torch

    torch.manual_seed(args.seed)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(args.threads)
    game, started = args.game, time.perf_counter()
    result = {"game": game, "settings": vars(args).copy()}
    if args.expert_games:
        expert = RolloutAgent(game, samples=args.samples, seed=args.seed)
        match = play_match(
            game, 2, [expert, "heuristic"], args.expert_games, seed=args.seed, progress=False
        )
        result["expert_vs_heuristic"] = {
            k: match[k] for k in ("wins", "draws", "games", "win_rate", "ci_low", "ci_high")
        }
        print("rollout agent vs heuristic:", result["expert_vs_heuristic"], flush=True)
    sizes = sorted(args.train_games)
    train = examples(game, sizes[-1], args.seed, args.samples, args.temperature)
    valid = examples(game, args.valid_games, args.seed + 1, args.samples, args.temperature)
    result["examples"] = {"train": int(train["target"].size), "valid": int(valid["target"].size)}
    result["collect_seconds"] = time.perf_counter() - started
    spec = get_spec(game)
    high = np.broadcast_to(np.asarray(spec.obs_high, np.float32), (spec.obs_size,))
    scale = 1.0 / np.maximum(high, 1.0)
    meta = {"game": game, "obs_size": spec.obs_size, "num_actions": spec.num_actions}
    result["sizes"] = []
    for games in sizes:
        data = first_games(train, games)
        model = net_train.Model(
            scale, spec.num_actions, list(args.hidden), args.seed, args.anchor_weight
        )
        optimizer = torch.optim.Adam(model.parameters(), lr=args.learning_rate)
        rng = np.random.default_rng(args.seed)
        passes, best = [held_out(model, valid, args.temperature)], None
        best_path = Path(args.workdir) / f"{game}_{games}.npz"
        best_path.parent.mkdir(parents=True, exist_ok=True)
        net_train.save(model, best_path, meta)
        for _ in range(args.epochs):
            net_train.fit(model, optimizer, data, 1, args.batch_size, rng)
            passes.append(held_out(model, valid, args.temperature))
            if best is None or passes[-1]["regret"] < passes[best]["regret"]:
                best = len(passes) - 1
                net_train.save(model, best_path, meta)
        match = play_match(
            game,
            2,
            [NetAgent(game, path=best_path), "heuristic"],
            args.eval_games,
            seed=args.seed + 11,
            progress=False,
        )
        row = {
            "train_games": games,
            "examples": int(data["target"].size),
            "passes": passes,  # pass 0: the untrained correction, which plays the heuristic
            "best_pass": best,
            "vs_heuristic": {
                k: match[k] for k in ("wins", "draws", "games", "win_rate", "ci_low", "ci_high")
            },
        }
        result["sizes"].append(row)
        print(
            f"{games} games ({row['examples']} examples): best pass {best}, held-out regret "
            f"{passes[best]['regret']:.3f} (heuristic {passes[0]['heuristic_regret']:.3f}), "
            f"overrides {passes[best]['overrides']:.1%}, vs heuristic "
            f"{match['win_rate']:.1%} [{match['ci_low']:.1%}, {match['ci_high']:.1%}]",
            flush=True,
        )
    result["seconds"] = time.perf_counter() - started
    return result


def main(argv=None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--game", default="everdell")
    p.add_argument("--train-games", type=int, nargs="+", default=[256, 512, 1024])
    p.add_argument("--valid-games", type=int, default=256)
    p.add_argument("--samples", type=int, default=16, help="play-outs a move")
    p.add_argument("--temperature", type=float, default=2.0, help="of the margins' softmax")
    p.add_argument("--expert-games", type=int, default=200)
    p.add_argument("--eval-games", type=int, default=200)
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--learning-rate", type=float, default=1e-3)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--hidden", type=int, nargs="+", default=[192, 192])
    p.add_argument("--anchor-weight", type=float, default=2.0)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workdir", default="runs/distill", help="where the networks go")
    p.add_argument("--out", default="benchmarks/results/net/distill_targets.json")
    args = p.parse_args(argv)
    result = study(args)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=1))
    print(json.dumps({k: v for k, v in result.items() if k != "sizes"}, indent=1))
    return result


if __name__ == "__main__":
    main()
