"""Century card tables, loaded from the CSV files beside this module.

``merchant_cards.csv`` lists the 45 merchant card *types*: the two starting types (5 copies
each in the box, one of each per player, CSR-S3) and the 43 market cards (one copy each).
A spice card is stored as a trade with no input, so one ``MERCHANT_IN``/``MERCHANT_OUT`` pair
covers both. ``point_cards.csv`` lists the 36 point cards with their cube cost and points.
Facts were cross-checked against the public card lists named in docs/century.md
(section "Card tables").
"""

from pathlib import Path

import numpy as np

from meeple_gym.core.tables import read_rows

_HERE = Path(__file__).parent
COLOURS = ("yellow", "red", "green", "brown")
COLOUR_LETTERS = "YRGB"
KINDS = ("spice", "upgrade", "trade")
KIND_SPICE, KIND_UPGRADE, KIND_TRADE = 0, 1, 2


def _rows(name):
    return read_rows(_HERE, name)


_merchant = _rows("merchant_cards.csv")
_point = _rows("point_cards.csv")

MERCHANT_NAMES = tuple(r["name"] for r in _merchant)
MERCHANT_KIND = np.array([KINDS.index(r["kind"]) for r in _merchant], dtype=np.int8)
MERCHANT_COPIES = np.array([int(r["copies"]) for r in _merchant], dtype=np.int8)
MERCHANT_STARTING = np.array([int(r["starting"]) for r in _merchant], dtype=np.int8)
MERCHANT_UPGRADES = np.array([int(r["upgrades"]) for r in _merchant], dtype=np.int8)
MERCHANT_IN = np.array([[int(r["in_" + c]) for c in COLOURS] for r in _merchant], dtype=np.int16)
MERCHANT_OUT = np.array([[int(r["out_" + c]) for c in COLOURS] for r in _merchant], dtype=np.int16)

POINT_NAMES = tuple(r["name"] for r in _point)
POINT_VALUE = np.array([int(r["points"]) for r in _point], dtype=np.int16)
POINT_COST = np.array([[int(r["cost_" + c]) for c in COLOURS] for r in _point], dtype=np.int16)

STARTING_SPICE_TYPE = MERCHANT_NAMES.index("+YY")
STARTING_UPGRADE_TYPE = MERCHANT_NAMES.index("U2")
DECK_TYPES = np.array([t for t in range(len(_merchant)) if not MERCHANT_STARTING[t]], np.int8)

for _table in (
    MERCHANT_KIND,
    MERCHANT_UPGRADES,
    MERCHANT_IN,
    MERCHANT_OUT,
    POINT_VALUE,
    POINT_COST,
):
    _table.setflags(write=False)
