"""Radlands baselines: the heuristic is always legal, plays sensibly, and beats the random agent.

Games are driven with the rules kernels directly (init_game / legal_mask_into / apply_action)
and the encoder, independent of the PettingZoo env. Hand-built positions start from the
first-game camps (RAD-S3 option) and edit record fields, keeping the entity lists consistent.
"""

import numpy as np
from game_cases import DecisionLog, KernelGame, assert_rejects_bad_inputs

from meeple_gym.baselines.radlands_heuristic import RadlandsHeuristicAgent
from meeple_gym.baselines.random_agent import RandomAgent
from meeple_gym.core.rng import game_key
from meeple_gym.encoders.radlands import OBS_SIZE
from meeple_gym.radlands.data import CAMP_ID, DECK_TYPE_ID
from meeple_gym.radlands.rules import (
    A_DRAW,
    A_END_TURN,
    A_JUNK,
    A_PLACE,
    A_PLAY_PERSON,
    A_TARGET,
    A_USE,
    NUM_ACTIONS,
    OPTION_FIRST_GAME_CAMPS,
    PERSON,
    PHASE_ACTIONS,
    PHASE_DECISION,
    PHASE_OVER,
    RAIDERS,
    apply_action,
)

HEURISTIC = RadlandsHeuristicAgent()
GAME = KernelGame("radlands", over=lambda s: s["phase"] == PHASE_OVER)


def new_game(seed, options=0):
    return GAME.new(2, game_key(seed), np.int64(options))


def decide(agent, states, player=None):
    """The agent's action for the player to act (or ``player``), checked legal."""
    return GAME.decide(agent, states, player)


def play_game(seed, agents, options=0, on_decision=None):
    """One game to the end; ``agents[player]`` is any agent with ``act``."""
    return GAME.play(new_game(seed, options), agents, on_decision)


# ---- legality ------------------------------------------------------------------------------


def test_agents_always_legal_and_batch_matches_single():
    log = DecisionLog()
    # Mixed seats reach positions neither agent reaches alone; all-heuristic games too.
    for index in range(8):
        agents = [HEURISTIC, RandomAgent(index)][:: 1 if index % 2 else -1]
        play_game(700 + index, agents, options=index % 16, on_decision=log)
    for index in range(4):
        s = play_game(800 + index, [HEURISTIC, HEURISTIC], options=index * 5, on_decision=log)
        assert s["terminated"] == 1  # no loop: the game ends by the rules (RAD-E1 / RAD-E2)
    log.assert_batch_matches_single(HEURISTIC)


def test_heuristic_legal_on_random_positions():
    # Uniform-random games under every option combination.
    games = [new_game(900 + seed, options=seed % 16) for seed in range(48)]
    assert GAME.heuristic_legal_on_random_games(HEURISTIC, games) > 5000


def test_agent_rejects_bad_inputs():
    assert_rejects_bad_inputs(HEURISTIC, OBS_SIZE, NUM_ACTIONS)


# ---- sensible play on hand-built positions -------------------------------------------------


def actions_phase(seed=1):
    """A first-game position in the turn player's actions phase, hand and water cleared."""
    states = new_game(seed, OPTION_FIRST_GAME_CAMPS)
    s = states[0]
    assert s["phase"] == PHASE_ACTIONS
    p = s["turn_player"]
    s["hand"][:, :] = 0
    s["water"] = 0
    return states, p


def set_camp(s, p, c, key, state=0, used=0):
    s["camp"][p, c] = CAMP_ID[key]
    s["camp_state"][p, c] = state
    s["camp_used"][p, c] = used


def add_person(s, p, c, person_type, punk=0, damaged=0, uid=None):
    i = s["col_len"][p, c]
    s["ent_kind"][p, c, i] = PERSON
    s["ent_type"][p, c, i] = person_type
    s["ent_uid"][p, c, i] = uid if uid is not None else 100 + p * 10 + c * 3 + i
    s["ent_punk"][p, c, i] = punk
    s["ent_damaged"][p, c, i] = damaged
    s["ent_not_ready"][p, c, i] = 0
    s["col_len"][p, c] = i + 1


def test_finishes_a_damaged_camp_first():
    # RAD-I2: a second damage destroys a damaged camp; that beats a first hit or a punk.
    states, p = actions_phase()
    s = states[0]
    q = 1 - p
    set_camp(s, p, 0, "railgun")
    set_camp(s, p, 1, "oasis")
    set_camp(s, p, 2, "obelisk")
    s["water"] = 2
    set_camp(s, q, 0, "garage", state=1)
    set_camp(s, q, 1, "pillbox")
    set_camp(s, q, 2, "cannon")
    add_person(s, q, 2, DECK_TYPE_ID["sniper"], punk=1)
    assert decide(HEURISTIC, states) == A_USE + 0  # Railgun's damage
    apply_action(states, 0, A_USE + 0)
    assert s["phase"] == PHASE_DECISION
    assert decide(HEURISTIC, states) == A_TARGET + (1 * 3 + 0) * 3 + 0
    apply_action(states, 0, A_TARGET + (1 * 3 + 0) * 3 + 0)
    assert s["camp_state"][q, 0] == 2


