"""Everdell snapshots: exact JSON round trips, validation errors, action names and the board."""

import copy
import json
import re

import numpy as np
import pytest

from meeple_gym.core.errors import ActionError, SnapshotError
from meeple_gym.core.rng import game_key
from meeple_gym.everdell import data as D
from meeple_gym.everdell import rules as R
from meeple_gym.everdell.snapshot import (
    DECISION_KINDS,
    KIND_ACTIONS,
    action_to_string,
    from_dict,
    render,
    to_dict,
)


def _new_game(seed, num_players, options=0):
    states = np.zeros(1, R.STATE_DTYPE)
    R.init_game(states, 0, num_players, game_key(seed), np.int64(options))
    return states


def _legal(states):
    mask = np.zeros(R.NUM_ACTIONS, np.int8)
    R.legal_mask_into(states, 0, mask)
    return np.flatnonzero(mask)


def _over(states):
    return bool(states[0]["terminated"] or states[0]["truncated"])


def _step_random(states, rng):
    """A random legal action; on a turn, favour playing cards so that cities grow."""
    legal = _legal(states)
    if states[0]["pend_kind"] == R.PK_TURN and legal.size > 1:
        plays = legal[(legal >= R.A_PLAY_HAND) & (legal < R.A_PREPARE)]
        if plays.size and rng.random() < 0.5:
            legal = plays
    R.apply_action(states, 0, int(rng.choice(legal)))


def _play_and_sample(games_per_count, sample_rate, seed):
    """Random games of 1-4 players (solo with every Rugwort year); copies of the opening, the
    end, sampled positions and, more often, rare decision kinds and deep task stacks."""
    rng = np.random.default_rng(seed)
    positions = []
    seen = np.zeros(R.N_PK, np.int64)
    for num_players in (1, 2, 3, 4):
        for k in range(games_per_count):
            options = k % 3 + 1 if num_players == 1 else 0
            states = _new_game(seed * 1000 + num_players * 100 + k, num_players, options)
            positions.append(states.copy())
            while not _over(states):
                _step_random(states, rng)
                s = states[0]
                rare = seen[s["pend_kind"]] < 12 or s["depth"] >= 3 or s["revealed_n"] > 0
                if rng.random() < (0.5 if rare else sample_rate):
                    positions.append(states.copy())
                    seen[s["pend_kind"]] += 1
            positions.append(states.copy())
    return positions


@pytest.fixture(scope="module")
def positions():
    return _play_and_sample(games_per_count=15, sample_rate=0.04, seed=5)


@pytest.fixture(scope="module")
def truncated(positions):
    """Live positions pushed to one step below the step cap, then one more step."""
    rng = np.random.default_rng(3)
    out = []
    for states in positions[::5]:
        if _over(states):
            continue
        cut = states.copy()
        cut[0]["step_count"] = R.STEP_CAP - 1
        _step_random(cut, rng)
        assert _over(cut)
        out.append(cut)
    return out


def _json_round_trip(states, g=0):
    snap = to_dict(states, g)
    restored = from_dict(json.loads(json.dumps(snap)))
    return snap, restored


def _first(positions, predicate):
    return next(states for states in positions if predicate(states[0]))


# ---- round trips -------------------------------------------------------------------------------


def test_json_round_trip_is_byte_exact(positions):
    kinds, counts, features = set(), set(), set()
    for states in positions:
        snap, restored = _json_round_trip(states)
        assert restored.dtype == R.STATE_DTYPE and restored.shape == (1,)
        assert restored.tobytes() == states.tobytes()
        assert to_dict(restored, 0) == snap
        assert json.loads(json.dumps(snap)) == snap  # plain JSON types only
        counts.add(snap["num_players"])
        if snap["pending"] is not None:
            kinds.add(snap["pending"]["kind"])
        frames = snap["stack"]["frames"]
        features.update(
            name
            for name, seen in [
                ("nested tasks", len(frames) >= 3),
                ("revealed", bool(snap["revealed"])),
                ("leftovers", bool(snap["leftovers"]["frames"])),
                ("tucked", snap["tucked"] > 0),
                ("prisoner", _any_slot(snap, lambda slot: slot["jail"][0] is not None)),
                ("occupied", _any_slot(snap, lambda slot: slot["occupied"])),
                ("card being paid for", any(f["task"] == "play" for f in frames)),
                ("finished", snap["terminated"]),
            ]
            if seen
        )
    # The sample must reach every player count, most decision kinds and the stack features.
    assert counts == {1, 2, 3, 4}
    assert len(kinds) >= 24, sorted(set(DECISION_KINDS[1:]) - kinds)
    assert features == {
        "nested tasks",
        "revealed",
        "leftovers",
        "tucked",
        "prisoner",
        "occupied",
        "card being paid for",
        "finished",
    }


def _any_slot(snap, test):
    return any(test(slot) for player in snap["players"] for slot in player["city"])


def test_truncated_games_round_trip(truncated):
    cut_off = 0
    for states in truncated:
        snap, restored = _json_round_trip(states)
        assert restored.tobytes() == states.tobytes()
        if snap["truncated"]:
            assert snap["winner"] is None and snap["pending"] is None
            assert snap["step_count"] == R.STEP_CAP
            cut_off += 1
    assert cut_off > 10


def test_restored_game_continues_identically(positions):
    rng = np.random.default_rng(11)
    live = [p for p in positions if not _over(p)][::20]
    assert len(live) >= 20
    for states in live:
        original = states.copy()
        restored = from_dict(to_dict(original, 0))
        for _ in range(80):
            if _over(original):
                break
            legal = _legal(original)
            assert np.array_equal(legal, _legal(restored))
            action = int(rng.choice(legal))
            R.apply_action(original, 0, action)
            R.apply_action(restored, 0, action)
            assert restored.tobytes() == original.tobytes()


