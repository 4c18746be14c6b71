"""Per-card scenario tests of the Everdell kernel: every one of the 48 card types, the payment
abilities and the card-placement rules (EVD-P2…P4, EVD-D2).

Each test builds a position with tests/everdell_scenarios.py, drives the kernel through its
own legal actions only, and checks the outcome against the printed card text (reference
cards.json) and the rulings in subtleties.md. Expected numbers come from the card text.
"""

import pytest
from everdell_scenarios import (
    DONE,
    PREPARE,
    build,
    card,
    city,
    city_card,
    city_code,
    discard_pile,
    do,
    give,
    hand,
    hand_size,
    jail,
    legal,
    loc_code,
    meadow,
    meadow_cards,
    new_position,
    number,
    pay,
    pending,
    place_basic,
    place_city,
    place_forest,
    place_worker,
    play_hand,
    player,
    resource,
    resources,
    reveal,
    revealed,
    rug_build,
    score,
    set_meadow,
    set_resources,
    slot_of,
    stack,
    to_discard,
    tokens,
    turn,
    worker,
)

from meeple_gym.everdell import rules as R
from meeple_gym.everdell.data import EVENT_ID as EVENT

# Printed base points, restated from the cards (not read from the data tables).
VALUE = {
    "architect": 2,
    "barge_toad": 1,
    "castle": 4,
    "chapel": 2,
    "chip_sweep": 2,
    "courthouse": 2,
    "dungeon": 0,
    "ever_tree": 5,
    "farm": 1,
    "historian": 1,
    "husband": 2,
    "inn": 2,
    "judge": 2,
    "king": 4,
    "lookout": 2,
    "mine": 2,
    "palace": 4,
    "ruins": 0,
    "school": 2,
    "theater": 3,
    "wife": 2,
}

# One-space cards with no pairing, bonus or berry effect, to fill a city (EVD-P4).
FILLER_CITY = (
    ("inn",) * 3
    + ("post_office",) * 3
    + ("mine",) * 3
    + ("twig_barge",) * 3
    + ("resin_refinery",) * 3
)


def fill_city(states, p, n):
    """Put ``n`` filler cards into p's city."""
    build(states, p, *FILLER_CITY[:n])


def spaces_used(states, p):
    """City spaces by the card text: Wanderer takes none, a Husband and a Wife share one."""
    cards = city(states, p)
    pairs = min(cards.count("husband"), cards.count("wife"))
    return len(cards) - cards.count("wanderer") - pairs


# ==== Prosperity scoring (EVD-E2) =============================================================


def test_architect_scores_leftover_resin_and_pebble_capped_at_six():
    states = new_position()
    build(states, 0, "architect")
    set_resources(states, 0, twig=5, resin=1, pebble=2, berry=5)  # twigs/berries do not count
    assert score(states, 0) == VALUE["architect"] + 3
    set_resources(states, 0, resin=4, pebble=4)
    assert score(states, 0) == VALUE["architect"] + 6


def test_castle_counts_common_constructions():
    states = new_position()
    set_meadow(states, 3, "crane")  # frees a Castle
    keys = ("castle", "farm", "farm", "inn", "ruins", "chapel", "historian")
    build(states, 0, *keys)
    # Common constructions: Farm, Farm, Inn, Ruins; Chapel is Unique, Historian a critter.
    assert score(states, 0) == sum(VALUE[k] for k in keys) + 4


def test_palace_counts_unique_constructions_itself_included():
    states = new_position()
    set_meadow(states, 4, "crane")  # frees a Palace
    keys = ("palace", "chapel", "courthouse", "farm", "inn", "historian")
    build(states, 0, *keys)
    # Unique constructions: Palace, Chapel, Courthouse.
    assert score(states, 0) == sum(VALUE[k] for k in keys) + 3


def test_school_counts_common_critters():
    states = new_position()
    keys = ("school", "barge_toad", "chip_sweep", "historian", "farm")
    build(states, 0, *keys)
    # Common critters: Barge Toad, Chip Sweep; Historian is Unique.
    assert score(states, 0) == sum(VALUE[k] for k in keys) + 2


def test_theater_counts_unique_critters():
    states = new_position()
    keys = ("theater", "historian", "judge", "barge_toad", "courthouse")
    build(states, 0, *keys)
    # Unique critters: Historian, Judge.
    assert score(states, 0) == sum(VALUE[k] for k in keys) + 2


def test_ever_tree_counts_purple_cards_itself_included():
    states = new_position()
    keys = ("ever_tree", "king", "wife", "farm")
    build(states, 0, *keys)
    # Purple Prosperity cards: Ever Tree, King, Wife (no events, no Husband: no other bonus).
    assert score(states, 0) == sum(VALUE[k] for k in keys) + 3


def test_king_scores_one_per_basic_and_two_per_special_event():
    states = new_position()
    s = states[0]
    build(states, 0, "king")
    s["event_owner"][EVENT["grand_tour"]] = 0  # basic
    s["event_owner"][EVENT["harvest_festival"]] = 0  # basic
    s["event_owner"][EVENT["tax_relief"]] = 0  # special
    s["event_owner"][EVENT["city_monument"]] = 1  # an opponent's event does not count
    with_king = score(states, 0)
    s["city"][0, slot_of(states, 0, "king")] = -1
    assert with_king - score(states, 0) == VALUE["king"] + 1 + 1 + 2


def test_wife_scores_three_when_paired_with_a_husband():
    states = new_position()
    build(states, 0, "wife", "wife", "husband")
    # Two Wives, one Husband: one pair, so one +3.
    assert score(states, 0) == 2 * VALUE["wife"] + VALUE["husband"] + 3
    build(states, 0, "husband")
    assert score(states, 0) == 2 * VALUE["wife"] + 2 * VALUE["husband"] + 6


# ==== Production cards (EVD-P5: fire when played) =============================================


@pytest.mark.parametrize(
    ("key", "cost", "gain"),
    [
        ("farm", (2, 1, 0, 0), (0, 0, 0, 1)),  # 1 berry
        ("mine", (1, 1, 1, 0), (0, 0, 1, 0)),  # 1 pebble
        ("resin_refinery", (0, 1, 1, 0), (0, 1, 0, 0)),  # 1 resin
        ("twig_barge", (1, 0, 1, 0), (2, 0, 0, 0)),  # 2 twigs
    ],
)
def test_farm_mine_resin_refinery_twig_barge_produce_when_played(key, cost, gain):
    states = new_position()
    give(states, 0, key)
    set_resources(states, 0, *cost)
    do(states, play_hand(key))
    assert city(states, 0) == [key]
    assert resources(states, 0) == gain
    assert pending(states) == (R.PK_TURN, 1)


def test_farm_produces_again_when_preparing_for_spring():
    """EVD-F2: every green card fires again at the spring Prepare for Season."""
    states = new_position()
    build(states, 0, "farm")
    place_worker(states, 0, loc_code("basic_3_twig"))
    place_worker(states, 0, loc_code("basic_1_pebble"))
    do(states, PREPARE)
    assert resources(states, 0) == (0, 0, 0, 1)
    assert states[0]["season"][0] == R.SPRING


