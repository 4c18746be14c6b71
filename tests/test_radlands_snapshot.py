"""Radlands snapshots: exact JSON round trips, validation errors, action names and the board."""

import copy
import json

import numpy as np
import pytest

from meeple_gym.core.errors import ActionError, SnapshotError
from meeple_gym.core.rng import game_key
from meeple_gym.radlands import data as D
from meeple_gym.radlands import rules as R
from meeple_gym.radlands.snapshot import ACTION_LABELS, action_to_string, from_dict, render, to_dict

ALL_OPTIONS = range(16)  # every combination of the four OPTION_* bits


def _new_game(seed, options=0):
    states = np.zeros(1, R.STATE_DTYPE)
    R.init_game(states, 0, 2, game_key(seed), np.int64(options))
    return states


def _legal(states):
    mask = np.zeros(R.NUM_ACTIONS, np.int8)
    R.legal_mask_into(states, 0, mask)
    return np.flatnonzero(mask)


def _step_random(states, rng):
    """A random legal action; END_TURN only now and then so that boards fill up."""
    legal = _legal(states)
    if legal.size > 1 and rng.random() < 0.8:
        legal = legal[legal != R.A_END_TURN]
    R.apply_action(states, 0, int(rng.choice(legal)))


def _interesting(s):
    deciding = s["phase"] == R.PHASE_DECISION
    return s["lift_uid"] != 0 or (deciding and (s["revealed_n"] > 0 or s["depth"] >= 3))


def _play_and_sample(seeds_per_option, sample_rate, seed):
    """Random games under every option combination; copies of sampled positions (always the
    opening, the final position and positions with a lifted person, revealed cards or a deep
    effect stack)."""
    rng = np.random.default_rng(seed)
    positions = []
    for options in ALL_OPTIONS:
        for k in range(seeds_per_option):
            states = _new_game(seed * 1000 + options * 10 + k, options)
            positions.append(states.copy())
            while states[0]["phase"] != R.PHASE_OVER:
                _step_random(states, rng)
                if rng.random() < sample_rate or _interesting(states[0]):
                    positions.append(states.copy())
            positions.append(states.copy())
    return positions


@pytest.fixture(scope="module")
def positions():
    return _play_and_sample(seeds_per_option=2, sample_rate=0.06, seed=5)


@pytest.fixture(scope="module")
def truncated(positions):
    """Positions pushed to one step below the cap, then one more step (not in the draft:
    its 6 steps never reach the cap)."""
    rng = np.random.default_rng(3)
    out = []
    for states in positions[::7]:
        if states[0]["phase"] in (R.PHASE_OVER, R.PHASE_DRAFT):
            continue
        cut = states.copy()
        cut[0]["step_count"] = R.STEP_CAP - 1
        _step_random(cut, rng)
        assert cut[0]["truncated"] == 1 or cut[0]["terminated"] == 1
        out.append(cut)
    return out


def _json_round_trip(states, g=0):
    snap = to_dict(states, g)
    restored = from_dict(json.loads(json.dumps(snap)))
    return snap, restored


# ---- hand-built positions ----------------------------------------------------------------------


def _take_from_deck(s, t):
    """Remove one card of type t from the draw deck (keeps the 66 cards accounted for)."""
    n = int(s["deck_n"])
    k = int(np.flatnonzero(s["deck"][:n] == t)[0])
    s["deck"][k : n - 1] = s["deck"][k + 1 : n].copy()
    s["deck_n"] = n - 1


def _put_person(s, p, c, t, punk=False):
    """Put a card from the deck into play at the front of column c (RAD-A1)."""
    _take_from_deck(s, t)
    i = int(s["col_len"][p, c])
    s["ent_kind"][p, c, i] = R.PERSON
    s["ent_type"][p, c, i] = t
    s["ent_punk"][p, c, i] = punk
    s["ent_uid"][p, c, i] = s["next_uid"]
    s["next_uid"] += 1
    s["col_len"][p, c] = i + 1


def _first_game_on_player_1(seed=4):
    """RAD-S3 first-game camps (0: Arcade, Mercenary Camp, Victory Totem; 1: Garage, Railgun,
    Supply Depot), moved on to player 1's actions phase."""
    states = _new_game(seed, R.OPTION_FIRST_GAME_CAMPS)
    if states[0]["turn_player"] == 0:
        R.apply_action(states, 0, R.A_END_TURN)
    assert states[0]["phase"] == R.PHASE_ACTIONS and states[0]["turn_player"] == 1
    return states


ASSASSIN = D.DECK_TYPE_ID["assassin"]
SNIPER = D.DECK_TYPE_ID["sniper"]
BANISH = D.DECK_TYPE_ID["banish"]
BOMBARDMENT = D.DECK_TYPE_ID["bombardment"]
RAILGUN_USE = R.A_USE + (1 * 3 + 0) * 3 + 0  # player 1's column 2 holds Railgun, alone


