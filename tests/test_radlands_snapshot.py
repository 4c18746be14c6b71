"""Radlands snapshots: what they say (setup, the board, the effect machine), the Radlands-only
refusals (Juggernaut's space, Parachute Base, frame sources, recomputed options, counters),
action names and the board. Round trips and the refusals every game shares are in
test_snapshots.py."""

import copy

import numpy as np
import pytest
import snapshot_helpers as H
from snapshot_cases.radlands import (
    ASSASSIN,
    BANISH,
    BOMBARDMENT,
    RAILGUN_USE,
    SNIPER,
    first_game_on_player_1,
    new_game,
    put_person,
    step_random,
    take_from_deck,
)
from snapshot_helpers import set_

from meeple_gym.core.errors import SnapshotError
from meeple_gym.radlands import data as D
from meeple_gym.radlands import rules as R
from meeple_gym.radlands import snapshot as codec
from meeple_gym.radlands.snapshot import ACTION_LABELS

positions = H.positions_fixture("radlands")


@pytest.fixture
def board():
    from snapshot_cases.radlands import board

    return board()


@pytest.fixture
def railgun_target():
    from snapshot_cases.radlands import railgun_target

    return railgun_target()


def _legal(states):
    return H.legal(R, states)


def _json_round_trip(states):
    return H.json_round_trip(codec, states)


def test_a_game_won_by_an_event_still_discards_the_event(board):
    # Player 0's Bombardment waits in slot 1 while player 1 is down to one damaged camp: at
    # the start of player 0's turn it resolves (RAD-T1) and wins at once (RAD-E1); the card
    # cut off mid-resolution still reaches the discard pile.
    states = board.copy()
    s = states[0]
    take_from_deck(s, BOMBARDMENT)
    s["queue"][0, 0] = BOMBARDMENT
    s["camp_state"][1] = [2, 2, 1]
    R.apply_action(states, 0, R.A_END_TURN)
    assert s["terminated"] == 1 and s["winner"] == 0
    snap, restored = _json_round_trip(states)
    assert restored.tobytes() == states.tobytes()
    assert snap["discard"][-1] == "Bombardment"
    assert snap["score"] == [3, 0]
    total = len(snap["deck"]) + len(snap["discard"])
    for player in snap["players"]:
        total += sum(player["hand"].values())
        total += sum(1 for col in player["columns"] for e in col if "person" in e)
        total += sum(1 for q in player["queue"] if q not in (None, "Raiders"))
    assert total == 66  # RAD-S2: 46 people and 20 events


def test_opening_snapshot_reads_like_the_setup_rules():
    snap = codec.to_dict(new_game(2, 42), 0)
    assert snap["game"] == "radlands" and snap["version"] == 1
    assert snap["phase"] == "draft" and snap["pending"] is None
    assert snap["current_player"] == 0  # player 0 keeps first (docs/radlands.md)
    assert snap["options"] == {
        "raiders_slot": 3,
        "vera_vosh": "first_use_per_turn",
        "zeto_khan": "first_event_placed",
        "first_game_camps": False,
    }
    offers = snap["draft"]["offers"]
    assert [len(o) for o in offers] == [6, 6]  # RAD-S3: each draws 6 camps
    assert len(set(offers[0] + offers[1])) == 12 and set(offers[0]) <= set(D.CAMP_NAMES)
    assert snap["draft"]["kept"] == [[], []]
    assert len(snap["deck"]) == 66 and snap["discard"] == []  # RAD-S2
    assert all(col == [] for player in snap["players"] for col in player["columns"])
    assert all(player["hand"] == {} for player in snap["players"])
    assert all(player["queue"] == [None, None, None] for player in snap["players"])
    assert snap["vm"] == {"frames": [], "lifted": None, "revealed": []}
    assert int(snap["rng"], 16) == int(new_game(2, 42)[0]["rng"][0])


