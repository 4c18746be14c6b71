"""Endeavor snapshots: exact JSON round trips, validation errors, action names and the board."""

import copy
import json
import re

import numpy as np
import pytest

from meeple_gym.core.errors import ActionError, SnapshotError
from meeple_gym.core.rng import game_key
from meeple_gym.endeavor import data as D
from meeple_gym.endeavor import rules as R
from meeple_gym.endeavor.snapshot import (
    PHASES,
    SUB_STEPS,
    _merchant_goods_left,
    action_to_string,
    from_dict,
    render,
    to_dict,
)


def _new_game(seed, num_players):
    states = np.zeros(1, R.STATE_DTYPE)
    R.init_game(states, 0, num_players, game_key(seed), 0)
    return states


def _legal(states):
    mask = np.zeros(R.NUM_ACTIONS, np.int8)
    R.legal_mask_into(states, 0, mask)
    return np.flatnonzero(mask)


def _over(states):
    return int(states[0]["phase"]) == R.PH_OVER


def _decision(states):
    """(phase, sub-step, role being executed or None): what the pending decision is about."""
    s = states[0]
    phase = PHASES[int(s["phase"])]
    if phase != "role":
        return phase, "main", None
    return phase, SUB_STEPS[int(s["sub"])], D.ROLES[int(s["role"][s["current_player"]])]


# Every decision the rules ask (rules._fill_mask / rules._role_mask).
DECISIONS = {
    ("start_city", "main", None),
    ("return_empire_card", "main", None),
    ("plan_role", "main", None),
    ("plan_tokens", "main", None),
    *(("role", "main", role) for role in D.ROLES),
    ("role", "home_port_good", "merchant"),
    ("role", "governor_pay", "governor"),
    ("role", "governor_move", "governor"),
}


def _play_and_sample(games_per_count, sample_rate, seed):
    """Random games of 2-4 players: the opening, the end, sampled positions and, more
    often, the decisions seen least so far."""
    rng = np.random.default_rng(seed)
    positions = []
    seen = {key: 0 for key in DECISIONS}
    for num_players in (2, 3, 4):
        for k in range(games_per_count):
            states = _new_game(seed * 1000 + num_players * 100 + k, num_players)
            positions.append(states.copy())
            while not _over(states):
                R.apply_action(states, 0, int(rng.choice(_legal(states))))
                if _over(states):
                    break
                key = _decision(states)
                rare = seen[key] < 20
                if rng.random() < (0.5 if rare else sample_rate):
                    positions.append(states.copy())
                    seen[key] += 1
            positions.append(states.copy())
    return positions


@pytest.fixture(scope="module")
def positions():
    return _play_and_sample(games_per_count=12, sample_rate=0.05, seed=5)


@pytest.fixture(scope="module")
def truncated(positions):
    """Live positions pushed to one step below the step cap, then one more step."""
    rng = np.random.default_rng(3)
    out = []
    for states in positions[::6]:
        if _over(states):
            continue
        cut = states.copy()
        cut[0]["step_count"] = R.STEP_CAP - 1
        R.apply_action(cut, 0, int(rng.choice(_legal(cut))))
        assert _over(cut)
        if cut[0]["terminated"]:
            continue  # that step ended the game by its rules (END-E1/E4) before the cap
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
    counts, decisions, features = set(), set(), set()
    for states in positions:
        snap, restored = _json_round_trip(states)
        assert restored.dtype == R.STATE_DTYPE and restored.shape == (1,)
        assert restored.tobytes() == states.tobytes()
        assert to_dict(restored, 0) == snap
        assert json.loads(json.dumps(snap)) == snap  # plain JSON types only
        counts.add(snap["num_players"])
        if not _over(states):
            decisions.add(_decision(states))
        players = snap["players"]
        features.update(
            name
            for name, seen in [
                ("ships", any(sum(p["ships"].values()) for p in players)),
                ("board", any(p["board"] for p in players)),
                ("lost tokens", any(p["lost"] for p in players)),
                ("far region open", snap["regions"]["china"]["open"]),
                ("upgraded", _any_slot(snap, lambda slot: slot["upgraded"])),
                ("roles aside", any(p["roles"]["aside"] for p in players)),
                ("single win", snap["winner"] is not None),
            ]
            if seen
        )
    assert counts == {2, 3, 4}
    assert decisions == DECISIONS
    assert len(features) == 7, features


def _any_slot(snap, test):
    return any(test(slot) for region in snap["regions"].values() for slot in region["slots"])


def test_truncated_games_round_trip(truncated):
    subs = set()
    for states in truncated:
        snap, restored = _json_round_trip(states)
        assert restored.tobytes() == states.tobytes()
        assert snap["truncated"] and not snap["terminated"] and snap["phase"] == "over"
        assert snap["winner"] is None and snap["winners"] == [] and snap["pending"] is None
        assert snap["step_count"] == R.STEP_CAP
        subs.add(snap["sub_step"])
    assert len(truncated) > 20 and len(subs) >= 2  # cut off inside a sub-step too


def test_restored_game_continues_identically(positions):
    rng = np.random.default_rng(11)
    live = [p for p in positions if not _over(p)][::10]
    assert len(live) >= 30
    for states in live:
        original = states.copy()
        restored = from_dict(to_dict(original, 0))
        for _ in range(60):
            if _over(original):
                break
            legal = _legal(original)
            assert np.array_equal(legal, _legal(restored))
            action = int(rng.choice(legal))
            R.apply_action(original, 0, action)
            R.apply_action(restored, 0, action)
            assert restored.tobytes() == original.tobytes()


@pytest.mark.slow
def test_every_position_of_many_games_round_trips():
    rng = np.random.default_rng(17)
    for k in range(150):
        states = _new_game(7000 + k, 2 + k % 3)
        while True:
            snap, restored = _json_round_trip(states)
            assert restored.tobytes() == states.tobytes()
            if _over(states):
                break
            legal = _legal(states)
            names = {action_to_string(states, 0, int(a)) for a in legal}
            assert len(names) == len(legal)
            R.apply_action(states, 0, int(rng.choice(legal)))


