"""Replays: a played game as one self-contained HTML page (``meeple replay``).

>>> from meeple_gym.replay import record_game, replay_html
>>> recording = record_game("century", 2, agents=["heuristic", "random"], seed=3)
>>> page = replay_html(recording)          # a str: write it to a .html file and open it

The page needs no network: the pictures (each game's ``draw`` module), the scores and the moves
are inside it. It has a step slider, previous/next buttons, the arrow keys (Home/End jump), a
list of the moves (``action_to_string``) with the number of legal actions at each, and a chart
of the scores over time that follows the slider.

A game is recorded from agents and a seed exactly as ``meeple eval`` seats them (agent ``k``
in seat ``k``, seeded with ``agent_seed(seed, k)``), or rebuilt from a trajectory file written
by ``meeple rollout --agents ... --trajectories`` (``recording_from_trajectories``): the
game's batch is rebuilt from the match seed and its actions are played again.

Size: consecutive pictures share most of their SVG, so the page stores each distinct SVG
element once and every frame as runs of element numbers; a 300-step game stays well under
2 MB (tests/test_replay.py checks it).
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field

import numpy as np

from meeple_gym.core.errors import OptionError
from meeple_gym.core.options import check_int
from meeple_gym.core.svg import Canvas

MAX_REPLAY_STEPS = 20_000  # a game's step cap; longer recordings are refused


def check_drawn(spec):
    """``spec`` if its game has pictures (``GameSpec.draw`` and ``scores_now``), else a clear
    ``OptionError``."""
    if spec.draw is None or spec.scores_now is None:
        raise OptionError(f"{spec.name} has no pictures (GameSpec.draw / scores_now)")
    return spec


@dataclass
class Recording:
    """A played game: the state record before every decision and after the last one."""

    game: str
    num_players: int
    seed: int
    agents: list = field(default_factory=list)
    states: list = field(default_factory=list)  # T + 1 one-row record arrays
    players: list = field(default_factory=list)  # T seats that decided
    actions: list = field(default_factory=list)  # T actions
    action_texts: list = field(default_factory=list)  # T
    legal_counts: list = field(default_factory=list)  # T
    result: str = ""

    @property
    def num_steps(self) -> int:
        return len(self.actions)


def _result_text(batch) -> str:
    if bool(batch.truncated[0]):
        return "truncated at the step cap"
    scores = [int(x) for x in batch.final_scores[0][: batch.num_players]]
    return "final scores " + ", ".join(f"P{p}: {v}" for p, v in enumerate(scores))


def _play(batch, choose, max_steps: int) -> Recording:
    """Step game 0 of ``batch`` with ``choose(batch) -> action`` until it ends."""
    spec = batch.spec
    rec = Recording(spec.name, batch.num_players, int(batch.seed))
    for _ in range(max_steps):
        states = batch.get_states()
        rec.states.append(states)
        mask = batch.legal_mask[0]
        action = int(choose(batch))
        rec.players.append(int(batch.current_player[0]))
        rec.actions.append(action)
        rec.action_texts.append(spec.action_to_string(states, 0, action))
        rec.legal_counts.append(int(mask.sum()))
        _, _, term, trunc = batch.step(np.array([action]))
        if term[0] or trunc[0]:
            rec.states.append(batch.final_states[:1].copy())
            rec.result = _result_text(batch)
            return rec
    raise OptionError(f"the game did not end within {max_steps} steps")


def seated_chooser(game: str, num_players: int, agents, seed: int):
    """``(choose, labels)``: ``choose(batch)`` is the action of the agent in the seat to move
    in game 0 of ``batch``; agents are seated and seeded as game 0 of ``meeple eval --agents
    ... --seed``: one agent plays every seat, two play first-vs-rest (agent 0 in seat 0), or one
    per seat. ``labels[seat]`` names each seat's agent."""
    from meeple_gym.baselines.evaluate import (
        agent_label,
        chunk_agents,
        record_policy,
        seat_table,
    )
    from meeple_gym.core.options import check_agent_action

    names = list(agents)
    if len(names) == 1:
        seats = np.zeros(num_players, dtype=np.int64)
    else:
        seats = seat_table(1, num_players, len(names))[0]
    players = chunk_agents(names, game, seed)

    def choose(batch) -> int:
        agent = players[seats[int(batch.current_player[0])]]
        search = record_policy(agent)
        if search is not None:  # it determinizes the record itself
            out = search(batch.states[:1])
        else:
            out = agent.act_batch(batch.observation[:1], batch.legal_mask[:1])
        who = f"agent {agent_label(agent)!r}"
        return int(check_agent_action(out, batch.legal_mask[:1], who)[0])

    labels = [n if isinstance(n, str) else agent_label(n) for n in (names[k] for k in seats)]
    return choose, labels


