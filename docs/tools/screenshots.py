"""Screenshots of ``meeple play`` for docs/img and the README (one per game).

    python docs/tools/screenshots.py      # needs Playwright and Chromium (docs/pictures.md)

Each game is played a few moves into a seeded game against the heuristic, so the picture shows
a board with something on it, then the page is captured.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

from meeple_gym.play import PlayServer

OUT = Path(__file__).resolve().parents[1] / "img"
# game -> (players, moves to play first, seed)
SHOTS = {
    "century": (3, 12, 4),
    "radlands": (2, 14, 2),
    "everdell": (2, 16, 3),
    "endeavor": (3, 14, 1),
}


def shoot(browser, game: str, players: int, moves: int, seed: int) -> Path:
    server = PlayServer(game, "heuristic", seat=0, num_players=players, seed=seed)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        page = browser.new_page(viewport={"width": 1500, "height": 1000})
        page.goto(server.url)
        page.wait_for_selector("button.legal", timeout=600_000)  # a cold cache compiles first
        for _ in range(moves):  # the first legal button each time: a plain, repeatable game
            if page.evaluate("game.over"):
                break
            version = page.evaluate("game.version")
            page.click("button.legal")
            page.wait_for_function(f"game.version > {version} || game.over")
        path = OUT / f"play_{game}.png"
        page.screenshot(path=str(path), full_page=True)
        return path
    finally:
        server.shutdown()
        server.server_close()


def main() -> int:
    executable = os.environ.get("MEEPLE_GYM_CHROMIUM") or shutil.which("chromium")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=executable)
        for game, (players, moves, seed) in SHOTS.items():
            print(shoot(browser, game, players, moves, seed))
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
