"""Endeavor snapshots: what they say (setup, cards, tokens, deck order), the Endeavor-only
refusals (roles while planning, counters bounded by the game), action names and the board.
Round trips and the refusals every game shares are in test_snapshots.py."""

import copy
import re

import numpy as np
import pytest
import snapshot_helpers as H
from snapshot_cases.endeavor import new_game, over
from snapshot_helpers import first, set_

from meeple_gym.core.errors import SnapshotError
from meeple_gym.endeavor import data as D
from meeple_gym.endeavor import rules as R
from meeple_gym.endeavor import snapshot as codec
from meeple_gym.endeavor.snapshot import _merchant_goods_left

positions = H.positions_fixture("endeavor")


@pytest.fixture(scope="module")
def truncated():
    return H.truncated("endeavor")


def _legal(states):
    return H.legal(R, states)


@pytest.mark.slow
def test_every_position_of_many_games_round_trips():
    rng = np.random.default_rng(17)
    for k in range(150):
        states = new_game(2 + k % 3, 7000 + k)
        while True:
            snap, restored = H.json_round_trip(codec, states)
            assert restored.tobytes() == states.tobytes()
            if over(states):
                break
            legal = _legal(states)
            names = {codec.action_to_string(states, 0, int(a)) for a in legal}
            assert len(names) == len(legal)
            R.apply_action(states, 0, int(rng.choice(legal)))


def test_a_shared_win_round_trips():
    # END-E3: still tied on points, empire cards and tokens left, the players share the win.
    for seed in range(3000):
        rng = np.random.default_rng(seed)
        states = new_game(2 + seed % 3, seed)
        while not over(states):
            R.apply_action(states, 0, int(rng.choice(_legal(states))))
        snap, restored = H.json_round_trip(codec, states)
        if len(snap["winners"]) > 1:
            break
    assert restored.tobytes() == states.tobytes()
    assert snap["winner"] is None and snap["terminated"]
    keys = [
        (p["score"], sum(card["kind"] == "empire" for card in p["board"]), p["pool"])
        for p in snap["players"]
    ]
    assert snap["winners"] == [q for q, key in enumerate(keys) if key == max(keys)]


def _planning_after_a_pick(positions):
    """A 3-player PH_PLAN_ROLE position in which the first planner has chosen a role."""
    return first(
        positions,
        lambda s: s["phase"] == R.PH_PLAN_ROLE and s["pick_index"] >= 1 and s["num_players"] == 3,
    )


def test_a_chosen_role_missing_from_the_hand_is_refused_while_others_plan(positions):
    """END-O1, END-O2: a role is picked from the hand and set aside only after the
    round. While a later player picks (plan_role), an earlier player's chosen role must still be
    in their hand; before the fix the snapshot was accepted and the round's end put a 4th role
    in that hand."""
    states = _planning_after_a_pick(positions)
    snap = codec.to_dict(states, 0)
    p = int(states[0]["order"][0])
    player = snap["players"][p]
    assert player["role"] in player["roles"]["hand"]
    player["role"] = next(r for r in D.ROLES if r not in player["roles"]["hand"])
    before = copy.deepcopy(snap)
    with pytest.raises(SnapshotError, match=rf"players\[{p}\]\.role.*not in the player's hand"):
        codec.from_dict(snap)
    assert snap == before


def test_an_illegal_role_pick_is_refused_and_changes_nothing(positions):
    """END-O1: a role not in hand is never legal in plan_role, in the kernel's mask
    and in a loaded position; the AEC env refuses it and the game stays exactly as it was."""
    import meeple_gym as mg
    from meeple_gym.core.errors import IllegalActionError

    states = _planning_after_a_pick(positions)
    env = mg.make("endeavor", num_players=3).unwrapped
    env.reset(seed=0)
    env.from_dict(codec.to_dict(states, 0))
    p = int(states[0]["current_player"])
    hand = set(np.flatnonzero(states[0]["role_hand"][p]).tolist())
    assert {a - R.A_ROLE for a in _legal(states)} == hand
    before = env.to_dict()
    for r in set(range(R.N_ROLES)) - hand:
        with pytest.raises(IllegalActionError):
            env.step(R.A_ROLE + r)
        assert env.to_dict() == before


def _merchant_to_act(s):
    return (
        s["phase"] == R.PH_ROLE
        and s["sub"] == R.SUB_MAIN
        and s["role"][s["current_player"]] == R.MERCHANT
        and s["round"] >= 2
    )


def _goods_after(snap, p, total):
    """``snap`` with player p holding ``total`` goods, all of one kind (any kind pays, END-G)."""
    snap = copy.deepcopy(snap)
    snap["players"][p]["goods"] = {g: (total if g == "tea" else 0) for g in D.GOODS}
    return snap


