"""All Numba options live here so every kernel compiles the same way.

fastmath stays off (bit-exact results across machines); ``error_model="numpy"`` drops Python's
zero-division checks from hot loops; ``cache=True`` so a warm start only loads machine code.

The on-disk cache
-----------------
Numba's own cache checks only the source file of each function, so a kernel that inlines
another module (an encoder inlines its game's rules, every game inlines ``meeple_gym.core.rng``)
could run stale machine code after an upgrade or an edit to a rules module or a data table.
Here every kernel is cached in a directory keyed by what it can inline:

    <root>/<package version>-numba<version>/<group>-<hash of the group's sources and tables>

A group is one game (its ``meeple_gym.<game>`` package with the data tables, its encoder and its
heuristic, plus the kernel modules of ``meeple_gym.core``) or ``core`` alone. Editing one game
recompiles that game only.
``<root>`` is ``$MEEPLE_GYM_CACHE_DIR`` if set, else ``$NUMBA_CACHE_DIR``, else the per-user
cache directory (``~/.cache/meeple-gym`` on Linux). Under ``NUMBA_BOUNDSCHECK=1`` the key gets a
``-boundscheck`` suffix: Numba's index does not tell checked from unchecked code. If nothing is
writable, kernels compile without a cache and one ``CacheWarning`` says so.
A cache entry that fails to load (an index or data file cut short or overwritten, code LLVM
rejects, a data file that no longer matches the SHA-256 digest at its head) is deleted and its
kernel compiled and saved afresh, with one ``CorruptCacheWarning`` naming the folder, where
Numba would fail every later start until the files were deleted by hand
(meeple_gym.core.cache_repair; tests/test_kernel_cache.py). Processes may share a cache: each
file is written to a temporary name and renamed, so none reads a partly written one.

One specialisation per kernel
----------------------------
Numba compiles a separate copy of a called kernel for every literal argument value and every
integer width its call sites pass (a player read from an int8 field, a constant, a prange
index typed uint64). Radlands compiled 339 function copies for 143 functions. Kernels here are
compiled for widened argument types instead (``_KernelDispatcher``), which halved that count and
cut Radlands' cold compile CPU time by about 40% (benchmarks/README.md, issue 11);
tests/test_compile.py checks that every kernel has one signature.

Standalone kernels
------------------
Numba links the LLVM module of every kernel a function calls into that function's module and
optimises the whole again, so a game's interpreter was optimised and emitted once per kernel
that reached it (the batch loops, the heuristic, the search, its own entry points): most of a
cold compile. ``standalone_kernel`` compiles a large kernel once, for one declared signature,
and gives callers a small stub that calls it through a pointer cell registered with LLVM under
a stable symbol (``meeple_gym.standalone.<group key>.<module>.<name>``). The stub's machine code
holds the symbol, not the kernel, so it caches; the cell is filled when the stub is typed or,
for a kernel loaded from the cache, from the cells its code reads (``_fill_cells``). The call
uses Numba's calling convention, so exceptions propagate. Each game declares its interpreter
entries, encoder, heuristic and determinizer standalone (benchmarks/README.md, issue 11;
tests/test_standalone.py). Inlining at the Numba IR level was tried instead and was slower:
Numba deep-copies the IR it inlines.

Internal kernels and the optimisation level
-------------------------------------------
Numba gives every function it compiles a CPython entry wrapper and a C wrapper, even one that
only other kernels call. A private kernel (``_name``) and the body of a standalone kernel are
compiled without them (``_InternalKernelDispatcher``); a call from Python goes to a second
copy, compiled with the wrappers on first use. An internal kernel's code library is also
link-only (``_LinkOnlyLibrary``): Numba would emit machine code for it, though only the kernels
that link its module ever run that code, and they emit their own. Its Numba environment
pointer is never set, so an internal kernel may not print or raise an exception built from
runtime values (tests/test_internal_kernels.py checks).
Kernels compile at LLVM ``-O2`` (Numba's default is ``-O3``) unless ``NUMBA_OPT`` is set.
Figures: benchmarks/README.md, issue 11.

Fragments
---------
An internal kernel's module is optimised on its own, with every kernel it calls linked in, and
again inside each kernel that links it. That is cheap for a helper, but not for parts of one
large kernel: Radlands' op interpreter ``_exec`` split into one kernel per op (or per group of
ops) had its code optimised twice, and Radlands' cold compile took 5-13% longer than with the
one 671-line function. ``@kernel(fragment=True)`` declares such a part: its library
(``_FragmentLibrary``) runs LLVM's function passes on its own functions but no module passes,
so its code is optimised once, in the kernels that link it, as when it was inline
(benchmarks/README.md, "Radlands ops and long functions").

Record fields and default arguments
-----------------------------------
Every ``s.field[i]`` on a record's nested-array field makes Numba build a whole array
structure (data pointer, shape, strides, reference count) before indexing, and LLVM then
spends its time removing it again: 300 such reads took two to three times as long to compile
as the same reads through a local view. Serial kernels compile with ``_KernelPipeline``, whose
``_HoistRecordArrays`` pass reads each nested-array field once, right after the record variable
is defined, where that definition comes before every read (tests/test_record_hoisting.py).
A kernel called both with and without one of its default arguments would be compiled twice
(``omitted(default=True)`` is a type of its own); the dispatcher types left-out defaults as
values, so both calls share one copy (tests/test_compile.py).

Costs inside Numba
------------------
Numba emits a ``del`` for every variable where it dies and lowers it, for a variable that
lives across blocks, as a load and a store of zero (against a double free); half of the
statements Numba lowered for Everdell were ``del``s, and LLVM then removes those stores
again. ``_DropPlainDels`` removes the ``del`` of every variable that holds no
reference-counted memory (integers, booleans, record views) before lowering, and
``_KernelLower`` emits no incref or decref for a record's nested-array view (Numba builds it
with no memory info, so both do nothing at run time; each unpacked the whole array structure):
Everdell's LLVM IR before optimisation went from 207,000 to 190,000 instructions. Type
inference looks up each overload in a cache keyed by the compile flags, whose hash and
comparison build a dict of all Numba's options every time; kernels compile with
``_QuickFlags``, which give the same hash and the same answers without that
(tests/test_compile_overheads.py). All three: Everdell -17% and -8%, Radlands -8% and -2% in
two side-by-side pairs (benchmarks/README.md, issue 11).

Two costs sit outside the compiler's passes; ``_compile_session`` removes both for the
duration of the outermost kernel compile. CPython's full garbage collections walk every object
in the process, and Numba's compiler makes millions of objects: 20 full collections took 3.3 s
of a 32 s Everdell compile; young generations are still collected. And Numba resolves the
overload of an operator or a NumPy function again at every call site, once while typing and
once more while lowering, trying each candidate template: 16,000 resolutions for 1,000
distinct calls in Everdell, 4.5 s; each distinct call is now resolved once. The machine code is
the same (its LLVM IR differs only in the counters and addresses Numba puts in names). Both:
Everdell -20%, Radlands -22% (benchmarks/README.md, issue 11).

Coverage: under ``NUMBA_DISABLE_JIT=1`` every kernel runs as plain Python when given
``states.view(np.recarray)`` (plain NumPy records have no attribute access);
tests/test_pure_python_mode.py checks that this plays the same games as the compiled kernels.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import gc
import hashlib
import importlib.util
import inspect
import os
import tempfile
import types as pytypes
import warnings
from importlib import metadata
from pathlib import Path

import llvmlite.binding as llvm
import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, ir_utils, targetconfig, types
from numba.core import codegen as numba_codegen
from numba.core import compiler as numba_compiler
from numba.core import dispatcher as numba_dispatcher
from numba.core import ir as numba_ir
from numba.core import lowering as numba_lowering
from numba.core.analysis import compute_cfg_from_blocks
from numba.core.caching import CompileResultCacheImpl
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_lock import global_compiler_lock
from numba.core.compiler_machinery import FunctionPass, LoweringPass, register_pass
from numba.core.registry import CPUDispatcher
from numba.core.typed_passes import IRLegalization, NativeLowering, NopythonRewrites
from numba.extending import intrinsic

from meeple_gym.core import threads  # noqa: F401 - sets the threading layer before any kernel
from meeple_gym.core.cache_repair import CacheWarning, RepairingFunctionCache

JIT_OPTIONS = {"cache": True, "fastmath": False, "nogil": True, "error_model": "numpy"}

# LLVM optimisation level of the project's kernels, unless NUMBA_OPT sets one: Numba's default,
# 3, compiled slower here and ran no faster (benchmarks/README.md, issue 11).
KERNEL_OPT_LEVEL = os.environ.get("NUMBA_OPT", "2")

CACHE_ENV_VAR = "MEEPLE_GYM_CACHE_DIR"
_SOURCE_SUFFIXES = (".py", ".csv", ".json")


def _package_version() -> str:
    try:
        return metadata.version("meeple-gym")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def cache_root() -> Path:
    """Where compiled kernels are kept: ``$MEEPLE_GYM_CACHE_DIR``, else ``$NUMBA_CACHE_DIR``,
    else the per-user cache folder."""
    override = os.environ.get(CACHE_ENV_VAR) or os.environ.get("NUMBA_CACHE_DIR")
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("meeple-gym", appauthor=False))


def kernel_group(module: str) -> str:
    """The cache group of a module's kernels: ``core`` or a game name."""
    parts = module.split(".")
    if parts[0] != "meeple_gym" or len(parts) < 3:
        return "core"
    if parts[1] == "encoders":
        return parts[2]
    if parts[1] == "baselines":
        return parts[2][: -len("_heuristic")] if parts[2].endswith("_heuristic") else "core"
    return "core" if parts[1] == "core" else parts[1]


