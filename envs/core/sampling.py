"""Game-independent random action sampling over batches of legal-action masks.

Each row draws from its own RNG word (``envs.core.rng``), so a row's choices depend only on
its word, never on the batch size or the number of threads.
"""

import numpy as np
from numba import prange

from envs.core.jit import parallel_kernel
from envs.core.rng import STREAM_POLICY, derive_key, randint


@parallel_kernel
def random_legal_actions(masks, words, out):
    """``out[i]`` = a uniform legal action of ``masks[i]`` drawn with ``words[i]``.

    ``masks`` is (B, A) of 0/1, ``words`` (B,) uint64 (advanced in place), ``out`` (B,)
    integers. A row with no legal action gets -1 and leaves its word unchanged.
    """
    for i in prange(masks.shape[0]):
        row = masks[i]
        count = 0
        for a in range(row.shape[0]):
            count += row[a] != 0
        if count == 0:
            out[i] = -1
            continue
        r = randint(words, i, count)
        for a in range(row.shape[0]):
            if row[a] != 0:
                if r == 0:
                    out[i] = a
                    break
                r -= 1


@parallel_kernel
def _fill_words(seed, first_row, words):
    for i in prange(words.shape[0]):
        words[i] = derive_key(seed, np.uint64(first_row + i), np.uint64(STREAM_POLICY))


def policy_words(seed: int, batch_size: int) -> np.ndarray:
    """One policy-stream RNG word per row: row ``i`` starts from key (seed, i, STREAM_POLICY)."""
    words = np.empty(batch_size, dtype=np.uint64)
    _fill_words(np.uint64(seed), 0, words)
    return words
