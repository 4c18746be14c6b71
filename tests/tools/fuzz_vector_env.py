"""Fuzz the Gymnasium vector env's step with the actions a careless learner sends: legal moves,
illegal ones (forfeited with ``illegal_action="lose"``, refused with ``"raise"``) and ones out
of range or of the wrong type (refused). Run it under ``NUMBA_BOUNDSCHECK=1`` so an index the
vector env's own kernels (the action check, the finished rows' bookkeeping) should never see
raises IndexError instead of writing into memory.

    python tests/tools/fuzz_vector_env.py GAME STEPS SEED

Every refused step must leave the env as it was: the next step with the same legal actions
gives the same result as a pickled copy of the env taken before the refused one.
Prints one JSON line of counts; exits 1 with the failing case on any other error.
"""

from __future__ import annotations

import json
import pickle
import sys
import traceback

import gymnasium
import numpy as np
from gymnasium.utils.env_checker import data_equivalence

from meeple_gym import ActionError, IllegalActionError
from meeple_gym.core.gym_env import GAME_IDS

NUM_ENVS = 6


def legal_actions(rng, mask: np.ndarray) -> np.ndarray:
    """A uniform legal action per row; -1 where nothing is legal (an ending row)."""
    noise = rng.random(mask.shape) * mask
    return np.where(mask.any(axis=1), noise.argmax(axis=1), -1).astype(np.int64)


def spoiled(rng, actions: np.ndarray, mask: np.ndarray, n: int):
    """``actions`` with one row spoiled, and what kind of spoiling it was."""
    bad = actions.copy()
    # A row with a legal move: a row showing its end (next-step mode) ignores any action.
    row = int(rng.choice(np.flatnonzero(mask.any(axis=1))))
    kind = ("illegal", "range", "dtype")[int(rng.integers(0, 3))]
    if kind == "illegal" and (mask[row] == 0).any():
        bad[row] = int(rng.choice(np.flatnonzero(mask[row] == 0)))
        return bad, kind
    if kind == "dtype":
        return bad.astype(np.float64), kind
    bad[row] = int(rng.choice([-5, -1, n, n + 7, 2**40]))
    return bad, "range"


def play(game: str, steps: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    counts = {"steps": 0, "ends": 0, "natural_ends": 0, "forfeits": 0, "refused": 0, "envs": 0}
    for mode in ("NextStep", "SameStep"):
        for opponent, illegal in (("random", "lose"), ("self", "raise"), ("self", "lose")):
            env = gymnasium.make_vec(
                GAME_IDS[game],
                num_envs=NUM_ENVS,
                vectorization_mode="vector_entry_point",
                opponent=opponent,
                illegal_action=illegal,
                autoreset_mode=mode,
                copy=bool(rng.integers(0, 2)),
            ).unwrapped
            counts["envs"] += 1
            _, info = env.reset(seed=int(rng.integers(0, 2**31)))
            n = env.single_action_space.n
            for _ in range(steps):
                mask = info["action_mask"]
                actions = legal_actions(rng, mask)
                if rng.random() < 0.2 and mask.any():
                    bad, kind = spoiled(rng, actions, mask, n)
                    before = pickle.dumps(env)
                    try:
                        _, _, term, _, info = env.step(bad)
                        # Only a forfeit may pass: an illegal move under "lose".
                        assert kind == "illegal" and illegal == "lose", kind
                        # Same-step mode reports the forfeit in the finished episode's info.
                        ended_info = info if mode == "NextStep" else info["final_info"]
                        counts["forfeits"] += int(ended_info["illegal_action"].sum())
                        counts["ends"] += int(term.sum())
                        counts["steps"] += 1
                        continue
                    except (ActionError, IllegalActionError):
                        counts["refused"] += 1
                    # Refused: the env must play on exactly as a copy taken before it.
                    twin = pickle.loads(before)
                    expected = twin.step(actions)
                    got = env.step(actions)
                    assert data_equivalence(expected, got, exact=True), "refused step changed it"
                    twin.close()
                    _, _, term, _, info = got
                else:
                    _, _, term, trunc, info = env.step(actions)
                    counts["ends"] += int((term | trunc).sum())
                    counts["natural_ends"] += int((term | trunc).sum())
                counts["steps"] += 1
            env.close()
    return counts


def main() -> None:
    game, steps, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    try:
        counts = play(game, steps, seed)
    except Exception:
        traceback.print_exc()
        print(json.dumps({"game": game, "seed": seed, "error": True}))
        sys.exit(1)
    print(json.dumps({"game": game, "seed": seed, **counts}))


if __name__ == "__main__":
    main()