@pytest.fixture(scope="module")
def board():
    """Player 1 to act: player 0 has an Assassin (col 1) and a punk hiding a Banish (col 2),
    player 1 a Sniper (col 1), 3 water."""
    states = _first_game_on_player_1()
    s = states[0]
    _put_person(s, 0, 0, ASSASSIN)
    _put_person(s, 0, 1, BANISH, punk=True)
    _put_person(s, 1, 0, SNIPER)
    return states


@pytest.fixture(scope="module")
def railgun_target(board):
    """Player 1 used Railgun (damage, RAD-I2) and now picks the target."""
    states = board.copy()
    assert RAILGUN_USE in _legal(states)
    R.apply_action(states, 0, RAILGUN_USE)
    assert states[0]["phase"] == R.PHASE_DECISION
    return states


# ---- round trips ---------------------------------------------------------------------------------


def test_json_round_trip_is_byte_exact(positions):
    phases, options, features = set(), set(), set()
    for states in positions:
        snap, restored = _json_round_trip(states)
        assert restored.dtype == R.STATE_DTYPE and restored.shape == (1,)
        assert restored.tobytes() == states.tobytes()
        assert to_dict(restored, 0) == snap
        phases.add(snap["phase"])
        opts = snap["options"]
        options.add((opts["raiders_slot"], opts["vera_vosh"], opts["zeto_khan"]))
        options.add(opts["first_game_camps"])
        vm = snap["vm"]
        features.update(
            name
            for name, seen in [
                ("lifted", vm["lifted"] is not None),
                ("revealed", bool(vm["revealed"])),
                ("internal frame", any("internal" in f for f in vm["frames"])),
                ("nested frames", len(vm["frames"]) >= 3),
                ("events phase decision", snap["in_events_phase"] and snap["pending"]),
                ("reshuffled", snap["reshuffled"]),
                (
                    "punk",
                    any(
                        e.get("punk")
                        for pl in snap["players"]
                        for col in pl["columns"]
                        for e in col
                    ),
                ),
            ]
            if seen
        )
    # The sample must reach every phase, option and machine feature, or it proves little.
    assert phases == set(R.PHASE_NAMES)
    assert len(options) == 2 * 2 * 2 + 2
    assert features == {
        "lifted",
        "revealed",
        "internal frame",
        "nested frames",
        "events phase decision",
        "reshuffled",
        "punk",
    }


def test_truncated_games_round_trip_with_the_interrupted_decision(truncated):
    decisions = 0
    for states in truncated:
        snap, restored = _json_round_trip(states)
        assert restored.tobytes() == states.tobytes()
        if snap["truncated"]:
            assert snap["phase"] == "over" and snap["winner"] is None
            assert snap["step_count"] == R.STEP_CAP and snap["pending"] is None
            decisions += bool(snap["vm"]["frames"])
    assert decisions > 0  # a cut inside an effect keeps its frames


def test_restored_game_continues_identically(positions):
    rng = np.random.default_rng(11)
    live = [p for p in positions if p[0]["phase"] != R.PHASE_OVER][::25]
    assert len(live) >= 20
    for states in live:
        original = states.copy()
        restored = from_dict(to_dict(original, 0))
        for _ in range(120):
            if original[0]["phase"] == R.PHASE_OVER:
                break
            legal = _legal(original)
            assert np.array_equal(legal, _legal(restored))
            action = int(rng.choice(legal))
            R.apply_action(original, 0, action)
            R.apply_action(restored, 0, action)
            assert restored.tobytes() == original.tobytes()


def test_a_reused_record_round_trips_with_its_leftovers():
    # A batch slot is reused: init_game leaves parts of the old game in the record.
    rng = np.random.default_rng(2)
    states = _new_game(21)
    while states[0]["phase"] != R.PHASE_OVER:
        _step_random(states, rng)
    R.init_game(states, 0, 2, game_key(22), np.int64(0))
    for _ in range(60):
        _, restored = _json_round_trip(states)
        assert restored.tobytes() == states.tobytes()
        _step_random(states, rng)


def test_init_game_on_a_reused_record_matches_a_fresh_one():
    rng = np.random.default_rng(2)
    states = _new_game(21)
    while states[0]["phase"] != R.PHASE_OVER:
        _step_random(states, rng)
    R.init_game(states, 0, 2, game_key(22), np.int64(0))
    assert states.tobytes() == _new_game(22).tobytes()


def test_any_game_of_a_batch_round_trips(railgun_target, board):
    batch = np.concatenate([_new_game(1), railgun_target, board])
    for g in range(3):
        restored = from_dict(to_dict(batch, g))
        assert restored.tobytes() == batch[g : g + 1].tobytes()


def test_from_dict_leaves_its_input_alone(railgun_target):
    snap = to_dict(railgun_target, 0)
    before = copy.deepcopy(snap)
    from_dict(snap)
    assert snap == before


def test_a_game_won_by_an_event_still_discards_the_event(board):
    # Player 0's Bombardment waits in slot 1 while player 1 is down to one damaged camp: at
    # the start of player 0's turn it resolves (RAD-T1) and wins at once (RAD-E1); the card
    # cut off mid-resolution still reaches the discard pile.
    states = board.copy()
    s = states[0]
    _take_from_deck(s, BOMBARDMENT)
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


