"""Century: Spice Road pictures: one game of a batch drawn as SVG on the shared canvas.

Everything in Century is public except the order of the two face-down decks (see
``determinize.py``), so every seat sees the same picture: hands, played piles, caravans, coins
and point cards are drawn face up and the decks as face-down stacks with their counts.
``viewer`` is accepted for the common signature and changes only the "you" tag.

>>> import meeple_gym as mg
>>> batch = mg.make_batch("century", batch_size=1, num_players=3, seed=0)
>>> _ = batch.reset()
>>> draw(batch.states, 0).startswith("<svg")
True
"""

from __future__ import annotations

import numpy as np

from meeple_gym.century import data as D
from meeple_gym.century import rules as R
from meeple_gym.century import snapshot as S
from meeple_gym.core.svg import HIGHLIGHT, INK, MUTED, Canvas

WIDTH = 1000
MARGIN = 10
# Cube colours as on the box (yellow turmeric, red saffron, green cardamom, brown cinnamon).
CUBE = ("#f2c200", "#d62828", "#2a9d3c", "#7b4a1e")
GOLD, SILVER = "#d4a017", "#b8bcc2"
KIND_BAND = {D.KIND_SPICE: "#f3d98b", D.KIND_UPGRADE: "#b9d7f0", D.KIND_TRADE: "#d9c2e8"}
PLAYED_FILL = "#e4e0d6"
HEADER_H, LEGEND_H, POINT_H, MARKET_H = 48, 30, 150, 168
MINI_W, MINI_H, MINI_PER_LINE = 82, 30, 11


def _pips(c: Canvas, x, y, cubes, r=6.0, gap=2.0) -> float:
    """One small cube per unit of ``cubes`` (4 colour counts), each with its colour letter so
    the picture still reads without colour; returns the x after the row."""
    for colour, count in enumerate(int(v) for v in cubes):
        for _ in range(count):
            c.token(x + r, y, r, CUBE[colour], label=D.COLOUR_LETTERS[colour])
            x += 2 * r + gap
    return x


def _header(c: Canvas, s, viewer) -> None:
    n, phase = int(s["num_players"]), int(s["phase"])
    facts = (
        f"{n} players · turn {int(s['turn_count'])} · step {int(s['step_count'])} · "
        f"phase {R.PHASE_NAMES[phase]}"
    )
    c.title_bar(MARGIN, "Century: Spice Road", 230, facts, viewer)
    if s["terminated"]:
        status, colour = f"GAME OVER: player {int(s['winner'])} wins", HIGHLIGHT
    elif s["truncated"]:
        status, colour = f"Game cut off at the step cap of {R.STEP_CAP} (truncated)", HIGHLIGHT
    elif s["end_triggered"]:
        status, colour = "Last round: ends when play returns to the first player", HIGHLIGHT
    else:
        status, colour = f"Player {int(s['current_player'])} to act: {_pending(s)}", INK
    c.text(MARGIN, 42, status, size=13, bold=True, fill=colour)


def _pending(s) -> str:
    """The decision the player to act is making, in words (the text board's, plus the turn's
    main choice)."""
    if int(s["phase"]) == R.PHASE_MAIN:
        return "play a card, acquire, rest or claim"
    return S.pending_text(s)


def _legend(c: Canvas, y) -> None:
    c.text(MARGIN, y + 4, "Legend:", size=12, bold=True)
    x = 70.0
    for colour, name in enumerate(D.COLOURS):
        c.token(x + 8, y, 8, CUBE[colour], label=D.COLOUR_LETTERS[colour])
        c.text(x + 20, y + 4, f"{name} cube", size=11)
        x += 92
    for fill, name in ((GOLD, "gold coin (3 pts)"), (SILVER, "silver coin (1 pt)")):
        c.token(x + 8, y, 8, fill, label="$", label_fill=INK)
        c.text(x + 20, y + 4, name, size=11)
        x += 132
    c.text(x, y + 4, "score: points + coins + 1 per non-yellow cube", size=10, fill=MUTED)


def _coin_on(s) -> dict:
    """CSR-C3: gold above slot 1, silver above slot 2; silver moves left once gold is gone."""
    gold, silver = int(s["gold_left"]), int(s["silver_left"])
    if gold > 0:
        return (
            {0: (GOLD, "gold", gold), 1: (SILVER, "silver", silver)}
            if silver
            else {0: (GOLD, "gold", gold)}
        )
    return {0: (SILVER, "silver", silver)} if silver else {}