@pytest.mark.parametrize(
    "field, path",
    [
        ("pool", ("players", 0, "pool")),
        ("lost", ("players", 0, "lost")),
        ("goods", ("players", 0, "goods", "tea")),
        ("ships", ("players", 0, "ships", "india")),
        ("score", ("players", 0, "score")),
        ("strength", ("execution", "strength")),
    ],
)
def test_int16_sized_counters_are_refused_above_what_the_game_reaches(positions, field, path):
    """32767 (the int16 maximum, accepted before for goods, pool, lost, score and
    strength) and the first value above each bound are refused, naming the field."""
    snap = codec.to_dict(first(positions, _merchant_to_act), 0)
    bound = {
        "pool": R.MAX_TOKENS,
        "lost": R.MAX_TOKENS,
        "goods": R.MAX_GOODS,
        "ships": R.MAX_TOKENS,
        "score": R.MAX_SCORE,
        "strength": R.MAX_STRENGTH,
    }[field]
    assert bound < np.iinfo(np.int16).max // 2
    for value in (bound + 1, int(np.iinfo(np.int16).max)):
        bad = set_(*path, value)
        mutated = copy.deepcopy(snap)
        bad(mutated)
        where = f"players[0].{field}" if path[0] == "players" else "execution.strength"
        with pytest.raises(SnapshotError, match=re.escape(where)):
            codec.from_dict(mutated)


def test_goods_are_bounded_by_the_merchant_actions_so_far(positions):
    """END-A2, END-O1: before a player's role of round r, at most r - 1 Merchant
    actions of at most GOODS_PER_ROUND_MAX goods each; once it has begun, r."""
    states = first(positions, _merchant_to_act)
    s = states[0]
    snap = codec.to_dict(states, 0)
    r, p = int(s["round"]), int(s["current_player"])
    # p's Merchant action has begun; what it may still add counts against this round's share
    most = R.GOODS_PER_ROUND_MAX * r - _merchant_goods_left(s, p)
    codec.from_dict(_goods_after(snap, p, most))
    with pytest.raises(SnapshotError, match=rf"players\[{p}\]\.goods.*at most {most}"):
        codec.from_dict(_goods_after(snap, p, most + 1))
    waiting = [int(q) for q in s["exec_order"][int(s["exec_index"]) + 1 : int(s["num_players"])]]
    for q in waiting:  # not begun yet: one Merchant action fewer
        codec.from_dict(_goods_after(snap, q, R.GOODS_PER_ROUND_MAX * (r - 1)))
        with pytest.raises(SnapshotError, match=rf"players\[{q}\]\.goods"):
            codec.from_dict(_goods_after(snap, q, R.GOODS_PER_ROUND_MAX * (r - 1) + 1))
    assert waiting
    assert R.MAX_GOODS == R.ROUND_LIMIT * R.GOODS_PER_ROUND_MAX < np.iinfo(np.int16).max


