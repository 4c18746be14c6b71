"""A batch of N games of one kind, stepped together by the game's Numba kernels.

>>> import envs
>>> batch = envs.make_batch("century", batch_size=4096, num_players=3, seed=7)
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
  its rewards, its final scores are copied to ``final_scores`` (B, num_players) and
  ``final_lengths``, and the slot is immediately re-dealt; ``observation``,
  ``legal_mask`` and ``current_player`` already describe the new game.
- Chance: slot ``i`` on its ``e``-th game deals from RNG key (seed, i, 2e), so a slot's games
  never depend on the batch size or the number of threads.
- ``states`` is the raw structured array: ``states.copy()`` clones the batch, ``tobytes()``
  saves it.
"""

from __future__ import annotations

import numba
import numpy as np

from envs.core.errors import ActionError, IllegalActionError, OptionError
from envs.core.game import GameSpec

MAX_SEED = (1 << 64) - 1
# Below this many games a step runs on one thread: waking a second thread costs more than it
# saves, and on a loaded machine an OpenMP barrier can slow a tiny batch a hundredfold.
PARALLEL_MIN_BATCH = 512


def check_seed(seed) -> np.uint64:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise OptionError(f"seed must be an int, got {type(seed).__name__}")
    if not 0 <= int(seed) <= MAX_SEED:
        raise OptionError(f"seed must be in [0, 2**64), got {seed}")
    return np.uint64(int(seed))


class BatchEnv:
    def __init__(self, spec: GameSpec, batch_size: int, num_players: int, seed: int = 0, **options):
        if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)):
            raise OptionError(f"batch_size must be an int, got {type(batch_size).__name__}")
        if batch_size < 1:
            raise OptionError(f"batch_size must be at least 1, got {batch_size}")
        self.spec = spec
        self.batch_size = int(batch_size)
        self.num_players = int(num_players)
        self.options = options
        self.options_code = spec.options_code({**spec.options, **options}, self.num_players)
        self.seed = check_seed(seed)
        b, a = self.batch_size, spec.num_actions
        self.states = np.zeros(b, dtype=spec.state_dtype)
        self.legal_mask = np.zeros((b, a), dtype=np.int8)
        self.observation = np.zeros((b, spec.obs_size), dtype=np.float32)
        self.rewards = np.zeros((b, spec.max_players), dtype=np.float32)
        self.terminated = np.zeros(b, dtype=np.bool_)
        self.truncated = np.zeros(b, dtype=np.bool_)
        self.final_scores = np.zeros((b, self.num_players), dtype=np.int32)
        self.final_lengths = np.zeros(b, dtype=np.int64)
        self.episodes = np.zeros(b, dtype=np.int64)
        self._players = np.zeros(b, dtype=np.int64)
        self._rows = np.arange(b)
        self._ready = False
        self._single_thread = b < PARALLEL_MIN_BATCH

    @property
    def current_player(self) -> np.ndarray:
        return self.states["current_player"]

    @property
    def num_actions(self) -> int:
        return self.spec.num_actions

    def reset(self, seed: int | None = None) -> np.ndarray:
        """Deal every slot afresh (episode counters restart at 0); returns ``observation``."""
        if seed is not None:
            self.seed = check_seed(seed)
        self.episodes[:] = 0
        self.spec.reset_batch(
            self.states, self.num_players, self.seed, 0, self.episodes, self.options_code
        )
        self.spec.legal_masks_batch(self.states, self.legal_mask)
        self.terminated[:] = False
        self.truncated[:] = False
        self.rewards[:] = 0.0
        self._ready = True
        self._observe()
        return self.observation

    def _observe(self):
        self._players[:] = self.states["current_player"]
        self.spec.encode_batch(self.states, self._players, self.observation)

    def step(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """One action per game for its player to act. Returns (obs, rewards, term, trunc)."""
        if not self._ready:
            raise ActionError("call reset() before step()")
        acts = self._check_actions(actions)
        if self._single_thread:
            previous = numba.get_num_threads()
            numba.set_num_threads(1)
            try:
                self._step_kernels(acts)
            finally:
                numba.set_num_threads(previous)
        else:
            self._step_kernels(acts)
        return (
            self.observation,
            self.rewards[:, : self.num_players],
            self.terminated,
            self.truncated,
        )

    def _step_kernels(self, acts):
        self.spec.step_batch(
            self.states,
            acts,
            self.legal_mask,
            self.rewards,
            self.terminated,
            self.truncated,
            self.num_players,
            self.seed,
            self.episodes,
            self.final_scores,
            self.final_lengths,
            self.options_code,
        )
        self._observe()

    def _check_actions(self, actions) -> np.ndarray:
        arr = np.asarray(actions)
        if arr.shape != (self.batch_size,):
            raise ActionError(f"actions must have shape ({self.batch_size},), got {arr.shape}")
        if arr.dtype.kind not in "iu":
            raise ActionError(f"actions must be an integer array, got dtype {arr.dtype}")
        acts = arr.astype(np.int64, copy=True)
        bad = np.flatnonzero((acts < 0) | (acts >= self.spec.num_actions))
        if bad.size:
            raise ActionError(
                f"action {acts[bad[0]]} in game {bad[0]} is out of range "
                f"[0, {self.spec.num_actions}) ({bad.size} games affected)"
            )
        illegal = np.flatnonzero(self.legal_mask[self._rows, acts] == 0)
        if illegal.size:
            g = int(illegal[0])
            raise IllegalActionError(
                f"action {acts[g]} ({self.spec.action_to_string(self.states, g, int(acts[g]))}) "
                f"is illegal in game {g} ({illegal.size} games affected)"
            )
        return acts

    def random_rollout(self, num_games: int, threads: int | None = None) -> dict:
        """Play ``num_games`` uniform-random games entirely in Numba.

        Game ``g`` is the first game slot ``g`` of this batch's seed would deal, played with the
        random policy stream (seed, g, 1): the results depend on the seed alone, never on the
        batch size or thread count. Returns per-game arrays ``length`` (sub-decision steps),
        ``scores`` (num_games, num_players), ``winner`` (-1 if truncated) and ``truncated``.
        """
        if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)):
            raise OptionError(f"num_games must be an int, got {type(num_games).__name__}")
        if num_games < 1:
            raise OptionError(f"num_games must be at least 1, got {num_games}")
        return random_rollout(
            self.spec, int(num_games), self.num_players, self.seed, threads, self.options
        )


def random_rollout(
    spec: GameSpec, num_games: int, num_players: int, seed, threads=None, options=None
) -> dict:
    seed = check_seed(seed)
    code = spec.options_code({**spec.options, **(options or {})}, num_players)
    previous = numba.get_num_threads()
    if threads is not None:
        numba.set_num_threads(threads)
    try:
        # Many more chunks than threads: games differ a lot in length.
        chunks = max(1, min(num_games, 64 * numba.get_num_threads()))
        scratch = np.zeros(chunks, dtype=spec.state_dtype)
        masks = np.zeros((chunks, spec.num_actions), dtype=np.int8)
        length = np.zeros(num_games, dtype=np.int64)
        scores = np.zeros((num_games, spec.max_players), dtype=np.int32)
        winner = np.zeros(num_games, dtype=np.int64)
        truncated = np.zeros(num_games, dtype=np.bool_)
        spec.random_rollout_kernel(
            scratch, masks, 0, num_games, num_players, seed, length, scores, winner, truncated, code
        )
    finally:
        numba.set_num_threads(previous)
    return {
        "length": length,
        "scores": scores[:, :num_players],
        "winner": winner,
        "truncated": truncated,
    }