# ---- what a snapshot says ------------------------------------------------------------------------


def test_opening_snapshot_reads_like_the_setup_rules():
    snap = to_dict(_new_game(42), 0)
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
    assert int(snap["rng"], 16) == int(_new_game(42)[0]["rng"][0])


def test_kept_camps_become_columns_and_set_the_starting_hands():
    states = _new_game(8)
    offers = to_dict(states, 0)["draft"]["offers"]
    for keep in (2, 0, 5, 1, 3, 4):  # player 0 keeps offers 3, 1, 6; player 1 offers 2, 4, 5
        R.apply_action(states, 0, R.A_KEEP + keep)
    snap = to_dict(states, 0)
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
    snap = to_dict(board, 0)
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
    snap = to_dict(railgun_target, 0)
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


# ---- validation ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def finished(positions):
    return next(p for p in positions if p[0]["terminated"] == 1 and p[0]["winner"] >= 0)


@pytest.fixture(scope="module")
def bases(board, railgun_target, finished):
    return {
        "actions": to_dict(board, 0),
        "decision": to_dict(railgun_target, 0),
        "draft": to_dict(_new_game(42), 0),
        "over": to_dict(finished, 0),
    }


def _set(*path_and_value):
    *path, value = path_and_value

    def mutate(snap):
        target = snap
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return mutate


def _person(name, uid, punk=False, damaged=False):
    return {
        "person": name,
        "punk": punk,
        "damaged": damaged,
        "ready": True,
        "uid": uid,
        "vera_used": False,
    }


def _third_person(snap):
    snap["players"][0]["columns"][0] += [_person("Sniper", 20), _person("Scout", 21)]


def _no_camp(snap):
    del snap["players"][0]["columns"][2][0]


def _camp_in_front(snap):
    column = snap["players"][0]["columns"][0]
    column.reverse()


def _swap_camps(snap):
    cols = snap["players"][0]["columns"]
    cols[0][0]["camp"], cols[1][0]["camp"] = cols[1][0]["camp"], cols[0][0]["camp"]


def _duplicate_uid(snap):
    snap["players"][1]["columns"][0][1]["uid"] = 7


def _extra_hand_card(snap):
    hand = snap["players"][1]["hand"]
    hand["Assassin"] = hand.get("Assassin", 0) + 1  # one more than the 2 printed copies


def _lost_deck_card(snap):
    snap["deck"].pop(0)
    snap["leftovers"]["deck_tail"].insert(0, "Muse")  # keep the tail's length right


def _second_argo(snap):
    snap["players"][0]["hand"]["Argo Yesky"] = 2  # unique: one copy (RAD-S2)


def _both_flags(snap):
    snap.update(terminated=True, truncated=True)


def _actions_with_stack(snap):
    snap["phase"] = "actions"
    snap["leftovers"]["mask"] = snap["pending"]["options"]
    snap["pending"] = None


def _actions_for_the_wrong_player(snap):
    snap["current_player"] = 1 - snap["turn_player"]


def _lift_without_high_ground(snap):
    name = snap["deck"].pop(0)
    snap["leftovers"]["deck_tail"].insert(0, name)
    snap["vm"]["lifted"] = _person(name, 12)
    snap["next_uid"] = 13
    snap["leftovers"]["lift"] = None


def _finished_frame(snap):
    snap["vm"]["frames"][0]["pc"] = 1


def _all_camps_destroyed(snap):
    for col in snap["players"][0]["columns"]:
        col[0]["state"] = "destroyed"


def _draft_with_cards(snap):
    snap["players"][0]["hand"] = {snap["deck"].pop(0): 1}
    snap["leftovers"]["deck_tail"].insert(0, snap["deck"][0])


def _kept_by_player_1_first(snap):
    snap["draft"]["kept"][1] = [snap["draft"]["offers"][1][0]]


def _draft_with_people(snap):
    snap["players"][0]["columns"][0] = [_person("Sniper", 7)]


def _internal_teleport(snap):
    frame = snap["vm"]["frames"][0]
    del frame["program"], frame["end"]
    frame.update(internal="teleport", arg=0)


def _wrong_winner(snap):
    snap["winner"] = 1 - snap["winner"]


def _wrong_score(snap):
    snap["score"] = [s + 1 if s < 3 else s - 1 for s in snap["score"]]


