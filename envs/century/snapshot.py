"""Century snapshots (``to_dict``/``from_dict``), action names and a text board.

A snapshot is a JSON-safe dict that names things the way the card tables do: merchant cards
as ``"+YY"``, ``"U2"``, ``"YY>G"``; point cards as ``"YYRR"``; cubes as
``{"yellow": 3, "red": 1, "green": 0, "brown": 0}``. It round-trips byte for byte:
``from_dict(to_dict(states, g))[0].tobytes() == states[g].tobytes()``.

Conventions:

- Players are seat indices ``0 .. num_players-1``; market and point-row *slots* in action
  strings, in ``render`` and in the pending ``"slot"`` are 1-based like the rule book's
  positions (CSR-A1: position 1 is the leftmost card).
- ``merchant_deck`` / ``point_deck`` list the face-down cards still to come, top first.
  ``merchant_dealt`` / ``point_dealt`` list the cards already turned face up, in dealing
  order. The kernel keeps those in its deck arrays, so they are needed to rebuild the record
  exactly; they also fix the market and point row (the unclaimed dealt cards, in order).
- ``pending`` is the sub-decision in progress (``null`` in the main phase):
  ``{"phase": "upgrade", "card": "U2", "upgrades_left": 1}``, ``{"phase": "trade",
  "card": "YY>G"}``, ``{"phase": "pay", "slot": 3, "paid": 1}`` (acquiring slot 3, one cube
  already placed) or ``{"phase": "discard"}``. In a game cut off by
  the step cap (``truncated``, CSR-E4) it is the sub-decision that was interrupted.
- ``score`` and ``winner`` are ``null`` until the game is over.

``from_dict`` checks every field and every cross-field invariant of a reachable position and
raises ``SnapshotError`` naming the first problem; it never returns a partly filled state.
"""

from __future__ import annotations

import re

import numpy as np

from meeple_gym.century.data import (
    COLOUR_LETTERS,
    COLOURS,
    DECK_TYPES,
    KIND_TRADE,
    KIND_UPGRADE,
    MERCHANT_IN,
    MERCHANT_KIND,
    MERCHANT_NAMES,
    MERCHANT_OUT,
    MERCHANT_STARTING,
    MERCHANT_UPGRADES,
    POINT_NAMES,
    POINT_VALUE,
)
from meeple_gym.century.rules import (
    A_ACQUIRE,
    A_CLAIM,
    A_PLACE,
    A_PLAY,
    A_REST,
    A_RETURN,
    A_STOP,
    A_TRADE,
    A_UPGRADE,
    CARAVAN_LIMIT,
    IN_HAND,
    MARKET_SIZE,
    MAX_PLAYERS,
    MAX_TRADE_REPEATS,
    MIN_PLAYERS,
    N_COLOURS,
    N_DECK,
    N_POINT,
    NOT_OWNED,
    NUM_ACTIONS,
    PHASE_DISCARD,
    PHASE_MAIN,
    PHASE_NAMES,
    PHASE_OVER,
    PHASE_PAY,
    PHASE_TRADE,
    PHASE_UPGRADE,
    PLAYED,
    POINT_ROW_SIZE,
    STATE_DTYPE,
    STEP_CAP,
    final_scores_into,
    points_to_end,
)
from meeple_gym.core.errors import SnapshotError
from meeple_gym.core.snapshot_fields import (
    action_index,
)
from meeple_gym.core.snapshot_fields import (
    fail as _fail,
)
from meeple_gym.core.snapshot_fields import (
    read_bool as _bool,
)
from meeple_gym.core.snapshot_fields import (
    read_int as _int,
)
from meeple_gym.core.snapshot_fields import (
    read_list as _list,
)
from meeple_gym.core.snapshot_fields import (
    read_obj as _obj,
)
from meeple_gym.core.snapshot_fields import (
    read_str as _str,
)

GAME_NAME = "century"
SNAPSHOT_VERSION = 1

TOP_KEYS = (
    "game",
    "version",
    "num_players",
    "phase",
    "pending",
    "current_player",
    "first_player",
    "turn_count",
    "step_count",
    "players",
    "market",
    "merchant_deck",
    "merchant_dealt",
    "point_row",
    "point_deck",
    "point_dealt",
    "coins",
    "end_triggered",
    "terminated",
    "truncated",
    "winner",
    "score",
    "rng",
)
PLAYER_KEYS = ("caravan", "hand", "played", "point_cards", "gold", "silver")
PENDING_KEYS = {
    "upgrade": ("phase", "card", "upgrades_left"),
    "trade": ("phase", "card"),
    "pay": ("phase", "slot", "paid"),
    "discard": ("phase",),
}

