"""Each game's heuristic beats the random agent in 2-player games (seats swapped each game).

Century deals game ``index`` of a run from ``game_key(seed, index)``; the later games' tests
used ``game_key(seed * 1_000_003 + index)``. Both are kept so the seeded results stay the same.
"""

import pytest
from game_cases import KernelGame, heuristic_win_rate

from meeple_gym.baselines.century_heuristic import CenturyHeuristicAgent
from meeple_gym.baselines.endeavor_heuristic import EndeavorHeuristicAgent
from meeple_gym.baselines.everdell_heuristic import EverdellHeuristicAgent
from meeple_gym.baselines.radlands_heuristic import RadlandsHeuristicAgent


def _phase_over(name):
    rules = KernelGame(name).rules
    over = rules.PHASE_OVER if hasattr(rules, "PHASE_OVER") else rules.PH_OVER
    return lambda s: s["phase"] == over


def _by_index(seed, index):
    return (seed, index)


def _by_seed(seed, index):
    return (seed * 1_000_003 + index,)


CASES = {
    "century": (CenturyHeuristicAgent, _phase_over("century"), _by_index),
    "radlands": (RadlandsHeuristicAgent, _phase_over("radlands"), _by_seed),
    "everdell": (EverdellHeuristicAgent, None, _by_seed),
    "endeavor": (EndeavorHeuristicAgent, _phase_over("endeavor"), _by_seed),
}


def win_rate(name, games, seed):
    agent, over, game_seed = CASES[name]
    return heuristic_win_rate(KernelGame(name, over), agent(), games, seed, game_seed)


@pytest.mark.parametrize("name", CASES)
def test_heuristic_beats_random(name):
    # Target 90%; 200 games leave room for sampling noise (sd ~2% at p = 0.9).
    assert win_rate(name, 200, seed=2024) >= 0.85


@pytest.mark.slow
@pytest.mark.parametrize("name", CASES)
def test_heuristic_beats_random_1000_games(name):
    assert win_rate(name, 1000, seed=31337) >= 0.90
