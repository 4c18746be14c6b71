"""Technique ``cache``: a kernel cache entry that fails to load is dropped and compiled afresh.

Numba's ``FunctionCache`` raises from every load of a damaged entry: an index (``*.nbi``) cut
short or overwritten fails to unpickle, and so does such a data file (``*.nbc``), or LLVM rejects
the code in it. Every later start then failed until the user deleted the files by hand.
``RepairingFunctionCache`` (every kernel dispatcher of meeple_gym.core.jit uses it) guards the
reading and rebuilding of an entry: on any error it deletes the function's index and data files,
warns once per cache folder (``CorruptCacheWarning``) and reports a miss, so the kernel compiles
and is saved again. Its data files start with a SHA-256 digest of their contents: a data file
garbled inside its machine code, which LLVM may load without complaint, fails that check instead
of running. A data file that the index names but that is missing is an ordinary miss, as in
Numba: another process writes its index just before its data file.

Only loading is guarded: computing the index key (which pickles the function's closure) and
compiling are not, so an error of the kernel itself is still raised.

Relies on (``check``): ``FunctionCache._load_overload``/``_index_key``/``disable`` and the
instance attributes they use, ``IndexDataCacheFile._save_data``/``_load_data``/``_dump``/
``_open_for_write``/``_data_path``, ``CompileResultCacheImpl.filename_base``. Fallback: Numba's
own ``FunctionCache``, which fails on every load of a damaged entry.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import pickle
import re
import warnings

from numba.core import config
from numba.core.caching import Cache, CompileResultCacheImpl, FunctionCache, IndexDataCacheFile

from meeple_gym.core.compiler import CacheWarning, CorruptCacheWarning, caller_level, missing

__all__ = ["CacheWarning", "CorruptCacheWarning", "RepairingFunctionCache", "check"]


def check() -> str | None:
    """None if this Numba's cache has what ``RepairingFunctionCache`` overrides and reads."""
    absent = missing(
        [
            (FunctionCache, ("_load_overload", "_index_key", "disable", "_impl_class")),
            (IndexDataCacheFile, ("_save_data", "_load_data", "_dump", "_open_for_write")),
            (IndexDataCacheFile, ("_data_path", "load")),
            (CompileResultCacheImpl, ("filename_base", "rebuild")),
        ]
    )
    if absent:
        return absent
    # Instance attributes that Cache.__init__ and enable() set, read by _load_overload and _drop.
    names = set(Cache.__init__.__code__.co_names) | set(Cache.enable.__code__.co_names)
    unset = [a for a in ("_cache_file", "_impl", "_enabled", "_cache_path") if a not in names]
    return "Cache sets no " + ", ".join(unset) if unset else None


class CorruptCacheData(ValueError):
    """A data file does not match the digest written in front of it."""


# Data file layout: _MAGIC, the SHA-256 digest of the rest, then Numba's pickled entry.
_MAGIC = b"meeple-gym kernel cache data 1\n"
_DIGEST_SIZE = hashlib.sha256().digest_size

_warned_folders: set[str] = set()


class _CheckedCacheFile(IndexDataCacheFile):
    """Numba's index and data files, each data file headed by a digest of its contents."""

    def _save_data(self, name, data):
        data = self._dump(data)
        with self._open_for_write(self._data_path(name)) as f:
            f.write(_MAGIC + hashlib.sha256(data).digest() + data)

    def _load_data(self, name):
        with open(self._data_path(name), "rb") as f:
            raw = f.read()
        start = len(_MAGIC) + _DIGEST_SIZE
        data = raw[start:]
        if not raw.startswith(_MAGIC) or raw[len(_MAGIC) : start] != hashlib.sha256(data).digest():
            raise CorruptCacheData(f"{name} does not match its digest")
        return pickle.loads(data)  # noqa: S301 - our own cache file, checked above


class RepairingFunctionCache(FunctionCache):
    """Numba's per-function cache; an entry that fails to load is deleted and reported as a
    miss (see the module docstring). Create it where Numba would, with ``numba.config.CACHE_DIR``
    set to the cache folder: that folder is the one the warning names."""

    def __init__(self, py_func):
        super().__init__(py_func)
        self._cache_file.__class__ = _CheckedCacheFile
        self._warn_folder = config.CACHE_DIR or self._cache_path

    def _load_overload(self, sig, target_context):
        # Numba's Cache._load_overload with the file reads and the rebuild guarded.
        if not self._enabled:
            return None
        key = self._index_key(sig, target_context.codegen())
        try:
            data = self._cache_file.load(key)
            return None if data is None else self._impl.rebuild(target_context, data)
        except Exception as exc:
            if os.name == "nt" and isinstance(exc, OSError) and exc.errno == errno.EACCES:
                raise  # another process has the file open: Numba's own guard makes it a miss
            self._drop(exc)
            return None

    def _drop(self, exc: Exception) -> None:
        """Delete this function's index and data files and warn once for the folder."""
        base = self._impl.filename_base
        own = re.compile(re.escape(base) + r"(\.nbi|\.\d+\.nbc)")
        with contextlib.suppress(OSError):
            for name in os.listdir(self._cache_path):
                if own.fullmatch(name):
                    try:
                        os.remove(os.path.join(self._cache_path, name))
                    except FileNotFoundError:
                        pass  # another process dropped it first
                    except OSError:
                        # Saving would read the damaged index again and fail: no cache for
                        # this function in this process.
                        self.disable()
        folder = str(self._warn_folder)
        if folder in _warned_folders:
            return
        _warned_folders.add(folder)
        detail = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]  # one line
        warnings.warn(
            f"meeple-gym: dropped a corrupt kernel cache entry in {folder} ({base}: {detail}); "
            "it compiles afresh, as will any other entry there that fails to load.",
            CorruptCacheWarning,
            stacklevel=caller_level(),
        )
