"""One-step rollout values: every legal move played out to the end by the heuristic, paired.

>>> from meeple_gym.baselines.rollout import RolloutAgent
>>> agent = RolloutAgent("everdell", samples=16, seed=0)
>>> rewards, margins = agent.move_values(batch.get_states())   # (N, num_actions) each
>>> actions = agent.act_states(batch.get_states())              # the best move by margin

The rollout algorithm (Bertsekas; Tesauro & Galperin 1996): for each legal move of the player
to act, ``samples`` times, take a determinization of the position for that player (the game's
``determinize_into``, as the ISMCTS search does), make the move, and let the game's heuristic
play every seat to the end (the same play-out kernel as the search's, with no random moves).
A move's values are the means over its samples of the player's final reward (+1 win, the
game's negatives otherwise) and of its score margin over the best other player (the game's
own score kernel).

The moves are *paired*: sample ``d`` of every move starts from the same determinization, so
the hidden cards and the chance of the rest of the game (the record's RNG words, resampled
with the determinization) are the same for every move, and the differences between moves
are far less noisy than their values. The heuristic never sees hidden information; the
determinization stands in for it as in the search.

The learned agent's trainer uses these values as targets (``net_train``, ``--targets
rollouts``). The agent that plays the best move by margin is a strong, slow player; it is not
on the ladder.

Each decision's key comes from the agent's seed, the record's RNG word and its step count (as
the search's), so a move's values depend only on (seed, record): never on the batch or the
threads.
"""

from __future__ import annotations

import functools

import numpy as np
from numba import prange

from meeple_gym.baselines.ismcts import (
    MAX_SEATS,
    STREAM_SEARCH,
    _search_spec,
    checked_records,
    play_out_namespace,
)
from meeple_gym.core.batch import MAX_SEED
from meeple_gym.core.errors import OptionError
from meeple_gym.core.jit import game_kernel, rebind
from meeple_gym.core.options import check_int
from meeple_gym.core.rng import next_u64  # noqa: F401 - bound in templates
from meeple_gym.core.threads import check_fork_safe

STREAM_ROLLOUT = STREAM_SEARCH + 1  # RNG stream of the determinizations' keys
MAX_SAMPLES = 100_000
VALUES = ("margin", "reward")

# Filled per game by ``play_out_namespace``; the templates below read these as globals.
NUM_ACTIONS = 1
OBS_SIZE = 1


# ---- templates: compiled once per game with that game's kernels as globals ----


def _move_values_row(states, g, key, samples, out):
    """``out[g, 0, a]``: the mean final reward of move ``a`` for the player to act in game
    ``g``, ``out[g, 1, a]`` its mean score margin, over ``samples`` paired play-outs."""
    root = states[g]
    player = root.current_player
    root_mask = np.zeros(NUM_ACTIONS, np.int8)
    legal_mask_into(states, g, root_mask)  # noqa: F821 - bound per game
    mask = np.zeros(NUM_ACTIONS, np.int8)
    obs = new_rollout_buffer(OBS_SIZE)  # noqa: F821
    reward = np.zeros(MAX_SEATS, np.float32)
    scores = np.zeros(MAX_SEATS, np.float64)
    words = np.zeros(1, np.uint64)
    words[0] = key
    work = states[g : g + 1].copy()
    for _ in range(samples):
        world = next_u64(words, 0)  # one determinization for every move: the pairing
        for a in range(NUM_ACTIONS):
            if root_mask[a] == 0:
                continue
            work[0] = states[g]
            determinize_into(work, 0, player, world)  # noqa: F821
            apply_action(work, 0, a)  # noqa: F821
            while work[0].terminated == 0 and work[0].truncated == 0:
                legal_mask_into(work, 0, mask)  # noqa: F821
                encode_into(work, 0, work[0].current_player, obs)  # noqa: F821
                action = heuristic_action(obs, mask)  # noqa: F821
                if action < 0:  # a live position with no legal move: the engine never makes one
                    break
                apply_action(work, 0, action)  # noqa: F821
            rewards_into(work[0], reward)  # noqa: F821
            seats = scores_into(work, 0, scores)  # noqa: F821
            best_other = -np.inf
            for q in range(seats):
                if q != player and scores[q] > best_other:
                    best_other = scores[q]
            out[g, 0, a] += reward[player] / samples
            out[g, 1, a] += (scores[player] - best_other) / samples


def _move_values_batch(states, seed, samples, out):
    for i in prange(states.shape[0]):
        key = _decision_key(states[i], seed, STREAM_ROLLOUT)  # noqa: F821 - the search's
        _move_values_row(states, i, key, samples, out)


@functools.cache
def move_values_kernel(game: str):
    """The compiled ``(states, seed, samples, out)`` of ``game`` (``out``: float64 zeros,
    (N, 2, num_actions)), cached per game in the game's kernel cache group."""
    namespace = dict(play_out_namespace(game))
    namespace["STREAM_ROLLOUT"] = STREAM_ROLLOUT
    namespace["_move_values_row"] = game_kernel(rebind(_move_values_row, namespace), game)
    return game_kernel(rebind(_move_values_batch, namespace), game, parallel=True)


class RolloutAgent:
    """Plays the move with the best paired rollout value (module docs): ``samples`` play-outs
    a move, ranked by ``value`` (``"margin"``, the mean score margin, ties broken by the mean
    reward; or ``"reward"``, the other way round; then the lowest action)."""

    def __init__(self, game: str, samples: int = 16, seed: int = 0, value: str = "margin"):
        self._spec = _search_spec(game)
        self.game = game
        self.samples = check_int("rollout: samples", samples, 1, MAX_SAMPLES)
        self.seed = check_int("rollout: seed", seed, 0, MAX_SEED)
        if value not in VALUES:
            raise OptionError(f"rollout: value must be one of {VALUES}, got {value!r}")
        self.value = value

    @property
    def name(self) -> str:
        return f"rollout:samples={self.samples},value={self.value}"

    def move_values(self, states: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(rewards, margins)``, float64 (N, num_actions): each legal move's mean final
        reward and score margin for the player to act (zero for illegal moves)."""
        values = self._values(checked_records(self._spec, states))
        return values[:, 0], values[:, 1]

    def act_states(self, states: np.ndarray) -> np.ndarray:
        """One action per game record (the best by ``value``); the records are not changed."""
        return self._search(checked_records(self._spec, states))

    def _search(self, states: np.ndarray) -> np.ndarray:
        """``act_states`` on the engine's own records, unchecked (``evaluate.record_policy``)."""
        masks = np.zeros((states.shape[0], self._spec.num_actions), dtype=np.int8)
        self._spec.legal_masks_batch(states, masks)
        return best_moves(self._values(states), masks, self.value)

    def _values(self, states: np.ndarray) -> np.ndarray:
        out = np.zeros((states.shape[0], 2, self._spec.num_actions), dtype=np.float64)
        if states.shape[0]:
            check_fork_safe()
            move_values_kernel(self.game)(states, np.uint64(self.seed), np.int64(self.samples), out)
        return out


def best_moves(values: np.ndarray, masks: np.ndarray, value: str = "margin") -> np.ndarray:
    """The legal move of each row with the best ``values`` (``RolloutAgent._values``'s (N, 2,
    A)) by ``value``, ties broken by the other value and then the lowest action."""
    first, second = (1, 0) if value == "margin" else (0, 1)
    legal = masks != 0
    top = np.where(legal, values[:, first], -np.inf).max(axis=1, keepdims=True)
    tied = legal & (values[:, first] == top)
    return np.where(tied, values[:, second], -np.inf).argmax(axis=1).astype(np.int64)
