"""Endeavor pictures: the SVG parses, shows the public facts, hides exactly what
determinization resamples (hands, deck orders, this round's secret picks) and rasterizes."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from draw_helpers import batch_positions, check_determinized_pictures, rasterized_rgb, svg_text

import meeple_gym
from meeple_gym.core.svg import MIN_RGB_WIDTH
from meeple_gym.endeavor import data as D
from meeple_gym.endeavor import rules as R
from meeple_gym.endeavor.draw import _score_now, draw

PLAYER_COUNTS = (2, 3, 4)


@pytest.fixture(scope="module", params=PLAYER_COUNTS)
def positions(request):
    return request.param, batch_positions("endeavor", request.param, 200 + request.param, 240, 23)


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
            for city in s["slot_city"].tolist():
                if city >= 0:
                    assert D.CITY_NAMES[city] in text
            for e in s["empire_market"].tolist():
                if e >= 0:
                    assert D.EMPIRE_NAMES[e] in text
            for b in s["building_market"].tolist():
                if b >= 0:
                    assert D.BUILDING_NAMES[b] in text
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
    batch = meeple_gym.make_batch("endeavor", 2, 3, seed=7)
    batch.reset()
    rng = np.random.default_rng(7)
    while not batch.episodes.any():
        batch.step(np.array([rng.choice(np.flatnonzero(row)) for row in batch.legal_mask]))
    g = int(np.flatnonzero(batch.episodes)[0])
    final = batch.final_states
    text = _text(draw(final, g))
    assert "GAME OVER" in text
    for p in range(3):
        assert f"final score {int(final[g]['score'][p])}" in text
        if (int(final[g]["winners"]) >> p) & 1:
            assert f"player {p}" in text.split("GAME OVER")[1].split("(")[0]


def test_hidden_information_matches_determinization(positions):
    """Drawing a position and its determinizations for the viewer (for every seat when the
    viewer is None) gives the same picture: nothing drawn is something that seat may not know."""
    check_determinized_pictures(draw, *positions)


def test_secret_picks_are_face_down_while_planning(positions):
    n, pos = positions
    seen = 0
    for _, states in pos:
        for g in range(len(states)):
            s = states[g]
            if int(s["phase"]) not in (R.PH_PLAN_ROLE, R.PH_PLAN_TOKENS):
                continue
            chosen = [q for q in range(n) if s["role"][q] >= 0]
            public = _text(draw(states, g))
            assert public.count("chosen (secret)") == len(chosen)
            for q in chosen:
                own = _text(draw(states, g, q))
                assert own.count("chosen (secret)") == len(chosen) - 1
                seen += 1
    assert seen, "no planning position with a secret pick was sampled"


def test_own_hands_face_up_only_for_their_seat(positions):
    n, pos = positions
    for _, states in pos:
        for g in range(len(states)):
            s = states[g]
            public = draw(states, g)
            for p in range(n):
                own = draw(states, g, p)
                for e in np.flatnonzero(s["empire_hand"][p]).tolist():
                    tag = f">{D.EMPIRE_NAMES[e]}</text>"
                    assert own.count(tag) == public.count(tag) + 1
                for r in np.flatnonzero(s["role_hand"][p]).tolist():
                    tag = f">{D.ROLES[r].capitalize()}</text>"
                    assert own.count(tag) >= public.count(tag) + 1
                assert f"{int(s['role_hand'][p].sum())} hidden" in _text(public)


def test_rasterize_gives_rgb(positions):
    _, pos = positions
    rasterized_rgb(draw(pos[-1][1], 0, 0), MIN_RGB_WIDTH)
