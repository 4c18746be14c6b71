"""Technique ``passes``: Numba's nopython pipeline with four changes for kernels.

Record fields. Every ``s.field[i]`` on a record's nested-array field makes Numba build a whole
array structure (data pointer, shape, strides, reference count) before indexing, and LLVM then
spends its time removing it again: 300 such reads took two to three times as long to compile
as the same reads through a local view. Serial kernels compile with ``KernelPipeline``, whose
``HoistRecordArrays`` pass reads each nested-array field once, right after the record variable
is defined, where that definition comes before every read (tests/test_record_hoisting.py).

Dels. Numba emits a ``del`` for every variable where it dies and lowers it, for a variable that
lives across blocks, as a load and a store of zero (against a double free); half of the
statements Numba lowered for Everdell were ``del``\\ s, and LLVM then removes those stores
again. ``DropPlainDels`` removes the ``del`` of every variable that holds no
reference-counted memory (integers, booleans, record views) before lowering.

Record views. ``KernelLower`` emits no incref or decref for a record's nested-array view (Numba
builds it with no memory info, so both do nothing at run time; each unpacked the whole array
structure): Everdell's LLVM IR before optimisation went from 207,000 to 190,000 instructions.
Dels, record views and quick flags (flags.py) together: Everdell -17% and -8%, Radlands -8%
and -2% in two side-by-side pairs (benchmarks/README.md, Compile time;
tests/test_compile_overheads.py).

Arguments. ``KernelLower`` also borrows every argument variable assigned once: no incref where
it is bound, no decref where it dies (the caller holds a reference for the whole call). On two
threads the pair was an atomic operation on the batch's shared memory info per call of a
standalone kernel (see ``KernelLower``; tests/test_compile_overheads.py).

Relies on (``check``): ``DefaultPassBuilder.define_nopython_pipeline`` and its pass manager
(``add_pass_after``, ``passes``, ``finalize``) with ``NopythonRewrites``, ``IRLegalization``
and ``NativeLowering`` (``lowering_class``) in it; ``Lower.incref``/``decref``,
``lower_assign``, ``delvar`` and ``pre_lower``; ``FunctionIR._definitions``; typed Numba IR
(``ir.Del``, ``types.NestedArray``, ``ir_utils.replace_vars``/``mk_unique_var``,
``compute_cfg_from_blocks``); data models' ``contains_nrt_meminfo``. Fallback: Numba's own
pipeline.
"""

from __future__ import annotations

from types import SimpleNamespace

from numba.core import ir as numba_ir
from numba.core import ir_utils, types
from numba.core import lowering as numba_lowering
from numba.core.analysis import compute_cfg_from_blocks
from numba.core.compiler import CompilerBase, DefaultPassBuilder, Flags
from numba.core.compiler_machinery import FunctionPass, LoweringPass, register_pass
from numba.core.datamodel.models import DataModel
from numba.core.typed_passes import IRLegalization, NativeLowering, NopythonRewrites

from meeple_gym.core import compiler as fence


def check() -> str | None:
    absent = fence.missing(
        [
            (DefaultPassBuilder, ("define_nopython_pipeline",)),
            (NativeLowering, ("lowering_class", "run_pass")),
            (numba_lowering.Lower, ("incref", "decref", "lower_assign", "delvar", "pre_lower")),
            (numba_ir, ("Del", "Assign", "Expr", "Var")),
            (types, ("NestedArray", "Record")),
            (ir_utils, ("replace_vars", "mk_unique_var")),
            (DataModel, ("contains_nrt_meminfo",)),
        ]
    )
    if absent:
        return absent
    if "_definitions" not in numba_ir.FunctionIR.__init__.__code__.co_names:
        return "no FunctionIR._definitions"

    state = SimpleNamespace(flags=Flags(), func_ir=None)  # what the pipeline builder reads
    manager = DefaultPassBuilder.define_nopython_pipeline(state)
    absent = fence.missing([(manager, ("add_pass_after", "passes", "finalize"))])
    if absent:
        return absent
    in_pipeline = {pass_class for pass_class, _ in manager.passes}
    wanted = (NopythonRewrites, IRLegalization, NativeLowering)
    gone = [p.__name__ for p in wanted if p not in in_pipeline]
    return "not in the nopython pipeline: " + ", ".join(gone) if gone else None


