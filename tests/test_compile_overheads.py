"""Two of Numba's per-compile costs removed (issue 11): the compile flags' hash and equality
(jit._QuickFlags) and the ``del`` of variables without a reference count (jit._DropPlainDels).
Both must leave Numba's results as they were."""

import numba
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numba.core import compiler, ir
from numba.core.registry import cpu_target
from numba.core.runtime import _nrt_python, rtsys

from meeple_gym.core import jit

needs_compiler = pytest.mark.skipif(numba.config.DISABLE_JIT, reason="needs the compiler")

BOOLEAN_OPTIONS = sorted(
    name for name, option in compiler.Flags.options.items() if option.type is bool
)

# Each option left unset, set to its default, or set to the other value.
settings = st.dictionaries(st.sampled_from(BOOLEAN_OPTIONS), st.sampled_from(["default", "other"]))


def _flags(cls, setting):
    flags = cls()
    for name, how in setting.items():
        default = compiler.Flags.options[name].default
        setattr(flags, name, default if how == "default" else not default)
    return flags


@given(settings, settings)
def test_quick_flags_hash_and_compare_as_numbas_flags_do(first, second):
    plain = _flags(compiler.Flags, first), _flags(compiler.Flags, second)
    quick = _flags(jit._QuickFlags, first), _flags(jit._QuickFlags, second)
    expected = plain[0] == plain[1]
    assert (quick[0] == quick[1]) is expected
    assert (quick[0] == plain[1]) is expected
    assert (plain[0] == quick[1]) is expected
    assert hash(quick[0]) == hash(plain[0]) == hash(plain[1])
    assert quick[0] == jit._QuickFlags(quick[0])  # Numba's copy keeps the class


@needs_compiler
def test_kernels_compile_with_quick_flags():
    from meeple_gym.century import rules

    assert type(rules.apply_action._compiler) is jit._QuickFlagsCompiler
    flags = rules.apply_action._compiler._customize_flags(compiler.Flags())
    assert type(flags) is jit._QuickFlags and type(flags.copy()) is jit._QuickFlags


def deletes_in_loops(n):
    total = 0
    best = -1
    for i in range(n):
        row = np.arange(i + 1)  # an array: its `del` frees it
        if i % 3 == 0:
            best = i  # assigned on some iterations only, read after the loop
        for j in range(row.shape[0]):
            total += row[j] * (j + 1)
    scratch = np.zeros(4)
    scratch[1] = total
    return total + best + int(scratch.sum())


@needs_compiler
def test_plain_dels_are_dropped_and_arrays_still_freed(monkeypatch):
    kept_types = []
    dropped = []
    original = jit._DropPlainDels.run_pass

    def recording(self, state):
        before = [
            s.value for b in state.func_ir.blocks.values() for s in b.body if isinstance(s, ir.Del)
        ]
        changed = original(self, state)
        after = [
            s.value for b in state.func_ir.blocks.values() for s in b.body if isinstance(s, ir.Del)
        ]
        kept_types.extend(state.typemap[name] for name in after)
        dropped.append(len(before) - len(after))
        return changed

    monkeypatch.setattr(jit._DropPlainDels, "run_pass", recording)
    kernel = jit._compile(deletes_in_loops, cacheable=False)
    kernel(1)  # compile first
    was_enabled = _nrt_python.memsys_stats_enabled()
    _nrt_python.memsys_enable_stats()
    try:
        stats_before = rtsys.get_allocation_stats()
        for n in (0, 1, 5, 40):
            assert kernel(n) == deletes_in_loops(n)
        stats_after = rtsys.get_allocation_stats()
    finally:
        if not was_enabled:
            _nrt_python.memsys_disable_stats()
    allocated = stats_after.alloc - stats_before.alloc
    freed = stats_after.free - stats_before.free
    assert allocated > 0 and allocated == freed  # every array freed once: its `del` was kept
    assert dropped and dropped[0] > 0
    models = cpu_target.target_context.data_model_manager
    assert all(models[t].contains_nrt_meminfo() for t in kept_types)  # only what holds memory
    assert any(isinstance(t, numba.types.Array) for t in kept_types)