def test_any_game_of_a_batch_round_trips(positions):
    batch = np.concatenate(positions[100:104])
    for g in range(4):
        restored = from_dict(to_dict(batch, g))
        assert restored.tobytes() == batch[g : g + 1].tobytes()


def test_from_dict_leaves_its_input_alone(positions):
    snap = to_dict(_first(positions, lambda s: s["depth"] >= 2), 0)
    before = copy.deepcopy(snap)
    from_dict(snap)
    assert snap == before


def test_a_reused_record_round_trips():
    # A batch slot is reused: init_game on an old record must give the fresh one.
    rng = np.random.default_rng(2)
    states = _new_game(21, 3)
    while not _over(states):
        _step_random(states, rng)
    R.init_game(states, 0, 2, game_key(22), np.int64(0))
    assert states.tobytes() == _new_game(22, 2).tobytes()
    _, restored = _json_round_trip(states)
    assert restored.tobytes() == states.tobytes()


# ---- what a snapshot says ----------------------------------------------------------------------


@pytest.mark.parametrize("num_players", [1, 2, 3, 4])
def test_opening_snapshot_reads_like_the_setup_rules(num_players):
    snap = to_dict(_new_game(42, num_players, 2), 0)
    assert snap["game"] == "everdell" and snap["version"] == 2
    assert snap["num_players"] == num_players
    assert snap["options"] == {"rug_year": 2, "fool_bonuses": False, "pass_anytime": False}
    assert snap["turn_player"] == snap["first_player"]
    assert snap["pending"]["player"] == snap["first_player"]
    # EVD-E1: no pass in winter; the Haven (EVD-W6) is always open to a free worker
    legal = snap["pending"]["legal"]
    assert snap["pending"]["kind"] == "turn" and R.A_PASS not in legal
    assert R.A_PLACE_HAVEN in legal
    first = snap["first_player"]
    for p, player in enumerate(snap["players"]):
        # EVD-S6: 5, 6, 7, 8 cards in turn order from the first player
        assert player["hand_size"] == 5 + (p - first) % num_players
        assert sum(player["hand"].values()) == player["hand_size"]
        # EVD-S5: 2 workers in hand
        assert player["workers"] == [{"where": "free", "permanent": False}] * 2
        assert player["season"] == "winter" and player["city"] == []
        assert player["resources"] == {"twig": 0, "resin": 0, "pebble": 0, "berry": 0}
    assert None not in snap["meadow"] and len(snap["meadow"]) == 8  # EVD-S4
    hands = sum(player["hand_size"] for player in snap["players"])
    assert len(snap["deck"]) == 128 - 8 - hands and snap["discard"] == []
    # EVD-S2: 3 forest cards with 1-2 players, 4 with 3-4
    assert len(snap["forest"]) == (3 if num_players <= 2 else 4)
    assert all(key.startswith("forest_") for key in snap["forest"])
    # EVD-S3: the 4 basic events and 4 dealt special events, none achieved
    assert [e["event"] for e in snap["events"]["basic"]] == [
        "cartographers_expedition",
        "city_monument",
        "grand_tour",
        "harvest_festival",
    ]
    specials = [e["event"] for e in snap["events"]["special"]]
    assert len(set(specials)) == 4
    assert all(D.EVENT_IS_SPECIAL[D.EVENT_ID[key]] for key in specials)
    events = snap["events"]["basic"] + snap["events"]["special"]
    assert all(e["owner"] is None and e["store"] == 0 for e in events)
    if num_players == 1:
        # Solo: Rugwort starts on the first forest card and the 3-twig space.
        assert snap["rugwort"]["forest_position"] == 0
        assert snap["rugwort"]["basic"] == "basic_3_twig"
        assert snap["rugwort"]["city"] == {} and snap["rugwort"]["meadow_blocked"] == []
    else:
        assert snap["rugwort"] is None


def test_snapshot_names_cities_workers_and_tasks_by_key(positions):
    states = _first(
        positions,
        lambda s: s["depth"] >= 1 and (s["city"] >= 0).sum() >= 3 and (s["wloc"] >= 0).any(),
    )
    s = states[0]
    snap = to_dict(states, 0)
    for p, player in enumerate(snap["players"]):
        slots = {slot["slot"]: slot["card"] for slot in player["city"]}
        assert slots == {
            k: D.CARD_KEYS[int(s["city"][p, k])]
            for k in range(R.CITY_SLOTS)
            if s["city"][p, k] >= 0
        }
        assert len(player["workers"]) == int(s["workers"][p])
        for w, worker in enumerate(player["workers"]):
            code = int(s["wloc"][p, w])
            if worker["where"] == "location":
                assert D.LOCATION_ID[worker["location"]] == code
            elif worker["where"] == "city":
                assert code == R.W_CITY + worker["owner"] * 32 + worker["slot"]
                card = int(s["city"][worker["owner"], worker["slot"]])
                assert worker["card"] == D.CARD_KEYS[card]
            elif worker["where"] == "free":
                assert code == R.W_FREE
    top = snap["stack"]["frames"][-1]
    assert top["task"] in (
        "play",
        "card",
        "location",
        "event",
        "prepare",
        "produce_all",
        "discard",
        "gain",
        "give_resources",
        "ranger",
    )
    assert top["actor"] == snap["pending"]["player"]
    # deck: top first, so the last entry is the bottom card of the record
    assert snap["deck"][0] == D.CARD_KEYS[int(s["deck"][int(s["deck_n"]) - 1])]


