"""Endeavor region and card tables (envs/endeavor/data): counts, ranges, keys, abilities, balance.

Region numbers and setup constants are transcribed again here from the rules checklist
(``END-…`` ids); card contents are the project's design, so their tests check the limits the
checklist sets and the balance rule stated in the loader docstring.
"""

import math

import numpy as np
import pytest
from game_cases import assert_name_tables

from meeple_gym.endeavor import data as d

# key: (travel cost END-R1, open at start END-R2, previous on its chain END-R3, slots END-R4)
REGIONS = {
    "europe": (0, 1, None, 4),
    "west_africa": (1, 1, None, 3),
    "caribbean": (3, 0, "west_africa", 2),
    "south_america": (4, 0, "caribbean", 2),
    "india": (5, 0, "west_africa", 2),
    "southeast_asia": (6, 0, "india", 2),
    "china": (7, 0, "southeast_asia", 2),
}
ABILITY_WEIGHT = {
    d.ABILITY_NONE: 0,
    d.ABILITY_ROLE_BONUS: 1,
    d.ABILITY_TRAVEL_DISCOUNT: 2,
    d.ABILITY_EXTRA_GOOD: 1,
    d.ABILITY_DEFENCE: 1,
    d.ABILITY_REGION_POINTS: 1,
}


def test_7_regions():
    """END-R1..R4: travel table, the two open regions, sea-route chains and slot counts."""
    assert d.N_REGIONS == 7 and d.REGIONS == tuple(REGIONS) == d.REGION_KEYS
    for key, (travel, open_at_start, previous, slots) in REGIONS.items():
        i = d.REGION_ID[key]
        assert d.REGION_TRAVEL[i] == travel, key
        assert d.REGION_OPEN_AT_START[i] == open_at_start, key
        expected_previous = d.NONE if previous is None else d.REGION_ID[previous]
        assert d.REGION_PREVIOUS[i] == expected_previous, key
        assert d.REGION_SLOTS[i] == slots, key


def test_every_chain_starts_at_an_open_region():
    """END-R3: following the chain back from any region ends at a region open at the start."""
    for i in range(d.N_REGIONS):
        region, steps = i, 0
        while d.REGION_PREVIOUS[region] != d.NONE:
            assert d.REGION_TRAVEL[d.REGION_PREVIOUS[region]] < d.REGION_TRAVEL[region]
            region, steps = int(d.REGION_PREVIOUS[region]), steps + 1
            assert steps < d.N_REGIONS
        assert d.REGION_OPEN_AT_START[region] == 1
    assert d.REGION_PREVIOUS[d.EUROPE] == d.NONE


def test_49_cities_7_per_region():
    """END-C2 R: 7 regions x 7 city cards; a region's deck covers every slot it shows."""
    assert d.N_CITIES == 49 and d.CITIES_PER_REGION == 7
    assert np.bincount(d.CITY_REGION, minlength=7).tolist() == [7] * 7
    assert d.REGION_CITIES.shape == (7, 7)
    for region in range(d.N_REGIONS):
        assert np.all(d.CITY_REGION[d.REGION_CITIES[region]] == region)
    assert sorted(d.REGION_CITIES.ravel().tolist()) == list(range(49))
    assert np.all(d.REGION_SLOTS <= d.CITIES_PER_REGION)
    for table in (d.CITY_GOOD, d.CITY_SETTLE_COST, d.CITY_BUILD_COST, d.CITY_POINTS):
        assert table.shape == (49,)


def test_city_value_ranges():
    """END-G: settle 1 or 2 goods. END-A3 build cost 2..5; END-E2 points 1..3."""
    assert set(d.CITY_SETTLE_COST.tolist()) == {1, 2}
    assert d.CITY_BUILD_COST.min() >= 2 and d.CITY_BUILD_COST.max() <= 5
    assert d.CITY_POINTS.min() >= 1 and d.CITY_POINTS.max() <= 3


def test_far_cities_cost_and_score_more():
    """Region means of settle cost, build cost and points never fall as travel cost rises."""
    by_travel = np.argsort(d.REGION_TRAVEL, kind="stable")
    for table in (d.CITY_SETTLE_COST, d.CITY_BUILD_COST, d.CITY_POINTS):
        means = [table[d.REGION_CITIES[r]].mean() for r in by_travel]
        assert all(a <= b for a, b in zip(means, means[1:], strict=False)), means


