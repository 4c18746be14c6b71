"""Rule-by-rule tests of the Endeavor kernel (envs/endeavor/rules.py).

Every rule ID of the rules checklist (END-C1, C2, R1…R4, S1…S6, O1…O5, A1…A5, G, B1, B2,
E1…E4) is named by at least one test that fails when the rule is broken; then one scenario per
ability kind and per empire condition kind of the card tables. Positions are built by editing a
fresh game's record (tests/endeavor_helpers.py); the kernel is then driven only through
``legal_mask_into`` and ``apply_action``, each action checked legal first. Expected values come
from the rules checklist and the card facts restated below (checked against the tables by
``test_card_facts_used_here``), not from running the code.
"""

import numpy as np
import pytest
from endeavor_helpers import (
    COMMANDER,
    CRAFTSMAN,
    DONE,
    GOVERNOR,
    HOME,
    MERCHANT,
    PAY_TOKEN,
    POLITICIAN,
    REGION,
    SAILOR,
    act,
    attack_ship,
    blank,
    board_of,
    building,
    card_counts,
    deciding,
    drain_city_decks,
    drain_empire_deck,
    empire,
    execution_order,
    give_empire,
    good,
    legal,
    markers,
    new_game,
    open_region,
    pending,
    plan,
    put_city,
    put_on_board,
    region,
    region_slots,
    role,
    score,
    set_building_market,
    set_empire_market,
    set_goods,
    set_ships,
    slot,
    tokens,
    upgrade,
)

from meeple_gym.endeavor import data as D
from meeple_gym.endeavor import rules as R

# ---- facts restated from the rules checklist and the card tables ------------------------------

TRAVEL = {  # END-R1
    "west_africa": 1,
    "caribbean": 3,
    "south_america": 4,
    "india": 5,
    "southeast_asia": 6,
    "china": 7,
}
PREVIOUS = {  # END-R3: the region before each one on its sea-route chain
    "caribbean": "west_africa",
    "south_america": "caribbean",
    "india": "west_africa",
    "southeast_asia": "india",
    "china": "southeast_asia",
}
SLOTS = {  # END-R4
    "europe": 4,
    "west_africa": 3,
    "caribbean": 2,
    "south_america": 2,
    "india": 2,
    "southeast_asia": 2,
    "china": 2,
}
TOKENS = {2: 15, 3: 18, 4: 15}  # END-S1
GOODS = ("tea", "coffee", "spice", "cocoa", "sugar")  # END-C2 R

# key: (region, good, settle cost, build cost, points, ability, ability argument)
CITY_FACTS = {
    "amsterdam": ("europe", "coffee", 1, 3, 1, "role_bonus", "politician"),
    "antwerp": ("europe", "coffee", 1, 3, 1, "extra_good", "coffee"),
    "bristol": ("europe", "tea", 1, 2, 1, "none", ""),
    "genoa": ("europe", "tea", 1, 2, 1, "none", ""),
    "lisbon": ("europe", "coffee", 1, 2, 1, "none", ""),
    "london": ("europe", "tea", 1, 3, 1, "role_bonus", "merchant"),
    "seville": ("europe", "tea", 1, 2, 1, "none", ""),
    "cape_coast": ("west_africa", "cocoa", 1, 2, 1, "none", ""),
    "elmina": ("west_africa", "cocoa", 1, 3, 1, "defence", ""),
    "goree": ("west_africa", "spice", 1, 2, 1, "none", ""),
    "ribeira_grande": ("west_africa", "cocoa", 1, 3, 1, "role_bonus", "sailor"),
    "havana": ("caribbean", "sugar", 2, 3, 2, "none", ""),
    "port_royal": ("caribbean", "sugar", 1, 3, 1, "role_bonus", "commander"),
    "willemstad": ("caribbean", "coffee", 1, 3, 1, "extra_tokens", "1"),
    "rio_de_janeiro": ("south_america", "sugar", 2, 4, 2, "role_bonus", "governor"),
    "bombay": ("india", "tea", 2, 4, 2, "role_bonus", "craftsman"),
    "calicut": ("india", "spice", 2, 4, 2, "none", ""),
    "goa": ("india", "spice", 2, 4, 2, "region_points", "india"),
    "madras": ("india", "spice", 2, 5, 3, "none", ""),
    "surat": ("india", "tea", 2, 4, 2, "none", ""),
}
# key: (work cost, points, ability, ability argument)
BUILDING_FACTS = {
    "admiralty": (6, 1, "extra_tokens", "2"),
    "bank": (5, 2, "extra_tokens", "1"),
    "barracks": (2, 0, "role_bonus", "commander"),
    "cathedral": (6, 3, "none", ""),
    "coffee_house": (2, 1, "extra_good", "coffee"),
    "colonial_office": (4, 1, "role_bonus", "governor"),
    "fort": (4, 1, "defence", ""),
    "guildhall": (3, 1, "role_bonus", "craftsman"),
    "harbour": (3, 1, "role_bonus", "sailor"),
    "museum": (4, 2, "none", ""),
    "observatory": (3, 2, "none", ""),
    "shipyard": (4, 1, "extra_tokens", "1"),
    "spice_exchange": (3, 1, "extra_good", "spice"),
    "theatre": (2, 1, "none", ""),
    "town_hall": (4, 1, "role_bonus", "politician"),
    "university": (5, 3, "none", ""),
    "warehouse": (4, 1, "role_bonus", "merchant"),
}
# key: (votes, condition, condition region, count, points, ability, ability argument)
EMPIRE_FACTS = {
    "act_of_parliament": (1, "cities_in_region", "europe", 1, 0, "role_bonus", "politician"),
    "atlantic_crossing": (1, "ships_in_region", "caribbean", 1, 1, "none", ""),
    "brazil_fleet": (1, "ships_in_region", "south_america", 1, 1, "role_bonus", "sailor"),
    "cape_route": (2, "ships_in_region", "india", 1, 1, "travel_discount", ""),
    "celestial_trade_mission": (3, "cities_in_region", "china", 1, 3, "none", ""),
    "chartered_merchants": (1, "goods_total", "", 3, 1, "none", ""),
    "colonial_ambitions": (1, "cities_total", "", 2, 1, "none", ""),
    "crown_monopoly": (3, "goods_total", "", 9, 3, "none", ""),
    "estado_da_india": (2, "cities_in_region", "india", 2, 1, "region_points", "india"),
    "european_alliance": (1, "cities_in_region", "europe", 2, 1, "none", ""),
    "free_trade_treaty": (2, "goods_total", "", 3, 1, "role_bonus", "merchant"),
    "gold_coast_patrol": (1, "ships_in_region", "west_africa", 1, 1, "defence", ""),
    "governors_council": (2, "cities_total", "", 2, 1, "role_bonus", "governor"),
    "letters_of_marque": (1, "ships_in_region", "caribbean", 1, 0, "role_bonus", "commander"),
    "national_bank": (3, "goods_total", "", 6, 1, "extra_tokens", "2"),
    "navigation_acts": (2, "goods_total", "", 3, 1, "travel_discount", ""),
    "royal_charter": (1, "cities_in_region", "west_africa", 1, 1, "none", ""),
    "straits_settlements": (3, "cities_in_region", "southeast_asia", 2, 3, "none", ""),
    "strait_passage": (2, "ships_in_region", "southeast_asia", 1, 1, "travel_discount", ""),
    "vast_dominions": (2, "cities_total", "", 3, 2, "none", ""),
}


def _ability_arg_name(ability, arg):
    if ability == "role_bonus":
        return D.ROLES[arg]
    if ability == "extra_good":
        return D.GOODS[arg]
    if ability == "region_points":
        return D.REGIONS[arg]
    if ability == "extra_tokens":
        return str(int(arg))
    return ""


