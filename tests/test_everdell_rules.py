"""Rule-by-rule tests of the Everdell kernel (envs/everdell/rules.py).

Every rule ID of the rules checklist (EVD-S1…S7, T1, W1…W7, P1…P5, D1…D4, F1…F5, E1…E4) is
named by at least one test that fails when the rule is broken; then one scenario per event
(4 basic, 16 special), per location (8 basic spaces, 11 forest cards, Haven, the 4 Journey
spaces, the 4-player second forest spot) and per solo (Rugwort) rule. Positions are built by
editing the record (tests/everdell_rule_helpers.py); the kernel is then driven only through
``legal_mask_into`` and ``apply_action``. Expected values come from the rule book, the printed
cards and the solo rules, restated here, not from running the code.
"""

import numpy as np
import pytest
from everdell_rule_helpers import (
    AUTUMN,
    BERRY,
    CARD,
    DEFAULT_MEADOW,
    DONE,
    EVENT,
    EXAMPLE_CITY,
    EXAMPLE_EVENTS,
    HAVEN,
    LOC,
    PASS,
    PEBBLE,
    PREPARE,
    RESIN,
    SPRING,
    SUMMER,
    TWIG,
    WINTER,
    act,
    blank,
    build,
    card,
    card_total,
    choose_first,
    city,
    city_code,
    city_of,
    d8_roll,
    deck_top,
    deploy,
    event_points,
    example_city,
    example_city_snapshot,
    free_workers,
    give,
    hand_of,
    legal,
    meadow,
    meadow_of,
    new_game,
    number,
    pay,
    pending,
    place_basic,
    place_city,
    place_event,
    place_forest,
    place_journey,
    play_hand,
    play_meadow,
    resource,
    resources,
    revealed,
    score,
    set_resources,
    slot_of,
    stack,
    turn_to,
)

import meeple_gym as mg
from meeple_gym.core.errors import OptionError
from meeple_gym.everdell import data as D
from meeple_gym.everdell import rules as R

DEFAULT_FOREST_0 = "forest_3_berry"  # forest position 0 of blank()
BASIC_KEYS = tuple(D.LOCATION_KEYS[i] for i in D.BASIC_LOCATIONS)
FOREST_KEYS = tuple(D.LOCATION_KEYS[i] for i in D.FOREST_LOCATIONS)
SPECIAL_KEYS = tuple(D.EVENT_KEYS[i] for i in D.SPECIAL_EVENTS)
# Copies of each card in the 128-card deck, restated from the card list (EVD-S4).
COPIES = {
    "architect": 2, "bard": 2, "barge_toad": 3, "castle": 2, "cemetery": 2, "chapel": 2,
    "chip_sweep": 3, "clock_tower": 3, "courthouse": 2, "crane": 3, "doctor": 2, "dungeon": 2,
    "ever_tree": 2, "fairgrounds": 3, "farm": 8, "fool": 2, "general_store": 3,
    "historian": 3, "husband": 4, "inn": 3, "innkeeper": 3, "judge": 2, "king": 2,
    "lookout": 2, "mine": 3, "miner_mole": 3, "monastery": 2, "monk": 2, "palace": 2,
    "peddler": 3, "post_office": 3, "postal_pigeon": 3, "queen": 2, "ranger": 2,
    "resin_refinery": 3, "ruins": 3, "school": 2, "shepherd": 2, "shopkeeper": 3,
    "storehouse": 3, "teacher": 3, "theater": 2, "twig_barge": 3, "undertaker": 2,
    "university": 2, "wanderer": 3, "wife": 4, "woodcarver": 3,
}  # fmt: skip


def state(states):
    return states[0]


# ---- setup (EVD-S1…S7) ----------------------------------------------------------------------


def test_evd_s1_resources_and_point_tokens_are_unlimited():
    """EVD-S1: gains never run out, even past the box's 30 berries or 20 one-point tokens."""
    states = blank(2)
    set_resources(states, 0, berry=40)
    state(states)["tokens"][0] = 40
    act(states, place_forest(0))  # 3 berries
    assert resources(states, 0)[BERRY] == 43
    turn_to(states, 0)
    act(states, place_basic("basic_2_card_1_point"))
    assert int(state(states)["tokens"][0]) == 41


@pytest.mark.parametrize("num_players, dealt", [(1, 3), (2, 3), (3, 4), (4, 4)])
def test_evd_s2_forest_cards_dealt_by_player_count(num_players, dealt):
    """EVD-S2: 3 forest cards with 2 players (and solo, which uses the 2-player setup), 4 with
    3-4; distinct, dealt at random, the rest out of the game."""
    seen = set()
    for seed in range(40):
        forest = [int(x) for x in new_game(num_players, seed)[0]["forest"]]
        used = [x for x in forest if x >= 0]
        assert forest[len(used) :] == [-1] * (R.MAX_FOREST - len(used))
        assert len(used) == dealt and len(set(used)) == dealt
        assert all(D.LOCATION_KEYS[x] in FOREST_KEYS for x in used)
        seen.update(used)
    assert len(seen) == 11  # every forest card can come up


def test_evd_s3_four_basic_events_and_four_dealt_special_events():
    """EVD-S3: all 4 basic events in every game; 4 distinct special events dealt at random;
    an undealt special event has no placement at all."""
    seen = set()
    for seed in range(40):
        s = new_game(2, seed)[0]
        specials = [D.EVENT_KEYS[int(e)] for e in s["specials"]]
        assert len(set(specials)) == 4 and set(specials) <= set(SPECIAL_KEYS)
        assert (s["event_owner"] == -1).all()
        seen.update(specials)
    assert seen == set(SPECIAL_KEYS)
    # Basic events are there whatever was dealt: Grand Tour is claimable with 3 Destinations.
    states = blank(
        2, specials=("tax_relief", "croak_wart_cure", "a_wee_run_city", "the_everdell_games")
    )
    build(states, 0, "inn", "inn", "inn")
    # Inn + Bard meet Performer in Residence, which was not dealt: it cannot be claimed.
    build(states, 0, "bard")
    turn_to(states, 0)
    assert place_event(states, "grand_tour") in legal(states)
    event_actions = {a for a in legal(states) if R.A_PLACE_EVENT <= a < R.A_PLACE_CITY}
    assert event_actions == {place_event(states, "grand_tour")}


def test_evd_s4_shuffled_128_card_deck_and_8_card_meadow():
    """EVD-S4: the 128 cards are shuffled; 8 go face up to the Meadow."""
    orders = set()
    for seed in range(5):
        states = new_game(2, seed)
        s = states[0]
        assert (s["meadow"] >= 0).all()
        assert card_total(states) == 128 == sum(COPIES.values())
        counts = np.zeros(len(D.CARD_KEYS), int)
        for t in s["deck"][: s["deck_n"]]:
            counts[t] += 1
        for t in s["meadow"]:
            counts[t] += 1
        counts += s["hand"].sum(axis=0)
        assert {D.CARD_KEYS[t]: int(n) for t, n in enumerate(counts)} == COPIES
        orders.add(tuple(int(x) for x in s["deck"][: s["deck_n"]]))
    assert len(orders) == 5


@pytest.mark.parametrize("num_players", [1, 2, 3, 4])
def test_evd_s5_two_workers_each_and_four_more_over_the_seasons(num_players):
    """EVD-S5: 2 workers each at the start; 1 more in spring, 1 in summer, 2 in autumn."""
    s = new_game(num_players, 3)[0]
    assert [int(x) for x in s["workers"][:num_players]] == [2] * num_players
    assert (s["wloc"] == R.W_FREE).all()
    states = blank(num_players)
    owned = [2]
    for _season in (SPRING, SUMMER, AUTUMN):
        deploy(states, 0)
        turn_to(states, 0)
        act(states, PREPARE)
        choose_first(states, R.PK_MEADOW)  # summer: take Meadow cards
        owned.append(int(states[0]["workers"][0]))
    assert owned == [2, 3, 4, 6]  # (solo year 1 here; year 3 is tested with Rugwort)


@pytest.mark.parametrize("num_players", [1, 2, 3, 4])
def test_evd_s6_starting_hands_5_6_7_8_in_turn_order(num_players):
    """EVD-S6: the first player gets 5 cards, the next 6, then 7 and 8 (Rugwort none)."""
    for seed in range(8):
        s = new_game(num_players, seed)[0]
        first = int(s["first_player"])
        for i in range(num_players):
            p = (first + i) % num_players
            assert int(s["hand_n"][p]) == 5 + i == int(s["hand"][p].sum())
        assert int(s["hand"].sum()) == sum(5 + i for i in range(num_players))


def test_evd_s7_random_first_player_then_clockwise():
    """EVD-S7: the first player is random; turns then go clockwise (seat order)."""
    firsts = set()
    for seed in range(40):
        s = new_game(4, seed)[0]
        assert int(s["turn_player"]) == int(s["current_player"]) == int(s["first_player"])
        firsts.add(int(s["first_player"]))
    assert firsts == {0, 1, 2, 3}
    states = new_game(4, 5)
    first = int(states[0]["first_player"])
    order = []
    for _ in range(5):
        order.append(int(states[0]["current_player"]))
        act(states, place_basic("basic_1_berry"))  # shared: always open
    assert order == [(first + i) % 4 for i in range(5)]


# ---- a turn (EVD-T1) ------------------------------------------------------------------------


def test_evd_t1_one_action_per_turn_place_play_or_prepare():
    """EVD-T1: the turn offers only turn actions (place, play, prepare, pass) and exactly one
    is taken before the next player's turn."""
    states = blank(2)
    give(states, 0, "farm")
    set_resources(states, 0, twig=4, resin=2)
    turn_to(states, 0)
    offered = legal(states)
    assert offered and max(offered) <= R.A_PASS
    assert play_hand("farm") in offered and place_basic("basic_1_berry") in offered
    act(states, play_hand("farm"))
    assert pending(states) == (R.PK_TURN, 1)
    turn_to(states, 0)
    act(states, place_basic("basic_1_berry"))
    assert pending(states) == (R.PK_TURN, 1)
    # Prepare for season is a whole turn too.
    states = blank(2)
    deploy(states, 0)
    turn_to(states, 0)
    act(states, PREPARE)
    assert pending(states) == (R.PK_TURN, 1)


