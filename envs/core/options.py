"""One set of argument checks for every public entry point.

Every check accepts Python and NumPy integers alike (never bools or floats for an int, never
ints for a bool) and raises an ``OptionError`` that names the argument and shows a short repr of
what it got.
"""

from __future__ import annotations

import numpy as np

from meeple_gym.core.errors import OptionError

_REPR_LIMIT = 60


def short_repr(value) -> str:
    """``repr(value)`` cut to a readable length (error messages never carry huge payloads)."""
    text = repr(value)
    return text if len(text) <= _REPR_LIMIT else text[: _REPR_LIMIT - 3] + "..."


def is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def is_bool(value) -> bool:
    return isinstance(value, (bool, np.bool_))


def check_int(name: str, value, lo: int | None = None, hi: int | None = None, error=OptionError):
    """``value`` as a Python int; refuses bools, floats and anything outside [lo, hi]."""
    if not is_int(value):
        raise error(f"{name} must be an int, got {type(value).__name__} {short_repr(value)}")
    number = int(value)
    if (lo is not None and number < lo) or (hi is not None and number > hi):
        bounds = f"[{'-inf' if lo is None else lo}, {'inf' if hi is None else hi}]"
        raise error(f"{name} must be in {bounds}, got {number}")
    return number


def check_choice(game: str, name: str, value, allowed: tuple):
    """``value`` normalised to the matching entry of ``allowed`` (all of one type)."""
    kind = allowed[0]
    if isinstance(kind, bool):
        ok_type, type_name = is_bool(value), "a bool"
    elif isinstance(kind, int):
        ok_type, type_name = is_int(value), "an int"
    else:
        ok_type, type_name = isinstance(value, str), "a str"
    if not ok_type:
        raise OptionError(
            f"{game}: option {name} must be {type_name} (one of {allowed}), "
            f"got {type(value).__name__} {short_repr(value)}"
        )
    for choice in allowed:
        if value == choice:
            return choice
    raise OptionError(f"{game}: option {name} must be one of {allowed}, got {short_repr(value)}")


def check_action(action, num_actions: int) -> int:
    """An action index as a Python int (a 0-d integer array counts); ``ActionError`` names a
    non-integer or out-of-range action."""
    from meeple_gym.core.errors import ActionError

    if isinstance(action, np.ndarray) and action.shape == () and action.dtype.kind in "iu":
        action = action.item()
    if not is_int(action):
        raise ActionError(
            f"action must be an integer in [0, {num_actions}), "
            f"got {type(action).__name__} {short_repr(action)}"
        )
    index = int(action)
    if not 0 <= index < num_actions:
        raise ActionError(f"action {index} is out of range [0, {num_actions})")
    return index