_MERCHANT_INDEX = {name: t for t, name in enumerate(MERCHANT_NAMES)}
_POINT_INDEX = {name: i for i, name in enumerate(POINT_NAMES)}
_STARTING_TYPES = tuple(t for t in range(len(MERCHANT_NAMES)) if MERCHANT_STARTING[t])
_RNG_PATTERN = re.compile(r"0x[0-9a-fA-F]{1,16}")
_INT16_MAX = np.iinfo(np.int16).max
# Bounds that keep every int16 count far from wrapping (issue #10.3): a market card gains at
# most one cube a turn (CSR-A1), and turns never exceed the step cap; one action adds at most
# a market card's cubes, a spice card's output, or a trade repeated MAX_TRADE_REPEATS times.
MAX_TRADE_GAIN = MAX_TRADE_REPEATS * int(
    np.clip(MERCHANT_OUT.sum(axis=1) - MERCHANT_IN.sum(axis=1), 0, None).max()
)
MAX_CARD_GAIN = max(MAX_TRADE_GAIN, int(MERCHANT_OUT.sum(axis=1).max()))
MAX_MARKET_CUBES = STEP_CAP
MAX_CARAVAN_CUBES = CARAVAN_LIMIT + max(MAX_MARKET_CUBES, MAX_CARD_GAIN)
_INT32_MAX = np.iinfo(np.int32).max


# ---- to_dict ---------------------------------------------------------------------------------


def _cubes_dict(row) -> dict:
    return {COLOURS[c]: int(row[c]) for c in range(N_COLOURS)}


def _pending_dict(s) -> dict | None:
    """The readable form of the four pending fields; refuses fields it could not rebuild."""
    t, left = int(s["pending_type"]), int(s["upgrades_left"])
    slot, paid = int(s["acquire_slot"]), int(s["pay_index"])
    if t >= 0 and slot < 0 and paid == 0:
        if MERCHANT_KIND[t] == KIND_UPGRADE:
            return {"phase": "upgrade", "card": MERCHANT_NAMES[t], "upgrades_left": left}
        if MERCHANT_KIND[t] == KIND_TRADE and left == 0:
            return {"phase": "trade", "card": MERCHANT_NAMES[t]}
    elif t < 0 and slot >= 0 and left == 0:
        return {"phase": "pay", "slot": slot + 1, "paid": paid}
    elif t < 0 and slot < 0 and left == 0 and paid == 0:
        # The main phase and discard both have every pending field cleared.
        if int(s["phase"]) == PHASE_DISCARD:
            return {"phase": "discard"}
        return None
    raise SnapshotError(
        f"cannot snapshot: pending fields pending_type={t}, upgrades_left={left}, "
        f"acquire_slot={slot}, pay_index={paid} do not describe a sub-decision"
    )


def to_dict(states: np.ndarray, g: int) -> dict:
    """A JSON-safe, readable snapshot of game ``g`` that ``from_dict`` rebuilds exactly."""
    s = states[g]
    n = int(s["num_players"])
    phase = int(s["phase"])
    players = []
    for p in range(n):
        cards = s["cards"][p]
        players.append(
            {
                "caravan": _cubes_dict(s["caravan"][p]),
                "hand": [MERCHANT_NAMES[t] for t in np.flatnonzero(cards == IN_HAND)],
                "played": [MERCHANT_NAMES[t] for t in np.flatnonzero(cards == PLAYED)],
                "point_cards": [POINT_NAMES[i] for i in np.flatnonzero(s["point_owner"] == p)],
                "gold": int(s["gold"][p]),
                "silver": int(s["silver"][p]),
            }
        )
    market = []
    for k in range(MARKET_SIZE):
        t = int(s["market"][k])
        if t < 0:
            market.append(None)
        else:
            card = MERCHANT_NAMES[t]
            market.append({"card": card, "cubes": _cubes_dict(s["market_cubes"][k])})
    point_row = []
    for j in range(POINT_ROW_SIZE):
        i = int(s["point_row"][j])
        point_row.append(None if i < 0 else {"card": POINT_NAMES[i], "points": int(POINT_VALUE[i])})
    m_top, p_top = int(s["merchant_deck_top"]), int(s["point_deck_top"])
    over = phase == PHASE_OVER
    return {
        "game": GAME_NAME,
        "version": SNAPSHOT_VERSION,
        "num_players": n,
        "phase": PHASE_NAMES[phase],
        "pending": _pending_dict(s),
        "current_player": int(s["current_player"]),
        "first_player": int(s["first_player"]),
        "turn_count": int(s["turn_count"]),
        "step_count": int(s["step_count"]),
        "players": players,
        "market": market,
        "merchant_deck": [MERCHANT_NAMES[t] for t in s["merchant_deck"][m_top:]],
        "merchant_dealt": [MERCHANT_NAMES[t] for t in s["merchant_deck"][:m_top]],
        "point_row": point_row,
        "point_deck": [POINT_NAMES[i] for i in s["point_deck"][p_top:]],
        "point_dealt": [POINT_NAMES[i] for i in s["point_deck"][:p_top]],
        "coins": {"gold": int(s["gold_left"]), "silver": int(s["silver_left"])},
        "end_triggered": bool(s["end_triggered"]),
        "terminated": bool(s["terminated"]),
        "truncated": bool(s["truncated"]),
        "winner": int(s["winner"]) if s["winner"] >= 0 else None,
        "score": [int(v) for v in s["score"][:n]] if over else None,
        "rng": f"0x{int(s['rng'][0]):016x}",
    }