# ---- placing workers (EVD-W1…W7) ------------------------------------------------------------


@pytest.mark.parametrize("num_players", [2, 3])
def test_evd_w1_forest_card_holds_one_worker_below_4_players(num_players):
    """EVD-W1: the second forest spot is a 4-player spot; with fewer, one worker per card."""
    states = blank(num_players)
    deploy(states, 1, LOC[DEFAULT_FOREST_0], n=1)
    turn_to(states, 0)
    assert place_forest(0) not in legal(states)
    assert place_forest(1) in legal(states)


def test_evd_w1_four_players_second_forest_spot_but_never_two_own_workers():
    """EVD-W1: with 4 players a forest card takes a second worker of another player, never a
    third, and never a second worker of the same player."""
    states = blank(4)
    forest0 = LOC[DEFAULT_FOREST_0]
    deploy(states, 1, forest0, n=1)
    turn_to(states, 0)
    assert place_forest(0) in legal(states)
    act(states, place_forest(0))
    assert resources(states, 0)[BERRY] == 3
    turn_to(states, 0)
    assert place_forest(0) not in legal(states)  # p0 already there
    turn_to(states, 2)
    assert place_forest(0) not in legal(states)  # both spots taken
    # Own second worker is refused even with the second spot free.
    states = blank(4)
    deploy(states, 0, forest0, n=1)
    turn_to(states, 0)
    assert free_workers(states, 0) == 1
    assert place_forest(0) not in legal(states)
    turn_to(states, 3)
    assert place_forest(0) in legal(states)


EXCLUSIVE_BASIC = {"basic_3_twig", "basic_2_resin", "basic_1_pebble", "basic_1_berry_1_card"}


@pytest.mark.parametrize("key", BASIC_KEYS)
def test_evd_w2_exclusive_spaces_hold_one_worker_shared_any_number(key):
    """EVD-W2: an exclusive space takes one worker of any colour; a shared space takes any
    number, of any colours, including several of one player."""
    states = blank(2)
    deploy(states, 1, LOC[key], n=1)
    deploy(states, 0, LOC[key], n=1)
    turn_to(states, 0)
    if key in EXCLUSIVE_BASIC:
        assert place_basic(key) not in legal(states)
    else:
        assert place_basic(key) in legal(states)
        act(states, place_basic(key))
        on_it = [int(x) for x in state(states)["wloc"][0, :2]]
        assert on_it == [LOC[key], LOC[key]]


def test_evd_w3_gain_at_once_worker_stays_until_prepare():
    """EVD-W3: the space's resources come at once; the worker stays deployed over later turns
    and comes back only when its owner prepares for season."""
    states = blank(2)
    act(states, place_basic("basic_2_resin"))
    assert resources(states, 0) == (0, 2, 0, 0)
    code = LOC["basic_2_resin"]
    assert pending(states) == (R.PK_TURN, 1)
    assert place_basic("basic_2_resin") not in legal(states)  # still taken by seat 0
    act(states, place_basic("basic_1_berry"))
    assert int(state(states)["wloc"][0, 0]) == code
    act(states, place_basic("basic_1_berry"))  # seat 0's second worker
    assert int(state(states)["wloc"][0, 0]) == code
    turn_to(states, 0)
    act(states, PREPARE)
    assert [int(x) for x in state(states)["wloc"][0, :3]] == [R.W_FREE] * 3
    assert resources(states, 0) == (0, 2, 0, 1)  # nothing more from the recalled worker


def test_evd_w4_destinations_own_any_opponents_only_open_with_a_token():
    """EVD-W4: own Destinations are open to their owner; an opponent's only with the open
    icon (Inn, Post Office), and then the card's owner takes 1 point token."""
    states = blank(2)
    (own_lookout,) = build(states, 0, "lookout")
    their_lookout, their_inn = build(states, 1, "lookout", "inn")
    turn_to(states, 0)
    offered = legal(states)
    assert place_city(states, 0, 0, own_lookout) in offered
    assert place_city(states, 0, 1, their_lookout) not in offered
    assert place_city(states, 0, 1, their_inn) in offered
    act(states, place_city(states, 0, 1, their_inn))
    assert int(state(states)["tokens"][1]) == 1 and int(state(states)["tokens"][0]) == 0
    assert int(state(states)["wloc"][0, 0]) == city_code(1, their_inn)
    # The Inn's action: a Meadow card for 3 less (a Farm costs 2 twigs + 1 resin).
    assert pending(states) == (R.PK_MEADOW, 0)
    act(states, meadow(0))
    assert city_of(states, 0) == ["farm", "lookout"]
    # A visit to one's own Destination gives no token.
    turn_to(states, 0)
    act(states, place_city(states, 0, 0, own_lookout))
    choose_first(states, R.PK_LOCATION)
    assert int(state(states)["tokens"][0]) == 0


def test_evd_w5_events_need_requirements_one_achiever_and_no_city_space():
    """EVD-W5: a worker claims a basic event only when the city meets it; one achiever per
    event; the achieved event lies beside the city (the worker is on it)."""
    states = blank(2)
    build(states, 0, "inn", "post_office")
    build(states, 1, "inn", "post_office", "lookout")
    turn_to(states, 0)
    tour = place_event(states, "grand_tour")
    assert tour not in legal(states)
    build(states, 0, "lookout")
    turn_to(states, 0)
    assert tour in legal(states)
    act(states, tour)
    s = state(states)
    assert int(s["event_owner"][EVENT["grand_tour"]]) == 0
    assert int(s["wloc"][0, 0]) == R.W_EVENT + EVENT["grand_tour"]
    assert city_of(states, 0) == ["inn", "lookout", "post_office"]
    assert pending(states) == (R.PK_TURN, 1)
    assert tour not in legal(states)  # seat 1 meets it too, but it is taken


def test_evd_w6_haven_one_resource_per_two_discards_shared():
    """EVD-W6: Haven is shared without limit; discard any number, 1 resource of choice per 2
    cards (rounded down)."""
    states = blank(2)
    deploy(states, 1, LOC["haven"], n=2)
    deploy(states, 0, LOC["haven"], n=1)
    give(states, 0, "farm", "mine", "wife", "wife", "king")
    turn_to(states, 0)
    act(states, HAVEN)
    assert pending(states) == (R.PK_DISCARD, 0)
    for key in ("farm", "mine", "wife", "wife", "king"):
        act(states, card(key))
    assert pending(states) == (R.PK_GAIN, 0)
    act(states, resource(PEBBLE), resource(RESIN))
    assert resources(states, 0) == (0, 1, 1, 0)
    assert int(state(states)["hand_n"][0]) == 0 and int(state(states)["discard_n"]) == 5


def test_evd_w7_journey_autumn_only_discard_points_worker_scores():
    """EVD-W7: the Journey opens in autumn only; the N-point space needs N cards discarded;
    5/4/3 are exclusive, 2 is shared; the worker stays and scores N."""
    states = blank(2, season=SUMMER)
    give(states, 0, *["wife"] * 4, "king", "queen")
    turn_to(states, 0)
    journeys = {place_journey(n) for n in (5, 4, 3, 2)}
    assert not journeys & legal(states)
    states = blank(2, season=AUTUMN)
    give(states, 0, "farm", "farm", "mine", "wife")
    turn_to(states, 0)
    assert journeys & legal(states) == journeys - {place_journey(5)}  # only 4 cards
    act(states, place_journey(4))
    assert pending(states) == (R.PK_DISCARD, 0)
    act(states, card("farm"))
    assert DONE not in legal(states)  # exactly 4
    act(states, card("farm"), card("mine"))  # the last card then goes by itself
    s = state(states)
    assert int(s["hand_n"][0]) == 0 and int(s["wloc"][0, 0]) == LOC["journey_4"]
    assert score(states, 0) == 4
    turn_to(states, 1)
    give(states, 1, *["husband"] * 4, "king", "queen")
    turn_to(states, 1)
    assert place_journey(4) not in legal(states)
    assert place_journey(2) in legal(states)


# ---- playing cards (EVD-P1…P5) --------------------------------------------------------------


def test_evd_p1_pay_cost_play_from_hand_or_meadow():
    """EVD-P1: the cost goes to the supply; the card comes from hand or Meadow into the city."""
    states = blank(2)
    give(states, 0, "farm")
    turn_to(states, 0)
    assert play_hand("farm") not in legal(states)  # Farm: 2 twigs + 1 resin
    set_resources(states, 0, twig=2, resin=1)
    turn_to(states, 0)
    act(states, play_hand("farm"))
    assert city_of(states, 0) == ["farm"] and hand_of(states, 0) == {}
    assert resources(states, 0) == (0, 0, 0, 1)  # paid; the Farm then produced 1 berry
    turn_to(states, 0)
    set_resources(states, 0, twig=1, resin=1, pebble=1)
    turn_to(states, 0)
    assert meadow_of(states)[2] == "mine"  # Mine: 1 twig, 1 resin, 1 pebble
    act(states, play_meadow(2))
    assert city_of(states, 0) == ["farm", "mine"]
    assert resources(states, 0)[:3] == (0, 0, 1)  # paid, then it produced 1 pebble


def test_evd_p2_one_unique_card_per_city_common_repeat():
    """EVD-P2: a second copy of a Unique card (Lookout) is refused; Common cards (Farm)
    repeat."""
    states = blank(2)
    build(states, 0, "lookout", "farm")
    give(states, 0, "lookout", "farm")
    set_resources(states, 0, twig=5, resin=5, pebble=5)
    turn_to(states, 0)
    assert play_hand("lookout") not in legal(states)
    assert play_hand("farm") in legal(states)
    act(states, play_hand("farm"))
    assert city_of(states, 0) == ["farm", "farm", "lookout"]