def test_a_shared_win_round_trips():
    # END-E3: still tied on points, empire cards and tokens left, the players share the win.
    for seed in range(3000):
        rng = np.random.default_rng(seed)
        states = _new_game(seed, 2 + seed % 3)
        while not _over(states):
            R.apply_action(states, 0, int(rng.choice(_legal(states))))
        snap, restored = _json_round_trip(states)
        if len(snap["winners"]) > 1:
            break
    assert restored.tobytes() == states.tobytes()
    assert snap["winner"] is None and snap["terminated"]
    keys = [
        (p["score"], sum(card["kind"] == "empire" for card in p["board"]), p["pool"])
        for p in snap["players"]
    ]
    assert snap["winners"] == [q for q, key in enumerate(keys) if key == max(keys)]


def test_any_game_of_a_batch_round_trips(positions):
    batch = np.concatenate(positions[50:54])
    for g in range(4):
        restored = from_dict(to_dict(batch, g))
        assert restored.tobytes() == batch[g : g + 1].tobytes()


def test_from_dict_leaves_its_input_alone(positions):
    snap = to_dict(_first(positions, lambda s: s["phase"] == R.PH_ROLE), 0)
    before = copy.deepcopy(snap)
    from_dict(snap)
    assert snap == before


def _planning_after_a_pick(positions):
    """A 3-player PH_PLAN_ROLE position in which the first planner has chosen a role."""
    return _first(
        positions,
        lambda s: s["phase"] == R.PH_PLAN_ROLE and s["pick_index"] >= 1 and s["num_players"] == 3,
    )


def test_a_chosen_role_missing_from_the_hand_is_refused_while_others_plan(positions):
    """Issue 10.7 (END-O1, END-O2): a role is picked from the hand and set aside only after the
    round. While a later player picks (plan_role), an earlier player's chosen role must still be
    in their hand; before the fix the snapshot was accepted and the round's end put a 4th role
    in that hand."""
    states = _planning_after_a_pick(positions)
    snap = to_dict(states, 0)
    p = int(states[0]["order"][0])
    player = snap["players"][p]
    assert player["role"] in player["roles"]["hand"]
    player["role"] = next(r for r in D.ROLES if r not in player["roles"]["hand"])
    before = copy.deepcopy(snap)
    with pytest.raises(SnapshotError, match=rf"players\[{p}\]\.role.*not in the player's hand"):
        from_dict(snap)
    assert snap == before


def test_an_illegal_role_pick_is_refused_and_changes_nothing(positions):
    """Issue 10.7 (END-O1): a role not in hand is never legal in plan_role, in the kernel's mask
    and in a loaded position; the AEC env refuses it and the game stays exactly as it was."""
    import meeple_gym as mg
    from meeple_gym.core.errors import IllegalActionError

    states = _planning_after_a_pick(positions)
    env = mg.make("endeavor", num_players=3).unwrapped
    env.reset(seed=0)
    env.from_dict(to_dict(states, 0))
    p = int(states[0]["current_player"])
    hand = set(np.flatnonzero(states[0]["role_hand"][p]).tolist())
    assert {a - R.A_ROLE for a in _legal(states)} == hand
    before = env.to_dict()
    for r in set(range(R.N_ROLES)) - hand:
        with pytest.raises(IllegalActionError):
            env.step(R.A_ROLE + r)
        assert env.to_dict() == before


# ---- counters bounded by what the game can reach (issue 10.3) ---------------------------------


def _merchant_to_act(s):
    return (
        s["phase"] == R.PH_ROLE
        and s["sub"] == R.SUB_MAIN
        and s["role"][s["current_player"]] == R.MERCHANT
        and s["round"] >= 2
    )


def _goods_after(snap, p, total):
    """``snap`` with player p holding ``total`` goods, all of one kind (any kind pays, END-G)."""
    snap = copy.deepcopy(snap)
    snap["players"][p]["goods"] = {g: (total if g == "tea" else 0) for g in D.GOODS}
    return snap


@pytest.mark.parametrize(
    "field, path",
    [
        ("pool", ("players", 0, "pool")),
        ("lost", ("players", 0, "lost")),
        ("goods", ("players", 0, "goods", "tea")),
        ("ships", ("players", 0, "ships", "india")),
        ("score", ("players", 0, "score")),
        ("strength", ("execution", "strength")),
    ],
)
def test_int16_sized_counters_are_refused_above_what_the_game_reaches(positions, field, path):
    """Issue 10.3: 32767 (the int16 maximum, accepted before for goods, pool, lost, score and
    strength) and the first value above each bound are refused, naming the field."""
    snap = to_dict(_first(positions, _merchant_to_act), 0)
    bound = {
        "pool": R.MAX_TOKENS,
        "lost": R.MAX_TOKENS,
        "goods": R.MAX_GOODS,
        "ships": R.MAX_TOKENS,
        "score": R.MAX_SCORE,
        "strength": R.MAX_STRENGTH,
    }[field]
    assert bound < np.iinfo(np.int16).max // 2
    for value in (bound + 1, int(np.iinfo(np.int16).max)):
        bad = _set(*path, value)
        mutated = copy.deepcopy(snap)
        bad(mutated)
        where = f"players[0].{field}" if path[0] == "players" else "execution.strength"
        with pytest.raises(SnapshotError, match=re.escape(where)):
            from_dict(mutated)


