"""Field readers shared by every game's ``from_dict``: each checks one JSON value and raises
``SnapshotError`` naming its path (``players[1].hand``) and what is wrong with it."""

from __future__ import annotations

import functools

import numpy as np

from meeple_gym.core.errors import ActionError, SnapshotError


def fail(path: str, message: str):
    raise SnapshotError(f"{path}: {message}")


def read_obj(value, path: str, keys) -> dict:
    if not isinstance(value, dict):
        fail(path, f"expected an object, got {type(value).__name__}")
    for key in keys:
        if key not in value:
            fail(path, f"missing key {key!r}")
    for key in value:
        if key not in keys:
            fail(path, f"unknown key {key!r} (expected {', '.join(keys)})")
    return value


def read_int(value, path: str, lo: int, hi: int, what: str = "value") -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        fail(path, f"expected an integer, got {type(value).__name__} {value!r}")
    value = int(value)
    if value < lo or value > hi:
        fail(path, f"{what} {value} is out of range {lo}..{hi}")
    return value


def read_bool(value, path: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        fail(path, f"expected true or false, got {type(value).__name__} {value!r}")
    return bool(value)


def read_list(value, path: str, length: int | None = None, most: int | None = None) -> list:
    if not isinstance(value, list):
        fail(path, f"expected a list, got {type(value).__name__}")
    if length is not None and len(value) != length:
        fail(path, f"expected {length} entries, got {len(value)}")
    if most is not None and len(value) > most:
        fail(path, f"expected at most {most} entries, got {len(value)}")
    return value


def read_str(value, path: str) -> str:
    if not isinstance(value, str):
        fail(path, f"expected a string, got {type(value).__name__} {value!r}")
    return value


def read_name(value, path: str, names, what: str) -> int:
    """The index of ``value`` in ``names`` (a short closed list: phases, seasons, roles)."""
    name = read_str(value, path)
    if name not in names:
        fail(path, f"unknown {what} {name!r} (expected one of {', '.join(names)})")
    return list(names).index(name)


def read_key(value, path: str, index: dict, what: str) -> int:
    """The code ``index`` gives the name ``value`` (a long table: cards, locations)."""
    try:
        return index[value]  # the keys are names: anything else is missing
    except (KeyError, TypeError):
        pass
    fail(path, f"unknown {what} {read_str(value, path)!r}")


@functools.cache
def _int_range(dtype) -> tuple[int, int]:
    info = np.iinfo(dtype)
    return int(info.min), int(info.max)


def read_raw(value, path: str, dtype) -> int:
    """Any value of an integer record field: leftovers that only need to fit their type."""
    lo, hi = _int_range(np.dtype(dtype))
    return read_int(value, path, lo, hi)


def read_ascending(
    value, path: str, lo: int, hi: int, what: str, items: str, most: int, check=None
) -> list[int]:
    """Integers in lo..hi listed in increasing order, each once (a set written as a list);
    ``check(v, path)`` vets each one as it is read."""
    out: list[int] = []
    for i, raw in enumerate(read_list(value, path, most=most)):
        v = read_int(raw, f"{path}[{i}]", lo, hi, what)
        if out and v <= out[-1]:
            fail(f"{path}[{i}]", f"{items} are listed in increasing order, each once")
        if check is not None:
            check(v, path)
        out.append(v)
    return out


def read_counts(value, path: str, names, lo: int, hi: int) -> list[int]:
    """An object with one count per name (``{"tea": 1, "sugar": 0, ...}``), in name order."""
    value = read_obj(value, path, names)
    return [read_int(value[x], f"{path}.{x}", lo, hi, f"{x} count") for x in names]


def action_index(action, num_actions: int) -> int:
    """``action`` as an int in [0, num_actions), or ``ActionError`` saying what is wrong."""
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise ActionError(f"action must be an integer, got {type(action).__name__} {action!r}")
    if not 0 <= int(action) < num_actions:
        raise ActionError(f"action {int(action)} is out of range 0..{num_actions - 1}")
    return int(action)
