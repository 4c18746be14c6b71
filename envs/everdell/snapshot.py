"""Everdell snapshots (``to_dict``/``from_dict``), action names and a text board.

A snapshot is a JSON-safe dict that names things by the keys of the data tables
(``envs/everdell/data``): cards ``"farm"``, locations ``"basic_3_twig"``, events
``"grand_tour"``, resources ``"twig"``, seasons ``"spring"``. It round-trips byte for byte:
``from_dict(to_dict(states, g))[0].tobytes() == states[g].tobytes()``, RNG word included.

Conventions:

- Seats, city slots, Meadow positions, worker and revealed-card indices are 0-based
  everywhere (JSON and text), like the action layout (``A_CITY + slot``).
- ``players`` has one entry per real player. ``hand`` is ``{card: count}`` with
  ``hand_size`` its total; ``city`` lists the filled slots (``slot``, ``card``, ``occupied``
  token, point ``tokens``, Storehouse ``store``, Dungeon ``jail`` cells); ``workers`` lists
  the workers owned, each ``{"where": ..., "permanent": bool}`` plus what ``where`` needs:
  ``"free"``, ``"limbo"`` (its card left the city), ``"location"`` + ``location``,
  ``"event"`` + ``event``, ``"city"`` + ``owner``/``slot``/``card``, ``"rugwort_inn"`` or
  ``"rugwort_post_office"``.
- ``rugwort`` is ``null`` except in solo games: his city by type, tokens, score and the spots
  his workers block (``forest_position``, ``basic``, ``journey``, ``meadow_blocked``).
- ``deck`` lists the draw deck **top first**; ``discard`` lists the pile oldest first (the
  last entry is its top). ``meadow`` has 8 positions (``null`` = empty for a moment).
- ``events.basic`` holds the 4 basic events in id order, ``events.special`` the 4 dealt
  special events in dealing order; each ``{"event", "owner", "store"}`` (``store`` = points
  parked on the event).
- ``revealed`` are cards set aside during an effect (Postal Pigeon, Teacher, Cemetery,
  Ancient Scrolls, the Meadow-pick forest card, the Post Office's gift); ``tucked`` counts
  cards tucked under events.
- ``stack.frames`` is the task stack bottom to top; each frame names its ``task`` and, where
  a field holds one, its card, origin, payment, location or event; other fields are the
  kernel's integers. ``stack.ret`` is the last finished sub-task's result.
- ``pending`` is ``{"player", "kind", "legal"}`` (the decider, the decision kind and the legal
  action ids) or ``null`` once the game is over.
- ``leftovers.frames`` are popped frames the kernel leaves in its arrays; they carry no game
  meaning and exist only so the record is rebuilt byte for byte.

``from_dict`` checks every field and the invariants of a reachable position (every one of the
128 cards in exactly one place, hand limit, city limit, worker counts by season, the decider)
and raises ``SnapshotError`` naming the first problem; it never returns a partly filled state.
Nothing the kernel derives is trusted: every task frame field a runner uses as an index or a
count is bounded and checked against the position (``_check_frames``), and the pending
decision is asked again by the kernel on a copy (``rules.rederive_pending``): the kind, the
decider and the legal list must be the rules' own, and asking again must change nothing else
(the engine stops there). So every accepted snapshot round-trips and every legal step from it
stays inside the arrays.
"""

from __future__ import annotations

import numpy as np

from meeple_gym.core import snapshot as core
from meeple_gym.core.errors import SnapshotError
from meeple_gym.everdell import data as D
from meeple_gym.everdell import rules as R

GAME_NAME = "everdell"
SNAPSHOT_VERSION = 2  # 2: option pass_anytime; passing only from autumn (EVD-E1)


SLOT_KEYS = ("slot", "card", "occupied", "tokens", "store", "jail")
RUGWORT_KEYS = ("city", "tokens", "score", "forest_position", "basic", "journey", "meadow_blocked")
EVENT_KEYS = ("event", "owner", "store")
STACK_KEYS = ("frames", "ret")
PENDING_KEYS = ("player", "kind", "legal")
WORKER_KEYS = {
    "free": (),
    "limbo": (),
    "location": ("location",),
    "event": ("event",),
    "city": ("owner", "slot", "card"),
    "rugwort_inn": (),
    "rugwort_post_office": (),
}

_WHERE = tuple(WORKER_KEYS)
CARD_KEYS = D.CARD_KEYS
RESOURCES = D.RESOURCES
SEASONS = D.SEASONS
ORIGINS = ("hand", "meadow", "free", "inn", "forest")  # O_* order
PAY_METHODS = (
    "normal",
    "occupied_token",
    "ever_tree_token",
    "innkeeper",
    "crane",
    "dungeon",
    "judge",
)  # PAY_* order
CARD_MODES = ("effect", "visit")  # T_CARD fr_b: on play / production, or a worker's visit


def _constant_names(prefix: str) -> dict[int, str]:
    return {
        int(getattr(R, name)): name[len(prefix) :].lower()
        for name in dir(R)
        if name.startswith(prefix) and isinstance(getattr(R, name), int)
    }


DECISION_KINDS = tuple(_constant_names("PK_")[k] for k in range(R.N_PK))
TASKS = _constant_names("T_")  # task kind -> name ("play", "card", ...)
_TASK_INDEX = {name: kind for kind, name in TASKS.items()}
_TASK_NAMES = tuple(_TASK_INDEX)
assert len(_TASK_INDEX) == len(TASKS) and 0 not in TASKS

# What the frame fields a..d hold, by task kind: (snapshot key, record field, names or None).
_GENERIC_ARGS = (("a", "fr_a", None), ("b", "fr_b", None), ("c", "fr_c", None), ("d", "fr_d", None))
FRAME_ARGS = {kind: _GENERIC_ARGS for kind in TASKS}
FRAME_ARGS[R.T_PLAY] = (
    ("card", "fr_a", CARD_KEYS),
    ("origin", "fr_b", ORIGINS),
    ("pay", "fr_c", PAY_METHODS),
    ("d", "fr_d", None),  # the Judge's swapped resource, then the city slot
)
FRAME_ARGS[R.T_CARD] = (
    ("card", "fr_a", CARD_KEYS),
    ("mode", "fr_b", CARD_MODES),
    ("owner", "fr_c", None),  # the city whose conditions apply (Miner Mole copies)
    ("slot", "fr_d", None),  # -1: a card of Rugwort's
)
FRAME_ARGS[R.T_LOCATION] = (("location", "fr_a", D.LOCATION_KEYS),) + _GENERIC_ARGS[1:]
FRAME_ARGS[R.T_EVENT] = (("event", "fr_a", D.EVENT_KEYS),) + _GENERIC_ARGS[1:]
FRAME_COMMON = ("task", "actor", "stage", "n", "cost", "slots")
# a row of ``leftovers.frames``: the raw frame fields in this order (cost as 4 entries)
RAW_FRAME_FIELDS = ("fr_kind", "fr_actor", "fr_stage", "fr_a", "fr_b", "fr_c", "fr_d", "fr_n")
RAW_FRAME_LEN = len(RAW_FRAME_FIELDS) + 4 + 1  # + cost + bits

_CARD_INDEX = dict(D.CARD_ID)
_LOCATION_INDEX = dict(D.LOCATION_ID)
_EVENT_INDEX = dict(D.EVENT_ID)

_INT8_MAX = int(np.iinfo(np.int8).max)
_INT16_MAX = int(np.iinfo(np.int16).max)
_INT16_MIN = int(np.iinfo(np.int16).min)
_INT32_MAX = int(np.iinfo(np.int32).max)
_INT32_MIN = int(np.iinfo(np.int32).min)
_PLACEABLE = (D.LOC_BASIC, D.LOC_FOREST, D.LOC_HAVEN, D.LOC_JOURNEY)
# Workers owned after entering each season (EVD-S5, EVD-F2..F4).
_WORKERS_BY_SEASON = np.cumsum(D.SEASON_NEW_WORKERS)
_POINT_TOKEN_CARDS = (R.CHAPEL, R.CLOCK_TOWER)


def seats_for(n: int) -> int:
    """Seats at the table: the players, and Rugwort (the solo opponent) in seat 1 of a solo game."""
    return 2 if n == 1 else n


def _solo(s) -> bool:
    return int(s["num_players"]) == 1


# ---- which cards a frame holds -------------------------------------------------------------


def _play_holds_card(s, f: int) -> bool:
    """A T_PLAY frame holds its card until it is placed (PS_PLACE, or PS_TARGET for Fool and
    Ruins); a solo Fool is discarded on leaving PS_TARGET for PS_RUG_REMOVE (rules._run_play),
    so a solo Fool's frame is never read at PS_TARGET."""
    if int(s["fr_kind"][f]) != R.T_PLAY:
        return False
    stage = int(s["fr_stage"][f])
    if stage < R.PS_TARGET:
        return True
    return stage == R.PS_TARGET and not (_solo(s) and int(s["fr_a"][f]) == R.FOOL)


# ---- to_dict ---------------------------------------------------------------------------------


def _name(names, code, what: str) -> str:
    code = int(code)
    if not 0 <= code < len(names):
        core.refuse(f"{what} code {code} has no name")
    return names[code]


def _card_counts(row) -> dict:
    counts = row.tolist()
    return {CARD_KEYS[t]: counts[t] for t in np.flatnonzero(row).tolist()}


