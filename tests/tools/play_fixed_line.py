"""Play a fixed line of actions with a game's rules kernels and print the final records.

Run under ``NUMBA_DISABLE_JIT=1`` it exercises the kernels as plain Python (what coverage
tools see); tests/test_pure_python_mode.py compares that with the compiled kernels.
The state is passed as an ``np.recarray`` view: plain NumPy records have no attribute access.

    python tests/tools/play_fixed_line.py century 3 0 300
"""

import importlib
import sys
import warnings

import numpy as np

from meeple_gym.core.rng import game_key


def play(game: str, num_players: int, options: int, max_steps: int, seeds=(0, 1)) -> list[str]:
    rules = importlib.import_module(f"meeple_gym.{game}.rules")
    records = []
    for seed in seeds:
        states = np.zeros(1, rules.STATE_DTYPE).view(np.recarray)
        rules.init_game(states, 0, num_players, game_key(seed), np.int64(options))
        mask = np.zeros(rules.NUM_ACTIONS, np.int8)
        for step in range(max_steps):
            if states[0].terminated or states[0].truncated:
                break
            rules.legal_mask_into(states, 0, mask)
            legal = np.flatnonzero(mask)
            rules.apply_action(states, 0, int(legal[(step * 7) % legal.size]))
        records.append(states.view(np.ndarray).tobytes().hex())
    return records


if __name__ == "__main__":
    warnings.simplefilter("ignore")  # uint64 wrap-around warns in plain NumPy: intended
    game, n, options, steps = sys.argv[1], *map(int, sys.argv[2:5])
    rules = importlib.import_module(f"meeple_gym.{game}.rules")
    # a compiled kernel is a Numba dispatcher; with the JIT disabled it is the Python function
    print("compiled" if hasattr(rules.apply_action, "signatures") else "plain-python")
    print("\n".join(play(game, n, options, steps)))
