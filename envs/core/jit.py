"""All Numba options live here so every kernel compiles the same way.

fastmath stays off (bit-exact results across machines); ``error_model="numpy"`` drops Python's
zero-division checks from hot loops; ``cache=True`` so a warm start only loads machine code.
Kernels are declared with ``kernel``, ``parallel_kernel``, ``game_kernel`` and
``standalone_kernel`` (with ``array_arg`` and ``record_arg``).

The compiler fence
------------------
A cold compile of a game took minutes with plain ``numba.njit``. The techniques that cut it
(one specialisation per kernel, internal kernels and link-only code libraries, standalone
kernels called through pointer cells, extra compiler passes, quick compile flags, a compile
session, a self-repairing cache) reach into Numba's private internals; each lives in its own
module of ``meeple_gym.core.compiler``, whose docstrings explain them and give their figures.
Each is checked when the first kernel is declared: the Numba version must be in the tested
range (pyproject.toml caps Numba to it) and the private classes and attributes the technique
relies on must be there. A technique whose check fails falls back to what plain ``numba.njit``
does with the same options (a standalone or an internal kernel becomes an ordinary kernel),
with one ``CompilerFallbackWarning`` naming it and the Numba version: compiles are slower, the
games play the same. ``MEEPLE_GYM_PLAIN_NUMBA=1`` forces the fallback of every technique.
``meeple_gym.core.compiler.status()`` tells which are active (tests/test_compiler_fence.py).

The on-disk cache
-----------------
Numba's own cache checks only the source file of each function, so a kernel that inlines
another module (an encoder inlines its game's rules, every game inlines ``meeple_gym.core.rng``)
could run stale machine code after an upgrade or an edit to a rules module or a data table.
Here every kernel is cached in a directory keyed by what it can inline:

    <root>/<package version>-numba<version>/<group>-<hash>-O<level>-<techniques>

A group is one game (its ``meeple_gym.<game>`` package with the data tables, its encoder and its
heuristic, plus the kernel modules of ``meeple_gym.core``) or ``core`` alone; the hash covers
those files, this module and the compiler package. Editing one game recompiles that game only.
``<techniques>`` is ``fast`` when every technique of the fence is active, ``plain`` when none
is, else the ones that fell back: their machine code differs.
``<root>`` is ``$MEEPLE_GYM_CACHE_DIR`` if set, else ``$NUMBA_CACHE_DIR``, else the per-user
cache directory (``~/.cache/meeple-gym`` on Linux). Under ``NUMBA_BOUNDSCHECK=1`` the key gets a
``-boundscheck`` suffix: Numba's index does not tell checked from unchecked code. If nothing is
writable, kernels compile without a cache and one ``CacheWarning`` says so.
A cache entry that fails to load is deleted and its kernel compiled and saved afresh, with one
``CorruptCacheWarning`` naming the folder, where Numba would fail every later start until the
files were deleted by hand (meeple_gym.core.compiler.cache; tests/test_kernel_cache.py).
Processes may share a cache: each file is written to a temporary name and renamed, so none
reads a partly written one.
A template bound to a game's kernels (``rebind``: the ISMCTS search, a heuristic's batch
policy) is cached under a name that carries a digest of its bindings, so two bindings of one
template in one group (two policies of a game) never load each other's machine code.

Coverage: under ``NUMBA_DISABLE_JIT=1`` every kernel runs as plain Python when given
``states.view(np.recarray)`` (plain NumPy records have no attribute access);
tests/test_pure_python_mode.py checks that this plays the same games as the compiled kernels.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import inspect
import os
import sys
import tempfile
import types as pytypes
import warnings
from importlib import metadata
from pathlib import Path

import numba
import numpy as np
from numba.core import types

from meeple_gym.core import (
    compiler,
    threads,  # noqa: F401 - sets the threading layer before any kernel
)
from meeple_gym.core.compiler import KERNEL_OPT_LEVEL, CacheWarning

__all__ = [
    "CACHE_ENV_VAR",
    "JIT_OPTIONS",
    "KERNEL_OPT_LEVEL",
    "array_arg",
    "cache_dir",
    "cache_root",
    "game_kernel",
    "group_key",
    "group_sources",
    "kernel",
    "kernel_group",
    "parallel_kernel",
    "rebind",
    "record_arg",
    "standalone_kernel",
    "word_loader",
]

JIT_OPTIONS = {"cache": True, "fastmath": False, "nogil": True, "error_model": "numpy"}

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


# Cache group -> package of a game that lives outside meeple_gym (register_kernel_package).
_EXTERNAL_GROUPS: dict[str, str] = {}


def register_kernel_package(group: str, package: str) -> None:
    """Cache the kernels of ``package``, a game package outside meeple_gym (e.g. the example
    ``examples.minimal_game``), in the cache group ``group`` (its game name), keyed by that
    package's sources as a built-in game is by its own. Call it before the package declares a
    kernel (docs/adding-a-game.md)."""
    _EXTERNAL_GROUPS[group] = package


def kernel_group(module: str) -> str:
    """The cache group of a module's kernels: ``core`` or a game name."""
    for group, package in _EXTERNAL_GROUPS.items():
        if module == package or module.startswith(package + "."):
            return group
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
    only this module, the compiler package and the modules that define kernels count: editing
    the env wrappers, the gate or the CLI recompiles nothing."""
    core = package_dir("meeple_gym.core")
    files = [
        (f"meeple_gym/core/{p.name}", p)
        for p in core.glob("*.py")
        if p.name in ("jit.py", "tables.py") or _defines_kernels(p)  # tables: frozen into kernels
    ]
    # The compiler package shapes all machine code, and its cache module writes the data files'
    # format: a change there must not read old entries.
    fence = package_dir("meeple_gym.core.compiler")
    files += [(f"meeple_gym/core/compiler/{p.name}", p) for p in fence.glob("*.py")]
    if group != "core":
        game = package_dir(_EXTERNAL_GROUPS.get(group, f"meeple_gym.{group}"))
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


def opt_level() -> str:
    """The LLVM optimisation level kernels compile at: ours unless the dispatcher (which
    applies it) fell back, then Numba's."""
    if compiler.active("dispatcher"):
        return KERNEL_OPT_LEVEL
    return str(int(numba.config.OPT))


