"""Everdell: sampled positions and corrupt snapshots for the shared snapshot tests."""

import re

import numpy as np
from snapshot_helpers import cut_at_step_cap, delete, first, legal, play_and_sample, set_, true_keys

from meeple_gym.core.rng import game_key
from meeple_gym.everdell import data as D
from meeple_gym.everdell import rules as R
from meeple_gym.everdell import snapshot as codec
from meeple_gym.everdell.snapshot import DECISION_KINDS

GAME = "everdell"


def new_game(num_players, seed, options=0):
    states = np.zeros(1, R.STATE_DTYPE)
    R.init_game(states, 0, num_players, game_key(seed), np.int64(options))
    return states


def reinit(states, num_players, seed):
    R.init_game(states, 0, num_players, game_key(seed), np.int64(0))


def over(states) -> bool:
    return bool(states[0]["terminated"] or states[0]["truncated"])


def step_random(states, rng):
    """A random legal action; on a turn, favour playing cards so that cities grow."""
    moves = legal(R, states)
    if states[0]["pend_kind"] == R.PK_TURN and moves.size > 1:
        plays = moves[(moves >= R.A_PLAY_HAND) & (moves < R.A_PREPARE)]
        if plays.size and rng.random() < 0.5:
            moves = plays
    R.apply_action(states, 0, int(rng.choice(moves)))


def sample(games_per_count=15, sample_rate=0.04, seed=5):
    """Random games of 1-4 players (solo with every Rugwort year); copies of the opening, the
    end, sampled positions and, more often, rare decision kinds and deep task stacks."""
    rng = np.random.default_rng(seed)
    seen = np.zeros(R.N_PK, np.int64)
    starts = (
        (new_game(n, seed * 1000 + n * 100 + k, k % 3 + 1 if n == 1 else 0), step_random)
        for n in (1, 2, 3, 4)
        for k in range(games_per_count)
    )

    def keep(states):
        s = states[0]
        rare = seen[s["pend_kind"]] < 12 or s["depth"] >= 3 or s["revealed_n"] > 0
        kept = rng.random() < (0.5 if rare else sample_rate)
        seen[s["pend_kind"]] += kept
        return kept

    return play_and_sample(starts, over, keep, rng)


def truncate(positions):
    """Live positions pushed to one step below the step cap, then one more step."""
    return cut_at_step_cap(R, positions, 5, step_random, over)


def any_slot(snap, test):
    return any(test(slot) for player in snap["players"] for slot in player["city"])


# ---- what the shared tests check beyond the round trip -----------------------------------------


