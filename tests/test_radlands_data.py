"""Radlands card tables (envs/radlands/data): counts, value ranges, names and keys.

The expected keys and numbers below are a second transcription of the reference card lists
(camps, people, events), not read from the CSV files. When the reference JSON files are present
(``RADLANDS_REFERENCE_DIR``, default ``/work/shared/reference/radlands``) one more test compares
every numeric field with them; elsewhere it is skipped.
"""

import collections
import json
import os
from operator import itemgetter
from pathlib import Path

import numpy as np
import pytest

from meeple_gym.radlands import data as d

CAMP_KEYS = (
    "adrenaline_lab arcade atomic_garden blood_bank bonfire cache cannon catapult command_post "
    "construction_yard garage juggernaut labor_camp mercenary_camp mulcher nest_of_spies oasis "
    "obelisk omen_clock outpost parachute_base pillbox railgun reactor resonator scavenger_camp "
    "scud_launcher supply_depot the_octagon training_camp transplant_lab victory_totem warehouse "
    "watchtower"
).split()
# Starting cards per camp, same order as CAMP_KEYS.
CAMP_DRAW = [1, 1, 1, 1, 1, 1, 1, 0, 2, 2, 0, 0, 1, 0, 0, 1, 1,
             3, 1, 1, 1, 1, 0, 1, 1, 1, 0, 2, 0, 1, 2, 1, 1, 0]  # fmt: skip

# key: (copies, cost, junk)
PEOPLE = {
    "argo_yesky": (1, 3, "gain_punk"),
    "assassin": (2, 1, "raid"),
    "cult_leader": (2, 1, "draw"),
    "doomsayer": (2, 1, "draw"),
    "exterminator": (2, 1, "draw"),
    "gunner": (2, 1, "restore"),
    "holdout": (2, 2, "raid"),
    "karli_blaze": (1, 3, "gain_punk"),
    "looter": (2, 1, "water"),
    "magnus_karv": (1, 3, "gain_punk"),
    "mimic": (2, 1, "injure"),
    "molgur_stang": (1, 4, "gain_punk"),
    "muse": (2, 1, "injure"),
    "mutant": (2, 1, "injure"),
    "pyromaniac": (2, 1, "injure"),
    "rabble_rouser": (2, 1, "raid"),
    "repair_bot": (2, 1, "injure"),
    "rescue_team": (2, 1, "injure"),
    "scientist": (2, 1, "raid"),
    "scout": (2, 1, "water"),
    "sniper": (2, 1, "restore"),
    "vanguard": (2, 1, "raid"),
    "vera_vosh": (1, 3, "gain_punk"),
    "vigilante": (2, 1, "raid"),
    "wounded_soldier": (2, 1, "injure"),
    "zeto_khan": (1, 3, "gain_punk"),
}

# key: (cost, bomb, junk); every event type has 2 copies.
EVENTS = {
    "banish": (1, 1, "raid"),
    "bombardment": (4, 3, "restore"),
    "famine": (1, 1, "injure"),
    "high_ground": (0, 1, "water"),
    "interrogate": (1, 0, "water"),
    "napalm": (2, 1, "restore"),
    "radiation": (2, 1, "raid"),
    "strafe": (2, 0, "draw"),
    "truce": (2, 0, "injure"),
    "uprising": (1, 2, "injure"),
}


def test_34_camps_in_alphabetical_order():
    """RAD-S1: the base camp deck holds 34 camps (Cult of Chrome camps are not tabulated)."""
    assert d.N_CAMPS == 34
    assert list(d.CAMP_KEYS) == CAMP_KEYS
    assert list(d.CAMP_NAMES) == sorted(d.CAMP_NAMES)
    for table in (d.CAMP_DRAW, d.CAMP_N_ABILITIES, d.CAMP_HAS_TRAIT):
        assert table.shape == (34,)
    assert d.CAMP_ABILITY_COST.shape == (34, 2)


def test_camp_draw_numbers():
    """RAD-K1, RAD-S4: each camp's draw number (0-3) adds cards to the opening hand."""
    assert d.CAMP_DRAW.tolist() == CAMP_DRAW
    assert d.CAMP_DRAW.min() == 0 and d.CAMP_DRAW.max() == 3
    assert int(d.CAMP_DRAW.sum()) == 31
    assert d.CAMP_DRAW[d.CAMP_ID["obelisk"]] == 3


