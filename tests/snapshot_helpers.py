"""What the snapshot tests of every game share: the sampled positions of each game (made once
per process), JSON round trips, edits of a snapshot by key path, and the check that a refusal
names the problem. The game-specific data (how to sample, the bases and the corrupt inputs
of each game) is in ``tests/snapshot_cases/<game>.py``."""

import copy
import functools
import importlib
import json

import numpy as np
import pytest

from meeple_gym.core.errors import SnapshotError

GAMES = ("century", "radlands", "everdell", "endeavor")


def case(game: str):
    """The game's case module (``snapshot_cases.<game>``)."""
    return importlib.import_module(f"snapshot_cases.{game}")


@functools.cache
def positions(game: str) -> list:
    """Sampled positions of ``game``: copies of 1-game record arrays (do not change them)."""
    return case(game).sample()


def positions_fixture(game: str):
    """A module fixture ``positions``: the sampled positions of ``game``."""
    return pytest.fixture(scope="module", name="positions")(lambda: positions(game))


@functools.cache
def truncated(game: str) -> list:
    """Positions of ``game`` cut off at the step cap."""
    return case(game).truncate(positions(game))


@functools.cache
def bases(game: str) -> dict:
    """Valid snapshots of ``game`` by name, the starting points of the corrupt inputs."""
    return case(game).bases(positions(game), truncated(game))


# What a case module may leave out.
DEFAULTS = {
    "named_positions": lambda positions, truncated: positions + truncated,
    "check_names": lambda states, names: None,
    "WRITES_EVERY_FIELD": None,
}


def hook(game: str, name: str):
    """The case module's ``name``, or its default."""
    return getattr(case(game), name, DEFAULTS.get(name))


def play_and_sample(starts, over, keep, rng, stop_at_end=False) -> list:
    """Play each game of ``starts`` ((states, step) pairs, ``step(states, rng)``) to its end:
    copies of its opening, its end and the positions ``keep(states)`` picks after a step
    (with ``stop_at_end``, not the step that ends the game)."""
    positions = []
    for states, step in starts:
        positions.append(states.copy())
        while not over(states):
            step(states, rng)
            if stop_at_end and over(states):
                break
            if keep(states):
                positions.append(states.copy())
        positions.append(states.copy())
    return positions


def true_keys(flags: dict) -> set:
    """The names whose flag is true (the features a sampled position shows)."""
    return {name for name, flag in flags.items() if flag}


def over_never(states) -> bool:
    return False


def cut_at_step_cap(rules, positions, stride, step, over, skip=over_never, drop_ended=False):
    """Every ``stride``-th position still running (and not ``skip``) pushed to one step below
    the step cap, then one more step: the game is cut off there, or ends by its rules on that
    very step (left out with ``drop_ended``)."""
    rng = np.random.default_rng(3)
    out = []
    for states in positions[::stride]:
        if over(states) or skip(states):
            continue
        cut = states.copy()
        cut[0]["step_count"] = rules.STEP_CAP - 1
        step(cut, rng)
        assert cut[0]["truncated"] == 1 or cut[0]["terminated"] == 1
        if not (drop_ended and cut[0]["terminated"]):
            out.append(cut)
    return out


def first(states_list, predicate):
    return next(states for states in states_list if predicate(states[0]))


def legal(rules, states, g: int = 0) -> np.ndarray:
    mask = np.zeros(rules.NUM_ACTIONS, np.int8)
    rules.legal_mask_into(states, g, mask)
    return np.flatnonzero(mask)


def json_round_trip(codec, states, g: int = 0):
    """(snapshot of game g, the record rebuilt from it after a trip through JSON text)."""
    snap = codec.to_dict(states, g)
    return snap, codec.from_dict(json.loads(json.dumps(snap)))


# ---- edits of a snapshot by key path ---------------------------------------------------------


def _parent(snap, path):
    target = snap
    for key in path[:-1]:
        target = target[key]
    return target


def set_(*path_and_value):
    """An edit that sets the value at a key path: ``set_("players", 0, "pool", 3)``."""
    *path, value = path_and_value

    def mutate(snap):
        _parent(snap, path)[path[-1]] = value

    return mutate


def delete(*path):
    def mutate(snap):
        del _parent(snap, path)[path[-1]]

    return mutate


def add(*path_and_delta):
    *path, delta = path_and_delta

    def mutate(snap):
        _parent(snap, path)[path[-1]] += delta

    return mutate


def leaves(node, path=(), lists=False):
    """(key path, value) of every leaf; with ``lists`` every list too (to drop or duplicate an
    entry), else non-empty lists only through their entries."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield from leaves(value, path + (key,), lists)
    elif isinstance(node, list) and (lists or node):
        for k, value in enumerate(node):
            yield from leaves(value, path + (k,), lists)
        if lists:
            yield path, node
    else:
        yield path, node


def assert_refused(from_dict, snap, words):
    """``from_dict(snap)`` raises a SnapshotError whose message holds every one of ``words``."""
    with pytest.raises(SnapshotError) as info:
        from_dict(snap)
    for word in words:
        assert word in str(info.value), (word, str(info.value))


def refuses_mutation(from_dict, base, mutate, words):
    """The base is valid; the mutated copy is refused with ``words`` in the message."""
    snap = copy.deepcopy(base)
    from_dict(copy.deepcopy(snap))  # the base itself is valid
    mutate(snap)
    assert_refused(from_dict, snap, words)


def described_changes(to_dict, states) -> int:
    """Change each value of the record (v ^ 1, v + 2) and check the snapshot changes too, or
    to_dict refuses the record; returns how many changes were described."""
    base = to_dict(states, 0)
    described = 0
    for name in states.dtype.names:
        for j in range(states[0][name].size):
            for change in (lambda v: v ^ 1, lambda v: v + 2):
                other = states.copy()
                view = other[0][name].reshape(-1)
                value = change(int(view[j]))
                info = np.iinfo(view.dtype)
                if not info.min <= value <= info.max:
                    continue
                view[j] = value
                other[0][name] = view.reshape(states[0][name].shape)
                try:
                    changed = to_dict(other, 0)
                except SnapshotError:
                    continue
                assert changed != base, (name, j)
                described += 1
    return described
