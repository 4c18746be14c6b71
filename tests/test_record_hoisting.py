"""compiler.passes.HoistRecordArrays: a record's nested-array field is read once,
where the record is defined, instead of at every use. Kernels must compute what plain Python
computes."""

import numba
import numpy as np
import pytest
from numba.core import ir, types

from meeple_gym.core import compiler, jit
from meeple_gym.core.compiler import passes

pytestmark = pytest.mark.skipif(
    numba.config.DISABLE_JIT or not compiler.active("passes"),
    reason="needs the compiler with its passes active",
)

STATE = np.dtype([("a", np.int8, (4, 8)), ("b", np.int16, (4,)), ("c", np.int8)])


def _states(n=3):
    states = np.zeros(n, STATE)
    states["a"] = (np.arange(n * 32).reshape(n, 4, 8) % 7).astype(np.int8)
    states["b"] = np.arange(n * 4).reshape(n, 4)
    states["c"] = np.arange(n) % 8
    return states


def writes_through_one_read_and_reads_through_another(states, g):
    s = states[g]
    total = 0
    for k in range(4):
        s.b[k] += s.a[k, s.c]
        total += s.b[k] * 2 + s.a[k, 0]
    if total > 10:
        s.a[1, 1] = s.b[0]
        total += s.a[1, 1]
    return total


def record_defined_in_a_loop(states, g):
    total = 0
    for h in range(states.shape[0]):
        s = states[h]
        s.b[0] = s.b[0] + s.a[0, 0] + g
        s.b[1] = s.b[0] * 2
        total += s.b[1]
    return total


def record_chosen_on_two_paths(states, g):
    if g > 0:
        s = states[g - 1]
    else:
        s = states[g + 1]
    s.b[2] = s.a[2, 2] + 1  # `s` has two definitions: left as it is
    return s.b[2] + s.a[2, 3]


CASES = [
    writes_through_one_read_and_reads_through_another,
    record_defined_in_a_loop,
    record_chosen_on_two_paths,
]


def _nested_array_reads(blocks, typemap):
    return sum(
        1
        for block in blocks.values()
        for stmt in block.body
        if isinstance(stmt, ir.Assign)
        and isinstance(stmt.value, ir.Expr)
        and stmt.value.op == "getattr"
        and isinstance(typemap.get(stmt.target.name), types.NestedArray)
    )


@pytest.mark.parametrize("function", CASES, ids=lambda f: f.__name__)
def test_hoisted_kernels_compute_what_python_computes(function, monkeypatch):
    counts = []
    original = passes.hoist_record_arrays

    def counting(blocks, typemap):
        before = _nested_array_reads(blocks, typemap)
        changed = original(blocks, typemap)
        counts.append((before, _nested_array_reads(blocks, typemap), changed))
        return changed

    monkeypatch.setattr(passes, "hoist_record_arrays", counting)
    kernel = jit._compile(function, cacheable=False)  # serial kernels take _KernelPipeline
    for g in range(3):
        compiled, plain = _states(), _states()
        assert kernel(compiled, g) == function(plain.view(np.recarray), g)
        assert compiled.tobytes() == plain.tobytes()
    [(before, after, changed)] = counts
    if function is record_chosen_on_two_paths:
        assert after == before and not changed
    else:
        assert changed and after < before
        assert after == len({"a", "b"})  # one read per field