def test_evd_p3_critter_free_on_its_unoccupied_construction_once():
    """EVD-P3: a Critter is free when its paired Construction is in the city and unoccupied;
    the Construction then carries an occupied token and cannot do it again."""
    states = blank(2)
    (farm,) = build(states, 0, "farm")
    give(states, 0, "husband", "wife")
    turn_to(states, 0)
    offered = legal(states)
    assert play_hand("husband") in offered and play_hand("wife") in offered  # no berries
    act(states, play_hand("husband"))
    s = state(states)
    assert int(s["city_occupied"][0, farm]) == 1
    assert "husband" in city_of(states, 0) and resources(states, 0) == (0, 0, 0, 0)
    turn_to(states, 0)
    assert play_hand("wife") not in legal(states)  # the Farm is occupied now
    # A second Farm admits one more.
    build(states, 0, "farm")
    turn_to(states, 0)
    assert play_hand("wife") in legal(states)


def test_evd_p3_paying_is_still_possible_with_the_free_option():
    """EVD-P3: the occupied token is an option, not a must: with berries both ways are open."""
    states = blank(2)
    (farm,) = build(states, 0, "farm")
    give(states, 0, "husband")
    set_resources(states, 0, berry=3)
    turn_to(states, 0)
    act(states, play_hand("husband"))
    assert pending(states) == (R.PK_PAY, 0)
    assert {pay(R.PAY_NORMAL), pay(R.PAY_TOKEN)} <= legal(states)
    act(states, pay(R.PAY_NORMAL))
    assert resources(states, 0)[BERRY] == 0
    assert int(state(states)["city_occupied"][0, farm]) == 0


def test_evd_p4_city_holds_15_cards_events_do_not_count():
    """EVD-P4: 15 cards fill the city: no further card fits (Wanderer takes no space), but
    events still can be claimed."""
    states = blank(
        2, meadow=("king", "queen", "castle", "palace", "school", "theater", "judge", "architect")
    )
    build(states, 0, "inn", "inn", "inn", *["farm"] * 7, "mine", "mine", "mine")
    build(states, 0, "twig_barge")  # 14 cards
    give(states, 0, "farm", "wanderer")
    set_resources(states, 0, twig=9, resin=9, pebble=9, berry=9)
    turn_to(states, 0)
    assert play_hand("farm") in legal(states)
    build(states, 0, "twig_barge")  # 15 cards
    turn_to(states, 0)
    offered = legal(states)
    assert play_hand("farm") not in offered
    assert not any(R.A_PLAY_MEADOW <= a < R.A_PREPARE for a in offered)
    assert play_hand("wanderer") in offered
    assert place_event(states, "grand_tour") in offered
    act(states, place_event(states, "grand_tour"))
    assert int(state(states)["event_owner"][EVENT["grand_tour"]]) == 0


def test_evd_p5_traveler_fires_once_when_played():
    """EVD-P5: a tan Traveler (Wanderer: draw 3) acts when played and never again."""
    states = blank(2)
    give(states, 0, "wanderer")
    set_resources(states, 0, berry=2)
    turn_to(states, 0)
    act(states, play_hand("wanderer"))
    assert int(state(states)["hand_n"][0]) == 3
    deploy(states, 0)
    turn_to(states, 0)
    act(states, PREPARE)  # spring: production only
    assert int(state(states)["hand_n"][0]) == 3


def test_evd_p5_production_when_played_and_in_spring_and_autumn():
    """EVD-P5 (with EVD-F2…F4): a green Production card (Farm: 1 berry) fires when played and
    at the spring and autumn prepares, not in summer."""
    states = blank(2)
    give(states, 0, "farm")
    set_resources(states, 0, twig=2, resin=1)
    turn_to(states, 0)
    act(states, play_hand("farm"))
    berries = [resources(states, 0)[BERRY]]
    for _season in (SPRING, SUMMER, AUTUMN):
        deploy(states, 0)
        turn_to(states, 0)
        act(states, PREPARE)
        choose_first(states, R.PK_MEADOW)
        berries.append(resources(states, 0)[BERRY])
    assert berries == [1, 2, 2, 3]


def test_evd_p5_destination_acts_only_when_a_worker_goes_there():
    """EVD-P5: playing a red Destination (Lookout) does nothing; a worker on it does."""
    states = blank(2)
    give(states, 0, "lookout")
    set_resources(states, 0, twig=1, resin=1, pebble=1)
    turn_to(states, 0)
    act(states, play_hand("lookout"))
    assert resources(states, 0) == (0, 0, 0, 0) and int(state(states)["hand_n"][0]) == 0
    turn_to(states, 0)
    act(states, place_city(states, 0, 0, slot_of(states, 0, "lookout")))
    assert pending(states) == (R.PK_LOCATION, 0)
    act(states, place_basic("basic_3_twig"))  # copies a basic location
    assert resources(states, 0) == (3, 0, 0, 0)


def test_evd_p5_governance_bonus_after_later_cards():
    """EVD-P5: a blue Governance card gives its bonus after other cards are played (Historian:
    draw 1 per later card), not for itself."""
    states = blank(2)
    give(states, 0, "historian", "farm")
    set_resources(states, 0, twig=2, resin=1, berry=2)
    turn_to(states, 0)
    act(states, play_hand("historian"))
    assert int(state(states)["hand_n"][0]) == 1
    top = deck_top(states)[0]
    turn_to(states, 0)
    act(states, play_hand("farm"))
    assert hand_of(states, 0) == {top: 1}


def test_evd_p5_prosperity_base_and_bonus_at_game_end():
    """EVD-P5: a purple Prosperity card scores its base and its bonus at the end (Castle: 4
    plus 1 per Common Construction)."""
    states = blank(2)
    build(states, 0, "castle", "farm", "farm", "mine")
    assert score(states, 0) == 4 + 3 + (1 + 1 + 2)


# ---- drawing (EVD-D1…D4) --------------------------------------------------------------------


def test_evd_d1_draw_from_the_deck_not_the_meadow():
    """EVD-D1: 'draw' takes the top deck cards; the Meadow is untouched."""
    states = blank(2)
    stack(states, "king", "queen")
    before = meadow_of(states)
    act(states, place_basic("basic_2_card_1_point"))
    assert hand_of(states, 0) == {"king": 1, "queen": 1}
    assert meadow_of(states) == before and int(state(states)["tokens"][0]) == 1


def test_evd_d2_draws_stop_at_8_cards():
    """EVD-D2: a draw stops at 8 cards; the undrawn card stays on the deck."""
    states = blank(2)
    give(states, 0, *["wife"] * 4, *["husband"] * 3)
    stack(states, "king", "queen")
    deck_n = int(state(states)["deck_n"])
    turn_to(states, 0)
    act(states, place_basic("basic_2_card_1_point"))
    assert int(state(states)["hand_n"][0]) == 8 and hand_of(states, 0)["king"] == 1
    assert int(state(states)["deck_n"]) == deck_n - 1 and deck_top(states) == ["queen"]


def play_taking_first_revealed(states, key, *top):
    """Seat 0 plays ``key`` from its hand for 2 berries; it reveals ``top`` (stacked on the
    deck) and seat 0 picks the first revealed card."""
    give(states, 0, key)
    set_resources(states, 0, berry=2)
    stack(states, *top)
    turn_to(states, 0)
    act(states, play_hand(key))
    assert pending(states) == (R.PK_REVEALED, 0)
    act(states, revealed(0))


def test_evd_d2_card_for_a_full_handed_opponent_is_discarded():
    """EVD-D2: a card to give (Teacher) goes to the discard pile when every opponent is full."""
    states = blank(2)
    give(states, 1, *["wife"] * 4, *["husband"] * 4)
    play_taking_first_revealed(states, "teacher", "king", "queen")
    s = state(states)
    assert hand_of(states, 1) == {"wife": 4, "husband": 4}
    assert len(hand_of(states, 0)) == 1
    assert int(s["discard_n"]) == 1 and pending(states) == (R.PK_TURN, 1)
    assert card_total(states) == 128


def test_evd_d3_meadow_refills_at_once_after_a_play():
    """EVD-D3: a card played from the Meadow is replaced at once from the deck."""
    states = blank(2)
    set_resources(states, 0, twig=2, resin=1)
    stack(states, "queen")
    turn_to(states, 0)
    act(states, play_meadow(0))
    assert meadow_of(states)[0] == "queen"


def test_evd_d3_several_meadow_cards_are_all_taken_before_the_refill():
    """EVD-D3: an ability that takes several Meadow cards (the summer bonus) takes them all
    first, then the Meadow refills."""
    states = blank(2, season=SPRING)
    stack(states, "king", "queen")
    deploy(states, 0)
    turn_to(states, 0)
    act(states, PREPARE)
    assert pending(states) == (R.PK_MEADOW, 0)
    act(states, meadow(3))
    s = state(states)
    assert int(s["meadow"][3]) == -1 and meadow(3) not in legal(states)  # no refill yet
    act(states, meadow(5))
    assert meadow_of(states)[3] == "king" and meadow_of(states)[5] == "queen"
    assert hand_of(states, 0) == {"twig_barge": 1, "general_store": 1}


def test_evd_d4_empty_deck_rebuilt_from_discard_pile():
    """EVD-D4: drawing from an empty deck first shuffles the discard pile into a new deck."""
    states = blank(2)
    s = state(states)
    n = int(s["deck_n"])
    s["discard"][:n] = s["deck"][:n]
    s["discard_n"] = n
    s["deck"][:] = -1
    s["deck_n"] = 0
    turn_to(states, 0)
    act(states, place_basic("basic_2_card_1_point"))
    assert int(s["hand_n"][0]) == 2
    assert int(s["discard_n"]) == 0 and int(s["deck_n"]) == n - 2
    assert card_total(states) == 128


# ---- prepare for season (EVD-F1…F5) ---------------------------------------------------------


def test_evd_f1_prepare_needs_every_worker_deployed_and_recalls_them():
    """EVD-F1: prepare only with every worker placed; it recalls the deployed ones (not the
    permanent ones, e.g. on a Monastery) and adds the new worker."""
    states = blank(2)
    (monastery,) = build(states, 0, "monastery")
    deploy(states, 0, n=1)
    turn_to(states, 0)
    assert PREPARE not in legal(states)
    s = state(states)
    s["wloc"][0, 1] = city_code(0, monastery)
    s["wperm"][0, 1] = 1
    turn_to(states, 0)
    assert PREPARE in legal(states)
    act(states, PREPARE)
    assert int(s["season"][0]) == SPRING and int(s["workers"][0]) == 3
    assert [int(x) for x in s["wloc"][0, :3]] == [R.W_FREE, city_code(0, monastery), R.W_FREE]
    assert int(s["season"][1]) == WINTER  # seasons are per player


