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

import numpy as np

from meeple_gym.century import data as D
from meeple_gym.century import rules as R
from meeple_gym.core import snapshot as core
from meeple_gym.core.errors import SnapshotError

GAME_NAME = "century"
SNAPSHOT_VERSION = 1

PENDING_KEYS = {
    "upgrade": ("phase", "card", "upgrades_left"),
    "trade": ("phase", "card"),
    "pay": ("phase", "slot", "paid"),
    "discard": ("phase",),
}

_MERCHANT_INDEX = {name: t for t, name in enumerate(D.MERCHANT_NAMES)}
_POINT_INDEX = {name: i for i, name in enumerate(D.POINT_NAMES)}
_STARTING_TYPES = tuple(t for t in range(len(D.MERCHANT_NAMES)) if D.MERCHANT_STARTING[t])
_INT16_MAX = np.iinfo(np.int16).max
# Bounds that keep every int16 count far from wrapping: a market card gains at most one cube a
# turn (CSR-A1), and turns never exceed the step cap; one action adds at most a market card's
# cubes, a spice card's output, or a trade repeated MAX_TRADE_REPEATS times.
MAX_TRADE_GAIN = R.MAX_TRADE_REPEATS * int(
    np.clip(D.MERCHANT_OUT.sum(axis=1) - D.MERCHANT_IN.sum(axis=1), 0, None).max()
)
MAX_CARD_GAIN = max(MAX_TRADE_GAIN, int(D.MERCHANT_OUT.sum(axis=1).max()))
MAX_MARKET_CUBES = R.STEP_CAP
MAX_CARAVAN_CUBES = R.CARAVAN_LIMIT + max(MAX_MARKET_CUBES, MAX_CARD_GAIN)


def _coins(c) -> int:
    return 2 * c.n  # CSR-S2: two gold and two silver coins per player


# ---- to_dict ---------------------------------------------------------------------------------


def _pending_dict(c) -> dict | None:
    """The readable form of the four pending fields; refuses fields it could not rebuild."""
    s = c.s
    t, left = int(s["pending_type"]), int(s["upgrades_left"])
    slot, paid = int(s["acquire_slot"]), int(s["pay_index"])
    if t >= 0 and slot < 0 and paid == 0:
        if D.MERCHANT_KIND[t] == D.KIND_UPGRADE:
            return {"phase": "upgrade", "card": D.MERCHANT_NAMES[t], "upgrades_left": left}
        if D.MERCHANT_KIND[t] == D.KIND_TRADE and left == 0:
            return {"phase": "trade", "card": D.MERCHANT_NAMES[t]}
    elif t < 0 and slot >= 0 and left == 0:
        return {"phase": "pay", "slot": slot + 1, "paid": paid}
    elif t < 0 and slot < 0 and left == 0 and paid == 0:
        # The main phase and discard both have every pending field cleared.
        if int(s["phase"]) == R.PHASE_DISCARD:
            return {"phase": "discard"}
        return None
    raise SnapshotError(
        f"cannot snapshot: pending fields pending_type={t}, upgrades_left={left}, "
        f"acquire_slot={slot}, pay_index={paid} do not describe a sub-decision"
    )


def _merchants(c, p: int, state: int) -> list[str]:
    names = D.MERCHANT_NAMES
    return [names[t] for t in np.flatnonzero(c.s["cards"][p] == state).tolist()]


def _market_slot(t: int, cubes: list) -> dict | None:
    if t < 0:
        return None
    return {"card": D.MERCHANT_NAMES[t], "cubes": dict(zip(D.COLOURS, cubes, strict=True))}


def _market(c) -> list:
    rows = zip(c.s["market"].tolist(), c.s["market_cubes"].tolist(), strict=True)
    return [_market_slot(t, cubes) for t, cubes in rows]


def _point_row(c) -> list:
    return [
        None if i < 0 else {"card": D.POINT_NAMES[i], "points": int(D.POINT_VALUE[i])}
        for i in c.s["point_row"].tolist()
    ]


# kind -> (deck field, its top field, card names)
_DECKS = {
    "merchant": ("merchant_deck", "merchant_deck_top", D.MERCHANT_NAMES),
    "point": ("point_deck", "point_deck_top", D.POINT_NAMES),
}


