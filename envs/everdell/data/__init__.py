"""Everdell base-game tables, loaded from the CSV files beside this module into read-only arrays.

* ``cards.csv``: the 48 Critter/Construction card *types* (128 cards, EVD-S4), ids 0..47 in
  alphabetical order of name. ``kind`` is critter or construction; ``color`` one of ``COLORS``
  (EVD-P5); ``unique`` 1 = one copy per city (EVD-P2); ``copies`` = copies in the deck;
  ``cost_*`` the printed cost (critters cost berries only); ``points`` the printed base value
  (Fool -2). ``pairs``: for a critter, the Construction key whose free occupied token admits it
  (EVD-P3); for a construction, the critter key(s) it admits (Farm admits Husband and Wife,
  Ever Tree admits ``any`` critter). ``city_space`` 0 only for Wanderer; ``worker_spots`` /
  ``max_worker_spots`` are the spots on cards that hold workers (Cemetery and Monastery gain a
  second spot from Undertaker / Monk); ``open`` 1 = opponents may visit (EVD-W4);
  ``permanent_worker`` 1 = workers placed there never return.
* ``events.csv``: the 4 basic events (ids 0..3) and 16 special events (ids 4..19), each kind in
  key order (EVD-S3, EVD-W5). A basic event needs ``req_count`` cards of ``req_color``; a
  special event needs the cards in ``req_cards`` (The Everdell Games: ``req_count`` of every
  colour, ``req_color`` = ``all``). ``cost_berry`` is paid on claiming (Croak Wart Cure).
  ``points`` is the flat value, or ``VARIABLE`` (-1) when it depends on what the event holds;
  ``points_each`` is the per-item value (-1: Under New Management, which values resources
  differently); ``max_points`` is the implied cap (-1: no cap).
* ``locations.csv``: 8 basic spaces, 11 forest cards, Haven, 4 Journey spaces and 3 season
  rows (``kind``). ``exclusive`` 1 = one worker in total (EVD-W2); ``extra_spot_4p`` 1 = a second
  spot used only with 4 players (all forest cards, EVD-W1; no basic space is 4-player-only).
  ``twig..berry`` are fixed gains, ``any`` resources of the player's choice, ``cards`` cards
  drawn (summer: up to 2 taken from the Meadow), ``points`` point tokens (Journey: points at the
  end), ``discard`` cards that must be discarded (Journey, EVD-W7). ``variable`` 1 = the action
  is not captured by these counts (read the summary). Season rows: ``workers`` gained and
  ``production`` 1 when every green card fires (EVD-F2..F4).

``summary`` columns are short own-words reminders, not card text. Numbers were checked against
the project's Everdell reference lists, following their chosen value where sources disagree.
"""

from pathlib import Path
from types import MappingProxyType

import numpy as np

from meeple_gym.core.tables import int_column as _ints
from meeple_gym.core.tables import keyed, read_rows

_HERE = Path(__file__).parent

RESOURCES = ("twig", "resin", "pebble", "berry")
TWIG, RESIN, PEBBLE, BERRY = range(4)
KINDS = ("critter", "construction")
CRITTER, CONSTRUCTION = range(2)
COLORS = ("traveler", "production", "destination", "governance", "prosperity")
TRAVELER, PRODUCTION, DESTINATION, GOVERNANCE, PROSPERITY = range(5)
SEASONS = ("winter", "spring", "summer", "autumn")
WINTER, SPRING, SUMMER, AUTUMN = range(4)
VARIABLE = -1  # event points that depend on the game
NONE = -1  # padding / "does not apply" in index arrays
ALL_COLORS = -2  # EVENT_REQ_COLOR of The Everdell Games

# Setup and limits (EVD-S2..S6, EVD-D2, EVD-P4).
HAND_LIMIT = 8
CITY_LIMIT = 15
MEADOW_SIZE = 8
STARTING_WORKERS = 2
MAX_WORKERS = 6
STARTING_HAND = (5, 6, 7, 8)  # by seat
FOREST_DEALT = MappingProxyType({1: 3, 2: 3, 3: 4, 4: 4})  # by player count (solo as 2)
SPECIAL_EVENTS_DEALT = 4


