"""Everdell card, event and location tables (envs/everdell/data): counts, ranges, names, keys.

The expected keys and numbers below are a second transcription of the reference lists, not read
from the CSV files. When the reference JSON files are present (``EVERDELL_REFERENCE_DIR``,
default ``/work/shared/reference/everdell``) one more test compares every numeric field with
them; elsewhere it is skipped.
"""

import json
import os
from pathlib import Path

import numpy as np
import pytest
from game_cases import assert_name_tables

from meeple_gym.everdell import data as d

# key: (kind, color, unique, copies, (twig, resin, pebble, berry), points, pairs)
C, K = "critter", "construction"
CARDS = {
    "architect": (C, "prosperity", 1, 2, (0, 0, 0, 4), 2, "crane"),
    "bard": (C, "traveler", 1, 2, (0, 0, 0, 3), 0, "theater"),
    "barge_toad": (C, "production", 0, 3, (0, 0, 0, 2), 1, "twig_barge"),
    "castle": (K, "prosperity", 1, 2, (2, 3, 3, 0), 4, "king"),
    "cemetery": (K, "destination", 1, 2, (0, 0, 2, 0), 0, "undertaker"),
    "chapel": (K, "destination", 1, 2, (2, 1, 1, 0), 2, "shepherd"),
    "chip_sweep": (C, "production", 0, 3, (0, 0, 0, 3), 2, "resin_refinery"),
    "clock_tower": (K, "governance", 1, 3, (3, 0, 1, 0), 0, "historian"),
    "courthouse": (K, "governance", 1, 2, (1, 1, 2, 0), 2, "judge"),
    "crane": (K, "governance", 1, 3, (0, 0, 1, 0), 1, "architect"),
    "doctor": (C, "production", 1, 2, (0, 0, 0, 4), 4, "university"),
    "dungeon": (K, "governance", 1, 2, (0, 1, 2, 0), 0, "ranger"),
    "ever_tree": (K, "prosperity", 1, 2, (3, 3, 3, 0), 5, "any"),
    "fairgrounds": (K, "production", 1, 3, (1, 2, 1, 0), 3, "fool"),
    "farm": (K, "production", 0, 8, (2, 1, 0, 0), 1, "husband wife"),
    "fool": (C, "traveler", 1, 2, (0, 0, 0, 3), -2, "fairgrounds"),
    "general_store": (K, "production", 0, 3, (0, 1, 1, 0), 1, "shopkeeper"),
    "historian": (C, "governance", 1, 3, (0, 0, 0, 2), 1, "clock_tower"),
    "husband": (C, "production", 0, 4, (0, 0, 0, 3), 2, "farm"),
    "inn": (K, "destination", 0, 3, (2, 1, 0, 0), 2, "innkeeper"),
    "innkeeper": (C, "governance", 1, 3, (0, 0, 0, 1), 1, "inn"),
    "judge": (C, "governance", 1, 2, (0, 0, 0, 3), 2, "courthouse"),
    "king": (C, "prosperity", 1, 2, (0, 0, 0, 6), 4, "castle"),
    "lookout": (K, "destination", 1, 2, (1, 1, 1, 0), 2, "wanderer"),
    "mine": (K, "production", 0, 3, (1, 1, 1, 0), 2, "miner_mole"),
    "miner_mole": (C, "production", 0, 3, (0, 0, 0, 3), 1, "mine"),
    "monastery": (K, "destination", 1, 2, (1, 1, 1, 0), 1, "monk"),
    "monk": (C, "production", 1, 2, (0, 0, 0, 1), 0, "monastery"),
    "palace": (K, "prosperity", 1, 2, (2, 3, 3, 0), 4, "queen"),
    "peddler": (C, "production", 0, 3, (0, 0, 0, 2), 1, "ruins"),
    "post_office": (K, "destination", 0, 3, (1, 2, 0, 0), 2, "postal_pigeon"),
    "postal_pigeon": (C, "traveler", 0, 3, (0, 0, 0, 2), 0, "post_office"),
    "queen": (C, "destination", 1, 2, (0, 0, 0, 5), 4, "palace"),
    "ranger": (C, "traveler", 1, 2, (0, 0, 0, 2), 1, "dungeon"),
    "resin_refinery": (K, "production", 0, 3, (0, 1, 1, 0), 1, "chip_sweep"),
    "ruins": (K, "traveler", 0, 3, (0, 0, 0, 0), 0, "peddler"),
    "school": (K, "prosperity", 1, 2, (2, 2, 0, 0), 2, "teacher"),
    "shepherd": (C, "traveler", 1, 2, (0, 0, 0, 3), 1, "chapel"),
    "shopkeeper": (C, "governance", 1, 3, (0, 0, 0, 2), 1, "general_store"),
    "storehouse": (K, "production", 0, 3, (1, 1, 1, 0), 2, "woodcarver"),
    "teacher": (C, "production", 0, 3, (0, 0, 0, 2), 2, "school"),
    "theater": (K, "prosperity", 1, 2, (3, 1, 1, 0), 3, "bard"),
    "twig_barge": (K, "production", 0, 3, (1, 0, 1, 0), 1, "barge_toad"),
    "undertaker": (C, "traveler", 1, 2, (0, 0, 0, 2), 1, "cemetery"),
    "university": (K, "destination", 1, 2, (0, 1, 2, 0), 3, "doctor"),
    "wanderer": (C, "traveler", 0, 3, (0, 0, 0, 2), 1, "lookout"),
    "wife": (C, "prosperity", 0, 4, (0, 0, 0, 2), 2, "farm"),
    "woodcarver": (C, "production", 0, 3, (0, 0, 0, 2), 2, "storehouse"),
}