def _worker_dict(s, code: int, perm: int) -> dict:
    out = {"where": "free"}
    if code == R.W_LIMBO:
        out = {"where": "limbo"}
    elif code == R.W_RUG_INN:
        out = {"where": "rugwort_inn"}
    elif code == R.W_RUG_POST:
        out = {"where": "rugwort_post_office"}
    elif 0 <= code < D.N_LOCATIONS:
        out = {"where": "location", "location": D.LOCATION_KEYS[code]}
    elif R.W_EVENT <= code < R.W_EVENT + D.N_EVENTS:
        out = {"where": "event", "event": D.EVENT_KEYS[code - R.W_EVENT]}
    elif R.W_CITY <= code < R.W_CITY + R.MAXP * 32 and (code - R.W_CITY) % 32 < R.CITY_SLOTS:
        owner, slot = divmod(code - R.W_CITY, 32)
        card = int(s["city"][owner, slot])
        out = {
            "where": "city",
            "owner": owner,
            "slot": slot,
            "card": CARD_KEYS[card] if card >= 0 else None,
        }
    elif code != R.W_FREE:
        core.refuse(f"worker location code {code} has no meaning")
    out["permanent"] = bool(perm)
    return out


def _slot_dict(s, p: int, k: int) -> dict:
    cells = s["city_jail"][p, k].tolist()
    jail = [None if c < 0 else _name(CARD_KEYS, c, "prisoner") for c in cells]
    return {
        "slot": k,
        "card": _name(CARD_KEYS, s["city"][p, k], "city card"),
        "occupied": bool(s["city_occupied"][p, k]),
        "tokens": int(s["city_tokens"][p, k]),
        "store": core.counts_dict(s["city_store"][p, k], RESOURCES),
        "jail": jail,
    }


def _city_list(c, p: int) -> list[dict]:
    s = c.s
    return [_slot_dict(s, p, k) for k in range(R.CITY_SLOTS) if s["city"][p, k] >= 0]


def _workers_list(c, p: int) -> list[dict]:
    s = c.s
    count = int(s["workers"][p])
    spots, permanent = s["wloc"][p, :count].tolist(), s["wperm"][p, :count].tolist()
    return [_worker_dict(s, code, perm) for code, perm in zip(spots, permanent, strict=True)]


def _rugwort_dict(s) -> dict | None:
    if not _solo(s):
        return None
    forest, basic, journey = int(s["rug_forest"]), int(s["rug_basic"]), int(s["rug_journey"])
    bits = int(s["rug_meadow"]) & 0xFF
    return {
        "city": _card_counts(s["rug_city"]),
        "tokens": int(s["tokens"][R.RUGWORT]),
        "score": int(s["score"][R.RUGWORT]),
        "forest_position": forest if forest >= 0 else None,
        "basic": D.LOCATION_KEYS[basic] if basic >= 0 else None,
        "journey": D.LOCATION_KEYS[journey] if journey >= 0 else None,
        "meadow_blocked": [i for i in range(R.MEADOW) if (bits >> i) & 1],
    }


def _event_dict(e: int, owners: list, stores: list) -> dict:
    owner = owners[e]
    return {"event": D.EVENT_KEYS[e], "owner": owner if owner >= 0 else None, "store": stores[e]}


def _events_dict(c) -> dict:
    owners, stores = c.s["event_owner"].tolist(), c.s["event_store"].tolist()
    return {
        "basic": [_event_dict(e, owners, stores) for e in D.BASIC_EVENTS],
        "special": [_event_dict(e, owners, stores) for e in c.s["specials"].tolist()],
    }


def _frame_dict(s, f: int) -> dict:
    kind = int(s["fr_kind"][f])
    if kind not in TASKS:
        core.refuse(f"frame {f} has task kind {kind}")
    bits = int(s["fr_bits"][f])
    if bits < 0 or bits >> R.CITY_SLOTS:
        core.refuse(f"frame {f} has slot bits {bits:#x} beyond the {R.CITY_SLOTS} city slots")
    frame = {"task": TASKS[kind], "actor": int(s["fr_actor"][f]), "stage": int(s["fr_stage"][f])}
    for key, field, names in FRAME_ARGS[kind]:
        value = int(s[field][f])
        frame[key] = value if names is None else _name(names, value, f"frame {f} {key}")
    frame["n"] = int(s["fr_n"][f])
    frame["cost"] = core.counts_dict(s["fr_cost"][f], RESOURCES)
    frame["slots"] = [k for k in range(R.CITY_SLOTS) if (bits >> k) & 1]
    return frame


def _raw_frames(s, first: int) -> list[list[int]]:
    """Rows ``first..`` of the frame arrays, trailing all-zero rows left out."""
    columns = [s[field][first:] for field in RAW_FRAME_FIELDS]
    rows = np.column_stack(columns + [s["fr_cost"][first:], s["fr_bits"][first:]])
    used = np.flatnonzero(rows.any(axis=1))
    return rows[: used[-1] + 1 if used.size else 0].tolist()


def _writable(s):
    """Refuse a record whose unwritten fields are not what ``from_dict`` rebuilds (only a
    corrupted record fails here)."""
    n = int(s["num_players"])
    if not 1 <= n <= R.MAXP:
        core.refuse(f"num_players is {n}, Everdell has 1-4 players")
    seats = seats_for(n)
    if int(s["seats"]) != seats:
        core.refuse(f"seats is {int(s['seats'])}, expected {seats} for {n} player(s)")
    deck_n, discard_n, rev_n = int(s["deck_n"]), int(s["discard_n"]), int(s["revealed_n"])
    depth = int(s["depth"])
    if not (0 <= deck_n <= R.DECK_SIZE and 0 <= discard_n <= R.DECK_SIZE):
        core.refuse("deck_n or discard_n is out of range")
    if not 0 <= rev_n <= len(s["revealed"]) or not 0 <= depth <= R.MAX_FRAMES:
        core.refuse("revealed_n or depth is out of range")
    for field, used in (("deck", deck_n), ("discard", discard_n), ("revealed", rev_n)):
        if (s[field][used:] != -1).any():
            core.refuse(f"{field} holds cards past its count")
    if int(s["answer"]) != -1:
        core.refuse("an answer is waiting to be read (answer != -1)")
    # Codes written as names, null or true/false: other values would have no spelling.
    for field in (
        "pend_mask",
        "terminated",
        "truncated",
        "passed",
        "wperm",
        "city_occupied",
        "opt_fool_bonuses",
        "opt_pass_anytime",
    ):
        core.check_codes(s[field], field, 0, 1)
    for field in ("meadow", "city", "city_jail"):
        core.check_codes(s[field], field, -1, R.NT - 1)
    core.check_codes(s["specials"], "specials", 0, D.N_EVENTS - 1)
    core.check_codes(s["event_owner"], "event_owner", -1, seats - 1)
    core.check_codes(s["winner"], "winner", -1, seats - 1)
    core.check_codes(s["current_player"], "current_player", -1, n - 1)
    for field in ("rug_forest", "rug_basic", "rug_journey"):
        core.check_codes(s[field], field, -1, D.N_LOCATIONS - 1)
    waiting = int(s["pend_kind"]) != R.PK_NONE
    if waiting != (int(s["current_player"]) >= 0) or (not waiting and s["pend_mask"].any()):
        core.refuse("pend_kind, current_player and pend_mask disagree about a pending decision")
    dealt = int(R.FOREST_DEALT[n])
    core.check_codes(s["forest"][:dealt], "forest", 0, D.N_LOCATIONS - 1)
    if (s["forest"][dealt:] != -1).any():
        core.refuse("forest holds cards past the dealt ones")
    for p in range(R.MAXP):
        w = int(s["workers"][p])
        if not 0 <= w <= R.MAX_WORKERS:
            core.refuse(f"player {p} owns {w} workers")
        if (s["wloc"][p, w:] != R.W_FREE).any() or s["wperm"][p, w:].any():
            core.refuse(f"player {p} has worker fields past the workers owned")
    held = (
        (s["city_occupied"] != 0)
        | (s["city_tokens"] != 0)
        | s["city_store"].any(axis=2)
        | (s["city_jail"] != -1).any(axis=2)
    )
    if (held & (s["city"] < 0)).any():
        core.refuse("an empty city slot holds tokens, resources or prisoners")
    for p in range(n, R.MAXP):
        blank = (
            not s["hand"][p].any()
            and s["hand_n"][p] == 0
            and (s["city"][p] == -1).all()
            and not s["resources"][p].any()
            and s["season"][p] == 0
            and s["workers"][p] == 0
            and s["passed"][p] == 0
        )
        rugwort = n == 1 and p == R.RUGWORT
        if not blank or (not rugwort and (s["tokens"][p] != 0 or s["score"][p] != 0)):
            core.refuse(f"seat {p} is not in use but holds values")
    if n > 1 and (
        s["rug_city"].any()
        or s["rug_forest"] != -1
        or s["rug_basic"] != -1
        or s["rug_journey"] != -1
        or s["rug_meadow"] != 0
    ):
        core.refuse("Rugwort's fields are set in a game with more than one player")
    dealt_specials = {int(e) for e in s["specials"]}
    for e in D.SPECIAL_EVENTS:
        if e not in dealt_specials and (s["event_owner"][e] != -1 or s["event_store"][e] != 0):
            core.refuse(f"special event {D.EVENT_KEYS[e]} was not dealt but has an owner or store")


def _pending_dict(c) -> dict | None:
    s = c.s
    if int(s["pend_kind"]) == R.PK_NONE:
        return None
    return {
        "player": int(s["current_player"]),
        "kind": _name(DECISION_KINDS, s["pend_kind"], "decision kind"),
        "legal": [int(a) for a in np.flatnonzero(s["pend_mask"])],
    }


def _cards(c, field: str, what: str, top_first: bool = False) -> list[str]:
    cards = c.s[field][: int(c.s[f"{field}_n"])].tolist()
    return [_name(CARD_KEYS, card, what) for card in (cards[::-1] if top_first else cards)]


def _stack_dict(c) -> dict:
    s = c.s
    return {"frames": [_frame_dict(s, f) for f in range(int(s["depth"]))], "ret": int(s["ret"])}


# ---- from_dict: field readers ----------------------------------------------------------------