def package_dir(name: str) -> Path:
    """The folder of an installed package: the repo's envs/, encoders/, baselines/ in an editable
    install (setuptools maps them to meeple_gym.*), site-packages/meeple_gym/... otherwise."""
    spec = importlib.util.find_spec(name)
    return Path(next(iter(spec.submodule_search_locations))).resolve()


def _defines_kernels(path: Path) -> bool:
    text = path.read_text()
    return "@kernel" in text or "@parallel_kernel" in text


def group_sources(group: str) -> list[tuple[str, Path]]:
    """Every source file and data table the kernels of ``group`` may inline, as (label, path)
    pairs sorted by label; labels are the same installed or editable. Of ``meeple_gym.core``
    only this module and the modules that define kernels count: editing the env wrappers, the
    gate or the CLI recompiles nothing."""
    core = package_dir("meeple_gym.core")
    files = [
        (f"meeple_gym/core/{p.name}", p)
        for p in core.glob("*.py")
        # cache_repair.py writes the data files' format: a change there must not read old ones.
        if p.name in ("jit.py", "cache_repair.py") or _defines_kernels(p)
    ]
    if group != "core":
        game = package_dir(f"meeple_gym.{group}")
        files += [
            (f"meeple_gym/{group}/{p.relative_to(game).as_posix()}", p)
            for p in game.rglob("*")
            if p.suffix in _SOURCE_SUFFIXES and p.is_file()
        ]
        for package, name in (("encoders", f"{group}.py"), ("baselines", f"{group}_heuristic.py")):
            path = package_dir(f"meeple_gym.{package}") / name
            if path.is_file():
                files.append((f"meeple_gym/{package}/{name}", path))
    return sorted(files)


