"""Radlands pictures: one game of a batch drawn as SVG on the shared canvas.

The picture shows what ``viewer`` may know (RAD-G4, RAD-K3, RAD-S3; the same split as
``determinize.py``): ``viewer=None`` is the public view, ``viewer=k`` adds seat ``k``'s own
hand, its own cards just drawn and its own draft offer. Never drawn face up: the deck, the
opponent's hand, any punk's card (not even its owner may look), a punk lifted by High
Ground, the opponent's draft offer and picks (and, during the draft, the first player), and
the options of a decision someone else is making (they can depend on that player's hand).

>>> import meeple_gym as mg
>>> batch = mg.make_batch("radlands", batch_size=1, num_players=2, seed=0)
>>> _ = batch.reset()
>>> draw(batch.states, 0, viewer=0).startswith("<svg")
True
"""

from __future__ import annotations

import numpy as np

from meeple_gym.core.svg import FACE_DOWN, HIGHLIGHT, INK, MUTED, Canvas
from meeple_gym.radlands import data as D
from meeple_gym.radlands import rules as R
from meeple_gym.radlands import snapshot as S

WIDTH = 1100
MARGIN = 10
WATER = "#3b82c4"
DAMAGE = "#c53030"
CAMP_BAND = ("#9ae6b4", "#f6ad55", "#a0aec0")  # intact, damaged, destroyed
PERSON_BAND, EVENT_BAND, RAIDERS_BAND = "#fbd38d", "#d6bcfa", "#feb2b2"
HEADER_H, LEGEND_H, SHARED_H = 52, 28, 138
STACK_LINES = 8
COL_W, ENT_H = 344, 62
MINI_W, MINI_H, MINI_PER_LINE = 112, 44, 9
MAX_OPTIONS = 4
_PRIVATE_DRAWS = (R.OP_DRAW_DISCARD, R.OP_DRAW_2_DISCARD_1)


def _cost(value: int) -> str:
    return "X" if value == D.VARIABLE_COST else str(int(value))


def _top_op(s) -> tuple[int, int]:
    """(op, owner) of the running frame, (-1, -1) with an empty stack or a finished frame."""
    d = int(s["depth"]) - 1
    if d < 0 or s["fr_pc"][d] >= s["fr_end"][d]:
        return -1, -1
    prog = int(s["fr_prog"][d])
    op = int(s["fr_op"][d]) if prog == R.INTERNAL else int(R.CODE[prog, int(s["fr_pc"][d]), 0])
    return op, int(s["fr_owner"][d])


def _header(c: Canvas, s, viewer) -> None:
    phase, current = int(s["phase"]), int(s["current_player"])
    events = " (events phase)" if s["in_events_phase"] else ""
    facts = (
        f"turn {int(s['turn_count'])} · step {int(s['step_count'])} · phase "
        f"{R.PHASE_NAMES[phase]}{events}"
    )
    c.title_bar(MARGIN, "Radlands", 110, facts, viewer, "public (every hidden card face down)")
    if s["terminated"]:
        w = int(s["winner"])
        status = "GAME OVER: " + (f"player {w} wins" if w >= 0 else "a draw")
        status += f" (camps standing {int(s['score'][0])} : {int(s['score'][1])})"
    elif s["truncated"]:
        status = f"Game cut off at the step cap of {R.STEP_CAP} (truncated)"
    elif phase == R.PHASE_DRAFT:
        status = f"Draft: player {current} keeps a camp"
    else:
        turn = int(s["turn_player"])
        status = f"Player {turn}'s turn, {int(s['water'])} water left · player {current} to act"
        status += ": picks a main action" if phase == R.PHASE_ACTIONS else ": decides"
    c.text(MARGIN, 44, status, size=13, bold=True, fill=HIGHLIGHT if phase == 3 else INK)