def test_evd_f2_spring_one_worker_and_production():
    """EVD-F2: spring adds 1 worker and fires every green card (Farm: berry, Mine: pebble)."""
    states = blank(2)
    build(states, 0, "farm", "mine", "lookout")
    deploy(states, 0)
    turn_to(states, 0)
    act(states, PREPARE)
    assert pending(states) == (R.PK_PRODUCE_ORDER, 0)  # the player orders them
    choose_first(states, R.PK_PRODUCE_ORDER)
    assert resources(states, 0) == (0, 0, 1, 1)
    assert int(state(states)["workers"][0]) == 3 and free_workers(states, 0) == 3


def test_evd_f3_summer_one_worker_no_production_up_to_two_meadow_cards():
    """EVD-F3: summer adds 1 worker, fires nothing and lets the player take up to 2 Meadow
    cards; a green card played in summer still fires when played."""
    states = blank(2, season=SPRING)
    build(states, 0, "farm")
    deploy(states, 0)
    turn_to(states, 0)
    act(states, PREPARE)
    assert pending(states) == (R.PK_MEADOW, 0) and DONE in legal(states)
    act(states, meadow(0), meadow(1))
    assert hand_of(states, 0) == {"farm": 2}
    assert resources(states, 0) == (0, 0, 0, 0)
    assert int(state(states)["workers"][0]) == 4
    turn_to(states, 0)
    set_resources(states, 0, twig=2, resin=1)
    turn_to(states, 0)
    act(states, play_hand("farm"))
    assert resources(states, 0) == (0, 0, 0, 1)


def test_evd_f3_summer_meadow_draw_respects_the_hand_limit():
    """EVD-F3 with EVD-D2: with 7 cards only 1 Meadow card may be taken."""
    states = blank(2, season=SPRING)
    give(states, 0, *["wife"] * 4, *["husband"] * 3)
    deploy(states, 0)
    turn_to(states, 0)
    act(states, PREPARE)
    act(states, meadow(0))
    assert int(state(states)["hand_n"][0]) == 8
    assert pending(states) == (R.PK_TURN, 1)


def test_evd_f4_autumn_two_workers_and_production():
    """EVD-F4: autumn adds 2 workers and fires every green card."""
    states = blank(2, season=SUMMER)
    build(states, 0, "twig_barge")
    deploy(states, 0)
    turn_to(states, 0)
    act(states, PREPARE)
    assert resources(states, 0) == (2, 0, 0, 0)
    assert int(state(states)["workers"][0]) == 6 and free_workers(states, 0) == 6


def test_evd_f5_no_prepare_after_autumn():
    """EVD-F5: autumn is the last prepare; afterwards only place, play or pass."""
    states = blank(2, season=AUTUMN)
    deploy(states, 0)
    turn_to(states, 0)
    assert PREPARE not in legal(states) and PASS in legal(states)


# ---- end and scoring (EVD-E1…E4) ------------------------------------------------------------


def test_evd_e1_pass_is_final_others_go_on_until_all_passed():
    """EVD-E1: a player who passes gets no more turns; the others continue; the game ends
    when everyone has passed."""
    states = blank(3, season=AUTUMN)
    act(states, PASS)
    s = state(states)
    assert int(s["passed"][0]) == 1 and pending(states) == (R.PK_TURN, 1)
    order = []
    for _ in range(4):
        order.append(int(s["current_player"]))
        act(states, place_basic("basic_1_berry"))
    assert order == [1, 2, 1, 2]
    act(states, PASS)  # seat 1
    assert pending(states) == (R.PK_TURN, 2) and s["terminated"] == 0
    act(states, place_basic("basic_1_berry"))
    assert pending(states) == (R.PK_TURN, 2)
    act(states, PASS)
    assert s["terminated"] == 1
    assert [int(x) for x in s["score"][:3]] == [score(states, p) for p in range(3)]


@pytest.mark.parametrize("season", [WINTER, SPRING, SUMMER])
def test_evd_e1_no_pass_before_autumn(season):
    """EVD-E1 (rule book p. 13): a player passes only once they have reached autumn. Before it
    nobody is stuck: a free worker can go to the Haven (EVD-W6), and with every worker
    deployed Prepare for Season is legal (EVD-F1)."""
    states = blank(2, season=season)
    assert PASS not in legal(states) and HAVEN in legal(states)
    deploy(states, 0)
    turn_to(states, 0)
    assert legal(states) == {PREPARE}  # no card playable in a blank position, no free worker
    act(states, PREPARE)
    assert int(state(states)["season"][0]) == season + 1 and int(state(states)["passed"][0]) == 0


def test_evd_e1_pass_from_autumn_on():
    """EVD-E1: after the autumn Prepare for Season passing is legal, with workers left or
    not."""
    states = blank(2, season=SUMMER)
    deploy(states, 0)
    turn_to(states, 0)
    act(states, PREPARE)  # summer -> autumn (no production in summer; Meadow picks declined)
    while pending(states)[0] != R.PK_TURN:
        act(states, DONE)
    assert int(state(states)["season"][0]) == AUTUMN
    assert pending(states) == (R.PK_TURN, 1)
    act(states, place_basic("basic_1_berry"))  # seat 1 (summer) takes a turn
    assert PASS in legal(states) and HAVEN in legal(states)


def test_option_pass_anytime_allows_passing_from_the_first_turn():
    """Option pass_anytime (EVD-E1 read literally, not the default): pass on any turn."""
    states = blank(2, season=WINTER, options=R.OPTION_PASS_ANYTIME)
    assert PASS in legal(states)
    act(states, PASS)
    assert int(state(states)["passed"][0]) == 1 and pending(states) == (R.PK_TURN, 1)
    assert PASS in legal(states)


def test_option_pass_anytime_through_make():
    default = mg.make("everdell", num_players=2)
    default.reset(seed=3)
    assert default.observe(default.agent_selection)["action_mask"][PASS] == 0  # EVD-E1
    literal = mg.make("everdell", num_players=2, pass_anytime=True)
    literal.reset(seed=3)
    assert literal.observe(literal.agent_selection)["action_mask"][PASS] == 1
    for bad in (1, "yes", None):
        with pytest.raises(OptionError, match="pass_anytime"):
            mg.make("everdell", num_players=2, pass_anytime=bad)


def test_evd_e1_passed_player_receives_no_cards():
    """EVD-E1: a card to give to an opponent who passed is discarded instead."""
    states = blank(2)
    give(states, 0, "teacher")
    set_resources(states, 0, berry=2)
    stack(states, "king", "queen")
    state(states)["passed"][1] = 1
    turn_to(states, 0)
    act(states, play_hand("teacher"))
    act(states, revealed(1))
    assert hand_of(states, 0) == {"queen": 1} and hand_of(states, 1) == {}
    assert [D.CARD_KEYS[int(t)] for t in state(states)["discard"][:1]] == ["king"]


def test_evd_e1_passed_player_receives_no_resources():
    """EVD-E1: resources to give (Monk: up to 2 berries, 2 points each) cannot go to a passed
    opponent; they go back to the supply."""
    states = blank(2)
    give(states, 0, "monk")
    set_resources(states, 0, berry=4)
    state(states)["passed"][1] = 1
    turn_to(states, 0)
    act(states, play_hand("monk"))  # 1 berry
    assert pending(states) == (R.PK_GIVE_RESOURCE, 0)
    act(states, resource(BERRY), resource(BERRY))
    assert resources(states, 0)[BERRY] == 1 and resources(states, 1) == (0, 0, 0, 0)


def finish(states):
    """Everyone still in passes, seat 0 first (the position is at the start of its turn)."""
    s = state(states)
    while s["terminated"] == 0:
        act(states, PASS)


def test_evd_e2_score_is_cards_tokens_bonuses_journey_events():
    """EVD-E2: base points + point tokens (own and on cards) + Prosperity bonuses + Journey +
    events."""
    states = blank(2, season=AUTUMN)
    (_castle, _farm, chapel) = build(states, 0, "castle", "farm", "chapel")
    s = state(states)
    s["tokens"][0] = 3
    s["city_tokens"][0, chapel] = 2
    s["wloc"][0, 0] = LOC["journey_2"]
    s["wperm"][0, 0] = 1
    s["event_owner"][EVENT["grand_tour"]] = 0
    base = 4 + 1 + 2  # Castle, Farm, Chapel
    tokens = 3 + 2
    castle_bonus = 1  # one Common Construction (Farm)
    expected = base + tokens + castle_bonus + 2 + 3
    assert score(states, 0) == expected
    turn_to(states, 0)
    finish(states)
    assert int(s["score"][0]) == expected and int(s["score"][1]) == 0
    assert int(s["winner"]) == 0


@pytest.mark.parametrize("case", ["events", "resources", "draw"])
def test_evd_e3_ties_broken_by_events_then_leftover_resources(case):
    """EVD-E3: equal scores: most events wins, then most leftover resources; else a draw."""
    states = blank(2, season=AUTUMN)
    s = state(states)
    s["tokens"][1] = 3  # 3 points each
    if case == "events":
        s["event_owner"][EVENT["grand_tour"]] = 0
        set_resources(states, 1, berry=5)  # resources only count after events
        expected = 0
    else:
        s["tokens"][0] = 3
        set_resources(states, 0, twig=1)
        set_resources(states, 1, pebble=1, berry=1 if case == "resources" else 0)
        expected = 1 if case == "resources" else -1
    finish(states)
    assert int(s["score"][0]) == int(s["score"][1]) == 3
    assert int(s["winner"]) == expected
    rewards = np.zeros(R.MAXP, np.float64)
    R.rewards_into(s, rewards)
    if expected < 0:
        assert (rewards == 0).all()
    else:
        assert rewards[expected] == 1.0 and rewards[1 - expected] == -1.0


def test_evd_e4_rule_book_example_city_scores_62():
    """EVD-E4: the rule book's example city scores 62 = base 22 + tokens 14 + Prosperity
    bonuses 10 (Wife 3, Architect 2, King 5) + Journey 4 + events 12 (Performer in Residence
    6, Ministering to Miscreants 3, Grand Tour 3)."""
    check_example_city(example_city())