def test_city_goods():
    """END-C2 R: 5 goods, each produced somewhere; each region leans to at most 2 goods, and
    the goods of the two starting regions differ (4 kinds available from the start)."""
    assert d.GOODS == ("tea", "coffee", "spice", "cocoa", "sugar")
    assert set(d.CITY_GOOD.tolist()) == set(range(5))
    for region in range(d.N_REGIONS):
        assert len(set(d.CITY_GOOD[d.REGION_CITIES[region]].tolist())) <= 2
    start = d.REGION_CITIES[[d.EUROPE, d.WEST_AFRICA]].ravel()
    assert len(set(d.CITY_GOOD[start].tolist())) == 4


def test_30_empire_cards():
    """END-C2 R: 30 empire cards. END-A5: vote cost 1..3."""
    assert d.N_EMPIRE == 30
    assert set(d.EMPIRE_VOTE_COST.tolist()) == {1, 2, 3}
    assert d.EMPIRE_POINTS.min() >= 0 and d.EMPIRE_POINTS.max() <= 4
    travel = d.EMPIRE_ABILITY == d.ABILITY_TRAVEL_DISCOUNT
    assert 1 <= int(travel.sum()) <= 4  # END-R3: "some empire cards"


def _chain(region):
    """The regions a lone player's ships must open to reach ``region`` (END-R2, END-R3), in
    sailing order, ending with ``region`` itself; regions open at the start need no ship."""
    path = []
    while region != d.NONE and not d.REGION_OPEN_AT_START[region]:
        path.append(int(region))
        region = d.REGION_PREVIOUS[region]
    return path[::-1]


def _ships_affordable(ships):
    """One player sends these ships, in order, from the smallest token pool (END-S1) with no
    card's help: each costs its travel in one Sailor's tokens (END-A1), so the pool must cover
    it, and each leaves one token at sea for good."""
    pool = min(d.TOKENS_BY_PLAYERS.values())
    for region in ships:
        if region == d.EUROPE or d.REGION_TRAVEL[region] > pool:  # END-R4: no ships to Europe
            return False
        pool -= 1
    return True


