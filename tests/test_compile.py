"""Compile-time habits (issue 11): every kernel is compiled once, for widened argument types,
however many literal values and integer widths its call sites pass."""

import json
import os
import subprocess
import sys

import numba
import numpy as np
import pytest
from numba.core import types

from meeple_gym.core import jit

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
             "meeple_gym.core.sampling"):
    module = importlib.import_module(name)
    for attr, obj in vars(module).items():
        func = getattr(obj, "py_func", None)
        if func is None or func.__module__ != name:
            continue
        total += 1
        # Copies for different array types (a read-only mask, a record's nested array) are
        # expected; copies that differ only in scalar types are what the widening prevents.
        scalars = {tuple(str(a) if isinstance(a, (types.Integer, types.Boolean, types.Float))
                         else "*" for a in sig) for sig in obj.signatures}
        if len(scalars) > 1:
            found[f"{name}.{attr}"] = [str(s) for s in obj.signatures]
print(json.dumps({"kernels": total, "duplicates": found}))
"""


def test_widening_rules():
    assert jit._widen(types.IntegerLiteral(8)) == types.int64
    assert jit._widen(types.int8) == types.int64
    assert jit._widen(types.uint16) == types.int64
    assert jit._widen(types.BooleanLiteral(True)) == types.boolean
    # uint64 keeps its unsigned arithmetic (RNG words); arrays and records are untouched.
    assert jit._widen(types.uint64) == types.uint64
    assert jit._widen(types.int8[:]) == types.int8[:]


def _uncached_kernel(fn):
    # Like jit.kernel but never cached, so the callee is compiled in this process.
    dispatcher = numba.njit(**{**jit.JIT_OPTIONS, "cache": False})(fn)
    dispatcher.__class__ = jit._KernelDispatcher
    return dispatcher


@_uncached_kernel
def _plus_one(x):
    return x + 1


@_uncached_kernel
def _calls_with_mixed_types(narrow, g):
    return _plus_one(3) + _plus_one(narrow) + _plus_one(np.int64(5)) + _plus_one(g)


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="plain functions without the compiler")
def test_kernels_use_the_widening_dispatcher():
    from meeple_gym.century import rules

    assert isinstance(rules.apply_action, jit._KernelDispatcher)


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="needs the compiler")
def test_a_kernel_called_with_literals_and_narrow_ints_compiles_once():
    assert _calls_with_mixed_types(np.int8(2), np.int16(1)) == 15
    assert len(_plus_one.signatures) == 1
    assert _plus_one.signatures[0] == (types.int64,)


@pytest.mark.skipif(numba.config.DISABLE_JIT, reason="needs the compiler")
def test_every_century_kernel_has_one_specialisation(tmp_path):
    env = dict(os.environ, MEEPLE_GYM_CACHE_DIR=str(tmp_path))
    result = subprocess.run(
        [sys.executable, "-c", PROBE, "century"],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["kernels"] > 20
    assert report["duplicates"] == {}
