"""Everdell baselines: the heuristic is always legal, plays sensibly, and beats the random agent.

Games are driven with the rules kernels directly (init_game / legal_mask_into / apply_action)
and the encoder, independent of the PettingZoo env. Hand-built positions start from a fresh
game and edit record fields of the player to act; ``_turn_mask`` then recomputes the turn's
legal actions for the edited position.
"""

import numpy as np
import pytest
from game_cases import DecisionLog, KernelGame, assert_rejects_bad_inputs

from meeple_gym.baselines.everdell_heuristic import EverdellHeuristicAgent
from meeple_gym.baselines.random_agent import RandomAgent
from meeple_gym.core.rng import game_key
from meeple_gym.encoders.everdell import OBS_SIZE, P_FREE
from meeple_gym.everdell import data as D
from meeple_gym.everdell.rules import (
    A_PASS,
    A_PAY,
    A_PLACE_EVENT,
    A_PLACE_FOREST,
    A_PLACE_JOURNEY,
    A_PLAY_HAND,
    A_PREPARE,
    A_RESOURCE,
    AUTUMN,
    NUM_ACTIONS,
    PAY_NORMAL,
    PAY_TOKEN,
    PEBBLE,
    PK_GAIN,
    PK_PAY,
    PK_TURN,
    W_FREE,
    _turn_mask,
    apply_action,
    legal_mask_into,
)

HEURISTIC = EverdellHeuristicAgent()
CARD = D.CARD_ID
LOC = D.LOCATION_ID


GAME = KernelGame("everdell")


def new_game(num_players, seed, options=0):
    return GAME.new(num_players, game_key(seed), options)


def decide(states):
    """The heuristic's action for the player to act, checked legal."""
    return GAME.decide(HEURISTIC, states)


def play_game(seed, agents, num_players=2, options=0, on_decision=None):
    """One game to the end; ``agents[player]`` is any agent with ``act``."""
    return GAME.play(new_game(num_players, seed, options), agents, on_decision)


# ---- legality --------------------------------------------------------------------------------


def test_agents_always_legal_and_batch_matches_single():
    log = DecisionLog()
    # Mixed seats reach positions neither agent reaches alone; all-heuristic games too.
    for index in range(4):
        agents = [HEURISTIC, RandomAgent(index)][:: 1 if index % 2 else -1]
        play_game(700 + index, agents, on_decision=log)
    for num_players in (1, 2, 3, 4):
        s = play_game(800 + num_players, [HEURISTIC] * 4, num_players, 1, on_decision=log)
        assert s["terminated"] == 1  # ends by the rules (EVD-E1), not by the step cap
    log.assert_batch_matches_single(HEURISTIC)


def test_heuristic_legal_on_random_positions():
    # Uniform-random games (through the seasons: passing waits for autumn, EVD-E1) for 1-4
    # players.
    games = [new_game(1 + seed % 4, 900 + seed, options=1 + seed % 3) for seed in range(16)]
    assert GAME.heuristic_legal_on_random_games(HEURISTIC, games) > 1500


def test_agent_rejects_bad_inputs():
    assert_rejects_bad_inputs(HEURISTIC, OBS_SIZE, NUM_ACTIONS)
    empty = np.zeros(NUM_ACTIONS, np.int8)
    obs = np.zeros(OBS_SIZE, np.float32)
    with pytest.raises(ValueError):
        HEURISTIC.act({"observation": obs, "action_mask": empty[:-1]})
    with pytest.raises(ValueError):
        HEURISTIC.act_batch(obs, empty)  # 1-D inputs: batch dimension missing
    with pytest.raises(ValueError):
        HEURISTIC.act_batch(obs[None, :], empty[None, :])  # a row with no legal action


# ---- sensible play on hand-built positions ---------------------------------------------------


def turn_position(seed=1, num_players=2):
    """A fresh game's player to act with an empty hand, no resources, and a Meadow of Palaces
    (2 twig, 3 resin, 3 pebble: far out of reach), so only what a test adds is playable."""
    states = new_game(num_players, seed)
    s = states[0]
    p = s["current_player"]
    s["hand"][p, :] = 0
    s["hand_n"][p] = 0
    s["resources"][p, :] = 0
    s["meadow"][:] = CARD["palace"]
    _turn_mask(s, p)
    return states, p


def set_hand(s, p, cards):
    s["hand"][p, :] = 0
    for key in cards:
        s["hand"][p, CARD[key]] += 1
    s["hand_n"][p] = len(cards)


def refresh(s, p):
    _turn_mask(s, p)


