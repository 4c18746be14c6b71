"""Endeavor: sampled positions and corrupt snapshots for the shared snapshot tests."""

import re

import numpy as np
from snapshot_helpers import (
    add,
    cut_at_step_cap,
    delete,
    first,
    legal,
    play_and_sample,
    set_,
    true_keys,
)

from meeple_gym.core.rng import game_key
from meeple_gym.endeavor import data as D
from meeple_gym.endeavor import rules as R
from meeple_gym.endeavor import snapshot as codec
from meeple_gym.endeavor.snapshot import PHASES, SUB_STEPS

GAME = "endeavor"


def new_game(num_players, seed):
    states = np.zeros(1, R.STATE_DTYPE)
    R.init_game(states, 0, num_players, game_key(seed), 0)
    return states


def reinit(states, num_players, seed):
    R.init_game(states, 0, num_players, game_key(seed), 0)


def over(states) -> bool:
    return int(states[0]["phase"]) == R.PH_OVER


def step_random(states, rng):
    R.apply_action(states, 0, int(rng.choice(legal(R, states))))


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


def sample(games_per_count=12, sample_rate=0.05, seed=5):
    """Random games of 2-4 players: the opening, the end, sampled positions and, more
    often, the decisions seen least so far."""
    rng = np.random.default_rng(seed)
    seen = {key: 0 for key in DECISIONS}
    starts = (
        (new_game(n, seed * 1000 + n * 100 + k), step_random)
        for n in (2, 3, 4)
        for k in range(games_per_count)
    )

    def keep(states):
        key = _decision(states)
        kept = rng.random() < (0.5 if seen[key] < 20 else sample_rate)
        seen[key] += kept
        return kept

    return play_and_sample(starts, over, keep, rng, stop_at_end=True)


def truncate(positions):
    """Live positions pushed to one step below the step cap, then one more step."""
    # A step that ends the game by its rules (END-E1/E4) before the cap is left out.
    return cut_at_step_cap(R, positions, 6, step_random, over, drop_ended=True)


def any_slot(snap, test):
    return any(test(slot) for region in snap["regions"].values() for slot in region["slots"])


# ---- what the shared tests check beyond the round trip -----------------------------------------


def round_trip_coverage(pairs):
    counts, decisions, features = set(), set(), set()
    for states, snap in pairs:
        counts.add(snap["num_players"])
        if not over(states):
            decisions.add(_decision(states))
        players = snap["players"]
        features |= true_keys(
            {
                "ships": any(sum(p["ships"].values()) for p in players),
                "board": any(p["board"] for p in players),
                "lost tokens": any(p["lost"] for p in players),
                "far region open": snap["regions"]["china"]["open"],
                "upgraded": any_slot(snap, lambda slot: slot["upgraded"]),
                "roles aside": any(p["roles"]["aside"] for p in players),
                "single win": snap["winner"] is not None,
            }
        )
    assert counts == {2, 3, 4}
    assert decisions == DECISIONS
    assert len(features) == 7, features


def truncated_coverage(snaps):
    subs = set()
    for snap in snaps:
        assert snap["truncated"] and not snap["terminated"] and snap["phase"] == "over"
        assert snap["winners"] == [] and snap["pending"] is None
        subs.add(snap["sub_step"])
    assert len(snaps) > 20 and len(subs) >= 2  # cut off inside a sub-step too


CONTINUE = {"stride": 10, "live": 30, "steps": 60}
REUSE = {"players": (4, 2), "steps": 0}


def batch(positions, truncated):
    return np.concatenate(positions[50:54])


def untouched(positions):
    return first(positions, lambda s: s["phase"] == R.PH_ROLE)


def _role_and_over(positions):
    role = first(positions, lambda s: s["phase"] == R.PH_ROLE and s["num_players"] == 3)
    finished = first(positions, lambda s: s["terminated"] and s["num_players"] == 4)
    return [role, finished]


WRITES_EVERY_FIELD = (_role_and_over, 500)


