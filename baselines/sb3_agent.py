"""A saved Stable-Baselines3 model (PPO or sb3-contrib's MaskablePPO) as an agent.

>>> from meeple_gym.baselines.evaluate import make_agent
>>> agent = make_agent("sb3:runs/century_maskable.zip", "century", seed=0)
>>> actions = agent.act_batch(observations, masks)   # (B, obs_size), (B, num_actions)

``meeple eval`` and ``meeple ladder`` take the same spec: ``sb3:PATH`` (``PATH`` or
``PATH.zip``, as ``model.save(PATH)`` writes it). The whole batch goes through the policy in
one call and the masks are always applied: MaskablePPO through ``predict(obs,
action_masks=masks)``, plain PPO by setting the illegal actions' logits to -inf before picking,
so neither ever plays an illegal action. The agent plays the most likely legal action
(``deterministic=True``, as SB3's ``evaluate_policy``); ``Sb3Agent(..., deterministic=False)``
samples from the masked distribution with its own seeded generator instead.

The observations are the raw game vectors: a model trained under ``VecNormalize`` observation
normalisation needs its statistics, which this agent does not load. Loading a model unpickles
parts of it (SB3's format): only load files you trust. Needs ``stable-baselines3`` (and
``sb3-contrib`` for MaskablePPO models): ``pip install "meeple-gym[integrations]"``.
"""

from __future__ import annotations

import json
import threading
import zipfile
from pathlib import Path

import numpy as np

from meeple_gym.core.errors import OptionError

SPEC_PREFIX = "sb3:"
# Loaded models by (path, mtime, size): a match makes its agents once per batch and the CLI
# checks them first, so the same file would otherwise be unpickled several times.
_MODELS: dict = {}
_MODELS_LOCK = threading.Lock()
_MODELS_MAX = 8


def is_sb3_spec(name) -> bool:
    """Whether an agent spec names a saved SB3 model (``"sb3:PATH"``)."""
    return isinstance(name, str) and name.startswith(SPEC_PREFIX)


def resolve_path(path) -> Path:
    """The model file: ``path`` itself, or ``path + ".zip"`` as SB3's ``save`` names it."""
    p = Path(path).expanduser()
    if not str(path):
        raise OptionError("sb3 agent: empty model path (use sb3:PATH.zip)")
    if p.is_file():
        return p
    zipped = p.with_name(p.name + ".zip")
    if p.suffix != ".zip" and zipped.is_file():
        return zipped
    where = "is a directory" if p.is_dir() else "does not exist"
    raise OptionError(f"sb3 agent: model file {str(path)!r} {where}")


def read_header(path: Path) -> dict:
    """What the zip says about the model, read from its JSON without unpickling anything:
    ``{"algo": "MaskablePPO" | "PPO", "obs_shape": tuple, "num_actions": int | None}``."""
    if not zipfile.is_zipfile(path):
        raise OptionError(f"sb3 agent: {str(path)!r} is not a zip file (an SB3 model.save file)")
    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data").decode())
    except (KeyError, ValueError, OSError, zipfile.BadZipFile) as exc:
        raise OptionError(f"sb3 agent: {str(path)!r} is not a saved SB3 model ({exc})") from None
    module = str(data.get("policy_class", {}).get("__module__", ""))
    if "clip_range" not in data or not module:
        raise OptionError(
            f"sb3 agent: {str(path)!r} is not a PPO or MaskablePPO model (policy module "
            f"{module or 'missing'!r})"
        )
    algo = "MaskablePPO" if module.startswith("sb3_contrib.common.maskable") else "PPO"
    obs = data.get("observation_space", {})
    act = data.get("action_space", {})
    try:
        obs_shape = tuple(json.loads(obs["_shape"]))
    except (KeyError, TypeError, ValueError):
        obs_shape = None
    if "Discrete" not in str(act.get(":type:", "")) or "MultiDiscrete" in str(act.get(":type:")):
        raise OptionError(
            f"sb3 agent: {str(path)!r} has action space {act.get(':type:')}, not Discrete"
        )
    num_actions = int(act["n"]) if "n" in act else None
    return {"algo": algo, "obs_shape": obs_shape, "num_actions": num_actions}


def check_fits(path: Path, header: dict, game: str) -> None:
    """Refuse a model whose spaces are not ``game``'s (trained on another game)."""
    from meeple_gym.core.registry import get_spec

    spec = get_spec(game)
    want_obs, want_actions = (spec.obs_size,), spec.num_actions
    if header["obs_shape"] is not None and header["obs_shape"] != want_obs:
        raise OptionError(
            f"sb3 agent: {str(path)!r} takes observations of shape {header['obs_shape']}, but "
            f"{game} observations have shape {want_obs}: was it trained on another game?"
        )
    if header["num_actions"] is not None and header["num_actions"] != want_actions:
        raise OptionError(
            f"sb3 agent: {str(path)!r} has {header['num_actions']} actions, but {game} has "
            f"{want_actions}: was it trained on another game?"
        )


