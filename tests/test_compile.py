"""Compile-time habits (benchmarks/README.md, Compile time): every kernel is compiled once, for
widened argument types, however many literal values and integer widths its call sites pass."""

import os

import numba
import numpy as np
import pytest
from numba.core import types
from support import run_json

from meeple_gym.core import compiler, jit
from meeple_gym.core.compiler import dispatch

# In a fresh process with an empty cache, compile everything a game's commands use and report
# every kernel that holds more than one specialisation.
PROBE = """
import importlib, json, sys
from numba.core import types
from meeple_gym.core.warmup import warm_part
game = sys.argv[1]
for part in ("single", "batch", "rollout"):
    warm_part((game, part))
found, total = {}, 0
for name in (f"meeple_gym.{game}.rules", f"meeple_gym.encoders.{game}",
             f"meeple_gym.baselines.{game}_heuristic", "meeple_gym.core.rng",
             "meeple_gym.core.sampling", "meeple_gym.core.records"):
    module = importlib.import_module(name)
    for attr, obj in vars(module).items():
        func = getattr(obj, "py_func", None)
        if func is None or func.__module__ != name:
            continue
        standalone = getattr(obj, "_meeple_standalone", None)
        for label, dispatcher in ((attr, obj), (attr + " (body)", standalone and standalone.impl)):
            if dispatcher is None:
                continue
            total += 1
            # Copies for different array types (a read-only mask, a record's nested array) are
            # expected; copies that differ in scalar types or in a default left out or passed
            # are what the dispatcher prevents.
            scalars = {tuple(str(a) if isinstance(a, (types.Integer, types.Boolean, types.Float,
                                                      types.Omitted)) else "*" for a in sig)
                       for sig in dispatcher.signatures}
            if len(scalars) > 1:
                found[f"{name}.{label}"] = [str(s) for s in dispatcher.signatures]
print(json.dumps({"kernels": total, "duplicates": found}))
"""


def test_widening_rules():
    assert dispatch.widen(types.IntegerLiteral(8)) == types.int64
    assert dispatch.widen(types.int8) == types.int64
    assert dispatch.widen(types.uint16) == types.int64
    assert dispatch.widen(types.BooleanLiteral(True)) == types.boolean
    # uint64 keeps its unsigned arithmetic (RNG words); arrays and records are untouched.
    assert dispatch.widen(types.uint64) == types.uint64
    assert dispatch.widen(types.int8[:]) == types.int8[:]


def _uncached_kernel(fn):
    # Like jit.kernel but never cached, so the callee is compiled in this process.
    dispatcher = numba.njit(**{**jit.JIT_OPTIONS, "cache": False})(fn)
    dispatcher.__class__ = dispatch.KernelDispatcher
    return dispatcher


@_uncached_kernel
def _plus_one(x):
    return x + 1


@_uncached_kernel
def _calls_with_mixed_types(narrow, g):
    return _plus_one(3) + _plus_one(narrow) + _plus_one(np.int64(5)) + _plus_one(g)


@_uncached_kernel
def _scaled(x, factor=2, offset=0):
    return x * factor + offset


@_uncached_kernel
def _calls_with_and_without_defaults(x):
    return _scaled(x) + _scaled(x, 2) + _scaled(x, factor=3) + _scaled(x, 2, offset=1)


@_uncached_kernel
def _take(values, index):
    return values[index]


def _sum_taken(values):
    total = 0
    for i in numba.prange(values.shape[0]):  # a prange index is typed uint64
        total += _take(values, i)
    return total + _take(values, np.int8(0))


if not numba.config.DISABLE_JIT:
    _sum_taken = numba.njit(**{**jit.JIT_OPTIONS, "cache": False}, parallel=True)(_sum_taken)


@pytest.mark.smoke
@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="plain functions without the compiler")
def test_kernels_use_the_widening_dispatcher():
    from meeple_gym.century import rules

    if compiler.active("dispatcher"):
        assert isinstance(rules.apply_action, dispatch.KernelDispatcher)
    else:  # the fence's fallback: Numba's own dispatcher
        assert type(rules.apply_action) is numba.core.registry.CPUDispatcher


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="needs the compiler")
def test_a_kernel_called_with_literals_and_narrow_ints_compiles_once():
    assert _calls_with_mixed_types(np.int8(2), np.int16(1)) == 15
    assert len(_plus_one.signatures) == 1
    assert _plus_one.signatures[0] == (types.int64,)


@pytest.mark.skipif(
    numba.config.DISABLE_JIT or not compiler.active("dispatcher"), reason="needs the dispatcher"
)
def test_every_century_kernel_has_one_specialisation(tmp_path):
    env = dict(os.environ, MEEPLE_GYM_CACHE_DIR=str(tmp_path))
    report, _ = run_json(["-c", PROBE, "century"], env)
    assert report["kernels"] > 20
    assert report["duplicates"] == {}


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="needs the compiler")
def test_a_kernel_called_with_and_without_its_defaults_compiles_once():
    # Radlands compiled _fill_borrow, _fill_columns and _fill_events twice each: once for
    # calls that left ``write=True`` out, once for calls that passed it.
    assert _calls_with_and_without_defaults(1) == 2 + 2 + 3 + 3
    assert _scaled.signatures == [(types.int64, types.int64, types.int64)]


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="needs the compiler")
def test_an_index_argument_is_int64_from_a_prange_loop_too():
    # copy_record(final_states, i, ...) in the batch steps compiled a uint64 copy of itself.
    assert "index" in dispatch.INDEX_ARGUMENTS
    assert _sum_taken(np.arange(5, dtype=np.int64)) == 10
    assert _take.signatures == [(types.Array(types.int64, 1, "C"), types.int64)]


@pytest.mark.parametrize("game", ["century", "radlands", "everdell", "endeavor"])
def test_every_game_batch_kernel_is_the_shared_template(game):
    # One copy of the batch loops (meeple_gym.core.stepping), bound to each game's kernels and
    # cached in that game's group, so an edit to a game's rules recompiles them.
    import importlib

    from meeple_gym.core import stepping

    rules = importlib.import_module(f"meeple_gym.{game}.rules")
    for name in ("reset_batch", "legal_masks_batch", "step_batch"):
        compiled = getattr(rules, name)
        function = getattr(compiled, "py_func", compiled)
        assert function.__code__ is getattr(stepping, name).__code__
        assert function.__globals__["apply_action"] is rules.apply_action
        if not numba.config.DISABLE_JIT:
            assert compiled._meeple_group == game