def record_game(
    game: str, num_players: int | None = None, *, agents=("random",), seed: int = 0
) -> Recording:
    """Play one game, agents seated as in ``seated_chooser``."""
    import meeple_gym as mg

    spec = mg.get_spec(game)
    num_players = spec.default_players if num_players is None else num_players
    batch = mg.make_batch(game, 1, num_players, seed=seed)
    choose, labels = seated_chooser(game, batch.num_players, agents, int(batch.seed))
    batch.reset()
    rec = _play(batch, choose, MAX_REPLAY_STEPS)
    rec.agents = labels
    return rec


def recording_from_trajectories(path, game_index: int = 0) -> Recording:
    """Game ``game_index`` of a ``meeple rollout --trajectories`` file, played again from its
    match seed (docs/distributed.md, "Trajectories")."""
    import meeple_gym as mg
    from meeple_gym.baselines.evaluate import MAX_BATCH, match_chunks
    from meeple_gym.distributed import load_rollout

    # Only what the rebuild reads: a file with observations can be far larger than memory.
    data = load_rollout(path, keys=("traj_offsets", "traj_action"))
    meta = data["meta"]
    if "traj_offsets" not in data or "traj_action" not in data:
        raise OptionError(
            f"{path}: not a trajectory file (no traj_offsets / traj_action); write one with "
            "`meeple rollout --agents ... --trajectories --out FILE.npz`"
        )
    offsets, actions_all = data["traj_offsets"], data["traj_action"]
    num_games = int(meta["num_games"])
    game_index = check_int("game_index", game_index, 0, num_games - 1)
    chunks = match_chunks(num_games, meta["seed"], meta.get("max_batch") or MAX_BATCH)
    start, _, batch_seed = next(c for c in chunks if c[0] <= game_index < c[1])
    slot = game_index - start
    batch = mg.make_batch(meta["game"], slot + 1, meta["num_players"], seed=batch_seed)
    batch.reset()
    actions = actions_all[offsets[game_index] : offsets[game_index + 1]]
    # A slot's deal depends on its index, so the batch runs up to the slot; its game is then
    # copied into a batch of one and played alone.
    one_game = mg.make_batch(meta["game"], 1, meta["num_players"], seed=batch_seed)
    one_game.reset()
    one_game.set_states(batch.get_states()[slot : slot + 1])
    moves = iter(int(a) for a in actions)
    rec = _play(one_game, lambda b: next(moves), len(actions))
    rec.seed = int(meta["seed"])
    rec.agents = list(meta.get("agents") or [])
    return rec


# -- the page --------------------------------------------------------------------------------

_PIECE = re.compile(r"(?=<[A-Za-z])")


