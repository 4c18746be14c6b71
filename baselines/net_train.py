"""Train a policy/value network for ``NetAgent``: expert iteration, then PPO (needs torch).

    python -m meeple_gym.baselines.net_train --game century --out runs/net_century.npz

Method (docs/baselines.md, "The learned agent"):

1. **Imitation.** Games of the heuristic against itself, with a few random moves for variety;
   every decision of either seat is a training example whose target is the heuristic's move.
   The network learns to play like the heuristic.
2. **Expert iteration rounds** (DAgger). The network plays the heuristic, seats rotating. At
   each of its decisions the ISMCTS search (``meeple_gym.baselines.ismcts``, the game's default
   budget unless ``--sims``) picks a move for the same position: that move is the target. The
   network plays its own move (sampled from its policy), or with chance ``--expert-share`` the
   search's, so the positions are the ones the network reaches against the heuristic. The
   examples of every round are kept and the network trains further on all of them.
3. **Policy gradient** (``--ppo-iterations``, PPO). The network, sampling from its policy,
   plays batches of ``--ppo-games`` games against the heuristic, seats rotating; each of its
   decisions is pushed toward the game's outcome (+1 for a win, -1 for a loss or a draw) less
   the value head's estimate (``--gae-lambda`` below 1: GAE over the value head's estimates at
   the network's next decisions of the same game), with PPO's clipped ratio and an entropy
   bonus. Imitation and search targets teach the network to play well; this stage teaches it
   to beat the heuristic it is measured against.

``--anchor-weight W`` (above 0) trains a correction to the heuristic instead of a whole
policy: the heuristic's move gets ``W`` added to its logit (``NetAgent``), the policy layer
starts at zero, so the network starts out playing exactly the heuristic and the imitation stage
is skipped (the value layer starts at zero too); the search targets then teach it where to
play otherwise. ``--round-play greedy`` has the network play its likeliest move in the rounds'
games instead of a sample.
``--anchor-generations N`` first learns the coefficients of the anchor heuristic's move values
(a heuristic that has them: Everdell's) by N generations of the cross-entropy method against
the heuristic (``meeple_gym.baselines.coef_train``); the anchor plays with them from then on,
and the weights file keeps them.

``--targets`` sets what the rounds learn: ``move`` (the search's move, the default),
``visits`` (the share of the search's iterations each root move had, a distribution; its
cross-entropy is the loss) or ``rollouts`` (the expert is ``RolloutAgent`` instead of the
search: every legal move played out ``--rollout-samples`` times by the heuristic on paired
determinizations, the target the softmax of the moves' mean score margins over
``--target-temperature`` points).

Examples are kept as bytes when the observation holds only whole numbers up to 255 (all four
games' encoders), a quarter of float32's memory.

``--init WEIGHTS`` starts from a weights file of the same sizes instead of the imitation stage
(for example, to run the policy-gradient stage on the weights of an earlier run).

The value head learns the final reward of the player to act (+1 win, -1 loss, 0 otherwise;
in the policy-gradient stage a draw counts -1). After every round (every ``--eval-every``
batches of the policy-gradient stage) the network plays ``--eval-games`` games (greedily,
or sampling from its policy under ``--play sample``) against the heuristic (seats rotated, a
fixed seed) and the win rate with its Wilson interval goes on the learning curve, with the
elapsed time; the curve is written as JSON beside the weights and drawn as a PNG when
matplotlib is installed. Weights are written at every point
(``--out``, NumPy only), and the point that did best in those games is kept beside them
(``<out>_best.npz``).

The run is seeded: the same arguments, seed and thread count give the same weights.
``--minutes`` stops early after the round or batch that passes the budget (then the number of
rounds and batches, not the seed, depends on the machine's speed).
"""

from __future__ import annotations

import argparse
import json
import shutil
import time
from pathlib import Path

import numpy as np

from meeple_gym.baselines.coef_train import coefficient_heuristic, cross_entropy_method
from meeple_gym.baselines.evaluate import agent_seed, make_agent, play_match, record_policy
from meeple_gym.baselines.kernel_agent import game_heuristic
from meeple_gym.baselines.net_agent import PLAY_MODES, NetAgent, check_temperature, save_net
from meeple_gym.baselines.rollout import best_moves
from meeple_gym.core.batch import MAX_SEED
from meeple_gym.core.errors import OptionError
from meeple_gym.core.options import check_int
from meeple_gym.core.registry import get_spec, make_batch
from meeple_gym.core.rng import py_derive_key
from meeple_gym.core.sampling import policy_words, random_legal_actions

_ROUND_STREAM = 0x4E45  # RNG stream id of the seeds of each round's games
_PPO_STREAM = 0x5050  # and of the policy-gradient stage's
_COEF_STREAM = 0x434F  # and of the coefficient stage's


