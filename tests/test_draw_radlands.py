"""Radlands pictures: the SVG of every state shows the public state and
what the viewing seat knows, never what it may not (opposing hand, deck, punks, secret draft
picks), and the ANSI debug board says which of what it shows is hidden."""

import draw_helpers as dh
import numpy as np
import pytest

from meeple_gym.radlands import data as D
from meeple_gym.radlands import rules as R
from meeple_gym.radlands import snapshot
from meeple_gym.radlands.draw import draw

BATCH = 8
STEPS = 300
EVERY = 10
NAMES = snapshot.CARD_NAMES


@pytest.fixture(scope="module")
def played():
    return dh.play_with_finished("radlands", BATCH, 2, 11, STEPS, EVERY)


def test_positions_cover_every_phase(played):
    _, positions, finished = played
    phases = {int(s["phase"]) for _, _, s in dh.each_game(positions)}
    assert phases >= {R.PHASE_DRAFT, R.PHASE_ACTIONS, R.PHASE_DECISION}
    assert finished  # game-over pictures are tested too


def test_svg_parses_and_is_wide_enough(played):
    _, positions, _ = played
    dh.assert_svgs_parse(draw, positions[::4], 600, viewers=(None, 0, 1))


def test_visible_facts_appear(played):
    _, positions, _ = played
    for states, g, s in dh.each_game(positions):
        text = dh.svg_text(draw(states, g))
        current = int(s["current_player"])
        dh.assert_one_to_act(text, current)
        assert f"deck {int(s['deck_n'])}" in text
        for p in range(2):
            for k in range(3):
                code = int(s["queue"][p, k])
                if code >= 0:
                    assert (snapshot.RAIDERS_NAME if code == R.RAIDERS else NAMES[code]) in text
            if int(s["phase"]) == R.PHASE_DRAFT:
                continue
            standing = int((s["camp_state"][p] != 2).sum())
            assert f"camps standing: {standing} of 3" in text
            for c in range(3):
                assert f"Camp: {snapshot.CAMP_NAMES[int(s['camp'][p, c])]}" in text
                for i in range(int(s["col_len"][p, c])):
                    if s["ent_kind"][p, c, i] != R.PERSON:
                        continue  # the camp: Juggernaut moves it along its column
                    if s["ent_punk"][p, c, i]:
                        uid = int(s["ent_uid"][p, c, i])
                        assert f"punk #{uid} (face down, hidden card)" in text
                    else:
                        assert f"{NAMES[int(s['ent_type'][p, c, i])]}  #" in text
        if int(s["phase"]) in (R.PHASE_ACTIONS, R.PHASE_DECISION):
            assert f"{int(s['water'])} water left" in text


def test_game_over_shows_winner_and_scores(played):
    for s, text in dh.final_pictures(draw, played[2]):
        w = int(s["winner"])
        assert "GAME OVER: " + (f"player {w} wins" if w >= 0 else "a draw") in text
        for p in range(2):
            assert f"final score: {int(s['score'][p])} camps" in text


def test_determinized_copies_draw_the_same(played):
    batch, positions, _ = played
    live = [s for s in positions[::2] if not (s["terminated"] | s["truncated"]).any()]
    changed = []

    def hands_resampled(copy, states):
        changed.append((copy["hand"] != states["hand"]).any())

    dh.check_determinized_pictures(draw, 2, [(batch, s) for s in live], (5,), hands_resampled)
    assert any(changed)  # the copies really did resample the opposing hands


def _public_names(s) -> set:
    """Names of cards the table can see: board, camps, queues, discard, effect stack."""
    names = {snapshot.CAMP_NAMES[int(x)] for x in s["camp"].ravel()}
    names |= {NAMES[int(t)] for t in s["discard"][: int(s["discard_n"])]}
    names |= {NAMES[int(q)] for q in s["queue"].ravel() if 0 <= q < R.N_DT}
    for p in range(2):
        for c in range(3):
            for i in range(int(s["col_len"][p, c])):
                if s["ent_kind"][p, c, i] == R.PERSON:
                    names.add(NAMES[int(s["ent_type"][p, c, i])])
    frames = " ".join(snapshot._frame_text(s, d) for d in range(int(s["depth"])))
    return names | {name for name in NAMES if name in frames}


def _summary_names() -> set:
    """Card names that some card's printed summary mentions (they show on the board)."""
    text = " ".join(D.CAMP_SUMMARIES + D.PERSON_SUMMARIES + D.EVENT_SUMMARIES)
    return {name for name in NAMES if name in text}


def test_own_hand_shows_only_to_its_owner(played):
    _, positions, _ = played
    secret_seen = 0
    for states, g, s in dh.each_game(positions):
        public = dh.svg_text(draw(states, g))
        for p in range(2):
            hand = {NAMES[t] for t in np.flatnonzero(s["hand"][p])}
            own = dh.svg_text(draw(states, g, p))
            other = dh.svg_text(draw(states, g, 1 - p))
            assert all(name in own for name in hand)
            size = int(s["hand"][p].sum())
            if size:
                assert f"{size} card(s), hidden" in public and f"{size} card(s), hidden" in other
            # Any hand card not visible elsewhere on the table stays out of both other views.
            others = {NAMES[t] for t in np.flatnonzero(s["hand"][1 - p])}
            for name in hand - _public_names(s) - _summary_names():
                secret_seen += 1
                assert name not in public
                if name not in others:
                    assert name not in other
    assert secret_seen > 50


def test_rasterizes_to_rgb(played):
    _, positions, _ = played
    dh.rasterized_rgb(draw(positions[-1], 0, 1), 600)


def test_ansi_render_marks_hidden_information(played):
    _, positions, _ = played
    punks = 0
    for states, g, s in dh.each_game(positions[::2]):
        text = snapshot.render(states, g)
        assert "DEBUG VIEW: shows hidden information" in text
        assert "(hidden next:" in text
        for p in range(2):
            if s["hand"][p].sum():
                assert f"hidden from player {1 - p}" in text
        for line in text.splitlines():
            if "punk [" in line and "Lifted" not in line:
                punks += 1
                assert line.count("punk [") == line.count("hidden)")
    assert punks > 0


def test_viewer_must_be_a_seat(played):
    _, positions, _ = played
    with pytest.raises(ValueError):
        draw(positions[0], 0, viewer=2)
