"""Everdell pictures: the SVG parses, shows the public facts, hides exactly what
determinization resamples, rasterizes, and the text board's defects are gone."""

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from draw_helpers import batch_positions, check_determinized_pictures, rasterized_rgb, svg_text

import meeple_gym
from meeple_gym.core.svg import MIN_RGB_WIDTH
from meeple_gym.everdell import data as D
from meeple_gym.everdell import rules as R
from meeple_gym.everdell import snapshot as S
from meeple_gym.everdell.draw import draw

PLAYER_COUNTS = (1, 2, 3, 4)


@pytest.fixture(scope="module", params=PLAYER_COUNTS)
def positions(request):
    return request.param, batch_positions("everdell", request.param, 100 + request.param, 260, 37)


def _text(svg: str) -> str:
    return svg_text(svg, " ")


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
    check_determinized_pictures(draw, *positions)


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
    _, pos = positions
    rasterized_rgb(draw(pos[-1][1], 0, 0), MIN_RGB_WIDTH)


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
