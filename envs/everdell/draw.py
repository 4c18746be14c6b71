"""Everdell pictures: the whole public state of one game as SVG.

``draw(states, g, viewer)`` lays out, top to bottom: a header (turn, whose decision, game
over and winner) with the colour legends; the locations (basic spaces, Haven, Journey, the
dealt forest cards) with the workers on them; the 8 events with their owners; the Meadow, the
face-down deck and discard pile and any revealed cards; one area per player (season, current
score, resources, workers, city, hand); Rugwort's area in a solo game; the task stack.

Hidden information follows ``everdell.determinize``: hands are face down except the viewer's
own, the deck and discard pile show only their sizes, and cards revealed for another seat's
decision (Postal Pigeon, Teacher, ...) are face down. ``viewer=None`` is the public view.
"""

from __future__ import annotations

import numpy as np

from meeple_gym.core.svg import HIGHLIGHT, INK, MUTED, Canvas
from meeple_gym.everdell import data as D
from meeple_gym.everdell import rules as R
from meeple_gym.everdell import snapshot as S

WIDTH = 1300
MARGIN = 10
RESOURCE_FILL = ("#8b5a2b", "#e69138", "#9e9e9e", "#7b3f9e")  # twig resin pebble berry
RESOURCE_LETTER = ("T", "R", "P", "B")
COLOR_FILL = ("#d9b97a", "#6aa84f", "#cc4125", "#3d85c6", "#8e63b5")  # D.COLORS order
SEAT_FILL = ("#c53030", "#2b6cb0", "#2f855a", "#b7791f")
RUGWORT_FILL = "#3c2a4d"
CARD_W, CARD_H = 88, 62  # city and hand cards
MEADOW_W, MEADOW_H = 120, 70


def _seat_fill(s, q: int) -> str:
    if q < 0 or (S._solo(s) and q == R.RUGWORT):  # -1: Rugwort's blocking worker
        return RUGWORT_FILL
    return SEAT_FILL[q % 4]


def _seat_name(s, q: int) -> str:
    return "Rugwort" if S._solo(s) and q == R.RUGWORT else f"player {q}"


def _revealed_hidden(s, viewer: int) -> bool:
    """determinize._revealed_hidden: set-aside cards are secret from all but the decider,
    except the 2 face-up Meadow cards of a Meadow pick."""
    cp = int(s["current_player"])
    if int(s["revealed_n"]) <= 0 or cp == viewer or cp < 0:
        return False
    kind, a, _, _ = S._top(s)
    return not (kind == R.T_LOCATION and a == R.F_MEADOW_PICK)


def _worker_spots(s) -> dict:
    """Where each placed worker stands: spot key -> list of seats (one entry per worker)."""
    spots: dict = {}
    for q in range(int(s["num_players"])):
        for w in range(int(s["workers"][q])):
            code = int(s["wloc"][q, w])
            if code == R.W_FREE:
                continue
            if 0 <= code < D.N_LOCATIONS:
                key = ("loc", code)
            elif R.W_EVENT <= code < R.W_EVENT + D.N_EVENTS:
                key = ("event", code - R.W_EVENT)
            elif R.W_CITY <= code < R.W_CITY + R.MAXP * 32:
                key = ("city", *divmod(code - R.W_CITY, 32))
            else:
                key = (code,)  # limbo, Rugwort's Inn / Post Office
            spots.setdefault(key, []).append(q)
    return spots


def _workers(c: Canvas, s, x, y, seats, r=7) -> float:
    for q in seats:
        c.token(x + r, y, r, _seat_fill(s, q), label="R" if q < 0 else str(q))
        x += 2 * r + 3
    return x


def _cost_tokens(c: Canvas, x, y, cost, r=6.5) -> float:
    """A card's cost as coloured resource tokens (only the resources it needs)."""
    items = [(RESOURCE_FILL[i], int(cost[i]), D.RESOURCES[i]) for i in range(4) if cost[i]]
    if not items:
        c.text(x, y + 4, "free", size=9, fill=MUTED, italic=True)
        return x + 24
    return c.counts(x, y, items, r=r, gap=2)