@pytest.mark.parametrize(("farms", "twigs"), [(0, 0), (1, 2), (2, 4)])
def test_barge_toad_takes_two_twigs_per_farm(farms, twigs):
    states = new_position()
    build(states, 0, *(["farm"] * farms + ["inn"]))
    give(states, 0, "barge_toad")
    set_resources(states, 0, berry=2)
    do(states, play_hand("barge_toad"))
    assert resources(states, 0) == (twigs, 0, 0, 0)


@pytest.mark.parametrize(("farms", "berries"), [(0, 1), (1, 2), (2, 2)])
def test_general_store_one_berry_or_two_with_a_farm(farms, berries):
    """Two berries with at least one Farm, not one more per Farm."""
    states = new_position()
    build(states, 0, *(["farm"] * farms + ["inn"]))
    give(states, 0, "general_store")
    set_resources(states, 0, resin=1, pebble=1)
    do(states, play_hand("general_store"))
    assert resources(states, 0) == (0, 0, 0, berries)


def test_fairgrounds_draws_two_cards():
    states = new_position()
    give(states, 0, "fairgrounds")
    set_resources(states, 0, 1, 2, 1, 0)
    stack(states, "lookout", "crane")
    do(states, play_hand("fairgrounds"))
    assert hand(states, 0) == {"lookout": 1, "crane": 1}


def test_chip_sweep_fires_another_green_card_of_its_city_again():
    states = new_position()
    mine, barge = build(states, 0, "mine", "twig_barge")
    build(states, 1, "resin_refinery")  # an opponent's card is not a Chip Sweep target
    give(states, 0, "chip_sweep")
    set_resources(states, 0, berry=3)
    do(states, play_hand("chip_sweep"))
    assert pending(states) == (R.PK_COPY_GREEN, 0)
    assert legal(states) == {city_card(mine), city_card(barge)}  # not the Chip Sweep itself
    do(states, city_card(barge))
    assert resources(states, 0) == (2, 0, 0, 0)  # Twig Barge's 2 twigs, no pebble


def test_doctor_pays_up_to_three_berries_for_a_point_each():
    states = new_position()
    give(states, 0, "doctor")
    set_resources(states, 0, berry=6)
    do(states, play_hand("doctor"))
    assert pending(states) == (R.PK_NUMBER, 0)
    assert legal(states) == {number(0), number(1), number(2)}  # 2 berries left after paying 4
    do(states, number(2))
    assert tokens(states, 0) == 2 and resources(states, 0) == (0, 0, 0, 0)


def test_doctor_caps_at_three_berries():
    states = new_position()
    give(states, 0, "doctor")
    set_resources(states, 0, berry=9)
    do(states, play_hand("doctor"))
    assert legal(states) == {number(n) for n in range(4)}
    do(states, number(3))
    assert tokens(states, 0) == 3 and resources(states, 0) == (0, 0, 0, 2)


def test_woodcarver_pays_up_to_three_twigs_for_a_point_each():
    states = new_position()
    give(states, 0, "woodcarver")
    set_resources(states, 0, twig=4, berry=2)
    do(states, play_hand("woodcarver"))
    assert legal(states) == {number(n) for n in range(4)}
    do(states, number(3))
    assert tokens(states, 0) == 3 and resources(states, 0) == (1, 0, 0, 0)


def test_husband_produces_one_resource_when_paired_with_a_wife_and_a_farm_exists():
    states = new_position()
    build(states, 0, "farm", "wife")
    give(states, 0, "husband")
    set_resources(states, 0, berry=3)
    do(states, play_hand("husband"))
    assert pending(states) == (R.PK_PAY, 0)  # berries or the Farm's occupied token
    do(states, pay(R.PAY_NORMAL))
    assert pending(states) == (R.PK_GAIN, 0)
    assert legal(states) == {resource(r) for r in ("twig", "resin", "pebble", "berry")}
    do(states, resource("pebble"))
    assert resources(states, 0) == (0, 0, 1, 0)


@pytest.mark.parametrize("partner", ["farm", "wife"])
def test_husband_produces_nothing_without_a_wife_or_without_a_farm(partner):
    states = new_position()
    build(states, 0, partner)
    give(states, 0, "husband")
    set_resources(states, 0, berry=3)
    do(states, play_hand("husband"))
    if pending(states)[0] == R.PK_PAY:
        do(states, pay(R.PAY_NORMAL))
    assert pending(states) == (R.PK_TURN, 1)  # no resource to choose
    assert resources(states, 0) == (0, 0, 0, 0)


def test_husbands_produce_once_per_pair_at_spring():
    """subtleties §8: producing Husbands = pairs = min(H, W); 2 Husbands + 1 Wife give one."""
    states = new_position()
    farm, h1, h2, _ = build(states, 0, "farm", "husband", "husband", "wife")
    place_worker(states, 0, loc_code("basic_3_twig"))
    place_worker(states, 0, loc_code("basic_1_pebble"))
    do(states, PREPARE)
    assert pending(states) == (R.PK_PRODUCE_ORDER, 0)
    assert legal(states) == {city_card(farm), city_card(h1), city_card(h2)}
    gains = 0
    while pending(states)[0] in (R.PK_PRODUCE_ORDER, R.PK_GAIN):
        if pending(states)[0] == R.PK_GAIN:
            do(states, resource("resin"))
            gains += 1
        else:
            do(states, min(legal(states)))
    assert gains == 1
    assert resources(states, 0) == (0, 1, 0, 1)  # the Farm's berry and one resin


def test_husband_and_wife_share_one_space():
    """EVD-P4 / subtleties §3: a Wife joins an unpaired Husband's space in a full city."""
    states = new_position()
    fill_city(states, 0, 14)
    build(states, 0, "husband")
    assert spaces_used(states, 0) == 15
    give(states, 0, "wife", "wife")
    set_resources(states, 0, berry=4)
    do(states, play_hand("wife"))
    assert city(states, 0).count("wife") == 1
    assert spaces_used(states, 0) == 15
    turn(states, 0)
    assert play_hand("wife") not in legal(states)  # the Husband is paired now


def test_miner_mole_copies_an_opponents_general_store_with_their_farm():
    """The copied card reads the opponent's city: their Farm makes it 2 berries."""
    states = new_position()
    store, farm = build(states, 1, "general_store", "farm")
    give(states, 0, "miner_mole")
    set_resources(states, 0, berry=3)
    do(states, play_hand("miner_mole"))
    assert pending(states) == (R.PK_COPY_GREEN, 0)
    assert legal(states) == {city_card(store, 1), city_card(farm, 1)}
    do(states, city_card(store, 1))
    assert resources(states, 0) == (0, 0, 0, 2)
    assert resources(states, 1) == (0, 0, 0, 0)