def test_kept_camps_become_columns_and_set_the_starting_hands():
    states = new_game(2, 8)
    offers = codec.to_dict(states, 0)["draft"]["offers"]
    for keep in (2, 0, 5, 1, 3, 4):  # player 0 keeps offers 3, 1, 6; player 1 offers 2, 4, 5
        R.apply_action(states, 0, R.A_KEEP + keep)
    snap = codec.to_dict(states, 0)
    kept = [[offers[0][2], offers[0][0], offers[0][5]], [offers[1][1], offers[1][3], offers[1][4]]]
    assert snap["draft"]["kept"] == kept
    first = snap["first_player"]
    for p, player in enumerate(snap["players"]):
        camps = [col[0]["camp"] for col in player["columns"]]
        assert camps == kept[p]  # RAD-S3: keeping order is column order
        for col, name in zip(player["columns"], camps, strict=True):
            state = "destroyed" if name == "Obelisk" else "intact"  # Obelisk starts destroyed
            assert col == [{"camp": name, "state": state, "used": False, "vera_used": False}]
        draws = sum(int(D.CAMP_DRAW[D.CAMP_NAMES.index(name)]) for name in camps)
        replenish = 1 if p == first else 0  # RAD-S4, then the first player's RAD-T2 draw
        assert sum(player["hand"].values()) == draws + replenish
    assert snap["phase"] == "actions" and snap["current_player"] == first
    assert snap["water"] == 1  # the first player's very first turn (RAD-T2)


def test_board_entities_and_hands_read_by_name(board):
    snap = codec.to_dict(board, 0)
    assert snap["options"]["first_game_camps"] is True
    p0, p1 = snap["players"]
    assert [col[0]["camp"] for col in p0["columns"]] == [
        "Arcade",
        "Mercenary Camp",
        "Victory Totem",
    ]
    assert [col[0]["camp"] for col in p1["columns"]] == ["Garage", "Railgun", "Supply Depot"]
    assert p0["columns"][0][1] == {
        "person": "Assassin",
        "punk": False,
        "damaged": False,
        "ready": True,
        "uid": 7,  # the first person uid after the six camps
        "vera_used": False,
    }
    assert p0["columns"][1][1]["person"] == "Banish" and p0["columns"][1][1]["punk"] is True
    assert p1["columns"][0][1]["person"] == "Sniper" and p1["columns"][0][1]["uid"] == 9
    assert snap["next_uid"] == 10
    hand = board[0]["hand"][1]
    assert p1["hand"] == {D.DECK_TYPE_NAMES[t]: int(hand[t]) for t in np.flatnonzero(hand)}
    assert snap["deck"][0] == D.DECK_TYPE_NAMES[int(board[0]["deck"][board[0]["deck_n"] - 1])]


def test_pending_decision_names_the_program_and_options(railgun_target):
    snap = codec.to_dict(railgun_target, 0)
    assert snap["phase"] == "decision" and snap["current_player"] == 1
    # Railgun: damage an unprotected enemy card (RAD-B3): the front person of columns 1 and
    # 2, and the camp of the empty column 3.
    assert snap["pending"] == {
        "decider": 1,
        "options": ["target opp col 1 pos 2", "target opp col 2 pos 2", "target opp col 3 pos 1"],
    }
    [frame] = snap["vm"]["frames"]
    assert frame == {
        "program": "Railgun ability 1",
        "end": 1,
        "pc": 0,
        "stage": 0,
        "owner": 1,
        "source_uid": 5,  # player 1's column 2 camp: uid 1 * 3 + 1 + 1
        "that_uid": 0,
        "flags": 0,
        "aux": 0,
        "then": None,
    }
    assert snap["water"] == 1 and snap["players"][1]["columns"][1][0]["used"] is True


def test_action_labels_cover_the_layout():
    assert len(ACTION_LABELS) == R.NUM_ACTIONS
    assert ACTION_LABELS[R.A_KEEP] == "keep offer 1"
    assert ACTION_LABELS[R.A_END_TURN] == "end turn"
    assert ACTION_LABELS[R.A_SKIP] == "skip"
    assert ACTION_LABELS[R.A_TARGET + 9 + 2 * 3 + 1] == "target opp col 3 pos 2"
    assert ACTION_LABELS[R.A_SELECT_HAND + BANISH] == "select Banish"


def test_main_action_names(board):
    s = board[0]
    assert codec.action_to_string(board, 0, R.A_USE + (0 * 3 + 1) * 3) == (
        "use Sniper (col 1, front) ability 1"
    )
    assert codec.action_to_string(board, 0, RAILGUN_USE) == "use Railgun (col 2) ability 1"
    assert codec.action_to_string(board, 0, R.A_PLAY_PERSON + ASSASSIN) == "play Assassin"
    assert (
        codec.action_to_string(board, 0, R.A_PLAY_EVENT + BANISH - R.FIRST_EVENT) == "play Banish"
    )
    assert codec.action_to_string(board, 0, R.A_JUNK + ASSASSIN) == "junk Assassin (raid)"
    assert codec.action_to_string(board, 0, R.A_JUNK + SNIPER) == "junk Sniper (restore)"
    assert codec.action_to_string(board, 0, R.A_TAKE_SILO) == "take Water Silo"
    assert codec.action_to_string(board, 0, R.A_END_TURN) == "end turn"
    assert codec.action_to_string(board, 0, R.A_SKIP) == "skip"
    assert s["current_player"] == 1