def test_card_facts_used_here():
    """The card facts these tests rely on are the ones the tables hold."""
    for key, (reg, gd, settle, build, points, ability, arg) in CITY_FACTS.items():
        c = D.CITY_ID[key]
        ab = D.ABILITIES[D.CITY_ABILITY[c]]
        got = (D.REGIONS[D.CITY_REGION[c]], D.GOODS[D.CITY_GOOD[c]], int(D.CITY_SETTLE_COST[c]))
        got += (int(D.CITY_BUILD_COST[c]), int(D.CITY_POINTS[c]), ab)
        got += (_ability_arg_name(ab, D.CITY_ABILITY_ARG[c]),)
        assert got == (reg, gd, settle, build, points, ability, arg), key
    for key, (cost, points, ability, arg) in BUILDING_FACTS.items():
        b = D.BUILDING_ID[key]
        ab = D.ABILITIES[D.BUILDING_ABILITY[b]]
        got = (int(D.BUILDING_WORK_COST[b]), int(D.BUILDING_POINTS[b]), ab)
        got += (_ability_arg_name(ab, D.BUILDING_ABILITY_ARG[b]),)
        assert got == (cost, points, ability, arg), key
    for key, (votes, cond, reg, count, points, ability, arg) in EMPIRE_FACTS.items():
        e = D.EMPIRE_ID[key]
        ab = D.ABILITIES[D.EMPIRE_ABILITY[e]]
        r = D.EMPIRE_CONDITION_REGION[e]
        got = (int(D.EMPIRE_VOTE_COST[e]), D.CONDITIONS[D.EMPIRE_CONDITION[e]])
        got += (D.REGIONS[r] if r >= 0 else "", int(D.EMPIRE_CONDITION_COUNT[e]))
        got += (int(D.EMPIRE_POINTS[e]), ab, _ability_arg_name(ab, D.EMPIRE_ABILITY_ARG[e]))
        assert got == (votes, cond, reg, count, points, ability, arg), key


def st(states):
    return states[0]


def can(states, p, action):
    """Whether p is deciding a role step and ``action`` is legal (an action whose strength ran
    out passes Done automatically, so "not deciding" means nothing was possible)."""
    return deciding(states, p) and action in legal(states)


def regions_legal(states):
    return {a - R.A_REGION for a in legal(states) if R.A_REGION <= a < R.A_HOME}


def finish_setup(states):
    """Answer the setup decisions (starting cities, empire returns) with their lowest action."""
    while int(st(states)["phase"]) in (R.PH_START_CITY, R.PH_EMPIRE_RETURN):
        act(states, min(legal(states)))


def open_all(states):
    for key in D.REGIONS:
        open_region(states, key)


# ---- components (END-C1, END-C2) --------------------------------------------------------------


def test_c1_six_roles_every_player_owns_all_six():
    """END-C1: six roles in role-number order with the Governor as the special sixth; each
    player's hand and deck hold each of them once, and planning offers a role per action."""
    assert D.ROLES == ("sailor", "merchant", "craftsman", "commander", "politician", "governor")
    assert R.A_TOKENS - R.A_ROLE == 6
    for n in (2, 3, 4):
        s = new_game(n, seed=n)[0]
        for p in range(n):
            deck = s["role_deck"][p, : s["role_deck_n"][p]].tolist()
            held = np.flatnonzero(s["role_hand"][p]).tolist()
            assert sorted(deck + held) == list(range(6))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_c2_components_each_in_one_place(n):
    """END-C2: 49 city cards, 7 per region, 30 empire cards and 20 buildings, each in exactly
    one place after setup; 5 kinds of goods; 3 markers per player."""
    states = new_game(n, seed=7 + n)
    finish_setup(states)
    s = st(states)
    cities, emp, bld = card_counts(s)
    assert cities.tolist() == [1] * 49 and emp.tolist() == [1] * 30 and bld.tolist() == [1] * 20
    for r in range(7):
        shown = sum(int(s["slot_city"][k] >= 0) for k in region_slots(r))
        assert int(s["region_deck_n"][r]) + shown == 7
    assert D.GOODS == GOODS and s["goods"].shape[1] == 5
    assert R.MARKERS == 3  # the limit itself is exercised by test_g_fourth_city_moves_a_marker


# ---- regions and travel (END-R1…R4) -----------------------------------------------------------


@pytest.mark.parametrize("key", list(TRAVEL))
def test_r1_travel_cost(key):
    """END-R1: a ship costs exactly the region's travel cost (India 5, not the worked
    example's 4): one token short and the region is out of reach."""
    cost = TRAVEL[key]
    states = blank(2)
    open_all(states)
    plan(states, [SAILOR, MERCHANT], [cost + 1, 0])
    act(states, region(key))
    s = st(states)
    assert s["ships"][0, REGION[key]] == 1
    # exactly the cost was spent: 1 unit is left, enough for West Africa (cost 1) only
    assert regions_legal(states) == {REGION["west_africa"]}

    states = blank(2)
    open_all(states)
    plan(states, [SAILOR, MERCHANT], [cost - 1, 0])
    if deciding(states, 0):
        assert region(key) not in legal(states)
    assert st(states)["ships"][0].sum() == 0


def test_r2_europe_and_west_africa_open_at_start():
    """END-R2: only Europe and West Africa are open at the start."""
    for n in (2, 3, 4):
        for seed in range(3):
            s = new_game(n, seed)[0]
            assert s["region_open"].tolist() == [1, 1, 0, 0, 0, 0, 0]


def test_r2_first_ship_opens_the_region_and_deals_a_city():
    """END-R2: the first ship to the Caribbean opens it and deals it one of its city cards;
    a second ship deals nothing more."""
    states = blank(2)
    plan(states, [SAILOR, MERCHANT], [7, 0])
    s = st(states)
    act(states, region("caribbean"))
    carib = REGION["caribbean"]
    assert s["region_open"][carib] == 1
    shown = [int(s["slot_city"][k]) for k in region_slots("caribbean") if s["slot_city"][k] >= 0]
    assert len(shown) == 1 and D.CITY_REGION[shown[0]] == carib
    assert s["region_deck_n"][carib] == 6
    act(states, region("caribbean"))
    assert s["ships"][0, carib] == 2 and s["region_deck_n"][carib] == 6
    assert s["region_open"].tolist() == [1, 1, 1, 0, 0, 0, 0]


def test_r3_at_start_only_the_first_step_of_each_chain_is_reachable():
    """END-R3: with plenty of tokens a ship may go to West Africa, the Caribbean or India only
    (the regions whose predecessor is open), never beyond."""
    states = blank(2)
    plan(states, [SAILOR, MERCHANT], [15, 0])
    assert regions_legal(states) == {REGION[k] for k in ("west_africa", "caribbean", "india")}


@pytest.mark.parametrize("key", ["south_america", "southeast_asia", "china"])
def test_r3_a_region_needs_the_one_before_it_open(key):
    """END-R3: everything else open, a region stays out of reach until its predecessor on
    the chain is open."""
    for prev_open in (False, True):
        states = blank(2)
        for other in D.REGIONS:
            if other != key and (prev_open or other != PREVIOUS[key]):
                open_region(states, other)
        plan(states, [SAILOR, MERCHANT], [15, 0])
        assert (region(key) in legal(states)) == prev_open


def test_r3_a_region_opened_by_this_sailor_leads_on_at_once():
    """END-R3: once the Caribbean is open (by this very action's ship) South America is
    reachable."""
    states = blank(2)
    plan(states, [SAILOR, MERCHANT], [7, 0])
    assert region("south_america") not in legal(states)
    act(states, region("caribbean"), region("south_america"))
    assert st(states)["ships"][0, REGION["south_america"]] == 1


def test_r4_slot_counts():
    """END-R4: Europe shows 4 city slots, West Africa 3, every other region 2; an opened
    region shows both its slots after the round's refill."""
    for key, n in SLOTS.items():
        assert len(region_slots(key)) == n
    states = blank(2)
    plan(states, [SAILOR, MERCHANT], [3, 0])
    act(states, region("caribbean"))  # strength spent: the round ends
    s = st(states)
    assert s["round"] == 2
    assert all(s["slot_city"][k] >= 0 for k in region_slots("caribbean"))


def test_r4_ships_never_go_to_europe():
    """END-R4: even with every region open and tokens to spare, Europe is no destination."""
    states = blank(2)
    open_all(states)
    plan(states, [SAILOR, MERCHANT], [15, 0])
    assert region("europe") not in legal(states)
    assert regions_legal(states) == {REGION[k] for k in TRAVEL}


