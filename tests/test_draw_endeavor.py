"""Endeavor pictures: the SVG parses, shows the public facts, hides exactly what
determinization resamples (hands, deck orders, this round's secret picks) and rasterizes."""

import draw_helpers as dh
import numpy as np

from meeple_gym.core.svg import MIN_RGB_WIDTH
from meeple_gym.endeavor import data as D
from meeple_gym.endeavor import rules as R
from meeple_gym.endeavor.draw import _score_now, draw

positions = dh.positions_fixture("endeavor", (2, 3, 4), seed=200, steps=240, every=23)


def test_visible_facts(positions):
    n, pos = positions
    for states, g, s in dh.each_game(states for _, states in pos):
        text = dh.svg_text(draw(states, g))
        dh.assert_names_shown(text, s["slot_city"], D.CITY_NAMES)
        dh.assert_names_shown(text, s["empire_market"], D.EMPIRE_NAMES)
        dh.assert_names_shown(text, s["building_market"], D.BUILDING_NAMES)
        names = {R.K_CITY: D.CITY_NAMES, R.K_BUILDING: D.BUILDING_NAMES}
        names[R.K_EMPIRE] = D.EMPIRE_NAMES
        scores = _score_now(states, g)
        for p in range(n):
            assert f"Player {p} · score now {scores[p]}" in text
            for i in range(int(s["board_n"][p])):
                assert names[int(s["board_kind"][p, i])][int(s["board_id"][p, i])] in text
        cp = int(s["current_player"])
        assert f"To decide: player {cp}" in text
        heading = [t for t in text.split("Player ") if t.startswith(f"{cp} ·")]
        assert "TO DECIDE" in heading[0]
        for r in range(R.NR):
            assert D.REGION_NAMES[r] in text


def test_game_over_names_the_winners():
    final, g, text = dh.first_final_picture("endeavor", draw, 3, seed=7)
    assert "GAME OVER" in text
    for p in range(3):
        assert f"final score {int(final[g]['score'][p])}" in text
        if (int(final[g]["winners"]) >> p) & 1:
            assert f"player {p}" in text.split("GAME OVER")[1].split("(")[0]


def test_secret_picks_are_face_down_while_planning(positions):
    n, pos = positions
    seen = 0
    for states, g, s in dh.each_game(states for _, states in pos):
        if int(s["phase"]) not in (R.PH_PLAN_ROLE, R.PH_PLAN_TOKENS):
            continue
        chosen = [q for q in range(n) if s["role"][q] >= 0]
        public = dh.svg_text(draw(states, g))
        assert public.count("chosen (secret)") == len(chosen)
        for q in chosen:
            own = dh.svg_text(draw(states, g, q))
            assert own.count("chosen (secret)") == len(chosen) - 1
            seen += 1
    assert seen, "no planning position with a secret pick was sampled"


def test_own_hands_face_up_only_for_their_seat(positions):
    for s, p, own, public in dh.seat_views(draw, *positions):
        for e in np.flatnonzero(s["empire_hand"][p]).tolist():
            tag = f">{D.EMPIRE_NAMES[e]}</text>"
            assert own.count(tag) == public.count(tag) + 1
        for r in np.flatnonzero(s["role_hand"][p]).tolist():
            tag = f">{D.ROLES[r].capitalize()}</text>"
            assert own.count(tag) >= public.count(tag) + 1
        assert f"{int(s['role_hand'][p].sum())} hidden" in dh.svg_text(public)


class TestSharedChecks(dh.SharedPictureChecks):
    draw = staticmethod(draw)
    min_width = MIN_RGB_WIDTH
