"""Numba's per-compile costs removed (benchmarks/README.md, Compile time): the compile flags' hash
and equality (compiler.flags.QuickFlags), the ``del`` of variables without a reference count
(compiler.passes.DropPlainDels), the reference counting of record-field views
(compiler.passes.KernelLower), full garbage collections while kernels compile and repeated overload
resolution (compiler.session). All must leave Numba's results as they were."""

import gc
import sys

import numba
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numba.core import compiler as numba_compiler
from numba.core import ir
from numba.core.registry import cpu_target
from numba.core.runtime import _nrt_python, rtsys

from meeple_gym.core import compiler, jit
from meeple_gym.core.compiler import flags, passes, session


def needs(technique):
    return pytest.mark.skipif(
        numba.config.DISABLE_JIT or not compiler.active(technique),
        reason=f"needs the compiler with {technique} active",
    )


BOOLEAN_OPTIONS = sorted(
    name for name, option in numba_compiler.Flags.options.items() if option.type is bool
)

# Each option left unset, set to its default, or set to the other value.
settings = st.dictionaries(st.sampled_from(BOOLEAN_OPTIONS), st.sampled_from(["default", "other"]))


def _flags(cls, setting):
    flags = cls()
    for name, how in setting.items():
        default = numba_compiler.Flags.options[name].default
        setattr(flags, name, default if how == "default" else not default)
    return flags


@given(settings, settings)
def test_quick_flags_hash_and_compare_as_numbas_flags_do(first, second):
    plain = _flags(numba_compiler.Flags, first), _flags(numba_compiler.Flags, second)
    quick = _flags(flags.QuickFlags, first), _flags(flags.QuickFlags, second)
    expected = plain[0] == plain[1]
    assert (quick[0] == quick[1]) is expected
    assert (quick[0] == plain[1]) is expected
    assert (plain[0] == quick[1]) is expected
    assert hash(quick[0]) == hash(plain[0]) == hash(plain[1])
    assert quick[0] == flags.QuickFlags(quick[0])  # Numba's copy keeps the class


@needs("quick_flags")
def test_kernels_compile_with_quick_flags():
    from meeple_gym.century import rules

    assert type(rules.apply_action._compiler) is flags.QuickFlagsCompiler
    customized = rules.apply_action._compiler._customize_flags(numba_compiler.Flags())
    assert type(customized) is flags.QuickFlags and type(customized.copy()) is flags.QuickFlags


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


@needs("passes")
def test_plain_dels_are_dropped_and_arrays_still_freed(monkeypatch):
    kept_types = []
    dropped = []
    original = passes.DropPlainDels.run_pass

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

    monkeypatch.setattr(passes.DropPlainDels, "run_pass", recording)
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


RECORD = np.dtype([("cards", np.int8, (6,)), ("board", np.int16, (3, 4)), ("turn", np.int64)])


def reads_fields_across_blocks(states, g):
    s = states[g]
    cards = s.cards  # a view of the record: Numba gives it no memory info
    total = 0
    for k in range(cards.shape[0]):
        if cards[k] > 2:
            s.board[k % 3, k % 4] += cards[k]
        else:
            total += s.board[k % 3, 0]
    s.turn += 1
    return total + s.board.sum()


def _nested_array_decrefs(monkeypatch, compile_kernel):
    """Compile ``reads_fields_across_blocks`` and run it; returns how many decrefs of a
    nested-array view its own lowering emitted (Numba's library code it calls not counted)."""
    from numba.core.runtime import context as nrt_context

    counted = []
    original = nrt_context.NRTContext.decref

    def recording(self, builder, typ, value):
        lower = sys._getframe(1).f_locals.get("self")
        name = getattr(getattr(lower, "fndesc", None), "qualname", "")
        if name == reads_fields_across_blocks.__qualname__:
            counted.append(isinstance(typ, numba.types.NestedArray))
        return original(self, builder, typ, value)

    monkeypatch.setattr(nrt_context.NRTContext, "decref", recording)
    kernel = compile_kernel(reads_fields_across_blocks)
    states = np.zeros(2, RECORD)
    states["cards"] = [[1, 3, 5, 0, 4, 2], [2, 2, 6, 1, 0, 3]]
    states["board"] = np.arange(24).reshape(2, 3, 4)
    for g in range(2):
        plain = states.copy()
        assert kernel(states, g) == reads_fields_across_blocks(plain.view(np.recarray), g)
        assert states.tobytes() == plain.tobytes()
    return sum(counted)