def test_no_accepted_goods_count_overflows_or_goes_stale_on_legal_steps(positions):
    """From snapshots whose players hold the most goods allowed, every legal step
    keeps goods non-negative, within MAX_GOODS and loadable again (the bound is kept by play)."""
    rng = np.random.default_rng(11)
    starts = [st for st in positions if _merchant_to_act(st[0])][:4]
    assert starts
    for states in starts:
        snap = codec.to_dict(states, 0)
        s0 = states[0]
        executing = [int(x) for x in s0["exec_order"][: int(s0["exec_index"]) + 1]]
        for p in range(int(s0["num_players"])):
            most = R.GOODS_PER_ROUND_MAX * (int(s0["round"]) - 1 + (p in executing))
            if p == int(s0["current_player"]):
                most -= _merchant_goods_left(s0, p)
            snap = _goods_after(snap, p, most)
        loaded = codec.from_dict(snap)
        while not over(loaded):
            R.apply_action(loaded, 0, int(rng.choice(_legal(loaded))))
            goods = loaded[0]["goods"]
            assert goods.min() >= 0 and goods.sum(axis=1).max() <= R.MAX_GOODS
            assert codec.from_dict(codec.to_dict(loaded, 0)).tobytes() == loaded.tobytes()


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_opening_snapshot_reads_like_the_setup_rules(num_players):
    snap = codec.to_dict(new_game(num_players, 42), 0)
    assert snap["game"] == "endeavor" and snap["version"] == 1
    assert snap["num_players"] == num_players and snap["round"] == 1
    assert snap["phase"] == "start_city" and snap["sub_step"] == "main"
    first = snap["first_player"]
    # END-S6: seats follow the random first player, who makes the first pick (END-S3).
    assert snap["order"] == [(first + i) % num_players for i in range(num_players)]
    assert snap["pending"]["player"] == first and snap["exec_order"] is None
    tokens = {2: 15, 3: 18, 4: 15}[num_players]  # END-S1
    draw = {2: 4, 3: 3, 4: 3}[num_players]  # END-S4
    for player in snap["players"]:
        assert player["pool"] == tokens and player["lost"] == 0 and player["placed"] == 0
        assert player["role"] is None and player["board"] == []
        assert set(player["goods"].values()) == {0} and set(player["ships"].values()) == {0}
        assert len(player["empire_hand"]) == draw
        roles = player["roles"]  # END-O2: 3 in hand, the other 3 in the deck
        assert len(roles["hand"]) == 3 and len(roles["deck"]) == 3 and roles["aside"] == []
        assert sorted(roles["hand"] + roles["deck"]) == sorted(D.ROLES)
    regions = snap["regions"]
    # END-R2, END-S2, END-R4: Europe (4 slots) and West Africa (3) open with cities dealt.
    assert [key for key, region in regions.items() if region["open"]] == ["europe", "west_africa"]
    for key, slots in (("europe", 4), ("west_africa", 3)):
        assert len(regions[key]["slots"]) == slots
        assert all(slot["city"] and slot["owner"] is None for slot in regions[key]["slots"])
        assert len(regions[key]["deck"]) == 7 - slots
    for key in ("caribbean", "south_america", "india", "southeast_asia", "china"):
        assert len(regions[key]["deck"]) == 7
        assert regions[key]["slots"] == [{"city": None, "owner": None, "upgraded": False}] * 2
    # The markets are dealt once the empire cards are returned (END-S4, END-S5).
    assert snap["empire"]["market"] == [None] * 3 and snap["buildings"]["market"] == [None] * 3
    assert len(snap["empire"]["deck"]) == 30 - num_players * draw
    assert len(snap["buildings"]["deck"]) == 20
    # Any open city may be the first pick: the 7 dealt slots.
    assert len(snap["pending"]["legal"]) == 7


def _card_places(snap):
    """(kind, key) of every card the snapshot lists, with repeats."""
    cards = []
    for region in snap["regions"].values():
        cards += [("city", c) for c in region["deck"]]
        cards += [("city", slot["city"]) for slot in region["slots"] if slot["city"]]
    for kind, pile in (("empire", "empire"), ("building", "buildings")):
        cards += [(kind, c) for c in snap[pile]["deck"]]
        cards += [(kind, c) for c in snap[pile]["market"] if c]
    for player in snap["players"]:
        cards += [("empire", c) for c in player["empire_hand"]]
        cards += [(card["kind"], card["card"]) for card in player["board"]]
    return cards


def test_every_card_is_in_one_place(positions):
    # END-C2 R: 49 cities, 30 empire cards and 20 buildings, each in exactly one place.
    everything = sorted(
        [("city", c) for c in D.CITY_KEYS]
        + [("empire", e) for e in D.EMPIRE_KEYS]
        + [("building", b) for b in D.BUILDING_KEYS]
    )
    for states in positions[::5]:
        assert sorted(_card_places(codec.to_dict(states, 0))) == everything


EXTRA_TOKENS = {
    ("building", "admiralty"): 2,
    ("building", "bank"): 1,
    ("building", "shipyard"): 1,
    ("city", "willemstad"): 1,
    ("city", "calcutta"): 1,
    ("empire", "indiamen_convoy"): 1,
    ("empire", "national_bank"): 2,
}  # the extra_tokens rows of the card tables


def test_tokens_are_never_created_or_lost_by_accident(positions):
    # END-S1: 15/18/15 tokens; a ship keeps one (END-A1), an attack loses one for good (END-A4),
    # and extra_tokens cards add theirs when they reach the board.
    for states in positions[::3]:
        snap = codec.to_dict(states, 0)
        start = {2: 15, 3: 18, 4: 15}[snap["num_players"]]
        for player in snap["players"]:
            extra = sum(EXTRA_TOKENS.get((c["kind"], c["card"]), 0) for c in player["board"])
            ships = sum(player["ships"].values())
            assert player["pool"] + ships + player["lost"] == start + extra
            assert player["ships"]["europe"] == 0  # END-R4


