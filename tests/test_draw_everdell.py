"""Everdell pictures: the SVG parses, shows the public facts, hides exactly what
determinization resamples, rasterizes, and the text board's defects are gone."""

import re

import draw_helpers as dh
import numpy as np

from meeple_gym.core.svg import MIN_RGB_WIDTH
from meeple_gym.everdell import data as D
from meeple_gym.everdell import rules as R
from meeple_gym.everdell import snapshot as S
from meeple_gym.everdell.draw import draw

positions = dh.positions_fixture("everdell", (1, 2, 3, 4), seed=100, steps=260, every=37)


def test_visible_facts(positions):
    n, pos = positions
    for states, g, s in dh.each_game(states for _, states in pos):
        text = dh.svg_text(draw(states, g))
        dh.assert_names_shown(text, s["meadow"], D.CARD_NAMES)
        for p in range(n):
            dh.assert_names_shown(text, s["city"][p], D.CARD_NAMES)
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
    final, g, text = dh.first_final_picture("everdell", draw, 2, seed=7)
    assert "GAME OVER" in text
    winner = int(final[g]["winner"])
    assert ("a draw" if winner < 0 else f"player {winner} wins") in text
    for p in range(2):
        assert f"final score {int(final[g]['score'][p])}" in text


def test_own_hand_face_up_only_for_its_seat(positions):
    for s, p, own, public in dh.seat_views(draw, *positions):
        assert f"{int(s['hand_n'][p])} cards" in public
        for t in np.flatnonzero(s["hand"][p]).tolist():
            tag = f">{D.CARD_NAMES[t]}</text>"
            assert own.count(tag) >= public.count(tag) + int(s["hand"][p, t])


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


class TestSharedChecks(dh.SharedPictureChecks):
    draw = staticmethod(draw)
    min_width = MIN_RGB_WIDTH
