"""Endeavor card and region tables, loaded from the CSV files beside this module into read-only
arrays. The rules text leaves card contents open; these tables are the project's own design,
kept within the limits of the rules checklist (rules cited as ``END-…``).

* ``regions.csv``: the 7 regions, ids 0..6 in order of travel cost. ``travel_cost`` is the token
  cost of one ship (END-R1); ``open_at_start`` 1 for Europe and West Africa (END-R2);
  ``previous`` the region before it on its sea-route chain, which must be open before a ship may
  sail there (END-R3; empty = none); ``slots`` its face-up city slots (END-R4).
* ``cities.csv``: 49 city cards, 7 per region (END-C2), grouped by region id and in key order
  within a region. ``good`` is what the city yields to the Merchant (END-A2); each region leans
  to two goods. ``settle_cost`` goods paid by the Governor (END-G, 1 or 2); ``build_cost`` work
  units for the Craftsman to take the card into a board slot (END-A3); ``points`` the end points
  of the city while it holds the owner's marker (END-E2). ``ability`` works only while the card
  is on a player board (END-B2).
* ``empire.csv``: 30 empire cards (END-C2), in key order. ``vote_cost`` 1..3 (END-A5); every
  card has a condition (END-A5), which must hold when the card is taken: ``cities_in_region`` /
  ``cities_total`` = cities holding the player's markers (in ``condition_region`` / anywhere);
  ``ships_in_region`` = the player's ships in ``condition_region`` (never Europe, END-R4);
  ``goods_total`` = goods held. ``condition_count`` (at least 1) is the number needed; each
  condition can be met on the board: a region's cities count only up to its slots and the 3
  markers (END-R4, END-S1). ``points`` at the end (END-B2).
* ``buildings.csv``: 20 buildings (END-C2), in key order; ``work_cost`` 2..6 (END-A3).

Abilities (``ABILITIES``; ``ability_arg`` in brackets, stored as an index, else ``NONE``):
``role_bonus`` [role] +1 strength whenever the owner performs that role; ``travel_discount``
travel costs 1 lower, never below 1 (END-R3); ``extra_good`` [good] +1 good of that kind once
per Merchant action that took at least one good; ``defence`` the owner's ships and cities each
defend with 1 more (END-A4); ``extra_tokens`` [1 or 2] the owner's token pool grows by that
many when the card enters the board; ``region_points`` [region] +1 end point per city of that
region holding the owner's marker.

Balance rule. A card's *cost* is its build or work cost; for an empire card it is the vote cost
plus a condition level (goods_total n: n // 3; cities_total c: c - 1; cities_in_region
or ships_in_region c in region r: c - 1 + travel_cost(r) // 3). Its *value* is points plus an
ability weight (none 0; travel_discount and extra_tokens 2: 2; every other ability: 1). Every
card keeps ceil(cost / 2) <= value <= ceil(cost / 2) + 1, so points follow cost, cheap cards
stay small, and a stronger ability leaves fewer points. City points (1..3), settle and build
costs also rise with the region's travel cost, paying for the ships a far city needs.
"""

import hashlib
from pathlib import Path
from types import MappingProxyType

import numpy as np

from meeple_gym.core.tables import int_column as _ints
from meeple_gym.core.tables import keyed, read_rows

_HERE = Path(__file__).parent

NONE = -1  # "does not apply" in index arrays

REGIONS = (
    "europe",
    "west_africa",
    "caribbean",
    "south_america",
    "india",
    "southeast_asia",
    "china",
)
EUROPE, WEST_AFRICA, CARIBBEAN, SOUTH_AMERICA, INDIA, SOUTHEAST_ASIA, CHINA = range(7)
GOODS = ("tea", "coffee", "spice", "cocoa", "sugar")  # END-C2 R
TEA, COFFEE, SPICE, COCOA, SUGAR = range(5)
# Role-number order, which is also execution order (END-C1, END-O3).
ROLES = ("sailor", "merchant", "craftsman", "commander", "politician", "governor")
SAILOR, MERCHANT, CRAFTSMAN, COMMANDER, POLITICIAN, GOVERNOR = range(6)
ABILITIES = (
    "none",
    "role_bonus",
    "travel_discount",
    "extra_good",
    "defence",
    "extra_tokens",
    "region_points",
)
(
    ABILITY_NONE,
    ABILITY_ROLE_BONUS,
    ABILITY_TRAVEL_DISCOUNT,
    ABILITY_EXTRA_GOOD,
    ABILITY_DEFENCE,
    ABILITY_EXTRA_TOKENS,
    ABILITY_REGION_POINTS,
) = range(7)
# END-A5: every empire card has a condition (the rules text gives each one); there is no "none".
CONDITIONS = ("cities_in_region", "ships_in_region", "cities_total", "goods_total")
COND_CITIES_IN_REGION, COND_SHIPS_IN_REGION, COND_CITIES_TOTAL, COND_GOODS_TOTAL = range(4)

# Setup and limits.
TOKENS_BY_PLAYERS = MappingProxyType({2: 15, 3: 18, 4: 15})  # END-S1 (R: 15 with 2)
MARKERS = 3  # city markers per player, END-S1
BOARD_SLOTS = 9  # END-B1
EMPIRE_DRAW = MappingProxyType({2: 4, 3: 3, 4: 3})  # END-S4
EMPIRE_KEEP = 2  # END-S4
EMPIRE_MARKET = 3  # END-S4 R
BUILDING_MARKET = 3  # END-S5 R
ROLE_HAND = 3  # END-O2 R
N_ROLES = 6  # END-C1
ROUND_LIMIT = 12  # END-E4 R
UPGRADE_COST = 2  # work units, once per city, END-A3 R
STARTING_CITIES = MappingProxyType({2: 2, 3: 2, 4: 1})  # per player, END-S3
# Seats in the order they claim starting cities: snake order (END-S3 R).
STARTING_PICK_ORDER = MappingProxyType({2: (0, 1, 1, 0), 3: (0, 1, 2, 2, 1, 0), 4: (0, 1, 2, 3)})