# ---- from_dict: field readers ----------------------------------------------------------------


def _cubes(value, path: str, hi: int) -> list[int]:
    value = _obj(value, path, COLOURS)
    out = []
    for colour in COLOURS:
        v = value[colour]
        if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and v < 0:
            _fail(f"{path}.{colour}", f"negative cube count {int(v)}")
        out.append(_int(v, f"{path}.{colour}", 0, hi, "cube count"))
    return out


def _merchant(value, path: str, market_only: bool = False) -> int:
    name = _str(value, path)
    if name not in _MERCHANT_INDEX:
        _fail(path, f"unknown merchant card name {name!r}")
    t = _MERCHANT_INDEX[name]
    if market_only and MERCHANT_STARTING[t]:
        _fail(path, f"{name!r} is a starting card (CSR-S3) and never enters the market deck")
    return t


def _point(value, path: str) -> int:
    name = _str(value, path)
    if name not in _POINT_INDEX:
        _fail(path, f"unknown point card name {name!r}")
    return _POINT_INDEX[name]


def _place(places: dict, card: int, where: str, name: str, kind: str):
    if card in places:
        raise SnapshotError(f"{kind} card {name!r} is duplicated: in {places[card]} and {where}")
    places[card] = where


# ---- from_dict -------------------------------------------------------------------------------


def from_dict(snapshot: dict) -> np.ndarray:
    """Rebuild a 1-game ``STATE_DTYPE`` array from ``snapshot``; raises ``SnapshotError``."""
    snap = _obj(snapshot, "snapshot", TOP_KEYS)
    # Filled field by field while reading; returned only once every check has passed.
    states = np.zeros(1, STATE_DTYPE)
    s = states[0]
    n = _read_header(snap, s)
    merchant_places: dict[int, str] = {}  # card -> where it was seen, to catch duplicates
    point_places: dict[int, str] = {}
    _read_players(snap, s, n, merchant_places, point_places)
    owned, claimed = set(merchant_places), set(point_places)
    _read_market(snap, s, merchant_places, owned)
    _read_points(snap, s, point_places, claimed)
    _check_progress(snap, s, n)
    return states


def _read_header(snap: dict, s) -> int:
    if snap["game"] != GAME_NAME:
        _fail("game", f"expected {GAME_NAME!r}, got {snap['game']!r}")
    version = _int(snap["version"], "version", 0, _INT32_MAX)
    if version != SNAPSHOT_VERSION:
        _fail("version", f"unsupported snapshot version {version}, expected {SNAPSHOT_VERSION}")
    n = _int(snap["num_players"], "num_players", MIN_PLAYERS, MAX_PLAYERS, "num_players")
    s["num_players"] = n
    s["first_player"] = _int(snap["first_player"], "first_player", 0, n - 1, "player index")
    s["current_player"] = _int(snap["current_player"], "current_player", 0, n - 1, "player index")
    phase_name = _str(snap["phase"], "phase")
    if phase_name not in PHASE_NAMES:
        _fail("phase", f"unknown phase {phase_name!r} (expected one of {', '.join(PHASE_NAMES)})")
    s["phase"] = PHASE_NAMES.index(phase_name)
    s["turn_count"] = _int(snap["turn_count"], "turn_count", 0, _INT32_MAX)
    s["step_count"] = _int(snap["step_count"], "step_count", 0, _INT32_MAX)
    for key in ("end_triggered", "terminated", "truncated"):
        s[key] = _bool(snap[key], key)
    s["winner"] = -1
    if snap["winner"] is not None:
        s["winner"] = _int(snap["winner"], "winner", 0, n - 1, "player index")
    rng_text = _str(snap["rng"], "rng")
    if not _RNG_PATTERN.fullmatch(rng_text):
        _fail("rng", f"expected '0x' and 1-16 hex digits, got {rng_text!r}")
    s["rng"][0] = np.uint64(int(rng_text, 16))
    coins = _obj(snap["coins"], "coins", ("gold", "silver"))
    s["gold_left"] = _int(coins["gold"], "coins.gold", 0, 2 * n, "coin count")
    s["silver_left"] = _int(coins["silver"], "coins.silver", 0, 2 * n, "coin count")
    return n