@functools.cache
def group_key(group: str) -> str:
    digest = hashlib.sha256()
    for label, path in group_sources(group):
        digest.update(label.encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    key = f"{group}-{digest.hexdigest()[:16]}"
    key += f"-O{KERNEL_OPT_LEVEL}"  # Numba's cache index does not tell levels apart
    if numba.config.BOUNDSCHECK:
        key += "-boundscheck"
    return key


def cache_dir(group: str) -> Path:
    return cache_root() / f"{_package_version()}-numba{numba.__version__}" / group_key(group)


@functools.cache
def _writable_cache_dir(group: str) -> str | None:
    path = cache_dir(group)
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=path):
            pass
    except OSError as exc:
        _warn_no_cache(f"{path}: {exc.strerror or exc}")
        return None
    return str(path)


_warned = False


def _warn_no_cache(reason: str) -> None:
    global _warned
    if _warned:
        return
    _warned = True
    warnings.warn(
        f"meeple-gym: no writable kernel cache ({reason}); kernels compile on every start. "
        f"Set {CACHE_ENV_VAR} to a writable directory to keep them.",
        CacheWarning,
        stacklevel=4,
    )


@contextlib.contextmanager
def _numba_cache_dir(path: str):
    # Numba picks a function's cache locator when the decorator runs, reading CACHE_DIR then.
    previous = numba.config.CACHE_DIR
    numba.config.CACHE_DIR = path
    try:
        yield
    finally:
        numba.config.CACHE_DIR = previous


