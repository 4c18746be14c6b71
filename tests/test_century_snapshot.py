"""Century snapshots: exact JSON round trips, validation errors, action names and the board."""

import copy
import json

import numpy as np
import pytest

from meeple_gym.century import rules as R
from meeple_gym.century.data import (
    COLOURS,
    MERCHANT_NAMES,
    POINT_NAMES,
    POINT_VALUE,
)
from meeple_gym.century.snapshot import action_to_string, from_dict, render, to_dict
from meeple_gym.core.errors import ActionError, SnapshotError
from meeple_gym.core.rng import game_key


def _new_game(num_players, seed):
    states = np.zeros(1, R.STATE_DTYPE)
    R.init_game(states, 0, num_players, game_key(seed))
    return states


def _legal(states):
    mask = np.zeros(R.NUM_ACTIONS, np.int8)
    R.legal_mask_into(states, 0, mask)
    return np.flatnonzero(mask)


def _step_random(states, rng):
    R.apply_action(states, 0, int(rng.choice(_legal(states))))


def _step_claimer(states, rng):
    """Claims whenever it can and rarely buys, so points are scored while the market is full."""
    legal = _legal(states)
    claims = legal[(legal >= R.A_CLAIM) & (legal < R.A_UPGRADE)]
    others = legal[(legal < R.A_ACQUIRE) | (legal >= R.A_REST)]
    if claims.size:
        legal = claims
    elif others.size and rng.random() < 0.9:
        legal = others
    R.apply_action(states, 0, int(rng.choice(legal)))


def _play_and_sample(num_games, sample_rate, seed):
    """Random games (every other one by a claiming policy); returns copies of sampled
    positions plus every opening and final position."""
    rng = np.random.default_rng(seed)
    positions = []
    for game in range(num_games):
        states = _new_game(R.MIN_PLAYERS + game % 4, seed * 1000 + game)
        step = _step_claimer if game % 2 else _step_random
        positions.append(states.copy())
        while states[0]["phase"] != R.PHASE_OVER:
            step(states, rng)
            if rng.random() < sample_rate:
                positions.append(states.copy())
        positions.append(states.copy())
    return positions


def _truncated_positions(positions, rng):
    """CSR-E4: push sampled positions to one step below the cap, then take one more step."""
    out = []
    for states in positions:
        if states[0]["phase"] == R.PHASE_OVER:
            continue
        cut = states.copy()
        cut[0]["step_count"] = R.STEP_CAP - 1
        _step_random(cut, rng)
        assert cut[0]["truncated"] == 1 or cut[0]["terminated"] == 1
        out.append(cut)
    return out


@pytest.fixture(scope="module")
def positions():
    return _play_and_sample(num_games=16, sample_rate=0.08, seed=7)


@pytest.fixture(scope="module")
def truncated(positions):
    return _truncated_positions(positions[::3], np.random.default_rng(3))


def _json_round_trip(states):
    snap = to_dict(states, 0)
    text = json.dumps(snap)
    restored = from_dict(json.loads(text))
    return snap, restored


def _phase_name(states):
    return R.PHASE_NAMES[int(states[0]["phase"])]


# ---- round trips -----------------------------------------------------------------------------


def test_json_round_trip_is_byte_exact(positions):
    seen = set()
    for states in positions:
        snap, restored = _json_round_trip(states)
        assert restored.dtype == R.STATE_DTYPE and restored.shape == (1,)
        assert restored.tobytes() == states.tobytes()
        assert to_dict(restored, 0) == snap
        seen.add(snap["phase"])
    # The sample must reach every sub-decision and finished games, or the test proves little.
    assert seen == set(R.PHASE_NAMES)


def test_truncated_games_round_trip_with_the_interrupted_sub_decision(truncated):
    kinds = set()
    for states in truncated:
        snap, restored = _json_round_trip(states)
        assert restored.tobytes() == states.tobytes()
        if snap["truncated"]:
            assert snap["phase"] == "over" and snap["winner"] is None
            assert snap["step_count"] == R.STEP_CAP
            kinds.add(None if snap["pending"] is None else snap["pending"]["phase"])
    # Cut-offs inside a sub-decision keep its fields (the kernel does not clear them).
    assert {None, "upgrade", "pay"} <= kinds


