"""Radlands pictures: the SVG of every state shows the public state and
what the viewing seat knows, never what it may not (opposing hand, deck, punks, secret draft
picks), and the ANSI debug board says which of what it shows is hidden."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from draw_helpers import play_with_finished, rasterized_rgb, svg_text

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
    return play_with_finished("radlands", BATCH, 2, 11, STEPS, EVERY)


def _every(positions):
    for states in positions:
        for g in range(BATCH):
            yield states, g, states[g]


def test_positions_cover_every_phase(played):
    _, positions, finished = played
    phases = {int(s["phase"]) for _, _, s in _every(positions)}
    assert phases >= {R.PHASE_DRAFT, R.PHASE_ACTIONS, R.PHASE_DECISION}
    assert finished  # game-over pictures are tested too


def test_svg_parses_and_is_wide_enough(played):
    _, positions, _ = played
    for states, g, _ in _every(positions[::4]):
        for viewer in (None, 0, 1):
            root = ET.fromstring(draw(states, g, viewer))
            assert float(root.get("width")) >= 600


def test_visible_facts_appear(played):
    _, positions, _ = played
    for states, g, s in _every(positions):
        text = svg_text(draw(states, g))
        current = int(s["current_player"])
        heads = [line for line in text.splitlines() if line.startswith("Player ")]
        assert [h for h in heads if "TO ACT" in h] == [
            h for h in heads if h.startswith(f"Player {current} (")
        ]
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
    _, _, finished = played
    for states in finished:
        s = states[0]
        text = svg_text(draw(states, 0))
        w = int(s["winner"])
        assert "GAME OVER: " + (f"player {w} wins" if w >= 0 else "a draw") in text
        for p in range(2):
            assert f"final score: {int(s['score'][p])} camps" in text


def test_determinized_copies_draw_the_same(played):
    batch, positions, _ = played
    changed = 0
    for states in positions[::2]:
        if (states["terminated"] | states["truncated"]).any():
            continue
        batch.set_states(states)
        for viewer in (None, 0, 1):
            for seat in (0, 1) if viewer is None else (viewer,):
                copy = batch.determinize(np.full(BATCH, seat, np.int64), seed=5 + seat)
                changed += int((copy["hand"] != states["hand"]).any())
                for g in range(BATCH):
                    assert draw(copy, g, viewer) == draw(states, g, viewer), (viewer, seat, g)
    assert changed > 0  # the copies really did resample the opposing hands


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
    for states, g, s in _every(positions):
        public = svg_text(draw(states, g))
        for p in range(2):
            hand = {NAMES[t] for t in np.flatnonzero(s["hand"][p])}
            own = svg_text(draw(states, g, p))
            other = svg_text(draw(states, g, 1 - p))
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
    rasterized_rgb(draw(positions[-1], 0, 1), 600)


def test_ansi_render_marks_hidden_information(played):
    _, positions, _ = played
    punks = 0
    for states, g, s in _every(positions[::2]):
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
