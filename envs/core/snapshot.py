"""The shared half of every game's snapshot codec (``envs/<game>/snapshot.py``).

A codec declares its snapshot as a table of fields, in the order the JSON object lists them:

- ``Int``, ``Bool`` and ``Name`` entries tie one JSON key to one record field (a scalar, or one
  cell per player of an array field): ``Int("water", lo=0, hi=MAX_WATER, what="water")``,
  ``Bool("terminated")``, ``Name("phase", names=PHASE_NAMES)``. Bounds may be functions of
  the call (``hi=last_seat``: the seats of *this* game). ``null=-1`` says JSON ``null`` stands
  for a negative record value (``winner``).
- ``Obj`` nests a table under one key (``options``, ``coins``, ``execution``).
- ``Custom`` is a value the game writes itself (its cards, boards, effect stacks); the game
  reads it in one of its steps.

``Codec`` then does the round trip the same way for every game. ``to_dict``: the game's
``writable`` check on the raw record, then the table written in order. ``from_dict``: the
top-level object checked against the table's keys, a zeroed record (``blank`` fields -1), then
the game's ``order``: table keys read by their entry, and the game's own steps (readers of its
custom values and the semantic checks of its rules) at their place between them. Every error is
a ``SnapshotError`` naming the key path (``players[1].hand``) and the problem.

The rules that hold in every game live here once too: the RNG word, the stop flags against the
step cap (``check_stop``), the final score written only once the game is over
(``read_final_score``), the list of players (``read_players``).
"""

from __future__ import annotations

import re

import numpy as np

from meeple_gym.core.errors import SnapshotError
from meeple_gym.core.snapshot_fields import (
    action_index,
    fail,
    read_ascending,
    read_bool,
    read_counts,
    read_int,
    read_key,
    read_list,
    read_name,
    read_obj,
    read_raw,
    read_str,
)

# A codec imports this module alone (``from meeple_gym.core import snapshot as core``): the
# field readers of ``snapshot_fields`` are here too.
__all__ = [
    "INT32_MAX",
    "RNG",
    "Bool",
    "Call",
    "ReadCall",
    "Codec",
    "Custom",
    "Field",
    "Int",
    "Name",
    "Obj",
    "action_index",
    "check_codes",
    "check_stop",
    "counts_dict",
    "fail",
    "last_seat",
    "read_ascending",
    "read_bool",
    "read_counts",
    "read_final_score",
    "read_int",
    "read_key",
    "read_list",
    "read_name",
    "read_obj",
    "read_players",
    "read_raw",
    "read_str",
    "read_table",
    "refuse",
    "rng_text",
    "write_table",
]

INT32_MAX = int(np.iinfo(np.int32).max)
_RNG_PATTERN = re.compile(r"0x[0-9a-fA-F]{1,16}")


def last_seat(c) -> int:
    """The highest seat index of the game being read (an ``hi`` bound)."""
    return c.n - 1


class Call:
    """One ``to_dict`` call: the record ``s`` (game ``g`` of ``states``) and its player count
    ``n``; the game's writers may keep more on it (as attributes)."""

    snap = None

    def __init__(self, states: np.ndarray, g: int):
        self.states = states
        self.s = states[g]
        self.n = int(self.s["num_players"])


class ReadCall(Call):
    """One ``from_dict`` call: the JSON object ``snap`` and the record being filled, whose
    player count ``n`` is read from it once known; the game's steps keep what they share
    (places seen, cards owned) as attributes."""

    def __init__(self, states: np.ndarray, snap: dict):
        self.states = states
        self.s = states[0]
        self.snap = snap
        self._n = 0

    @property
    def n(self) -> int:
        # Kept once read: num_players is stored once and never changes after.
        if not self._n:
            self._n = int(self.s["num_players"])
        return self._n


class Field:
    """A table entry: the JSON ``key``, the record ``field`` (the key unless named)."""

    __slots__ = ("key", "field")

    def __init__(self, key: str, field: str | None = None):
        self.key = key
        self.field = key if field is None else field

    def write(self, c: Call, idx: tuple):
        raise NotImplementedError

    def writer(self, per_player: bool):
        """``write`` as a function of (c) or (c, p): what ``write_table`` calls."""
        if per_player:
            return lambda c, p: self.write(c, (p,))
        return lambda c: self.write(c, ())

    def step(self):
        """Reading this top-level key as a step of ``from_dict``: a function of (c)."""
        key = self.key
        return lambda c: self.read(c.snap[key], key, c, ())

    def read(self, value, path: str, c: Call, idx: tuple) -> None:
        raise NotImplementedError

    def _store(self, c: Call, idx: tuple, value) -> None:
        if idx:
            c.s[self.field][idx] = value
        else:
            c.s[self.field] = value