# (base, mutation, words the message must contain)
VALIDATION_CASES = {
    "missing key": ("actions", lambda s: s.pop("water"), ["snapshot", "missing key 'water'"]),
    "unknown key": ("actions", _set("colour", 1), ["snapshot", "unknown key 'colour'"]),
    "missing player key": (
        "actions",
        lambda s: s["players"][1].pop("queue"),
        ["players[1]", "missing key 'queue'"],
    ),
    "unknown entity key": (
        "actions",
        _set("players", 0, "columns", 0, 1, "hp", 2),
        ["players[0].columns[0][1]", "unknown key 'hp'"],
    ),
    "wrong game": ("actions", _set("game", "century"), ["game", "'century'"]),
    "wrong version": ("actions", _set("version", 2), ["version", "unsupported", "2"]),
    "bad rng": ("actions", _set("rng", "12345"), ["rng", "hex word"]),
    "water as a string": ("actions", _set("water", "3"), ["water", "integer", "'3'"]),
    "water as a bool": ("actions", _set("water", True), ["water", "integer"]),
    "negative water": ("actions", _set("water", -1), ["water", "-1", "out of range"]),
    "flag as an int": ("actions", _set("reshuffled", 0), ["reshuffled", "true or false"]),
    "players not a list": ("actions", _set("players", {}), ["players", "expected a list"]),
    "two columns": (
        "actions",
        lambda s: s["players"][0]["columns"].pop(),
        ["players[0].columns", "expected 3 entries, got 2"],
    ),
    "unknown phase": ("actions", _set("phase", "setup"), ["phase", "unknown phase 'setup'"]),
    "player index": ("actions", _set("first_player", 2), ["first_player", "player index 2"]),
    "Raiders slot": (
        "actions",
        _set("options", "raiders_slot", 1),
        ["options.raiders_slot", "1", "2..3"],
    ),
    "Vera reading": (
        "actions",
        _set("options", "vera_vosh", "always"),
        ["options.vera_vosh", "unknown reading 'always'"],
    ),
    "Zeto reading": (
        "actions",
        _set("options", "zeto_khan", 1),
        ["options.zeto_khan", "expected a string"],
    ),
    "first-game offers": (
        "actions",
        _set("draft", "offers", 0, ["Garage", "Railgun", "Supply Depot"]),
        ["draft.offers[0]", "first_game_camps", "Arcade"],
    ),
    "kept camp not offered": (
        "draft",
        _set("draft", "kept", 0, ["Nowhere Camp"]),
        ["draft.kept[0][0]", "unknown camp name 'Nowhere Camp'"],
    ),
    "kept before player 0 is done": (
        "draft",
        _kept_by_player_1_first,
        ["draft.kept", "only after player 0 has kept 3"],
    ),
    "draft with cards drawn": ("draft", _draft_with_cards, ["phase", "during the draft"]),
    "draft with people": ("draft", _draft_with_people, ["columns[0]", "stay empty"]),
    "draft decider": ("draft", _set("current_player", 1), ["current_player", "player 0"]),
    "unknown card in hand": (
        "actions",
        _set("players", 0, "hand", {"Joker": 1}),
        ["players[0].hand", "unknown card name 'Joker'"],
    ),
    "zero count in hand": (
        "actions",
        _set("players", 0, "hand", {"Banish": 0}),
        ["players[0].hand['Banish']", "count 0", "1..66"],
    ),
    "unknown camp": (
        "actions",
        _set("players", 0, "columns", 2, 0, "camp", "Castle"),
        ["players[0].columns[2][0].camp", "unknown camp name 'Castle'"],
    ),
    "camp not in its column": ("actions", _swap_camps, ["columns[0][0].camp", "'Arcade'"]),
    "camp state": (
        "actions",
        _set("players", 1, "columns", 1, 0, "state", "burning"),
        ["columns[1][0].state", "unknown camp state 'burning'"],
    ),
    "three people in a column": (
        "actions",
        _third_person,
        ["players[0].columns[0]", "3 people", "at most 2", "RAD-B2"],
    ),
    "column without camp": ("actions", _no_camp, ["columns[2]", "exactly one camp, got 0"]),
    "camp in front of a person": (
        "actions",
        _camp_in_front,
        ["columns[0][1]", "'Arcade' must stand at the back"],
    ),
    "duplicate uid": ("actions", _duplicate_uid, ["players[1].columns[0][1].uid", "uid 7"]),
    "uid not yet issued": (
        "actions",
        _set("players", 0, "columns", 0, 1, "uid", 10),
        ["columns[0][1].uid", "person uid 10", "7..9"],
    ),
    "camp uid range": (
        "actions",
        _set("players", 0, "columns", 0, 1, "uid", 3),
        ["columns[0][1].uid", "person uid 3"],
    ),
    "damaged punk": (
        "actions",
        _set("players", 0, "columns", 1, 1, "damaged", True),
        ["columns[1][1].damaged", "punk", "RAD-K3"],
    ),
    "face-up event in play": (
        "actions",
        _set("players", 0, "columns", 1, 1, "punk", False),
        ["columns[1][1].person", "'Banish' is an event"],
    ),
    "Vera flag under the other reading": (
        "actions",
        _set("players", 0, "columns", 0, 1, "vera_used", True),
        ["columns[0][1].vera_used", "first_use_per_card"],
    ),
    "Vera turn flag under the other reading": (
        "actions",
        lambda s: s.update(
            vera_used=True, options={**s["options"], "vera_vosh": "first_use_per_card"}
        ),
        ["vera_used", "first_use_per_turn"],
    ),
    "Juggernaut moves without Juggernaut": (
        "actions",
        _set("players", 1, "juggernaut_moves", 1),
        ["players[1].juggernaut_moves", "no Juggernaut"],
    ),
    "person in a queue": (
        "actions",
        _set("players", 0, "queue", ["Assassin", None, None]),
        ["players[0].queue[0]", "'Assassin' is a person"],
    ),
    "bomb-0 event in a queue": (
        "actions",
        _set("players", 0, "queue", [None, "Truce", None]),
        ["players[0].queue[1]", "'Truce' has bomb 0", "RAD-A4"],
    ),
    "two Raiders": (
        "actions",
        _set("players", 1, "queue", ["Raiders", None, "Raiders"]),
        ["players[1].queue[2]", "one Raiders"],
    ),
    "card too many": ("actions", _extra_hand_card, ["cards", "'Assassin'", "3 times", "has 2"]),
    "card missing": ("actions", _lost_deck_card, ["cards", "found", "RAD-S2"]),
    "unique person twice": ("actions", _second_argo, ["cards", "'Argo Yesky'", "has 1"]),
    "deck tail length": (
        "actions",
        lambda s: s["leftovers"]["deck_tail"].pop(),
        ["leftovers.deck_tail", "entries"],
    ),
    "frames tail type": (
        "actions",
        _set("leftovers", "frames_tail", [["x"] * 13]),
        ["leftovers.frames_tail[0].fr_prog", "integer"],
    ),
    "both terminated and truncated": ("actions", _both_flags, ["terminated", "both"]),
    "actions phase decider": (
        "actions",
        _actions_for_the_wrong_player,
        ["current_player", "turn player"],
    ),
    "turn order": (
        "actions",
        lambda s: s.update(turn_count=s["turn_count"] + 1),
        ["turn_player", "turns from first_player"],
    ),
    "first turn flag": (
        "actions",
        _set("first_turn_done", False),
        ["first_turn_done", "RAD-T2"],
    ),
    "pending outside a decision": (
        "actions",
        _set("pending", {"decider": 1, "options": ["skip"]}),
        ["pending", "only the decision phase"],
    ),
    "score before the end": ("actions", _set("score", [3, 3]), ["score", "null"]),
    "winner before the end": ("actions", _set("winner", 0), ["winner", "terminated"]),
    "no camp left in a live game": (
        "actions",
        _all_camps_destroyed,
        ["terminated", "player 0 has no camp left", "RAD-E1"],
    ),
    "lifted without High Ground": (
        "actions",
        _lift_without_high_ground,
        ["vm.lifted", "High Ground"],
    ),
    "decision without pending": (
        "decision",
        _set("pending", None),
        ["pending", "needs a pending decision"],
    ),
    "decider mismatch": (
        "decision",
        _set("pending", "decider", 0),
        ["pending.decider", "current_player 1"],
    ),
    "no options": ("decision", _set("pending", "options", []), ["pending.options", "at least"]),
    "unknown option": (
        "decision",
        _set("pending", "options", ["fly away"]),
        ["pending.options[0]", "unknown action label 'fly away'"],
    ),
    "main action as option": (
        "decision",
        _set("pending", "options", ["end turn"]),
        ["pending.options[0]", "main action"],
    ),
    "option listed twice": (
        "decision",
        _set("pending", "options", ["skip", "skip"]),
        ["pending.options[1]", "twice"],
    ),
    "target on an empty place": (
        "decision",
        _set("pending", "options", ["target opp col 3 pos 2"]),
        ["pending.options", "not legal: ['target opp col 3 pos 2']", "rules give exactly"],
    ),
    "hand card not held": (
        "decision",
        _set("pending", "options", ["select Truce"]),
        ["pending.options", "not legal: ['select Truce']", "rules give exactly"],
    ),
    "queue slot empty": (
        "decision",
        _set("pending", "options", ["select opp slot 1"]),
        ["pending.options", "not legal: ['select opp slot 1']", "rules give exactly"],
    ),
    "mask kept twice": (
        "decision",
        _set("leftovers", "mask", ["skip"]),
        ["leftovers.mask", "pending.options"],
    ),
    "unknown program": (
        "decision",
        _set("vm", "frames", 0, "program", "Laser ability 1"),
        ["vm.frames[0].program", "unknown program 'Laser ability 1'"],
    ),
    "internal frame keys": (
        "decision",
        _set("vm", "frames", 0, {"internal": "teleport", "arg": 0}),
        ["vm.frames[0]", "missing key 'pc'"],
    ),
    "unknown internal op": ("decision", _internal_teleport, ["unknown internal op 'teleport'"]),
    "source uid not issued": (
        "decision",
        _set("vm", "frames", 0, "source_uid", 10),
        ["vm.frames[0].source_uid", "uid 10", "0..9"],
    ),
    "pc past the end": (
        "decision",
        _set("vm", "frames", 0, "pc", 5),
        ["vm.frames[0].pc", "pc 5", "0..1"],
    ),
    "end past the program": (
        "decision",
        _set("vm", "frames", 0, "end", 4),
        ["vm.frames[0].end", "end 4", "1..1"],
    ),
    "finished running frame": ("decision", _finished_frame, ["vm.frames[0]", "pc == end"]),
    "discarding a person": (
        "decision",
        _set("vm", "frames", 0, "then", "discard Assassin"),
        ["vm.frames[0].then", "only a resolved event"],
    ),
    "unknown then": (
        "decision",
        _set("vm", "frames", 0, "then", "explode"),
        ["vm.frames[0].then", "'explode'"],
    ),
    "stack in the actions phase": (
        "decision",
        _actions_with_stack,
        ["vm.frames", "empty in phase 'actions'"],
    ),
    "wrong winner": ("over", _wrong_winner, ["winner", "RAD-E1"]),
    "wrong score": ("over", _wrong_score, ["score", "undestroyed camps"]),
    "missing final score": ("over", _set("score", None), ["score", "final score"]),
    "over but live": ("over", _set("terminated", False), ["phase", "'over'"]),
}