def _deck(c, kind: str, dealt: bool) -> list[str]:
    """The cards already turned up (``dealt``) or still face down, top first."""
    field, top_field, names = _DECKS[kind]
    cards, top = c.s[field].tolist(), int(c.s[top_field])
    return [names[t] for t in (cards[:top] if dealt else cards[top:])]


def _score(c) -> list[int] | None:
    if int(c.s["phase"]) != R.PHASE_OVER:
        return None
    return [int(v) for v in c.s["score"][: c.n]]


PLAYER = (
    core.Custom("caravan", lambda c, p: core.counts_dict(c.s["caravan"][p], D.COLOURS)),
    core.Custom("hand", lambda c, p: _merchants(c, p, R.IN_HAND)),
    core.Custom("played", lambda c, p: _merchants(c, p, R.PLAYED)),
    core.Custom(
        "point_cards",
        lambda c, p: [D.POINT_NAMES[i] for i in np.flatnonzero(c.s["point_owner"] == p).tolist()],
    ),
    core.Int("gold", hi=_coins, what="coin count"),
    core.Int("silver", hi=_coins, what="coin count"),
)
TABLE = (
    core.Int("num_players", lo=R.MIN_PLAYERS, hi=R.MAX_PLAYERS, what="num_players"),
    core.Name("phase", names=R.PHASE_NAMES),
    core.Custom("pending", _pending_dict),
    core.Int("current_player", hi=core.last_seat, what="player index"),
    core.Int("first_player", hi=core.last_seat, what="player index"),
    core.Int("turn_count"),
    core.Int("step_count"),
    core.Custom("players", lambda c: [core.write_table(PLAYER, c, (p,)) for p in range(c.n)]),
    core.Custom("market", _market),
    core.Custom("merchant_deck", lambda c: _deck(c, "merchant", False)),
    core.Custom("merchant_dealt", lambda c: _deck(c, "merchant", True)),
    core.Custom("point_row", _point_row),
    core.Custom("point_deck", lambda c: _deck(c, "point", False)),
    core.Custom("point_dealt", lambda c: _deck(c, "point", True)),
    core.Obj(
        "coins",
        (
            core.Int("gold", "gold_left", hi=_coins, what="coin count"),
            core.Int("silver", "silver_left", hi=_coins, what="coin count"),
        ),
    ),
    core.Bool("end_triggered"),
    core.Bool("terminated"),
    core.Bool("truncated"),
    core.Int("winner", hi=core.last_seat, what="player index", null=-1),
    core.Custom("score", _score),
    core.RNG,
)
PLAYER_KEYS = tuple(entry.key for entry in PLAYER)


# ---- from_dict: field readers ----------------------------------------------------------------


def _cubes(value, path: str, hi: int) -> list[int]:
    value = core.read_obj(value, path, D.COLOURS)
    out = []
    for colour in D.COLOURS:
        v = value[colour]
        if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) and v < 0:
            core.fail(f"{path}.{colour}", f"negative cube count {int(v)}")
        out.append(core.read_int(v, f"{path}.{colour}", 0, hi, "cube count"))
    return out


def _merchant(value, path: str) -> int:
    return core.read_key(value, path, _MERCHANT_INDEX, "merchant card name")


def _market_card(value, path: str) -> int:
    t = core.read_key(value, path, _MERCHANT_INDEX, "merchant card name")
    if D.MERCHANT_STARTING[t]:
        core.fail(path, f"{value!r} is a starting card (CSR-S3) and never enters the market deck")
    return t


def _point(value, path: str) -> int:
    return core.read_key(value, path, _POINT_INDEX, "point card name")


def _place(places: dict, card: int, where: str, name: str, kind: str):
    if card in places:
        raise SnapshotError(f"{kind} card {name!r} is duplicated: in {places[card]} and {where}")
    places[card] = where


# ---- from_dict -------------------------------------------------------------------------------