def _point_row(c: Canvas, s, y) -> None:
    face_down = R.N_POINT - int(s["point_deck_top"])
    c.label_box(MARGIN, y, WIDTH - 2 * MARGIN, POINT_H, "Point cards (claim for cubes)")
    coins = _coin_on(s)
    w, h, top = 150, 96, y + 44
    for j, card in enumerate(int(v) for v in s["point_row"]):
        x = MARGIN + 12 + j * (w + 14)
        if j in coins:
            fill, name, left = coins[j]
            c.token(x + 12, top - 12, 9, fill, label="$", label_fill=INK)
            c.text(x + 26, top - 8, f"+{name} ({left} left)", size=10)
        if card < 0:
            c.rect(x, top, w, h, stroke=MUTED, rx=4, dash="4,3")
            c.text(x + w / 2, top + h / 2, "(empty)", size=10, fill=MUTED, anchor="middle")
            continue
        c.card(
            x,
            top,
            w,
            h,
            title=f"{j + 1}. {D.POINT_NAMES[card]}",
            band="#f0e2c0",
            points=int(D.POINT_VALUE[card]),
            size=11,
        )
        c.text(x + 6, top + 36, "cost:", size=10, fill=MUTED)
        _pips(c, x + 6, top + 52, D.POINT_COST[card], r=6.5)
        c.text(x + 6, top + h - 8, f"{int(D.POINT_VALUE[card])} points", size=10, bold=True)
    x = MARGIN + 12 + 5 * (w + 14)
    c.card(x, top, 130, h, face_down=True, face_down_label=f"deck: {face_down}", size=12)


def _merchant_text(t: int) -> str:
    kind = int(D.MERCHANT_KIND[t])
    if kind == D.KIND_UPGRADE:
        return f"upgrade {int(D.MERCHANT_UPGRADES[t])} step(s)"
    return "spice: gain" if kind == D.KIND_SPICE else "trade: pay → gain"


def _merchant_card(c: Canvas, x, y, w, h, t: int, title: str) -> None:
    """A market card: name, what it does with cube pips (pay → gain)."""
    c.card(
        x,
        y,
        w,
        h,
        title=title,
        band=KIND_BAND[int(D.MERCHANT_KIND[t])],
        size=11,
        lines=(_merchant_text(t),),
    )
    kind = int(D.MERCHANT_KIND[t])
    if kind == D.KIND_TRADE:
        end = _pips(c, x + 6, y + 48, D.MERCHANT_IN[t], r=5.5, gap=1.5)
        c.text(end + 2, y + 52, "→", size=12, bold=True)
        _pips(c, end + 16, y + 48, D.MERCHANT_OUT[t], r=5.5, gap=1.5)
    elif kind == D.KIND_SPICE:
        _pips(c, x + 6, y + 48, D.MERCHANT_OUT[t], r=5.5, gap=1.5)


def _market(c: Canvas, s, y) -> None:
    face_down = R.N_DECK - int(s["merchant_deck_top"])
    c.label_box(
        MARGIN,
        y,
        WIDTH - 2 * MARGIN,
        MARKET_H,
        "Merchant market (slot k costs k-1 cubes, one left on each card before it)",
    )
    w, h, top = 134, 66, y + 30
    paying = int(s["acquire_slot"]) if int(s["phase"]) == R.PHASE_PAY else -1
    for k, t in enumerate(int(v) for v in s["market"]):
        x = MARGIN + 12 + k * (w + 8)
        if t < 0:
            c.rect(x, top, w, h, stroke=MUTED, rx=4, dash="4,3")
            c.text(x + w / 2, top + h / 2, "(empty)", size=10, fill=MUTED, anchor="middle")
            continue
        _merchant_card(c, x, top, w, h, t, f"{k + 1}. {D.MERCHANT_NAMES[t]}")
        if k == paying:
            c.rect(x - 3, top - 3, w + 6, h + 6, stroke=HIGHLIGHT, rx=5, stroke_width=3)
        cubes = s["market_cubes"][k]
        c.text(x, top + h + 16, "cubes on card:", size=10, fill=MUTED)
        if cubes.sum() == 0:
            c.text(x + 76, top + h + 16, "none", size=10, fill=MUTED)
        else:
            c.counts(x + 2, top + h + 32, [(CUBE[i], int(cubes[i]), "") for i in range(4)], r=7)
    x = MARGIN + 12 + 6 * (w + 8)
    c.card(x, top, 100, h, face_down=True, face_down_label=f"deck: {face_down}", size=12)