class Int(Field):
    """An integer in lo..hi (``what`` names it in the range error); with ``null`` set, JSON
    ``null`` stands for any negative record value and is stored as ``null``."""

    __slots__ = ("lo", "hi", "what", "null")

    def __init__(self, key, field=None, *, lo=0, hi=INT32_MAX, what="value", null=None):
        super().__init__(key, field)
        self.lo, self.hi, self.what, self.null = lo, hi, what, null

    def write(self, c, idx):
        v = int(c.s[self.field][idx]) if idx else int(c.s[self.field])
        return None if self.null is not None and v < 0 else v

    def writer(self, per_player):
        if self.null is not None:
            return super().writer(per_player)
        field = self.field
        if per_player:
            return lambda c, p: int(c.s[field][p])
        return lambda c: int(c.s[field])

    def step(self):
        key, field, what, null = self.key, self.field, self.what, self.null
        lo, hi = self.lo, self.hi
        if null is not None or callable(lo) or callable(hi):

            def step(c):
                value = c.snap[key]
                if value is None and null is not None:
                    c.s[field] = null
                    return
                low = lo(c) if callable(lo) else lo
                c.s[field] = read_int(value, key, low, hi(c) if callable(hi) else hi, what)

            return step

        def step(c):
            c.s[field] = read_int(c.snap[key], key, lo, hi, what)

        return step

    def read(self, value, path, c, idx):
        if value is None and self.null is not None:
            v = self.null
        else:
            lo, hi = self.lo, self.hi
            lo = lo(c) if callable(lo) else lo
            hi = hi(c) if callable(hi) else hi
            v = read_int(value, path, lo, hi, self.what)
        if idx:
            c.s[self.field][idx] = v
        else:
            c.s[self.field] = v


class Bool(Field):
    """A 0/1 record field written as true/false."""

    __slots__ = ()

    def write(self, c, idx):
        return bool(c.s[self.field][idx]) if idx else bool(c.s[self.field])

    def writer(self, per_player):
        field = self.field
        if per_player:
            return lambda c, p: bool(c.s[field][p])
        return lambda c: bool(c.s[field])

    def step(self):
        key, field = self.key, self.field

        def step(c):
            c.s[field] = read_bool(c.snap[key], key)

        return step

    def read(self, value, path, c, idx):
        self._store(c, idx, read_bool(value, path))


class Name(Field):
    """A code written as its name: ``names`` is a sequence (code = index) or a dict
    {code: name}; JSON ``null`` stands for a negative code when ``nullable``. With ``strict``
    a code without a name is refused when writing (else the game's writable check has
    vetted it)."""

    __slots__ = ("names", "codes", "what", "nullable", "strict")

    def __init__(self, key, field=None, *, names, what=None, nullable=False, strict=False):
        super().__init__(key, field)
        self.names = names
        pairs = names.items() if isinstance(names, dict) else enumerate(names)
        self.codes = {name: code for code, name in pairs}
        self.what = key if what is None else what
        self.nullable, self.strict = nullable, strict

    def write(self, c, idx):
        code = int(c.s[self.field][idx]) if idx else int(c.s[self.field])
        if self.nullable and code < 0:
            return None
        if self.strict and not 0 <= code < len(self.names):
            refuse(f"{self.what} code {code} has no name")
        return self.names[code]

    def writer(self, per_player):
        if self.nullable:
            return super().writer(per_player)
        field, names, count = self.field, self.names, len(self.names) if self.strict else 0

        def name(code: int) -> str:
            if count and not 0 <= code < count:
                refuse(f"{self.what} code {code} has no name")
            return names[code]

        if per_player:
            return lambda c, p: name(int(c.s[field][p]))
        return lambda c: name(int(c.s[field]))

    def read(self, value, path, c, idx):
        self._store(c, idx, self._code(value, path))

    def _code(self, value, path: str) -> int:
        if value is None and self.nullable:
            return -1
        code = self.codes.get(value) if isinstance(value, str) else None
        if code is None:  # refused, with the list of names
            read_name(value, path, tuple(self.codes), self.what)
        return code

    def step(self):
        key, field, code = self.key, self.field, self._code

        def step(c):
            c.s[field] = code(c.snap[key], key)

        return step