def test_restored_game_continues_identically(positions):
    rng = np.random.default_rng(11)
    live = [p for p in positions if p[0]["phase"] != R.PHASE_OVER][::4]
    assert len(live) >= 10
    for states in live:
        original = states.copy()
        restored = from_dict(to_dict(original, 0))
        for _ in range(150):
            if original[0]["phase"] == R.PHASE_OVER:
                break
            legal = _legal(original)
            assert np.array_equal(legal, _legal(restored))
            action = int(rng.choice(legal))
            R.apply_action(original, 0, action)
            R.apply_action(restored, 0, action)
            assert restored.tobytes() == original.tobytes()


def test_any_game_of_a_batch_round_trips():
    batch = np.zeros(3, R.STATE_DTYPE)
    for g in range(3):
        R.init_game(batch, g, 2 + g, game_key(100 + g))
    R.apply_action(batch, 1, R.A_ACQUIRE + 2)  # game 1 now owes two cubes for slot 3
    for g in range(3):
        restored = from_dict(to_dict(batch, g))
        assert restored.tobytes() == batch[g : g + 1].tobytes()
    assert to_dict(batch, 1)["pending"] == {"phase": "pay", "slot": 3, "paid": 0}


def test_from_dict_leaves_its_input_alone(positions):
    snap = to_dict(positions[len(positions) // 2], 0)
    before = copy.deepcopy(snap)
    from_dict(snap)
    assert snap == before


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_opening_snapshot_reads_like_the_setup_rules(num_players):
    states = _new_game(num_players, 42 + num_players)
    snap = to_dict(states, 0)
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
    states = _new_game(3, 5)
    R.apply_action(states, 0, R.A_PLAY + MERCHANT_NAMES.index("U2"))
    snap = to_dict(states, 0)
    assert snap["phase"] == "upgrade"
    assert snap["pending"] == {"phase": "upgrade", "card": "U2", "upgrades_left": 2}
    player = snap["players"][snap["current_player"]]
    assert player["played"] == ["U2"] and player["hand"] == ["+YY"]
    # Acquire slot 3 (CSR-A1): two cubes owed, none placed yet.
    states = _new_game(3, 5)
    R.apply_action(states, 0, R.A_ACQUIRE + 2)
    assert to_dict(states, 0)["pending"] == {"phase": "pay", "slot": 3, "paid": 0}
    R.apply_action(states, 0, R.A_PLACE + R.YELLOW)
    snap = to_dict(states, 0)
    assert snap["pending"] == {"phase": "pay", "slot": 3, "paid": 1}
    assert snap["market"][0]["cubes"] == {"yellow": 1, "red": 0, "green": 0, "brown": 0}


# ---- validation ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def base(positions):
    """A main-phase position with bought merchant cards, claimed point cards, a full market."""
    for states in positions:
        s = states[0]
        n = int(s["num_players"])
        if (
            s["phase"] == R.PHASE_MAIN
            and (s["point_owner"] >= 0).sum() >= 2
            and s["gold_left"] > 0
            and (s["cards"][:n, 2:] != R.NOT_OWNED).sum() >= 2
            and s["market"][R.MARKET_SIZE - 1] >= 0
        ):
            return to_dict(states, 0)
    pytest.fail("no suitable position in the sample")


def _owner_of_a_market_card(snap):
    for p, player in enumerate(snap["players"]):
        for pile in ("hand", "played"):
            for i, name in enumerate(player[pile]):
                if name not in ("+YY", "U2"):
                    return p, pile, i
    raise AssertionError("nobody owns a market card")


def _claimant(snap):
    return next(p for p, player in enumerate(snap["players"]) if player["point_cards"])


def _set(path, value):
    def mutate(snap):
        target = snap
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return mutate


def _dup_market_card(snap):
    snap["players"][0]["hand"].append(snap["market"][0]["card"])


def _drop_deck_card(snap):
    snap["merchant_deck"].pop(0)


def _owned_card_also_in_deck(snap):
    p, pile, i = _owner_of_a_market_card(snap)
    snap["merchant_deck"].append(snap["players"][p][pile][i])


def _dup_point_card(snap):
    snap["players"][_claimant(snap)]["point_cards"].append(snap["point_row"][0]["card"])


def _drop_point_card(snap):
    snap["point_deck"].pop()


def _shift_gold(snap):
    snap["coins"]["gold"] -= 1


def _extra_silver_in_supply(snap):
    snap["coins"]["silver"] = 2 * snap["num_players"] - sum(
        player["silver"] for player in snap["players"]
    )
    snap["coins"]["silver"] += 1 if snap["coins"]["silver"] < 2 * snap["num_players"] else -1


def _overfull_caravan(snap):
    snap["players"][snap["current_player"]]["caravan"]["yellow"] += 11


def _overfull_other_caravan(snap):
    other = (snap["current_player"] + 1) % snap["num_players"]
    snap["players"][other]["caravan"]["brown"] += 11


def _drop_player(snap):
    snap["players"].pop()


def _more_players(snap):
    snap["num_players"] += 1 if snap["num_players"] < 5 else -1


def _swap_market(snap):
    snap["market"][0], snap["market"][1] = snap["market"][1], snap["market"][0]


def _empty_market_slot(snap):
    snap["merchant_deck"].insert(0, snap["market"][-1]["card"])
    snap["merchant_dealt"].pop()
    snap["market"][-1] = None


def _bad_points(snap):
    snap["point_row"][0]["points"] += 1


def _drop_starting_card(snap):
    player = snap["players"][0]
    for pile in ("hand", "played"):
        if "U2" in player[pile]:
            player[pile].remove("U2")


def _listed_twice(snap):
    p, pile, i = _owner_of_a_market_card(snap)
    snap["players"][p][pile].append(snap["players"][p][pile][i])


def _negative_market_cubes(snap):
    snap["market"][1]["cubes"]["green"] = -2


def _wrong_turn_order(snap):
    snap["turn_count"] += 1


def _score_while_live(snap):
    snap["score"] = [0] * snap["num_players"]


def _truncated_but_live(snap):
    snap["truncated"] = True


def _trade_pending_in_main(snap):
    snap["pending"] = {"phase": "trade", "card": "YY>G"}


def _upgrade_without_pending(snap):
    snap["phase"] = "upgrade"


def _upgrade_with_trade_pending(snap):
    snap["phase"] = "upgrade"
    snap["pending"] = {"phase": "trade", "card": "YY>G"}


def _pending_card_not_played(snap):
    player = snap["players"][snap["current_player"]]
    if "U2" in player["played"]:
        player["played"].remove("U2")
        player["hand"].append("U2")
    snap["phase"] = "upgrade"
    snap["pending"] = {"phase": "upgrade", "card": "U2", "upgrades_left": 1}


def _pay_for_free_slot(snap):
    snap["phase"] = "pay"
    snap["pending"] = {"phase": "pay", "slot": 1, "paid": 0}


def _pending_extra_key(snap):
    snap["phase"] = "pay"
    snap["pending"] = {"phase": "pay", "slot": 2, "paid": 0, "colour": "red"}


def _discard_without_excess(snap):
    snap["phase"] = "discard"
    snap["pending"] = {"phase": "discard"}


def _end_flag_without_cards(snap):
    snap["end_triggered"] = not snap["end_triggered"]


VALIDATION_CASES = [
    # (id, mutation, words the message must contain)
    ("missing key", lambda s: s.pop("rng"), ["missing key 'rng'"]),
    ("missing player key", lambda s: s["players"][1].pop("silver"), ["players[1]", "'silver'"]),
    ("unknown key", _set(["colour"], "blue"), ["unknown key 'colour'"]),
    ("unknown nested key", _set(["players", 0, "bonus"], 1), ["players[0]", "unknown key"]),
    ("unknown cube colour", _set(["market", 0, "cubes", "purple"], 1), ["'purple'"]),
    ("wrong type int", _set(["turn_count"], "12"), ["turn_count", "integer"]),
    ("wrong type float", _set(["step_count"], 3.0), ["step_count", "integer"]),
    ("wrong type bool", _set(["terminated"], 0), ["terminated", "true or false"]),
    ("wrong type list", _set(["players"], {}), ["players", "list"]),
    ("wrong type card", _set(["merchant_deck", 0], 7), ["merchant_deck[0]", "string"]),
    ("wrong game", _set(["game"], "chess"), ["game", "'chess'"]),
    ("wrong version", _set(["version"], 2), ["version", "2"]),
    ("bad rng", _set(["rng"], "12345"), ["rng", "hex"]),
    ("unknown merchant", lambda s: s["players"][0]["hand"].append("YY>Q"), ["'YY>Q'", "unknown"]),
    ("unknown point card", _set(["point_deck", 0], "QQQ"), ["point_deck[0]", "'QQQ'"]),
    ("starting card in deck", _set(["merchant_deck", 0], "+YY"), ["starting card"]),
    ("negative caravan", _set(["players", 1, "caravan", "red"], -1), ["caravan.red", "negative"]),
    ("negative market cubes", _negative_market_cubes, ["market[1].cubes.green", "negative"]),
    ("current player index", lambda s: s.update(current_player=s["num_players"]), ["current_pl"]),
    ("first player index", _set(["first_player"], -1), ["first_player", "player index"]),
    ("winner index", _set(["winner"], 9), ["winner", "player index"]),
    ("too few player entries", _drop_player, ["players", "num_players"]),
    ("num_players mismatch", _more_players, ["num_players"]),
    ("num_players range", _set(["num_players"], 6), ["num_players", "2..5"]),
    ("market card twice", _dup_market_card, ["duplicated", "market slot 1"]),
    ("market card missing", _drop_deck_card, ["market cards missing"]),
    ("owned card in deck", _owned_card_also_in_deck, ["duplicated", "merchant_deck"]),
    ("card listed twice", _listed_twice, ["listed twice"]),
    ("point card twice", _dup_point_card, ["point card", "duplicated", "point_row slot 1"]),
    ("point card missing", _drop_point_card, ["point cards missing"]),
    ("point value", _bad_points, ["point_row[0].points", "worth"]),
    ("gold does not add up", _shift_gold, ["gold coins do not add up"]),
    ("silver does not add up", _extra_silver_in_supply, ["silver coins do not add up"]),
    ("starting card missing", _drop_starting_card, ["starting card 'U2'"]),
    ("market order", _swap_market, ["market", "dealing order"]),
    ("empty slot with deck left", _empty_market_slot, ["market", "empty slot"]),
    ("caravan over 10 in main", _overfull_caravan, ["caravan", "main phase", "CSR-K1"]),
    ("other caravan over 10", _overfull_other_caravan, ["caravan", "CSR-K1"]),
    ("turn order", _wrong_turn_order, ["current_player", "turns"]),
    ("score before the end", _score_while_live, ["score", "null"]),
    ("flags vs phase", _truncated_but_live, ["phase", "truncated"]),
    ("end flag", _end_flag_without_cards, ["end_triggered"]),
    ("pending in main", _trade_pending_in_main, ["phase 'main'", "pending"]),
    ("phase without pending", _upgrade_without_pending, ["'upgrade'", "pending"]),
    ("phase vs pending kind", _upgrade_with_trade_pending, ["'upgrade'", "'trade'"]),
    ("upgrade card not played", _pending_card_not_played, ["pending.card", "played pile"]),
    ("pay for the free slot", _pay_for_free_slot, ["pending.slot", "2..6"]),
    ("pending extra key", _pending_extra_key, ["pending", "unknown key 'colour'"]),
    ("discard without excess", _discard_without_excess, ["pending", "more than 10"]),
]


@pytest.mark.parametrize(
    "mutate, words", [c[1:] for c in VALIDATION_CASES], ids=[c[0] for c in VALIDATION_CASES]
)
def test_from_dict_rejects_with_a_message_naming_the_problem(base, mutate, words):
    snap = copy.deepcopy(base)
    from_dict(copy.deepcopy(snap))  # the base itself is valid
    mutate(snap)
    with pytest.raises(SnapshotError) as info:
        from_dict(snap)
    for word in words:
        assert word in str(info.value), (word, str(info.value))


def test_from_dict_rejects_a_non_dict():
    with pytest.raises(SnapshotError, match="expected an object"):
        from_dict(["century"])


def test_finished_game_checks_score_and_winner(positions):
    finished = next(p for p in positions if p[0]["terminated"] == 1)
    snap = to_dict(finished, 0)
    bad_score = copy.deepcopy(snap)
    bad_score["score"][0] += 1
    with pytest.raises(SnapshotError, match="CSR-E2"):
        from_dict(bad_score)
    bad_winner = copy.deepcopy(snap)
    bad_winner["winner"] = (snap["winner"] + 1) % snap["num_players"]
    with pytest.raises(SnapshotError, match="winner"):
        from_dict(bad_winner)
    no_score = copy.deepcopy(snap)
    no_score["score"] = None
    with pytest.raises(SnapshotError, match="final score"):
        from_dict(no_score)


# ---- action_to_string ------------------------------------------------------------------------


def test_every_legal_action_has_a_distinct_name(positions, truncated):
    checked = 0
    for states in positions + truncated:
        legal = _legal(states)
        names = [action_to_string(states, 0, int(a)) for a in legal]
        assert all(isinstance(text, str) and text for text in names)
        assert len(set(names)) == len(names), names
        checked += len(names)
    assert checked > 500


def test_action_names_describe_the_position():
    states = _new_game(4, 9)
    s = states[0]
    for t, name in enumerate(MERCHANT_NAMES):
        assert action_to_string(states, 0, R.A_PLAY + t) == f"play {name}"
    for k in range(R.MARKET_SIZE):  # CSR-A1: slots counted from 1 at the left
        text = action_to_string(states, 0, R.A_ACQUIRE + k)
        assert text == f"acquire slot {k + 1} ({MERCHANT_NAMES[s['market'][k]]})"
    for j in range(R.POINT_ROW_SIZE):
        card = int(s["point_row"][j])
        text = action_to_string(states, 0, R.A_CLAIM + j)
        assert text == f"claim slot {j + 1} ({POINT_NAMES[card]}, {POINT_VALUE[card]} pts)"
    assert action_to_string(states, 0, R.A_REST) == "rest"
    assert action_to_string(states, 0, R.A_STOP) == "stop upgrading"
    for c, colour in enumerate(COLOURS[:3]):
        assert action_to_string(states, 0, R.A_UPGRADE + c) == f"upgrade {colour}"
    for c, colour in enumerate(COLOURS):
        assert action_to_string(states, 0, R.A_RETURN + c) == f"return {colour}"
    R.apply_action(states, 0, R.A_ACQUIRE + 3)  # three cubes owed; the first goes on slot 1
    assert action_to_string(states, 0, R.A_PLACE + R.RED) == "place red on slot 1"
    R.apply_action(states, 0, R.A_PLACE + R.YELLOW)
    assert action_to_string(states, 0, R.A_PLACE + R.YELLOW) == "place yellow on slot 2"
    assert action_to_string(states, 0, np.int64(R.A_TRADE + 2)).startswith("trade x3")


@pytest.mark.parametrize("action", [-1, R.NUM_ACTIONS, 10**6])
def test_action_to_string_rejects_out_of_range(action):
    states = _new_game(2, 1)
    with pytest.raises(ActionError, match="out of range"):
        action_to_string(states, 0, action)


@pytest.mark.parametrize("action", [1.0, "3", None, True, [3]])
def test_action_to_string_rejects_non_integers(action):
    states = _new_game(2, 1)
    with pytest.raises(ActionError, match="integer"):
        action_to_string(states, 0, action)


# ---- render ----------------------------------------------------------------------------------


def test_render_shows_every_caravan_and_hand(positions):
    for states in positions[::5]:
        snap = to_dict(states, 0)
        text = render(states, 0)
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
    states = _new_game(3, 2)
    R.apply_action(states, 0, R.A_PLAY + MERCHANT_NAMES.index("U2"))
    s = states[0]
    lines = render(states, 0).splitlines()
    current = next(line for line in lines if line.startswith(">"))
    assert f"player {int(s['current_player'])}" in current
    first = next(line for line in lines if "(first)" in line)
    assert f"player {int(s['first_player'])}" in first
    assert any(line.startswith("Pending:") and "U2" in line for line in lines)
    assert "gold (6 left)" in render(states, 0)  # CSR-S2/C3: gold above point slot 1
    assert "\x1b[" in render(states, 0, color=True)