def test_goods_are_bounded_by_the_merchant_actions_so_far(positions):
    """Issue 10.3 (END-A2, END-O1): before a player's role of round r, at most r - 1 Merchant
    actions of at most GOODS_PER_ROUND_MAX goods each; once it has begun, r."""
    states = _first(positions, _merchant_to_act)
    s = states[0]
    snap = to_dict(states, 0)
    r, p = int(s["round"]), int(s["current_player"])
    # p's Merchant action has begun; what it may still add counts against this round's share
    most = R.GOODS_PER_ROUND_MAX * r - _merchant_goods_left(s, p)
    from_dict(_goods_after(snap, p, most))
    with pytest.raises(SnapshotError, match=rf"players\[{p}\]\.goods.*at most {most}"):
        from_dict(_goods_after(snap, p, most + 1))
    waiting = [int(q) for q in s["exec_order"][int(s["exec_index"]) + 1 : int(s["num_players"])]]
    for q in waiting:  # not begun yet: one Merchant action fewer
        from_dict(_goods_after(snap, q, R.GOODS_PER_ROUND_MAX * (r - 1)))
        with pytest.raises(SnapshotError, match=rf"players\[{q}\]\.goods"):
            from_dict(_goods_after(snap, q, R.GOODS_PER_ROUND_MAX * (r - 1) + 1))
    assert waiting
    assert R.MAX_GOODS == R.ROUND_LIMIT * R.GOODS_PER_ROUND_MAX < np.iinfo(np.int16).max


def test_no_accepted_goods_count_overflows_or_goes_stale_on_legal_steps(positions):
    """Issue 10.3: from snapshots whose players hold the most goods allowed, every legal step
    keeps goods non-negative, within MAX_GOODS and loadable again (the bound is kept by play)."""
    rng = np.random.default_rng(11)
    starts = [st for st in positions if _merchant_to_act(st[0])][:4]
    assert starts
    for states in starts:
        snap = to_dict(states, 0)
        s0 = states[0]
        executing = [int(x) for x in s0["exec_order"][: int(s0["exec_index"]) + 1]]
        for p in range(int(s0["num_players"])):
            most = R.GOODS_PER_ROUND_MAX * (int(s0["round"]) - 1 + (p in executing))
            if p == int(s0["current_player"]):
                most -= _merchant_goods_left(s0, p)
            snap = _goods_after(snap, p, most)
        loaded = from_dict(snap)
        while not _over(loaded):
            R.apply_action(loaded, 0, int(rng.choice(_legal(loaded))))
            goods = loaded[0]["goods"]
            assert goods.min() >= 0 and goods.sum(axis=1).max() <= R.MAX_GOODS
            assert from_dict(to_dict(loaded, 0)).tobytes() == loaded.tobytes()


def test_a_reused_record_round_trips():
    # A batch slot is reused: init_game on an old record must give the fresh one.
    rng = np.random.default_rng(2)
    states = _new_game(21, 4)
    while not _over(states):
        R.apply_action(states, 0, int(rng.choice(_legal(states))))
    R.init_game(states, 0, 2, game_key(22), 0)
    assert states.tobytes() == _new_game(22, 2).tobytes()
    _, restored = _json_round_trip(states)
    assert restored.tobytes() == states.tobytes()


# ---- what a snapshot says ----------------------------------------------------------------------


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_opening_snapshot_reads_like_the_setup_rules(num_players):
    snap = to_dict(_new_game(42, num_players), 0)
    assert snap["game"] == "endeavor" and snap["version"] == 1
    assert snap["num_players"] == num_players and snap["round"] == 1
    assert snap["phase"] == "start_city" and snap["sub_step"] == "main"
    first = snap["first_player"]
    # END-S6: seats follow the random first player, who makes the first pick (END-S3).
    assert snap["order"] == [(first + i) % num_players for i in range(num_players)]
    assert snap["pending"]["player"] == first and snap["exec_order"] is None
    tokens = {2: 15, 3: 18, 4: 15}[num_players]  # END-S1
    draw = {2: 4, 3: 3, 4: 3}[num_players]  # END-S4
    for player in snap["players"]:
        assert player["pool"] == tokens and player["lost"] == 0 and player["placed"] == 0
        assert player["role"] is None and player["board"] == []
        assert set(player["goods"].values()) == {0} and set(player["ships"].values()) == {0}
        assert len(player["empire_hand"]) == draw
        roles = player["roles"]  # END-O2: 3 in hand, the other 3 in the deck
        assert len(roles["hand"]) == 3 and len(roles["deck"]) == 3 and roles["aside"] == []
        assert sorted(roles["hand"] + roles["deck"]) == sorted(D.ROLES)
    regions = snap["regions"]
    # END-R2, END-S2, END-R4: Europe (4 slots) and West Africa (3) open with cities dealt.
    assert [key for key, region in regions.items() if region["open"]] == ["europe", "west_africa"]
    for key, slots in (("europe", 4), ("west_africa", 3)):
        assert len(regions[key]["slots"]) == slots
        assert all(slot["city"] and slot["owner"] is None for slot in regions[key]["slots"])
        assert len(regions[key]["deck"]) == 7 - slots
    for key in ("caribbean", "south_america", "india", "southeast_asia", "china"):
        assert len(regions[key]["deck"]) == 7
        assert regions[key]["slots"] == [{"city": None, "owner": None, "upgraded": False}] * 2
    # The markets are dealt once the empire cards are returned (END-S4, END-S5).
    assert snap["empire"]["market"] == [None] * 3 and snap["buildings"]["market"] == [None] * 3
    assert len(snap["empire"]["deck"]) == 30 - num_players * draw
    assert len(snap["buildings"]["deck"]) == 20
    # Any open city may be the first pick: the 7 dealt slots.
    assert len(snap["pending"]["legal"]) == 7


def _card_places(snap):
    """(kind, key) of every card the snapshot lists, with repeats."""
    cards = []
    for region in snap["regions"].values():
        cards += [("city", c) for c in region["deck"]]
        cards += [("city", slot["city"]) for slot in region["slots"] if slot["city"]]
    for kind, pile in (("empire", "empire"), ("building", "buildings")):
        cards += [(kind, c) for c in snap[pile]["deck"]]
        cards += [(kind, c) for c in snap[pile]["market"] if c]
    for player in snap["players"]:
        cards += [("empire", c) for c in player["empire_hand"]]
        cards += [(card["kind"], card["card"]) for card in player["board"]]
    return cards