def test_miner_mole_general_store_ignores_the_copiers_own_farm():
    states = new_position()
    build(states, 0, "farm")
    build(states, 1, "general_store")
    give(states, 0, "miner_mole")
    set_resources(states, 0, berry=3)
    do(states, play_hand("miner_mole"))
    assert resources(states, 0) == (0, 0, 0, 1)  # the opponent has no Farm


def test_monk_gives_up_to_two_berries_for_two_points_each():
    states = new_position()
    give(states, 0, "monk")
    set_resources(states, 0, twig=1, berry=4)
    do(states, play_hand("monk"))
    assert pending(states) == (R.PK_GIVE_RESOURCE, 0)
    assert legal(states) == {resource("berry"), DONE}  # berries only, optional
    do(states, resource("berry"), resource("berry"))
    assert tokens(states, 0) == 4
    assert resources(states, 0) == (1, 0, 0, 1)
    assert resources(states, 1) == (0, 0, 0, 2)


def test_peddler_swaps_up_to_two_resources_with_the_supply():
    states = new_position()
    give(states, 0, "peddler")
    set_resources(states, 0, twig=3, berry=2)
    do(states, play_hand("peddler"))
    assert pending(states) == (R.PK_PEDDLER_PAY, 0)
    do(states, resource("twig"), resource("twig"))
    assert pending(states) == (R.PK_GAIN, 0)  # two paid: two of choice
    do(states, resource("pebble"), resource("resin"))
    assert resources(states, 0) == (1, 1, 1, 0)


def test_storehouse_stocks_on_production_and_its_worker_collects():
    states = new_position()
    give(states, 0, "storehouse")
    set_resources(states, 0, 1, 1, 1, 0)
    do(states, play_hand("storehouse"))
    assert pending(states) == (R.PK_STOREHOUSE, 0)
    do(states, resource("resin"))
    k = slot_of(states, 0, "storehouse")
    assert tuple(states[0]["city_store"][0, k]) == (0, 2, 0, 0)  # 2 resin
    assert resources(states, 0) == (0, 0, 0, 0)
    assert place_city(k, 1) not in legal(states)  # the opponent cannot visit it
    turn(states, 0)
    do(states, place_city(k))
    assert resources(states, 0) == (0, 2, 0, 0)
    assert tuple(states[0]["city_store"][0, k]) == (0, 0, 0, 0)


def test_chip_sweep_restocks_a_storehouse():
    states = new_position()
    store = build(states, 0, "storehouse")
    give(states, 0, "chip_sweep")
    set_resources(states, 0, berry=3)
    do(states, play_hand("chip_sweep"))  # the Storehouse is the only other green card
    do(states, resource("pebble"))
    assert tuple(int(x) for x in states[0]["city_store"][0, store]) == (0, 0, 1, 0)


def test_storehouse_stocks_again_at_spring():
    """EVD-F2: Production cards fire again when preparing for spring."""
    states = new_position()
    store = build(states, 0, "storehouse")
    states[0]["city_store"][0, store] = (3, 0, 0, 0)
    place_worker(states, 0, loc_code("basic_3_twig"))
    place_worker(states, 0, loc_code("basic_1_pebble"))
    do(states, PREPARE, resource("berry"))
    assert tuple(int(x) for x in states[0]["city_store"][0, store]) == (3, 0, 0, 2)


@pytest.mark.parametrize(
    ("kind", "stock"), [("twig", (3, 0, 0, 0)), ("pebble", (0, 0, 1, 0)), ("berry", (0, 0, 0, 2))]
)
def test_storehouse_stock_amounts(kind, stock):
    states = new_position()
    give(states, 0, "storehouse")
    set_resources(states, 0, 1, 1, 1, 0)
    do(states, play_hand("storehouse"), resource(kind))
    k = slot_of(states, 0, "storehouse")
    assert tuple(int(x) for x in states[0]["city_store"][0, k]) == stock


def test_teacher_keeps_one_and_gives_the_other_to_an_opponent():
    states = new_position()
    stack(states, "lookout", "crane")
    give(states, 0, "teacher")
    set_resources(states, 0, berry=2)
    do(states, play_hand("teacher"))
    assert pending(states) == (R.PK_REVEALED, 0)
    assert sorted(revealed(states)) == ["crane", "lookout"]
    do(states, reveal(revealed(states).index("crane")))
    assert hand(states, 0) == {"crane": 1}
    assert hand(states, 1) == {"lookout": 1}


# ==== Travelers (EVD-P5: once, when played) ===================================================


def test_bard_discards_up_to_five_cards_for_a_point_token_each():
    states = new_position()
    give(states, 0, "bard", "farm", "farm", "mine", "inn", "wife", "husband")
    set_resources(states, 0, berry=3)
    do(states, play_hand("bard"))
    assert pending(states) == (R.PK_DISCARD, 0)
    assert DONE in legal(states)  # "up to": discarding nothing is allowed
    do(states, card("farm"), card("farm"), card("mine"), card("inn"), card("wife"))
    assert pending(states) == (R.PK_TURN, 1)  # the fifth discard ends it
    assert tokens(states, 0) == 5
    assert hand(states, 0) == {"husband": 1}
    assert sorted(discard_pile(states)) == ["farm", "farm", "inn", "mine", "wife"]


def test_bard_may_stop_early():
    states = new_position()
    give(states, 0, "bard", "farm", "mine", "inn")
    set_resources(states, 0, berry=3)
    do(states, play_hand("bard"), card("mine"), DONE)
    assert tokens(states, 0) == 1
    assert hand(states, 0) == {"farm": 1, "inn": 1}


def test_fool_goes_into_the_opponents_city_for_minus_two():
    states = new_position()
    give(states, 0, "fool")
    set_resources(states, 0, berry=3)
    do(states, play_hand("fool"))  # the only opponent is chosen at once
    assert city(states, 0) == []
    assert city(states, 1) == ["fool"]
    assert score(states, 1) == -2
    assert resources(states, 0) == (0, 0, 0, 0)


def test_fool_cannot_enter_a_city_that_already_has_a_fool():
    """EVD-P2 against the target city; the acting player's own Fool does not matter."""
    states = new_position()
    build(states, 1, "fool")
    give(states, 0, "fool")
    set_resources(states, 0, berry=3)
    assert play_hand("fool") not in legal(states)

    states = new_position()
    build(states, 0, "fool")  # a Fool in the acting player's own city
    give(states, 0, "fool")
    set_resources(states, 0, berry=3)
    do(states, play_hand("fool"))
    assert city(states, 1) == ["fool"]


def test_fool_with_three_players_skips_the_city_that_has_one():
    states = new_position(num_players=3)
    build(states, 1, "fool")
    give(states, 0, "fool")
    set_resources(states, 0, berry=3)
    do(states, play_hand("fool"))
    assert city(states, 2) == ["fool"]
    assert city(states, 1) == ["fool"]


def test_fool_with_three_players_chooses_the_opponent():
    states = new_position(num_players=3)
    give(states, 0, "fool")
    set_resources(states, 0, berry=3)
    do(states, play_hand("fool"))
    assert pending(states) == (R.PK_FOOL_TARGET, 0)
    assert legal(states) == {player(1), player(2)}
    do(states, player(2))
    assert city(states, 2) == ["fool"] and city(states, 1) == []