class KernelLower(numba_lowering.Lower):
    """Numba's lowering without reference counting for record fields and borrowed arguments.

    A nested-array field of a record (``s.hand``) is a view into the record that Numba builds
    with no memory info of its own, so its incref and decref do nothing at run time, yet each
    is emitted as ten instructions that unpack the whole array structure.

    An argument variable assigned once (``states = arg(0)``) is borrowed: the caller holds a
    reference for the whole call, so the incref Numba emits where the argument is bound and
    the decref where the variable dies cancel out. Left in, they are two atomic operations
    on the memory info of an array that every thread's games share (the batch), per call of
    a standalone kernel, where LLVM cannot pair them up; on two threads each call bounced that
    cache line between the cores (benchmarks/README.md, "Borrowed arguments"). Copies of the
    variable, views of it and values returned keep their own counts."""

    _borrowing = False

    def pre_lower(self):
        super().pre_lower()
        definitions = self.func_ir._definitions
        self._borrowed = {
            stmt.target.name
            for block in self.func_ir.blocks.values()
            for stmt in block.body
            if isinstance(stmt, numba_ir.Assign)
            and isinstance(stmt.value, numba_ir.Arg)
            and len(definitions.get(stmt.target.name, ())) == 1
        }

    def lower_assign(self, ty, inst):
        if isinstance(inst.value, numba_ir.Arg) and inst.target.name in self._borrowed:
            self._borrowing = True
            try:
                return super().lower_assign(ty, inst)
            finally:
                self._borrowing = False
        return super().lower_assign(ty, inst)

    def delvar(self, name):
        if name in self._borrowed:
            self._borrowing = True
            try:
                return super().delvar(name)
            finally:
                self._borrowing = False
        return super().delvar(name)

    def incref(self, typ, val):
        if not (self._borrowing or isinstance(typ, types.NestedArray)):
            super().incref(typ, val)

    def decref(self, typ, val):
        if not (self._borrowing or isinstance(typ, types.NestedArray)):
            super().decref(typ, val)


@register_pass(mutates_CFG=True, analysis_only=False)
class KernelLowering(NativeLowering):
    _name = "meeple_gym_kernel_lowering"

    @property
    def lowering_class(self):
        return KernelLower


@register_pass(mutates_CFG=False, analysis_only=False)
class HoistRecordArrays(FunctionPass):
    """Read each nested-array field of a record once, where the record is defined, instead of
    at every use (see "Record fields" in the module docstring)."""

    _name = "meeple_gym_hoist_record_arrays"

    def __init__(self):
        FunctionPass.__init__(self)

    def run_pass(self, state):
        return hoist_record_arrays(state.func_ir.blocks, state.typemap)