def play_against_heuristic(game: str, num_games: int, seed: int, decide, both_seats=False):
    """Play ``num_games`` two-player games, the learner in seat ``i % 2`` of game ``i`` (in both
    seats under ``both_seats``) and the heuristic in the other. ``decide(batch, rows, obs,
    mask, random_moves)`` returns the learner's moves in the games ``rows`` (their
    observations, masks and a seeded random legal move each) and records what it wants.
    Returns each game's last rewards (num_games x 2), its last ``terminated`` and
    ``truncated`` flags and the learner's seat per game."""
    heuristic = make_agent("heuristic", game)
    batch = make_batch(game, num_games, 2, seed)
    obs = batch.reset()
    done = np.zeros(num_games, dtype=bool)
    learner_seat = np.arange(num_games) % 2
    actions = np.zeros(num_games, dtype=np.int64)
    filler = policy_words(seed, num_games)
    final = np.zeros((num_games, 2), dtype=np.float32)
    terminated = np.zeros(num_games, dtype=bool)
    truncated = np.zeros(num_games, dtype=bool)
    while not done.all():
        random_legal_actions(batch.legal_mask, filler, actions)  # finished games need one too
        mask = batch.legal_mask
        mine = ~done & ((batch.current_player == learner_seat) | both_seats)
        theirs = np.flatnonzero(~done & ~mine)
        if theirs.size:
            actions[theirs] = heuristic.act_batch(obs[theirs], mask[theirs])
        rows = np.flatnonzero(mine)
        if rows.size:
            actions[rows] = decide(batch, rows, obs[rows], mask[rows], actions[rows])
        obs, rewards, term, trunc = batch.step(actions)
        ended = np.flatnonzero((term | trunc) & ~done)
        if ended.size:
            done[ended] = True
            final[ended] = rewards[ended, :2]
            terminated[ended] = term[ended]
            truncated[ended] = trunc[ended]
    return final, terminated, truncated, learner_seat


def collect(
    game: str,
    num_games: int,
    seed: int,
    learner=None,
    expert=None,
    expert_share: float = 0.0,
    epsilon: float = 0.0,
    both_seats: bool = False,
    targets: str = "move",
    target_temperature: float = 2.0,
    anchor_coefficients=None,
) -> dict:
    """Play ``num_games`` two-player games against the heuristic and return the examples:
    ``obs`` (``compact_observations``), ``mask`` (int8), ``target`` (the expert's move),
    ``value`` (the final reward of the player who decided); with ``targets="visits"`` also
    ``policy``, the search's visits at the root as a distribution (the expert must be the
    search: ``ISMCTSAgent.root_statistics``); with ``targets="rollouts"`` (the expert a
    ``RolloutAgent``) ``policy`` is the softmax of the moves' mean score margins over
    ``target_temperature`` and ``target`` the best move by margin. The learner sits in seat
    ``i % 2`` of game ``i`` (``both_seats``: every decision is recorded, the heuristic playing
    both seats).
    ``learner``: an agent playing the learner's seat (None: the expert's move is played);
    ``expert``: an agent with ``act_states`` (the search) or ``act_batch`` giving the targets
    (None: the heuristic). Decisions with one legal move are not recorded.
    ``anchor_coefficients``: the anchor (``anchor``, and the move played where the learner is
    not asked) is the heuristic with these coefficients of its move values."""
    rng = np.random.default_rng(seed)
    heuristic = game_heuristic(game, anchor_coefficients)
    expert = heuristic if expert is None else expert
    search = record_policy(expert)
    if targets not in TARGETS:
        raise OptionError(f"targets must be one of {TARGETS}, got {targets!r}")
    soft = targets != "move"
    needs = {
        "visits": ("root_statistics", "the search"),
        "rollouts": ("move_values", "a RolloutAgent"),
    }
    method, who = needs.get(targets, (None, None))
    if method and not callable(getattr(expert, method, None)):
        raise OptionError(f"targets={targets!r} needs {who} as the expert")
    parts = {"obs": [], "mask": [], "target": [], "anchor": [], "row": [], "player": []}
    if soft:
        parts["policy"] = []

    def decide(batch, rows, obs, mask, random_moves):
        choice = (mask != 0).sum(axis=1) > 1
        chosen = rows[choice]
        played = heuristic.act_batch(obs, mask)  # forced moves, no learner, and the anchor
        if chosen.size:
            if targets == "visits":  # the batch's own records: no snapshot check
                root = np.zeros((chosen.size, 2, mask.shape[1]), dtype=np.float32)
                moves = expert._search(batch.states[chosen], root)
                visits = root[:, 0]
                parts["policy"].append(visits / visits.sum(axis=1, keepdims=True))
            elif targets == "rollouts":
                values = expert._values(batch.states[chosen])
                moves = best_moves(values, mask[choice])
                parts["policy"].append(
                    margin_policy(values[:, 1], mask[choice], target_temperature)
                )
            elif search is not None:
                moves = search(batch.states[chosen])
            else:
                moves = expert.act_batch(obs[choice], mask[choice])
            for key, value in (
                ("obs", compact_observations(obs[choice])),
                ("mask", mask[choice]),
                ("target", moves),
                ("anchor", played[choice]),
                ("row", chosen),
                ("player", batch.current_player[chosen]),
            ):
                parts[key].append(np.array(value))
        if chosen.size:
            own = moves
            if learner is not None:
                own = learner.act_batch(obs[choice], mask[choice])
                own = np.where(rng.random(chosen.size) < expert_share, moves, own)
            played[choice] = own
        if epsilon > 0:  # a random legal move now and then, for positions off the track
            wild = rng.random(rows.size) < epsilon
            played[wild] = random_moves[wild]
        return played

    final, _, truncated, _ = play_against_heuristic(game, num_games, seed, decide, both_seats)
    final = np.where(truncated[:, None], 0.0, np.sign(final)).astype(np.float32)
    out = {k: np.concatenate(v) if v else np.zeros(0) for k, v in parts.items()}
    out["value"] = final[out["row"].astype(np.int64), out["player"].astype(np.int64)]
    out["obs"] = compact_observations(out["obs"])
    out["mask"] = out["mask"].astype(np.int8, copy=False)
    out["target"] = out["target"].astype(np.int64, copy=False)
    if soft:
        out["policy"] = out["policy"].astype(np.float32, copy=False)
    out["anchor"] = out["anchor"].astype(np.int64, copy=False)
    return out