def test_target_names_see_sides_from_the_decider(railgun_target):
    names = [codec.action_to_string(railgun_target, 0, int(a)) for a in _legal(railgun_target)]
    # the punk stays face down in action names (RAD-K3, RAD-G4)
    assert names == [
        "target opponent's Assassin (col 1, front)",
        "target opponent's punk (col 2, front)",
        "target opponent's Victory Totem (col 3)",
    ]
    own = R.A_TARGET + 0 * 9 + 0 * 3 + 1
    assert codec.action_to_string(railgun_target, 0, own) == "target own Sniper (col 1, front)"


def test_draft_and_placement_names():
    states = new_game(2, 42)
    offer = states[0]["offer"][0]
    for k in range(6):
        expected = f"keep camp {D.CAMP_NAMES[int(offer[k])]}"
        assert codec.action_to_string(states, 0, R.A_KEEP + k) == expected
    states = first_game_on_player_1()
    s = states[0]
    s["water"] = 3
    put_person(s, 1, 0, SNIPER)
    s["hand"][1, ASSASSIN] += 1
    take_from_deck(s, ASSASSIN)
    R.apply_action(states, 0, R.A_PLAY_PERSON + ASSASSIN)
    names = {int(a): codec.action_to_string(states, 0, int(a)) for a in _legal(states)}
    # RAD-A1: in front of or behind the Sniper in column 1, or alone in columns 2 and 3
    assert names == {
        R.A_PLACE + 0 * 3 + 1: "place Assassin in col 1 behind Sniper",
        R.A_PLACE + 0 * 3 + 2: "place Assassin in col 1 front",
        R.A_PLACE + 1 * 3 + 1: "place Assassin in col 2 front",
        R.A_PLACE + 2 * 3 + 1: "place Assassin in col 3 front",
    }


JUGGERNAUT = D.CAMP_ID["juggernaut"]


def _game_with_camp(camp):
    """A drafted game where player 0 kept ``camp`` for column 1; player 0's actions phase."""
    seed = next(k for k in range(500) if camp in new_game(2, k)[0]["offer"][0])
    states = new_game(2, seed)
    s = states[0]
    R.apply_action(states, 0, R.A_KEEP + [int(x) for x in s["offer"][0]].index(camp))
    while s["phase"] == R.PHASE_DRAFT:
        R.apply_action(states, 0, int(_legal(states)[0]))
    if s["turn_player"] != 0:
        R.apply_action(states, 0, R.A_END_TURN)
    return states


def _juggernaut_on_space_1():
    """Player 0 kept Juggernaut for column 1 and used it once in an empty column (it is on
    space 1 of 3, subtleties §15); then a Sniper stands in front of it. Player 0 to act."""
    states = _game_with_camp(JUGGERNAUT)
    s = states[0]
    s["water"] = 3
    R.apply_action(states, 0, R.A_USE)  # column 1, index 0, ability 1
    assert s["juggernaut_moves"][0] == 1 and s["phase"] == R.PHASE_ACTIONS
    put_person(s, 0, 0, SNIPER)
    return states


def test_juggernaut_space_round_trips_and_placements_name_the_shove():
    states = _juggernaut_on_space_1()
    snap, restored = _json_round_trip(states)
    assert restored.tobytes() == states.tobytes()
    assert snap["players"][0]["juggernaut_moves"] == 1
    assert "Juggernaut on space 2 of 3" in codec.render(states, 0)
    s = states[0]
    for t in range(D.N_PERSON_TYPES):  # no other person in hand: only the Assassin is played
        for _ in range(int(s["hand"][0, t])):
            s["deck"][s["deck_n"]] = t
            s["deck_n"] += 1
        s["hand"][0, t] = 0
    s["hand"][0, ASSASSIN] += 1
    take_from_deck(s, ASSASSIN)
    R.apply_action(states, 0, R.A_PLAY_PERSON + ASSASSIN)
    names = {int(a): codec.action_to_string(states, 0, int(a)) for a in _legal(states)}
    # either side of the moved Juggernaut; taking the front shoves the Sniper behind it
    assert names[R.A_PLACE + 0] == "place Assassin in col 1 behind Juggernaut"
    assert names[R.A_PLACE + 2] == ("place Assassin in col 1 front, shoving Sniper past Juggernaut")
    assert R.A_PLACE + 1 not in names