def test_every_card_is_in_one_place(positions):
    # EVD-S4: 128 cards; a card being paid for sits only in its play task.
    for states in positions[::7]:
        snap = to_dict(states, 0)
        total = len(snap["deck"]) + len(snap["discard"]) + len(snap["revealed"])
        total += sum(card is not None for card in snap["meadow"]) + snap["tucked"]
        for player in snap["players"]:
            total += player["hand_size"]
            for slot in player["city"]:
                total += 1 + sum(card is not None for card in slot["jail"])
        if snap["rugwort"]:
            total += sum(snap["rugwort"]["city"].values())
        for frame in snap["stack"]["frames"]:
            if frame["task"] == "play" and frame["stage"] < R.PS_TARGET:
                total += 1
            elif frame["task"] == "play" and frame["stage"] == R.PS_TARGET:
                total += not (snap["num_players"] == 1 and frame["card"] == "fool")
        assert total == 128


def test_to_dict_writes_every_field(positions):
    # Each value of the record shows in the snapshot: change any one and the snapshot changes
    # too (or to_dict refuses the record), so from_dict can rebuild every field.
    two = _first(positions, lambda s: s["num_players"] == 2 and s["depth"] >= 2)
    solo = _first(positions, lambda s: s["num_players"] == 1 and s["depth"] >= 1)
    described = 0
    for states in (two, solo):
        base = to_dict(states, 0)
        for name in R.STATE_DTYPE.names:
            size = states[0][name].size
            for j in range(size):
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


def test_to_dict_refuses_a_record_it_cannot_describe(positions):
    states = positions[0].copy()
    states[0]["deck"][-1] = 3  # a card past the deck's count
    with pytest.raises(SnapshotError, match="cannot snapshot: deck"):
        to_dict(states, 0)
    states = positions[0].copy()
    states[0]["num_players"] = 0  # a record init_game never filled
    with pytest.raises(SnapshotError, match="cannot snapshot: num_players"):
        to_dict(states, 0)


# ---- validation ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bases(positions):
    def turn_with_city(s):
        # 3 players, so that claiming 4 changes nothing before the players list is read
        live = not (s["terminated"] or s["truncated"])
        return live and s["num_players"] == 3 and s["depth"] == 0 and (s["city"][0] >= 0).sum() >= 3

    return {
        "turn": to_dict(_first(positions, turn_with_city), 0),
        "stack": to_dict(_first(positions, lambda s: s["depth"] >= 2 and s["num_players"] > 1), 0),
        "solo": to_dict(_first(positions, lambda s: s["num_players"] == 1 and s["step_count"]), 0),
        "over": to_dict(_first(positions, lambda s: s["terminated"] and s["num_players"] > 2), 0),
    }


def _set(*path_and_value):
    *path, value = path_and_value

    def mutate(snap):
        target = snap
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return mutate


def _delete(*path):
    def mutate(snap):
        target = snap
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]

    return mutate


def _deck_to_hand(snap, count, player=0):
    """Move ``count`` deck cards into a player's hand (the 128 stay accounted for)."""
    hand = snap["players"][player]["hand"]
    for _ in range(count):
        card = snap["deck"].pop()
        hand[card] = hand.get(card, 0) + 1
        snap["players"][player]["hand_size"] += 1


def _hand_of_nine(snap):
    _deck_to_hand(snap, 9 - snap["players"][0]["hand_size"])


def _lost_deck_card(snap):
    snap["deck"].pop()


def _extra_copies(snap):
    # Still 128 cards, but more copies of one type than the deck has (EVD-S4).
    snap["deck"] = ["farm"] * len(snap["deck"])


def _seventh_worker(snap):
    snap["players"][0]["workers"] += [{"where": "free", "permanent": False}] * 5


def _third_worker_in_winter(snap):
    player = snap["players"][0]
    player["season"] = "winter"
    player["workers"] = player["workers"][:2] + [{"where": "free", "permanent": False}]


def _unique_twice(snap):
    # EVD-P2: one copy of a Unique card per city.
    city = snap["players"][0]["city"]
    unique = next(key for key in D.CARD_KEYS if D.CARD_UNIQUE[D.CARD_ID[key]])
    free = [k for k in range(R.CITY_SLOTS) if k not in {slot["slot"] for slot in city}]
    for k in free[:2]:
        city.append(_slot(k, unique))
    city.sort(key=lambda slot: slot["slot"])


def _slot(k, card):
    return {
        "slot": k,
        "card": card,
        "occupied": False,
        "tokens": 0,
        "store": {"twig": 0, "resin": 0, "pebble": 0, "berry": 0},
        "jail": [None, None],
    }


def _spaces(city):
    """EVD-P4: a Wanderer takes no space; a Husband and a Wife share one."""
    cards = [slot["card"] for slot in city]
    return len(cards) - cards.count("wanderer") - min(cards.count("husband"), cards.count("wife"))


def _sixteen_spaces(snap):
    # EVD-P4: at most 15 cards; the extra ones come from the deck so the 128 still add up.
    city = snap["players"][0]["city"]
    for card in list(snap["deck"]):
        if _spaces(city) == 16:
            break
        if D.CARD_UNIQUE[D.CARD_ID[card]] or card in ("wanderer", "husband", "wife"):
            continue
        k = min(set(range(R.CITY_SLOTS)) - {slot["slot"] for slot in city})
        city.append(_slot(k, card))
        snap["deck"].remove(card)
    city.sort(key=lambda slot: slot["slot"])
    assert _spaces(city) == 16


def _slots_out_of_order(snap):
    snap["players"][0]["city"].reverse()


