"""Compact observations folded from a game's full one, and the slow reference of their kernels.

A compact vector keeps the full vector's order: each one-hot block becomes one categorical code
(the index it marks + 1, 0 = none); each flag block listed as a set block becomes the ascending
indices of its set flags + 1, ``k`` of them, padded with 0; every other entry is copied. So the
two vectors carry the same information, and ``Folding.fold`` is the obviously correct (slow)
version a game's compact encoder kernel is tested against. Which blocks fold is the game's
choice (its encoder module lists them); this module names no game.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np


class Folding:
    """The folding of a ``full_size`` vector: ``one_hots`` are ``(start, length)`` pairs,
    ``sets`` ``(start, length, k)`` triples; blocks may not overlap."""

    def __init__(self, full_size: int, one_hots, sets=()):
        self.full_size = int(full_size)
        self.one_hots = {int(start): int(n) for start, n in one_hots}
        self.sets = {int(start): (int(n), int(k)) for start, n, k in sets}
        covered = np.zeros(self.full_size, np.int64)
        for start, n in self.one_hots.items():
            covered[start : start + n] += 1
        for start, (n, k) in self.sets.items():
            if not 0 < k <= n:
                raise ValueError(f"set block at {start}: {k} codes for {n} flags")
            covered[start : start + n] += 1
        if (covered > 1).any():
            raise ValueError(f"folded blocks overlap at {int(np.flatnonzero(covered > 1)[0])}")
        self.size = self.offset(self.full_size)

    def offset(self, full_offset: int) -> int:
        """Where the entry (or a block's first code) at ``full_offset`` sits in the compact
        vector."""
        shrink = sum(n - 1 for start, n in self.one_hots.items() if start < full_offset)
        shrink += sum(n - k for start, (n, k) in self.sets.items() if start < full_offset)
        return full_offset - shrink

    def _map(self, full, one_hot_code, set_codes) -> np.ndarray:
        full = np.asarray(full, np.float32)
        if full.shape != (self.full_size,):
            raise ValueError(f"expected a vector of {self.full_size} floats, got {full.shape}")
        out = np.zeros(self.size, np.float32)
        x = c = 0
        while x < self.full_size:
            if x in self.one_hots:
                n = self.one_hots[x]
                out[c] = one_hot_code(full[x : x + n])
                x, c = x + n, c + 1
            elif x in self.sets:
                n, k = self.sets[x]
                out[c : c + k] = set_codes(full[x : x + n], k)
                x, c = x + n, c + k
            else:
                out[c] = full[x]
                x, c = x + 1, c + 1
        return out

    def fold(self, full) -> np.ndarray:
        """The compact vector of the full observation ``full``."""
        return self._map(full, first_code, _set_codes)

    def bounds(self, full_high) -> tuple[np.ndarray, np.ndarray]:
        """Read-only ``(low, high)`` of the compact vector: the full vector's caps, and each
        code's number of categories."""
        high = self._map(full_high, len, lambda block, k: np.full(k, len(block)))
        low = np.zeros(self.size, np.float32)
        return _read_only(low), _read_only(high)


def first_code(block) -> int:
    """The index + 1 of the first set entry of ``block``, 0 if none is set."""
    nz = np.flatnonzero(block)
    return int(nz[0]) + 1 if nz.size else 0


def _set_codes(block, k) -> np.ndarray:
    codes = np.zeros(k, np.float32)
    nz = np.flatnonzero(block)[:k] + 1
    codes[: nz.size] = nz
    return codes


def _read_only(array: np.ndarray) -> np.ndarray:
    array.setflags(write=False)
    return array


def observation_variant(encode_into, encode_batch, high: np.ndarray) -> SimpleNamespace:
    """What ``GameSpec.observations[name]`` points to: the encoder kernels and the upper bound
    (read-only) of an alternative observation."""
    return SimpleNamespace(
        OBS_SIZE=int(high.shape[0]),
        OBS_HIGH=_read_only(high),
        encode_into=encode_into,
        encode_batch=encode_batch,
    )