# key: (required cards or colour, points or VARIABLE)
BASIC_EVENTS = {
    "cartographers_expedition": ("traveler", 3),
    "city_monument": ("governance", 3),
    "grand_tour": ("destination", 3),
    "harvest_festival": ("production", 4),
}
SPECIAL_EVENTS = {
    "a_brilliant_marketing_plan": ("shopkeeper post_office", -1),
    "a_wee_run_city": ("chip_sweep clock_tower", 4),
    "an_evening_of_fireworks": ("lookout miner_mole", -1),
    "ancient_scrolls_discovered": ("historian ruins", -1),
    "capture_of_the_acorn_thieves": ("courthouse ranger", -1),
    "croak_wart_cure": ("undertaker barge_toad", 6),
    "flying_doctor_service": ("doctor postal_pigeon", -1),
    "graduation_of_scholars": ("teacher university", -1),
    "ministering_to_miscreants": ("monk dungeon", -1),
    "path_of_the_pilgrims": ("monastery wanderer", -1),
    "performer_in_residence": ("inn bard", -1),
    "pristine_chapel_ceiling": ("woodcarver chapel", -1),
    "remembering_the_fallen": ("cemetery shepherd", -1),
    "tax_relief": ("judge queen", 3),
    "the_everdell_games": ("", 9),
    "under_new_management": ("peddler general_store", -1),
}

# Basic spaces in board order: (twig, resin, pebble, berry, cards, points, exclusive)
BASIC = {
    "basic_3_twig": (3, 0, 0, 0, 0, 0, 1),
    "basic_2_twig_1_card": (2, 0, 0, 0, 1, 0, 0),
    "basic_2_resin": (0, 2, 0, 0, 0, 0, 1),
    "basic_1_resin_1_card": (0, 1, 0, 0, 1, 0, 0),
    "basic_2_card_1_point": (0, 0, 0, 0, 2, 1, 0),
    "basic_1_pebble": (0, 0, 1, 0, 0, 0, 1),
    "basic_1_berry_1_card": (0, 0, 0, 1, 1, 0, 1),
    "basic_1_berry": (0, 0, 0, 1, 0, 0, 0),
}


