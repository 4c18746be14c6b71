"""A trained PyTorch policy as an agent for ``meeple eval`` / ``play_match``.

Loads a checkpoint written by ``examples/ppo_masked.py`` (masked PPO) and plays with
``act_batch(observations, masks)``, the evaluator's batched protocol::

    MEEPLE_CHECKPOINT=examples/checkpoints/ppo_century.pt \\
        meeple eval --game century --agents meeple_gym.baselines.torch_agent:PolicyAgent random

``meeple eval`` builds the agent as ``PolicyAgent(game=..., seed=...)``; the checkpoint comes
from ``path=`` when you build it yourself, else from the ``MEEPLE_CHECKPOINT`` environment
variable, else from ``runs/ppo_<game>.pt`` (the training script's default output).

Needs torch (``pip install "meeple-gym[train]"``, after a CPU torch build). The checkpoint
format lives here so that the training script and this loader cannot drift apart.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from meeple_gym.core.errors import OptionError

CHECKPOINT_FORMAT = "meeple_gym.ppo_masked/1"
CHECKPOINT_ENV = "MEEPLE_CHECKPOINT"
# Any finite value far below every real logit: exp() of it is exactly 0 in float32.
MASKED_LOGIT = -1e9


def build_mlp(in_size: int, hidden: list[int], out_size: int, out_std: float = 0.01):
    """``Linear``-``Tanh`` layers with orthogonal weights (the CleanRL PPO initialisation)."""
    from torch import nn

    sizes = [in_size, *hidden]
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:], strict=True):
        layers += [_init(nn.Linear(a, b), np.sqrt(2)), nn.Tanh()]
    layers.append(_init(nn.Linear(sizes[-1], out_size), out_std))
    return nn.Sequential(*layers)


def _init(layer, std: float):
    import torch

    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, 0.0)
    return layer


def masked_logits(logits, masks):
    """Logits with every illegal action set to ``MASKED_LOGIT`` (masks: bool tensor)."""
    import torch

    return torch.where(masks, logits, torch.full_like(logits, MASKED_LOGIT))


def default_checkpoint(game: str) -> Path:
    env = os.environ.get(CHECKPOINT_ENV)
    return Path(env) if env else Path("runs") / f"ppo_{game}.pt"


def save_checkpoint(path, *, game, num_players, obs_high, hidden, actor, critic, meta) -> Path:
    """Write a checkpoint ``PolicyAgent`` can load, whole or not at all (an interrupted save
    leaves the previous checkpoint). ``meta`` holds plain values only (it is read back with
    ``torch.load(weights_only=True)``)."""
    import torch

    from meeple_gym.core.files import atomic_write

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    obs_high = np.asarray(obs_high, dtype=np.float32)
    checkpoint = {
        "format": CHECKPOINT_FORMAT,
        "game": game,
        "num_players": int(num_players),
        "obs_size": int(obs_high.shape[0]),
        "num_actions": int(actor[-1].out_features),
        "hidden": [int(h) for h in hidden],
        "obs_high": torch.from_numpy(obs_high.copy()),
        "actor": actor.state_dict(),
        "critic": critic.state_dict(),
        "meta": dict(meta),
    }
    with atomic_write(path) as f:
        torch.save(checkpoint, f)
    return path


def load_checkpoint(path) -> dict:
    """The checkpoint dict; ``OptionError`` if the file is not one of ours."""
    import torch

    path = Path(path)
    if not path.is_file():
        raise OptionError(
            f"no checkpoint at {str(path)!r} (train one with examples/ppo_masked.py, or set "
            f"{CHECKPOINT_ENV})"
        )
    ckpt = torch.load(path, map_location="cpu", weights_only=True)
    if not isinstance(ckpt, dict) or ckpt.get("format") != CHECKPOINT_FORMAT:
        raise OptionError(f"{str(path)!r} is not a {CHECKPOINT_FORMAT} checkpoint")
    return ckpt


class PolicyAgent:
    """The actor of a masked-PPO checkpoint. ``greedy=True`` (default) plays the most likely
    legal action; ``greedy=False`` samples from the masked policy with a generator seeded by
    ``seed`` (0 to 2**64 - 1). Observations are scaled by the observation space's high bound,
    as in training."""

    def __init__(self, game: str = "century", seed: int = 0, path=None, greedy: bool = True):
        import torch

        from meeple_gym.baselines.net_agent import check_policy_args

        # Checked before the checkpoint is read: torch's generator takes any uint64 seed.
        seed = check_policy_args(seed, greedy)

        path = default_checkpoint(game) if path is None else Path(path)
        ckpt = load_checkpoint(path)
        if ckpt["game"] != game:
            raise OptionError(
                f"checkpoint {str(path)!r} was trained on {ckpt['game']!r}, not {game!r}"
            )
        self.game = game
        self.path = path
        self.greedy = bool(greedy)
        self.num_players = ckpt["num_players"]
        self.meta = ckpt["meta"]
        self.name = f"ppo({path.name})"
        self.actor = build_mlp(ckpt["obs_size"], ckpt["hidden"], ckpt["num_actions"])
        self.actor.load_state_dict(ckpt["actor"])
        self.actor.eval()
        self.obs_scale = 1.0 / ckpt["obs_high"]
        self._gen = torch.Generator().manual_seed(int(seed))

    def act_batch(self, observations, masks) -> np.ndarray:
        import torch

        obs = torch.as_tensor(np.asarray(observations, dtype=np.float32))
        legal = torch.as_tensor(np.asarray(masks) != 0)
        if obs.ndim != 2 or legal.shape != (obs.shape[0], self.actor[-1].out_features):
            raise OptionError(
                f"expected observations (N, {self.obs_scale.shape[0]}) and masks "
                f"(N, {self.actor[-1].out_features}); got {tuple(obs.shape)} and "
                f"{tuple(legal.shape)}"
            )
        with torch.no_grad():
            logits = masked_logits(self.actor(obs * self.obs_scale), legal)
            if self.greedy:
                actions = logits.argmax(dim=1)
            else:
                probs = torch.softmax(logits, dim=1)
                actions = torch.multinomial(probs, 1, generator=self._gen)[:, 0]
        return actions.numpy().astype(np.int64)

    def act(self, observation: dict) -> int:
        """One PettingZoo observation dict ``{"observation", "action_mask"}``."""
        obs = np.asarray(observation["observation"])[None]
        return int(self.act_batch(obs, np.asarray(observation["action_mask"])[None])[0])