def _jail_on_a_farm(snap):
    slot = snap["players"][0]["city"][0]
    slot["jail"] = [snap["deck"].pop(), None]


def _tokens_on(card):
    def mutate(snap):
        slot = snap["players"][0]["city"][0]
        slot["card"] = card
        slot["tokens"] = 2

    return mutate


def _clock_tower_with_4(snap):
    _tokens_on("clock_tower")(snap)
    snap["players"][0]["city"][0]["tokens"] = 4


def _hand_size_off_by_one(snap):
    snap["players"][0]["hand_size"] -= 1


def _unknown_worker_place(snap):
    snap["players"][0]["workers"][0] = {"where": "moon", "permanent": False}


def _worker_on_undealt_forest(snap):
    undealt = next(
        D.LOCATION_KEYS[loc]
        for loc in D.FOREST_LOCATIONS
        if D.LOCATION_KEYS[loc] not in snap["forest"]
    )
    snap["players"][0]["workers"][0] = {
        "where": "location",
        "location": undealt,
        "permanent": False,
    }


def _worker_on_wrong_card(snap):
    slot = snap["players"][0]["city"][0]
    wrong = "farm" if slot["card"] != "farm" else "mine"
    snap["players"][0]["workers"][0] = {
        "where": "city",
        "owner": 0,
        "slot": slot["slot"],
        "card": wrong,
        "permanent": False,
    }


def _event_worker_without_event(snap):
    event = snap["events"]["basic"][0]
    event["owner"] = None
    event["store"] = 0
    snap["players"][0]["workers"][0] = {
        "where": "event",
        "event": event["event"],
        "permanent": False,
    }


def _swap_basic_events(snap):
    basic = snap["events"]["basic"]
    basic[0], basic[1] = basic[1], basic[0]


def _special_twice(snap):
    special = snap["events"]["special"]
    special[1] = dict(special[0])


def _unknown_task(snap):
    snap["stack"]["frames"][0]["task"] = "dance"


def _decider_not_actor(snap):
    n = snap["num_players"]
    snap["pending"]["player"] = (snap["stack"]["frames"][-1]["actor"] + 1) % n


def _turn_with_a_stack(snap):
    snap["pending"] = {"player": snap["turn_player"], "kind": "turn", "legal": [R.A_PASS]}


def _pay_choice_on_turn(snap):
    snap["pending"]["legal"] = sorted(snap["pending"]["legal"] + [R.A_PAY])


def _rugwort_in_a_group_game(snap):
    snap["rugwort"] = {
        "city": {},
        "tokens": 0,
        "score": 0,
        "forest_position": None,
        "basic": None,
        "journey": None,
        "meadow_blocked": [],
    }


def _wrong_winner(snap):
    scores = [player["score"] for player in snap["players"]]
    snap["winner"] = scores.index(min(scores))


def _bad_leftover_row(snap):
    snap["leftovers"]["frames"] = [[1, 0, 0]]