def check_example_city(states):
    assert sum(EXAMPLE_CITY.values()) == 22
    for key, points in EXAMPLE_CITY.items():  # the card table agrees with the printed values
        assert int(D.CARD_POINTS[CARD[key]]) == points, key
    assert score(states, 0) == 62
    parts = {
        "performer_in_residence": 6,
        "ministering_to_miscreants": 3,
        "grand_tour": 3,
    }
    for key, points in parts.items():
        assert event_points(states, 0, key) == points, key

    def without(edit):
        copy = states.copy()
        edit(copy[0])
        return score(copy, 0)

    def no_events(s):
        for key in EXAMPLE_EVENTS:
            s["event_owner"][EVENT[key]] = -1

    def no_journey(s):
        s["wloc"][0, 0] = R.W_FREE

    def no_resin_pebble(s):
        s["resources"][0, RESIN] = 0
        s["resources"][0, PEBBLE] = 0

    def no_tokens(s):
        s["tokens"][0] = 0

    def no_husband(s):
        s["city"][0, slot_of(states, 0, "husband")] = -1

    def no_king(s):
        s["city"][0, slot_of(states, 0, "king")] = -1

    assert without(no_tokens) == 62 - 14
    assert without(no_journey) == 62 - 4
    assert without(no_resin_pebble) == 62 - 2  # Architect's bonus
    assert without(no_husband) == 62 - 2 - 3  # Husband's base and the Wife's bonus
    assert without(no_king) == 62 - 4 - 5  # King's base and bonus (1 basic + 2 x 2 special)
    assert without(no_events) == 62 - 12 - 5  # the events and the King's bonus for them

    def bare(s):
        for edit in (no_tokens, no_journey, no_resin_pebble, no_events):
            edit(s)

    assert without(bare) == 22 + 3  # base points + the Wife's bonus (needs nothing else)


def test_evd_e4_example_city_from_a_snapshot():
    """EVD-E4: the same city written as a snapshot and rebuilt by
    envs.everdell.snapshot.from_dict scores the same 62 with the same parts."""
    snapshot = pytest.importorskip("meeple_gym.everdell.snapshot")
    states = snapshot.from_dict(example_city_snapshot()).view(np.recarray)
    turn_to(states, 0)
    assert card_total(states) == 128
    check_example_city(states)


# ---- events: requirements, cost, one achiever, effects, end scoring (EVD-W5) ---------------

# Cards each special event needs in the city, restated from the event cards.
SPECIAL_NEEDS = {
    "a_brilliant_marketing_plan": ("shopkeeper", "post_office"),
    "a_wee_run_city": ("chip_sweep", "clock_tower"),
    "an_evening_of_fireworks": ("lookout", "miner_mole"),
    "ancient_scrolls_discovered": ("historian", "ruins"),
    "capture_of_the_acorn_thieves": ("courthouse", "ranger"),
    "croak_wart_cure": ("undertaker", "barge_toad"),
    "flying_doctor_service": ("doctor", "postal_pigeon"),
    "graduation_of_scholars": ("teacher", "university"),
    "ministering_to_miscreants": ("monk", "dungeon"),
    "path_of_the_pilgrims": ("monastery", "wanderer"),
    "performer_in_residence": ("inn", "bard"),
    "pristine_chapel_ceiling": ("woodcarver", "chapel"),
    "remembering_the_fallen": ("cemetery", "shepherd"),
    "tax_relief": ("judge", "queen"),
    "under_new_management": ("peddler", "general_store"),
}
# Cards of each basic event's colour: 3 Travelers, 3 Governance, 3 Destinations, 4 Production.
BASIC_NEEDS = {
    "cartographers_expedition": ("wanderer", "postal_pigeon", "ruins"),
    "city_monument": ("historian", "shopkeeper", "innkeeper"),
    "grand_tour": ("inn", "post_office", "lookout"),
    "harvest_festival": ("farm", "mine", "twig_barge", "resin_refinery"),
}
EVERDELL_GAMES_CITY = (
    "wanderer",
    "ruins",
    "farm",
    "mine",
    "inn",
    "post_office",
    "historian",
    "shopkeeper",
    "wife",
    "architect",
)


def event_game(key, season=WINTER):
    """A blank 2-player position with special event ``key`` dealt first."""
    others = ("tax_relief", "the_everdell_games", "croak_wart_cure", "a_wee_run_city")
    specials = [key] + [k for k in others if k != key][:3]
    return blank(2, season=season, specials=specials)


def claim(states, key):
    """Seat 0 claims ``key``, settling any follow-up choice with Done or its first option."""
    act(states, place_event(states, key))
    while pending(states) != (R.PK_TURN, 1):
        options = legal(states)
        act(states, DONE if DONE in options else min(options))


@pytest.mark.parametrize("key", list(BASIC_NEEDS))
def test_basic_event_requirement_one_achiever_3_points(key):
    """EVD-W5 basic events: the colour count is checked on placing; one achiever; 3 points."""
    needs = BASIC_NEEDS[key]
    states = blank(2)
    build(states, 0, *needs[:-1])
    build(states, 1, *needs)
    turn_to(states, 0)
    assert place_event(states, key) not in legal(states)
    build(states, 0, needs[-1])
    turn_to(states, 0)
    assert place_event(states, key) in legal(states)
    claim(states, key)
    assert int(state(states)["event_owner"][EVENT[key]]) == 0
    assert event_points(states, 0, key) == 3
    assert place_event(states, key) not in legal(states)  # seat 1 meets it too


@pytest.mark.parametrize("key", list(SPECIAL_NEEDS))
def test_special_event_needs_both_cards_and_one_achiever(key):
    """EVD-W5 special events: both named cards must be in the city when the worker is placed;
    once achieved nobody else may claim it."""
    first, second = SPECIAL_NEEDS[key]
    states = event_game(key)
    set_resources(states, 0, berry=2)  # Croak Wart Cure's cost
    set_resources(states, 1, berry=2)
    build(states, 1, first, second)
    build(states, 0, first)
    turn_to(states, 0)
    assert place_event(states, key) not in legal(states)
    build(states, 0, second)
    turn_to(states, 0)
    assert place_event(states, key) in legal(states)
    claim(states, key)
    assert int(state(states)["event_owner"][EVENT[key]]) == 0
    assert place_event(states, key) not in legal(states)


def test_special_event_only_second_card_is_not_enough():
    """EVD-W5: one named card alone, whichever, does not meet a special event."""
    states = event_game("performer_in_residence")
    build(states, 0, "bard")
    turn_to(states, 0)
    assert place_event(states, "performer_in_residence") not in legal(states)


def test_event_brilliant_marketing_plan():
    """A Brilliant Marketing Plan: hand opponents up to 3 resources, 2 points each (max 6)."""
    key = "a_brilliant_marketing_plan"
    states = event_game(key)
    build(states, 0, *SPECIAL_NEEDS[key])
    set_resources(states, 0, twig=2, resin=2)
    turn_to(states, 0)
    act(states, place_event(states, key))
    assert pending(states) == (R.PK_GIVE_RESOURCE, 0)
    act(states, resource(TWIG), resource(TWIG), resource(RESIN))
    assert pending(states) == (R.PK_TURN, 1)  # 3 given: no fourth, though a resin is left
    assert resources(states, 0) == (0, 1, 0, 0) and resources(states, 1) == (2, 1, 0, 0)
    assert event_points(states, 0, key) == 6
    assert score(states, 0) == 6 + 1 + 2  # + Shopkeeper 1 + Post Office 2


def test_event_brilliant_marketing_plan_splits_between_opponents():
    """A Brilliant Marketing Plan gives "to opponents": each resource goes to the opponent its
    player picks (EVD-W5), here one to each of the two others."""
    key = "a_brilliant_marketing_plan"
    others = ("tax_relief", "the_everdell_games", "croak_wart_cure")
    states = blank(3, specials=[key, *others])
    build(states, 0, *SPECIAL_NEEDS[key])
    set_resources(states, 0, twig=1, resin=1)
    turn_to(states, 0)
    act(states, place_event(states, key))
    act(states, resource(TWIG))
    assert pending(states) == (R.PK_GIVE_TO, 0)
    act(states, R.A_PLAYER + 1, resource(RESIN), R.A_PLAYER + 2)  # nothing left: it ends
    assert resources(states, 1) == (1, 0, 0, 0) and resources(states, 2) == (0, 1, 0, 0)
    assert event_points(states, 0, key) == 4


def test_event_wee_run_city():
    """A Wee Run City: take back one deployed worker at once; 4 points."""
    key = "a_wee_run_city"
    states = event_game(key)
    build(states, 0, *SPECIAL_NEEDS[key])
    act(states, place_basic("basic_3_twig"))
    turn_to(states, 0)
    act(states, place_event(states, key))
    # The recall is compulsory and only worker 0 can come back: taken without a decision.
    s = state(states)
    assert int(s["wloc"][0, 0]) == R.W_FREE and int(s["wloc"][0, 1]) == R.W_EVENT + EVENT[key]
    assert event_points(states, 0, key) == 4
    turn_to(states, 0)
    assert place_basic("basic_3_twig") in legal(states)  # usable again this season


@pytest.mark.parametrize(
    "key,resource", [("an_evening_of_fireworks", "twig"), ("performer_in_residence", "berry")]
)
def test_event_parks_up_to_three_for_two_points_each(key, resource):
    """An Evening of Fireworks (twigs) and Performer in Residence (berries): park up to 3 of
    the resource, 2 points each (max 6)."""
    states = event_game(key)
    build(states, 0, *SPECIAL_NEEDS[key])
    set_resources(states, 0, **{resource: 5})
    turn_to(states, 0)
    act(states, place_event(states, key))
    assert legal(states) == {number(n) for n in range(4)}
    act(states, number(3))
    index = {"twig": TWIG, "berry": BERRY}[resource]
    assert resources(states, 0)[index] == 2 and event_points(states, 0, key) == 6