@pytest.mark.parametrize(
    "mutate, words",
    [
        (set_("players", 0, "juggernaut_moves", 2), ["columns[0]", "space 3 of 3", "1 in front"]),
        (set_("players", 0, "juggernaut_moves", 0), []),  # space 0 with a person in front: fine
        (
            set_("players", 0, "columns", 0, 0, "state", "destroyed"),
            ["juggernaut_moves", "destroyed Juggernaut", "starting spot"],
        ),
    ],
)
def test_juggernaut_space_must_fit_the_people_around_it(mutate, words):
    # docs board model: a camp on space j has at most j people behind it, 2 - j in front
    snap = codec.to_dict(_juggernaut_on_space_1(), 0)
    mutate(snap)
    if not words:
        codec.from_dict(snap)
        return
    H.assert_refused(codec.from_dict, snap, words)


def _parachute_placing_sniper():
    """Player 0 used Parachute Base (column 1) on a Sniper and now places it (stage 2)."""
    states = _game_with_camp(D.CAMP_ID["parachute_base"])
    s = states[0]
    s["water"] = 6
    take_from_deck(s, SNIPER)
    s["hand"][0, SNIPER] += 1
    R.apply_action(states, 0, R.A_USE)
    R.apply_action(states, 0, R.A_SELECT_HAND + SNIPER)
    assert s["phase"] == R.PHASE_DECISION and s["fr_stage"][s["depth"] - 1] == 2
    return states


@pytest.mark.parametrize(
    "aux, words",
    [
        (D.DECK_TYPE_ID["banish"], ["vm.frames[0].aux", "not a person"]),  # an event type
        (D.DECK_TYPE_ID["muse"], ["vm.frames[0].aux", "'Muse' is not in player 0's hand"]),
        (67, ["vm.frames[0].aux", "0..66"]),  # past every card table
    ],
)
def test_parachute_step_must_name_a_person_in_hand(aux, words):
    # the aux of a Parachute Base step indexes the card tables and the hand
    snap = codec.to_dict(_parachute_placing_sniper(), 0)
    codec.from_dict(copy.deepcopy(snap))
    snap["vm"]["frames"][-1]["aux"] = aux
    H.assert_refused(codec.from_dict, snap, words)


def test_frame_source_must_be_the_card_whose_program_runs():
    # "this card" steers self-damage, Juggernaut's move and Construction Yard's
    # own destruction, so a camp ability must run for that very camp
    snap = codec.to_dict(_parachute_placing_sniper(), 0)
    assert snap["vm"]["frames"][-1]["source_uid"] == 1  # player 0's column 1
    snap["vm"]["frames"][-1]["source_uid"] = 2
    with pytest.raises(SnapshotError, match="source_uid: a Parachute Base ability runs for"):
        codec.from_dict(snap)


def test_pending_options_are_recomputed_not_trusted():
    # the listed options must be exactly the rules' (RAD-A1 placements here)
    states = _parachute_placing_sniper()
    snap = codec.to_dict(states, 0)
    assert snap["pending"]["options"] == [
        ACTION_LABELS[a] for a in np.flatnonzero(states[0]["pend_mask"])
    ]
    extra = copy.deepcopy(snap)
    extra["pending"]["options"].append("place col 1 pos 1")  # behind a camp at the back
    with pytest.raises(SnapshotError, match="not legal: \\['place col 1 pos 1'\\]"):
        codec.from_dict(extra)
    fewer = copy.deepcopy(snap)
    dropped = fewer["pending"]["options"].pop()
    with pytest.raises(SnapshotError, match=f"missing: \\['{dropped}'\\]"):
        codec.from_dict(fewer)
    wrong_stage = copy.deepcopy(snap)
    wrong_stage["vm"]["frames"][-1]["stage"] = 1  # making room: only with all 6 places full
    with pytest.raises(SnapshotError, match="cannot be waiting"):
        codec.from_dict(wrong_stage)


