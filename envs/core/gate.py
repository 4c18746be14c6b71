"""The one way a position from outside reaches the kernels.

Numba does no bounds checking, so a state the engine did not make itself must never reach a
kernel unchecked. Every entry point goes through here:

- ``load_snapshot(spec, snapshot)`` (AEC ``from_dict``): a size and depth check of the JSON
  value, then the game's ``from_dict`` (which validates every field and recomputes what the
  rules derive: legal-choice lists, scores), then a round trip: the loaded state must give a
  snapshot that loads back to the very same bytes. Any failure is a short ``SnapshotError``.
- ``validate_records(spec, states)`` (``BatchEnv.set_states``): each record is turned into a
  snapshot by the game's ``to_dict`` (plain Python: NumPy checks every index) and loaded as
  above, so raw bytes get exactly the checks a snapshot gets. Records the engine itself handed
  out (``BatchEnv.get_states``) are recognised by digest and skip the work: by the batch that
  handed them out (``BatchEnv.set_states``), and by the search agents of any batch of the game
  (``engine_records``), whose ``act_states`` could otherwise spend longer checking a
  record than searching it (benchmarks/README.md, "ISMCTS").
"""

from __future__ import annotations

import hashlib
import os
import threading

import numpy as np

from meeple_gym.core.errors import SnapshotError

MAX_DEPTH = 32  # the deepest snapshot of any game nests 6 levels
MAX_NODES = 200_000  # values in one snapshot (the largest real ones hold a few thousand)
MAX_STR = 10_000  # characters in one string
MESSAGE_LIMIT = 300  # characters of an error message taken from the value that caused it


def short_message(text: str) -> str:
    return text if len(text) <= MESSAGE_LIMIT else text[: MESSAGE_LIMIT - 3] + "..."


def check_shape(value) -> None:
    """Refuse values too deep, too large or not made of JSON types, without recursion."""
    stack = [(value, 1, "snapshot")]
    nodes = 0
    while stack:
        item, depth, path = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            raise SnapshotError(f"snapshot has more than {MAX_NODES} values")
        if depth > MAX_DEPTH:
            raise SnapshotError(f"snapshot nests deeper than {MAX_DEPTH} levels at {path}")
        if isinstance(item, dict):
            for key, child in item.items():
                if not isinstance(key, str):
                    raise SnapshotError(f"{path} has a non-string key {short_message(repr(key))}")
                if len(key) > MAX_STR:
                    raise SnapshotError(f"{path} has a key longer than {MAX_STR} characters")
                stack.append((child, depth + 1, f"{path}.{key[:40]}"))
        elif isinstance(item, (list, tuple)):
            if len(item) > MAX_NODES:
                raise SnapshotError(f"{path} has more than {MAX_NODES} items")
            stack.extend((child, depth + 1, f"{path}[{i}]") for i, child in enumerate(item))
        elif isinstance(item, str):
            if len(item) > MAX_STR:
                raise SnapshotError(f"{path} is a string longer than {MAX_STR} characters")
        elif item is not None and not isinstance(item, (bool, int, float, np.integer)):
            raise SnapshotError(
                f"{path} holds a {type(item).__name__}; snapshots are JSON values "
                "(dict, list, str, int, float, bool, None)"
            )


def _from_dict(spec, snapshot) -> np.ndarray:
    try:
        return spec.from_dict(snapshot)
    except SnapshotError as exc:
        raise SnapshotError(short_message(str(exc))) from None
    except (
        TypeError,
        ValueError,
        KeyError,
        IndexError,
        AttributeError,
        OverflowError,
        RecursionError,
    ) as exc:
        raise SnapshotError(
            short_message(f"{spec.name}: malformed snapshot ({type(exc).__name__}: {exc})")
        ) from None


def _to_dict(spec, states: np.ndarray, g: int) -> dict:
    try:
        return spec.to_dict(states, g)
    except SnapshotError as exc:
        raise SnapshotError(short_message(str(exc))) from None
    except Exception as exc:  # noqa: BLE001 - any failure on foreign bytes is a bad state
        raise SnapshotError(
            short_message(f"{spec.name}: not a valid state ({type(exc).__name__}: {exc})")
        ) from None


