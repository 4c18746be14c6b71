"""Technique ``standalone``: a large kernel compiled once and called through a pointer cell.

Numba links the LLVM module of every kernel a function calls into that function's module and
optimises the whole again, so a game's interpreter was optimised and emitted once per kernel
that reached it (the batch loops, the heuristic, the search, its own entry points): most of a
cold compile. ``meeple_gym.core.jit.standalone_kernel`` compiles a large kernel once, for one
declared signature, and gives callers a small stub that calls it through a pointer cell
registered with LLVM under a stable symbol (``meeple_gym.standalone.<group key>.<module>.<name>``).
The stub's machine code holds the symbol, not the kernel, so it caches; the cell is filled when
the stub is typed or, for a kernel loaded from the cache, from the cells its code reads
(``fill_cells``). The call uses Numba's calling convention, so exceptions propagate. Each game
declares its interpreter entries, encoder, heuristic and determinizer standalone
(benchmarks/README.md, Compile time; tests/test_standalone.py). Inlining at the Numba IR level was
tried instead and was slower: Numba deep-copies the IR it inlines.

Relies on (``check``): ``llvmlite.binding.add_symbol``; ``numba.extending.intrinsic``; the CPU
calling convention's ``get_function_type``, ``call_function`` and
``return_status_propagate``; ``cgutils.if_unlikely``; a code library's
``get_pointer_to_function`` and its ``_shared_module`` or ``_final_module``; and the
dispatcher technique, whose compile fills the cells. Fallback: a standalone kernel is an
ordinary kernel, embedded in every caller as Numba does.
"""

from __future__ import annotations

import ctypes
import inspect
import os
import tempfile
from pathlib import Path

import llvmlite.binding as llvm
from llvmlite import ir
from numba.core import callconv, cgutils, codegen, types
from numba.extending import intrinsic

from meeple_gym.core import compiler as fence

SYMBOL_PREFIX = "meeple_gym.standalone."


def check() -> str | None:
    absent = fence.missing(
        [
            (llvm, ("add_symbol",)),
            (callconv.CPUCallConv, ("get_function_type", "call_function")),
            (callconv.CPUCallConv, ("return_status_propagate",)),
            (cgutils, ("if_unlikely",)),
            (codegen.JITCodeLibrary, ("get_pointer_to_function",)),
            (ir, ("GlobalVariable", "Function", "IRBuilder")),
        ]
    )
    if absent:
        return absent
    # fill_cells reads the linkable module a library keeps: one of these must be set.
    names = set(codegen.JITCodeLibrary.__init__.__code__.co_names)
    names |= set(codegen.CPUCodeLibrary.__init__.__code__.co_names)
    if not names & {"_shared_module", "_final_module"}:
        return "code libraries keep no _shared_module or _final_module"
    return None


def numba_type(kind):
    """The Numba type of a declared argument kind (``jit.array_arg``, ``jit.record_arg`` or a
    Numba scalar type)."""
    return getattr(kind, "numba_type", kind)


def _is_declared(kind) -> bool:
    return hasattr(kind, "accepts")  # jit.array_arg or jit.record_arg


def cell_caller(symbol: str, arg_kinds, return_type):
    """An intrinsic that calls the compiled kernel whose address is in the cell named
    ``symbol`` (scalars cast to the declared types). Its arguments are passed one by one, not
    packed into a tuple: building a tuple holding an array increments and decrements the
    array's reference count, atomically, on every call."""
    wanted = tuple(numba_type(kind) for kind in arg_kinds)

    def typer(typingctx, arguments):
        for given, kind in zip(arguments, arg_kinds, strict=True):
            if _is_declared(kind):
                if not kind.accepts(given):
                    return None
            elif not isinstance(given, (types.Integer, types.Float, types.Boolean)):
                return None

        def codegen(context, builder, signature, args):
            call_conv = context.call_conv
            function_type = call_conv.get_function_type(return_type, wanted)
            # A trampoline through the cell: Numba's call helper wants a function to call.
            name = f"{symbol}.trampoline"
            trampoline = builder.module.globals.get(name)
            if trampoline is None:
                cell = ir.GlobalVariable(builder.module, function_type.as_pointer(), symbol)
                cell.linkage = "external"
                trampoline = ir.Function(builder.module, function_type, name)
                trampoline.linkage = "internal"
                body = ir.IRBuilder(trampoline.append_basic_block())
                body.ret(body.call(body.load(cell), trampoline.args))
            values = [
                value if _is_declared(kind) else context.cast(builder, value, given, want)
                for value, given, want, kind in zip(args, arguments, wanted, arg_kinds, strict=True)
            ]
            status, result = call_conv.call_function(
                builder, trampoline, return_type, wanted, values
            )
            with cgutils.if_unlikely(builder, status.is_error):
                call_conv.return_status_propagate(builder, status)
            return result

        return return_type(*arguments), codegen

    # Numba's intrinsics take no *args: write one with a parameter per argument.
    params = ", ".join(f"a{k}" for k in range(len(arg_kinds)))
    namespace = {"typer": typer}
    exec(  # noqa: S102 - a fixed template
        f"def call(typingctx, {params}):\n    return typer(typingctx, ({params},))\n",
        namespace,
    )
    return intrinsic(namespace["call"])