def test_camp_abilities_and_traits():
    """RAD-K1: a camp has 0-2 abilities and maybe a trait; "?" costs are VARIABLE_COST."""
    n = d.CAMP_N_ABILITIES
    assert set(n.tolist()) <= {0, 1, 2}
    cost = d.CAMP_ABILITY_COST
    for slot in range(2):
        used = n > slot
        assert np.all(cost[~used, slot] == 0)
        assert np.all((cost[used, slot] >= 0) | (cost[used, slot] == d.VARIABLE_COST))
        assert cost[used, slot].max() <= 3
    variable = {d.CAMP_KEYS[i] for i in np.flatnonzero(cost[:, 0] == d.VARIABLE_COST)}
    assert variable == {"adrenaline_lab", "parachute_base"}
    two = {d.CAMP_KEYS[i] for i in np.flatnonzero(n == 2)}
    assert two == {"outpost", "scavenger_camp", "victory_totem"}
    traits = {d.CAMP_KEYS[i] for i in np.flatnonzero(d.CAMP_HAS_TRAIT)}
    assert traits == {"bonfire", "oasis", "obelisk"}
    # A camp without abilities has a trait instead.
    assert np.all(d.CAMP_HAS_TRAIT[n == 0] == 1)


def test_first_game_camp_sets():
    """RAD-S3: the first-game option gives one player Arcade, Victory Totem, Mercenary Camp and
    the other Garage, Railgun, Supply Depot; both sets start with 2 cards."""
    a = {d.CAMP_KEYS[i] for i in d.FIRST_GAME_A}
    b = {d.CAMP_KEYS[i] for i in d.FIRST_GAME_B}
    assert a == {"arcade", "victory_totem", "mercenary_camp"}
    assert b == {"garage", "railgun", "supply_depot"}
    assert not a & b
    assert int(d.CAMP_DRAW[list(d.FIRST_GAME_A)].sum()) == 2
    assert int(d.CAMP_DRAW[list(d.FIRST_GAME_B)].sum()) == 2


def test_26_person_types_make_46_cards():
    """RAD-S2: 46 people; 20 types with 2 copies and 6 unique people with 1 copy."""
    assert d.N_PERSON_TYPES == 26
    assert list(d.PERSON_KEYS) == list(PEOPLE)
    assert int(d.PERSON_COPIES.sum()) == 46
    assert np.all(d.PERSON_COPIES[d.PERSON_UNIQUE == 1] == 1)
    assert np.all(d.PERSON_COPIES[d.PERSON_UNIQUE == 0] == 2)
    assert int(d.PERSON_UNIQUE.sum()) == 6


def test_person_cost_junk_and_abilities():
    """RAD-K2: a person has a water cost, a junk effect, abilities and maybe traits."""
    for key, (copies, cost, junk) in PEOPLE.items():
        i = d.PERSON_ID[key]
        assert d.PERSON_COPIES[i] == copies, key
        assert d.PERSON_COST[i] == cost, key
        assert d.JUNK_NAMES[d.PERSON_JUNK[i]] == junk, key
    assert np.all(d.PERSON_N_ABILITIES >= 1) and np.all(d.PERSON_N_ABILITIES <= 2)
    cost = d.PERSON_ABILITY_COST
    assert cost.shape == (26, 2)
    assert np.all(cost[d.PERSON_N_ABILITIES == 1, 1] == 0)
    assert {d.PERSON_KEYS[i] for i in np.flatnonzero(cost[:, 0] == d.VARIABLE_COST)} == {"mimic"}
    assert {d.PERSON_KEYS[i] for i in np.flatnonzero(d.PERSON_N_ABILITIES == 2)} == {
        "rabble_rouser"
    }
    assert cost.max() <= 2 and cost.min() >= d.VARIABLE_COST
    # Junk icons counted over the 46 cards.
    counts = collections.Counter()
    for i in range(26):
        counts[d.JUNK_NAMES[d.PERSON_JUNK[i]]] += int(d.PERSON_COPIES[i])
    assert counts == {"injure": 14, "raid": 12, "draw": 6, "gain_punk": 6, "water": 4, "restore": 4}


def test_10_event_types_make_20_cards():
    """RAD-S2, RAD-K5: 20 events, 2 of each type; a bomb number 0-3 names the queue slot."""
    assert d.N_EVENT_TYPES == 10
    assert list(d.EVENT_KEYS) == list(EVENTS)
    assert np.all(d.EVENT_COPIES == 2)
    for key, (cost, bomb, junk) in EVENTS.items():
        i = d.EVENT_ID[key]
        assert d.EVENT_COST[i] == cost, key
        assert d.EVENT_BOMB[i] == bomb, key
        assert d.JUNK_NAMES[d.EVENT_JUNK[i]] == junk, key
    assert d.EVENT_BOMB.min() >= 0 and d.EVENT_BOMB.max() <= 3


def test_raiders_and_water_silo():
    """RAD-I8: Raiders enter slot 3 by default (printed card: 2). RAD-A6: Silo costs 1."""
    assert d.RAIDERS_BOMB == 3
    assert d.RAIDERS_BOMB_PRINTED == 2
    assert d.WATER_SILO_TAKE_COST == 1
    assert d.WATER_SILO_JUNK == d.JUNK_WATER