def unwritable(positions):
    states = positions[1].copy()
    states[0]["empire_deck"][-1] = 3  # a card past the deck's count
    return [(states, "cannot snapshot: empire_deck")]


def named_positions(positions, truncated):
    return [states for states in positions if not over(states)]


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


def check_names(states, names):
    decision = _decision(states)
    for text in names:
        assert re.match(PATTERNS[decision], text), (decision, text)
    return decision


def names_coverage(checked, decisions):
    assert decisions == DECISIONS and checked > 3000


ANY_ACTION_STRIDE = 20

# ---- corrupt snapshots --------------------------------------------------------------------------


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
        "setup": codec.to_dict(new_game(3, 7), 0),
        "return": codec.to_dict(first(positions, lambda s: s["phase"] == R.PH_EMPIRE_RETURN), 0),
        "plan": codec.to_dict(first(positions, planning), 0),
        "tokens": codec.to_dict(first(positions, lambda s: live(s, R.PH_PLAN_TOKENS)), 0),
        "merchant": codec.to_dict(first(positions, merchant), 0),
        "sailor": codec.to_dict(first(positions, sailor), 0),
        "paying": codec.to_dict(first(positions, paying), 0),
        "over": codec.to_dict(first(positions, finished), 0),
        "cut": codec.to_dict(truncated[0], 0),
    }


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
    "wrong game": ("plan", set_("game", "everdell"), ["game", "'endeavor'"]),
    "wrong version": ("plan", set_("version", 2), ["version", "unsupported"]),
    "version as text": ("plan", set_("version", "1"), ["version", "expected an integer"]),
    "missing key": ("plan", delete("round"), ["snapshot", "missing key 'round'"]),
    "extra key": ("plan", set_("extra", 1), ["snapshot", "unknown key 'extra'"]),
    "missing player key": ("plan", delete("players", 0, "lost"), ["players[0]", "'lost'"]),
    "extra region key": (
        "plan",
        set_("regions", "europe", "ports", 2),
        ["regions.europe", "unknown key 'ports'"],
    ),
    "missing execution key": (
        "plan",
        delete("execution", "strength"),
        ["execution", "missing key 'strength'"],
    ),
    "five players": ("plan", set_("num_players", 5), ["num_players", "out of range 2..4"]),
    "one player": ("plan", set_("num_players", 1), ["num_players", "out of range 2..4"]),
    "player list length": (
        "plan",
        lambda snap: snap["players"].pop(),
        ["players", "num_players is 3"],
    ),
    "bad rng": ("plan", set_("rng", "12"), ["rng", "hex digits"]),
    "string step count": ("plan", set_("step_count", "3"), ["step_count", "expected an integer"]),
    "bool as int": ("plan", set_("players", 0, "pool", True), ["players[0].pool", "integer"]),
    "int as bool": ("plan", set_("terminated", 0), ["terminated", "expected true or false"]),
    "goods as list": (
        "plan",
        set_("players", 0, "goods", [0] * 5),
        ["players[0].goods", "expected an object"],
    ),
    # unknown names
    "unknown phase": ("plan", set_("phase", "siesta"), ["phase", "unknown phase 'siesta'"]),
    "unknown sub-step": ("plan", set_("sub_step", "nap"), ["sub_step", "unknown sub-step"]),
    "unknown role": (
        "plan",
        set_("players", 0, "roles", "hand", 0, "pirate"),
        ["players[0].roles.hand[0]", "unknown role 'pirate'"],
    ),
    "unknown good": (
        "plan",
        set_("players", 0, "goods", "silk", 1),
        ["players[0].goods", "unknown key 'silk'"],
    ),
    "unknown ship region": (
        "plan",
        set_("players", 0, "ships", "atlantis", 1),
        ["players[0].ships", "unknown key 'atlantis'"],
    ),
    "unknown slot region": ("plan", _unknown_slot_region, ["governor_slot.region", "'atlantis'"]),
    "unknown city": (
        "plan",
        set_("regions", "europe", "deck", 0, "paris"),
        ["regions.europe.deck[0]", "unknown city card 'paris'"],
    ),
    "city of another region": (
        "plan",
        set_("regions", "europe", "deck", 0, "goa"),
        ["regions.europe.deck[0]", "city of India"],
    ),
    "unknown empire card": (
        "plan",
        set_("empire", "deck", 0, "magna_carta"),
        ["empire.deck[0]", "unknown empire card"],
    ),
    "unknown building": (
        "plan",
        set_("buildings", "deck", 0, "castle"),
        ["buildings.deck[0]", "unknown building card 'castle'"],
    ),
    "unknown board kind": (
        "plan",
        set_("players", 0, "board", 0, "kind", "ship"),
        ["players[0].board[0].kind", "unknown card kind"],
    ),
    # ranges
    "negative goods": (
        "plan",
        set_("players", 0, "goods", "tea", -1),
        ["players[0].goods.tea", "out of range"],
    ),
    "tokens over 40": ("plan", set_("players", 0, "placed", 41), ["players[0].placed", "0..40"]),
    "round 13": ("plan", set_("round", 13), ["round", "out of range 1..12"]),
    "seat out of range": ("plan", set_("first_player", 3), ["first_player", "0..2"]),
    "slot out of range": (
        "plan",
        set_("execution", "governor_slot", {"region": "china", "slot": 2}),
        ["execution.governor_slot.slot", "out of range 0..1"],
    ),
    "short slot list": (
        "plan",
        lambda snap: snap["regions"]["europe"]["slots"].pop(),
        ["regions.europe.slots", "expected 4 entries"],
    ),
    "governor due 3": (
        "plan",
        set_("execution", "governor_due", 3),
        ["execution.governor_due", "0..2"],
    ),
    "order twice": ("plan", set_("order", [0, 0, 1]), ["order[1]", "twice"]),
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
    "token accounting": ("plan", add("players", 1, "pool", 1), ["players[1].pool", "expected"]),
    "lost token vanishes": (
        "plan",
        add("players", 2, "lost", 1),
        ["players[2].pool", "starting tokens"],
    ),
    "four markers": ("plan", _four_markers, ["regions", "markers on cities, at most 3"]),
    "ship in Europe": (
        "plan",
        set_("players", 0, "ships", "europe", 1),
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
        set_("pending", "legal", [R.NUM_ACTIONS]),
        ["pending.legal[0]", "out of range"],
    ),
    "wrong decider": ("plan", _wrong_decider, ["pending.player"]),
    "pending missing mid-game": ("plan", set_("pending", None), ["pending", "needs a pending"]),
    "pending after the end": (
        "over",
        set_("pending", {"player": 0, "legal": [0, 1]}),
        ["pending", "expected null"],
    ),
    "role before choosing": ("plan", _role_before_choosing, ["role", "has not chosen"]),
    "role not in hand": ("tokens", _role_not_in_hand, ["role", "not in the player's hand"]),
    "sub-step while planning": (
        "plan",
        set_("sub_step", "governor_pay"),
        ["sub_step", "'plan_role' has no sub-step"],
    ),
    "home port for a Sailor": (
        "sailor",
        set_("sub_step", "home_port_good"),
        ["sub_step", "only the Merchant"],
    ),
    "took goods without collecting": (
        "paying",
        set_("execution", "took_goods", True),
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
    "over but running": ("plan", set_("phase", "over"), ["phase", "terminated or truncated"]),
    "both ended": ("over", set_("truncated", True), ["truncated", "both"]),
    "cut off early": ("cut", set_("step_count", 100), ["step_count", "step cap"]),
    "winners mid-game": ("plan", set_("winners", [0]), ["winners", "only a finished game"]),
    "score mid-game": ("plan", set_("players", 0, "score", 3), ["players[0].score", "stay 0"]),
    "wrong winners": ("over", _wrong_winners, ["winners", "END-E3"]),
    "wrong score": ("over", _wrong_score, ["players[0].score", "END-E2"]),
    "winners when cut off": ("cut", set_("winners", [0]), ["winners", "cut off"]),
}