def test_event_ancient_scrolls_discovered():
    """Ancient Scrolls Discovered: reveal 5, keep any, tuck the rest for 1 point each."""
    key = "ancient_scrolls_discovered"
    states = event_game(key)
    build(states, 0, *SPECIAL_NEEDS[key])
    five = ("king", "queen", "castle", "palace", "school")
    stack(states, *five)
    turn_to(states, 0)
    act(states, place_event(states, key))
    assert legal(states) == {revealed(i) for i in range(5)} | {DONE}
    act(states, revealed(0), revealed(0), DONE)
    kept = hand_of(states, 0)
    assert sum(kept.values()) == 2 and set(kept) <= set(five)
    assert int(state(states)["tucked"]) == 3 and event_points(states, 0, key) == 3
    assert card_total(states) == 128
    # Keeping none tucks all 5: the most it can give.
    states = event_game(key)
    build(states, 0, *SPECIAL_NEEDS[key])
    turn_to(states, 0)
    act(states, place_event(states, key), DONE)
    assert event_points(states, 0, key) == 5


def test_event_capture_of_the_acorn_thieves():
    """Capture of the Acorn Thieves: up to 2 Critters leave the city for the event, 3 points
    each (max 6); Constructions cannot go."""
    key = "capture_of_the_acorn_thieves"
    states = event_game(key)
    _courthouse, ranger, husband, wife, _farm = build(
        states, 0, "courthouse", "ranger", "husband", "wife", "farm"
    )
    turn_to(states, 0)
    act(states, place_event(states, key))
    assert legal(states) == {city(ranger), city(husband), city(wife), DONE}
    act(states, city(husband), city(wife))
    assert pending(states) == (R.PK_TURN, 1)
    assert city_of(states, 0) == ["courthouse", "farm", "ranger"]
    assert int(state(states)["tucked"]) == 2 and event_points(states, 0, key) == 6
    assert score(states, 0) == 2 + 1 + 1 + 6  # Courthouse, Ranger, Farm: the pair is gone


def test_event_croak_wart_cure():
    """Croak Wart Cure: costs 2 berries, paid on placing; discard 2 city cards; 6 points."""
    key = "croak_wart_cure"
    states = event_game(key)
    build(states, 0, *SPECIAL_NEEDS[key], "farm")
    set_resources(states, 0, berry=1)
    turn_to(states, 0)
    assert place_event(states, key) not in legal(states)
    set_resources(states, 0, berry=2)
    turn_to(states, 0)
    act(states, place_event(states, key))
    assert resources(states, 0)[BERRY] == 0
    assert pending(states) == (R.PK_REMOVE, 0) and DONE not in legal(states)
    act(states, city(slot_of(states, 0, "farm")), city(slot_of(states, 0, "barge_toad")))
    assert city_of(states, 0) == ["undertaker"]
    assert int(state(states)["discard_n"]) == 2 and event_points(states, 0, key) == 6


def test_event_flying_doctor_service_counts_pairs_in_every_city():
    """Flying Doctor Service: 3 points per Husband-Wife pair in all cities, no cap."""
    key = "flying_doctor_service"
    states = event_game(key)
    build(states, 0, *SPECIAL_NEEDS[key], "husband", "husband", "wife", "wife")
    build(states, 1, "husband", "wife", "husband")  # 1 pair, 1 single Husband
    turn_to(states, 0)
    claim(states, key)
    assert event_points(states, 0, key) == 3 * 3


def test_event_graduation_of_scholars():
    """Graduation of Scholars: tuck up to 3 Critters from hand, 2 points each (max 6)."""
    key = "graduation_of_scholars"
    states = event_game(key)
    build(states, 0, *SPECIAL_NEEDS[key])
    give(states, 0, "husband", "husband", "wife", "bard", "farm")
    turn_to(states, 0)
    act(states, place_event(states, key))
    assert legal(states) == {card("husband"), card("wife"), card("bard"), DONE}
    act(states, card("husband"), card("wife"), card("bard"))
    assert pending(states) == (R.PK_TURN, 1)
    assert hand_of(states, 0) == {"husband": 1, "farm": 1}
    assert event_points(states, 0, key) == 6 and card_total(states) == 128


def test_event_ministering_to_miscreants():
    """Ministering to Miscreants: 3 points per prisoner in the Dungeon at the end (max 6)."""
    key = "ministering_to_miscreants"
    states = event_game(key)
    build(states, 0, *SPECIAL_NEEDS[key], "husband")
    give(states, 0, "farm")
    turn_to(states, 0)
    claim(states, key)
    assert event_points(states, 0, key) == 0
    turn_to(states, 0)
    act(states, play_hand("farm"))  # no resources: the Dungeon pays
    assert pending(states) == (R.PK_JAIL, 0)
    act(states, city(slot_of(states, 0, "husband")))
    assert "farm" in city_of(states, 0) and "husband" not in city_of(states, 0)
    assert event_points(states, 0, key) == 3
    build(states, 0, "ranger")  # opens the second cell
    build(states, 0, "wife")
    give(states, 0, "mine")
    turn_to(states, 0)
    act(states, play_hand("mine"))  # the Dungeon pays again, into its second cell
    act(states, city(slot_of(states, 0, "wife")))
    assert event_points(states, 0, key) == 6
    give(states, 0, "twig_barge")
    turn_to(states, 0)
    assert play_hand("twig_barge") not in legal(states)  # no third cell


def test_event_path_of_the_pilgrims():
    """Path of the Pilgrims: 3 points per worker on the Monastery at the end (max 6)."""
    key = "path_of_the_pilgrims"
    states = event_game(key)
    (monastery, _wanderer) = build(states, 0, *SPECIAL_NEEDS[key])
    set_resources(states, 0, twig=2)
    turn_to(states, 0)
    claim(states, key)
    assert event_points(states, 0, key) == 0
    turn_to(states, 0)
    act(states, place_city(states, 0, 0, monastery))  # give 2 resources, take 4 tokens
    assert int(state(states)["tokens"][0]) == 4 and resources(states, 1) == (2, 0, 0, 0)
    assert event_points(states, 0, key) == 3
    turn_to(states, 0)
    act(states, PREPARE)  # the Monastery worker is not recalled
    assert event_points(states, 0, key) == 3
    build(states, 0, "monk")  # opens the second spot
    set_resources(states, 0, twig=2)
    turn_to(states, 0)
    act(states, place_city(states, 0, 0, monastery))
    assert int(state(states)["tokens"][0]) == 8
    assert event_points(states, 0, key) == 6
    set_resources(states, 0, twig=2)
    turn_to(states, 0)
    assert free_workers(states, 0) == 1
    assert place_city(states, 0, 0, monastery) not in legal(states)  # both spots taken


def test_event_pristine_chapel_ceiling():
    """Pristine Chapel Ceiling: per Chapel token draw 1 and gain 1 resource; 2 points per token
    at the end, no cap."""
    key = "pristine_chapel_ceiling"
    states = event_game(key)
    (_woodcarver, chapel) = build(states, 0, *SPECIAL_NEEDS[key])
    s = state(states)
    s["city_tokens"][0, chapel] = 2
    stack(states, "king", "queen")
    turn_to(states, 0)
    act(states, place_event(states, key))
    assert pending(states) == (R.PK_GAIN, 0)
    act(states, resource(PEBBLE), resource(BERRY))
    assert hand_of(states, 0) == {"king": 1, "queen": 1}
    assert resources(states, 0) == (0, 0, 1, 1) and event_points(states, 0, key) == 4
    s["city_tokens"][0, chapel] = 4
    assert event_points(states, 0, key) == 8


def test_event_remembering_the_fallen():
    """Remembering the Fallen: 3 points per worker on the Cemetery at the end (max 6)."""
    key = "remembering_the_fallen"
    states = event_game(key)
    (cemetery, _shepherd) = build(states, 0, *SPECIAL_NEEDS[key])
    turn_to(states, 0)
    claim(states, key)
    stack(states, "farm", "mine", "king", "queen")
    turn_to(states, 0)
    act(states, place_city(states, 0, 0, cemetery))  # reveal 4 (deck only), play one free
    assert pending(states) == (R.PK_REVEALED, 0)
    choose_first(states, R.PK_REVEALED)
    assert event_points(states, 0, key) == 3
    turn_to(states, 0)
    act(states, PREPARE)
    choose_first(states, R.PK_PRODUCE_ORDER)
    assert event_points(states, 0, key) == 3  # the Cemetery worker stays
    build(states, 0, "undertaker")  # opens the second spot
    stack(states, "mine", "king", "palace", "school")
    turn_to(states, 0)
    act(states, place_city(states, 0, 0, cemetery))
    assert pending(states) == (R.PK_PILE, 0)  # the discard pile now holds 3 cards
    act(states, number(0))  # reveal from the deck
    choose_first(states, R.PK_REVEALED)
    assert "mine" in city_of(states, 0)
    assert event_points(states, 0, key) == 6
    turn_to(states, 0)
    assert free_workers(states, 0) == 1
    assert place_city(states, 0, 0, cemetery) not in legal(states)  # both spots taken


def test_event_tax_relief():
    """Tax Relief: every green card fires once on claiming; 3 points."""
    key = "tax_relief"
    states = event_game(key)
    build(states, 0, *SPECIAL_NEEDS[key], "farm", "mine")
    turn_to(states, 0)
    act(states, place_event(states, key))
    assert pending(states) == (R.PK_PRODUCE_ORDER, 0)
    choose_first(states, R.PK_PRODUCE_ORDER)
    assert resources(states, 0) == (0, 0, 1, 1) and event_points(states, 0, key) == 3


def test_event_the_everdell_games():
    """The Everdell Games: 2 cards of every colour; 9 points."""
    key = "the_everdell_games"
    states = event_game(key)
    build(states, 0, *EVERDELL_GAMES_CITY[:-1])  # one Prosperity card only
    turn_to(states, 0)
    assert place_event(states, key) not in legal(states)
    build(states, 0, EVERDELL_GAMES_CITY[-1])
    turn_to(states, 0)
    claim(states, key)
    assert int(state(states)["event_owner"][EVENT[key]]) == 0
    assert event_points(states, 0, key) == 9


