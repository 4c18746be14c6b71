"""Endeavor snapshots (``to_dict``/``from_dict``), action names and a text board.

A snapshot is a JSON-safe dict that names things by the keys of the data tables
(``envs/endeavor/data``): regions ``"west_africa"``, cities ``"lisbon"``, empire cards
``"act_of_parliament"``, buildings ``"bank"``, goods ``"tea"``, roles ``"sailor"``, phases
``"plan_tokens"``. It is a full save, hidden choices included (this round's roles and tokens,
the empire hands, the deck orders, the RNG word), and round-trips byte for byte:
``from_dict(to_dict(states, g))[0].tobytes() == states[g].tobytes()``.

Conventions:

- Seats and slot positions are 0-based everywhere (JSON and text), like the action layout.
  A city slot is named by its region and its position there: ``{"region": "europe",
  "slot": 1}`` in JSON, ``Europe slot 1`` in text.
- Decks (``regions.*.deck``, ``empire.deck``, ``buildings.deck``, ``players[p].roles.deck``)
  are listed **top first**. Markets and region slots list every position (``null`` = empty).
- ``order`` is last round's execution order (END-O3 ties); ``exec_order`` this round's (or
  ``null`` before the first execution); ``exec_index`` and ``pick_index`` are the kernel's
  cursors through them.
- ``execution`` holds the role being executed (strength left, ships sent / attacks made, the
  Merchant's used cities and home port, the Governor's city and goods still due). Between roles
  these keep the last role's values, which a full save keeps too.
- ``pending`` is ``{"player", "legal"}`` (the decider and the legal action ids) or ``null``
  once the game is over.

``from_dict`` checks every field and the invariants of a reachable position (every card in
exactly one place, each player's 6 roles, token accounting, markers, board size, the cursors
of the phase, the legal actions the rules give, scores and winners) and raises
``SnapshotError`` naming the field; it never returns a partly filled state.
"""

from __future__ import annotations

import numba
import numpy as np

from meeple_gym.core import snapshot as core
from meeple_gym.core.jit import kernel
from meeple_gym.core.records import copy_values
from meeple_gym.endeavor import data as D
from meeple_gym.endeavor import rules as R

GAME_NAME = "endeavor"
SNAPSHOT_VERSION = 1


ROLE_CARD_KEYS = ("hand", "deck", "aside")
BOARD_CARD_KEYS = ("kind", "card")
REGION_KEYS = ("open", "deck", "slots")
SLOT_KEYS = ("city", "owner", "upgraded")
SLOT_REF_KEYS = ("region", "slot")
PILE_KEYS = ("deck", "market")

PENDING_KEYS = ("player", "legal")

PHASES = tuple(name.replace(" ", "_") for name in R.PHASE_NAMES)  # PH_* order
SUB_STEPS = ("main", "home_port_good", "governor_pay", "governor_move")  # SUB_* order
BOARD_KINDS = ("none", "city", "building", "empire")  # K_* order; "none" is never written
REGIONS = D.REGION_KEYS
GOODS = D.GOODS
ROLES = D.ROLES


_CARD_KEYS = {"city": D.CITY_KEYS, "building": D.BUILDING_KEYS, "empire": D.EMPIRE_KEYS}
_CARD_INDEX = {"city": D.CITY_ID, "building": D.BUILDING_ID, "empire": D.EMPIRE_ID}
_CARD_NAMES = {"city": D.CITY_NAMES, "building": D.BUILDING_NAMES, "empire": D.EMPIRE_NAMES}
_COUNTS = {"city": R.NC, "building": R.NB, "empire": R.NEMP}
# Where each kind of card is missed from when it is nowhere (the JSON field to look at).
_CARD_HOME = {"city": "regions", "building": "buildings", "empire": "empire"}
_PICKS = {n: tuple(int(x) for x in D.STARTING_PICK_ORDER[n]) for n in (2, 3, 4)}
_SLOT_REGION = [int(r) for r in R.SLOT_REGION]
_FIRST_SLOT = [int(k) for k in R.FIRST_SLOT]


def _slot_ref(k: int) -> dict:
    r = _SLOT_REGION[k]
    return {"region": REGIONS[r], "slot": k - _FIRST_SLOT[r]}


def _ability(kind: int, cid: int) -> tuple[int, int]:
    """A board card's ability and argument (rules._card_ability in plain Python)."""
    if kind == R.K_CITY:
        return int(D.CITY_ABILITY[cid]), int(D.CITY_ABILITY_ARG[cid])
    if kind == R.K_BUILDING:
        return int(D.BUILDING_ABILITY[cid]), int(D.BUILDING_ABILITY_ARG[cid])
    if kind == R.K_EMPIRE:
        return int(D.EMPIRE_ABILITY[cid]), int(D.EMPIRE_ABILITY_ARG[cid])
    return D.ABILITY_NONE, -1


def _board(s, p: int) -> list[tuple[int, int]]:
    return [(int(s["board_kind"][p, i]), int(s["board_id"][p, i])) for i in range(s["board_n"][p])]


def _extra_tokens(s, p: int) -> int:
    """END-S1 + cards that grow the pool when they enter the board."""
    return sum(
        arg
        for ab, arg in (_ability(*card) for card in _board(s, p))
        if ab == D.ABILITY_EXTRA_TOKENS
    )


def _travel_cost(s, p: int, r: int) -> int:
    """rules.travel_cost in plain Python (END-R1, END-R3)."""
    discounts = sum(_ability(*card)[0] == D.ABILITY_TRAVEL_DISCOUNT for card in _board(s, p))
    return max(1, int(R.TRAVEL[r]) - discounts)


# ---- what the rules derive from a record -------------------------------------------------------
_fill_mask = R._fill_mask
_score_of = R.score_of


@kernel
def _derive_into(states, g, mask, scores):
    """The legal actions (pend_mask is rewritten) and the END-E2 scores the rules give."""
    s = states[g]
    _fill_mask(s)
    copy_values(mask, s.pend_mask)
    for p in range(s.num_players):
        scores[p] = _score_of(s, p)


def _derived(states) -> tuple[np.ndarray, np.ndarray]:
    scratch = states.copy()
    if numba.config.DISABLE_JIT:  # plain-Python kernels need attribute access
        scratch = scratch.view(np.recarray)
    mask = np.zeros(R.NUM_ACTIONS, np.int8)
    scores = np.zeros(R.MAXP, np.int64)
    _derive_into(scratch, 0, mask, scores)
    return mask, scores


# ---- to_dict ---------------------------------------------------------------------------------


def _check_pile(cards, count, name: str, hi: int):
    """A deck array: ``count`` cards in 0..hi, then -1."""
    count = int(count)
    if not 0 <= count <= len(cards):
        core.refuse(f"{name}_n is {count}, outside 0..{len(cards)}")
    core.check_codes(cards[:count], name, 0, hi)
    if (cards[count:] != -1).any():
        core.refuse(f"{name} holds cards past its count")