class Custom(Field):
    """A value the game spells itself: ``write(c)`` (or ``write(c, p)`` in a player table)
    gives it; ``read(value, path, c)`` (optional) reads it where the table is read in order,
    else one of the game's steps reads it."""

    __slots__ = ("write_fn", "reader")

    def __init__(self, key, write, read=None):
        super().__init__(key, None)
        self.write_fn, self.reader = write, read

    def write(self, c, idx):
        return self.write_fn(c, *idx)

    def writer(self, per_player):
        return self.write_fn

    def read(self, value, path, c, idx):
        if self.reader is not None:
            if idx:
                self.reader(value, path, c, idx[0])
            else:
                self.reader(value, path, c)


class Obj(Field):
    """A JSON object holding its own table (read in table order, every key required)."""

    __slots__ = ("table", "keys")

    def __init__(self, key, table):
        super().__init__(key, None)
        self.table = tuple(table)
        self.keys = tuple(entry.key for entry in self.table)

    def write(self, c, idx):
        return write_table(self.table, c, idx)

    def read(self, value, path, c, idx):
        read_table(read_obj(value, path, self.keys), path, self.table, c, idx)


_WRITERS: dict = {}  # (id(table), per player) -> (table, ((key, writer), ...))


def _writers(table, per_player: bool) -> tuple:
    cached = _WRITERS.get((id(table), per_player))
    if cached is None or cached[0] is not table:
        cached = (table, tuple((entry.key, entry.writer(per_player)) for entry in table))
        _WRITERS[(id(table), per_player)] = cached
    return cached[1]


def write_table(table, c: Call, idx: tuple = ()) -> dict:
    """The JSON object of ``table`` (a tuple of entries), of player ``idx[0]`` if given."""
    if idx:
        p = idx[0]
        return {key: write(c, p) for key, write in _writers(table, True)}
    return {key: write(c) for key, write in _writers(table, False)}


def read_table(obj: dict, path: str, table, c: Call, idx: tuple = (), keys=None) -> None:
    """Read ``obj`` (already checked for its keys) entry by entry; ``keys`` limits it to
    those, in table order."""
    for entry in table:
        if keys is None or entry.key in keys:
            entry.read(obj[entry.key], f"{path}.{entry.key}", c, idx)


# ---- rules every game shares -------------------------------------------------------------


def rng_text(s) -> str:
    return f"0x{int(s['rng'][0]):016x}"


def read_rng(value, c: Call) -> None:
    text = read_str(value, "rng")
    if not _RNG_PATTERN.fullmatch(text):
        fail("rng", f"expected a hex word, '0x' and 1-16 hex digits, got {text!r}")
    c.s["rng"][0] = np.uint64(int(text, 16))


# The RNG word, where a game's table lists it; ``"rng"`` in a codec's order reads it.
RNG = Custom("rng", lambda c: rng_text(c.s))


def check_stop(c: Call, step_cap: int, *, both: str, over=None, rule: str = "") -> None:
    """The end flags: never both; the phase is over exactly when one is set (``over`` is the
    phase code, None where the game has no such phase); a truncated game stopped at the step
    cap and a running one has not reached it. ``both`` is the key the first error names."""
    s = c.s
    terminated, truncated = bool(s["terminated"]), bool(s["truncated"])
    steps = int(s["step_count"])
    tag = f" ({rule})" if rule else ""
    if terminated and truncated:
        fail(both, "a game cannot be both terminated and truncated")
    if over is not None and (int(s["phase"]) == over) != (terminated or truncated):
        fail(
            "phase",
            f"phase {c.snap['phase']!r} does not match terminated/truncated: the phase is "
            "'over' exactly when the game is terminated or truncated",
        )
    if truncated and steps != step_cap:
        fail("step_count", f"a truncated game stops at the step cap {step_cap}{tag}")
    if not (terminated or truncated) and steps >= step_cap:
        fail("step_count", f"a game still running has fewer than {step_cap} steps{tag}")


