"""Checking one action per row of a batch against the rows' legal-action masks, in one pass.

``BatchEnv.step`` and the vector env's ``step`` check every action before a kernel sees it
(Numba does no bounds checks). In NumPy that was six to eight array operations of 1-2 us each
on 1,024 rows (range, cast, gather from the masks, compare, count), several times that right
after a kernel call has evicted the interpreter's data from the caches; one kernel call does
it all.
"""

from __future__ import annotations

import numpy as np

from meeple_gym.core.errors import ActionError
from meeple_gym.core.jit import kernel


@kernel
def _check_rows(actions, masks, skip, out, illegal):
    """``out[i] = actions[i]`` (-1 where ``skip[i]``, unchecked); ``illegal[i]``: an action in
    range that ``masks[i]`` does not allow. Returns (first out-of-range row, how many,
    first illegal row, how many), -1 for a first row when there is none."""
    n = masks.shape[1]
    first_bad = -1
    bad = 0
    first_illegal = -1
    count = 0
    for i in range(actions.shape[0]):
        illegal[i] = False
        if skip[i]:
            out[i] = -1
            continue
        a = actions[i]
        out[i] = a
        if a < 0 or a >= n:
            if bad == 0:
                first_bad = i
            bad += 1
        elif masks[i, a] == 0:
            illegal[i] = True
            if count == 0:
                first_illegal = i
            count += 1
    return first_bad, bad, first_illegal, count


def check_actions(actions, masks: np.ndarray, skip: np.ndarray, illegal: np.ndarray):
    """The actions of a batch as a new int64 array, checked against ``masks`` (B, A) of int8.

    ``actions`` must be B integers (any integer dtype) in [0, A) except in rows where ``skip``
    (B bools) is set: those get -1 and are not checked. Raises ``ActionError`` for a wrong shape,
    a non-integer dtype or an action out of range. Illegal actions (in range, not in the mask)
    are not an error here: ``illegal`` (B bools, overwritten) marks them, and the first illegal
    row and their count are returned with the actions: ``(acts, first_illegal, count)``."""
    arr = np.asarray(actions)
    rows, n = masks.shape
    if arr.shape != (rows,):
        raise ActionError(f"actions must have shape ({rows},), got {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise ActionError(f"actions must be an integer array, got dtype {arr.dtype}")
    if arr.dtype != np.int64:
        # Range check before the cast: uint64 2**64-1 must not turn into -1.
        bad_rows = np.flatnonzero(((arr < 0) | (arr >= n)) & ~skip)
        if bad_rows.size:
            _range_error(arr, n, int(bad_rows[0]), bad_rows.size)
        arr = arr.astype(np.int64)
    elif not (arr.flags.c_contiguous and arr.flags.writeable):
        arr = arr.copy()  # the kernel's one signature: a C-contiguous, writable int64 array
    acts = np.empty(rows, dtype=np.int64)
    first_bad, bad, first_illegal, count = _check_rows(arr, masks, skip, acts, illegal)
    if bad:
        _range_error(arr, n, first_bad, bad)
    return acts, first_illegal, count


def _range_error(arr: np.ndarray, n: int, first: int, count: int) -> None:
    raise ActionError(
        f"action {arr[first]} in game {first} is out of range [0, {n}) ({count} games affected)"
    )
