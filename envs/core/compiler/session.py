"""Technique ``session``: no full garbage collection and memoised overload resolution while
kernels compile.

Two costs sit outside the compiler's passes; ``compile_session`` removes both for the
duration of the outermost kernel compile (``dispatch.KernelDispatcher.compile``). CPython's
full garbage collections walk every object in the process, and Numba's compiler makes millions
of objects: 20 full collections took 3.3 s of a 32 s Everdell compile; young generations are
still collected. And Numba resolves the overload of an operator or a NumPy function again at
every call site, once while typing and once more while lowering, trying each candidate
template: 16,000 resolutions for 1,000 distinct calls in Everdell, 4.5 s; each distinct call
is now resolved once. The machine code is the same (its LLVM IR differs only in the counters
and addresses Numba puts in names). Both: Everdell -20%, Radlands -22% (benchmarks/README.md,
Compile time; tests/test_compile_overheads.py).

Relies on (``check``): ``types.BaseFunction.get_call_type`` defined on that class, with the
signature (self, context, args, kws). Fallback: Numba's collections and resolutions.
"""

from __future__ import annotations

import contextlib
import gc
import inspect

from numba.core import types


def check() -> str | None:
    resolver = types.BaseFunction.__dict__.get("get_call_type")
    if resolver is None:
        return "BaseFunction defines no get_call_type"
    params = list(inspect.signature(resolver).parameters)
    return None if params == ["self", "context", "args", "kws"] else f"get_call_type{params}"


# The oldest generation's threshold while kernels compile: never reached.
NO_FULL_COLLECTION = 10**9
_depth = 0

# Numba's overload resolution for a function type (an operator, a NumPy function, an
# ``@overload``), and what it returned for each (function type, typing context, argument
# types, keyword types) while kernels compiled. Keys hold their function type, so the type
# stays interned and keeps the implementation keys its resolution recorded.
numba_get_call_type = types.BaseFunction.get_call_type
call_types: dict = {}


def memoised_get_call_type(self, context, args, kws):
    """``BaseFunction.get_call_type`` resolved once per distinct call. The answer depends
    only on the key; failures are not kept (type inference retries a call once more argument
    types are known)."""
    try:
        key = (self, context, tuple(args), tuple(sorted(kws.items())) if kws else ())
        signature = call_types.get(key)
    except TypeError:  # an argument type that cannot be hashed: ask Numba every time
        return numba_get_call_type(self, context, args, kws)
    if signature is None:
        signature = numba_get_call_type(self, context, args, kws)
        call_types[key] = signature
    return signature


@contextlib.contextmanager
def compile_session():
    """No full garbage collection (young cycles are still collected at the thresholds set
    before) and memoised overload resolution, set up by the outermost kernel compile (a kernel
    typed while its caller compiles is nested) and undone when it ends. The compiler lock is
    held throughout, so no other function compiles meanwhile."""
    global _depth
    outermost = _depth == 0
    if outermost:
        thresholds = gc.get_threshold()
        if thresholds[0] > 0:  # 0: automatic collection is off already
            gc.set_threshold(thresholds[0], thresholds[1], NO_FULL_COLLECTION)
        resolver = types.BaseFunction.__dict__["get_call_type"]
        types.BaseFunction.get_call_type = memoised_get_call_type
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if outermost:
            types.BaseFunction.get_call_type = resolver
            gc.set_threshold(*thresholds)
