"""A batch of N games of one kind, stepped together by the game's Numba kernels.

>>> import meeple_gym as mg
>>> batch = mg.make_batch("century", batch_size=4096, num_players=3, seed=7)
>>> obs = batch.reset()                      # (B, obs_size) float32, for each player to act
>>> actions = my_policy(obs, batch.legal_mask)
>>> obs, rewards, terminated, truncated = batch.step(actions)

Conventions
-----------
- ``legal_mask`` is an int8 array (B, num_actions) of 0/1 for the player to act in each game;
  ``current_player`` (B,) names that seat. ``observation`` is that player's view.
- ``rewards`` (B, num_players) are the rewards of the step just taken: non-zero only on the
  step that ends a game (the game's terminal rewards, see the game's docs).
- Auto-reset, same step: a game that ends on ``step`` reports ``terminated``/``truncated`` and
  its rewards, its final scores are copied to ``final_scores`` (B, num_players),
  ``final_lengths`` and its last record to ``final_states``, and the slot is immediately
  re-dealt; ``observation``, ``legal_mask`` and ``current_player`` already describe the new
  game.
- Chance: slot ``i`` on its ``e``-th game deals from RNG key (seed, i, 2e), so a slot's games
  never depend on the batch size or the number of threads.

Buffers
-------
Every array attribute (``states``, ``legal_mask``, ``observation``, ``current_player``,
``final_scores``, ...) is a **read-only view** of the batch's own buffers: the kernels trust
them, so nobody else may write them, and their contents change on the next ``step``/``reset``.
``reset()`` and ``step()`` return **fresh arrays** by default (``copy=True``, as Gymnasium's
vector envs do), so keeping them in a rollout buffer is safe. With ``make_batch(...,
copy=False)`` they return the read-only views instead (no copy per step, for tight loops):
copy what you keep.

Threads: every public method (``reset``, ``step``, ``get_states``, ``set_states``,
``determinize``, ``random_rollout``) holds the batch's lock, so calls from several threads
on one batch run one after the other (``meeple_gym.core.locking``). The views are not locked:
read from another thread they are a snapshot that a concurrent ``step`` changes under you; to
read them and step as one unit, hold ``with batch.lock:`` around both.

Saving and restoring: ``saved = batch.get_states()`` copies every game (a structured array:
``tobytes()`` saves it); ``batch.set_states(saved)`` restores it after validating each record
(``meeple_gym.core.gate``) and recomputes masks and observations. Records this batch handed out are
recognised by digest and restore at memcpy speed; foreign ones get a snapshot's full checks.
"""

from __future__ import annotations

import numba
import numpy as np

from meeple_gym.core.action_check import check_actions
from meeple_gym.core.errors import ActionError, IllegalActionError, OptionError, SnapshotError
from meeple_gym.core.game import GameSpec
from meeple_gym.core.gate import IssuedStates, digests_of, engine_records, validate_records
from meeple_gym.core.locking import locked, new_lock
from meeple_gym.core.options import check_int, short_repr
from meeple_gym.core.sampling import ALL_SEATS_RANDOM, fill_policy_words
from meeple_gym.core.thread_policy import DEFAULT_PARALLEL_MIN_BATCH, use_threads
from meeple_gym.core.threads import check_fork_safe

MAX_SEED = (1 << 64) - 1
# Below this many games a call runs on one thread (meeple_gym.core.thread_policy, which also
# caps the threads by the free cores); kept here for the modules that import it.
PARALLEL_MIN_BATCH = DEFAULT_PARALLEL_MIN_BATCH


def read_only(array: np.ndarray) -> np.ndarray:
    """A view of a C-contiguous ``array`` that nobody can write, not even by setting
    ``flags.writeable`` back: it is built on a read-only memoryview of the same memory."""
    raw = memoryview(array.reshape(-1).view(np.uint8)).toreadonly()
    return np.frombuffer(raw, dtype=np.uint8).view(array.dtype).reshape(array.shape)


