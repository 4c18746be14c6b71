"""A single-agent Gymnasium env over any meeple-gym game (docs/gymnasium.md).

>>> from meeple_gym.core.gym_env import SingleAgentEnv
>>> env = SingleAgentEnv("century", num_players=2, opponent="heuristic")
>>> obs, info = env.reset(seed=0)          # obs: float32 vector; info["action_mask"]: int8
>>> obs, reward, terminated, truncated, info = env.step(int(info["action_mask"].argmax()))

The learner sits in one seat of the PettingZoo AEC env (``meeple_gym.make``); every other seat is
played by ``opponent`` inside ``reset``/``step`` until the learner must decide (sub-decisions
included, e.g. the Radlands opponent choosing a camp) or the game ends. The observation is
exactly the AEC observation vector of the learner's seat; the reward is that seat's terminal
reward from the game (0 on every other step).
"""

from __future__ import annotations

import numpy as np
from gymnasium import Env, spaces

from meeple_gym.core.errors import (
    ILLEGAL_ACTION_HINT,
    GameOverError,
    IllegalActionError,
    NotResetError,
    OpponentError,
    OptionError,
)
from meeple_gym.core.locking import locked
from meeple_gym.core.opponents import opponent_factory, opponent_failure
from meeple_gym.core.options import check_action, check_agent_action, check_int, short_repr
from meeple_gym.core.registry import GAME_IDS, make, register_gym_ids

__all__ = ["GAME_IDS", "SingleAgentEnv", "register_envs"]  # GAME_IDS: game -> Gymnasium id
ILLEGAL_ACTION_MODES = ("raise", "lose")
OBSERVATION_MODES = ("flat", "rllib")
ILLEGAL_ACTION_REWARD = -1.0
# Re-deals allowed when the opponents finish a game before the learner ever decides (a
# reset must hand back a live position); a game never does this today, so this only bounds it.
_MAX_REDEALS = 100


class _SearchPolicy:
    """An opponent that reads the game record (the ISMCTS agent's ``act_states``): it
    determinizes the record itself, so it sees no more than the seat it plays."""

    def __init__(self, search):
        self.search = search  # states -> actions (evaluate.record_policy)

    def act_in(self, raw, who: str) -> int:
        """The search's action for the seat to act in ``raw``, checked like any opponent's."""
        out = self.search(raw.state_array.copy())
        return int(check_agent_action(out, raw._mask[None], who)[0])


def _opponent_policy(entry, game: str, seed: int):
    """``entry`` as a function ``observation dict -> action`` (or a ``_SearchPolicy``)."""
    factory = opponent_factory()
    if isinstance(entry, str):
        entry = factory.make_agent(entry, game, seed)
    search = factory.record_policy(entry)
    if search is not None:
        return _SearchPolicy(search)
    act = getattr(entry, "act", None)
    if callable(act):
        return act
    if callable(entry):
        return entry
    raise OptionError(
        'opponent must be "random", "heuristic", an agent with act(observation) -> int, a '
        f"callable observation -> int, or a non-empty list of those; got {entry!r}"
    )


