"""Technique ``internal``: kernels that only other kernels call, without entry wrappers and
without machine code of their own.

Numba gives every function it compiles a CPython entry wrapper and a C wrapper, even one that
only other kernels call. A private kernel (``_name``) and the body of a standalone kernel are
compiled without them (``InternalKernelDispatcher``); a call from Python goes to a second copy,
compiled with the wrappers on first use. An internal kernel's code library is also link-only
(``LinkOnlyLibrary``): Numba would emit machine code for it, though only the kernels that link
its module ever run that code, and they emit their own. Its Numba environment pointer is never
set, so an internal kernel may not print or raise an exception built from runtime values
(tests/test_internal_kernels.py checks). Figures: benchmarks/README.md, Compile time.

Fragments. An internal kernel's module is optimised on its own, with every kernel it calls
linked in, and again inside each kernel that links it. That is cheap for a helper, but not for
the parts of one large kernel: Radlands' op interpreter ``_exec`` split into one kernel per op
(or per group of ops) had its code optimised twice, and Radlands' cold compile took 5-13%
longer than with the one 671-line function. ``jit.kernel(fragment=True)`` declares such a part:
its library (``FragmentLibrary``) runs LLVM's function passes on its own functions but no
module passes, so its code is optimised once, in the kernels that link it, as when it was
inline (benchmarks/README.md, "Radlands ops and long functions").

Relies on (``check``): the ``no_cpython_wrapper`` and ``no_cfunc_wrapper`` flags;
``JITCodeLibrary``'s ``_finalize_final_module``, ``_finalize_dynamic_globals``,
``_verify_declare_only_symbols``, ``_ensure_finalized``, ``get_pointer_to_function``, the two
``serialize_using_*`` methods, ``codegen`` and (fragments) ``_optimize_final_module``; the CPU
codegen's ``_library_class`` and ``set_env``; ``CompileResultCacheImpl.rebuild``; and the
dispatcher, passes and cache techniques it builds on. Fallback: a private kernel (a fragment
too) is an ordinary kernel.
"""

from __future__ import annotations

from numba.core import codegen as numba_codegen
from numba.core import compiler as numba_compiler
from numba.core.caching import CompileResultCacheImpl
from numba.core.compiler_machinery import register_pass

from meeple_gym.core import compiler as fence
from meeple_gym.core.compiler.cache import RepairingFunctionCache
from meeple_gym.core.compiler.dispatch import KernelDispatcher
from meeple_gym.core.compiler.passes import KernelLowering, KernelPipeline

# Numba options that drop the Python and C entry wrappers (internal kernels, standalone impls).
NO_ENTRY_WRAPPERS = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}


def check() -> str | None:
    absent = fence.missing(
        [
            (numba_codegen.JITCodeLibrary, ("_finalize_final_module", "_finalize_dynamic_globals")),
            (numba_codegen.JITCodeLibrary, ("_verify_declare_only_symbols", "_ensure_finalized")),
            (numba_codegen.JITCodeLibrary, ("get_pointer_to_function", "codegen")),
            (numba_codegen.JITCodeLibrary, ("serialize_using_object_code",)),
            (numba_codegen.JITCodeLibrary, ("serialize_using_bitcode", "_optimize_final_module")),
            (numba_codegen.JITCPUCodegen, ("_library_class", "set_env")),
            (CompileResultCacheImpl, ("rebuild",)),
        ]
    )
    if absent:
        return absent
    if "_codegen" not in numba_codegen.CodeLibrary.__init__.__code__.co_names:
        return "CodeLibrary keeps no _codegen"
    options = [name for name in NO_ENTRY_WRAPPERS if name not in numba_compiler.Flags.options]
    return "no Flags option " + ", ".join(options) if options else None


class InternalKernelDispatcher(KernelDispatcher):
    """A kernel that other kernels call. It is compiled without the CPython and C entry
    wrappers Numba otherwise emits for every function; a call from Python (a snapshot check, a
    test) goes to a second copy compiled with them on first use and cached in its own folder
    (Numba's cache index does not tell the two apart)."""

    def __call__(self, *args, **kwargs):
        entry = getattr(self, "_meeple_python_entry", None)
        if entry is None:
            from meeple_gym.core.jit import _compile  # here: jit imports the fence

            entry = _compile(self.py_func, group=self._meeple_group, cache_subdir="python-entry")
            self._meeple_python_entry = entry
        return entry(*args, **kwargs)


class LinkOnlyLibrary(numba_codegen.JITCodeLibrary):
    """The code library of an internal kernel: its module is optimised as Numba's are, but no
    machine code is emitted for it. Only the kernels that link the module run it, and they emit
    their own. (Skipping the module's own optimisation as well cut compile time further but
    made Everdell's steps 6% slower: the linked code is optimised once instead of twice.)"""

    def _finalize_final_module(self):
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._finalized = True

    def get_pointer_to_function(self, name):
        self._ensure_finalized()
        return 0  # no machine code: callers link the module

    def serialize_using_object_code(self):
        return self.serialize_using_bitcode()

    @property
    def codegen(self):
        return EnvlessCodegen(self._codegen)


class FragmentLibrary(LinkOnlyLibrary):
    """The code library of a fragment: not even its module is optimised, only its functions;
    the kernels that link it optimise it with their own code."""

    def _optimize_final_module(self):
        pass


class EnvlessCodegen:
    """The codegen as a link-only library sees it: Numba stores a function's environment
    pointer into its loaded machine code, and this library has none."""

    def __init__(self, codegen):
        self._real = codegen

    def set_env(self, env_name, env):
        pass

    def __getattr__(self, name):
        return getattr(self._real, name)


@register_pass(mutates_CFG=True, analysis_only=False)
class LinkOnlyLowering(KernelLowering):
    _name = "meeple_gym_link_only_lowering"
    _library = LinkOnlyLibrary  # the kind of library a kernel is lowered into

    def run_pass(self, state):
        if state.library is None:
            state.library = self._library(state.targetctx.codegen(), state.func_id.func_qualname)
        return super().run_pass(state)


class LinkOnlyPipeline(KernelPipeline):
    """``KernelPipeline`` lowering into a ``LinkOnlyLibrary``."""

    _lowering = LinkOnlyLowering


@register_pass(mutates_CFG=True, analysis_only=False)
class FragmentLowering(LinkOnlyLowering):
    _name = "meeple_gym_fragment_lowering"
    _library = FragmentLibrary


class FragmentPipeline(LinkOnlyPipeline):
    """``KernelPipeline`` lowering into a ``FragmentLibrary``."""

    _lowering = FragmentLowering


class LinkOnlyCacheImpl(CompileResultCacheImpl):
    def rebuild(self, target_context, payload):
        # Load the cached bitcode into a LinkOnlyLibrary too; Numba would make a library that
        # emits machine code for it on load.
        codegen = target_context.codegen()
        previous = codegen._library_class
        codegen._library_class = LinkOnlyLibrary
        try:
            return super().rebuild(target_context, payload)
        finally:
            codegen._library_class = previous


class LinkOnlyFunctionCache(RepairingFunctionCache):
    _impl_class = LinkOnlyCacheImpl
