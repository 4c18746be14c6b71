"""Everdell pictures: the SVG parses, shows the public facts, hides exactly what
determinization resamples, rasterizes, and the text board's defects are gone."""

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import meeple_gym
from meeple_gym.core.svg import MIN_RGB_WIDTH, rasterize
from meeple_gym.everdell import data as D
from meeple_gym.everdell import rules as R
from meeple_gym.everdell import snapshot as S
from meeple_gym.everdell.draw import draw

PLAYER_COUNTS = (1, 2, 3, 4)


def _positions(num_players: int, seed: int, steps=260, every=37):
    """(batch, states) pairs along random games of a 3-game batch, plus finished games."""
    batch = meeple_gym.make_batch("everdell", 3, num_players, seed=seed)
    batch.reset()
    rng = np.random.default_rng(seed)
    out = []
    for step in range(steps):
        mask = batch.legal_mask
        batch.step(np.array([rng.choice(np.flatnonzero(row)) for row in mask]))
        if step % every == every - 1:
            out.append((batch, batch.get_states()))
    return out


@pytest.fixture(scope="module", params=PLAYER_COUNTS)
def positions(request):
    return request.param, _positions(request.param, 100 + request.param)


def _text(svg: str) -> str:
    return " ".join(
        t.text or "" for t in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text")
    )


def test_svg_parses_and_is_wide(positions):
    _, pos = positions
    for _, states in pos:
        for g in range(len(states)):
            root = ET.fromstring(draw(states, g))
            assert float(root.get("width")) >= MIN_RGB_WIDTH


def test_visible_facts(positions):
    n, pos = positions
    for _, states in pos:
        for g in range(len(states)):
            s = states[g]
            text = _text(draw(states, g))
            for t in s["meadow"].tolist():
                if t >= 0:
                    assert D.CARD_NAMES[t] in text
            for p in range(n):
                for t in s["city"][p].tolist():
                    if t >= 0:
                        assert D.CARD_NAMES[t] in text
            scores = S.current_scores(states, g)
            for p in range(n):
                assert f"Player {p}" in text and f"score now {scores[p]}" in text
            if n == 1:
                assert f"score now {scores[R.RUGWORT]}" in text
            cp = int(s["current_player"])
            assert re.search(rf"Player {cp}[^·]*·[^P]*TO DECIDE", text)
            assert f"To decide: player {cp}" in text
            for e in [*D.BASIC_EVENTS, *s["specials"].tolist()]:
                assert D.EVENT_NAMES[e] in text
            for loc in s["forest"].tolist():
                if loc >= 0:
                    assert D.LOCATION_NAMES[loc].removeprefix("Forest: ") in text


def test_game_over_names_the_winner():
    batch = meeple_gym.make_batch("everdell", 2, 2, seed=7)
    batch.reset()
    rng = np.random.default_rng(7)
    while not batch.episodes.any():
        batch.step(np.array([rng.choice(np.flatnonzero(row)) for row in batch.legal_mask]))
    g = int(np.flatnonzero(batch.episodes)[0])
    final = batch.final_states
    text = _text(draw(final, g))
    assert "GAME OVER" in text
    winner = int(final[g]["winner"])
    assert ("a draw" if winner < 0 else f"player {winner} wins") in text
    for p in range(2):
        assert f"final score {int(final[g]['score'][p])}" in text


def test_hidden_information_matches_determinization(positions):
    """Drawing a position and its determinizations for the viewer (for every seat when the
    viewer is None) gives the same picture: nothing drawn is something that seat may not know."""
    n, pos = positions
    for batch, states in pos:
        batch.set_states(states)  # determinize reads the batch's current position
        size = len(states)
        for viewer in [None, *range(n)]:
            pictures = [draw(states, g, viewer) for g in range(size)]
            for seat in range(n) if viewer is None else [viewer]:
                for seed in (11, 12):
                    det = batch.determinize(np.full(size, seat), seed=seed + seat)
                    for g in range(size):
                        assert draw(det, g, viewer) == pictures[g], (viewer, seat, g)


def test_own_hand_face_up_only_for_its_seat(positions):
    n, pos = positions
    for _, states in pos:
        for g in range(len(states)):
            s = states[g]
            public = draw(states, g)
            for p in range(n):
                own = draw(states, g, p)
                assert f"{int(s['hand_n'][p])} cards" in public
                for t in np.flatnonzero(s["hand"][p]).tolist():
                    tag = f">{D.CARD_NAMES[t]}</text>"
                    assert own.count(tag) >= public.count(tag) + int(s["hand"][p, t])


def test_rasterize_gives_rgb(positions):
    pytest.importorskip("cairosvg", reason="the pictures extra (CairoSVG) is not installed")
    _, pos = positions
    image = rasterize(draw(pos[-1][1], 0, 0))
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3
    assert image.shape[1] >= MIN_RGB_WIDTH


def test_ansi_board_has_one_forest_heading_and_points(positions):
    n, pos = positions
    for _, states in pos:
        text = S.render(states, 0)
        assert "Forest: Forest:" not in text
        for loc in states[0]["forest"].tolist():
            if loc >= 0:
                assert D.LOCATION_NAMES[loc] in text
        scores = S.current_scores(states, 0)
        for p in range(n):
            assert f"{scores[p]} points so far" in text
        if n == 1:
            assert f"{scores[R.RUGWORT]} points so far" in text
