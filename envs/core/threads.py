"""Threads and processes: which Numba threading layer runs the parallel kernels, and fork.

The parallel kernels (batch steps, rollouts, batched agents) run on Numba's threading layer.
meeple-gym prefers TBB (a dependency on Linux x86-64 and Windows): it is both thread-safe
(several Python threads may step different batches at once; every kernel releases the GIL)
and fork-safe (the fork-started workers of SB3's SubprocVecEnv, Tianshou or multiprocessing
can use the kernels after the parent already did). Without TBB Numba falls back to OpenMP,
which is thread-safe but not fork-safe: GNU OpenMP kills a forked child that starts a parallel
region. There, ``check_fork_safe`` raises a ``MeepleError`` in such a child instead, naming the
remedies (install ``tbb``, or use the "spawn"/"forkserver" start method).

``NUMBA_THREADING_LAYER`` set by the user is respected.
"""

from __future__ import annotations

import os

import numba

from meeple_gym.core.errors import MeepleError

# TBB first, then OpenMP; workqueue last (it aborts when two threads launch kernels at once).
numba.config.THREADING_LAYER_PRIORITY = ["tbb", "omp", "workqueue"]

_forked_after_openmp = False


class ForkError(MeepleError, RuntimeError):
    """A kernel call in a process forked after OpenMP ran (it would be killed)."""


def layer() -> str | None:
    """The threading layer in use, or None before the first parallel kernel ran."""
    try:
        return numba.threading_layer()
    except ValueError:
        return None


def _after_fork_in_child() -> None:
    global _forked_after_openmp
    if layer() == "omp":
        _forked_after_openmp = True


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def check_fork_safe() -> None:
    if _forked_after_openmp:
        raise ForkError(
            "this process was forked after the parent ran parallel kernels on the OpenMP "
            "threading layer, which cannot run in a forked child. Install `tbb` (pip install "
            "tbb) so the kernels use TBB, or start workers with the 'spawn' or 'forkserver' "
            "multiprocessing start method."
        )
