"""Output files: checked before the work that fills them, written whole or not at all.

Every writer of the package (``distributed.save_rollout``, ``bench.plot``,
``ladder.plot_ladder``, ``meeple bench --out``, ``torch_agent.save_checkpoint``) goes through
``atomic_write``: the bytes go to a temporary file in the target's folder, which replaces the
target (``os.replace``) only once it is complete. A run that fails or is interrupted
(Ctrl-C) midway leaves the target as it was, and no temporary file behind.

``check_output_path`` (and ``check_plot_path`` for figures) refuse a path that cannot be
written (empty, a folder, in a missing folder) up front, so that a long run does not find out
at its end. Both raise ``OutputError``, a ``MeepleError`` and an ``OSError``.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

from meeple_gym.core.errors import MeepleError


class OutputError(MeepleError, OSError):
    """An output path that cannot be written: the message names the path and the reason."""


def _create_temp(path: Path) -> tuple[int, Path]:
    """A new, empty temporary file beside ``path``: (file descriptor, its path)."""
    # The name cut short: a target name near the 255-byte limit still gets a temporary file.
    tmp = path.with_name(f".{path.name[:200]}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    # O_EXCL: never follow or reuse someone else's file; 0o666 lets the umask decide the
    # permissions, as for any file the user creates.
    return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), tmp


def check_output_path(path) -> Path:
    """``path`` as a ``Path`` if a file can be written there: not empty, not a folder, in an
    existing folder where this process can create a file (tried, then removed: permissions,
    read-only mounts and special file systems all answer that truthfully). ``OutputError``
    otherwise."""
    if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
        raise OutputError(f"output path must be a non-empty file name, got {path!r}")
    path = Path(path)
    if path.is_dir():
        raise OutputError(f"cannot write {str(path)!r}: it is a folder; name a file in it")
    folder = path.parent
    if not folder.is_dir():
        what = "is not a folder" if folder.exists() else "does not exist"
        raise OutputError(f"cannot write {str(path)!r}: folder {str(folder)!r} {what}")
    try:
        fd, tmp = _create_temp(path)
    except OSError as exc:
        raise OutputError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from exc
    os.close(fd)
    os.unlink(tmp)
    return path


def pyplot():
    """``matplotlib.pyplot`` on the file-only Agg backend (``OptionError`` says how to install
    matplotlib when it is missing)."""
    from meeple_gym.core.errors import OptionError

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as exc:
        raise OptionError("plots need matplotlib: pip install 'meeple-gym[plot]'") from exc
    return plt


def save_figure(fig, path, fmt: str) -> None:
    """Write ``fig`` to ``path`` whole or not at all, then free it."""
    import matplotlib.pyplot as plt

    try:
        with atomic_write(path) as f:
            fig.savefig(f, format=fmt, dpi=90)
    finally:
        plt.close(fig)


def plot_format(path) -> str:
    """The image format of a figure path, from its suffix (``OutputError`` if matplotlib
    cannot write it). Needs matplotlib (``OptionError`` says how to install it)."""
    from meeple_gym.core.errors import OptionError

    try:
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError as exc:
        raise OptionError("plots need matplotlib: pip install 'meeple-gym[plot]'") from exc
    formats = FigureCanvasBase.get_supported_filetypes()
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in formats:
        raise OutputError(
            f"cannot plot to {str(path)!r}: name a file ending in .png (or one of "
            f"{', '.join('.' + f for f in sorted(formats))})"
        )
    return suffix


def check_plot_path(path) -> Path:
    """``check_output_path`` for a figure, plus a suffix matplotlib can write."""
    path = check_output_path(path)
    plot_format(path)
    return path


@contextlib.contextmanager
def atomic_write(path, mode: str = "wb"):
    """``with atomic_write(path) as f:`` writes ``f`` to a temporary file beside ``path`` and
    moves it onto ``path`` when the block ends without an exception; on any exception (Ctrl-C
    too) the temporary file is removed and ``path`` is left as it was. Failures to write
    raise ``OutputError`` naming ``path``."""
    path = check_output_path(path)
    try:
        # Same folder: os.replace is then a rename within one file system, hence atomic.
        fd, tmp = _create_temp(path)
    except OSError as exc:
        raise OutputError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, mode, **({} if "b" in mode else {"encoding": "utf-8"})) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())  # complete on disk before it takes the target's name
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        # Errors of this file (a full disk, a folder removed meanwhile), not of other files
        # the writer happens to read (those keep their traceback).
        if isinstance(exc, OSError) and not isinstance(exc, OutputError):
            if exc.filename is None or str(exc.filename) in (str(tmp), str(path)):
                raise OutputError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from exc
        raise
