"""One lock per env object, so that a batch or env shared by several threads stays sound.

Every kernel releases the GIL (``nogil=True``, envs/core/jit.py). Without a lock, two threads
calling ``step`` on one batch run one thread's action check while the other's kernel rewrites
the mask, and two kernels over the same records at once: corrupt records, or a crash. So each
``BatchEnv`` and each AEC env owns a re-entrant lock, and every public method that reads or
changes its buffers runs under it: ``@locked``, or, in the per-step methods (``step``, the AEC
env's ``last`` and ``observe``), the same lock taken in the method around a call of its body,
which costs less than half as much. The envs built on one (the vector env, the single-agent
env, the parallel env) use the lock of the object they wrap and hold it over their whole call,
which composes several kernel calls. Calls from two threads on the same object therefore run
one after the other, in some order; objects have their own locks, so threads on different
batches still run in parallel. The cost per call is measured in benchmarks/README.md, "Thread
safety: the cost of the lock".

Not covered: the read-only views handed out (``batch.legal_mask``, ``batch.states``, ...) are
the live buffers, so a step in another thread changes them while they are read. To read them
and step as one unit, hold the lock yourself: ``with batch.lock: ...`` (it is re-entrant).
"""

from __future__ import annotations

import functools
import threading


def new_lock() -> threading.RLock:
    """The lock of one env object (re-entrant: a locked method may call another)."""
    return threading.RLock()


def locked(method):
    """``method`` run while holding ``self._lock``."""

    @functools.wraps(method)
    def call(self, *args, **kwargs):
        with self._lock:
            return method(self, *args, **kwargs)

    return call
