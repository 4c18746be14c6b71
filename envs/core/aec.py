"""The PettingZoo AEC environment shared by every meeple-gym game.

``env(spec, ...)`` returns ``raw_env`` wrapped in PettingZoo's ``OrderEnforcingWrapper`` (as
the classic environments do); ``raw_env`` holds a batch of one game and calls the same Numba
kernels as the batched env.

- Agents are ``player_0 … player_{n-1}`` (seats). The agent to act is whoever decides next,
  including sub-decisions (``agent_selection``).
- Observation (``observation_mode="dict"``, the default): ``{"observation": float32 vector,
  "action_mask": int8 vector}``; the mask is all zeros for an agent who is not to act. With
  ``observation_mode="flat"`` the observation is the float32 vector alone (a ``Box``, for
  SuperSuit's observation wrappers and RLlib's default encoders) and the mask is in
  ``infos[agent]["action_mask"]``. Spaces are built once and the same objects are returned
  on every call. ``action_masks()`` gives the acting agent's mask as bool.
- Rewards come only on the step that ends the game (see the game's docs for the values).
- Illegal actions (``illegal_action="raise"``, the default) **raise** ``IllegalActionError``
  and leave the game unchanged. With ``illegal_action="lose"`` an in-range action the mask
  forbids ends the game: the actor gets ``ILLEGAL_ACTION_REWARD`` (-1), every other agent 0
  (PettingZoo's ``TerminateIllegalWrapper`` convention), all are terminated, and the actor's
  info holds ``"illegal_action": True`` (the others' ``False``). Out-of-range or non-integer
  actions raise ``ActionError`` in both modes.
- ``state()`` / ``state_space``: privileged information for centralised critics, every
  seat's observation concatenated plus a one-hot of the seat to act (docs/pettingzoo.md).
- ``render_mode``: ``"ansi"`` returns the text board (a debugging view: hidden cards included,
  marked), ``"human"`` prints it, ``"rgb_array"`` returns the public picture as an HxWx3 uint8
  image (the ``pictures`` extra). ``picture(seat)`` is the SVG seen from a seat; notebooks show
  the env as its picture (docs/pictures.md).
- After the end, each agent steps ``None`` once to leave (PettingZoo convention); any other
  action, or a step once every agent has left, raises ``GameOverError``.
- ``to_dict()``/``from_dict()`` save and restore any position (JSON-safe, exact, RNG
  included); ``clone()`` copies the env for search; ``determinize(player, seed)`` returns a
  clone whose hidden information is resampled for ``player``.
- Threads: every public method holds the env's lock (``meeple_gym.core.locking``), so calls
  from several threads run one after the other. ``state_array`` (the live record) is not
  covered: hold ``env.unwrapped.lock`` to read it and step as one unit.
"""

from __future__ import annotations

import copy
import secrets

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from meeple_gym.core.batch import check_seed
from meeple_gym.core.errors import (
    ILLEGAL_ACTION_HINT,
    GameOverError,
    IllegalActionError,
    NotResetError,
    OptionError,
    SnapshotError,
)
from meeple_gym.core.game import GameSpec
from meeple_gym.core.locking import locked, new_lock
from meeple_gym.core.options import check_action, check_int
from meeple_gym.core.rng import STREAM_DETERMINIZE, game_key, py_derive_key
from meeple_gym.core.svg import Picture

RENDER_MODES = ("ansi", "human", "rgb_array")
OBSERVATION_MODES = ("dict", "flat")
ILLEGAL_ACTION_MODES = ("raise", "lose")
ILLEGAL_ACTION_REWARD = -1.0
# Keywords of the env itself (the rest of make()'s keywords are game options).
ENV_KEYWORDS = ("illegal_action", "observation_mode")


def _check_mode(name: str, value, allowed: tuple) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise OptionError(f"{name} must be one of {allowed}, got {value!r}")
    return value


