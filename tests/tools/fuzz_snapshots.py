"""Fuzz the two ways a position enters the engine: snapshots (``from_dict``) and raw batch
records (``BatchEnv.set_states``). Run it under ``NUMBA_BOUNDSCHECK=1`` so an index a kernel
should never see raises IndexError instead of writing into memory.

    python tests/tools/fuzz_snapshots.py GAME CASES SEED

For each case: play a seeded random game to a random point, mutate its snapshot (or its raw
record bytes; every fifth case is an unmutated control that must load), try to load it; if
the engine accepts it, play legal random steps and check that every position reached is
again one the engine accepts (its snapshot loads and round-trips).
Prints one JSON line of counts; exits 1 with the failing case on any other error.
"""

from __future__ import annotations

import copy
import json
import sys
import traceback

import numpy as np

import meeple_gym as mg
from meeple_gym import MeepleError, SnapshotError
from meeple_gym.core.sampling import policy_words, random_legal_actions

STEPS_AFTER_LOAD = 40
INTERESTING_INTS = (
    -(2**63),
    -32769,
    -32768,
    -129,
    -2,
    -1,
    0,
    1,
    2,
    3,
    5,
    7,
    15,
    30,
    127,
    128,
    255,
    32767,
    32768,
    65535,
    2**31 - 1,
    2**31,
    2**63 - 1,
)


def players_for(spec, rng) -> int:
    return int(rng.integers(spec.min_players, spec.max_players + 1))


def random_position(game: str, rng):
    spec = mg.get_spec(game)
    env = mg.make(game, num_players=players_for(spec, rng))
    env.reset(seed=int(rng.integers(2**32)))
    for _ in range(int(rng.integers(0, 300))):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return env


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, prefix + (key,))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _paths(child, prefix + (i,))


def _replacement(old, rng, siblings):
    kind = int(rng.integers(9))
    if kind == 0:
        return int(rng.choice(INTERESTING_INTS))
    if kind == 1 and isinstance(old, int) and not isinstance(old, bool):
        return old + int(rng.choice((-2, -1, 1, 2, 10)))
    if kind == 2:
        return None
    if kind == 3:
        return str(rng.choice(["", "x", "player_0", "Juggernaut", "0x0", "Fool", "wood"]))
    if kind == 4 and isinstance(old, list):
        return old + copy.deepcopy(old[-1:]) if old else [0]
    if kind == 5 and isinstance(old, list) and old:
        return old[:-1]
    if kind == 6 and siblings:
        return copy.deepcopy(siblings[int(rng.integers(len(siblings)))])
    if kind == 7:
        return bool(rng.integers(2))
    return [] if isinstance(old, list) else {}


def mutate(snapshot: dict, rng, mutations: int) -> dict:
    snap = copy.deepcopy(snapshot)
    for _ in range(mutations):
        paths = [p for p in _paths(snap) if p]
        path = paths[int(rng.integers(len(paths)))]
        parent = snap
        for key in path[:-1]:
            parent = parent[key]
        last = path[-1]
        siblings = list(parent.values()) if isinstance(parent, dict) else list(parent)
        if isinstance(parent, dict) and rng.random() < 0.05:
            del parent[last]
        else:
            parent[last] = _replacement(parent[last], rng, siblings)
    return snap


def check_reached(env) -> None:
    """The position must be one the engine accepts (validation and exact round trip)."""
    env.unwrapped.spec.load(env.unwrapped.to_dict())


def play_on(env, rng) -> int:
    steps = 0
    for _ in range(STEPS_AFTER_LOAD):
        if not env.agents:
            break
        obs, _, term, trunc, _ = env.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        if env.agents:
            check_reached(env)
        steps += 1
    return steps


def fuzz_snapshot(game: str, rng, counts: dict, control: bool) -> None:
    env = random_position(game, rng)
    mutations = 0 if control else int(rng.choice([1, 1, 1, 2, 3]))
    snap = mutate(env.unwrapped.to_dict(), rng, mutations)
    twin = mg.make(game, num_players=env.unwrapped.num_players)
    try:
        twin.unwrapped.from_dict(snap)
    except SnapshotError:
        if control:  # a position the engine reached must load
            raise
        counts["refused"] += 1
        return
    counts["accepted"] += 1
    check_reached(twin)
    counts["steps"] += play_on(twin, rng)


def fuzz_records(game: str, rng, counts: dict, control: bool) -> None:
    spec = mg.get_spec(game)
    n = players_for(spec, rng)
    size = 4
    batch = mg.make_batch(game, size, n, seed=int(rng.integers(2**32)))
    batch.reset()
    words = policy_words(int(rng.integers(2**32)), size)
    actions = np.zeros(size, np.int64)
    for _ in range(int(rng.integers(0, 60))):
        random_legal_actions(batch.legal_mask, words, actions)
        batch.step(actions)
    raw = bytearray(batch.states.tobytes())
    if control:
        pass  # records the engine made (not issued by this batch: the full checks run)
    elif rng.random() < 0.2:
        raw = bytearray(rng.integers(0, 256, len(raw), dtype=np.uint8).tobytes())
    else:
        for _ in range(int(rng.integers(1, 6))):
            at = int(rng.integers(len(raw)))
            raw[at] = int(rng.integers(256))
    try:
        batch.set_states(bytes(raw))
    except SnapshotError:
        if control:
            raise
        counts["records_refused"] += 1
        return
    counts["records_accepted"] += 1
    for _ in range(STEPS_AFTER_LOAD):
        random_legal_actions(batch.legal_mask, words, actions)
        batch.step(actions)
        for g in range(size):
            spec.load(spec.to_dict(batch.states, g))
        counts["steps"] += 1


def main(game: str, cases: int, seed: int) -> int:
    counts = {"refused": 0, "accepted": 0, "records_refused": 0, "records_accepted": 0, "steps": 0}
    for case in range(cases):
        rng = np.random.default_rng([seed, case])
        control = case % 5 == 0  # unmutated: must be accepted, and exercises the play-on path
        try:
            if case % 3 == 2:
                fuzz_records(game, rng, counts, control)
            else:
                fuzz_snapshot(game, rng, counts, control)
        except MeepleError as exc:
            if isinstance(exc, SnapshotError):
                print(json.dumps({"game": game, "case": case, "seed": seed, "error": str(exc)}))
                traceback.print_exc()
                return 1
            raise
        except Exception:
            print(json.dumps({"game": game, "case": case, "seed": seed}))
            traceback.print_exc()
            return 1
    print(json.dumps({"game": game, "cases": cases, **counts}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3])))