@functools.cache
def group_key(group: str) -> str:
    digest = hashlib.sha256()
    for label, path in group_sources(group):
        digest.update(label.encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    key = f"{group}-{digest.hexdigest()[:16]}"
    key += f"-O{opt_level()}"  # Numba's cache index does not tell levels apart
    key += f"-{compiler.cache_tag()}"  # nor code compiled with a technique from code without
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


def _compile(fn, group=None, cacheable=True, cache_subdir=None, **extra):
    """``numba.njit`` with the project's options, cached in the group's folder, with every
    active technique of the compiler fence applied."""
    if numba.config.DISABLE_JIT:
        return numba.njit(**JIT_OPTIONS, **extra)(fn)
    group = group or kernel_group(fn.__module__)
    if not extra.get("parallel") and compiler.active("passes"):
        extra.setdefault("pipeline_class", compiler.passes.KernelPipeline)
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
            if compiler.active("cache"):
                # Numba's own cache fails on every load of a damaged entry; ours drops it.
                pipeline = extra.get("pipeline_class")
                link_only = compiler.active("internal") and (
                    isinstance(pipeline, type)
                    and issubclass(pipeline, compiler.internal.LinkOnlyPipeline)
                )
                cache = compiler.internal.LinkOnlyFunctionCache if link_only else None
                dispatcher._cache = (cache or compiler.cache.RepairingFunctionCache)(fn)
    if compiler.active("quick_flags"):
        compiler.flags.install(dispatcher)
    if compiler.active("dispatcher"):
        dispatcher.__class__ = compiler.dispatch.KernelDispatcher
    dispatcher._meeple_group = group
    return dispatcher


def _compile_internal(fn, group=None, cacheable=True, link_only=False, fragment=False):
    """A kernel only other kernels call: without entry wrappers where the fence allows it, an
    ordinary kernel otherwise. ``link_only``: no machine code of its own either (a private
    kernel; a standalone kernel's body needs its machine code). ``fragment``: link-only, and
    its module optimised only inside the kernels that link it."""
    if numba.config.DISABLE_JIT or not compiler.active("internal"):
        return _compile(fn, group=group, cacheable=cacheable)
    internal = compiler.internal
    if fragment:
        extra = {**internal.NO_ENTRY_WRAPPERS, "pipeline_class": internal.FragmentPipeline}
    elif link_only:
        extra = {**internal.NO_ENTRY_WRAPPERS, "pipeline_class": internal.LinkOnlyPipeline}
    else:
        extra = internal.NO_ENTRY_WRAPPERS
    dispatcher = _compile(fn, group=group, cacheable=cacheable, **extra)
    dispatcher.__class__ = internal.InternalKernelDispatcher
    return dispatcher


def kernel(fn=None, *, fragment=False):
    """Compile a serial kernel with the project's options. A private kernel (its name starts
    with ``_``) is internal: compiled for other kernels, with a separate copy for calls from
    Python (meeple_gym.core.compiler.internal). ``@kernel(fragment=True)``: an internal kernel
    that is a part of a larger one, its module optimised only inside the kernels that link it
    (meeple_gym.core.compiler.internal, "Fragments")."""
    if fn is None:
        return functools.partial(kernel, fragment=fragment)
    if fragment:
        if not fn.__name__.startswith("_"):
            raise ValueError(f"a fragment is internal: name it _{fn.__name__}")
        return _compile_internal(fn, link_only=True, fragment=True)
    if fn.__name__.startswith("_"):
        return _compile_internal(fn, link_only=True)
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
        return _compile_internal(fn, group=game, link_only=True)
    return _compile(fn, group=game)


def rebind(fn, namespace: dict):
    """``fn`` with ``namespace`` as its globals: the same code, a per-game function.

    Numba names a cached kernel's files after its module and qualified name and keys its index
    by the bytecode, never by the globals: two bindings of one template in one cache group (two
    policies of a game, a full and a compact encoder) would load each other's machine code.
    The qualified name therefore carries a digest of what the code's global names are bound
    to (``binding_tag``)."""
    bound = pytypes.FunctionType(fn.__code__, namespace, fn.__name__, fn.__defaults__)
    bound.__qualname__ = f"{fn.__qualname__}__{binding_tag(fn.__code__, namespace)}"
    return bound


def _bound_identity(value) -> str:
    """What a global a template reads is bound to, stable across processes (no addresses)."""
    func = getattr(value, "py_func", value)  # a dispatcher: the function it compiles
    if isinstance(func, pytypes.FunctionType):
        return f"fn:{func.__module__}.{func.__qualname__}"
    if isinstance(value, pytypes.ModuleType):
        return f"module:{value.__name__}"
    if isinstance(value, (bool, int, float, str, bytes, type(None), np.generic, np.dtype)):
        return f"{type(value).__name__}:{value!r}"
    if isinstance(value, np.ndarray):
        data = hashlib.sha256(np.ascontiguousarray(value).view(np.uint8).tobytes()).hexdigest()
        return f"array:{value.dtype.str}:{value.shape}:{data}"
    return f"object:{type(value).__module__}.{type(value).__qualname__}"


def binding_tag(code, namespace: dict) -> str:
    """A short digest of the globals ``code`` (and the code objects nested in it) reads, as
    bound in ``namespace``."""
    names = set()
    stack = [code]
    while stack:
        co = stack.pop()
        names.update(co.co_names)
        stack.extend(c for c in co.co_consts if isinstance(c, pytypes.CodeType))
    digest = hashlib.sha256()
    for name in sorted(names):
        if name in namespace:
            digest.update(f"{name}={_bound_identity(namespace[name])}\0".encode())
    return digest.hexdigest()[:12]


# ---- standalone kernels (meeple_gym.core.compiler.standalone) -----------------------------------


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


_LITTLE_ENDIAN = sys.byteorder == "little"


def _load_word_from_bytes(array, byte):
    """``load_word`` where the fence's ``word_loads`` is off: the same word, built from a byte
    view of the array in the machine's byte order."""
    raw = array.view(np.uint8)
    word = np.uint64(0)
    for i in range(8):
        shift = np.uint64(8 * i if _LITTLE_ENDIAN else 56 - 8 * i)
        word |= np.uint64(raw[byte + i]) << shift
    return word


@functools.cache
def word_loader():
    """``load_word(array, byte)`` for kernels: the eight bytes at byte offset ``byte`` of a
    C-contiguous array's data as one uint64 (any alignment), without a view of the array
    (meeple_gym.core.compiler.words); the plain kernel where that technique is off."""
    if not numba.config.DISABLE_JIT and compiler.active("word_loads"):
        return compiler.words.load_word
    return _compile(_load_word_from_bytes, group="core")


def standalone_kernel(*arg_kinds, returns=types.none):
    """Compile a large kernel once, for one signature, and return the kernel callers use.

    ``arg_kinds`` gives each argument: ``array_arg(dtype)`` (1-D C-contiguous),
    ``record_arg(dtype)`` or a Numba scalar type (``types.int64``, ``types.uint64``, ...);
    ``returns`` the result type. The returned kernel keeps the name, parameters and defaults
    and works from Python and from other kernels; kernels that call it no longer embed it.
    Under ``NUMBA_DISABLE_JIT`` it is the plain function; where the fence turns the technique
    off, an ordinary kernel.
    """

    def wrap(fn):
        parameters = inspect.signature(fn).parameters
        if len(parameters) != len(arg_kinds):
            raise TypeError(
                f"{fn.__name__} takes {len(parameters)} arguments; {len(arg_kinds)} kinds given"
            )
        if numba.config.DISABLE_JIT:
            return _compile(fn)
        if not compiler.active("standalone"):
            return _compile(fn)
        standalone = compiler.standalone
        impl = _compile_internal(fn)
        group = kernel_group(fn.__module__)
        qualified = f"{fn.__module__}.{fn.__name__}"
        symbol = f"{standalone.SYMBOL_PREFIX}{group_key(group)}.{qualified}"
        source = standalone.stub_source(fn, arg_kinds)
        code, cacheable = standalone.load_generated(source, _writable_cache_dir(group), qualified)
        namespace = {"CALL": standalone.cell_caller(symbol, arg_kinds, returns)}
        exec(code, namespace)  # noqa: S102 - our own generated source, see stub_source
        entry = standalone.Standalone(impl, arg_kinds, returns, symbol, group)
        standalone.registry.setdefault(group, []).append(entry)
        standalone.by_symbol[symbol] = entry
        stub_fn = namespace[fn.__name__]
        stub_fn.__module__ = fn.__module__
        stub_fn.__doc__ = fn.__doc__
        stub_fn.__qualname__ = fn.__qualname__
        stub = _compile(stub_fn, group=group, cacheable=cacheable)
        stub._meeple_standalone = entry
        return stub

    return wrap