def _legend(c: Canvas, y) -> None:
    c.text(MARGIN, y + 4, "Legend:", size=12, bold=True)
    c.token(82, y, 8, WATER, label="W")
    c.text(94, y + 4, "water", size=11)
    x = 140.0
    for band, name in zip(CAMP_BAND, S.CAMP_STATES, strict=True):
        c.rect(x, y - 7, 14, 14, fill=band, stroke=INK)
        c.text(x + 18, y + 4, f"camp {name}", size=11)
        x += 118
    c.text(x, y + 4, "DAMAGED", size=11, bold=True, fill=DAMAGE)
    c.text(x + 70, y + 4, "person damaged", size=11)
    c.text(x + 168, y + 4, "not ready", size=11, italic=True, fill=MUTED)
    c.text(x + 230, y + 4, "no abilities yet", size=11)
    c.rect(x + 334, y - 7, 22, 14, fill=FACE_DOWN, stroke=INK)
    c.text(x + 360, y + 4, "face down (hidden)", size=11)


def _shared(c: Canvas, states, g, y, viewer) -> None:
    """Deck, discard pile, cards just revealed, the effect stack and the pending decision."""
    s = states[g]
    c.label_box(MARGIN, y, 420, SHARED_H, "Deck and discard pile")
    note = "reshuffled once" if s["reshuffled"] else "order hidden"
    c.card(MARGIN + 10, y + 24, 92, 80, face_down=True, face_down_label=f"deck {int(s['deck_n'])}")
    c.text(MARGIN + 56, y + 118, note, size=9, fill=MUTED, anchor="middle")
    n = int(s["discard_n"])
    c.text(MARGIN + 114, y + 40, f"discard pile: {n} (face up, newest first)", size=11, bold=True)
    names = [S.CARD_NAMES[int(t)] for t in s["discard"][:n][::-1]]
    for k in range(0, min(len(names), 12), 3):
        c.text(MARGIN + 114, y + 56 + 14 * (k // 3), ", ".join(names[k : k + 3]), size=10)
    if len(names) > 12:
        c.text(MARGIN + 114, y + 112, f"… and {len(names) - 12} older", size=10, fill=MUTED)
    _stack(c, states, g, 440, y, viewer)


def _revealed_text(s, viewer) -> str | None:
    """Cards just drawn for a keep/discard choice are the drawer's secret; milled ones are
    public. Left-over entries from a finished choice are not shown."""
    op, owner = _top_op(s)
    n = int(s["revealed_n"])
    if n == 0 or int(s["phase"]) != R.PHASE_DECISION or op < 0:
        return None
    names = ", ".join(S.CARD_NAMES[int(t)] for t in s["revealed"][:n])
    if op == R.OP_MILL_JUNK:
        return f"milled (public): {names}"
    if op in _PRIVATE_DRAWS:
        if owner == viewer:
            return f"you drew: {names}"
        return f"player {owner} drew {n} card(s) (hidden)"
    return None


def _stack(c: Canvas, states, g, x, y, viewer) -> None:
    s = states[g]
    phase, current = int(s["phase"]), int(s["current_player"])
    c.label_box(x, y, WIDTH - MARGIN - x, SHARED_H, "Effect stack and pending decision")
    lines = []
    depth = int(s["depth"])
    for d in range(depth - 1, max(-1, depth - 4), -1):
        lines.append((f"{'running' if d == depth - 1 else 'below'}: {S._frame_text(s, d)}", INK))
    if depth > 4:
        lines.append((f"… {depth - 4} more frame(s)", MUTED))
    if s["lift_uid"] != 0:
        lifted = "a punk (face down)" if s["lift_punk"] else S.CARD_NAMES[int(s["lift_type"])]
        lines.append((f"lifted by High Ground: {lifted}", INK))
    revealed = _revealed_text(s, viewer)
    if revealed:
        lines.append((revealed, INK))
    if phase == R.PHASE_DECISION:
        if viewer == current:
            options = np.flatnonzero(s["pend_mask"]).tolist()
            lines.append((f"your options ({len(options)}):", HIGHLIGHT))
            for a in options[:MAX_OPTIONS]:
                lines.append(("  - " + S.action_to_string(states, g, a), INK))
            if len(options) > MAX_OPTIONS:
                lines.append((f"  … {len(options) - MAX_OPTIONS} more", MUTED))
        else:
            lines.append((f"player {current} decides (options hidden from this view)", HIGHLIGHT))
    elif phase == R.PHASE_ACTIONS:
        lines.append((f"player {current} picks a main action (play, use, junk, draw, end)", INK))
    elif phase == R.PHASE_DRAFT:
        lines.append(("draft: each player keeps 3 of the 6 camps offered to them", INK))
    if not lines:
        lines.append(("(empty)", MUTED))
    if len(lines) > STACK_LINES:
        lines = lines[: STACK_LINES - 1] + [("…", MUTED)]
    for k, (text, fill) in enumerate(lines):
        c.text(x + 10, y + 34 + 13 * k, text, size=10.5, fill=fill)


def _ent_card(c: Canvas, s, p, col, i, x, y, w) -> None:
    """One column entity: a camp (at the back) or a person; punks stay face down."""
    h = ENT_H - 6
    if s["ent_kind"][p, col, i] == R.CAMP:
        camp, state = int(s["camp"][p, col]), int(s["camp_state"][p, col])
        costs = " / ".join(
            _cost(D.CAMP_ABILITY_COST[camp, k]) for k in range(int(D.CAMP_N_ABILITIES[camp]))
        )
        info = f"{S.CAMP_STATES[state].upper()} · draws {int(D.CAMP_DRAW[camp])}"
        info += f" · ability {costs} water" if costs else ""
        info += " · used" if s["camp_used"][p, col] else ""
        c.card(
            x,
            y,
            w,
            h,
            title=f"Camp: {S.CAMP_NAMES[camp]}  #{int(s['ent_uid'][p, col, i])}",
            band=CAMP_BAND[state],
            size=11,
            lines=(info, D.CAMP_SUMMARIES[camp]),
            fill="#e2e8f0" if state == 2 else "#fffdf8",
        )
        return
    if s["ent_punk"][p, col, i]:
        label = f"punk #{int(s['ent_uid'][p, col, i])} (face down, hidden card)"
        c.card(x, y, w, h, face_down=True, face_down_label=label)
    else:
        t = int(s["ent_type"][p, col, i])
        costs = " / ".join(
            _cost(D.PERSON_ABILITY_COST[t, k]) for k in range(int(D.PERSON_N_ABILITIES[t]))
        )
        c.card(
            x,
            y,
            w,
            h,
            title=f"{S.CARD_NAMES[t]}  #{int(s['ent_uid'][p, col, i])}",
            band=PERSON_BAND,
            size=11,
            lines=(
                f"cost {_cost(D.PERSON_COST[t])} · ability {costs or '-'} water",
                D.PERSON_SUMMARIES[t],
            ),
        )
    tags = []
    if s["ent_damaged"][p, col, i]:
        tags.append(("DAMAGED", DAMAGE, True))
    if s["ent_not_ready"][p, col, i]:
        tags.append(("not ready", "#ffffff" if s["ent_punk"][p, col, i] else MUTED, False))
    tx = x + w - 6
    for text, fill, bold in tags:
        c.text(tx, y + 12, text, size=10, fill=fill, bold=bold, anchor="end", italic=not bold)
        tx -= 62


def _columns(c: Canvas, s, p: int, y) -> None:
    """The three columns, front person on top, the camp at the back (bottom)."""
    for col in range(R.COLS):
        x = MARGIN + 10 + col * (COL_W + 12)
        n = int(s["col_len"][p, col])
        c.rect(x, y, COL_W, 3 * ENT_H + 18, fill="#f7f3ea", stroke="#b7ab94", rx=5)
        c.text(x + 6, y + 13, f"column {col + 1} (front on top)", size=10, fill=MUTED)
        for k, i in enumerate(range(n - 1, -1, -1)):
            row = 3 - n + k
            _ent_card(c, s, p, col, i, x + 6, y + 18 + row * ENT_H, COL_W - 12)


def _mini(c: Canvas, x, y, t: int, note="") -> None:
    """A small face-up deck card (hand or event queue): name, kind and cost."""
    event = t >= R.FIRST_EVENT
    band = RAIDERS_BAND if t == R.RAIDERS else (EVENT_BAND if event else PERSON_BAND)
    name = S.RAIDERS_NAME if t == R.RAIDERS else S.CARD_NAMES[t]
    kind = "event" if event else "person"
    body = note or (f"{kind} · cost {_cost(D.DECK_TYPE_COST[t])}" if t != R.RAIDERS else "")
    c.card(x, y, MINI_W, MINI_H, title=name, band=band, lines=(body,) if body else (), size=10)


def _queue(c: Canvas, s, p, y) -> None:
    c.text(MARGIN + 10, y + 12, "event queue:", size=11, bold=True)
    for k in range(3):
        x = MARGIN + 100 + k * (MINI_W + 8)
        code = int(s["queue"][p, k])
        if code < 0:
            c.rect(x, y, MINI_W, MINI_H, stroke=MUTED, rx=4, dash="4,3")
            c.text(
                x + MINI_W / 2, y + 27, f"slot {k + 1}: empty", size=10, fill=MUTED, anchor="middle"
            )
        else:
            _mini(c, x, y, code, note=f"slot {k + 1}")


def _hand(c: Canvas, s, p, y, viewer) -> None:
    size = int(s["hand"][p].sum())
    c.text(MARGIN + 10, y + 12, f"hand: {size}", size=11, bold=True)
    if s["silo_in_hand"][p]:
        c.text(MARGIN + 10, y + 28, "+ Water Silo", size=10, fill=WATER, bold=True)
    x0 = MARGIN + 100
    if size == 0:
        c.text(x0, y + 12, "(empty)", size=11, fill=MUTED)
    elif viewer != p:
        label = f"{size} card(s), hidden"
        c.card(x0, y, MINI_W + 30, MINI_H, face_down=True, face_down_label=label)
    if viewer != p:
        if s["silo_in_hand"][p]:
            c.card(
                x0 + MINI_W + 38,
                y,
                MINI_W,
                MINI_H,
                title="Water Silo",
                band=WATER,
                lines=("junk it: gain water",),
                size=10,
            )
        return
    cards = [t for t in range(R.N_DT) for _ in range(int(s["hand"][p, t]))]
    for k, t in enumerate(cards):
        _mini(c, x0 + (k % MINI_PER_LINE) * (MINI_W + 6), y + (k // MINI_PER_LINE) * 48, t)


def _draft(c: Canvas, s, p, y, viewer) -> None:
    """The camp draft: offers are secret to their owner (public with first-game camps)."""
    first_game = bool((s["offer"][:, 3:] < 0).all())
    kept = int(s["kept_n"][p])
    c.text(MARGIN + 10, y + 14, f"camp draft: kept {kept} of 3", size=12, bold=True)
    if viewer != p and not first_game:
        c.card(
            MARGIN + 10,
            y + 24,
            260,
            70,
            face_down=True,
            face_down_label="6 camps offered (hidden)",
            size=11,
        )
        return
    for k, camp in enumerate(int(v) for v in s["offer"][p]):
        if camp < 0:
            continue
        x = MARGIN + 10 + k * 178
        taken = bool(s["kept"][p, k])
        c.card(
            x,
            y + 24,
            170,
            96,
            title=S.CAMP_NAMES[camp],
            band=CAMP_BAND[0],
            size=10,
            lines=(
                _kept_text(s, p, camp) if taken else "offered",
                f"draws {int(D.CAMP_DRAW[camp])}",
                D.CAMP_SUMMARIES[camp],
            ),
            highlight=taken,
        )


def _kept_text(s, p: int, camp: int) -> str:
    """Keeping order is column order (RAD-S3)."""
    order = [int(x) for x in s["camp"][p, : int(s["kept_n"][p])]]
    return f"KEPT: column {order.index(camp) + 1}" if camp in order else "KEPT"


def _player(c: Canvas, s, p: int, y, viewer) -> None:
    phase = int(s["phase"])
    active = p == int(s["current_player"]) and phase != R.PHASE_OVER
    draft = phase == R.PHASE_DRAFT
    standing = int((s["camp_state"][p] != 2).sum()) if not draft else 3
    tags = [
        name
        for name, on in (
            ("TO ACT", active),
            ("turn", not draft and phase != R.PHASE_OVER and p == int(s["turn_player"])),
            ("first player", not draft and p == int(s["first_player"])),
            ("you", viewer == p),
            ("WINNER", bool(s["terminated"]) and p == int(s["winner"])),
        )
        if on
    ]
    head = f"Player {p}" + (f" ({', '.join(tags)})" if tags else "")
    c.label_box(
        MARGIN,
        y,
        WIDTH - 2 * MARGIN,
        _player_height(s, p, viewer) - 8,
        head,
        active=active,
        fill="#fff7e6" if active else "#ffffff",
        heading_size=13,
    )
    score = "drafting camps" if draft else f"camps standing: {standing} of 3"
    if phase == R.PHASE_OVER:
        score = f"final score: {int(s['score'][p])} camps"
    c.text(WIDTH - 2 * MARGIN - 4, y + 19, score, size=14, bold=True, anchor="end")
    if not draft and p == int(s["turn_player"]) and phase != R.PHASE_OVER:
        c.token(WIDTH - 290, y + 14, 9, WATER, label=str(int(s["water"])))
        c.text(WIDTH - 276, y + 19, "water", size=12)
    flags = _flags(s, p)
    if flags:
        c.text(MARGIN + 400, y + 19, flags, size=11, fill=MUTED)
    _queue(c, s, p, y + 28)
    _hand(c, s, p, y + 78, viewer)
    board = y + 82 + 48 * _hand_rows(s, p, viewer)
    if draft:
        _draft(c, s, p, board, viewer)
    else:
        _columns(c, s, p, board)


def _hand_rows(s, p: int, viewer) -> int:
    """Lines of hand cards: a face-down hand takes one; the viewer's own may need more."""
    if viewer != p:
        return 1
    return max(1, -(-int(s["hand"][p].sum()) // MINI_PER_LINE))


def _player_height(s, p: int, viewer) -> int:
    return 82 + 48 * _hand_rows(s, p, viewer) + 3 * ENT_H + 18 + 16


def _flags(s, p: int) -> str:
    flags = []
    if s["juggernaut_moves"][p]:
        flags.append(f"Juggernaut moved {int(s['juggernaut_moves'][p])}x")
    if s["high_ground"][p]:
        flags.append("High Ground this turn")
    if s["entered_this_turn"][p]:
        flags.append(f"{int(s['entered_this_turn'][p])} entered this turn")
    return " · ".join(flags)


def draw(states: np.ndarray, g: int, viewer: int | None = None) -> str:
    """An SVG picture of game ``g`` as seat ``viewer`` sees it (None: the public view)."""
    s = states[g]
    if viewer is not None and viewer not in range(R.N_PLAYERS):
        raise ValueError(f"viewer must be None, 0 or 1, got {viewer!r}")
    top = HEADER_H + LEGEND_H + SHARED_H + 16
    # The viewer sits at the bottom, as across a table; the public view puts player 0 there.
    bottom = 0 if viewer is None else viewer
    order = (1 - bottom, bottom)
    heights = [_player_height(s, p, viewer) for p in order]
    c = Canvas(WIDTH, top + sum(heights), title="Radlands")
    _header(c, s, viewer)
    _legend(c, HEADER_H + 12)
    _shared(c, states, g, HEADER_H + LEGEND_H + 4, viewer)
    _player(c, s, order[0], top, viewer)
    _player(c, s, order[1], top + heights[0], viewer)
    return c.to_svg()


def scores(states: np.ndarray, g: int) -> list[int]:
    """Each player's camps still standing (the final score once the game is over), for
    charts; 3 each during the camp draft."""
    s = states[g]
    if int(s["phase"]) == R.PHASE_OVER:
        return [int(v) for v in s["score"][: R.N_PLAYERS]]
    if int(s["phase"]) == R.PHASE_DRAFT:
        return [3] * R.N_PLAYERS
    return [int((s["camp_state"][p] != 2).sum()) for p in range(R.N_PLAYERS)]


__all__ = ["WIDTH", "draw", "scores"]
