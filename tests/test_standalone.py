"""Standalone kernels (benchmarks/README.md, Compile time): compiled once, reached by callers
through a pointer cell, so a caller's machine code does not embed them; results, caching and errors
stay as before."""

import json
import os
import subprocess
import sys

import numba
import numpy as np
import pytest
from numba.core import types
from numba.core.errors import TypingError

from meeple_gym.core import compiler, jit
from meeple_gym.core.compiler import dispatch

pytestmark = pytest.mark.skipif(
    numba.config.DISABLE_JIT or not compiler.active("standalone"),
    reason="needs the compiler with standalone kernels active",
)

ROW = np.dtype([("total", np.int64), ("items", np.int16, (3,))])


@jit.standalone_kernel(jit.array_arg(ROW), types.int64, types.int64, returns=types.int64)
def _add_to_row(rows, g, amount):
    if amount < 0:
        raise ValueError("negative amount")
    row = rows[g]
    for k in range(3):
        row.items[k] += amount
    row.total += 3 * amount
    return row.total


@jit.standalone_kernel(jit.record_arg(ROW), returns=types.int64)
def _row_items(row):
    return row.items[0] + row.items[1] + row.items[2]


@jit.standalone_kernel(jit.record_arg(ROW))
def _declared_none_returns_an_int(row):
    return row.total


def _uncached_kernel(fn):
    # A caller compiled in this process, so its LLVM IR can be inspected.
    dispatcher = numba.njit(**{**jit.JIT_OPTIONS, "cache": False})(fn)
    dispatcher.__class__ = dispatch.KernelDispatcher
    dispatcher._meeple_group = "core"
    return dispatcher


@_uncached_kernel
def _caller(rows, amount):
    total = 0
    for g in range(rows.shape[0]):
        total += _add_to_row(rows, g, amount)  # g from range: an int64 of another origin
    return total + _row_items(rows[0])


@_uncached_kernel
def _wrong_dtype_caller(values):
    return _add_to_row(values, 0, 1)


def test_a_caller_reaches_a_standalone_kernel_without_embedding_it():
    rows = np.zeros(4, ROW)
    assert _caller(rows, np.int8(2)) == 4 * 6 + 6
    assert (rows["items"] == 2).all() and (rows["total"] == 6).all()
    # From Python too, and the stubs keep the original name and parameters.
    assert _add_to_row(rows, 1, 1) == 9
    assert _add_to_row.__name__ == "_add_to_row"
    entry = _add_to_row._meeple_standalone
    impl_name = entry.impl.overloads[entry.signature].fndesc.mangled_name
    caller_ir = _caller.inspect_llvm(_caller.signatures[0])
    assert entry.symbol in caller_ir
    assert f"define i32 @{impl_name}" not in caller_ir and f'@"{impl_name}"(' not in caller_ir
    assert len(_add_to_row.signatures) == 1 and len(entry.impl.signatures) == 1


def test_an_exception_raised_in_a_standalone_kernel_reaches_python():
    rows = np.zeros(2, ROW)
    with pytest.raises(ValueError, match="negative amount"):
        _caller(rows, -1)
    with pytest.raises(ValueError, match="negative amount"):
        _add_to_row(rows, 0, -1)


def test_a_standalone_kernel_refuses_arrays_of_another_dtype():
    with pytest.raises(TypingError):
        _wrong_dtype_caller(np.zeros(3, np.int64))


def test_the_declared_return_type_is_checked():
    with pytest.raises(TypeError, match="returns int64, declared none"):
        _declared_none_returns_an_int(np.zeros(1, ROW)[0])


def test_the_declared_kinds_must_match_the_parameters():
    with pytest.raises(TypeError, match="takes 2 arguments; 1 kinds given"):

        @jit.standalone_kernel(types.int64)
        def _two(a, b):
            return a + b


# Loads step_batch from the cache as the first thing it runs: the standalone kernels it calls
# (rules, encoder) were never typed in this process, so their cells are filled from the
# cached machine code's symbols (standalone.fill_cells). Unfilled, the call would crash the process.
ROLLOUT = """
import json, sys
import meeple_gym as mg
from meeple_gym.core.compiler import standalone
game = sys.argv[1]
result = mg.make_batch(game, 4, 2, seed=3).random_rollout(6)
entries = [e for group in standalone.registry.values() for e in group]
built = sorted(e.symbol.rsplit(".", 1)[-1] for e in entries if e.built)
print(json.dumps({"length": result["length"].tolist(), "built": built}))
"""


@pytest.mark.parametrize("game", ["century", "radlands"])
def test_kernels_loaded_from_the_cache_fill_the_cells_they_read(game, tmp_path):
    env = dict(os.environ, MEEPLE_GYM_CACHE_DIR=str(tmp_path))
    runs = [
        subprocess.run(
            [sys.executable, "-c", ROLLOUT, game],
            capture_output=True,
            text=True,
            env=env,
            timeout=900,
        )
        for _ in range(2)
    ]
    for run in runs:
        assert run.returncode == 0, run.stderr[-3000:]
    cold, warm = (json.loads(run.stdout.strip().splitlines()[-1]) for run in runs)
    assert cold["length"] == warm["length"]
    # The cached rollout kernel reads the interpreter's cells: built without being typed.
    assert {"apply_action", "legal_mask_into", "init_game"} <= set(warm["built"])


def test_a_misaligned_array_is_read_correctly():
    # A float32 view one byte into a buffer: Numba types it as unaligned; the standalone kernel
    # is compiled for unaligned data, so it reads the same values as from an aligned copy.
    buffer = np.zeros(4 * 8 + 1, np.uint8)
    values = buffer[1:].view(np.float32)
    values[:] = np.arange(8, dtype=np.float32)
    assert not values.flags.aligned
    assert _sum_floats(values) == _sum_floats(values.copy()) == 28.0


@jit.standalone_kernel(jit.array_arg(np.float32), returns=types.float64)
def _sum_floats(values):
    total = 0.0
    for k in range(values.shape[0]):
        total += values[k]
    return total