def _merchant_goods_bound():
    """Goods a player can hold without selling any: one Merchant action yields at most the
    home port's good and 2 per upgraded marker city (END-A2, END-S1 markers), and each role
    comes back to the hand at least once in N_ROLES rounds (END-O2), so ROUND_LIMIT // N_ROLES
    Merchant actions are always possible in a full game (END-E4)."""
    per_action = 1 + 2 * d.MARKERS
    return per_action * (d.ROUND_LIMIT // d.N_ROLES)


def test_every_empire_card_has_a_condition():
    """END-A5: the rules text gives every empire card a condition and a vote cost
    of 1..3; the loader knows no "none" kind, and every count is at least 1."""
    assert "none" not in d.CONDITIONS
    assert d.EMPIRE_CONDITION.min() >= 0 and d.EMPIRE_CONDITION.max() < len(d.CONDITIONS)
    assert d.EMPIRE_CONDITION_COUNT.min() >= 1
    assert set(d.EMPIRE_VOTE_COST.tolist()) <= {1, 2, 3}
    assert set(d.EMPIRE_CONDITION.tolist()) == set(range(len(d.CONDITIONS)))


def _satisfiable(kind, region, count):
    """Whether one player can meet the condition on the board, from the tables alone. Markers
    sit only in a region's face-up slots (END-R4) and a player has MARKERS of them (END-S1); a
    far region's cities and ships need a ship of one's own in every closed region of its chain,
    paid from the smallest token pool (END-A1, END-R2, END-R3, END-G: a settler needs a ship
    there); goods are bounded by what the Merchant can collect in a full game."""
    if count < 1:
        return False
    if kind == d.COND_CITIES_IN_REGION:
        fits = count <= min(d.MARKERS, int(d.REGION_SLOTS[region]))
        return fits and _ships_affordable(_chain(region))
    if kind == d.COND_CITIES_TOTAL:
        return count <= min(d.MARKERS, int(d.REGION_SLOTS.sum()))
    if kind == d.COND_SHIPS_IN_REGION:
        return _ships_affordable(_chain(region)[:-1] + [region] * count)
    return kind == d.COND_GOODS_TOTAL and count <= _merchant_goods_bound()


def test_empire_conditions_satisfiable():
    """END-A5: every empire card's condition can be met on the board."""
    for i in range(d.N_EMPIRE):
        kind = d.EMPIRE_CONDITION[i]
        region = int(d.EMPIRE_CONDITION_REGION[i])
        count = int(d.EMPIRE_CONDITION_COUNT[i])
        key = d.EMPIRE_KEYS[i]
        if kind in (d.COND_CITIES_IN_REGION, d.COND_SHIPS_IN_REGION):
            assert 0 <= region < d.N_REGIONS, key
        else:
            assert region == d.NONE, key
        assert _satisfiable(kind, region, count), key


def test_satisfiability_check_refuses_unreachable_conditions():
    """The check would have caught END-A5's dead cards (the first West India Company needed 3
    Caribbean cities and East India Company 3 in India; those regions have 2 slots), and it
    refuses a fourth marker city, ships to Europe and more ships than any pool can pay."""
    assert not _satisfiable(d.COND_CITIES_IN_REGION, d.CARIBBEAN, 3)
    assert not _satisfiable(d.COND_CITIES_IN_REGION, d.INDIA, 3)
    assert _satisfiable(d.COND_CITIES_IN_REGION, d.EUROPE, 3)  # 4 slots, 3 markers
    assert not _satisfiable(d.COND_CITIES_TOTAL, d.NONE, d.MARKERS + 1)
    assert not _satisfiable(d.COND_SHIPS_IN_REGION, d.EUROPE, 1)
    assert not _satisfiable(d.COND_SHIPS_IN_REGION, d.CHINA, 10)
    assert not _satisfiable(d.COND_GOODS_TOTAL, d.NONE, _merchant_goods_bound() + 1)


def test_20_buildings():
    """END-C2 R: 20 buildings. END-A3: work cost 2..6."""
    assert d.N_BUILDINGS == 20
    assert d.BUILDING_WORK_COST.min() == 2 and d.BUILDING_WORK_COST.max() == 6
    assert d.BUILDING_POINTS.min() >= 0 and d.BUILDING_POINTS.max() <= 4


def _tables():
    return (
        ("city", d.CITY_KEYS, d.CITY_ABILITY, d.CITY_ABILITY_ARG),
        ("empire", d.EMPIRE_KEYS, d.EMPIRE_ABILITY, d.EMPIRE_ABILITY_ARG),
        ("building", d.BUILDING_KEYS, d.BUILDING_ABILITY, d.BUILDING_ABILITY_ARG),
    )


def test_abilities_known_with_valid_arguments():
    assert len(d.ABILITIES) == 7 and d.ABILITIES[d.ABILITY_NONE] == "none"
    for _, keys, ability, arg in _tables():
        for key, kind, value in zip(keys, ability.tolist(), arg.tolist(), strict=True):
            assert 0 <= kind < len(d.ABILITIES), key
            if kind == d.ABILITY_ROLE_BONUS:
                assert 0 <= value < d.N_ROLES, key
            elif kind == d.ABILITY_EXTRA_GOOD:
                assert 0 <= value < len(d.GOODS), key
            elif kind == d.ABILITY_REGION_POINTS:
                assert 0 <= value < d.N_REGIONS, key
            elif kind == d.ABILITY_EXTRA_TOKENS:
                assert value in (1, 2), key
            else:
                assert value == d.NONE, key
    # Many cities have no ability; every role gets a bonus card somewhere.
    assert int((d.CITY_ABILITY == d.ABILITY_NONE).sum()) >= 20
    bonus = set()
    for _, _, ability, arg in _tables():
        bonus |= set(arg[ability == d.ABILITY_ROLE_BONUS].tolist())
    assert bonus == set(range(d.N_ROLES))


def _condition_level(i):
    kind = d.EMPIRE_CONDITION[i]
    count = int(d.EMPIRE_CONDITION_COUNT[i])
    if kind == d.COND_GOODS_TOTAL:
        return count // 3
    if kind == d.COND_CITIES_TOTAL:
        return count - 1
    return count - 1 + int(d.REGION_TRAVEL[d.EMPIRE_CONDITION_REGION[i]]) // 3


def _weight(kind, arg):
    return int(arg) if kind == d.ABILITY_EXTRA_TOKENS else ABILITY_WEIGHT[kind]


def test_balance_rule():
    """Loader docstring: ceil(cost / 2) <= points + ability weight <= ceil(cost / 2) + 1."""
    empire_cost = [int(d.EMPIRE_VOTE_COST[i]) + _condition_level(i) for i in range(d.N_EMPIRE)]
    tables = (
        (
            d.CITY_KEYS,
            d.CITY_BUILD_COST.tolist(),
            d.CITY_POINTS,
            d.CITY_ABILITY,
            d.CITY_ABILITY_ARG,
        ),
        (d.EMPIRE_KEYS, empire_cost, d.EMPIRE_POINTS, d.EMPIRE_ABILITY, d.EMPIRE_ABILITY_ARG),
        (
            d.BUILDING_KEYS,
            d.BUILDING_WORK_COST.tolist(),
            d.BUILDING_POINTS,
            d.BUILDING_ABILITY,
            d.BUILDING_ABILITY_ARG,
        ),
    )
    for keys, costs, points, ability, arg in tables:
        for i, key in enumerate(keys):
            target = math.ceil(costs[i] / 2)
            value = int(points[i]) + _weight(int(ability[i]), int(arg[i]))
            assert target <= value <= target + 1, (key, costs[i], value)


def test_setup_constants():
    """END-S1, S3, S4, S5, B1, O2, C1, E4, A3: setup numbers, and that they fit together."""
    assert dict(d.TOKENS_BY_PLAYERS) == {2: 15, 3: 18, 4: 15}
    assert d.MARKERS == 3 and d.BOARD_SLOTS == 9
    assert dict(d.EMPIRE_DRAW) == {2: 4, 3: 3, 4: 3} and d.EMPIRE_KEEP == 2
    assert d.EMPIRE_MARKET == 3 and d.BUILDING_MARKET == 3
    assert d.ROLE_HAND == 3 and d.N_ROLES == 6 == len(d.ROLES)
    assert d.ROLES == ("sailor", "merchant", "craftsman", "commander", "politician", "governor")
    assert d.ROUND_LIMIT == 12 and d.UPGRADE_COST == 2
    assert dict(d.STARTING_CITIES) == {2: 2, 3: 2, 4: 1}
    assert d.STARTING_PICK_ORDER[3] == (0, 1, 2, 2, 1, 0)
    open_slots = int(d.REGION_SLOTS[d.REGION_OPEN_AT_START == 1].sum())
    for players, per_player in d.STARTING_CITIES.items():
        order = d.STARTING_PICK_ORDER[players]
        assert len(order) == players * per_player <= open_slots
        assert all(order.count(seat) == per_player for seat in range(players))
        assert players * d.EMPIRE_DRAW[players] + d.EMPIRE_MARKET <= d.N_EMPIRE
        assert d.STARTING_CITIES[players] <= d.MARKERS


def test_names_and_keys_unique_and_consistent():
    tables = (
        (d.REGION_KEYS, d.REGION_NAMES, d.REGION_ID, 7),
        (d.CITY_KEYS, d.CITY_NAMES, d.CITY_ID, 49),
        (d.EMPIRE_KEYS, d.EMPIRE_NAMES, d.EMPIRE_ID, 30),
        (d.BUILDING_KEYS, d.BUILDING_NAMES, d.BUILDING_ID, 20),
    )
    assert_name_tables(tables)
    all_keys = d.CITY_KEYS + d.EMPIRE_KEYS + d.BUILDING_KEYS
    assert len(set(all_keys)) == len(all_keys)
    for keys in (d.EMPIRE_KEYS, d.BUILDING_KEYS):
        assert list(keys) == sorted(keys)


def test_tables_are_read_only():
    for table in (
        d.REGION_TRAVEL,
        d.REGION_CITIES,
        d.CITY_POINTS,
        d.CITY_ABILITY_ARG,
        d.EMPIRE_CONDITION_COUNT,
        d.BUILDING_WORK_COST,
    ):
        assert table.dtype == np.int8
        with pytest.raises(ValueError):
            table.flat[0] = 9
