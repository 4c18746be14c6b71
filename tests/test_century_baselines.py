"""Baseline agents: legality everywhere, random agent statistics, heuristic strength.

Games are driven with the rules kernels directly (init_game / legal_mask_into / apply_action)
and the encoder, independent of the PettingZoo env.
"""

import numpy as np
import pytest

from meeple_gym.baselines import CenturyHeuristicAgent, RandomAgent
from meeple_gym.century.rules import (
    NUM_ACTIONS,
    PHASE_OVER,
    STATE_DTYPE,
    apply_action,
    init_game,
    legal_mask_into,
)
from meeple_gym.core.rng import game_key
from meeple_gym.encoders.century import OBS_SIZE, encode_batch, encode_into

PLAYER_COUNTS = (2, 3, 4, 5)


def new_game(states, num_players, seed, index):
    init_game(states, 0, num_players, game_key(seed, index))


def play_game(num_players, seed, index, agents, on_decision=None):
    """Play one game; ``agents[seat]`` is a RandomAgent or a CenturyHeuristicAgent."""
    states = np.zeros(1, STATE_DTYPE)
    new_game(states, num_players, seed, index)
    s = states[0]
    mask = np.zeros(NUM_ACTIONS, np.int8)
    obs = np.zeros(OBS_SIZE, np.float32)
    while s["phase"] != PHASE_OVER:
        seat = s["current_player"]
        legal_mask_into(states, 0, mask)
        encode_into(states, 0, seat, obs)
        action = agents[seat].act({"observation": obs, "action_mask": mask})
        if on_decision is not None:
            on_decision(states, obs, mask, action)
        assert mask[action] == 1, (action, np.flatnonzero(mask))
        apply_action(states, 0, action)
    return s


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_agents_always_legal(num_players):
    heuristic = CenturyHeuristicAgent()
    rows_obs, rows_mask = [], []

    def record(states, obs, mask, action):
        rows_obs.append(obs.copy())
        rows_mask.append(mask.copy())

    # Mixed seats reach positions neither agent would reach alone; all-heuristic too.
    for index in range(8):
        agents = [heuristic if (seat + index) % 2 else RandomAgent(index) for seat in range(5)]
        play_game(num_players, 77, index, agents, record)
    play_game(num_players, 77, 99, [heuristic] * num_players, record)
    obs = np.stack(rows_obs)
    masks = np.stack(rows_mask)
    for actions in (heuristic.act_batch(obs, masks), RandomAgent(1).act_batch(obs, masks)):
        assert actions.shape == (len(masks),)
        assert np.all(masks[np.arange(len(masks)), actions] == 1)
    # The batch kernel agrees with the one-at-a-time call.
    singles = [
        heuristic.act({"observation": o, "action_mask": m}) for o, m in zip(obs, masks, strict=True)
    ]
    np.testing.assert_array_equal(heuristic.act_batch(obs, masks), singles)


def test_heuristic_legal_on_random_positions_with_batch_encoder():
    # Uniform-random games with every player count, then every seat's view at once.
    rng = np.random.default_rng(5)
    heuristic = CenturyHeuristicAgent()
    for num_players in PLAYER_COUNTS:
        states = np.zeros(1, STATE_DTYPE)
        new_game(states, num_players, 123, num_players)
        mask = np.zeros((1, NUM_ACTIONS), np.int8)
        obs = np.zeros((1, OBS_SIZE), np.float32)
        while states[0]["phase"] != PHASE_OVER:
            legal_mask_into(states, 0, mask[0])
            encode_batch(states, states["current_player"].astype(np.int64), obs)
            assert mask[0, heuristic.act_batch(obs, mask)[0]] == 1
            apply_action(states, 0, rng.choice(np.flatnonzero(mask[0])))


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


def heuristic_win_rate(num_players, games, seed):
    """Share of games the heuristic wins against random opponents, rotating its seat."""
    heuristic = CenturyHeuristicAgent()
    wins = 0
    for index in range(games):
        seat = index % num_players
        agents = [RandomAgent(seed * 100_003 + index) for _ in range(num_players)]
        agents[seat] = heuristic
        s = play_game(num_players, seed, index, agents)
        wins += int(s["winner"] == seat and s["terminated"] == 1)
    return wins / games


def test_heuristic_beats_random_two_players():
    # Target is 90%; 200 games leave room for sampling noise (sd ~2% at p = 0.9).
    assert heuristic_win_rate(2, 200, seed=2024) >= 0.85


@pytest.mark.slow
def test_heuristic_beats_random_two_players_1000_games():
    assert heuristic_win_rate(2, 1000, seed=31337) >= 0.90