def test_plays_a_paired_critter_with_the_occupied_token():
    # EVD-P3: a Farm in the city admits a Husband for free; paying berries would waste them.
    states, p = turn_position(seed=2)
    s = states[0]
    s["city"][p, 0] = CARD["farm"]
    set_hand(s, p, ["husband"])
    s["resources"][p, D.BERRY] = 3
    refresh(s, p)
    assert decide(states) == A_PLAY_HAND + CARD["husband"]
    apply_action(states, 0, A_PLAY_HAND + CARD["husband"])
    assert s["pend_kind"] == PK_PAY
    mask = np.zeros(NUM_ACTIONS, np.int8)
    legal_mask_into(states, 0, mask)
    assert mask[A_PAY + PAY_NORMAL] == 1 and mask[A_PAY + PAY_TOKEN] == 1
    assert decide(states) == A_PAY + PAY_TOKEN
    apply_action(states, 0, A_PAY + PAY_TOKEN)
    assert s["city_occupied"][p, 0] == 1 and s["resources"][p, D.BERRY] == 3
    assert CARD["husband"] in s["city"][p]


def test_claims_an_event_it_qualifies_for():
    # EVD-W5: four green Production cards achieve Harvest Festival for 3 points.
    states, p = turn_position(seed=3)
    s = states[0]
    for k in range(4):
        s["city"][p, k] = CARD["farm"]
        s["city_occupied"][p, k] = 1
    refresh(s, p)
    festival = D.EVENT_ID["harvest_festival"]
    assert decide(states) == A_PLACE_EVENT + festival
    apply_action(states, 0, A_PLACE_EVENT + festival)
    assert s["event_owner"][festival] == p


def test_gains_the_resource_its_cards_lack():
    # Forest "2 any": with twig and resin for a Mine (1 twig, 1 resin, 1 pebble), a pebble.
    states, p = turn_position(seed=4)
    s = states[0]
    s["forest"][0] = LOC["forest_2_any"]
    set_hand(s, p, ["mine"])
    s["resources"][p, D.TWIG] = 1
    s["resources"][p, D.RESIN] = 1
    refresh(s, p)
    apply_action(states, 0, A_PLACE_FOREST + 0)
    assert s["pend_kind"] == PK_GAIN
    assert decide(states) == A_RESOURCE + PEBBLE


def test_prepares_for_season_rather_than_passing():
    # EVD-F1: every worker placed and nothing to play: prepare, never pass. Under the
    # pass_anytime option both are legal (by the rules passing waits for autumn, EVD-E1).
    states, p = turn_position(seed=5)
    s = states[0]
    s["opt_pass_anytime"] = 1
    s["wloc"][p, : s["workers"][p]] = LOC["haven"]
    refresh(s, p)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    legal_mask_into(states, 0, mask)
    assert mask[A_PREPARE] == 1 and mask[A_PASS] == 1
    assert decide(states) == A_PREPARE


def test_goes_on_a_journey_in_autumn():
    # EVD-W7: in autumn, 5 cards far out of reach are worth more as Journey 5's 5 points.
    states, p = turn_position(seed=6)
    s = states[0]
    s["season"][p] = AUTUMN
    s["workers"][p] = 6
    s["wloc"][p, :6] = W_FREE
    set_hand(s, p, ["castle", "palace", "ever_tree", "theater", "school"])
    refresh(s, p)
    assert decide(states) == A_PLACE_JOURNEY + 0  # the 5-point space


def test_passes_only_with_nothing_left():
    # Over whole games: a pass (EVD-E1) comes only once no worker is free and the season
    # cannot change (autumn is the last, EVD-F5).
    passes = 0

    def check(states, player, obs, mask, action):
        nonlocal passes
        s = states[0]
        if s["pend_kind"] == PK_TURN and action == A_PASS:
            assert obs[P_FREE] == 0 and mask[A_PREPARE] == 0
            assert s["season"][player] == AUTUMN
            passes += 1

    for num_players in (1, 2, 3):
        play_game(40 + num_players, [HEURISTIC] * 4, num_players, 1, on_decision=check)
    assert passes == 1 + 2 + 3


def test_solo_beats_a_random_player_against_rugwort():
    # Solo (Rugwort in seat 1): same seeds, the heuristic's city is worth far more than a
    # random player's (who plays all four seasons, EVD-E1, but scores about 14).
    scores = {"heuristic": [], "random": []}
    for index in range(20):
        for name, agent in (("heuristic", HEURISTIC), ("random", RandomAgent(index))):
            s = play_game(5_000 + index, [agent, None], num_players=1, options=1)
            assert s["terminated"] == 1
            scores[name].append(s["score"][0])
    assert np.mean(scores["heuristic"]) > np.mean(scores["random"]) + 15


def test_solo_match_counts_losses_to_rugwort():
    """A solo match is scored against Rugwort: a win, a loss to him, or a draw (equal scores)."""
    from meeple_gym.baselines.evaluate import play_match, winners_from_rewards

    rewards = np.array([[1.0], [-1.0], [0.0]], np.float32)
    assert winners_from_rewards(rewards).tolist() == [0, -2, -1]
    result = play_match("everdell", 1, ["heuristic"], 60, seed=3, progress=False)
    assert result["wins"] + result["draws"] + result["losses"] == 60
    assert result["wins"] > 0 and result["losses"] > 0  # year 1: about half the games each way
