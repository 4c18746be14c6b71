"""Snapshots of every game: exact JSON round trips, the records to_dict refuses, the corrupt
inputs from_dict refuses with a message naming the problem, and action names. The per-game
data is in ``tests/snapshot_cases/``; game-specific tests are in ``test_<game>_snapshot.py``."""

import copy
import json

import numpy as np
import pytest
import snapshot_helpers as H

from meeple_gym.core.errors import ActionError, SnapshotError

GAMES = H.GAMES


def _codec(game):
    return H.case(game).codec


def _rules(game):
    return H.case(game).R


# ---- round trips -------------------------------------------------------------------------------


def _exact_round_trips(game, states_list) -> list[dict]:
    """Each position through JSON and back: the same bytes, the same snapshot, JSON types."""
    codec, rules = _codec(game), _rules(game)
    snaps = []
    for states in states_list:
        snap, restored = H.json_round_trip(codec, states)
        assert restored.dtype == rules.STATE_DTYPE and restored.shape == (1,)
        assert restored.tobytes() == states.tobytes()
        assert codec.to_dict(restored, 0) == snap
        assert json.loads(json.dumps(snap)) == snap  # plain JSON types only
        snaps.append(snap)
    return snaps


@pytest.mark.parametrize("game", GAMES)
def test_json_round_trip_is_byte_exact(game):
    positions = H.positions(game)
    snaps = _exact_round_trips(game, positions)
    H.case(game).round_trip_coverage(list(zip(positions, snaps, strict=True)))


@pytest.mark.parametrize("game", GAMES)
def test_truncated_games_round_trip(game):
    snaps = _exact_round_trips(game, H.truncated(game))
    for snap in snaps:
        if snap["truncated"]:
            assert snap["winner"] is None and snap["step_count"] == _rules(game).STEP_CAP
    H.case(game).truncated_coverage(snaps)


@pytest.mark.parametrize("game", GAMES)
def test_restored_game_continues_identically(game):
    case, codec, rules = H.case(game), _codec(game), _rules(game)
    rng = np.random.default_rng(11)
    live = [p for p in H.positions(game) if not case.over(p)][:: case.CONTINUE["stride"]]
    assert len(live) >= case.CONTINUE["live"]
    for states in live:
        original = states.copy()
        restored = codec.from_dict(codec.to_dict(original, 0))
        for _ in range(case.CONTINUE["steps"]):
            if case.over(original):
                break
            legal = H.legal(rules, original)
            assert np.array_equal(legal, H.legal(rules, restored))
            action = int(rng.choice(legal))
            rules.apply_action(original, 0, action)
            rules.apply_action(restored, 0, action)
            assert restored.tobytes() == original.tobytes()


@pytest.mark.parametrize("game", GAMES)
def test_a_reused_record_matches_a_fresh_one_and_round_trips(game):
    # A batch slot is reused: init_game on an old record must give the fresh one, and the
    # record (with what init_game leaves of the old game) round-trips as play goes on.
    case, codec = H.case(game), _codec(game)
    old, new = case.REUSE["players"]
    rng = np.random.default_rng(2)
    states = case.new_game(old, 21)
    while not case.over(states):
        case.step_random(states, rng)
    case.reinit(states, new, 22)
    assert states.tobytes() == case.new_game(new, 22).tobytes()
    for _ in range(case.REUSE["steps"] + 1):
        _, restored = H.json_round_trip(codec, states)
        assert restored.tobytes() == states.tobytes()
        if case.over(states):
            break
        case.step_random(states, rng)


@pytest.mark.parametrize("game", GAMES)
def test_any_game_of_a_batch_round_trips(game):
    codec = _codec(game)
    batch = H.case(game).batch(H.positions(game), H.truncated(game))
    for g in range(len(batch)):
        restored = codec.from_dict(codec.to_dict(batch, g))
        assert restored.tobytes() == batch[g : g + 1].tobytes()