def hoist_record_arrays(blocks, typemap) -> bool:
    """Rewrite typed Numba IR in place: every ``getattr(record, field)`` that yields a nested
    array and reads a record variable with one definition becomes a use of one variable set
    right after that definition. Returns whether anything changed."""
    definitions = {}  # variable name -> [(block label, statement index)]
    reads = {}  # (record variable, field) -> [(block label, statement index, statement)]
    for label, block in blocks.items():
        for index, stmt in enumerate(block.body):
            if not isinstance(stmt, numba_ir.Assign):
                continue
            definitions.setdefault(stmt.target.name, []).append((label, index))
            value = stmt.value
            if (
                isinstance(value, numba_ir.Expr)
                and value.op == "getattr"
                and isinstance(typemap.get(value.value.name), types.Record)
                and isinstance(typemap.get(stmt.target.name), types.NestedArray)
            ):
                reads.setdefault((value.value.name, value.attr), []).append((label, index, stmt))
    candidates = {
        key: found
        for key, found in reads.items()
        if len(found) > 1 and len(definitions.get(key[0], ())) == 1
    }
    if not candidates:
        return False
    dominators = compute_cfg_from_blocks(blocks).dominators()
    inserted = {}  # (block label, statement index) -> statements to add after it
    renamed = {}  # a read's single-use variable -> the hoisted variable
    dropped = set()  # ids of the reads replaced by renaming
    for (record, field), found in candidates.items():
        home, home_index = definitions[record][0]
        # The definition must come before every read on every path: a read in a block the
        # definition's block does not dominate, or earlier in the same block, stays as it is.
        if any(
            home not in dominators[label] or (label == home and index < home_index)
            for label, index, _ in found
        ):
            continue
        first = found[0][2]
        loc = first.loc
        hoisted = numba_ir.Var(blocks[home].scope, ir_utils.mk_unique_var(f"$record.{field}"), loc)
        typemap[hoisted.name] = typemap[first.target.name]
        read = numba_ir.Expr.getattr(first.value.value, field, loc)
        inserted.setdefault((home, home_index), []).append(numba_ir.Assign(read, hoisted, loc))
        for _, _, stmt in found:
            if len(definitions[stmt.target.name]) == 1:
                renamed[stmt.target.name] = hoisted
                dropped.add(id(stmt))
            else:  # a user variable assigned elsewhere too: keep it, copy the hoisted view
                stmt.value = hoisted
    if not inserted:
        return False
    for label, block in blocks.items():
        body = []
        for index, stmt in enumerate(block.body):
            if id(stmt) not in dropped:
                body.append(stmt)
            body.extend(inserted.get((label, index), ()))
        block.body = body
    ir_utils.replace_vars(blocks, renamed)
    return True


@register_pass(mutates_CFG=False, analysis_only=False)
class DropPlainDels(LoweringPass):
    """Remove the ``del`` of every variable without a reference count. Numba lowers each
    ``del`` of a variable that lives across blocks as a load and a store of zero (to avoid a
    double free), which LLVM must then remove again; for an integer, a boolean or a record
    view there is nothing to free. Half of the statements Numba lowered for Everdell were
    ``del``s."""

    _name = "meeple_gym_drop_plain_dels"

    def __init__(self):
        LoweringPass.__init__(self)

    def run_pass(self, state):
        models = state.targetctx.data_model_manager
        typemap = state.typemap
        refcounted = {}  # type -> whether it holds reference-counted memory
        changed = False
        for block in state.func_ir.blocks.values():
            kept = []
            for stmt in block.body:
                if isinstance(stmt, numba_ir.Del):
                    value_type = typemap[stmt.value]
                    if value_type not in refcounted:
                        refcounted[value_type] = (
                            not isinstance(value_type, types.NestedArray)
                            and models[value_type].contains_nrt_meminfo()
                        )
                    if not refcounted[value_type]:
                        changed = True
                        continue
                kept.append(stmt)
            block.body = kept
        return changed


class KernelPipeline(CompilerBase):
    """Numba's nopython pipeline with ``HoistRecordArrays`` after its typed rewrites and
    ``DropPlainDels`` after its IR legalisation (which places the ``del``s)."""

    def define_pipelines(self):
        manager = DefaultPassBuilder.define_nopython_pipeline(self.state)
        manager.add_pass_after(HoistRecordArrays, NopythonRewrites)
        manager.add_pass_after(DropPlainDels, IRLegalization)
        manager.passes = [
            (self._lowering if pass_class is NativeLowering else pass_class, description)
            for pass_class, description in manager.passes
        ]
        manager.finalize()
        return [manager]

    _lowering = KernelLowering