VALIDATION_CASES = {
    "wrong game": ("turn", _set("game", "radlands"), ["game", "'everdell'"]),
    "wrong version": ("turn", _set("version", 1), ["version", "unsupported"]),
    "missing key": ("turn", _delete("tucked"), ["snapshot", "missing key 'tucked'"]),
    "extra key": ("turn", _set("extra", 1), ["snapshot", "unknown key 'extra'"]),
    "missing player key": (
        "turn",
        _delete("players", 0, "passed"),
        ["players[0]", "missing key 'passed'"],
    ),
    "five players": ("turn", _set("num_players", 5), ["num_players", "out of range 1..4"]),
    "player list length": ("turn", _set("num_players", 4), ["players", "num_players is 4"]),
    "bad rug year": ("turn", _set("options", "rug_year", 4), ["options.rug_year", "1..3"]),
    "bad rng": ("turn", _set("rng", "12"), ["rng", "hex digits"]),
    "string count": ("turn", _set("turn_count", "3"), ["turn_count", "expected an integer"]),
    "bool as int": ("turn", _set("tucked", True), ["tucked", "expected an integer"]),
    "int as bool": ("turn", _set("terminated", 0), ["terminated", "expected true or false"]),
    "unknown hand card": (
        "turn",
        _set("players", 0, "hand", "dragon", 1),
        ["players[0].hand key", "unknown card 'dragon'"],
    ),
    "unknown deck card": ("turn", _set("deck", 0, "dragon"), ["deck[0]", "unknown card"]),
    "unknown meadow card": ("turn", _set("meadow", 3, "Farm"), ["meadow[3]", "unknown card"]),
    "short meadow": ("turn", _set("meadow", [None] * 7), ["meadow", "expected 8 entries"]),
    "unknown forest card": (
        "turn",
        _set("forest", 0, "forest_9_berry"),
        ["forest[0]", "unknown location 'forest_9_berry'"],
    ),
    "basic space in the forest": (
        "turn",
        _set("forest", 0, "basic_3_twig"),
        ["forest[0]", "not a forest location"],
    ),
    "unknown event": (
        "turn",
        _set("events", "special", 0, "event", "grand_party"),
        ["events.special[0].event", "unknown event 'grand_party'"],
    ),
    "basic events out of order": ("turn", _swap_basic_events, ["events.basic[0].event"]),
    "special dealt twice": ("turn", _special_twice, ["events.special[1].event", "dealt twice"]),
    "points on an unclaimed event": (
        "turn",
        _set("events", "basic", 0, "store", 3),
        ["events.basic[0].store", "nobody achieved"],
    ),
    "unknown season": (
        "turn",
        _set("players", 0, "season", "monsoon"),
        ["players[0].season", "unknown season 'monsoon'"],
    ),
    "negative resources": (
        "turn",
        _set("players", 0, "resources", "twig", -1),
        ["players[0].resources.twig", "out of range"],
    ),
    "missing resource": (
        "turn",
        _delete("players", 0, "resources", "berry"),
        ["players[0].resources", "missing key 'berry'"],
    ),
    "hand over 8": ("turn", _hand_of_nine, ["players[0].hand_size", "out of range 0..8"]),
    "hand size mismatch": (
        "turn",
        _hand_size_off_by_one,
        ["players[0].hand_size", "the hand holds"],
    ),
    "card lost": ("turn", _lost_deck_card, ["cards: 127 cards", "expected 128"]),
    "extra copies": ("turn", _extra_copies, ["cards:", "copies of 'farm'"]),
    "seven workers": ("turn", _seventh_worker, ["players[0].workers", "at most 6"]),
    "workers for the season": (
        "turn",
        _third_worker_in_winter,
        ["players[0].workers", "expected 2"],
    ),
    "unknown worker place": ("turn", _unknown_worker_place, ["workers[0].where", "'moon'"]),
    "worker on an undealt forest card": (
        "turn",
        _worker_on_undealt_forest,
        ["workers[0].location", "was not dealt"],
    ),
    "worker on the wrong card": (
        "turn",
        _worker_on_wrong_card,
        ["workers[0].card", "does not hold"],
    ),
    "worker on an unachieved event": (
        "turn",
        _event_worker_without_event,
        ["workers[0].event", "not achieved"],
    ),
    "unique card twice": ("turn", _unique_twice, ["players[0].city", "Unique"]),
    "city over 15": ("turn", _sixteen_spaces, ["players[0].city", "16 spaces"]),
    "city slots out of order": ("turn", _slots_out_of_order, ["players[0].city", "increasing"]),
    "slot out of range": (
        "turn",
        _set("players", 0, "city", 0, "slot", 22),
        ["players[0].city[0].slot", "out of range 0..21"],
    ),
    "prisoner outside a Dungeon": ("turn", _jail_on_a_farm, ["players[0].city[0].jail"]),
    "tokens on a Farm": ("turn", _tokens_on("farm"), ["players[0].city[0].tokens", "'farm'"]),
    "Clock Tower over 3": (
        "turn",
        _clock_tower_with_4,
        ["players[0].city[0].tokens", "3 tokens"],
    ),
    "Rugwort in a group game": ("turn", _rugwort_in_a_group_game, ["rugwort", "solo"]),
    "pending missing mid-game": ("turn", _set("pending", None), ["pending", "needs a pending"]),
    "unknown decision kind": (
        "turn",
        _set("pending", "kind", "bribe"),
        ["pending.kind", "unknown decision kind 'bribe'"],
    ),
    "action outside the decision": (
        "turn",
        _pay_choice_on_turn,
        ["pending.legal", f"action {R.A_PAY} is not a turn choice"],
    ),
    "action out of range": (
        "turn",
        _set("pending", "legal", [R.NUM_ACTIONS]),
        ["pending.legal[0]", "out of range"],
    ),
    "winner mid-game": ("turn", _set("winner", 0), ["winner", "only a finished game"]),
    "both ended": ("over", _set("truncated", True), ["truncated", "both"]),
    "wrong winner": ("over", _wrong_winner, ["winner", "EVD-E3"]),
    "unknown task": ("stack", _unknown_task, ["stack.frames[0].task", "unknown task 'dance'"]),
    "decider is not the actor": ("stack", _decider_not_actor, ["pending.player", "actor"]),
    "turn over a stack": ("stack", _turn_with_a_stack, ["stack.frames", "empty task stack"]),
    "bad leftover row": ("stack", _bad_leftover_row, ["leftovers.frames[0]", "13 entries"]),
    "solo without Rugwort": ("solo", _set("rugwort", None), ["rugwort", "expected an object"]),
    "Rugwort on a forest card": (
        "solo",
        _set("rugwort", "basic", "forest_3_berry"),
        ["rugwort.basic", "not a basic location"],
    ),
    "Rugwort's Meadow twice": (
        "solo",
        _set("rugwort", "meadow_blocked", [1, 1]),
        ["rugwort.meadow_blocked[1]", "twice"],
    ),
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
        from_dict(["everdell"])


# ---- action_to_string ----------------------------------------------------------------------------

# What the legal actions of each decision kind say (the verbs follow rules.py's asks).
KIND_PATTERNS = {
    "turn": r"place worker on |claim |play .* from (hand|the Meadow)|prepare for |pass$",
    "pay": r"pay (the cost|with (occupied token|Ever Tree token|Innkeeper|Crane|Dungeon|Judge))",
    "reduce": r"take off 1 (twig|resin|pebble|berry)$|done$",
    "judge_from": r"Judge: pay 1 \w+ less$",
    "judge_to": r"Judge: pay 1 \w+ instead$",
    "jail": r"put .* \(slot \d+\) in the Dungeon$",
    "fool_target": r"play the Fool into player \d's city \(seat \+\d\)$",
    "ruins": r"replace .* \(slot \d+\) with Ruins$",
    "gain": r"gain 1 (twig|resin|pebble|berry)$",
    "discard": r"(discard|tuck) .*|done$",
    "give_to": r"give to player \d \(seat \+\d\)$",
    "number": r".*\d",
    "produce_order": r"fire .* \(slot \d+\)$",
    "copy_green": r"copy .* in (own city|player \d's city|Rugwort's city)",
    "revealed": r"(keep|play) .* \(revealed \d\)|done$",
    "meadow": r"(take|discard|play) .* \(Meadow \d\)|done$",
    "location": r"(copy|Clock Tower: activate) |done$",
    "worker": r"(move|take back) worker \d|done$",
    "place": r"move the worker to |claim ",
    "remove": r"(remove|discard|tuck) .* \(slot \d+\)|done$",
    "give_resource": r"(give|put) 1 (twig|resin|pebble|berry)|done$",
    "pile": r"reveal from the (deck|discard pile)$",
    "rug_remove": r"remove .* from Rugwort's city$",
    "give_card": r"give \w",
    "peddler_pay": r"Peddler: pay 1 \w+$|done$",
    "storehouse": r"put \d (twig|resin|pebble|berry) on the Storehouse$",
    "hand_or_meadow": r"play .* (from hand|\(Meadow \d\)) for free$",
    "courthouse": r"gain 1 (twig|resin|pebble)$",
}
assert set(KIND_PATTERNS) == set(DECISION_KINDS[1:])


def test_every_legal_action_has_a_distinct_name(positions, truncated):
    checked = 0
    kinds = set()
    for states in positions + truncated:
        legal = _legal(states)
        names = [action_to_string(states, 0, int(a)) for a in legal]
        assert all(isinstance(text, str) and text for text in names)
        assert len(set(names)) == len(names), names
        kind = DECISION_KINDS[int(states[0]["pend_kind"])]
        for text in names:
            assert re.match(KIND_PATTERNS[kind], text), (kind, text)
        kinds.add(kind)
        checked += len(names)
    assert checked > 3000 and len(kinds) >= 24


def test_every_action_has_a_name_in_any_position(positions):
    for states in positions[::50]:
        names = [action_to_string(states, 0, a) for a in range(R.NUM_ACTIONS)]
        assert all(isinstance(text, str) and text for text in names)


def test_turn_action_names():
    states = _new_game(3, 2)
    s = states[0]
    assert action_to_string(states, 0, R.A_PLACE_BASIC) == "place worker on 3 Twigs"
    assert action_to_string(states, 0, R.A_PLACE_HAVEN) == "place worker on Haven"
    assert action_to_string(states, 0, R.A_PLACE_JOURNEY + 1) == "place worker on Journey 4"
    assert action_to_string(states, 0, R.A_PLACE_EVENT + 2) == "claim Grand Tour"
    special = int(s["specials"][0])
    assert action_to_string(states, 0, R.A_PLACE_EVENT + 4) == f"claim {D.EVENT_NAMES[special]}"
    forest = int(s["forest"][1])
    assert action_to_string(states, 0, R.A_PLACE_FOREST + 1) == (
        f"place worker on {D.LOCATION_NAMES[forest]} (forest 1)"
    )
    assert action_to_string(states, 0, R.A_PLAY_HAND + D.CARD_ID["farm"]) == "play Farm from hand"
    meadow = D.CARD_NAMES[int(s["meadow"][5])]
    assert action_to_string(states, 0, R.A_PLAY_MEADOW + 5) == (
        f"play {meadow} from the Meadow (position 5)"
    )
    assert action_to_string(states, 0, R.A_PREPARE) == "prepare for spring"
    assert action_to_string(states, 0, R.A_PASS) == "pass"
    assert action_to_string(states, 0, R.A_DONE) == "done"
    assert action_to_string(states, 0, R.A_PAY + R.PAY_TOKEN) == "pay with occupied token"


def test_sub_decision_names_read_the_position():
    # Hand-set decisions on a fresh 3-player game: the kernel asks these with the same fields.
    states = _new_game(8, 3)
    s = states[0]
    p = int(s["current_player"])
    farm, wife, mine = D.CARD_ID["farm"], D.CARD_ID["wife"], D.CARD_ID["mine"]
    s["city"][p, 3] = farm
    other = (p + 2) % 3
    s["city"][other, 0] = mine
    s["pend_kind"] = R.PK_PRODUCE_ORDER
    assert action_to_string(states, 0, R.A_CITY + 3) == "fire Farm (slot 3)"
    s["pend_kind"] = R.PK_COPY_GREEN
    assert action_to_string(states, 0, R.A_CITY + 2 * R.CITY_SLOTS) == (
        f"copy Mine (slot 0) in player {other}'s city"
    )
    s["pend_kind"] = R.PK_REDUCE
    assert action_to_string(states, 0, R.A_RESOURCE + R.RESIN) == "take off 1 resin"
    s["pend_kind"] = R.PK_DISCARD
    assert action_to_string(states, 0, R.A_CARD + wife) == "discard Wife"
    s["pend_kind"] = R.PK_GIVE_TO
    assert action_to_string(states, 0, R.A_PLAYER + 1) == f"give to player {(p + 1) % 3} (seat +1)"
    s["pend_kind"] = R.PK_PILE
    assert action_to_string(states, 0, R.A_NUMBER + 1) == "reveal from the discard pile"


@pytest.mark.parametrize("action", [-1, R.NUM_ACTIONS, 10**6])
def test_action_to_string_rejects_out_of_range(action):
    with pytest.raises(ActionError, match="out of range"):
        action_to_string(_new_game(1, 2), 0, action)


@pytest.mark.parametrize("action", [1.0, "3", None, True])
def test_action_to_string_rejects_non_integers(action):
    with pytest.raises(ActionError, match="must be an integer"):
        action_to_string(_new_game(1, 2), 0, action)


# ---- render --------------------------------------------------------------------------------------


def test_render_mentions_every_player_and_the_decision(positions):
    seen = set()
    for states in positions[::15]:
        text = render(states, 0)
        s = states[0]
        n = int(s["num_players"])
        for p in range(n):
            assert f"player {p} (" in text
        assert ("Rugwort" in text) == (n == 1)
        if _over(states):
            assert "Game over" in text or "truncated" in text
        else:
            kind = DECISION_KINDS[int(s["pend_kind"])]
            assert f"To decide: player {int(s['current_player'])} ({kind}" in text
        for loc in s["forest"]:
            if loc >= 0:
                assert D.LOCATION_NAMES[loc] in text
        seen.add(n)
    assert seen == {1, 2, 3, 4}


# ---- loaded positions are ones the engine could stop at (issue 10.1b) -----------------------


def _by_kind(positions):
    """One live snapshot per decision kind met in the sampled games."""
    out = {}
    for states in positions:
        s = states[0]
        if _over(states) or int(s["pend_kind"]) in out:
            continue
        out[int(s["pend_kind"])] = to_dict(states, 0)
    return out


def test_every_decision_kind_refuses_an_extra_or_a_missing_legal_action(positions):
    """The legal list is recomputed by the rules, never taken from the snapshot: an action of
    the right group that the rules do not allow, or a dropped legal action, is refused."""
    kinds = _by_kind(positions)
    assert len(kinds) >= 20
    for kind, snap in kinds.items():
        legal = snap["pending"]["legal"]
        groups = KIND_ACTIONS[kind]
        spare = [a for lo, hi in groups for a in range(lo, hi) if a not in legal]
        if spare:
            bad = copy.deepcopy(snap)
            bad["pending"]["legal"] = sorted(legal + [spare[0]])
            with pytest.raises(SnapshotError, match=r"pending.legal.*extra \[" + str(spare[0])):
                from_dict(bad)
        if len(legal) > 2 or kind == R.PK_TURN:
            bad = copy.deepcopy(snap)
            bad["pending"]["legal"] = legal[1:]
            with pytest.raises(SnapshotError, match=r"pending.legal.*missing \[" + str(legal[0])):
                from_dict(bad)


def test_a_decision_the_engine_would_not_ask_is_refused(positions):
    """A different decision kind on the same stack, or a stage where the top task does not
    stop, is not a position the engine reaches."""
    snap = to_dict(_first(positions, lambda s: s["pend_kind"] == R.PK_PAY), 0)
    bad = copy.deepcopy(snap)
    bad["pending"]["kind"] = "jail"
    bad["pending"]["legal"] = [R.A_CITY, R.A_CITY + 1]
    with pytest.raises(SnapshotError, match="pending.kind.*'pay'"):
        from_dict(bad)
    bad = copy.deepcopy(snap)
    bad["stack"]["frames"][-1]["stage"] = R.PS_PAYNOW  # pays at once, asks nothing
    with pytest.raises(SnapshotError, match="stack.frames"):
        from_dict(bad)


def _frame_case(positions, task, predicate=lambda frame: True):
    for states in positions:
        snap = to_dict(states, 0)
        for f, frame in enumerate(snap["stack"]["frames"]):
            if frame["task"] == task and predicate(frame):
                return snap, f
    raise AssertionError(f"no {task} frame in the sampled positions")


FRAME_CASES = {
    # (task, field, value, words): a frame field a runner would use as an index or a count
    "play stage past the last": ("play", "stage", R.N_PLAY_STAGES, ["stage", "outside"]),
    "play reductions": ("play", "n", 4, [".n", "outside 0..3"]),
    "play cost negative": ("play", "cost", {"twig": -1, "resin": 0, "pebble": 0, "berry": 0},
                           ["cost"]),
    "card slot out of the city": ("card", "slot", 40, ["slot 40"]),
    "card owner not a seat": ("card", "owner", 7, ["owner", "not a seat"]),
    "discard count past its maximum": ("discard", "n", 9, ["stack.frames", "discard counts"]),
    "actor beyond the players": ("card", "actor", 3, ["actor", "out of range"]),
}  # fmt: skip


@pytest.mark.parametrize("case", list(FRAME_CASES))
def test_frame_fields_are_validated(positions, case):
    task, field, value, words = FRAME_CASES[case]
    snap, f = _frame_case(positions, task)
    snap["stack"]["frames"][f][field] = value
    with pytest.raises(SnapshotError) as info:
        from_dict(snap)
    for word in words:
        assert word in str(info.value), (word, str(info.value))


def test_a_card_frame_must_name_the_card_in_its_slot(positions):
    snap, f = _frame_case(positions, "card", lambda frame: frame["slot"] >= 0)
    frame = snap["stack"]["frames"][f]
    owner = snap["players"][frame["owner"]]
    used = {slot["slot"] for slot in owner["city"]}
    frame["slot"] = next(k for k in range(R.CITY_SLOTS) if k not in used)  # an empty slot
    with pytest.raises(SnapshotError, match="does not hold this card"):
        from_dict(snap)


def test_sub_task_result_is_bounded(positions):
    snap = to_dict(_first(positions, lambda s: not s["terminated"]), 0)
    snap["stack"]["ret"] = 9  # more cards than a hand holds (EVD-D2)
    with pytest.raises(SnapshotError, match="stack.ret"):
        from_dict(snap)


def _mutations(snap, rng):
    """Small random edits of a snapshot: numbers nudged, list entries swapped or dropped."""
    out = copy.deepcopy(snap)
    paths = []

    def walk(node, path):
        if isinstance(node, dict):
            for key, value in node.items():
                walk(value, path + [key])
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, path + [i])
            if node:
                paths.append((path, "list"))
        elif isinstance(node, (int, bool)) and not isinstance(node, bool):
            paths.append((path, "int"))

    walk(out, [])
    path, what = paths[rng.integers(len(paths))]
    parent = out
    for key in path[:-1]:
        parent = parent[key]
    if what == "int":
        parent[path[-1]] += int(rng.choice([-2, -1, 1, 2, 100]))
    else:
        target = parent[path[-1]] if path else out
        if len(target) > 1 and rng.random() < 0.5:
            i, j = rng.choice(len(target), 2, replace=False)
            target[i], target[j] = target[j], target[i]
        else:
            target.pop(int(rng.integers(len(target))))
    return out


