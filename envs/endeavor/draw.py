"""Endeavor pictures: the whole public state of one game as SVG.

``draw(states, g, viewer)`` lays out, top to bottom: a header (round, phase, whose decision,
the role being executed, game over and winners) with the colour legends; the 7 regions with
their face-up city slots, markers, upgrades, ships and deck sizes; the empire and building
markets; one area per player (current score, tokens, goods, ships, this round's role, role
hand / set-aside / deck, board cards, empire hand).

Hidden information follows ``endeavor.determinize`` and the observation (encoders/endeavor.py):
every deck shows only its size; another player's empire hand and role hand are face down with
their sizes; while anyone is planning, another player's role pick and tokens are face down
(only "chosen" shows). ``viewer=None`` is the public view; ``viewer=k`` adds seat k's own hands
and choices face up.
"""

from __future__ import annotations

import numpy as np

from meeple_gym.core.svg import FACE_DOWN, HIGHLIGHT, INK, MUTED, Canvas
from meeple_gym.endeavor import data as D
from meeple_gym.endeavor import rules as R

WIDTH = 1300
MARGIN = 10
GOOD_FILL = ("#4f9a45", "#6f4e37", "#e0a526", "#a33b2b", "#ececec")  # tea coffee spice cocoa sugar
GOOD_LABEL = ("T", "Cf", "Sp", "Co", "Su")  # coffee and cocoa share a first letter
SEAT_FILL = ("#c53030", "#2b6cb0", "#2f855a", "#b7791f")
ROLE_FILL = ("#2c7fb8", "#d4a017", "#8c6d46", "#b22222", "#7b4fa0", "#2e8b57")  # D.ROLES order
SLOT_W, SLOT_H = 118, 78
BOARD_W, BOARD_H = 108, 70
PLANNING = (R.PH_PLAN_ROLE, R.PH_PLAN_TOKENS)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" + ("" if count == 1 else "s")


def _ability_text(ab: int, arg: int) -> str:
    if ab == D.ABILITY_ROLE_BONUS:
        return f"+1 {D.ROLES[arg].capitalize()}"
    if ab == D.ABILITY_TRAVEL_DISCOUNT:
        return "travel -1"
    if ab == D.ABILITY_EXTRA_GOOD:
        return f"+1 {D.GOODS[arg]} (Merchant)"
    if ab == D.ABILITY_DEFENCE:
        return "defence +1"
    if ab == D.ABILITY_EXTRA_TOKENS:
        return f"+{arg} tokens"
    if ab == D.ABILITY_REGION_POINTS:
        return f"+1 per {D.REGION_NAMES[arg]} city"
    return ""


def _condition_text(e: int) -> str:
    cond, count = int(D.EMPIRE_CONDITION[e]), int(D.EMPIRE_CONDITION_COUNT[e])
    region = int(D.EMPIRE_CONDITION_REGION[e])
    if cond == D.COND_CITIES_IN_REGION:
        return f"needs {_plural(count, 'city')} in {D.REGION_NAMES[region]}".replace(
            "citys", "cities"
        )
    if cond == D.COND_SHIPS_IN_REGION:
        return f"needs {_plural(count, 'ship')} in {D.REGION_NAMES[region]}"
    if cond == D.COND_CITIES_TOTAL:
        return f"needs {count} cities".replace("1 cities", "1 city")
    return f"needs {count} goods"


def _score_now(states, g: int) -> list[int]:
    """``rules.score_of`` for each player (END-E2): all of it is public."""
    record = states[g : g + 1].copy().view(np.recarray)[0]  # kernels want attribute access
    return [int(R.score_of(record, p)) for p in range(int(record["num_players"]))]


def _role_hidden(s, q: int, viewer: int) -> bool:
    """END-O1: a pick made this planning stays secret from the others until execution."""
    return int(s["phase"]) in PLANNING and q != viewer


def _chip(c: Canvas, x, y, role: int, w=78, label=None) -> float:
    """A role as a coloured chip; role -1 draws a face-down chip."""
    fill = FACE_DOWN if role < 0 else ROLE_FILL[role]
    c.rect(x, y, w, 20, fill=fill, stroke=INK, rx=10)
    text = label if label is not None else D.ROLES[role].capitalize()
    c.text(x + w / 2, y + 14, text, size=10, fill="#ffffff", anchor="middle", bold=role >= 0)
    return x + w + 4