def _rows(name):
    return read_rows(_HERE, name)


_cards = _rows("cards.csv")
_events = _rows("events.csv")
_locations = _rows("locations.csv")

# --- cards ---------------------------------------------------------------------------------
N_CARD_TYPES, CARD_KEYS, CARD_NAMES, CARD_ID, CARD_SUMMARIES = keyed(_cards, "summary")
CARD_KIND = np.array([KINDS.index(r["kind"]) for r in _cards], dtype=np.int8)
CARD_COLOR = np.array([COLORS.index(r["color"]) for r in _cards], dtype=np.int8)
CARD_UNIQUE = _ints(_cards, "unique")
CARD_COPIES = _ints(_cards, "copies")
CARD_COST = np.stack([_ints(_cards, f"cost_{res}") for res in RESOURCES], 1)
CARD_POINTS = _ints(_cards, "points")
CARD_CITY_SPACE = _ints(_cards, "city_space")
CARD_WORKER_SPOTS = _ints(_cards, "worker_spots")
CARD_MAX_WORKER_SPOTS = _ints(_cards, "max_worker_spots")
CARD_OPEN = _ints(_cards, "open")
CARD_PERMANENT_WORKER = _ints(_cards, "permanent_worker")
DECK_SIZE = int(CARD_COPIES.sum())
CRITTERS = tuple(int(i) for i in np.flatnonzero(CARD_KIND == CRITTER))
CONSTRUCTIONS = tuple(int(i) for i in np.flatnonzero(CARD_KIND == CONSTRUCTION))

# Pairings (EVD-P3). CRITTER_HOME[critter] = construction id that admits it (NONE for a
# construction). CONSTRUCTION_ADMITS[construction] = up to 2 critter ids (NONE-padded; NONE for
# a critter); CARD_ADMITS_ANY marks the Ever Tree, whose token takes any critter.
CRITTER_HOME = np.full(N_CARD_TYPES, NONE, dtype=np.int8)
CONSTRUCTION_ADMITS = np.full((N_CARD_TYPES, 2), NONE, dtype=np.int8)
CARD_ADMITS_ANY = np.zeros(N_CARD_TYPES, dtype=np.int8)
for _i, _r in enumerate(_cards):
    _pairs = _r["pairs"].split()
    if _r["kind"] == "critter":
        (CRITTER_HOME[_i],) = (CARD_ID[k] for k in _pairs)
    elif _pairs == ["any"]:
        CARD_ADMITS_ANY[_i] = 1
    else:
        CONSTRUCTION_ADMITS[_i, : len(_pairs)] = [CARD_ID[k] for k in _pairs]

# --- events --------------------------------------------------------------------------------
N_EVENTS, EVENT_KEYS, EVENT_NAMES, EVENT_ID, EVENT_REQUIREMENTS, EVENT_SUMMARIES = keyed(
    _events, "requirement", "summary"
)
EVENT_IS_SPECIAL = np.array([r["kind"] == "special" for r in _events], dtype=np.int8)
BASIC_EVENTS = tuple(int(i) for i in np.flatnonzero(EVENT_IS_SPECIAL == 0))
SPECIAL_EVENTS = tuple(int(i) for i in np.flatnonzero(EVENT_IS_SPECIAL == 1))


def _req_color(text):
    if not text:
        return NONE
    return ALL_COLORS if text == "all" else COLORS.index(text)


EVENT_REQ_COLOR = np.array([_req_color(r["req_color"]) for r in _events], dtype=np.int8)
EVENT_REQ_COUNT = _ints(_events, "req_count")
EVENT_REQ_CARDS = np.full((N_EVENTS, 2), NONE, dtype=np.int8)
for _i, _r in enumerate(_events):
    _need = [CARD_ID[k] for k in _r["req_cards"].split()]
    EVENT_REQ_CARDS[_i, : len(_need)] = _need
EVENT_COST_BERRY = _ints(_events, "cost_berry")
EVENT_POINTS = _ints(_events, "points")
EVENT_POINTS_EACH = _ints(_events, "points_each")
EVENT_MAX_POINTS = _ints(_events, "max_points")

