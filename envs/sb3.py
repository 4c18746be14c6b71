"""A Stable-Baselines3 ``VecEnv`` over the batched vector env (docs/sb3.md).

>>> from sb3_contrib import MaskablePPO
>>> from meeple_gym.sb3 import make_sb3_vec_env
>>> venv = make_sb3_vec_env("century", n_envs=64, opponent="random")
>>> model = MaskablePPO("MlpPolicy", venv, n_steps=64, seed=0).learn(100_000)

``BatchVecEnv`` wraps ``meeple_gym.core.vector_env.BatchVectorEnv``: the ``n_envs`` games are
stepped in one kernel call per ``step`` instead of one Python env per game as in SB3's
``DummyVecEnv``. It follows SB3's ``VecEnv`` conventions: ``reset()`` returns the observations
only, ``dones = terminated | truncated``, a finished row is reset on the same step and the
finished episode's last observation is in ``infos[i]["terminal_observation"]``, with
``infos[i]["TimeLimit.truncated"]`` set when the game's step cap ended it.

Masks: sb3-contrib's ``get_action_masks(venv)`` calls ``venv.env_method("action_masks")`` and
stacks the result. Here that call reads the batch's whole (n_envs, num_actions) mask once and
hands back its rows, so a step costs one mask read, not one call per env.

Needs ``stable-baselines3`` (``pip install "meeple-gym[integrations]"``); this is the only
module of the package that imports it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium.vector import AutoresetMode
from stable_baselines3.common.vec_env.base_vec_env import VecEnv

from meeple_gym.core.errors import OptionError
from meeple_gym.core.vector_env import SELF_PLAY, BatchVectorEnv

__all__ = ["BatchVecEnv", "make_sb3_vec_env"]

_MASK_METHOD = "action_masks"  # sb3_contrib.common.maskable.utils.EXPECTED_METHOD_NAME


class BatchVecEnv(VecEnv):
    """SB3 ``VecEnv`` view of a ``BatchVectorEnv`` (learner mode: one learner per row).

    The rows share one env object, so ``get_attr``/``env_method`` read or call the vector env
    once and return that value for every requested index (``env_method("action_masks")``
    returns each row's own mask); ``set_attr`` sets the shared attribute and so only accepts
    all indices. ``env_is_wrapped`` is False for every row (no Gymnasium wrappers inside).

    Args:
        venv: a ``BatchVectorEnv`` built with ``copy=True`` (SB3 keeps the previous
            observation array while it steps), ``autoreset_mode=AutoresetMode.SAME_STEP``
            (SB3 resets a finished env in the step that ends it) and an opponent (not
            self-play: SB3 expects one reward per row).
    """

    def __init__(self, venv: BatchVectorEnv):
        if not isinstance(venv, BatchVectorEnv):
            raise OptionError(f"venv must be a BatchVectorEnv, got {type(venv).__name__}")
        if venv.self_play:
            raise OptionError(
                "SB3 expects one reward per env: use an opponent, not self-play "
                f"(opponent={venv.opponent!r})"
            )
        if not venv.copy:
            # collect_rollouts stores the previous observation after stepping: a view of the
            # batch's buffer would already hold the next one.
            raise OptionError("the SB3 VecEnv needs a vector env built with copy=True")
        if venv.autoreset_mode is not AutoresetMode.SAME_STEP:
            # In next-step mode the step after an end is a reset that SB3 would store as a move.
            raise OptionError(
                "the SB3 VecEnv needs a vector env built with "
                f"autoreset_mode=AutoresetMode.SAME_STEP, got {venv.autoreset_mode}"
            )
        self.venv = venv
        self._actions: np.ndarray | None = None
        super().__init__(venv.num_envs, venv.single_observation_space, venv.single_action_space)

    # ---- stepping -------------------------------------------------------------------------
    def reset(self) -> np.ndarray:
        """Deal every row afresh. After ``seed(s)`` the batch seed is ``s`` (row ``i`` plays as
        row ``i`` of ``BatchVectorEnv.reset(seed=s)``); otherwise the vector env draws one."""
        seed = self._seeds[0]
        obs, info = self.venv.reset(seed=seed)
        self._reset_seeds()
        self._reset_options()  # game options go to the constructor, as for the vector env
        self.reset_infos = [{"seat": int(s)} for s in info["seat"]]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = actions

    def step_wait(self):
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async()")
        actions, self._actions = self._actions, None
        obs, rewards, terminated, truncated, info = self.venv.step(np.asarray(actions))
        dones = terminated | truncated
        # Plain dicts for the rows still playing; SB3 wrappers (VecMonitor) add their keys.
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        if dones.any():
            final_obs = info["final_obs"]
            final_info = info["final_info"]
            score = final_info.get("score")
            illegal = final_info.get("illegal_action")
            for i in np.flatnonzero(dones).tolist():
                row = infos[i]
                row["terminal_observation"] = final_obs[i]
                # SB3 bootstraps from terminal_observation only for time-limit ends.
                row["TimeLimit.truncated"] = bool(truncated[i] and not terminated[i])
                row["seat"] = int(final_info["seat"][i])
                if score is not None and final_info["_score"][i]:
                    row["score"] = int(score[i])
                if illegal is not None and illegal[i]:
                    row["illegal_action"] = True
        # float32 like DummyVecEnv's buffer; MaskablePPO adds bootstrap values in place.
        return obs, rewards.astype(np.float32), dones, infos

    def close(self) -> None:
        self.venv.close()

    # ---- masks ----------------------------------------------------------------------------
    def action_masks(self) -> np.ndarray:
        """Each row's legal actions, bool (n_envs, num_actions), in one read of the batch."""
        return self.venv.action_masks()

    # ---- attributes -----------------------------------------------------------------------
    def _indices(self, indices) -> list[int]:
        rows = list(self._get_indices(indices))
        for i in rows:
            if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
                raise IndexError(f"env index must be an int, got {i!r}")
            if not -self.num_envs <= i < self.num_envs:
                raise IndexError(f"env index {i} out of range for {self.num_envs} envs")
        return [int(i) % self.num_envs for i in rows]

    def get_attr(self, attr_name: str, indices=None) -> list[Any]:
        rows = self._indices(indices)
        value = getattr(self.venv, attr_name)  # AttributeError, as SB3's has_attr expects
        return [value] * len(rows)

    def set_attr(self, attr_name: str, value: Any, indices=None) -> None:
        rows = self._indices(indices)
        if sorted(set(rows)) != list(range(self.num_envs)):
            raise ValueError(
                f"the {self.num_envs} envs share one vector env: set_attr({attr_name!r}) must "
                "cover all of them (indices=None)"
            )
        setattr(self.venv, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs):
        rows = self._indices(indices)
        if method_name == _MASK_METHOD:
            masks = self.venv.action_masks(*method_args, **method_kwargs)
            return [masks[i] for i in rows]  # views of one array; np.stack copies them once
        result = getattr(self.venv, method_name)(*method_args, **method_kwargs)
        return [result] * len(rows)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(self._indices(indices))

    def get_images(self) -> Sequence[np.ndarray | None]:
        raise NotImplementedError("the batched env does not render")

    @property
    def game(self) -> str:
        return self.venv.game


def make_sb3_vec_env(
    game: str = "century",
    n_envs: int = 64,
    *,
    seed: int | None = None,
    illegal_action: str = "lose",
    **kwargs,
) -> BatchVecEnv:
    """``n_envs`` games of ``game`` as one SB3 ``VecEnv`` stepped by the batched kernels.

    Args:
        game: a game name (``meeple_gym.available_games()``).
        n_envs: games stepped together.
        seed: if given, the batch seed of the first ``reset()`` (as ``venv.seed(seed)``).
        illegal_action: ``"lose"`` (default, as the registered Gymnasium ids: a forbidden
            action ends that row's game as a loss, so unmasked PPO trains) or ``"raise"``.
        **kwargs: the vector env's options (``num_players``, ``opponent``, ``seat``, game
            options); ``copy``, ``autoreset_mode`` and self-play are refused (``BatchVecEnv``).
    """
    if "copy" in kwargs:
        raise OptionError("copy is fixed to True: SB3 keeps the previous observation array")
    if "autoreset_mode" in kwargs:
        raise OptionError("autoreset_mode is fixed to SAME_STEP: SB3 resets in the ending step")
    opponent = kwargs.get("opponent", "random")
    if isinstance(opponent, (str, type(None))) and opponent in SELF_PLAY:
        raise OptionError(f"SB3 expects one reward per env: use an opponent, not {opponent!r}")
    venv = BatchVecEnv(
        BatchVectorEnv(
            game,
            n_envs,
            illegal_action=illegal_action,
            autoreset_mode=AutoresetMode.SAME_STEP,
            **kwargs,
        )
    )
    if seed is not None:
        venv.seed(seed)
    return venv
