"""Play against a bot in the browser: ``meeple play --game G --vs AGENT``.

A small HTTP server from the standard library (``http.server``), bound to 127.0.0.1 only,
serves one page. The person plays one seat; every other seat is the agent ``--vs`` (any agent
spec ``meeple eval`` takes). The page shows the game from the person's seat (their own hidden
cards face up, everyone else's face down), the legal actions as buttons grouped by kind, and the
bot's moves since the person's last one. It has a new-game button and a download of the game
as JSON.

The JSON API the page uses (every answer is JSON; errors are ``{"error": "..."}``):

- ``POST /api/games`` ``{"seed": optional int}`` -> a new game's state (201)
- ``GET /api/games/<id>`` -> its state: ``version``, ``svg``, ``legal`` (``id``, ``text``,
  ``group``), ``log``, ``over``, ``result``, ``to_move``, ``seat``
- ``POST /api/games/<id>/act`` ``{"action": int, "version": int}`` -> the state after the
  person's action and the bot's answers
- ``GET /api/games/<id>/download`` -> the game as JSON (moves; the full final record and the
  seed only once the game is over, so the file never shows the bot's hidden cards early)

A bad request gets a 4xx and changes nothing: an unknown game id 404, an illegal or
out-of-range action 400, a stale ``version`` (the page was showing an older state) 409, a
body that is not the expected JSON 400, a game that is over 409.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

from meeple_gym.core.errors import OptionError
from meeple_gym.replay import check_drawn, seated_chooser

MAX_BODY = 10_000  # bytes; the API's bodies are a few dozen
MAX_GAMES = 64  # games kept per server; the oldest is dropped beyond that
HOST = "127.0.0.1"


class RequestError(Exception):
    """A request the server refuses; ``status`` is the HTTP status it answers with."""

    def __init__(self, status: HTTPStatus, message: str):
        super().__init__(message)
        self.status = status


def action_group(text: str) -> str:
    """The button group of an action: its text up to the first space or colon ("play",
    "trade", "pass", ...)."""
    head = re.split(r"[\s:(]", text.strip(), maxsplit=1)[0]
    return head.lower() or "other"


class PlaySession:
    """One game: the person in ``seat``, the agent ``vs`` everywhere else."""

    def __init__(self, game: str, vs: str, seat: int, num_players: int, seed: int):
        import meeple_gym as mg

        self.lock = threading.Lock()
        self.game, self.vs, self.seat = game, vs, seat
        self.batch = mg.make_batch(game, 1, num_players, seed=seed)
        self.seed = int(self.batch.seed)
        self.batch.reset()
        self.spec = self.batch.spec
        check_drawn(self.spec)
        self.choose, _ = seated_chooser(game, num_players, [vs], self.seed)
        self.version = 0
        self.moves: list[dict] = []  # every move: player, action, text
        self.log: list[str] = []  # the bot's moves since the person's last one
        self.over = False
        self._play_bots()

    def _record(self, action: int) -> None:
        player = int(self.batch.current_player[0])
        text = self.spec.action_to_string(self.batch.states, 0, action)
        self.moves.append({"player": player, "action": action, "text": text})
        _, _, term, trunc = self.batch.step(np.array([action]))
        if term[0] or trunc[0]:
            self.over = True
        if player != self.seat:
            self.log.append(f"P{player}: {text}")

    def _play_bots(self) -> None:
        while not self.over and int(self.batch.current_player[0]) != self.seat:
            self._record(self.choose(self.batch))

    def act(self, action, version) -> None:
        if type(version) is not int or version != self.version:
            raise RequestError(
                HTTPStatus.CONFLICT,
                f"stale state: the page shows version {version!r}, the game is at "
                f"{self.version}; reload it",
            )
        if self.over:
            raise RequestError(HTTPStatus.CONFLICT, "the game is over; start a new one")
        if type(action) is not int or not 0 <= action < self.spec.num_actions:
            raise RequestError(
                HTTPStatus.BAD_REQUEST,
                f"action must be an int in [0, {self.spec.num_actions}), got {action!r}",
            )
        if not self.batch.legal_mask[0, action]:
            raise RequestError(HTTPStatus.BAD_REQUEST, f"action {action} is not legal now")
        self.log = []
        self._record(action)
        self._play_bots()
        self.version += 1

    def _result(self) -> str:
        if not self.over:
            return ""
        if bool(self.batch.truncated[0]):
            return "the game hit its step cap"
        scores = [int(v) for v in self.batch.final_scores[0][: self.batch.num_players]]
        return "Game over. Final scores: " + ", ".join(
            f"{'you' if p == self.seat else f'P{p}'} {v}" for p, v in enumerate(scores)
        )

    def state(self) -> dict:
        states = self.batch.final_states[:1] if self.over else self.batch.states
        legal = []
        if not self.over:
            for a in np.flatnonzero(self.batch.legal_mask[0]):
                text = self.spec.action_to_string(states, 0, int(a))
                legal.append({"id": int(a), "text": text, "group": action_group(text)})
        return {
            "version": self.version,
            "game": self.game,
            "seat": self.seat,
            "vs": self.vs,
            "svg": self.spec.draw(states, 0, self.seat),
            "legal": legal,
            "log": list(self.log),
            "over": self.over,
            "result": self._result(),
            "to_move": None if self.over else int(self.batch.current_player[0]),
        }

    def download(self) -> dict:
        out = {
            "game": self.game,
            "num_players": self.batch.num_players,
            "seat": self.seat,
            "vs": self.vs,
            "moves": list(self.moves),
            "over": self.over,
        }
        if self.over:  # only now may the person see the seed and every hidden card
            out["seed"] = self.seed
            out["final"] = self.spec.to_dict(self.batch.final_states, 0)
            out["result"] = self._result()
        return out


class PlayServer(ThreadingHTTPServer):
    """The server of ``meeple play``: its games by id, and how new ones are made."""

    daemon_threads = True

    def __init__(self, game, vs, seat=0, num_players=None, seed=None, port=0):
        import meeple_gym as mg
        from meeple_gym.baselines.evaluate import make_agent
        from meeple_gym.core.registry import check_num_players

        spec = check_drawn(mg.get_spec(game))
        self.num_players = check_num_players(
            spec, spec.default_players if num_players is None else num_players
        )
        if type(seat) is not int or not 0 <= seat < self.num_players:
            raise OptionError(f"--seat must be a seat in [0, {self.num_players}), got {seat!r}")
        make_agent(vs, game, 0)  # an unknown agent fails here, before the server starts
        self.game, self.vs, self.seat = game, vs, seat
        self.next_seed = secrets.randbits(63) if seed is None else int(seed)
        self.games: dict[str, PlaySession] = {}
        self.games_lock = threading.Lock()
        super().__init__((HOST, port), _Handler)

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.server_address[1]}/"

    def new_game(self, seed=None) -> tuple[str, PlaySession]:
        if seed is None:
            with self.games_lock:
                seed, self.next_seed = self.next_seed, self.next_seed + 1
        elif type(seed) is not int or not 0 <= seed < 2**63:
            raise RequestError(HTTPStatus.BAD_REQUEST, f"seed must be an int >= 0, got {seed!r}")
        session = PlaySession(self.game, self.vs, self.seat, self.num_players, seed)
        game_id = secrets.token_hex(8)
        with self.games_lock:
            self.games[game_id] = session
            while len(self.games) > MAX_GAMES:
                self.games.pop(next(iter(self.games)))
        return game_id, session

    def session(self, game_id: str) -> PlaySession:
        with self.games_lock:
            found = self.games.get(game_id)
        if found is None:
            raise RequestError(HTTPStatus.NOT_FOUND, f"no game with id {game_id!r}")
        return found


_ROUTE = re.compile(r"^/api/games/([0-9a-f]{1,32})(/act|/download)?$")


class _Handler(BaseHTTPRequestHandler):
    server: PlayServer

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass  # quiet: the command prints the URL, not one line per request

    def _send(self, status, body: bytes, content_type: str, extra=None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        for key, value in (extra or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status, payload, extra=None) -> None:
        self._send(status, json.dumps(payload).encode(), "application/json", extra)

    def _body(self) -> dict:
        length = self.headers.get("Content-Length")
        if length is None or not length.isdigit() or int(length) > MAX_BODY:
            raise RequestError(HTTPStatus.BAD_REQUEST, "send a JSON body of at most 10 kB")
        try:
            body = json.loads(self.rfile.read(int(length)) or b"{}")
        except (ValueError, UnicodeDecodeError):
            raise RequestError(HTTPStatus.BAD_REQUEST, "the body is not JSON") from None
        if not isinstance(body, dict):
            raise RequestError(HTTPStatus.BAD_REQUEST, "the body must be a JSON object")
        return body

    def _handle(self, method: str) -> None:
        try:
            self._route(method)
        except RequestError as err:
            self._json(err.status, {"error": str(err)})

    def _route(self, method: str) -> None:
        path = self.path.split("?", 1)[0]
        if method == "GET" and path in ("/", "/index.html"):
            return self._send(HTTPStatus.OK, _page(self.server).encode(), "text/html")
        if method == "POST" and path == "/api/games":
            game_id, session = self.server.new_game(self._body().get("seed"))
            with session.lock:
                state = session.state()
            return self._json(HTTPStatus.CREATED, {"id": game_id, **state})
        match = _ROUTE.match(path)
        if match is None:
            raise RequestError(HTTPStatus.NOT_FOUND, f"no such page: {path}")
        game_id, tail = match.groups()
        session = self.server.session(game_id)
        if method == "GET" and tail is None:
            with session.lock:
                return self._json(HTTPStatus.OK, {"id": game_id, **session.state()})
        if method == "GET" and tail == "/download":
            with session.lock:
                payload = session.download()
            name = f"meeple-{self.server.game}-{game_id}.json"
            disposition = {"Content-Disposition": f'attachment; filename="{name}"'}
            return self._json(HTTPStatus.OK, payload, disposition)
        if method == "POST" and tail == "/act":
            body = self._body()
            with session.lock:
                session.act(body.get("action"), body.get("version"))
                return self._json(HTTPStatus.OK, {"id": game_id, **session.state()})
        raise RequestError(HTTPStatus.METHOD_NOT_ALLOWED, f"{method} {path} is not supported")

    def do_GET(self):  # noqa: N802 - http.server's name
        self._handle("GET")

    def do_POST(self):  # noqa: N802 - http.server's name
        self._handle("POST")


def _page(server: PlayServer) -> str:
    title = f"meeple play: {server.game} against {server.vs}"
    return _PAGE.replace("@TITLE@", json.dumps(title)[1:-1].replace("<", "&lt;"))


def serve(game, vs, seat=0, num_players=None, seed=None, port=0, open_browser=True):
    """Start the server and block until Ctrl-C; prints the URL (``--no-browser`` leaves the
    browser alone)."""
    try:
        server = PlayServer(game, vs, seat, num_players, seed, port)
    except OSError as err:  # the port is taken or not ours to use
        raise OptionError(f"cannot serve on {HOST}:{port}: {err.strerror or err}") from None
    print(f"meeple play: {server.url} (Ctrl-C stops)", flush=True)
    if open_browser:
        import webbrowser

        webbrowser.open(server.url)
    try:
        server.serve_forever()
    finally:
        server.server_close()


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>@TITLE@</title>
<link rel="icon" href="data:,">
<style>
body{font-family:DejaVu Sans,Verdana,Arial,sans-serif;margin:12px;background:#faf7f0;color:#222}
#top{display:flex;gap:16px;flex-wrap:wrap;align-items:flex-start}
#picture svg{max-width:100%;height:auto;border:1px solid #ccc;background:#fff}
#picture{flex:1 1 0;min-width:0}#side{flex:0 0 400px}
.group{margin:6px 0}.group h4{margin:4px 0;text-transform:capitalize}
.group button{margin:2px;font-size:13px;padding:3px 8px;text-align:left}
#log{background:#fff;border:1px solid #ccc;padding:4px 8px;min-height:2em;font-size:13px}
#status{font-weight:bold;margin:6px 0}#error{color:#b91c1c;min-height:1.2em}
</style></head><body>
<h2 style="margin:4px 0">@TITLE@</h2>
<div><button id="new">New game</button>
<button id="download">Download the game (JSON)</button></div>
<div id="status"></div><div id="error"></div>
<div id="top"><div id="picture"></div><div id="side">
<h3 style="margin:4px 0">Bot moves</h3><div id="log"></div>
<h3 style="margin:8px 0 4px">Your moves</h3><div id="actions"></div></div></div>
<script>
"use strict";
let game = null;
async function call(method, url, body) {
  const response = await fetch(url, {method, headers: {"Content-Type": "application/json"},
    body: body === undefined ? undefined : JSON.stringify(body)});
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}
function show(state) {
  game = state;
  document.getElementById("error").textContent = "";
  document.getElementById("picture").innerHTML = state.svg;
  document.getElementById("status").textContent = state.over ? state.result
    : `You are player ${state.seat}. Your move (${state.legal.length} legal).`;
  const log = document.getElementById("log");
  log.replaceChildren(...state.log.map((line) => {
    const row = document.createElement("div"); row.textContent = line; return row; }));
  if (!state.log.length) log.textContent = "-";
  const groups = new Map();
  for (const a of state.legal) {
    if (!groups.has(a.group)) groups.set(a.group, []);
    groups.get(a.group).push(a);
  }
  const box = document.getElementById("actions");
  box.replaceChildren();
  for (const [name, actions] of groups) {
    const group = document.createElement("div"); group.className = "group";
    const head = document.createElement("h4"); head.textContent = name; group.appendChild(head);
    for (const a of actions) {
      const button = document.createElement("button");
      button.textContent = a.text; button.dataset.action = a.id; button.className = "legal";
      button.onclick = () => act(a.id);
      group.appendChild(button);
    }
    box.appendChild(group);
  }
}
async function act(action) {
  try { show(await call("POST", `/api/games/${game.id}/act`, {action, version: game.version})); }
  catch (err) { document.getElementById("error").textContent = err.message; }
}
async function newGame() {
  try { show(await call("POST", "/api/games", {})); }
  catch (err) { document.getElementById("error").textContent = err.message; }
}
document.getElementById("new").onclick = newGame;
document.getElementById("download").onclick = () => {
  if (game) window.location.href = `/api/games/${game.id}/download`;
};
newGame();
</script></body></html>
"""

__all__ = ["PlayServer", "PlaySession", "RequestError", "action_group", "serve"]