def test_every_accepted_mutation_round_trips_and_plays(positions):
    """Issue 10.1/10.6: whatever from_dict accepts round-trips (to_dict then from_dict gives
    the same record) and legal steps from it keep the card count and non-negative counts."""
    rng = np.random.default_rng(11)
    accepted = 0
    for states in positions[::3]:
        snap = to_dict(states, 0)
        for _ in range(6):
            mutated = _mutations(snap, rng)
            try:
                loaded = from_dict(mutated)
            except SnapshotError:
                continue
            accepted += 1
            again = from_dict(to_dict(loaded, 0))
            assert again.tobytes() == loaded.tobytes()
            for _ in range(20):
                if _over(loaded):
                    break
                _step_random(loaded, rng)
                s = loaded[0]
                assert (s["resources"] >= 0).all() and (s["hand"] >= 0).all()
                assert (s["hand_n"] <= R.HAND_LIMIT).all()
                assert s["deck_n"] + s["discard_n"] <= R.DECK_SIZE
    assert accepted > 20


# ---- counts bounded by what a game can reach (issue 10.3) ----------------------------------


def _live_turn(positions, num_players=2):
    states = _first(
        positions, lambda s: s["pend_kind"] == R.PK_TURN and s["num_players"] == num_players
    )
    return to_dict(states, 0)