def _card(c: Canvas, x, y, t: int, notes=(), w=CARD_W, h=CARD_H, highlight=False):
    """A Critter/Construction card: colour band + name, cost tokens, points badge, notes."""
    t = int(t)
    c.card(
        x,
        y,
        w,
        h,
        title=D.CARD_NAMES[t],
        band=COLOR_FILL[int(D.CARD_COLOR[t])],
        points=int(D.CARD_POINTS[t]),
        highlight=highlight,
        size=9,
    )
    _cost_tokens(c, x + 3, y + 25, D.CARD_COST[t])
    row = y + 45
    for note in notes:
        if row > y + h - 3:
            break
        c.text(x + 4, row, note[: int((w - 22) / 4.7)], size=8.5, fill=INK)
        row += 10


def _header(c: Canvas, s) -> float:
    n = int(s["num_players"])
    who = "solo vs Rugwort" if n == 1 else f"{n} players"
    c.text(
        MARGIN,
        24,
        f"Everdell — {who} · turn {int(s['turn_count'])} · step {int(s['step_count'])}",
        size=18,
        bold=True,
    )
    status = _status(s)
    status = status if len(status) <= 90 else status[:89] + "…"  # stays left of the legend
    c.text(MARGIN, 46, status, size=13, fill=HIGHLIGHT, bold=True)
    _legend(c, 720, 16)
    return 64


def _status(s) -> str:
    if s["terminated"]:
        winner = int(s["winner"])
        final = ", ".join(
            f"{_seat_name(s, q)} {int(s['score'][q])}"
            for q in range(S.seats_for(int(s["num_players"])))
        )
        result = "a draw" if winner < 0 else f"{_seat_name(s, winner)} wins"
        return f"GAME OVER: {result} ({final})"
    if s["truncated"]:
        return f"Game cut off at the step cap of {R.STEP_CAP} (truncated)"
    p = int(s["current_player"])
    kind = S.DECISION_KINDS[int(s["pend_kind"])].replace("_", " ")
    depth = int(s["depth"])
    within = f" (within {S._frame_text(s, depth - 1)})" if depth else ""
    return f"To decide: player {p} — {kind}{within}"


def _legend(c: Canvas, x, y):
    """Resource, card-colour and seat legends (the picture's key)."""
    for i, name in enumerate(D.RESOURCES):
        c.token(x + 7 + i * 70, y, 7, RESOURCE_FILL[i], label=RESOURCE_LETTER[i])
        c.text(x + 18 + i * 70, y + 4, name, size=10)
    for i, name in enumerate(D.COLORS):
        c.rect(x + i * 95, y + 14, 12, 12, fill=COLOR_FILL[i], stroke=INK, rx=2)
        c.text(x + 16 + i * 95, y + 24, name, size=10)
    c.text(x, y + 42, "workers:", size=10)
    for q in range(4):
        c.token(x + 60 + q * 62, y + 38, 7, SEAT_FILL[q], label=str(q))
        c.text(x + 70 + q * 62, y + 42, f"player {q}", size=9)
    c.token(x + 310, y + 38, 7, RUGWORT_FILL, label="R")
    c.text(x + 320, y + 42, "Rugwort", size=9)


def _spot(c: Canvas, s, x, y, w, loc: int, label: str, seats, blocked: bool):
    """One worker space: its name and the workers on it (Rugwort's blocker as R)."""
    c.rect(x, y, w, 44, fill="#fbf7ee", stroke="#9c8f7a", rx=4)
    c.text(x + 5, y + 14, label, size=10, bold=True)
    kind = int(D.LOCATION_KIND[loc])
    if kind in (D.LOC_BASIC, D.LOC_FOREST):
        c.text(
            x + w - 5,
            y + 14,
            "1 only" if D.LOCATION_EXCLUSIVE[loc] else "shared",
            size=8,
            fill=MUTED,
            anchor="end",
        )
    _workers(c, s, x + 5, y + 31, ([-1] if blocked else []) + seats)