# ---- header ----------------------------------------------------------------------------------
def _status(s) -> str:
    n = int(s["num_players"])
    if s["terminated"]:
        winners = [p for p in range(n) if (int(s["winners"]) >> p) & 1]
        final = ", ".join(f"player {p} {int(s['score'][p])}" for p in range(n))
        who = " and ".join(f"player {p}" for p in winners)
        verb = "wins" if len(winners) == 1 else "share the win"
        return f"GAME OVER: {who} {verb} ({final})"
    if s["truncated"]:
        return f"Game cut off at the step cap of {R.STEP_CAP} (truncated)"
    p = int(s["current_player"])
    phase = int(s["phase"])
    if phase == R.PH_ROLE:
        role = D.ROLES[int(s["role"][p])].capitalize()
        sub = ("", ", home port good", ", Governor pays", ", Governor moves a marker")[
            int(s["sub"])
        ]
        return f"To decide: player {p} — executing {role}{sub}, strength {int(s['strength'])} left"
    what = {
        R.PH_START_CITY: "claim a starting city",
        R.PH_EMPIRE_RETURN: "return an empire card",
        R.PH_PLAN_ROLE: "plan: choose a role (secret)",
        R.PH_PLAN_TOKENS: "plan: put tokens on the role (secret)",
    }[phase]
    return f"To decide: player {p} — {what}"


def _order_text(s) -> str:
    n = int(s["num_players"])
    if int(s["phase"]) == R.PH_ROLE:
        done = int(s["exec_index"])
        parts = []
        for i, q in enumerate(s["exec_order"][:n].tolist()):
            mark = "done" if i < done else ("now" if i == done else "next")
            parts.append(f"P{q} {D.ROLES[int(s['role'][q])].capitalize()} ({mark})")
        return "Execution order: " + ", ".join(parts)
    return "Planning order: " + ", ".join(f"P{q}" for q in s["order"][:n].tolist())


def _header(c: Canvas, s) -> float:
    n = int(s["num_players"])
    c.text(
        MARGIN,
        24,
        f"Endeavor — {n} players · round {int(s['round'])}/{R.ROUND_LIMIT} · "
        f"step {int(s['step_count'])} · first player {int(s['first_player'])}",
        size=18,
        bold=True,
    )
    c.text(MARGIN, 46, _status(s), size=13, fill=HIGHLIGHT, bold=True)
    if not (s["terminated"] or s["truncated"]) and int(s["phase"]) != R.PH_START_CITY:
        c.text(MARGIN, 62, _order_text(s), size=11)
    x, y = 760, 16
    for i, name in enumerate(D.GOODS):
        c.token(x + 8 + i * 76, y, 8, GOOD_FILL[i], label=GOOD_LABEL[i])
        c.text(x + 20 + i * 76, y + 4, name, size=10)
    for i in range(D.N_ROLES):
        _chip(c, x + (i % 6) * 86, y + 12, i, w=82)
    c.text(x, y + 48, "players:", size=10)
    for q in range(4):
        c.token(x + 58 + q * 66, y + 44, 7, SEAT_FILL[q], label=str(q))
        c.text(x + 68 + q * 66, y + 48, f"player {q}", size=9)
    return 72