def test_every_card_is_in_one_place(positions):
    # END-C2 R: 49 cities, 30 empire cards and 20 buildings, each in exactly one place.
    everything = sorted(
        [("city", c) for c in D.CITY_KEYS]
        + [("empire", e) for e in D.EMPIRE_KEYS]
        + [("building", b) for b in D.BUILDING_KEYS]
    )
    for states in positions[::5]:
        assert sorted(_card_places(to_dict(states, 0))) == everything


EXTRA_TOKENS = {
    ("building", "admiralty"): 2,
    ("building", "bank"): 1,
    ("building", "shipyard"): 1,
    ("city", "willemstad"): 1,
    ("city", "calcutta"): 1,
    ("empire", "indiamen_convoy"): 1,
    ("empire", "national_bank"): 2,
}  # the extra_tokens rows of the card tables


def test_tokens_are_never_created_or_lost_by_accident(positions):
    # END-S1: 15/18/15 tokens; a ship keeps one (END-A1), an attack loses one for good (END-A4),
    # and extra_tokens cards add theirs when they reach the board.
    for states in positions[::3]:
        snap = to_dict(states, 0)
        start = {2: 15, 3: 18, 4: 15}[snap["num_players"]]
        for player in snap["players"]:
            extra = sum(EXTRA_TOKENS.get((c["kind"], c["card"]), 0) for c in player["board"])
            ships = sum(player["ships"].values())
            assert player["pool"] + ships + player["lost"] == start + extra
            assert player["ships"]["europe"] == 0  # END-R4


def test_decks_are_listed_top_first(positions):
    # The next card a deck deals is its first entry: check it on the deals the rules make.
    sails = refills = draws = 0
    for states in positions:
        s = states[0]
        if s["phase"] != R.PH_ROLE or s["sub"] != R.SUB_MAIN:
            continue
        before = to_dict(states, 0)
        closed = [
            r for r in range(R.NR) if not s["region_open"][r] and s["pend_mask"][R.A_REGION + r]
        ]
        if closed:  # END-R2: the first ship opens the region and deals its first slot
            r = closed[0]
            after_states = states.copy()
            R.apply_action(after_states, 0, R.A_REGION + r)
            key = D.REGION_KEYS[r]
            after = to_dict(after_states, 0)
            assert after["regions"][key]["slots"][0]["city"] == before["regions"][key]["deck"][0]
            sails += 1
        if int(s["exec_index"]) == int(s["num_players"]) - 1:
            # END-O5: the last role's "done" ends the round; the markets refill from the top
            # of their decks and each player draws the top role of their deck.
            after_states = states.copy()
            R.apply_action(after_states, 0, R.A_DONE)
            after = to_dict(after_states, 0)
            for pile in ("empire", "buildings"):
                empty = [i for i, e in enumerate(before[pile]["market"]) if e is None]
                if empty and len(before[pile]["deck"]) >= len(empty):
                    refilled = [after[pile]["market"][i] for i in empty]
                    assert refilled == before[pile]["deck"][: len(empty)]
                    refills += 1
            for old, new in zip(before["players"], after["players"], strict=True):
                if old["roles"]["deck"]:
                    drawn = set(new["roles"]["hand"]) - set(old["roles"]["hand"])
                    assert drawn == {old["roles"]["deck"][0]}
                    draws += 1
    assert sails >= 5 and refills >= 3 and draws >= 10


def test_to_dict_writes_every_field(positions):
    # Each value of the record shows in the snapshot: change any one and the snapshot changes
    # too (or to_dict refuses the record), so from_dict can rebuild every field.
    role = _first(positions, lambda s: s["phase"] == R.PH_ROLE and s["num_players"] == 3)
    over = _first(positions, lambda s: s["terminated"] and s["num_players"] == 4)
    described = 0
    for states in (role, over):
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
    assert described > 500


def test_to_dict_refuses_a_record_it_cannot_describe(positions):
    states = positions[1].copy()
    states[0]["empire_deck"][-1] = 3  # a card past the deck's count
    with pytest.raises(SnapshotError, match="cannot snapshot: empire_deck"):
        to_dict(states, 0)
    states = positions[1].copy()
    states[0]["num_players"] = 0  # a record init_game never filled
    with pytest.raises(SnapshotError, match="cannot snapshot: num_players"):
        to_dict(states, 0)


# ---- validation ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bases(positions, truncated):
    def live(s, phase, n=3):
        return s["phase"] == phase and s["num_players"] == n

    def planning(s):
        # round 2+, with ships, board cards and a building deck to draw extra cards from
        return (
            live(s, R.PH_PLAN_ROLE)
            and s["round"] >= 3
            and s["ships"][0].any()
            and s["board_n"][0]
            and s["building_deck_n"] >= 10
            and s["region_deck_n"][D.EUROPE] > 0
        )

    def merchant(s):
        return live(s, R.PH_ROLE) and s["role"][s["current_player"]] == R.MERCHANT

    def sailor(s):
        return live(s, R.PH_ROLE) and s["role"][s["current_player"]] == R.SAILOR

    def finished(s):
        n = s["num_players"]
        return s["terminated"] and n > 2 and len(set(s["score"][:n].tolist())) > 1

    def paying(s):
        return s["phase"] == R.PH_ROLE and s["sub"] == R.SUB_GOV_PAY

    return {
        "setup": to_dict(_new_game(7, 3), 0),
        "return": to_dict(_first(positions, lambda s: s["phase"] == R.PH_EMPIRE_RETURN), 0),
        "plan": to_dict(_first(positions, planning), 0),
        "tokens": to_dict(_first(positions, lambda s: live(s, R.PH_PLAN_TOKENS)), 0),
        "merchant": to_dict(_first(positions, merchant), 0),
        "sailor": to_dict(_first(positions, sailor), 0),
        "paying": to_dict(_first(positions, paying), 0),
        "over": to_dict(_first(positions, finished), 0),
        "cut": to_dict(truncated[0], 0),
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


def _add(*path_and_delta):
    *path, delta = path_and_delta

    def mutate(snap):
        target = snap
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] += delta

    return mutate