def _locations(c: Canvas, s, y, spots) -> float:
    c.label_box(MARGIN, y, WIDTH - 2 * MARGIN, 140, "Locations (workers on them)")
    w, gap = 134, 6
    x = MARGIN + 8
    rug_basic, rug_journey = int(s["rug_basic"]), int(s["rug_journey"])
    for loc in list(D.BASIC_LOCATIONS) + [D.HAVEN]:
        _spot(
            c,
            s,
            x,
            y + 24,
            w,
            loc,
            D.LOCATION_NAMES[loc],
            spots.get(("loc", loc), []),
            loc == rug_basic,
        )
        x += w + gap
    x = MARGIN + 8
    c.text(x, y + 86, "Forest", size=10, bold=True, fill=MUTED)
    rug_forest = int(s["rug_forest"])
    for j, loc in enumerate(s["forest"].tolist()):
        if loc < 0:
            continue
        name = D.LOCATION_NAMES[loc].removeprefix("Forest: ")
        _spot(c, s, x, y + 90, w + 36, loc, name, spots.get(("loc", loc), []), j == rug_forest)
        x += w + 36 + gap
    x = max(x, MARGIN + 8 + 4 * (w + 36 + gap)) + 10
    c.text(x, y + 86, "Journey (autumn)", size=10, bold=True, fill=MUTED)
    for loc in D.JOURNEY_LOCATIONS:
        _spot(
            c,
            s,
            x,
            y + 90,
            92,
            loc,
            D.LOCATION_NAMES[loc],
            spots.get(("loc", loc), []),
            loc == rug_journey,
        )
        x += 92 + gap
    return y + 148


def _events(c: Canvas, s, y, spots) -> float:
    c.label_box(MARGIN, y, WIDTH - 2 * MARGIN, 106, "Events (4 basic, 4 special)")
    w, gap = 152, 4
    x = MARGIN + 8
    events = list(D.BASIC_EVENTS) + [int(e) for e in s["specials"]]
    for e in events:
        owner = int(s["event_owner"][e])
        pts = int(D.EVENT_POINTS[e])
        lines = [D.EVENT_REQUIREMENTS[e]]
        if owner >= 0:
            lines.append(f"claimed by {_seat_name(s, owner)}")
            if s["event_store"][e]:
                lines.append(f"{int(s['event_store'][e])} pts stored")
        else:
            lines.append("open")
        c.card(
            x,
            y + 24,
            w,
            74,
            title=D.EVENT_NAMES[e],
            lines=lines,
            points=pts if pts >= 0 else "?",
            band=_seat_fill(s, owner) if owner >= 0 else "#e2dccd",
            size=8.5,  # the longest name (Capture of the Acorn Thieves) fits whole
        )
        _workers(c, s, x + w - 40, y + 66, spots.get(("event", e), []), r=6)
        x += w + gap
    return y + 114


def _meadow(c: Canvas, s, y, viewer: int) -> float:
    n_rev = int(s["revealed_n"])
    h = 110 if n_rev == 0 else 196
    c.label_box(MARGIN, y, WIDTH - 2 * MARGIN, h, "Meadow (face up)")
    blocked = int(s["rug_meadow"]) if S._solo(s) else 0
    x = MARGIN + 8
    for i, t in enumerate(s["meadow"].tolist()):
        if t < 0:
            c.rect(x, y + 26, MEADOW_W, MEADOW_H, stroke=MUTED, rx=4, dash="4,3")
        else:
            kind = D.KINDS[int(D.CARD_KIND[t])]
            notes = [f"{kind}, {'unique' if D.CARD_UNIQUE[t] else 'common'}"]
            if (blocked >> i) & 1:
                notes.append("Rugwort blocks")
            _card(c, x, y + 26, t, notes, MEADOW_W, MEADOW_H, highlight=bool((blocked >> i) & 1))
        x += MEADOW_W + 5
    x += 10
    c.card(x, y + 26, 80, MEADOW_H, face_down=True, face_down_label=f"deck {int(s['deck_n'])}")
    c.card(
        x + 88,
        y + 26,
        80,
        MEADOW_H,
        face_down=True,
        face_down_label=f"discard {int(s['discard_n'])}",
    )
    c.text(x, y + 108, f"tucked under events: {int(s['tucked'])}", size=9, fill=MUTED)
    if n_rev:
        hidden = _revealed_hidden(s, viewer)
        who = _seat_name(s, int(s["current_player"]))
        c.text(
            MARGIN + 8,
            y + 124,
            f"Revealed cards (set aside for {who}'s decision)",
            size=11,
            bold=True,
        )
        x = MARGIN + 8
        for t in s["revealed"][:n_rev].tolist():
            if hidden:
                c.card(x, y + 130, CARD_W, CARD_H, face_down=True, face_down_label="hidden")
            else:
                _card(c, x, y + 130, t)
            x += CARD_W + 4
    return y + h + 8