class SingleAgentEnv(Env):
    """One learner seat against ``opponent``; see the module docstring and docs/gymnasium.md.

    Args:
        game: a game name (``meeple_gym.available_games()``).
        num_players: seats at the table (default 2; 1 for Everdell solo against Rugwort).
        opponent: ``"random"``, ``"heuristic"``, an agent object with ``act(obs_dict) -> int``,
            a callable ``obs_dict -> int``, or a list of those (the opponent pool: each
            opponent seat draws one entry per episode).
        seat: the learner's seat, or ``None`` (default) for a random seat each episode.
        illegal_action: ``"raise"`` (``IllegalActionError``, nothing changes) or ``"lose"``
            (the episode ends: ``terminated=True``, reward -1, ``info["illegal_action"]``).
        render_mode: ``None``, ``"ansi"`` (``render()`` returns the text board) or
            ``"rgb_array"`` (an HxWx3 uint8 picture from the learner's seat; docs/pictures.md).
        observation_mode: ``"flat"`` (default): the float32 vector, the mask in the info;
            ``"rllib"``: the Dict RLlib's action-masking module reads, ``{"observations":
            vector, "action_mask": float32 0/1}`` (the mask stays in the info too).
        **options: game options, as for ``meeple_gym.make``.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 1}

    def __init__(
        self,
        game: str,
        num_players: int = 2,
        opponent="random",
        seat: int | None = None,
        illegal_action: str = "raise",
        render_mode: str | None = None,
        observation_mode: str = "flat",
        **options,
    ):
        if observation_mode not in OBSERVATION_MODES:
            raise OptionError(
                f"observation_mode must be one of {OBSERVATION_MODES}, got {observation_mode!r}"
            )
        self.observation_mode = observation_mode
        self._aec = make(game, num_players, render_mode=render_mode, **options)
        self._raw = self._aec.unwrapped
        self.game = game
        self.num_players = self._raw.num_players
        self.render_mode = render_mode
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise OptionError(
                f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}"
            )
        self.illegal_action = illegal_action
        if seat is not None:
            seat = check_int("seat", seat, 0, self.num_players - 1)
        self.fixed_seat = seat
        pool = list(opponent) if isinstance(opponent, (list, tuple)) else [opponent]
        if not pool:
            raise OptionError("opponent pool is empty")
        for entry in pool:
            _opponent_policy(entry, game, 0)  # a bad entry fails here, not at reset
        self.opponent_pool = pool
        self._policies: list | None = None  # built from the env seed at the first reset

        agent0 = self._raw.possible_agents[0]
        vector_space = self._raw.observation_space(agent0)["observation"]
        num_actions = self._raw.spec.num_actions
        if observation_mode == "rllib":
            self.observation_space = spaces.Dict(
                {
                    "observations": vector_space,
                    "action_mask": spaces.Box(0.0, 1.0, (num_actions,), np.float32),
                }
            )
        else:
            self.observation_space = vector_space
        self.action_space = spaces.Discrete(num_actions)
        self.metadata = dict(self.metadata, name=f"meeple_{game}_single_v0")

        self.seat = 0
        self._agent = agent0
        self._seat_policy: list = []
        self._seat_pool_index: list = []
        self._seat_name: list[str] = []
        self._mask = np.zeros(self._raw.spec.num_actions, dtype=np.int8)
        self._done = True
        self._has_reset = False
        self._failure: OpponentError | None = None  # set when an opponent fails, until reset

    # The AEC env's lock, held over each whole call (a step plays the opponents too).
    _lock = property(lambda self: self._raw._lock)

    # ---- lifecycle ------------------------------------------------------------------------
    @locked
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal a new game. ``reset(seed=s)`` makes everything that follows (deals, seats,
        opponent draws and the opponents' own seeds) a function of ``s``. ``options`` is
        accepted for API compatibility and ignored: game options go to the constructor."""
        del options
        super().reset(seed=seed)
        self._failure = None
        rng = self.np_random
        if seed is not None or self._policies is None:
            # String opponents are rebuilt so their random choices follow the env seed too.
            self._policies = [
                _opponent_policy(entry, self.game, int(rng.integers(2**31)))
                for entry in self.opponent_pool
            ]
        for _ in range(_MAX_REDEALS):
            self.seat = (
                self.fixed_seat
                if self.fixed_seat is not None
                else int(rng.integers(self.num_players))
            )
            self._agent = self._raw.possible_agents[self.seat]
            self._seat_pool_index = [
                -1 if s == self.seat else int(rng.integers(len(self._policies)))
                for s in range(self.num_players)
            ]
            pool = self._policies
            self._seat_policy = [pool[k] if k >= 0 else None for k in self._seat_pool_index]
            # How errors name each seat's opponent (once per episode: a repr can be costly).
            self._seat_name = [
                f"opponent {short_repr(self.opponent_pool[k])} (seat {s})"
                for s, k in enumerate(self._seat_pool_index)
            ]
            self._aec.reset(seed=int(rng.integers(2**63)))
            self._has_reset = True
            self._done = False
            self._play_opponents()
            if not self._game_over():
                break
        else:  # pragma: no cover - no game ends before the learner's first decision
            raise RuntimeError(f"{self.game}: the opponents ended {_MAX_REDEALS} games alone")
        obs = self._observe()
        info = {
            "action_mask": self._mask.copy(),
            "seat": self.seat,
            "opponents": tuple(self._seat_pool_index),
        }
        return obs, info

    @locked
    def step(self, action):
        if not self._has_reset:
            raise NotResetError("call reset() before step()")
        if self._failure is not None:
            raise OpponentError(
                f"this episode stopped when an opponent failed ({self._failure}); call reset()"
            ) from self._failure
        if self._done:
            raise GameOverError("the episode is over; call reset()")
        a = self._check_action(action)
        if a is None:  # illegal action with illegal_action="lose"
            self._done = True
            self._mask[:] = 0
            info = {"action_mask": self._mask.copy(), "seat": self.seat, "illegal_action": True}
            return self._observe(), ILLEGAL_ACTION_REWARD, True, False, info
        self._raw.step(a)
        self._play_opponents()
        obs = self._observe()
        info = {"action_mask": self._mask.copy(), "seat": self.seat}
        if self._game_over():
            self._done = True
            raw = self._raw
            info.update(raw.infos[self._agent])  # {"score": ...}
            return (
                obs,
                float(raw.rewards[self._agent]),
                bool(raw.terminations[self._agent]),
                bool(raw.truncations[self._agent]),
                info,
            )
        return obs, 0.0, False, False, info

    def _check_action(self, action) -> int | None:
        """The action as an int; None for a legal-range but illegal action in "lose" mode.
        Malformed actions (not an integer, out of range) raise ``ActionError`` in both modes."""
        a = check_action(action, self.action_space.n)
        if self._mask[a]:
            return a
        if self.illegal_action == "lose":
            return None
        raise IllegalActionError(
            f"action {a} ({self._raw.action_to_string(a)}) is illegal for seat {self.seat} "
            f"now; legal: {np.flatnonzero(self._mask).tolist()} {ILLEGAL_ACTION_HINT}"
        )

    def _game_over(self) -> bool:
        return bool(self._raw.terminations[self._agent] or self._raw.truncations[self._agent])

    def _play_opponents(self) -> None:
        """Step the other seats until the learner decides or the game ends; sets the mask."""
        raw = self._raw
        while not self._game_over() and raw.agent_selection != self._agent:
            actor = raw.agent_selection
            seat = raw.agent_name_mapping[actor]
            policy = self._seat_policy[seat]
            who = self._seat_name[seat]
            try:
                if isinstance(policy, _SearchPolicy):
                    action = policy.act_in(raw, who)
                else:
                    view = self._opponent_view(actor, policy)
                    action = check_agent_action(policy(view), raw._mask, who)
            except BaseException as exc:
                # A failing opponent ends the episode: every later step raises until reset,
                # so the learner never moves in the opponent's turn.
                self._done = True
                self._mask[:] = 0
                self._failure = opponent_failure(exc, who)
                # An OpponentError, KeyboardInterrupt and the like go on as they are.
                if self._failure is exc or not isinstance(exc, Exception):
                    raise
                raise self._failure from exc
            raw.step(action)
        if self._game_over():
            self._mask[:] = 0
        else:
            self._mask[:] = raw.observe(self._agent)["action_mask"]

    def _opponent_view(self, actor, policy):
        """``observe(actor)``, with the full observation for an agent built on it (the
        heuristics declare ``obs_size``) when the env encodes another (``observation=``)."""
        raw = self._raw
        view = raw.observe(actor)
        spec = raw.spec
        agent = getattr(policy, "__self__", None)
        if getattr(agent, "obs_size", spec.obs_size) == spec.obs_size:
            return view
        full = spec.with_observation("full")
        obs = np.empty(full.obs_size, dtype=np.float32)
        full.encode_into(raw._states, 0, raw.agent_name_mapping[actor], obs)
        return {**view, "observation": obs}

    def _observe(self):
        vector = self._raw.observe(self._agent)["observation"]
        if self.observation_mode == "rllib":
            return {"observations": vector, "action_mask": self._mask.astype(np.float32)}
        return vector

    # ---- tools ----------------------------------------------------------------------------
    @locked
    def action_masks(self) -> np.ndarray:
        """The learner's legal actions as a bool vector (sb3-contrib's MaskablePPO calls this);
        all False once the episode is over."""
        return self._mask.astype(bool)

    @locked
    def action_to_string(self, action) -> str:
        return self._raw.action_to_string(action)

    @property
    def aec_env(self):
        """The underlying PettingZoo AEC env (read it; stepping it desynchronises this env)."""
        return self._aec

    @locked
    def render(self):
        if not self._has_reset:
            raise NotResetError("call reset() before render()")
        if self.render_mode == "rgb_array":  # what the learner may see, from its seat
            return self._raw.picture(self.seat).to_rgb()
        return self._raw.render()

    def picture(self, seat="learner"):
        """The position as a ``Picture`` (SVG) from the learner's seat, or from ``seat``
        (None: the public view)."""
        if not self._has_reset:
            raise NotResetError("call reset() before picture()")
        return self._raw.picture(self.seat if seat == "learner" else seat)

    def _repr_svg_(self):
        return self.picture().to_svg() if self._has_reset else None

    def close(self):
        self._aec.close()


def register_envs() -> None:
    """Register ``meeple_gym/<Game>-v0`` for every registered game with Gymnasium (idempotent;
    ``meeple_gym.core.registry.register_game`` does it for each game already)."""
    register_gym_ids()