def _decider(snap):
    return snap["pending"]["player"]


def _extra_building(count):
    """Move ``count`` buildings from the deck to player 0's board."""

    def mutate(snap):
        for _ in range(count):
            card = snap["buildings"]["deck"].pop()
            snap["players"][0]["board"].append({"kind": "building", "card": card})

    return mutate


def _market_building_on_board(snap):
    card = snap["buildings"]["market"][0]
    snap["players"][0]["board"].append({"kind": "building", "card": card})


def _city_twice(snap):
    europe = snap["regions"]["europe"]
    europe["slots"][0]["city"] = europe["deck"][0]


def _lost_empire_card(snap):
    snap["empire"]["deck"].pop()


def _four_markers(snap):
    slots = [
        slot
        for region in snap["regions"].values()
        for slot in region["slots"]
        if slot["city"] is not None
    ]
    for slot in slots[:4]:
        slot["owner"] = 0


def _ships_in_a_closed_region(snap):
    closed = next(key for key, region in snap["regions"].items() if not region["open"])
    snap["players"][0]["ships"][closed] += 1
    snap["players"][0]["pool"] -= 1  # the token accounting still adds up


def _open_out_of_route(snap):
    snap["regions"]["south_america"]["open"] = True  # the Caribbean is still closed (END-R3)


def _marker_on_empty_slot(snap):
    snap["regions"]["caribbean"]["slots"][0]["owner"] = 0


def _upgrade_unclaimed(snap):
    slot = next(
        slot
        for region in snap["regions"].values()
        for slot in region["slots"]
        if slot["city"] is not None and slot["owner"] is None
    )
    slot["upgraded"] = True


def _role_twice(snap):
    roles = snap["players"][0]["roles"]
    roles["deck"].append(roles["hand"][0])


def _role_missing(snap):
    roles = snap["players"][0]["roles"]
    (roles["deck"] or roles["aside"]).pop()


def _four_roles_in_hand(snap):
    roles = snap["players"][0]["roles"]
    part = "deck" if roles["deck"] else "aside"
    roles["hand"] = sorted(roles["hand"] + [roles[part].pop()], key=D.ROLES.index)


def _illegal_done(snap):
    snap["pending"]["legal"] = sorted(snap["pending"]["legal"] + [R.A_DONE])


def _one_legal_action(snap):
    snap["pending"]["legal"] = snap["pending"]["legal"][:1]


def _wrong_decider(snap):
    snap["pending"]["player"] = (_decider(snap) + 1) % snap["num_players"]


def _role_before_choosing(snap):
    snap["players"][_decider(snap)]["role"] = snap["players"][_decider(snap)]["roles"]["hand"][0]


def _role_not_in_hand(snap):
    player = snap["players"][_decider(snap)]
    player["role"] = next(r for r in D.ROLES if r not in player["roles"]["hand"])


def _swapped_exec_order(snap):
    order = snap["exec_order"]
    order[0], order[1] = order[1], order[0]


def _wrong_winners(snap):
    scores = [player["score"] for player in snap["players"]]
    loser = scores.index(min(scores))
    snap["winners"] = [loser]
    snap["winner"] = loser


def _wrong_score(snap):
    snap["players"][0]["score"] += 1


def _empire_hand_unsorted(snap):
    snap["players"][0]["empire_hand"].reverse()


def _cities_used_twice(snap):
    ref = {"region": "europe", "slot": 0}
    snap["execution"]["cities_used"] = [ref, dict(ref)]


def _unknown_slot_region(snap):
    snap["execution"]["governor_slot"] = {"region": "atlantis", "slot": 0}