@needs("passes")
def test_record_field_views_are_not_reference_counted(monkeypatch):
    numbas_own = _nested_array_decrefs(monkeypatch, numba.njit(cache=False))
    ours = _nested_array_decrefs(monkeypatch, lambda fn: jit._compile(fn, cacheable=False))
    assert numbas_own > 0  # Numba's lowering decrefs each view where it dies
    assert ours == 0


def sums_an_argument(values, weights):
    total = 0.0
    for i in range(values.shape[0]):
        total += values[i] * weights[i % weights.shape[0]]
    return total


def _argument_refcounts(monkeypatch, compile_kernel):
    """Compile ``sums_an_argument`` and run it; returns how many increfs and decrefs of its
    array arguments its own lowering emitted."""
    from numba.core.runtime import context as nrt_context

    counted = []
    for name in ("incref", "decref"):
        original = getattr(nrt_context.NRTContext, name)

        def recording(self, builder, typ, value, _original=original):
            lower = sys._getframe(1).f_locals.get("self")
            qualname = getattr(getattr(lower, "fndesc", None), "qualname", "")
            if qualname == sums_an_argument.__qualname__ and isinstance(typ, numba.types.Array):
                counted.append(typ)
            return _original(self, builder, typ, value)

        monkeypatch.setattr(nrt_context.NRTContext, name, recording)
    kernel = compile_kernel(sums_an_argument)
    values, weights = np.arange(7.0), np.array([1.0, -2.0, 0.5])
    assert kernel(values, weights) == sums_an_argument(values, weights)
    return len(counted)


@needs("passes")
def test_arguments_are_borrowed_not_reference_counted(monkeypatch):
    numbas_own = _argument_refcounts(monkeypatch, numba.njit(cache=False))
    ours = _argument_refcounts(monkeypatch, lambda fn: jit._compile(fn, cacheable=False))
    assert numbas_own >= 4  # an incref where each argument is bound, a decref where it dies
    assert ours == 0


def returns_views_of_arguments(values, n, replace):
    if replace:  # assigned twice: this argument is not borrowed
        n = np.arange(3)
    head = values[:2]
    pair = (values, head, n)
    if values.shape[0] > 3:
        return pair[1]
    return values


def _passes_a_temporary(k):
    # The temporary lives in the caller only for the call; the view returned keeps it.
    return RETURNS_VIEWS(np.arange(k) * 1.5, np.arange(2), k % 2 == 0)


RETURNS_VIEWS = None  # set to the compiled returns_views_of_arguments by the test


@needs("passes")
def test_borrowed_arguments_keep_correct_reference_counts(monkeypatch):
    """Values built from a borrowed argument (views, tuples, the argument returned) keep their
    own counts: nothing leaks, nothing is freed early, from Python and from a kernel."""
    inner = jit._compile(returns_views_of_arguments, cacheable=False)
    monkeypatch.setitem(globals(), "RETURNS_VIEWS", inner)
    outer = jit._compile(_passes_a_temporary, cacheable=False)
    values = np.arange(6.0)
    inner(values, np.arange(2), True)
    outer(4)  # compile first
    was_enabled = _nrt_python.memsys_stats_enabled()
    _nrt_python.memsys_enable_stats()
    try:
        before = rtsys.get_allocation_stats()
        refs = sys.getrefcount(values)
        kept = []
        for k in range(1, 9):
            view = inner(values, np.arange(k), k % 2 == 0)
            assert view.base is not None and list(view) == list(values[:2])
            kept.append(outer(k))
        del view
        assert sys.getrefcount(values) == refs
        for k, got in zip(range(1, 9), kept, strict=True):
            np.testing.assert_array_equal(got, (np.arange(k) * 1.5)[: 2 if k > 3 else k])
        del kept, got
        after = rtsys.get_allocation_stats()
    finally:
        if not was_enabled:
            _nrt_python.memsys_disable_stats()
    assert after.alloc - before.alloc > 0
    assert after.alloc - before.alloc == after.free - before.free  # every temporary freed once
    assert after.mi_alloc - before.mi_alloc == after.mi_free - before.mi_free