# ---- setup (END-S1…S6) ------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4])
def test_s1_tokens_and_no_markers_out(n):
    """END-S1: 15 tokens each (18 with 3 players), none at sea or lost, no marker placed."""
    for seed in range(3):
        s = new_game(n, seed)[0]
        assert s["pool"][:n].tolist() == [TOKENS[n]] * n
        assert s["ships"].sum() == 0 and s["lost"].sum() == 0
        assert (s["slot_owner"] == -1).all()


def test_s1_home_port_gives_one_good_of_choice_and_scores_nothing():
    """END-S1 R: the home port yields 1 good of the owner's choice, holds no marker and is
    worth no points."""
    states = blank(2)
    plan(states, [MERCHANT, SAILOR], [1, 0])
    assert legal(states) == {HOME, DONE}  # no city yet: only the home port
    act(states, HOME)
    assert legal(states) == {good(g) for g in GOODS}
    act(states, good("spice"))
    s = st(states)
    assert s["goods"][0].tolist() == [0, 0, 1, 0, 0]
    assert markers(states, 0) == 0 and score(states, 0) == 0


def test_s2_europe_and_west_africa_slots_dealt():
    """END-S2: each slot of Europe and West Africa shows a random city of its region; the other
    regions show none."""
    europe_seen = set()
    for n in (2, 3, 4):
        for seed in range(6):
            s = new_game(n, seed)[0]
            for key in D.REGIONS:
                r = REGION[key]
                for k in region_slots(key):
                    if key in ("europe", "west_africa"):
                        assert D.CITY_REGION[s["slot_city"][k]] == r
                    else:
                        assert s["slot_city"][k] == -1
                assert s["region_deck_n"][r] == 7 - (SLOTS[key] if r < 2 else 0)
            europe_seen.add(tuple(sorted(int(c) for c in s["slot_city"][region_slots("europe")])))
    assert len(europe_seen) > 1


@pytest.mark.parametrize(
    "n, offsets, each", [(2, (0, 1, 1, 0), 2), (3, (0, 1, 2, 2, 1, 0), 2), (4, (0, 1, 2, 3), 1)]
)
def test_s3_starting_cities_in_snake_order_at_no_cost(n, offsets, each):
    """END-S3: seats claim starting cities in (snake) order from the first player, any open
    unclaimed city, for free: 2 each with 2 or 3 players, 1 with 4."""
    for seed in range(4):
        states = new_game(n, seed)
        s = st(states)
        first = int(s["first_player"])
        pickers = []
        while int(s["phase"]) == R.PH_START_CITY:
            pickers.append(int(s["current_player"]))
            free = {
                slot(k)
                for k in range(R.N_SLOTS)
                if s["slot_city"][k] >= 0 and s["slot_owner"][k] < 0
            }
            assert legal(states) == free
            act(states, max(free) if seed % 2 else min(free))
        assert pickers == [(first + o) % n for o in offsets]
        assert [markers(states, p) for p in range(n)] == [each] * n
        assert s["pool"][:n].tolist() == [TOKENS[n]] * n and s["goods"].sum() == 0


@pytest.mark.parametrize("n, drawn", [(2, 4), (3, 3), (4, 3)])
def test_s4_empire_cards_drawn_kept_and_market(n, drawn):
    """END-S4: each player draws 3 empire cards (4 with 2 players) and gives back all but 2,
    from their own hand; the rest return to the deck and 3 lie face up."""
    states = new_game(n, seed=11)
    s = st(states)
    assert [int(s["empire_hand"][p].sum()) for p in range(n)] == [drawn] * n
    while int(s["phase"]) == R.PH_START_CITY:
        act(states, min(legal(states)))
    while int(s["phase"]) == R.PH_EMPIRE_RETURN:
        p = int(s["current_player"])
        assert legal(states) == {R.A_EMPIRE + e for e in np.flatnonzero(s["empire_hand"][p])}
        act(states, max(legal(states)))
    assert [int(s["empire_hand"][p].sum()) for p in range(n)] == [2] * n
    assert (s["empire_market"] >= 0).all() and len(set(s["empire_market"].tolist())) == 3
    assert s["empire_deck_n"] == 30 - 2 * n - 3
    assert card_counts(s)[1].tolist() == [1] * 30


def test_s5_buildings_shuffled_three_face_up():
    """END-S5: after setup 3 distinct buildings lie face up, 17 in the deck, and which ones
    changes from game to game."""
    markets = set()
    for seed in range(8):
        states = new_game(3, seed)
        finish_setup(states)
        s = st(states)
        market = tuple(int(b) for b in s["building_market"])
        assert min(market) >= 0 and len(set(market)) == 3 and s["building_deck_n"] == 17
        markets.add(market)
    assert len(markets) > 1


@pytest.mark.parametrize("n", [2, 3, 4])
def test_s6_first_player_random(n):
    """END-S6: every seat can be first; the first player makes the first pick and the seat
    order runs on from them."""
    firsts = set()
    for seed in range(40):
        s = new_game(n, seed)[0]
        first = int(s["first_player"])
        firsts.add(first)
        assert s["current_player"] == first
        assert s["order"][:n].tolist() == [(first + i) % n for i in range(n)]
    assert firsts == set(range(n))


# ---- a round (END-O1…O5) ----------------------------------------------------------------------


def test_o1_planning_is_a_sequence_of_hidden_choices():
    """END-O1: each player picks a role from hand, then 0 to all their available tokens; a
    player's options do not depend on what earlier players chose, and nothing is executed
    until everyone has chosen."""
    copies = []
    for first_choice in ((MERCHANT, 0), (CRAFTSMAN, 18)):
        states = blank(3)
        set_ships(states, 1, "west_africa", 2)  # seat 1 has 16 tokens available
        act(states, role(first_choice[0]))
        assert legal(states) == {tokens(t) for t in range(19)}
        act(states, tokens(first_choice[1]))
        copies.append(states)
    for p, available in ((1, 16), (2, 18)):
        masks = [legal(c) for c in copies]
        assert masks[0] == masks[1] == {role(r) for r in (SAILOR, MERCHANT, CRAFTSMAN)}
        for c in copies:
            assert pending(c) == (R.PH_PLAN_ROLE, 0, p)
            act(c, role(SAILOR))
        masks = [legal(c) for c in copies]
        assert masks[0] == masks[1] == {tokens(t) for t in range(available + 1)}
        if p == 1:
            for c in copies:
                act(c, tokens(1))
    for c in copies:
        assert st(c)["goods"].sum() == 0 and st(c)["ships"].sum() == 2  # nothing ran yet
        act(c, tokens(1))
        assert int(st(c)["phase"]) == R.PH_ROLE  # the last choice starts execution


def test_o2_used_role_set_aside_and_replaced():
    """END-O2: 3 roles in hand out of 6; after each round the used role leaves the hand and a
    new one is drawn; when the deck is empty the set-aside roles become the new deck."""
    states = blank(2)
    s = st(states)
    for rnd in range(1, 6):
        hands = [set(np.flatnonzero(s["role_hand"][p]).tolist()) for p in range(2)]
        decks = [set(s["role_deck"][p, : s["role_deck_n"][p]].tolist()) for p in range(2)]
        deck_was_empty = [not d for d in decks]
        assert legal(states) == {role(r) for r in hands[int(s["current_player"])]}
        chosen = [min(h) for h in hands]
        plan(states, chosen, [0, 0])
        assert s["round"] == rnd + 1
        for p in range(2):
            hand = set(np.flatnonzero(s["role_hand"][p]).tolist())
            deck = s["role_deck"][p, : s["role_deck_n"][p]].tolist()
            aside = set(np.flatnonzero(s["role_aside"][p]).tolist())
            assert len(hand) == 3
            assert sorted(list(hand) + deck + list(aside)) == list(range(6))
            (drawn,) = hand - (hands[p] - {chosen[p]})
            if deck_was_empty[p]:  # the set-aside roles, this one included, were reshuffled
                assert not aside and len(deck) == 3
            else:
                assert chosen[p] not in hand and chosen[p] in aside and drawn in decks[p]
        if rnd == 3:
            assert s["role_deck_n"][:2].tolist() == [0, 0]


def test_o3_roles_execute_in_role_number_order():
    """END-O3: Sailor before Merchant before Governor, whatever the seats."""
    states = blank(3)
    put_city(states, "bristol")
    set_goods(states, 0, tea=1)  # the Governor can settle Bristol: a real decision
    plan(states, [GOVERNOR, SAILOR, MERCHANT], [1, 1, 1])
    assert execution_order(states) == [1, 2, 0]