def _read_players(c: core.ReadCall):
    s, n = c.s, c.n
    c.merchant_places = {}  # card -> where it was seen, to catch duplicates
    c.point_places = {}
    s["point_owner"][:] = -1
    for p, raw in enumerate(core.read_players(c)):
        path = f"players[{p}]"
        player = core.read_obj(raw, path, PLAYER_KEYS)
        s["caravan"][p] = _cubes(player["caravan"], f"{path}.caravan", MAX_CARAVAN_CUBES)
        cards = [R.NOT_OWNED] * len(D.MERCHANT_NAMES)  # the player's row, stored once read
        for pile, state in (("hand", R.IN_HAND), ("played", R.PLAYED)):
            for i, name in enumerate(core.read_list(player[pile], f"{path}.{pile}")):
                where = f"{path}.{pile}[{i}]"
                t = _merchant(name, where)
                if cards[t] != R.NOT_OWNED:
                    core.fail(where, f"card {name!r} is listed twice for this player")
                cards[t] = state
                if not D.MERCHANT_STARTING[t]:
                    _place(c.merchant_places, t, where, name, "market")
        for t in _STARTING_TYPES:  # CSR-S3: every player keeps one of each starting card.
            if cards[t] == R.NOT_OWNED:
                core.fail(
                    path, f"starting card {D.MERCHANT_NAMES[t]!r} is in neither hand nor played"
                )
        s["cards"][p] = cards
        claims = core.read_list(player["point_cards"], f"{path}.point_cards")
        for i, name in enumerate(claims):
            where = f"{path}.point_cards[{i}]"
            card = _point(name, where)
            _place(c.point_places, card, where, name, "point")
            s["point_owner"][card] = p
        s["point_count"][p] = len(claims)
        core.read_table(player, path, PLAYER, c, (p,), keys=("gold", "silver"))
        if s["gold"][p] + s["silver"][p] > s["point_count"][p]:
            core.fail(path, "holds more coins than point cards; a claim pays at most one (CSR-C3)")
    # CSR-S2: coins are neither created nor lost.
    for metal in ("gold", "silver"):
        left, held = int(s[f"{metal}_left"]), int(s[metal].sum())
        if left + held != 2 * n:
            raise SnapshotError(
                f"{metal} coins do not add up: {left} left + {held} held = {left + held}, "
                f"expected 2 x num_players = {2 * n} (CSR-S2)"
            )
    c.owned, c.claimed = set(c.merchant_places), set(c.point_places)


def _read_cubes_entry(entry, path: str, s, k: int):
    s["market_cubes"][k] = _cubes(entry["cubes"], f"{path}.cubes", MAX_MARKET_CUBES)


def _read_points_entry(entry, path: str, s, k: int):
    worth = int(D.POINT_VALUE[s["point_row"][k]])
    if core.read_int(entry["points"], f"{path}.points", 0, _INT16_MAX) != worth:
        core.fail(f"{path}.points", f"{entry['card']!r} is worth {worth}, not {entry['points']}")


# The two rows of face-up cards, each dealt from its own deck: (row key, slots, the entry's
# second key and its reader, the cards' word in messages, card reader, every card of the
# deck, where else the cards may be).
_ROWS = {
    "merchant": (
        "market",
        R.MARKET_SIZE,
        ("cubes", _read_cubes_entry),
        "market",
        _market_card,
        tuple(D.DECK_TYPES),
        "the players' hand/played",
    ),
    "point": (
        "point_row",
        R.POINT_ROW_SIZE,
        ("points", _read_points_entry),
        "point",
        _point,
        tuple(range(R.N_POINT)),
        "the players' point_cards",
    ),
}


def _read_row(c: core.ReadCall, kind: str):
    """A face-up row, its face-down deck and the cards dealt from it: the market (CSR-S4,
    CSR-A3) or the point row (CSR-S1, CSR-C2)."""
    row_key, size, (extra, read_extra), word, read_card, cards, owners = _ROWS[kind]
    names = D.MERCHANT_NAMES if kind == "merchant" else D.POINT_NAMES
    places = c.merchant_places if kind == "merchant" else c.point_places
    s = c.s
    s[row_key][:] = -1
    for k, raw in enumerate(core.read_list(c.snap[row_key], row_key, size)):
        if raw is None:
            continue
        path = f"{row_key}[{k}]"
        entry = core.read_obj(raw, path, ("card", extra))
        card = read_card(entry["card"], f"{path}.card")
        s[row_key][k] = card
        read_extra(entry, path, s, k)
        _place(places, card, f"{row_key} slot {k + 1}", entry["card"], word)
    deck_key = f"{kind}_deck"
    rest = []
    for i, name in enumerate(core.read_list(c.snap[deck_key], deck_key)):
        card = read_card(name, f"{deck_key}[{i}]")
        _place(places, card, f"{deck_key}[{i}]", name, word)
        rest.append(card)
    missing = [names[card] for card in cards if card not in places]
    if missing:
        raise SnapshotError(
            f"{word} cards missing: {missing}; each of the {len(cards)} {word} cards must be in "
            f"exactly one place among {deck_key}, {row_key} and {owners}"
        )
    dealt_key = f"{kind}_dealt"
    dealt = [
        read_card(name, f"{dealt_key}[{i}]")
        for i, name in enumerate(core.read_list(c.snap[dealt_key], dealt_key))
    ]
    taken = c.owned if kind == "merchant" else c.claimed
    _check_dealt(dealt, rest, taken, s[row_key], kind, names)
    s[deck_key] = dealt + rest
    s[f"{kind}_deck_top"] = len(dealt)


