"""A trained policy network as an agent, played with NumPy and one small Numba kernel (no torch).

``make_agent("net", game)`` (``meeple eval --agents net heuristic``) loads the weights
shipped inside the package for ``game`` (``meeple_gym/baselines/weights/<game>.npz``);
``"net:PATH"`` loads a file written by the trainer (``meeple_gym.baselines.net_train``,
docs/baselines.md, "The learned agent")::

    meeple eval --game century --agents net heuristic --games 400
    meeple eval --game century --agents net:runs/net_century.npz ismcts

The network is a multilayer perceptron: the observation, scaled by the observation space's
high bound, through ReLU layers to one logit per action (the policy) and one number (the value:
the expected final reward of the player to act). Illegal actions get no probability.
An *anchored* network (``anchor_weight`` in its metadata, above 0) is a correction to the
heuristic: the heuristic's move for the same observation and mask gets ``anchor_weight`` added
to its logit, so a network whose policy layer is zero plays exactly the heuristic and training
teaches it where to play otherwise (docs/baselines.md, "The learned agent"). Its metadata may
also hold ``anchor_coefficients``: learned coefficients of the heuristic's move values
(``meeple_gym.baselines.coef_train``), which the anchor then plays with.
``greedy=True`` plays the most likely legal action; ``greedy=False`` samples from the masked
policy with a generator seeded by ``seed``, so either way an agent is deterministic for a seed.
The default (``greedy=None``) is the way the weights were trained to play: the ``play`` entry of
their metadata, ``"greedy"`` unless the trainer was told ``--play sample`` (a sampling policy
does not get stuck in the loops a fixed choice per position can fall into, such as taking and
junking Radlands' Water Silo over and over). A sampling agent draws at the ``temperature`` of
the metadata (default 1; below 1 the draw leans toward the likeliest moves), or at
``temperature=`` given to it; ``policy()`` is always the network's own, at temperature 1.

The weights file is a NumPy ``.npz``: ``layer<k>_w`` / ``layer<k>_b`` for the hidden layers,
``policy_w`` / ``policy_b``, ``value_w`` / ``value_b``, ``obs_scale`` and ``meta`` (a JSON
string: format, game, sizes, how it was trained). Weights may be stored as float16 to keep the
file small; they are widened to float32 on load.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from meeple_gym.core.batch import MAX_SEED
from meeple_gym.core.errors import OptionError
from meeple_gym.core.options import check_int, is_bool
from meeple_gym.core.sparse import scaled_sparse_product

NET_FORMAT = "meeple_gym.net/1"
PLAY_MODES = ("greedy", "sample")  # the metadata's "play": how the weights are meant to play
WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"


def check_policy_args(seed, greedy, allow_none: bool = False) -> int:
    """The checked ``seed`` of a policy agent (0 to 2**64 - 1); ``greedy`` must be a bool (or
    None, when ``allow_none``)."""
    seed = check_int("seed", seed, 0, MAX_SEED)
    if not (is_bool(greedy) or (allow_none and greedy is None)):
        raise OptionError(f"greedy must be a bool, got {type(greedy).__name__} {greedy!r}")
    return seed


def check_temperature(temperature) -> float:
    """A sampling temperature: a finite number above 0 (``OptionError`` otherwise)."""
    if is_bool(temperature) or not isinstance(temperature, (int, float, np.floating)):
        raise OptionError(f"temperature must be a number, got {temperature!r}")
    if not (np.isfinite(temperature) and temperature > 0):
        raise OptionError(f"temperature must be finite and above 0, got {temperature!r}")
    return float(temperature)


def shipped_weights(game: str) -> Path:
    """Where the package keeps ``game``'s trained weights."""
    return WEIGHTS_DIR / f"{game}.npz"