COUNT_CASES = {
    # (edit, error words): one past each bound named in rules.py
    "resources": (lambda s: s["players"][0]["resources"].update(twig=R.COUNT_MAX + 1),
                  ["players[0].resources.twig", str(R.COUNT_MAX)]),
    "point tokens": (lambda s: s["players"][1].update(tokens=R.COUNT_MAX + 1),
                     ["players[1].tokens", str(R.COUNT_MAX)]),
    "plays this turn": (lambda s: s.update(plays_this_turn=R.PLAYS_MAX + 1),
                        ["plays_this_turn", str(R.PLAYS_MAX)]),
    "more turns than steps": (lambda s: s.update(turn_count=R.STEP_CAP + 1), ["turn_count"]),
    "event points over the cap": (
        lambda s: s["events"]["basic"][0].update(owner=0, store=4), ["events.basic[0].store"]),
}  # fmt: skip


@pytest.mark.parametrize("case", list(COUNT_CASES))
def test_counts_past_their_bound_are_refused(positions, case):
    edit, words = COUNT_CASES[case]
    snap = _live_turn(positions)
    edit(snap)
    with pytest.raises(SnapshotError) as info:
        from_dict(snap)
    for word in words:
        assert word in str(info.value), (word, str(info.value))


def test_chapel_and_storehouse_counts_are_bounded(positions):
    states = _first(positions, lambda s: s["pend_kind"] == R.PK_TURN and s["num_players"] == 2)
    for card, key, value in (
        ("chapel", "tokens", R.CHAPEL_TOKENS_MAX + 1),
        ("storehouse", "store", {"twig": R.STORE_MAX + 1, "resin": 0, "pebble": 0, "berry": 0}),
    ):
        snap = to_dict(states, 0)
        city = snap["players"][0]["city"]
        if not city:
            continue
        old = city[0]["card"]
        city[0].update(card=card, occupied=False, tokens=0, jail=[None, None])
        _swap_card_in_piles(snap, card, old)
        from_dict(copy.deepcopy(snap))  # the edited position itself is valid
        city[0][key] = value
        with pytest.raises(SnapshotError, match=f"city\\[0\\].{key}"):
            from_dict(snap)