def _check_dealt(dealt, rest, taken, row, kind, names):
    """Dealt cards + remaining deck form the kernel's deck array; the row is what is left."""
    key, row_size = f"{kind}_dealt", len(row)
    if len(dealt) < row_size:
        core.fail(key, f"the opening deal alone turns up {row_size} cards, got {len(dealt)}")
    seen = set()
    for i, card in enumerate(dealt):
        if card in seen:
            core.fail(f"{key}[{i}]", f"{names[card]!r} is listed twice")
        if card in rest:
            core.fail(f"{key}[{i}]", f"{names[card]!r} is also still in {kind}_deck")
        seen.add(card)
    on_table = {int(c) for c in row if c >= 0}
    if not taken <= seen or on_table != seen - taken:
        stray = sorted(names[c] for c in (on_table | taken) ^ seen)
        core.fail(
            key, f"must list exactly the cards taken or face up, in dealing order; check {stray}"
        )
    # CSR-A3/CSR-C2: cards slide left and refills come in at the right, so the row holds the
    # untaken dealt cards in dealing order, padded with empty slots only once the deck is out.
    expected = [c for c in dealt if c not in taken]
    expected += [-1] * (row_size - len(expected))
    row_name = "market" if kind == "merchant" else "point_row"
    if [int(c) for c in row] != expected:
        want = [names[c] if c >= 0 else None for c in expected]
        got = [names[c] if c >= 0 else None for c in row]
        core.fail(row_name, f"must hold the untaken dealt cards in dealing order {want}, got {got}")
    if rest and -1 in expected:
        core.fail(row_name, f"has an empty slot while {kind}_deck still has cards (refill rule)")


def _check_progress(c: core.ReadCall):
    """End of game, turn order, step counters, pending sub-decision, caravans, score."""
    snap, s, n = c.snap, c.s, c.n
    phase, first, current = int(s["phase"]), int(s["first_player"]), int(s["current_player"])
    terminated, truncated = bool(s["terminated"]), bool(s["truncated"])
    steps, turns = int(s["step_count"]), int(s["turn_count"])
    target = R.points_to_end(n)
    if bool(s["end_triggered"]) != bool((s["point_count"][:n] >= target).any()):
        core.fail(
            "end_triggered",
            f"must be true exactly when some player holds {target} point cards (CSR-E1)",
        )
    core.check_stop(c, R.STEP_CAP, both="terminated", over=R.PHASE_OVER, rule="CSR-E4")
    if terminated and not s["end_triggered"]:
        core.fail("terminated", "the game can only end after end_triggered (CSR-E1)")
    if steps < turns:
        core.fail("step_count", f"{steps} steps cannot complete {turns} turns")
    # CSR-S6: seat order from the first player; the final turn does not pass the turn on.
    expected = (first + turns - (1 if terminated else 0)) % n
    if current != expected:
        core.fail(
            "current_player",
            f"expected player {expected} after {turns} turns from first_player {first}",
        )

    # CSR-A1: each turn (the one in progress too) puts at most one cube on a market card.
    for k in range(R.MARKET_SIZE):
        on_card = int(s["market_cubes"][k].sum())
        if on_card > turns + 1:
            core.fail(
                f"market[{k}].cubes",
                f"{on_card} cubes cannot gather in {turns + 1} turns (CSR-A1)",
            )

    pending_phase = _read_pending(snap["pending"], s)
    # CSR-K1: more than 10 cubes only while the current player is returning cubes.
    over_limit_ok = pending_phase == R.PHASE_DISCARD or (truncated and pending_phase is None)
    for p in range(n):
        total = int(s["caravan"][p].sum())
        if total > R.CARAVAN_LIMIT + max(turns, MAX_CARD_GAIN):
            core.fail(
                f"players[{p}].caravan",
                f"holds {total} cubes; one action adds at most "
                f"{max(turns, MAX_CARD_GAIN)} to a caravan of {R.CARAVAN_LIMIT} (CSR-K1)",
            )
        if total > R.CARAVAN_LIMIT and not (p == current and over_limit_ok):
            when = "at turn start in the main phase" if phase == R.PHASE_MAIN else "here"
            core.fail(
                f"players[{p}].caravan",
                f"holds {total} cubes; more than {R.CARAVAN_LIMIT} is not allowed {when} (CSR-K1)",
            )

    score = core.read_final_score(snap["score"], phase == R.PHASE_OVER, n, -_INT16_MAX, _INT16_MAX)
    if score is not None:
        computed = np.zeros(R.MAX_PLAYERS, np.int16)
        R.final_scores_into(s, computed)  # CSR-E2
        if [int(v) for v in computed[:n]] != score:
            core.fail("score", f"expected {[int(v) for v in computed[:n]]} (CSR-E2), got {score}")
        s["score"][:n] = score
    if terminated:
        best = -1
        for position in range(n):  # CSR-E3: >= in turn order hands a tie to the later player.
            p = (first + position) % n
            if best < 0 or s["score"][p] >= s["score"][best]:
                best = p
        if int(s["winner"]) != best:
            core.fail("winner", f"expected player {best} (CSR-E3: ties go to the later player)")
    elif s["winner"] >= 0:
        core.fail("winner", "only a terminated game has a winner")