def _writable(s):
    """Refuse a record whose values have no spelling in a snapshot (only a record that no
    game reaches fails here; from_dict checks the rules)."""
    n = int(s["num_players"])
    if not 2 <= n <= R.MAXP:
        core.refuse(f"num_players is {n}, Endeavor has 2-4 players")
    core.check_codes(s["phase"], "phase", 0, len(PHASES) - 1)
    core.check_codes(s["sub"], "sub", 0, len(SUB_STEPS) - 1)
    for field in (
        "terminated",
        "truncated",
        "pend_mask",
        "empire_hand",
        "role_hand",
        "role_aside",
        "region_open",
        "slot_upgraded",
        "took_goods",
        "home_used",
    ):
        core.check_codes(s[field], field, 0, 1)
    for field in ("first_player", "order", "exec_order", "winner", "current_player"):
        lo = 0 if field == "first_player" else -1
        core.check_codes(s[field], field, lo, n - 1)
    if (s["order"][:n] < 0).any() or (s["order"][n:] != -1).any():
        core.refuse("order must list the seats in use, then -1")
    started = s["exec_order"][:n] >= 0
    if (started.any() and not started.all()) or (s["exec_order"][n:] != -1).any():
        core.refuse("exec_order is neither unset (-1) nor a list of the seats in use")
    if not 0 <= int(s["winners"]) < 1 << n:
        core.refuse(f"winners {int(s['winners'])} names seats beyond {n} players")
    over = int(s["phase"]) == R.PH_OVER
    if over != (int(s["current_player"]) < 0) or (over and s["pend_mask"].any()):
        core.refuse("phase, current_player and pend_mask disagree about a pending decision")
    core.check_codes(s["role"], "role", -1, R.N_ROLES - 1)
    core.check_codes(s["slot_city"], "slot_city", -1, R.NC - 1)
    core.check_codes(s["slot_owner"], "slot_owner", -1, n - 1)
    core.check_codes(s["empire_market"], "empire_market", -1, R.NEMP - 1)
    core.check_codes(s["building_market"], "building_market", -1, R.NB - 1)
    core.check_codes(s["gov_slot"], "gov_slot", -1, R.N_SLOTS - 1)
    if not 0 <= int(s["city_used"]) < 1 << R.N_SLOTS:
        core.refuse(f"city_used {int(s['city_used'])} names slots beyond the {R.N_SLOTS}")
    for r in range(R.NR):
        _check_pile(s["region_deck"][r], s["region_deck_n"][r], f"region_deck[{r}]", R.NC - 1)
    _check_pile(s["empire_deck"], s["empire_deck_n"], "empire_deck", R.NEMP - 1)
    _check_pile(s["building_deck"], s["building_deck_n"], "building_deck", R.NB - 1)
    for p in range(R.MAXP):
        _check_pile(s["role_deck"][p], s["role_deck_n"][p], f"role_deck[{p}]", R.N_ROLES - 1)
        used = int(s["board_n"][p])
        if not 0 <= used <= R.BOARD:
            core.refuse(f"board_n[{p}] is {used}, outside 0..{R.BOARD}")
        for i in range(used):
            kind, cid = int(s["board_kind"][p, i]), int(s["board_id"][p, i])
            if kind not in (R.K_CITY, R.K_BUILDING, R.K_EMPIRE):
                core.refuse(f"board_kind[{p}, {i}] is {kind}, not a card kind")
            if not 0 <= cid < _COUNTS[BOARD_KINDS[kind]]:
                core.refuse(f"board_id[{p}, {i}] is {cid}, not a {BOARD_KINDS[kind]} card")
        if (s["board_kind"][p, used:] != R.K_NONE).any() or (s["board_id"][p, used:] != -1).any():
            core.refuse(f"player {p}'s board holds cards past board_n")
    for p in range(n, R.MAXP):
        blank = (
            not s["pool"][p]
            and not s["lost"][p]
            and not s["placed"][p]
            and s["role"][p] == -1
            and not s["goods"][p].any()
            and not s["ships"][p].any()
            and not s["board_n"][p]
            and not s["empire_hand"][p].any()
            and not s["role_deck_n"][p]
            and not s["role_hand"][p].any()
            and not s["role_aside"][p].any()
            and not s["score"][p]
        )
        if not blank:
            core.refuse(f"seat {p} is not in use but holds values")


def _top_first(cards, count, names) -> list[str]:
    return [names[int(c)] for c in cards[: int(count)][::-1]]


def _board_list(c, p: int) -> list[dict]:
    return [
        {"kind": BOARD_KINDS[kind], "card": _CARD_KEYS[BOARD_KINDS[kind]][cid]}
        for kind, cid in _board(c.s, p)
    ]


def _roles_dict(c, p: int) -> dict:
    s = c.s
    return {
        "hand": [ROLES[r] for r in np.flatnonzero(s["role_hand"][p])],
        "deck": _top_first(s["role_deck"][p], s["role_deck_n"][p], ROLES),
        "aside": [ROLES[r] for r in np.flatnonzero(s["role_aside"][p])],
    }


def _region_dict(s, r: int) -> dict:
    first = _FIRST_SLOT[r]
    slots = []
    for k in range(first, first + int(R.REGION_SLOTS[r])):
        owner = int(s["slot_owner"][k])
        slots.append(
            {
                "city": None if s["slot_city"][k] < 0 else D.CITY_KEYS[int(s["slot_city"][k])],
                "owner": owner if owner >= 0 else None,
                "upgraded": bool(s["slot_upgraded"][k]),
            }
        )
    return {
        "open": bool(s["region_open"][r]),
        "deck": _top_first(s["region_deck"][r], s["region_deck_n"][r], D.CITY_KEYS),
        "slots": slots,
    }


def _pending_dict(c) -> dict | None:
    s = c.s
    if int(s["phase"]) == R.PH_OVER:
        return None
    return {
        "player": int(s["current_player"]),
        "legal": [int(a) for a in np.flatnonzero(s["pend_mask"])],
    }


def _exec_order(c) -> list[int] | None:
    s = c.s
    return [int(x) for x in s["exec_order"][: c.n]] if s["exec_order"][0] >= 0 else None


def _pile_dict(c, field: str, keys) -> dict:
    s = c.s
    return {
        "deck": _top_first(s[f"{field}_deck"], s[f"{field}_deck_n"], keys),
        "market": [None if x < 0 else keys[int(x)] for x in s[f"{field}_market"]],
    }


def _cities_used(c) -> list[dict]:
    bits = int(c.s["city_used"])
    return [_slot_ref(k) for k in range(R.N_SLOTS) if (bits >> k) & 1]


def _governor_slot(c) -> dict | None:
    k = int(c.s["gov_slot"])
    return _slot_ref(k) if k >= 0 else None


# ---- from_dict: field readers ----------------------------------------------------------------


def _card(value, path: str, kind: str) -> int:
    return core.read_key(value, path, _CARD_INDEX[kind], f"{kind} card")


def _seat(value, path: str, n: int) -> int:
    return core.read_int(value, path, 0, n - 1, "seat")


