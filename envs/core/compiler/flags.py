"""Technique ``quick_flags``: compile flags hashed and compared quickly.

Type inference looks up each overload in a cache keyed by the compile flags, whose hash and
comparison build a dict of all Numba's options every time (286,000 times in one Everdell
compile, 7% of its profile). Kernels compile with ``QuickFlags``, which give the same hash and
the same answers without that (tests/test_compile_overheads.py; benchmarks/README.md, Compile time).

Relies on (``check``): ``Flags.options`` and ``_values``, ``TargetConfig.__eq__``,
``_FunctionCompiler._customize_flags`` as a dispatcher's compiler; and checks that a
``QuickFlags`` hashes and compares as Numba's flags do. Fallback: Numba's flags.
"""

from __future__ import annotations

import numba
from numba.core import compiler as numba_compiler
from numba.core import dispatcher as numba_dispatcher
from numba.core import targetconfig

from meeple_gym.core import compiler as fence


class QuickFlags(numba_compiler.Flags):
    """Numba's compile flags, hashed and compared quickly. Numba's ``TargetConfig`` builds a
    dict of all ~40 options for every hash and every comparison. The results are Numba's: its
    hash is that of the sorted option *names* (one value per class), and two configs are equal
    when every option reads the same, set or left at its default."""

    __slots__ = ()

    def __hash__(self):
        return FLAGS_HASH

    def __eq__(self, other):
        if type(other) not in _FLAG_TYPES:  # a subclass may add options
            return targetconfig.TargetConfig.__eq__(self, other)
        mine, theirs = self._values, other._values
        if mine == theirs:
            return True
        options = self.options
        return all(
            mine.get(name, options[name].default) == theirs.get(name, options[name].default)
            for name in mine.keys() | theirs.keys()
        )


_FLAG_TYPES = (numba_compiler.Flags, QuickFlags)
FLAGS_HASH = hash(tuple(sorted(numba_compiler.Flags.options)))


class QuickFlagsCompiler(numba_dispatcher._FunctionCompiler):
    def _customize_flags(self, flags):
        return QuickFlags(super()._customize_flags(flags))


def install(dispatcher) -> None:
    """Give ``dispatcher`` the quick flags (only Numba's plain function compiler: a subclass
    may add options)."""
    if type(dispatcher._compiler) is numba_dispatcher._FunctionCompiler:
        dispatcher._compiler.__class__ = QuickFlagsCompiler


def _probe(x):
    return x


def check() -> str | None:
    absent = fence.missing(
        [
            (numba_compiler.Flags(), ("options", "_values")),
            (targetconfig.TargetConfig, ("__eq__",)),
            (numba_dispatcher._FunctionCompiler, ("_customize_flags",)),
            (numba.njit(cache=False)(_probe), ("_compiler",)),
        ]
    )
    if absent:
        return absent
    if "no_cpython_wrapper" not in numba_compiler.Flags.options:
        return "no Flags option no_cpython_wrapper"
    plain, quick, other = numba_compiler.Flags(), QuickFlags(), numba_compiler.Flags()
    other.no_cpython_wrapper = not numba_compiler.Flags.options["no_cpython_wrapper"].default
    if hash(plain) != hash(quick) or not (quick == plain) or quick == other:
        return "QuickFlags hash or compare unlike Numba's flags"
    return None
