"""Century card tables (envs/century/data): counts, internal consistency and derived invariants.

The expected counts come from the consensus card list (43 market cards: 8 spice, 1 upgrade,
34 trade; 36 point cards worth 6..20) and the box contents (5 + 5 starting cards), not from the
CSV itself. The names in the CSV ("+YY", "U2", "YY>G", point card "YYRR") are a second, compact
transcription of each card, so they are checked against the numeric columns.
"""

import collections

import numpy as np
import pytest

from meeple_gym.century.data import (
    COLOURS,
    DECK_TYPES,
    KIND_SPICE,
    KIND_TRADE,
    KIND_UPGRADE,
    MERCHANT_COPIES,
    MERCHANT_IN,
    MERCHANT_KIND,
    MERCHANT_NAMES,
    MERCHANT_OUT,
    MERCHANT_STARTING,
    MERCHANT_UPGRADES,
    POINT_COST,
    POINT_NAMES,
    POINT_VALUE,
    STARTING_SPICE_TYPE,
    STARTING_UPGRADE_TYPE,
)
from meeple_gym.century.rules import CARAVAN_LIMIT, MAX_TRADE_REPEATS

LETTERS = "YRGB"
CUBE_VALUE = np.array([1, 2, 3, 4])  # yellow < red < green < brown (CSR-S5)


def letter_counts(text):
    """'YYG' -> [2, 0, 1, 0]."""
    assert set(text) <= set(LETTERS), text
    return [text.count(ch) for ch in LETTERS]


def test_colour_order_is_yellow_red_green_brown():
    # CSR-S5: the column order is the value order used by upgrades and scoring.
    assert COLOURS == ("yellow", "red", "green", "brown")


def test_45_merchant_types_with_unique_names():
    assert len(MERCHANT_NAMES) == 45
    assert len(set(MERCHANT_NAMES)) == 45
    for table in (MERCHANT_KIND, MERCHANT_COPIES, MERCHANT_STARTING, MERCHANT_UPGRADES):
        assert table.shape == (45,)
    assert MERCHANT_IN.shape == MERCHANT_OUT.shape == (45, 4)


def test_starting_cards_are_5_plus_yy_and_5_upgrade_2():
    # CSR-S3: the box holds 10 starting cards, 5 "+2 yellow" and 5 "upgrade 2".
    starting = np.flatnonzero(MERCHANT_STARTING)
    assert set(starting) == {STARTING_SPICE_TYPE, STARTING_UPGRADE_TYPE} == {0, 1}
    assert MERCHANT_NAMES[STARTING_SPICE_TYPE] == "+YY"
    assert MERCHANT_NAMES[STARTING_UPGRADE_TYPE] == "U2"
    assert MERCHANT_COPIES[STARTING_SPICE_TYPE] == 5
    assert MERCHANT_COPIES[STARTING_UPGRADE_TYPE] == 5
    assert MERCHANT_COPIES[starting].sum() == 10
    assert list(MERCHANT_OUT[STARTING_SPICE_TYPE]) == [2, 0, 0, 0]
    assert MERCHANT_UPGRADES[STARTING_UPGRADE_TYPE] == 2


def test_43_market_cards_8_spice_1_upgrade_34_trade():
    # CSR-S4: the market deck, one copy of each type.
    assert list(DECK_TYPES) == list(range(2, 45))
    assert (MERCHANT_COPIES[DECK_TYPES] == 1).all()
    kinds = collections.Counter(int(k) for k in MERCHANT_KIND[DECK_TYPES])
    assert kinds == {KIND_SPICE: 8, KIND_UPGRADE: 1, KIND_TRADE: 34}
    # 53 physical cards in all: 10 starting + 43 market.
    assert MERCHANT_COPIES.sum() == 53


@pytest.mark.parametrize("t", range(45))
def test_merchant_name_matches_columns(t):
    name = MERCHANT_NAMES[t]
    kind = MERCHANT_KIND[t]
    if name.startswith("+"):
        assert kind == KIND_SPICE
        assert list(MERCHANT_IN[t]) == [0, 0, 0, 0]
        assert list(MERCHANT_OUT[t]) == letter_counts(name[1:])
        assert MERCHANT_UPGRADES[t] == 0
    elif name.startswith("U"):
        assert kind == KIND_UPGRADE
        assert MERCHANT_UPGRADES[t] == int(name[1:])
        assert not MERCHANT_IN[t].any() and not MERCHANT_OUT[t].any()
    else:
        assert kind == KIND_TRADE
        given, taken = name.split(">")
        assert list(MERCHANT_IN[t]) == letter_counts(given)
        assert list(MERCHANT_OUT[t]) == letter_counts(taken)
        assert MERCHANT_UPGRADES[t] == 0


def test_only_upgrade_cards_are_u2_and_u3():
    upgrades = sorted(MERCHANT_NAMES[t] for t in range(45) if MERCHANT_KIND[t] == KIND_UPGRADE)
    assert upgrades == ["U2", "U3"]


def test_no_trade_output_contains_its_input_colour():
    # CSR-P5: the cubes a trade gives can never pay for its next repeat, so the repeat count is
    # bounded by the cubes held at the start of the turn (at most CARAVAN_LIMIT).
    for t in np.flatnonzero(MERCHANT_KIND == KIND_TRADE):
        overlap = (MERCHANT_IN[t] > 0) & (MERCHANT_OUT[t] > 0)
        assert not overlap.any(), MERCHANT_NAMES[t]
        assert MERCHANT_IN[t].sum() >= 1


def test_max_trade_repeats_covers_every_trade():
    # A turn starts with at most CARAVAN_LIMIT cubes; the cheapest trade input is one cube.
    trades = np.flatnonzero(MERCHANT_KIND == KIND_TRADE)
    cheapest = min(int(MERCHANT_IN[t].sum()) for t in trades)
    assert cheapest == 1
    assert MAX_TRADE_REPEATS >= CARAVAN_LIMIT // cheapest


def test_36_point_cards_worth_6_to_20():
    assert len(POINT_NAMES) == 36
    assert POINT_VALUE.shape == (36,)
    assert POINT_COST.shape == (36, 4)
    assert POINT_VALUE.min() == 6
    assert POINT_VALUE.max() == 20
    # Every card is different.
    assert len({tuple(row) for row in POINT_COST.tolist()}) == 36


def test_point_cards_by_number_of_colours():
    # The reference card sheet: 6 one-colour, 18 two-colour, 7 three-colour, 5 four-colour.
    colours = collections.Counter(int((row > 0).sum()) for row in POINT_COST)
    assert colours == {1: 6, 2: 18, 3: 7, 4: 5}


@pytest.mark.parametrize("card", range(36))
def test_point_name_matches_cost(card):
    assert list(POINT_COST[card]) == letter_counts(POINT_NAMES[card])


@pytest.mark.parametrize("card", range(36))
def test_point_value_is_cube_value_plus_colour_bonus(card):
    # Derived invariant (not printed on the cards): Y1 R2 G3 B4, +1 for three colours,
    # +2 for four colours.
    cost = POINT_COST[card]
    bonus = {1: 0, 2: 0, 3: 1, 4: 2}[int((cost > 0).sum())]
    assert POINT_VALUE[card] == int(cost @ CUBE_VALUE) + bonus, POINT_NAMES[card]


def test_tables_are_read_only():
    for table in (MERCHANT_KIND, MERCHANT_IN, MERCHANT_OUT, POINT_VALUE, POINT_COST):
        with pytest.raises(ValueError):
            table[0] = 0