def _card(value, path: str) -> int:
    return core.read_key(value, path, _CARD_INDEX, "card")


def _location(value, path: str, kinds=None) -> int:
    loc = core.read_key(value, path, _LOCATION_INDEX, "location")
    if kinds is not None and int(D.LOCATION_KIND[loc]) not in kinds:
        wanted = " or ".join(D.LOCATION_KINDS[k] for k in kinds)
        core.fail(path, f"{value!r} is not a {wanted} location")
    return loc


def _event(value, path: str) -> int:
    return core.read_key(value, path, _EVENT_INDEX, "event")


def _card_count_dict(value, path: str, most: int) -> np.ndarray:
    if not isinstance(value, dict):
        core.fail(path, f"expected an object of card counts, got {type(value).__name__}")
    counts = np.zeros(R.NT, np.int64)
    for name, count in value.items():
        t = _card(name, f"{path} key")
        counts[t] = core.read_int(count, f"{path}.{name}", 1, most, "card count")
    return counts


def _player_ref(value, path: str, seats: int) -> int:
    return core.read_int(value, path, 0, seats - 1, "seat")


# ---- from_dict -------------------------------------------------------------------------------


def _read_board(c: core.ReadCall):
    """Deck, discard pile, Meadow, forest, events and the revealed cards."""
    snap, s, n = c.snap, c.s, c.n
    deck = core.read_list(snap["deck"], "deck", most=R.DECK_SIZE)
    cards = [_card(c, f"deck[{i}]") for i, c in enumerate(deck)]
    s["deck"][: len(cards)] = cards[::-1]  # written top first, stored bottom first
    s["deck_n"] = len(cards)
    discard = core.read_list(snap["discard"], "discard", most=R.DECK_SIZE)
    s["discard"][: len(discard)] = [_card(c, f"discard[{i}]") for i, c in enumerate(discard)]
    s["discard_n"] = len(discard)
    meadow = core.read_list(snap["meadow"], "meadow", R.MEADOW)
    for i, c in enumerate(meadow):
        s["meadow"][i] = -1 if c is None else _card(c, f"meadow[{i}]")

    dealt = int(R.FOREST_DEALT[n])
    forest = core.read_list(snap["forest"], "forest", dealt)  # EVD-S2
    for j, loc in enumerate(forest):
        s["forest"][j] = _location(loc, f"forest[{j}]", (D.LOC_FOREST,))
        if s["forest"][j] in s["forest"][:j]:
            core.fail(f"forest[{j}]", f"{loc!r} is dealt twice")

    events = core.read_obj(snap["events"], "events", ("basic", "special"))
    seats = seats_for(n)
    basic = core.read_list(events["basic"], "events.basic", len(D.BASIC_EVENTS))
    for i, raw in enumerate(basic):
        e = _read_event(raw, f"events.basic[{i}]", s, seats)
        if e != D.BASIC_EVENTS[i]:
            want = D.EVENT_KEYS[D.BASIC_EVENTS[i]]
            core.fail(f"events.basic[{i}].event", f"expected {want!r} (basic events in id order)")
    special = core.read_list(events["special"], "events.special", R.N_SPECIAL_DEALT)  # EVD-S3
    for j, raw in enumerate(special):
        path = f"events.special[{j}]"
        e = _read_event(raw, path, s, seats)
        if not D.EVENT_IS_SPECIAL[e]:
            core.fail(f"{path}.event", f"{D.EVENT_KEYS[e]!r} is not a special event")
        if e in s["specials"][:j]:
            core.fail(f"{path}.event", f"{D.EVENT_KEYS[e]!r} is dealt twice")
        if n == 1 and s["event_owner"][e] == R.RUGWORT:
            core.fail(f"{path}.owner", "Rugwort achieves basic events only")
        s["specials"][j] = e

    revealed = core.read_list(snap["revealed"], "revealed", most=len(s["revealed"]))
    for i, c in enumerate(revealed):
        s["revealed"][i] = _card(c, f"revealed[{i}]")
    s["revealed_n"] = len(revealed)


def _read_event(raw, path: str, s, seats: int) -> int:
    entry = core.read_obj(raw, path, EVENT_KEYS)
    e = _event(entry["event"], f"{path}.event")
    if entry["owner"] is not None:
        s["event_owner"][e] = _player_ref(entry["owner"], f"{path}.owner", seats)
    # Parked points never exceed the event's cap; events without one park nothing.
    most = max(int(D.EVENT_MAX_POINTS[e]), 0)
    s["event_store"][e] = core.read_int(entry["store"], f"{path}.store", 0, most, "points")
    if entry["owner"] is None and s["event_store"][e]:
        core.fail(f"{path}.store", "an event nobody achieved holds no points")
    return e


def _read_players(c: core.ReadCall):
    for p, raw in enumerate(core.read_players(c)):
        path = f"players[{p}]"
        core.read_table(core.read_obj(raw, path, PLAYER_KEYS), path, PLAYER, c, (p,))


def _read_hand(value, path: str, c: core.ReadCall, p: int):
    c.s["hand"][p] = _card_count_dict(value, path, R.HAND_LIMIT)


def _read_resources(value, path: str, c: core.ReadCall, p: int):
    c.s["resources"][p] = core.read_counts(value, path, RESOURCES, 0, R.COUNT_MAX)


def _read_hand_size(value, path: str, c: core.ReadCall, p: int):
    size = core.read_int(value, path, 0, R.HAND_LIMIT, "hand size")  # EVD-D2
    held = int(c.s["hand"][p].sum())
    if held != size:
        core.fail(path, f"is {size} but the hand holds {held} cards")
    c.s["hand_n"][p] = size


def _read_city(raw, path: str, s, p: int):
    slots = core.read_list(raw, path, most=R.CITY_SLOTS)
    last = -1
    for i, raw_slot in enumerate(slots):
        where = f"{path}[{i}]"
        entry = core.read_obj(raw_slot, where, SLOT_KEYS)
        k = core.read_int(entry["slot"], f"{where}.slot", 0, R.CITY_SLOTS - 1, "city slot")
        if k <= last:
            core.fail(f"{where}.slot", "slots must be listed in increasing order, each once")
        last = k
        t = _card(entry["card"], f"{where}.card")
        if D.CARD_UNIQUE[t] and t in s["city"][p]:  # EVD-P2
            core.fail(f"{where}.card", f"{entry['card']!r} is Unique and already in this city")
        s["city"][p, k] = t
        if core.read_bool(entry["occupied"], f"{where}.occupied"):
            if D.CARD_KIND[t] != D.CONSTRUCTION:  # EVD-P3: occupied tokens sit on Constructions
                core.fail(f"{where}.occupied", f"{entry['card']!r} is not a Construction")
            s["city_occupied"][p, k] = 1
        tokens = core.read_int(
            entry["tokens"], f"{where}.tokens", 0, R.CHAPEL_TOKENS_MAX, "point tokens"
        )
        if tokens and t not in _POINT_TOKEN_CARDS:
            core.fail(
                f"{where}.tokens", f"{entry['card']!r} holds no tokens (Chapel, Clock Tower do)"
            )
        if t == R.CLOCK_TOWER and tokens > 3:
            core.fail(f"{where}.tokens", "a Clock Tower starts with 3 tokens and never gains any")
        s["city_tokens"][p, k] = tokens
        store = core.read_counts(entry["store"], f"{where}.store", RESOURCES, 0, R.STORE_MAX)
        if any(store) and t != R.STOREHOUSE:
            core.fail(f"{where}.store", f"only a Storehouse holds resources, not {entry['card']!r}")
        s["city_store"][p, k] = store
        jail = core.read_list(entry["jail"], f"{where}.jail", 2)
        for j, c in enumerate(jail):
            if c is None:
                continue
            prisoner = _card(c, f"{where}.jail[{j}]")
            if t != R.DUNGEON:
                core.fail(f"{where}.jail", f"only a Dungeon holds prisoners, not {entry['card']!r}")
            if D.CARD_KIND[prisoner] != D.CRITTER:
                core.fail(f"{where}.jail[{j}]", f"{c!r} is not a Critter")
            if j == 1 and jail[0] is None:
                core.fail(f"{where}.jail", "the second cell fills only after the first")
            s["city_jail"][p, k, j] = prisoner
    used = _spaces_used(s["city"][p])
    if used > R.CITY_LIMIT:  # EVD-P4
        core.fail(path, f"takes {used} spaces, more than {R.CITY_LIMIT}")


def _spaces_used(city) -> int:
    """EVD-P4: Wanderers take no space; a Husband and a Wife share one."""
    cards = [int(t) for t in city if t >= 0]
    pairs = min(cards.count(R.HUSBAND), cards.count(R.WIFE))
    return sum(int(D.CARD_CITY_SPACE[t]) for t in cards) - pairs


def _read_rugwort(c: core.ReadCall):
    raw, s, n = c.snap["rugwort"], c.s, c.n
    if n > 1:
        if raw is not None:
            core.fail("rugwort", "Rugwort plays only in solo games; expected null")
        return
    rug = core.read_obj(raw, "rugwort", RUGWORT_KEYS)
    s["rug_city"] = _card_count_dict(rug["city"], "rugwort.city", R.DECK_SIZE)
    s["tokens"][R.RUGWORT] = core.read_int(
        rug["tokens"], "rugwort.tokens", 0, R.COUNT_MAX, "tokens"
    )
    s["score"][R.RUGWORT] = core.read_int(
        rug["score"], "rugwort.score", _INT32_MIN, _INT32_MAX, "score"
    )
    if rug["forest_position"] is not None:
        dealt = int(R.FOREST_DEALT[n])
        s["rug_forest"] = core.read_int(
            rug["forest_position"], "rugwort.forest_position", 0, dealt - 1
        )
    if rug["basic"] is not None:
        s["rug_basic"] = _location(rug["basic"], "rugwort.basic", (D.LOC_BASIC,))
    if rug["journey"] is not None:
        s["rug_journey"] = _location(rug["journey"], "rugwort.journey", (D.LOC_JOURNEY,))
    bits = 0
    for i, pos in enumerate(
        core.read_list(rug["meadow_blocked"], "rugwort.meadow_blocked", most=8)
    ):
        pos = core.read_int(pos, f"rugwort.meadow_blocked[{i}]", 0, R.MEADOW - 1, "Meadow position")
        if bits >> pos & 1:
            core.fail(f"rugwort.meadow_blocked[{i}]", f"position {pos} is listed twice")
        bits |= 1 << pos
    s["rug_meadow"] = bits - 256 if bits > _INT8_MAX else bits  # an int8 bitmask