def check_seed(seed) -> np.uint64:
    return np.uint64(check_int("seed", seed, 0, MAX_SEED))


class BatchEnv:
    def __init__(
        self,
        spec: GameSpec,
        batch_size: int,
        num_players: int,
        seed: int = 0,
        copy: bool = True,
        **options,
    ):
        batch_size = check_int("batch_size", batch_size, 1, None)
        if not isinstance(copy, (bool, np.bool_)):
            raise OptionError(f"copy must be a bool, got {type(copy).__name__} {short_repr(copy)}")
        self.spec = spec
        self.batch_size = batch_size
        self.num_players = int(num_players)
        self.copy = bool(copy)
        self.options = options
        self.options_code = spec.options_code({**spec.options, **options}, self.num_players)
        self.seed = check_seed(seed)
        b, a = self.batch_size, spec.num_actions
        # The kernels' buffers: private, handed out only as read-only views.
        self._states = np.zeros(b, dtype=spec.state_dtype)
        self._mask = np.zeros((b, a), dtype=np.int8)
        self._observation = np.zeros((b, spec.obs_size), dtype=np.float32)
        self._rewards = np.zeros((b, spec.max_players), dtype=np.float32)
        self._terminated = np.zeros(b, dtype=np.bool_)
        self._truncated = np.zeros(b, dtype=np.bool_)
        self._final_scores = np.zeros((b, spec.seats(self.num_players)), dtype=np.int32)
        self._final_lengths = np.zeros(b, dtype=np.int64)
        self._final_states = np.zeros(b, dtype=spec.state_dtype)
        self._episodes = np.zeros(b, dtype=np.int64)
        self._players = np.zeros(b, dtype=np.int64)
        # check_actions' arguments: no row skipped, and its scratch of illegal rows.
        self._no_skip = np.zeros(b, dtype=np.bool_)
        self._illegal = np.zeros(b, dtype=np.bool_)
        # step_batch's random-opponent arguments for plain steps: no seat plays (-1 rows).
        self._no_seats = np.full(b, -1, dtype=np.int64)
        self._no_words = np.zeros(b, dtype=np.uint64)
        self._ready = False
        self._issued = IssuedStates()
        self._lock = new_lock()  # every public call that touches the buffers holds it
        self._views = {
            "states": read_only(self._states),
            "legal_mask": read_only(self._mask),
            "observation": read_only(self._observation),
            "rewards": read_only(self._rewards)[:, : self.num_players],
            "terminated": read_only(self._terminated),
            "truncated": read_only(self._truncated),
            "final_scores": read_only(self._final_scores),
            "final_lengths": read_only(self._final_lengths),
            "final_states": read_only(self._final_states),
            "episodes": read_only(self._episodes),
            "current_player": read_only(self._states)["current_player"],
        }

    # Read-only views of the kernels' buffers (see the module docs).
    states = property(lambda self: self._views["states"])
    legal_mask = property(lambda self: self._views["legal_mask"])
    observation = property(lambda self: self._views["observation"])
    rewards = property(lambda self: self._views["rewards"])
    terminated = property(lambda self: self._views["terminated"])
    truncated = property(lambda self: self._views["truncated"])
    final_scores = property(lambda self: self._views["final_scores"])
    final_lengths = property(lambda self: self._views["final_lengths"])
    final_states = property(lambda self: self._views["final_states"])
    episodes = property(lambda self: self._views["episodes"])
    current_player = property(lambda self: self._views["current_player"])

    @property
    def num_actions(self) -> int:
        return self.spec.num_actions

    @property
    def lock(self):
        """The batch's re-entrant lock: hold it to read the views and step as one unit while
        other threads use the batch (see the module docs)."""
        return self._lock

    @locked
    def reset(self, seed: int | None = None) -> np.ndarray:
        """Deal every slot afresh (episode counters restart at 0); returns the observations."""
        if seed is not None:
            self.seed = check_seed(seed)
        check_fork_safe()
        self._episodes[:] = 0
        with use_threads(self.batch_size):
            self.spec.reset_batch(
                self._states, self.num_players, self.seed, 0, self._episodes, self.options_code
            )
            self._after_new_states()
        return self._out(self._views["observation"])

    def _after_new_states(self):
        self.spec.legal_masks_batch(self._states, self._mask)
        self._terminated[:] = False
        self._truncated[:] = False
        self._rewards[:] = 0.0
        self._ready = True
        self._observe()

    def _observe(self):
        self._players[:] = self._states["current_player"]
        self.spec.encode_batch(self._states, self._players, self._observation)

    def _out(self, view: np.ndarray) -> np.ndarray:
        return view.copy() if self.copy else view

    def step(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """One action per game for its player to act. Returns (obs, rewards, term, trunc):
        fresh arrays, or with ``copy=False`` read-only views that the next step overwrites."""
        # The per-step path takes the lock itself, around a call of the body: @locked costs over
        # twice as much per call (benchmarks/README.md, "Thread safety: the cost of the lock").
        lock = self._lock
        lock.acquire()
        try:
            return self._step(actions)
        finally:
            lock.release()

    def _step(self, actions):
        if not self._ready:
            raise ActionError("call reset() before step()")
        self._step_kernels(self._check_actions(actions))
        views = self._views
        return (
            self._out(views["observation"]),
            self._out(views["rewards"]),
            self._out(views["terminated"]),
            self._out(views["truncated"]),
        )

    def _step_kernels(self, acts, observe: bool = True, opponent=None):
        """The step kernel on checked int64 ``acts``; a game whose action is -1 is left as it
        is. ``observe=False`` skips encoding (the vector env's opponent sub-steps).
        ``opponent``: the vector env's (seats, next_seats, words) for in-kernel random
        opponents (see step_batch in envs/core/game.py); None for none."""
        check_fork_safe()
        # One policy decision for the rules and the encoding (thread_policy: serial for small
        # batches, no more threads than free cores).
        with use_threads(self.batch_size):
            self._run_step_batch(acts, opponent)
            if observe:
                self._observe()

    def _run_step_batch(self, acts, opponent=None):
        seats, next_seats, words = (
            (self._no_seats, self._no_seats, self._no_words) if opponent is None else opponent
        )
        self.spec.step_batch(
            self._states,
            acts,
            self._mask,
            self._rewards,
            self._terminated,
            self._truncated,
            self.num_players,
            self.seed,
            self._episodes,
            self._final_scores,
            self._final_lengths,
            self._final_states,
            self.options_code,
            seats,
            next_seats,
            words,
        )

    def _check_actions(self, actions) -> np.ndarray:
        acts, g, illegal = check_actions(actions, self._mask, self._no_skip, self._illegal)
        if illegal:
            raise IllegalActionError(
                f"action {acts[g]} ({self.spec.action_to_string(self._states, g, int(acts[g]))}) "
                f"is illegal in game {g} ({illegal} games affected)"
            )
        return acts

    # ---- save and restore -----------------------------------------------------------------
    @locked
    def get_states(self) -> np.ndarray:
        """A copy of every game's record (1-D structured array; ``tobytes()`` saves it).

        Pass it to ``set_states`` (with ``episodes=`` for the same future deals)."""
        if not self._ready:
            raise ActionError("call reset() before get_states()")
        saved = self._states.copy()
        digests = digests_of(saved)
        self._issued.add(digests)
        engine_records(self.spec.name).add(digests)
        return saved

    @locked
    def set_states(self, states, episodes=None) -> np.ndarray:
        """Restore every game from ``states`` (from ``get_states`` or raw bytes of it) after
        validating each record; masks and observations are recomputed. ``episodes``
        (optional, from ``batch.episodes``) restores the auto-reset deal counters too.
        On any error nothing changes. Returns the observations like ``reset``."""
        dtype = self.spec.state_dtype
        if isinstance(states, (bytes, bytearray, memoryview)):
            if len(states) != self.batch_size * dtype.itemsize:
                raise SnapshotError(
                    f"expected {self.batch_size * dtype.itemsize} bytes "
                    f"({self.batch_size} records), got {len(states)}"
                )
            states = np.frombuffer(states, dtype=dtype)
        if not isinstance(states, np.ndarray) or states.dtype != dtype:
            raise SnapshotError(
                f"states must be a {self.spec.name} state array (batch.get_states()), got "
                f"{type(states).__name__} of dtype {getattr(states, 'dtype', None)}"
            )
        if states.shape != (self.batch_size,):
            raise SnapshotError(f"states must have shape ({self.batch_size},), got {states.shape}")
        new_episodes = self._episodes.copy()
        if episodes is not None:
            ep = np.asarray(episodes)
            if ep.shape != (self.batch_size,) or ep.dtype.kind not in "iu":
                raise SnapshotError(f"episodes must be ({self.batch_size},) integers")
            if (ep < 0).any() or (ep > np.iinfo(np.int64).max // 4).any():
                raise SnapshotError("episodes must be non-negative counters")
            new_episodes = ep.astype(np.int64)
        checked = validate_records(self.spec, states, self._issued)
        finished = np.flatnonzero(checked["terminated"] | checked["truncated"])
        if finished.size:
            raise SnapshotError(
                f"game {int(finished[0])} is over; a batch holds only games in progress "
                "(finished games are re-dealt the step they end)"
            )
        if (checked["num_players"] != self.num_players).any():
            g = int(np.flatnonzero(checked["num_players"] != self.num_players)[0])
            raise SnapshotError(
                f"game {g} has {int(checked['num_players'][g])} players; this batch plays "
                f"{self.num_players}"
            )
        self._states[:] = checked
        self._episodes[:] = new_episodes
        with use_threads(self.batch_size):
            self._after_new_states()
        return self._out(self._views["observation"])

    @locked
    def determinize(self, players, seed) -> np.ndarray:
        """A fresh copy of every game's record, row ``i`` determinized for seat ``players[i]``
        (docs/<game>.md): what that seat may not know (deck orders, opposing hands, hidden picks,
        the RNG word) is resampled uniformly among the arrangements consistent with what it knows,
        from RNG key ``derive_key(seed, i, STREAM_DETERMINIZE)``, so the result depends only on
        (seed, row), never on the thread count. The batch itself is not changed; the copy can go
        to ``set_states`` or to the game's kernels."""
        if not self._ready:
            raise ActionError("call reset() before determinize()")
        kernel = self.spec.determinize_batch
        if kernel is None:
            raise NotImplementedError(f"{self.spec.name} has no determinization kernel")
        seats = np.asarray(players)
        if seats.shape != (self.batch_size,) or seats.dtype.kind not in "iu":
            raise OptionError(
                f"players must be an integer array of shape ({self.batch_size},), got "
                f"{seats.dtype} {seats.shape}"
            )
        bad = np.flatnonzero((seats < 0) | (seats >= self.num_players))
        if bad.size:
            raise OptionError(
                f"players[{bad[0]}] is {seats[bad[0]]}, not a seat in [0, {self.num_players})"
            )
        seed = check_seed(seed)
        check_fork_safe()
        out = self._states.copy()
        with use_threads(self.batch_size):
            kernel(out, seats.astype(np.int64), seed)
        return out

    @locked
    def random_rollout(self, num_games: int, threads: int | None = None) -> dict:
        """Play ``num_games`` uniform-random games entirely in Numba.

        Game ``g`` is the first game slot ``g`` of this batch's seed would deal, played with the
        random policy stream (seed, g, 1): the results depend on the seed alone, never on the
        batch size or thread count. Returns per-game arrays ``length`` (sub-decision steps),
        ``scores`` (num_games, seats: the players, plus the automated opponent of a solo
        game), ``winner`` (-1 if truncated or drawn) and ``truncated``. ``threads`` (1 to
        ``numba.config.NUMBA_NUM_THREADS``; default Numba's count) caps the threads
        (``meeple_gym.core.thread_policy`` may use fewer); it only changes the speed.
        """
        return random_rollout(
            self.spec, num_games, self.num_players, self.seed, threads, self.options
        )


# Game records per step_batch call in a rollout, by size: each call ends when its longest game
# does, so one thread idles through that tail; bigger calls mean fewer tails (4,096-game calls
# cost 10-20% on 2 threads). 32 MB is 11,000 Everdell games, 67,000 of Century.
ROLLOUT_CHUNK_BYTES = 32 << 20


def random_rollout(
    spec: GameSpec, num_games: int, num_players: int, seed, threads=None, options=None
) -> dict:
    num_games = check_int("num_games", num_games, 1, None)
    seed = check_seed(seed)
    if threads is not None:
        threads = check_int("threads", threads, 1, numba.config.NUMBA_NUM_THREADS)
    code = spec.options_code({**spec.options, **(options or {})}, num_players)
    check_fork_safe()
    # ``threads`` is the cap; the policy may use fewer (few games, or busy cores).
    with use_threads(num_games, threads):
        return play_random_games(spec, 0, num_games, num_players, seed, code)


def play_random_games(
    spec: GameSpec,
    first_game: int,
    num_games: int,
    num_players: int,
    seed,
    options_code: int = 0,
    chunk: int | None = None,
) -> dict:
    """Games ``first_game … first_game + num_games - 1`` played uniformly at random in Numba
    (arguments already checked). Game ``g`` deals from key (seed, g, 0) like slot ``g`` of a
    batch on its first episode and draws its moves from the policy stream (seed, g); a game's
    result depends only on (seed, g), so any split of the games (``chunk`` rows per kernel
    call, or shards across processes) gives the same results."""
    seats = spec.seats(num_players)
    seed = np.uint64(seed)
    length = np.zeros(num_games, dtype=np.int64)
    scores = np.zeros((num_games, spec.max_players), dtype=np.int32)
    winner = np.zeros(num_games, dtype=np.int64)
    truncated = np.zeros(num_games, dtype=np.bool_)
    if chunk is None:
        chunk = max(1024, ROLLOUT_CHUNK_BYTES // spec.state_dtype.itemsize)
    rows = min(num_games, chunk)
    states = np.zeros(rows, dtype=spec.state_dtype)
    masks = np.zeros((rows, spec.num_actions), dtype=np.int8)
    rewards = np.zeros((rows, spec.max_players), dtype=np.float32)
    flags = np.zeros((2, rows), dtype=np.bool_)
    episodes = np.zeros(rows, dtype=np.int64)
    final_scores = np.zeros((rows, spec.max_players), dtype=np.int32)
    final_lengths = np.zeros(rows, dtype=np.int64)
    actions = np.full(rows, -1, dtype=np.int64)
    all_random = np.full(rows, ALL_SEATS_RANDOM, dtype=np.int64)
    words = np.zeros(rows, dtype=np.uint64)
    for start in range(0, num_games, rows):
        n = min(rows, num_games - start)
        first = first_game + start
        episodes[:n] = 0
        spec.reset_batch(states[:n], num_players, seed, first, episodes[:n], options_code)
        fill_policy_words(seed, first, words[:n])
        spec.step_batch(
            states[:n],
            actions[:n],
            masks[:n],
            rewards[:n],
            flags[0, :n],
            flags[1, :n],
            num_players,
            seed,
            episodes[:n],
            final_scores[:n],
            final_lengths[:n],
            states[:0],  # no terminal copies: a rollout keeps its finished games in place
            options_code,
            all_random[:n],
            all_random[:n],
            words[:n],
        )
        done = slice(start, start + n)
        length[done] = final_lengths[:n]
        scores[done] = final_scores[:n]
        winner[done] = states["winner"][:n]
        truncated[done] = states["truncated"][:n] == 1
    return {
        "length": length,
        "scores": scores[:, :seats],
        "winner": winner,
        "truncated": truncated,
    }