# ---- regions ---------------------------------------------------------------------------------
def _city_card(c: Canvas, s, x, y, k: int, is_open: bool):
    city = int(s["slot_city"][k])
    if city < 0:
        if is_open:  # a closed region says why it is empty across its slots instead
            c.rect(x, y, SLOT_W, SLOT_H, stroke=MUTED, rx=4, dash="4,3")
            c.text(x + SLOT_W / 2, y + SLOT_H / 2, "empty", size=9, fill=MUTED, anchor="middle")
        return
    owner = int(s["slot_owner"][k])
    lines = [
        f"settle {_plural(int(D.CITY_SETTLE_COST[city]), 'good')}",
        f"build {int(D.CITY_BUILD_COST[city])} work",
        _ability_text(int(D.CITY_ABILITY[city]), int(D.CITY_ABILITY_ARG[city])),
    ]
    governed = int(s["phase"]) == R.PH_ROLE and int(s["gov_slot"]) == k
    _table_card(
        c,
        (x, y, SLOT_W, SLOT_H),
        D.CITY_NAMES[city],
        D.CITY_POINTS[city],
        lines,
        "#e2dccd",
        governed,
    )
    good = int(D.CITY_GOOD[city])
    c.token(x + SLOT_W - 10, y + 8, 7, GOOD_FILL[good], label=GOOD_LABEL[good])
    if owner >= 0:
        label = "U" if s["slot_upgraded"][k] else str(owner)
        c.token(x + 12, y + SLOT_H - 11, 9, SEAT_FILL[owner], label=label)
        c.text(
            x + 24,
            y + SLOT_H - 7,
            f"P{owner}" + (" upgraded" if label == "U" else ""),
            size=8,
            fill=INK,
        )
    if int(s["phase"]) == R.PH_ROLE and (int(s["city_used"]) >> k) & 1:
        c.text(x + SLOT_W - 24, y + SLOT_H - 24, "used", size=8, fill=HIGHLIGHT, anchor="end")


def _region(c: Canvas, s, x, y, r: int) -> float:
    slots = int(D.REGION_SLOTS[r])
    w = 16 + slots * (SLOT_W + 6) - 6
    w = max(w, 232)
    is_open = bool(s["region_open"][r])
    heading = f"{D.REGION_NAMES[r]} · travel {int(D.REGION_TRAVEL[r])}"
    c.label_box(x, y, w, 134, heading, fill="#ffffff" if is_open else "#e9e5dc")
    state = f"deck {int(s['region_deck_n'][r])}" if is_open else "closed"
    c.text(x + w - 8, y + 17, state, size=10, fill=MUTED, anchor="end")
    first = int(R.FIRST_SLOT[r])
    for i in range(slots):
        _city_card(c, s, x + 8 + i * (SLOT_W + 6), y + 24, first + i, is_open)
    if not is_open and (s["slot_city"][first : first + slots] < 0).all():
        prev = int(D.REGION_PREVIOUS[r])
        # END-R2, END-R3: the first ship opens it; ships sail only past an open region.
        c.text(x + 12, y + 60, "closed: the first ship opens it", size=9, fill=MUTED, italic=True)
        c.text(
            x + 12,
            y + 74,
            f"(sailing needs {D.REGION_NAMES[prev]} open)",
            size=9,
            fill=MUTED,
            italic=True,
        )
    xx = x + 8
    c.text(xx, y + 122, "ships", size=9, fill=MUTED)
    xx += 32
    for q in range(int(s["num_players"])):
        ships = int(s["ships"][q, r])
        if ships:
            c.token(xx + 8, y + 118, 8, SEAT_FILL[q], label=str(ships))
            xx += 20
    return x + w + 8


def _regions(c: Canvas, s, y) -> float:
    x = MARGIN
    for r in (0, 1, 2):
        x = _region(c, s, x, y, r)
    x = MARGIN
    for r in (3, 4, 5, 6):
        x = _region(c, s, x, y + 142, r)
    return y + 284


# ---- markets ---------------------------------------------------------------------------------
def _table_card(c: Canvas, box, name, points, lines, band, highlight=False) -> None:
    """A city, empire or building card as its table row describes it: name, points, the body
    lines and the kind's colour band."""
    x, y, w, h = box
    c.card(
        x,
        y,
        w,
        h,
        title=name,
        points=int(points),
        lines=lines,
        band=band,
        highlight=highlight,
        size=9,
    )


def _empire_card(c: Canvas, x, y, e: int, w=170, h=70, highlight=False):
    ability = _ability_text(int(D.EMPIRE_ABILITY[e]), int(D.EMPIRE_ABILITY_ARG[e]))
    lines = [_plural(int(D.EMPIRE_VOTE_COST[e]), "vote"), _condition_text(e), ability]
    _table_card(c, (x, y, w, h), D.EMPIRE_NAMES[e], D.EMPIRE_POINTS[e], lines, "#7b4fa0", highlight)