def _read_pending(raw, s) -> int | None:
    """Check ``pending`` against the phase and fill the kernel's four pending fields.

    Returns the sub-decision's phase, or None when nothing is pending.
    """
    phase, current = int(s["phase"]), int(s["current_player"])
    s["pending_type"] = -1
    s["acquire_slot"] = -1
    name = R.PHASE_NAMES[phase]
    if raw is None:
        if phase in (R.PHASE_MAIN, R.PHASE_OVER):
            return None
        core.fail("pending", f"phase {name!r} needs a pending sub-decision, got null")
    if not isinstance(raw, dict) or "phase" not in raw:
        core.fail("pending", "expected null or an object with a 'phase' key")
    kind = core.read_str(raw["phase"], "pending.phase")
    if kind not in PENDING_KEYS:
        expected = ", ".join(PENDING_KEYS)
        core.fail("pending.phase", f"unknown sub-decision {kind!r} (expected {expected})")
    if phase == R.PHASE_MAIN:
        core.fail("pending", f"phase 'main' has no pending sub-decision, got {kind!r}")
    if phase == R.PHASE_OVER and not s["truncated"]:
        core.fail("pending", "a game that ended normally has no pending sub-decision")
    if phase != R.PHASE_OVER and kind != name:
        core.fail("pending.phase", f"phase is {name!r} but the pending sub-decision is {kind!r}")
    pending = core.read_obj(raw, "pending", PENDING_KEYS[kind])
    held = s["caravan"][current]
    if kind in ("upgrade", "trade"):
        t = _merchant(pending["card"], "pending.card")
        want = D.KIND_UPGRADE if kind == "upgrade" else D.KIND_TRADE
        if D.MERCHANT_KIND[t] != want:
            core.fail("pending.card", f"{pending['card']!r} is not a {kind} card")
        if s["cards"][current, t] != R.PLAYED:  # CSR-P1: the card was just played.
            core.fail(
                "pending.card", f"{pending['card']!r} is not in the current player's played pile"
            )
        s["pending_type"] = t
        if kind == "upgrade":  # CSR-P3: at least one upgrade left, else the turn is over.
            top = int(D.MERCHANT_UPGRADES[t])
            left = core.read_int(
                pending["upgrades_left"], "pending.upgrades_left", 1, top, "upgrades left"
            )
            s["upgrades_left"] = left
        elif (held < D.MERCHANT_IN[t]).any():  # CSR-P5: the trade must be possible once.
            core.fail(
                "pending.card", f"the current player cannot pay {pending['card']!r} even once"
            )
    elif kind == "pay":
        # CSR-A1/A2: slot 1 is free, so paying only ever targets slots 2..6.
        slot = core.read_int(pending["slot"], "pending.slot", 2, R.MARKET_SIZE, "market slot")
        paid = core.read_int(pending["paid"], "pending.paid", 0, slot - 2, "cubes paid")
        if s["market"][slot - 1] < 0:
            core.fail("pending.slot", f"market slot {slot} is empty")
        if int(held.sum()) < slot - 1 - paid:
            core.fail("pending", "the current player cannot place the cubes still owed (CSR-A1)")
        s["acquire_slot"] = slot - 1
        s["pay_index"] = paid
    else:
        if int(held.sum()) <= R.CARAVAN_LIMIT:
            core.fail(
                "pending",
                f"returning cubes needs more than {R.CARAVAN_LIMIT} in the current player's "
                "caravan (CSR-K1)",
            )
    return R.PHASE_NAMES.index(kind)