def _id_order_set(value, path: str, names, what: str) -> list[int]:
    """A set written as a list in id order, each entry once."""
    ids = []
    for i, raw in enumerate(core.read_list(value, path, most=len(names))):
        x = core.read_name(raw, f"{path}[{i}]", names, what)
        if ids and x <= ids[-1]:
            core.fail(f"{path}[{i}]", f"{what}s are listed in table order, each once")
        ids.append(x)
    return ids


def _read_slot_ref(value, path: str) -> int:
    ref = core.read_obj(value, path, SLOT_REF_KEYS)
    r = core.read_name(ref["region"], f"{path}.region", REGIONS, "region")
    i = core.read_int(ref["slot"], f"{path}.slot", 0, int(R.REGION_SLOTS[r]) - 1, "slot")
    return _FIRST_SLOT[r] + i


def _seat_list(value, path: str, n: int) -> list[int]:
    seats = core.read_list(value, path, n)
    out = []
    for i, raw in enumerate(seats):
        q = _seat(raw, f"{path}[{i}]", n)
        if q in out:
            core.fail(f"{path}[{i}]", f"seat {q} is listed twice")
        out.append(q)
    return out


class _Places:
    """Where each card was read, so a card in two places names both (END-C2)."""

    def __init__(self):
        self.seen: dict[tuple[str, int], str] = {}

    def put(self, kind: str, cid: int, path: str):
        where = self.seen.get((kind, cid))
        if where is not None:
            key = _CARD_KEYS[kind][cid]
            core.fail(path, f"{kind} card {key!r} is also at {where} (each card is in one place)")
        self.seen[(kind, cid)] = path

    def check_all_placed(self):
        for kind in ("city", "empire", "building"):
            for cid in range(_COUNTS[kind]):
                if (kind, cid) not in self.seen:
                    key = _CARD_KEYS[kind][cid]
                    core.fail(_CARD_HOME[kind], f"{kind} card {key!r} is missing (END-C2)")


# ---- from_dict -------------------------------------------------------------------------------


def _read_order(value, path: str, c: core.ReadCall):
    c.s["order"][: c.n] = _seat_list(value, path, c.n)


def _read_exec_order(value, path: str, c: core.ReadCall):
    if value is not None:
        c.s["exec_order"][: c.n] = _seat_list(value, path, c.n)


def _read_winners(value, path: str, c: core.ReadCall):
    winners = core.read_ascending(value, path, 0, c.n - 1, "seat", "seats", most=c.n)
    c.s["winners"] = sum(1 << q for q in winners)


def _read_players(c: core.ReadCall):
    c.places = _Places()
    for p, raw in enumerate(core.read_players(c)):
        path = f"players[{p}]"
        core.read_table(core.read_obj(raw, path, PLAYER_KEYS), path, PLAYER, c, (p,))


def _read_goods(value, path: str, c: core.ReadCall, p: int):
    c.s["goods"][p] = core.read_counts(value, path, GOODS, 0, R.MAX_GOODS)


def _read_ships(value, path: str, c: core.ReadCall, p: int):
    c.s["ships"][p] = core.read_counts(value, path, REGIONS, 0, R.MAX_TOKENS)
    if c.s["ships"][p, R.EUROPE]:
        core.fail(f"{path}.europe", "ships are never sent to Europe (END-R4)")


def _read_board(value, path: str, c: core.ReadCall, p: int):
    s = c.s
    board = core.read_list(value, path, most=R.BOARD)  # END-B1
    for i, raw_card in enumerate(board):
        where = f"{path}[{i}]"
        entry = core.read_obj(raw_card, where, BOARD_CARD_KEYS)
        kind = core.read_name(entry["kind"], f"{where}.kind", BOARD_KINDS[1:], "card kind") + 1
        cid = _card(entry["card"], f"{where}.card", BOARD_KINDS[kind])
        c.places.put(BOARD_KINDS[kind], cid, where)
        s["board_kind"][p, i] = kind
        s["board_id"][p, i] = cid
    s["board_n"][p] = len(board)


def _read_empire_hand(value, path: str, c: core.ReadCall, p: int):
    for e in _id_order_set(value, path, D.EMPIRE_KEYS, "card"):
        c.places.put("empire", e, path)
        c.s["empire_hand"][p, e] = 1


def _read_roles(raw, s, p: int):
    """END-O2: the player's 6 roles, each once, in hand (3), deck or set aside."""
    path = f"players[{p}].roles"
    roles = core.read_obj(raw, path, ROLE_CARD_KEYS)
    hand = _id_order_set(roles["hand"], f"{path}.hand", ROLES, "role")
    aside = _id_order_set(roles["aside"], f"{path}.aside", ROLES, "role")
    deck_path = f"{path}.deck"
    deck = [
        core.read_name(x, f"{deck_path}[{i}]", ROLES, "role")
        for i, x in enumerate(core.read_list(roles["deck"], deck_path, most=R.N_ROLES))
    ]
    seen = {}
    for part, ids in (("hand", hand), ("deck", deck), ("aside", aside)):
        for r in ids:
            if r in seen:
                core.fail(f"{path}.{part}", f"role {ROLES[r]!r} is also in {seen[r]} (END-O2)")
            seen[r] = part
    missing = [ROLES[r] for r in range(R.N_ROLES) if r not in seen]
    if missing:
        core.fail(path, f"missing role(s) {', '.join(missing)}: each player owns all 6 (END-O2)")
    if len(hand) != D.ROLE_HAND:
        core.fail(f"{path}.hand", f"holds {len(hand)} roles, expected {D.ROLE_HAND} (END-O2)")
    for r in hand:
        s["role_hand"][p, r] = 1
    for r in aside:
        s["role_aside"][p, r] = 1
    s["role_deck"][p, : len(deck)] = deck[::-1]  # written top first, stored bottom first
    s["role_deck_n"][p] = len(deck)


def _read_regions(c: core.ReadCall):
    s, n, places = c.s, c.n, c.places
    regions = core.read_obj(c.snap["regions"], "regions", REGIONS)
    for r, key in enumerate(REGIONS):
        path = f"regions.{key}"
        region = core.read_obj(regions[key], path, REGION_KEYS)
        s["region_open"][r] = core.read_bool(region["open"], f"{path}.open")
        deck = core.read_list(region["deck"], f"{path}.deck", most=R.CITIES_PER_REGION)
        cities = []
        for i, name in enumerate(deck):
            city = _region_city(name, f"{path}.deck[{i}]", r)
            places.put("city", city, f"{path}.deck[{i}]")
            cities.append(city)
        s["region_deck"][r, : len(cities)] = cities[::-1]
        s["region_deck_n"][r] = len(cities)
        first = _FIRST_SLOT[r]
        slots = core.read_list(region["slots"], f"{path}.slots", int(R.REGION_SLOTS[r]))  # END-R4
        for i, raw_slot in enumerate(slots):
            where = f"{path}.slots[{i}]"
            slot = core.read_obj(raw_slot, where, SLOT_KEYS)
            k = first + i
            if slot["city"] is not None:
                s["slot_city"][k] = _region_city(slot["city"], f"{where}.city", r)
                places.put("city", int(s["slot_city"][k]), where)
            if slot["owner"] is not None:
                s["slot_owner"][k] = _seat(slot["owner"], f"{where}.owner", n)
            s["slot_upgraded"][k] = core.read_bool(slot["upgraded"], f"{where}.upgraded")
            if s["slot_owner"][k] >= 0 and s["slot_city"][k] < 0:
                core.fail(f"{where}.owner", "a marker stands only on a city card")
            if s["slot_upgraded"][k] and s["slot_owner"][k] < 0:
                core.fail(f"{where}.upgraded", "only a settled city is upgraded (END-A3)")