def round_trip_coverage(pairs):
    kinds, counts, features = set(), set(), set()
    for _, snap in pairs:
        counts.add(snap["num_players"])
        if snap["pending"] is not None:
            kinds.add(snap["pending"]["kind"])
        frames = snap["stack"]["frames"]
        features |= true_keys(
            {
                "nested tasks": len(frames) >= 3,
                "revealed": bool(snap["revealed"]),
                "leftovers": bool(snap["leftovers"]["frames"]),
                "tucked": snap["tucked"] > 0,
                "prisoner": any_slot(snap, lambda slot: slot["jail"][0] is not None),
                "occupied": any_slot(snap, lambda slot: slot["occupied"]),
                "card being paid for": any(f["task"] == "play" for f in frames),
                "finished": snap["terminated"],
            }
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


def truncated_coverage(snaps):
    cut_off = 0
    for snap in snaps:
        if snap["truncated"]:
            assert snap["pending"] is None
            cut_off += 1
    assert cut_off > 10


CONTINUE = {"stride": 20, "live": 20, "steps": 80}
REUSE = {"players": (3, 2), "steps": 0}


def batch(positions, truncated):
    return np.concatenate(positions[100:104])


def untouched(positions):
    return first(positions, lambda s: s["depth"] >= 2)


def _two_and_solo(positions):
    two = first(positions, lambda s: s["num_players"] == 2 and s["depth"] >= 2)
    solo = first(positions, lambda s: s["num_players"] == 1 and s["depth"] >= 1)
    return [two, solo]


WRITES_EVERY_FIELD = (_two_and_solo, 1500)


def unwritable(positions):
    states = positions[0].copy()
    states[0]["deck"][-1] = 3  # a card past the deck's count
    return [(states, "cannot snapshot: deck")]


def named_positions(positions, truncated):
    return positions + truncated


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


def check_names(states, names):
    kind = DECISION_KINDS[int(states[0]["pend_kind"])]
    for text in names:
        assert re.match(KIND_PATTERNS[kind], text), (kind, text)
    return kind


def names_coverage(checked, kinds):
    assert checked > 3000 and len(kinds) >= 24


ANY_ACTION_STRIDE = 50

# ---- corrupt snapshots --------------------------------------------------------------------------


def bases(positions, truncated):
    def turn_with_city(s):
        # 3 players, so that claiming 4 changes nothing before the players list is read
        live = not (s["terminated"] or s["truncated"])
        return live and s["num_players"] == 3 and s["depth"] == 0 and (s["city"][0] >= 0).sum() >= 3

    def stack(s):
        return s["depth"] >= 2 and s["num_players"] > 1

    return {
        "turn": codec.to_dict(first(positions, turn_with_city), 0),
        "stack": codec.to_dict(first(positions, stack), 0),
        "solo": codec.to_dict(
            first(positions, lambda s: s["num_players"] == 1 and s["step_count"]), 0
        ),
        "over": codec.to_dict(
            first(positions, lambda s: s["terminated"] and s["num_players"] > 2), 0
        ),
    }


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
    "wrong game": ("turn", set_("game", "radlands"), ["game", "'everdell'"]),
    "wrong version": ("turn", set_("version", 1), ["version", "unsupported"]),
    "missing key": ("turn", delete("tucked"), ["snapshot", "missing key 'tucked'"]),
    "extra key": ("turn", set_("extra", 1), ["snapshot", "unknown key 'extra'"]),
    "missing player key": (
        "turn",
        delete("players", 0, "passed"),
        ["players[0]", "missing key 'passed'"],
    ),
    "five players": ("turn", set_("num_players", 5), ["num_players", "out of range 1..4"]),
    "player list length": ("turn", set_("num_players", 4), ["players", "num_players is 4"]),
    "bad rug year": ("turn", set_("options", "rug_year", 4), ["options.rug_year", "1..3"]),
    "bad rng": ("turn", set_("rng", "12"), ["rng", "hex digits"]),
    "string count": ("turn", set_("turn_count", "3"), ["turn_count", "expected an integer"]),
    "bool as int": ("turn", set_("tucked", True), ["tucked", "expected an integer"]),
    "int as bool": ("turn", set_("terminated", 0), ["terminated", "expected true or false"]),
    "unknown hand card": (
        "turn",
        set_("players", 0, "hand", "dragon", 1),
        ["players[0].hand key", "unknown card 'dragon'"],
    ),
    "unknown deck card": ("turn", set_("deck", 0, "dragon"), ["deck[0]", "unknown card"]),
    "unknown meadow card": ("turn", set_("meadow", 3, "Farm"), ["meadow[3]", "unknown card"]),
    "short meadow": ("turn", set_("meadow", [None] * 7), ["meadow", "expected 8 entries"]),
    "unknown forest card": (
        "turn",
        set_("forest", 0, "forest_9_berry"),
        ["forest[0]", "unknown location 'forest_9_berry'"],
    ),
    "basic space in the forest": (
        "turn",
        set_("forest", 0, "basic_3_twig"),
        ["forest[0]", "not a forest location"],
    ),
    "unknown event": (
        "turn",
        set_("events", "special", 0, "event", "grand_party"),
        ["events.special[0].event", "unknown event 'grand_party'"],
    ),
    "basic events out of order": ("turn", _swap_basic_events, ["events.basic[0].event"]),
    "special dealt twice": ("turn", _special_twice, ["events.special[1].event", "dealt twice"]),
    "points on an unclaimed event": (
        "turn",
        set_("events", "basic", 0, "store", 3),
        ["events.basic[0].store", "nobody achieved"],
    ),
    "unknown season": (
        "turn",
        set_("players", 0, "season", "monsoon"),
        ["players[0].season", "unknown season 'monsoon'"],
    ),
    "negative resources": (
        "turn",
        set_("players", 0, "resources", "twig", -1),
        ["players[0].resources.twig", "out of range"],
    ),
    "missing resource": (
        "turn",
        delete("players", 0, "resources", "berry"),
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
        set_("players", 0, "city", 0, "slot", 22),
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
    "pending missing mid-game": ("turn", set_("pending", None), ["pending", "needs a pending"]),
    "unknown decision kind": (
        "turn",
        set_("pending", "kind", "bribe"),
        ["pending.kind", "unknown decision kind 'bribe'"],
    ),
    "action outside the decision": (
        "turn",
        _pay_choice_on_turn,
        ["pending.legal", f"action {R.A_PAY} is not a turn choice"],
    ),
    "action out of range": (
        "turn",
        set_("pending", "legal", [R.NUM_ACTIONS]),
        ["pending.legal[0]", "out of range"],
    ),
    "winner mid-game": ("turn", set_("winner", 0), ["winner", "only a finished game"]),
    "both ended": ("over", set_("truncated", True), ["truncated", "both"]),
    "wrong winner": ("over", _wrong_winner, ["winner", "EVD-E3"]),
    "unknown task": ("stack", _unknown_task, ["stack.frames[0].task", "unknown task 'dance'"]),
    "decider is not the actor": ("stack", _decider_not_actor, ["pending.player", "actor"]),
    "turn over a stack": ("stack", _turn_with_a_stack, ["stack.frames", "empty task stack"]),
    "bad leftover row": ("stack", _bad_leftover_row, ["leftovers.frames[0]", "13 entries"]),
    "solo without Rugwort": ("solo", set_("rugwort", None), ["rugwort", "expected an object"]),
    "Rugwort on a forest card": (
        "solo",
        set_("rugwort", "basic", "forest_3_berry"),
        ["rugwort.basic", "not a basic location"],
    ),
    "Rugwort's Meadow twice": (
        "solo",
        set_("rugwort", "meadow_blocked", [1, 1]),
        ["rugwort.meadow_blocked[1]", "twice"],
    ),
}