def test_decks_are_listed_top_first(positions):
    # The next card a deck deals is its first entry: check it on the deals the rules make.
    sails = refills = draws = 0
    for states in positions:
        s = states[0]
        if s["phase"] != R.PH_ROLE or s["sub"] != R.SUB_MAIN:
            continue
        before = codec.to_dict(states, 0)
        closed = [
            r for r in range(R.NR) if not s["region_open"][r] and s["pend_mask"][R.A_REGION + r]
        ]
        if closed:  # END-R2: the first ship opens the region and deals its first slot
            r = closed[0]
            after_states = states.copy()
            R.apply_action(after_states, 0, R.A_REGION + r)
            key = D.REGION_KEYS[r]
            after = codec.to_dict(after_states, 0)
            assert after["regions"][key]["slots"][0]["city"] == before["regions"][key]["deck"][0]
            sails += 1
        if int(s["exec_index"]) == int(s["num_players"]) - 1:
            # END-O5: the last role's "done" ends the round; the markets refill from the top
            # of their decks and each player draws the top role of their deck.
            after_states = states.copy()
            R.apply_action(after_states, 0, R.A_DONE)
            after = codec.to_dict(after_states, 0)
            for pile in ("empire", "buildings"):
                empty = [i for i, e in enumerate(before[pile]["market"]) if e is None]
                if empty and len(before[pile]["deck"]) >= len(empty):
                    refilled = [after[pile]["market"][i] for i in empty]
                    assert refilled == before[pile]["deck"][: len(empty)]
                    refills += 1
            for old, new in zip(before["players"], after["players"], strict=True):
                if old["roles"]["deck"]:
                    drawn = set(new["roles"]["hand"]) - set(old["roles"]["hand"])
                    assert drawn == {old["roles"]["deck"][0]}
                    draws += 1
    assert sails >= 5 and refills >= 3 and draws >= 10


def test_from_dict_fails_only_with_snapshot_errors(positions):
    # Random edits of one value: accepted, or refused with a SnapshotError (never a crash).
    rng = np.random.default_rng(4)
    names = list(D.CITY_KEYS[:3]) + list(D.ROLES[:2]) + ["tea", "europe", "bank", "over"]
    replacements = [None, True, -1, 0, 1, 2, 3, 7, 99, "", [], {}, *names]
    refused = 0
    for states in positions[::25]:
        snap = codec.to_dict(states, 0)
        leaves = list(H.leaves(snap))
        for _ in range(40):
            path, _ = leaves[rng.integers(len(leaves))]
            edited = copy.deepcopy(snap)
            target = edited
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = replacements[rng.integers(len(replacements))]
            try:
                codec.from_dict(edited)
            except SnapshotError:
                refused += 1
    assert refused > 200


def _role_position(role, seed=3, num_players=3):
    """A fresh game's record set to ``role`` being executed by player 0 with 5 strength."""
    states = new_game(num_players, seed)
    s = states[0]
    s["phase"] = R.PH_ROLE
    s["current_player"] = 0
    s["role"][0] = role
    s["placed"][0] = 5
    s["strength"] = 5
    return states


def test_setup_and_planning_names():
    states = new_game(2, 3)
    s = states[0]
    lisbon = D.CITY_ID["lisbon"]
    s["slot_city"][1] = lisbon  # Europe's second slot (END-R4: Europe's slots come first)
    assert codec.action_to_string(states, 0, R.A_SLOT + 1) == "start in Lisbon (Europe slot 1)"
    goree = D.CITY_ID["goree"]
    s["slot_city"][4] = goree  # West Africa's first slot
    assert codec.action_to_string(states, 0, R.A_SLOT + 4) == "start in Gorée (West Africa slot 0)"
    s["phase"] = R.PH_EMPIRE_RETURN
    act = R.A_EMPIRE + D.EMPIRE_ID["act_of_parliament"]
    assert codec.action_to_string(states, 0, act) == "return Act of Parliament"
    s["phase"] = R.PH_PLAN_ROLE
    assert codec.action_to_string(states, 0, R.A_ROLE + R.SAILOR) == "choose Sailor"
    assert codec.action_to_string(states, 0, R.A_ROLE + R.GOVERNOR) == "choose Governor"
    s["phase"] = R.PH_PLAN_TOKENS
    assert codec.action_to_string(states, 0, R.A_TOKENS + 4) == "put 4 tokens"
    assert codec.action_to_string(states, 0, R.A_TOKENS + 1) == "put 1 token"
    assert codec.action_to_string(states, 0, R.A_TOKENS) == "put 0 tokens"
    assert codec.action_to_string(states, 0, R.A_DONE) == "done"