# What from_dict does, in turn: table keys read by their entry, and the game's steps.
READ = (
    "num_players",
    "first_player",
    "current_player",
    "phase",
    "turn_count",
    "step_count",
    "end_triggered",
    "terminated",
    "truncated",
    "winner",
    "rng",
    "coins",
    _read_players,
    lambda c: _read_row(c, "merchant"),
    lambda c: _read_row(c, "point"),
    _check_progress,
)
CODEC = core.Codec(GAME_NAME, SNAPSHOT_VERSION, R.STATE_DTYPE, TABLE, READ)
TOP_KEYS = CODEC.keys
to_dict, from_dict = CODEC.to_dict, CODEC.from_dict


# ---- action names and board ------------------------------------------------------------------


def action_to_string(states: np.ndarray, g: int, action) -> str:
    """Describe ``action`` in game ``g``'s position, e.g. ``"acquire slot 3 (RR>GG)"``."""
    a = core.action_index(action, R.NUM_ACTIONS)
    s = states[g]
    if a < R.A_ACQUIRE:
        return f"play {D.MERCHANT_NAMES[a - R.A_PLAY]}"
    if a < R.A_REST:
        k = a - R.A_ACQUIRE
        t = int(s["market"][k])
        return f"acquire slot {k + 1} ({D.MERCHANT_NAMES[t] if t >= 0 else 'empty'})"
    if a == R.A_REST:
        return "rest"
    if a < R.A_UPGRADE:
        j = a - R.A_CLAIM
        card = int(s["point_row"][j])
        what = "empty" if card < 0 else f"{D.POINT_NAMES[card]}, {int(D.POINT_VALUE[card])} pts"
        return f"claim slot {j + 1} ({what})"
    if a < R.A_STOP:
        return f"upgrade {D.COLOURS[a - R.A_UPGRADE]}"
    if a == R.A_STOP:
        return "stop upgrading"
    if a < R.A_PLACE:
        text = f"trade x{a - R.A_TRADE + 1}"
        if s["phase"] == R.PHASE_TRADE and s["pending_type"] >= 0:
            text += f" ({D.MERCHANT_NAMES[int(s['pending_type'])]})"
        return text
    if a < R.A_RETURN:
        text = f"place {D.COLOURS[a - R.A_PLACE]}"
        if s["phase"] == R.PHASE_PAY:
            text += f" on slot {int(s['pay_index']) + 1}"
        return text
    return f"return {D.COLOURS[a - R.A_RETURN]}"


_ANSI = {"Y": "\x1b[33m", "R": "\x1b[31m", "G": "\x1b[32m", "B": "\x1b[38;5;130m"}
_BOLD, _RESET = "\x1b[1m", "\x1b[0m"


def _cube_text(row, color: bool) -> str:
    parts = []
    for c in range(R.N_COLOURS):
        part = f"{int(row[c])}{D.COLOUR_LETTERS[c]}"
        parts.append(f"{_ANSI[D.COLOUR_LETTERS[c]]}{part}{_RESET}" if color else part)
    return " ".join(parts)


def _card_list(types) -> str:
    return " ".join(D.MERCHANT_NAMES[t] for t in types) or "-"


def pending_text(s) -> str:
    """The pending sub-decision of the player to act, in words ('-' for none)."""
    phase = int(s["phase"])
    t = int(s["pending_type"])
    if phase == R.PHASE_UPGRADE:
        return f"upgrading with {D.MERCHANT_NAMES[t]}: {int(s['upgrades_left'])} upgrade(s) left"
    if phase == R.PHASE_TRADE:
        limit = 0
        held = s["caravan"][int(s["current_player"])]
        while limit < R.MAX_TRADE_REPEATS and (held >= (limit + 1) * D.MERCHANT_IN[t]).all():
            limit += 1
        return f"choose how often to trade {D.MERCHANT_NAMES[t]} (1..{limit})"
    if phase == R.PHASE_PAY:
        slot, paid = int(s["acquire_slot"]), int(s["pay_index"])
        return (
            f"acquiring slot {slot + 1} ({D.MERCHANT_NAMES[int(s['market'][slot])]}): "
            f"place a cube on slot {paid + 1} ({slot - paid} still to place)"
        )
    if phase == R.PHASE_DISCARD:
        extra = int(s["caravan"][int(s["current_player"])].sum()) - R.CARAVAN_LIMIT
        return f"return {extra} cube(s) down to {R.CARAVAN_LIMIT}"
    return "-"