def _read_stack(c: core.ReadCall):
    snap, s, n = c.snap, c.s, c.n
    stack = core.read_obj(snap["stack"], "stack", STACK_KEYS)
    frames = core.read_list(stack["frames"], "stack.frames", most=R.MAX_FRAMES)
    for f, raw in enumerate(frames):
        _read_frame(raw, f"stack.frames[{f}]", s, f, seats_for(n))
    s["depth"] = len(frames)
    # The last finished sub-task's count: cards discarded (at most a hand) or resources given.
    s["ret"] = core.read_int(stack["ret"], "stack.ret", 0, R.HAND_LIMIT, "sub-task result")
    left = core.read_obj(snap["leftovers"], "leftovers", ("frames",))
    rows = core.read_list(left["frames"], "leftovers.frames", most=R.MAX_FRAMES - len(frames))
    for i, raw in enumerate(rows):
        path = f"leftovers.frames[{i}]"
        row = core.read_list(raw, path, RAW_FRAME_LEN)
        f = len(frames) + i
        for j, field in enumerate(RAW_FRAME_FIELDS):
            s[field][f] = core.read_raw(row[j], f"{path}[{j}]", R.STATE_DTYPE[field].base)
        for r in range(4):
            j = len(RAW_FRAME_FIELDS) + r
            s["fr_cost"][f, r] = core.read_raw(row[j], f"{path}[{j}]", np.int16)
        s["fr_bits"][f] = core.read_raw(row[-1], f"{path}[{RAW_FRAME_LEN - 1}]", np.int32)


def _read_frame(raw, path: str, s, f: int, seats: int):
    if not isinstance(raw, dict) or "task" not in raw:
        core.fail(path, "expected an object with a 'task' key")
    task = core.read_name(raw["task"], f"{path}.task", _TASK_NAMES, "task")
    kind = _TASK_INDEX[_TASK_NAMES[task]]
    args = FRAME_ARGS[kind]
    keys = FRAME_COMMON[:3] + tuple(key for key, _, _ in args) + FRAME_COMMON[3:]
    frame = core.read_obj(raw, path, keys)
    s["fr_kind"][f] = kind
    # Rugwort never decides, so never runs a task (docs/everdell.md, Solo).
    s["fr_actor"][f] = core.read_int(
        frame["actor"], f"{path}.actor", 0, int(s["num_players"]) - 1, "player"
    )
    s["fr_stage"][f] = core.read_int(frame["stage"], f"{path}.stage", 0, _INT8_MAX, "stage")
    for key, field, names in args:
        if names is None:
            s[field][f] = core.read_int(frame[key], f"{path}.{key}", _INT16_MIN, _INT16_MAX)
        else:
            s[field][f] = core.read_name(frame[key], f"{path}.{key}", list(names), key)
    s["fr_n"][f] = core.read_int(frame["n"], f"{path}.n", _INT16_MIN, _INT16_MAX)
    s["fr_cost"][f] = core.read_counts(
        frame["cost"], f"{path}.cost", RESOURCES, _INT16_MIN, _INT16_MAX
    )
    bits = 0
    for i, k in enumerate(core.read_list(frame["slots"], f"{path}.slots", most=R.CITY_SLOTS)):
        k = core.read_int(k, f"{path}.slots[{i}]", 0, R.CITY_SLOTS - 1, "city slot")
        if bits >> k & 1:
            core.fail(f"{path}.slots[{i}]", f"slot {k} is listed twice")
        bits |= 1 << k
    s["fr_bits"][f] = bits


def _read_workers(c: core.ReadCall):
    """Workers (EVD-S5: 2, then +1 spring, +1 summer, +2 autumn) and where they stand."""
    s, n = c.s, c.n
    seats = seats_for(n)
    for p, raw in enumerate(c.snap["players"]):
        path = f"players[{p}].workers"
        workers = core.read_list(raw["workers"], path, most=R.MAX_WORKERS)
        season = int(s["season"][p])
        # Between the season step and the recall of a prepare task the new workers are not
        # there yet (rules._run_prepare stage 2).
        preparing = any(
            s["fr_kind"][f] == R.T_PREPARE and s["fr_actor"][f] == p and s["fr_stage"][f] == 2
            for f in range(int(s["depth"]))
        )
        if preparing and season == 0:
            core.fail(f"players[{p}].season", "a prepare task past its season step needs spring+")
        expected = _workers_expected(s, n, season - 1 if preparing else season)
        if len(workers) != expected:
            core.fail(path, f"expected {expected} workers in {SEASONS[season]}, got {len(workers)}")
        s["workers"][p] = len(workers)
        for w, worker in enumerate(workers):
            s["wloc"][p, w], s["wperm"][p, w] = _read_worker(worker, f"{path}[{w}]", s, p, n, seats)


def _workers_expected(s, n: int, season: int) -> int:
    """Workers owned once ``season`` has begun (EVD-S5); solo year 3 loses one in autumn."""
    count = int(_WORKERS_BY_SEASON[season])
    if n == 1 and int(s["rug_year"]) == 3 and season == R.AUTUMN:
        count -= 1
    return count


def _read_worker(raw, path: str, s, p: int, n: int, seats: int) -> tuple[int, int]:
    """One worker as (location code, permanent flag); the spot must exist in this game."""
    if not isinstance(raw, dict) or "where" not in raw:
        core.fail(path, "expected an object with a 'where' key")
    where = _WHERE[core.read_name(raw["where"], f"{path}.where", _WHERE, "worker place")]
    worker = core.read_obj(raw, path, ("where",) + WORKER_KEYS[where] + ("permanent",))
    perm = core.read_bool(worker["permanent"], f"{path}.permanent")
    # Only placements on a Journey, a Cemetery or a Monastery are permanent (EVD-W7); a
    # permanent worker never comes back, so it is never in hand.
    permanent_ok = where == "limbo"
    if where == "free":
        code = R.W_FREE
    elif where == "limbo":  # its card left the city; back at the next recall (or never)
        code = R.W_LIMBO
    elif where == "location":
        code = _location(worker["location"], f"{path}.location", _PLACEABLE)
        kind = int(D.LOCATION_KIND[code])
        dealt = int(R.FOREST_DEALT[n])
        if kind == D.LOC_FOREST and code not in s["forest"][:dealt]:
            core.fail(f"{path}.location", f"{worker['location']!r} was not dealt to the forest")
        if perm != (kind == D.LOC_JOURNEY):
            core.fail(f"{path}.permanent", "a worker is permanent on a Journey space only (EVD-W7)")
        permanent_ok = True
    elif where == "event":
        e = _event(worker["event"], f"{path}.event")
        if int(s["event_owner"][e]) != p:
            core.fail(f"{path}.event", f"{worker['event']!r} is not achieved by player {p}")
        code = R.W_EVENT + e
    elif where == "city":
        owner = _player_ref(worker["owner"], f"{path}.owner", seats)
        k = core.read_int(worker["slot"], f"{path}.slot", 0, R.CITY_SLOTS - 1, "city slot")
        t = _card(worker["card"], f"{path}.card")
        if int(s["city"][owner, k]) != t:
            held = f"slot {k} of player {owner}'s city"
            core.fail(f"{path}.card", f"{held} does not hold {worker['card']!r}")
        code = R.W_CITY + owner * 32 + k
        # Permanent workers stay on a University or Ruins that replaced their card.
        if perm and t not in (R.CEMETERY, R.MONASTERY, R.UNIVERSITY, R.RUINS):
            core.fail(f"{path}.permanent", f"a worker on {worker['card']!r} is not permanent")
        if not perm and t in (R.CEMETERY, R.MONASTERY):
            core.fail(f"{path}.permanent", f"a worker on {worker['card']!r} stays there for good")
        if not perm and int(D.CARD_COLOR[t]) != R.DESTINATION and t != R.STOREHOUSE:
            core.fail(f"{path}.card", f"{worker['card']!r} takes no workers (EVD-W4)")
        permanent_ok = True
    else:  # Rugwort's Inn or Post Office, visited in solo games
        if n != 1:
            core.fail(f"{path}.where", f"{where!r} exists only in solo games")
        code = R.W_RUG_INN if where == "rugwort_inn" else R.W_RUG_POST
    if perm and not permanent_ok:
        core.fail(f"{path}.permanent", f"a worker that is {where!r} is not permanent")
    return code, int(perm)