def margin_policy(margins: np.ndarray, masks: np.ndarray, temperature: float) -> np.ndarray:
    """Per row, the softmax of the legal moves' ``margins`` over ``temperature`` (float32,
    zero on illegal moves): moves within a few points share the target, a clearly better one
    takes it."""
    legal = masks != 0
    scaled = np.where(legal, margins / temperature, -np.inf)
    weights = np.exp(scaled - scaled.max(axis=1, keepdims=True))
    return (weights / weights.sum(axis=1, keepdims=True)).astype(np.float32)


def compact_observations(obs: np.ndarray) -> np.ndarray:
    """``obs`` as uint8 when every entry is a whole number in [0, 255] (the one-hot and count
    encoders: a quarter of float32's memory, so four times the examples fit), else float32."""
    obs = np.asarray(obs)
    if obs.dtype == np.uint8:
        return obs
    small = obs.astype(np.uint8)
    if obs.size and np.array_equal(small, obs):
        return small
    return obs.astype(np.float32, copy=False)


class Model:
    """The torch twin of ``NetAgent``'s network: ReLU trunk, policy and value heads; with
    ``anchor_weight`` above 0 the heuristic's move (``anchor``) gets that much on its logit."""

    def __init__(
        self,
        obs_scale: np.ndarray,
        num_actions: int,
        hidden: list[int],
        seed: int,
        anchor_weight: float = 0.0,
    ):
        import torch
        from torch import nn

        torch.manual_seed(seed)
        sizes = [obs_scale.shape[0], *hidden]
        self.trunk = nn.Sequential(
            *[
                m
                for a, b in zip(sizes[:-1], sizes[1:], strict=True)
                for m in (nn.Linear(a, b), nn.ReLU())
            ]
        )
        self.policy = nn.Linear(sizes[-1], num_actions)
        self.value = nn.Linear(sizes[-1], 1)
        self.anchor_weight = float(anchor_weight)
        # Learned coefficients of the anchor heuristic's move values (None: its defaults).
        self.anchor_coefficients = None
        if self.anchor_weight > 0:  # no correction yet: the network plays the heuristic
            nn.init.zeros_(self.policy.weight)
            nn.init.zeros_(self.policy.bias)
            nn.init.zeros_(self.value.weight)  # and has no estimate yet: 0 everywhere
            nn.init.zeros_(self.value.bias)
        self.modules = nn.ModuleList([self.trunk, self.policy, self.value])
        self.obs_scale = torch.as_tensor(obs_scale, dtype=torch.float32)

    def __call__(self, obs, anchor=None):
        import torch

        x = self.trunk(obs.to(torch.float32) * self.obs_scale)
        logits = self.policy(x)
        if self.anchor_weight > 0:
            if anchor is None:
                raise ValueError("an anchored model needs the heuristic's moves")
            lift = torch.nn.functional.one_hot(torch.as_tensor(anchor), logits.shape[1])
            logits = logits + self.anchor_weight * lift
        return logits, self.value(x)[:, 0]

    def parameters(self):
        return self.modules.parameters()

    def load(self, net: dict) -> None:
        """Take the weights of ``load_net``'s dict (a network of the same sizes)."""
        import torch

        if net["anchor_weight"] != self.anchor_weight:
            raise OptionError(
                f"the initial weights have anchor_weight {net['anchor_weight']:g}, the run "
                f"{self.anchor_weight:g}"
            )
        linears = [m for m in self.trunk if hasattr(m, "weight")]
        if len(linears) != len(net["hidden"]):
            raise OptionError(
                f"the initial weights have {len(net['hidden'])} hidden layers, the model "
                f"{len(linears)}"
            )
        pairs = list(zip(linears, net["hidden"], strict=True))
        pairs += [(self.policy, net["policy"]), (self.value, net["value"])]
        with torch.no_grad():
            for linear, (w, b) in pairs:
                if tuple(linear.weight.shape) != (w.shape[1], w.shape[0]):
                    raise OptionError(
                        f"the initial weights have a layer {w.shape}, the model "
                        f"{tuple(linear.weight.shape[::-1])}"
                    )
                linear.weight.copy_(torch.as_tensor(w.T))
                linear.bias.copy_(torch.as_tensor(b))
        self.obs_scale = torch.as_tensor(net["obs_scale"], dtype=torch.float32)
        self.anchor_coefficients = net.get("anchor_coefficients")

    def export(self) -> dict:
        def pair(linear):
            return (
                linear.weight.detach().numpy().T.copy(),
                linear.bias.detach().numpy().copy(),
            )

        layers = [pair(m) for m in self.trunk if hasattr(m, "weight")]
        return {"hidden": layers, "policy": pair(self.policy), "value": pair(self.value)}


def loss_terms(model, obs, mask, target, value, anchor=None, policy=None):
    """(cross-entropy of the target move under the masked policy, value MSE); with
    ``policy`` (a distribution per row, zero on illegal moves) the cross-entropy of that
    distribution instead of the single move."""
    import torch

    logits, v = model(obs, anchor)
    logits = torch.where(mask, logits, torch.full_like(logits, -1e9))
    if policy is None:
        policy_loss = torch.nn.functional.cross_entropy(logits, target)
    else:
        log_p = torch.log_softmax(logits, dim=1)
        policy_loss = -(torch.where(mask, policy * log_p, 0.0)).sum(dim=1).mean()
    value_loss = torch.mean((torch.tanh(v) - value) ** 2)
    return policy_loss, value_loss