@pytest.mark.parametrize(
    "parked, points",
    [((PEBBLE, PEBBLE, RESIN), 6), ((TWIG, BERRY), 2)],
)
def test_event_under_new_management(parked, points):
    """Under New Management: park up to 3 resources; twig or berry 1 point, resin or pebble 2
    (max 6)."""
    key = "under_new_management"
    states = event_game(key)
    build(states, 0, *SPECIAL_NEEDS[key])
    set_resources(states, 0, twig=1, resin=1, pebble=2, berry=1)
    turn_to(states, 0)
    act(states, place_event(states, key))
    for r in parked:
        act(states, resource(r))
    if len(parked) < 3:
        act(states, DONE)
    assert pending(states) == (R.PK_TURN, 1)
    left = [1, 1, 2, 1]
    for r in parked:
        left[r] -= 1
    assert resources(states, 0) == tuple(left)
    assert event_points(states, 0, key) == points


# ---- locations (EVD-W1, W2, W6, W7) ---------------------------------------------------------

# Basic spaces as printed: resources (twig, resin, pebble, berry), cards drawn, point tokens.
BASIC_GAINS = {
    "basic_3_twig": ((3, 0, 0, 0), 0, 0),
    "basic_2_twig_1_card": ((2, 0, 0, 0), 1, 0),
    "basic_2_resin": ((0, 2, 0, 0), 0, 0),
    "basic_1_resin_1_card": ((0, 1, 0, 0), 1, 0),
    "basic_2_card_1_point": ((0, 0, 0, 0), 2, 1),
    "basic_1_pebble": ((0, 0, 1, 0), 0, 0),
    "basic_1_berry_1_card": ((0, 0, 0, 1), 1, 0),
    "basic_1_berry": ((0, 0, 0, 1), 0, 0),
}


@pytest.mark.parametrize("key", list(BASIC_GAINS))
def test_basic_location(key):
    """Each basic space: its gains at once; exclusive ones then refuse the other player."""
    gain, cards, points = BASIC_GAINS[key]
    states = blank(2)
    act(states, place_basic(key))
    assert resources(states, 0) == gain
    assert int(state(states)["hand_n"][0]) == cards
    assert int(state(states)["tokens"][0]) == points
    assert (place_basic(key) in legal(states)) == (key not in EXCLUSIVE_BASIC)


# Forest cards with fixed gains: resources (twig, resin, pebble, berry) and cards drawn.
FOREST_FIXED = {
    "forest_3_berry": ((0, 0, 0, 3), 0),
    "forest_2_berry_1_card": ((0, 0, 0, 2), 1),
    "forest_2_resin_1_twig": ((1, 2, 0, 0), 0),
    "forest_1_twig_1_resin_1_berry": ((1, 1, 0, 1), 0),
    "forest_1_pebble_3_card": ((0, 0, 1, 0), 3),
}


DEFAULT_FOREST_LIST = (
    "forest_3_berry",
    "forest_2_any",
    "forest_2_resin_1_twig",
    "forest_2_card_1_any",
)


def forest_game(key, num_players=2):
    """Forest card ``key`` at position 0."""
    others = [k for k in DEFAULT_FOREST_LIST if k != key]
    size = 4 if num_players >= 3 else 3
    return blank(num_players, forest=[key] + others[: size - 1])


@pytest.mark.parametrize("key", list(FOREST_FIXED))
def test_forest_fixed_gain(key):
    """Forest cards with fixed gains; one worker per card with 2 players (EVD-W1)."""
    gain, cards = FOREST_FIXED[key]
    states = forest_game(key)
    act(states, place_forest(0))
    assert resources(states, 0) == gain and int(state(states)["hand_n"][0]) == cards
    assert place_forest(0) not in legal(states)


def test_forest_2_any():
    """Forest: 2 resources of choice (may be the same)."""
    states = forest_game("forest_2_any")
    act(states, place_forest(0))
    assert pending(states) == (R.PK_GAIN, 0)
    act(states, resource(PEBBLE), resource(PEBBLE))
    assert resources(states, 0) == (0, 0, 2, 0)


def test_forest_2_card_1_any():
    """Forest: draw 2 and 1 resource of choice."""
    states = forest_game("forest_2_card_1_any")
    stack(states, "king", "queen")
    turn_to(states, 0)
    act(states, place_forest(0))
    act(states, resource(RESIN))
    assert resources(states, 0) == (0, 1, 0, 0)
    assert hand_of(states, 0) == {"king": 1, "queen": 1}


def test_forest_discard_any_draw_2_each():
    """Forest: discard any number, draw 2 per card discarded (EVD-D2 caps at 8)."""
    states = forest_game("forest_discard_any_draw_2_each")
    give(states, 0, "king", "queen", "castle")
    turn_to(states, 0)
    act(states, place_forest(0))
    assert pending(states) == (R.PK_DISCARD, 0) and DONE in legal(states)
    act(states, card("king"), card("queen"), DONE)
    assert int(state(states)["hand_n"][0]) == 1 + 4
    # 7 cards, discard 2: 4 to draw but only 3 fit.
    states = forest_game("forest_discard_any_draw_2_each")
    give(states, 0, *["wife"] * 4, *["husband"] * 3)
    turn_to(states, 0)
    deck_n = int(state(states)["deck_n"])
    act(states, place_forest(0), card("wife"), card("husband"), DONE)
    assert int(state(states)["hand_n"][0]) == 8 and int(state(states)["deck_n"]) == deck_n - 3


def test_forest_discard_up_to_3_gain_any_each():
    """Forest: discard up to 3 cards, 1 resource of choice for each."""
    states = forest_game("forest_discard_up_to_3_gain_any_each")
    give(states, 0, "king", "queen", "castle", "palace", "school")
    turn_to(states, 0)
    act(states, place_forest(0), card("king"), card("queen"), card("castle"))
    assert pending(states) == (R.PK_GAIN, 0)  # a 4th discard is not offered
    act(states, resource(TWIG), resource(RESIN), resource(BERRY))
    assert resources(states, 0) == (1, 1, 0, 1) and int(state(states)["hand_n"][0]) == 2


def test_forest_copy_basic_and_draw_1_even_an_occupied_space():
    """Forest: use any basic space's action, even one taken by another worker, and draw 1."""
    states = forest_game("forest_copy_basic_and_draw_1")
    deploy(states, 1, LOC["basic_3_twig"], n=1)
    stack(states, "king")
    turn_to(states, 0)
    assert place_basic("basic_3_twig") not in legal(states)
    act(states, place_forest(0))
    assert pending(states) == (R.PK_LOCATION, 0)
    act(states, place_basic("basic_3_twig"))
    assert resources(states, 0) == (3, 0, 0, 0) and hand_of(states, 0) == {"king": 1}
    assert int(state(states)["wloc"][0, 0]) == LOC["forest_copy_basic_and_draw_1"]


def test_forest_take_2_meadow_play_1_for_1_less():
    """Forest: take 2 Meadow cards (refill after both), play one for 1 resource less, keep the
    other in hand."""
    meadow_keys = ("farm", "mine", "king", "queen", "castle", "palace", "school", "theater")
    states = blank(
        2,
        meadow=meadow_keys,
        forest=("forest_take_2_meadow_play_1_discounted", "forest_3_berry", "forest_2_any"),
    )
    set_resources(states, 0, twig=2)  # Farm costs 2 twigs + 1 resin: 1 short
    stack(states, "wife", "husband")
    turn_to(states, 0)
    act(states, place_forest(0))
    assert pending(states) == (R.PK_MEADOW, 0)
    act(states, meadow(0))
    assert int(state(states)["meadow"][0]) == -1  # no refill between the two
    act(states, meadow(1))
    assert pending(states) == (R.PK_TURN, 1)  # only the Farm is playable: chosen by itself
    assert city_of(states, 0) == ["farm"] and hand_of(states, 0) == {"mine": 1}
    assert resources(states, 0) == (0, 0, 0, 1)  # paid 2 twigs, the resin was waived; +1 berry
    assert meadow_of(states)[:2] == ["wife", "husband"]


def test_forest_take_2_meadow_needs_a_playable_card():
    """Forest Meadow pick is refused when no Meadow card is playable for 1 less."""
    states = blank(
        2, forest=("forest_take_2_meadow_play_1_discounted", "forest_3_berry", "forest_2_any")
    )
    assert place_forest(0) not in legal(states)


@pytest.mark.parametrize("cards, gained", [(3, 1), (1, 0), (4, 2)])
def test_haven_rounds_down(cards, gained):
    """Haven: 1 resource per 2 cards discarded, rounded down; shared (EVD-W6)."""
    states = blank(2)
    keys = ("king", "queen", "castle", "palace")[:cards]
    give(states, 0, *keys)
    deploy(states, 1, LOC["haven"], n=1)
    turn_to(states, 0)
    act(states, HAVEN)
    for key in keys:
        if pending(states)[0] == R.PK_DISCARD:
            act(states, card(key))
    choose_first(states, R.PK_GAIN)
    assert sum(resources(states, 0)) == gained
    assert HAVEN in legal(states)  # seat 1 may join


@pytest.mark.parametrize("points", [5, 4, 3, 2])
def test_journey_space(points):
    """Journey N: autumn only, discard N, the worker stays for N points; 5/4/3 exclusive, 2
    shared (EVD-W7)."""
    states = blank(2, season=AUTUMN)
    give(states, 0, "king", "queen", "castle", "palace", "school")
    give(states, 1, "wife", "wife", "husband", "husband", "farm")
    turn_to(states, 0)
    act(states, place_journey(points))
    choose_first(states, R.PK_DISCARD)
    s = state(states)
    assert int(s["hand_n"][0]) == 5 - points
    assert int(s["wloc"][0, 0]) == LOC[f"journey_{points}"] and int(s["wperm"][0, 0]) == 1
    assert score(states, 0) == points
    assert pending(states) == (R.PK_TURN, 1)
    assert (place_journey(points) in legal(states)) == (points == 2)


# ---- solo: Rugwort (locations.json "solo_rugwort") ------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_solo_setup_rugwort_blocks_first_forest_card_and_3_twigs(seed):
    """Solo setup: 2-player board (3 forest cards); you draw 5, Rugwort has no hand; his
    workers block the first forest card and the 3-twig space."""
    states = new_game(1, seed)
    s = state(states)
    assert int((s["forest"] >= 0).sum()) == 3
    assert int(s["hand_n"][0]) == 5 and int(s["hand_n"][1]) == 0
    assert int(s["rug_city"].sum()) == 0 and int(s["workers"][1]) == 0
    offered = legal(states)
    assert place_forest(0) not in offered and place_basic("basic_3_twig") not in offered
    assert place_basic("basic_2_resin") in offered