def test_48_card_types_make_128_cards():
    """EVD-S4: the deck holds 128 Critter and Construction cards over 48 types (24 + 24)."""
    assert d.N_CARD_TYPES == 48
    assert list(d.CARD_KEYS) == list(CARDS)
    assert list(d.CARD_NAMES) == sorted(d.CARD_NAMES)
    assert d.DECK_SIZE == int(d.CARD_COPIES.sum()) == 128
    assert len(d.CRITTERS) == len(d.CONSTRUCTIONS) == 24
    assert int(d.CARD_COPIES[list(d.CRITTERS)].sum()) == 63
    assert int(d.CARD_COPIES[list(d.CONSTRUCTIONS)].sum()) == 65
    for table in (d.CARD_KIND, d.CARD_COLOR, d.CARD_UNIQUE, d.CARD_COPIES, d.CARD_POINTS):
        assert table.shape == (48,)
    assert d.CARD_COST.shape == (48, 4)


def test_card_fields():
    """EVD-P1, EVD-P2, EVD-P5: printed kind, colour, Unique/Common, cost and base points."""
    for key, (kind, color, unique, copies, cost, points, _) in CARDS.items():
        i = d.CARD_ID[key]
        assert d.KINDS[d.CARD_KIND[i]] == kind, key
        assert d.COLORS[d.CARD_COLOR[i]] == color, key
        assert d.CARD_UNIQUE[i] == unique, key
        assert d.CARD_COPIES[i] == copies, key
        assert tuple(d.CARD_COST[i]) == cost, key
        assert d.CARD_POINTS[i] == points, key


def test_unique_cards_and_copies():
    """EVD-P2: "Unique" limits a city to one copy, not the deck: Unique types have 2-3 copies
    (29 types, 64 cards), Common types 3-8 (19 types, 64 cards; Farm 8, Husband and Wife 4)."""
    unique = d.CARD_UNIQUE == 1
    assert int(unique.sum()) == 29 and int(d.CARD_COPIES[unique].sum()) == 64
    assert set(d.CARD_COPIES[unique].tolist()) == {2, 3}
    assert int(d.CARD_COPIES[~unique].sum()) == 64
    assert d.CARD_COPIES[~unique].min() == 3 and d.CARD_COPIES[~unique].max() == 8
    common_many = {d.CARD_KEYS[i] for i in np.flatnonzero(d.CARD_COPIES > 3)}
    assert common_many == {"farm", "husband", "wife"}
    critter = d.CARD_KIND == d.CRITTER
    assert int(d.CARD_COPIES[unique & critter].sum()) == 31
    assert int(d.CARD_COPIES[unique & ~critter].sum()) == 33


def test_value_ranges():
    """EVD-P1: critters cost only berries, constructions no berries; Ruins is free; points."""
    critter = d.CARD_KIND == d.CRITTER
    assert np.all(d.CARD_COST[critter, : d.BERRY] == 0)
    assert np.all(d.CARD_COST[critter, d.BERRY] >= 1)
    assert np.all(d.CARD_COST[~critter, d.BERRY] == 0)
    assert np.all(d.CARD_COST >= 0) and d.CARD_COST.max() <= 6
    free = {d.CARD_KEYS[i] for i in np.flatnonzero(d.CARD_COST.sum(1) == 0)}
    assert free == {"ruins"}
    assert d.CARD_POINTS.min() == -2 and d.CARD_POINTS.max() == 5
    assert {d.CARD_KEYS[i] for i in np.flatnonzero(d.CARD_POINTS < 0)} == {"fool"}
    assert set(d.CARD_COLOR.tolist()) == set(range(5))
    assert {d.CARD_KEYS[i] for i in np.flatnonzero(d.CARD_CITY_SPACE == 0)} == {"wanderer"}