def _read_players(snap: dict, s, n: int, merchant_places: dict, point_places: dict):
    raw_players = _list(snap["players"], "players")
    if len(raw_players) != n:
        _fail("players", f"has {len(raw_players)} entries but num_players is {n}")
    s["point_owner"][:] = -1
    for p, raw in enumerate(raw_players):
        path = f"players[{p}]"
        player = _obj(raw, path, PLAYER_KEYS)
        s["caravan"][p] = _cubes(player["caravan"], f"{path}.caravan", MAX_CARAVAN_CUBES)
        for pile, state in (("hand", IN_HAND), ("played", PLAYED)):
            for i, name in enumerate(_list(player[pile], f"{path}.{pile}")):
                where = f"{path}.{pile}[{i}]"
                t = _merchant(name, where)
                if s["cards"][p, t] != NOT_OWNED:
                    _fail(where, f"card {name!r} is listed twice for this player")
                s["cards"][p, t] = state
                if not MERCHANT_STARTING[t]:
                    _place(merchant_places, t, where, name, "market")
        for t in _STARTING_TYPES:  # CSR-S3: every player keeps one of each starting card.
            if s["cards"][p, t] == NOT_OWNED:
                _fail(path, f"starting card {MERCHANT_NAMES[t]!r} is in neither hand nor played")
        for i, name in enumerate(_list(player["point_cards"], f"{path}.point_cards")):
            where = f"{path}.point_cards[{i}]"
            card = _point(name, where)
            _place(point_places, card, where, name, "point")
            s["point_owner"][card] = p
            s["point_count"][p] += 1
        s["gold"][p] = _int(player["gold"], f"{path}.gold", 0, 2 * n, "coin count")
        s["silver"][p] = _int(player["silver"], f"{path}.silver", 0, 2 * n, "coin count")
        if s["gold"][p] + s["silver"][p] > s["point_count"][p]:
            _fail(path, "holds more coins than point cards; a claim pays at most one (CSR-C3)")
    # CSR-S2: coins are neither created nor lost.
    for metal in ("gold", "silver"):
        left, held = int(s[f"{metal}_left"]), int(s[metal].sum())
        if left + held != 2 * n:
            raise SnapshotError(
                f"{metal} coins do not add up: {left} left + {held} held = {left + held}, "
                f"expected 2 x num_players = {2 * n} (CSR-S2)"
            )


def _read_market(snap: dict, s, merchant_places: dict, owned: set):
    """Market, face-down deck and dealt cards (CSR-S4, CSR-A3)."""
    s["market"][:] = -1
    for k, raw in enumerate(_list(snap["market"], "market", MARKET_SIZE)):
        if raw is None:
            continue
        path = f"market[{k}]"
        entry = _obj(raw, path, ("card", "cubes"))
        t = _merchant(entry["card"], f"{path}.card", market_only=True)
        _place(merchant_places, t, f"market slot {k + 1}", entry["card"], "market")
        s["market"][k] = t
        s["market_cubes"][k] = _cubes(entry["cubes"], f"{path}.cubes", MAX_MARKET_CUBES)
    rest = []
    for i, name in enumerate(_list(snap["merchant_deck"], "merchant_deck")):
        t = _merchant(name, f"merchant_deck[{i}]", market_only=True)
        _place(merchant_places, t, f"merchant_deck[{i}]", name, "market")
        rest.append(t)
    missing = [MERCHANT_NAMES[t] for t in DECK_TYPES if t not in merchant_places]
    if missing:
        raise SnapshotError(
            f"market cards missing: {missing}; each of the {N_DECK} market cards must be in "
            "exactly one place among merchant_deck, market and the players' hand/played"
        )
    dealt = [
        _merchant(name, f"merchant_dealt[{i}]", market_only=True)
        for i, name in enumerate(_list(snap["merchant_dealt"], "merchant_dealt"))
    ]
    _check_dealt(dealt, rest, owned, s["market"], "merchant", MERCHANT_NAMES)
    s["merchant_deck"] = dealt + rest
    s["merchant_deck_top"] = len(dealt)


