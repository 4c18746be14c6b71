"""Endeavor baselines: the heuristic is always legal, plays sensibly, and beats the random agent.

Games are driven with the rules kernels directly (init_game / legal_mask_into / apply_action)
and the encoder, independent of the PettingZoo env. Hand-built positions come from
tests/endeavor_helpers.py (``blank``: round 1 planning, seat 0 first, nothing claimed).
"""

import numpy as np
import pytest
from endeavor_helpers import (
    BUILDING,
    CITY,
    COMMANDER,
    CRAFTSMAN,
    DONE,
    EMPIRE,
    GOVERNOR,
    HOME,
    MERCHANT,
    POLITICIAN,
    SAILOR,
    act,
    blank,
    give_empire,
    plan,
    put_city,
    set_building_market,
    set_goods,
    set_roles,
    set_ships,
)
from game_cases import DecisionLog, KernelGame, assert_rejects_bad_inputs

from meeple_gym.baselines.endeavor_heuristic import EndeavorHeuristicAgent
from meeple_gym.baselines.random_agent import RandomAgent
from meeple_gym.core.rng import game_key
from meeple_gym.encoders.endeavor import OBS_SIZE
from meeple_gym.endeavor import rules as R

HEURISTIC = EndeavorHeuristicAgent()
GAME = KernelGame("endeavor", over=lambda s: s["phase"] == R.PH_OVER)


def new_game(num_players, seed):
    return GAME.new(num_players, game_key(seed), 0)


def decide(states, agent=HEURISTIC):
    """The agent's action for the player to act, checked legal."""
    return GAME.decide(agent, states)


def play_game(seed, agents, on_decision=None):
    """One game to the end; ``agents[player]`` is any agent with ``act``."""
    return GAME.play(new_game(len(agents), seed), agents, on_decision)


# ---- legality ------------------------------------------------------------------------------


def test_agents_always_legal_and_batch_matches_single():
    log = DecisionLog()
    # Mixed seats reach positions neither agent reaches alone; all-heuristic games too.
    for index in range(9):
        n = 2 + index % 3
        agents = [RandomAgent(index) for _ in range(n)]
        agents[index % n] = HEURISTIC
        play_game(700 + index, agents, on_decision=log)
    for n in (2, 3, 4):
        s = play_game(800 + n, [HEURISTIC] * n, on_decision=log)
        assert s["terminated"] == 1  # no loop: the game ends by the rules (END-E1 / END-E4)
    log.assert_batch_matches_single(HEURISTIC)


def test_heuristic_legal_on_random_positions():
    # Uniform-random games with 2-4 players.
    games = [new_game(2 + seed % 3, 900 + seed) for seed in range(24)]
    assert GAME.heuristic_legal_on_random_games(HEURISTIC, games) > 2000


def test_agent_rejects_bad_inputs():
    assert_rejects_bad_inputs(HEURISTIC, OBS_SIZE, R.NUM_ACTIONS)
    obs = np.zeros(OBS_SIZE, np.float32)
    with pytest.raises(ValueError):
        HEURISTIC.act_batch(obs[None, :], np.zeros((1, R.NUM_ACTIONS), np.int8))


# ---- sensible play on hand-built positions -------------------------------------------------


def execute(role, tokens, setup=None, round_=1):
    """Seat 0 executes ``role`` with ``tokens``; seat 1 plans Governor with 0 tokens (it
    passes at once). ``setup(states)`` edits the position before planning."""
    states = blank(2)
    states[0]["round"] = round_
    if setup is not None:
        setup(states)
    R._fill_mask(states[0])
    plan(states, [role, GOVERNOR], [tokens, 0])
    s = states[0]
    assert s["phase"] == R.PH_ROLE and s["current_player"] == 0 and s["role"][0] == role
    return states


def run_role(states):
    """Let the heuristic finish seat 0's role; returns its actions."""
    s = states[0]
    actions = []
    while s["phase"] == R.PH_ROLE and s["current_player"] == 0:
        actions.append(decide(states))
        R.apply_action(states, 0, actions[-1])
    return actions


def test_plans_a_role_with_every_token():
    # END-O5: tokens come back after the round, so holding some back gains nothing.
    states = blank(2)
    s = states[0]
    action = decide(states)
    assert R.A_ROLE <= action < R.A_TOKENS
    act(states, action)
    assert decide(states) == R.A_TOKENS + int(s["pool"][0])


def test_never_plans_commander_with_nothing_to_attack():
    states = blank(2)
    set_roles(states, 0, (COMMANDER, CRAFTSMAN, MERCHANT))
    R._fill_mask(states[0])
    assert decide(states) != R.A_ROLE + COMMANDER


def test_craftsman_buys_the_building_worth_most():
    # END-A3: 6 work buy the Cathedral (3 points) rather than Theatre + Tea House (1 point).
    def setup(states):
        set_building_market(states, "theatre", "cathedral", "tea_house")

    states = execute(CRAFTSMAN, 6, setup)
    assert decide(states) == R.A_BUILDING + 1
    run_role(states)
    s = states[0]
    assert s["board_n"][0] == 1 and s["board_id"][0, 0] == BUILDING["cathedral"]