def test_o3_same_role_more_tokens_first():
    """END-O3: on the same role the player with more tokens goes first."""
    states = blank(3)
    plan(states, [SAILOR, SAILOR, SAILOR], [1, 3, 2])
    assert execution_order(states) == [1, 2, 0]


def test_o3_ties_keep_the_previous_rounds_order():
    """END-O3: equal role and tokens keep the previous round's order (seat order from the
    first player in round 1)."""
    states = blank(2)
    plan(states, [SAILOR, SAILOR], [1, 1])
    assert execution_order(states) == [0, 1]

    states = blank(2)
    s = st(states)
    s["order"][:2] = (1, 0)  # seat 1 first
    R._start_planning(s)
    plan(states, [SAILOR, SAILOR], [1, 1])
    assert execution_order(states) == [1, 0]

    states = blank(2)
    plan(states, [MERCHANT, SAILOR], [1, 1])
    assert execution_order(states) == [1, 0]
    # round 2: a tie, and the previous round ran seat 1 first
    plan(states, [SAILOR, SAILOR], [1, 1])
    assert execution_order(states) == [1, 0]


@pytest.mark.parametrize("t", [1, 2, 3, 4])
def test_o4_one_unit_per_token(t):
    """END-O4: each token is one unit: a Merchant with t tokens and 4 sources takes t goods."""
    states = blank(2)
    for key in ("bristol", "genoa", "goree"):
        put_city(states, key, owner=0)
    plan(states, [MERCHANT, SAILOR], [t, 0])
    while deciding(states, 0):
        a = min(legal(states) - {DONE})
        act(states, a)
        if a == HOME:
            act(states, good("sugar"))
    assert st(states)["goods"][0].sum() == t


def test_o4_craftsman_work_units_are_tokens():
    """END-O4: 3 tokens buy a building costing 3, 2 tokens do not."""
    for placed, ok in ((2, False), (3, True)):
        states = blank(2)
        set_building_market(states, "observatory", "cathedral", "university")
        plan(states, [CRAFTSMAN, SAILOR], [placed, 0])
        assert can(states, 0, building(0)) == ok


def test_o5_tokens_on_roles_come_back():
    """END-O5: after the round the Sailor's tokens come home except the one now a ship; the
    next planning offers them all again."""
    states = blank(2)
    plan(states, [SAILOR, MERCHANT], [5, 0])
    act(states, region("caribbean"), DONE)
    s = st(states)
    assert s["round"] == 2 and s["pool"][0] == 14 and s["ships"][0, REGION["caribbean"]] == 1
    assert pending(states) == (R.PH_PLAN_ROLE, 0, 0)
    act(states, min(legal(states)))  # any role in hand (the Sailor is set aside)
    assert legal(states) == {tokens(t) for t in range(15)}


def test_o5_slots_of_open_regions_and_markets_refilled():
    """END-O5: at round end every empty slot of an open region and every empty market slot
    is refilled from its deck; closed regions stay empty."""
    states = blank(2)
    k = put_city(states, "bristol")
    set_building_market(states, "theatre", "cathedral", "university")
    plan(states, [CRAFTSMAN, SAILOR], [4, 0])
    s = st(states)
    act(states, slot(k))
    assert s["slot_city"][k] == -1  # empty for the rest of the round
    europe_left = int(s["region_deck_n"][REGION["europe"]])
    building_top = int(s["building_deck"][s["building_deck_n"] - 1])
    act(states, building(0))  # strength spent: the round ends
    assert s["round"] == 2
    for key in D.REGIONS:
        for j in region_slots(key):
            assert (s["slot_city"][j] >= 0) == (key in ("europe", "west_africa"))
    assert s["region_deck_n"][REGION["europe"]] == europe_left - 4
    assert s["building_market"][0] == building_top and s["building_deck_n"] == 16


def test_o5_empire_market_refilled():
    """END-O5: an empire card taken from the market is replaced at round end."""
    states = blank(2)
    put_city(states, "goree", owner=0)  # Royal Charter: a West Africa city
    set_empire_market(states, "royal_charter", None, None)
    plan(states, [POLITICIAN, SAILOR], [1, 0])
    s = st(states)
    deck_n = int(s["empire_deck_n"])
    top3 = {int(e) for e in s["empire_deck"][deck_n - 3 : deck_n]}
    act(states, empire("royal_charter"))
    assert s["round"] == 2
    assert {int(e) for e in s["empire_market"]} == top3 and s["empire_deck_n"] == deck_n - 3


# ---- roles (END-A1…A5, END-G) -----------------------------------------------------------------


def test_a1_several_ships_while_tokens_last():
    """END-A1: each ship costs its travel cost; one token per ship stays at sea, the rest come
    back at round end."""
    states = blank(2)
    plan(states, [SAILOR, MERCHANT], [5, 0])
    act(states, region("caribbean"))
    assert regions_legal(states) == {REGION["west_africa"]}  # 2 units left
    act(states, region("west_africa"), region("west_africa"))
    s = st(states)
    assert s["round"] == 2  # strength spent: the action ended
    assert s["ships"][0, REGION["caribbean"]] == 1 and s["ships"][0, REGION["west_africa"]] == 2
    assert s["pool"][0] == 12


def test_a1_each_ship_needs_a_token_of_its_own():
    """END-A1 (kernel R): a ship is one of the spent tokens, so a role bonus unit cannot become
    a ship: 1 token + Harbour sends one ship only."""
    states = blank(2)
    put_on_board(states, 0, "building", "harbour")
    plan(states, [SAILOR, MERCHANT], [1, 0])
    act(states, region("west_africa"))
    s = st(states)
    assert s["round"] == 2 and s["ships"][0].sum() == 1 and s["pool"][0] == 14


def test_a2_merchant_takes_goods_from_own_cities():
    """END-A2: per unit one good from an own city (its good; 2 if upgraded; each city once) or
    the home port; goods have no limit; others' and unclaimed cities give nothing."""
    states = blank(2)
    bristol = put_city(states, "bristol", owner=0)
    goree = put_city(states, "goree", owner=0, upgraded=True)
    put_city(states, "lisbon")
    genoa = put_city(states, "genoa", owner=1)
    set_goods(states, 0, tea=50)
    plan(states, [MERCHANT, SAILOR], [5, 0])
    s = st(states)
    assert legal(states) == {slot(bristol), slot(goree), HOME, DONE}
    act(states, slot(bristol))
    assert s["goods"][0].tolist() == [51, 0, 0, 0, 0]
    assert legal(states) == {slot(goree), HOME, DONE}
    act(states, slot(goree))
    assert s["goods"][0].tolist() == [51, 0, 2, 0, 0]
    act(states, HOME, good("cocoa"))  # nothing left to collect from: the action ends
    assert s["round"] == 2 and s["goods"][0].tolist() == [51, 0, 2, 1, 0]
    assert s["goods"][1].sum() == 0 and s["slot_owner"][genoa] == 1


def test_a3_craftsman_buys_a_building_at_its_cost():
    """END-A3: a building from the market at its printed work cost, into a board slot."""
    states = blank(2)
    set_building_market(states, "theatre", "guildhall", "cathedral")
    plan(states, [CRAFTSMAN, SAILOR], [3, 0])
    assert {building(0), building(1)} <= legal(states) and building(2) not in legal(states)
    act(states, building(1))
    s = st(states)
    assert board_of(states, 0) == [("building", "guildhall")]
    assert s["round"] == 2  # 3 - 3 = 0 units left


def test_a3_craftsman_buys_an_unclaimed_city_card():
    """END-A3: a city card from a slot holding no marker, at its build cost; marked cities,
    own or not, cannot be bought."""
    states = blank(2)
    bristol = put_city(states, "bristol")
    antwerp = put_city(states, "antwerp")
    genoa = put_city(states, "genoa", owner=1)
    lisbon = put_city(states, "lisbon", owner=0)
    set_building_market(states, "cathedral", "admiralty", "university")
    plan(states, [CRAFTSMAN, SAILOR], [2, 0])
    got = legal(states)
    assert slot(bristol) in got
    assert not {slot(antwerp), slot(genoa), slot(lisbon)} & got  # Antwerp costs 3
    act(states, slot(bristol))
    assert board_of(states, 0) == [("city", "bristol")]
    assert markers(states, 0) == 1  # buying the card places no marker


