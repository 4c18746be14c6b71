"""Game-independent random action sampling over batches of legal-action masks.

Each row draws from its own RNG word (``meeple_gym.core.rng``), so a row's choices depend only on
its word, never on the batch size or the number of threads.
"""

import numpy as np
from numba import prange

from meeple_gym.core.jit import kernel, parallel_kernel
from meeple_gym.core.rng import STREAM_POLICY, derive_key, randint

# The seat value that asks a game's step_batch to play every seat at random to the end of the
# game (the in-kernel random rollout); -1 means no random play, k >= 0 plays all but seat k.
ALL_SEATS_RANDOM = -2


@kernel
def random_legal(mask, words, slot):
    """A uniform legal action of the 0/1 ``mask`` drawn with ``words[slot]``; -1 (and no draw)
    when nothing is legal. Every rollout and batch sampler picks actions through this."""
    count = 0
    for a in range(mask.shape[0]):
        count += mask[a] != 0
    if count == 0:
        return -1
    r = randint(words, slot, count)
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            if r == 0:
                return a
            r -= 1
    return -1


@parallel_kernel
def random_legal_actions(masks, words, out):
    """``out[i]`` = a uniform legal action of ``masks[i]`` drawn with ``words[i]``.

    ``masks`` is (B, A) of 0/1, ``words`` (B,) uint64 (advanced in place), ``out`` (B,)
    integers. A row with no legal action gets -1 and leaves its word unchanged.
    """
    for i in prange(masks.shape[0]):
        out[i] = random_legal(masks[i], words, i)


@parallel_kernel
def _fill_words(seed, first_row, words):
    for i in prange(words.shape[0]):
        words[i] = derive_key(seed, np.uint64(first_row + i), np.uint64(STREAM_POLICY))


def fill_policy_words(seed, first_row: int, words: np.ndarray) -> None:
    """``words[k]`` = the policy-stream key of row ``first_row + k`` (uint64, in place)."""
    _fill_words(np.uint64(seed), first_row, words)


def policy_words(seed: int, batch_size: int) -> np.ndarray:
    """One policy-stream RNG word per row: row ``i`` starts from key (seed, i, STREAM_POLICY)."""
    words = np.empty(batch_size, dtype=np.uint64)
    _fill_words(np.uint64(seed), 0, words)
    return words