# Action groups (start, stop) each decision kind asks from (rules.py, the masks before _ask).
_PLACE = (R.A_PLACE_BASIC, R.A_PLAY_HAND)
_BASIC_OR_FOREST = (R.A_PLACE_BASIC, R.A_PLACE_HAVEN)
_TURN = (R.A_PLACE_BASIC, R.A_PAY)  # EVD-T1: place, play, prepare, pass
_PAY = (R.A_PAY, R.A_RESOURCE)
_RESOURCE = (R.A_RESOURCE, R.A_CARD)
_CARD = (R.A_CARD, R.A_MEADOW)
_MEADOW = (R.A_MEADOW, R.A_CITY)
_CITY = (R.A_CITY, R.A_PLAYER)
_PLAYER = (R.A_PLAYER, R.A_REVEALED)
_REVEALED = (R.A_REVEALED, R.A_WORKER)
_WORKER = (R.A_WORKER, R.A_NUMBER)
_NUMBER = (R.A_NUMBER, R.A_DONE)
_DONE = (R.A_DONE, R.NUM_ACTIONS)
KIND_ACTIONS = {
    R.PK_TURN: (_TURN,),
    R.PK_PAY: (_PAY,),
    R.PK_REDUCE: (_RESOURCE, _DONE),
    R.PK_JUDGE_FROM: (_RESOURCE,),
    R.PK_JUDGE_TO: (_RESOURCE,),
    R.PK_JAIL: (_CITY,),
    R.PK_FOOL_TARGET: (_PLAYER,),
    R.PK_RUINS: (_CITY,),
    R.PK_GAIN: (_RESOURCE,),
    R.PK_DISCARD: (_CARD, _DONE),
    R.PK_GIVE_TO: (_PLAYER,),
    R.PK_NUMBER: (_NUMBER,),
    R.PK_PRODUCE_ORDER: (_CITY,),
    R.PK_COPY_GREEN: (_CARD, _CITY),
    R.PK_REVEALED: (_REVEALED, _DONE),
    R.PK_MEADOW: (_MEADOW, _DONE),
    R.PK_LOCATION: (_BASIC_OR_FOREST, _DONE),
    R.PK_WORKER: (_WORKER, _DONE),
    R.PK_PLACE: (_PLACE,),
    R.PK_REMOVE: (_CITY, _DONE),
    R.PK_GIVE_RESOURCE: (_RESOURCE, _DONE),
    R.PK_PILE: (_NUMBER,),
    R.PK_RUG_REMOVE: (_CARD,),
    R.PK_GIVE_CARD: (_CARD,),
    R.PK_PEDDLER_PAY: (_RESOURCE, _DONE),
    R.PK_STOREHOUSE: (_RESOURCE,),
    R.PK_HAND_OR_MEADOW: (_CARD, _MEADOW),
    R.PK_COURTHOUSE: (_RESOURCE,),
}
assert set(KIND_ACTIONS) == set(range(1, R.N_PK))


def _read_pending(c: core.ReadCall):
    """The decider, the decision kind and its legal actions; ``null`` once the game is over."""
    raw, s, n = c.snap["pending"], c.s, c.n
    depth = int(s["depth"])
    if s["terminated"] or s["truncated"]:
        if raw is not None:
            core.fail("pending", "a finished game has no pending decision; expected null")
        if s["terminated"] and depth:  # the game ends between turns (EVD-E1)
            core.fail("stack.frames", "a finished game has an empty task stack")
        return
    if raw is None:
        core.fail("pending", "a game still running needs a pending decision, got null")
    pending = core.read_obj(raw, "pending", PENDING_KEYS)
    p = core.read_int(pending["player"], "pending.player", 0, n - 1, "player")
    kind = core.read_name(pending["kind"], "pending.kind", DECISION_KINDS, "decision kind")
    if kind == R.PK_NONE:
        core.fail("pending.kind", "'none' is not a decision")
    name = DECISION_KINDS[kind]
    if kind == R.PK_TURN:
        if depth:
            core.fail("stack.frames", "a turn decision needs an empty task stack")
        if p != int(s["turn_player"]):
            core.fail("pending.player", f"the turn is player {int(s['turn_player'])}'s, not {p}'s")
        if s["passed"][p]:
            core.fail("pending.player", f"player {p} has passed and takes no more turns (EVD-E1)")
    else:
        if not depth:
            core.fail("stack.frames", f"a {name!r} decision needs a task on the stack")
        actor = int(s["fr_actor"][depth - 1])
        if p != actor:
            core.fail(
                "pending.player", f"the decider {p} must be the actor {actor} of the top task"
            )

    def in_kind(a: int, path: str):
        if not any(lo <= a < hi for lo, hi in KIND_ACTIONS[kind]):
            core.fail(path, f"action {a} is not a {name} choice")

    last = R.NUM_ACTIONS - 1
    legal = core.read_ascending(
        pending["legal"], "pending.legal", 0, last, "action", "actions", last + 1, in_kind
    )
    s["pend_mask"][legal] = 1
    if kind == R.PK_TURN:
        may_pass = int(s["season"][p]) == R.AUTUMN or bool(s["opt_pass_anytime"])  # EVD-E1
        if may_pass != (R.A_PASS in legal):
            when = "a turn choice" if may_pass else "not legal before autumn"
            core.fail("pending.legal", f"passing (action {R.A_PASS}) is {when} (EVD-E1)")
    if kind != R.PK_TURN and len(legal) < 2:
        # The kernel takes a decision with one legal action at once.
        core.fail("pending.legal", f"a {name} decision has at least 2 legal actions")
    s["current_player"] = p
    s["pend_kind"] = kind


# Bounds of the task frames' integer fields, by task kind (rules.py, the _push calls and the
# task runners): (stage, a, b, c, d, n) as inclusive (lo, hi); None where the field holds a
# name (checked when read) or is checked against the position in _check_frames. Every index a
# runner computes from a frame stays inside its array with these bounds.
_MAX_COST = int(D.CARD_COST.max()) + 1  # the Judge adds one unit of another kind
_FRAME_BOUNDS = {
    R.T_PLAY: ((0, R.N_PLAY_STAGES - 1), None, None, None, None, (0, 3)),
    R.T_CARD: ((0, 2), None, None, None, None, (0, 3)),
    R.T_LOCATION: ((0, 1), None, (0, 0), (0, 0), (0, 0), (0, 0)),
    R.T_EVENT: ((0, 1), None, (0, 0), (0, 6), (0, 0), (0, 3)),
    R.T_PREPARE: ((0, 2), (0, 0), (0, 0), (0, 0), (0, 0), (0, 2)),
    R.T_PRODUCE_ALL: ((0, 0), (0, 0), (0, 0), (0, 0), (0, 0), (0, 0)),
    R.T_DISCARD: ((0, 0), (0, R.HAND_LIMIT), (0, R.HAND_LIMIT), (0, 0), (0, 0), None),
    # count left (a Haven gain is at most 4, a Chapel ceiling one per Chapel token), kinds
    R.T_GAIN: ((0, 0), (0, _INT8_MAX), None, (0, 0), (0, 0), (0, 0)),
    R.T_GIVE_RESOURCES: ((0, 2), (0, 2), (0, 3), (1, 15), (0, 1), None),
    R.T_RANGER: ((0, 1), None, None, (0, 0), (0, 0), (0, 0)),
}
_FRAME_FIELDS = ("fr_stage", "fr_a", "fr_b", "fr_c", "fr_d", "fr_n")
_PLACED_STAGES = (R.PS_TRIGGERS, R.PS_COURTHOUSE, R.PS_EFFECT)


def _check_frames(s, n: int):
    """Every frame field the task runners read as an index or a count is in range and agrees
    with the position (a card's slot holds that card, a Ranger's worker is lifted, ...)."""
    seats = seats_for(n)
    for f in range(int(s["depth"])):
        path = f"stack.frames[{f}]"
        kind = int(s["fr_kind"][f])
        p = int(s["fr_actor"][f])
        for field, bounds in zip(_FRAME_FIELDS, _FRAME_BOUNDS[kind], strict=True):
            value = int(s[field][f])
            if bounds is not None and not bounds[0] <= value <= bounds[1]:
                key = field[3:] if field != "fr_stage" else "stage"
                core.fail(
                    f"{path}.{key}", f"{value} is outside {bounds[0]}..{bounds[1]} for this task"
                )
        a, b, c, d = (int(s[x][f]) for x in ("fr_a", "fr_b", "fr_c", "fr_d"))
        stage, count = int(s["fr_stage"][f]), int(s["fr_n"][f])
        cost = s["fr_cost"][f]
        bits = int(s["fr_bits"][f])
        if kind == R.T_GIVE_RESOURCES:
            if (cost < 0).any() or (cost > 3).any() or not 0 <= count <= b or a > b:
                core.fail(path, "a gift holds 0..3 resources, at most its maximum")
        elif (cost < 0).any() or (cost > _MAX_COST).any():
            core.fail(f"{path}.cost", f"each cost is 0..{_MAX_COST}")
        if kind == R.T_GIVE_RESOURCES:
            if not 0 <= bits <= 3 or (stage == 2 and d != 1):
                core.fail(
                    f"{path}.slots", "the resource waiting for a receiver is one of the 4 kinds"
                )
        elif kind == R.T_PRODUCE_ALL:
            for k in range(R.CITY_SLOTS):
                card = int(s["city"][p, k])
                if bits >> k & 1 and (card < 0 or D.CARD_COLOR[card] != R.PRODUCTION):
                    core.fail(f"{path}.slots", f"slot {k} holds no green card of player {p}")
        elif bits:
            core.fail(f"{path}.slots", "only a production round or a gift uses this field")
        if kind == R.T_PLAY:
            if stage in _PLACED_STAGES:
                if not 0 <= d < R.CITY_SLOTS or int(s["city"][p, d]) != a:
                    core.fail(f"{path}.d", f"the card played is not in slot {d} of its city")
            elif stage == R.PS_END:
                if not -1 <= d < R.CITY_SLOTS:
                    core.fail(f"{path}.d", f"{d} is not a city slot")
            elif not 0 <= d <= 3:
                core.fail(f"{path}.d", "before the card is placed this holds a resource (Judge)")
            if stage == R.PS_RUG_REMOVE and not (n == 1 and a == R.FOOL):
                core.fail(f"{path}.stage", "only a solo Fool removes a card of Rugwort's")
            if stage == R.PS_TARGET and n == 1 and a == R.FOOL:
                core.fail(f"{path}.stage", "a solo Fool is discarded before any question")
        elif kind == R.T_CARD:
            if not 0 <= c < seats:
                core.fail(f"{path}.owner", f"{c} is not a seat")
            if d == -1:
                if not (n == 1 and c == R.RUGWORT and int(s["rug_city"][a]) > 0):
                    core.fail(f"{path}.slot", "slot -1 names a card of Rugwort's city (solo)")
            elif not 0 <= d < R.CITY_SLOTS or int(s["city"][c, d]) != a:
                core.fail(f"{path}.slot", f"slot {d} of player {c}'s city does not hold this card")
        elif kind == R.T_GAIN:
            if b not in (7, 15):
                core.fail(
                    f"{path}.b", "resources of choice are any kind (15) or twig/resin/pebble (7)"
                )
        elif kind == R.T_DISCARD:
            if a > b or not 0 <= count <= b:
                core.fail(f"{path}.n", "a discard counts 0..its maximum, minimum at most maximum")
        elif kind == R.T_RANGER and stage == 1:
            if not 0 <= a < int(s["workers"][p]) or int(s["wloc"][p, a]) != R.W_FREE:
                core.fail(f"{path}.a", "the Ranger's worker must be one of the actor's, lifted")
            if not _worker_code_ok(s, n, p, b) or b == R.W_FREE:
                core.fail(f"{path}.b", f"{b} is not a spot the worker could have left")
        elif kind == R.T_RANGER and (a or b):
            core.fail(path, "a Ranger's move has no worker before one is picked")