def _region_city(value, path: str, r: int) -> int:
    c = _card(value, path, "city")
    if int(D.CITY_REGION[c]) != r:
        home = D.REGION_NAMES[int(D.CITY_REGION[c])]
        core.fail(path, f"{value!r} is a city of {home}, not of {D.REGION_NAMES[r]}")
    return c


def _read_piles(c: core.ReadCall):
    """The empire deck and market (END-S4) and the buildings (END-S5)."""
    s, places = c.s, c.places
    for key, kind, field, market_size in (
        ("empire", "empire", "empire", R.MARKET),
        ("buildings", "building", "building", R.B_MARKET),
    ):
        pile = core.read_obj(c.snap[key], key, PILE_KEYS)
        deck = core.read_list(pile["deck"], f"{key}.deck", most=_COUNTS[kind])
        cards = []
        for i, name in enumerate(deck):
            card = _card(name, f"{key}.deck[{i}]", kind)
            places.put(kind, card, f"{key}.deck[{i}]")
            cards.append(card)
        s[f"{field}_deck"][: len(cards)] = cards[::-1]
        s[f"{field}_deck_n"] = len(cards)
        market = core.read_list(pile["market"], f"{key}.market", market_size)
        for i, name in enumerate(market):
            if name is not None:
                card = _card(name, f"{key}.market[{i}]", kind)
                places.put(kind, card, f"{key}.market[{i}]")
                s[f"{field}_market"][i] = card


def _read_cities_used(value, path: str, c: core.ReadCall):
    bits = 0
    for i, ref in enumerate(core.read_list(value, path, most=R.N_SLOTS)):
        k = _read_slot_ref(ref, f"{path}[{i}]")
        if bits >> k:
            core.fail(f"{path}[{i}]", "slots are listed in board order, each once")
        bits |= 1 << k
    c.s["city_used"] = bits


def _read_governor_slot(value, path: str, c: core.ReadCall):
    if value is not None:
        c.s["gov_slot"] = _read_slot_ref(value, path)


def _read_pending(c: core.ReadCall):
    raw, s = c.snap["pending"], c.s
    if int(s["phase"]) == R.PH_OVER:
        if raw is not None:
            core.fail("pending", "a finished game has no pending decision; expected null")
        return
    if raw is None:
        core.fail("pending", "a game still running needs a pending decision, got null")
    pending = core.read_obj(raw, "pending", PENDING_KEYS)
    s["current_player"] = _seat(pending["player"], "pending.player", c.n)
    last = R.NUM_ACTIONS - 1
    legal = core.read_ascending(
        pending["legal"], "pending.legal", 0, last, "action", "actions", last + 1
    )
    s["pend_mask"][legal] = 1
    if len(legal) < 2:  # a decision with one legal action is taken at once (rules.apply_action)
        core.fail("pending.legal", "a pending decision has at least 2 legal actions")


# ---- from_dict: the rules' invariants --------------------------------------------------------


def _check_players(s, n: int):
    """Tokens (END-S1, END-A1, END-A4), markers (END-S1) and the empire hands (END-S4)."""
    start = int(R.TOKENS_BY_PLAYERS[n])
    for p in range(n):
        ships = int(s["ships"][p].sum())
        extra = _extra_tokens(s, p)
        have = int(s["pool"][p]) + ships + int(s["lost"][p])
        if have != start + extra:
            core.fail(
                f"players[{p}].pool",
                f"pool {int(s['pool'][p])} + ships {ships} + lost {int(s['lost'][p])} = {have}, "
                f"expected {start} starting tokens + {extra} from extra_tokens cards",
            )
        markers = int((s["slot_owner"] == p).sum())
        if markers > D.MARKERS:
            core.fail("regions", f"player {p} has {markers} markers on cities, at most {D.MARKERS}")


def _check_regions(s, n: int):
    """END-R2, END-R3: closed regions hold no ships and no dealt city; open ones are reached
    along their sea route."""
    for r, key in enumerate(REGIONS):
        first = _FIRST_SLOT[r]
        slots = range(first, first + int(R.REGION_SLOTS[r]))
        if s["region_open"][r]:
            before = int(R.PREVIOUS[r])
            if before >= 0 and not s["region_open"][before]:
                core.fail(f"regions.{key}.open", f"{REGIONS[before]} must open first (END-R3)")
            continue
        if R.OPEN_AT_START[r]:
            core.fail(
                f"regions.{key}.open", "Europe and West Africa are open from the start (END-R2)"
            )
        if s["ships"][:n, r].any():
            core.fail(f"regions.{key}.open", "a region with ships is open (END-R2)")
        if any(s["slot_city"][k] >= 0 for k in slots):
            core.fail(f"regions.{key}.slots", "a closed region has no city dealt (END-R2)")
        if int(s["region_deck_n"][r]) != R.CITIES_PER_REGION:
            core.fail(f"regions.{key}.deck", "a closed region's deck is full (END-R2)")


def _markers(s, p: int) -> int:
    return int((s["slot_owner"] == p).sum())


def _check_between_rounds(s, n: int):
    """After the refills of END-O5: empty slots and markets mean empty decks."""
    for k in range(R.N_SLOTS):
        r = _SLOT_REGION[k]
        if s["region_open"][r] and s["slot_city"][k] < 0 and s["region_deck_n"][r] > 0:
            i = k - _FIRST_SLOT[r]
            core.fail(f"regions.{REGIONS[r]}.slots[{i}]", "an empty slot is refilled (END-O5)")
    for key, field in (("empire", "empire"), ("buildings", "building")):
        market = s[f"{field}_market"]
        for i in range(len(market)):
            if market[i] < 0 and s[f"{field}_deck_n"] > 0:
                core.fail(f"{key}.market[{i}]", "an empty market slot is refilled (END-O5)")