@contextlib.contextmanager
def _kernel_opt_level():
    # Numba reads config.OPT when it builds each pass pipeline; the global compiler lock is
    # held, so no other function compiles meanwhile.
    previous = numba.config.OPT
    if "NUMBA_OPT" not in os.environ:
        numba.config.OPT = type(previous)(int(KERNEL_OPT_LEVEL))
    try:
        yield
    finally:
        numba.config.OPT = previous


# The oldest generation's threshold while kernels compile: never reached.
_NO_FULL_COLLECTION = 10**9
_compile_depth = 0

# Numba's overload resolution for a function type (an operator, a NumPy function, an
# ``@overload``), and what it returned for each (function type, typing context, argument
# types, keyword types) while kernels compiled. Keys hold their function type, so the type
# stays interned and keeps the implementation keys its resolution recorded.
_numba_get_call_type = types.BaseFunction.get_call_type
_call_types: dict = {}


def _memoised_get_call_type(self, context, args, kws):
    """``BaseFunction.get_call_type`` resolved once per distinct call (see "Costs inside
    Numba"). The answer depends only on the key; failures are not kept (type inference
    retries a call once more argument types are known)."""
    try:
        key = (self, context, tuple(args), tuple(sorted(kws.items())) if kws else ())
        signature = _call_types.get(key)
    except TypeError:  # an argument type that cannot be hashed: ask Numba every time
        return _numba_get_call_type(self, context, args, kws)
    if signature is None:
        signature = _numba_get_call_type(self, context, args, kws)
        _call_types[key] = signature
    return signature


@contextlib.contextmanager
def _compile_session():
    """No full garbage collection (young cycles are still collected at the thresholds set
    before) and memoised overload resolution, set up by the outermost kernel compile (a kernel
    typed while its caller compiles is nested) and undone when it ends; see "Costs inside
    Numba". The compiler lock is held throughout, so no other function compiles meanwhile."""
    global _compile_depth
    outermost = _compile_depth == 0
    if outermost:
        thresholds = gc.get_threshold()
        if thresholds[0] > 0:  # 0: automatic collection is off already
            gc.set_threshold(thresholds[0], thresholds[1], _NO_FULL_COLLECTION)
        resolver = types.BaseFunction.__dict__["get_call_type"]
        types.BaseFunction.get_call_type = _memoised_get_call_type
    _compile_depth += 1
    try:
        yield
    finally:
        _compile_depth -= 1
        if outermost:
            types.BaseFunction.get_call_type = resolver
            gc.set_threshold(*thresholds)


def _widen(arg_type):
    """The type a kernel is compiled for when another kernel passes ``arg_type``: literal and
    narrow integers become int64, literal booleans plain booleans. uint64 stays (RNG words)."""
    if isinstance(arg_type, (types.IntegerLiteral, types.BooleanLiteral)):
        arg_type = types.unliteral(arg_type)
    if isinstance(arg_type, types.Integer) and arg_type.bitwidth < 64:
        return types.int64
    return arg_type


# Kernel arguments with these names are indices (``g`` a game in ``states``, ``slot`` a row of
# RNG words, a record's index): int64 whether they come from Python or from a prange loop (typed
# uint64 there).
INDEX_ARGUMENTS = ("g", "slot", "index", "dst_index", "src_index")


