"""The compiler fence: every use of Numba's private internals, one module per technique.

``meeple_gym.core.jit`` declares kernels; the techniques here make them compile faster and
change no result. Each reaches into Numba's private classes, which any Numba release may
change, so each is guarded:

========================  =================  ==============================================
technique                 module             what it does (details in the module docstring)
========================  =================  ==============================================
``cache``                 ``cache``          drops a damaged cache entry instead of failing
``dispatcher``            ``dispatch``       one specialisation per kernel, LLVM ``-O2``
``quick_flags``           ``flags``          compile flags hashed and compared quickly
``session``               ``session``        no full GC, overloads resolved once per compile
``passes``                ``passes``         record-field hoisting, no plain ``del``\\ s, no
                                             refcounts of record views or of arguments
``internal``              ``internal``       private kernels without entry wrappers,
                                             link-only code libraries
``standalone``            ``standalone``     large kernels compiled once, called through a
                                             pointer cell
``word_loads``            ``words``          eight bytes of an array read as one word, with
                                             no view
========================  =================  ==============================================

A technique is *active* when the installed Numba is in the tested range (``TESTED_NUMBA``, the
minor versions CI runs; pyproject.toml caps Numba to it), its module imports, its ``check()``
finds every private class, attribute and behaviour it relies on, and every technique it builds
on is active. Otherwise it *falls back* to what plain ``numba.njit`` does with the same
options (``JIT_OPTIONS``, ``cache=True``): a standalone kernel becomes an ordinary kernel, an
internal kernel an ordinary kernel, a kernel without the dispatcher Numba's own dispatcher,
the cache Numba's own. Compiles are slower; the games play bit for bit the same
(tests/test_compiler_fence.py). Falling back warns once per process, with one
``CompilerFallbackWarning`` naming the techniques, the reasons and the Numba version.
``MEEPLE_GYM_PLAIN_NUMBA=1`` forces the fallback of every technique.

The checks run when the first kernel is declared. The cache key of every kernel names the
active set (``cache_tag``): code compiled with a technique is never loaded without it.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
import warnings

import numba

PLAIN_NUMBA_ENV = "MEEPLE_GYM_PLAIN_NUMBA"

# The Numba minor versions CI runs, oldest and newest; outside them every technique falls back.
TESTED_NUMBA = ((0, 59), (0, 68))

# Technique -> (module, the techniques it builds on), in an order where each comes after those.
TECHNIQUES = {
    "cache": ("cache", ()),
    "dispatcher": ("dispatch", ()),
    "quick_flags": ("flags", ()),
    "session": ("session", ("dispatcher",)),
    "passes": ("passes", ()),
    "internal": ("internal", ("dispatcher", "passes", "cache")),
    "standalone": ("standalone", ("dispatcher",)),
    "word_loads": ("words", ()),
}

# LLVM optimisation level of the project's kernels, unless NUMBA_OPT sets one: Numba's default,
# 3, compiled slower here and ran no faster (benchmarks/README.md, Compile time). Applied by the
# dispatcher (dispatch.py).
KERNEL_OPT_LEVEL = os.environ.get("NUMBA_OPT", "2")


class CompilerFallbackWarning(UserWarning):
    """A compile-time technique is off for this Numba: kernels compile slower, play the same."""


class CacheWarning(UserWarning):
    """Kernels compile without an on-disk cache (no writable cache directory)."""


class CorruptCacheWarning(CacheWarning):
    """An entry of the kernel cache failed to load; it was deleted and compiles afresh."""


def missing(needed) -> str | None:
    """For the checks: None if every (object, attribute names) pair has its attributes, else
    which are missing."""
    absent = [
        f"{getattr(obj, '__name__', type(obj).__name__)}.{name}"
        for obj, names in needed
        for name in names
        if not hasattr(obj, name)
    ]
    return "no " + ", ".join(absent) if absent else None


def numba_version(version: str | None = None) -> tuple[int, int]:
    """(major, minor) of ``version`` (default: the installed Numba's)."""
    match = re.match(r"(\d+)\.(\d+)", version or numba.__version__)
    return (int(match[1]), int(match[2])) if match else (0, 0)


def _tested_range() -> str:
    (a, b), (c, d) = TESTED_NUMBA
    return f"{a}.{b}-{c}.{d}"


def resolve(environ=None) -> dict[str, str | None]:
    """Check every technique now: technique -> None (active) or why it falls back. Warns once
    (``CompilerFallbackWarning``) if any falls back. ``active`` keeps the first answer."""
    environ = os.environ if environ is None else environ
    if environ.get(PLAIN_NUMBA_ENV, "") not in ("", "0"):
        reasons = dict.fromkeys(TECHNIQUES, f"{PLAIN_NUMBA_ENV} is set")
    elif not TESTED_NUMBA[0] <= numba_version() <= TESTED_NUMBA[1]:
        reasons = dict.fromkeys(TECHNIQUES, f"outside the tested range {_tested_range()}")
    else:
        reasons = {}
        for name, (module_name, needs) in TECHNIQUES.items():
            off = [need for need in needs if reasons[need]]
            if off:
                reasons[name] = f"needs {', '.join(off)}"
                continue
            try:
                reasons[name] = importlib.import_module(f"{__name__}.{module_name}").check()
            except Exception as exc:  # an import or a probe that this Numba breaks
                reasons[name] = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
    by_reason: dict[str, list[str]] = {}
    for name, why in reasons.items():
        if why:
            by_reason.setdefault(why, []).append(name)
    if by_reason:
        listed = "; ".join(f"{', '.join(names)} ({why})" for why, names in by_reason.items())
        warnings.warn(
            f"meeple-gym: with Numba {numba.__version__} these compile-time techniques fall "
            f"back to plain numba.njit: {listed}. Kernels compile slower and play the same.",
            CompilerFallbackWarning,
            stacklevel=caller_level(),
        )
    return reasons


def caller_level() -> int:
    """The ``stacklevel`` of the first frame outside Numba and meeple_gym.core, seen from the
    caller: a warning points at the code that needed the kernel, not at Numba or at us."""
    inside = (os.path.dirname(numba.__file__), os.path.dirname(os.path.dirname(__file__)))
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(inside):
        frame, level = frame.f_back, level + 1
    return level


_reasons: dict[str, str | None] | None = None


def reasons() -> dict[str, str | None]:
    """Technique -> None (active) or why it falls back, checked once per process."""
    global _reasons
    if _reasons is None:
        _reasons = resolve()
    return _reasons


def active(technique: str) -> bool:
    return reasons()[technique] is None


def status() -> dict[str, str]:
    """Technique -> ``"active"`` or ``"fallback"``."""
    return {name: "fallback" if why else "active" for name, why in reasons().items()}


def cache_tag() -> str:
    """Names the active set in the cache key: ``fast``, ``plain`` or the techniques off."""
    off = [name for name, why in reasons().items() if why]
    if not off:
        return "fast"
    if len(off) == len(TECHNIQUES):
        return "plain"
    return "without-" + "+".join(off)
