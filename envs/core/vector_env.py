"""A Gymnasium vector env over the batched Numba kernels (docs/gymnasium.md, Vector env).

>>> import gymnasium, meeple_gym
>>> envs = gymnasium.make_vec("meeple_gym/Century-v0", num_envs=1024,
...                           vectorization_mode="vector_entry_point", opponent="random")
>>> obs, info = envs.reset(seed=0)             # obs (N, obs_size); info["action_mask"] (N, A)
>>> obs, rewards, terminations, truncations, info = envs.step(actions)   # actions (N,)

Each row is one game of a ``BatchEnv`` (``meeple_gym.core.batch``). In the default learner
mode one seat per row is the learner and the other seats are played inside ``reset``/``step``
by the opponent until every row waits for its learner: each returned row is a learner
decision. The "random" opponent plays inside the game's ``step_batch`` kernel, so one kernel
call covers the learner's move, the opponents' replies, an auto-reset and the new episode's
opening opponent moves. Other opponents ("heuristic", agents) are asked in Python, batched over
every row where an opponent is to act, one kernel call per round of moves. With
``opponent="self"`` (or ``None``) every seat is the learner and each row is returned at
whoever is to act (``info["seat"]``).

Auto-reset, chosen by ``autoreset_mode`` (``metadata["autoreset_mode"]``):

- ``AutoresetMode.NEXT_STEP`` (the default, as Gymnasium's own vector envs): a row whose
  episode ended on this step returns that episode's final observation (the learner seat's view
  of the final position) with its reward, ``terminated``/``truncated``, an all-zero
  ``info["action_mask"]``, and in ``info`` that row's ``seat``, ``score`` and, when it ended
  the episode, ``illegal_action`` (each with its ``_key`` mask). On the next step that row's
  action is ignored (not even range checked) and it returns the new episode's first
  observation, mask and seat, reward 0, ``terminated``/``truncated`` False. Gymnasium's vector
  observation wrappers (``NormalizeObservation`` ...) and RLlib's env runner need this mode.
- ``AutoresetMode.SAME_STEP``: a row whose episode ended on this step returns the new
  episode's first observation, and the last observation and info of the finished episode are
  in ``info["final_obs"]`` / ``info["final_info"]`` (with the masks ``info["_final_obs"]`` /
  ``info["_final_info"]``), exactly as ``gymnasium.vector.SyncVectorEnv`` lays them out.
  TorchRL's ``GymWrapper`` and the SB3 ``VecEnv`` (``meeple_gym.sb3``) need this mode.

Both modes deal a row's next game, and play its opponents' opening moves, on the step its
episode ends, so they play the same games: given the same seed and a policy that reads
only the observation and mask, each row sees the same sequence of episodes in either mode;
next-step mode only adds the reset step between them.

Seeding: ``reset(seed=s)`` uses ``s`` as the batch seed, so row ``i`` deals the same games as
row ``i`` of ``mg.make_batch(game, N, seed=s)``; the learner seat of row ``i``'s ``e``-th
episode comes from RNG key (s, i, 2e + 3) and the random opponent of row ``i`` draws from key
(s, i, 1). A row's play therefore depends on the seed and that row's learner actions only, not
on the batch size or the number of threads. ``reset()`` without a seed draws a new batch seed
from the env's ``np_random``.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from meeple_gym.core.action_check import check_actions
from meeple_gym.core.errors import (
    ILLEGAL_ACTION_HINT,
    IllegalActionError,
    NotResetError,
    OpponentError,
    OptionError,
)
from meeple_gym.core.gym_env import ILLEGAL_ACTION_MODES, ILLEGAL_ACTION_REWARD
from meeple_gym.core.locking import locked
from meeple_gym.core.opponents import opponent_factory, opponent_failure
from meeple_gym.core.options import check_agent_action, check_int, short_repr
from meeple_gym.core.records import take_records
from meeple_gym.core.registry import make_batch
from meeple_gym.core.sampling import policy_words
from meeple_gym.core.thread_policy import use_threads
from meeple_gym.core.vector_kernels import draw_seats, gather_finished

SELF_PLAY = ("self", None)
# Opponent sub-steps allowed per step before giving up (a game never needs this many in a
# row; this only turns an endless loop into an error).
_MAX_OPPONENT_SUBSTEPS = 100_000


AUTORESET_MODES = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)


def check_autoreset_mode(mode) -> AutoresetMode:
    """``mode`` as an ``AutoresetMode`` (the enum or its value, as ``SyncVectorEnv`` takes)."""
    if isinstance(mode, str):
        try:
            mode = AutoresetMode(mode)
        except ValueError:
            pass
    if mode not in AUTORESET_MODES:
        known = ", ".join(f"AutoresetMode.{m.name} ({m.value!r})" for m in AUTORESET_MODES)
        raise OptionError(f"autoreset_mode must be {known}; got {short_repr(mode)}")
    return mode


class BatchVectorEnv(VectorEnv):
    """``num_envs`` games of one kind as a ``gymnasium.vector.VectorEnv``; see the module
    docstring and docs/gymnasium.md ("Vector env").

    Args:
        game: a game name (``meeple_gym.available_games()``).
        num_envs: rows (games stepped together).
        num_players: seats at the table (default 2; 1 for Everdell solo against Rugwort).
        opponent: ``"random"`` (default), ``"heuristic"``, ``"ismcts[:key=value,...]"`` (the
            search agent, baselines/ismcts.py), ``"package.module:Agent"`` or an
            agent object with ``act_batch(observations, masks)``; ``"self"`` or ``None`` for
            self-play (every seat is the learner).
        seat: the learner's seat, or ``None`` (default) for a random seat per episode.
        illegal_action: ``"raise"`` (``IllegalActionError``, nothing changes) or ``"lose"``
            (that row's episode ends: terminated, reward -1, ``final_info["illegal_action"]``).
        copy: ``True`` (default): every returned array is fresh. ``False``: the observation
            and ``info["action_mask"]`` are read-only views of the batch's buffers, which the
            next ``step``/``reset`` overwrites (copy what you keep).
        autoreset_mode: ``AutoresetMode.NEXT_STEP`` (default, Gymnasium's) or
            ``AutoresetMode.SAME_STEP``, or their values ``"NextStep"`` / ``"SameStep"``; see
            the module docstring. ``metadata["autoreset_mode"]`` and ``autoreset_mode`` hold it.
        **options: game options, as for ``meeple_gym.make_batch``.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        game: str,
        num_envs: int = 1,
        num_players: int = 2,
        opponent="random",
        seat: int | None = None,
        illegal_action: str = "raise",
        copy: bool = True,
        render_mode: str | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
        **options,
    ):
        num_envs = check_int("num_envs", num_envs, 1, None)
        if render_mode is not None:
            raise OptionError(
                f"the vector env does not render; render_mode must be None, got {render_mode!r}"
            )
        if illegal_action not in ILLEGAL_ACTION_MODES:
            raise OptionError(
                f"illegal_action must be one of {ILLEGAL_ACTION_MODES}, got {illegal_action!r}"
            )
        if not isinstance(copy, (bool, np.bool_)):
            raise OptionError(f"copy must be a bool, got {type(copy).__name__} {short_repr(copy)}")
        autoreset_mode = check_autoreset_mode(autoreset_mode)
        self._batch = make_batch(game, num_envs, num_players, seed=0, copy=False, **options)
        self.game = game
        self.num_envs = num_envs
        self.num_players = self._batch.num_players
        self.illegal_action = illegal_action
        self.copy = bool(copy)
        self.render_mode = None
        self.self_play = opponent in SELF_PLAY if isinstance(opponent, (str, type(None))) else False
        if seat is not None:
            if self.self_play:
                raise OptionError("seat is for learner mode; in self-play every seat learns")
            seat = check_int("seat", seat, 0, self.num_players - 1)
        self.fixed_seat = seat
        self.opponent = opponent
        self._opponent_name = f"opponent {short_repr(opponent)}"  # for its errors
        self._agent = None  # the act_batch opponent, built at reset (None for random/self)
        if not self.self_play and opponent != "random":
            factory = opponent_factory()
            named = isinstance(opponent, str) and opponent != "heuristic"
            if named and ":" not in opponent and not factory.is_search_name(opponent):
                raise OptionError(
                    'opponent must be "random", "heuristic", "ismcts[:key=value,...]", "self", '
                    f'None, "package.module:Agent" or an agent with act_batch; got {opponent!r}'
                )
            factory.make_agent(opponent, game, 0)  # a bad opponent fails here, not at reset

        spec = self._batch.spec
        self.single_observation_space = spaces.Box(
            low=0.0, high=spec.obs_high, shape=(spec.obs_size,), dtype=np.float32
        )
        self.single_action_space = spaces.Discrete(spec.num_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        # Gymnasium's wrappers read the mode from metadata, TorchRL's GymWrapper from the attribute.
        self.autoreset_mode = autoreset_mode
        self._next_step = autoreset_mode is AutoresetMode.NEXT_STEP
        self.metadata = dict(
            self.metadata, name=f"meeple_{game}_vector_v0", autoreset_mode=autoreset_mode
        )

        self._rows = np.arange(num_envs)
        self._seat = np.zeros(num_envs, dtype=np.int64)
        self._next_seat = np.zeros(num_envs, dtype=np.int64)  # after the current episode
        self._no_moves = np.full(num_envs, -1, dtype=np.int64)
        self._words = np.zeros(num_envs, dtype=np.uint64)
        self._seed = 0
        self._ready = False
        self._failure: OpponentError | None = None  # set when the opponent fails, until reset
        # Next-step mode: rows that returned their final observation on the last step. Each is
        # already dealt its next game (as in same-step mode, so both modes play the same
        # games); the next step ignores its action and returns that game's first observation.
        # None when no row is pending.
        self._pending: np.ndarray | None = None
        # (rows, their legal masks) while those rows show an all-zero mask (next-step mode).
        self._kept_masks: tuple[np.ndarray, np.ndarray] | None = None
        # The marks of the rows that ended in the current step, kept from one step to the next
        # (cleared only after a step where some row ended); info hands out copies.
        shape = (num_envs, self.num_players) if self.self_play else (num_envs,)
        self._ended = np.zeros(num_envs, dtype=np.bool_)
        self._illegal = np.zeros(num_envs, dtype=np.bool_)
        self._final_seat = np.zeros(num_envs, dtype=np.int64)
        self._final_score = np.zeros(shape, dtype=np.int64)
        self._ended_count = 0
        self._make_scratch()
        self._begin_step()

    # The batch's lock, held over each whole call (a step is several kernel calls); a property,
    # not an attribute, so pickling and the rebuilt batch of __setstate__ need no special case.
    _lock = property(lambda self: self._batch._lock)

    # ---- lifecycle ------------------------------------------------------------------------
    @locked
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Deal every row afresh. ``options`` is accepted for API compatibility and ignored:
        game options go to the constructor."""
        del options
        if seed is not None:
            seed = check_int("seed", seed, 0, (1 << 64) - 1)
        super().reset(seed=seed)  # seeds self.np_random
        if seed is None:
            seed = int(self.np_random.integers(2**63))
        self._seed = seed
        self._failure = None
        self._pending = None
        self._kept_masks = None
        with use_threads(self.num_envs):
            return self._reset(seed)

    def _reset(self, seed):
        batch = self._batch
        batch.reset(seed)
        if not self.self_play and self.opponent != "random":
            make_agent = opponent_factory().make_agent
            self._agent = make_agent(self.opponent, self.game, seed & (2**63 - 1))
        if not self.self_play and self.opponent == "random":
            self._words = policy_words(seed, self.num_envs)
        self._ready = True
        self._begin_step()
        self._draw_seats(self._rows)
        self._advance(self._no_moves)
        batch._observe()
        if self.self_play:
            self._seat[:] = batch._players
        obs, mask = self._returned(final=False)
        return obs, self._info(mask, final=False)

    def step(self, actions):
        """One action per row for its learner (``info["seat"]``). Returns (obs, rewards,
        terminations, truncations, info); rewards are (N,) float64 for the learner, or
        (N, num_players) per seat in self-play. In next-step mode the action of a row whose
        episode ended on the previous step is ignored (not checked): that row is reset."""
        # The per-step path takes the lock itself, around a call of the body: @locked costs over
        # twice as much per call (benchmarks/README.md, "Thread safety: the cost of the lock").
        lock = self._batch._lock
        lock.acquire()
        try:
            # One policy decision for the whole step; the kernel calls inside over fewer rows
            # (ended games, opponent tails) may lower it (meeple_gym.core.thread_policy).
            with use_threads(self.num_envs):
                return self._step(actions)
        finally:
            lock.release()

    def _step(self, actions):
        if not self._ready:
            raise NotResetError("call reset() before step()")
        self._check_no_failure()
        batch = self._batch
        # Next-step mode (the only one that sets _pending): a pending row gets no move (-1): its
        # next game already waits for its learner, and its action is not checked (its mask was
        # all zero, a sampler may give -1).
        skip = self._no_pending if self._pending is None else self._pending
        acts, g, illegal = check_actions(actions, batch._mask, skip, self._illegal_rows)
        if illegal:
            if self.illegal_action == "raise":
                a = int(acts[g])
                raise IllegalActionError(
                    f"action {a} ({batch.spec.action_to_string(batch._states, g, a)}) is illegal "
                    f"for seat {int(self._seat[g])} in game {g} ({illegal} games "
                    f"affected); legal there: {np.flatnonzero(batch._mask[g]).tolist()} "
                    f"{ILLEGAL_ACTION_HINT}"
                )
            acts[self._illegal_rows] = -1
        self._restore_masks()  # after the checks: a refused step changes nothing
        self._begin_step()
        if illegal:
            self._forfeit(np.flatnonzero(self._illegal_rows))
        self._advance(acts)
        batch._observe()
        if self.self_play:
            self._seat[:] = batch._players  # who is to act, as _observe just read it
        obs, mask = self._returned(final=True)
        info = self._info(mask, final=True)
        if self._next_step:
            self._pending = self._ended.copy() if self._ended_count else None
        return obs, self._reward, self._terminated, self._truncated, info

    @locked
    def close_extras(self, **kwargs):
        self._ready = False

    # ---- internals ------------------------------------------------------------------------
    def _out(self, private: np.ndarray, view: np.ndarray) -> np.ndarray:
        return private.copy() if self.copy else view

    def _begin_step(self) -> None:
        # Fresh arrays for what step() returns; the end-of-episode marks are reused.
        n = self.num_envs
        self._reward = np.zeros(self._final_score.shape, dtype=np.float64)
        self._terminated = np.zeros(n, dtype=np.bool_)
        self._truncated = np.zeros(n, dtype=np.bool_)
        if self._ended_count:
            for marks in (self._ended, self._illegal, self._final_seat, self._final_score):
                marks.fill(0)
            self._ended_count = 0
        self._forfeits = 0  # rows of this step that ended by an illegal action
        self._final_obs: list[tuple[np.ndarray, np.ndarray]] = []

    # Per-step buffers and constant arrays: not pickled, made afresh on load.
    _SCRATCH = (
        "_new_rows",
        "_new_seats",
        "_new_records",
        "_illegal_rows",
        "_no_pending",
        "_all_rows",
    )

    def _make_scratch(self) -> None:
        n = self.num_envs
        self._new_rows = np.zeros(n, dtype=np.int64)
        self._new_seats = np.zeros(n, dtype=np.int64)
        self._illegal_rows = np.zeros(n, dtype=np.bool_)  # check_actions' output
        self._no_pending = np.zeros(n, dtype=np.bool_)  # check_actions' skip: no row
        self._all_rows = np.ones(n, dtype=np.bool_)  # copied for info's all-True masks
        # Zeroed pages are mapped only when written: this costs the records that end, not n.
        self._new_records = np.zeros(n, dtype=self._batch.spec.state_dtype)

    def _draw_seats(self, rows: np.ndarray) -> None:
        """The learner seat of each row's current and next episode (learner mode)."""
        if self.self_play or rows.size == 0:
            return
        draw_seats(
            rows.astype(np.int64, copy=False),
            np.uint64(self._seed),
            self._batch._episodes,
            self.num_players,
            -1 if self.fixed_seat is None else self.fixed_seat,
            self._seat,
            self._next_seat,
        )

    def _check_no_failure(self) -> None:
        """After an opponent failed, rows may wait for that opponent, not the learner: refuse
        every step until reset so a learner action is never played in an opponent's turn."""
        if self._failure is not None:
            raise OpponentError(
                f"the episodes stopped when the opponent failed ({self._failure}); call reset()"
            ) from self._failure

    def _end_rows(self, rows: np.ndarray, final_obs: np.ndarray) -> None:
        """Record the end of the episode of ``rows`` seen by this step's learner."""
        self._ended[rows] = True
        self._ended_count += rows.size
        self._final_seat[rows] = self._seat[rows]
        self._final_obs.append((rows, final_obs))

    def _forfeit(self, rows: np.ndarray) -> None:
        """``illegal_action="lose"``: each of ``rows`` ends as a loss for the seat that moved
        and is dealt its next game (the kernel skips them: their action is -1)."""
        batch = self._batch
        self._end_rows(rows, batch._observation[rows].copy())
        self._terminated[rows] = True
        self._illegal[rows] = True
        self._forfeits += rows.size
        if self.self_play:
            self._reward[rows, self._seat[rows]] = ILLEGAL_ACTION_REWARD
        else:
            self._reward[rows] = ILLEGAL_ACTION_REWARD
        with use_threads(1):
            self._redeal(rows)
        self._draw_seats(rows)

    def _redeal(self, rows: np.ndarray) -> None:
        batch = self._batch
        spec = batch.spec
        for r in rows.tolist():
            batch._episodes[r] += 1
            one = slice(r, r + 1)
            spec.reset_batch(
                batch._states[one],
                batch.num_players,
                batch.seed,
                r,
                batch._episodes[one],
                batch.options_code,
            )
            spec.legal_masks_batch(batch._states[one], batch._mask[one])

    def _collect_ends(self) -> None:
        """After a kernel call: record the rows whose game just ended and draw new seats. A row
        that already ended in this step re-ended before its learner moved (the learner never
        saw that game): it gets new seats but nothing to report."""
        batch = self._batch
        n = self.num_envs
        new = gather_finished(
            batch._terminated,
            batch._truncated,
            self._ended,
            self._seat,
            self.self_play,
            batch._final_states.view(np.uint8),
            batch._rewards,
            batch._final_scores,
            self._new_rows,
            self._new_seats,
            self._new_records.view(np.uint8),
            self._ended,
            self._final_seat,
            self._terminated,
            self._truncated,
            self._reward if self.self_play else self._reward.reshape(n, 1),
            self._final_score if self.self_play else self._final_score.reshape(n, 1),
            np.uint64(self._seed),
            batch._episodes,
            self.num_players,
            -1 if self.fixed_seat is None else self.fixed_seat,
            self._next_seat,
        )
        if not new:
            return
        self._ended_count += new
        obs = np.zeros((new, batch.spec.obs_size), dtype=np.float32)
        with use_threads(new):
            batch.spec.encode_batch(self._new_records[:new], self._new_seats[:new], obs)
        self._final_obs.append((self._new_rows[:new].copy(), obs))

    def _advance(self, acts: np.ndarray) -> None:
        """Apply ``acts`` (-1: no learner move in that row), then play the opponents until
        every row waits for its learner."""
        batch = self._batch
        if self.self_play or self._agent is not None:
            if acts is not self._no_moves:
                batch._step_kernels(acts, observe=False)
                self._collect_ends()
            self._play_opponents()
            return
        # The random opponent moves inside step_batch: one call per step. Another call is
        # needed only where a row's next episode also ended before its learner moved (the
        # kernel knows one seat ahead); the loop bound only turns a hang into an error.
        opponent = (self._seat, self._next_seat, self._words)
        for _ in range(_MAX_OPPONENT_SUBSTEPS):
            batch._step_kernels(acts, observe=False, opponent=opponent)
            self._collect_ends()
            if not (batch._states["current_player"] != self._seat).any():
                return
            acts = self._no_moves
        raise RuntimeError(  # pragma: no cover - no game plays this long without the learner
            f"{self.game}: opponents moved {_MAX_OPPONENT_SUBSTEPS} times without the learner"
        )

    def _play_opponents(self) -> None:
        """Opponent sub-steps in Python (heuristic and agent opponents), batched over the rows
        where an opponent is to act, until every row waits for its learner."""
        if self.self_play:
            return
        batch = self._batch
        acts = np.empty(self.num_envs, dtype=np.int64)
        for _ in range(_MAX_OPPONENT_SUBSTEPS):
            to_act = batch._states["current_player"] != self._seat
            if not to_act.any():
                return
            rows = np.flatnonzero(to_act)
            acts[:] = -1
            acts[rows] = self._opponent_actions(rows)
            # The long tail of sub-steps moves few games: the thread policy decides by the
            # rows that move, not the batch size (nested policies only lower the count).
            with use_threads(rows.size):
                batch._step_kernels(acts, observe=False)
            self._collect_ends()
        raise RuntimeError(  # pragma: no cover - no game plays this long without the learner
            f"{self.game}: opponents moved {_MAX_OPPONENT_SUBSTEPS} times without the learner"
        )

    def _opponent_actions(self, rows: np.ndarray) -> np.ndarray:
        """The opponent's checked actions in ``rows``. If it raises or returns anything but
        legal integer actions, the env fails until reset (``_check_no_failure``)."""
        who = self._opponent_name
        try:
            return self._ask_opponent(rows, who)
        except BaseException as exc:
            self._failure = opponent_failure(exc, who)
            # An OpponentError, KeyboardInterrupt and the like go on as they are.
            if self._failure is exc or not isinstance(exc, Exception):
                raise
            raise self._failure from exc

    def _ask_opponent(self, rows: np.ndarray, who: str) -> np.ndarray:
        batch = self._batch
        masks = batch._mask[rows]
        search = opponent_factory().record_policy(self._agent)
        if search is not None:  # a search agent (ISMCTS) determinizes the records itself
            return check_agent_action(search(take_records(batch._states, rows)), masks, who)
        players = batch._states["current_player"][rows].astype(np.int64)
        spec = batch.spec
        if getattr(self._agent, "obs_size", spec.obs_size) != spec.obs_size:
            spec = spec.with_observation("full")  # the heuristics read the full observation
        obs = np.zeros((rows.size, spec.obs_size), dtype=np.float32)
        with use_threads(rows.size):
            spec.encode_batch(take_records(batch._states, rows), players, obs)
        return check_agent_action(self._agent.act_batch(obs, masks), masks, who)

    def _returned(self, final: bool) -> tuple[np.ndarray, np.ndarray]:
        """The observation and mask to return: the batch's, except in next-step mode after a
        step where rows ended: those show their final observation and an all-zero mask (the
        finished position has no legal action)."""
        batch = self._batch
        if not (final and self._next_step and self._ended_count):
            obs = self._out(batch._observation, batch.observation)
            return obs, self._out(batch._mask, batch.legal_mask)
        # Written into the batch's own buffers (copying them cost a third of a step): the
        # next step re-encodes every row's observation, and puts back the masks kept here
        # (_restore_masks) before the kernels read them.
        rows = np.flatnonzero(self._ended)
        self._kept_masks = (rows, batch._mask[rows])
        batch._mask[rows] = 0
        for ended_rows, final_obs in self._final_obs:
            batch._observation[ended_rows] = final_obs
        obs = self._out(batch._observation, batch.observation)
        return obs, self._out(batch._mask, batch.legal_mask)

    def _restore_masks(self) -> None:
        """The legal masks of the rows that returned their final observation last step."""
        if self._kept_masks is not None:
            rows, masks = self._kept_masks
            self._batch._mask[rows] = masks
            self._kept_masks = None

    def _info(self, mask: np.ndarray, final: bool) -> dict:
        n = self.num_envs
        batch = self._batch
        info = {
            "action_mask": mask,
            "_action_mask": self._all_rows.copy(),
            "seat": self._seat.copy(),
            "_seat": self._all_rows.copy(),
        }
        if not (final and self._ended_count):
            return info
        ended = self._ended.copy()
        scored = ended & ~self._illegal if self._forfeits else ended.copy()
        if self._next_step:
            # The rows that ended return their last step, so its info is theirs: the seat that
            # played it, the score, and illegal_action (SyncVectorEnv's next-step layout).
            info["seat"][ended] = self._final_seat[ended]
            self._end_info(info, scored)
            return info
        final_obs = np.empty(n, dtype=object)  # every entry None
        for rows, obs in self._final_obs:
            for j, r in enumerate(rows.tolist()):
                final_obs[r] = obs[j]
        final_info = {
            "action_mask": np.zeros((n, batch.spec.num_actions), dtype=np.int8),
            "_action_mask": ended,
            "seat": self._final_seat.copy(),
            "_seat": ended.copy(),
        }
        self._end_info(final_info, scored)
        info.update(
            final_obs=final_obs, _final_obs=ended, final_info=final_info, _final_info=ended.copy()
        )
        return info

    def _end_info(self, info: dict, scored: np.ndarray) -> None:
        """Add the finished episodes' ``score`` and ``illegal_action`` (with their masks)."""
        if self._ended_count > self._forfeits:
            info["score"] = self._final_score.copy()
            info["_score"] = scored
        if self._forfeits:
            info["illegal_action"] = self._illegal.copy()
            info["_illegal_action"] = self._illegal.copy()

    # ---- tools ----------------------------------------------------------------------------
    @locked
    def action_masks(self) -> np.ndarray:
        """Each row's legal actions as bool (N, num_actions) (sb3-contrib's MaskablePPO): the
        last returned ``info["action_mask"]``, so all False in a row that has just ended in
        next-step mode."""
        if not self._ready:
            raise NotResetError("call reset() before action_masks()")
        self._check_no_failure()
        masks = self._batch._mask.astype(bool)
        if self._next_step and self._pending is not None:
            masks[self._pending] = False
        return masks

    @property
    def batch(self):
        """The underlying ``BatchEnv`` (read its views; stepping it desynchronises this env).
        Its ``observation`` and ``legal_mask`` are what the last step returned: in next-step
        mode a row that just ended shows its final observation and no legal move there until
        the next step, while its ``states`` already hold its next game."""
        return self._batch

    # ---- pickling -------------------------------------------------------------------------
    @locked
    def __getstate__(self):
        # The batch's read-only views alias its buffers; rebuild them on load.
        skip = ("_batch", *self._SCRATCH)
        state = {k: v for k, v in self.__dict__.items() if k not in skip}
        batch = self._batch
        state["_batch_init"] = (self.game, self.num_envs, self.num_players, batch.options)
        state["_batch_data"] = (
            batch._states.copy(),
            batch._episodes.copy(),
            batch._mask.copy(),
            batch.seed,
            batch._ready,
        )
        return state

    def __setstate__(self, state):
        game, n, players, options = state.pop("_batch_init")
        states, episodes, mask, seed, ready = state.pop("_batch_data")
        self.__dict__.update(state)
        batch = make_batch(game, n, players, seed=int(seed), copy=False, **options)
        batch._states[:] = states
        batch._episodes[:] = episodes
        batch._mask[:] = mask
        batch._ready = ready
        if ready:
            with use_threads(n):
                batch._observe()
        self._batch = batch
        self._make_scratch()
