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

Where TBB comes from
--------------------
Numba's TBB layer (``numba/np/ufunc/tbbpool*.so``) is linked against ``libtbb.so.12`` and finds
it only on the dynamic loader's search path. The ``tbb`` wheel installs that library in
``<prefix>/lib``: on the path for the system Python and for conda, but not for a virtual
environment (``<venv>/lib``) or a ``pip install --user`` (``~/.local/lib``), where Numba would
silently fall back to OpenMP. ``preload_tbb`` therefore loads the library from wherever the
installed ``tbb`` distribution put it (its RECORD names the file), with ``RTLD_GLOBAL``, before
any parallel kernel runs; the loader then resolves Numba's reference to the copy already
loaded. ``layer_report()`` says what was chosen and why (``meeple bench`` prints it).
"""

from __future__ import annotations

import ctypes
import os
import sys

import numba

from meeple_gym.core.errors import MeepleError

# TBB first, then OpenMP; workqueue last (it aborts when two threads launch kernels at once).
numba.config.THREADING_LAYER_PRIORITY = ["tbb", "omp", "workqueue"]

# The TBB library Numba's layer links against, by platform (the wheel's file names).
_TBB_LIBRARY_NAMES = {"linux": "libtbb.so.12", "win32": "tbb12.dll", "darwin": "libtbb.12.dylib"}

# What preload_tbb did: the path it loaded, or why it loaded nothing.
_tbb_preload: dict = {"path": None, "reason": "not tried"}


def _tbb_library_paths() -> list[str]:
    """Every file of the installed ``tbb`` distribution named like the library Numba links."""
    from importlib import metadata

    wanted = _TBB_LIBRARY_NAMES.get(sys.platform)
    if wanted is None:
        return []
    try:
        dist = metadata.distribution("tbb")
    except metadata.PackageNotFoundError:
        return []
    found = []
    for record in dist.files or ():
        if record.name == wanted:
            path = os.path.realpath(str(dist.locate_file(record)))
            if os.path.isfile(path):
                found.append(path)
    return found


def preload_tbb() -> str | None:
    """Load the ``tbb`` wheel's library so Numba's TBB layer finds it in any kind of install
    (see the module docstring). Returns the path loaded, or None (nothing to load, or it did
    not load: Numba then picks the next layer, as before). Called once at import."""
    if os.environ.get("NUMBA_THREADING_LAYER", "") not in (
        "",
        "default",
        "safe",
        "forksafe",
        "threadsafe",
        "tbb",
    ):
        _tbb_preload.update(path=None, reason="NUMBA_THREADING_LAYER chooses another layer")
        return None
    paths = _tbb_library_paths()
    if not paths:
        _tbb_preload.update(path=None, reason="the tbb package is not installed")
        return None
    errors = []
    for path in paths:
        try:
            if sys.platform == "win32":  # pragma: no cover - Windows only
                os.add_dll_directory(os.path.dirname(path))
            ctypes.CDLL(path, mode=getattr(ctypes, "RTLD_GLOBAL", 0))
        except OSError as exc:
            errors.append(f"{path}: {exc}")
            continue
        _tbb_preload.update(path=path, reason="loaded from the tbb package")
        return path
    _tbb_preload.update(path=None, reason="; ".join(errors))
    return None


preload_tbb()

if _tbb_preload["path"] is None:
    # No TBB: Numba will run OpenMP, whose threads spin at each barrier by default. On a busy
    # machine a spinning thread and a descheduled one slowed a 4-game batch step 200-fold
    # (benchmarks/README.md, "Threads under load"); passive waiting yields the core instead.
    # Only effective before the OpenMP runtime starts; a value the user set is kept.
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")

_forked_after_openmp = False


class ForkError(MeepleError, RuntimeError):
    """A kernel call in a process forked after OpenMP ran (it would be killed)."""


def layer() -> str | None:
    """The threading layer in use, or None before the first parallel kernel ran."""
    try:
        return numba.threading_layer()
    except ValueError:
        return None


def layer_report() -> dict:
    """The threading layer in use (None before the first parallel kernel), whether it is
    fork-safe, and where TBB was loaded from or why not."""
    name = layer()
    return {
        "layer": name,
        "fork_safe": None if name is None else name == "tbb",
        "tbb_library": _tbb_preload["path"],
        "tbb_note": _tbb_preload["reason"],
    }


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