def _slot_notes(s, p: int, k: int) -> list[str]:
    notes = []
    if s["city_occupied"][p, k]:
        notes.append("occupied")
    if s["city_tokens"][p, k]:
        notes.append(f"+{int(s['city_tokens'][p, k])} pt tokens")
    store = s["city_store"][p, k]
    if store.any():
        notes.append(" ".join(f"{int(store[r])}{RESOURCE_LETTER[r]}" for r in range(4) if store[r]))
    jail = [D.CARD_NAMES[t] for t in s["city_jail"][p, k].tolist() if t >= 0]
    if jail:
        notes.append("jail: " + ", ".join(jail))
    return notes


def _card_rows(c: Canvas, s, x, y, width, cards) -> float:
    """Cards ``(type, notes, worker seats)`` in rows; returns the y below them."""
    per_row = max(1, int(width // (CARD_W + 4)))
    for i, (t, notes, seats) in enumerate(cards):
        row, col = divmod(i, per_row)
        cx, cy = x + col * (CARD_W + 4), y + row * (CARD_H + 4)
        _card(c, cx, cy, t, notes)
        _workers(c, s, cx + 4, cy + CARD_H - 9, seats, r=5)
    rows = max(1, -(-len(cards) // per_row))  # an empty row keeps room for "(empty)"
    return y + rows * (CARD_H + 4)


def _player_info(c: Canvas, s, p: int, x, y):
    """The left column of a player's area: resources, tokens, workers, counts."""
    items = [(RESOURCE_FILL[r], int(s["resources"][p, r]), D.RESOURCES[r]) for r in range(4)]
    c.text(x, y + 4, "resources", size=10, fill=MUTED)
    c.counts(x + 60, y, items, r=10, gap=4)
    c.text(x, y + 26, f"point tokens: {int(s['tokens'][p])}", size=11)
    owned = int(s["workers"][p])
    free = int((s["wloc"][p, :owned] == R.W_FREE).sum())
    c.text(x, y + 44, f"workers: {free} free of {owned}", size=11)
    _workers(c, s, x + 130, y + 40, [p] * free, r=6)
    used = S._spaces_used(s["city"][p])
    c.text(x, y + 62, f"city spaces: {used}/{R.CITY_LIMIT}", size=11)
    c.text(x, y + 80, f"hand: {int(s['hand_n'][p])}/{R.HAND_LIMIT} cards", size=11)
    # Workers on no board spot: on Rugwort's cards, or left behind by a card that was removed.
    away = [S._worker_text(s, p, w) for w in range(owned)]
    away = [a for a in away if "Rugwort" in a or a == "off its card"]
    if away:
        c.text(x, y + 98, "; ".join(away)[:44], size=9, fill=MUTED)


def _player(c: Canvas, s, p: int, y, viewer, scores, spots) -> float:
    n_city = int((s["city"][p] >= 0).sum())
    per_row = int((WIDTH - 2 * MARGIN - 260) // (CARD_W + 4))
    city_rows = max(1, -(-n_city // per_row))
    show_hand = viewer == p and int(s["hand_n"][p]) > 0
    hand_rows = -(-int(s["hand_n"][p]) // per_row) if show_hand else 1
    h = 30 + 16 + city_rows * (CARD_H + 4) + 16 + hand_rows * (CARD_H + 4) + 4
    active = int(s["current_player"]) == p
    season = S.SEASONS[int(s["season"][p])]
    final = bool(s["terminated"] or s["truncated"])
    score = int(s["score"][p]) if final else scores[p]
    tags = [season, f"{'final score' if final else 'score now'} {score}"]
    if s["passed"][p]:
        tags.append("passed")
    if int(s["first_player"]) == p:
        tags.append("went first")
    if s["terminated"] and int(s["winner"]) == p:
        tags.append("WINNER")
    c.seat_box(MARGIN, y, WIDTH - 2 * MARGIN, h, p, viewer, tags, SEAT_FILL[p], active)
    _player_info(c, s, p, MARGIN + 10, y + 40)
    x0 = MARGIN + 250
    c.text(x0, y + 40, "City", size=10, bold=True, fill=MUTED)
    cards = [
        (int(s["city"][p, k]), _slot_notes(s, p, k), spots.get(("city", p, k), []))
        for k in range(R.CITY_SLOTS)
        if s["city"][p, k] >= 0
    ]
    yy = _card_rows(c, s, x0, y + 44, WIDTH - x0 - MARGIN, cards)
    if not cards:
        c.text(x0, y + 60, "(empty)", size=10, fill=MUTED, italic=True)
    c.text(x0, yy + 12, "Hand", size=10, bold=True, fill=MUTED)
    if show_hand:
        hand = [(t, (), ()) for t in np.repeat(np.arange(R.NT), s["hand"][p]).tolist()]
        _card_rows(c, s, x0, yy + 16, WIDTH - x0 - MARGIN, hand)
    else:
        label = f"{int(s['hand_n'][p])} cards"
        c.card(x0, yy + 16, CARD_W, CARD_H, face_down=True, face_down_label=label)
    return y + h + 8


def _rugwort(c: Canvas, s, y, scores) -> float:
    counts = s["rug_city"]
    types = np.flatnonzero(counts).tolist()
    per_row = int((WIDTH - 2 * MARGIN - 260) // (CARD_W + 4))
    h = 50 + max(1, -(-len(types) // per_row)) * (CARD_H + 4) + 10
    final = bool(s["terminated"] or s["truncated"])
    score = int(s["score"][R.RUGWORT]) if final else scores[R.RUGWORT]
    heading = (
        f"Rugwort (solo opponent, year {int(s['rug_year'])}) · "
        f"{'final score' if final else 'score now'} {score}"
        + (" · WINNER" if s["terminated"] and int(s["winner"]) == R.RUGWORT else "")
    )
    c.label_box(MARGIN, y, WIDTH - 2 * MARGIN, h, heading, heading_size=13)
    x = MARGIN + 10
    c.text(x, y + 44, f"point tokens: {int(s['tokens'][R.RUGWORT])}", size=11)
    c.text(x, y + 62, "city scores 2 per card,", size=10, fill=MUTED)
    c.text(x, y + 76, "3 per prosperity card", size=10, fill=MUTED)
    blocked = [i for i in range(R.MEADOW) if (int(s["rug_meadow"]) >> i) & 1]
    c.text(x, y + 94, f"blocks Meadow {blocked or '-'}", size=10)
    cards = [(t, [f"x{int(counts[t])}"], ()) for t in types]
    _card_rows(c, s, MARGIN + 250, y + 30, WIDTH - 260 - 2 * MARGIN, cards)
    if not cards:
        c.text(MARGIN + 250, y + 44, "(no cards yet)", size=10, fill=MUTED, italic=True)
    return y + h + 8


def _tasks(c: Canvas, s, y) -> float:
    depth = int(s["depth"])
    text = " > ".join(S._frame_text(s, f) for f in range(depth)) if depth else "-"
    c.text(MARGIN, y + 12, "Task stack (bottom to top): " + text[:190], size=10, fill=MUTED)
    return y + 22


def _height(s, viewer) -> float:
    per_row = int((WIDTH - 2 * MARGIN - 260) // (CARD_W + 4))
    h = 64 + 148 + 114 + (118 if int(s["revealed_n"]) == 0 else 204) + 30
    for p in range(int(s["num_players"])):
        city_rows = max(1, -(-int((s["city"][p] >= 0).sum()) // per_row))
        hand = int(s["hand_n"][p])
        hand_rows = -(-hand // per_row) if viewer == p and hand else 1
        h += 30 + 16 + (city_rows + hand_rows) * (CARD_H + 4) + 16 + 4 + 8
    if S._solo(s):
        h += 50 + max(1, -(-int((s["rug_city"] > 0).sum()) // per_row)) * (CARD_H + 4) + 18
    return h


def draw(states: np.ndarray, g: int, viewer: int | None = None) -> str:
    """Game ``g`` of ``states`` as an SVG string, seen by seat ``viewer`` (None: public)."""
    s = states[g]
    v = -1 if viewer is None else int(viewer)
    c = Canvas(WIDTH, _height(s, v), title="Everdell")
    scores = S.current_scores(states, g)
    spots = _worker_spots(s)
    y = _header(c, s)
    y = _locations(c, s, y, spots)
    y = _events(c, s, y, spots)
    y = _meadow(c, s, y, v)
    for p in range(int(s["num_players"])):
        y = _player(c, s, p, y, v, scores, spots)
    if S._solo(s):
        y = _rugwort(c, s, y, scores)
    _tasks(c, s, y)
    return c.to_svg()


def scores(states: np.ndarray, g: int) -> list[int]:
    """Each seat's points if the game ended now (Rugwort's too in solo), for charts."""
    return S.current_scores(states, g)


__all__ = ["draw", "scores"]
