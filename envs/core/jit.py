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

One specialisation per kernel
----------------------------
Numba compiles a separate copy of a called kernel for every literal argument value and every
integer width its call sites pass (a player read from an int8 field, a constant, a prange
index typed uint64). Radlands compiled 339 function copies for 143 functions. Kernels here are
compiled for widened argument types instead (``_KernelDispatcher``), which halved that count and
cut Radlands' cold compile CPU time by about 40% (benchmarks/README.md, issue 11);
tests/test_compile.py checks that every kernel has one signature.

Coverage: under ``NUMBA_DISABLE_JIT=1`` every kernel runs as plain Python when given
``states.view(np.recarray)`` (plain NumPy records have no attribute access);
tests/test_pure_python_mode.py checks that this plays the same games as the compiled kernels.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import os
import tempfile
import warnings
from importlib import metadata
from pathlib import Path

import numba
from numba.core import types
from numba.core.registry import CPUDispatcher

from meeple_gym.core import threads  # noqa: F401 - sets the threading layer before any kernel

JIT_OPTIONS = {"cache": True, "fastmath": False, "nogil": True, "error_model": "numpy"}

CACHE_ENV_VAR = "MEEPLE_GYM_CACHE_DIR"
_SOURCE_SUFFIXES = (".py", ".csv", ".json")


class CacheWarning(UserWarning):
    """Kernels compile without an on-disk cache (no writable cache directory)."""


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
        if p.name == "jit.py" or _defines_kernels(p)
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


def _widen(arg_type):
    """The type a kernel is compiled for when another kernel passes ``arg_type``: literal and
    narrow integers become int64, literal booleans plain booleans. uint64 stays (RNG words)."""
    if isinstance(arg_type, (types.IntegerLiteral, types.BooleanLiteral)):
        arg_type = types.unliteral(arg_type)
    if isinstance(arg_type, types.Integer) and arg_type.bitwidth < 64:
        return types.int64
    return arg_type


# Kernel arguments with these names are indices (``g`` a game in ``states``, ``slot`` a row of
# RNG words): int64 whether they come from Python or from a prange loop (typed uint64 there).
INDEX_ARGUMENTS = ("g", "slot")


class _KernelDispatcher(CPUDispatcher):
    """Compiles one specialisation where Numba would compile one per literal value and per
    integer width at the call sites (a player read from an int8 field, a constant, an int64
    sum, a prange index): each copy of a large kernel costs seconds of compile time and runs
    no faster. The caller's arguments are cast to the widened signature."""

    def get_call_template(self, args, kws):
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
        kws = {name: _widen(a) for name, a in kws.items()}
        return super().get_call_template(args, kws)


def _compile(fn, group=None, **extra):
    if numba.config.DISABLE_JIT:
        return numba.njit(**JIT_OPTIONS, **extra)(fn)
    path = _writable_cache_dir(group or kernel_group(fn.__module__))
    if path is None:
        dispatcher = numba.njit(**{**JIT_OPTIONS, "cache": False}, **extra)(fn)
    else:
        with _numba_cache_dir(path):
            dispatcher = numba.njit(**JIT_OPTIONS, **extra)(fn)
    dispatcher.__class__ = _KernelDispatcher
    return dispatcher


def kernel(fn):
    """Compile a serial kernel with the project's options."""
    return _compile(fn)


def parallel_kernel(fn):
    """Compile a kernel whose outer ``numba.prange`` loop runs across threads."""
    return _compile(fn, parallel=True)


def game_kernel(fn, game: str, parallel: bool = False):
    """Compile ``fn`` into the cache group of ``game`` whatever module defines it: a
    game-independent template (e.g. the ISMCTS search in meeple_gym.baselines.ismcts) bound to
    one game's kernels through its globals inlines that game's rules, so its cached machine
    code must go stale with them."""
    return _compile(fn, group=game, **({"parallel": True} if parallel else {}))
