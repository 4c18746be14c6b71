"""Shared shell of the heuristic agents: input checks around a per-game Numba policy.

A subclass names its game's observation and action sizes, and passes its kernel
``policy(obs, mask) -> action`` for one observation and its game as class keywords
(``class CenturyHeuristicAgent(KernelAgent, policy=heuristic_action, game="century")``); the
batch kernel ``policy_batch(obs, masks, out)`` is bound from them (meeple_gym.core.masks).
"""

from __future__ import annotations

import importlib

import numpy as np

from meeple_gym.core.masks import policy_batch
from meeple_gym.core.threads import check_fork_safe


def _writable(array, dtype) -> np.ndarray:
    """A C-contiguous array of ``dtype`` that Numba types like every other call: a read-only
    view (e.g. ``batch.legal_mask``) would compile a second specialisation of the policy."""
    out = np.ascontiguousarray(array, dtype=dtype)
    return out if out.flags.writeable else out.copy()


class KernelAgent:
    obs_size: int
    num_actions: int
    policy = None  # staticmethod(kernel)
    policy_batch = None  # staticmethod(parallel kernel)

    def __init_subclass__(cls, policy=None, game: str | None = None, **kwargs):
        super().__init_subclass__(**kwargs)
        if policy is not None:
            cls.policy = staticmethod(policy)
            cls.policy_batch = staticmethod(policy_batch(policy, game))

    def act(self, observation: dict) -> int:
        """One action for an observation dict with ``observation`` and ``action_mask``."""
        obs = _writable(observation["observation"], np.float32)
        mask = _writable(observation["action_mask"], np.int8)
        self._check(obs.shape, mask.shape, 1)
        action = self.policy(obs, mask)
        if action < 0:
            raise ValueError("action_mask has no legal action")
        return int(action)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """One action per row of (B, obs_size) observations and (B, num_actions) masks."""
        obs = _writable(observations, np.float32)
        masks = _writable(masks, np.int8)
        self._check(obs.shape, masks.shape, 2)
        out = np.empty(obs.shape[0], dtype=np.int64)
        check_fork_safe()  # a parallel kernel: refuse instead of dying in a forked child
        self.policy_batch(obs, masks, out)
        if (out < 0).any():
            raise ValueError("some mask rows have no legal action")
        return out

    def _check(self, obs_shape, mask_shape, ndim):
        if (
            len(obs_shape) != ndim
            or len(mask_shape) != ndim
            or obs_shape[-1] != self.obs_size
            or mask_shape[-1] != self.num_actions
            or obs_shape[:-1] != mask_shape[:-1]
        ):
            raise ValueError(
                f"expected observations (..., {self.obs_size}) and masks "
                f"(..., {self.num_actions}) with {ndim} dims and matching batch size; "
                f"got {obs_shape} and {mask_shape}"
            )


def check_coefficients(coefficients, size: int) -> np.ndarray:
    """``coefficients`` as a read-only float64 vector of ``size`` finite numbers, or a
    ValueError naming what is wrong."""
    try:
        coef = np.array(coefficients, dtype=np.float64)
    except (TypeError, ValueError) as err:
        raise ValueError(f"coefficients must be {size} numbers: {err}") from None
    if coef.shape != (size,):
        raise ValueError(f"coefficients must be {size} numbers, got shape {coef.shape}")
    if not np.isfinite(coef).all():
        raise ValueError("coefficients must be finite numbers")
    coef.flags.writeable = False
    return coef


def heuristic_class(game: str):
    """The heuristic agent class ``game``'s spec names (``GameSpec.heuristic``,
    "module:Class"), or None if it names none."""
    from meeple_gym.core.registry import get_spec

    path = get_spec(game).heuristic
    if path is None:
        return None
    module, cls = path.split(":")
    return getattr(importlib.import_module(module), cls)


def has_coefficients(cls) -> bool:
    """Whether the heuristic class ``cls`` values moves with coefficients an agent can set
    (``default_coefficients``, ``coefficient_scales``, ``__init__(coefficients=...)``)."""
    return getattr(cls, "default_coefficients", None) is not None


def game_heuristic(game: str, coefficients=None):
    """A new instance of ``game``'s heuristic agent, or None if its spec names none.
    ``coefficients``: learned coefficients of its move values, for a heuristic that has them
    (``default_coefficients``; Everdell's); a ValueError for one that has none."""
    cls = heuristic_class(game)
    if cls is None:
        return None
    if coefficients is None:
        return cls()
    if not has_coefficients(cls):
        raise ValueError(f"the {game} heuristic has no coefficients to set")
    return cls(coefficients=coefficients)