def _first_difference(a: np.ndarray, b: np.ndarray) -> str:
    for name in a.dtype.names:
        if a[name].tobytes() != b[name].tobytes():
            return name
    return "?"


def load_snapshot(spec, snapshot) -> np.ndarray:
    """A validated one-game state array for ``snapshot``; ``SnapshotError`` if it is not one."""
    if not isinstance(snapshot, dict):
        raise SnapshotError(f"a snapshot is a dict, got {type(snapshot).__name__}")
    check_shape(snapshot)
    states = _from_dict(spec, snapshot)
    # Every accepted position must round-trip exactly: what to_dict cannot express, or
    # from_dict would rebuild differently, is a position the engine never makes.
    again = _from_dict(spec, _to_dict(spec, states, 0))
    if again.tobytes() != states.tobytes():
        raise SnapshotError(
            f"{spec.name}: snapshot does not round-trip (field "
            f"{_first_difference(states, again)!r} changes when saved and loaded again)"
        )
    return states


def record_digest(record_bytes: bytes) -> bytes:
    return hashlib.blake2b(record_bytes, digest_size=16).digest()


class IssuedStates:
    """Digests of the records the engine handed out, so restoring them costs no validation.

    A digest match means the bytes are exactly a record the kernels produced. Bounded: the
    oldest digests are forgotten first (a forgotten record is still accepted, just checked).
    """

    def __init__(self, limit: int = 1 << 20):
        self.limit = limit
        self._digests: dict[bytes, None] = {}
        self._lock = threading.Lock()  # shared ones are filled and read from any thread

    def remember(self, states: np.ndarray) -> None:
        self.add(digests_of(states))

    def add(self, digests: list[bytes]) -> None:
        with self._lock:
            for digest in digests:
                self._digests[digest] = None
            overflow = len(self._digests) - self.limit
            if overflow > 0:
                for key in list(self._digests)[:overflow]:
                    del self._digests[key]

    def known(self, record_bytes: bytes) -> bool:
        digest = record_digest(record_bytes)
        with self._lock:
            return digest in self._digests


def digests_of(states: np.ndarray) -> list[bytes]:
    return [record_digest(states[i : i + 1].tobytes()) for i in range(states.shape[0])]


_ENGINE_RECORDS: dict[str, IssuedStates] = {}
_ENGINE_RECORDS_LOCK = threading.Lock()


def engine_records(game: str) -> IssuedStates:
    """Digests of the ``game`` records any batch of this process handed out, for readers that
    take a record of any options as it is (the search agents). A batch's own ``set_states``
    keeps to its own digests: its options must match the record's."""
    with _ENGINE_RECORDS_LOCK:
        if game not in _ENGINE_RECORDS:
            _ENGINE_RECORDS[game] = IssuedStates(limit=1 << 18)  # ~25 MB of digests at most
        return _ENGINE_RECORDS[game]


def _new_locks_in_child() -> None:
    # A fork while another thread held one of these locks would leave it held forever.
    global _ENGINE_RECORDS_LOCK
    _ENGINE_RECORDS_LOCK = threading.Lock()
    for registry in _ENGINE_RECORDS.values():
        registry._lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_locks_in_child)


def validate_records(spec, states: np.ndarray, issued: IssuedStates | None = None) -> np.ndarray:
    """A validated copy of a 1-D array of ``spec.state_dtype`` records (see module docs)."""
    out = np.array(states, dtype=spec.state_dtype, copy=True)
    for g in range(out.shape[0]):
        record_bytes = out[g : g + 1].tobytes()
        if issued is not None and issued.known(record_bytes):
            continue
        try:
            loaded = load_snapshot(spec, _to_dict(spec, out, g))
        except SnapshotError as exc:
            raise SnapshotError(short_message(f"game {g}: {exc}")) from None
        out[g] = loaded[0]
    return out