def _rows(name):
    return read_rows(_HERE, name)


def _codes(rows, column, names):
    for r in rows:
        if r[column] not in names:
            raise ValueError(f"{r['key']}: {column} {r[column]!r} is not one of {names}")
    return np.array([names.index(r[column]) for r in rows], dtype=np.int8)


def _ability_args(rows):
    """Index of each ability's argument in ROLES / GOODS / REGIONS, or its count."""
    args = []
    for r in rows:
        kind, arg = r["ability"], r["ability_arg"]
        if kind == "role_bonus":
            args.append(ROLES.index(arg))
        elif kind == "extra_good":
            args.append(GOODS.index(arg))
        elif kind == "region_points":
            args.append(REGIONS.index(arg))
        elif kind == "extra_tokens":
            args.append(int(arg))
        else:
            if arg:
                raise ValueError(f"{r['key']}: {kind} takes no argument")
            args.append(NONE)
    return np.array(args, dtype=np.int8)


TABLE_FILES = ("regions.csv", "cities.csv", "empire.csv", "buildings.csv")
# Names the tables' contents: figures measured on them (benchmarks/results/endeavor_cards_*.json)
# record it, and a test sees when they are stale.
_table_bytes = b"".join((_HERE / name).read_bytes() for name in TABLE_FILES)
TABLES_DIGEST = hashlib.sha256(_table_bytes).hexdigest()[:16]

_regions = _rows("regions.csv")
_cities = _rows("cities.csv")
_empire = _rows("empire.csv")
_buildings = _rows("buildings.csv")

# --- regions -------------------------------------------------------------------------------
N_REGIONS, REGION_KEYS, REGION_NAMES, REGION_ID = keyed(_regions)
REGION_TRAVEL = _ints(_regions, "travel_cost")
REGION_OPEN_AT_START = _ints(_regions, "open_at_start")
REGION_PREVIOUS = np.array(
    [REGION_ID[r["previous"]] if r["previous"] else NONE for r in _regions], dtype=np.int8
)
REGION_SLOTS = _ints(_regions, "slots")

# --- cities --------------------------------------------------------------------------------
N_CITIES, CITY_KEYS, CITY_NAMES, CITY_ID = keyed(_cities)
CITY_REGION = _codes(_cities, "region", REGIONS)
CITY_GOOD = _codes(_cities, "good", GOODS)
CITY_SETTLE_COST = _ints(_cities, "settle_cost")
CITY_BUILD_COST = _ints(_cities, "build_cost")
CITY_POINTS = _ints(_cities, "points")
CITY_ABILITY = _codes(_cities, "ability", ABILITIES)
CITY_ABILITY_ARG = _ability_args(_cities)
CITIES_PER_REGION = N_CITIES // N_REGIONS
# REGION_CITIES[region] = the ids of that region's city deck.
REGION_CITIES = np.stack([np.flatnonzero(CITY_REGION == g) for g in range(N_REGIONS)]).astype(
    np.int8
)

# --- empire cards --------------------------------------------------------------------------
N_EMPIRE, EMPIRE_KEYS, EMPIRE_NAMES, EMPIRE_ID = keyed(_empire)
EMPIRE_VOTE_COST = _ints(_empire, "vote_cost")
EMPIRE_CONDITION = _codes(_empire, "condition", CONDITIONS)
EMPIRE_CONDITION_REGION = np.array(
    [REGION_ID[r["condition_region"]] if r["condition_region"] else NONE for r in _empire],
    dtype=np.int8,
)
EMPIRE_CONDITION_COUNT = _ints(_empire, "condition_count")
EMPIRE_POINTS = _ints(_empire, "points")
EMPIRE_ABILITY = _codes(_empire, "ability", ABILITIES)
EMPIRE_ABILITY_ARG = _ability_args(_empire)

# --- buildings -----------------------------------------------------------------------------
N_BUILDINGS, BUILDING_KEYS, BUILDING_NAMES, BUILDING_ID = keyed(_buildings)
BUILDING_WORK_COST = _ints(_buildings, "work_cost")
BUILDING_POINTS = _ints(_buildings, "points")
BUILDING_ABILITY = _codes(_buildings, "ability", ABILITIES)
BUILDING_ABILITY_ARG = _ability_args(_buildings)

for _table in (
    REGION_TRAVEL,
    REGION_OPEN_AT_START,
    REGION_PREVIOUS,
    REGION_SLOTS,
    CITY_REGION,
    CITY_GOOD,
    CITY_SETTLE_COST,
    CITY_BUILD_COST,
    CITY_POINTS,
    CITY_ABILITY,
    CITY_ABILITY_ARG,
    REGION_CITIES,
    EMPIRE_VOTE_COST,
    EMPIRE_CONDITION,
    EMPIRE_CONDITION_REGION,
    EMPIRE_CONDITION_COUNT,
    EMPIRE_POINTS,
    EMPIRE_ABILITY,
    EMPIRE_ABILITY_ARG,
    BUILDING_WORK_COST,
    BUILDING_POINTS,
    BUILDING_ABILITY,
    BUILDING_ABILITY_ARG,
):
    _table.setflags(write=False)