# --- locations -----------------------------------------------------------------------------
LOCATION_KINDS = ("basic", "forest", "haven", "journey", "season")
LOC_BASIC, LOC_FOREST, LOC_HAVEN, LOC_JOURNEY, LOC_SEASON = range(5)
N_LOCATIONS, LOCATION_KEYS, LOCATION_NAMES, LOCATION_ID, LOCATION_SUMMARIES = keyed(
    _locations, "summary"
)
LOCATION_KIND = np.array([LOCATION_KINDS.index(r["kind"]) for r in _locations], dtype=np.int8)
LOCATION_EXCLUSIVE = _ints(_locations, "exclusive")
LOCATION_EXTRA_SPOT_4P = _ints(_locations, "extra_spot_4p")
LOCATION_GAIN = np.stack([_ints(_locations, res) for res in RESOURCES], 1)
LOCATION_ANY = _ints(_locations, "any")
LOCATION_CARDS = _ints(_locations, "cards")
LOCATION_POINTS = _ints(_locations, "points")
LOCATION_DISCARD = _ints(_locations, "discard")
# Season in which the row applies (NONE = any season).
LOCATION_SEASON = np.array(
    [NONE if r["season"] == "any" else SEASONS.index(r["season"]) for r in _locations],
    dtype=np.int8,
)
LOCATION_WORKERS = _ints(_locations, "workers")
LOCATION_PRODUCTION = _ints(_locations, "production")
LOCATION_VARIABLE = _ints(_locations, "variable")


def _of_kind(kind):
    return tuple(int(i) for i in np.flatnonzero(LOCATION_KIND == kind))


BASIC_LOCATIONS = _of_kind(LOC_BASIC)
FOREST_LOCATIONS = _of_kind(LOC_FOREST)
JOURNEY_LOCATIONS = _of_kind(LOC_JOURNEY)
(HAVEN,) = _of_kind(LOC_HAVEN)
SEASON_ROWS = _of_kind(LOC_SEASON)
# Workers a player gains on entering each season (winter = the starting workers), EVD-S5.
SEASON_NEW_WORKERS = np.zeros(len(SEASONS), dtype=np.int8)
SEASON_NEW_WORKERS[WINTER] = STARTING_WORKERS
SEASON_PRODUCTION = np.zeros(len(SEASONS), dtype=np.int8)
for _i in SEASON_ROWS:
    SEASON_NEW_WORKERS[LOCATION_SEASON[_i]] = LOCATION_WORKERS[_i]
    SEASON_PRODUCTION[LOCATION_SEASON[_i]] = LOCATION_PRODUCTION[_i]

for _table in (
    CARD_KIND,
    CARD_COLOR,
    CARD_UNIQUE,
    CARD_COPIES,
    CARD_COST,
    CARD_POINTS,
    CARD_CITY_SPACE,
    CARD_WORKER_SPOTS,
    CARD_MAX_WORKER_SPOTS,
    CARD_OPEN,
    CARD_PERMANENT_WORKER,
    CRITTER_HOME,
    CONSTRUCTION_ADMITS,
    CARD_ADMITS_ANY,
    EVENT_IS_SPECIAL,
    EVENT_REQ_COLOR,
    EVENT_REQ_COUNT,
    EVENT_REQ_CARDS,
    EVENT_COST_BERRY,
    EVENT_POINTS,
    EVENT_POINTS_EACH,
    EVENT_MAX_POINTS,
    LOCATION_KIND,
    LOCATION_EXCLUSIVE,
    LOCATION_EXTRA_SPOT_4P,
    LOCATION_GAIN,
    LOCATION_ANY,
    LOCATION_CARDS,
    LOCATION_POINTS,
    LOCATION_DISCARD,
    LOCATION_SEASON,
    LOCATION_WORKERS,
    LOCATION_PRODUCTION,
    LOCATION_VARIABLE,
    SEASON_NEW_WORKERS,
    SEASON_PRODUCTION,
):
    _table.setflags(write=False)