def fit(model, optimizer, data: dict, epochs: int, batch_size: int, rng) -> float:
    """Train ``epochs`` passes over ``data``; returns the mean loss of the last pass."""
    import torch

    obs = torch.as_tensor(data["obs"])
    mask = torch.as_tensor(data["mask"] != 0)
    target = torch.as_tensor(data["target"])
    value = torch.as_tensor(data["value"])
    anchor = torch.as_tensor(data["anchor"])
    policy = torch.as_tensor(data["policy"]) if "policy" in data else None
    n = obs.shape[0]
    last = float("nan")
    for _ in range(epochs):
        order = torch.as_tensor(rng.permutation(n))
        total, count = 0.0, 0
        for start in range(0, n, batch_size):
            idx = order[start : start + batch_size]
            p_loss, v_loss = loss_terms(
                model,
                obs[idx],
                mask[idx],
                target[idx],
                value[idx],
                anchor[idx],
                None if policy is None else policy[idx],
            )
            loss = p_loss + 0.5 * v_loss
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * idx.shape[0]
            count += idx.shape[0]
        last = total / max(count, 1)
    return last


def evaluate_loss(model, data: dict) -> float:
    import torch

    with torch.no_grad():
        p_loss, v_loss = loss_terms(
            model,
            torch.as_tensor(data["obs"]),
            torch.as_tensor(data["mask"] != 0),
            torch.as_tensor(data["target"]),
            torch.as_tensor(data["value"]),
            torch.as_tensor(data["anchor"]),
            torch.as_tensor(data["policy"]) if "policy" in data else None,
        )
    return float(p_loss + 0.5 * v_loss)


def merge(datasets: list[dict]) -> dict:
    return {k: np.concatenate([d[k] for d in datasets]) for k in datasets[0]}


def play_learner(game: str, model, num_games: int, seed: int, generator) -> dict:
    """Games of the model's sampled policy against the heuristic, the model in seat ``i % 2``
    of game ``i``. Returns the model's decisions that had a choice: ``obs``, ``mask``,
    ``action``, ``logp`` (of the action when it was sampled), ``old_value`` (the value head
    then) and ``value``: +1 if the model won that game, else -1 (a draw counts as a loss: the
    stage maximises wins against the heuristic)."""
    import torch

    parts = {k: [] for k in ("obs", "mask", "action", "logp", "old_value", "anchor", "row")}
    heuristic = None
    if model.anchor_weight > 0:
        heuristic = game_heuristic(game, model.anchor_coefficients)

    def decide(batch, rows, obs, mask, random_moves):
        anchor = np.zeros(rows.size, np.int64)
        if heuristic is not None:
            anchor = heuristic.act_batch(obs, mask)
        with torch.no_grad():
            logits, v = model(torch.as_tensor(obs, dtype=torch.float32), anchor)
            legal = torch.as_tensor(mask != 0)
            logp_all = torch.log_softmax(logits.masked_fill(~legal, -1e9), dim=1)
            chosen = torch.multinomial(logp_all.exp(), 1, generator=generator)[:, 0]
        chosen = chosen.numpy()
        choice = legal.sum(dim=1).numpy() > 1  # forced moves teach nothing
        if choice.any():
            picked = logp_all.numpy()[np.arange(rows.size), chosen]
            for key, value in (
                ("obs", obs[choice]),
                ("mask", mask[choice]),
                ("action", chosen[choice]),
                ("logp", picked[choice]),
                ("old_value", torch.tanh(v).numpy()[choice]),
                ("anchor", anchor[choice]),
                ("row", rows[choice]),
            ):
                parts[key].append(np.array(value))
        return chosen

    final, terminated, _, seat = play_against_heuristic(game, num_games, seed, decide)
    games = np.arange(num_games)
    won = (terminated & (final[games, seat] > final[games, 1 - seat])).astype(np.float32)
    out = {k: np.concatenate(v) for k, v in parts.items()}
    out["value"] = 2.0 * won[out["row"]] - 1.0
    out["obs"] = compact_observations(out["obs"])
    out["mask"] = out["mask"].astype(np.int8, copy=False)
    out["action"] = out["action"].astype(np.int64, copy=False)
    out["anchor"] = out["anchor"].astype(np.int64, copy=False)
    out["wins"] = int(won.sum())
    return out


def advantages(row, old_value, outcome, lam: float) -> np.ndarray:
    """GAE(lambda) over each game's decisions (the arrays of ``play_learner``, in the order
    they were made): no reward before the end and no discount, so a decision's TD error is the
    value head's estimate at the game's next decision (at the last one, the outcome) less its
    own. ``lam`` 1 gives the outcome less the value head, 0 the one-step TD error."""
    old_value = np.asarray(old_value, dtype=np.float32)
    outcome = np.asarray(outcome, dtype=np.float32)
    if lam >= 1.0:
        return outcome - old_value
    adv = np.empty(old_value.size, dtype=np.float32)
    later_adv: dict[int, float] = {}  # per game: the advantage and value of its next decision
    later_value: dict[int, float] = {}
    for i in range(old_value.size - 1, -1, -1):
        g = int(row[i])
        if g in later_adv:
            adv[i] = later_value[g] - old_value[i] + lam * later_adv[g]
        else:
            adv[i] = outcome[i] - old_value[i]
        later_adv[g] = float(adv[i])
        later_value[g] = float(old_value[i])
    return adv