VALIDATION_CASES = {
    # shape and types
    "wrong game": ("plan", _set("game", "everdell"), ["game", "'endeavor'"]),
    "wrong version": ("plan", _set("version", 2), ["version", "unsupported"]),
    "version as text": ("plan", _set("version", "1"), ["version", "expected an integer"]),
    "missing key": ("plan", _delete("round"), ["snapshot", "missing key 'round'"]),
    "extra key": ("plan", _set("extra", 1), ["snapshot", "unknown key 'extra'"]),
    "missing player key": ("plan", _delete("players", 0, "lost"), ["players[0]", "'lost'"]),
    "extra region key": (
        "plan",
        _set("regions", "europe", "ports", 2),
        ["regions.europe", "unknown key 'ports'"],
    ),
    "missing execution key": (
        "plan",
        _delete("execution", "strength"),
        ["execution", "missing key 'strength'"],
    ),
    "five players": ("plan", _set("num_players", 5), ["num_players", "out of range 2..4"]),
    "one player": ("plan", _set("num_players", 1), ["num_players", "out of range 2..4"]),
    "player list length": (
        "plan",
        lambda snap: snap["players"].pop(),
        ["players", "num_players is 3"],
    ),
    "bad rng": ("plan", _set("rng", "12"), ["rng", "hex digits"]),
    "string step count": ("plan", _set("step_count", "3"), ["step_count", "expected an integer"]),
    "bool as int": ("plan", _set("players", 0, "pool", True), ["players[0].pool", "integer"]),
    "int as bool": ("plan", _set("terminated", 0), ["terminated", "expected true or false"]),
    "goods as list": (
        "plan",
        _set("players", 0, "goods", [0] * 5),
        ["players[0].goods", "expected an object"],
    ),
    # unknown names
    "unknown phase": ("plan", _set("phase", "siesta"), ["phase", "unknown phase 'siesta'"]),
    "unknown sub-step": ("plan", _set("sub_step", "nap"), ["sub_step", "unknown sub-step"]),
    "unknown role": (
        "plan",
        _set("players", 0, "roles", "hand", 0, "pirate"),
        ["players[0].roles.hand[0]", "unknown role 'pirate'"],
    ),
    "unknown good": (
        "plan",
        _set("players", 0, "goods", "silk", 1),
        ["players[0].goods", "unknown key 'silk'"],
    ),
    "unknown ship region": (
        "plan",
        _set("players", 0, "ships", "atlantis", 1),
        ["players[0].ships", "unknown key 'atlantis'"],
    ),
    "unknown slot region": ("plan", _unknown_slot_region, ["governor_slot.region", "'atlantis'"]),
    "unknown city": (
        "plan",
        _set("regions", "europe", "deck", 0, "paris"),
        ["regions.europe.deck[0]", "unknown city card 'paris'"],
    ),
    "city of another region": (
        "plan",
        _set("regions", "europe", "deck", 0, "goa"),
        ["regions.europe.deck[0]", "city of India"],
    ),
    "unknown empire card": (
        "plan",
        _set("empire", "deck", 0, "magna_carta"),
        ["empire.deck[0]", "unknown empire card"],
    ),
    "unknown building": (
        "plan",
        _set("buildings", "deck", 0, "castle"),
        ["buildings.deck[0]", "unknown building card 'castle'"],
    ),
    "unknown board kind": (
        "plan",
        _set("players", 0, "board", 0, "kind", "ship"),
        ["players[0].board[0].kind", "unknown card kind"],
    ),
    # ranges
    "negative goods": (
        "plan",
        _set("players", 0, "goods", "tea", -1),
        ["players[0].goods.tea", "out of range"],
    ),
    "tokens over 40": ("plan", _set("players", 0, "placed", 41), ["players[0].placed", "0..40"]),
    "round 13": ("plan", _set("round", 13), ["round", "out of range 1..12"]),
    "seat out of range": ("plan", _set("first_player", 3), ["first_player", "0..2"]),
    "slot out of range": (
        "plan",
        _set("execution", "governor_slot", {"region": "china", "slot": 2}),
        ["execution.governor_slot.slot", "out of range 0..1"],
    ),
    "short slot list": (
        "plan",
        lambda snap: snap["regions"]["europe"]["slots"].pop(),
        ["regions.europe.slots", "expected 4 entries"],
    ),
    "governor due 3": (
        "plan",
        _set("execution", "governor_due", 3),
        ["execution.governor_due", "0..2"],
    ),
    "order twice": ("plan", _set("order", [0, 0, 1]), ["order[1]", "twice"]),
    "empire hand out of order": (
        "setup",
        _empire_hand_unsorted,
        ["players[0].empire_hand[1]", "table order"],
    ),
    "cities used twice": ("merchant", _cities_used_twice, ["execution.cities_used[1]", "once"]),
    # cards
    "ten board cards": (
        "plan",
        _extra_building(10),
        ["players[0].board", "at most 9 entries"],
    ),
    "building in two places": (
        "plan",
        _market_building_on_board,
        ["buildings.market[0]", "also at players[0].board"],
    ),
    "city in two places": (
        "plan",
        _city_twice,
        ["regions.europe.slots[0]", "also at regions.europe.deck[0]"],
    ),
    "empire card lost": ("plan", _lost_empire_card, ["empire", "is missing"]),
    # tokens, markers, regions
    "token accounting": ("plan", _add("players", 1, "pool", 1), ["players[1].pool", "expected"]),
    "lost token vanishes": (
        "plan",
        _add("players", 2, "lost", 1),
        ["players[2].pool", "starting tokens"],
    ),
    "four markers": ("plan", _four_markers, ["regions", "markers on cities, at most 3"]),
    "ship in Europe": (
        "plan",
        _set("players", 0, "ships", "europe", 1),
        ["players[0].ships.europe", "END-R4"],
    ),
    "ships in a closed region": ("plan", _ships_in_a_closed_region, [".open", "with ships"]),
    "region opened out of route": (
        "setup",
        _open_out_of_route,
        ["regions.south_america.open", "caribbean must open first"],
    ),
    "marker on an empty slot": (
        "setup",
        _marker_on_empty_slot,
        ["regions.caribbean.slots[0].owner", "city card"],
    ),
    "upgrade without a marker": ("plan", _upgrade_unclaimed, [".upgraded", "settled"]),
    # roles
    "role twice": ("plan", _role_twice, ["players[0].roles.deck", "also in hand"]),
    "role missing": ("plan", _role_missing, ["players[0].roles", "missing role"]),
    "four roles in hand": ("plan", _four_roles_in_hand, ["players[0].roles.hand", "holds 4"]),
    # the phase and the pending decision
    "illegal action listed": ("plan", _illegal_done, ["pending.legal", "the rules give"]),
    "one legal action": ("plan", _one_legal_action, ["pending.legal", "at least 2"]),
    "action out of range": (
        "plan",
        _set("pending", "legal", [R.NUM_ACTIONS]),
        ["pending.legal[0]", "out of range"],
    ),
    "wrong decider": ("plan", _wrong_decider, ["pending.player"]),
    "pending missing mid-game": ("plan", _set("pending", None), ["pending", "needs a pending"]),
    "pending after the end": (
        "over",
        _set("pending", {"player": 0, "legal": [0, 1]}),
        ["pending", "expected null"],
    ),
    "role before choosing": ("plan", _role_before_choosing, ["role", "has not chosen"]),
    "role not in hand": ("tokens", _role_not_in_hand, ["role", "not in the player's hand"]),
    "sub-step while planning": (
        "plan",
        _set("sub_step", "governor_pay"),
        ["sub_step", "'plan_role' has no sub-step"],
    ),
    "home port for a Sailor": (
        "sailor",
        _set("sub_step", "home_port_good"),
        ["sub_step", "only the Merchant"],
    ),
    "took goods without collecting": (
        "paying",
        _set("execution", "took_goods", True),
        ["execution.took_goods", "only the Merchant"],
    ),
    "exec order": ("merchant", _swapped_exec_order, ["exec_order", "END-O3"]),
    "markets dealt during setup": (
        "setup",
        lambda snap: snap["empire"]["market"].__setitem__(0, snap["empire"]["deck"].pop()),
        ["empire.market", "after setup"],
    ),
    "empire card returned during the picks": (
        "setup",
        lambda snap: snap["empire"]["deck"].append(snap["players"][0]["empire_hand"].pop()),
        ["players[0].empire_hand", "expected 3"],
    ),
    "over but running": ("plan", _set("phase", "over"), ["phase", "terminated or truncated"]),
    "both ended": ("over", _set("truncated", True), ["truncated", "both"]),
    "cut off early": ("cut", _set("step_count", 100), ["step_count", "step cap"]),
    "winners mid-game": ("plan", _set("winners", [0]), ["winners", "only a finished game"]),
    "score mid-game": ("plan", _set("players", 0, "score", 3), ["players[0].score", "stay 0"]),
    "wrong winners": ("over", _wrong_winners, ["winners", "END-E3"]),
    "wrong score": ("over", _wrong_score, ["players[0].score", "END-E2"]),
    "winners when cut off": ("cut", _set("winners", [0]), ["winners", "cut off"]),
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
        from_dict(["endeavor"])


def _leaves(value, path=()):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, path + (key,))
    elif isinstance(value, list) and value:
        for i, item in enumerate(value):
            yield from _leaves(item, path + (i,))
    else:
        yield path, value