def _read_points(snap: dict, s, point_places: dict, claimed: set):
    """Point row, face-down point deck and dealt point cards (CSR-S1, CSR-C2)."""
    s["point_row"][:] = -1
    for j, raw in enumerate(_list(snap["point_row"], "point_row", POINT_ROW_SIZE)):
        if raw is None:
            continue
        path = f"point_row[{j}]"
        entry = _obj(raw, path, ("card", "points"))
        card = _point(entry["card"], f"{path}.card")
        worth = int(POINT_VALUE[card])
        if _int(entry["points"], f"{path}.points", 0, _INT16_MAX) != worth:
            _fail(f"{path}.points", f"{entry['card']!r} is worth {worth}, not {entry['points']}")
        _place(point_places, card, f"point_row slot {j + 1}", entry["card"], "point")
        s["point_row"][j] = card
    rest = []
    for i, name in enumerate(_list(snap["point_deck"], "point_deck")):
        card = _point(name, f"point_deck[{i}]")
        _place(point_places, card, f"point_deck[{i}]", name, "point")
        rest.append(card)
    missing = [name for i, name in enumerate(POINT_NAMES) if i not in point_places]
    if missing:
        raise SnapshotError(
            f"point cards missing: {missing}; each of the {N_POINT} point cards must be in "
            "exactly one place among point_deck, point_row and the players' point_cards"
        )
    dealt = [
        _point(name, f"point_dealt[{i}]")
        for i, name in enumerate(_list(snap["point_dealt"], "point_dealt"))
    ]
    _check_dealt(dealt, rest, claimed, s["point_row"], "point", POINT_NAMES)
    s["point_deck"] = dealt + rest
    s["point_deck_top"] = len(dealt)


def _check_dealt(dealt, rest, taken, row, kind, names):
    """Dealt cards + remaining deck form the kernel's deck array; the row is what is left."""
    key, row_size = f"{kind}_dealt", len(row)
    if len(dealt) < row_size:
        _fail(key, f"the opening deal alone turns up {row_size} cards, got {len(dealt)}")
    seen = set()
    for i, card in enumerate(dealt):
        if card in seen:
            _fail(f"{key}[{i}]", f"{names[card]!r} is listed twice")
        if card in rest:
            _fail(f"{key}[{i}]", f"{names[card]!r} is also still in {kind}_deck")
        seen.add(card)
    on_table = {int(c) for c in row if c >= 0}
    if not taken <= seen or on_table != seen - taken:
        stray = sorted(names[c] for c in (on_table | taken) ^ seen)
        _fail(key, f"must list exactly the cards taken or face up, in dealing order; check {stray}")
    # CSR-A3/CSR-C2: cards slide left and refills come in at the right, so the row holds the
    # untaken dealt cards in dealing order, padded with empty slots only once the deck is out.
    expected = [c for c in dealt if c not in taken]
    expected += [-1] * (row_size - len(expected))
    row_name = "market" if kind == "merchant" else "point_row"
    if [int(c) for c in row] != expected:
        want = [names[c] if c >= 0 else None for c in expected]
        got = [names[c] if c >= 0 else None for c in row]
        _fail(row_name, f"must hold the untaken dealt cards in dealing order {want}, got {got}")
    if rest and -1 in expected:
        _fail(row_name, f"has an empty slot while {kind}_deck still has cards (refill rule)")


