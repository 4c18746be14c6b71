"""The replay page and ``meeple play`` in a real browser (Playwright driving Chromium).

Chromium is Debian's (``apt-get install chromium``; ``.ci/run`` installs it when missing), found
as ``$MEEPLE_GYM_CHROMIUM`` or ``chromium`` on PATH, else Playwright's own download. The tests
skip, saying why, only where no browser can be started.
"""

from __future__ import annotations

import json
import os
import shutil
import threading

import numpy as np
import pytest

import meeple_gym as mg
from meeple_gym.play import PlayServer
from meeple_gym.replay import record_game, replay_html

playwright_api = pytest.importorskip(
    "playwright.sync_api", reason="Playwright is not installed (pip install '.[test]')"
)

# (game, players) of the games played to the end by clicking
GAMES = [("century", 2), ("radlands", 2), ("everdell", 2), ("endeavor", 2)]


@pytest.fixture(scope="module")
def browser():
    executable = os.environ.get("MEEPLE_GYM_CHROMIUM") or shutil.which("chromium")
    with playwright_api.sync_playwright() as p:
        try:
            launched = p.chromium.launch(executable_path=executable)
        except Exception as err:  # no browser here: say which and why
            pytest.skip(f"cannot start Chromium ({executable or 'Playwright download'}): {err}")
        yield launched
        launched.close()


@pytest.fixture
def page(browser):
    """A page that collects console errors and uncaught exceptions."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    opened = context.new_page()
    opened.errors = []
    opened.on("console", lambda m: m.type == "error" and opened.errors.append(m.text))
    opened.on("pageerror", lambda e: opened.errors.append(str(e)))
    yield opened
    context.close()


def test_replay_page_steps_through_a_whole_game(page, tmp_path):
    recording = record_game("century", 2, agents=["heuristic", "random"], seed=11)
    path = tmp_path / "replay.html"
    path.write_text(replay_html(recording))
    page.goto(path.as_uri())
    page.wait_for_selector("#picture svg")
    last = recording.num_steps
    seen = set()
    for t in range(last + 1):
        label = page.text_content("#label")
        assert label == f"step {t} / {last}"
        now = page.text_content("#now")
        if t < last:
            # the move shown is the one recorded, and the count of legal actions with it
            assert recording.action_texts[t] in now
            assert f"({recording.legal_counts[t]} legal)" in now
        else:
            assert now.startswith("Game over")
        seen.add(page.inner_html("#picture")[:200] + str(len(page.inner_html("#picture"))))
        page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")  # past the end it stays at the end
    assert page.text_content("#label") == f"step {last} / {last}"
    page.click("#first")
    assert page.text_content("#label") == f"step 0 / {last}"
    page.fill("#slider", str(last // 2))
    page.dispatch_event("#slider", "input")
    assert page.text_content("#label") == f"step {last // 2} / {last}"
    cursor_x = float(page.get_attribute("#cursor", "x1"))
    assert cursor_x > 34  # the chart's cursor moved off its left edge
    assert len(seen) > last // 2  # the picture changed as the game went on
    assert page.errors == []


def _serve(game, players, seed):
    server = PlayServer(game, "random", seat=0, num_players=players, seed=seed)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server


@pytest.mark.parametrize(("game", "players"), GAMES)
def test_a_whole_game_is_played_by_clicking_legal_buttons(page, game, players):
    server = _serve(game, players, seed=5)
    try:
        page.goto(server.url)
        page.wait_for_selector("#picture svg")
        rng = np.random.default_rng(0)
        clicks = 0
        while True:
            status = page.text_content("#status")
            if status.startswith("Game over") or "step cap" in status:
                break
            buttons = page.query_selector_all("button.legal")
            assert buttons, f"no legal buttons while the game is on: {status!r}"
            version = page.evaluate("game.version")
            buttons[int(rng.integers(len(buttons)))].click()
            page.wait_for_function(f"game.version > {version} || game.over")
            assert page.text_content("#error") == ""
            clicks += 1
            assert clicks < 5000
        (session,) = server.games.values()
        assert session.over and clicks > 0
        # the person moved only in their own seat, and the server holds the whole game
        assert sum(m["player"] == 0 for m in session.moves) == clicks
        assert page.errors == []
    finally:
        server.shutdown()
        server.server_close()


def test_the_page_shows_a_clear_error_and_keeps_the_game(page):
    server = _serve("century", 2, seed=1)
    try:
        page.goto(server.url)
        page.wait_for_selector("button.legal")
        (session,) = server.games.values()
        moves, version = len(session.moves), session.version
        before = page.evaluate("JSON.stringify(game)")
        # an illegal action sent as the page would send it
        page.evaluate("act(9999)")
        page.wait_for_function("document.getElementById('error').textContent !== ''")
        assert "action must be an int in [0," in page.text_content("#error")
        assert page.evaluate("JSON.stringify(game)") == before
        assert (len(session.moves), session.version) == (moves, version)
    finally:
        server.shutdown()
        server.server_close()


def test_every_registered_game_has_a_game_here():
    assert sorted(g for g, _ in GAMES) == mg.available_games()


def test_new_game_and_download_buttons(page):
    server = _serve("century", 2, seed=3)
    try:
        page.goto(server.url)
        page.wait_for_selector("button.legal")
        first = page.evaluate("game.id")
        with page.expect_download() as download:
            page.click("#download")
        saved = json.loads(open(download.value.path()).read())
        assert saved["game"] == "century" and saved["seat"] == 0 and "seed" not in saved
        page.click("#new")
        page.wait_for_function(f"game.id !== {json.dumps(first)}")
        assert len(server.games) == 2 and page.errors == []
    finally:
        server.shutdown()
        server.server_close()