class MeepleAECEnv(AECEnv):
    metadata = {"render_modes": list(RENDER_MODES), "is_parallelizable": False, "render_fps": 1}

    def __init__(
        self,
        spec: GameSpec,
        num_players: int,
        render_mode: str | None = None,
        illegal_action: str = "raise",
        observation_mode: str = "dict",
        **options,
    ):
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise OptionError(
                f"render_mode must be None or one of {RENDER_MODES}, got {render_mode!r}"
            )
        if render_mode == "rgb_array" and spec.draw is None:
            raise OptionError(f"{spec.name} has no pictures: render_mode='rgb_array' needs them")
        self.illegal_action = _check_mode("illegal_action", illegal_action, ILLEGAL_ACTION_MODES)
        self.observation_mode = _check_mode("observation_mode", observation_mode, OBSERVATION_MODES)
        self._flat = observation_mode == "flat"
        spec = spec.with_observation(options.get("observation"))  # the encoder asked for
        self.spec = spec
        self.options = options
        self._options_code = spec.options_code({**spec.options, **options}, num_players)
        self.metadata = dict(self.metadata, name=f"meeple_{spec.name}_v0")
        self.render_mode = render_mode
        self.num_players = num_players
        self.possible_agents = [f"player_{i}" for i in range(num_players)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        vector_space = spaces.Box(
            low=0.0, high=spec.obs_high, shape=(spec.obs_size,), dtype=np.float32
        )
        mask_space = spaces.Box(low=0, high=1, shape=(spec.num_actions,), dtype=np.int8)
        obs_space = (
            vector_space
            if self._flat
            else spaces.Dict({"observation": vector_space, "action_mask": mask_space})
        )
        # state(): every seat's observation, then a one-hot of the seat to act
        self._state_size = num_players * spec.obs_size + num_players
        seat_high = np.broadcast_to(np.asarray(spec.obs_high, np.float32), (spec.obs_size,))
        state_high = np.concatenate(
            [np.tile(seat_high, num_players), np.ones(num_players, np.float32)]
        )
        self.state_space = spaces.Box(low=0.0, high=state_high, dtype=np.float32)
        act_space = spaces.Discrete(spec.num_actions)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: act_space for a in self.possible_agents}
        self._bind(np.zeros(1, dtype=spec.state_dtype))
        self._mask = np.zeros(spec.num_actions, dtype=np.int8)
        self._no_mask = np.zeros(spec.num_actions, dtype=np.int8)
        self._no_mask.setflags(write=False)  # shared by every flat-mode info of a waiting agent
        self._num_actions = spec.num_actions
        self._reward_buf = np.zeros(spec.max_players, dtype=np.float32)
        self._seed: np.uint64 | None = None
        self._episode = 0
        self._has_reset = False
        self.agents = []
        self._lock = new_lock()  # the kernels release the GIL: one public call at a time

    def _bind(self, states: np.ndarray) -> None:
        # Field views: reading view[0] is much cheaper than indexing a record each step.
        self._states = states
        self._terminated = states["terminated"]
        self._truncated = states["truncated"]
        self._current = states["current_player"]

    # ---- spaces ---------------------------------------------------------------------------
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ---- lifecycle ------------------------------------------------------------------------
    @locked
    def reset(self, seed: int | None = None, options: dict | None = None):
        """Deal a new game. ``reset(seed)`` restarts the episode stream of that seed; later
        ``reset()`` calls deal the stream's next games. Without any seed one is drawn.
        ``options`` is accepted for API compatibility and ignored: game options go to make()."""
        del options
        if seed is not None:
            self._seed = check_seed(seed)
            self._episode = 0
        elif self._seed is None:
            self._seed = np.uint64(secrets.randbits(64))
            self._episode = 0
        else:
            self._episode += 1
        key = game_key(self._seed, 0, self._episode)
        self.spec.init_game(self._states, 0, self.num_players, key, self._options_code)
        self._sync_from_state()

    def _sync_from_state(self):
        """Rebuild the PettingZoo bookkeeping from ``self._states`` (after reset/from_dict)."""
        self._has_reset = True
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        record = self._states[0]
        ended_by_rules = bool(record["terminated"])
        ended_by_cap = bool(record["truncated"])
        self.terminations = {a: ended_by_rules for a in self.agents}
        self.truncations = {a: ended_by_cap for a in self.agents}
        self.agent_selection = self.agents[int(record["current_player"])]
        self.spec.legal_mask_into(self._states, 0, self._mask)
        if ended_by_rules or ended_by_cap:
            self._mask[:] = 0
        if self._flat:
            self.infos = {a: {"action_mask": self._no_mask} for a in self.agents}
            self.infos[self.agent_selection] = {"action_mask": self._mask.copy()}
        else:
            self.infos = {a: {} for a in self.agents}

    def _require_reset(self, what: str) -> None:
        if not self._has_reset:
            raise NotResetError(f"call reset() (or from_dict) before {what}")

    # last, observe and step are the per-step path: they take the lock themselves, around a
    # call of their body, since @locked costs over twice as much per call (benchmarks/README.md,
    # "Thread safety: the cost of the lock").
    def last(self, observe: bool = True):
        lock = self._lock
        lock.acquire()
        try:
            return self._last(observe)
        finally:
            lock.release()

    def _last(self, observe: bool):
        self._require_reset("last()")
        if not self.agents:
            raise GameOverError("the game is over and every agent has left; call reset()")
        agent = self.agent_selection  # AECEnv.last, without observe()'s second lock
        return (
            self._observe(agent) if observe else None,
            self._cumulative_rewards[agent],
            self.terminations[agent],
            self.truncations[agent],
            self.infos[agent],
        )

    def observe(self, agent):
        lock = self._lock
        lock.acquire()
        try:
            return self._observe(agent)
        finally:
            lock.release()

    def _observe(self, agent):
        self._require_reset("observe()")
        if agent not in self.agent_name_mapping:
            raise OptionError(
                f"unknown agent {agent!r}; agents are {', '.join(self.possible_agents)}"
            )
        seat = self.agent_name_mapping[agent]
        out = np.empty(self.spec.obs_size, dtype=np.float32)
        self.spec.encode_into(self._states, 0, seat, out)
        if self._flat:
            return out
        return {"observation": out, "action_mask": self._mask_of(agent).copy()}

    def _mask_of(self, agent) -> np.ndarray:
        """The live mask if ``agent`` is to act, else the shared zeros (do not hand out)."""
        to_act = agent == self.agent_selection and not (
            self.terminations.get(agent, True) or self.truncations.get(agent, True)
        )
        return self._mask if to_act else self._no_mask

    @locked
    def action_masks(self, agent=None) -> np.ndarray:
        """The legal actions of ``agent`` (default: the agent to act) as a fresh bool vector;
        all False for an agent who is not to act and once the game is over. (Observations and
        infos carry int8 masks, which gymnasium's ``Discrete.sample(mask)`` requires.)"""
        self._require_reset("action_masks()")
        if agent is None:
            agent = self.agent_selection
        elif agent not in self.agent_name_mapping:
            raise OptionError(
                f"unknown agent {agent!r}; agents are {', '.join(self.possible_agents)}"
            )
        return self._mask_of(agent).astype(bool)

    @locked
    def state(self) -> np.ndarray:
        """Privileged information for a centralised critic (never give it to a policy): every
        seat's observation vector in seat order, then a one-hot of the seat to act (all zero
        once the game is over). A fresh float32 vector in ``state_space``."""
        self._require_reset("state()")
        size = self.spec.obs_size
        out = np.zeros(self._state_size, dtype=np.float32)
        for seat in range(self.num_players):
            self.spec.encode_into(self._states, 0, seat, out[seat * size : (seat + 1) * size])
        agent = self.agent_selection
        if self.agents and not (self.terminations[agent] or self.truncations[agent]):
            out[self.num_players * size + self.agent_name_mapping[agent]] = 1.0
        return out

    def step(self, action):
        lock = self._lock
        lock.acquire()
        try:
            self._step(action)
        finally:
            lock.release()

    def _step(self, action):
        self._require_reset("step()")
        if not self.agents:
            raise GameOverError("the game is over and every agent has left; call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise GameOverError(
                    f"the game is over; {agent} may only step None to leave (got {action!r})"
                )
            self._was_dead_step(action)
            return
        if type(action) is int and 0 <= action < self._num_actions and self._mask[action]:
            a = action  # fast path for the common case; _check_action explains failures
        else:
            a = self._check_action(action)
            if a is None:  # illegal_action="lose"
                self._end_by_illegal_action(agent)
                return
        self.spec.apply_action(self._states, 0, a)
        self._cumulative_rewards[agent] = 0.0
        if self._terminated[0] or self._truncated[0]:
            record = self._states[0]
            self.spec.rewards_into(record, self._reward_buf)
            ended_by_rules = bool(record["terminated"])
            for i, name in enumerate(self.agents):
                self.rewards[name] = float(self._reward_buf[i])
                self.terminations[name] = ended_by_rules
                self.truncations[name] = not ended_by_rules
                self.infos[name] = {"score": int(record["score"][i])}
                if self._flat:
                    self.infos[name]["action_mask"] = self._no_mask
            self._mask[:] = 0
        else:
            # rewards are all zero until the last step; nothing to clear before then
            self.spec.legal_mask_into(self._states, 0, self._mask)
            self.agent_selection = self.agents[self._current[0]]
            if self._flat:
                # fresh dicts: infos handed out earlier (e.g. by the parallel env) stay as
                # they were
                self.infos[agent] = {"action_mask": self._no_mask}
                self.infos[self.agent_selection] = {"action_mask": self._mask.copy()}
        self._accumulate_rewards()

    def _end_by_illegal_action(self, agent) -> None:
        """``illegal_action="lose"``: the game ends here, a loss for ``agent``, 0 for the
        others; the record itself is left as it was before the action."""
        self._mask[:] = 0
        self._cumulative_rewards[agent] = 0.0
        for name in self.agents:
            self.rewards[name] = ILLEGAL_ACTION_REWARD if name == agent else 0.0
            self.terminations[name] = True
            self.truncations[name] = False
            self.infos[name] = {"illegal_action": name == agent}
            if self._flat:
                self.infos[name]["action_mask"] = self._no_mask
        self._accumulate_rewards()

    def _check_action(self, action) -> int | None:
        """The action as an int; None for an in-range but illegal action in "lose" mode."""
        a = check_action(action, self.spec.num_actions)
        if self._mask[a] == 0:
            if self.illegal_action == "lose":
                return None
            raise IllegalActionError(
                f"action {a} ({self.spec.action_to_string(self._states, 0, a)}) is illegal for "
                f"{self.agent_selection} now; legal: {np.flatnonzero(self._mask).tolist()} "
                f"{ILLEGAL_ACTION_HINT}"
            )
        return a

    # ---- tools ----------------------------------------------------------------------------
    @locked
    def action_to_string(self, action) -> str:
        return self.spec.action_to_string(self._states, 0, action)

    @locked
    def render(self):
        if self.render_mode is None:
            gymnasium.logger.warn(
                "render() called with render_mode=None; use render_mode='ansi' or 'human'"
            )
            return None
        if self.render_mode == "rgb_array":
            return self.picture().to_rgb()
        text = self.spec.render(self._states, 0)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    @locked
    def picture(self, seat=None):
        """The position as a ``Picture`` (SVG; docs/pictures.md) seen from ``seat`` (an agent
        name or seat number; None: the public view, every hidden card face down)."""
        if self.spec.draw is None:
            raise OptionError(f"{self.spec.name} has no pictures")
        if not self._has_reset:
            raise NotResetError("call reset() before picture()")
        if seat is not None:
            seat = self.agent_name_mapping.get(seat, seat)
            seat = check_int("seat", seat, 0, self.num_players - 1)
        return Picture(self.spec.draw(self._states, 0, seat))

    def _repr_svg_(self):
        # Jupyter shows an env as its public picture, once a game is loaded.
        if self.spec.draw is None or not self._has_reset:
            return None
        return self.picture().to_svg()

    @locked
    def to_dict(self) -> dict:
        """A JSON-safe snapshot of the current position (exact, RNG included)."""
        if not self.agents and not self._states[0]["num_players"]:
            raise GameOverError("nothing to snapshot: call reset() first")
        return self.spec.to_dict(self._states, 0)

    @locked
    def from_dict(self, snapshot: dict) -> None:
        """Set this env to ``snapshot``; on any error the env is left as it was."""
        states = self.spec.load(snapshot)
        n = int(states[0]["num_players"])
        if n != self.num_players:
            raise SnapshotError(
                f"snapshot has {n} players but this env was made for {self.num_players}"
            )
        self._bind(states)
        self._sync_from_state()

    @property
    def state_array(self) -> np.ndarray:
        """The raw one-game structured array (read it, copy it; do not edit it in place)."""
        return self._states

    @property
    def lock(self):
        """The env's re-entrant lock, which every public method holds: hold it too to make
        several calls (read ``state_array``, then step) one unit while other threads use the
        env (``meeple_gym.core.locking``)."""
        return self._lock

    @locked
    def __getstate__(self):
        # The field views would pickle as separate arrays; they are rebuilt on load. A lock
        # does not pickle: the copy gets its own.
        state = self.__dict__.copy()
        for name in ("_terminated", "_truncated", "_current", "_lock"):
            state.pop(name, None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = new_lock()
        self._bind(self._states)
        self._no_mask.setflags(write=False)  # copies come back writeable

    @locked
    def clone(self) -> MeepleAECEnv:
        """An independent copy (state, RNG and bookkeeping) for search or what-if play."""
        return copy.deepcopy(self)

    @locked
    def determinize(self, player, seed) -> MeepleAECEnv:
        """A clone whose record is resampled for ``player`` (an agent name or a seat index):
        everything that seat may not know (deck orders, opposing hands, hidden picks, the RNG
        word) is drawn uniformly among the arrangements consistent with what it knows, from
        RNG key ``derive_key(seed, 0, STREAM_DETERMINIZE)``; public history and ``player``'s
        own information are kept, so its observation is unchanged. This env is not changed.
        For PIMC and belief-based search (OpenSpiel's ``resample_from_infostate``); the game's
        docs say what is resampled."""
        self._require_reset("determinize()")
        kernel = self.spec.determinize_into
        if kernel is None:
            raise NotImplementedError(f"{self.spec.name} has no determinization kernel")
        seat = self._seat_of(player)
        seed = check_seed(seed)
        record = self._states[0]
        if (
            not self.agents
            or record["terminated"]
            or record["truncated"]
            or any(self.terminations[a] or self.truncations[a] for a in self.agents)
        ):
            raise GameOverError("the game is over: nothing is left to determinize; call reset()")
        twin = self.clone()
        kernel(twin._states, 0, seat, np.uint64(py_derive_key(int(seed), 0, STREAM_DETERMINIZE)))
        twin._sync_from_state()
        return twin

    def _seat_of(self, player) -> int:
        """The seat of ``player``, an agent name (``"player_1"``) or a seat index."""
        if isinstance(player, str):
            if player not in self.agent_name_mapping:
                raise OptionError(
                    f"unknown agent {player!r}; agents are {', '.join(self.possible_agents)}"
                )
            return self.agent_name_mapping[player]
        return check_int("player", player, 0, self.num_players - 1)

    @locked
    def __deepcopy__(self, memo):
        # Field views must point into the copy's own state array, so rebind after copying.
        # copy.copy goes through __setstate__, which gives the twin its own lock.
        twin = copy.copy(self)
        memo[id(self)] = twin
        for name, value in self.__dict__.items():
            if name not in ("_terminated", "_truncated", "_current", "spec", "_lock"):
                setattr(twin, name, copy.deepcopy(value, memo))
        twin._bind(twin._states)
        twin._no_mask.setflags(write=False)  # copies come back writeable
        return twin

    def close(self):
        pass


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's order checks, except that a step after the game is over raises
    ``GameOverError`` (PettingZoo's own wrapper only logs a warning)."""

    # The raw env knows whether a game is loaded (reset() and from_dict() both count).
    @property
    def _has_reset(self) -> bool:
        return self.env.unwrapped._has_reset

    @_has_reset.setter
    def _has_reset(self, value) -> None:
        pass

    def step(self, action) -> None:
        if not self._has_reset:
            raise NotResetError("call reset() before step()")
        if not self.env.agents:
            raise GameOverError("the game is over and every agent has left; call reset()")
        super().step(action)

    def render(self):
        if not self._has_reset:
            raise NotResetError("call reset() before render()")
        return super().render()

    def picture(self, seat=None):
        return self.env.unwrapped.picture(seat)

    def _repr_svg_(self):  # PettingZoo's wrappers do not pass on underscore names
        return self.env.unwrapped._repr_svg_()

    def agent_iter(self, max_iter: int = 2**63):
        if not self._has_reset:
            raise NotResetError("call reset() before agent_iter()")
        return super().agent_iter(max_iter)

    def last(self, observe: bool = True):
        if not self._has_reset:
            raise NotResetError("call reset() before last()")
        return self.env.last(observe)

    def observe(self, agent):
        if not self._has_reset:
            raise NotResetError("call reset() before observe()")
        return self.env.observe(agent)

    def state(self):
        if not self._has_reset:
            raise NotResetError("call reset() before state()")
        return self.env.state()

    # The hot attributes as properties: BaseWrapper.__getattr__ costs ~1 us per access.
    @property
    def agents(self):
        return self.env.agents

    @property
    def agent_selection(self):
        return self.env.agent_selection

    @property
    def rewards(self):
        return self.env.rewards

    @property
    def terminations(self):
        return self.env.terminations

    @property
    def truncations(self):
        return self.env.truncations

    @property
    def infos(self):
        return self.env.infos


def split_env_keywords(options: dict) -> dict:
    """Remove the env's own keywords (``ENV_KEYWORDS``) from ``options`` and return them; what
    is left are game options."""
    return {k: options.pop(k) for k in ENV_KEYWORDS if k in options}


def env(spec: GameSpec, **kwargs):
    """``raw_env`` wrapped like PettingZoo's classic environments."""
    return OrderEnforcingWrapper(MeepleAECEnv(spec, **kwargs))


def module_envs(spec: GameSpec, module: str):
    """``raw_env`` (a class) and ``env()`` for a game's env module, the PettingZoo classic
    layout: ``from meeple_gym.<game>.env import env, raw_env``. Options are checked like
    ``meeple_gym.make`` does; the default is a 2-player game."""

    class raw_env(MeepleAECEnv):  # noqa: N801 - PettingZoo naming convention
        metadata = {**MeepleAECEnv.metadata, "name": f"meeple_{spec.name}_v0"}

        def __init__(self, num_players: int = 2, render_mode: str | None = None, **options):
            num_players = spec.check_num_players(num_players)
            env_kwargs = split_env_keywords(options)
            super().__init__(
                spec,
                num_players=num_players,
                render_mode=render_mode,
                **env_kwargs,
                **spec.check_options(options, num_players),
            )

    raw_env.__module__ = module
    raw_env.__qualname__ = "raw_env"

    def env(num_players: int = 2, render_mode: str | None = None, **options):
        return OrderEnforcingWrapper(
            raw_env(num_players=num_players, render_mode=render_mode, **options)
        )

    env.__module__ = module
    return raw_env, env
