"""Counter-based RNG (SplitMix64) whose single 64-bit word lives inside each game's state.

Numba's own ``np.random`` is per-thread and cannot be made reproducible under ``prange``,
so every game carries its RNG word in its record. Episode ``e`` of game ``i`` of a batch seeded
with ``seed`` starts from ``derive_key(seed, i, 2 * e + STREAM_GAME)`` (see ``game_key``); the odd
streams are left to the policy and seat streams. Results never depend on batch size or threads.

The pure-Python twins (``py_*``) are used by the slow reference implementations and by the
snapshot code; tests check that both produce the same stream.
"""

import numpy as np

from meeple_gym.core.jit import kernel

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15
MIX1 = 0xBF58476D1CE4E5B9
MIX2 = 0x94D049BB133111EB

# Stream ids used in derive_key: chance events of a game vs the random policy of a rollout.
STREAM_GAME = 0
STREAM_POLICY = 1
# Determinization: row i of a seed resamples from derive_key(seed, i, this). Far above
# the game streams (2 * episode) and the vector env's seat streams, so it never meets them.
STREAM_DETERMINIZE = 0x44455445524D

_GOLDEN = np.uint64(GOLDEN)
_MIX1 = np.uint64(MIX1)
_MIX2 = np.uint64(MIX2)
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)


@kernel
def mix64(z):
    """SplitMix64 finaliser: a bijection on uint64 with strong avalanche."""
    z = np.uint64(z)
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@kernel
def derive_key(seed, index, stream):
    """Starting RNG word for game ``index`` of a run seeded with ``seed``."""
    k = mix64(np.uint64(seed) + _GOLDEN)
    k = mix64(k ^ (np.uint64(index) + _GOLDEN))
    return mix64(k ^ (np.uint64(stream) * _MIX1 + _GOLDEN))


@kernel
def next_u64(words, slot):
    """Advance ``words[slot]`` and return the next 64-bit output."""
    words[slot] = words[slot] + _GOLDEN
    return mix64(words[slot])


@kernel
def randint(words, slot, n):
    """Uniform-ish integer in [0, n) (modulo bias below 1e-17 for the n used here)."""
    return np.int64(next_u64(words, slot) % np.uint64(n))


@kernel
def shuffle(words, values, n):
    """Fisher-Yates over ``values[:n]`` from the top, drawing from ``words[0]``; the slow
    references shuffle with ``PyRng`` in exactly this order."""
    for i in range(n - 1, 0, -1):
        j = randint(words, 0, i + 1)
        tmp = values[i]
        values[i] = values[j]
        values[j] = tmp


# ---- pure-Python twins --------------------------------------------------------------------


def py_mix64(z: int) -> int:
    z &= MASK64
    z = ((z ^ (z >> 30)) * MIX1) & MASK64
    z = ((z ^ (z >> 27)) * MIX2) & MASK64
    return z ^ (z >> 31)


def py_derive_key(seed: int, index: int, stream: int) -> int:
    k = py_mix64((seed + GOLDEN) & MASK64)
    k = py_mix64(k ^ ((index + GOLDEN) & MASK64))
    return py_mix64(k ^ ((stream * MIX1 + GOLDEN) & MASK64))


class PyRng:
    """The same stream as ``next_u64``/``randint`` over a Python int."""

    def __init__(self, word: int):
        self.word = word & MASK64

    def next_u64(self) -> int:
        self.word = (self.word + GOLDEN) & MASK64
        return py_mix64(self.word)

    def randint(self, n: int) -> int:
        return self.next_u64() % n


def game_key(seed, index: int = 0, episode: int = 0) -> np.uint64:
    """Python-side RNG word of a game's chance stream, as ``np.uint64`` (the dtype the kernels
    are compiled for; a plain int above 2**63 would not convert)."""
    return np.uint64(py_derive_key(int(seed), int(index), 2 * int(episode) + STREAM_GAME))
