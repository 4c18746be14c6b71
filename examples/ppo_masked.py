"""Masked PPO on a meeple-gym vector env: one file, CleanRL style (PyTorch, CPU).

    python examples/ppo_masked.py --game century --time-limit 600 --seed 1
    MEEPLE_CHECKPOINT=runs/ppo_century.pt \\
        meeple eval --game century --agents meeple_gym.baselines.torch_agent:PolicyAgent random

The learner plays one seat of ``--num-envs`` games stepped together by
``gymnasium.make_vec(..., vectorization_mode="vector_entry_point")``; the opponent seats
("random", "heuristic", ...) move inside the batch, so every row is a learner decision. The
policy never picks an illegal action: the logits of actions the mask forbids are set to a
large negative number before the softmax, both when acting and in the update (the stored
masks are replayed), so the ratio and the entropy are those of the masked distribution.

Auto-reset is gymnasium's SAME_STEP mode (asked for: the vector env's default is NEXT_STEP):
when a row's game ends, the next observation is already the new game's, which is what
CleanRL's GAE expects. A truncated game (step cap) is
bootstrapped from ``info["final_obs"]``.

Results, the learning curve and the exact evaluation commands: docs/learning.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from pathlib import Path

import gymnasium
import numpy as np
import torch
from torch import nn
from torch.distributions import Categorical

import meeple_gym  # noqa: F401  (registers meeple_gym/<Game>-v0)
from meeple_gym.baselines.torch_agent import build_mlp, masked_logits, save_checkpoint


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    a = p.add_argument
    a("--game", default="century", help="century, radlands, everdell or endeavor")
    a("--num-players", type=int, default=2)
    a("--opponent", default="random", help='"random", "heuristic" or "package.module:Agent"')
    a("--seed", type=int, default=1)
    # One torch thread: these matrices are small, and on a busy 2-core machine a second thread
    # made every iteration several times slower (measured); the env steps in between.
    a("--threads", type=int, default=1, help="torch.set_num_threads")
    a("--total-timesteps", type=int, default=2_000_000, help="learner steps to train")
    a("--time-limit", type=float, default=600.0, help="stop early after this many seconds")
    a("--num-envs", type=int, default=64)
    a("--num-steps", type=int, default=128, help="rollout length per env and iteration")
    a("--hidden", type=int, nargs="+", default=[128, 128])
    a("--learning-rate", type=float, default=2.5e-4)
    a("--no-anneal-lr", dest="anneal_lr", action="store_false")
    a("--gamma", type=float, default=0.995)
    a("--gae-lambda", type=float, default=0.95)
    a("--num-minibatches", type=int, default=4)
    a("--update-epochs", type=int, default=4)
    a("--clip-coef", type=float, default=0.2)
    a("--ent-coef", type=float, default=0.01)
    a("--vf-coef", type=float, default=0.5)
    a("--max-grad-norm", type=float, default=0.5)
    a("--target-kl", type=float, default=None)
    a("--init", metavar="CKPT", help="start from this checkpoint's weights (a curriculum)")
    a("--checkpoint", default=None, help="where to save (default runs/ppo_<game>.pt)")
    a("--curve", default=None, help="learning-curve JSON (default: beside the checkpoint)")
    a(
        "--overwrite",
        action="store_true",
        help="replace an existing checkpoint or curve (refused by default: the repository "
        "ships the ones its docs quote)",
    )
    a("--eval-games", type=int, default=0, help="after training: games vs --eval-opponents")
    a("--eval-opponents", nargs="+", default=["random", "heuristic"])
    a("--quiet", action="store_true")
    a("--plot", metavar="PNG", help="draw the learning curve(s) to PNG (needs matplotlib)")
    a("--from-curves", nargs="+", metavar="JSON", help="with --plot: only plot these runs")
    args = p.parse_args(argv)
    args.checkpoint = Path(args.checkpoint or f"runs/ppo_{args.game}.pt")
    args.curve = Path(args.curve) if args.curve else args.checkpoint.with_suffix(".json")
    return args


class Agent(nn.Module):
    """Separate actor and critic MLPs over the observation scaled to [0, 1]."""

    def __init__(self, obs_high: np.ndarray, num_actions: int, hidden: list[int]):
        super().__init__()
        self.register_buffer("obs_scale", torch.as_tensor(1.0 / obs_high, dtype=torch.float32))
        self.critic = build_mlp(obs_high.shape[0], hidden, 1, out_std=1.0)
        self.actor = build_mlp(obs_high.shape[0], hidden, num_actions, out_std=0.01)

    def get_value(self, x):
        return self.critic(x * self.obs_scale)

    def get_action_and_value(self, x, mask, action=None):
        x = x * self.obs_scale
        dist = Categorical(logits=masked_logits(self.actor(x), mask))
        if action is None:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.critic(x)


def train(args) -> dict:
    random.seed(args.seed)
    torch.manual_seed(args.seed)  # sampling, minibatch order, initial weights
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)

    envs = gymnasium.make_vec(
        f"meeple_gym/{args.game.capitalize()}-v0",
        num_envs=args.num_envs,
        vectorization_mode="vector_entry_point",
        num_players=args.num_players,
        opponent=args.opponent,
        autoreset_mode="SameStep",  # the rollout below stores no reset steps
    )
    obs_high = envs.single_observation_space.high.astype(np.float32)
    num_actions = int(envs.single_action_space.n)
    agent = Agent(obs_high, num_actions, args.hidden)
    if args.init:
        from meeple_gym.baselines.torch_agent import load_checkpoint

        init = load_checkpoint(args.init)
        if init["game"] != args.game or init["hidden"] != list(args.hidden):
            raise SystemExit(f"--init {args.init}: trained for another game or --hidden")
        agent.actor.load_state_dict(init["actor"])
        agent.critic.load_state_dict(init["critic"])
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    n, t_len = args.num_envs, args.num_steps
    batch_size = n * t_len
    minibatch_size = batch_size // args.num_minibatches
    obs_buf = torch.zeros((t_len, n, obs_high.shape[0]))
    mask_buf = torch.zeros((t_len, n, num_actions), dtype=torch.bool)
    actions = torch.zeros((t_len, n), dtype=torch.long)
    logprobs = torch.zeros((t_len, n))
    rewards = torch.zeros((t_len, n))
    dones = torch.zeros((t_len, n))
    values = torch.zeros((t_len, n))

    next_obs_np, info = envs.reset(seed=args.seed)
    next_obs = torch.as_tensor(next_obs_np)
    next_mask = torch.as_tensor(info["action_mask"] != 0)
    next_done = torch.zeros(n)
    ep_len = np.zeros(n, dtype=np.int64)  # learner steps of each row's current game

    curve = []  # one entry per iteration
    global_step = 0
    start = time.perf_counter()
    iteration = 0
    while global_step < args.total_timesteps:
        elapsed = time.perf_counter() - start
        if elapsed >= args.time_limit:
            break
        iteration += 1
        if args.anneal_lr:  # by steps, not time, so that a seed replays the same run
            frac = 1.0 - global_step / args.total_timesteps
            optimizer.param_groups[0]["lr"] = frac * args.learning_rate

        wins = losses = draws = 0
        lengths = []
        t_rollout = time.perf_counter()
        for step in range(t_len):
            global_step += n
            obs_buf[step] = next_obs
            mask_buf[step] = next_mask
            dones[step] = next_done
            with torch.no_grad():
                action, logprob, _, value = agent.get_action_and_value(next_obs, next_mask)
            values[step] = value.flatten()
            actions[step] = action
            logprobs[step] = logprob

            next_obs_np, reward, term, trunc, info = envs.step(action.numpy())
            done = term | trunc
            reward = reward.astype(np.float32)
            ep_len += 1
            if trunc.any():  # bootstrap a cut-off game from its final observation
                rows = np.flatnonzero(trunc)
                final = torch.as_tensor(np.stack(info["final_obs"][rows]).astype(np.float32))
                with torch.no_grad():
                    reward[rows] += args.gamma * agent.get_value(final).flatten().numpy()
            if done.any():
                ended = np.flatnonzero(done)
                r = reward[ended]
                wins += int((term[ended] & (r > 0)).sum())
                losses += int((term[ended] & (r < 0)).sum())
                draws += int(ended.size - (term[ended] & (r != 0)).sum())
                lengths += ep_len[ended].tolist()
                ep_len[ended] = 0
            rewards[step] = torch.as_tensor(reward)
            next_obs = torch.as_tensor(next_obs_np)
            next_mask = torch.as_tensor(info["action_mask"] != 0)
            next_done = torch.as_tensor(done, dtype=torch.float32)

        t_update = time.perf_counter()
        # Generalised advantage estimation (dones[t] marks obs[t] as a new game's first).
        with torch.no_grad():
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(t_len)):
                if t == t_len - 1:
                    nextnonterminal = 1.0 - next_done
                    nextvalues = next_value
                else:
                    nextnonterminal = 1.0 - dones[t + 1]
                    nextvalues = values[t + 1]
                delta = rewards[t] + args.gamma * nextvalues * nextnonterminal - values[t]
                lastgaelam = delta + args.gamma * args.gae_lambda * nextnonterminal * lastgaelam
                advantages[t] = lastgaelam
            returns = advantages + values

        b_obs = obs_buf.reshape((-1, obs_high.shape[0]))
        b_masks = mask_buf.reshape((-1, num_actions))
        b_logprobs = logprobs.reshape(-1)
        b_actions = actions.reshape(-1)
        b_advantages = advantages.reshape(-1)
        b_returns = returns.reshape(-1)
        b_values = values.reshape(-1)

        clipfracs = []
        for _epoch in range(args.update_epochs):
            b_inds = torch.randperm(batch_size)
            for start_i in range(0, batch_size, minibatch_size):
                mb = b_inds[start_i : start_i + minibatch_size]
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                    b_obs[mb], b_masks[mb], b_actions[mb]
                )
                logratio = newlogprob - b_logprobs[mb]
                ratio = logratio.exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs.append(((ratio - 1.0).abs() > args.clip_coef).float().mean().item())
                mb_adv = b_advantages[mb]
                mb_adv = (mb_adv - mb_adv.mean()) / (mb_adv.std() + 1e-8)
                pg_loss = torch.max(
                    -mb_adv * ratio,
                    -mb_adv * torch.clamp(ratio, 1 - args.clip_coef, 1 + args.clip_coef),
                ).mean()
                newvalue = newvalue.view(-1)
                v_clipped = b_values[mb] + torch.clamp(
                    newvalue - b_values[mb], -args.clip_coef, args.clip_coef
                )
                v_loss = (
                    0.5
                    * torch.max(
                        (newvalue - b_returns[mb]) ** 2, (v_clipped - b_returns[mb]) ** 2
                    ).mean()
                )
                entropy_loss = entropy.mean()
                loss = pg_loss - args.ent_coef * entropy_loss + v_loss * args.vf_coef
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
            if args.target_kl is not None and approx_kl > args.target_kl:
                break

        games = wins + losses + draws
        now = time.perf_counter()
        entry = {
            "rollout_seconds": t_update - t_rollout,
            "update_seconds": now - t_update,
            "iteration": iteration,
            "global_step": global_step,
            "wall_time": time.perf_counter() - start,
            "games": games,
            "wins": wins,
            "losses": losses,
            "draws": draws,
            "mean_length": float(np.mean(lengths)) if lengths else None,
            "loss": float(loss.item()),
            "pg_loss": float(pg_loss.item()),
            "v_loss": float(v_loss.item()),
            "entropy": float(entropy_loss.item()),
            "approx_kl": float(approx_kl.item()),
            "clipfrac": float(np.mean(clipfracs)),
            "lr": optimizer.param_groups[0]["lr"],
        }
        curve.append(entry)
        if not args.quiet:
            rate = f"{wins / games:.3f}" if games else "  -  "
            length = f"{entry['mean_length']:.0f}" if lengths else "-"
            print(
                f"it {iteration:4d} step {global_step:9,d} {entry['wall_time']:6.0f}s "
                f"{global_step / entry['wall_time']:6.0f} sps  games {games:4d} win {rate} "
                f"len {length:>4}  loss {entry['loss']:+.3f} v {entry['v_loss']:.3f} "
                f"ent {entry['entropy']:.2f} kl {entry['approx_kl']:.4f} "
                f"({entry['rollout_seconds']:.1f}+{entry['update_seconds']:.1f}s)",
                flush=True,
            )

    train_time = time.perf_counter() - start
    envs.close()
    meta = {
        "global_step": global_step,
        "iterations": iteration,
        "train_seconds": train_time,
        "seed": args.seed,
        "threads": args.threads,
        "opponent": str(args.opponent),
        "load_average": list(os.getloadavg()),
        "args": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
    }
    save_checkpoint(
        args.checkpoint,
        game=args.game,
        num_players=args.num_players,
        obs_high=obs_high,
        hidden=args.hidden,
        actor=agent.actor,
        critic=agent.critic,
        meta=meta,
    )
    result = dict(meta, checkpoint=str(args.checkpoint), curve=curve)
    return result


def evaluate(args, result: dict) -> dict:
    """``play_match`` of the saved checkpoint (greedy) against each opponent, seats rotated."""
    from meeple_gym.baselines.evaluate import play_match
    from meeple_gym.baselines.torch_agent import PolicyAgent

    out = {}
    for opponent in args.eval_opponents:
        agent = PolicyAgent(args.game, seed=args.seed, path=args.checkpoint)
        r = play_match(
            args.game, args.num_players, [agent, opponent], args.eval_games, seed=args.seed
        )
        out[opponent] = {
            k: r[k]
            for k in (
                "games",
                "wins",
                "draws",
                "losses",
                "win_rate",
                "ci_low",
                "ci_high",
                "mean_length",
                "mean_scores",
            )
        }
        print(
            f"eval vs {opponent}: {r['wins']}/{r['games']} wins, win rate {r['win_rate']:.3f} "
            f"95% CI (Wilson) [{r['ci_low']:.3f}, {r['ci_high']:.3f}]",
            flush=True,
        )
    return out


def plot(curve_paths, png) -> Path:
    """Win rate of the training games (the sampling policy against the training opponent)
    and mean game length against wall time, one line per run; the final greedy evaluation
    against random as a point with its Wilson interval."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax_win, ax_len) = plt.subplots(1, 2, figsize=(11, 4.2))
    for path in curve_paths:
        run = json.loads(Path(path).read_text())
        curve = run["curve"]
        label = f"{run['args']['game']} vs {run['opponent']} (seed {run['seed']})"
        if run["args"].get("init"):
            label += f", from {Path(run['args']['init']).name}"
        minutes = np.array([e["wall_time"] for e in curve]) / 60
        wins = np.array([e["wins"] for e in curve], dtype=float)
        games = np.array([e["games"] for e in curve], dtype=float)
        k = 5  # pool neighbouring iterations: a few dozen games each
        kernel = np.ones(k)
        pooled_games = np.maximum(np.convolve(games, kernel, "same"), 1)
        pooled = np.convolve(wins, kernel, "same") / pooled_games
        (line,) = ax_win.plot(minutes, pooled, label=label)
        lengths = [e["mean_length"] if e["mean_length"] is not None else np.nan for e in curve]
        ax_len.plot(minutes, lengths, color=line.get_color(), label=label)
        final = run.get("eval", {}).get("random")
        if final:
            t = run["train_seconds"] / 60
            err = [[final["win_rate"] - final["ci_low"]], [final["ci_high"] - final["win_rate"]]]
            ax_win.errorbar(
                [t], [final["win_rate"]], yerr=err, fmt="o", color=line.get_color(), capsize=3
            )
    ax_win.axhline(0.95, color="grey", ls=":", lw=1)
    ax_win.set(
        xlabel="training wall time (min)",
        ylabel="win rate of training games",
        ylim=(0, 1.02),
        title="wins vs the training opponent (dot: greedy eval vs random)",
    )
    ax_len.set(
        xlabel="training wall time (min)", ylabel="learner decisions per game", title="game length"
    )
    ax_win.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    png = Path(png)
    png.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(png, dpi=110)
    plt.close(fig)
    return png


def main(argv=None) -> dict:
    args = parse_args(argv)
    if args.from_curves:
        if not args.plot:
            raise SystemExit("--from-curves needs --plot PNG")
        print(f"plot written to {plot(args.from_curves, args.plot)}")
        return {}
    for path in (args.checkpoint, args.curve):
        if path.exists() and not args.overwrite:
            # Checked before training: an hour's run must not end in a refused write, and a
            # committed checkpoint must not be replaced by a rerun of the docs' command.
            raise SystemExit(f"{path} exists; choose another --checkpoint or pass --overwrite")
    result = train(args)
    print(
        f"trained {result['global_step']:,} steps in {result['train_seconds']:.0f} s; "
        f"checkpoint {args.checkpoint}",
        flush=True,
    )
    if args.eval_games > 0:
        result["eval"] = evaluate(args, result)
    args.curve.parent.mkdir(parents=True, exist_ok=True)
    args.curve.write_text(json.dumps(result, indent=1) + "\n")
    if args.plot:
        print(f"plot written to {plot([args.curve], args.plot)}")
    return result


if __name__ == "__main__":
    main()