def _check_progress(snap: dict, s, n: int):
    """End of game, turn order, step counters, pending sub-decision, caravans, score."""
    phase, first, current = int(s["phase"]), int(s["first_player"]), int(s["current_player"])
    terminated, truncated = bool(s["terminated"]), bool(s["truncated"])
    steps, turns = int(s["step_count"]), int(s["turn_count"])
    target = points_to_end(n)
    if bool(s["end_triggered"]) != bool((s["point_count"][:n] >= target).any()):
        _fail(
            "end_triggered",
            f"must be true exactly when some player holds {target} point cards (CSR-E1)",
        )
    if terminated and truncated:
        _fail("terminated", "a game cannot be both terminated and truncated")
    if (phase == PHASE_OVER) != (terminated or truncated):
        _fail("phase", f"phase {PHASE_NAMES[phase]!r} does not match terminated/truncated")
    if terminated and not s["end_triggered"]:
        _fail("terminated", "the game can only end after end_triggered (CSR-E1)")
    if truncated and steps != STEP_CAP:
        _fail("step_count", f"a truncated game stops at the step cap {STEP_CAP} (CSR-E4)")
    if not (terminated or truncated) and steps >= STEP_CAP:
        _fail("step_count", f"a live game has fewer than {STEP_CAP} steps (CSR-E4)")
    if steps < turns:
        _fail("step_count", f"{steps} steps cannot complete {turns} turns")
    # CSR-S6: seat order from the first player; the final turn does not pass the turn on.
    expected = (first + turns - (1 if terminated else 0)) % n
    if current != expected:
        _fail(
            "current_player",
            f"expected player {expected} after {turns} turns from first_player {first}",
        )

    # CSR-A1: each turn (the one in progress too) puts at most one cube on a market card.
    for k in range(MARKET_SIZE):
        on_card = int(s["market_cubes"][k].sum())
        if on_card > turns + 1:
            _fail(
                f"market[{k}].cubes",
                f"{on_card} cubes cannot gather in {turns + 1} turns (CSR-A1)",
            )

    pending_phase = _read_pending(snap["pending"], s)
    # CSR-K1: more than 10 cubes only while the current player is returning cubes.
    over_limit_ok = pending_phase == PHASE_DISCARD or (truncated and pending_phase is None)
    for p in range(n):
        total = int(s["caravan"][p].sum())
        if total > CARAVAN_LIMIT + max(turns, MAX_CARD_GAIN):
            _fail(
                f"players[{p}].caravan",
                f"holds {total} cubes; one action adds at most "
                f"{max(turns, MAX_CARD_GAIN)} to a caravan of {CARAVAN_LIMIT} (CSR-K1)",
            )
        if total > CARAVAN_LIMIT and not (p == current and over_limit_ok):
            when = "at turn start in the main phase" if phase == PHASE_MAIN else "here"
            _fail(
                f"players[{p}].caravan",
                f"holds {total} cubes; more than {CARAVAN_LIMIT} is not allowed {when} (CSR-K1)",
            )

    if snap["score"] is None:
        if phase == PHASE_OVER:
            _fail("score", "a finished game needs its final score, got null")
    else:
        if phase != PHASE_OVER:
            _fail("score", "must be null until the game is over")
        raw = _list(snap["score"], "score", n)
        score = [_int(v, f"score[{p}]", -_INT16_MAX, _INT16_MAX) for p, v in enumerate(raw)]
        computed = np.zeros(MAX_PLAYERS, np.int16)
        final_scores_into(s, computed)  # CSR-E2
        if [int(v) for v in computed[:n]] != score:
            _fail("score", f"expected {[int(v) for v in computed[:n]]} (CSR-E2), got {score}")
        s["score"][:n] = score
    if terminated:
        best = -1
        for position in range(n):  # CSR-E3: >= in turn order hands a tie to the later player.
            p = (first + position) % n
            if best < 0 or s["score"][p] >= s["score"][best]:
                best = p
        if int(s["winner"]) != best:
            _fail("winner", f"expected player {best} (CSR-E3: ties go to the later player)")
    elif s["winner"] >= 0:
        _fail("winner", "only a terminated game has a winner")