@pytest.mark.parametrize("case", list(VALIDATION_CASES))
def test_from_dict_rejects_with_a_message_naming_the_problem(bases, case):
    base, mutate, words = VALIDATION_CASES[case]
    snap = copy.deepcopy(bases[base])
    from_dict(copy.deepcopy(snap))  # the base itself is valid
    mutate(snap)
    with pytest.raises(SnapshotError) as info:
        from_dict(snap)
    for word in words:
        assert word in str(info.value), (word, str(info.value))


def test_from_dict_rejects_a_non_dict():
    with pytest.raises(SnapshotError, match="snapshot: expected an object, got list"):
        from_dict(["radlands"])


def test_to_dict_writes_every_field(positions, railgun_target):
    # Each value of the record shows in the snapshot: change any one and the snapshot changes
    # too (or to_dict refuses the record), so from_dict can rebuild every field.
    lifted = next(p for p in positions if p[0]["lift_uid"] != 0)
    described = 0
    for states in (railgun_target, lifted):
        base = to_dict(states, 0)
        for name in R.STATE_DTYPE.names:
            for j in range(states[0][name].size):
                for change in (lambda v: v ^ 1, lambda v: v + 2):
                    other = states.copy()
                    view = other[0][name].reshape(-1)
                    value = change(int(view[j]))
                    info = np.iinfo(view.dtype)
                    if not info.min <= value <= info.max:
                        continue
                    view[j] = value
                    other[0][name] = view.reshape(states[0][name].shape)
                    try:
                        changed = to_dict(other, 0)
                    except SnapshotError:
                        continue
                    assert changed != base, (name, j)
                    described += 1
    assert described > 1500