def test_a3_upgrade_own_city_cost_2_once():
    """END-A3 R: an own settled city is upgraded for 2 work units, once."""

    def crafted(units):  # two own cities and an opponent's, then a Craftsman with ``units``
        states = blank(2)
        cities = [put_city(states, "bristol", owner=0), put_city(states, "goree", owner=0)]
        cities.append(put_city(states, "genoa", owner=1))
        set_building_market(states, "cathedral", "admiralty", "university")
        plan(states, [CRAFTSMAN, SAILOR], [units, 0])
        return states, cities

    states, _ = crafted(1)
    assert not deciding(states, 0)  # 1 unit: no upgrade
    states, (bristol, goree, genoa) = crafted(4)
    got = legal(states)
    assert {upgrade(bristol), upgrade(goree)} <= got and upgrade(genoa) not in got
    act(states, upgrade(bristol))
    s = st(states)
    assert s["slot_upgraded"][bristol] == 1
    assert upgrade(bristol) not in legal(states) and upgrade(goree) in legal(states)


def test_a4_attack_a_ship_needs_more_force_than_its_defence():
    """END-A4: one ship defends with 1, so 1 force cannot sink it and 2 can; the attacker
    loses a token for good, the ship's token goes home."""
    states = blank(2)
    set_ships(states, 1, "caribbean", 1)
    plan(states, [COMMANDER, SAILOR], [1, 0])
    assert not deciding(states, 0) and st(states)["ships"][1, REGION["caribbean"]] == 1

    states = blank(2)
    set_ships(states, 1, "caribbean", 1)
    plan(states, [COMMANDER, SAILOR], [2, 0])
    act(states, attack_ship(states, 0, 1, "caribbean"))
    s = st(states)
    assert s["ships"][1].sum() == 0 and s["pool"][1] == 15
    assert s["lost"][0] == 1 and s["pool"][0] == 14
    assert s["round"] == 2 and s["pool"][0] == 14  # the lost token stays lost


@pytest.mark.parametrize("placed, ok", [(2, False), (3, True)])
def test_a4_two_ships_defend_with_two(placed, ok):
    """END-A4: each ship in the region defends with 1: two ships need 3 force."""
    states = blank(2)
    set_ships(states, 1, "west_africa", 2)
    plan(states, [COMMANDER, SAILOR], [placed, 0])
    assert can(states, 0, attack_ship(states, 0, 1, "west_africa")) == ok


def test_a4_attack_a_city_only_where_the_attacker_holds_one():
    """END-A4: holding a city in the region, the Commander may attack an opponent's city there
    (defence 1); its marker goes home. Not in a region without an own city, never own."""
    for placed in (1, 2):
        states = blank(2)
        bristol = put_city(states, "bristol", owner=1)
        genoa = put_city(states, "genoa", owner=0)
        goree = put_city(states, "goree", owner=1)
        plan(states, [COMMANDER, SAILOR], [placed, 0])
        if placed == 1:
            assert not deciding(states, 0)  # 1 force does not exceed defence 1
            continue
        got = legal(states)
        assert slot(bristol) in got and not {slot(goree), slot(genoa)} & got
        act(states, slot(bristol))
        s = st(states)
        assert s["slot_owner"][bristol] == -1 and markers(states, 1) == 1
        assert s["lost"][0] == 1 and s["pool"][0] == 14


def test_a4_attacks_repeat_while_force_lasts():
    """END-A4: attacks go on while the force left exceeds a target's defence, against any
    opponent (3 players)."""
    states = blank(3)
    set_ships(states, 1, "west_africa", 2)
    set_ships(states, 2, "caribbean", 1)
    plan(states, [COMMANDER, SAILOR, SAILOR], [4, 0, 0])
    act(states, attack_ship(states, 0, 2, "caribbean"))  # 4 > 1
    act(states, attack_ship(states, 0, 1, "west_africa"))  # 3 > 2
    act(states, attack_ship(states, 0, 1, "west_africa"))  # 2 > 1, then 1 left: no target
    s = st(states)
    assert s["round"] == 2 and s["ships"].sum() == 0
    assert s["lost"][0] == 3 and s["pool"][:3].tolist() == [15, 18, 18]


def test_a5_politician_takes_from_hand_or_market():
    """END-A5: an empire card from one's own hand or the market whose condition holds, paying
    its votes, onto the board; not from the deck or another hand, nor one whose condition
    fails (National Bank: 6 goods; European Alliance: 2 Europe cities)."""
    states = blank(2)
    put_city(states, "goree", owner=0)  # Royal Charter: a West Africa city
    set_goods(states, 0, tea=3)  # Navigation Acts: 3 goods
    give_empire(states, 0, "navigation_acts")
    give_empire(states, 1, "act_of_parliament")
    set_empire_market(states, "royal_charter", "european_alliance", "national_bank")
    plan(states, [POLITICIAN, SAILOR], [3, 0])
    s = st(states)
    offered = {a for a in legal(states) if R.A_EMPIRE <= a < R.A_REGION}
    assert offered == {empire("navigation_acts"), empire("royal_charter")}
    act(states, empire("royal_charter"))
    assert s["empire_market"][0] == -1 and s["strength"] == 2
    act(states, empire("navigation_acts"))
    assert s["empire_hand"][0].sum() == 0
    assert board_of(states, 0) == [("empire", "royal_charter"), ("empire", "navigation_acts")]


def test_a5_vote_cost_must_be_covered():
    """END-A5: a 2-vote card needs 2 votes."""
    states = blank(2)
    put_city(states, "goree", owner=0)  # Royal Charter: a West Africa city
    set_goods(states, 0, tea=3)  # Navigation Acts: 3 goods
    set_empire_market(states, "navigation_acts", "royal_charter", None)
    plan(states, [POLITICIAN, SAILOR], [1, 0])
    assert empire("royal_charter") in legal(states)
    assert empire("navigation_acts") not in legal(states)


def test_g_governor_settles_paying_goods():
    """END-G: per unit one unclaimed open city in Europe or West Africa (no ship needed),
    paying its settle cost in goods of any kind; the city takes a marker."""
    states = blank(2)
    bristol = put_city(states, "bristol")
    goree = put_city(states, "goree")
    set_goods(states, 0, coffee=1, sugar=1)
    plan(states, [GOVERNOR, SAILOR], [2, 0])
    assert {slot(bristol), slot(goree)} <= legal(states)
    act(states, slot(bristol))
    assert pending(states)[1] == R.SUB_GOV_PAY
    act(states, good("sugar"))
    s = st(states)
    assert s["slot_owner"][bristol] == 0 and s["goods"][0].tolist() == [0, 1, 0, 0, 0]
    act(states, slot(goree))  # 1 unit left for the settlement: coffee is the only payment
    assert s["slot_owner"][goree] == 0 and s["goods"][0].sum() == 0 and s["round"] == 2


def test_g_far_regions_need_an_own_ship():
    """END-G: a Caribbean city can be settled only by a player with a ship there."""
    for ships in ((1, 0), (0, 1)):
        states = blank(2)
        havana = put_city(states, "havana")
        set_ships(states, 0, "caribbean", ships[0])
        set_ships(states, 1, "caribbean", ships[1])
        set_goods(states, 0, sugar=2)
        plan(states, [GOVERNOR, SAILOR], [1, 0])
        assert can(states, 0, slot(havana)) == (ships[0] == 1)


@pytest.mark.parametrize("placed, held, ok", [(2, 0, False), (3, 0, True), (2, 1, True)])
def test_g_missing_goods_paid_with_tokens(placed, held, ok):
    """END-G: each missing good costs one more Governor token (Havana: settle cost 2)."""
    states = blank(2)
    havana = put_city(states, "havana")
    set_ships(states, 0, "caribbean", 1)
    set_goods(states, 0, tea=held)
    plan(states, [GOVERNOR, SAILOR], [placed, 0])
    assert can(states, 0, slot(havana)) == ok
    if ok:
        act(states, slot(havana))
        while pending(states)[1] == R.SUB_GOV_PAY:
            act(states, good("tea") if good("tea") in legal(states) else PAY_TOKEN)
        s = st(states)
        assert s["slot_owner"][havana] == 0 and s["goods"][0].sum() == 0


