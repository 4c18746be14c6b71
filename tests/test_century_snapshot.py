"""Century snapshots: what they say (setup, sub-decisions, the end), action names and the board.
The round trips and refusals every game shares are in test_snapshots.py."""

import copy

import numpy as np
import pytest
import snapshot_helpers as H
from snapshot_cases.century import new_game

from meeple_gym.century import rules as R
from meeple_gym.century import snapshot as codec
from meeple_gym.century.data import COLOURS, MERCHANT_NAMES, POINT_NAMES, POINT_VALUE
from meeple_gym.core.errors import SnapshotError

positions = H.positions_fixture("century")


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_opening_snapshot_reads_like_the_setup_rules(num_players):
    states = new_game(num_players, 42 + num_players)
    snap = codec.to_dict(states, 0)
    assert snap["game"] == "century" and snap["version"] == 1
    assert snap["phase"] == "main" and snap["pending"] is None
    assert snap["score"] is None and snap["winner"] is None
    assert snap["current_player"] == snap["first_player"]
    assert snap["coins"] == {"gold": 2 * num_players, "silver": 2 * num_players}  # CSR-S2
    assert int(snap["rng"], 16) == int(states[0]["rng"][0])
    first = snap["first_player"]
    for p, player in enumerate(snap["players"]):
        assert player["hand"] == ["+YY", "U2"] and player["played"] == []  # CSR-S3
        assert player["point_cards"] == [] and player["gold"] == player["silver"] == 0
        position = (p - first) % num_players  # CSR-S7
        yellow, red = [(3, 0), (4, 0), (4, 0), (3, 1), (3, 1)][position]
        assert player["caravan"] == {"yellow": yellow, "red": red, "green": 0, "brown": 0}
    # CSR-S4: six face up (dealt first), 43 - 6 face down; CSR-S1: five of 36 point cards.
    assert [slot["card"] for slot in snap["market"]] == snap["merchant_dealt"]
    assert all(slot["cubes"] == dict.fromkeys(COLOURS, 0) for slot in snap["market"])
    assert len(snap["merchant_deck"]) == 43 - 6
    assert [slot["card"] for slot in snap["point_row"]] == snap["point_dealt"]
    assert len(snap["point_deck"]) == 36 - 5
    for slot in snap["point_row"]:
        assert slot["points"] == int(POINT_VALUE[POINT_NAMES.index(slot["card"])])


def test_sub_decision_snapshots_name_the_card_and_counts():
    # Play "U2" at the opening (CSR-P3): the snapshot names the card and both upgrades left.
    states = new_game(3, 5)
    R.apply_action(states, 0, R.A_PLAY + MERCHANT_NAMES.index("U2"))
    snap = codec.to_dict(states, 0)
    assert snap["phase"] == "upgrade"
    assert snap["pending"] == {"phase": "upgrade", "card": "U2", "upgrades_left": 2}
    player = snap["players"][snap["current_player"]]
    assert player["played"] == ["U2"] and player["hand"] == ["+YY"]
    # Acquire slot 3 (CSR-A1): two cubes owed, none placed yet.
    states = new_game(3, 5)
    R.apply_action(states, 0, R.A_ACQUIRE + 2)
    assert codec.to_dict(states, 0)["pending"] == {"phase": "pay", "slot": 3, "paid": 0}
    R.apply_action(states, 0, R.A_PLACE + R.YELLOW)
    snap = codec.to_dict(states, 0)
    assert snap["pending"] == {"phase": "pay", "slot": 3, "paid": 1}
    assert snap["market"][0]["cubes"] == {"yellow": 1, "red": 0, "green": 0, "brown": 0}


def test_finished_game_checks_score_and_winner(positions):
    finished = next(p for p in positions if p[0]["terminated"] == 1)
    snap = codec.to_dict(finished, 0)
    bad_score = copy.deepcopy(snap)
    bad_score["score"][0] += 1
    with pytest.raises(SnapshotError, match="CSR-E2"):
        codec.from_dict(bad_score)
    bad_winner = copy.deepcopy(snap)
    bad_winner["winner"] = (snap["winner"] + 1) % snap["num_players"]
    with pytest.raises(SnapshotError, match="winner"):
        codec.from_dict(bad_winner)
    no_score = copy.deepcopy(snap)
    no_score["score"] = None
    with pytest.raises(SnapshotError, match="final score"):
        codec.from_dict(no_score)


def test_action_names_describe_the_position():
    states = new_game(4, 9)
    s = states[0]
    for t, name in enumerate(MERCHANT_NAMES):
        assert codec.action_to_string(states, 0, R.A_PLAY + t) == f"play {name}"
    for k in range(R.MARKET_SIZE):  # CSR-A1: slots counted from 1 at the left
        text = codec.action_to_string(states, 0, R.A_ACQUIRE + k)
        assert text == f"acquire slot {k + 1} ({MERCHANT_NAMES[s['market'][k]]})"
    for j in range(R.POINT_ROW_SIZE):
        card = int(s["point_row"][j])
        text = codec.action_to_string(states, 0, R.A_CLAIM + j)
        assert text == f"claim slot {j + 1} ({POINT_NAMES[card]}, {POINT_VALUE[card]} pts)"
    assert codec.action_to_string(states, 0, R.A_REST) == "rest"
    assert codec.action_to_string(states, 0, R.A_STOP) == "stop upgrading"
    for c, colour in enumerate(COLOURS[:3]):
        assert codec.action_to_string(states, 0, R.A_UPGRADE + c) == f"upgrade {colour}"
    for c, colour in enumerate(COLOURS):
        assert codec.action_to_string(states, 0, R.A_RETURN + c) == f"return {colour}"
    R.apply_action(states, 0, R.A_ACQUIRE + 3)  # three cubes owed; the first goes on slot 1
    assert codec.action_to_string(states, 0, R.A_PLACE + R.RED) == "place red on slot 1"
    R.apply_action(states, 0, R.A_PLACE + R.YELLOW)
    assert codec.action_to_string(states, 0, R.A_PLACE + R.YELLOW) == "place yellow on slot 2"
    assert codec.action_to_string(states, 0, np.int64(R.A_TRADE + 2)).startswith("trade x3")


def test_render_shows_every_caravan_and_hand(positions):
    for states in positions[::5]:
        snap = codec.to_dict(states, 0)
        text = codec.render(states, 0)
        assert "\x1b[" not in text
        for p, player in enumerate(snap["players"]):
            cubes = player["caravan"]
            caravan = f"{cubes['yellow']}Y {cubes['red']}R {cubes['green']}G {cubes['brown']}B"
            assert f"player {p}" in text
            assert caravan in text
            for name in player["hand"] + player["played"] + player["point_cards"]:
                assert name in text
        for slot in snap["market"]:
            if slot is not None:
                assert slot["card"] in text


def test_render_marks_turn_first_player_and_pending():
    states = new_game(3, 2)
    R.apply_action(states, 0, R.A_PLAY + MERCHANT_NAMES.index("U2"))
    s = states[0]
    lines = codec.render(states, 0).splitlines()
    current = next(line for line in lines if line.startswith(">"))
    assert f"player {int(s['current_player'])}" in current
    first = next(line for line in lines if "(first)" in line)
    assert f"player {int(s['first_player'])}" in first
    assert any(line.startswith("Pending:") and "U2" in line for line in lines)
    assert "gold (6 left)" in codec.render(states, 0)  # CSR-S2/C3: gold above point slot 1
    assert "\x1b[" in codec.render(states, 0, color=True)
