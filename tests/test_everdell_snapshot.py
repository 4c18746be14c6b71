"""Everdell snapshots: what they say (setup, cities, workers, tasks), the Everdell-only refusals
(recomputed decisions, task frame fields, counts past their bounds), action names and the
board. Round trips and the refusals every game shares are in test_snapshots.py."""

import copy

import numpy as np
import pytest
import snapshot_helpers as H
from snapshot_cases.everdell import new_game, over, step_random
from snapshot_helpers import first

from meeple_gym.core.errors import SnapshotError
from meeple_gym.everdell import data as D
from meeple_gym.everdell import rules as R
from meeple_gym.everdell import snapshot as codec
from meeple_gym.everdell.snapshot import DECISION_KINDS, KIND_ACTIONS

positions = H.positions_fixture("everdell")


def _legal(states):
    return H.legal(R, states)


@pytest.mark.parametrize("num_players", [1, 2, 3, 4])
def test_opening_snapshot_reads_like_the_setup_rules(num_players):
    snap = codec.to_dict(new_game(num_players, 42, 2), 0)
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
    states = first(
        positions,
        lambda s: s["depth"] >= 1 and (s["city"] >= 0).sum() >= 3 and (s["wloc"] >= 0).any(),
    )
    s = states[0]
    snap = codec.to_dict(states, 0)
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
        snap = codec.to_dict(states, 0)
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


def test_turn_action_names():
    states = new_game(2, 3)
    s = states[0]
    assert codec.action_to_string(states, 0, R.A_PLACE_BASIC) == "place worker on 3 Twigs"
    assert codec.action_to_string(states, 0, R.A_PLACE_HAVEN) == "place worker on Haven"
    assert codec.action_to_string(states, 0, R.A_PLACE_JOURNEY + 1) == "place worker on Journey 4"
    assert codec.action_to_string(states, 0, R.A_PLACE_EVENT + 2) == "claim Grand Tour"
    special = int(s["specials"][0])
    assert (
        codec.action_to_string(states, 0, R.A_PLACE_EVENT + 4) == f"claim {D.EVENT_NAMES[special]}"
    )
    forest = int(s["forest"][1])
    assert codec.action_to_string(states, 0, R.A_PLACE_FOREST + 1) == (
        f"place worker on {D.LOCATION_NAMES[forest]} (forest 1)"
    )
    assert (
        codec.action_to_string(states, 0, R.A_PLAY_HAND + D.CARD_ID["farm"])
        == "play Farm from hand"
    )
    meadow = D.CARD_NAMES[int(s["meadow"][5])]
    assert codec.action_to_string(states, 0, R.A_PLAY_MEADOW + 5) == (
        f"play {meadow} from the Meadow (position 5)"
    )
    assert codec.action_to_string(states, 0, R.A_PREPARE) == "prepare for spring"
    assert codec.action_to_string(states, 0, R.A_PASS) == "pass"
    assert codec.action_to_string(states, 0, R.A_DONE) == "done"
    assert codec.action_to_string(states, 0, R.A_PAY + R.PAY_TOKEN) == "pay with occupied token"


def test_sub_decision_names_read_the_position():
    # Hand-set decisions on a fresh 3-player game: the kernel asks these with the same fields.
    states = new_game(3, 8)
    s = states[0]
    p = int(s["current_player"])
    farm, wife, mine = D.CARD_ID["farm"], D.CARD_ID["wife"], D.CARD_ID["mine"]
    s["city"][p, 3] = farm
    other = (p + 2) % 3
    s["city"][other, 0] = mine
    s["pend_kind"] = R.PK_PRODUCE_ORDER
    assert codec.action_to_string(states, 0, R.A_CITY + 3) == "fire Farm (slot 3)"
    s["pend_kind"] = R.PK_COPY_GREEN
    assert codec.action_to_string(states, 0, R.A_CITY + 2 * R.CITY_SLOTS) == (
        f"copy Mine (slot 0) in player {other}'s city"
    )
    s["pend_kind"] = R.PK_REDUCE
    assert codec.action_to_string(states, 0, R.A_RESOURCE + R.RESIN) == "take off 1 resin"
    s["pend_kind"] = R.PK_DISCARD
    assert codec.action_to_string(states, 0, R.A_CARD + wife) == "discard Wife"
    s["pend_kind"] = R.PK_GIVE_TO
    assert (
        codec.action_to_string(states, 0, R.A_PLAYER + 1)
        == f"give to player {(p + 1) % 3} (seat +1)"
    )
    s["pend_kind"] = R.PK_PILE
    assert codec.action_to_string(states, 0, R.A_NUMBER + 1) == "reveal from the discard pile"


def test_render_mentions_every_player_and_the_decision(positions):
    seen = set()
    for states in positions[::15]:
        text = codec.render(states, 0)
        s = states[0]
        n = int(s["num_players"])
        for p in range(n):
            assert f"player {p} (" in text
        assert ("Rugwort" in text) == (n == 1)
        if over(states):
            assert "Game over" in text or "truncated" in text
        else:
            kind = DECISION_KINDS[int(s["pend_kind"])]
            assert f"To decide: player {int(s['current_player'])} ({kind}" in text
        for loc in s["forest"]:
            if loc >= 0:
                assert D.LOCATION_NAMES[loc] in text
        seen.add(n)
    assert seen == {1, 2, 3, 4}