class _KernelDispatcher(CPUDispatcher):
    """Compiles one specialisation where Numba would compile one per literal value and per
    integer width at the call sites (a player read from an int8 field, a constant, an int64
    sum, a prange index): each copy of a large kernel costs seconds of compile time and runs
    no faster. The caller's arguments are cast to the widened signature."""

    def compile(self, sig):
        # A standalone kernel's cell is filled when its stub compiles; a kernel loaded from the
        # cache was not typed, so the cells its machine code reads are filled here.
        with global_compiler_lock, _kernel_opt_level(), _compile_session():
            hits = sum(self._cache_hits.values())
            result = super().compile(sig)
            entry = getattr(self, "_meeple_standalone", None)
            if entry is not None:
                entry.build()
            if sum(self._cache_hits.values()) > hits:
                for overload in self.overloads.values():
                    _fill_cells(overload.library, getattr(self, "_meeple_group", None))
        return result

    def get_call_template(self, args, kws):
        folded = _fold_defaults(self.py_func, args, kws)
        if folded is None:  # not a call this kernel takes: let Numba report it
            return super().get_call_template(args, kws)
        args = folded
        code = self.py_func.__code__
        index_positions = {
            k
            for k, name in enumerate(code.co_varnames[: code.co_argcount])
            if name in INDEX_ARGUMENTS
        }
        args = tuple(
            types.int64 if k in index_positions and isinstance(a, types.Integer) else _widen(a)
            for k, a in enumerate(args)
        )
        return super().get_call_template(args, {})


@functools.cache
def _parameters(py_func):
    return tuple(inspect.signature(py_func).parameters.values())


def _fold_defaults(py_func, args, kws):
    """The argument types of a call in parameter order, keywords placed and left-out defaults
    typed as values: Numba would compile one copy for a call that leaves ``write=True`` out and
    another for a call that passes it. None if the call does not fit the parameters."""
    parameters = _parameters(py_func)
    if len(args) > len(parameters) or any(p.kind != p.POSITIONAL_OR_KEYWORD for p in parameters):
        return None
    folded = list(args)
    for parameter in parameters[len(args) :]:
        if parameter.name in kws:
            folded.append(kws[parameter.name])
        elif parameter.default is not parameter.empty:
            folded.append(numba.typeof(parameter.default))
        else:
            return None
    if set(kws) - {p.name for p in parameters[len(args) :]}:
        return None
    return tuple(folded)


class _QuickFlags(numba_compiler.Flags):
    """Numba's compile flags, hashed and compared quickly. Type inference looks each overload
    up in a cache keyed by the flags, and Numba's ``TargetConfig`` builds a dict of all ~40
    options for every hash and every comparison: 7% of a profiled Everdell compile. The results
    are Numba's: its hash is that of the sorted option *names* (one value per class), and two
    configs are equal when every option reads the same, set or left at its default."""

    __slots__ = ()

    def __hash__(self):
        return _FLAGS_HASH

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


_FLAG_TYPES = (numba_compiler.Flags, _QuickFlags)
_FLAGS_HASH = hash(tuple(sorted(numba_compiler.Flags.options)))


class _QuickFlagsCompiler(numba_dispatcher._FunctionCompiler):
    def _customize_flags(self, flags):
        return _QuickFlags(super()._customize_flags(flags))


def _compile(fn, group=None, cacheable=True, cache_subdir=None, **extra):
    if numba.config.DISABLE_JIT:
        return numba.njit(**JIT_OPTIONS, **extra)(fn)
    group = group or kernel_group(fn.__module__)
    if not extra.get("parallel"):
        extra.setdefault("pipeline_class", _KernelPipeline)
    path = _writable_cache_dir(group) if cacheable else None
    if path is not None and cache_subdir is not None:
        path = os.path.join(path, cache_subdir)
        try:
            os.makedirs(path, exist_ok=True)
        except OSError:
            path = None
    if path is None:
        dispatcher = numba.njit(**{**JIT_OPTIONS, "cache": False}, **extra)(fn)
    else:
        with _numba_cache_dir(path):
            dispatcher = numba.njit(**JIT_OPTIONS, **extra)(fn)
            # Numba's own cache fails on every load of a damaged entry; ours drops it.
            pipeline = extra.get("pipeline_class")
            link_only = isinstance(pipeline, type) and issubclass(pipeline, _LinkOnlyPipeline)
            cache_class = _LinkOnlyFunctionCache if link_only else RepairingFunctionCache
            dispatcher._cache = cache_class(fn)
    if type(dispatcher._compiler) is numba_dispatcher._FunctionCompiler:
        dispatcher._compiler.__class__ = _QuickFlagsCompiler
    dispatcher.__class__ = _KernelDispatcher
    dispatcher._meeple_group = group
    return dispatcher