def _frames(svgs: list[str]) -> tuple[list[str], list[list[int]]]:
    """Each SVG as runs ``[first, count, first, count, ...]`` of numbers into one list of
    distinct elements (most elements repeat from frame to frame)."""
    index: dict[str, int] = {}
    pieces: list[str] = []
    frames = []
    for svg in svgs:
        runs: list[int] = []
        for piece in _PIECE.split(svg):
            if not piece:
                continue
            k = index.setdefault(piece, len(pieces))
            if k == len(pieces):
                pieces.append(piece)
            if runs and runs[-2] + runs[-1] == k:
                runs[-1] += 1
            else:
                runs += [k, 1]
        frames.append(runs)
    return pieces, frames


def score_chart(scores: np.ndarray, width: int = 420, height: int = 180) -> tuple[str, dict]:
    """A line chart of ``scores`` (steps x seats) and the x of each step (for the cursor)."""
    steps, seats = scores.shape
    left, right, top, bottom = 34, 10, 10, 24
    top_value = max(1, int(scores.max(initial=0)))
    low_value = min(0, int(scores.min(initial=0)))
    span_x = max(1, steps - 1)

    def x_of(t):
        return left + (width - left - right) * t / span_x

    def y_of(v):
        return top + (height - top - bottom) * (top_value - v) / (top_value - low_value)

    c = Canvas(width, height, background="#ffffff")
    c.line(left, y_of(low_value), width - right, y_of(low_value), stroke="#999999")
    c.line(left, top, left, height - bottom, stroke="#999999")
    for v in (low_value, top_value):
        c.text(left - 4, y_of(v) + 4, str(v), size=10, anchor="end")
    c.text(width - right, height - 6, f"step {steps - 1}", size=10, anchor="end")
    c.text(left, height - 6, "0", size=10)
    for p in range(seats):
        colour = SEAT_COLOURS[p % len(SEAT_COLOURS)]
        c.polyline([(x_of(t), y_of(v)) for t, v in enumerate(scores[:, p])], colour, width=2)
        c.text(left + 6 + 40 * p, top + 10, f"P{p}", size=11, fill=colour, bold=True)
    # The cursor the page moves to the step shown (its id is the page script's handle).
    c.line(left, top, left, height - bottom, stroke="#d97706", width=2, element_id="cursor")
    return c.to_svg(), {"x": [round(x_of(t), 1) for t in range(steps)]}


SEAT_COLOURS = ("#2b6cb0", "#c53030", "#2f855a", "#805ad5", "#b7791f")


def replay_html(recording: Recording, viewer: int | None = None, title: str | None = None) -> str:
    """The replay page of ``recording`` as an HTML string (module docstring). ``viewer``:
    None shows the public view (hidden cards face down), a seat shows that seat's own."""
    import meeple_gym as mg

    spec = mg.get_spec(recording.game)
    check_drawn(spec)
    svgs, scores = [], []
    for states in recording.states:
        svgs.append(spec.draw(states, 0, viewer))
        scores.append([int(v) for v in spec.scores_now(states, 0)])
    pieces, frames = _frames(svgs)
    chart, chart_x = score_chart(np.array(scores, dtype=np.int64))
    steps = [
        {"p": p, "a": text, "n": n}
        for p, text, n in zip(
            recording.players, recording.action_texts, recording.legal_counts, strict=True
        )
    ]
    data = {"pieces": pieces, "frames": frames, "steps": steps, "scores": scores, **chart_x}
    title = title or (
        f"{recording.game}: {', '.join(map(str, recording.agents)) or 'replay'} "
        f"(seed {recording.seed})"
    )
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return (
        _TEMPLATE.replace("@TITLE@", html.escape(title))
        .replace("@RESULT@", html.escape(recording.result))
        .replace("@CHART@", chart)
        .replace("@DATA@", payload)
    )


def write_replay(path, recording: Recording, viewer: int | None = None) -> None:
    from meeple_gym.core.files import atomic_write

    page = replay_html(recording, viewer)
    with atomic_write(path) as f:
        f.write(page.encode())


_TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>@TITLE@</title>
<link rel="icon" href="data:,">
<style>
body{font-family:DejaVu Sans,Verdana,Arial,sans-serif;margin:12px;background:#faf7f0;color:#222}
#top{display:flex;gap:16px;flex-wrap:wrap;align-items:flex-start}
#picture svg{max-width:100%;height:auto;border:1px solid #ccc;background:#fff}
#picture{flex:1 1 0;min-width:0}#side{flex:0 0 440px}
#controls{display:flex;gap:6px;align-items:center;margin:8px 0}
#slider{flex:1}
#moves{height:330px;overflow-y:auto;border:1px solid #ccc;background:#fff;font-size:13px}
#moves div{padding:2px 6px;cursor:pointer;white-space:nowrap}
#moves div.now{background:#fde68a}
#now{font-size:14px;margin:6px 0;min-height:2.6em}
button{font-size:14px;padding:3px 10px}
</style></head><body>
<h2 style="margin:4px 0">@TITLE@</h2>
<div>@RESULT@</div>
<div id="controls"><button id="first" title="Home">&#8676;</button>
<button id="prev" title="Left arrow">&#9664; prev</button>
<input id="slider" type="range" min="0" value="0" aria-label="step">
<button id="next" title="Right arrow">next &#9654;</button>
<button id="last" title="End">&#8677;</button>
<span id="label"></span></div>
<div id="top"><div id="picture"></div>
<div id="side"><div id="now"></div><div id="chart">@CHART@</div><div id="moves"></div></div></div>
<script type="application/json" id="data">@DATA@</script>
<script>
"use strict";
const D = JSON.parse(document.getElementById("data").textContent);
const last = D.frames.length - 1;
const slider = document.getElementById("slider");
slider.max = last;
const moves = document.getElementById("moves");
D.steps.forEach((s, t) => {
  const row = document.createElement("div");
  row.textContent = `${t}. P${s.p}: ${s.a}  (${s.n} legal)`;
  row.onclick = () => show(t);
  moves.appendChild(row);
});
function frameSvg(t) {
  const runs = D.frames[t];
  const out = [];
  for (let i = 0; i < runs.length; i += 2)
    for (let k = runs[i]; k < runs[i] + runs[i + 1]; k++) out.push(D.pieces[k]);
  return out.join("");
}
let shown = -1;
function show(t) {
  t = Math.max(0, Math.min(last, t));
  if (t === shown) return;
  if (shown >= 0 && shown < D.steps.length) moves.children[shown].className = "";
  shown = t;
  document.getElementById("picture").innerHTML = frameSvg(t);
  slider.value = t;
  document.getElementById("label").textContent = `step ${t} / ${last}`;
  const score = D.scores[t].map((v, p) => `P${p} ${v}`).join(", ");
  const now = document.getElementById("now");
  if (t < D.steps.length) {
    const s = D.steps[t];
    now.textContent = `Player ${s.p} to move (${s.n} legal): ${s.a}. Score: ${score}`;
    moves.children[t].className = "now";
    moves.children[t].scrollIntoView({block: "nearest"});
  } else {
    now.textContent = `Game over. Score: ${score}`;
  }
  const cursor = document.getElementById("cursor");
  cursor.setAttribute("x1", D.x[t]);
  cursor.setAttribute("x2", D.x[t]);
}
slider.oninput = () => show(Number(slider.value));
document.getElementById("prev").onclick = () => show(shown - 1);
document.getElementById("next").onclick = () => show(shown + 1);
document.getElementById("first").onclick = () => show(0);
document.getElementById("last").onclick = () => show(last);
document.addEventListener("keydown", (e) => {
  const to = {ArrowLeft: shown - 1, ArrowRight: shown + 1, Home: 0, End: last}[e.key];
  if (to !== undefined && e.target !== slider) { e.preventDefault(); show(to); }
});
show(0);
</script></body></html>
"""

__all__ = [
    "Recording",
    "record_game",
    "recording_from_trajectories",
    "replay_html",
    "score_chart",
    "write_replay",
]