def _check_setup(s, n: int):
    """END-S1…S5: nothing is played before the first planning."""
    for p in range(n):
        path = f"players[{p}]"
        if s["board_n"][p] or s["goods"][p].any() or s["ships"][p].any() or s["lost"][p]:
            core.fail(path, "holds cards, goods, ships or lost tokens before the first round")
        if s["role"][p] >= 0 or s["placed"][p]:
            core.fail(f"{path}.role", "no role is chosen during setup")
    if (s["region_open"] != R.OPEN_AT_START).any():
        core.fail("regions", "only Europe and West Africa are open during setup (END-R2)")
    if s["slot_upgraded"].any():
        core.fail("regions", "no city is upgraded during setup")
    for key, field in (("empire", "empire_market"), ("buildings", "building_market")):
        if (s[field] >= 0).any():
            core.fail(f"{key}.market", "the markets are dealt after setup (END-S4, END-S5)")
    if int(s["round"]) != 1 or int(s["exec_index"]) or s["exec_order"][0] >= 0:
        core.fail("round", "setup is before round 1's first execution")
    firsts = [(int(s["first_player"]) + i) % n for i in range(n)]
    if [int(x) for x in s["order"][:n]] != firsts:
        core.fail("order", f"the seat order from the first player is {firsts} (END-S6)")


def _check_fresh_execution(s):
    """Before any role is executed the execution fields hold init_game's values."""
    fresh = (
        s["strength"] == 0
        and s["used"] == 0
        and s["took_goods"] == 0
        and s["city_used"] == 0
        and s["home_used"] == 0
        and s["gov_slot"] == -1
        and s["gov_due"] == 0
    )
    if not fresh:
        core.fail("execution", "no role has been executed yet; expected the initial values")


def _check_phase(s, n: int):
    """The cursors, the decider and the round's choices agree with the phase."""
    phase, sub, pick = int(s["phase"]), int(s["sub"]), int(s["pick_index"])
    cur = int(s["current_player"])
    order = [int(x) for x in s["order"][:n]]
    roles = [int(x) for x in s["role"][:n]]
    if sub != R.SUB_MAIN and phase != R.PH_ROLE and not s["truncated"]:
        core.fail("sub_step", f"the phase {PHASES[phase]!r} has no sub-step")
    if s["truncated"]:
        return  # cut off anywhere: only the phase-free invariants hold
    # END-O1, END-O2: a role is chosen from the hand and set aside only after the round; this
    # holds for the players who already chose while a later one picks (PH_PLAN_ROLE) too.
    if phase in (R.PH_PLAN_ROLE, R.PH_PLAN_TOKENS, R.PH_ROLE):
        for p in range(n):
            if roles[p] >= 0 and not s["role_hand"][p, roles[p]]:
                core.fail(f"players[{p}].role", f"{ROLES[roles[p]]!r} is not in the player's hand")
    if phase == R.PH_START_CITY:
        picks = _PICKS[n]
        if pick >= len(picks):
            core.fail("pick_index", f"{len(picks)} starting picks with {n} players (END-S3)")
        want = (int(s["first_player"]) + picks[pick]) % n
        if cur != want:
            core.fail("pending.player", f"pick {pick} is player {want}'s (END-S3)")
        for p in range(n):
            made = sum((int(s["first_player"]) + x) % n == p for x in picks[:pick])
            if _markers(s, p) != made:
                core.fail("regions", f"player {p} has made {made} starting pick(s) (END-S3)")
            _check_hand_size(s, p, int(R.EMPIRE_DRAW[n]))
        _check_setup(s, n)
        _check_fresh_execution(s)
    elif phase == R.PH_EMPIRE_RETURN:
        if pick >= n:
            core.fail("pick_index", f"is {pick}, but only {n} players return cards")
        if cur != order[pick]:
            core.fail("pending.player", f"player {order[pick]} returns cards now (END-S4)")
        for i, p in enumerate(order):
            if _markers(s, p) != D.STARTING_CITIES[n]:
                want = D.STARTING_CITIES[n]
                core.fail("regions", f"player {p} holds {_markers(s, p)} cities, expected {want}")
            held = int(s["empire_hand"][p].sum())
            if i < pick:
                _check_hand_size(s, p, D.EMPIRE_KEEP)
            elif i > pick:
                _check_hand_size(s, p, int(R.EMPIRE_DRAW[n]))
            elif not D.EMPIRE_KEEP < held <= R.EMPIRE_DRAW[n]:
                core.fail(f"players[{p}].empire_hand", f"{held} cards while returning (END-S4)")
        _check_setup(s, n)
        _check_fresh_execution(s)
    elif phase in (R.PH_PLAN_ROLE, R.PH_PLAN_TOKENS):
        if pick >= n:
            core.fail("pick_index", f"is {pick}, but only {n} players plan")
        if cur != order[pick]:
            core.fail("pending.player", f"player {order[pick]} plans now (END-O1)")
        for i, p in enumerate(order):
            chosen = i < pick or (i == pick and phase == R.PH_PLAN_TOKENS)
            if chosen != (roles[p] >= 0):
                state = "has chosen a role already" if chosen else "has not chosen a role yet"
                core.fail(f"players[{p}].role", f"player {p} {state} (END-O1)")
            if i >= pick and s["placed"][p]:
                core.fail(f"players[{p}].placed", "tokens are placed after the role (END-O1)")
            if s["placed"][p] > s["pool"][p]:
                core.fail(f"players[{p}].placed", "more tokens placed than the pool holds")
        _check_after_setup(s, n)
        if int(s["round"]) == 1:
            if s["exec_order"][0] >= 0 or int(s["exec_index"]):
                core.fail("exec_order", "no role is executed before round 1's execution")
            _check_fresh_execution(s)
        else:
            _check_after_round(s, n)
        _check_between_rounds(s, n)
    elif phase == R.PH_ROLE:
        if pick != n:
            core.fail("pick_index", f"is {n} once every player has planned")
        for p in range(n):
            if roles[p] < 0:
                core.fail(f"players[{p}].role", "every player has chosen a role (END-O1)")
        want = sorted(order, key=lambda p: (roles[p], -int(s["placed"][p])))  # END-O3, stable
        if s["exec_order"][0] < 0 or [int(x) for x in s["exec_order"][:n]] != want:
            core.fail("exec_order", f"expected {want} from roles, tokens and last order (END-O3)")
        index = int(s["exec_index"])
        if index >= n:
            core.fail("exec_index", f"is {index}, but only {n} roles are executed")
        if cur != want[index]:
            core.fail("pending.player", f"player {want[index]} executes the role now (END-O3)")
        for p in want[index + 1 :]:
            if s["placed"][p] > s["pool"][p]:
                core.fail(f"players[{p}].placed", "more tokens placed than the pool holds")
        if int(s["placed"][cur]) - int(s["used"]) > int(s["pool"][cur]):
            core.fail(f"players[{cur}].placed", "the role's unused tokens are still in the pool")
        _check_after_setup(s, n)
        _check_execution(s, n, cur)
    else:  # terminated at the end of a round (END-E1, END-E4)
        if pick != n or any(r < 0 for r in roles):
            core.fail("pick_index", "a game ends after the execution of a round")
        _check_after_round(s, n)
        _check_between_rounds(s, n)
        cities_left = int(s["region_deck_n"].sum())
        if cities_left and s["empire_deck_n"] and int(s["round"]) < R.ROUND_LIMIT:
            core.fail("terminated", "no end condition holds (END-E1, END-E4)")
    if phase in (R.PH_PLAN_ROLE, R.PH_PLAN_TOKENS):
        if not s["empire_deck_n"] or not int(s["region_deck_n"].sum()):
            core.fail("round", "a round starts only while the city and empire decks last (END-E1)")