def _read_pending(raw, s) -> int | None:
    """Check ``pending`` against the phase and fill the kernel's four pending fields.

    Returns the sub-decision's phase, or None when nothing is pending.
    """
    phase, current = int(s["phase"]), int(s["current_player"])
    s["pending_type"] = -1
    s["acquire_slot"] = -1
    name = PHASE_NAMES[phase]
    if raw is None:
        if phase in (PHASE_MAIN, PHASE_OVER):
            return None
        _fail("pending", f"phase {name!r} needs a pending sub-decision, got null")
    if not isinstance(raw, dict) or "phase" not in raw:
        _fail("pending", "expected null or an object with a 'phase' key")
    kind = _str(raw["phase"], "pending.phase")
    if kind not in PENDING_KEYS:
        expected = ", ".join(PENDING_KEYS)
        _fail("pending.phase", f"unknown sub-decision {kind!r} (expected {expected})")
    if phase == PHASE_MAIN:
        _fail("pending", f"phase 'main' has no pending sub-decision, got {kind!r}")
    if phase == PHASE_OVER and not s["truncated"]:
        _fail("pending", "a game that ended normally has no pending sub-decision")
    if phase != PHASE_OVER and kind != name:
        _fail("pending.phase", f"phase is {name!r} but the pending sub-decision is {kind!r}")
    pending = _obj(raw, "pending", PENDING_KEYS[kind])
    held = s["caravan"][current]
    if kind in ("upgrade", "trade"):
        t = _merchant(pending["card"], "pending.card")
        want = KIND_UPGRADE if kind == "upgrade" else KIND_TRADE
        if MERCHANT_KIND[t] != want:
            _fail("pending.card", f"{pending['card']!r} is not a {kind} card")
        if s["cards"][current, t] != PLAYED:  # CSR-P1: the card was just played.
            _fail("pending.card", f"{pending['card']!r} is not in the current player's played pile")
        s["pending_type"] = t
        if kind == "upgrade":  # CSR-P3: at least one upgrade left, else the turn is over.
            top = int(MERCHANT_UPGRADES[t])
            left = _int(pending["upgrades_left"], "pending.upgrades_left", 1, top, "upgrades left")
            s["upgrades_left"] = left
        elif (held < MERCHANT_IN[t]).any():  # CSR-P5: the trade must be possible once.
            _fail("pending.card", f"the current player cannot pay {pending['card']!r} even once")
    elif kind == "pay":
        # CSR-A1/A2: slot 1 is free, so paying only ever targets slots 2..6.
        slot = _int(pending["slot"], "pending.slot", 2, MARKET_SIZE, "market slot")
        paid = _int(pending["paid"], "pending.paid", 0, slot - 2, "cubes paid")
        if s["market"][slot - 1] < 0:
            _fail("pending.slot", f"market slot {slot} is empty")
        if int(held.sum()) < slot - 1 - paid:
            _fail("pending", "the current player cannot place the cubes still owed (CSR-A1)")
        s["acquire_slot"] = slot - 1
        s["pay_index"] = paid
    else:
        if int(held.sum()) <= CARAVAN_LIMIT:
            _fail(
                "pending",
                f"returning cubes needs more than {CARAVAN_LIMIT} in the current player's "
                "caravan (CSR-K1)",
            )
    return PHASE_NAMES.index(kind)


# ---- action names and board ------------------------------------------------------------------


def action_to_string(states: np.ndarray, g: int, action) -> str:
    """Describe ``action`` in game ``g``'s position, e.g. ``"acquire slot 3 (RR>GG)"``."""
    a = action_index(action, NUM_ACTIONS)
    s = states[g]
    if a < A_ACQUIRE:
        return f"play {MERCHANT_NAMES[a - A_PLAY]}"
    if a < A_REST:
        k = a - A_ACQUIRE
        t = int(s["market"][k])
        return f"acquire slot {k + 1} ({MERCHANT_NAMES[t] if t >= 0 else 'empty'})"
    if a == A_REST:
        return "rest"
    if a < A_UPGRADE:
        j = a - A_CLAIM
        card = int(s["point_row"][j])
        if card < 0:
            return f"claim slot {j + 1} (empty)"
        return f"claim slot {j + 1} ({POINT_NAMES[card]}, {int(POINT_VALUE[card])} pts)"
    if a < A_STOP:
        return f"upgrade {COLOURS[a - A_UPGRADE]}"
    if a == A_STOP:
        return "stop upgrading"
    if a < A_PLACE:
        text = f"trade x{a - A_TRADE + 1}"
        if s["phase"] == PHASE_TRADE and s["pending_type"] >= 0:
            text += f" ({MERCHANT_NAMES[int(s['pending_type'])]})"
        return text
    if a < A_RETURN:
        text = f"place {COLOURS[a - A_PLACE]}"
        if s["phase"] == PHASE_PAY:
            text += f" on slot {int(s['pay_index']) + 1}"
        return text
    return f"return {COLOURS[a - A_RETURN]}"


_ANSI = {"Y": "\x1b[33m", "R": "\x1b[31m", "G": "\x1b[32m", "B": "\x1b[38;5;130m"}
_BOLD, _RESET = "\x1b[1m", "\x1b[0m"


def _cube_text(row, color: bool) -> str:
    parts = []
    for c in range(N_COLOURS):
        part = f"{int(row[c])}{COLOUR_LETTERS[c]}"
        parts.append(f"{_ANSI[COLOUR_LETTERS[c]]}{part}{_RESET}" if color else part)
    return " ".join(parts)


def _card_list(types) -> str:
    return " ".join(MERCHANT_NAMES[t] for t in types) or "-"


