"""RLlib glue: a turn-based ``MultiAgentEnv`` for self-play, and env names that work on Ray's
remote env runners (docs/rllib.md). Needs ``pip install "meeple-gym[rllib]"``.

>>> import meeple_gym.rllib as mgr           # registers the names below with ray.tune
>>> env = mgr.MeepleMultiAgentEnv({"game": "century", "num_players": 2})
>>> obs, infos = env.reset(seed=0)           # only the agent to act: {"player_0": {...}}
>>> (agent, o), = obs.items()                # o: {"observations": vector, "action_mask": 0/1}
>>> obs, rewards, terminateds, truncateds, infos = env.step({agent: int(o["action_mask"].argmax())})

``MeepleMultiAgentEnv`` (RLlib's new API stack). Agents are the seats ``player_0 …``; each step
returns an observation for the agent to act next only (the same agent again for a sub-decision).
Its observation is the Dict RLlib's ``ActionMaskingTorchRLModule`` reads, ``{"observations":
float32 vector, "action_mask": float32 0/1}``. The step that ends the game returns every seat's
last observation (mask all zero) and every seat's terminal reward, with ``terminateds`` (or, at
the game's step cap, ``truncateds``) true for every seat and ``"__all__"``: seats that did not act
on that step get their reward too. Rewards are 0 on every other step, as in the game.

Registered with ``ray.tune.registry.register_env`` on import (and by ``register_envs()``):

- ``"meeple_gym_multiagent"`` (``MULTI_AGENT_ENV``): ``MeepleMultiAgentEnv(env_config)``, with
  ``env_config`` keys ``game``, ``num_players``, ``options`` (a dict of game options) and
  ``illegal_action`` (``"lose"`` by default, so that RLlib's env checker, which steps unmasked
  random actions, passes; ``"raise"`` to debug a policy that ignores the mask).
- ``"meeple_gym/Century-v0"`` … : the single-agent Gymnasium ids, built by ``gymnasium.make``
  in whichever process asks. Remote env runners never imported meeple_gym, so Gymnasium alone
  does not know these ids there ("Namespace meeple_gym not found"); a tune-registered name is
  shipped to them. ``"meeple_gym:meeple_gym/Century-v0"`` works without this module.

A tune registration lives in the running Ray session: after ``ray.shutdown()`` and a new
``ray.init()`` in the same process, call ``register_envs()`` again.
"""

from __future__ import annotations

import functools

import numpy as np
from gymnasium import spaces

try:
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.tune.registry import register_env
except ImportError as exc:  # pragma: no cover - depends on the install
    raise ImportError(
        f"meeple_gym.rllib needs RLlib ({exc}); install it with "
        'pip install "meeple-gym[rllib]" (keeps your gymnasium)'
    ) from exc

import meeple_gym as mg
from meeple_gym.core.errors import ActionError, GameOverError, NotResetError, OptionError
from meeple_gym.core.gym_env import GAME_IDS

MULTI_AGENT_ENV = "meeple_gym_multiagent"
CONFIG_KEYS = ("game", "num_players", "options", "illegal_action")
ILLEGAL_ACTION_MODES = ("lose", "raise")