def _building_card(c: Canvas, x, y, b: int, w=BOARD_W, h=BOARD_H):
    ability = _ability_text(int(D.BUILDING_ABILITY[b]), int(D.BUILDING_ABILITY_ARG[b]))
    lines = [f"{int(D.BUILDING_WORK_COST[b])} work", ability]
    _table_card(c, (x, y, w, h), D.BUILDING_NAMES[b], D.BUILDING_POINTS[b], lines, "#8c6d46")


def _market_row(c: Canvas, x0, y, w, title, cards, draw_card, card_w, deck_n) -> None:
    """A market: its face-up cards (a dashed gap for an empty slot) and its deck's size."""
    c.label_box(x0, y, w, 112, title)
    x = x0 + 8
    for k in cards.tolist():
        if k >= 0:
            draw_card(c, x, y + 26, k, w=card_w, h=76)
        else:
            c.rect(x, y + 26, card_w, 76, stroke=MUTED, rx=4, dash="4,3")
        x += card_w + 6
    c.card(x + 4, y + 26, 120, 76, face_down=True, face_down_label=f"deck {int(deck_n)}")


def _markets(c: Canvas, s, y) -> float:
    _market_row(
        c,
        MARGIN,
        y,
        640,
        "Empire market (Politician)",
        s["empire_market"],
        _empire_card,
        160,
        s["empire_deck_n"],
    )
    x0 = MARGIN + 650
    _market_row(
        c,
        x0,
        y,
        WIDTH - x0 - MARGIN,
        "Building market (Craftsman)",
        s["building_market"],
        _building_card,
        150,
        s["building_deck_n"],
    )
    return y + 120