def test_to_dict_refuses_a_record_it_cannot_describe(board):
    states = board.copy()
    states[0]["ent_uid"][0, 2, 2] = 99  # an empty place with a uid
    with pytest.raises(SnapshotError, match="cannot snapshot"):
        to_dict(states, 0)


# ---- action_to_string ----------------------------------------------------------------------------


def test_every_legal_action_has_a_distinct_name(positions, truncated):
    checked = 0
    for states in positions + truncated:
        legal = _legal(states)
        names = [action_to_string(states, 0, int(a)) for a in legal]
        assert all(isinstance(text, str) and text for text in names)
        assert len(set(names)) == len(names), names
        checked += len(names)
    assert checked > 1000


def test_every_action_has_a_name_in_any_phase(positions):
    for states in positions[::40]:
        names = [action_to_string(states, 0, a) for a in range(R.NUM_ACTIONS)]
        assert all(isinstance(text, str) and text for text in names)


def test_main_action_names(board):
    s = board[0]
    assert action_to_string(board, 0, R.A_USE + (0 * 3 + 1) * 3) == (
        "use Sniper (col 1, front) ability 1"
    )
    assert action_to_string(board, 0, RAILGUN_USE) == "use Railgun (col 2) ability 1"
    assert action_to_string(board, 0, R.A_PLAY_PERSON + ASSASSIN) == "play Assassin"
    assert action_to_string(board, 0, R.A_PLAY_EVENT + BANISH - R.FIRST_EVENT) == "play Banish"
    assert action_to_string(board, 0, R.A_JUNK + ASSASSIN) == "junk Assassin (raid)"
    assert action_to_string(board, 0, R.A_JUNK + SNIPER) == "junk Sniper (restore)"
    assert action_to_string(board, 0, R.A_TAKE_SILO) == "take Water Silo"
    assert action_to_string(board, 0, R.A_END_TURN) == "end turn"
    assert action_to_string(board, 0, R.A_SKIP) == "skip"
    assert s["current_player"] == 1