def test_draw_deck_types():
    """RAD-S2: the draw deck is 46 people + 20 events = 66 cards over 36 types."""
    assert d.N_DECK_TYPES == 36 and d.FIRST_EVENT_TYPE == 26
    assert d.DECK_TYPE_COUNTS.shape == (36,)
    assert d.DECK_SIZE == int(d.DECK_TYPE_COUNTS.sum()) == 66
    assert int(d.DECK_TYPE_COUNTS[:26].sum()) == 46
    assert int(d.DECK_TYPE_COUNTS[26:].sum()) == 20
    assert d.DECK_TYPE_NAMES == d.PERSON_NAMES + d.EVENT_NAMES
    assert d.DECK_TYPE_IS_EVENT.tolist() == [0] * 26 + [1] * 10
    assert np.array_equal(d.DECK_TYPE_COST[26:], d.EVENT_COST)
    assert np.array_equal(d.DECK_TYPE_JUNK[:26], d.PERSON_JUNK)
    assert set(d.DECK_TYPE_JUNK.tolist()) == set(range(len(d.JUNK_NAMES)))


def test_names_and_keys_unique_and_consistent():
    all_names = d.CAMP_NAMES + d.DECK_TYPE_NAMES
    assert len(set(all_names)) == len(all_names) == 70
    assert len(set(d.DECK_TYPE_KEYS)) == 36
    indexes = (
        (d.CAMP_KEYS, d.CAMP_ID),
        (d.PERSON_KEYS, d.PERSON_ID),
        (d.EVENT_KEYS, d.EVENT_ID),
        (d.DECK_TYPE_KEYS, d.DECK_TYPE_ID),
    )
    for keys, index in indexes:
        assert [index[k] for k in keys] == list(range(len(keys)))
    for keys, names in ((d.CAMP_KEYS, d.CAMP_NAMES), (d.DECK_TYPE_KEYS, d.DECK_TYPE_NAMES)):
        for key, name in zip(keys, names, strict=True):
            assert key == name.lower().replace(" ", "_"), (key, name)
    for summaries in (d.CAMP_SUMMARIES, d.PERSON_SUMMARIES, d.EVENT_SUMMARIES):
        assert all(0 < len(s) <= 100 for s in summaries)


def test_tables_are_read_only():
    with pytest.raises(ValueError):
        d.CAMP_DRAW[0] = 2
    with pytest.raises(ValueError):
        d.DECK_TYPE_COUNTS[0] = 5
    with pytest.raises(TypeError):
        d.CAMP_ID["new"] = 99


REFERENCE = Path(os.environ.get("RADLANDS_REFERENCE_DIR", "/work/shared/reference/radlands"))


@pytest.mark.skipif(not (REFERENCE / "camps.json").exists(), reason="reference JSON not present")
def test_matches_reference_json():
    """RAD-S1, RAD-S2, RAD-K1, RAD-K2, RAD-K5: every key and number equals the reference."""

    def cost(c):
        return d.VARIABLE_COST if c in ("X", "?") else int(c)

    def ability_costs(abilities):
        return ([cost(a["cost"]) for a in abilities] + [0, 0])[:2]

    def check_cards(kind, entries, columns):
        """Every <kind>_KEYS key is in the reference; names and each column equal its field."""
        keys = getattr(d, f"{kind}_KEYS")
        ref = {e["id"]: e for e in entries}
        assert set(ref) == set(keys)
        for i, key in enumerate(keys):
            assert getattr(d, f"{kind}_NAMES")[i] == ref[key]["name"]
            for column, expected in columns.items():
                got = getattr(d, f"{kind}_{column}")[i]
                if column == "JUNK":
                    got = d.JUNK_NAMES[got]
                elif column == "ABILITY_COST":
                    got = got.tolist()
                assert got == expected(ref[key]), (key, column)

    abilities = {
        "N_ABILITIES": lambda e: len(e["abilities"]),
        "ABILITY_COST": lambda e: ability_costs(e["abilities"]),
        "HAS_TRAIT": lambda e: bool(e["traits"]),
    }
    copies, price, junk = itemgetter("copies"), itemgetter("cost"), itemgetter("junk")
    camps = json.loads((REFERENCE / "camps.json").read_text())
    check_cards("CAMP", camps["camps"], {"DRAW": itemgetter("starting_cards"), **abilities})
    first = camps["meta"]["first_game_setup"]
    assert {d.CAMP_KEYS[i] for i in d.FIRST_GAME_A} == set(first["player_a"])
    assert {d.CAMP_KEYS[i] for i in d.FIRST_GAME_B} == set(first["player_b"])
    people = json.loads((REFERENCE / "people.json").read_text())["people"]
    person_columns = {"COPIES": copies, "UNIQUE": itemgetter("unique"), "COST": price}
    check_cards("PERSON", people, {**person_columns, "JUNK": junk, **abilities})
    events = json.loads((REFERENCE / "events.json").read_text())
    event_columns = {"COPIES": copies, "COST": price, "BOMB": itemgetter("countdown")}
    check_cards("EVENT", events["events"], {**event_columns, "JUNK": junk})
    assert d.RAIDERS_BOMB_PRINTED == events["raiders"]["countdown"]
    assert d.WATER_SILO_TAKE_COST == events["water_silo"]["take_cost"]