def test_fool_in_solo_is_discarded_and_removes_one_rugwort_card():
    """Solo rules (locations.json solo_rugwort): discard the Fool, remove any 1 of his cards."""
    states = new_position(num_players=1)
    rug_build(states, "farm", "mine")
    give(states, 0, "fool")
    set_resources(states, 0, berry=3)
    do(states, play_hand("fool"))
    assert pending(states) == (R.PK_RUG_REMOVE, 0)
    assert legal(states) == {card("farm"), card("mine")}
    do(states, card("mine"))
    s = states[0]
    assert "fool" in discard_pile(states) and "mine" in discard_pile(states)
    assert city(states, 0) == []
    # Rugwort then plays one Meadow card (no Farm or Mine in this Meadow).
    assert s["rug_city"][R.FARM] == 1 and s["rug_city"][R.MINE] == 0
    assert s["rug_city"].sum() == 2


def test_postal_pigeon_plays_one_revealed_card_worth_three_or_less_free():
    states = new_position()
    stack(states, "lookout", "king")
    give(states, 0, "postal_pigeon")
    set_resources(states, 0, berry=2)
    do(states, play_hand("postal_pigeon"))
    assert pending(states) == (R.PK_REVEALED, 0)
    shown = revealed(states)
    assert sorted(shown) == ["king", "lookout"]
    # King is worth 4: only the Lookout (2) may be played; playing none is allowed.
    assert legal(states) == {reveal(shown.index("lookout")), DONE}
    do(states, reveal(shown.index("lookout")))
    assert city(states, 0) == ["postal_pigeon", "lookout"]
    assert discard_pile(states) == ["king"]
    assert resources(states, 0) == (0, 0, 0, 0)


def test_ranger_moves_a_placed_worker_and_resolves_the_new_spot():
    states = new_position()
    w = place_worker(states, 0, loc_code("basic_1_pebble"))
    other = place_worker(states, 0, loc_code("basic_2_resin"))
    give(states, 0, "ranger")
    set_resources(states, 0, berry=2)
    do(states, play_hand("ranger"))
    assert pending(states) == (R.PK_WORKER, 0)
    assert legal(states) == {worker(w), worker(other)}  # the move is compulsory: no "done"
    do(states, worker(w))
    assert pending(states) == (R.PK_PLACE, 0)
    assert place_basic("basic_1_pebble") not in legal(states)  # a different location
    do(states, place_basic("basic_3_twig"))
    assert states[0]["wloc"][0, w] == loc_code("basic_3_twig")
    assert resources(states, 0) == (3, 0, 0, 0)  # the new spot only; no pebble again
    turn(states, 1)
    assert place_basic("basic_1_pebble") in legal(states)  # the old spot is free again


def test_ruins_replaces_a_construction_regains_its_cost_and_draws_two():
    states = new_position()
    k = build(states, 0, "chapel")
    give(states, 0, "ruins")
    stack(states, "lookout", "crane")
    do(states, play_hand("ruins"))  # costs nothing; the only Construction is taken
    assert states[0]["city"][0, k] == R.RUINS
    assert city(states, 0) == ["ruins"]
    assert resources(states, 0) == (2, 1, 1, 0)  # the Chapel's printed cost
    assert hand(states, 0) == {"lookout": 1, "crane": 1}
    assert discard_pile(states) == ["chapel"]


def test_ruins_needs_another_construction_and_works_in_a_full_city():
    states = new_position()
    build(states, 0, "wife")
    give(states, 0, "ruins", "farm")
    set_resources(states, 0, 2, 1, 0, 0)
    assert play_hand("ruins") not in legal(states)  # no Construction to replace

    states = new_position()
    fill_city(states, 0, 15)
    give(states, 0, "ruins", "farm")
    set_resources(states, 0, 2, 1, 0, 0)
    assert play_hand("farm") not in legal(states)  # EVD-P4
    do(states, play_hand("ruins"))
    assert pending(states) == (R.PK_RUINS, 0)
    do(states, city_card(slot_of(states, 0, "mine")))
    assert len(city(states, 0)) == 15 and "ruins" in city(states, 0)
    assert resources(states, 0) == (3, 2, 1, 0)  # plus the Mine's 1 twig, 1 resin, 1 pebble


def test_shepherd_pays_its_berries_to_an_opponent_and_takes_chapel_tokens():
    states = new_position()
    chapel = build(states, 0, "chapel")
    states[0]["city_tokens"][0, chapel] = 2
    give(states, 0, "shepherd")
    set_resources(states, 0, berry=3)
    do(states, play_hand("shepherd"))
    assert pending(states) == (R.PK_PAY, 0)  # berries or the Chapel's occupied token
    do(states, pay(R.PAY_NORMAL))
    assert resources(states, 1) == (0, 0, 0, 3)  # the cost went to the opponent
    assert resources(states, 0) == (0, 0, 0, 3)  # +3 berries
    assert tokens(states, 0) == 2  # 1 per token on the Chapel


def test_shepherd_played_free_gives_the_opponent_nothing():
    states = new_position()
    build(states, 0, "chapel")
    give(states, 0, "shepherd")
    do(states, play_hand("shepherd"))  # only the Chapel's occupied token pays
    assert resources(states, 1) == (0, 0, 0, 0)
    assert resources(states, 0) == (0, 0, 0, 3)
    assert tokens(states, 0) == 0


def test_undertaker_discards_three_meadow_cards_then_takes_one():
    """EVD-D3: the Meadow refills after the three discards and again after the take."""
    meadow_keys = ("farm", "mine", "inn", "lookout", "crane", "wife", "husband", "chapel")
    states = new_position(meadow=meadow_keys)
    stack(states, "post_office", "dungeon", "fairgrounds", "courthouse")
    give(states, 0, "undertaker")
    set_resources(states, 0, berry=2)
    do(states, play_hand("undertaker"))
    assert pending(states) == (R.PK_MEADOW, 0)
    do(states, meadow(0), meadow(1), meadow(2))
    assert sorted(discard_pile(states)) == ["farm", "inn", "mine"]
    # The Meadow refills before the take: the new cards can be taken.
    assert meadow_cards(states)[:3] == ["post_office", "dungeon", "fairgrounds"]
    assert pending(states) == (R.PK_MEADOW, 0)
    do(states, meadow(1))
    assert hand(states, 0) == {"dungeon": 1}
    assert meadow_cards(states)[1] == "courthouse"  # refilled again


def test_wanderer_draws_three_and_needs_no_space():
    states = new_position()
    fill_city(states, 0, 15)
    give(states, 0, "wanderer")
    set_resources(states, 0, berry=2)
    stack(states, "lookout", "crane", "wife")
    do(states, play_hand("wanderer"))
    assert "wanderer" in city(states, 0)
    assert spaces_used(states, 0) == 15
    assert hand(states, 0) == {"lookout": 1, "crane": 1, "wife": 1}