def load_model(path: Path, algo: str):
    """The model at ``path`` on the CPU (cached while the file is unchanged)."""
    stat = path.stat()
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
    with _MODELS_LOCK:
        model = _MODELS.get(key)
    if model is not None:
        return model
    try:
        if algo == "MaskablePPO":
            from sb3_contrib import MaskablePPO as cls
        else:
            from stable_baselines3 import PPO as cls
    except ImportError as exc:
        raise OptionError(
            f"sb3 agent: loading {str(path)!r} ({algo}) needs {exc.name}: "
            'pip install "meeple-gym[integrations]"'
        ) from None
    try:
        model = cls.load(str(path), device="cpu")
    except Exception as exc:  # SB3 raises many kinds on a damaged file
        raise OptionError(
            f"sb3 agent: cannot load {str(path)!r} as {algo}: {type(exc).__name__}: {exc}"
        ) from None
    model.policy.set_training_mode(False)
    with _MODELS_LOCK:
        if len(_MODELS) >= _MODELS_MAX:
            _MODELS.pop(next(iter(_MODELS)))
        _MODELS[key] = model
    return model


class Sb3Agent:
    """A saved PPO / MaskablePPO model playing with ``act_batch(observations, masks)``.

    Args:
        path: the ``.zip`` written by ``model.save`` (or the path without ``.zip``).
        game: the game it plays; its observation size and action count must match the model's.
        seed: seeds the sampling when ``deterministic=False``.
        deterministic: play the most likely legal action (default) or sample a legal one.
    """

    def __init__(self, path, game: str = "century", seed: int = 0, deterministic: bool = True):
        self.path = resolve_path(path)
        header = read_header(self.path)
        check_fits(self.path, header, game)
        self.algo = header["algo"]
        self.game = game
        self.deterministic = bool(deterministic)
        self.name = f"{SPEC_PREFIX}{path}"
        self.model = load_model(self.path, self.algo)
        self._rng = np.random.default_rng(seed)
        self._lock = threading.Lock()  # the generator is not thread-safe

    @classmethod
    def from_spec(cls, spec: str, game: str, seed: int = 0) -> Sb3Agent:
        """The agent of ``"sb3:PATH"`` (``make_agent``'s hook)."""
        if not is_sb3_spec(spec):
            raise OptionError(f"not an sb3 agent spec (sb3:PATH): {spec!r}")
        agent = cls(spec[len(SPEC_PREFIX) :], game, seed)
        agent.name = spec
        return agent

    def act_batch(self, observations, masks) -> np.ndarray:
        """One legal action per row; the whole batch in one policy call."""
        masks = np.asarray(masks).astype(bool)
        if masks.ndim != 2 or masks.shape[0] == 0:
            return np.zeros(masks.shape[0] if masks.ndim else 0, dtype=np.int64)
        if not masks.any(axis=1).all():
            raise OptionError(f"sb3 agent {self.name}: a row has no legal action")
        obs = np.asarray(observations, dtype=np.float32)
        if self.deterministic and self.algo == "MaskablePPO":
            actions, _ = self.model.predict(obs, action_masks=masks, deterministic=True)
            return np.asarray(actions, dtype=np.int64).reshape(-1)
        logits = self._logits(obs, masks)
        if not self.deterministic:
            with self._lock:
                # Gumbel-max: a sample of softmax(logits) with this agent's own generator.
                logits = logits + self._rng.gumbel(size=logits.shape)
        return np.argmax(np.where(masks, logits, -np.inf), axis=1).astype(np.int64)

    def _logits(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The policy's action log-probabilities (B, num_actions), illegal ones at -inf."""
        import torch

        policy = self.model.policy
        obs_t, _ = policy.obs_to_tensor(obs)
        with torch.no_grad():
            if self.algo == "MaskablePPO":
                dist = policy.get_distribution(obs_t, action_masks=masks)
            else:
                dist = policy.get_distribution(obs_t)
            logits = dist.distribution.logits.cpu().numpy().astype(np.float64)
        # A legal action whose probability underflowed to 0 still beats every illegal one.
        logits = np.where(np.isfinite(logits), logits, np.finfo(np.float64).min / 2)
        return np.where(masks, logits, -np.inf)