def ppo_update(model, optimizer, data: dict, settings: dict, rng) -> float:
    """Clipped policy-gradient passes (PPO) over one batch of ``play_learner`` games: the
    advantage is GAE(``gae_lambda``) of the game's outcome against the value head (``advantages``);
    the value head learns the outcome; an entropy bonus keeps the policy from collapsing early.
    Returns the mean loss of the last pass."""
    import torch

    obs = torch.as_tensor(data["obs"])
    legal = torch.as_tensor(data["mask"] != 0)
    action = torch.as_tensor(data["action"])
    old_logp = torch.as_tensor(data["logp"])
    ret = torch.as_tensor(data["value"], dtype=torch.float32)
    anchor = torch.as_tensor(data["anchor"])
    gae = advantages(data["row"], data["old_value"], data["value"], float(settings["gae_lambda"]))
    adv = torch.as_tensor(gae)
    adv = (adv - adv.mean()) / (adv.std() + 1e-6)
    clip = float(settings["ppo_clip"])
    entropy_coef = float(settings["entropy"])
    n = obs.shape[0]
    last = float("nan")
    for _ in range(settings["ppo_epochs"]):
        order = torch.as_tensor(rng.permutation(n))
        total = 0.0
        for start in range(0, n, settings["batch_size"]):
            idx = order[start : start + settings["batch_size"]]
            logits, v = model(obs[idx], anchor[idx])
            logp_all = torch.log_softmax(logits.masked_fill(~legal[idx], -1e9), dim=1)
            logp = logp_all.gather(1, action[idx, None])[:, 0]
            ratio = torch.exp(logp - old_logp[idx])
            a = adv[idx]
            policy_loss = -torch.min(ratio * a, ratio.clamp(1 - clip, 1 + clip) * a).mean()
            value_loss = torch.mean((torch.tanh(v) - ret[idx]) ** 2)
            probs = logp_all.exp()
            entropy = -(torch.where(legal[idx], probs * logp_all, 0.0)).sum(dim=1).mean()
            loss = policy_loss + 0.5 * value_loss - entropy_coef * entropy
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            total += loss.item() * idx.shape[0]
        last = total / max(n, 1)
    return last


def save(model, path, meta: dict) -> Path:
    parts = model.export()
    if model.anchor_weight > 0:
        meta = {**meta, "anchor_weight": model.anchor_weight}
    if model.anchor_coefficients is not None:
        meta["anchor_coefficients"] = [float(c) for c in model.anchor_coefficients]
    return save_net(
        path,
        meta=meta,
        hidden=parts["hidden"],
        policy=parts["policy"],
        value=parts["value"],
        obs_scale=model.obs_scale.numpy(),
    )


def _curve_method(points) -> str:
    """The stages a curve went through, for its title."""
    stages = [p["stage"] for p in points]
    if not any(stage.startswith("coefficients") for stage in stages):
        return "expert iteration"
    method = "learned coefficients (cross-entropy method)"
    return method + (", then expert iteration" if "round 1" in stages else "")


def draw_curve(ax, run: dict) -> None:
    """One run's curve on a matplotlib axis: the win rate against the heuristic (Wilson 95%
    band) over training time."""
    points = run["curve"]
    minutes = [p["elapsed"] / 60 for p in points]
    ax.plot(minutes, [p["win_rate"] for p in points], marker="o", label="net vs heuristic")
    ax.fill_between(
        minutes, [p["ci_low"] for p in points], [p["ci_high"] for p in points], alpha=0.2
    )
    ax.axhline(0.5, color="grey", lw=1, ls=":")
    ax.axhline(0.6, color="green", lw=1, ls="--", label="60%")
    first_ppo = next((k for k, p in enumerate(points) if p["stage"].startswith("ppo")), None)
    if first_ppo:  # where the policy-gradient stage took over
        ax.axvline(minutes[first_ppo - 1], color="purple", lw=1, ls="-.", label="PPO from here")
    first_gae = next((k for k, p in enumerate(points) if p["stage"].startswith("gae")), None)
    if first_gae:  # a later run that went on with GAE advantages (curves joined from runs)
        ax.axvline(minutes[first_gae], color="orange", lw=1, ls="-.", label="GAE from here")
    ax.set(
        xlabel="training time (min)",
        ylabel=f"win rate ({points[-1]['games']} games, seats rotated)",
        ylim=(0, 1),
        title=f"{run['game']}: {_curve_method(points)}" + (", then PPO" if first_ppo else ""),
    )
    ax.legend(loc="lower right")