def _swap_card_in_piles(snap, new, old):
    """Keep the 128 cards accounted for: ``new`` leaves the deck or discard pile, ``old``
    takes its place."""
    for pile in ("deck", "discard"):
        if new in snap[pile]:
            snap[pile][snap[pile].index(new)] = old
            return
    raise AssertionError(f"no {new} left in the piles")


def test_finished_scores_are_the_rules_scores(positions):
    """EVD-E2: a finished game's scores are recomputed, not trusted."""
    snap = to_dict(_first(positions, lambda s: s["terminated"] and s["num_players"] == 2), 0)
    snap["players"][0]["score"] += 1
    with pytest.raises(SnapshotError, match=r"players\[0\].score.*EVD-E2"):
        from_dict(snap)


def test_counts_at_their_bound_never_wrap(positions):
    """Issue 10.3: loaded at the largest accepted counts (int16 used to wrap at 32767 on the
    next point token), whole games of legal steps keep every count and score above them."""
    rng = np.random.default_rng(17)
    for num_players in (1, 2, 3, 4):
        states = from_dict(_live_turn(positions, num_players))
        s = states[0]
        s["tokens"][: int(s["seats"])] = R.COUNT_MAX
        s["resources"][:num_players] = R.COUNT_MAX - 50
        R.rederive_pending(states, 0)  # richer players have more choices on this turn
        states = from_dict(to_dict(states, 0))  # accepted at these counts
        while not _over(states):
            _step_random(states, rng)
            s = states[0]
            assert (s["tokens"][: int(s["seats"])] >= R.COUNT_MAX).all()
            assert (s["resources"] >= 0).all()  # spent, never wrapped
        assert (states[0]["score"][: int(states[0]["seats"])] >= R.COUNT_MAX - 30).all()