def test_raiders_cost_an_undamaged_camp():
    # RAD-I8: the opponent picks which of their camps Raiders damage: not the damaged one.
    states, p = actions_phase(seed=3)
    s = states[0]
    q = 1 - p
    s["camp_state"][p, 1] = 1
    s["queue"][q, 0] = RAIDERS  # q's Raiders resolve in q's events phase (RAD-T1)
    apply_action(states, 0, A_END_TURN)
    assert s["phase"] == PHASE_DECISION and s["current_player"] == p
    action = decide(HEURISTIC, states)
    assert action in (A_TARGET + 0, A_TARGET + 2 * 3)  # column 0 or 2, never column 1
    apply_action(states, 0, action)
    assert s["camp_state"][p].tolist().count(1) == 2 and 2 not in s["camp_state"][p]


def test_person_goes_in_front_of_an_unprotected_live_camp():
    # RAD-B3: column 0 is covered, column 2's camp is destroyed; column 1's camp is exposed.
    states, p = actions_phase(seed=4)
    s = states[0]
    s["camp_used"][p, :] = 1
    add_person(s, p, 0, DECK_TYPE_ID["sniper"], punk=1)
    s["camp_state"][p, 2] = 2
    s["hand"][p, DECK_TYPE_ID["vigilante"]] = 1
    s["water"] = 1
    assert decide(HEURISTIC, states) == A_PLAY_PERSON + DECK_TYPE_ID["vigilante"]
    apply_action(states, 0, A_PLAY_PERSON + DECK_TYPE_ID["vigilante"])
    assert decide(HEURISTIC, states) == A_PLACE + 1 * 3 + 1
    apply_action(states, 0, A_PLACE + 1 * 3 + 1)
    assert s["col_len"][p, 1] == 2 and s["ent_type"][p, 1, 1] == DECK_TYPE_ID["vigilante"]


def test_raids_when_raiders_would_resolve():
    # RAD-I8: with Raiders in slot 1 a raid resolves them at once.
    states, p = actions_phase(seed=5)
    s = states[0]
    set_camp(s, p, 0, "garage")
    s["camp_used"][p, 1:] = 1
    s["queue"][p, 0] = RAIDERS
    s["water"] = 1
    assert decide(HEURISTIC, states) == A_USE + 0
    apply_action(states, 0, A_USE + 0)
    assert s["phase"] == PHASE_DECISION and s["current_player"] == 1 - p


def test_restores_a_damaged_camp_by_junking():
    # RAD-A5 / RAD-I3: Gunner's junk icon restores; with no water to play it, junk it.
    states, p = actions_phase(seed=6)
    s = states[0]
    s["camp_used"][p, :] = 1
    s["camp_state"][p, 2] = 1
    s["hand"][p, DECK_TYPE_ID["gunner"]] = 1
    assert decide(HEURISTIC, states) == A_JUNK + DECK_TYPE_ID["gunner"]
    apply_action(states, 0, A_JUNK + DECK_TYPE_ID["gunner"])
    assert decide(HEURISTIC, states) == A_TARGET + 2 * 3
    apply_action(states, 0, A_TARGET + 2 * 3)
    assert s["camp_state"][p, 2] == 0


def test_spends_water_before_ending_the_turn():
    # RAD-T5: water is lost at the end of the turn, so 2 spare water buy a card (RAD-A3).
    states, p = actions_phase(seed=7)
    s = states[0]
    s["camp_used"][p, :] = 1
    s["water"] = 2
    assert decide(HEURISTIC, states) == A_DRAW
    apply_action(states, 0, A_DRAW)
    s["hand"][p, :] = 0  # nothing left to do
    assert decide(HEURISTIC, states) == A_END_TURN


def test_scud_launcher_victim_gives_up_a_punk():
    # Scud Launcher: the opponent damages one of their own cards; a punk is the cheapest loss.
    states, p = actions_phase(seed=8)
    s = states[0]
    q = 1 - p
    set_camp(s, p, 0, "scud_launcher")
    s["water"] = 1
    add_person(s, q, 1, DECK_TYPE_ID["sniper"])
    add_person(s, q, 2, DECK_TYPE_ID["muse"], punk=1)
    apply_action(states, 0, A_USE + 0)
    assert s["phase"] == PHASE_DECISION and s["current_player"] == q
    action = decide(HEURISTIC, states)
    assert action == A_TARGET + (2 * 3 + 1)  # q's own column 2, index 1: the punk
    deck_before = s["deck_n"]
    apply_action(states, 0, action)
    assert s["col_len"][q, 2] == 1 and s["deck_n"] == deck_before + 1  # RAD-K3