class Standalone:
    """One standalone kernel: the kernel compiled for its one signature and the cell that
    holds its address (filled by ``build``)."""

    def __init__(self, impl, arg_kinds, return_type, symbol, group):
        self.impl = impl
        self.signature = tuple(numba_type(kind) for kind in arg_kinds)
        self.return_type = return_type
        self.symbol = symbol
        self.group = group
        self.cell = ctypes.c_void_p(0)
        self.built = False
        self.building = False
        llvm.add_symbol(symbol, ctypes.addressof(self.cell))

    def build(self):
        if self.built or self.building:
            return
        self.building = True
        try:
            self.impl.compile(self.signature)
            compiled = self.impl.overloads[self.signature]
            if compiled.signature.return_type != self.return_type:
                raise TypeError(
                    f"standalone kernel {self.impl.__qualname__} returns "
                    f"{compiled.signature.return_type}, declared {self.return_type}"
                )
            library = compiled.library
            self.cell.value = library.get_pointer_to_function(compiled.fndesc.llvm_func_name)
            self.built = True
        finally:
            self.building = False


# Every standalone kernel declared in this process, by cache group and by cell symbol.
registry: dict[str, list[Standalone]] = {}
by_symbol: dict[str, Standalone] = {}


def fill_cells(library, group) -> None:
    """Build every standalone kernel whose cell ``library``'s code reads (all of ``group``'s
    if this Numba keeps no module to look in)."""
    # A kernel cached as object code keeps its linkable module in _shared_module; an internal
    # kernel cached as bitcode (_LinkOnlyLibrary) is loaded into _final_module.
    module = getattr(library, "_shared_module", None) or getattr(library, "_final_module", None)
    if module is None:
        for entry in registry.get(group, ()):
            entry.build()
        return
    for variable in module.global_variables:
        entry = by_symbol.get(variable.name)
        if entry is not None:
            entry.build()


def stub_source(fn, arg_kinds) -> str:
    """Source of the kernel callers use: ``fn``'s parameters and defaults, one call through
    the cell."""
    parameters = list(inspect.signature(fn).parameters.values())
    if len(parameters) != len(arg_kinds):
        raise TypeError(
            f"{fn.__name__} takes {len(parameters)} arguments; {len(arg_kinds)} kinds given"
        )
    names = ", ".join(p.name for p in parameters)
    return (
        f"# Generated by meeple_gym.core.jit.standalone_kernel for {fn.__module__}.{fn.__name__}.\n"
        f"def {fn.__name__}({', '.join(str(p) for p in parameters)}):\n"
        f"    return CALL({names})\n"
    )


def load_generated(source: str, folder: str | None, module_name: str):
    """Compile generated source as if from a file in the group's cache folder (Numba caches
    only functions with a source file); the file's mtime is fixed so that every process that
    writes it gives Numba's cache index the same stamp. Returns (code, cacheable)."""
    filename = f"<generated {module_name}>"
    if folder is not None:
        file = Path(folder) / "standalone" / f"{module_name}.py"
        try:
            file.parent.mkdir(exist_ok=True)
            # errors="replace": a garbled file is rewritten, not a UnicodeDecodeError.
            if not file.is_file() or file.read_text(errors="replace") != source:
                with tempfile.NamedTemporaryFile("w", dir=file.parent, delete=False) as tmp:
                    tmp.write(source)
                os.utime(tmp.name, (0, 0))
                os.replace(tmp.name, file)
            filename = str(file)
        except OSError:
            pass
    return compile(source, filename, "exec"), not filename.startswith("<")