def test_pairings_refer_to_cards_of_the_other_kind():
    """EVD-P3: each critter names a Construction that admits it for free, and vice versa."""
    for key, (kind, *_, pairs) in CARDS.items():
        i = d.CARD_ID[key]
        if kind == C:
            home = d.CRITTER_HOME[i]
            assert d.CARD_KEYS[home] == pairs, key
            assert d.CARD_KIND[home] == d.CONSTRUCTION
            assert i in d.CONSTRUCTION_ADMITS[home].tolist() or d.CARD_ADMITS_ANY[home]
            assert np.all(d.CONSTRUCTION_ADMITS[i] == d.NONE)
        else:
            assert d.CRITTER_HOME[i] == d.NONE
            admits = [j for j in d.CONSTRUCTION_ADMITS[i].tolist() if j != d.NONE]
            if pairs == "any":
                assert d.CARD_ADMITS_ANY[i] == 1 and not admits
                continue
            assert [d.CARD_KEYS[j] for j in admits] == pairs.split(), key
            for j in admits:
                assert d.CARD_KIND[j] == d.CRITTER and d.CRITTER_HOME[j] == i
    assert {d.CARD_KEYS[i] for i in np.flatnonzero(d.CARD_ADMITS_ANY)} == {"ever_tree"}
    # Every critter has its own home; only the Farm admits two (Husband and Wife).
    homes = d.CRITTER_HOME[list(d.CRITTERS)].tolist()
    assert len(set(homes)) == 23 and homes.count(d.CARD_ID["farm"]) == 2


def test_worker_spots_on_cards():
    """EVD-W4: Destinations hold a worker; only Inn and Post Office are open to opponents."""
    spots = {d.CARD_KEYS[i] for i in np.flatnonzero(d.CARD_WORKER_SPOTS)}
    red = {d.CARD_KEYS[i] for i in np.flatnonzero(d.CARD_COLOR == d.DESTINATION)}
    assert spots == red | {"storehouse"}
    assert {d.CARD_KEYS[i] for i in np.flatnonzero(d.CARD_OPEN)} == {"inn", "post_office"}
    two = {d.CARD_KEYS[i] for i in np.flatnonzero(d.CARD_MAX_WORKER_SPOTS == 2)}
    assert two == {"cemetery", "monastery"}
    assert {d.CARD_KEYS[i] for i in np.flatnonzero(d.CARD_PERMANENT_WORKER)} == two


def test_4_basic_and_16_special_events():
    """EVD-S3, EVD-W5: 4 basic events always available; 16 special events, 4 dealt."""
    assert d.N_EVENTS == 20 and d.SPECIAL_EVENTS_DEALT == 4
    assert d.BASIC_EVENTS == tuple(range(4)) and d.SPECIAL_EVENTS == tuple(range(4, 20))
    assert list(d.EVENT_KEYS) == list(BASIC_EVENTS) + list(SPECIAL_EVENTS)
    for key, (color, count) in BASIC_EVENTS.items():
        i = d.EVENT_ID[key]
        assert d.COLORS[d.EVENT_REQ_COLOR[i]] == color and d.EVENT_REQ_COUNT[i] == count
        assert d.EVENT_POINTS[i] == 3 and np.all(d.EVENT_REQ_CARDS[i] == d.NONE)
    for key, (cards, points) in SPECIAL_EVENTS.items():
        i = d.EVENT_ID[key]
        need = [d.CARD_KEYS[j] for j in d.EVENT_REQ_CARDS[i].tolist() if j != d.NONE]
        assert need == cards.split(), key
        assert d.EVENT_POINTS[i] == points, key
    games = d.EVENT_ID["the_everdell_games"]
    assert d.EVENT_REQ_COLOR[games] == d.ALL_COLORS and d.EVENT_REQ_COUNT[games] == 2
    assert {d.EVENT_KEYS[i] for i in np.flatnonzero(d.EVENT_COST_BERRY)} == {"croak_wart_cure"}
    variable = d.EVENT_POINTS == d.VARIABLE
    assert np.all(d.EVENT_POINTS_EACH[variable] != 0)
    assert np.all(d.EVENT_POINTS_EACH[~variable] == 0)
    assert d.EVENT_MAX_POINTS.max() == 9 and d.EVENT_MAX_POINTS.min() == -1