def _callee(x):
    return x * 3 + 1


CALLEE = None  # set to the compiled _callee by the test


def _calls_a_kernel(x):
    return CALLEE(x) - 1


@needs("session")
def test_compile_session_is_set_up_by_the_outermost_compile_and_undone(monkeypatch):
    from numba.core import event

    seen = []  # GC thresholds and overload resolver at the start of each compile

    class Recorder(event.Listener):
        def on_start(self, e):
            resolver = numba.types.BaseFunction.get_call_type
            seen.append((e.data["dispatcher"].py_func.__name__, gc.get_threshold(), resolver))

        def on_end(self, e):
            pass

    numbas_resolver = numba.types.BaseFunction.get_call_type
    callee = jit._compile(_callee, cacheable=False)
    monkeypatch.setitem(globals(), "CALLEE", callee)
    caller = jit._compile(_calls_a_kernel, cacheable=False)
    previous = gc.get_threshold()
    gc.set_threshold(500, 7, 9)  # a user's own setting, restored afterwards
    try:
        with event.install_listener("numba:compile", Recorder()):
            assert caller(4) == 12
        after = gc.get_threshold()
    finally:
        gc.set_threshold(*previous)
    assert after == (500, 7, 9)
    assert numba.types.BaseFunction.get_call_type is numbas_resolver
    names = [name for name, _, _ in seen]
    assert names[0] == "_calls_a_kernel" and "_callee" in names  # the callee compiled nested
    for _, thresholds, resolver in seen:
        # Young cycles are still collected, at the user's thresholds; the oldest generation never.
        assert thresholds == (500, 7, session.NO_FULL_COLLECTION)
        assert resolver is session.memoised_get_call_type


def many_repeated_operations(values, n):
    total = 0
    for i in range(n):
        if values[i] == 3 or values[i] == 5:
            total += values[i] * 2
        elif values[i] == 7:
            total -= values[i] // 2
        if total == values[i] and i == n - 1:
            total += max(values[i], 1) + max(total, 2)
    return total


class _NothingKept(dict):
    def __setitem__(self, key, value):
        pass


def _compile_counting_resolutions(monkeypatch, memo):
    calls = []
    numbas = session.numba_get_call_type

    def counting(fn, context, args, kws):
        calls.append((fn, tuple(args)))
        return numbas(fn, context, args, kws)

    monkeypatch.setattr(session, "numba_get_call_type", counting)
    monkeypatch.setattr(session, "call_types", memo)
    kernel = jit._compile(many_repeated_operations, cacheable=False)
    values = np.array([3, 5, 7, 1, 6, 7, 2], dtype=np.int64)
    for n in range(len(values) + 1):
        assert kernel(values, n) == many_repeated_operations(values, n)
    monkeypatch.undo()
    return calls


@needs("session")
def test_overload_resolution_is_memoised_and_agrees_with_numba(monkeypatch):
    memo = {}
    with_memo = _compile_counting_resolutions(monkeypatch, memo)
    without = _compile_counting_resolutions(monkeypatch, _NothingKept())
    assert memo and len(with_memo) == len(memo)  # Numba asked once per distinct call
    assert len(without) > 2 * len(with_memo)  # ... where it was asked again at every site
    context = cpu_target.typing_context
    for (fn, typing_context, args, kws), signature in memo.items():
        assert typing_context is context
        assert session.numba_get_call_type(fn, context, args, dict(kws)) == signature
