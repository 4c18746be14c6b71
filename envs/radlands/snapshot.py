"""Radlands snapshots (``to_dict``/``from_dict``), action names and a text board.

A snapshot is a JSON-safe dict that names cards the way the card tables do (``"Railgun"``,
``"Assassin"``, ``"Banish"``). It round-trips byte for byte:
``from_dict(to_dict(states, g))[0].tobytes() == states[g].tobytes()``, RNG word included.

Conventions:

- Players are seat indices 0 and 1. Columns, positions, queue slots and offer numbers are
  1-based in text (``"col 2"``, ``"slot 1"``); lists in the snapshot are plain JSON lists.
- ``players[p].columns`` holds 3 columns, each a list of entities **back to front** (RAD-B2):
  a camp ``{"camp", "state", "used", "vera_used"}`` or a person ``{"person", "punk",
  "damaged", "ready", "uid", "vera_used"}``. A punk's ``person`` is the name of the face-down
  card (RAD-K3; it may be an event). ``ready`` is false while the person carries a not-ready
  marker (entered, restored or used this turn, RAD-R2); damage makes a person unready too and
  is shown separately. ``vera_used`` is Vera Vosh's per-card bookkeeping (option
  ``first_use_per_card``); the top-level ``vera_used`` is the per-turn reading's.
- ``deck`` lists the draw deck **top first**; ``discard`` lists the discard pile oldest first
  (the last entry is its top). ``hand`` is ``{name: count}``. ``queue`` is slots 1..3, each
  ``null``, an event name or ``"Raiders"`` (RAD-B1).
- ``draft`` holds each player's offered camps and the ones kept so far, in keeping order
  (keeping order is column order, RAD-S3). With ``first_game_camps`` the offers are the three
  fixed camps.
- ``vm`` is the effect machine: ``frames`` bottom to top (the top frame is running),
  ``lifted`` (the person High Ground is moving, else ``null``) and ``revealed`` (the cards
  last drawn or milled for a choice; Scientist's stay listed until the next such step).
  A frame names its program (``"Sniper ability 1"``, ``"Banish event"``, ``"junk injure"``,
  ``"Vanguard entering play"``, ``"Raiders"``) or, for the kernel's own steps, ``internal``
  plus ``arg``; ``pc``/``end`` are step indices into the program, ``then`` says what
  happens when the frame ends (``"discard Banish"``, ``"return Raiders"`` or ``null``).
- ``pending`` is ``{"decider": p, "options": [...]}`` in the decision phase, else ``null``.
  Options use the position-only labels of ``ACTION_LABELS`` (``"target opp col 1 pos 2"``).
- ``leftovers`` are values the kernel keeps in its arrays but never reads in this position
  (deck slots above the top, popped frames, the last decision's mask, ...). They carry no
  game meaning and exist only so the record is rebuilt byte for byte.

``from_dict`` checks every field and the cross-field invariants of a reachable position
(every one of the 66 deck cards in exactly one place, at most 2 people per column, uids,
phase and decider, the end of the game) and raises ``SnapshotError`` naming the first
problem; it never returns a partly filled state.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from meeple_gym.core import snapshot as core
from meeple_gym.radlands import data as D
from meeple_gym.radlands import rules as R
from meeple_gym.radlands.effects import OPS, TARGETS

GAME_NAME = "radlands"
SNAPSHOT_VERSION = 1


CAMP_KEYS = ("camp", "state", "used", "vera_used")
PERSON_KEYS = ("person", "punk", "damaged", "ready", "uid", "vera_used")
DRAFT_KEYS = ("offers", "kept")
VM_KEYS = ("frames", "lifted", "revealed")
PENDING_KEYS = ("decider", "options")
FRAME_COMMON = ("pc", "stage", "owner", "source_uid", "that_uid", "flags", "aux", "then")
PROGRAM_FRAME_KEYS = ("program", "end") + FRAME_COMMON
INTERNAL_FRAME_KEYS = ("internal", "arg") + FRAME_COMMON
LEFTOVER_KEYS = ("deck_tail", "discard_tail", "revealed_tail", "frames_tail", "lift", "mask")
# the raw frame fields, in the order of a ``leftovers.frames_tail`` row
FRAME_FIELDS = (
    "fr_prog",
    "fr_pc",
    "fr_end",
    "fr_stage",
    "fr_owner",
    "fr_src",
    "fr_that",
    "fr_flags",
    "fr_op",
    "fr_arg",
    "fr_aux",
    "fr_fin",
    "fr_fin_arg",
)
LIFT_FIELDS = ("lift_type", "lift_damaged", "lift_punk", "lift_not_ready", "lift_used_once")
# 0/1 fields written as true/false
FLAG_FIELDS = (
    "terminated",
    "truncated",
    "camp_used",
    "ent_damaged",
    "ent_punk",
    "ent_not_ready",
    "ent_used_once",
    "silo_in_hand",
    "reshuffled",
    "first_turn_done",
    "event_resolved",
    "raiders_resolved",
    "high_ground",
    "zeto_used",
    "vera_used",
    "in_events_phase",
)

CAMP_STATES = ("intact", "damaged", "destroyed")
VERA_READINGS = {R.VERA_PER_TURN: "first_use_per_turn", R.VERA_PER_CARD: "first_use_per_card"}
ZETO_READINGS = {R.ZETO_PLACED: "first_event_placed", R.ZETO_RESOLVED: "first_event_resolved"}
RAIDERS_NAME = "Raiders"
FIRST_PERSON_UID = 7  # camps hold uids 1..6
# Every new uid comes with a PLACE step, so a game under the step cap never issues more than
# STEP_CAP of them (the kernel's wrap at 30000 stays out of reach).
MAX_UID = FIRST_PERSON_UID + R.STEP_CAP
# Water a turn can reach: 3 per turn, +1 for the Water Silo, +1 per deck card junked or
# milled for water (66 at most) and +1 per use of a water ability (3 camps and 6 people, each
# used at most twice with Vera Vosh): under 100, so the int16 field never comes near a wrap.
MAX_WATER = 100
MAX_STAGE = 7  # the deepest op (Parachute Base) uses stages 0..4

CAMP_NAMES = D.CAMP_NAMES
CARD_NAMES = D.DECK_TYPE_NAMES  # deck types: people 0..25, events 26..35
_CAMP_INDEX = {name: i for i, name in enumerate(CAMP_NAMES)}
_CARD_INDEX = {name: t for t, name in enumerate(CARD_NAMES)}
assert len(_CAMP_INDEX) == len(CAMP_NAMES) and len(_CARD_INDEX) == len(CARD_NAMES)
_FIRST_GAME_SETS = (tuple(D.FIRST_GAME_A), tuple(D.FIRST_GAME_B))

_INT16_MAX = int(np.iinfo(np.int16).max)
_INT32_MAX = int(np.iinfo(np.int32).max)


def _program_names() -> dict[int, str]:
    names = {}
    for t in range(D.N_PERSON_TYPES):
        for k in range(2):
            if R.PERSON_PROG[t, k] >= 0:
                names[int(R.PERSON_PROG[t, k])] = f"{D.PERSON_NAMES[t]} ability {k + 1}"
        if R.ENTER_PROG[t] >= 0:
            names[int(R.ENTER_PROG[t])] = f"{D.PERSON_NAMES[t]} entering play"
    for c in range(D.N_CAMPS):
        for k in range(2):
            if R.CAMP_PROG[c, k] >= 0:
                names[int(R.CAMP_PROG[c, k])] = f"{CAMP_NAMES[c]} ability {k + 1}"
    for e in range(D.N_EVENT_TYPES):
        names[int(R.EVENT_PROG[e])] = f"{D.EVENT_NAMES[e]} event"
    for j, junk in enumerate(D.JUNK_NAMES):
        names[int(R.JUNK_PROG[j])] = f"junk {junk}"
    names[int(R.RAIDERS_PROG)] = RAIDERS_NAME
    return names


PROGRAM_NAMES = _program_names()
_PROGRAM_INDEX = {name: prog for prog, name in PROGRAM_NAMES.items()}
assert len(_PROGRAM_INDEX) == len(PROGRAM_NAMES)
# internal frames run one op: a table op (e.g. the punk after Training Camp flips an event) or
# one of the kernel's own (numbered from I_PLAY on); op code -> name
INTERNAL_OPS = {op: name.lower() for op, name in enumerate(OPS)}
INTERNAL_OPS.update({R.I_PLAY: "play_person", R.I_RESOLVE_EVENT: "resolve_event"})
_INTERNAL_INDEX = {name: op for op, name in INTERNAL_OPS.items()}
_OP = {name: i for i, name in enumerate(OPS)}


def _action_labels() -> tuple[str, ...]:
    """Position-only names of every action; pending options are written with these."""
    sides = ("own", "opp")
    labels = [f"keep offer {k + 1}" for k in range(6)]
    labels += [f"play {name}" for name in D.PERSON_NAMES]
    labels += [f"play {name}" for name in D.EVENT_NAMES]
    labels += [f"junk {name}" for name in CARD_NAMES]
    labels += ["junk Water Silo", "take Water Silo", "draw"]
    labels += [
        f"use col {c + 1} pos {i + 1} ability {k + 1}"
        for c in range(R.COLS)
        for i in range(R.DEPTH)
        for k in range(3)
    ]
    labels.append("end turn")
    labels += [
        f"target {sides[side]} col {c + 1} pos {i + 1}"
        for side in range(2)
        for c in range(R.COLS)
        for i in range(R.DEPTH)
    ]
    labels += [f"place col {c + 1} pos {i + 1}" for c in range(R.COLS) for i in range(R.DEPTH)]
    labels += [f"choose {k + 1}" for k in range(R.A_SELECT_HAND - R.A_CHOOSE)]
    labels += [f"select {name}" for name in CARD_NAMES]
    labels += [f"select {sides[side]} col {c + 1}" for side in range(2) for c in range(R.COLS)]
    labels += [f"select {sides[side]} slot {j + 1}" for side in range(2) for j in range(3)]
    labels.append("skip")
    return tuple(labels)


ACTION_LABELS = _action_labels()
assert len(ACTION_LABELS) == R.NUM_ACTIONS and len(set(ACTION_LABELS)) == R.NUM_ACTIONS
_LABEL_INDEX = {label: a for a, label in enumerate(ACTION_LABELS)}
_DECISION_FIRST = R.A_TARGET  # decisions use TARGET .. SKIP only


# ---- to_dict ---------------------------------------------------------------------------------


def _writable(s):
    """Refuse records that the snapshot cannot spell or whose derived fields ``from_dict``
    would rebuild differently (only a corrupted record fails here)."""
    if int(s["num_players"]) != R.N_PLAYERS:
        core.refuse(f"num_players is {int(s['num_players'])}, Radlands is a 2-player game")
    # sizes and codes first: everything below indexes with them
    core.check_codes(s["phase"], "phase", 0, len(R.PHASE_NAMES) - 1)
    core.check_codes(s["depth"], "depth", 0, R.MAX_FRAMES)
    core.check_codes(s["deck_n"], "deck_n", 0, R.DECK_SIZE)
    core.check_codes(s["discard_n"], "discard_n", 0, R.DECK_SIZE)
    core.check_codes(s["revealed_n"], "revealed_n", 0, len(s["revealed"]))
    core.check_codes(s["kept_n"], "kept_n", 0, 3)
    core.check_codes(s["col_len"], "col_len", 0, R.DEPTH)
    # flags are written as true/false and codes as names: other values have no spelling
    for name in FLAG_FIELDS:
        core.check_codes(s[name], name, 0, 1)
    if s["lift_uid"] != 0:
        for name in LIFT_FIELDS[1:]:
            core.check_codes(s[name], name, 0, 1)
        core.check_codes(s["lift_type"], "lift_type", 0, R.N_DT - 1)
    core.check_codes(s["pend_mask"], "pend_mask", 0, 1)
    core.check_codes(s["camp_state"], "camp_state", 0, len(CAMP_STATES) - 1)
    if int(s["opt_vera"]) not in VERA_READINGS or int(s["opt_zeto"]) not in ZETO_READINGS:
        core.refuse("opt_vera or opt_zeto is not a known reading")
    core.check_codes(s["opt_raiders_slot"], "opt_raiders_slot", 2, 3)
    core.check_codes(s["winner"], "winner", -1, R.N_PLAYERS - 1)
    core.check_codes(s["deck"], "deck", 0, R.N_DT - 1)
    core.check_codes(s["discard"], "discard", -1, R.N_DT - 1)
    core.check_codes(s["revealed"], "revealed", -1, R.N_DT - 1)
    core.check_codes(s["queue"], "queue", -1, R.RAIDERS)
    core.check_codes(s["offer"], "offer", -1, D.N_CAMPS - 1)
    core.check_codes(s["camp"], "camp", -1, D.N_CAMPS - 1)
    if s["phase"] != R.PHASE_OVER and (s["score"] != 0).any():
        core.refuse("a score is set before the game is over")
    if not s["terminated"] and s["winner"] != -1:
        core.refuse("a winner is set in a game that has not ended")
    for p in range(R.N_PLAYERS):
        _check_draft_fields(s, p)
        for c in range(R.COLS):
            _check_column_fields(s, p, c)
    for d in range(int(s["depth"])):
        _check_frame_fields(s, d)


def _check_draft_fields(s, p: int):
    n_kept = int(s["kept_n"][p])
    kept_camps = [int(x) for x in s["camp"][p, :n_kept]]
    offer = [int(x) for x in s["offer"][p]]
    flags = [1 if x >= 0 and x in kept_camps else 0 for x in offer]
    if flags != [int(x) for x in s["kept"][p]] or (s["camp"][p, n_kept:] != -1).any():
        core.refuse(f"player {p}'s kept flags and camps do not match the kept camps")
    live = [x for x in offer if x >= 0]
    if offer != live + [-1] * (6 - len(live)):
        core.refuse(f"player {p}'s offer has a gap")


def _check_column_fields(s, p: int, c: int):
    n = int(s["col_len"][p, c])
    for i in range(R.DEPTH):
        kind = int(s["ent_kind"][p, c, i])
        uid = int(s["ent_uid"][p, c, i])
        extras = (
            int(s["ent_damaged"][p, c, i]),
            int(s["ent_punk"][p, c, i]),
            int(s["ent_not_ready"][p, c, i]),
        )
        if i >= n:
            blank = kind == R.EMPTY and s["ent_type"][p, c, i] == -1 and uid == 0
            if not blank or any(extras) or s["ent_used_once"][p, c, i]:
                core.refuse(f"the empty place ({p}, {c}, {i}) holds values")
        elif kind == R.CAMP:
            bare = s["ent_type"][p, c, i] == -1 and not any(extras) and s["camp"][p, c] >= 0
            if not bare or uid != p * R.COLS + c + 1:
                core.refuse(f"the camp entity ({p}, {c}, {i}) has person fields or a wrong uid")
        elif kind == R.PERSON:
            core.check_codes(s["ent_type"][p, c, i], "ent_type", 0, R.N_DT - 1)
        else:
            core.refuse(f"entity ({p}, {c}, {i}) has kind {kind}")


def _check_frame_fields(s, d: int):
    prog, op, fin = int(s["fr_prog"][d]), int(s["fr_op"][d]), int(s["fr_fin"][d])
    core.check_codes(fin, "fr_fin", R.FIN_NONE, R.FIN_RAIDERS)
    if prog != R.INTERNAL and (op != 0 or s["fr_arg"][d] != 0):
        core.refuse(f"program frame {d} has op/arg set")
    if prog == R.INTERNAL and (s["fr_end"][d] != 1 or fin != R.FIN_NONE):
        core.refuse(f"internal frame {d} has end {int(s['fr_end'][d])} or a finish")
    if fin == R.FIN_DISCARD:
        core.check_codes(s["fr_fin_arg"][d], "fr_fin_arg", R.FIRST_EVENT, R.N_DT - 1)
    elif s["fr_fin_arg"][d] != 0:
        core.refuse(f"frame {d} has a finishing card but no discard")
    if prog == R.INTERNAL and op == R.I_PLAY:
        core.check_codes(s["fr_arg"][d], "fr_arg", 0, D.N_PERSON_TYPES - 1)
    elif prog == R.INTERNAL and op == R.I_RESOLVE_EVENT:
        core.check_codes(s["fr_arg"][d], "fr_arg", R.FIRST_EVENT, R.RAIDERS)


def _entity_dict(s, p: int, c: int, i: int) -> dict:
    if int(s["ent_kind"][p, c, i]) == R.CAMP:
        return {
            "camp": CAMP_NAMES[int(s["camp"][p, c])],
            "state": CAMP_STATES[int(s["camp_state"][p, c])],
            "used": bool(s["camp_used"][p, c]),
            "vera_used": bool(s["ent_used_once"][p, c, i]),
        }
    return {
        "person": CARD_NAMES[int(s["ent_type"][p, c, i])],
        "punk": bool(s["ent_punk"][p, c, i]),
        "damaged": bool(s["ent_damaged"][p, c, i]),
        "ready": not s["ent_not_ready"][p, c, i],
        "uid": int(s["ent_uid"][p, c, i]),
        "vera_used": bool(s["ent_used_once"][p, c, i]),
    }


def _queue_name(code: int):
    if code < 0:
        return None
    return RAIDERS_NAME if code == R.RAIDERS else CARD_NAMES[code]


def _then_text(fin: int, fin_arg: int):
    if fin == R.FIN_DISCARD:
        return f"discard {CARD_NAMES[fin_arg]}"
    if fin == R.FIN_RAIDERS:
        return f"return {RAIDERS_NAME}"
    return None


def _frame_dict(s, d: int) -> dict:
    prog = int(s["fr_prog"][d])
    common = {
        "pc": int(s["fr_pc"][d]),
        "stage": int(s["fr_stage"][d]),
        "owner": int(s["fr_owner"][d]),
        "source_uid": int(s["fr_src"][d]),
        "that_uid": int(s["fr_that"][d]),
        "flags": int(s["fr_flags"][d]),
        "aux": int(s["fr_aux"][d]),
        "then": _then_text(int(s["fr_fin"][d]), int(s["fr_fin_arg"][d])),
    }
    if prog != R.INTERNAL:
        if prog not in PROGRAM_NAMES:
            core.refuse(f"frame {d} runs program {prog}, which no card owns")
        return {"program": PROGRAM_NAMES[prog], "end": int(s["fr_end"][d]), **common}
    op, arg = int(s["fr_op"][d]), int(s["fr_arg"][d])
    if op not in INTERNAL_OPS:
        core.refuse(f"internal frame {d} runs op {op}")
    if op == R.I_PLAY:
        arg_value = CARD_NAMES[arg]
    elif op == R.I_RESOLVE_EVENT:
        arg_value = _queue_name(arg)
    else:
        arg_value = arg
    return {"internal": INTERNAL_OPS[op], "arg": arg_value, **common}


def _trim(values: list, default) -> list:
    while values and values[-1] == default:
        values.pop()
    return values


def _leftovers(s) -> dict:
    deck_n, discard_n = int(s["deck_n"]), int(s["discard_n"])
    revealed_n, depth = int(s["revealed_n"]), int(s["depth"])
    frames = [[int(s[f][d]) for f in FRAME_FIELDS] for d in range(depth, R.MAX_FRAMES)]
    live_lift = int(s["lift_uid"]) != 0
    live_mask = int(s["phase"]) == R.PHASE_DECISION
    return {
        "deck_tail": [_queue_name(int(t)) for t in s["deck"][deck_n:]],
        "discard_tail": _trim([_queue_name(int(t)) for t in s["discard"][discard_n:]], None),
        "revealed_tail": _trim([_queue_name(int(t)) for t in s["revealed"][revealed_n:]], None),
        "frames_tail": _trim(frames, [0] * len(FRAME_FIELDS)),
        "lift": None if live_lift else [int(s[f]) for f in LIFT_FIELDS],
        "mask": [] if live_mask else [ACTION_LABELS[a] for a in np.flatnonzero(s["pend_mask"])],
    }


def _accounted(s) -> Counter:
    """Deck cards in a known place: piles, hands, board, queues, the effect stack."""
    seen = Counter()
    seen.update(int(t) for t in s["deck"][: int(s["deck_n"])])
    seen.update(int(t) for t in s["discard"][: int(s["discard_n"])])
    for p in range(R.N_PLAYERS):
        for t in range(R.N_DT):
            seen[t] += int(s["hand"][p, t])
        for c in range(R.COLS):
            for i in range(int(s["col_len"][p, c])):
                if s["ent_kind"][p, c, i] == R.PERSON:
                    seen[int(s["ent_type"][p, c, i])] += 1
        seen.update(int(e) for e in s["queue"][p] if 0 <= e < R.RAIDERS)
    if s["lift_uid"] != 0:
        seen[int(s["lift_type"])] += 1
    for d in range(int(s["depth"])):
        if s["fr_fin"][d] == R.FIN_DISCARD:
            seen[int(s["fr_fin_arg"][d])] += 1
        elif _holds_unresolved_event(int(s["fr_prog"][d]), int(s["fr_op"][d]), s["fr_pc"][d]):
            seen[int(s["fr_arg"][d])] += 1
    return seen


def _holds_unresolved_event(prog, op, pc) -> bool:
    # an event taken out of hand or queue whose resolve step has not run yet
    return prog == R.INTERNAL and op == R.I_RESOLVE_EVENT and pc == 0


def _columns(c, p: int) -> list:
    s = c.s
    return [
        [_entity_dict(s, p, col, i) for i in range(int(s["col_len"][p, col]))]
        for col in range(R.COLS)
    ]


def _draft_dict(c) -> dict:
    s = c.s
    kept = [[CAMP_NAMES[int(x)] for x in s["camp"][p, : int(s["kept_n"][p])]] for p in range(2)]
    return {
        "offers": [[CAMP_NAMES[int(x)] for x in s["offer"][p] if x >= 0] for p in range(2)],
        "kept": kept,
    }


def _lifted_dict(s) -> dict | None:
    if s["lift_uid"] == 0:
        return None
    return {
        "person": CARD_NAMES[int(s["lift_type"])],
        "punk": bool(s["lift_punk"]),
        "damaged": bool(s["lift_damaged"]),
        "ready": not s["lift_not_ready"],
        "uid": int(s["lift_uid"]),
        "vera_used": bool(s["lift_used_once"]),
    }


def _vm_dict(c) -> dict:
    s = c.s
    return {
        "frames": [_frame_dict(s, d) for d in range(int(s["depth"]))],
        "lifted": _lifted_dict(s),
        "revealed": [CARD_NAMES[int(t)] for t in s["revealed"][: int(s["revealed_n"])]],
    }


def _pending_dict(c) -> dict | None:
    s = c.s
    if int(s["phase"]) != R.PHASE_DECISION:
        return None
    return {
        "decider": int(s["current_player"]),
        "options": [ACTION_LABELS[a] for a in np.flatnonzero(s["pend_mask"])],
    }


def _first_game(c) -> bool:
    return bool((c.s["offer"][:, 3:] < 0).all())


# ---- from_dict: field readers ----------------------------------------------------------------


def _player(value, path: str) -> int:
    return core.read_int(value, path, 0, R.N_PLAYERS - 1, "player index")


def _card(value, path: str) -> int:
    return core.read_key(value, path, _CARD_INDEX, "card name")


def _card_or_none(value, path: str) -> int:
    return -1 if value is None else _card(value, path)


def _camp(value, path: str) -> int:
    return core.read_key(value, path, _CAMP_INDEX, "camp name")


def _queue_code(value, path: str) -> int:
    if value is None:
        return -1
    if value == RAIDERS_NAME:
        return R.RAIDERS
    t = _card(value, path)
    if t < R.FIRST_EVENT:
        core.fail(path, f"{value!r} is a person; only events and Raiders enter a queue (RAD-B1)")
    return t


def _label(value, path: str) -> int:
    return core.read_key(value, path, _LABEL_INDEX, "action label")


# ---- from_dict -------------------------------------------------------------------------------


def _check_vera_turn(ctx: core.ReadCall):
    if ctx.s["vera_used"] and ctx.s["opt_vera"] != R.VERA_PER_TURN:
        core.fail("vera_used", "only the 'first_use_per_turn' reading of Vera Vosh sets it")


def _read_draft(ctx: core.ReadCall):
    """Offers and kept camps (RAD-S3); fills offer, kept, kept_n and camp."""
    snap, s = ctx.snap, ctx.s
    draft = core.read_obj(snap["draft"], "draft", DRAFT_KEYS)
    offers = core.read_list(draft["offers"], "draft.offers", R.N_PLAYERS)
    kept = core.read_list(draft["kept"], "draft.kept", R.N_PLAYERS)
    first_game = snap["options"]["first_game_camps"]
    offered_anywhere: dict[int, str] = {}
    s["offer"][:, :] = -1
    s["camp"][:, :] = -1
    for p in range(R.N_PLAYERS):
        path = f"draft.offers[{p}]"
        row = [_camp(x, f"{path}[{k}]") for k, x in enumerate(core.read_list(offers[p], path))]
        if first_game:
            # RAD-S3: no draft, player 0 gets set A and player 1 set B, in column order
            if tuple(row) != _FIRST_GAME_SETS[p]:
                want = [CAMP_NAMES[c] for c in _FIRST_GAME_SETS[p]]
                core.fail(path, f"with first_game_camps player {p} is offered exactly {want}")
        elif len(row) != 6:
            core.fail(path, f"each player is offered 6 camps (RAD-S3), got {len(row)}")
        for k, c in enumerate(row):
            if c in offered_anywhere:
                core.fail(
                    f"{path}[{k}]", f"{CAMP_NAMES[c]!r} is also offered at {offered_anywhere[c]}"
                )
            offered_anywhere[c] = f"{path}[{k}]"
        s["offer"][p, : len(row)] = row
        kpath = f"draft.kept[{p}]"
        picks = [
            _camp(x, f"{kpath}[{k}]") for k, x in enumerate(core.read_list(kept[p], kpath, most=3))
        ]
        for k, c in enumerate(picks):
            if c not in row:
                core.fail(f"{kpath}[{k}]", f"{CAMP_NAMES[c]!r} was not offered to player {p}")
            if c in picks[:k]:
                core.fail(f"{kpath}[{k}]", f"{CAMP_NAMES[c]!r} is kept twice")
            s["kept"][p, row.index(c)] = 1
            s["camp"][p, k] = c
        s["kept_n"][p] = len(picks)
        if first_game and len(picks) != 3:
            core.fail(kpath, "with first_game_camps all three camps are kept at the start")


def _read_players(ctx: core.ReadCall):
    s = ctx.s
    players = core.read_list(ctx.snap["players"], "players", R.N_PLAYERS)
    draft_over = int(s["kept_n"].min()) == 3
    uids: dict[int, str] = {}
    for p in range(R.N_PLAYERS):
        path = f"players[{p}]"
        player = core.read_obj(players[p], path, PLAYER_KEYS)
        cols = core.read_list(player["columns"], f"{path}.columns", R.COLS)
        for c in range(R.COLS):
            _read_column(s, p, c, cols[c], f"{path}.columns[{c}]", draft_over, uids)
        core.read_table(player, path, PLAYER, ctx, (p,), keys=("juggernaut_moves",))
        moves = int(s["juggernaut_moves"][p])
        camps = [int(x) for x in s["camp"][p]]
        if moves and D.CAMP_ID["juggernaut"] not in camps:
            core.fail(f"{path}.juggernaut_moves", f"player {p} has no Juggernaut")
        if moves and s["camp_state"][p, camps.index(D.CAMP_ID["juggernaut"])] == 2:
            core.fail(
                f"{path}.juggernaut_moves",
                "a destroyed Juggernaut is back on its starting spot, no moves (subtleties §15)",
            )
        for c in range(R.COLS if draft_over else 0):
            _check_camp_place(s, p, c, f"{path}.columns[{c}]")
        hand = player["hand"]
        if not isinstance(hand, dict):
            core.fail(f"{path}.hand", f"expected an object, got {type(hand).__name__}")
        for name, count in hand.items():
            t = _card(name, f"{path}.hand")
            s["hand"][p, t] = core.read_int(
                count, f"{path}.hand[{name!r}]", 1, R.DECK_SIZE, "count"
            )
        core.read_table(player, path, PLAYER, ctx, (p,), keys=("silo_in_hand",))
        queue = core.read_list(player["queue"], f"{path}.queue", 3)
        for j in range(3):
            code = _queue_code(queue[j], f"{path}.queue[{j}]")
            if (
                code >= R.FIRST_EVENT
                and code != R.RAIDERS
                and D.EVENT_BOMB[code - R.FIRST_EVENT] == 0
            ):
                core.fail(f"{path}.queue[{j}]", f"{queue[j]!r} has bomb 0 and never waits (RAD-A4)")
            if code == R.RAIDERS and R.RAIDERS in [int(x) for x in s["queue"][p, :j]]:
                core.fail(f"{path}.queue[{j}]", "each player has one Raiders card (RAD-S4)")
            s["queue"][p, j] = code
        core.read_table(player, path, PLAYER, ctx, (p,), keys=_LAST_PLAYER_FLAGS)


def _read_column(s, p: int, c: int, raw, path: str, draft_over: bool, uids: dict):
    """One column, back to front (RAD-B2): its camp and at most 2 people."""
    s["ent_type"][p, c, :] = -1
    entities = core.read_list(raw, path)
    if not draft_over:
        if entities:
            core.fail(path, "columns stay empty until both players have kept 3 camps (RAD-S3)")
        return
    people = sum(1 for e in entities if isinstance(e, dict) and "person" in e)
    if people > R.DEPTH - 1:
        core.fail(path, f"{people} people in one column; at most 2 are allowed (RAD-B2)")
    camps = [i for i, e in enumerate(entities) if isinstance(e, dict) and "camp" in e]
    if len(camps) != 1 or len(entities) > R.DEPTH:
        core.fail(path, f"a column holds exactly one camp, got {len(camps)}")
    s["col_len"][p, c] = len(entities)
    for i, raw_entity in enumerate(entities):
        epath = f"{path}[{i}]"
        if isinstance(raw_entity, dict) and "camp" in raw_entity:
            _read_camp(s, p, c, i, raw_entity, epath)
        else:
            _read_person(s, p, c, i, raw_entity, epath, uids)


def _read_camp(s, p: int, c: int, i: int, raw, path: str):
    entity = core.read_obj(raw, path, CAMP_KEYS)
    camp = _camp(entity["camp"], f"{path}.camp")
    if camp != s["camp"][p, c]:
        want = CAMP_NAMES[int(s["camp"][p, c])]
        core.fail(
            f"{path}.camp",
            f"column {c + 1} holds player {p}'s kept camp {want!r}, got "
            f"{entity['camp']!r} (kept order is column order, RAD-S3)",
        )
    state = core.read_str(entity["state"], f"{path}.state")
    if state not in CAMP_STATES:
        core.fail(
            f"{path}.state", f"unknown camp state {state!r} (expected {', '.join(CAMP_STATES)})"
        )
    s["camp_state"][p, c] = CAMP_STATES.index(state)
    s["camp_used"][p, c] = core.read_bool(entity["used"], f"{path}.used")
    if i > 0 and (camp != D.CAMP_ID["juggernaut"] or state == "destroyed"):
        # only an undestroyed Juggernaut moves forward; a destroyed one goes back
        core.fail(path, f"{entity['camp']!r} must stand at the back of its column")
    s["ent_kind"][p, c, i] = R.CAMP
    s["ent_uid"][p, c, i] = p * R.COLS + c + 1  # camps keep the uid the draft gave them
    s["ent_used_once"][p, c, i] = _vera_flag(s, entity["vera_used"], f"{path}.vera_used")


def camp_space(s, p: int, c: int) -> int:
    """The space of column c's camp: Juggernaut's moves made, 0 for any other camp."""
    return int(s["juggernaut_moves"][p]) if s["camp"][p, c] == D.CAMP_ID["juggernaut"] else 0


def _camp_index(s, p: int, c: int) -> int:
    kinds = [int(k) for k in s["ent_kind"][p, c, : int(s["col_len"][p, c])]]
    return kinds.index(R.CAMP)


def _camp_index_after_place(s, p: int, c: int, i: int) -> int:
    """Where the camp stands once a newcomer takes final index i of column c (docs: board
    model), or -1 when i is no legal spot there."""
    people = int(s["col_len"][p, c]) - 1
    if people < 0 or people >= R.DEPTH - 1 or i > people + 1:
        return -1
    space = camp_space(s, p, c)
    for behind in range(max(0, people + 1 + space - 2), min(space, people + 1) + 1):
        if behind != i:
            return behind
    return -1


def _swaps_with(s, p: int, c: int, i: int) -> bool:
    """High Ground: PLACE on person (p, c, i) of a full column swaps the lifted one in."""
    return int(s["col_len"][p, c]) == R.DEPTH and s["ent_kind"][p, c, i] == R.PERSON


def _check_camp_place(s, p: int, c: int, path: str):
    # docs "board model": a camp on space j has at most j people behind it and at most
    # 2 - j in front (subtleties §15)
    people = int(s["col_len"][p, c]) - 1
    space = camp_space(s, p, c)
    behind = _camp_index(s, p, c)
    if not max(0, people + space - 2) <= behind <= min(space, people):
        core.fail(
            path,
            f"the camp stands on space {space + 1} of 3, so it cannot have {behind} people "
            f"behind it and {people - behind} in front",
        )


def _vera_flag(s, value, path: str) -> bool:
    flag = core.read_bool(value, path)
    if flag and s["opt_vera"] != R.VERA_PER_CARD:
        core.fail(path, "only the 'first_use_per_card' reading of Vera Vosh sets it")
    return flag


def _read_person_fields(s, raw, path: str, uids: dict) -> tuple:
    entity = core.read_obj(raw, path, PERSON_KEYS)
    t = _card(entity["person"], f"{path}.person")
    punk = core.read_bool(entity["punk"], f"{path}.punk")
    if not punk and t >= R.FIRST_EVENT:
        core.fail(f"{path}.person", f"{entity['person']!r} is an event; only a punk hides one")
    damaged = core.read_bool(entity["damaged"], f"{path}.damaged")
    if punk and damaged:
        core.fail(f"{path}.damaged", "a punk is destroyed by any damage, never damaged (RAD-K3)")
    ready = core.read_bool(entity["ready"], f"{path}.ready")
    top = int(s["next_uid"]) - 1
    uid = core.read_int(entity["uid"], f"{path}.uid", FIRST_PERSON_UID, top, "person uid")
    if uid in uids:
        core.fail(f"{path}.uid", f"uid {uid} is also used at {uids[uid]}")
    uids[uid] = path
    used_once = _vera_flag(s, entity["vera_used"], f"{path}.vera_used")
    return t, punk, damaged, not ready, uid, used_once


def _read_person(s, p: int, c: int, i: int, raw, path: str, uids: dict):
    t, punk, damaged, not_ready, uid, used_once = _read_person_fields(s, raw, path, uids)
    s["ent_kind"][p, c, i] = R.PERSON
    s["ent_type"][p, c, i] = t
    s["ent_punk"][p, c, i] = punk
    s["ent_damaged"][p, c, i] = damaged
    s["ent_not_ready"][p, c, i] = not_ready
    s["ent_uid"][p, c, i] = uid
    s["ent_used_once"][p, c, i] = used_once


def _read_piles(ctx: core.ReadCall):
    snap, s = ctx.snap, ctx.s
    deck = [
        _card(x, f"deck[{k}]")
        for k, x in enumerate(core.read_list(snap["deck"], "deck", most=R.DECK_SIZE))
    ]
    s["deck"][: len(deck)] = deck[::-1]  # the snapshot lists the top first
    s["deck_n"] = len(deck)
    path = "discard"
    pile = [
        _card(x, f"{path}[{k}]")
        for k, x in enumerate(core.read_list(snap[path], path, most=R.DECK_SIZE))
    ]
    s["discard"][: len(pile)] = pile
    s["discard_n"] = len(pile)


def _read_vm(ctx: core.ReadCall):
    snap, s = ctx.snap, ctx.s
    vm = core.read_obj(snap["vm"], "vm", VM_KEYS)
    frames = core.read_list(vm["frames"], "vm.frames", most=R.MAX_FRAMES)
    s["depth"] = len(frames)
    for d, raw in enumerate(frames):
        _read_frame(s, d, raw, f"vm.frames[{d}]")
    if vm["lifted"] is not None:
        uids = {}
        for p in range(R.N_PLAYERS):
            for c in range(R.COLS):
                for i in range(int(s["col_len"][p, c])):
                    if s["ent_kind"][p, c, i] == R.PERSON:
                        uids[int(s["ent_uid"][p, c, i])] = "a column"
        fields = _read_person_fields(s, vm["lifted"], "vm.lifted", uids)
        t, punk, damaged, not_ready, uid, used_once = fields
        s["lift_type"], s["lift_punk"], s["lift_damaged"] = t, punk, damaged
        s["lift_not_ready"], s["lift_uid"], s["lift_used_once"] = not_ready, uid, used_once
    revealed = core.read_list(vm["revealed"], "vm.revealed", most=4)
    for k, name in enumerate(revealed):
        s["revealed"][k] = _card(name, f"vm.revealed[{k}]")
    s["revealed_n"] = len(revealed)
    s["revealed"][len(revealed) :] = -1

    phase = int(s["phase"])
    pending = snap["pending"]
    if phase != R.PHASE_DECISION:
        if pending is not None:
            core.fail(
                "pending",
                f"only the decision phase has a pending decision, not {R.PHASE_NAMES[phase]!r}",
            )
        return
    if pending is None:
        core.fail("pending", "the decision phase needs a pending decision, got null")
    pending = core.read_obj(pending, "pending", PENDING_KEYS)
    decider = _player(pending["decider"], "pending.decider")
    if decider != s["current_player"]:
        core.fail(
            "pending.decider",
            f"the decider {decider} must be current_player {int(s['current_player'])}",
        )
    options = core.read_list(pending["options"], "pending.options")
    if not options:
        core.fail("pending.options", "a pending decision needs at least one legal option")
    for k, raw in enumerate(options):
        a = _label(raw, f"pending.options[{k}]")
        if a < _DECISION_FIRST:
            core.fail(f"pending.options[{k}]", f"{raw!r} is a main action, not a decision")
        if s["pend_mask"][a]:
            core.fail(f"pending.options[{k}]", f"{raw!r} is listed twice")
        s["pend_mask"][a] = 1


def _read_frame(s, d: int, raw, path: str):
    if isinstance(raw, dict) and "internal" in raw:
        frame = core.read_obj(raw, path, INTERNAL_FRAME_KEYS)
        name = core.read_str(frame["internal"], f"{path}.internal")
        if name not in _INTERNAL_INDEX:
            core.fail(f"{path}.internal", f"unknown internal op {name!r}")
        op = _INTERNAL_INDEX[name]
        arg = frame["arg"]
        if op == R.I_PLAY:
            t = _card(arg, f"{path}.arg")
            if t >= R.FIRST_EVENT:
                core.fail(f"{path}.arg", f"{arg!r} is not a person")
            arg = t
        elif op == R.I_RESOLVE_EVENT:
            arg = _queue_code(arg, f"{path}.arg")
            if arg < 0:
                core.fail(f"{path}.arg", "resolving needs an event or Raiders, got null")
        else:
            arg = core.read_int(arg, f"{path}.arg", 0, _INT16_MAX)
        s["fr_prog"][d] = R.INTERNAL
        s["fr_op"][d] = op
        s["fr_arg"][d] = arg
        s["fr_end"][d] = 1
        s["fr_pc"][d] = core.read_int(frame["pc"], f"{path}.pc", 0, 1, "pc")
        if frame["then"] is not None:
            core.fail(f"{path}.then", "an internal step has nothing to do when it ends")
    else:
        frame = core.read_obj(raw, path, PROGRAM_FRAME_KEYS)
        name = core.read_str(frame["program"], f"{path}.program")
        if name not in _PROGRAM_INDEX:
            core.fail(f"{path}.program", f"unknown program {name!r}")
        prog = _PROGRAM_INDEX[name]
        length = int(R.LENGTH[prog])
        end = core.read_int(frame["end"], f"{path}.end", 1, length, "end")
        s["fr_prog"][d] = prog
        s["fr_end"][d] = end
        s["fr_pc"][d] = core.read_int(frame["pc"], f"{path}.pc", 0, end, "pc")
    s["fr_stage"][d] = core.read_int(frame["stage"], f"{path}.stage", 0, MAX_STAGE, "stage")
    s["fr_owner"][d] = _player(frame["owner"], f"{path}.owner")
    # 0 (no card), a camp (1..6) or a person uid already issued, even if it has left play
    top = int(s["next_uid"]) - 1
    s["fr_src"][d] = core.read_int(frame["source_uid"], f"{path}.source_uid", 0, top, "uid")
    s["fr_that"][d] = core.read_int(frame["that_uid"], f"{path}.that_uid", 0, top, "uid")
    s["fr_flags"][d] = core.read_int(frame["flags"], f"{path}.flags", 0, 3, "flags")
    s["fr_aux"][d] = core.read_int(frame["aux"], f"{path}.aux", 0, R.DECK_SIZE, "aux")
    then = frame["then"]
    if then is not None:
        text = core.read_str(then, f"{path}.then")
        if text == f"return {RAIDERS_NAME}":
            s["fr_fin"][d] = R.FIN_RAIDERS
        elif text.startswith("discard "):
            t = _card(text[len("discard ") :], f"{path}.then")
            if t < R.FIRST_EVENT:
                core.fail(f"{path}.then", "only a resolved event is discarded when its frame ends")
            s["fr_fin"][d] = R.FIN_DISCARD
            s["fr_fin_arg"][d] = t
        else:
            core.fail(
                f"{path}.then",
                f"expected null, 'return Raiders' or 'discard <event>', got {text!r}",
            )


def _read_leftovers(ctx: core.ReadCall):
    s = ctx.s
    left = core.read_obj(ctx.snap["leftovers"], "leftovers", LEFTOVER_KEYS)
    deck_n, discard_n = int(s["deck_n"]), int(s["discard_n"])
    tail = core.read_list(left["deck_tail"], "leftovers.deck_tail", R.DECK_SIZE - deck_n)
    for k, name in enumerate(tail):
        # the deck array only ever holds cards (a drawn card stays behind as a leftover)
        s["deck"][deck_n + k] = _card(name, f"leftovers.deck_tail[{k}]")
    tail = core.read_list(
        left["discard_tail"], "leftovers.discard_tail", most=R.DECK_SIZE - discard_n
    )
    s["discard"][discard_n:] = -1
    for k, name in enumerate(tail):
        s["discard"][discard_n + k] = _card_or_none(name, f"leftovers.discard_tail[{k}]")
    n = int(s["revealed_n"])
    tail = core.read_list(left["revealed_tail"], "leftovers.revealed_tail", most=4 - n)
    for k, name in enumerate(tail):
        s["revealed"][n + k] = _card_or_none(name, f"leftovers.revealed_tail[{k}]")
    depth = int(s["depth"])
    rows = core.read_list(left["frames_tail"], "leftovers.frames_tail", most=R.MAX_FRAMES - depth)
    for k, row in enumerate(rows):
        path = f"leftovers.frames_tail[{k}]"
        row = core.read_list(row, path, len(FRAME_FIELDS))
        for field, value in zip(FRAME_FIELDS, row, strict=True):
            s[field][depth + k] = core.read_raw(value, f"{path}.{field}", s[field].dtype)
    lift = left["lift"]
    if (lift is None) != (s["lift_uid"] != 0):
        core.fail("leftovers.lift", "must be null exactly when vm.lifted is set")
    if lift is not None:
        lift = core.read_list(lift, "leftovers.lift", len(LIFT_FIELDS))
        for field, value in zip(LIFT_FIELDS, lift, strict=True):
            s[field] = core.read_raw(value, f"leftovers.lift.{field}", s[field].dtype)
    mask = core.read_list(left["mask"], "leftovers.mask")
    if mask and s["phase"] == R.PHASE_DECISION:
        core.fail("leftovers.mask", "the decision phase keeps its mask in pending.options")
    for k, raw in enumerate(mask):
        s["pend_mask"][_label(raw, f"leftovers.mask[{k}]")] = 1


# ---- from_dict: cross-field checks -----------------------------------------------------------


def _check_cards(ctx: core.ReadCall):
    """RAD-S2: each of the 66 deck cards is in exactly one place."""
    seen = _accounted(ctx.s)
    for t in range(R.N_DT):
        want = int(D.DECK_TYPE_COUNTS[t])
        if seen[t] != want:
            core.fail(
                "cards",
                f"{CARD_NAMES[t]!r} is found {seen[t]} times across deck, discard, hands, "
                f"board, queues and resolving events, but the deck has {want} (RAD-S2)",
            )


def _camps_left(s, p: int) -> int:
    return int((s["camp_state"][p] < 2).sum())


def _check_progress(ctx: core.ReadCall):
    """Phase, decider, turn order, the effect stack and the end of the game."""
    s = ctx.s
    phase = int(s["phase"])
    name = R.PHASE_NAMES[phase]
    terminated = bool(s["terminated"])
    steps, depth = int(s["step_count"]), int(s["depth"])
    current, turn_player = int(s["current_player"]), int(s["turn_player"])
    kept0, kept1 = int(s["kept_n"][0]), int(s["kept_n"][1])
    core.check_stop(ctx, R.STEP_CAP, both="terminated", over=R.PHASE_OVER)

    if phase == R.PHASE_DRAFT:
        _check_draft_phase(s, kept0, kept1)
    else:
        if kept0 != 3 or kept1 != 3:
            core.fail(
                "draft.kept", f"phase {name!r} comes after both players kept 3 camps (RAD-S3)"
            )
        expected = (int(s["first_player"]) + int(s["turn_count"])) % R.N_PLAYERS
        if turn_player != expected:
            core.fail(
                "turn_player",
                f"expected player {expected} after {int(s['turn_count'])} "
                f"turns from first_player {int(s['first_player'])}",
            )
        if not s["first_turn_done"] and (phase == R.PHASE_ACTIONS or s["turn_count"] > 0):
            core.fail("first_turn_done", "the first replenish (RAD-T2) has already happened here")

    if phase in (R.PHASE_DRAFT, R.PHASE_ACTIONS):
        if depth:
            core.fail("vm.frames", f"the effect stack is empty in phase {name!r}")
        if s["in_events_phase"]:
            core.fail("in_events_phase", f"cannot be true in phase {name!r}")
    if phase == R.PHASE_ACTIONS and current != turn_player:
        core.fail("current_player", f"in the actions phase the turn player {turn_player} acts")
    if phase == R.PHASE_DECISION and depth == 0:
        core.fail("vm.frames", "a pending decision needs a running frame")
    if steps < int(s["turn_count"]):
        core.fail("turn_count", "every turn ends with an END_TURN step, so turns <= steps")
    if terminated and depth:
        core.fail("vm.frames", "a finished game has an empty effect stack")
    _check_lifted(s)

    if not terminated and s["winner"] >= 0:
        core.fail("winner", "only a terminated game has a winner")
    lost = [p for p in range(R.N_PLAYERS) if kept0 == 3 and kept1 == 3 and _camps_left(s, p) == 0]
    winner = int(s["winner"])
    if terminated:
        if winner >= 0:
            if lost != [1 - winner]:
                core.fail(
                    "winner",
                    f"player {winner} wins only when all of player {1 - winner}'s "
                    "camps, and not all of theirs, are destroyed (RAD-E1)",
                )
        elif len(lost) != R.N_PLAYERS:
            empty = s["deck_n"] == 0 and (s["reshuffled"] or s["discard_n"] == 0)
            if lost or not empty:
                core.fail(
                    "winner",
                    "a drawn game needs both sides' camps destroyed or the deck "
                    "spent after its one reshuffle (RAD-E2)",
                )
    elif lost:
        core.fail("terminated", f"player {lost[0]} has no camp left, so the game is over (RAD-E1)")

    score = core.read_final_score(ctx.snap["score"], phase == R.PHASE_OVER, R.N_PLAYERS, 0, R.COLS)
    if score is not None:
        want = [_camps_left(s, p) for p in range(R.N_PLAYERS)]
        if score != want:
            core.fail("score", f"the score counts undestroyed camps: expected {want}, got {score}")
        s["score"][:] = score


def _check_draft_phase(s, kept0: int, kept1: int):
    # RAD-S3: player 0 keeps 3, then player 1; nothing else has happened yet
    if kept0 == 3 and kept1 == 3:
        core.fail("phase", "both players kept 3 camps, so the draft is over")
    if kept0 < 3 and kept1 > 0:
        core.fail("draft.kept", "player 1 keeps camps only after player 0 has kept 3")
    expected = 0 if kept0 < 3 else 1
    if int(s["current_player"]) != expected:
        core.fail("current_player", f"player {expected} is keeping camps now")
    quiet = (
        s["hand"].sum() == 0
        and s["discard_n"] == 0
        and (s["queue"] < 0).all()
        and s["silo_in_hand"].sum() == 0
        and s["water"] == 0
        and s["turn_count"] == 0
        and s["next_uid"] == FIRST_PERSON_UID
        and not s["first_turn_done"]
        and not s["reshuffled"]
        and not (s["event_resolved"] or s["zeto_used"] or s["vera_used"])
        and s["entered_this_turn"].sum() == 0
        and s["raiders_resolved"].sum() == 0
        and s["high_ground"].sum() == 0
        and s["juggernaut_moves"].sum() == 0
    )
    if not quiet:
        core.fail("phase", "during the draft no card is drawn or played and no turn has started")


def _top_op(s) -> tuple[int, int]:
    """(op, frame) of the running step, or (-1, -1) with an empty stack."""
    depth = int(s["depth"])
    if depth == 0:
        return -1, -1
    d = depth - 1
    prog, pc = int(s["fr_prog"][d]), int(s["fr_pc"][d])
    if prog == R.INTERNAL:
        return int(s["fr_op"][d]), d
    if pc >= int(s["fr_end"][d]):
        return -1, d
    return int(R.CODE[prog, pc, 0]), d


def _check_pending(states):
    """The running frame waits, and the listed options are exactly the ones the rules give
    there: they are recomputed from the position (the kernel trusts this mask)."""
    s = states[0]
    d = int(s["depth"]) - 1
    if s["fr_pc"][d] >= s["fr_end"][d]:
        core.fail(f"vm.frames[{d}]", "the running frame has finished (pc == end); it cannot wait")
    mask = np.zeros(R.NUM_ACTIONS, np.int8)
    decider = int(R.pending_mask_into(states, 0, mask))
    if decider < 0:
        core.fail(
            f"vm.frames[{d}]",
            f"the running step (stage {int(s['fr_stage'][d])}) cannot be waiting for a "
            "decision in this position: it has no choice to offer there",
        )
    if decider != int(s["current_player"]):
        core.fail(
            "pending.decider",
            f"player {decider} decides this step, not player {int(s['current_player'])}",
        )
    if not np.array_equal(mask, s["pend_mask"]):
        want = [ACTION_LABELS[a] for a in np.flatnonzero(mask)]
        extra = [ACTION_LABELS[a] for a in np.flatnonzero(s["pend_mask"] & ~mask)]
        missing = [ACTION_LABELS[a] for a in np.flatnonzero(mask & ~s["pend_mask"])]
        core.fail(
            "pending.options",
            f"the rules give exactly {_short_list(want)} here"
            + (f"; not legal: {_short_list(extra)}" if extra else "")
            + (f"; missing: {_short_list(missing)}" if missing else ""),
        )


def _short_list(items: list, most: int = 8) -> str:
    shown = ", ".join(repr(x) for x in items[:most])
    return f"[{shown}{', ...' if len(items) > most else ''}]"


_INTERNAL_RUN = (R.I_PLAY, R.I_RESOLVE_EVENT, _OP["GAIN_PUNK"])
# whose program a frame runs decides what "this card" (source_uid) may be
_CAMP_OF_PROGRAM = {
    int(R.CAMP_PROG[c, k]): c for c in range(D.N_CAMPS) for k in range(2) if R.CAMP_PROG[c, k] >= 0
}
_PERSON_PROGRAMS = {int(x) for x in R.PERSON_PROG.ravel() if x >= 0}
_PERSON_PROGRAMS |= {int(x) for x in R.ENTER_PROG if x >= 0}


def _check_stack(s):
    """Every frame rests where the kernel can resume it, and each count or card its op keeps
    in ``aux``/``that_uid`` is one the op can use (Numba does no bounds checks)."""
    depth = int(s["depth"])
    for d in range(depth):
        path = f"vm.frames[{d}]"
        prog, pc, end = int(s["fr_prog"][d]), int(s["fr_pc"][d]), int(s["fr_end"][d])
        stage, aux, owner = int(s["fr_stage"][d]), int(s["fr_aux"][d]), int(s["fr_owner"][d])
        if prog == R.INTERNAL:
            op, arg = int(s["fr_op"][d]), int(s["fr_arg"][d])
            if op not in _INTERNAL_RUN:
                core.fail(
                    f"{path}.internal",
                    "the kernel runs only play_person, resolve_event and gain_punk as steps "
                    f"of their own, not {INTERNAL_OPS.get(op, op)!r}",
                )
            if op == _OP["GAIN_PUNK"] and arg != 0:
                core.fail(f"{path}.arg", "gain_punk takes no argument (0)")
        else:
            op = int(R.CODE[prog, pc, 0]) if pc < end else -1
            arg = int(R.CODE[prog, pc, 1]) if pc < end else 0
        if pc >= end:
            op = -1
        if op < 0 and (stage or aux):
            core.fail(path, "a finished frame keeps no stage or count")
        if d < depth - 1:
            # below the top a frame waits for the one above it: fresh (stage 0), or a
            # borrowed ability running (Mimic/Adrenaline stage 2, Parachute Base 3..4)
            resting = stage == 0
            resting |= op in (_OP["MIMIC"], _OP["ADRENALINE"]) and stage == 2
            resting |= op == _OP["PARACHUTE"] and stage in (3, 4)
            if not resting:
                core.fail(f"{path}.stage", f"a frame below the top cannot rest at stage {stage}")
        _check_aux(s, d, path, op, arg, stage, aux, owner)
        _check_source(s, d, path, prog, owner)


def _check_source(s, d: int, path: str, prog: int, owner: int):
    """ "This card" of a frame: the owner's camp for a camp ability, a person for a person's
    program (its own, or Mimic's, Adrenaline Lab's or Parachute Base's), none otherwise."""
    src = int(s["fr_src"][d])
    if prog in _CAMP_OF_PROGRAM:
        camp = _CAMP_OF_PROGRAM[prog]
        homes = [owner * R.COLS + c + 1 for c in range(R.COLS) if s["camp"][owner, c] == camp]
        if src not in homes:
            core.fail(f"{path}.source_uid", f"a {CAMP_NAMES[camp]} ability runs for that camp")
    elif prog in _PERSON_PROGRAMS:
        if src < FIRST_PERSON_UID:
            core.fail(f"{path}.source_uid", "a person's program runs for a person (uid 7 and up)")
    elif src != 0:
        core.fail(
            f"{path}.source_uid", "events, junk effects, Raiders and internal steps have none"
        )


def _check_aux(s, d: int, path: str, op: int, arg: int, stage: int, aux: int, owner: int):
    if op == _OP["PARACHUTE"]:
        if stage == 0:
            if aux:
                core.fail(f"{path}.aux", "Parachute Base picks its person first (aux 0)")
            return
        if aux >= D.N_PERSON_TYPES:
            core.fail(f"{path}.aux", f"Parachute Base's person is card type {aux}, not a person")
        if stage <= 2 and s["hand"][owner, aux] <= 0:
            core.fail(f"{path}.aux", f"{CARD_NAMES[aux]!r} is not in player {owner}'s hand")
        if stage >= 3:
            _check_that(s, d, path, aux)
        return
    if op in (_OP["MIMIC"], _OP["ADRENALINE"]) and stage == 1:
        _check_that(s, d, path, None)
    if op == R.I_PLAY and s["hand"][owner, arg] <= 0:
        core.fail(path, f"playing {CARD_NAMES[arg]!r}, which is not in player {owner}'s hand")
    if op in (_OP["DRAW_DISCARD"], _OP["DRAW_2_DISCARD_1"]) and d == int(s["depth"]) - 1:
        drawn = Counter(int(t) for t in s["revealed"][: int(s["revealed_n"])])
        for t, n in drawn.items():
            if s["hand"][owner, t] < n:
                core.fail("vm.revealed", f"the drawn {CARD_NAMES[t]!r} is not in the hand")
    limits = {
        _OP["MERCENARY"]: 1,
        _OP["DISCARD_HAND"]: max(arg - 1, 0),
        _OP["WAREHOUSE"]: R.DECK_SIZE,
        _OP["REARRANGE"]: R.MAX_REARRANGE - 1,
    }
    if aux > limits.get(op, 0):
        core.fail(f"{path}.aux", f"this step counts at most {limits.get(op, 0)}, got {aux}")


def _check_that(s, d: int, path: str, person_type):
    """``that_uid`` names a person in play (or, for Parachute Base, one that left play)."""
    uid = int(s["fr_that"][d])
    for p in range(R.N_PLAYERS):
        for c in range(R.COLS):
            for i in range(int(s["col_len"][p, c])):
                if s["ent_uid"][p, c, i] == uid and s["ent_kind"][p, c, i] == R.PERSON:
                    if person_type is not None and (
                        s["ent_punk"][p, c, i] or s["ent_type"][p, c, i] != person_type
                    ):
                        core.fail(f"{path}.that_uid", "is not the person Parachute Base dropped")
                    return
    if person_type is None or uid < FIRST_PERSON_UID:
        core.fail(f"{path}.that_uid", f"uid {uid} is not a person in play")


def _check_lifted(s):
    # High Ground holds one person in the air between its TARGET and PLACE steps
    op, d = _top_op(s)
    mid_move = op == _OP["REARRANGE"] and s["fr_stage"][d] == 1
    if mid_move and s["lift_uid"] == 0:
        core.fail("vm.lifted", "High Ground is moving a person, so vm.lifted names it")
    if not mid_move and s["lift_uid"] != 0:
        core.fail("vm.lifted", "a person is lifted only while High Ground moves it")


# ---- the field table -------------------------------------------------------------------------


def _hand_dict(ctx: core.ReadCall, p: int) -> dict:
    hand = ctx.s["hand"][p]
    return {CARD_NAMES[t]: int(hand[t]) for t in range(R.N_DT) if hand[t]}


PLAYER = (
    core.Custom("columns", _columns),
    core.Custom("hand", _hand_dict),
    core.Bool("silo_in_hand"),
    core.Custom("queue", lambda ctx, p: [_queue_name(int(q)) for q in ctx.s["queue"][p]]),
    core.Int("entered_this_turn", hi=R.ENTERED_CAP, what="count"),
    core.Bool("raiders_resolved"),
    core.Bool("high_ground"),
    core.Int("juggernaut_moves", hi=2, what="moves"),
)
PLAYER_KEYS = tuple(entry.key for entry in PLAYER)
_LAST_PLAYER_FLAGS = ("entered_this_turn", "raiders_resolved", "high_ground")
_SEAT = {"hi": R.N_PLAYERS - 1, "what": "player index"}
TABLE = (
    core.Obj(
        "options",
        (
            # RAD-I8: 3 (the seed's reading) or 2 (the printed card)
            core.Int("raiders_slot", "opt_raiders_slot", lo=2, hi=3, what="Raiders slot"),
            core.Name("vera_vosh", "opt_vera", names=VERA_READINGS, what="reading"),
            core.Name("zeto_khan", "opt_zeto", names=ZETO_READINGS, what="reading"),
            # not a record field: the offers show it, and the draft is read against it
            core.Custom(
                "first_game_camps", _first_game, lambda v, path, ctx: core.read_bool(v, path)
            ),
        ),
    ),
    core.Name("phase", names=R.PHASE_NAMES),
    core.Int("current_player", **_SEAT),
    core.Int("turn_player", **_SEAT),
    core.Int("first_player", **_SEAT),
    core.Int("turn_count"),
    core.Int("step_count", hi=R.STEP_CAP, what="step count"),
    core.Bool("terminated"),
    core.Bool("truncated"),
    core.Int("winner", **_SEAT, null=-1),
    core.Custom(
        "score",
        lambda ctx: [int(v) for v in ctx.s["score"]] if ctx.s["phase"] == R.PHASE_OVER else None,
    ),
    core.Custom("draft", _draft_dict),
    core.Custom(
        "players", lambda ctx: [core.write_table(PLAYER, ctx, (p,)) for p in range(R.N_PLAYERS)]
    ),
    core.Custom(
        "deck",
        lambda ctx: [CARD_NAMES[int(t)] for t in ctx.s["deck"][: int(ctx.s["deck_n"])][::-1]],
    ),
    core.Custom(
        "discard",
        lambda ctx: [CARD_NAMES[int(t)] for t in ctx.s["discard"][: int(ctx.s["discard_n"])]],
    ),
    core.Bool("reshuffled"),
    core.Int("water", hi=MAX_WATER, what="water"),
    core.Bool("first_turn_done"),
    core.Bool("in_events_phase"),
    core.Bool("event_resolved"),
    core.Bool("zeto_used"),
    core.Bool("vera_used"),
    core.Int("next_uid", lo=FIRST_PERSON_UID, hi=MAX_UID, what="next uid"),
    core.Custom("vm", _vm_dict),
    core.Custom("pending", _pending_dict),
    core.Custom("leftovers", lambda ctx: _leftovers(ctx.s)),
    core.RNG,
)


def _check_decision(ctx: core.ReadCall):
    if int(ctx.s["phase"]) == R.PHASE_DECISION:
        _check_pending(ctx.states)


# What from_dict does, in turn: table keys read by their entry, and the game's steps.
READ = (
    "rng",
    lambda ctx: ctx.s.__setitem__("num_players", R.N_PLAYERS),
    "options",
    "phase",
    "current_player",
    "turn_player",
    "first_player",
    "turn_count",
    "step_count",
    "terminated",
    "truncated",
    "winner",
    "water",
    "reshuffled",
    "first_turn_done",
    "in_events_phase",
    "event_resolved",
    "zeto_used",
    "vera_used",
    _check_vera_turn,
    "next_uid",
    _read_draft,
    _read_players,
    _read_piles,
    _read_vm,
    _read_leftovers,
    _check_cards,
    _check_progress,
    lambda ctx: _check_stack(ctx.s),
    _check_decision,
)
CODEC = core.Codec(GAME_NAME, SNAPSHOT_VERSION, R.STATE_DTYPE, TABLE, READ, (), _writable)
TOP_KEYS = CODEC.keys
to_dict, from_dict = CODEC.to_dict, CODEC.from_dict


# ---- action names ------------------------------------------------------------------------------


def _short_name(s, p: int, c: int, i: int, reveal_punks: bool = False) -> str:
    if s["ent_kind"][p, c, i] == R.CAMP:
        return CAMP_NAMES[int(s["camp"][p, c])]
    name = CARD_NAMES[int(s["ent_type"][p, c, i])]
    if s["ent_punk"][p, c, i]:
        return f"punk [{name}]" if reveal_punks else "punk"
    return name


def _entity_text(s, p: int, c: int, i: int, reveal_punks: bool = False) -> str:
    """``"Railgun (col 1)"``, ``"Sniper (col 2, front)"`` or ``"Muse (col 2, behind
    Sniper)"``; punks stay face down unless ``reveal_punks``."""
    n = int(s["col_len"][p, c])
    if i >= n:
        return f"nothing (col {c + 1}, empty place {i + 1})"
    name = _short_name(s, p, c, i, reveal_punks)
    if s["ent_kind"][p, c, i] == R.CAMP:
        return f"{name} (col {c + 1})"  # one camp per column
    if i == n - 1:
        return f"{name} (col {c + 1}, front)"
    return f"{name} (col {c + 1}, behind {_short_name(s, p, c, i + 1, reveal_punks)})"


_TARGET_WORDS = {
    "UNPROT_ENEMY_CARD": "an unprotected enemy card",
    "UNPROT_ENEMY_PERSON": "an unprotected enemy person",
    "UNPROT_ENEMY_CAMP": "an unprotected enemy camp",
    "UNPROT_DAMAGED_ENEMY_CARD": "an unprotected damaged enemy card",
    "ANY_ENEMY_CARD": "any enemy card",
    "ANY_ENEMY_PERSON": "any enemy person",
    "ANY_ENEMY_CAMP": "any enemy camp",
    "OWN_PERSON": "one of your people",
    "OWN_DAMAGED_CARD": "one of your damaged cards",
    "OWN_DAMAGED_PERSON": "one of your damaged people",
    "OWN_CARD": "one of your cards",
    "OWN_CAMP": "one of your camps",
    "SELF": "this card",
}


def _step_text(prog: int, pc: int) -> str:
    """A program step in words, e.g. ``"damage an unprotected enemy card"``."""
    op, arg = OPS[int(R.CODE[prog, pc, 0])], int(R.CODE[prog, pc, 1])
    name = op.lower().replace("_", " ")
    if op in ("DAMAGE", "DESTROY", "RESTORE"):
        return f"{name} {_TARGET_WORDS.get(TARGETS[arg], TARGETS[arg].lower())}"
    if op in ("DRAW", "WATER"):
        return f"{name} {arg}"
    return "gain a punk" if op == "GAIN_PUNK" else name


def _placing_text(s, op: int, d: int) -> str:
    if op == R.I_PLAY:
        return CARD_NAMES[int(s["fr_arg"][d])]
    if op == _OP["PARACHUTE"]:
        return CARD_NAMES[int(s["fr_aux"][d])]
    if op == _OP["REARRANGE"] and s["lift_uid"] != 0:
        return "punk" if s["lift_punk"] else CARD_NAMES[int(s["lift_type"])]
    if op == _OP["GAIN_PUNK"]:
        return "a punk"
    return "person"


def _choose_text(s, k: int, op: int, d: int) -> str:
    revealed = [int(t) for t in s["revealed"][: int(s["revealed_n"])]]
    card = f"card {k + 1} ({CARD_NAMES[revealed[k]]})" if k < len(revealed) else f"card {k + 1}"
    if op == _OP["DRAW_DISCARD"]:
        return f"keep drawn {card}"
    if op == _OP["DRAW_2_DISCARD_1"]:
        return f"discard drawn {card}"
    if op == _OP["MILL_JUNK"]:
        if k < len(revealed):
            junk = D.JUNK_NAMES[int(D.DECK_TYPE_JUNK[revealed[k]])].replace("_", " ")
            return f"use the junk effect ({junk}) of milled {card}"
        return f"use the junk effect of milled {card}"
    if op == _OP["MERCENARY"]:
        return ("destroy one of your own cards", "discard 2 cards")[k] if k < 2 else f"option {k}"
    if op == _OP["PUSH_BACK"]:
        return "push the opponent's events back"
    prog = int(s["fr_prog"][d]) if d >= 0 else R.INTERNAL
    if op in (_OP["CHOOSE"], _OP["AND_OR"]) and prog != R.INTERNAL:
        pc = int(s["fr_pc"][d])
        if op == _OP["CHOOSE"] and pc + 1 + k < int(R.LENGTH[prog]):
            return f"option {k + 1}: {_step_text(prog, pc + 1 + k)}"
        if op == _OP["AND_OR"] and pc + 2 < int(R.LENGTH[prog]):
            first, second = _step_text(prog, pc + 1), _step_text(prog, pc + 2)
            return (f"only {first}", f"only {second}", f"{first}, then {second}", "option 4")[k]
    if op in (_OP["MIMIC"], _OP["ADRENALINE"], _OP["PARACHUTE"]):
        return f"use ability {k + 1} of the chosen person"
    return f"choose option {k + 1}"


_FIXED_ACTIONS = {
    R.A_JUNK_SILO: "junk Water Silo (water)",
    R.A_TAKE_SILO: "take Water Silo",
    R.A_DRAW: "draw a card",
}


def action_to_string(states: np.ndarray, g: int, action) -> str:
    """Describe ``action`` in game ``g``'s position, e.g. ``"use Sniper (col 2, front) ability
    1"`` or ``"target opponent's Railgun (col 1)"``. Sides are seen from the decider."""
    a = core.action_index(action, R.NUM_ACTIONS)
    s = states[g]
    me = int(s["current_player"])
    if a < R.A_PLAY_PERSON:
        camp = int(s["offer"][me, a - R.A_KEEP])
        return f"keep camp {CAMP_NAMES[camp]}" if camp >= 0 else f"keep offer {a + 1} (none)"
    if a < R.A_PLAY_EVENT:
        return f"play {D.PERSON_NAMES[a - R.A_PLAY_PERSON]}"
    if a < R.A_JUNK:
        return f"play {D.EVENT_NAMES[a - R.A_PLAY_EVENT]}"
    if a < R.A_JUNK_SILO:
        t = a - R.A_JUNK
        junk = D.JUNK_NAMES[int(D.DECK_TYPE_JUNK[t])].replace("_", " ")
        return f"junk {CARD_NAMES[t]} ({junk})"
    if a in _FIXED_ACTIONS:
        return _FIXED_ACTIONS[a]
    if a < R.A_END_TURN:
        k = a - R.A_USE
        c, i, slot = k // 9, (k // 3) % 3, k % 3
        text = f"use {_entity_text(s, me, c, i)} ability {slot + 1}"
        if i < s["col_len"][me, c] and s["ent_kind"][me, c, i] == R.PERSON:
            own = 0 if s["ent_punk"][me, c, i] else D.PERSON_N_ABILITIES[s["ent_type"][me, c, i]]
            if slot >= own:
                text += " (Argo Yesky's)"  # RAD-K4: Argo lends his damage ability
        return text
    if a == R.A_END_TURN:
        return "end turn"
    op, d = _top_op(s)
    if a < R.A_PLACE:
        k = a - R.A_TARGET
        side = k // 9
        p = me if side == 0 else 1 - me
        whose = "own" if side == 0 else "opponent's"
        return f"target {whose} {_entity_text(s, p, (k % 9) // 3, k % 3)}"
    if a < R.A_CHOOSE:
        c, i = (a - R.A_PLACE) // 3, (a - R.A_PLACE) % 3
        what = _placing_text(s, op, d)
        if op == _OP["REARRANGE"] and _swaps_with(s, me, c, i):
            name = _short_name(s, me, c, i)
            return f"place {what} in col {c + 1} pos {i + 1} in place of {name}, lifting {name}"
        behind = _camp_index_after_place(s, me, c, i)
        n = int(s["col_len"][me, c])
        if behind < 0:
            return f"place {what} in col {c + 1} pos {i + 1} (not a legal spot)"
        # the column afterwards: the people keep their order, the camp its space
        old = [k for k in range(n) if s["ent_kind"][me, c, k] != R.CAMP]
        camp = _camp_index(s, me, c)
        after = []
        for k in range(n + 1):
            after.append(None if k == i else camp if k == behind else old.pop(0))
        if i == n:
            text = f"place {what} in col {c + 1} front"
        else:
            text = f"place {what} in col {c + 1} behind {_short_name(s, me, c, after[i + 1])}"
        for k in range(n + 1):
            e = after[k]
            if e is not None and e != camp and (e < camp) != (k < behind):
                # a person shoved past a moved Juggernaut (subtleties §15)
                text += f", shoving {_short_name(s, me, c, e)} past {_short_name(s, me, c, camp)}"
        return text
    if a < R.A_SELECT_HAND:
        return _choose_text(s, a - R.A_CHOOSE, op, d)
    if a < R.A_SELECT_COLUMN:
        name = CARD_NAMES[a - R.A_SELECT_HAND]
        if op in (_OP["DISCARD_HAND"], _OP["WAREHOUSE"], _OP["MERCENARY"]):
            return f"discard {name}"
        if op == _OP["PARACHUTE"]:
            return f"parachute in {name}"
        return f"select {name} from hand"
    if a < R.A_SELECT_EVENT:
        k = a - R.A_SELECT_COLUMN
        whose = "own" if k // 3 == 0 else "opponent's"
        return f"select {whose} col {k % 3 + 1}"
    if a < R.A_SKIP:
        k = a - R.A_SELECT_EVENT
        side = k // 3
        p = me if side == 0 else 1 - me
        whose = "own" if side == 0 else "opponent's"
        event = _queue_name(int(s["queue"][p, k % 3])) or "empty"
        return f"advance {whose} {event} (slot {k % 3 + 1})"
    return "skip"


# ---- text board --------------------------------------------------------------------------------


def _frame_text(s, d: int) -> str:
    prog = int(s["fr_prog"][d])
    owner = int(s["fr_owner"][d])
    if prog == R.INTERNAL:
        frame = _frame_dict(s, d)
        head = f"{frame['internal']} {frame['arg']}"
    else:
        head = PROGRAM_NAMES.get(prog, f"program {prog}")
        pc, end = int(s["fr_pc"][d]), int(s["fr_end"][d])
        if pc < end:
            head += f", step {pc + 1}: {_step_text(prog, pc)}"
        else:
            head += ", done"
    extra = f" stage {int(s['fr_stage'][d])}" if s["fr_stage"][d] else ""
    src = int(s["fr_src"][d])
    return f"{head} (player {owner}{', source uid ' + str(src) if src else ''}{extra})"


def render(states: np.ndarray, g: int) -> str:
    """A multi-line text board of game ``g`` for debugging.

    It shows everything, hidden information included: both hands, the punks' face-down
    cards, the next cards of the deck and the draft offers. Do not show it to a player.
    Every hidden item is marked ``(hidden)`` and a banner line says so; the picture
    (``meeple_gym.radlands.draw``) draws them face down instead.
    """
    s = states[g]
    phase = int(s["phase"])
    turn, current = int(s["turn_player"]), int(s["current_player"])
    first_game = bool((s["offer"][:, 3:] < 0).all())
    lines = [
        f"Radlands - turn {int(s['turn_count'])}, step {int(s['step_count'])}, "
        f"phase {R.PHASE_NAMES[phase]}" + (", events phase" if s["in_events_phase"] else ""),
        f"options: Raiders to slot {int(s['opt_raiders_slot'])}, "
        f"Vera Vosh {VERA_READINGS.get(int(s['opt_vera']), '?')}, "
        f"Zeto Khan {ZETO_READINGS.get(int(s['opt_zeto']), '?')}"
        + (", first-game camps" if first_game else ""),
        "DEBUG VIEW: shows hidden information (hands, punks, deck order, draft offers), "
        "each marked (hidden)",
    ]
    if s["terminated"]:
        winner = int(s["winner"])
        lines.append("Game over: " + (f"player {winner} wins" if winner >= 0 else "a draw"))
    elif s["truncated"]:
        lines.append(f"Game cut off at the step cap of {R.STEP_CAP} (truncated)")
    deck_n, discard_n = int(s["deck_n"]), int(s["discard_n"])
    top = [CARD_NAMES[int(t)] for t in s["deck"][:deck_n][::-1][:3]]
    lines.append(
        f"deck {deck_n} (hidden next: {', '.join(top) or '-'})"
        + (" [reshuffled once]" if s["reshuffled"] else "")
        + f"; discard {discard_n}"
        + (f" (top: {CARD_NAMES[int(s['discard'][discard_n - 1])]})" if discard_n else "")
    )
    if phase == R.PHASE_DRAFT:
        for p in range(R.N_PLAYERS):
            offer = [CAMP_NAMES[int(x)] for x in s["offer"][p] if x >= 0]
            kept = [CAMP_NAMES[int(x)] for x in s["camp"][p, : int(s["kept_n"][p])]]
            secret = "" if first_game else " (hidden)"
            lines.append(
                f"player {p} offered{secret}: {', '.join(offer)}; "
                f"kept{secret}: {', '.join(kept) or '-'}"
            )
    for p in range(R.N_PLAYERS):
        marks = []
        if p == int(s["first_player"]):
            marks.append("first")
        if phase != R.PHASE_DRAFT and p == turn:
            marks.append(f"turn, water {int(s['water'])}")
        if phase != R.PHASE_OVER and p == current:
            marks.append("to act")
        lines.append(
            f"{'>' if p == current else ' '} player {p} ({'; '.join(marks)})"
            if marks
            else f"  player {p}"
        )
        hand = [
            f"{CARD_NAMES[t]}" + (f" x{int(s['hand'][p, t])}" if s["hand"][p, t] > 1 else "")
            for t in range(R.N_DT)
            if s["hand"][p, t]
        ]
        size = int(s["hand"][p].sum())
        silo = ", Water Silo" if s["silo_in_hand"][p] else ""
        secret = f", hidden from player {1 - p}" if hand else ""
        lines.append(f"    hand ({size}{silo}{secret}): {', '.join(hand) or '-'}")
        queue = [_queue_name(int(q)) or "-" for q in s["queue"][p]]
        lines.append(f"    queue: 1: {queue[0]} | 2: {queue[1]} | 3: {queue[2]}")
        if phase == R.PHASE_DRAFT:
            continue
        for c in range(R.COLS):
            cells = []
            for i in range(int(s["col_len"][p, c])):
                if s["ent_kind"][p, c, i] == R.CAMP:
                    state = CAMP_STATES[int(s["camp_state"][p, c])]
                    used = ", used" if s["camp_used"][p, c] else ""
                    cells.append(f"[{CAMP_NAMES[int(s['camp'][p, c])]}: {state}{used}]")
                else:
                    name = _short_name(s, p, c, i, reveal_punks=True)
                    tags = []
                    if s["ent_damaged"][p, c, i]:
                        tags.append("damaged")
                    if s["ent_not_ready"][p, c, i]:
                        tags.append("not ready")
                    if s["ent_punk"][p, c, i]:
                        tags.append("hidden")
                    tag = f" ({', '.join(tags)})" if tags else ""
                    cells.append(f"{name}{tag} #{int(s['ent_uid'][p, c, i])}")
            lines.append(f"    col {c + 1} (back to front): {' - '.join(cells)}")
        flags = []
        if s["juggernaut_moves"][p]:
            moves = int(s["juggernaut_moves"][p])
            flags.append(f"Juggernaut on space {moves + 1} of 3 (moved {moves}x)")
        if s["high_ground"][p]:
            flags.append("High Ground this turn")
        if s["entered_this_turn"][p]:
            flags.append(f"{int(s['entered_this_turn'][p])} entered this turn")
        if flags:
            lines.append(f"    {'; '.join(flags)}")
    depth = int(s["depth"])
    if depth:
        lines.append("Effect stack (top last):")
        lines += [f"  {d + 1}. {_frame_text(s, d)}" for d in range(depth)]
    if s["lift_uid"] != 0:
        name = CARD_NAMES[int(s["lift_type"])]
        lifted = f"punk [{name}] (hidden)" if s["lift_punk"] else name
        lines.append(f"Lifted by High Ground: {lifted} #{int(s['lift_uid'])}")
    if phase == R.PHASE_DECISION:
        lines.append(f"Pending: player {current} decides:")
        lines += [
            f"  - {action_to_string(states, g, int(a))}" for a in np.flatnonzero(s["pend_mask"])
        ]
    elif phase == R.PHASE_ACTIONS:
        lines.append(f"Pending: player {current} picks a main action")
    elif phase == R.PHASE_DRAFT:
        lines.append(f"Pending: player {current} keeps a camp")
    else:
        lines.append("Pending: -")
    return "\n".join(lines)


__all__ = ["ACTION_LABELS", "action_to_string", "from_dict", "render", "to_dict"]