def _merchant_goods_left(s, p: int) -> int:
    """Goods the Merchant action p is executing may still add (END-A2, END-B2): the home port's
    good unless taken, each own city not yet used (2 if upgraded), the extra_good cards."""
    left = int(not s["home_used"] or s["sub"] == R.SUB_HOME_GOOD)
    for k in range(R.N_SLOTS):
        if s["slot_owner"][k] == p and not (int(s["city_used"]) >> k) & 1:
            left += 2 if s["slot_upgraded"][k] else 1
    return left + sum(_ability(*card)[0] == D.ABILITY_EXTRA_GOOD for card in _board(s, p))


def _check_goods(s, n: int):
    """END-A2, END-O1: goods come only from one's own Merchant action, at most
    rules.GOODS_PER_ROUND_MAX a round, so a player holds at most that many per round whose role
    has begun, less what a Merchant action under way may still add. Every legal step keeps this
    bound, and goods (int16) stay at most rules.MAX_GOODS."""
    r, phase = int(s["round"]), int(s["phase"])
    index = int(s["exec_index"])
    begun = [int(x) for x in s["exec_order"][: index + 1]] if phase == R.PH_ROLE else []
    for p in range(n):
        actions = r - 1 + (phase == R.PH_OVER or p in begun)
        most = R.GOODS_PER_ROUND_MAX * actions
        if phase == R.PH_ROLE and p == int(s["current_player"]) and s["role"][p] == R.MERCHANT:
            most -= _merchant_goods_left(s, p)
        held = int(s["goods"][p].sum())
        if held > most:
            core.fail(
                f"players[{p}].goods",
                f"{held} goods, at most {most} after {actions} Merchant action(s) of at most "
                f"{R.GOODS_PER_ROUND_MAX} goods each (END-A2, END-O1)",
            )


def _check_hand_size(s, p: int, size: int):
    held = int(s["empire_hand"][p].sum())
    if held != size:
        core.fail(f"players[{p}].empire_hand", f"holds {held} cards, expected {size} (END-S4)")


def _check_after_setup(s, n: int):
    for p in range(n):
        held = int(s["empire_hand"][p].sum())
        if held > D.EMPIRE_KEEP:
            core.fail(
                f"players[{p}].empire_hand", f"{held} cards, {D.EMPIRE_KEEP} are kept (END-S4)"
            )


def _check_after_round(s, n: int):
    """END-O5: this round's execution order becomes the order for ties."""
    if s["exec_order"][0] < 0 or (s["exec_order"][:n] != s["order"][:n]).any():
        core.fail("exec_order", "after a round the order is the round's execution order (END-O3)")
    if int(s["exec_index"]) != n:
        core.fail("exec_index", f"is {n} after a round's execution")


def _check_execution(s, n: int, p: int):
    """The role being executed (END-A1…A5, END-G)."""
    role, sub = int(s["role"][p]), int(s["sub"])
    if sub == R.SUB_HOME_GOOD and role != R.MERCHANT:
        core.fail("sub_step", "only the Merchant collects at the home port")
    if sub in (R.SUB_GOV_PAY, R.SUB_GOV_MOVE) and role != R.GOVERNOR:
        core.fail("sub_step", "only the Governor settles cities")
    bonus = sum(_ability(*card) == (D.ABILITY_ROLE_BONUS, role) for card in _board(s, p))
    if int(s["strength"]) > int(s["placed"][p]) + bonus:
        core.fail("execution.strength", "one unit per token plus one per role-bonus card (END-O4)")
    if int(s["used"]) > int(s["placed"][p]):
        core.fail("execution.used", "each ship or attack needs one of the role's tokens (END-A1)")
    if role not in (R.SAILOR, R.COMMANDER) and s["used"]:
        core.fail("execution.used", "only the Sailor and the Commander use tokens one by one")
    bits = int(s["city_used"])
    if role != R.MERCHANT:
        for field, value in (("cities_used", bits), ("home_used", 0), ("took_goods", 0)):
            if value or (field != "cities_used" and s[field]):
                core.fail(f"execution.{field}", "only the Merchant collects goods (END-A2)")
    else:
        for k in range(R.N_SLOTS):
            if (bits >> k) & 1 and s["slot_owner"][k] != p:
                core.fail("execution.cities_used", f"slot {_slot_ref(k)} is not player {p}'s city")
        if sub == R.SUB_HOME_GOOD and not s["home_used"]:
            core.fail("execution.home_used", "the home port gives a good once it is used")
        took = bits != 0 or (bool(s["home_used"]) and sub != R.SUB_HOME_GOOD)
        if bool(s["took_goods"]) != took:
            core.fail("execution.took_goods", f"expected {took} from the cities and home port used")
    gov, due = int(s["gov_slot"]), int(s["gov_due"])
    if sub in (R.SUB_GOV_PAY, R.SUB_GOV_MOVE):
        if gov < 0 or s["slot_city"][gov] < 0 or s["slot_owner"][gov] >= 0:
            core.fail("execution.governor_slot", "the city being settled is an unclaimed city")
        if (sub == R.SUB_GOV_PAY) != (due > 0):
            core.fail("execution.governor_due", "goods are due exactly while paying (END-G)")
        if sub == R.SUB_GOV_MOVE and _markers(s, p) != D.MARKERS:
            core.fail("sub_step", f"a marker moves only when all {D.MARKERS} are placed (END-G)")
    else:
        if due:
            core.fail("execution.governor_due", "no goods are due outside the Governor's payment")
        if role != R.GOVERNOR and gov >= 0:
            core.fail("execution.governor_slot", "only the Governor settles cities")
        if role == R.GOVERNOR and gov >= 0 and s["slot_owner"][gov] != p:
            core.fail(
                "execution.governor_slot", "the last city settled holds the Governor's marker"
            )


def _check_end(states, n: int):
    """END-E2 scores are written when the game ends; END-E3 decides the winners."""
    s = states[0]
    if int(s["phase"]) != R.PH_OVER:
        for p in range(n):
            if s["score"][p]:
                core.fail(f"players[{p}].score", "scores stay 0 until the game is over")
        if s["winner"] >= 0 or s["winners"]:
            core.fail("winners", "only a finished game has winners")
        return
    _, scores = _derived(states)
    for p in range(n):
        if int(s["score"][p]) != int(scores[p]):
            core.fail(
                f"players[{p}].score",
                f"is {int(s['score'][p])}, expected {int(scores[p])} (END-E2)",
            )
    expected = 0
    if s["terminated"]:
        keys = [
            (
                int(s["score"][p]),
                sum(kind == R.K_EMPIRE for kind, _ in _board(s, p)),
                int(s["pool"][p]),
            )
            for p in range(n)
        ]
        expected = sum(1 << p for p in range(n) if keys[p] == max(keys))
    if int(s["winners"]) != expected:
        want = [p for p in range(n) if (expected >> p) & 1]
        core.fail("winners", f"expected {want} (END-E3; none when cut off)")
    single = expected.bit_length() - 1 if expected and expected & (expected - 1) == 0 else -1
    if int(s["winner"]) != single:
        core.fail("winner", "is the one winner, or null when the win is shared or the game cut off")