def _worker_code_ok(s, n: int, p: int, code: int) -> bool:
    """``code`` is a spot a worker of p can stand on in this position (rules.W_*)."""
    if 0 <= code < D.N_LOCATIONS:
        kind = int(D.LOCATION_KIND[code])
        if kind == D.LOC_FOREST:
            return code in s["forest"][: int(R.FOREST_DEALT[n])]
        return kind in _PLACEABLE
    if R.W_EVENT <= code < R.W_EVENT + D.N_EVENTS:
        return int(s["event_owner"][code - R.W_EVENT]) == p
    if R.W_CITY <= code < R.W_CITY + seats_for(n) * 32:
        owner, slot = divmod(code - R.W_CITY, 32)
        return slot < R.CITY_SLOTS and int(s["city"][owner, slot]) >= 0
    if code in (R.W_RUG_INN, R.W_RUG_POST):
        return n == 1
    return code in (R.W_FREE, R.W_LIMBO)


def _check_pending(states, n: int):
    """The pending decision must be the one the rules give in this position: the kernel asks
    it again on a copy (rules.rederive_pending), which must change nothing, so a snapshot can
    neither add nor drop legal choices, nor stop where the engine never stops."""
    s = states[0]
    if s["terminated"] or s["truncated"]:
        return
    copy = states.copy()
    asked = R.rederive_pending(copy, 0)
    if not asked:
        core.fail("stack.frames", "the top task does not stop with a decision in this position")
    if copy.tobytes() == states.tobytes():
        return
    mine, theirs = s["pend_mask"], copy[0]["pend_mask"]
    if int(copy[0]["pend_kind"]) != int(s["pend_kind"]):
        name = _name(DECISION_KINDS, copy[0]["pend_kind"], "decision kind")
        core.fail("pending.kind", f"the rules ask a {name!r} decision here")
    if int(copy[0]["current_player"]) != int(s["current_player"]):
        core.fail("pending.player", f"player {int(copy[0]['current_player'])} decides here")
    if (mine != theirs).any():
        extra = [int(a) for a in np.flatnonzero((mine == 1) & (theirs == 0))][:8]
        missing = [int(a) for a in np.flatnonzero((theirs == 1) & (mine == 0))][:8]
        core.fail("pending.legal", f"is not the rules' list: extra {extra}, missing {missing}")
    changed = [k for k in R.STATE_DTYPE.names if not np.array_equal(copy[0][k], s[k])][:4]
    core.fail(
        "stack.frames", f"not a point where the engine stops (asking again changes {changed})"
    )


def card_piles(s, seats: int) -> tuple:
    """The card arrays of a record (-1 where a place is empty): deck, discard pile, Meadow, the
    cities and jails of the first ``seats`` seats, and the revealed cards."""
    return (
        s["deck"][: int(s["deck_n"])],
        s["discard"][: int(s["discard_n"])],
        s["meadow"],
        s["city"][:seats].ravel(),
        s["city_jail"][:seats].ravel(),
        s["revealed"][: int(s["revealed_n"])],
    )


def _check_cards(s, n: int):
    """EVD-S4: the 128 cards are all somewhere, each in one place; a card being paid for sits
    only in its play task."""
    counts = np.zeros(R.NT, np.int64)
    for pile in card_piles(s, n):
        cards = pile[pile >= 0].astype(np.int64)
        counts += np.bincount(cards, minlength=R.NT)
    counts += s["hand"][:n].astype(np.int64).sum(axis=0)
    counts += s["rug_city"].astype(np.int64)
    for f in range(int(s["depth"])):
        if _play_holds_card(s, f):
            counts[int(s["fr_a"][f])] += 1
    total = int(counts.sum()) + int(s["tucked"])
    if total != R.DECK_SIZE:
        raise SnapshotError(
            f"cards: {total} cards in deck, discard, Meadow, hands, cities, jails, Rugwort's "
            f"city, revealed, tucked and cards being played; expected {R.DECK_SIZE} (EVD-S4)"
        )
    for t in range(R.NT):
        if counts[t] > D.CARD_COPIES[t]:
            raise SnapshotError(
                f"cards: {int(counts[t])} copies of {CARD_KEYS[t]!r}, the deck has "
                f"{int(D.CARD_COPIES[t])} (EVD-S4)"
            )


def _check_end(s, n: int):
    """Scores are written when the game ends (EVD-E2); the winner follows EVD-E3."""
    over = bool(s["terminated"] or s["truncated"])
    if not over:
        if s["score"].any():
            core.fail("players", "scores stay 0 until the game is over")
        if s["winner"] >= 0:
            core.fail("winner", "only a finished game has a winner")
        return
    if s["terminated"] and not s["passed"][:n].all():
        core.fail("terminated", "the game ends once every player has passed (EVD-E1)")
    for p in range(seats_for(n)):  # written by the engine at the end (EVD-E2): recomputed here
        expected = int(R.score_of(s, p))
        if int(s["score"][p]) != expected:
            who = "rugwort.score" if n == 1 and p == R.RUGWORT else f"players[{p}].score"
            core.fail(
                who, f"is {int(s['score'][p])}, the city and tokens score {expected} (EVD-E2)"
            )
    if s["truncated"]:
        expected = -1
    elif n == 1:
        you, rug = int(s["score"][0]), int(s["score"][R.RUGWORT])
        expected = 0 if you > rug else (R.RUGWORT if rug > you else -1)
    else:
        keys = [
            (
                int(s["score"][p]),
                int((s["event_owner"] == p).sum()),
                int(s["resources"][p].sum()),
            )
            for p in range(n)
        ]
        best = max(keys)
        expected = keys.index(best) if keys.count(best) == 1 else -1
    if int(s["winner"]) != expected:
        want = "null" if expected < 0 else str(expected)
        core.fail("winner", f"expected {want} from the scores (EVD-E3), got {int(s['winner'])}")


# ---- the field table -------------------------------------------------------------------------


def _last_seat_or_rugwort(c) -> int:
    return seats_for(c.n) - 1


PLAYER = (
    core.Custom("hand", lambda c, p: _card_counts(c.s["hand"][p]), _read_hand),
    core.Custom("hand_size", lambda c, p: int(c.s["hand_n"][p]), _read_hand_size),
    core.Custom("city", _city_list, lambda value, path, c, p: _read_city(value, path, c.s, p)),
    core.Custom(
        "resources",
        lambda c, p: core.counts_dict(c.s["resources"][p], RESOURCES),
        _read_resources,
    ),
    core.Int("tokens", hi=R.COUNT_MAX, what="point tokens"),
    core.Name("season", names=SEASONS, strict=True),
    core.Custom("workers", _workers_list),  # read once the task stack is known (_read_workers)
    core.Bool("passed"),
    core.Int("score", lo=_INT32_MIN, hi=_INT32_MAX, what="score"),
)
PLAYER_KEYS = tuple(entry.key for entry in PLAYER)
TABLE = (
    core.Int("num_players", lo=1, hi=R.MAXP, what="num_players"),
    core.Obj(
        "options",
        (
            core.Int("rug_year", lo=1, hi=3, what="Rugwort's year"),
            core.Bool("fool_bonuses", "opt_fool_bonuses"),
            core.Bool("pass_anytime", "opt_pass_anytime"),
        ),
    ),
    core.Int("first_player", hi=core.last_seat, what="player"),
    core.Int("turn_player", hi=core.last_seat, what="player"),
    # Every turn opens with a step (its turn action), so there are never more turns than steps.
    core.Int("turn_count", hi=R.STEP_CAP),
    core.Int("step_count", hi=R.STEP_CAP, what="step count"),
    core.Int("plays_this_turn", hi=R.PLAYS_MAX),
    core.Bool("terminated"),
    core.Bool("truncated"),
    core.Int("winner", hi=_last_seat_or_rugwort, what="seat", null=-1),
    core.Custom("players", lambda c: [core.write_table(PLAYER, c, (p,)) for p in range(c.n)]),
    core.Custom("rugwort", lambda c: _rugwort_dict(c.s)),
    core.Custom("deck", lambda c: _cards(c, "deck", "deck card", top_first=True)),
    core.Custom("discard", lambda c: _cards(c, "discard", "discarded card")),
    core.Custom(
        "meadow",
        lambda c: [None if x < 0 else _name(CARD_KEYS, x, "Meadow card") for x in c.s["meadow"]],
    ),
    core.Custom("forest", lambda c: [D.LOCATION_KEYS[loc] for loc in c.s["forest"] if loc >= 0]),
    core.Custom(
        "events",
        _events_dict,
    ),
    core.Custom("revealed", lambda c: _cards(c, "revealed", "revealed card")),
    core.Int("tucked", hi=R.DECK_SIZE, what="tucked cards"),
    core.Custom("stack", _stack_dict),
    core.Custom("pending", _pending_dict),
    core.Custom("leftovers", lambda c: {"frames": _raw_frames(c.s, int(c.s["depth"]))}),
    core.RNG,
)