def test_target_names_see_sides_from_the_decider(railgun_target):
    names = [action_to_string(railgun_target, 0, int(a)) for a in _legal(railgun_target)]
    # the punk stays face down in action names (RAD-K3, RAD-G4)
    assert names == [
        "target opponent's Assassin (col 1, front)",
        "target opponent's punk (col 2, front)",
        "target opponent's Victory Totem (col 3)",
    ]
    own = R.A_TARGET + 0 * 9 + 0 * 3 + 1
    assert action_to_string(railgun_target, 0, own) == "target own Sniper (col 1, front)"


def test_draft_and_placement_names():
    states = _new_game(42)
    offer = states[0]["offer"][0]
    for k in range(6):
        expected = f"keep camp {D.CAMP_NAMES[int(offer[k])]}"
        assert action_to_string(states, 0, R.A_KEEP + k) == expected
    states = _first_game_on_player_1()
    s = states[0]
    s["water"] = 3
    _put_person(s, 1, 0, SNIPER)
    s["hand"][1, ASSASSIN] += 1
    _take_from_deck(s, ASSASSIN)
    R.apply_action(states, 0, R.A_PLAY_PERSON + ASSASSIN)
    names = {int(a): action_to_string(states, 0, int(a)) for a in _legal(states)}
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
    seed = next(k for k in range(500) if camp in _new_game(k)[0]["offer"][0])
    states = _new_game(seed)
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
    _put_person(s, 0, 0, SNIPER)
    return states


def test_juggernaut_space_round_trips_and_placements_name_the_shove():
    states = _juggernaut_on_space_1()
    snap, restored = _json_round_trip(states)
    assert restored.tobytes() == states.tobytes()
    assert snap["players"][0]["juggernaut_moves"] == 1
    assert "Juggernaut on space 2 of 3" in render(states, 0)
    s = states[0]
    for t in range(D.N_PERSON_TYPES):  # no other person in hand: only the Assassin is played
        for _ in range(int(s["hand"][0, t])):
            s["deck"][s["deck_n"]] = t
            s["deck_n"] += 1
        s["hand"][0, t] = 0
    s["hand"][0, ASSASSIN] += 1
    _take_from_deck(s, ASSASSIN)
    R.apply_action(states, 0, R.A_PLAY_PERSON + ASSASSIN)
    names = {int(a): action_to_string(states, 0, int(a)) for a in _legal(states)}
    # either side of the moved Juggernaut; taking the front shoves the Sniper behind it
    assert names[R.A_PLACE + 0] == "place Assassin in col 1 behind Juggernaut"
    assert names[R.A_PLACE + 2] == ("place Assassin in col 1 front, shoving Sniper past Juggernaut")
    assert R.A_PLACE + 1 not in names


@pytest.mark.parametrize(
    "mutate, words",
    [
        (_set("players", 0, "juggernaut_moves", 2), ["columns[0]", "space 3 of 3", "1 in front"]),
        (_set("players", 0, "juggernaut_moves", 0), []),  # space 0 with a person in front: fine
        (
            _set("players", 0, "columns", 0, 0, "state", "destroyed"),
            ["juggernaut_moves", "destroyed Juggernaut", "starting spot"],
        ),
    ],
)
def test_juggernaut_space_must_fit_the_people_around_it(mutate, words):
    # docs board model: a camp on space j has at most j people behind it, 2 - j in front
    snap = to_dict(_juggernaut_on_space_1(), 0)
    mutate(snap)
    if not words:
        from_dict(snap)
        return
    with pytest.raises(SnapshotError) as info:
        from_dict(snap)
    for word in words:
        assert word in str(info.value), (word, str(info.value))


def _parachute_placing_sniper():
    """Player 0 used Parachute Base (column 1) on a Sniper and now places it (stage 2)."""
    states = _game_with_camp(D.CAMP_ID["parachute_base"])
    s = states[0]
    s["water"] = 6
    _take_from_deck(s, SNIPER)
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
    # issue 10.1a: the aux of a Parachute Base step indexes the card tables and the hand
    snap = to_dict(_parachute_placing_sniper(), 0)
    from_dict(copy.deepcopy(snap))
    snap["vm"]["frames"][-1]["aux"] = aux
    with pytest.raises(SnapshotError) as info:
        from_dict(snap)
    for word in words:
        assert word in str(info.value), (word, str(info.value))


def test_frame_source_must_be_the_card_whose_program_runs():
    # issue 10.1: "this card" steers self-damage, Juggernaut's move and Construction Yard's
    # own destruction, so a camp ability must run for that very camp
    snap = to_dict(_parachute_placing_sniper(), 0)
    assert snap["vm"]["frames"][-1]["source_uid"] == 1  # player 0's column 1
    snap["vm"]["frames"][-1]["source_uid"] = 2
    with pytest.raises(SnapshotError, match="source_uid: a Parachute Base ability runs for"):
        from_dict(snap)