def test_from_dict_fails_only_with_snapshot_errors(positions):
    # Random edits of one value: accepted, or refused with a SnapshotError (never a crash).
    rng = np.random.default_rng(4)
    names = list(D.CITY_KEYS[:3]) + list(D.ROLES[:2]) + ["tea", "europe", "bank", "over"]
    replacements = [None, True, -1, 0, 1, 2, 3, 7, 99, "", [], {}, *names]
    refused = 0
    for states in positions[::25]:
        snap = to_dict(states, 0)
        leaves = list(_leaves(snap))
        for _ in range(40):
            path, _ = leaves[rng.integers(len(leaves))]
            edited = copy.deepcopy(snap)
            target = edited
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = replacements[rng.integers(len(replacements))]
            try:
                from_dict(edited)
            except SnapshotError:
                refused += 1
    assert refused > 200


# ---- action_to_string ----------------------------------------------------------------------------

GOOD = "(tea|coffee|spice|cocoa|sugar)"
# What the legal actions of each decision say (the verbs follow the END rules of each role).
PATTERNS = {
    ("start_city", "main", None): r"start in .+ \((Europe|West Africa) slot \d\)$",
    ("return_empire_card", "main", None): r"return \w.+$",
    (
        "plan_role",
        "main",
        None,
    ): r"choose (Sailor|Merchant|Craftsman|Commander|Politician|Governor)$",
    ("plan_tokens", "main", None): r"put (1 token|\d+ tokens)$",
    ("role", "main", "sailor"): r"send a ship to (West Africa|the Caribbean|South America|"
    r"India|Southeast Asia|China) \(cost [1-7]\)$|done$",
    ("role", "main", "merchant"): rf"collect (2 )?{GOOD} at \w.+$|collect at the home port$|done$",
    ("role", "home_port_good", "merchant"): rf"take {GOOD}$",
    ("role", "main", "craftsman"): r"buy \w.+ \([2-6] work\)$|buy city card \w.+$|"
    r"upgrade \w.+$|done$",
    ("role", "main", "commander"): r"attack player \d's ship in \w.+$|attack \w.+ \(player \d\)$|"
    r"done$",
    ("role", "main", "politician"): r"take \w.+ \([123] votes?\)$|done$",
    ("role", "main", "governor"): r"settle \w.+$|done$",
    ("role", "governor_pay", "governor"): rf"pay with {GOOD}$|pay a missing good with a token$",
    ("role", "governor_move", "governor"): r"move the marker from \w.+$",
}
assert set(PATTERNS) == DECISIONS


def test_every_legal_action_has_a_distinct_name(positions):
    checked = 0
    decisions = set()
    for states in positions:
        if _over(states):
            continue
        legal = _legal(states)
        names = [action_to_string(states, 0, int(a)) for a in legal]
        assert len(set(names)) == len(names), names
        decision = _decision(states)
        for text in names:
            assert re.match(PATTERNS[decision], text), (decision, text)
        decisions.add(decision)
        checked += len(names)
    assert decisions == DECISIONS and checked > 3000


def test_every_action_has_a_name_in_any_position(positions, truncated):
    for states in positions[::20] + truncated[:3]:
        names = [action_to_string(states, 0, a) for a in range(R.NUM_ACTIONS)]
        assert all(isinstance(text, str) and text for text in names)


def _role_position(role, seed=3, num_players=3):
    """A fresh game's record set to ``role`` being executed by player 0 with 5 strength."""
    states = _new_game(seed, num_players)
    s = states[0]
    s["phase"] = R.PH_ROLE
    s["current_player"] = 0
    s["role"][0] = role
    s["placed"][0] = 5
    s["strength"] = 5
    return states


