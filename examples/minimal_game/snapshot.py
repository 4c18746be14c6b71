"""Dice Nim snapshots (``to_dict``/``from_dict``), action names and a text board.

A snapshot is a JSON-safe dict that round-trips byte for byte:
``from_dict(to_dict(states, g))[0].tobytes() == states[g].tobytes()``. The table of fields and
the round trip are the shared codec's (``meeple_gym.core.snapshot``); this module adds what is
Dice Nim's own: the ``taken`` and ``score`` lists and the checks that a position is one the
rules can reach (``from_dict`` refuses any other with a ``SnapshotError`` naming the key).
"""

from __future__ import annotations

import numpy as np

from meeple_gym.core import snapshot as core

from . import rules as R

GAME_NAME = "minimal"
SNAPSHOT_VERSION = 1


def _taken(c) -> list[int]:
    return [int(x) for x in c.s["taken"][: c.n]]


def _score(c) -> list[int] | None:
    over = bool(c.s["terminated"] or c.s["truncated"])
    return [int(x) for x in c.s["score"][: c.n]] if over else None


TABLE = (
    core.Int("num_players", lo=R.MIN_PLAYERS, hi=R.MAX_PLAYERS),
    core.RNG,
    core.Int("current_player", lo=0, hi=core.last_seat),
    core.Int("start_pile", lo=R.MIN_PILE, hi=R.MAX_PILE),
    core.Int("pile", lo=0, hi=R.MAX_PILE),
    core.Custom("taken", _taken),
    core.Int("last_roll", lo=0, hi=R.MAX_TAKE),
    core.Int("step_count", lo=0, hi=R.STEP_CAP),
    core.Bool("terminated"),
    core.Bool("truncated"),
    core.Int("winner", lo=0, hi=core.last_seat, null=-1),
    core.Custom("score", _score),
)


def _read_taken(c: core.ReadCall) -> None:
    raw = core.read_list(c.snap["taken"], "taken", c.n)
    for p, value in enumerate(raw):
        c.s["taken"][p] = core.read_int(value, f"taken[{p}]", 0, R.MAX_PILE)


def _moves(steps: int, first: int, p: int) -> int:
    """Moves seat ``p`` made in ``steps`` alternating moves that ``first`` began."""
    return (steps + 1) // 2 if p == first else steps // 2


def _check_progress(c: core.ReadCall) -> None:
    """The position is one the rules reach: the stones add up, the game is over exactly when
    the pile is empty, and each seat's stones fit its number of moves (1-3 each)."""
    s = c.s
    core.check_stop(c, R.STEP_CAP, both="terminated")
    total = int(s["taken"].sum())
    if int(s["pile"]) != int(s["start_pile"]) - total:
        core.fail("pile", "must be start_pile less the stones taken")
    over = bool(s["terminated"])
    if over != (int(s["pile"]) == 0):
        core.fail("terminated", "the game is over exactly when the pile is empty")
    steps = int(s["step_count"])
    if not -(-total // R.MAX_TAKE) <= steps <= total:
        core.fail("step_count", f"{total} stones take {-(-total // R.MAX_TAKE)} to {total} moves")
    # The seat to act next (running) or the last mover (over, the winner) fixes who began.
    current = int(s["current_player"])
    first = current if (steps % 2 == 0) != over else 1 - current
    last = -1 if steps == 0 else (first if steps % 2 == 1 else 1 - first)
    roll = int(s["last_roll"])
    for p in range(c.n):
        moves = _moves(steps, first, p)
        taken = int(s["taken"][p])
        if p == last and roll:  # the last move took exactly the roll
            moves, taken = moves - 1, taken - roll
        if not moves <= taken <= R.MAX_TAKE * moves:
            core.fail(f"taken[{p}]", f"does not fit seat {p}'s {moves} moves of 1-3 stones")
    if steps == 0 and roll:
        core.fail("last_roll", "must be 0 before the first move")
    if (int(s["winner"]) >= 0) != over or over and int(s["winner"]) != current:
        core.fail("winner", "is the last mover once the game is over, else null")


def _read_score(c: core.ReadCall) -> None:
    over = bool(c.s["terminated"])
    score = core.read_final_score(c.snap["score"], over, c.n, 0, 1)
    if score is not None:
        want = [int(p == int(c.s["winner"])) for p in range(c.n)]
        if score != want:
            core.fail("score", f"must be {want}: 1 for the winner")
        c.s["score"][: c.n] = score


READ = (
    "num_players",
    "rng",
    "current_player",
    "start_pile",
    "pile",
    _read_taken,
    "last_roll",
    "step_count",
    "terminated",
    "truncated",
    "winner",
    _check_progress,
    _read_score,
)
CODEC = core.Codec(GAME_NAME, SNAPSHOT_VERSION, R.STATE_DTYPE, TABLE, READ)
to_dict, from_dict = CODEC.to_dict, CODEC.from_dict


def action_to_string(states: np.ndarray, g: int, action) -> str:
    """``"take 2"`` or ``"roll"``."""
    a = core.action_index(action, R.NUM_ACTIONS)
    del states, g  # the names do not depend on the position
    return "roll" if a == R.A_ROLL else f"take {a - R.A_TAKE + 1}"


def render(states: np.ndarray, g: int) -> str:
    """The table as text: the pile, each seat's stones, who acts or who won."""
    s = states[g]
    lines = [f"pile: {int(s['pile'])} of {int(s['start_pile'])} " + "o" * int(s["pile"])]
    for p in range(int(s["num_players"])):
        lines.append(f"player {p}: took {int(s['taken'][p])}")
    if s["terminated"] or s["truncated"]:
        lines.append(f"over: player {int(s['winner'])} won" if s["winner"] >= 0 else "over")
    else:
        lines.append(f"to act: player {int(s['current_player'])}")
    return "\n".join(lines)
