"""Baseline agents: legality everywhere, random agent statistics, heuristic strength.

Games are driven with the rules kernels directly (init_game / legal_mask_into / apply_action)
and the encoder, independent of the PettingZoo env.
"""

import numpy as np
import pytest
from game_cases import DecisionLog, KernelGame

from meeple_gym.baselines import CenturyHeuristicAgent, RandomAgent
from meeple_gym.century.rules import (
    NUM_ACTIONS,
    PHASE_OVER,
)
from meeple_gym.core.rng import game_key
from meeple_gym.encoders.century import OBS_SIZE

PLAYER_COUNTS = (2, 3, 4, 5)


GAME = KernelGame("century", over=lambda s: s["phase"] == PHASE_OVER)


def new_game(num_players, seed, index):
    return GAME.new(num_players, game_key(seed, index))


def play_game(num_players, seed, index, agents, on_decision=None):
    """Play one game; ``agents[seat]`` is a RandomAgent or a CenturyHeuristicAgent."""
    return GAME.play(new_game(num_players, seed, index), agents, on_decision)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_agents_always_legal(num_players):
    heuristic = CenturyHeuristicAgent()
    log = DecisionLog()
    # Mixed seats reach positions neither agent would reach alone; all-heuristic too.
    for index in range(8):
        agents = [heuristic if (seat + index) % 2 else RandomAgent(index) for seat in range(5)]
        play_game(num_players, 77, index, agents, log)
    play_game(num_players, 77, 99, [heuristic] * num_players, log)
    log.assert_batch_matches_single(heuristic)
    masks = np.stack(log.masks)
    actions = RandomAgent(1).act_batch(np.stack(log.obs), masks)
    assert actions.shape == (len(masks),)
    assert np.all(masks[np.arange(len(masks)), actions] == 1)


def test_heuristic_legal_on_random_positions_with_batch_encoder():
    # Uniform-random games with every player count, then every seat's view at once.
    games = [new_game(num_players, 123, num_players) for num_players in PLAYER_COUNTS]
    GAME.heuristic_legal_on_random_games(CenturyHeuristicAgent(), games)


def test_random_agent_uniform_and_reproducible():
    mask = np.zeros(NUM_ACTIONS, np.int8)
    legal = np.array([3, 10, 45, 57, 78])
    mask[legal] = 1
    draws = 10_000
    agent = RandomAgent(seed=42)
    picks = np.array([agent.act({"action_mask": mask}) for _ in range(draws)])
    assert np.isin(picks, legal).all()
    counts = np.array([(picks == a).sum() for a in legal])
    # Binomial(10000, 1/5): sd = 40, so +-5 sd is a generous band for a fair coin.
    assert np.all(np.abs(counts - draws / 5) < 200), counts
    # Batched draws are uniform too.
    batch = RandomAgent(seed=1).act_batch(None, np.tile(mask, (draws, 1)))
    counts = np.array([(batch == a).sum() for a in legal])
    assert np.all(np.abs(counts - draws / 5) < 200), counts
    # Same seed, same choices; another seed, other choices.
    again = np.array([RandomAgent(seed=42).act({"action_mask": mask})])
    assert again[0] == picks[0]
    a, b = RandomAgent(seed=7), RandomAgent(seed=7)
    seq_a = [a.act({"action_mask": mask}) for _ in range(50)]
    seq_b = [b.act({"action_mask": mask}) for _ in range(50)]
    assert seq_a == seq_b
    c = RandomAgent(seed=8)
    assert seq_a != [c.act({"action_mask": mask}) for _ in range(50)]


def test_agents_reject_masks_without_legal_action():
    empty = np.zeros(NUM_ACTIONS, np.int8)
    with pytest.raises(ValueError):
        RandomAgent(0).act({"action_mask": empty})
    with pytest.raises(ValueError):
        RandomAgent(0).act_batch(None, empty[None, :])
    obs = np.zeros(OBS_SIZE, np.float32)
    with pytest.raises(ValueError):
        CenturyHeuristicAgent().act({"observation": obs, "action_mask": empty})
    with pytest.raises(ValueError):
        CenturyHeuristicAgent().act({"observation": obs[:10], "action_mask": empty})
