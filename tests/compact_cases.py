"""The folding of a full observation into its compact one (``observation="compact"``), seen from
the tests of the games whose compact layout is the full one folded (Radlands, Endeavor).

The encoder lists what it folds: ``ONE_HOT_BLOCKS`` (start, length), each one-hot block of the
full vector becoming one code (index + 1, 0 = none), and, where it has them, ``SET_BLOCKS``
(start, length, codes), each block of flags becoming the ascending indices + 1 of its set flags,
padded with 0. Every other entry is copied, in the full vector's order. ``Folding`` unfolds a
compact vector again, so a kernel whose vector equals the slow reference ``compact_from_full``
and unfolds back to the full vector carries exactly what the full one does.
"""

import numpy as np
from game_cases import assert_within


class Folding:
    """Where each entry of ``enc``'s full layout sits in its compact layout."""

    def __init__(self, enc):
        self.enc = enc
        self.block_start, self.block_len = np.array(enc.ONE_HOT_BLOCKS).T
        self.sets = list(getattr(enc, "SET_BLOCKS", ()))
        folded = np.zeros(enc.OBS_SIZE, bool)
        for start, n in enc.ONE_HOT_BLOCKS:
            folded[start : start + n] = True
        for start, n, _ in self.sets:
            folded[start : start + n] = True
        self.plain = np.flatnonzero(~folded)
        self.plain_at = self.at(self.plain)
        self.code_at = self.at(self.block_start)
        # each code of a set block: where it sits, the block's start and length
        codes = [
            (enc.compact_offset(start) + j, start, n) for start, n, k in self.sets for j in range(k)
        ]
        self.set_at, self.set_start, self.set_len = np.array(codes, np.int64).reshape(-1, 3).T

    def at(self, full_offsets):
        return np.array([self.enc.compact_offset(int(x)) for x in full_offsets], np.int64)

    def full_from_compact(self, compact):
        """The full observation a compact one stands for: every code unfolded into its flag."""
        full = np.zeros(self.enc.OBS_SIZE, np.float32)
        full[self.plain] = compact[self.plain_at]
        codes = compact[self.code_at].astype(np.int64)
        assert (codes == compact[self.code_at]).all() and (codes <= self.block_len).all()
        on = codes > 0
        full[self.block_start[on] + codes[on] - 1] = 1.0
        for start, n, k in self.sets:
            at = self.enc.compact_offset(start)
            codes = compact[at : at + k]
            listed = codes[codes > 0].astype(np.int64)
            assert (listed == codes[: listed.size]).all(), codes  # the padding comes last
            assert (np.diff(listed) > 0).all() and (listed <= n).all(), codes  # ascending, once
            full[start + listed - 1] = 1.0
        return full

    def assert_layout(self, one_hot_blocks, set_blocks, size):
        """The encoder folds exactly the documented blocks into ``size`` entries, in order, with
        each code bounded by its number of categories."""
        enc = self.enc
        assert enc.ONE_HOT_BLOCKS == one_hot_blocks
        assert self.sets == set_blocks
        assert enc.COMPACT_OBS_SIZE == size
        shrink = int((self.block_len - 1).sum()) + sum(n - k for _, n, k in self.sets)
        assert enc.OBS_SIZE - shrink == size
        # Every compact entry is one copied entry, one block's code or one set code, in the
        # full vector's order.
        at = np.concatenate([self.plain_at, self.code_at, self.set_at])
        first = np.concatenate([self.plain, self.block_start, self.set_start])
        np.testing.assert_array_equal(at[np.argsort(first, kind="stable")], np.arange(size))
        # Bounds: a code's largest value is its block's length; copied entries keep theirs.
        high = enc.COMPACT_OBS_HIGH
        np.testing.assert_array_equal(high[self.code_at], self.block_len)
        np.testing.assert_array_equal(high[self.set_at], self.set_len)
        np.testing.assert_array_equal(high[self.plain_at], enc.OBS_HIGH[self.plain])
        assert not enc.COMPACT_OBS_LOW.any() and enc.COMPACT_OBS_LOW.shape == (size,)
        assert not high.flags.writeable and not enc.COMPACT_OBS_LOW.flags.writeable
        assert enc.COMPACT.OBS_SIZE == size and enc.COMPACT.OBS_HIGH is high

    def check_kernel(self, views, positions, seats):
        """The compact kernel of ``views`` (``observation_views``) against the reference, both
        ways, and within its bounds, for every seat ``seats(states)`` of every position.
        Returns ``(seen, phases, checked)``: which entries were non-zero somewhere, the phases
        met, the number of observations checked."""
        enc = self.enc
        seen = np.zeros(enc.COMPACT_OBS_SIZE, bool)
        phases = set()
        checked = 0
        for states in positions:
            phases.add(int(states[0]["phase"]))
            for player in seats(states):
                full = views["full"].observe(states, player)
                compact = views["compact"].observe(states, player)  # junk first: all written
                np.testing.assert_array_equal(compact, enc.compact_from_full(full))
                np.testing.assert_array_equal(self.full_from_compact(compact), full)  # no loss
                assert_within(compact, enc.COMPACT_OBS_LOW, enc.COMPACT_OBS_HIGH)
                seen |= compact != 0
                checked += 1
        return seen, phases, checked
