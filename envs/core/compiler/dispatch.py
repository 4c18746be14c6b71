"""Technique ``dispatcher``: one specialisation per kernel, compiled at LLVM ``-O2``.

Numba compiles a separate copy of a called kernel for every literal argument value and every
integer width its call sites pass (a player read from an int8 field, a constant, a prange
index typed uint64). Radlands compiled 339 function copies for 143 functions. Kernels here are
compiled for widened argument types instead (``KernelDispatcher``), which halved that count and
cut Radlands' cold compile CPU time by about 40% (benchmarks/README.md, Compile time);
tests/test_compile.py checks that every kernel has one signature.

A kernel called both with and without one of its default arguments would be compiled twice
(``omitted(default=True)`` is a type of its own); the dispatcher types left-out defaults as
values, so both calls share one copy (tests/test_compile.py).

Every compile goes through ``KernelDispatcher.compile``, which also holds the other
techniques' compile-time hooks: the LLVM optimisation level (``-O2``, Numba's default is
``-O3``, unless ``NUMBA_OPT`` is set; figures: benchmarks/README.md, Compile time), the compile
session (session.py) and the filling of standalone kernels' cells (standalone.py).

Relies on (``check``): ``CPUDispatcher.compile``/``get_call_template`` and a dispatcher's
``_cache_hits``, ``overloads`` and ``py_func``; ``numba.config.OPT``. Fallback: Numba's own
dispatcher (a copy per call-site type, ``-O3``).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os

import numba
from numba.core import types
from numba.core.compiler_lock import global_compiler_lock
from numba.core.registry import CPUDispatcher

from meeple_gym.core import compiler as fence


def _probe(x):
    return x


def check() -> str | None:
    probe = numba.njit(cache=False)(_probe)  # not compiled: only its attributes are read
    absent = fence.missing(
        [
            (CPUDispatcher, ("compile", "get_call_template")),
            (probe, ("_cache_hits", "overloads", "py_func")),
            (numba.config, ("OPT",)),
        ]
    )
    if absent:
        return absent
    return None if isinstance(probe._cache_hits, dict) else "_cache_hits is not a dict"


@contextlib.contextmanager
def kernel_opt_level():
    # Numba reads config.OPT when it builds each pass pipeline; the global compiler lock is
    # held, so no other function compiles meanwhile.
    previous = numba.config.OPT
    if "NUMBA_OPT" not in os.environ:
        numba.config.OPT = type(previous)(int(fence.KERNEL_OPT_LEVEL))
    try:
        yield
    finally:
        numba.config.OPT = previous


def widen(arg_type):
    """The type a kernel is compiled for when another kernel passes ``arg_type``: literal and
    narrow integers become int64, literal booleans plain booleans. uint64 stays (RNG words)."""
    if isinstance(arg_type, (types.IntegerLiteral, types.BooleanLiteral)):
        arg_type = types.unliteral(arg_type)
    if isinstance(arg_type, types.Integer) and arg_type.bitwidth < 64:
        return types.int64
    return arg_type


# Kernel arguments with these names are indices (``g`` a game in ``states``, ``slot`` a row of
# RNG words, a record's index): int64 whether they come from Python or from a prange loop (typed
# uint64 there).
INDEX_ARGUMENTS = ("g", "slot", "index", "dst_index", "src_index")


def _session():
    return fence.session.compile_session() if fence.active("session") else contextlib.nullcontext()


class KernelDispatcher(CPUDispatcher):
    """Compiles one specialisation where Numba would compile one per literal value and per
    integer width at the call sites (a player read from an int8 field, a constant, an int64
    sum, a prange index): each copy of a large kernel costs seconds of compile time and runs
    no faster. The caller's arguments are cast to the widened signature."""

    def compile(self, sig):
        # A standalone kernel's cell is filled when its stub compiles; a kernel loaded from the
        # cache was not typed, so the cells its machine code reads are filled here.
        with global_compiler_lock, kernel_opt_level(), _session():
            hits = sum(self._cache_hits.values())
            result = super().compile(sig)
            entry = getattr(self, "_meeple_standalone", None)
            if entry is not None:
                entry.build()
            if sum(self._cache_hits.values()) > hits and fence.active("standalone"):
                for overload in self.overloads.values():
                    fence.standalone.fill_cells(
                        overload.library, getattr(self, "_meeple_group", None)
                    )
        return result

    def get_call_template(self, args, kws):
        folded = fold_defaults(self.py_func, args, kws)
        if folded is None:  # not a call this kernel takes: let Numba report it
            return super().get_call_template(args, kws)
        args = folded
        code = self.py_func.__code__
        index_positions = {
            k
            for k, name in enumerate(code.co_varnames[: code.co_argcount])
            if name in INDEX_ARGUMENTS
        }
        args = tuple(
            types.int64 if k in index_positions and isinstance(a, types.Integer) else widen(a)
            for k, a in enumerate(args)
        )
        return super().get_call_template(args, {})


@functools.cache
def _parameters(py_func):
    return tuple(inspect.signature(py_func).parameters.values())


def fold_defaults(py_func, args, kws):
    """The argument types of a call in parameter order, keywords placed and left-out defaults
    typed as values: Numba would compile one copy for a call that leaves ``write=True`` out and
    another for a call that passes it. None if the call does not fit the parameters."""
    parameters = _parameters(py_func)
    if len(args) > len(parameters) or any(p.kind != p.POSITIONAL_OR_KEYWORD for p in parameters):
        return None
    folded = list(args)
    for parameter in parameters[len(args) :]:
        if parameter.name in kws:
            folded.append(kws[parameter.name])
        elif parameter.default is not parameter.empty:
            folded.append(numba.typeof(parameter.default))
        else:
            return None
    if set(kws) - {p.name for p in parameters[len(args) :]}:
        return None
    return tuple(folded)