# ==== Destinations (EVD-W4) ===================================================================


def test_cemetery_reveals_four_from_the_deck_and_plays_one_free():
    states = new_position()
    k = build(states, 0, "cemetery")
    stack(states, "king", "lookout", "farm", "mine")
    to_discard(states, "inn")
    do(states, place_city(k))
    assert pending(states) == (R.PK_PILE, 0)
    assert legal(states) == {number(0), number(1)}  # deck or discard pile
    do(states, number(0))
    shown = revealed(states)
    assert sorted(shown) == ["farm", "king", "lookout", "mine"]
    do(states, reveal(shown.index("king")))  # any value: the Cemetery has no limit
    assert city(states, 0) == ["cemetery", "king"]
    assert resources(states, 0) == (0, 0, 0, 0)  # free
    assert sorted(discard_pile(states)) == ["farm", "inn", "lookout", "mine"]
    assert states[0]["wperm"][0, 0] == 1


def test_cemetery_reveals_from_the_discard_pile():
    states = new_position()
    k = build(states, 0, "cemetery")
    to_discard(states, "farm", "mine", "lookout", "inn", "crane")
    do(states, place_city(k), number(1))
    shown = revealed(states)
    assert sorted(shown) == ["crane", "inn", "lookout", "mine"]  # the top 4
    do(states, reveal(shown.index("inn")))
    assert city(states, 0) == ["cemetery", "inn"]
    assert sorted(discard_pile(states)) == ["crane", "farm", "lookout", "mine"]


def test_cemetery_worker_is_permanent():
    """Never recalled at Prepare for Season (EVD-F1 recalls the others)."""
    states = new_position()
    k = build(states, 0, "cemetery")
    stack(states, "lookout", "farm", "mine", "crane")
    do(states, place_city(k))  # the discard pile is empty: the deck it is
    do(states, reveal(revealed(states).index("lookout")))
    turn(states, 0)
    place_worker(states, 0, loc_code("basic_3_twig"))
    do(states, PREPARE)
    s = states[0]
    assert s["workers"][0] == 3
    assert s["wloc"][0, 0] == city_code(0, k)  # still on the Cemetery
    assert (s["wloc"][0, 1:3] == R.W_FREE).all()


def test_cemetery_second_spot_needs_an_undertaker():
    states = new_position()
    k = build(states, 0, "cemetery")
    place_worker(states, 0, city_code(0, k), permanent=True)
    assert place_city(k) not in legal(states)
    build(states, 0, "undertaker")
    assert place_city(k) in legal(states)


def test_chapel_adds_a_token_then_draws_two_per_token():
    states = new_position()
    k = build(states, 0, "chapel")
    do(states, place_city(k))
    assert states[0]["city_tokens"][0, k] == 1
    assert hand_size(states, 0) == 2

    states = new_position()
    k = build(states, 0, "chapel")
    states[0]["city_tokens"][0, k] = 2
    do(states, place_city(k))
    assert states[0]["city_tokens"][0, k] == 3
    assert hand_size(states, 0) == 6
    assert score(states, 0) == VALUE["chapel"] + 3  # tokens on the Chapel score


def test_inn_plays_a_meadow_card_three_resources_cheaper():
    states = new_position()
    set_meadow(states, 0, "lookout")  # costs 1 twig, 1 resin, 1 pebble
    k = build(states, 0, "inn")
    stack(states, "crane")
    do(states, place_city(k))  # the Lookout is the only card affordable at 3 less
    assert city(states, 0) == ["inn", "lookout"]
    assert resources(states, 0) == (0, 0, 0, 0)
    assert tokens(states, 0) == 0  # no token for visiting one's own Inn
    assert meadow_cards(states)[0] == "crane"  # EVD-D3


def test_inn_discount_is_three_resources_of_choice():
    states = new_position()
    set_meadow(states, 0, "chapel")  # costs 2 twigs, 1 resin, 1 pebble
    k = build(states, 0, "inn")
    set_resources(states, 0, twig=1, berry=1)
    do(states, place_city(k), meadow(0))
    assert pending(states) == (R.PK_REDUCE, 0)
    assert legal(states) == {resource("twig"), resource("resin"), resource("pebble")}
    do(states, resource("resin"), resource("pebble"))  # then one twig off
    assert city(states, 0) == ["inn", "chapel"]
    assert resources(states, 0) == (0, 0, 0, 1)  # paid the last twig


def test_opponents_open_inn_gives_its_owner_a_point_token():
    """EVD-W4: an open Destination of an opponent; its owner takes 1 point token."""
    states = new_position()
    set_meadow(states, 0, "lookout")
    k = build(states, 1, "inn")
    do(states, place_city(k, rel=1))
    assert city(states, 0) == ["lookout"]  # into the visitor's own city
    assert tokens(states, 1) == 1 and tokens(states, 0) == 0


def test_lookout_copies_a_basic_location_occupied_by_an_opponent():
    states = new_position()
    k = build(states, 0, "lookout")
    place_worker(states, 1, loc_code("basic_3_twig"))
    assert place_basic("basic_3_twig") not in legal(states)  # exclusive and taken
    do(states, place_city(k))
    assert pending(states) == (R.PK_LOCATION, 0)
    do(states, place_basic("basic_3_twig"))
    assert resources(states, 0) == (3, 0, 0, 0)


def test_lookout_copies_an_occupied_forest_location():
    states = new_position()
    k = build(states, 0, "lookout")
    place_worker(states, 1, loc_code("forest_3_berry"))
    assert place_forest(0) not in legal(states)
    do(states, place_city(k), place_forest(0))
    assert resources(states, 0) == (0, 0, 0, 3)


def test_monastery_gives_two_resources_for_four_points_and_keeps_the_worker():
    states = new_position()
    k = build(states, 0, "monastery")
    set_resources(states, 0, twig=1, berry=2)
    do(states, place_city(k))
    assert pending(states) == (R.PK_GIVE_RESOURCE, 0)
    assert DONE not in legal(states)  # exactly 2
    do(states, resource("berry"), resource("twig"))
    assert resources(states, 0) == (0, 0, 0, 1)
    assert resources(states, 1) == (1, 0, 0, 1)
    assert tokens(states, 0) == 4
    turn(states, 0)
    place_worker(states, 0, loc_code("basic_3_twig"))
    do(states, PREPARE)
    assert states[0]["wloc"][0, 0] == city_code(0, k)  # permanent


def test_monastery_second_spot_needs_a_monk():
    states = new_position()
    k = build(states, 0, "monastery")
    set_resources(states, 0, berry=2)
    place_worker(states, 0, city_code(0, k), permanent=True)
    assert place_city(k) not in legal(states)
    build(states, 0, "monk")
    assert place_city(k) in legal(states)