def plot_curves(curve_jsons, png) -> Path:
    """The curves of one or more runs (JSON files the trainer wrote), a panel each."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    runs = [json.loads(Path(path).read_text()) for path in curve_jsons]
    cols = min(len(runs), 2)
    rows = (len(runs) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6 * cols, 4 * rows), squeeze=False)
    for ax, run in zip(axes.flat, runs, strict=False):
        draw_curve(ax, run)
    for ax in list(axes.flat)[len(runs) :]:
        ax.set_visible(False)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)
    return Path(png)


# The trainer's general settings; a game's ``GameSpec.training`` overrides them (the settings
# that made its shipped weights), and keywords / command-line flags override both.
DEFAULTS = {
    "seed": 0,
    "rounds": 8,
    "imitation_games": 2048,
    "round_games": 256,
    "eval_games": 200,
    "sims": None,  # search iterations per target; None: the game's ISMCTS default
    "hidden": (256, 256),
    "epochs": 4,
    "imitation_epochs": 6,
    "batch_size": 256,
    "learning_rate": 1e-3,  # imitation
    "round_learning_rate": 3e-4,  # expert rounds: smaller steps keep a round from undoing the last
    "expert_share": 0.25,
    "epsilon": 0.05,
    # The policy-gradient stage after the rounds: PPO against the heuristic itself.
    "ppo_iterations": 0,  # batches of games; 0: no such stage
    "ppo_games": 256,  # games per batch
    "ppo_epochs": 2,
    "ppo_learning_rate": 2e-4,
    "ppo_clip": 0.2,
    "entropy": 0.01,  # weight of the entropy bonus
    # GAE's lambda over the network's own decisions in a game: 1 is the outcome less the value
    # head; below 1 the advantage leans on the value head's next estimates (less variance).
    "gae_lambda": 1.0,
    "eval_every": 8,  # batches between two points of the curve
    # How the network plays (in the curve's games and as NetAgent's default): "greedy" (its
    # likeliest move) or "sample" (a draw from its policy, the policy PPO improves).
    "play": "greedy",
    "temperature": 1.0,  # of the "sample" play (the PPO stage itself samples at 1)
    # Above 0: the network is a correction to the heuristic, whose move gets this much on its
    # logit; it starts as the heuristic (no imitation stage). 0: a whole policy of its own.
    "anchor_weight": 0.0,
    "round_play": "sample",  # how the network plays its seat in the expert rounds' games
    # Before the rounds, an anchored network's heuristic can learn the coefficients of its move
    # values (a heuristic that has them): generations of the cross-entropy method, each
    # ``anchor_population`` coefficient vectors playing ``anchor_games`` games against the
    # heuristic, the ``anchor_elite`` fittest moving the distribution (coef_train).
    "anchor_generations": 0,
    "anchor_population": 32,
    "anchor_elite": 8,
    "anchor_games": 600,
    # The rounds' targets: "move", the search's move; "visits", the share of the search's
    # iterations each root move had (a distribution: less noise than its single pick);
    # "rollouts", the heuristic's paired play-outs of every move (``RolloutAgent``,
    # ``rollout_samples`` a move), as a softmax of their mean score margins over
    # ``target_temperature`` points. The expert of the rounds is then that agent, not the search.
    "targets": "move",
    "rollout_samples": 16,
    "target_temperature": 2.0,
}
TARGETS = ("move", "visits", "rollouts")
_COUNTS = ("imitation_games", "round_games", "eval_games", "epochs")
_COUNTS += ("imitation_epochs", "batch_size", "ppo_games", "ppo_epochs", "eval_every")
_COUNTS += ("anchor_games",)


def settings_for(game: str, **overrides) -> dict:
    """The settings a run on ``game`` uses: ``DEFAULTS``, then the game's
    ``GameSpec.training``, then ``overrides`` (None values are left out); checked."""
    unknown = sorted(set(overrides) - set(DEFAULTS))
    if unknown:
        raise OptionError(f"unknown training settings {unknown}; known: {sorted(DEFAULTS)}")
    settings = {**DEFAULTS, **(get_spec(game).training or {})}
    settings.update({k: v for k, v in overrides.items() if v is not None})
    settings["seed"] = check_int("seed", settings["seed"], 0, MAX_SEED)
    for key in _COUNTS:
        settings[key] = check_int(key, settings[key], 1, None)
    for key in ("rounds", "ppo_iterations", "anchor_generations"):
        settings[key] = check_int(key, settings[key], 0, None)
    population = check_int("anchor_population", settings["anchor_population"], 2, None)
    settings["anchor_population"] = population
    settings["anchor_elite"] = check_int("anchor_elite", settings["anchor_elite"], 1, population)
    if settings["sims"] is not None:
        settings["sims"] = check_int("sims", settings["sims"], 1, None)
    settings["hidden"] = tuple(check_int("hidden", h, 1, None) for h in settings["hidden"])
    for key in ("expert_share", "epsilon"):
        if not 0.0 <= float(settings[key]) <= 1.0:
            raise OptionError(f"{key} must be in [0, 1], got {settings[key]!r}")
    settings["temperature"] = check_temperature(settings["temperature"])
    for key in ("play", "round_play"):
        if settings[key] not in PLAY_MODES:
            raise OptionError(f"{key} must be one of {PLAY_MODES}, got {settings[key]!r}")
    if settings["targets"] not in TARGETS:
        raise OptionError(f"targets must be one of {TARGETS}, got {settings['targets']!r}")
    settings["rollout_samples"] = check_int("rollout_samples", settings["rollout_samples"], 1, None)
    if not 0.0 < float(settings["target_temperature"]) < 1e6:
        raise OptionError(
            f"target_temperature must be in (0, 1e6), got {settings['target_temperature']!r}"
        )
    if not 0.0 <= float(settings["anchor_weight"]) < 1e6:
        raise OptionError(f"anchor_weight must be in [0, 1e6), got {settings['anchor_weight']!r}")
    if settings["anchor_generations"]:
        if not float(settings["anchor_weight"]) > 0:
            raise OptionError("anchor_generations needs an anchored network (anchor_weight > 0)")
        coefficient_heuristic(game)  # OptionError if the heuristic has no coefficients
    for key in ("ppo_clip", "entropy", "gae_lambda"):
        if not 0.0 <= float(settings[key]) <= 1.0:
            raise OptionError(f"{key} must be in [0, 1], got {settings[key]!r}")
    for key in ("learning_rate", "round_learning_rate", "ppo_learning_rate"):
        if not float(settings[key]) > 0:
            raise OptionError(f"{key} must be positive, got {settings[key]!r}")
    return settings


def describe_method(settings: dict) -> str:
    """How a run with ``settings`` trains, for the weights' metadata."""
    teacher = {
        "move": "ISMCTS targets",
        "visits": "ISMCTS visit shares",
        "rollouts": "rollout values",
    }[settings["targets"]]
    rounds = f"{teacher} (DAgger)" if settings["rounds"] else ""
    if float(settings["anchor_weight"]) > 0:
        method = "a correction to the heuristic"
        if settings["anchor_generations"]:
            method += ", its move values' coefficients learned by the cross-entropy method"
        method += f", trained on {rounds}" if rounds else ""
    else:
        method = "expert iteration: heuristic imitation" + (f", then {rounds}" if rounds else "")
    return method + (", then PPO against the heuristic" if settings["ppo_iterations"] else "")