def read_final_score(value, over: bool, length: int, lo: int, hi: int) -> list[int] | None:
    """The top-level ``score``: null while the game runs, the final scores once it is over."""
    if value is None:
        if over:
            fail("score", "a finished game needs its final score, got null")
        return None
    if not over:
        fail("score", "must be null until the game is over")
    raw = read_list(value, "score", length)
    return [read_int(v, f"score[{p}]", lo, hi) for p, v in enumerate(raw)]


def read_players(c: Call) -> list:
    """The ``players`` list: one entry per player."""
    players = read_list(c.snap["players"], "players")
    if len(players) != c.n:
        fail("players", f"has {len(players)} entries but num_players is {c.n}")
    return players


# ---- writing: refusals of records no snapshot can spell -----------------------------------


def refuse(message: str):
    raise SnapshotError(f"cannot snapshot: {message}")


def check_codes(values, name: str, lo: int, hi: int) -> None:
    values = np.asarray(values)
    if values.size and (values.min() < lo or values.max() > hi):
        refuse(f"{name} holds a value outside {lo}..{hi}")


def counts_dict(row, names) -> dict:
    """``{name: count}`` of an integer row, in name order."""
    return dict(zip(names, row.tolist(), strict=True))


# ---- the codec ---------------------------------------------------------------------------


class Codec:
    """``to_dict``/``from_dict`` of one game from its table (see the module docs).

    ``order`` lists what ``from_dict`` does, in turn: a key of the table (read by its entry;
    ``"game"``, ``"version"`` and ``"rng"`` by the codec) or a step ``f(c)``. Every key of the
    table is either in ``order`` or a ``Custom`` read by a step. ``table`` follows ``"game"``
    and ``"version"`` in the JSON object and places ``RNG`` where the game lists it.
    ``blank`` names the record fields that start at -1 (``init_game``'s value where a snapshot
    fills them only in part); ``writable(s)`` refuses a raw record no snapshot can spell.
    """

    def __init__(
        self,
        game: str,
        version: int,
        dtype,
        table,
        order,
        blank=(),
        writable=None,
    ):
        self.game, self.version, self.dtype = game, version, dtype
        self.table = (Custom("game", lambda c: game), Custom("version", lambda c: version), *table)
        self.keys = tuple(entry.key for entry in self.table)
        self.entries = {entry.key: entry for entry in self.table}
        assert len(self.entries) == len(self.keys), "a key is declared twice"
        assert self.entries.get("rng") is RNG, "the table places RNG"
        self.writable = writable
        self.blank = tuple(blank)
        steps = []
        for step in ("game", "version", *order):
            if step == "game":
                steps.append(self._read_game)
            elif step == "version":
                steps.append(self._read_version)
            elif step == "rng":
                steps.append(lambda c: read_rng(c.snap["rng"], c))
            elif isinstance(step, str):
                entry = self.entries[step]
                assert not isinstance(entry, Custom) or entry.reader, step
                steps.append(entry.step())
            else:
                steps.append(step)
        self.steps = tuple(steps)
        readers = {step for step in order if isinstance(step, str)} | {"game", "version"}
        for entry in self.table:
            assert entry.key in readers or isinstance(entry, Custom), entry.key

    def _read_game(self, c: Call) -> None:
        if c.snap["game"] != self.game:
            fail("game", f"expected {self.game!r}, got {c.snap['game']!r}")

    def _read_version(self, c: Call) -> None:
        version = read_int(c.snap["version"], "version", 0, INT32_MAX)
        if version != self.version:
            fail("version", f"unsupported snapshot version {version}, expected {self.version}")

    def to_dict(self, states: np.ndarray, g: int) -> dict:
        """A JSON-safe, readable snapshot of game ``g`` that ``from_dict`` rebuilds exactly."""
        c = Call(states, g)
        if self.writable is not None:
            self.writable(c.s)
        return write_table(self.table, c)

    def from_dict(self, snapshot: dict) -> np.ndarray:
        """Rebuild a 1-game record array from ``snapshot``; raises ``SnapshotError``."""
        snap = read_obj(snapshot, "snapshot", self.keys)
        # Filled field by field while reading; returned only once every check has passed.
        states = np.zeros(1, self.dtype)
        c = ReadCall(states, snap)
        for field in self.blank:
            c.s[field] = -1
        for step in self.steps:
            step(c)
        return states