def test_g_claimed_cities_cannot_be_settled():
    """END-G: only unclaimed cities."""
    states = blank(2)
    genoa = put_city(states, "genoa", owner=1)
    bristol = put_city(states, "bristol")
    set_goods(states, 0, tea=3)
    plan(states, [GOVERNOR, SAILOR], [2, 0])
    assert slot(bristol) in legal(states) and slot(genoa) not in legal(states)


def test_g_fourth_city_moves_a_marker():
    """END-G, END-S1: with all 3 markers out, settling moves one of them; that city becomes
    free."""
    states = blank(2)
    owned = [put_city(states, key, owner=0) for key in ("bristol", "genoa", "goree")]
    lisbon = put_city(states, "lisbon")
    set_goods(states, 0, coffee=1)
    plan(states, [GOVERNOR, SAILOR], [1, 0])
    act(states, slot(lisbon))  # the coffee is the only payment: taken at once
    assert pending(states) == (R.PH_ROLE, R.SUB_GOV_MOVE, 0)
    assert legal(states) == {slot(k) for k in owned}
    act(states, slot(owned[2]))
    s = st(states)
    assert s["slot_owner"][owned[2]] == -1 and s["slot_owner"][lisbon] == 0
    assert markers(states, 0) == 3


def test_g_a_token_pays_only_for_a_missing_good():
    """END-G: tokens pay for missing goods only; holding the good, it must be paid."""
    states = blank(2)
    bristol = put_city(states, "bristol")
    set_goods(states, 0, tea=1)
    plan(states, [GOVERNOR, SAILOR], [2, 0])
    act(states, slot(bristol))
    assert pending(states)[1] != R.SUB_GOV_PAY or PAY_TOKEN not in legal(states)


# ---- player board (END-B1, END-B2) ------------------------------------------------------------

QUIET_CARDS = (  # cards with no ability, to fill boards
    ("building", "cathedral"),
    ("building", "museum"),
    ("building", "observatory"),
    ("building", "university"),
    ("empire", "vast_dominions"),
    ("empire", "crown_monopoly"),
    ("empire", "celestial_trade_mission"),
    ("empire", "straits_settlements"),
)


def test_b1_nine_board_slots_for_buildings_cities_and_empire_cards():
    """END-B1: the 9th card fills the board; no building, city card or empire card fits
    after it."""
    states = blank(2)
    for kind, key in QUIET_CARDS:
        put_on_board(states, 0, kind, key)
    bristol = put_city(states, "bristol")
    set_building_market(states, "theatre", "tea_house", None)
    plan(states, [CRAFTSMAN, SAILOR], [6, 0])
    act(states, building(0))  # 9th card; 4 units left, but nothing may join the board now
    s = st(states)
    assert s["round"] == 2 and s["board_n"][0] == 9
    assert s["slot_city"][bristol] >= 0 and s["building_market"][1] == D.BUILDING_ID["tea_house"]

    s["slot_owner"][region_slots("west_africa")[0]] = 0  # Royal Charter's condition holds
    set_empire_market(states, "royal_charter", None, None)
    plan(states, [POLITICIAN, SAILOR], [3, 0])
    assert not deciding(states, 0) and s["board_n"][0] == 9


@pytest.mark.parametrize(
    "kind, key", [("building", "harbour"), ("city", "ribeira_grande"), ("empire", "brazil_fleet")]
)
def test_b2_board_cards_give_their_ability_for_the_rest_of_the_game(kind, key):
    """END-B2: a building, city card or empire card on the board keeps working round after
    round (here +1 Sailor strength: 2 tokens reach the Caribbean)."""
    states = blank(2)
    put_on_board(states, 0, kind, key)
    for rnd in (1, 2, 3):
        assert st(states)["round"] == rnd
        plan(states, [SAILOR, MERCHANT], [2, 0])
        assert region("caribbean") in legal(states)
        act(states, DONE)


def test_b2_board_cards_give_end_points():
    """END-B2, END-E2: the points of building, city and empire cards on the board count."""
    states = blank(2)
    put_on_board(states, 0, "empire", "royal_charter")
    assert score(states, 0) == 1
    put_on_board(states, 0, "building", "university")
    put_on_board(states, 0, "city", "havana")
    assert score(states, 0) == 1 + 3 + 2


# ---- end and scoring (END-E1…E4) --------------------------------------------------------------


def _play_quiet_round(states):
    n = int(st(states)["num_players"])
    plan(states, [SAILOR] * n, [0] * n)


@pytest.mark.parametrize("all_open", [False, True])
def test_e1_city_decks_empty_the_round_is_finished_then_the_game_ends(all_open):
    """END-E1: with every city deck empty (every region open or not) the round is still
    played; the game ends after it."""
    states = blank(2)
    if all_open:
        open_all(states)
    drain_city_decks(states)
    plan(states, [SAILOR, MERCHANT], [1, 0])
    assert deciding(states, 0)  # the round goes on
    act(states, DONE)
    s = st(states)
    assert s["phase"] == R.PH_OVER and s["terminated"] == 1 and s["truncated"] == 0
    assert s["round"] == 1


def test_e1_decks_emptied_by_the_refill_end_the_game():
    """END-E1: the round-end refill deals the last city card: the game ends after that round;
    with a card left over, it goes on."""
    for keep, over in ((4, True), (5, False)):  # blank Europe has 4 empty slots to refill
        states = blank(2)
        drain_city_decks(states, keep={"europe": keep})
        _play_quiet_round(states)
        s = st(states)
        assert (s["phase"] == R.PH_OVER) == over
        assert s["round"] == (1 if over else 2)


def test_e1_empire_deck_runs_out():
    """END-E1: the Politician's market card is replaced by the last deck card: the empire deck
    is empty, so the game ends after this round."""
    states = blank(2)
    put_city(states, "goree", owner=0)  # Royal Charter: a West Africa city
    set_empire_market(states, "royal_charter", "vast_dominions", "crown_monopoly")
    drain_empire_deck(states, keep=1)
    plan(states, [POLITICIAN, SAILOR], [1, 0])
    act(states, empire("royal_charter"))
    s = st(states)
    assert s["empire_deck_n"] == 0 and s["phase"] == R.PH_OVER and s["terminated"] == 1


def test_e2_score():
    """END-E2: points of cities holding one's markers (+1 if upgraded) + points of board cards
    + 1 per 3 goods; the opponent's cities and the home port score nothing for you."""
    states = blank(2)
    put_city(states, "bristol", owner=0, upgraded=True)  # 1 + 1
    put_city(states, "madras", owner=0)  # 3
    put_city(states, "genoa", owner=1)  # 1, seat 1's
    put_on_board(states, 0, "building", "cathedral")  # 3
    put_on_board(states, 0, "empire", "royal_charter")  # 1
    put_on_board(states, 0, "city", "havana")  # 2, a card on the board (no marker)
    set_goods(states, 0, tea=4, coffee=3)  # 7 goods: 2
    assert score(states, 0) == 13 and score(states, 1) == 1
    set_goods(states, 0, tea=8)
    assert score(states, 0) == 13
    set_goods(states, 0, tea=5, sugar=4)
    assert score(states, 0) == 14
    st(states)["round"] = 12
    _play_quiet_round(states)
    s = st(states)
    assert s["phase"] == R.PH_OVER and s["score"][:2].tolist() == [14, 1]


def _last_round(n):
    states = blank(n)
    st(states)["round"] = 12
    return states


def _rewards(states):
    out = np.zeros(int(st(states)["num_players"]), np.float32)
    R.rewards_into(st(states), out)
    return out.tolist()


def test_e3_more_points_wins():
    """END-E2/E3: the higher score wins, whatever the empire cards."""
    states = _last_round(2)
    put_on_board(states, 0, "building", "cathedral")  # 4
    put_on_board(states, 1, "empire", "royal_charter")  # 1
    _play_quiet_round(states)
    s = st(states)
    assert s["winner"] == 0 and s["winners"] == 0b01 and _rewards(states) == [1.0, -1.0]