def test_governor_settles_the_best_reachable_city():
    # END-G: a ship in the Caribbean makes Havana (2 points) reachable; Madras (India, 3
    # points) is not without a ship there; Bristol (Europe) is worth 1.
    slots = {}

    def setup(states):
        slots["bristol"] = put_city(states, "bristol")
        slots["havana"] = put_city(states, "havana")
        slots["madras"] = put_city(states, "madras")
        set_ships(states, 0, "caribbean", 1)
        set_goods(states, 0, tea=2)

    states = execute(GOVERNOR, 1, setup)
    assert decide(states) == R.A_SLOT + slots["havana"]
    run_role(states)
    s = states[0]
    assert s["slot_owner"][slots["havana"]] == 0 and s["goods"][0].sum() == 0


def test_governor_moves_its_weakest_marker():
    # END-G: with all 3 markers out, settling a better city moves the weakest marker.
    slots = {}

    def setup(states):
        slots["genoa"] = put_city(states, "genoa", owner=0)
        slots["lisbon"] = put_city(states, "lisbon", owner=0, upgraded=True)
        slots["goree"] = put_city(states, "goree", owner=0, upgraded=True)
        slots["bridgetown"] = put_city(states, "bridgetown")
        set_ships(states, 0, "caribbean", 1)
        set_goods(states, 0, sugar=1)

    states = execute(GOVERNOR, 2, setup)
    run_role(states)
    s = states[0]
    assert s["slot_owner"][slots["bridgetown"]] == 0
    assert s["slot_owner"][slots["genoa"]] == -1  # the 1-point, not upgraded city
    assert s["slot_owner"][slots["lisbon"]] == s["slot_owner"][slots["goree"]] == 0


def test_merchant_collects_from_every_city_and_the_home_port():
    # END-A2: 1 good from Genoa, 2 from upgraded Goree, 1 from the home port.
    def setup(states):
        put_city(states, "genoa", owner=0)
        put_city(states, "goree", owner=0, upgraded=True)

    states = execute(MERCHANT, 5, setup)
    actions = run_role(states)
    assert HOME in actions and DONE not in actions[:-1]
    assert states[0]["goods"][0].sum() == 4


def test_commander_attacks_only_when_it_pays():
    # END-A4: taking an upgraded 2-point city costs one token for good; worth it in the last
    # round, not with 11 rounds of use left for the token and a 1-point city.
    slots = {}

    def setup(states, city):
        put_city(states, "genoa", owner=0)
        slots[city] = put_city(states, city, owner=1, upgraded=city == "saint_louis")
        put_city(states, "ouidah", owner=0)

    last = execute(COMMANDER, 3, lambda st: setup(st, "saint_louis"), round_=R.ROUND_LIMIT)
    assert decide(last) == R.A_SLOT + slots["saint_louis"]
    first = execute(COMMANDER, 3, lambda st: setup(st, "goree"), round_=1)
    assert R.A_SLOT + slots["goree"] in set(np.flatnonzero(first[0]["pend_mask"]))
    assert decide(first) == DONE


def test_politician_takes_the_best_card_it_qualifies_for():
    # END-A5: 2 votes; Vast Dominions (3 points, 3 cities) beats Royal Charter (1 point);
    # Crown Monopoly needs 9 goods and is not takeable.
    def setup(states):
        give_empire(states, 0, "royal_charter", "vast_dominions", "crown_monopoly")
        for key in ("genoa", "lisbon", "goree"):
            put_city(states, key, owner=0)

    states = execute(POLITICIAN, 2, setup)
    assert R.A_EMPIRE + EMPIRE["crown_monopoly"] not in set(np.flatnonzero(states[0]["pend_mask"]))
    assert decide(states) == R.A_EMPIRE + EMPIRE["vast_dominions"]


def test_sailor_explores_early():
    # END-R2 / END-R3: in round 1 the Sailor opens new regions, never wasting its tokens.
    states = execute(SAILOR, 15, round_=1)
    first = decide(states)
    assert first in (R.A_REGION + 2, R.A_REGION + 4)  # Caribbean or India: 1 hop away
    run_role(states)
    s = states[0]
    assert s["region_open"][2:].sum() >= 2 and s["ships"][0].sum() <= 4


def test_start_city_takes_the_most_points():
    # END-S3: Saint-Louis (2 points) over the 1-point cities.
    states = new_game(2, seed=3)
    s = states[0]
    k = next(k for k in range(R.N_SLOTS) if R.SLOT_REGION[k] == 1)
    s["slot_city"][k] = CITY["saint_louis"]
    R._fill_mask(s)
    assert decide(states) == R.A_SLOT + k


def test_returns_the_empire_cards_hardest_to_use():
    # END-S4: of 4 cards keep 2; far-region conditions (China, 3 Caribbean cities) go back.
    states = new_game(2, seed=4)
    s = states[0]
    mask = np.zeros(R.NUM_ACTIONS, np.int8)
    while s["phase"] == R.PH_START_CITY:
        R.legal_mask_into(states, 0, mask)
        R.apply_action(states, 0, np.flatnonzero(mask)[0])
    assert s["phase"] == R.PH_EMPIRE_RETURN
    p = int(s["current_player"])
    keys = ("royal_charter", "vast_dominions", "celestial_trade_mission", "west_india_company")
    s["empire_hand"][p] = 0
    for key in keys:
        s["empire_hand"][p, EMPIRE[key]] = 1
    R._fill_mask(s)
    returned = []
    while s["phase"] == R.PH_EMPIRE_RETURN and s["current_player"] == p:
        action = decide(states)
        returned.append(action - R.A_EMPIRE)
        R.apply_action(states, 0, action)
    assert sorted(returned) == sorted(EMPIRE[k] for k in keys[2:])
