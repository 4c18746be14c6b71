"""``meeple play``'s server without a browser: every bad request gets a clear 4xx and leaves the
game as it was; the person sees only their own seat's hidden information; the download shows
the seed and the full record only once the game is over."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import urllib.error
import urllib.request

import numpy as np
import pytest

import meeple_gym as mg
from meeple_gym.play import PlayServer, action_group


@pytest.fixture
def server():
    running = PlayServer("radlands", "random", seat=1, seed=7)
    threading.Thread(target=running.serve_forever, daemon=True).start()
    yield running
    running.shutdown()
    running.server_close()


def call(server, method, path, body=None, raw=None):
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    request = urllib.request.Request(
        server.url.rstrip("/") + path,
        method=method,
        data=data,
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_bad_requests_get_4xx_and_change_nothing(server):
    status, state = call(server, "POST", "/api/games", {})
    assert status == 201 and state["legal"] and state["seat"] == 1
    game_id = state["id"]
    session = server.games[game_id]
    before = (session.batch.get_states().tobytes(), len(session.moves), session.version)
    illegal = int(np.flatnonzero(session.batch.legal_mask[0] == 0)[0])
    cases = [
        ("GET", "/api/games/0123abcd", None, None, 404, "no game with id"),
        (
            "POST",
            f"/api/games/{game_id}/act",
            {"action": illegal, "version": 0},
            None,
            400,
            "not legal",
        ),
        (
            "POST",
            f"/api/games/{game_id}/act",
            {"action": 10**9, "version": 0},
            None,
            400,
            "action must be an int",
        ),
        (
            "POST",
            f"/api/games/{game_id}/act",
            {"action": "3", "version": 0},
            None,
            400,
            "action must be an int",
        ),
        (
            "POST",
            f"/api/games/{game_id}/act",
            {"action": state["legal"][0]["id"], "version": 5},
            None,
            409,
            "stale state",
        ),
        ("POST", f"/api/games/{game_id}/act", None, b"{not json", 400, "not JSON"),
        ("POST", f"/api/games/{game_id}/act", None, b"[1, 2]", 400, "JSON object"),
        ("GET", "/api/nothing", None, None, 404, "no such page"),
        ("POST", f"/api/games/{game_id}", {}, None, 405, "not supported"),
        ("POST", "/api/games", {"seed": -3}, None, 400, "seed must be"),
    ]
    for method, path, body, raw, code, words in cases:
        status, answer = call(server, method, path, body, raw)
        assert (status, words in answer["error"]) == (code, True), (path, body, raw, answer)
        after = (session.batch.get_states().tobytes(), len(session.moves), session.version)
        assert after == before
    assert len(server.games) == 1  # the refused new game made none


def test_a_game_through_the_api_hides_the_bots_cards_until_the_end(server):
    status, state = call(server, "POST", "/api/games", {"seed": 3})
    game_id = state["id"]
    rng = np.random.default_rng(1)
    while not state["over"]:
        _, download = call(server, "GET", f"/api/games/{game_id}/download")
        assert "seed" not in download and "final" not in download
        # the person's picture is drawn from their seat
        session = server.games[game_id]
        assert state["svg"] == session.spec.draw(session.batch.states, 0, 1)
        assert state["to_move"] == 1
        choice = state["legal"][int(rng.integers(len(state["legal"])))]["id"]
        status, state = call(
            server,
            "POST",
            f"/api/games/{game_id}/act",
            {"action": choice, "version": state["version"]},
        )
        assert status == 200
    status, answer = call(
        server, "POST", f"/api/games/{game_id}/act", {"action": 0, "version": state["version"]}
    )
    assert status == 409 and "over" in answer["error"]
    _, download = call(server, "GET", f"/api/games/{game_id}/download")
    assert download["seed"] == 3 and download["over"]
    spec = mg.get_spec("radlands")
    spec.from_dict(download["final"])  # a valid record of the finished game
    replay = mg.make_batch("radlands", 1, 2, seed=3)
    replay.reset()
    for move in download["moves"]:  # the moves replay to the same end
        replay.step(np.array([move["action"]]))
    assert bool(replay.terminated[0] or replay.truncated[0])


def test_the_server_refuses_a_bad_setup_before_it_listens():
    with pytest.raises(mg.OptionError, match="--seat"):
        PlayServer("century", "random", seat=7)
    with pytest.raises(mg.OptionError, match="agent"):
        PlayServer("century", "nobody:Agent")
    with pytest.raises(mg.UnknownGameError):
        PlayServer("chess", "random")


def test_action_groups_read_the_first_word():
    assert action_group("play +YY") == "play"
    assert action_group("Acquire slot 2 (RR>YB)") == "acquire"
    assert action_group("pass") == "pass"
    assert action_group("target: own Gunner") == "target"


def _meeple(*args: str, timeout: int) -> subprocess.CompletedProcess:
    """Run the ``meeple`` command line in a fresh interpreter, capturing its text output."""
    return subprocess.run(
        [sys.executable, "-m", "meeple_gym.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_meeple_play_on_a_taken_port_is_one_line(server):
    port = server.server_address[1]
    done = _meeple("play", "--game", "century", "--port", str(port), "--no-browser", timeout=300)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "cannot serve" in done.stderr


def test_meeple_replay_writes_a_page(tmp_path):
    out = tmp_path / "game.html"
    done = _meeple(
        *"replay --game century --agents heuristic random --seed 2 --out".split(),
        str(out),
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    page = out.read_text()
    assert page.startswith("<!DOCTYPE html>") and 'id="data"' in page
    assert not re.search(r'(src|href)\s*=\s*"https?:', page)  # needs no network
    bad = _meeple(
        *"replay --game century --viewer 9 --out".split(), str(tmp_path / "x.html"), timeout=600
    )
    assert bad.returncode == 2 and "--viewer" in bad.stderr