@pytest.mark.parametrize("game", GAMES)
def test_from_dict_leaves_its_input_alone(game):
    codec = _codec(game)
    snap = codec.to_dict(H.case(game).untouched(H.positions(game)), 0)
    before = copy.deepcopy(snap)
    codec.from_dict(snap)
    assert snap == before


# ---- what to_dict writes -------------------------------------------------------------------------


@pytest.mark.parametrize("game", [g for g in GAMES if H.hook(g, "WRITES_EVERY_FIELD")])
def test_to_dict_writes_every_field(game):
    # Each value of the record shows in the snapshot: change any one and the snapshot changes
    # too (or to_dict refuses the record), so from_dict can rebuild every field.
    pick, least = H.hook(game, "WRITES_EVERY_FIELD")
    described = sum(
        H.described_changes(_codec(game).to_dict, states) for states in pick(H.positions(game))
    )
    assert described > least


@pytest.mark.parametrize("game", GAMES)
def test_to_dict_refuses_a_record_it_cannot_describe(game):
    for states, match in H.case(game).unwritable(H.positions(game)):
        with pytest.raises(SnapshotError, match=match):
            _codec(game).to_dict(states, 0)


@pytest.mark.parametrize("game", [g for g in GAMES if H.case(g).codec.CODEC.writable])
def test_to_dict_refuses_a_record_init_game_never_filled(game):
    states = H.positions(game)[0].copy()
    states[0]["num_players"] = 0
    with pytest.raises(SnapshotError, match="cannot snapshot: num_players"):
        _codec(game).to_dict(states, 0)


# ---- what from_dict refuses ----------------------------------------------------------------------

VALIDATION = [(game, name) for game in GAMES for name in H.case(game).VALIDATION_CASES]


@pytest.mark.parametrize("game, case", VALIDATION, ids=[f"{g}-{c}" for g, c in VALIDATION])
def test_from_dict_rejects_with_a_message_naming_the_problem(game, case):
    base, mutate, words = H.case(game).VALIDATION_CASES[case]
    H.refuses_mutation(_codec(game).from_dict, H.bases(game)[base], mutate, words)


@pytest.mark.parametrize("game", GAMES)
def test_from_dict_rejects_a_non_dict(game):
    with pytest.raises(SnapshotError, match="snapshot: expected an object, got list"):
        _codec(game).from_dict([game])


# ---- action_to_string ----------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_every_legal_action_has_a_distinct_name(game):
    case, codec = H.case(game), _codec(game)
    checked, keys = 0, set()
    for states in H.hook(game, "named_positions")(H.positions(game), H.truncated(game)):
        legal = H.legal(case.R, states)
        names = [codec.action_to_string(states, 0, int(a)) for a in legal]
        assert all(isinstance(text, str) and text for text in names)
        assert len(set(names)) == len(names), names
        keys.add(H.hook(game, "check_names")(states, names))
        checked += len(names)
    case.names_coverage(checked, keys)


@pytest.mark.parametrize("game", GAMES)
def test_every_action_has_a_name_in_any_position(game):
    case, codec = H.case(game), _codec(game)
    some = H.positions(game)[:: case.ANY_ACTION_STRIDE] + H.truncated(game)[:3]
    for states in some:
        names = [codec.action_to_string(states, 0, a) for a in range(case.R.NUM_ACTIONS)]
        assert all(isinstance(text, str) and text for text in names)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("action", [-1, "num_actions", 10**6])
def test_action_to_string_rejects_out_of_range(game, action):
    rules = _rules(game)
    action = rules.NUM_ACTIONS if action == "num_actions" else action
    with pytest.raises(ActionError, match="out of range"):
        _codec(game).action_to_string(H.case(game).new_game(2, 1), 0, action)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("action", [1.0, "3", None, True, [3]])
def test_action_to_string_rejects_non_integers(game, action):
    with pytest.raises(ActionError, match="must be an integer"):
        _codec(game).action_to_string(H.case(game).new_game(2, 1), 0, action)
