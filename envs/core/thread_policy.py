"""How many threads each parallel kernel call gets: serial for small batches, and no more
threads than there are free cores.

A parallel kernel ends at a barrier that waits for its slowest thread. When another process
holds the other core, the second thread runs only when the scheduler gives it a time slice, so
a call that takes microseconds serially can wait milliseconds (OpenMP's spinning wait made it
up to a thousand times slower: benchmarks/README.md, "Threads under load"). So every call
through ``BatchEnv`` (reset, step, masks, observations), the vector env and ``random_rollout``
asks ``threads_for(rows)``:

- below ``parallel_min_batch()`` rows: 1 thread (waking a second one costs more than the
  rows save; measured by benchmarks/bench_threads.py);
- otherwise at most the Numba thread count (``numba.set_num_threads`` or an explicit
  ``threads=`` argument), and in ``"auto"`` mode at most the cores the machine has free:
  idle CPU time plus this process's own CPU time over the last quarter second, from
  ``/proc/stat``, rounded to whole cores (the first window starts at import). Where there is
  no ``/proc``, or for a call right after import, the 1-minute load average
  (``os.getloadavg``) less this process's own share stands in.

The thread count never changes a result (each game draws from its own RNG stream), only
the speed.

Overrides (read at import; ``set_mode`` / ``set_parallel_min_batch`` change them later):

- ``MEEPLE_GYM_THREADS``: ``auto`` (default), ``batch`` (the batch threshold only, no load
  check) or ``fixed`` (no policy: every call runs on Numba's thread count).
- ``MEEPLE_GYM_PARALLEL_MIN_BATCH``: the batch threshold (rows, >= 1).
"""

from __future__ import annotations

import ctypes
import math
import os
import time
import warnings

import numba

from meeple_gym.core.errors import OptionError

MODES = ("auto", "batch", "fixed")
MODE_ENV = "MEEPLE_GYM_THREADS"
MIN_BATCH_ENV = "MEEPLE_GYM_PARALLEL_MIN_BATCH"
# Rows below which a call runs serially. Measured by benchmarks/bench_threads.py on this
# 2-core machine (benchmarks/README.md, "Threads under load"): below 512 rows 2 threads never
# beat 1 for any game, even with nothing else running.
DEFAULT_PARALLEL_MIN_BATCH = 512
# How often the free-core estimate is refreshed (seconds); reading /proc/stat costs ~20 us.
LOAD_WINDOW = 0.25
# The shortest window the first estimate reads /proc/stat over (below it, the load average).
FIRST_WINDOW = 0.05


def _env_mode() -> str:
    mode = os.environ.get(MODE_ENV, "auto").strip().lower() or "auto"
    if mode not in MODES:
        # Import must not fail over a typo, but the user must hear that it was ignored.
        warnings.warn(f"{MODE_ENV}={mode!r} is not one of {MODES}; using 'auto'", stacklevel=2)
        return "auto"
    return mode


def _env_min_batch() -> int:
    raw = os.environ.get(MIN_BATCH_ENV, "")
    try:
        rows = int(raw) if raw.strip() else DEFAULT_PARALLEL_MIN_BATCH
    except ValueError:
        rows = 0
    if rows < 1:
        warnings.warn(
            f"{MIN_BATCH_ENV}={raw!r} is not an integer >= 1; using {DEFAULT_PARALLEL_MIN_BATCH}",
            stacklevel=2,
        )
        return DEFAULT_PARALLEL_MIN_BATCH
    return rows


_settings = {"mode": _env_mode(), "min_batch": _env_min_batch()}


def mode() -> str:
    return _settings["mode"]


def set_mode(value: str) -> None:
    """``"auto"``, ``"batch"`` or ``"fixed"`` (see the module docstring)."""
    if value not in MODES:
        raise OptionError(f"thread policy mode must be one of {MODES}, got {value!r}")
    _settings["mode"] = value


def parallel_min_batch() -> int:
    return _settings["min_batch"]


def set_parallel_min_batch(rows: int) -> None:
    if isinstance(rows, bool) or not isinstance(rows, int) or rows < 1:
        raise OptionError(f"parallel_min_batch must be an int >= 1, got {rows!r}")
    _settings["min_batch"] = rows


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _read_idle() -> float | None:
    """Idle CPU seconds of the whole machine since boot (idle + iowait), or None."""
    try:
        with open("/proc/stat", "rb") as f:
            fields = f.readline().split()
    except OSError:
        return None
    return (int(fields[4]) + int(fields[5])) / _TICKS


try:
    _TICKS = os.sysconf("SC_CLK_TCK")
except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
    _TICKS = 100


class _Load:
    """The free-core estimate, refreshed at most every ``LOAD_WINDOW`` seconds.

    The first window starts when the estimate is made (at import), so the first parallel call,
    usually a second or more later (kernels load or compile in between), already measures the
    machine as it is. The 1-minute load average is the fallback (no ``/proc``, or a call within
    ``FIRST_WINDOW`` of import): it lags, and counted a process that had just ended as busy for
    a minute, so a script started right after another ran its first calls on 1 thread."""

    def __init__(self):
        # (wall, idle, own cpu) at the start of the current window
        self.sample = (time.monotonic(), _read_idle(), time.process_time())
        self.free = None

    def free_cores(self) -> float:
        now = time.monotonic()
        sample = self.sample
        elapsed = now - sample[0]
        if self.free is not None and elapsed < LOAD_WINDOW:
            return self.free
        idle, own = _read_idle(), time.process_time()
        if idle is not None and sample[1] is not None and elapsed >= FIRST_WINDOW:
            # Cores that were idle or ran this process: what we could use.
            free = (idle - sample[1] + own - sample[2]) / elapsed
        elif self.free is None:  # the 1-minute load, less this process's share
            free = _cpus() - _loadavg() + _own_share_of_loadavg(now, own)
        else:
            free = self.free
        self.free = min(float(_cpus()), max(1.0, free))
        self.sample = (now, idle, own)
        return self.free