class _InternalKernelDispatcher(_KernelDispatcher):
    """A kernel that other kernels call. It is compiled without the CPython and C entry
    wrappers Numba otherwise emits for every function; a call from Python (a snapshot check, a
    test) goes to a second copy compiled with them on first use and cached in its own folder
    (Numba's cache index does not tell the two apart)."""

    def __call__(self, *args, **kwargs):
        entry = getattr(self, "_meeple_python_entry", None)
        if entry is None:
            entry = _compile(self.py_func, group=self._meeple_group, cache_subdir="python-entry")
            self._meeple_python_entry = entry
        return entry(*args, **kwargs)


class _LinkOnlyLibrary(numba_codegen.JITCodeLibrary):
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
        return _EnvlessCodegen(self._codegen)


class _FragmentLibrary(_LinkOnlyLibrary):
    """The code library of a fragment (``kernel(fragment=True)``): not even its module is
    optimised, only its functions; the kernels that link it optimise it with their own code."""

    def _optimize_final_module(self):
        pass


class _EnvlessCodegen:
    """The codegen as a link-only library sees it: Numba stores a function's environment
    pointer into its loaded machine code, and this library has none."""

    def __init__(self, codegen):
        self._real = codegen

    def set_env(self, env_name, env):
        pass

    def __getattr__(self, name):
        return getattr(self._real, name)


class _KernelLower(numba_lowering.Lower):
    """Numba's lowering without reference counting for record fields. A nested-array field
    of a record (``s.hand``) is a view into the record that Numba builds with no memory info of
    its own, so its incref and decref do nothing at run time, yet each is emitted as ten
    instructions that unpack the whole array structure."""

    def incref(self, typ, val):
        if not isinstance(typ, types.NestedArray):
            super().incref(typ, val)

    def decref(self, typ, val):
        if not isinstance(typ, types.NestedArray):
            super().decref(typ, val)


@register_pass(mutates_CFG=True, analysis_only=False)
class _KernelLowering(NativeLowering):
    _name = "meeple_gym_kernel_lowering"

    @property
    def lowering_class(self):
        return _KernelLower


@register_pass(mutates_CFG=True, analysis_only=False)
class _LinkOnlyLowering(_KernelLowering):
    _name = "meeple_gym_link_only_lowering"

    def run_pass(self, state):
        if state.library is None:
            state.library = _LinkOnlyLibrary(state.targetctx.codegen(), state.func_id.func_qualname)
        return super().run_pass(state)


@register_pass(mutates_CFG=True, analysis_only=False)
class _FragmentLowering(_KernelLowering):
    _name = "meeple_gym_fragment_lowering"

    def run_pass(self, state):
        if state.library is None:
            state.library = _FragmentLibrary(state.targetctx.codegen(), state.func_id.func_qualname)
        return super().run_pass(state)


@register_pass(mutates_CFG=False, analysis_only=False)
class _HoistRecordArrays(FunctionPass):
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
class _DropPlainDels(LoweringPass):
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


class _KernelPipeline(CompilerBase):
    """Numba's nopython pipeline with ``_HoistRecordArrays`` after its typed rewrites and
    ``_DropPlainDels`` after its IR legalisation (which places the ``del``s)."""

    def define_pipelines(self):
        manager = DefaultPassBuilder.define_nopython_pipeline(self.state)
        manager.add_pass_after(_HoistRecordArrays, NopythonRewrites)
        manager.add_pass_after(_DropPlainDels, IRLegalization)
        manager.passes = [
            (self._lowering if pass_class is NativeLowering else pass_class, description)
            for pass_class, description in manager.passes
        ]
        manager.finalize()
        return [manager]

    _lowering = _KernelLowering