def _check_legal(states):
    mask, _ = _derived(states)
    if (mask != states[0]["pend_mask"]).any():
        want = [int(a) for a in np.flatnonzero(mask)]
        core.fail("pending.legal", f"the rules give the legal actions {want} in this position")


# ---- the field table -------------------------------------------------------------------------

# Counters are bounded by what the game can reach (rules.MAX_*), not by int16.
PLAYER = (
    core.Int("pool", hi=R.MAX_TOKENS, what="tokens"),
    core.Int("lost", hi=R.MAX_TOKENS, what="tokens"),
    core.Name("role", names=ROLES, nullable=True),
    core.Int("placed", hi=R.MAX_TOKENS, what="tokens"),
    core.Custom("goods", lambda c, p: core.counts_dict(c.s["goods"][p], GOODS), _read_goods),
    core.Custom("ships", lambda c, p: core.counts_dict(c.s["ships"][p], REGIONS), _read_ships),
    core.Custom("board", _board_list, _read_board),
    core.Custom(
        "empire_hand",
        lambda c, p: [D.EMPIRE_KEYS[e] for e in np.flatnonzero(c.s["empire_hand"][p])],
        _read_empire_hand,
    ),
    core.Custom("roles", _roles_dict, lambda value, path, c, p: _read_roles(value, c.s, p)),
    core.Int("score", hi=R.MAX_SCORE, what="score"),
)
PLAYER_KEYS = tuple(entry.key for entry in PLAYER)
TABLE = (
    core.Int("num_players", lo=2, hi=R.MAXP, what="num_players"),
    core.RNG,
    core.Int("step_count", hi=R.STEP_CAP, what="step count"),
    core.Int("round", lo=1, hi=R.ROUND_LIMIT, what="round"),  # END-E4
    core.Name("phase", names=PHASES),
    core.Name("sub_step", "sub", names=SUB_STEPS, what="sub-step"),
    core.Int("first_player", hi=core.last_seat, what="seat"),
    core.Custom("order", lambda c: [int(x) for x in c.s["order"][: c.n]], _read_order),
    core.Custom("exec_order", _exec_order, _read_exec_order),
    core.Int("exec_index", hi=lambda c: c.n, what="index"),
    core.Int("pick_index", hi=lambda c: 2 * c.n, what="index"),
    core.Bool("terminated"),
    core.Bool("truncated"),
    core.Int("winner", hi=core.last_seat, what="seat", null=-1),
    core.Custom(
        "winners",
        lambda c: [p for p in range(c.n) if (int(c.s["winners"]) >> p) & 1],
        _read_winners,
    ),
    core.Custom("players", lambda c: [core.write_table(PLAYER, c, (p,)) for p in range(c.n)]),
    core.Custom("regions", lambda c: {REGIONS[r]: _region_dict(c.s, r) for r in range(R.NR)}),
    core.Custom("empire", lambda c: _pile_dict(c, "empire", D.EMPIRE_KEYS)),
    core.Custom("buildings", lambda c: _pile_dict(c, "building", D.BUILDING_KEYS)),
    core.Obj(
        "execution",
        (
            core.Int("strength", hi=R.MAX_STRENGTH, what="strength"),
            core.Int("used", hi=R.MAX_TOKENS, what="count"),
            core.Bool("took_goods"),
            core.Custom("cities_used", _cities_used, _read_cities_used),
            core.Bool("home_used"),
            core.Custom("governor_slot", _governor_slot, _read_governor_slot),
            core.Int("governor_due", "gov_due", hi=2, what="goods"),  # END-G
        ),
    ),
    core.Custom("pending", _pending_dict),
)

# What from_dict does, in turn: table keys read by their entry, and the game's steps.
READ = (
    "num_players",
    "rng",
    "step_count",
    "round",
    "phase",
    "sub_step",
    "first_player",
    "order",
    "exec_order",
    "exec_index",
    "pick_index",
    "terminated",
    "truncated",
    lambda c: core.check_stop(c, R.STEP_CAP, both="truncated", over=R.PH_OVER),
    "winner",
    "winners",
    _read_players,
    _read_regions,
    _read_piles,
    lambda c: c.places.check_all_placed(),
    "execution",
    _read_pending,
    lambda c: _check_players(c.s, c.n),
    lambda c: _check_regions(c.s, c.n),
    lambda c: _check_phase(c.s, c.n),
    lambda c: _check_goods(c.s, c.n),
    lambda c: _check_end(c.states, c.n),
    lambda c: _check_legal(c.states),
)
# The values init_game gives the fields a snapshot fills only in part.
BLANK = (
    "winner",
    "current_player",
    "role",
    "board_id",
    "role_deck",
    "order",
    "exec_order",
    "region_deck",
    "slot_city",
    "slot_owner",
    "empire_deck",
    "empire_market",
    "building_deck",
    "building_market",
    "gov_slot",
)
CODEC = core.Codec(GAME_NAME, SNAPSHOT_VERSION, R.STATE_DTYPE, TABLE, READ, BLANK, _writable)
TOP_KEYS = CODEC.keys
to_dict, from_dict = CODEC.to_dict, CODEC.from_dict


# ---- action names ----------------------------------------------------------------------------


def _region_text(r: int) -> str:
    name = D.REGION_NAMES[r]
    return f"the {name}" if r == D.CARIBBEAN else name


def _city_name(c) -> str:
    c = int(c)
    return D.CITY_NAMES[c] if 0 <= c < R.NC else "(empty slot)"


def _slot_text(s, k: int) -> str:
    r = _SLOT_REGION[k]
    return f"{_city_name(s['slot_city'][k])} ({D.REGION_NAMES[r]} slot {k - _FIRST_SLOT[r]})"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _slot_action(s, p: int, k: int) -> str:
    phase, sub = int(s["phase"]), int(s["sub"])
    city = _city_name(s["slot_city"][k])
    if phase == R.PH_START_CITY:
        return f"start in {_slot_text(s, k)}"
    if phase != R.PH_ROLE or p < 0:
        return _slot_text(s, k)
    if sub == R.SUB_GOV_MOVE:
        return f"move the marker from {city}"
    role = int(s["role"][p])
    if role == R.MERCHANT:
        c = int(s["slot_city"][k])
        good = GOODS[int(D.CITY_GOOD[c])] if c >= 0 else "goods"
        amount = "2 " if s["slot_upgraded"][k] else ""
        return f"collect {amount}{good} at {city}"
    if role == R.CRAFTSMAN:
        return f"buy city card {city}"
    if role == R.COMMANDER:
        owner = int(s["slot_owner"][k])
        return f"attack {city} (player {owner})" if owner >= 0 else f"attack {city}"
    if role == R.GOVERNOR:
        return f"settle {city}"
    return _slot_text(s, k)