def test_solo_rugwort_plays_the_d8_meadow_card_after_each_card_you_play():
    """Solo: after you play a card (and its Meadow slot is refilled), Rugwort plays the Meadow
    card at the d8 roll; then his slot is refilled. A worker placement gives him nothing."""
    states = blank(1)
    act(states, place_basic("basic_1_berry"))
    assert int(state(states)["rug_city"].sum()) == 0
    set_resources(states, 0, twig=2, resin=1)
    turn_to(states, 0)
    roll = d8_roll(states)
    top = deck_top(states, 2)
    before = meadow_of(states)
    act(states, play_meadow(0))  # a Farm
    after_mine = [top[0]] + before[1:]
    rugs = {D.CARD_KEYS[t]: int(n) for t, n in enumerate(state(states)["rug_city"]) if n}
    assert rugs == {after_mine[roll]: 1}
    expected = list(after_mine)
    expected[roll] = top[1]  # his card is replaced after yours
    assert meadow_of(states) == expected
    assert card_total(states) == 128


def test_solo_rugwort_plays_twice_after_a_postal_pigeon_chain():
    """Solo: a card play that plays a second card (Postal Pigeon) lets him play 2."""
    states = blank(1)
    play_taking_first_revealed(states, "postal_pigeon", "farm", "mine")
    assert city_of(states, 0) == ["farm", "postal_pigeon"]
    assert int(state(states)["rug_city"].sum()) == 2


def test_solo_rugwort_fool_lands_in_your_city():
    """Solo: a Fool he rolls goes into your city (-2 for you)."""
    roll = d8_roll(blank(1))
    # The default Meadow's six different constructions, then Inn and Post Office.
    meadow_keys = [*DEFAULT_MEADOW[1:7], "inn", "post_office"]
    meadow_keys[roll] = "fool"
    states = blank(1, meadow=meadow_keys)
    give(states, 0, "farm")
    set_resources(states, 0, twig=2, resin=1)
    turn_to(states, 0)
    act(states, play_hand("farm"))
    assert city_of(states, 0) == ["farm", "fool"]
    assert int(state(states)["rug_city"].sum()) == 0
    assert score(states, 0) == 1 - 2


def test_solo_your_fool_is_discarded_and_removes_one_of_his_cards():
    """Solo: your Fool is discarded and you remove any 1 card from his city."""
    states = blank(1)
    build(states, 1, "castle", "farm")
    give(states, 0, "fool")
    set_resources(states, 0, berry=3)
    turn_to(states, 0)
    act(states, play_hand("fool"))
    assert pending(states) == (R.PK_RUG_REMOVE, 0)
    assert legal(states) == {card("castle"), card("farm")}
    act(states, card("castle"))
    s = state(states)
    assert int(s["rug_city"][CARD["castle"]]) == 0 and "fool" not in city_of(states, 0)
    discarded = {D.CARD_KEYS[int(t)] for t in s["discard"][: s["discard_n"]]}
    assert discarded == {"fool", "castle"}
    assert int(s["rug_city"].sum()) == 1 + 1  # his Farm and the card he then plays


SOLO_BLOCKED_MEADOW = {SPRING: {0}, SUMMER: {0, 1}, AUTUMN: {0, 1, 2, 3}}


def advance_season(states):
    """Seat 0 deploys every free worker and prepares for the next season (summer: takes no
    Meadow card; production in any order)."""
    deploy(states, 0)
    turn_to(states, 0)
    act(states, PREPARE)
    if pending(states)[0] == R.PK_MEADOW:
        act(states, DONE)
    choose_first(states, R.PK_PRODUCE_ORDER)
    assert pending(states) == (R.PK_TURN, 0)


def test_solo_rugwort_workers_block_meadow_cards_by_season():
    """Solo: after your prepare his new workers sit on Meadow card 1 (spring), 2 (summer), 3
    and 4 (autumn): you can no longer play or take those cards."""
    states = blank(1)
    for season in (SPRING, SUMMER, AUTUMN):
        if season == SUMMER:
            deploy(states, 0)
            turn_to(states, 0)
            act(states, PREPARE)
            # The summer Meadow draw is part of your prepare: only spring's block holds yet.
            offered = {i for i in range(8) if meadow(i) in legal(states)}
            assert offered == set(range(8)) - SOLO_BLOCKED_MEADOW[SPRING]
            act(states, DONE)
        else:
            advance_season(states)
        set_resources(states, 0, twig=9, resin=9, pebble=9, berry=9)
        turn_to(states, 0)
        playable = {
            a - R.A_PLAY_MEADOW for a in legal(states) if R.A_PLAY_MEADOW <= a < R.A_PREPARE
        }
        assert playable == set(range(8)) - SOLO_BLOCKED_MEADOW[season], season


def test_solo_rugwort_still_plays_a_meadow_card_he_blocks():
    """Solo: his d8 may land on a Meadow card under his worker; he plays it."""
    states = blank(1)
    roll = d8_roll(states)
    state(states)["rug_meadow"] = 1 << roll
    give(states, 0, "farm")
    set_resources(states, 0, twig=2, resin=1)
    turn_to(states, 0)
    rolled = meadow_of(states)[roll]
    act(states, play_hand("farm"))
    assert int(state(states)["rug_city"][CARD[rolled]]) == 1


@pytest.mark.parametrize("year", [1, 2, 3])
def test_solo_rugwort_forest_worker_moves_then_journeys(year):
    """Solo: his forest worker moves to the next forest card after each of your prepares; in
    autumn it leaves for the Journey space 3, 4 or 5 (years 1, 2, 3), which it blocks."""
    states = blank(1, options=year)
    blocked = []
    for _season in (SPRING, SUMMER, AUTUMN):
        forest = {j for j in range(3) if place_forest(j) not in legal(states)}
        blocked.append(forest)
        advance_season(states)
    forest = {j for j in range(3) if place_forest(j) not in legal(states)}
    blocked.append(forest)
    assert blocked == [{0}, {1}, {2}, set()]
    give(states, 0, "king", "queen", "castle", "palace", "school")
    turn_to(states, 0)
    journeys = {n for n in (5, 4, 3, 2) if place_journey(n) in legal(states)}
    assert journeys == {5, 4, 3, 2} - {2 + year}


@pytest.mark.parametrize("year", [1, 2, 3])
def test_solo_rugwort_basic_worker_route_and_year_3_autumn(year):
    """Solo: his basic worker goes 3 twigs -> 2 resin (spring) -> pebble (summer) -> berry +
    card (autumn); in year 3 it leaves instead and you play autumn with one worker fewer."""
    states = blank(1, options=year)
    route = ["basic_3_twig", "basic_2_resin", "basic_1_pebble", "basic_1_berry_1_card"]
    exclusive = sorted(EXCLUSIVE_BASIC)
    seen = []
    for step in range(4):
        if step:
            advance_season(states)
        seen.append({k for k in exclusive if place_basic(k) not in legal(states)})
    expected = [{k} for k in route]
    workers = 6
    if year == 3:
        expected[3] = set()
        workers = 5
    assert seen == expected
    assert int(state(states)["workers"][0]) == workers == free_workers(states, 0)


def test_solo_rugwort_claims_basic_events_after_your_prepare():
    """Solo: after your prepare he achieves each basic event whose colour count his city
    meets (here 3 Travelers, not 4 Production)."""
    states = blank(1)
    build(states, 1, "wanderer", "postal_pigeon", "ruins", "farm", "farm", "mine")
    build(states, 0, "bard", "ranger", "shepherd")
    turn_to(states, 0)
    owner = state(states)["event_owner"]
    assert int(owner[EVENT["cartographers_expedition"]]) == -1
    deploy(states, 0, n=1)
    turn_to(states, 0)
    assert place_event(states, "cartographers_expedition") in legal(states)
    advance_season(states)
    assert int(owner[EVENT["cartographers_expedition"]]) == R.RUGWORT
    assert int(owner[EVENT["harvest_festival"]]) == -1
    assert place_event(states, "cartographers_expedition") not in legal(states)


# Solo scoring restated from the solo rules: 2 per card (3 per purple Prosperity card), 3 per
# basic event, per special event you missed 3 (year 1) or 6 (years 2-3), his Journey space.
MISSED_SPECIAL = {1: 3, 2: 6, 3: 6}
RUG_JOURNEY = {1: 3, 2: 4, 3: 5}


@pytest.mark.parametrize("year", [1, 2, 3])
def test_solo_rugwort_score_by_year(year):
    """Solo: Rugwort's score formula for each year, and the game's result."""
    states = blank(1, season=AUTUMN, options=year)
    build(states, 1, "farm", "farm", "castle")
    s = state(states)
    s["event_owner"][EVENT["grand_tour"]] = R.RUGWORT
    s["event_owner"][int(s["specials"][0])] = 0  # you achieved 1 of the 4
    s["rug_journey"] = LOC[f"journey_{RUG_JOURNEY[year]}"]
    s["tokens"][R.RUGWORT] = 2  # given by your visits to his Inn / Post Office
    expected = (2 + 2 + 3) + 3 + 3 * MISSED_SPECIAL[year] + RUG_JOURNEY[year] + 2
    assert score(states, R.RUGWORT) == expected
    finish(states)
    assert int(s["score"][R.RUGWORT]) == expected and int(s["winner"]) == R.RUGWORT


def test_solo_visiting_rugworts_inn_gives_him_a_point_token():
    """Solo: you may visit an Inn in his city; he takes the point token."""
    states = blank(1)
    build(states, 1, "inn")
    turn_to(states, 0)
    act(states, R.A_PLACE_RUGWORT)
    assert int(state(states)["tokens"][R.RUGWORT]) == 1
    assert pending(states) == (R.PK_MEADOW, 0)
    act(states, meadow(0))
    assert city_of(states, 0) == ["farm"]
    assert int(state(states)["rug_city"].sum()) == 1 + 1  # his Inn and the card he plays