def test_8_basic_locations():
    """EVD-W1, EVD-W2: 8 basic spaces; none is 4-player-only; 4 exclusive, 4 shared."""
    assert len(d.BASIC_LOCATIONS) == 8
    assert [d.LOCATION_KEYS[i] for i in d.BASIC_LOCATIONS] == list(BASIC)
    for key, (*gain, cards, points, exclusive) in BASIC.items():
        i = d.LOCATION_ID[key]
        assert d.LOCATION_GAIN[i].tolist() == gain, key
        assert (d.LOCATION_CARDS[i], d.LOCATION_POINTS[i]) == (cards, points), key
        assert d.LOCATION_EXCLUSIVE[i] == exclusive, key
    assert np.all(d.LOCATION_EXTRA_SPOT_4P[list(d.BASIC_LOCATIONS)] == 0)


def test_11_forest_cards():
    """EVD-S2, EVD-W1: 11 forest cards, 3 dealt with 1-2 players and 4 with 3-4; each has one
    exclusive spot plus a spot used only with 4 players."""
    forest = list(d.FOREST_LOCATIONS)
    assert len(forest) == 11
    assert dict(d.FOREST_DEALT) == {1: 3, 2: 3, 3: 4, 4: 4}
    assert np.all(d.LOCATION_EXCLUSIVE[forest] == 1)
    assert np.all(d.LOCATION_EXTRA_SPOT_4P[forest] == 1)
    assert np.all(d.LOCATION_EXTRA_SPOT_4P[d.LOCATION_KIND != d.LOC_FOREST] == 0)


def test_haven_and_journey():
    """EVD-W6: Haven is shared. EVD-W7: Journey 5/4/3 exclusive, 2 shared, autumn only."""
    assert d.LOCATION_KEYS[d.HAVEN] == "haven" and d.LOCATION_EXCLUSIVE[d.HAVEN] == 0
    journey = list(d.JOURNEY_LOCATIONS)
    assert d.LOCATION_POINTS[journey].tolist() == [5, 4, 3, 2]
    assert np.array_equal(d.LOCATION_DISCARD[journey], d.LOCATION_POINTS[journey])
    assert d.LOCATION_EXCLUSIVE[journey].tolist() == [1, 1, 1, 0]
    assert np.all(d.LOCATION_SEASON[journey] == d.AUTUMN)


def test_seasons():
    """EVD-S5, EVD-F2..F4: 2 starting workers, +1 spring, +1 summer, +2 autumn (6 in all);
    production in spring and autumn only; summer takes up to 2 Meadow cards."""
    assert d.SEASON_NEW_WORKERS.tolist() == [2, 1, 1, 2]
    assert int(d.SEASON_NEW_WORKERS.sum()) == d.MAX_WORKERS == 6
    assert d.SEASON_PRODUCTION.tolist() == [0, 1, 0, 1]
    assert d.LOCATION_CARDS[d.LOCATION_ID["summer"]] == 2


def test_setup_and_limits():
    """EVD-D2: hand limit 8. EVD-P4: city limit 15. EVD-S4: Meadow 8. EVD-S6: hands 5-8."""
    assert d.HAND_LIMIT == 8 and d.CITY_LIMIT == 15 and d.MEADOW_SIZE == 8
    assert d.STARTING_WORKERS == 2 and d.STARTING_HAND == (5, 6, 7, 8)