# What from_dict does, in turn: table keys read by their entry, and the game's steps.
READ = (
    "num_players",
    lambda c: c.s.__setitem__("seats", seats_for(c.n)),
    "options",
    "rng",
    "first_player",
    "turn_player",
    "turn_count",
    "step_count",
    "plays_this_turn",
    "terminated",
    "truncated",
    lambda c: core.check_stop(c, R.STEP_CAP, both="truncated"),
    "winner",
    _read_board,
    "tucked",
    _read_players,
    _read_rugwort,
    _read_stack,
    _read_workers,
    _read_pending,
    lambda c: _check_cards(c.s, c.n),
    lambda c: _check_end(c.s, c.n),
    lambda c: _check_frames(c.s, c.n),
    lambda c: _check_pending(c.states, c.n),
)
# The values init_game gives the fields a snapshot fills only in part.
BLANK = (
    *("deck", "discard", "meadow", "city", "city_jail", "wloc", "forest"),
    *("revealed", "event_owner", "winner", "current_player", "answer"),
    *("rug_forest", "rug_basic", "rug_journey"),
)
CODEC = core.Codec(GAME_NAME, SNAPSHOT_VERSION, R.STATE_DTYPE, TABLE, READ, BLANK, _writable)
TOP_KEYS = CODEC.keys
to_dict, from_dict = CODEC.to_dict, CODEC.from_dict


# ---- action names ----------------------------------------------------------------------------


def _card_name(t) -> str:
    t = int(t)
    return D.CARD_NAMES[t] if 0 <= t < R.NT else "(no card)"


def _location_name(loc) -> str:
    loc = int(loc)
    return D.LOCATION_NAMES[loc] if 0 <= loc < D.N_LOCATIONS else "(no location)"


def _event_name(e) -> str:
    e = int(e)
    return D.EVENT_NAMES[e] if 0 <= e < D.N_EVENTS else "(no event)"


def _whose(s, p: int, rel: int) -> str:
    """``"own city"`` or ``"player 2's city"`` for the city ``rel`` seats after ``p``."""
    if rel == 0:
        return "own city"
    owner = (p + rel) % int(s["seats"])
    if _solo(s) and owner == R.RUGWORT:
        return "Rugwort's city"
    return f"player {owner}'s city"


_WORKER_SPOTS = {
    R.W_FREE: "in hand",
    R.W_LIMBO: "off its card",
    R.W_RUG_INN: "on Rugwort's Inn",
    R.W_RUG_POST: "on Rugwort's Post Office",
}


def _worker_text(s, p: int, w: int) -> str:
    code = int(s["wloc"][p, w])
    if code in _WORKER_SPOTS:
        return _WORKER_SPOTS[code]
    if 0 <= code < D.N_LOCATIONS:
        return f"on {_location_name(code)}"
    if R.W_EVENT <= code < R.W_EVENT + D.N_EVENTS:
        return f"on {_event_name(code - R.W_EVENT)}"
    owner, slot = divmod(code - R.W_CITY, 32)
    if 0 <= owner < R.MAXP and slot < R.CITY_SLOTS:
        return f"on {_card_name(s['city'][owner, slot])} (player {owner}, slot {slot})"
    return f"at code {code}"


def _top(s) -> tuple[int, int, int, int]:
    """The top frame's task kind, card/location/event (fr_a), stage and origin (fr_b)."""
    depth = int(s["depth"])
    if depth == 0:
        return 0, -1, 0, 0
    f = depth - 1
    return int(s["fr_kind"][f]), int(s["fr_a"][f]), int(s["fr_stage"][f]), int(s["fr_b"][f])


def _place_text(s, p: int, a: int, kind: int) -> str:
    verb = "move the worker to" if kind == R.PK_PLACE else "place worker on"
    if a < R.A_PLACE_FOREST:
        where = _location_name(R.BASIC_LOCS[a - R.A_PLACE_BASIC])
    elif a < R.A_PLACE_HAVEN:
        j = a - R.A_PLACE_FOREST
        where = f"{_location_name(s['forest'][j])} (forest {j})"
    elif a == R.A_PLACE_HAVEN:
        where = _location_name(R.HAVEN)
    elif a < R.A_PLACE_EVENT:
        where = _location_name(R.JOURNEY_LOCS[a - R.A_PLACE_JOURNEY])
    elif a < R.A_PLACE_CITY:
        j = a - R.A_PLACE_EVENT
        e = j if j < R.N_BASIC_EVENTS else int(s["specials"][j - R.N_BASIC_EVENTS])
        return f"claim {_event_name(e)}" + (" (worker moves there)" if kind == R.PK_PLACE else "")
    elif a < R.A_PLACE_RUGWORT:
        rel, slot = divmod(a - R.A_PLACE_CITY, R.CITY_SLOTS)
        owner = (p + rel) % int(s["seats"])
        card = _card_name(s["city"][owner, slot])
        where = f"{card} (slot {slot}) in {_whose(s, p, rel)}"
    else:
        where = "Rugwort's Inn" if a == R.A_PLACE_RUGWORT else "Rugwort's Post Office"
    return f"{verb} {where}"


def _location_choice_text(s, a: int) -> str:
    """PK_LOCATION: Lookout / the copy-basic forest card copy, the Clock Tower activates."""
    kind, _, _, _ = _top(s)
    verb = "Clock Tower: activate" if kind == R.T_PREPARE else "copy"
    if a < R.A_PLACE_FOREST:
        return f"{verb} {_location_name(R.BASIC_LOCS[a - R.A_PLACE_BASIC])}"
    j = a - R.A_PLACE_FOREST
    return f"{verb} {_location_name(s['forest'][j])} (forest {j})"


_STOREHOUSE_AMOUNT = (3, 2, 1, 2)  # twig, resin, pebble, berry (rules._produce)


# Action texts that depend on the decision kind alone; {} is the resource or the card.
_RESOURCE_TEXT = {
    R.PK_REDUCE: "take off 1 {}",
    R.PK_JUDGE_FROM: "Judge: pay 1 {} less",
    R.PK_JUDGE_TO: "Judge: pay 1 {} instead",
    R.PK_GAIN: "gain 1 {}",
    R.PK_COURTHOUSE: "gain 1 {}",
    R.PK_PEDDLER_PAY: "Peddler: pay 1 {}",
}
_CARD_TEXT = {
    R.PK_GIVE_CARD: "give {}",
    R.PK_RUG_REMOVE: "remove {} from Rugwort's city",
    R.PK_HAND_OR_MEADOW: "play {} from hand for free",
    R.PK_COPY_GREEN: "copy {} in Rugwort's city",
}


def _resource_text(s, kind: int, r: int) -> str:
    res = RESOURCES[r]
    if kind in _RESOURCE_TEXT:
        return _RESOURCE_TEXT[kind].format(res)
    if kind == R.PK_STOREHOUSE:
        return f"put {_STOREHOUSE_AMOUNT[r]} {res} on the Storehouse"
    if kind == R.PK_GIVE_RESOURCE:
        task, e, _, _ = _top(s)
        if task == R.T_EVENT:
            return f"put 1 {res} on {_event_name(e)}"
        return f"give 1 {res}"
    return f"resource {res}"


def _card_text(s, kind: int, t: int) -> str:
    name = _card_name(t)
    if kind == R.PK_DISCARD:
        task, e, _, _ = _top(s)
        if task == R.T_EVENT:
            return f"tuck {name} under {_event_name(e)}"
        return f"discard {name}"
    if kind in _CARD_TEXT:
        return _CARD_TEXT[kind].format(name)
    return f"card {name}"


def _meadow_text(s, kind: int, i: int) -> str:
    name = f"{_card_name(s['meadow'][i])} (Meadow {i})"
    if kind == R.PK_HAND_OR_MEADOW:
        return f"play {name} for free"
    task, t, stage, mode = _top(s)
    if kind == R.PK_MEADOW and task == R.T_CARD:
        if t == R.INN and mode == 1:
            return f"play {name} with the Inn (3 off)"
        if t == R.UNDERTAKER and stage == 0:
            return f"discard {name}"
    return f"take {name}"


def _city_text(s, p: int, kind: int, j: int) -> str:
    rel, slot = divmod(j, R.CITY_SLOTS)
    owner = (p + rel) % int(s["seats"])
    card = f"{_card_name(s['city'][owner, slot])} (slot {slot})"
    if kind == R.PK_COPY_GREEN:
        return f"copy {card} in {_whose(s, p, rel)}"
    if rel:
        return f"{card} in {_whose(s, p, rel)}"
    if kind == R.PK_JAIL:
        return f"put {card} in the Dungeon"
    if kind == R.PK_RUINS:
        return f"replace {card} with Ruins"
    if kind == R.PK_PRODUCE_ORDER:
        return f"fire {card}"
    if kind == R.PK_REMOVE:
        task, e, _, _ = _top(s)
        if task == R.T_EVENT and e == R.EV_ACORN:
            return f"tuck {card} under {_event_name(e)}"
        if task == R.T_EVENT:
            return f"discard {card}"
        return f"remove {card}"
    return card


def _revealed_text(s, i: int) -> str:
    card = f"{_card_name(s['revealed'][i])} (revealed {i})"
    task, a, _, _ = _top(s)
    if task == R.T_CARD and a in (R.POSTAL_PIGEON, R.CEMETERY):
        return f"play {card} for free"
    if task == R.T_LOCATION and a == R.F_MEADOW_PICK:
        return f"play {card} for 1 less"
    return f"keep {card}"