class _LinkOnlyPipeline(_KernelPipeline):
    """``_KernelPipeline`` lowering into a ``_LinkOnlyLibrary``."""

    _lowering = _LinkOnlyLowering


class _FragmentPipeline(_LinkOnlyPipeline):
    """``_KernelPipeline`` lowering into a ``_FragmentLibrary``."""

    _lowering = _FragmentLowering


class _LinkOnlyCacheImpl(CompileResultCacheImpl):
    def rebuild(self, target_context, payload):
        # Load the cached bitcode into a _LinkOnlyLibrary too; Numba would make a library that
        # emits machine code for it on load.
        codegen = target_context.codegen()
        previous = codegen._library_class
        codegen._library_class = _LinkOnlyLibrary
        try:
            return super().rebuild(target_context, payload)
        finally:
            codegen._library_class = previous


class _LinkOnlyFunctionCache(RepairingFunctionCache):
    _impl_class = _LinkOnlyCacheImpl


# Numba options that drop the Python and C entry wrappers (internal kernels, standalone impls).
_NO_ENTRY_WRAPPERS = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}


def _compile_internal(fn, **extra):
    dispatcher = _compile(fn, **_NO_ENTRY_WRAPPERS, **extra)
    if not numba.config.DISABLE_JIT:
        dispatcher.__class__ = _InternalKernelDispatcher
    return dispatcher


def kernel(fn=None, *, fragment=False):
    """Compile a serial kernel with the project's options. A private kernel (its name starts
    with ``_``) is internal: compiled for other kernels, with a separate copy for calls from
    Python (see the module docstring). ``@kernel(fragment=True)``: an internal kernel whose
    module is optimised only inside the kernels that link it (see "Fragments")."""
    if fn is None:
        return functools.partial(kernel, fragment=fragment)
    if fragment:
        if not fn.__name__.startswith("_"):
            raise ValueError(f"a fragment is internal: name it _{fn.__name__}")
        return _compile_internal(fn, pipeline_class=_FragmentPipeline)
    if fn.__name__.startswith("_"):
        return _compile_internal(fn, pipeline_class=_LinkOnlyPipeline)
    return _compile(fn)


def parallel_kernel(fn):
    """Compile a kernel whose outer ``numba.prange`` loop runs across threads."""
    return _compile(fn, parallel=True)


def game_kernel(fn, game: str, parallel: bool = False, internal: bool = False):
    """Compile ``fn`` into the cache group of ``game`` whatever module defines it: a
    game-independent template (e.g. the ISMCTS search in meeple_gym.baselines.ismcts, the batch
    step in meeple_gym.core.stepping) bound to one game's kernels through its globals
    (``rebind``) inlines that game's rules, so its cached machine code must go stale with them.
    ``internal``: a serial kernel only other kernels call, compiled like a private ``kernel``."""
    if parallel:
        return _compile(fn, group=game, parallel=True)
    if internal:
        return _compile_internal(fn, group=game, pipeline_class=_LinkOnlyPipeline)
    return _compile(fn, group=game)


def rebind(fn, namespace: dict):
    """``fn`` with ``namespace`` as its globals: the same code, a per-game function."""
    return pytypes.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__)


# ---- standalone kernels (see the module docstring) ----------------------------------------------


class array_arg:
    """A standalone kernel argument: a 1-D C-contiguous array of ``dtype``."""

    def __init__(self, dtype):
        self.dtype = np.dtype(dtype)
        # Unaligned: the kernel then assumes nothing about the data's alignment, so a caller's
        # array that Numba types as unaligned (a packed record array, a view at an odd offset)
        # is read correctly through the same compiled code.
        self.numba_type = types.Array(numba.from_dtype(self.dtype), 1, "C", aligned=False)

    def accepts(self, given) -> bool:
        return (
            isinstance(given, types.Array)
            and given.ndim == 1
            and given.layout == "C"
            and given.dtype == self.numba_type.dtype
        )


class record_arg:
    """A standalone kernel argument: one record (``states[g]``) of ``dtype``."""

    def __init__(self, dtype):
        self.dtype = np.dtype(dtype)
        self.numba_type = numba.from_dtype(self.dtype)

    def accepts(self, given) -> bool:
        return given == self.numba_type


