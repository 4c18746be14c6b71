"""PettingZoo Parallel envs over the AEC envs, by PettingZoo's own turn-based conversion.

>>> import meeple_gym as mg
>>> env = mg.make_parallel("century", num_players=2)
>>> observations, infos = env.reset(seed=0)
>>> actor = next(a for a, info in infos.items() if info["is_active"])  # the one that counts
>>> mask = observations[actor]["action_mask"]
>>> actions = {a: 0 for a in env.agents} | {actor: int(mask.nonzero()[0][0])}
>>> observations, rewards, terminations, truncations, infos = env.step(actions)

The games are turn-based, so every ``step`` takes a dict with an action for each live agent and
applies only the action of the agent to act: ``infos[agent]["active_seat"]`` (its seat, an int)
and ``infos[agent]["is_active"]`` (a bool) are present after ``reset`` and after every ``step``;
the others' actions are ignored and their masks are all zero. Numbers, not the agent's name:
libraries that turn every info value into a tensor refuse strings. This is
``pettingzoo.utils.conversions.turn_based_aec_to_parallel_wrapper`` with two changes: ``reset``
marks the active agent too, and every ``infos`` dict handed out is a fresh copy (PettingZoo's
wrapper hands out, and later edits, the AEC env's own dicts).
"""

from __future__ import annotations

import numpy as np
from pettingzoo.utils.conversions import turn_based_aec_to_parallel_wrapper

from meeple_gym.core.locking import locked


class TurnBasedParallelEnv(turn_based_aec_to_parallel_wrapper):
    """A meeple-gym AEC env as a PettingZoo ``ParallelEnv`` (see the module docstring)."""

    def __init__(self, aec_env):
        super().__init__(aec_env)
        self.metadata = dict(aec_env.metadata)

    # The AEC env's lock, held over each whole call (a step is several AEC calls).
    _lock = property(lambda self: self.aec_env.unwrapped._lock)

    @locked
    def reset(self, seed=None, options=None):
        observations, infos = super().reset(seed=seed, options=options)
        return observations, self._with_active_agent(infos)

    @locked
    def step(self, actions):
        if not self.agents:
            # PettingZoo's wrapper returns a 4-tuple here; keep the 5-tuple contract.
            return {}, {}, {}, {}, {}
        observations, rewards, terminations, truncations, infos = super().step(actions)
        return observations, rewards, terminations, truncations, self._with_active_agent(infos)

    def _with_active_agent(self, infos):
        out = {agent: dict(info) for agent, info in infos.items()}
        if self.aec_env.agents:
            actor = self.aec_env.agent_selection
            seat = self.aec_env.unwrapped.agent_name_mapping[actor]
            for agent in self.aec_env.agents:
                info = out.setdefault(agent, {})
                info["active_seat"] = seat
                info["is_active"] = agent == actor
        return out

    @locked
    def action_masks(self) -> dict[str, np.ndarray]:
        """Each live agent's legal actions as a fresh bool vector (all False but the actor's)."""
        raw = self.aec_env.unwrapped
        return {agent: raw.action_masks(agent) for agent in self.agents}


def parallel_env(aec_env) -> TurnBasedParallelEnv:
    """``aec_env`` (a meeple-gym AEC env) as a PettingZoo ``ParallelEnv``."""
    return TurnBasedParallelEnv(aec_env)


def make_parallel(
    name: str, num_players: int | None = None, render_mode: str | None = None, **options
):
    """A PettingZoo ``ParallelEnv`` for ``name``: ``meeple_gym.make(...)`` (same arguments,
    including ``illegal_action`` and ``observation_mode``) through the turn-based conversion."""
    from meeple_gym.core.registry import make

    return TurnBasedParallelEnv(make(name, num_players, render_mode=render_mode, **options))


def module_parallel_env(env_fn, module: str):
    """``parallel_env()`` for a game's env module, built from its ``env()``."""

    def parallel_env(num_players: int = 2, render_mode: str | None = None, **options):
        aec_env = env_fn(num_players=num_players, render_mode=render_mode, **options)
        return TurnBasedParallelEnv(aec_env)

    parallel_env.__module__ = module
    return parallel_env