@pytest.mark.parametrize(
    "mutate, words",
    [
        (set_("water", 101), ["water", "0..100"]),
        (set_("next_uid", R.STEP_CAP + 8), ["next_uid", f"7..{R.STEP_CAP + 7}"]),
        (set_("players", 0, "entered_this_turn", 101), ["entered_this_turn", "0..100"]),
        (set_("turn_count", 10**6 + 1), ["turn_count", "turns <= steps"]),
    ],
)
def test_counters_are_bounded_by_what_the_game_reaches(board, mutate, words):
    # no counter may sit where the next legal step would wrap its integer
    snap = codec.to_dict(board, 0)
    mutate(snap)
    H.assert_refused(codec.from_dict, snap, words)


def test_null_in_the_deck_tail_is_refused(board):
    # from_dict once accepted it and to_dict then refused the same state
    snap = codec.to_dict(board, 0)
    assert snap["leftovers"]["deck_tail"], "the board fixture has drawn cards"
    snap["leftovers"]["deck_tail"][0] = None
    with pytest.raises(SnapshotError, match="leftovers.deck_tail\\[0\\]"):
        codec.from_dict(snap)


def _mutations(value, rng, names):
    """Random replacements for one leaf: other types, near values, card names, nulls."""
    pool = [None, True, False, 0, 1, 2, -1, 3, 7, 66, 127, 30000, "", "Muse", "Raiders"]
    pool += list(rng.choice(names, 3))
    if isinstance(value, bool):
        pool.append(not value)
    elif isinstance(value, int):
        pool += [value + 1, value - 1, value * 2]
    return pool[int(rng.integers(len(pool)))]


def test_every_accepted_mutation_round_trips(positions):
    """The round trip as a property: whatever from_dict accepts, to_dict writes back unchanged,
    and the game goes on with legal steps that stay describable."""
    rng = np.random.default_rng(11)
    names = list(D.DECK_TYPE_NAMES) + list(D.CAMP_NAMES)
    accepted = 0
    for states in positions[::3]:
        base = codec.to_dict(states, 0)
        leaves = list(H.leaves(base, lists=True))
        for _ in range(12):
            snap = copy.deepcopy(base)
            path, value = leaves[int(rng.integers(len(leaves)))]
            target = snap
            for key in path[:-1]:
                target = target[key]
            if isinstance(value, list):
                new = list(value)
                if new and rng.random() < 0.5:
                    new.pop(int(rng.integers(len(new))))
                elif new:
                    new.append(copy.deepcopy(new[0]))
                value = new
            else:
                value = _mutations(value, rng, names)
            if path:
                target[path[-1]] = value
            try:
                restored = codec.from_dict(snap)
            except SnapshotError:
                continue
            accepted += 1
            again = codec.to_dict(restored, 0)
            assert codec.from_dict(again).tobytes() == restored.tobytes(), path
            assert again == snap or codec.from_dict(snap).tobytes() == restored.tobytes()
            for _ in range(10):
                if restored[0]["phase"] == R.PHASE_OVER:
                    break
                step_random(restored, rng)
                codec.to_dict(restored, 0)
    assert accepted > 50  # the benign mutations (counts, flags, leftovers) do get in


def test_render_shows_both_boards_and_the_pending_decision(railgun_target):
    text = codec.render(railgun_target, 0)
    snap = codec.to_dict(railgun_target, 0)
    for p, player in enumerate(snap["players"]):
        assert f"player {p}" in text
        for col in player["columns"]:
            assert col[0]["camp"] in text
        assert f"hand ({sum(player['hand'].values())}" in text
        assert "queue: 1: - | 2: - | 3: -" in text
    assert "punk [Banish]" in text  # the debug view shows hidden cards
    assert "water 1" in text and "Railgun ability 1" in text
    assert "Pending: player 1 decides:" in text
    for a in _legal(railgun_target):
        assert f"  - {codec.action_to_string(railgun_target, 0, int(a))}" in text


def test_render_works_in_every_phase(positions):
    seen = set()
    for states in positions[::10]:
        text = codec.render(states, 0)
        assert "player 0" in text and "player 1" in text and "Pending:" in text
        seen.add(R.PHASE_NAMES[int(states[0]["phase"])])
    assert seen == set(R.PHASE_NAMES)
    assert "hidden information" in codec.render.__doc__