def _numba_type(kind):
    return kind.numba_type if isinstance(kind, (array_arg, record_arg)) else kind


def _cell_caller(symbol: str, arg_kinds, return_type):
    """An intrinsic that calls the compiled kernel whose address is in the cell named
    ``symbol`` (scalars cast to the declared types). Its arguments are passed one by one, not
    packed into a tuple: building a tuple holding an array increments and decrements the
    array's reference count, atomically, on every call."""
    wanted = tuple(_numba_type(kind) for kind in arg_kinds)

    def typer(typingctx, arguments):
        for given, kind in zip(arguments, arg_kinds, strict=True):
            if isinstance(kind, (array_arg, record_arg)):
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
                value
                if isinstance(kind, (array_arg, record_arg))
                else context.cast(builder, value, given, want)
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


class _Standalone:
    """One standalone kernel: the kernel compiled for its one signature and the cell that
    holds its address (filled by ``build``)."""

    def __init__(self, impl, arg_kinds, return_type, symbol, group):
        self.impl = impl
        self.signature = tuple(_numba_type(kind) for kind in arg_kinds)
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


_standalone: dict[str, list[_Standalone]] = {}
_by_symbol: dict[str, _Standalone] = {}
_SYMBOL_PREFIX = "meeple_gym.standalone."


def _fill_cells(library, group) -> None:
    """Build every standalone kernel whose cell ``library``'s code reads (all of ``group``'s
    if this Numba keeps no module to look in)."""
    # A kernel cached as object code keeps its linkable module in _shared_module; an internal
    # kernel cached as bitcode (_LinkOnlyLibrary) is loaded into _final_module.
    module = getattr(library, "_shared_module", None) or getattr(library, "_final_module", None)
    if module is None:
        for entry in _standalone.get(group, ()):
            entry.build()
        return
    for variable in module.global_variables:
        entry = _by_symbol.get(variable.name)
        if entry is not None:
            entry.build()


def _stub_source(fn, arg_kinds) -> str:
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


def _load_generated(source: str, group: str, module_name: str):
    """Compile generated source as if from a file in the group's cache folder (Numba caches
    only functions with a source file); the file's mtime is fixed so that every process that
    writes it gives Numba's cache index the same stamp. Returns (code, cacheable)."""
    path = _writable_cache_dir(group)
    filename = f"<generated {module_name}>"
    if path is not None:
        file = Path(path) / "standalone" / f"{module_name}.py"
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


def standalone_kernel(*arg_kinds, returns=types.none):
    """Compile a large kernel once, for one signature, and return the kernel callers use.

    ``arg_kinds`` gives each argument: ``array_arg(dtype)`` (1-D C-contiguous),
    ``record_arg(dtype)`` or a Numba scalar type (``types.int64``, ``types.uint64``, ...);
    ``returns`` the result type. The returned kernel keeps the name, parameters and defaults
    and works from Python and from other kernels; kernels that call it no longer embed it.
    Under ``NUMBA_DISABLE_JIT`` it is the plain function.
    """

    def wrap(fn):
        impl = _compile_internal(fn)
        if numba.config.DISABLE_JIT:
            return impl
        group = kernel_group(fn.__module__)
        qualified = f"{fn.__module__}.{fn.__name__}"
        symbol = f"{_SYMBOL_PREFIX}{group_key(group)}.{qualified}"
        code, cacheable = _load_generated(_stub_source(fn, arg_kinds), group, qualified)
        namespace = {"CALL": _cell_caller(symbol, arg_kinds, returns)}
        exec(code, namespace)  # noqa: S102 - our own generated source, see _stub_source
        entry = _Standalone(impl, arg_kinds, returns, symbol, group)
        _standalone.setdefault(group, []).append(entry)
        _by_symbol[symbol] = entry
        stub_fn = namespace[fn.__name__]
        stub_fn.__module__ = fn.__module__
        stub_fn.__doc__ = fn.__doc__
        stub_fn.__qualname__ = fn.__qualname__
        stub = _compile(stub_fn, group=group, cacheable=cacheable)
        stub._meeple_standalone = entry
        return stub

    return wrap