class MeepleMultiAgentEnv(MultiAgentEnv):
    """A meeple-gym game as a turn-based RLlib ``MultiAgentEnv``; see the module docstring.

    Args:
        config: ``{"game": "century", "num_players": None (the game's default), "options":
            {}, "illegal_action": "lose"}`` or any part of it (RLlib passes its
            ``env_config`` here, an ``EnvContext``).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(self, config: dict | None = None):
        super().__init__()
        config = dict(config or {})
        unknown = sorted(set(config) - set(CONFIG_KEYS))
        if unknown:
            raise OptionError(
                f"unknown env_config keys {unknown}; known: {', '.join(CONFIG_KEYS)} "
                '(game options go in "options": {...})'
            )
        options = config.get("options") or {}
        if not isinstance(options, dict):
            raise OptionError(f'env_config["options"] must be a dict, got {options!r}')
        illegal_action = config.get("illegal_action", "lose")
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise OptionError(
                f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}"
            )
        self.game = config.get("game", "century")
        self._aec = mg.make(
            self.game,
            config.get("num_players"),
            render_mode="ansi",
            illegal_action=illegal_action,
            **options,
        )
        self._raw = self._aec.unwrapped
        self.num_players = self._raw.num_players
        self.render_mode = "ansi"
        self.possible_agents = list(self._raw.possible_agents)
        # Every seat stays in the game to the end, so the live agents are all of them.
        self.agents = list(self.possible_agents)
        self._agent_ids = set(self.possible_agents)  # RLlib's env checker looks for it

        agent0 = self.possible_agents[0]
        num_actions = self._raw.spec.num_actions
        obs_space = spaces.Dict(
            {
                "observations": self._raw.observation_space(agent0)["observation"],
                "action_mask": spaces.Box(0.0, 1.0, (num_actions,), np.float32),
            }
        )
        act_space = spaces.Discrete(num_actions)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._done = True
        self._has_reset = False

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal a new game (``seed`` restarts the deal stream, as for the AEC env); returns the
        observation of the agent to act only. ``options`` is ignored: game options go in
        ``env_config["options"]``."""
        del options
        self._aec.reset(seed=seed)
        self._has_reset = True
        self._done = False
        actor = self._aec.agent_selection
        return {actor: self._observe(actor)}, {actor: {}}

    def step(self, action_dict: dict):
        if not self._has_reset:
            raise NotResetError("call reset() before step()")
        if self._done:
            raise GameOverError("the game is over; call reset()")
        actor = self._aec.agent_selection
        if set(action_dict) != {actor}:
            raise ActionError(
                f"it is {actor}'s turn: give exactly {{{actor!r}: action}}, "
                f"got actions for {sorted(action_dict)}"
            )
        self._aec.step(action_dict[actor])
        aec = self._aec
        if not any(aec.terminations.values()) and not any(aec.truncations.values()):
            nxt = aec.agent_selection
            # The actor's reward key is needed when it acts again (RLlib pairs it with the
            # action); it is 0, as every reward before the end is.
            return (
                {nxt: self._observe(nxt)},
                {actor: float(aec.rewards[actor])},
                {"__all__": False},
                {"__all__": False},
                {nxt: {}},
            )
        # Game over: every seat gets its last observation and its reward, so seats that did
        # not act on this step still learn the result.
        self._done = True
        agents = self.possible_agents
        terminated = bool(aec.terminations[actor])
        truncated = bool(aec.truncations[actor])
        return (
            {a: self._observe(a) for a in agents},
            {a: float(aec.rewards[a]) for a in agents},
            {**{a: terminated for a in agents}, "__all__": terminated},
            {**{a: truncated for a in agents}, "__all__": truncated},
            {a: dict(aec.infos[a]) for a in agents},
        )

    def _observe(self, agent) -> dict:
        obs = self._aec.observe(agent)
        return {
            "observations": obs["observation"],
            "action_mask": obs["action_mask"].astype(np.float32),
        }

    def action_to_string(self, action) -> str:
        return self._raw.action_to_string(action)

    def render(self):
        """The text board of the game in play."""
        if not self._has_reset:
            raise NotResetError("call reset() before render()")
        return self._raw.render()

    @property
    def aec_env(self):
        """The underlying PettingZoo AEC env (read it; stepping it desynchronises this env)."""
        return self._aec

    def close(self):
        self._aec.close()


class RLModuleAgent:
    """A trained masked RLModule (``ActionMaskingTorchRLModule``) as a meeple-gym agent, for
    ``meeple_gym.baselines.evaluate.play_match`` and the ladder: greedy (the highest masked
    logit) unless ``explore=True`` (``forward_exploration``, sampled from the masked logits)."""

    def __init__(self, module, name: str = "rllib", explore: bool = False, seed: int = 0):
        self.module = module
        self.name = name
        self.explore = explore
        self.rng = np.random.default_rng(seed)

    def act_batch(self, observations, masks) -> np.ndarray:
        import torch

        masks = np.asarray(masks)
        batch = {
            "obs": {
                "observations": torch.as_tensor(np.asarray(observations, dtype=np.float32)),
                "action_mask": torch.as_tensor((masks != 0).astype(np.float32)),
            }
        }
        with torch.no_grad():
            if self.explore:
                out = self.module.forward_exploration(batch)
            else:
                out = self.module.forward_inference(batch)
        logits = out["action_dist_inputs"].numpy().astype(np.float64)
        if self.explore:
            # Gumbel-max: a sample from the softmax of the masked logits.
            logits = logits + self.rng.gumbel(size=logits.shape)
        # Masked logits are floored at float32's minimum, not -inf: exclude illegal ones here.
        return np.where(masks != 0, logits, -np.inf).argmax(axis=1).astype(np.int64)

    def act(self, observation: dict) -> int:
        """One action for a PettingZoo observation dict ``{"observation", "action_mask"}``."""
        obs = np.asarray(observation["observation"])[None]
        return int(self.act_batch(obs, np.asarray(observation["action_mask"])[None])[0])


def _single_agent_env(env_id: str, config: dict):
    """``gymnasium.make(env_id, **config)``, imported here so a remote runner knows the id.
    RLlib's ``"vector_entry_point"`` mode passes ``num_envs``: then the batched vector env, in
    its default next-step auto-reset, the mode RLlib's env runner expects."""
    import gymnasium

    config = dict(config)
    num_envs = config.pop("num_envs", None)
    if num_envs is not None:
        return gymnasium.make_vec(
            env_id, num_envs=num_envs, vectorization_mode="vector_entry_point", **config
        )
    return gymnasium.make(env_id, **config)


def register_envs() -> None:
    """Register ``MULTI_AGENT_ENV`` and the single-agent ids with ``ray.tune`` (idempotent;
    call it again after starting a new Ray session in the same process)."""
    register_env(MULTI_AGENT_ENV, MeepleMultiAgentEnv)
    for env_id in GAME_IDS.values():
        register_env(env_id, functools.partial(_single_agent_env, env_id))


register_envs()

__all__ = ["MULTI_AGENT_ENV", "MeepleMultiAgentEnv", "RLModuleAgent", "register_envs"]