# When this module was imported, by the wall clock and this process's CPU clock.
_STARTED = (time.monotonic(), time.process_time())
_LOADAVG_MINUTE = 60.0  # the 1-minute load average's time constant (seconds)


def _own_share_of_loadavg(now: float, own: float) -> float:
    """How much of the 1-minute load average this process itself accounts for: its CPU rate
    since import, weighted by how far the average (an exponential one, time constant one
    minute) has caught up with it. Without it a process that kept one core busy for a minute
    before its first parallel call counted itself as another process and ran on 1 thread."""
    elapsed = now - _STARTED[0]
    if elapsed <= 0:
        return 0.0
    rate = min(float(_cpus()), max(0.0, (own - _STARTED[1]) / elapsed))
    return rate * (1.0 - math.exp(-elapsed / _LOADAVG_MINUTE))


def _loadavg() -> float:
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):  # pragma: no cover - Windows
        return 0.0


_load = _Load()


_raw: dict = {}


def _raw_calls():
    """Numba's own get/set-thread-count C functions once its pool runs, called without
    releasing the GIL (numba.get_num_threads takes a multiprocessing lock and the ctypes
    calls drop and retake the GIL: 7-25 us a call under load, as much as a one-game step).

    This reads Numba internals, so it is fenced like the compiler techniques: if they are
    missing (another Numba) or ``MEEPLE_GYM_PLAIN_NUMBA`` is set, the public
    ``numba.get_num_threads``/``set_num_threads`` are used instead (same counts, slower)."""
    if "get" not in _raw:
        if os.environ.get("MEEPLE_GYM_PLAIN_NUMBA", "") not in ("", "0"):
            return None
        try:
            from numba.np.ufunc import parallel

            if not parallel._is_initialized:
                return None
            address = ctypes.cast(parallel._get_num_threads, ctypes.c_void_p).value
            setter = ctypes.cast(parallel._set_num_threads, ctypes.c_void_p).value
        except (ImportError, AttributeError, TypeError, ctypes.ArgumentError):
            return None
        _raw["get"] = ctypes.PYFUNCTYPE(ctypes.c_int)(address)
        _raw["set"] = ctypes.PYFUNCTYPE(None, ctypes.c_int)(setter)
    return _raw


def fast_calls_active() -> bool:
    """Whether the thread count is read and set through Numba's C functions directly."""
    return _raw_calls() is not None


def get_threads() -> int:
    """``numba.get_num_threads()`` for the calling thread, cheaply."""
    raw = _raw.get("get") or (_raw_calls() or {}).get("get")
    if raw is not None:
        n = raw()
        if n > 0:
            return n
    return numba.get_num_threads()


def _set_threads(n: int) -> None:
    raw = _raw.get("set")
    if raw is not None and 1 <= n <= numba.config.NUMBA_NUM_THREADS:
        raw(n)
    else:
        numba.set_num_threads(n)


_last = [None, None, None]  # rows, threads, cap of the last decision


def free_cores() -> float:
    """Cores free for this process (>= 1): idle plus its own use over the last window."""
    return _load.free_cores()


def threads_for(rows: int, cap: int | None = None) -> int:
    """Threads for a kernel call over ``rows`` games: at most ``cap`` (default: Numba's
    current thread count for this thread)."""
    if cap is None:
        cap = get_threads()
    policy = _settings["mode"]
    if policy == "fixed" or cap <= 1:
        n = cap
    elif rows < _settings["min_batch"]:
        n = 1
    elif policy == "batch":
        n = cap
    else:
        n = max(1, min(cap, int(_load.free_cores() + 0.5)))
    _last[:] = (rows, n, cap)
    return n


class use_threads:
    """``with use_threads(rows[, cap]):`` runs the block's kernels on ``threads_for(rows,
    cap)`` threads and restores Numba's thread count after."""

    __slots__ = ("n", "previous")

    def __init__(self, rows: int, cap: int | None = None):
        self.previous = get_threads()
        self.n = threads_for(rows, self.previous if cap is None else cap)

    def __enter__(self):
        if self.n != self.previous:
            _set_threads(self.n)
        return self.n

    def __exit__(self, *exc):
        if self.n != self.previous:
            _set_threads(self.previous)


def report() -> dict:
    """The policy in force and its last choice (``meeple bench`` prints it)."""
    return {
        "mode": _settings["mode"],
        "parallel_min_batch": _settings["min_batch"],
        "cpus": _cpus(),
        "free_cores": round(_load.free_cores(), 2),
        "numba_threads": numba.config.NUMBA_NUM_THREADS,
        "omp_wait_policy": os.environ.get("OMP_WAIT_POLICY"),
        "fast_thread_calls": fast_calls_active(),
        "last_call": dict(zip(("rows", "threads", "cap"), _last, strict=True)),
        "override": f"{MODE_ENV}=auto|batch|fixed, {MIN_BATCH_ENV}=<rows>",
    }