def _pending_text(s) -> str:
    phase = int(s["phase"])
    t = int(s["pending_type"])
    if phase == PHASE_UPGRADE:
        return f"upgrading with {MERCHANT_NAMES[t]}: {int(s['upgrades_left'])} upgrade(s) left"
    if phase == PHASE_TRADE:
        limit = 0
        held = s["caravan"][int(s["current_player"])]
        while limit < MAX_TRADE_REPEATS and (held >= (limit + 1) * MERCHANT_IN[t]).all():
            limit += 1
        return f"choose how often to trade {MERCHANT_NAMES[t]} (1..{limit})"
    if phase == PHASE_PAY:
        slot, paid = int(s["acquire_slot"]), int(s["pay_index"])
        return (
            f"acquiring slot {slot + 1} ({MERCHANT_NAMES[int(s['market'][slot])]}): "
            f"place a cube on slot {paid + 1} ({slot - paid} still to place)"
        )
    if phase == PHASE_DISCARD:
        extra = int(s["caravan"][int(s["current_player"])].sum()) - CARAVAN_LIMIT
        return f"return {extra} cube(s) down to {CARAVAN_LIMIT}"
    return "-"


def render(states: np.ndarray, g: int, color: bool = False) -> str:
    """A multi-line board of game ``g``; ``color=True`` adds ANSI colours."""
    s = states[g]
    n = int(s["num_players"])
    phase = int(s["phase"])
    lines = [
        f"Century: Spice Road - {n} players, turn {int(s['turn_count'])}, "
        f"step {int(s['step_count'])}, phase {PHASE_NAMES[phase]}"
    ]
    if s["terminated"]:
        lines.append(f"Game over: player {int(s['winner'])} wins")
    elif s["truncated"]:
        lines.append(f"Game cut off at the step cap of {STEP_CAP} (truncated)")
    elif s["end_triggered"]:
        lines.append("Last round: the game ends when play comes back to the first player")

    # CSR-C3: gold above slot 1, silver above slot 2; silver moves left once gold runs out.
    gold_left, silver_left = int(s["gold_left"]), int(s["silver_left"])
    coin_on = {}
    if gold_left > 0:
        coin_on = {0: f"gold ({gold_left} left)"}
        if silver_left > 0:
            coin_on[1] = f"silver ({silver_left} left)"
    elif silver_left > 0:
        coin_on = {0: f"silver ({silver_left} left)"}
    p_top = int(s["point_deck_top"])
    lines.append(f"Point cards ({N_POINT - p_top} face down):")
    for j in range(POINT_ROW_SIZE):
        card = int(s["point_row"][j])
        if card < 0:
            lines.append(f"  {j + 1}. (empty)")
            continue
        coin = f"  + {coin_on[j]}" if j in coin_on else ""
        lines.append(f"  {j + 1}. {POINT_NAMES[card]:<8} {int(POINT_VALUE[card]):>2} pts{coin}")

    m_top = int(s["merchant_deck_top"])
    lines.append(f"Market ({N_DECK - m_top} face down):")
    for k in range(MARKET_SIZE):
        t = int(s["market"][k])
        if t < 0:
            lines.append(f"  {k + 1}. (empty)")
            continue
        cubes = s["market_cubes"][k]
        extra = f"  cubes {_cube_text(cubes, color)}" if cubes.sum() > 0 else ""
        lines.append(f"  {k + 1}. {MERCHANT_NAMES[t]:<10}{extra}".rstrip())

    now = np.zeros(MAX_PLAYERS, np.int16)
    final_scores_into(s, now)
    label = "score" if phase == PHASE_OVER else "score now"
    lines.append("Players:")
    for p in range(n):
        mark = ">" if p == int(s["current_player"]) and phase != PHASE_OVER else " "
        tags = " (first)" if p == int(s["first_player"]) else ""
        cards = s["cards"][p]
        total = int(s["caravan"][p].sum())
        head = (
            f"{mark} player {p}{tags}: caravan {_cube_text(s['caravan'][p], color)} "
            f"({total}/{CARAVAN_LIMIT}), {label} {int(now[p])}"
        )
        lines.append(f"{_BOLD}{head}{_RESET}" if color and mark == ">" else head)
        lines.append(f"    hand:   {_card_list(np.flatnonzero(cards == IN_HAND))}")
        lines.append(f"    played: {_card_list(np.flatnonzero(cards == PLAYED))}")
        owned = np.flatnonzero(s["point_owner"] == p)
        points = " ".join(f"{POINT_NAMES[i]}({int(POINT_VALUE[i])})" for i in owned) or "-"
        lines.append(f"    points: {points}")
        lines.append(f"    coins:  {int(s['gold'][p])} gold, {int(s['silver'][p])} silver")
    lines.append(f"Pending: {_pending_text(s)}")
    return "\n".join(lines)


__all__ = ["action_to_string", "from_dict", "render", "to_dict"]
