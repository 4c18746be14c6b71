"""One set of argument checks for every public entry point.

Every check accepts Python and NumPy integers alike (never bools or floats for an int, never
ints for a bool) and raises an ``OptionError`` that names the argument and shows a short repr of
what it got.
"""

from __future__ import annotations

import numpy as np

from meeple_gym.core.errors import OpponentError, OptionError

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


def check_agent_action(value, mask, who: str):
    """What an opponent or agent returned, checked before it is played: with one mask row
    ``(num_actions,)`` an int or NumPy integer (a 0-d integer array counts), returned as a
    Python int; with masks ``(n, num_actions)`` an integer NumPy array (or a list of ints) of
    shape ``(n,)``, returned as int64. Never coerced: a bool, float, string or float array is
    refused (7.9 must not play 7), as is an action out of range or one its mask forbids. Raises
    ``OpponentError`` naming ``who`` (e.g. "opponent 'heuristic'") and the value."""
    mask = np.asarray(mask)
    num_actions = mask.shape[-1]
    if mask.ndim == 1:
        if isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind in "iu":
            value = value.item()
        if not is_int(value):
            raise OpponentError(
                f"{who} returned {type(value).__name__} {short_repr(value)}, not an integer action"
            )
        action = int(value)
        if not 0 <= action < num_actions:
            raise OpponentError(f"{who} returned action {action}, out of range [0, {num_actions})")
        if not mask[action]:
            legal = short_repr(np.flatnonzero(mask).tolist())
            raise OpponentError(f"{who} returned action {action}, illegal now; legal: {legal}")
        return action
    rows = mask.shape[0]
    if isinstance(value, (list, tuple)):
        # A list of Python ints is integers too; its dtype is checked below like an array's
        # (a list holding a float, bool or string does not come out integer).
        value = np.asarray(value)
    if not isinstance(value, np.ndarray) or value.dtype.kind not in "iu":
        kind = f"dtype {value.dtype}" if isinstance(value, np.ndarray) else type(value).__name__
        raise OpponentError(
            f"{who} returned {kind} {short_repr(value)}, not an integer NumPy array of actions"
        )
    if value.shape != (rows,):
        raise OpponentError(
            f"{who} returned actions of shape {value.shape} for {rows} games; expected ({rows},)"
        )
    # Range before any cast: uint64 2**64-1 must not turn into -1.
    bad = np.flatnonzero((value < 0) | (value >= num_actions))
    if bad.size:
        raise OpponentError(
            f"{who} returned action {value[bad[0]]} for its row {bad[0]}, out of range "
            f"[0, {num_actions}) ({bad.size} rows affected)"
        )
    actions = value.astype(np.int64)
    illegal = np.flatnonzero(mask[np.arange(rows), actions] == 0)
    if illegal.size:
        r = int(illegal[0])
        legal = short_repr(np.flatnonzero(mask[r]).tolist())
        raise OpponentError(
            f"{who} returned action {actions[r]} for its row {r}, illegal there; legal: {legal} "
            f"({illegal.size} rows affected)"
        )
    return actions