def test_post_office_gives_two_cards_discards_then_draws_to_eight():
    states = new_position()
    k = build(states, 0, "post_office")
    give(states, 0, "farm", "mine", "wife", "king")
    do(states, place_city(k))
    assert pending(states) == (R.PK_GIVE_CARD, 0)
    do(states, card("farm"), card("mine"))  # one opponent: chosen at once
    assert hand(states, 1) == {"farm": 1, "mine": 1}
    assert pending(states) == (R.PK_DISCARD, 0)
    do(states, card("wife"), DONE)
    assert discard_pile(states) == ["wife"]
    assert hand_size(states, 0) == 8 and hand(states, 0)["king"] == 1


def test_opponents_post_office_gives_its_owner_a_token():
    """EVD-W4."""
    states = new_position()
    k = build(states, 1, "post_office")
    give(states, 0, "farm", "mine")
    do(states, place_city(k, rel=1), card("farm"))
    assert tokens(states, 1) == 1
    assert hand(states, 1) == {"farm": 1, "mine": 1}
    assert hand_size(states, 0) == 8


def test_queen_plays_a_card_worth_three_or_less_free_from_hand_or_meadow():
    states = new_position()
    set_meadow(states, 7, "fairgrounds")  # worth 3
    k = build(states, 0, "queen")
    give(states, 0, "lookout", "king")  # worth 2 and 4
    do(states, place_city(k))
    assert pending(states) == (R.PK_HAND_OR_MEADOW, 0)
    # Not the King, nor the Meadow's King/Queen/Doctor/Castle/Palace/Ever Tree (4+).
    assert legal(states) == {card("lookout"), meadow(7)}
    do(states, card("lookout"))
    assert city(states, 0) == ["queen", "lookout"]
    assert resources(states, 0) == (0, 0, 0, 0)
    assert hand(states, 0) == {"king": 1}


def test_university_removes_a_card_regains_its_cost_plus_a_resource_and_a_point():
    states = new_position()
    k, mine = build(states, 0, "university", "mine")
    do(states, place_city(k))  # the Mine is the only other card
    assert pending(states) == (R.PK_GAIN, 0)
    do(states, resource("berry"))
    assert city(states, 0) == ["university"]
    assert discard_pile(states) == ["mine"]
    assert resources(states, 0) == (1, 1, 1, 1)
    assert tokens(states, 0) == 1


def test_university_moves_a_permanent_worker_onto_itself():
    """subtleties §7 (RB): a permanent worker on a removed card stays, on the University."""
    states = new_position()
    k, cemetery, _ = build(states, 0, "university", "cemetery", "mine")
    w = place_worker(states, 0, city_code(0, cemetery), permanent=True)
    do(states, place_city(k), city_card(cemetery), resource("twig"))
    assert city(states, 0) == ["university", "mine"]
    s = states[0]
    assert s["wloc"][0, w] == city_code(0, k) and s["wperm"][0, w] == 1
    turn(states, 0)
    do(states, PREPARE)
    assert s["wloc"][0, w] == city_code(0, k)  # still there after the recall
    assert s["wloc"][0, 1 - w] == R.W_FREE


# ==== Governance ==============================================================================


def test_clock_tower_gets_three_tokens_and_reuses_a_location_before_the_recall():
    """Reuse happens inside Prepare for Season (EVD-F1), before the workers come back."""
    states = new_position()
    give(states, 0, "clock_tower")
    set_resources(states, 0, twig=3, pebble=1)
    do(states, play_hand("clock_tower"))
    k = slot_of(states, 0, "clock_tower")
    assert states[0]["city_tokens"][0, k] == 3
    assert score(states, 0) == 3  # worth 0; the tokens score
    turn(states, 0)
    place_worker(states, 0, loc_code("basic_3_twig"))
    place_worker(states, 0, loc_code("basic_1_pebble"))
    do(states, PREPARE)
    assert pending(states) == (R.PK_LOCATION, 0)
    # Only locations where the player still has a worker, or no use at all.
    assert legal(states) == {place_basic("basic_3_twig"), place_basic("basic_1_pebble"), DONE}
    do(states, place_basic("basic_3_twig"))
    assert resources(states, 0) == (3, 0, 0, 0)
    assert states[0]["city_tokens"][0, k] == 2
    assert states[0]["season"][0] == R.SPRING
    assert score(states, 0) == 2


def test_courthouse_gives_a_resource_after_a_later_construction():
    states = new_position()
    build(states, 0, "courthouse")
    give(states, 0, "lookout", "wife")
    set_resources(states, 0, 1, 1, 1, 2)
    do(states, play_hand("lookout"))
    assert pending(states) == (R.PK_COURTHOUSE, 0)
    assert legal(states) == {resource("twig"), resource("resin"), resource("pebble")}
    do(states, resource("resin"))
    assert resources(states, 0) == (0, 1, 0, 2)
    turn(states, 0)
    do(states, play_hand("wife"))  # a critter: nothing
    assert pending(states) == (R.PK_TURN, 1)
    assert resources(states, 0) == (0, 1, 0, 0)


def test_courthouse_gives_nothing_for_itself():
    states = new_position()
    give(states, 0, "courthouse")
    set_resources(states, 0, 1, 1, 2, 0)
    do(states, play_hand("courthouse"))
    assert pending(states) == (R.PK_TURN, 1)
    assert resources(states, 0) == (0, 0, 0, 0)


def test_historian_draws_after_each_later_critter_or_construction():
    states = new_position()
    build(states, 0, "historian")
    give(states, 0, "lookout", "wife")
    stack(states, "crane", "inn")
    set_resources(states, 0, 1, 1, 1, 2)
    do(states, play_hand("lookout"))
    assert hand(states, 0) == {"wife": 1, "crane": 1}
    turn(states, 0)
    do(states, play_hand("wife"))
    assert hand(states, 0) == {"crane": 1, "inn": 1}


def test_historian_does_not_draw_for_itself():
    states = new_position()
    give(states, 0, "historian")
    set_resources(states, 0, berry=2)
    do(states, play_hand("historian"))
    assert hand_size(states, 0) == 0


def test_shopkeeper_gives_a_berry_after_each_later_critter():
    states = new_position()
    build(states, 0, "shopkeeper")
    give(states, 0, "wife", "lookout")
    set_resources(states, 0, 1, 1, 1, 2)
    do(states, play_hand("wife"))
    assert resources(states, 0) == (1, 1, 1, 1)
    turn(states, 0)
    do(states, play_hand("lookout"))  # a construction: nothing
    assert resources(states, 0) == (0, 0, 0, 1)


def test_shopkeeper_gives_nothing_for_itself():
    states = new_position()
    give(states, 0, "shopkeeper")
    set_resources(states, 0, berry=2)
    do(states, play_hand("shopkeeper"))
    assert resources(states, 0) == (0, 0, 0, 0)


# ==== Card-playing abilities (payment, subtleties §5-6) =======================================