def _tied_on_points(states):
    """Seats 0 and 1 play the last round quietly and end on 1 point each; the final record."""
    _play_quiet_round(states)
    s = st(states)
    assert s["score"][:2].tolist() == [1, 1]
    return s


def test_e3_tie_more_empire_cards():
    """END-E3: equal points: more empire cards wins."""
    states = _last_round(2)
    put_on_board(states, 0, "building", "theatre")  # 1 point
    put_on_board(states, 1, "empire", "royal_charter")  # 1 point, an empire card
    s = _tied_on_points(states)
    assert s["winner"] == 1 and s["winners"] == 0b10


def test_e3_tie_then_more_tokens():
    """END-E3: equal points and empire cards: more tokens left wins."""
    states = _last_round(2)
    put_on_board(states, 0, "empire", "royal_charter")
    put_on_board(states, 1, "empire", "colonial_ambitions")
    set_ships(states, 1, "west_africa", 1)  # seat 1: 14 tokens left, ships score nothing
    s = _tied_on_points(states)
    assert s["winner"] == 0 and s["winners"] == 0b01


def test_e3_still_tied_players_share_the_win():
    """END-E3: all equal: the win is shared (no single winner); in 3 players the third loses."""
    states = _last_round(2)
    _play_quiet_round(states)
    s = st(states)
    assert s["winner"] == -1 and s["winners"] == 0b11 and _rewards(states) == [0.0, 0.0]

    states = _last_round(3)
    set_ships(states, 2, "west_africa", 1)  # seat 2 has fewer tokens left
    _play_quiet_round(states)
    s = st(states)
    assert s["winner"] == -1 and s["winners"] == 0b011
    assert _rewards(states) == [0.5, 0.5, -1.0]


def test_e4_the_game_ends_after_round_12():
    """END-E4: round 11 leads to round 12; after round 12 the game ends, scored normally (a
    normal end, not a cut-off)."""
    states = blank(2)
    put_city(states, "bristol", owner=0)
    st(states)["round"] = 11
    _play_quiet_round(states)
    s = st(states)
    assert s["round"] == 12 and s["phase"] == R.PH_PLAN_ROLE
    _play_quiet_round(states)
    assert s["phase"] == R.PH_OVER and s["terminated"] == 1 and s["truncated"] == 0
    assert s["round"] == 12 and s["score"][:2].tolist() == [1, 0] and s["winner"] == 0


# ---- abilities (loader docstring; END-B2) ------------------------------------------------------


def _sailor_probe(states):
    return can(states, 0, region("caribbean"))  # 2 tokens + 1 = 3


def _merchant_probe(states):
    while deciding(states, 0):
        a = min(legal(states) - {DONE})
        act(states, a)
        if a == HOME:
            act(states, good("tea"))
    return st(states)["goods"][0].sum() == 2  # 1 token + 1 = 2 goods


def _craftsman_probe(states):
    return can(states, 0, building(0))  # 2 tokens + 1 = 3 = Observatory


def _commander_probe(states):
    return can(states, 0, attack_ship(states, 0, 1, "west_africa"))  # 1 + 1 = 2 > 1


def _politician_probe(states):
    return can(states, 0, empire("navigation_acts"))  # 1 + 1 = 2 votes


def _governor_probe(states):
    return can(states, 0, slot(0))  # 1 + 1: settle Bristol paying its good with a token


ROLE_BONUS = {  # role: (tokens, probe)
    SAILOR: (2, _sailor_probe),
    MERCHANT: (1, _merchant_probe),
    CRAFTSMAN: (2, _craftsman_probe),
    COMMANDER: (1, _commander_probe),
    POLITICIAN: (1, _politician_probe),
    GOVERNOR: (1, _governor_probe),
}
ROLE_BONUS_CARDS = [
    ("building", "harbour", SAILOR),
    ("building", "warehouse", MERCHANT),
    ("building", "guildhall", CRAFTSMAN),
    ("building", "barracks", COMMANDER),
    ("building", "town_hall", POLITICIAN),
    ("building", "colonial_office", GOVERNOR),
    ("city", "ribeira_grande", SAILOR),
    ("city", "london", MERCHANT),
    ("city", "bombay", CRAFTSMAN),
    ("city", "port_royal", COMMANDER),
    ("city", "amsterdam", POLITICIAN),
    ("city", "rio_de_janeiro", GOVERNOR),
    ("empire", "brazil_fleet", SAILOR),
    ("empire", "free_trade_treaty", MERCHANT),
    ("empire", "letters_of_marque", COMMANDER),
    ("empire", "act_of_parliament", POLITICIAN),
    ("empire", "governors_council", GOVERNOR),
]


def _role_bonus_position(r, cards):
    states = blank(2)
    bristol = put_city(states, "bristol")  # slot 0
    assert bristol == 0
    if r == MERCHANT:
        st(states)["slot_owner"][bristol] = 0
    if r == POLITICIAN:
        set_goods(states, 0, coffee=3)  # Navigation Acts: 3 goods
    set_building_market(states, "observatory", "cathedral", "university")
    set_empire_market(states, "navigation_acts", None, None)
    set_ships(states, 1, "west_africa", 1)
    for kind, key in cards:
        put_on_board(states, 0, kind, key)
    placed, probe = ROLE_BONUS[r]
    plan(states, [r, SAILOR], [placed, 0])
    return probe(states)


@pytest.mark.parametrize("kind, key, r", ROLE_BONUS_CARDS)
def test_role_bonus_adds_one_unit_to_its_role(kind, key, r):
    """role_bonus [role]: +1 strength when the owner performs that role, from a building, a
    city card or an empire card; without the card the same play is out of reach."""
    assert _role_bonus_position(r, [(kind, key)])
    assert not _role_bonus_position(r, [])


def test_role_bonus_only_for_its_own_role():
    """role_bonus: Harbour (Sailor) does nothing for the Merchant."""
    assert not _role_bonus_position(MERCHANT, [("building", "harbour")])


def test_role_bonus_cards_stack():
    """role_bonus: two Sailor cards add 2: 2 tokens reach South America (cost 4)."""
    for cards, ok in (
        ([("building", "harbour")], False),
        ([("building", "harbour"), ("city", "ribeira_grande")], True),
    ):
        states = blank(2)
        open_region(states, "caribbean")
        for kind, key in cards:
            put_on_board(states, 0, kind, key)
        plan(states, [SAILOR, MERCHANT], [2, 0])
        assert can(states, 0, region("south_america")) == ok


def test_travel_discount_lowers_costs_by_one():
    """travel_discount (END-R3): the Caribbean costs 2 instead of 3."""
    for with_card in (False, True):
        states = blank(2)
        if with_card:
            put_on_board(states, 0, "empire", "navigation_acts")
        plan(states, [SAILOR, MERCHANT], [2, 0])
        assert can(states, 0, region("caribbean")) == with_card
        if with_card:
            act(states, region("caribbean"))
            assert st(states)["round"] == 2  # both units spent


def test_travel_discount_stacks_but_never_below_one():
    """travel_discount (END-R3): three discounts lower India from 5 to 2, but West Africa
    and the Caribbean cost 1, not 0 or less."""
    states = blank(2)
    for key in ("navigation_acts", "cape_route", "strait_passage"):
        put_on_board(states, 0, "empire", key)
    s = st(states)
    expected = {"west_africa": 1, "caribbean": 1, "india": 2, "southeast_asia": 3, "china": 4}
    for key, cost in expected.items():
        assert R.travel_cost(s, 0, REGION[key]) == cost
    plan(states, [SAILOR, MERCHANT], [3, 0])
    assert region("india") in legal(states)
    act(states, region("west_africa"))  # 1 unit spent, 2 left
    assert regions_legal(states) == {REGION[k] for k in ("west_africa", "caribbean", "india")}
    act(states, region("west_africa"))  # 1 left: India (2) out of reach
    assert regions_legal(states) == {REGION["west_africa"], REGION["caribbean"]}


def test_extra_good_once_per_merchant_action_per_card():
    """extra_good [good]: +1 of its good after a Merchant action that took goods, once per
    card however many goods were taken; cards stack."""
    states = blank(2)
    put_city(states, "bristol", owner=0)
    put_on_board(states, 0, "building", "coffee_house")
    put_on_board(states, 0, "city", "antwerp")
    plan(states, [MERCHANT, SAILOR], [2, 0])
    act(states, slot(0), HOME, good("tea"))  # both units used: the action ends
    assert st(states)["goods"][0].tolist() == [2, 2, 0, 0, 0]