def test_role_names_read_the_position():
    states = _role_position(R.SAILOR)
    s = states[0]
    # END-R1: the Caribbean costs 3, China 7; a travel discount card takes 1 off (END-R3).
    caribbean, china = D.REGION_ID["caribbean"], D.REGION_ID["china"]
    assert codec.action_to_string(states, 0, R.A_REGION + caribbean) == (
        "send a ship to the Caribbean (cost 3)"
    )
    s["board_kind"][0, 0] = R.K_EMPIRE
    s["board_id"][0, 0] = D.EMPIRE_ID["navigation_acts"]
    s["board_n"][0] = 1
    assert codec.action_to_string(states, 0, R.A_REGION + china) == "send a ship to China (cost 6)"

    states = _role_position(R.MERCHANT)
    s = states[0]
    s["slot_city"][0] = D.CITY_ID["amsterdam"]  # produces coffee (cities table)
    s["slot_owner"][0] = 0
    assert codec.action_to_string(states, 0, R.A_SLOT) == "collect coffee at Amsterdam"
    s["slot_upgraded"][0] = 1  # END-A2 R: an upgraded city gives 2
    assert codec.action_to_string(states, 0, R.A_SLOT) == "collect 2 coffee at Amsterdam"
    assert codec.action_to_string(states, 0, R.A_HOME) == "collect at the home port"
    s["sub"] = R.SUB_HOME_GOOD
    assert codec.action_to_string(states, 0, R.A_GOOD + D.SUGAR) == "take sugar"

    states = _role_position(R.CRAFTSMAN)
    s = states[0]
    s["building_market"][2] = D.BUILDING_ID["bank"]  # 5 work (buildings table)
    assert codec.action_to_string(states, 0, R.A_BUILDING + 2) == "buy Bank (5 work)"
    s["slot_city"][1] = D.CITY_ID["lisbon"]
    assert codec.action_to_string(states, 0, R.A_SLOT + 1) == "buy city card Lisbon"
    assert codec.action_to_string(states, 0, R.A_UPGRADE + 1) == "upgrade Lisbon"

    states = _role_position(R.COMMANDER)  # 3 players: seat +2 from player 0 is player 2
    s = states[0]
    india = D.REGION_ID["india"]
    attack = R.A_ATTACK_SHIP + india * R.MAXP + 2
    assert codec.action_to_string(states, 0, attack) == "attack player 2's ship in India"
    goa_slot = int(R.FIRST_SLOT[india])
    s["slot_city"][goa_slot] = D.CITY_ID["goa"]
    s["slot_owner"][goa_slot] = 1
    assert codec.action_to_string(states, 0, R.A_SLOT + goa_slot) == "attack Goa (player 1)"

    states = _role_position(R.POLITICIAN)
    act = R.A_EMPIRE + D.EMPIRE_ID["act_of_parliament"]  # vote cost 1 (empire table)
    assert codec.action_to_string(states, 0, act) == "take Act of Parliament (1 vote)"
    crown = R.A_EMPIRE + D.EMPIRE_ID["crown_monopoly"]  # vote cost 3
    assert codec.action_to_string(states, 0, crown) == "take Crown Monopoly (3 votes)"

    states = _role_position(R.GOVERNOR)
    s = states[0]
    s["slot_city"][goa_slot] = D.CITY_ID["goa"]
    assert codec.action_to_string(states, 0, R.A_SLOT + goa_slot) == "settle Goa"
    s["sub"] = R.SUB_GOV_PAY
    assert codec.action_to_string(states, 0, R.A_GOOD + D.TEA) == "pay with tea"
    assert codec.action_to_string(states, 0, R.A_PAY_TOKEN) == "pay a missing good with a token"
    s["sub"] = R.SUB_GOV_MOVE
    s["slot_city"][2] = D.CITY_ID["bristol"]
    assert codec.action_to_string(states, 0, R.A_SLOT + 2) == "move the marker from Bristol"


def test_render_mentions_every_player_and_the_decision(positions, truncated):
    seen = set()
    for states in positions[::10] + truncated[:2]:
        text = codec.render(states, 0)
        s = states[0]
        n = int(s["num_players"])
        for p in range(n):
            assert f"player {p} (" in text
        assert f"player {n} (" not in text
        if s["terminated"]:
            assert "Game over" in text
        elif s["truncated"]:
            assert "truncated" in text
        else:
            assert f"To decide: player {int(s['current_player'])} (" in text
        for name in D.REGION_NAMES:
            assert name in text
        for k in range(R.N_SLOTS):
            if s["slot_city"][k] >= 0 and s["region_open"][R.SLOT_REGION[k]]:
                assert D.CITY_NAMES[int(s["slot_city"][k])] in text
        seen.add(n)
    assert seen == {2, 3, 4}