def test_occupied_token_plays_the_paired_critter_free_once_per_construction():
    """EVD-P3."""
    states = new_position()
    farm = build(states, 0, "farm")
    give(states, 0, "husband", "husband")
    do(states, play_hand("husband"))  # no berries: the Farm's token is the only way
    assert states[0]["city_occupied"][0, farm] == 1
    assert city(states, 0) == ["farm", "husband"]
    turn(states, 0)
    assert play_hand("husband") not in legal(states)  # the token is used
    build(states, 0, "farm")
    assert play_hand("husband") in legal(states)  # a second Farm has its own


def test_ever_tree_token_plays_any_critter_free_once():
    """EVD-P3 / subtleties §5: the Ever Tree's token admits any Critter."""
    states = new_position()
    tree = build(states, 0, "ever_tree")
    give(states, 0, "king", "wife")
    do(states, play_hand("king"))
    assert states[0]["city_occupied"][0, tree] == 1
    assert "king" in city(states, 0)
    turn(states, 0)
    assert play_hand("wife") not in legal(states)


def test_crane_takes_three_resources_off_a_construction_and_is_discarded():
    states = new_position()
    build(states, 0, "crane")
    give(states, 0, "chapel")
    set_resources(states, 0, twig=1)
    do(states, play_hand("chapel"))  # the Crane is the only way to pay
    assert pending(states) == (R.PK_REDUCE, 0)
    do(states, resource("resin"), resource("pebble"))  # then the second twig
    assert city(states, 0) == ["chapel"]
    assert discard_pile(states) == ["crane"]
    assert resources(states, 0) == (0, 0, 0, 0)


def test_crane_is_for_constructions_only():
    states = new_position()
    build(states, 0, "crane")
    give(states, 0, "wife")
    set_resources(states, 0, berry=1)
    assert play_hand("wife") not in legal(states)


def test_innkeeper_takes_three_berries_off_a_critter_and_is_discarded():
    states = new_position()
    build(states, 0, "innkeeper")
    give(states, 0, "king", "lookout")
    set_resources(states, 0, berry=3)
    assert play_hand("lookout") not in legal(states)  # critters only
    do(states, play_hand("king"))
    assert city(states, 0) == ["king"]
    assert discard_pile(states) == ["innkeeper"]
    assert resources(states, 0) == (0, 0, 0, 0)


def test_judge_swaps_one_resource_of_the_cost():
    states = new_position()
    build(states, 0, "judge")
    give(states, 0, "lookout")
    set_resources(states, 0, twig=1, resin=1, berry=1)
    do(states, play_hand("lookout"))  # a berry for the missing pebble
    assert city(states, 0) == ["judge", "lookout"]  # the Judge stays
    assert resources(states, 0) == (0, 0, 0, 0)


def test_judge_swaps_only_one_resource():
    states = new_position()
    build(states, 0, "judge")
    give(states, 0, "lookout")
    set_resources(states, 0, twig=1, berry=2)
    assert play_hand("lookout") not in legal(states)


def test_dungeon_jails_a_critter_for_three_resources_off():
    states = new_position()
    dungeon, wife = build(states, 0, "dungeon", "wife")
    give(states, 0, "lookout")
    do(states, play_hand("lookout"))  # the Dungeon pays; the Wife is the only prisoner
    assert city(states, 0) == ["dungeon", "lookout"]
    assert states[0]["city_jail"][0, dungeon, 0] == R.WIFE
    assert resources(states, 0) == (0, 0, 0, 0)
    # The prisoner is out of the city: no points for it.
    assert score(states, 0) == VALUE["dungeon"] + VALUE["lookout"]


def test_dungeon_second_cell_needs_a_ranger_who_cannot_fill_it():
    states = new_position()
    dungeon = build(states, 0, "dungeon")
    jail(states, 0, dungeon, "husband")
    build(states, 0, "wife")
    give(states, 0, "lookout")
    assert play_hand("lookout") not in legal(states)  # the one cell is full
    ranger, wife = build(states, 0, "ranger"), slot_of(states, 0, "wife")
    build(states, 0, "barge_toad")
    do(states, play_hand("lookout"))
    assert pending(states) == (R.PK_JAIL, 0)
    assert legal(states) == {
        city_card(wife),
        city_card(slot_of(states, 0, "barge_toad")),
    }  # not the Ranger
    do(states, city_card(wife))
    assert states[0]["city_jail"][0, dungeon, 1] == R.WIFE
    assert states[0]["city"][0, ranger] == R.RANGER


def test_dungeon_with_only_the_ranger_left_cannot_fill_the_second_cell():
    states = new_position()
    dungeon = build(states, 0, "dungeon")
    jail(states, 0, dungeon, "husband")
    build(states, 0, "ranger")
    give(states, 0, "lookout")
    assert play_hand("lookout") not in legal(states)


# ==== Placement rules =========================================================================


def test_unique_cards_once_per_city_common_cards_repeat():
    """EVD-P2."""
    states = new_position()
    build(states, 0, "historian", "farm")
    give(states, 0, "historian", "farm")
    set_resources(states, 0, 2, 1, 0, 2)
    assert play_hand("historian") not in legal(states)
    assert play_hand("farm") in legal(states)


def test_city_holds_fifteen_cards():
    """EVD-P4."""
    states = new_position()
    fill_city(states, 0, 14)
    give(states, 0, "farm", "lookout")
    set_resources(states, 0, 3, 2, 1, 0)
    do(states, play_hand("farm"))
    turn(states, 0)
    assert play_hand("lookout") not in legal(states)
    assert spaces_used(states, 0) == 15


def test_draws_stop_at_the_hand_limit():
    """EVD-D2: the hand limit is strict; the excess card is not drawn at all."""
    states = new_position()
    give(states, 0, "wanderer", "farm", "farm", "farm", "mine", "mine", "mine", "inn")
    set_resources(states, 0, berry=2)
    deck_before = int(states[0]["deck_n"])
    do(states, play_hand("wanderer"))
    assert hand_size(states, 0) == 8
    assert int(states[0]["deck_n"]) == deck_before - 1
    assert discard_pile(states) == []


def test_teacher_card_for_a_full_hand_is_discarded():
    """EVD-D2: a card given to an opponent whose hand is full is discarded."""
    states = new_position()
    give(states, 1, "farm", "farm", "farm", "mine", "mine", "mine", "inn", "inn")
    stack(states, "lookout", "crane")
    give(states, 0, "teacher")
    set_resources(states, 0, berry=2)
    do(states, play_hand("teacher"))
    do(states, reveal(revealed(states).index("lookout")))
    assert hand(states, 0) == {"lookout": 1}
    assert hand_size(states, 1) == 8
    assert discard_pile(states) == ["crane"]


# ==== Interactions named in subtleties.md =====================================================


def test_shopkeeper_pays_for_a_critter_played_by_any_route():
    """subtleties §6: Queen, occupied token … all trigger the bonus."""
    states = new_position()
    build(states, 0, "shopkeeper", "farm")
    queen = build(states, 0, "queen")
    give(states, 0, "wife", "husband")
    do(states, place_city(queen), card("wife"))  # the Queen plays the Wife free
    assert resources(states, 0) == (0, 0, 0, 1)
    turn(states, 0)
    do(states, play_hand("husband"))  # free with the Farm's occupied token
    assert resources(states, 0) == (0, 0, 0, 2)