def test_setup_and_planning_names():
    states = _new_game(3, 2)
    s = states[0]
    lisbon = D.CITY_ID["lisbon"]
    s["slot_city"][1] = lisbon  # Europe's second slot (END-R4: Europe's slots come first)
    assert action_to_string(states, 0, R.A_SLOT + 1) == "start in Lisbon (Europe slot 1)"
    goree = D.CITY_ID["goree"]
    s["slot_city"][4] = goree  # West Africa's first slot
    assert action_to_string(states, 0, R.A_SLOT + 4) == "start in Gorée (West Africa slot 0)"
    s["phase"] = R.PH_EMPIRE_RETURN
    act = R.A_EMPIRE + D.EMPIRE_ID["act_of_parliament"]
    assert action_to_string(states, 0, act) == "return Act of Parliament"
    s["phase"] = R.PH_PLAN_ROLE
    assert action_to_string(states, 0, R.A_ROLE + R.SAILOR) == "choose Sailor"
    assert action_to_string(states, 0, R.A_ROLE + R.GOVERNOR) == "choose Governor"
    s["phase"] = R.PH_PLAN_TOKENS
    assert action_to_string(states, 0, R.A_TOKENS + 4) == "put 4 tokens"
    assert action_to_string(states, 0, R.A_TOKENS + 1) == "put 1 token"
    assert action_to_string(states, 0, R.A_TOKENS) == "put 0 tokens"
    assert action_to_string(states, 0, R.A_DONE) == "done"


def test_role_names_read_the_position():
    states = _role_position(R.SAILOR)
    s = states[0]
    # END-R1: the Caribbean costs 3, China 7; a travel discount card takes 1 off (END-R3).
    caribbean, china = D.REGION_ID["caribbean"], D.REGION_ID["china"]
    assert action_to_string(states, 0, R.A_REGION + caribbean) == (
        "send a ship to the Caribbean (cost 3)"
    )
    s["board_kind"][0, 0] = R.K_EMPIRE
    s["board_id"][0, 0] = D.EMPIRE_ID["navigation_acts"]
    s["board_n"][0] = 1
    assert action_to_string(states, 0, R.A_REGION + china) == "send a ship to China (cost 6)"

    states = _role_position(R.MERCHANT)
    s = states[0]
    s["slot_city"][0] = D.CITY_ID["amsterdam"]  # produces coffee (cities table)
    s["slot_owner"][0] = 0
    assert action_to_string(states, 0, R.A_SLOT) == "collect coffee at Amsterdam"
    s["slot_upgraded"][0] = 1  # END-A2 R: an upgraded city gives 2
    assert action_to_string(states, 0, R.A_SLOT) == "collect 2 coffee at Amsterdam"
    assert action_to_string(states, 0, R.A_HOME) == "collect at the home port"
    s["sub"] = R.SUB_HOME_GOOD
    assert action_to_string(states, 0, R.A_GOOD + D.SUGAR) == "take sugar"

    states = _role_position(R.CRAFTSMAN)
    s = states[0]
    s["building_market"][2] = D.BUILDING_ID["bank"]  # 5 work (buildings table)
    assert action_to_string(states, 0, R.A_BUILDING + 2) == "buy Bank (5 work)"
    s["slot_city"][1] = D.CITY_ID["lisbon"]
    assert action_to_string(states, 0, R.A_SLOT + 1) == "buy city card Lisbon"
    assert action_to_string(states, 0, R.A_UPGRADE + 1) == "upgrade Lisbon"

    states = _role_position(R.COMMANDER)  # 3 players: seat +2 from player 0 is player 2
    s = states[0]
    india = D.REGION_ID["india"]
    attack = R.A_ATTACK_SHIP + india * R.MAXP + 2
    assert action_to_string(states, 0, attack) == "attack player 2's ship in India"
    goa_slot = int(R.FIRST_SLOT[india])
    s["slot_city"][goa_slot] = D.CITY_ID["goa"]
    s["slot_owner"][goa_slot] = 1
    assert action_to_string(states, 0, R.A_SLOT + goa_slot) == "attack Goa (player 1)"

    states = _role_position(R.POLITICIAN)
    act = R.A_EMPIRE + D.EMPIRE_ID["act_of_parliament"]  # vote cost 1 (empire table)
    assert action_to_string(states, 0, act) == "take Act of Parliament (1 vote)"
    crown = R.A_EMPIRE + D.EMPIRE_ID["crown_monopoly"]  # vote cost 3
    assert action_to_string(states, 0, crown) == "take Crown Monopoly (3 votes)"

    states = _role_position(R.GOVERNOR)
    s = states[0]
    s["slot_city"][goa_slot] = D.CITY_ID["goa"]
    assert action_to_string(states, 0, R.A_SLOT + goa_slot) == "settle Goa"
    s["sub"] = R.SUB_GOV_PAY
    assert action_to_string(states, 0, R.A_GOOD + D.TEA) == "pay with tea"
    assert action_to_string(states, 0, R.A_PAY_TOKEN) == "pay a missing good with a token"
    s["sub"] = R.SUB_GOV_MOVE
    s["slot_city"][2] = D.CITY_ID["bristol"]
    assert action_to_string(states, 0, R.A_SLOT + 2) == "move the marker from Bristol"


@pytest.mark.parametrize("action", [-1, R.NUM_ACTIONS, 10**6])
def test_action_to_string_rejects_out_of_range(action):
    with pytest.raises(ActionError, match="out of range"):
        action_to_string(_new_game(1, 2), 0, action)


@pytest.mark.parametrize("action", [1.0, "3", None, True])
def test_action_to_string_rejects_non_integers(action):
    with pytest.raises(ActionError, match="must be an integer"):
        action_to_string(_new_game(1, 2), 0, action)


# ---- render --------------------------------------------------------------------------------------


def test_render_mentions_every_player_and_the_decision(positions, truncated):
    seen = set()
    for states in positions[::10] + truncated[:2]:
        text = render(states, 0)
        s = states[0]
        n = int(s["num_players"])
        for p in range(n):
            assert f"player {p} (" in text
        assert f"player {n} (" not in text
        if s["terminated"]:
            assert "Game over" in text
        elif s["truncated"]:
            assert "truncated" in text
        else:
            assert f"To decide: player {int(s['current_player'])} (" in text
        for name in D.REGION_NAMES:
            assert name in text
        for k in range(R.N_SLOTS):
            if s["slot_city"][k] >= 0 and s["region_open"][R.SLOT_REGION[k]]:
                assert D.CITY_NAMES[int(s["slot_city"][k])] in text
        seen.add(n)
    assert seen == {2, 3, 4}