def test_names_and_keys_unique_and_consistent():
    tables = (
        (d.CARD_KEYS, d.CARD_NAMES, d.CARD_ID, 48),
        (d.EVENT_KEYS, d.EVENT_NAMES, d.EVENT_ID, 20),
        (d.LOCATION_KEYS, d.LOCATION_NAMES, d.LOCATION_ID, 27),
    )
    assert_name_tables(tables)
    for summaries in (d.CARD_SUMMARIES, d.EVENT_SUMMARIES, d.LOCATION_SUMMARIES):
        assert all(0 < len(s) <= 120 for s in summaries)


def test_tables_are_read_only():
    with pytest.raises(ValueError):
        d.CARD_COST[0, 0] = 9
    with pytest.raises(ValueError):
        d.EVENT_POINTS[0] = 9


REF = Path(os.environ.get("EVERDELL_REFERENCE_DIR", "/work/shared/reference/everdell"))


@pytest.mark.skipif(not (REF / "cards.json").exists(), reason="reference JSON not present")
def test_matches_reference_json():
    """Keys match the reference ids; every number matches the reference's chosen value."""
    cards = json.loads((REF / "cards.json").read_text())["cards"]
    assert {c["id"] for c in cards} == set(d.CARD_KEYS)
    name_key = {c["name"]: c["id"] for c in cards}
    for c in cards:
        i = d.CARD_ID[c["id"]]
        assert d.CARD_NAMES[i] == c["name"]
        assert d.KINDS[d.CARD_KIND[i]] == c["kind"] and d.COLORS[d.CARD_COLOR[i]] == c["color"]
        assert d.CARD_UNIQUE[i] == int(c["unique"]) and d.CARD_COPIES[i] == c["copies_in_deck"]
        assert d.CARD_COST[i].tolist() == [c["cost"][r] for r in d.RESOURCES]
        assert d.CARD_POINTS[i] == c["base_points"]
        if c["kind"] == "critter":
            assert d.CARD_KEYS[d.CRITTER_HOME[i]] == name_key[c["free_via_construction"]]
    events = json.loads((REF / "events.json").read_text())
    ref_events = events["basic_events"] + events["special_events"]
    assert {e["id"] for e in ref_events} == set(d.EVENT_KEYS)
    for e in events["basic_events"]:
        assert d.EVENT_POINTS[d.EVENT_ID[e["id"]]] == e["points"]
        assert d.EVENT_REQ_COUNT[d.EVENT_ID[e["id"]]] == e["requirement"]["count"]
    for e in events["special_events"]:
        i = d.EVENT_ID[e["id"]]
        scoring = e["scoring"]
        if "per" in scoring or "per_resource" in scoring:
            assert d.EVENT_POINTS[i] == d.VARIABLE
        else:
            assert d.EVENT_POINTS[i] == scoring["fixed"]
        assert d.EVENT_MAX_POINTS[i] == scoring.get("max_points", d.EVENT_MAX_POINTS[i])
    locations = json.loads((REF / "locations.json").read_text())
    basic = locations["basic_locations"]["spaces"]
    assert [s["id"] for s in basic] == [d.LOCATION_KEYS[i] for i in d.BASIC_LOCATIONS]
    for s in basic:
        i = d.LOCATION_ID[s["id"]]
        assert d.LOCATION_GAIN[i].tolist() == [s["gain"].get(r, 0) for r in d.RESOURCES]
        assert d.LOCATION_CARDS[i] == s["draw"] and d.LOCATION_POINTS[i] == s["point_tokens"]
    forest = {c["id"] for c in locations["forest_locations"]["cards"]}
    assert forest == {d.LOCATION_KEYS[i] for i in d.FOREST_LOCATIONS}
    for s in locations["journey"]["spaces"]:
        assert d.LOCATION_POINTS[d.LOCATION_ID[s["id"]]] == s["points"]
    limits = locations["limits"]
    assert (limits["hand_limit"], limits["city_spaces"]) == (d.HAND_LIMIT, d.CITY_LIMIT)
    assert list(d.STARTING_HAND) == list(locations["setup"]["starting_hand_by_seat"].values())