# ---- players ---------------------------------------------------------------------------------
def _player_info(c: Canvas, s, p: int, x, y):
    goods = [(GOOD_FILL[i], int(s["goods"][p, i]), D.GOODS[i]) for i in range(R.NG)]
    c.text(x, y + 4, "goods", size=10, fill=MUTED)
    c.counts(x + 42, y, goods, r=10, gap=4)
    c.text(x, y + 28, f"tokens in pool: {int(s['pool'][p])} · lost: {int(s['lost'][p])}", size=11)
    markers = int((s["slot_owner"] == p).sum())
    c.text(x, y + 46, f"city markers placed: {markers}/{R.MARKERS}", size=11)
    ships = [
        f"{D.REGION_NAMES[r]} {int(s['ships'][p, r])}" for r in range(R.NR) if s["ships"][p, r]
    ]
    c.text(x, y + 64, "ships:", size=11)
    for i, text in enumerate(ships or ["none"]):
        c.text(x + 40 + (i % 2) * 105, y + 64 + (i // 2) * 14, text, size=10)


def _roles_row(c: Canvas, s, p: int, x, y, viewer: int):
    """This round's role and tokens, the role hand, the roles set aside and the deck size."""
    c.text(x, y + 14, "This round:", size=10, bold=True, fill=MUTED)
    role = int(s["role"][p])
    xx = x + 72
    if role < 0:
        c.text(xx, y + 14, "no role yet", size=10, italic=True, fill=MUTED)
        xx += 80
    elif _role_hidden(s, p, viewer):
        xx = _chip(c, xx, y, -1, label="chosen (secret)", w=110)
    else:
        xx = _chip(c, xx, y, role)
        c.text(xx, y + 14, _plural(int(s["placed"][p]), "token"), size=10, bold=True)
        xx += 60
    xx += 16
    c.text(xx, y + 14, "Role hand:", size=10, bold=True, fill=MUTED)
    xx += 64
    hand = np.flatnonzero(s["role_hand"][p]).tolist()
    if viewer == p:
        for r in hand:
            xx = _chip(c, xx, y, r)
    else:
        xx = _chip(c, xx, y, -1, label=f"{len(hand)} hidden", w=80)
    xx += 16
    c.text(xx, y + 14, "Set aside:", size=10, bold=True, fill=MUTED)
    xx += 62
    for r in np.flatnonzero(s["role_aside"][p]).tolist():
        xx = _chip(c, xx, y, r)
    c.text(xx + 12, y + 14, f"Role deck: {int(s['role_deck_n'][p])}", size=10, fill=MUTED)


def _board_row(c: Canvas, s, p: int, x, y):
    c.text(x, y + 10, f"Board ({int(s['board_n'][p])}/{R.BOARD})", size=10, bold=True, fill=MUTED)
    for i in range(R.BOARD):
        cx = x + i * (BOARD_W + 4)
        if i >= int(s["board_n"][p]):
            c.rect(cx, y + 14, BOARD_W, BOARD_H, stroke=MUTED, rx=4, dash="4,3")
            continue
        kind, cid = int(s["board_kind"][p, i]), int(s["board_id"][p, i])
        if kind == R.K_CITY:
            ability = _ability_text(int(D.CITY_ABILITY[cid]), int(D.CITY_ABILITY_ARG[cid]))
            c.card(
                cx,
                y + 14,
                BOARD_W,
                BOARD_H,
                title=D.CITY_NAMES[cid],
                lines=["city", ability],
                points=int(D.CITY_POINTS[cid]),
                band="#e2dccd",
                size=9,
            )
        elif kind == R.K_BUILDING:
            _building_card(c, cx, y + 14, cid)
        else:
            _empire_card(c, cx, y + 14, cid, w=BOARD_W, h=BOARD_H)


def _empire_hand(c: Canvas, s, p: int, x, y, viewer: int):
    hand = np.flatnonzero(s["empire_hand"][p]).tolist()
    c.text(x, y + 10, "Empire hand (secret)", size=10, bold=True, fill=MUTED)
    if viewer != p or not hand:
        c.card(x, y + 14, 120, 44, face_down=True, face_down_label=_plural(len(hand), "card"))
        return
    for i, e in enumerate(hand):
        _empire_card(c, x + i * 176, y + 14, e, w=170, h=58)


def _player_height(s, p: int, viewer: int) -> int:
    return 232 if viewer == p and s["empire_hand"][p].any() else 196


def _player(c: Canvas, s, p: int, y, viewer: int, scores) -> float:
    h = _player_height(s, p, viewer)
    active = int(s["current_player"]) == p
    final = bool(s["terminated"] or s["truncated"])
    tags = [
        f"{'final score' if final else 'score now'} {int(s['score'][p]) if final else scores[p]}"
    ]
    if int(s["first_player"]) == p:
        tags.append("went first")
    if s["terminated"] and (int(s["winners"]) >> p) & 1:
        tags.append("WINNER")
    c.seat_box(MARGIN, y, WIDTH - 2 * MARGIN, h, p, viewer, tags, SEAT_FILL[p], active)
    _player_info(c, s, p, MARGIN + 10, y + 40)
    x0 = MARGIN + 270
    # The viewer's own empire hand gets a row of cards; any other hand is one face-down card.
    if h > 196:
        _empire_hand(c, s, p, x0, y + 146, viewer)
    else:
        _empire_hand(c, s, p, MARGIN + 10, y + 128, viewer)
    _roles_row(c, s, p, x0, y + 28, viewer)
    _board_row(c, s, p, x0, y + 58)
    return y + h + 8


def draw(states: np.ndarray, g: int, viewer: int | None = None) -> str:
    """Game ``g`` of ``states`` as an SVG string, seen by seat ``viewer`` (None: public)."""
    s = states[g]
    v = -1 if viewer is None else int(viewer)
    n = int(s["num_players"])
    height = 72 + 284 + 120 + sum(_player_height(s, p, v) + 8 for p in range(n)) + 4
    c = Canvas(WIDTH, height, title="Endeavor")
    scores = _score_now(states, g)
    y = _header(c, s)
    y = _regions(c, s, y)
    y = _markets(c, s, y)
    for p in range(n):
        y = _player(c, s, p, y, v, scores)
    return c.to_svg()


def scores(states: np.ndarray, g: int) -> list[int]:
    """Each player's score now (the final score once the game is over), for charts."""
    s = states[g]
    if s["terminated"] or s["truncated"]:
        return [int(s["score"][p]) for p in range(int(s["num_players"]))]
    return _score_now(states, g)


__all__ = ["draw", "scores"]
