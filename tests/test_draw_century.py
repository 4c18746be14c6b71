"""Century pictures: the SVG of every state shows the public state, hides
nothing a seat knows and shows nothing it may not (the deck order), and the ANSI board has a
legend for its cube colours."""

import draw_helpers as dh
import numpy as np
import pytest

from meeple_gym.century import data as D
from meeple_gym.century import rules as R
from meeple_gym.century import snapshot
from meeple_gym.century.draw import draw

PLAYER_COUNTS = (2, 3, 5)
BATCH = 4
STEPS = 600
EVERY = 60


@pytest.fixture(scope="module", params=PLAYER_COUNTS)
def played(request):
    seed = 100 + request.param
    return dh.play_with_finished("century", BATCH, request.param, seed, STEPS, EVERY)


def test_svg_parses_and_is_wide_enough(played):
    _, positions, _ = played
    dh.assert_svgs_parse(draw, positions, 600, viewers=(None, 0))


def test_visible_facts_appear(played):
    _, positions, _ = played
    for states, g, s in dh.each_game(positions):
        text = dh.svg_text(draw(states, g))
        dh.assert_names_shown(text, s["market"], D.MERCHANT_NAMES)
        for card in s["point_row"]:
            if card >= 0:
                assert D.POINT_NAMES[card] in text
                assert f"{int(D.POINT_VALUE[card])} points" in text
        now = np.zeros(R.MAX_PLAYERS, np.int16)
        R.final_scores_into(s, now)
        n = int(s["num_players"])
        for p in range(n):
            assert f"score now: {int(now[p])}" in text
            # Century hands and played piles are public (determinize.py): drawn face up.
            for t in np.flatnonzero(s["cards"][p] > 0)[:20]:
                assert D.MERCHANT_NAMES[t] in text
        current = int(s["current_player"])
        assert f"Player {current} (" in text and "TO ACT" in text
        dh.assert_one_to_act(text, current)
        assert "yellow cube" in text and "brown cube" in text  # the legend
        assert f"deck: {R.N_DECK - int(s['merchant_deck_top'])}" in text


def test_game_over_shows_winner_and_final_scores(played):
    for s, text in dh.final_pictures(draw, played[2]):
        assert f"GAME OVER: player {int(s['winner'])} wins" in text
        assert "WINNER" in text
        for p in range(int(s["num_players"])):
            assert f"final score: {int(s['score'][p])}" in text


def test_determinized_copies_draw_the_same(played):
    batch, positions, _ = played

    def deck_redrawn(copy, states):
        # The copies do differ where a seat may not know: the deck order.
        assert not np.array_equal(copy["point_deck"], states["point_deck"])

    pairs = [(batch, states) for states in positions[1::3]]
    dh.check_determinized_pictures(draw, batch.num_players, pairs, (7,), deck_redrawn)


def test_own_cards_show_for_every_viewer(played):
    # Nothing in a Century hand is secret (encoders/century.py): a seat's own hand shows for
    # viewer=k and in the public view alike.
    batch, _, _ = played
    states = batch.get_states()
    for p in range(batch.num_players):
        names = [D.MERCHANT_NAMES[t] for t in np.flatnonzero(states[0]["cards"][p] == R.IN_HAND)]
        for viewer in (None, p):
            text = dh.svg_text(draw(states, 0, viewer))
            assert all(name in text for name in names)


def test_rasterizes_to_rgb(played):
    _, positions, _ = played
    image = dh.rasterized_rgb(draw(positions[-1], 0, 0), 600)
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 10  # something is drawn


def test_ansi_render_has_a_cube_legend(played):
    _, positions, _ = played
    text = snapshot.render(positions[1], 0)
    assert "Cubes: Y=yellow R=red G=green B=brown" in text
    coloured = snapshot.render(positions[1], 0, color=True)
    assert "\x1b[33mY=yellow" in coloured and "\x1b[31mR=red" in coloured