def load_net(path) -> dict:
    """The arrays and metadata of a weights file (float32), checked for shape and format;
    ``OptionError`` naming the file if it is missing or not one of ours."""
    path = Path(path)
    if not path.is_file():
        raise OptionError(
            f"no network weights at {str(path)!r} (train some with "
            f"`python -m meeple_gym.baselines.net_train`)"
        )
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {key: data[key] for key in data.files}
        meta = json.loads(str(arrays.pop("meta")))
    except (OSError, ValueError, KeyError, json.JSONDecodeError) as exc:
        raise OptionError(f"{str(path)!r} is not a network weights file: {exc}") from None
    if not isinstance(meta, dict) or meta.get("format") != NET_FORMAT:
        raise OptionError(f"{str(path)!r} is not a {NET_FORMAT} weights file")
    net = {"meta": meta, "hidden": []}
    try:
        size = int(meta["obs_size"])
        for k in range(len(meta["hidden"])):
            w, b = _layer(arrays, f"layer{k}", size, int(meta["hidden"][k]), path)
            net["hidden"].append((w, b))
            size = w.shape[1]
        net["policy"] = _layer(arrays, "policy", size, int(meta["num_actions"]), path)
        net["value"] = _layer(arrays, "value", size, 1, path)
        scale = np.asarray(arrays["obs_scale"], dtype=np.float32)
    except KeyError as exc:
        raise OptionError(f"{str(path)!r} lacks {exc} (a damaged weights file?)") from None
    except (TypeError, ValueError) as exc:  # sizes in the metadata that are not integers
        raise OptionError(f"{str(path)!r} has damaged metadata: {exc}") from None
    if scale.shape != (int(meta["obs_size"]),):
        raise OptionError(f"{str(path)!r}: obs_scale has shape {scale.shape}")
    net["obs_scale"] = scale
    weight = meta.get("anchor_weight", 0.0)
    if is_bool(weight) or not isinstance(weight, (int, float)) or not 0 <= weight < 1e6:
        raise OptionError(f"{str(path)!r}: anchor_weight must be a number >= 0, got {weight!r}")
    net["anchor_weight"] = float(weight)
    coefficients = meta.get("anchor_coefficients")
    if coefficients is not None and not net["anchor_weight"] > 0:
        raise OptionError(f"{str(path)!r}: anchor_coefficients without an anchor_weight above 0")
    net["anchor_coefficients"] = coefficients
    return net


def _layer(arrays, name, fan_in, fan_out, path):
    w = np.asarray(arrays[f"{name}_w"], dtype=np.float32)
    b = np.asarray(arrays[f"{name}_b"], dtype=np.float32)
    if w.shape != (fan_in, fan_out) or b.shape != (fan_out,):
        raise OptionError(
            f"{str(path)!r}: {name} has shapes {w.shape} / {b.shape}, expected "
            f"({fan_in}, {fan_out}) / ({fan_out},)"
        )
    if not (np.isfinite(w).all() and np.isfinite(b).all()):
        raise OptionError(f"{str(path)!r}: {name} holds NaN or infinite weights")
    return np.ascontiguousarray(w), b


def save_net(path, *, meta: dict, hidden, policy, value, obs_scale, half: bool = True) -> Path:
    """Write a weights file ``load_net`` reads, whole or not at all. ``hidden``: list of
    ``(w, b)`` with ``w`` shaped (fan_in, fan_out); ``half`` stores weights as float16."""
    from meeple_gym.core.files import atomic_write

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    kind = np.float16 if half else np.float32
    arrays = {}
    for k, (w, b) in enumerate(hidden):
        arrays[f"layer{k}_w"] = np.asarray(w, dtype=kind)
        arrays[f"layer{k}_b"] = np.asarray(b, dtype=np.float32)
    for name, (w, b) in (("policy", policy), ("value", value)):
        arrays[f"{name}_w"] = np.asarray(w, dtype=kind)
        arrays[f"{name}_b"] = np.asarray(b, dtype=np.float32)
    arrays["obs_scale"] = np.asarray(obs_scale, dtype=np.float32)
    meta = {**meta, "format": NET_FORMAT, "hidden": [int(w.shape[1]) for w, _ in hidden]}
    arrays["meta"] = np.array(json.dumps(meta, sort_keys=True))
    with atomic_write(path) as f:
        np.savez_compressed(f, **arrays)
    return path


