"""Field readers shared by every game's ``from_dict``: each checks one JSON value and raises
``SnapshotError`` naming its path (``players[1].hand``) and what is wrong with it."""

from __future__ import annotations

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


def action_index(action, num_actions: int) -> int:
    """``action`` as an int in [0, num_actions), or ``ActionError`` saying what is wrong."""
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise ActionError(f"action must be an integer, got {type(action).__name__} {action!r}")
    if not 0 <= int(action) < num_actions:
        raise ActionError(f"action {int(action)} is out of range 0..{num_actions - 1}")
    return int(action)