def action_to_string(states: np.ndarray, g: int, action) -> str:
    """Describe ``action`` in the context of game ``g``'s pending decision, e.g.
    ``"choose Sailor"``, ``"send a ship to the Caribbean (cost 3)"`` or ``"attack player 2's
    ship in India"``. Costs are the decider's."""
    a = core.action_index(action, R.NUM_ACTIONS)
    s = states[g]
    p = int(s["current_player"])
    n = int(s["num_players"])
    phase, sub = int(s["phase"]), int(s["sub"])
    if a < R.A_TOKENS:
        return f"choose {D.ROLES[a - R.A_ROLE].capitalize()}"
    if a < R.A_SLOT:
        return f"put {_plural(a - R.A_TOKENS, 'token')}"
    if a < R.A_EMPIRE:
        return _slot_action(s, p, a - R.A_SLOT)
    if a < R.A_REGION:
        e = a - R.A_EMPIRE
        name = D.EMPIRE_NAMES[e]
        if phase == R.PH_EMPIRE_RETURN:
            return f"return {name}"
        if phase == R.PH_ROLE and p >= 0 and s["role"][p] == R.POLITICIAN:
            return f"take {name} ({_plural(int(D.EMPIRE_VOTE_COST[e]), 'vote')})"
        return f"empire card {name}"
    if a < R.A_HOME:
        r = a - R.A_REGION
        cost = _travel_cost(s, p, r) if p >= 0 else int(R.TRAVEL[r])
        return f"send a ship to {_region_text(r)} (cost {cost})"
    if a == R.A_HOME:
        return "collect at the home port"
    if a < R.A_BUILDING:
        good = GOODS[a - R.A_GOOD]
        if phase == R.PH_ROLE and sub == R.SUB_GOV_PAY:
            return f"pay with {good}"
        return f"take {good}"
    if a < R.A_UPGRADE:
        i = a - R.A_BUILDING
        b = int(s["building_market"][i])
        if b < 0:
            return f"buy from building market slot {i} (empty)"
        return f"buy {D.BUILDING_NAMES[b]} ({int(D.BUILDING_WORK_COST[b])} work)"
    if a < R.A_ATTACK_SHIP:
        return f"upgrade {_city_name(s['slot_city'][a - R.A_UPGRADE])}"
    if a < R.A_PAY_TOKEN:
        r, rel = divmod(a - R.A_ATTACK_SHIP, R.MAXP)
        q = (max(p, 0) + rel) % n
        return f"attack player {q}'s ship in {_region_text(r)}"
    if a == R.A_PAY_TOKEN:
        return "pay a missing good with a token"
    return "done"


# ---- text board ------------------------------------------------------------------------------


def _goods_text(row) -> str:
    return ", ".join(f"{int(row[x])} {GOODS[x]}" for x in range(R.NG) if row[x]) or "no goods"


def _card_text(kind: int, cid: int) -> str:
    return _CARD_NAMES[BOARD_KINDS[kind]][cid]


def _status(s, n: int) -> str:
    if s["terminated"]:
        winners = [p for p in range(n) if (int(s["winners"]) >> p) & 1]
        if len(winners) == 1:
            return f"Game over: player {winners[0]} wins"
        return "Game over: a shared win for " + ", ".join(f"player {p}" for p in winners)
    if s["truncated"]:
        return f"Game cut off at the step cap of {R.STEP_CAP} (truncated)"
    p = int(s["current_player"])
    what = R.PHASE_NAMES[int(s["phase"])]
    if int(s["phase"]) == R.PH_ROLE:
        role = ROLES[int(s["role"][p])].capitalize()
        what = (
            f"{role}, {SUB_STEPS[int(s['sub'])].replace('_', ' ')}, strength {int(s['strength'])}"
        )
    legal = int(s["pend_mask"].sum())
    return f"To decide: player {p} ({what}, {legal} legal actions)"


def _region_line(s, r: int) -> str:
    name = D.REGION_NAMES[r]
    if not s["region_open"][r]:
        return f"  {name}: closed (travel {int(R.TRAVEL[r])})"
    first = _FIRST_SLOT[r]
    slots = []
    for k in range(first, first + int(R.REGION_SLOTS[r])):
        c = int(s["slot_city"][k])
        if c < 0:
            slots.append(f"{k - first}:-")
            continue
        owner = int(s["slot_owner"][k])
        tag = ""
        if owner >= 0:
            tag = f" [player {owner}{', upgraded' if s['slot_upgraded'][k] else ''}]"
        slots.append(f"{k - first}:{D.CITY_NAMES[c]}{tag}")
    deck = int(s["region_deck_n"][r])
    return f"  {name} (travel {int(R.TRAVEL[r])}, deck {deck}): " + " ".join(slots)


def render(states: np.ndarray, g: int) -> str:
    """A compact multi-line board of game ``g`` (everything, hidden choices included)."""
    s = states[g]
    n = int(s["num_players"])
    lines = [
        f"Endeavor - {n} players, round {int(s['round'])}/{R.ROUND_LIMIT}, "
        f"step {int(s['step_count'])}, first player {int(s['first_player'])}",
        _status(s, n),
        "Regions:",
    ]
    lines += [_region_line(s, r) for r in range(R.NR)]
    empire = [D.EMPIRE_NAMES[e] if e >= 0 else "-" for e in s["empire_market"]]
    buildings = [
        f"{D.BUILDING_NAMES[b]} ({int(D.BUILDING_WORK_COST[b])})" if b >= 0 else "-"
        for b in s["building_market"]
    ]
    lines.append(f"Empire market: {', '.join(empire)} (deck {int(s['empire_deck_n'])})")
    lines.append(f"Buildings: {', '.join(buildings)} (deck {int(s['building_deck_n'])})")
    over = int(s["phase"]) == R.PH_OVER
    for p in range(n):
        mark = ">" if p == int(s["current_player"]) else " "
        role = int(s["role"][p])
        plan = f", {ROLES[role]} x{int(s['placed'][p])}" if role >= 0 else ""
        score = f", score {int(s['score'][p])}" if over else ""
        ships = [
            f"{D.REGION_NAMES[r]} {int(s['ships'][p, r])}" for r in range(R.NR) if s["ships"][p, r]
        ]
        lines.append(
            f"{mark} player {p} (pool {int(s['pool'][p])}, lost {int(s['lost'][p])}{plan}"
            f"{score}): {_goods_text(s['goods'][p])}; ships: {', '.join(ships) or '-'}"
        )
        board = [_card_text(kind, cid) for kind, cid in _board(s, p)]
        lines.append(f"    board ({len(board)}/{R.BOARD}): {', '.join(board) or '-'}")
        hand = [D.EMPIRE_NAMES[e] for e in np.flatnonzero(s["empire_hand"][p])]
        roles = [ROLES[r] for r in np.flatnonzero(s["role_hand"][p])]
        lines.append(
            f"    empire hand: {', '.join(hand) or '-'}; roles in hand: {', '.join(roles)}"
        )
    return "\n".join(lines)


__all__ = ["action_to_string", "from_dict", "render", "to_dict"]