def _by_kind(positions):
    """One live snapshot per decision kind met in the sampled games."""
    out = {}
    for states in positions:
        s = states[0]
        if over(states) or int(s["pend_kind"]) in out:
            continue
        out[int(s["pend_kind"])] = codec.to_dict(states, 0)
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
                codec.from_dict(bad)
        if len(legal) > 2 or kind == R.PK_TURN:
            bad = copy.deepcopy(snap)
            bad["pending"]["legal"] = legal[1:]
            with pytest.raises(SnapshotError, match=r"pending.legal.*missing \[" + str(legal[0])):
                codec.from_dict(bad)


def test_a_decision_the_engine_would_not_ask_is_refused(positions):
    """A different decision kind on the same stack, or a stage where the top task does not
    stop, is not a position the engine reaches."""
    snap = codec.to_dict(first(positions, lambda s: s["pend_kind"] == R.PK_PAY), 0)
    bad = copy.deepcopy(snap)
    bad["pending"]["kind"] = "jail"
    bad["pending"]["legal"] = [R.A_CITY, R.A_CITY + 1]
    with pytest.raises(SnapshotError, match="pending.kind.*'pay'"):
        codec.from_dict(bad)
    bad = copy.deepcopy(snap)
    bad["stack"]["frames"][-1]["stage"] = R.PS_PAYNOW  # pays at once, asks nothing
    with pytest.raises(SnapshotError, match="stack.frames"):
        codec.from_dict(bad)


def _frame_case(positions, task, predicate=lambda frame: True):
    for states in positions:
        snap = codec.to_dict(states, 0)
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
    H.assert_refused(codec.from_dict, snap, words)


def test_a_card_frame_must_name_the_card_in_its_slot(positions):
    snap, f = _frame_case(positions, "card", lambda frame: frame["slot"] >= 0)
    frame = snap["stack"]["frames"][f]
    owner = snap["players"][frame["owner"]]
    used = {slot["slot"] for slot in owner["city"]}
    frame["slot"] = next(k for k in range(R.CITY_SLOTS) if k not in used)  # an empty slot
    with pytest.raises(SnapshotError, match="does not hold this card"):
        codec.from_dict(snap)


def test_sub_task_result_is_bounded(positions):
    snap = codec.to_dict(first(positions, lambda s: not s["terminated"]), 0)
    snap["stack"]["ret"] = 9  # more cards than a hand holds (EVD-D2)
    with pytest.raises(SnapshotError, match="stack.ret"):
        codec.from_dict(snap)


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
    """Whatever from_dict accepts round-trips (to_dict then from_dict gives
    the same record) and legal steps from it keep the card count and non-negative counts."""
    rng = np.random.default_rng(11)
    accepted = 0
    for states in positions[::3]:
        snap = codec.to_dict(states, 0)
        for _ in range(6):
            mutated = _mutations(snap, rng)
            try:
                loaded = codec.from_dict(mutated)
            except SnapshotError:
                continue
            accepted += 1
            again = codec.from_dict(codec.to_dict(loaded, 0))
            assert again.tobytes() == loaded.tobytes()
            for _ in range(20):
                if over(loaded):
                    break
                step_random(loaded, rng)
                s = loaded[0]
                assert (s["resources"] >= 0).all() and (s["hand"] >= 0).all()
                assert (s["hand_n"] <= R.HAND_LIMIT).all()
                assert s["deck_n"] + s["discard_n"] <= R.DECK_SIZE
    assert accepted > 20


def _live_turn(positions, num_players=2):
    states = first(
        positions, lambda s: s["pend_kind"] == R.PK_TURN and s["num_players"] == num_players
    )
    return codec.to_dict(states, 0)


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
    H.assert_refused(codec.from_dict, snap, words)


def test_chapel_and_storehouse_counts_are_bounded(positions):
    states = first(positions, lambda s: s["pend_kind"] == R.PK_TURN and s["num_players"] == 2)
    for card, key, value in (
        ("chapel", "tokens", R.CHAPEL_TOKENS_MAX + 1),
        ("storehouse", "store", {"twig": R.STORE_MAX + 1, "resin": 0, "pebble": 0, "berry": 0}),
    ):
        snap = codec.to_dict(states, 0)
        city = snap["players"][0]["city"]
        if not city:
            continue
        old = city[0]["card"]
        city[0].update(card=card, occupied=False, tokens=0, jail=[None, None])
        _swap_card_in_piles(snap, card, old)
        codec.from_dict(copy.deepcopy(snap))  # the edited position itself is valid
        city[0][key] = value
        with pytest.raises(SnapshotError, match=f"city\\[0\\].{key}"):
            codec.from_dict(snap)


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
    snap = codec.to_dict(first(positions, lambda s: s["terminated"] and s["num_players"] == 2), 0)
    snap["players"][0]["score"] += 1
    with pytest.raises(SnapshotError, match=r"players\[0\].score.*EVD-E2"):
        codec.from_dict(snap)


def test_counts_at_their_bound_never_wrap(positions):
    """Loaded at the largest accepted counts (int16 used to wrap at 32767 on the
    next point token), whole games of legal steps keep every count and score above them."""
    rng = np.random.default_rng(17)
    for num_players in (1, 2, 3, 4):
        states = codec.from_dict(_live_turn(positions, num_players))
        s = states[0]
        s["tokens"][: int(s["seats"])] = R.COUNT_MAX
        s["resources"][:num_players] = R.COUNT_MAX - 50
        R.rederive_pending(states, 0)  # richer players have more choices on this turn
        states = codec.from_dict(codec.to_dict(states, 0))  # accepted at these counts
        while not over(states):
            step_random(states, rng)
            s = states[0]
            assert (s["tokens"][: int(s["seats"])] >= R.COUNT_MAX).all()
            assert (s["resources"] >= 0).all()  # spent, never wrapped
        assert (states[0]["score"][: int(states[0]["seats"])] >= R.COUNT_MAX - 30).all()