def _row_lines(title: str, row, describe) -> list[str]:
    """A row of face-up cards, slots counted from 1 (CSR-A1); ``describe(k, card)``."""
    lines = [title]
    for k, card in enumerate(int(x) for x in row):
        lines.append(f"  {k + 1}. {describe(k, card) if card >= 0 else '(empty)'}")
    return lines


def render(states: np.ndarray, g: int, color: bool = False) -> str:
    """A multi-line board of game ``g``; ``color=True`` adds ANSI colours."""
    s = states[g]
    n = int(s["num_players"])
    phase = int(s["phase"])
    lines = [
        f"Century: Spice Road - {n} players, turn {int(s['turn_count'])}, "
        f"step {int(s['step_count'])}, phase {R.PHASE_NAMES[phase]}"
    ]
    # The cube legend: counts below read "3Y" for three yellow cubes.
    legend = [f"{L}={name}" for L, name in zip(D.COLOUR_LETTERS, D.COLOURS, strict=True)]
    if color:
        legend = [f"{_ANSI[part[0]]}{part}{_RESET}" for part in legend]
    lines.append(f"Cubes: {' '.join(legend)} (3Y = three yellow cubes)")
    if s["terminated"]:
        lines.append(f"Game over: player {int(s['winner'])} wins")
    elif s["truncated"]:
        lines.append(f"Game cut off at the step cap of {R.STEP_CAP} (truncated)")
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

    def point(j: int, card: int) -> str:
        coin = f"  + {coin_on[j]}" if j in coin_on else ""
        return f"{D.POINT_NAMES[card]:<8} {int(D.POINT_VALUE[card]):>2} pts{coin}"

    def merchant(k: int, t: int) -> str:
        cubes = s["market_cubes"][k]
        extra = f"  cubes {_cube_text(cubes, color)}" if cubes.sum() > 0 else ""
        return f"{D.MERCHANT_NAMES[t]:<10}{extra}".rstrip()

    face_down = R.N_POINT - int(s["point_deck_top"])
    lines += _row_lines(f"Point cards ({face_down} face down):", s["point_row"], point)
    face_down = R.N_DECK - int(s["merchant_deck_top"])
    lines += _row_lines(f"Market ({face_down} face down):", s["market"], merchant)

    now = np.zeros(R.MAX_PLAYERS, np.int16)
    R.final_scores_into(s, now)
    label = "score" if phase == R.PHASE_OVER else "score now"
    lines.append("Players:")
    for p in range(n):
        mark = ">" if p == int(s["current_player"]) and phase != R.PHASE_OVER else " "
        tags = " (first)" if p == int(s["first_player"]) else ""
        cards = s["cards"][p]
        total = int(s["caravan"][p].sum())
        head = (
            f"{mark} player {p}{tags}: caravan {_cube_text(s['caravan'][p], color)} "
            f"({total}/{R.CARAVAN_LIMIT}), {label} {int(now[p])}"
        )
        lines.append(f"{_BOLD}{head}{_RESET}" if color and mark == ">" else head)
        lines.append(f"    hand:   {_card_list(np.flatnonzero(cards == R.IN_HAND))}")
        lines.append(f"    played: {_card_list(np.flatnonzero(cards == R.PLAYED))}")
        owned = np.flatnonzero(s["point_owner"] == p)
        points = " ".join(f"{D.POINT_NAMES[i]}({int(D.POINT_VALUE[i])})" for i in owned) or "-"
        lines.append(f"    points: {points}")
        lines.append(f"    coins:  {int(s['gold'][p])} gold, {int(s['silver'][p])} silver")
    lines.append(f"Pending: {pending_text(s)}")
    return "\n".join(lines)


__all__ = ["action_to_string", "from_dict", "render", "to_dict"]