def test_shopkeeper_pays_nothing_for_a_fool_sent_to_an_opponent():
    """Shopkeeper: a Critter played *into your city*; the Fool goes elsewhere (subtleties §4)."""
    states = new_position()
    build(states, 0, "shopkeeper")
    give(states, 0, "fool")
    set_resources(states, 0, berry=3)
    do(states, play_hand("fool"))
    assert city(states, 1) == ["fool"]
    assert resources(states, 0) == (0, 0, 0, 0)


def test_fool_bonuses_option_pays_shopkeeper_and_historian_for_a_fool():
    """Option fool_bonuses (the other published reading): the Fool is still a Critter its
    player played, so Shopkeeper gives a berry and Historian a card; by default neither."""
    for options, berries, cards in ((0, 0, 0), (R.OPTION_FOOL_BONUSES, 1, 1)):
        states = new_position(options=options)
        build(states, 0, "shopkeeper", "historian")
        give(states, 0, "fool")
        set_resources(states, 0, berry=3)
        do(states, play_hand("fool"))
        assert city(states, 1) == ["fool"]
        assert resources(states, 0) == (0, 0, 0, berries)
        assert int(states[0]["hand_n"][0]) == cards


def test_historian_draws_for_the_pigeon_and_for_the_card_it_plays():
    states = new_position()
    build(states, 0, "historian")
    stack(states, "crane", "lookout", "king", "inn")
    give(states, 0, "postal_pigeon")
    set_resources(states, 0, berry=2)
    do(states, play_hand("postal_pigeon"))
    # The Pigeon's own draw came first (the Crane); Lookout and King are revealed after it.
    assert hand(states, 0) == {"crane": 1}
    do(states, reveal(revealed(states).index("lookout")))
    assert hand(states, 0) == {"crane": 1, "inn": 1}


def test_courthouse_pays_for_ruins():
    """Ruins is a Construction (subtleties §9)."""
    states = new_position()
    build(states, 0, "courthouse", "mine")
    give(states, 0, "ruins")
    do(states, play_hand("ruins"))
    assert pending(states) == (R.PK_RUINS, 0)
    do(states, city_card(slot_of(states, 0, "mine")))
    assert pending(states) == (R.PK_COURTHOUSE, 0)
    do(states, resource("twig"))
    assert resources(states, 0) == (2, 1, 1, 0)  # the Mine's cost and the Courthouse twig


@pytest.mark.parametrize(
    ("helper", "key", "funds"),
    [
        ("crane", "lookout", (0, 0, 0, 0)),
        ("innkeeper", "wife", (0, 0, 0, 0)),
    ],
)
def test_a_discount_card_that_leaves_frees_its_space(helper, key, funds):
    """subtleties §3: Crane / Innkeeper leave during the play, so a full city takes the card."""
    states = new_position()
    fill_city(states, 0, 14)
    build(states, 0, helper)
    give(states, 0, key)
    set_resources(states, 0, *funds)
    do(states, play_hand(key))
    assert key in city(states, 0) and helper not in city(states, 0)
    assert spaces_used(states, 0) == 15


def test_dungeon_prisoner_frees_its_space_in_a_full_city():
    states = new_position()
    fill_city(states, 0, 13)
    build(states, 0, "dungeon", "wife")
    give(states, 0, "lookout")
    do(states, play_hand("lookout"))
    assert "lookout" in city(states, 0) and "wife" not in city(states, 0)
    assert spaces_used(states, 0) == 15


def test_passed_opponent_receives_nothing():
    """EVD-E1: a Teacher card for an opponent who passed is discarded."""
    states = new_position()
    states[0]["passed"][1] = 1
    give(states, 0, "teacher")
    set_resources(states, 0, berry=5)
    stack(states, "lookout", "crane")
    do(states, play_hand("teacher"))
    do(states, reveal(revealed(states).index("crane")))
    assert hand(states, 0) == {"crane": 1}
    assert hand_size(states, 1) == 0
    assert discard_pile(states) == ["lookout"]


def test_fool_goes_into_a_passed_opponents_city():
    """EVD-E1: a passed player receives nothing into the hand, but a Fool may still
    be played into their city when it has room and no Fool."""
    states = new_position()
    states[0]["passed"][1] = 1
    give(states, 0, "fool")
    set_resources(states, 0, berry=3)
    turn(states, 0)
    do(states, play_hand("fool"))  # the only opponent is chosen at once
    assert city(states, 1) == ["fool"] and score(states, 1) == -2


def test_fool_with_three_players_offers_the_passed_opponent():
    """EVD-E1: both opponents are Fool targets, the one who passed included."""
    states = new_position(num_players=3)
    states[0]["passed"][2] = 1
    give(states, 0, "fool")
    set_resources(states, 0, berry=3)
    turn(states, 0)
    do(states, play_hand("fool"))
    assert pending(states) == (R.PK_FOOL_TARGET, 0)
    assert legal(states) == {player(1), player(2)}
    do(states, player(2))
    assert city(states, 2) == ["fool"] and city(states, 1) == []


def test_clock_tower_cannot_reuse_haven_or_a_destination():
    states = new_position()
    tower, chapel = build(states, 0, "clock_tower", "chapel")
    states[0]["city_tokens"][0, tower] = 3
    place_worker(states, 0, loc_code("haven"))
    place_worker(states, 0, city_code(0, chapel))
    do(states, PREPARE)
    assert states[0]["season"][0] == R.SPRING  # nothing to reuse: no question asked
    assert states[0]["city_tokens"][0, tower] == 3


def test_chapel_draw_stops_at_the_hand_limit():
    """EVD-D2."""
    states = new_position()
    k = build(states, 0, "chapel")
    give(states, 0, "farm", "farm", "farm", "mine", "mine", "mine", "inn")
    deck_before = int(states[0]["deck_n"])
    do(states, place_city(k))
    assert hand_size(states, 0) == 8
    assert int(states[0]["deck_n"]) == deck_before - 1


def test_cemetery_only_offers_cards_that_can_enter_the_city():
    states = new_position()
    k = build(states, 0, "cemetery", "historian")[0]
    stack(states, "historian", "lookout", "king", "mine")
    do(states, place_city(k))
    shown = revealed(states)
    assert legal(states) == {reveal(i) for i, c in enumerate(shown) if c != "historian"}


def test_postal_pigeon_can_send_a_fool_to_an_opponent():
    """subtleties §4: the Fool's printed value (-2) is 'up to 3'."""
    states = new_position()
    set_meadow(states, 3, "crane")  # frees a Castle for the deck
    stack(states, "fool", "castle")
    give(states, 0, "postal_pigeon")
    set_resources(states, 0, berry=2)
    do(states, play_hand("postal_pigeon"))
    do(states, reveal(revealed(states).index("fool")))
    assert city(states, 1) == ["fool"]
    assert city(states, 0) == ["postal_pigeon"]
