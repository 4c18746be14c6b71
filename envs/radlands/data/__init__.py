"""Radlands card tables, loaded from the CSV files beside this module into read-only arrays.

* ``camps.csv``: the 34 base camps (RAD-S1, RAD-K1), ids 0..33 in alphabetical order of name.
  ``draw`` is the number of starting cards; ``first_game`` marks the book's two first-game sets
  (RAD-S3): ``A`` (Arcade, Mercenary Camp, Victory Totem), ``B`` (Garage, Railgun, Supply Depot).
* ``people.csv``: the 26 person types, 46 cards (RAD-S2, RAD-K2); unique people have 1 copy.
* ``events.csv``: the 10 event types, 2 copies each, 20 cards (RAD-S2, RAD-K5); ``bomb`` is the
  queue slot an event enters (0 = resolves at once).
* ``special.csv``: Raiders and Water Silo (one of each per player, never in the draw deck).
  Raiders enter slot 3 by default (the seed's word, RAD-I8); the printed card says slot 2
  (``RAIDERS_BOMB_PRINTED``, a rule option). The Water Silo costs 1 water to take and junks for
  1 extra water (RAD-A6). ``-1`` in that file means "does not apply".

Ability costs: ``VARIABLE_COST`` (-1) marks a printed "?" (Adrenaline Lab, Parachute Base,
Mimic: the water actually paid depends on the borrowed or played card). Unused ability slots
hold 0; ``*_N_ABILITIES`` says how many slots are real. ``summary`` columns are short own-words
reminders, not card text. Every number was checked field by field against the project's
reference card lists, following their chosen value where sources disagree.

The draw deck is indexed by *deck type*: 0..25 are the person types (same order as
``PERSON_*``), 26..35 the event types (``FIRST_EVENT_TYPE + event id``).
"""

from pathlib import Path

import numpy as np

from meeple_gym.core.tables import int_column as _ints
from meeple_gym.core.tables import key_index as _index
from meeple_gym.core.tables import keyed, read_rows

_HERE = Path(__file__).parent

VARIABLE_COST = -1
JUNK_NAMES = ("raid", "draw", "restore", "injure", "water", "gain_punk")
JUNK_RAID, JUNK_DRAW, JUNK_RESTORE, JUNK_INJURE, JUNK_WATER, JUNK_GAIN_PUNK = range(6)


def _rows(name):
    return read_rows(_HERE, name)


_camps = _rows("camps.csv")
_people = _rows("people.csv")
_events = _rows("events.csv")
_special = {r["key"]: r for r in _rows("special.csv")}

# --- camps ---------------------------------------------------------------------------------
N_CAMPS, CAMP_KEYS, CAMP_NAMES, CAMP_ID, CAMP_SUMMARIES = keyed(_camps, "summary")
CAMP_DRAW = _ints(_camps, "draw")
CAMP_N_ABILITIES = _ints(_camps, "n_abilities")
CAMP_ABILITY_COST = np.stack([_ints(_camps, "ability1_cost"), _ints(_camps, "ability2_cost")], 1)
CAMP_HAS_TRAIT = _ints(_camps, "has_trait")
FIRST_GAME_A = tuple(i for i, r in enumerate(_camps) if r["first_game"] == "A")
FIRST_GAME_B = tuple(i for i, r in enumerate(_camps) if r["first_game"] == "B")

# --- people --------------------------------------------------------------------------------
N_PERSON_TYPES, PERSON_KEYS, PERSON_NAMES, PERSON_ID, PERSON_SUMMARIES = keyed(_people, "summary")
PERSON_COPIES = _ints(_people, "copies")
PERSON_UNIQUE = _ints(_people, "unique")
PERSON_COST = _ints(_people, "cost")
PERSON_JUNK = np.array([JUNK_NAMES.index(r["junk"]) for r in _people], dtype=np.int8)
PERSON_N_ABILITIES = _ints(_people, "n_abilities")
PERSON_ABILITY_COST = np.stack(
    [_ints(_people, "ability1_cost"), _ints(_people, "ability2_cost")], 1
)
PERSON_HAS_TRAIT = _ints(_people, "has_trait")

# --- events --------------------------------------------------------------------------------
N_EVENT_TYPES, EVENT_KEYS, EVENT_NAMES, EVENT_ID, EVENT_SUMMARIES = keyed(_events, "summary")
EVENT_COPIES = _ints(_events, "copies")
EVENT_COST = _ints(_events, "cost")
EVENT_BOMB = _ints(_events, "bomb")
EVENT_JUNK = np.array([JUNK_NAMES.index(r["junk"]) for r in _events], dtype=np.int8)

# --- Raiders and Water Silo ----------------------------------------------------------------
RAIDERS_BOMB = int(_special["raiders"]["bomb"])
RAIDERS_BOMB_PRINTED = int(_special["raiders"]["bomb_printed"])
WATER_SILO_TAKE_COST = int(_special["water_silo"]["take_cost"])
WATER_SILO_JUNK = JUNK_NAMES.index(_special["water_silo"]["junk"])

# --- combined draw-deck types --------------------------------------------------------------
FIRST_EVENT_TYPE = N_PERSON_TYPES
N_DECK_TYPES = N_PERSON_TYPES + N_EVENT_TYPES
DECK_TYPE_KEYS = PERSON_KEYS + EVENT_KEYS
DECK_TYPE_NAMES = PERSON_NAMES + EVENT_NAMES
DECK_TYPE_ID = _index(DECK_TYPE_KEYS)
DECK_TYPE_COUNTS = np.concatenate([PERSON_COPIES, EVENT_COPIES])
DECK_TYPE_COST = np.concatenate([PERSON_COST, EVENT_COST])
DECK_TYPE_JUNK = np.concatenate([PERSON_JUNK, EVENT_JUNK])
DECK_TYPE_IS_EVENT = (np.arange(N_DECK_TYPES) >= FIRST_EVENT_TYPE).astype(np.int8)
DECK_SIZE = int(DECK_TYPE_COUNTS.sum())

for _table in (
    CAMP_DRAW,
    CAMP_N_ABILITIES,
    CAMP_ABILITY_COST,
    CAMP_HAS_TRAIT,
    PERSON_COPIES,
    PERSON_UNIQUE,
    PERSON_COST,
    PERSON_JUNK,
    PERSON_N_ABILITIES,
    PERSON_ABILITY_COST,
    PERSON_HAS_TRAIT,
    EVENT_COPIES,
    EVENT_COST,
    EVENT_BOMB,
    EVENT_JUNK,
    DECK_TYPE_COUNTS,
    DECK_TYPE_COST,
    DECK_TYPE_JUNK,
    DECK_TYPE_IS_EVENT,
):
    _table.setflags(write=False)