def _mini_cards(c: Canvas, x, y, s, p) -> None:
    """The player's hand (white) then played pile (grey), as small named cards."""
    cards = s["cards"][p]
    hand = [(t, False) for t in np.flatnonzero(cards == R.IN_HAND).tolist()]
    played = [(t, True) for t in np.flatnonzero(cards == R.PLAYED).tolist()]
    for k, (t, used) in enumerate(hand + played):
        cx = x + (k % MINI_PER_LINE) * (MINI_W + 4)
        cy = y + (k // MINI_PER_LINE) * (MINI_H + 4)
        fill = PLAYED_FILL if used else "#fffdf8"
        c.rect(cx, cy, MINI_W, MINI_H, fill=fill, stroke=MUTED if used else INK, rx=3)
        band = KIND_BAND[int(D.MERCHANT_KIND[t])]
        c.rect(cx + 1, cy + 1, 5, MINI_H - 2, fill=band)
        c.text(
            cx + 9,
            cy + 13,
            D.MERCHANT_NAMES[t],
            size=10.5 if len(D.MERCHANT_NAMES[t]) < 9 else 9.5,
            bold=not used,
            fill=MUTED if used else INK,
        )
        c.text(cx + 9, cy + 25, "played" if used else "in hand", size=9, fill=MUTED, italic=used)


def _player_height(s, p: int) -> int:
    """A player's box grows by a line of small cards per MINI_PER_LINE cards owned."""
    lines = max(1, -(-int((s["cards"][p] > 0).sum()) // MINI_PER_LINE))
    return 66 + lines * (MINI_H + 4)


def _player(c: Canvas, s, p: int, y, now, viewer) -> None:
    phase = int(s["phase"])
    active = p == int(s["current_player"]) and phase != R.PHASE_OVER
    tags = [
        t
        for t, on in (
            ("first player", p == int(s["first_player"])),
            ("TO ACT", active),
            ("you", viewer == p),
            ("WINNER", bool(s["terminated"]) and p == int(s["winner"])),
        )
        if on
    ]
    label = "final score" if phase == R.PHASE_OVER else "score now"
    head = f"Player {p}" + (f" ({', '.join(tags)})" if tags else "")
    c.label_box(
        MARGIN,
        y,
        WIDTH - 2 * MARGIN,
        _player_height(s, p) - 8,
        head,
        active=active,
        fill="#fff7e6" if active else "#ffffff",
        heading_size=13,
    )
    c.text(
        WIDTH - 2 * MARGIN - 4, y + 19, f"{label}: {int(now[p])}", size=14, bold=True, anchor="end"
    )
    caravan = s["caravan"][p]
    c.text(MARGIN + 10, y + 42, f"caravan {int(caravan.sum())}/{R.CARAVAN_LIMIT}:", size=11)
    end = c.counts(
        MARGIN + 112, y + 38, [(CUBE[i], int(caravan[i]), D.COLOURS[i]) for i in range(4)], r=9
    )
    coins = [(GOLD, int(s["gold"][p]), "gold"), (SILVER, int(s["silver"][p]), "silver")]
    c.text(end + 14, y + 42, "coins:", size=11)
    end = c.counts(end + 52, y + 38, coins, r=9)
    owned = np.flatnonzero(s["point_owner"] == p).tolist()
    total = sum(int(D.POINT_VALUE[i]) for i in owned)
    names = " ".join(f"{D.POINT_NAMES[i]}({int(D.POINT_VALUE[i])})" for i in owned) or "-"
    c.text(end + 14, y + 42, f"point cards {len(owned)} = {total} pts: {names}", size=11)
    _mini_cards(c, MARGIN + 10, y + 54, s, p)


def draw(states: np.ndarray, g: int, viewer: int | None = None) -> str:
    """An SVG picture of game ``g``; ``viewer`` (a seat or None) sees the same public state."""
    s = states[g]
    n = int(s["num_players"])
    top = HEADER_H + LEGEND_H + POINT_H + MARKET_H + 24
    heights = [_player_height(s, p) for p in range(n)]
    c = Canvas(WIDTH, top + sum(heights), title="Century: Spice Road")
    _header(c, s, viewer)
    _legend(c, HEADER_H + 14)
    _point_row(c, s, HEADER_H + LEGEND_H + 4)
    _market(c, s, HEADER_H + LEGEND_H + POINT_H + 12)
    now = np.zeros(R.MAX_PLAYERS, np.int16)
    R.final_scores_into(s, now)
    for p in range(n):
        _player(c, s, p, top + sum(heights[:p]), now, viewer)
    return c.to_svg()


def scores(states: np.ndarray, g: int) -> list[int]:
    """Each player's score now (what the game would score if it ended here), for charts."""
    s = states[g]
    now = np.zeros(R.MAX_PLAYERS, np.int16)
    R.final_scores_into(s, now)
    return [int(v) for v in now[: int(s["num_players"])]]


__all__ = ["WIDTH", "draw", "scores"]