def train(
    game: str,
    out,
    minutes: float | None = None,
    threads: int | None = None,
    progress: bool = True,
    init=None,
    **overrides,
) -> dict:
    """Run the method of the module docstring with ``settings_for(game, **overrides)``;
    returns the curve (also written as JSON beside ``out``). ``init``: a weights file of the
    same sizes to start from instead of the imitation stage."""
    import torch
    from tqdm import tqdm

    from meeple_gym.baselines.ismcts import ISMCTSAgent
    from meeple_gym.baselines.rollout import RolloutAgent

    settings = settings_for(game, **overrides)
    seed, rounds, sims = settings["seed"], settings["rounds"], settings["sims"]
    epochs, batch_size = settings["epochs"], settings["batch_size"]
    eval_games, round_games = settings["eval_games"], settings["round_games"]
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    if threads is not None:
        torch.set_num_threads(check_int("threads", threads, 1, None))
    spec = get_spec(game)
    high = np.broadcast_to(np.asarray(spec.obs_high, dtype=np.float32), (spec.obs_size,))
    obs_scale = 1.0 / np.maximum(high, 1.0)
    num_actions = int(spec.num_actions)
    anchored = float(settings["anchor_weight"]) > 0
    model = Model(
        obs_scale, num_actions, list(settings["hidden"]), seed, float(settings["anchor_weight"])
    )
    optimizer = torch.optim.Adam(model.parameters(), lr=float(settings["learning_rate"]))
    rng = np.random.default_rng(seed)
    out = Path(out)
    meta = {
        "game": game,
        "obs_size": int(obs_scale.shape[0]),
        "num_actions": num_actions,
        "method": describe_method(settings),
        "seed": seed,
        "play": settings["play"],
        "temperature": settings["temperature"],
    }
    started = time.perf_counter()
    curve = {"game": game, "seed": seed, "curve": []}
    curve["settings"] = {k: list(v) if isinstance(v, tuple) else v for k, v in settings.items()}
    curve_path = out.with_suffix(".json")
    best_path = out.with_name(out.stem + "_best.npz")
    ppo_iterations, eval_every = settings["ppo_iterations"], settings["eval_every"]
    stages = settings["anchor_generations"] + rounds + 1 + -(-ppo_iterations // eval_every)
    bar = tqdm(total=stages, desc=f"{game} training", unit="stage", disable=not progress)

    def checkpoint(stage: str, samples: int, loss: float, **extra):
        save(model, out, {**meta, "samples": samples, "stage": stage})
        result = play_match(
            game,
            2,
            [NetAgent(game, path=out), "heuristic"],
            eval_games,
            seed=agent_seed(seed, 1),
            progress=False,
        )
        point = {
            "stage": stage,
            "elapsed": time.perf_counter() - started,
            "samples": samples,
            "loss": loss,
            "games": eval_games,
            **{k: result[k] for k in ("wins", "draws", "win_rate", "ci_low", "ci_high")},
            **extra,
        }
        curve["curve"].append(point)
        best = max(curve["curve"], key=lambda p: p["win_rate"])
        if best is point:  # the round that played best against the heuristic so far
            shutil.copyfile(out, best_path)
            curve["best"] = stage
        curve_path.write_text(json.dumps(curve, indent=1))
        bar.set_postfix_str(f"{stage}: {result['win_rate']:.0%} vs heuristic, loss {loss:.3f}")
        bar.update(1)

    if init is None and anchored:  # the untrained correction plays the heuristic already
        samples, loss = 0, float("nan")
        checkpoint("heuristic", samples, loss)
    elif init is None:
        bar.set_description_str(f"{game}: imitating the heuristic")
        imitation = collect(
            game, settings["imitation_games"], seed, epsilon=settings["epsilon"], both_seats=True
        )
        loss = fit(model, optimizer, imitation, settings["imitation_epochs"], batch_size, rng)
        samples = len(imitation["target"])
        checkpoint("imitation", samples, loss)
    else:
        start = NetAgent(game, path=init)  # checks the file and its game
        model.load(start.net)
        meta["init"] = curve["init"] = Path(init).name  # no machine paths in shipped files
        samples, loss = 0, float("nan")
        checkpoint("start", samples, loss)
    if settings["anchor_generations"]:
        coefficient_stage(game, model, settings, checkpoint, bar, started, minutes)
    expert_data = []
    base_samples = samples
    for group in optimizer.param_groups:
        group["lr"] = float(settings["round_learning_rate"])
    for r in range(rounds):
        if minutes is not None and time.perf_counter() - started > 60 * minutes:
            break
        bar.set_description_str(f"{game}: round {r + 1}, searching")
        round_seed = py_derive_key(seed, r + 1, _ROUND_STREAM)
        if settings["targets"] == "rollouts":
            expert = RolloutAgent(game, settings["rollout_samples"], agent_seed(round_seed, 1))
        else:
            expert = ISMCTSAgent(game, sims=sims, seed=agent_seed(round_seed, 1))
        learner = NetAgent(
            game,
            seed=agent_seed(round_seed, 2),
            path=out,
            greedy=settings["round_play"] == "greedy",
        )
        expert_data.append(
            collect(
                game,
                round_games,
                round_seed,
                learner,
                expert,
                expert_share=settings["expert_share"],
                targets=settings["targets"],
                target_temperature=float(settings["target_temperature"]),
            )
        )
        data = merge(expert_data)
        bar.set_description_str(f"{game}: round {r + 1}, fitting")
        loss = fit(model, optimizer, data, epochs, batch_size, rng)
        samples = base_samples + len(data["target"])
        checkpoint(f"round {r + 1}", samples, loss)
    if ppo_iterations:
        ppo_stage(game, model, settings, checkpoint, bar, started, minutes, samples)
    bar.close()
    curve["train_seconds"] = time.perf_counter() - started
    curve_path.write_text(json.dumps(curve, indent=1))
    try:
        curve["plot"] = str(plot_curves([curve_path], out.with_suffix(".png")))
    except ImportError:  # matplotlib is the optional `plot` extra
        pass
    return curve


def coefficient_stage(game, model, settings, checkpoint, bar, started, minutes) -> None:
    """The anchor heuristic's coefficients by the cross-entropy method (``coef_train``), from
    the model's (its ``--init``'s) or the defaults; a curve point after every generation."""
    total = settings["anchor_generations"]

    def on_generation(g, coefficients, scores):
        model.anchor_coefficients = coefficients
        checkpoint(f"coefficients {g}", 0, float("nan"), fitness=float(scores[0]))
        if g < total:
            bar.set_description_str(f"{game}: coefficients, generation {g + 1}/{total}")
        return minutes is not None and time.perf_counter() - started > 60 * minutes

    bar.set_description_str(f"{game}: coefficients, generation 1/{total}")
    cross_entropy_method(
        game,
        total,
        settings["anchor_population"],
        settings["anchor_elite"],
        settings["anchor_games"],
        seed=py_derive_key(settings["seed"], 0, _COEF_STREAM),
        start=model.anchor_coefficients,
        on_generation=on_generation,
    )


def ppo_stage(game, model, settings, checkpoint, bar, started, minutes, samples) -> None:
    """The policy-gradient stage: ``ppo_iterations`` batches of ``play_learner`` games against
    the heuristic, each followed by ``ppo_update``; a curve point every ``eval_every``."""
    import torch

    seed = settings["seed"]
    optimizer = torch.optim.Adam(model.parameters(), lr=float(settings["ppo_learning_rate"]))
    generator = torch.Generator().manual_seed(py_derive_key(seed, 0, _PPO_STREAM) >> 1)
    rng = np.random.default_rng(py_derive_key(seed, 1, _PPO_STREAM))
    total = settings["ppo_iterations"]
    played = evaluated = 0
    loss = float("nan")
    for i in range(1, total + 1):
        if minutes is not None and time.perf_counter() - started > 60 * minutes:
            break
        bar.set_description_str(f"{game}: PPO batch {i}/{total}")
        data = play_learner(
            game, model, settings["ppo_games"], py_derive_key(seed, i + 1, _PPO_STREAM), generator
        )
        loss = ppo_update(model, optimizer, data, settings, rng)
        samples += len(data["action"])
        played = i
        bar.set_postfix_str(f"batch {i}: {data['wins']}/{settings['ppo_games']} won sampling")
        if i % settings["eval_every"] == 0 or i == total:
            checkpoint(f"ppo {i}", samples, loss)
            evaluated = i
    if played != evaluated:  # stopped by the time budget between two points
        checkpoint(f"ppo {played}", samples, loss)


_FLAG_HELP = {
    "rounds": "expert iteration rounds",
    "round_games": "games searched per round",
    "eval_games": "games against the heuristic per curve point",
    "sims": "search iterations per target",
    "learning_rate": "of the imitation",
    "round_learning_rate": "of the expert rounds",
    "ppo_iterations": "batches of the PPO stage (0: none)",
    "ppo_games": "games per PPO batch",
    "entropy": "weight of the PPO entropy bonus",
    "gae_lambda": "GAE lambda of the PPO advantage (1: outcome less the value head)",
    "eval_every": "PPO batches between curve points",
    "play": "how the trained network plays",
    "round_play": "how the network plays in the expert rounds' games",
    "anchor_weight": "above 0: train a correction to the heuristic (its move's logit lift)",
    "temperature": "of the sampling play (below 1: nearer the likeliest move)",
    "targets": "the rounds' targets: the search's move, its root visits, or rollout margins",
    "rollout_samples": "paired play-outs a move (--targets rollouts)",
    "target_temperature": "score points of the rollout margins' softmax (--targets rollouts)",
    "anchor_generations": "cross-entropy generations on the anchor's coefficients (0: none)",
    "anchor_population": "coefficient vectors per generation",
    "anchor_elite": "the fittest vectors that move the distribution",
    "anchor_games": "games against the heuristic per coefficient vector",
}


def parse_args(argv=None):
    p = argparse.ArgumentParser(
        prog="python -m meeple_gym.baselines.net_train",
        description=__doc__.split("\n\n")[0],
        epilog="Settings left out take the game's GameSpec.training, then the trainer's "
        "DEFAULTS: the settings that made the shipped weights.",
    )
    p.add_argument("--game", required=True)
    p.add_argument("--out", help="weights file (.npz); default runs/net_<game>.npz")
    p.add_argument("--minutes", type=float, help="stop after the round that passes this")
    p.add_argument("--threads", type=int, help="torch threads (default: torch's)")
    p.add_argument("--init", help="weights (.npz) to start from instead of the imitation")
    for key, default in DEFAULTS.items():  # one flag per setting, typed by its default
        flag = "--" + key.replace("_", "-")
        if key == "hidden":
            p.add_argument(flag, type=int, nargs="+", help="hidden layer sizes")
        elif key in ("play", "round_play"):
            p.add_argument(flag, choices=PLAY_MODES, help=_FLAG_HELP[key])
        elif key == "targets":
            p.add_argument(flag, choices=TARGETS, help=_FLAG_HELP[key])
        else:
            kind = float if isinstance(default, float) else int
            p.add_argument(flag, type=kind, help=_FLAG_HELP.get(key))
    return p.parse_args(argv)


def main(argv=None) -> dict:
    args = parse_args(argv)
    kwargs = vars(args).copy()
    game = kwargs.pop("game")
    out = kwargs.pop("out") or f"runs/net_{game}.npz"
    curve = train(game, out, **kwargs)
    last = curve["curve"][-1]
    print(
        f"{game}: {last['win_rate']:.1%} [{last['ci_low']:.1%}, {last['ci_high']:.1%}] vs "
        f"heuristic after {curve['train_seconds'] / 60:.1f} min; weights {out}"
    )
    return curve


if __name__ == "__main__":
    main()