def forward(net: dict, observations: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Policy logits (N, num_actions) and values (N,) of a batch of observations."""
    obs = np.ascontiguousarray(observations, dtype=np.float32)
    size = net["obs_scale"].shape[0]
    if obs.ndim != 2 or obs.shape[1] != size:  # the kernel below does no bounds checks
        raise OptionError(f"expected observations (N, {size}), got {obs.shape}")
    for k, (w, b) in enumerate(net["hidden"]):
        if k == 0:
            x = np.zeros((obs.shape[0], w.shape[1]), dtype=np.float32)
            scaled_sparse_product(obs, net["obs_scale"], w, x)
        else:
            x = x @ w
        x += b
        np.maximum(x, 0.0, out=x)
    w, b = net["policy"]
    logits = x @ w + b
    w, b = net["value"]
    values = np.tanh(x @ w + b)[:, 0]
    return logits, values


class NetAgent:
    """The policy of a trained network (module docs). ``path=None`` loads the weights shipped
    for ``game``; ``seed`` (0 to 2**64 - 1) seeds the sampling when it samples; ``greedy=None``
    and ``temperature=None`` play as the weights' metadata says."""

    def __init__(
        self, game: str = "century", seed: int = 0, path=None, greedy=None, temperature=None
    ):
        seed = check_policy_args(seed, greedy, allow_none=True)
        path = shipped_weights(game) if path is None else Path(path)
        net = load_net(path)
        if net["meta"].get("game") != game:
            raise OptionError(
                f"weights {str(path)!r} were trained on {net['meta'].get('game')!r}, not {game!r}"
            )
        self.game = game
        self.path = path
        self.net = net
        self.meta = net["meta"]
        if greedy is None:
            play = net["meta"].get("play", "greedy")
            if play not in PLAY_MODES:
                raise OptionError(f"weights {str(path)!r} have an unknown play mode {play!r}")
            greedy = play == "greedy"
        self.greedy = bool(greedy)
        if temperature is None:
            temperature = net["meta"].get("temperature", 1.0)
        self.temperature = check_temperature(temperature)
        self.num_actions = int(self.meta["num_actions"])
        self.obs_size = int(self.meta["obs_size"])
        self.anchor_weight = net["anchor_weight"]
        self._anchor = None
        if self.anchor_weight > 0:
            from meeple_gym.baselines.kernel_agent import game_heuristic

            try:
                self._anchor = game_heuristic(game, net["anchor_coefficients"])
            except ValueError as exc:  # coefficients of the wrong size, or for no heuristic
                raise OptionError(f"weights {str(path)!r}: anchor_coefficients: {exc}") from None
            if self._anchor is None:
                raise OptionError(
                    f"weights {str(path)!r} are anchored, but {game} has no heuristic"
                )
        self.name = "net" if path == shipped_weights(game) else f"net:{path}"
        self._rng = np.random.default_rng(seed)

    @classmethod
    def from_spec(cls, text: str, game: str, seed: int = 0) -> NetAgent:
        """``"net"`` (the shipped weights) or ``"net:PATH"``."""
        head, colon, path = text.partition(":")
        if head != "net" or (colon and not path):
            raise OptionError(f"not a net agent: {text!r} (use net or net:PATH)")
        return cls(game, seed=seed, path=path or None)

    def _check(self, observations, masks) -> tuple[np.ndarray, np.ndarray]:
        obs = np.asarray(observations)
        legal = np.asarray(masks) != 0
        if (
            obs.ndim != 2
            or obs.shape[1] != self.obs_size
            or legal.shape
            != (
                obs.shape[0],
                self.num_actions,
            )
        ):
            raise OptionError(
                f"expected observations (N, {self.obs_size}) and masks (N, {self.num_actions}); "
                f"got {obs.shape} and {np.asarray(masks).shape}"
            )
        if not legal.any(axis=1).all():
            raise ValueError("some mask rows have no legal action")
        return obs, legal

    def _logits(self, obs, masks) -> np.ndarray:
        logits, _ = forward(self.net, obs)
        if self._anchor is not None:  # the heuristic's move, lifted by the anchor weight
            anchor = self._anchor.act_batch(obs, np.asarray(masks, dtype=np.int8))
            logits[np.arange(obs.shape[0]), anchor] += np.float32(self.anchor_weight)
        return logits

    def policy(self, observations, masks) -> np.ndarray:
        """Probabilities (N, num_actions) over the legal actions of each row."""
        obs, legal = self._check(observations, masks)
        logits = self._logits(obs, masks)
        logits = np.where(legal, logits, -np.inf)
        logits -= logits.max(axis=1, keepdims=True)
        probs = np.exp(logits)
        return probs / probs.sum(axis=1, keepdims=True)

    def value(self, observations) -> np.ndarray:
        """The value head: the expected final reward, in [-1, 1], of the player to act."""
        obs = np.asarray(observations)
        if obs.ndim != 2 or obs.shape[1] != self.obs_size:
            raise OptionError(f"expected observations (N, {self.obs_size}), got {obs.shape}")
        return forward(self.net, obs)[1]

    def act_batch(self, observations, masks) -> np.ndarray:
        """One legal action per row (int64)."""
        obs, legal = self._check(observations, masks)
        if obs.shape[0] == 0:
            return np.empty(0, dtype=np.int64)
        logits = self._logits(obs, masks)
        if self.greedy:
            return np.where(legal, logits, -np.inf).argmax(axis=1).astype(np.int64)
        # Gumbel-max: a sample of the masked softmax with one draw per entry.
        gumbel = -np.log(-np.log(self._rng.random(logits.shape)))
        keys = logits / np.float32(self.temperature) + gumbel
        return np.where(legal, keys, -np.inf).argmax(axis=1).astype(np.int64)

    def act(self, observation: dict) -> int:
        """One PettingZoo observation dict ``{"observation", "action_mask"}``."""
        obs = np.asarray(observation["observation"])[None]
        return int(self.act_batch(obs, np.asarray(observation["action_mask"])[None])[0])