def test_pending_options_are_recomputed_not_trusted():
    # issue 10.1b: the listed options must be exactly the rules' (RAD-A1 placements here)
    states = _parachute_placing_sniper()
    snap = to_dict(states, 0)
    assert snap["pending"]["options"] == [
        ACTION_LABELS[a] for a in np.flatnonzero(states[0]["pend_mask"])
    ]
    extra = copy.deepcopy(snap)
    extra["pending"]["options"].append("place col 1 pos 1")  # behind a camp at the back
    with pytest.raises(SnapshotError, match="not legal: \\['place col 1 pos 1'\\]"):
        from_dict(extra)
    fewer = copy.deepcopy(snap)
    dropped = fewer["pending"]["options"].pop()
    with pytest.raises(SnapshotError, match=f"missing: \\['{dropped}'\\]"):
        from_dict(fewer)
    wrong_stage = copy.deepcopy(snap)
    wrong_stage["vm"]["frames"][-1]["stage"] = 1  # making room: only with all 6 places full
    with pytest.raises(SnapshotError, match="cannot be waiting"):
        from_dict(wrong_stage)


@pytest.mark.parametrize(
    "mutate, words",
    [
        (_set("water", 101), ["water", "0..100"]),
        (_set("next_uid", R.STEP_CAP + 8), ["next_uid", f"7..{R.STEP_CAP + 7}"]),
        (_set("players", 0, "entered_this_turn", 101), ["entered_this_turn", "0..100"]),
        (_set("turn_count", 10**6 + 1), ["turn_count", "turns <= steps"]),
    ],
)
def test_counters_are_bounded_by_what_the_game_reaches(board, mutate, words):
    # issue 10.3: no counter may sit where the next legal step would wrap its integer
    snap = to_dict(board, 0)
    mutate(snap)
    with pytest.raises(SnapshotError) as info:
        from_dict(snap)
    for word in words:
        assert word in str(info.value), (word, str(info.value))


def test_null_in_the_deck_tail_is_refused(board):
    # issue 10.6: from_dict accepted it and to_dict then refused the same state
    snap = to_dict(board, 0)
    assert snap["leftovers"]["deck_tail"], "the board fixture has drawn cards"
    snap["leftovers"]["deck_tail"][0] = None
    with pytest.raises(SnapshotError, match="leftovers.deck_tail\\[0\\]"):
        from_dict(snap)


def _mutations(value, rng, names):
    """Random replacements for one leaf: other types, near values, card names, nulls."""
    pool = [None, True, False, 0, 1, 2, -1, 3, 7, 66, 127, 30000, "", "Muse", "Raiders"]
    pool += list(rng.choice(names, 3))
    if isinstance(value, bool):
        pool.append(not value)
    elif isinstance(value, int):
        pool += [value + 1, value - 1, value * 2]
    return pool[int(rng.integers(len(pool)))]


def _leaves(node, path=()):
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _leaves(value, path + (key,))
    elif isinstance(node, list):
        for k, value in enumerate(node):
            yield from _leaves(value, path + (k,))
        yield path, node  # the list itself: drop or duplicate an entry
    else:
        yield path, node


def test_every_accepted_mutation_round_trips(positions):
    """Issue 10.6 as a property: whatever from_dict accepts, to_dict writes back unchanged,
    and the game goes on with legal steps that stay describable."""
    rng = np.random.default_rng(11)
    names = list(D.DECK_TYPE_NAMES) + list(D.CAMP_NAMES)
    accepted = 0
    for states in positions[::3]:
        base = to_dict(states, 0)
        leaves = list(_leaves(base))
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
                restored = from_dict(snap)
            except SnapshotError:
                continue
            accepted += 1
            again = to_dict(restored, 0)
            assert from_dict(again).tobytes() == restored.tobytes(), path
            assert again == snap or from_dict(snap).tobytes() == restored.tobytes()
            for _ in range(10):
                if restored[0]["phase"] == R.PHASE_OVER:
                    break
                _step_random(restored, rng)
                to_dict(restored, 0)
    assert accepted > 50  # the benign mutations (counts, flags, leftovers) do get in


@pytest.mark.parametrize("action", [-1, R.NUM_ACTIONS, 10**6])
def test_action_to_string_rejects_out_of_range(action):
    with pytest.raises(ActionError, match="out of range"):
        action_to_string(_new_game(1), 0, action)


@pytest.mark.parametrize("action", [1.0, "3", None, True, [3]])
def test_action_to_string_rejects_non_integers(action):
    with pytest.raises(ActionError, match="must be an integer"):
        action_to_string(_new_game(1), 0, action)


# ---- render --------------------------------------------------------------------------------------


def test_render_shows_both_boards_and_the_pending_decision(railgun_target):
    text = render(railgun_target, 0)
    snap = to_dict(railgun_target, 0)
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
        assert f"  - {action_to_string(railgun_target, 0, int(a))}" in text


def test_render_works_in_every_phase(positions):
    seen = set()
    for states in positions[::10]:
        text = render(states, 0)
        assert "player 0" in text and "player 1" in text and "Pending:" in text
        seen.add(R.PHASE_NAMES[int(states[0]["phase"])])
    assert seen == set(R.PHASE_NAMES)
    assert "hidden information" in render.__doc__
