"""The CSV table loader the games' ``data`` packages share: rows as dicts, int8 columns and
key -> id indexes, all read-only.

Its output is frozen into compiled kernels, so meeple_gym.core.jit hashes this file into every
game's cache key like the data files themselves.
"""

from __future__ import annotations

import csv
from pathlib import Path
from types import MappingProxyType

import numpy as np


def read_rows(folder: Path, name: str) -> list[dict]:
    """The rows of ``folder/name`` as dicts keyed by the header."""
    with open(folder / name, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def int_column(rows, column: str) -> np.ndarray:
    """``column`` of every row as int8."""
    return np.array([int(r[column]) for r in rows], dtype=np.int8)


def key_index(keys) -> MappingProxyType:
    """``{key: position}``, read-only."""
    return MappingProxyType({key: i for i, key in enumerate(keys)})


def keyed(rows, *texts: str) -> tuple:
    """A keyed table's count, ``key`` column, ``name`` column and key -> id index, then each of
    the text columns ``texts``."""
    keys = tuple(r["key"] for r in rows)
    head = (len(rows), keys, text_column(rows, "name"), key_index(keys))
    return head + tuple(text_column(rows, column) for column in texts)


def text_column(rows, column: str) -> tuple:
    return tuple(r[column] for r in rows)