def test_extra_good_not_without_taking_goods():
    """extra_good: a Merchant action that took nothing gives nothing."""
    for placed in (0, 1):
        states = blank(2)
        put_on_board(states, 0, "building", "coffee_house")
        plan(states, [MERCHANT, SAILOR], [placed, 0])
        if deciding(states, 0):
            act(states, DONE)
        assert st(states)["goods"][0].sum() == 0


@pytest.mark.parametrize(
    "target, cards, need",
    [
        ("ship", [], 2),
        ("ship", [("building", "fort")], 3),
        ("ship", [("building", "fort"), ("city", "elmina")], 4),
        ("city", [("building", "fort")], 3),
        ("city", [("empire", "gold_coast_patrol")], 3),
    ],
)
def test_defence_adds_one_per_card_to_ships_and_cities(target, cards, need):
    """defence: the owner's ships and cities each defend with 1 more per card."""
    for placed in (need - 1, need):
        states = blank(2)
        put_city(states, "genoa", owner=0)
        bristol = put_city(states, "bristol", owner=1)
        set_ships(states, 1, "west_africa", 1)
        for kind, key in cards:
            put_on_board(states, 1, kind, key)
        plan(states, [COMMANDER, SAILOR], [placed, 0])
        action = attack_ship(states, 0, 1, "west_africa") if target == "ship" else slot(bristol)
        assert can(states, 0, action) == (placed == need)


def test_defence_of_the_attacker_does_not_count():
    """defence protects its owner only."""
    states = blank(2)
    put_on_board(states, 0, "building", "fort")
    set_ships(states, 1, "west_africa", 1)
    plan(states, [COMMANDER, SAILOR], [2, 0])
    assert can(states, 0, attack_ship(states, 0, 1, "west_africa"))


@pytest.mark.parametrize(
    "kind, key, extra",
    [
        ("building", "bank", 1),
        ("building", "admiralty", 2),
        ("building", "shipyard", 1),
        ("city", "willemstad", 1),
        ("empire", "national_bank", 2),
    ],
)
def test_extra_tokens_join_the_pool(kind, key, extra):
    """extra_tokens [n]: the pool grows by n when the card enters the board, and the next
    planning offers the new tokens."""
    states = blank(2)
    if kind == "building":
        set_building_market(states, key, None, None)
        action, r = building(0), CRAFTSMAN
    elif kind == "city":
        action, r = slot(put_city(states, key)), CRAFTSMAN
    else:
        set_empire_market(states, key, None, None)
        set_goods(states, 0, cocoa=6)  # National Bank: 6 goods held
        action, r = empire(key), POLITICIAN
    plan(states, [r, SAILOR], [6, 0])
    act(states, action)
    s = st(states)
    assert s["pool"][0] == 15 + extra
    if deciding(states, 0):
        act(states, DONE)
    while not deciding(states, 0, R.PH_PLAN_TOKENS):  # seat 1 plans first: it ran first
        act(states, min(legal(states)))
    assert legal(states) == {tokens(t) for t in range(16 + extra)}


def test_region_points_city_card():
    """region_points [region]: Goa on the board scores its 2 points + 1 per India city holding
    the owner's marker (Goa itself, a card without marker, is not one)."""
    states = blank(2)
    goa = put_city(states, "goa")
    put_city(states, "surat", owner=0)  # India, 2 points
    put_city(states, "bristol", owner=0)  # Europe, 1 point
    set_building_market(states, "cathedral", "admiralty", "university")
    assert score(states, 0) == 3
    plan(states, [CRAFTSMAN, SAILOR], [4, 0])
    act(states, slot(goa))
    assert board_of(states, 0) == [("city", "goa")]
    assert score(states, 0) == 3 + 2 + 1


def test_region_points_empire_card():
    """region_points: Estado da India (condition: 2 India cities) scores 1 + 1 per India
    city held."""
    states = blank(2)
    put_city(states, "surat", owner=0)
    put_city(states, "calicut", owner=0)
    set_empire_market(states, "estado_da_india", None, None)
    assert score(states, 0) == 4
    plan(states, [POLITICIAN, SAILOR], [2, 0])
    act(states, empire("estado_da_india"))
    assert score(states, 0) == 4 + 1 + 2


# ---- empire conditions (END-A5; loader docstring) -----------------------------------------------


def _politician_can_take(states, key, votes):
    set_empire_market(states, key, None, None)
    plan(states, [POLITICIAN, SAILOR], [votes, 0])
    return can(states, 0, empire(key))


def _meet_condition(states, e, count):
    """Give seat 0 ``count`` of what empire card ``e``'s condition counts (data tables)."""
    kind = D.EMPIRE_CONDITION[e]
    region = int(D.EMPIRE_CONDITION_REGION[e])
    if kind in (D.COND_CITIES_IN_REGION, D.COND_CITIES_TOTAL):
        where = region if kind == D.COND_CITIES_IN_REGION else D.EUROPE
        for c in D.REGION_CITIES[where][:count]:
            put_city(states, D.CITY_KEYS[c], owner=0)
    elif kind == D.COND_SHIPS_IN_REGION:
        set_ships(states, 0, D.REGION_KEYS[region], count)
    else:
        set_goods(states, 0, spice=count)


@pytest.mark.parametrize("key", D.EMPIRE_KEYS)
def test_every_empire_condition_binds_at_its_count(key):
    """END-A5 (issues 9.8, 9.9): every card has a condition; the Politician is offered the card
    once the count is met on the board, not one short of it (which is possible for every card:
    tests/test_endeavor_data.py::test_empire_conditions_satisfiable)."""
    e = D.EMPIRE_ID[key]
    count = int(D.EMPIRE_CONDITION_COUNT[e])
    votes = int(D.EMPIRE_VOTE_COST[e])
    assert count >= 1
    states = blank(2)
    _meet_condition(states, e, count - 1)
    assert not _politician_can_take(states, key, votes)
    states = blank(2)
    _meet_condition(states, e, count)
    assert _politician_can_take(states, key, votes)


def _offered_once_met(key, short, met):
    """With 1 vote the Politician is not offered ``key`` after ``short(states)`` on a blank
    position and is offered it after ``met(states)``; returns that last position."""
    states = blank(2)
    short(states)
    assert not _politician_can_take(states, key, 1)
    states = blank(2)
    met(states)
    assert _politician_can_take(states, key, 1)
    return states


def test_condition_cities_in_region():
    """cities_in_region: European Alliance needs 2 Europe cities holding the player's markers;
    a West Africa city, a Europe city card on the board or an opponent's city do not count."""

    def short(states):
        put_city(states, "bristol", owner=0)
        put_city(states, "goree", owner=0)
        put_city(states, "genoa", owner=1)
        put_on_board(states, 0, "city", "lisbon")

    def met(states):
        put_city(states, "bristol", owner=0)
        put_city(states, "genoa", owner=0)

    _offered_once_met("european_alliance", short, met)


def test_condition_ships_in_region():
    """ships_in_region: Atlantic Crossing needs an own ship in the Caribbean."""

    def short(states):
        set_ships(states, 0, "west_africa", 3)
        set_ships(states, 1, "caribbean", 1)

    _offered_once_met("atlantic_crossing", short, lambda s: set_ships(s, 0, "caribbean", 1))


def test_condition_cities_total():
    """cities_total: Colonial Ambitions needs 2 cities holding the player's markers."""

    def met(states):
        put_city(states, "bristol", owner=0)
        put_city(states, "goree", owner=0)

    _offered_once_met("colonial_ambitions", lambda s: put_city(s, "bristol", owner=0), met)


def test_condition_goods_total():
    """goods_total: Chartered Merchants needs 3 goods of any kinds, held, not paid."""
    states = _offered_once_met(
        "chartered_merchants",
        lambda s: set_goods(s, 0, tea=2),
        lambda s: set_goods(s, 0, tea=1, spice=2),
    )
    act(states, empire("chartered_merchants"))
    assert st(states)["goods"][0].tolist() == [1, 0, 2, 0, 0]
    assert board_of(states, 0) == [("empire", "chartered_merchants")]