def _number_text(s, kind: int, k: int) -> str:
    if kind == R.PK_PILE:
        return "reveal from the deck" if k == 0 else "reveal from the discard pile"
    task, a, _, _ = _top(s)
    if task == R.T_CARD and a in (R.DOCTOR, R.WOODCARVER):
        res = "berry" if a == R.DOCTOR else "twig"
        return f"{_card_name(a)}: pay {k} {res} for {k} point(s)"
    if task == R.T_EVENT and a in (R.EV_FIREWORKS, R.EV_PERFORMER):
        res = "twig" if a == R.EV_FIREWORKS else "berry"
        return f"put {k} {res} on {_event_name(a)}"
    return f"choose {k}"


def action_to_string(states: np.ndarray, g: int, action) -> str:
    """Describe ``action`` in the context of game ``g``'s pending decision, e.g.
    ``"place worker on 3 Twigs"``, ``"fire Farm (slot 3)"`` or ``"give to player 2 (seat
    +1)"``. Seats are seen from the decider."""
    a = core.action_index(action, R.NUM_ACTIONS)
    s = states[g]
    kind = int(s["pend_kind"])
    p = max(int(s["current_player"]), 0)
    if a < R.A_PLAY_HAND:
        if kind == R.PK_LOCATION and a < R.A_PLACE_HAVEN:
            return _location_choice_text(s, a)
        return _place_text(s, p, a, kind)
    if a < R.A_PLAY_MEADOW:
        return f"play {_card_name(a - R.A_PLAY_HAND)} from hand"
    if a < R.A_PREPARE:
        i = a - R.A_PLAY_MEADOW
        return f"play {_card_name(s['meadow'][i])} from the Meadow (position {i})"
    if a == R.A_PREPARE:
        season = int(s["season"][p])
        nxt = SEASONS[season + 1] if season + 1 < len(SEASONS) else "(none)"
        return f"prepare for {nxt}"
    if a == R.A_PASS:
        return "pass"
    if a < R.A_RESOURCE:
        method = a - R.A_PAY
        if method == R.PAY_NORMAL:
            return "pay the cost in resources"
        return f"pay with {R.PAY_NAMES[method]}"
    if a < R.A_CARD:
        return _resource_text(s, kind, a - R.A_RESOURCE)
    if a < R.A_MEADOW:
        return _card_text(s, kind, a - R.A_CARD)
    if a < R.A_CITY:
        return _meadow_text(s, kind, a - R.A_MEADOW)
    if a < R.A_PLAYER:
        return _city_text(s, p, kind, a - R.A_CITY)
    if a < R.A_REVEALED:
        rel = a - R.A_PLAYER
        q = (p + rel) % int(s["seats"])
        if kind == R.PK_FOOL_TARGET:
            return f"play the Fool into player {q}'s city (seat +{rel})"
        return f"give to player {q} (seat +{rel})"
    if a < R.A_WORKER:
        return _revealed_text(s, a - R.A_REVEALED)
    if a < R.A_NUMBER:
        w = a - R.A_WORKER
        verb = "move" if _top(s)[0] == R.T_RANGER else "take back"
        return f"{verb} worker {w} ({_worker_text(s, p, w)})"
    if a < R.A_DONE:
        return _number_text(s, kind, a - R.A_NUMBER)
    return "done"


# ---- text board ------------------------------------------------------------------------------


def _res_text(row) -> str:
    return " ".join(f"{int(row[r])} {RESOURCES[r]}" for r in range(4))


def _counts_text(row) -> str:
    parts = []
    for t in np.flatnonzero(row):
        count = int(row[t])
        parts.append(D.CARD_NAMES[t] + (f" x{count}" if count > 1 else ""))
    return ", ".join(parts) or "-"


def _slot_text(s, p: int, k: int) -> str:
    text = f"{k}:{_card_name(s['city'][p, k])}"
    extras = []
    if s["city_occupied"][p, k]:
        extras.append("occupied")
    if s["city_tokens"][p, k]:
        extras.append(f"{int(s['city_tokens'][p, k])} tokens")
    if s["city_store"][p, k].any():
        extras.append(_res_text(s["city_store"][p, k]))
    jail = [_card_name(c) for c in s["city_jail"][p, k] if c >= 0]
    if jail:
        extras.append("jail " + "+".join(jail))
    return text + (f" [{', '.join(extras)}]" if extras else "")


def _frame_text(s, f: int) -> str:
    kind = int(s["fr_kind"][f])
    a = int(s["fr_a"][f])
    name = TASKS.get(kind, f"task {kind}")
    if kind in (R.T_PLAY, R.T_CARD):
        name += f" {_card_name(a)}"
    elif kind == R.T_LOCATION:
        name += f" {_location_name(a)}"
    elif kind == R.T_EVENT:
        name += f" {_event_name(a)}"
    return f"{name} (player {int(s['fr_actor'][f])}, stage {int(s['fr_stage'][f])})"


def current_scores(states: np.ndarray, g: int) -> list[int]:
    """Each seat's points if the game ended now (``rules.score_of``; Rugwort's in solo seat 1):
    every part of it is public (cities, tokens, events, Journey workers, resources)."""
    record = states[g : g + 1].copy().view(np.recarray)[0]  # kernels want attribute access
    return [int(R.score_of(record, p)) for p in range(seats_for(int(record["num_players"])))]


def render(states: np.ndarray, g: int) -> str:
    """A compact multi-line board of game ``g`` (everything, hidden cards included)."""
    s = states[g]
    n = int(s["num_players"])
    lines = [
        f"Everdell - {n} player(s), turn {int(s['turn_count'])}, step {int(s['step_count'])}, "
        f"first player {int(s['first_player'])}"
    ]
    if s["terminated"]:
        winner = int(s["winner"])
        who = f"player {winner} wins"
        if winner < 0:
            who = "a draw"
        elif n == 1 and winner == R.RUGWORT:
            who = "Rugwort wins"
        lines.append(f"Game over: {who}")
    elif s["truncated"]:
        lines.append(f"Game cut off at the step cap of {R.STEP_CAP} (truncated)")
    else:
        kind = DECISION_KINDS[int(s["pend_kind"])]
        legal = int(s["pend_mask"].sum())
        lines.append(
            f"To decide: player {int(s['current_player'])} ({kind}, {legal} legal action(s))"
        )
    # Forest names begin with "Forest: " already: a row heading would say it twice.
    lines.append(" | ".join(_location_name(x) for x in s["forest"] if x >= 0))
    events = []
    for e in list(D.BASIC_EVENTS) + [int(x) for x in s["specials"]]:
        owner = int(s["event_owner"][e])
        mark = (
            ""
            if owner < 0
            else f" (player {owner}"
            + (f", {int(s['event_store'][e])} pts)" if s["event_store"][e] else ")")
        )
        events.append(_event_name(e) + mark)
    lines.append("Events: " + ", ".join(events))
    meadow = [f"{i}:{_card_name(c)}" if c >= 0 else f"{i}:-" for i, c in enumerate(s["meadow"])]
    lines.append("Meadow: " + " ".join(meadow))
    revealed = ", ".join(_card_name(c) for c in s["revealed"][: int(s["revealed_n"])]) or "-"
    lines.append(
        f"Deck {int(s['deck_n'])}, discard {int(s['discard_n'])}, tucked {int(s['tucked'])}, "
        f"revealed: {revealed}"
    )
    scored = bool(s["terminated"] or s["truncated"])
    points = current_scores(states, g)
    for p in range(n):
        mark = ">" if p == int(s["current_player"]) else " "
        tags = [SEASONS[int(s["season"][p])]]
        if s["passed"][p]:
            tags.append("passed")
        tags.append(f"score {int(s['score'][p])}" if scored else f"{points[p]} points so far")
        lines.append(
            f"{mark} player {p} ({', '.join(tags)}): {_res_text(s['resources'][p])}, "
            f"{int(s['tokens'][p])} tokens"
        )
        lines.append(f"    hand ({int(s['hand_n'][p])}): {_counts_text(s['hand'][p])}")
        workers = [_worker_text(s, p, w) for w in range(int(s["workers"][p]))]
        lines.append(f"    workers: {'; '.join(workers) or '-'}")
        city = [_slot_text(s, p, k) for k in range(R.CITY_SLOTS) if s["city"][p, k] >= 0]
        used = _spaces_used(s["city"][p])
        lines.append(f"    city ({used}/{R.CITY_LIMIT}): {', '.join(city) or '-'}")
    if n == 1:
        blocked = [i for i in range(R.MEADOW) if (int(s["rug_meadow"]) >> i) & 1]
        spots = []
        if s["rug_basic"] >= 0:
            spots.append(_location_name(s["rug_basic"]))
        if s["rug_forest"] >= 0:
            spots.append(_location_name(s["forest"][int(s["rug_forest"])]))
        if s["rug_journey"] >= 0:
            spots.append(_location_name(s["rug_journey"]))
        score = (
            f", score {int(s['score'][R.RUGWORT])}" if scored else f", {points[1]} points so far"
        )
        lines.append(
            f"  Rugwort (year {int(s['rug_year'])}{score}): {int(s['tokens'][R.RUGWORT])} "
            f"tokens, city: {_counts_text(s['rug_city'])}"
        )
        lines.append(f"    blocks: {', '.join(spots) or '-'}; Meadow positions {blocked or '-'}")
    if int(s["depth"]):
        frames = [_frame_text(s, f) for f in range(int(s["depth"]))]
        lines.append("Tasks: " + " > ".join(frames))
    return "\n".join(lines)


__all__ = ["action_to_string", "current_scores", "from_dict", "render", "to_dict"]
