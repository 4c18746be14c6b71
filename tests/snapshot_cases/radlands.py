"""Radlands: sampled positions, hand-built boards and corrupt snapshots for the shared
snapshot tests (the boards serve test_radlands_snapshot.py too)."""

import functools

import numpy as np
from snapshot_helpers import cut_at_step_cap, first, legal, play_and_sample, set_, true_keys

from meeple_gym.core.rng import game_key
from meeple_gym.radlands import data as D
from meeple_gym.radlands import rules as R
from meeple_gym.radlands import snapshot as codec

GAME = "radlands"
ALL_OPTIONS = range(16)  # every combination of the four OPTION_* bits


def new_game(num_players, seed, options=0):
    assert num_players == R.N_PLAYERS
    states = np.zeros(1, R.STATE_DTYPE)
    R.init_game(states, 0, 2, game_key(seed), np.int64(options))
    return states


def reinit(states, num_players, seed):
    R.init_game(states, 0, num_players, game_key(seed), np.int64(0))


def over(states) -> bool:
    return states[0]["phase"] == R.PHASE_OVER


def step_random(states, rng):
    """A random legal action; END_TURN only now and then so that boards fill up."""
    moves = legal(R, states)
    if moves.size > 1 and rng.random() < 0.8:
        moves = moves[moves != R.A_END_TURN]
    R.apply_action(states, 0, int(rng.choice(moves)))


def _interesting(s):
    deciding = s["phase"] == R.PHASE_DECISION
    return s["lift_uid"] != 0 or (deciding and (s["revealed_n"] > 0 or s["depth"] >= 3))


def sample(seeds_per_option=2, sample_rate=0.06, seed=5):
    """Random games under every option combination; copies of sampled positions (always the
    opening, the final position and positions with a lifted person, revealed cards or a deep
    effect stack)."""
    rng = np.random.default_rng(seed)
    starts = (
        (new_game(2, seed * 1000 + options * 10 + k, options), step_random)
        for options in ALL_OPTIONS
        for k in range(seeds_per_option)
    )

    def keep(states):
        return rng.random() < sample_rate or _interesting(states[0])

    return play_and_sample(starts, over, keep, rng)


def truncate(positions):
    """Positions pushed to one step below the cap, then one more step (not in the draft:
    its 6 steps never reach the cap)."""
    return cut_at_step_cap(R, positions, 7, step_random, over, skip=_in_draft)


def _in_draft(states) -> bool:
    return states[0]["phase"] == R.PHASE_DRAFT


# ---- hand-built positions ------------------------------------------------------------------------


def take_from_deck(s, t):
    """Remove one card of type t from the draw deck (keeps the 66 cards accounted for)."""
    n = int(s["deck_n"])
    k = int(np.flatnonzero(s["deck"][:n] == t)[0])
    s["deck"][k : n - 1] = s["deck"][k + 1 : n].copy()
    s["deck_n"] = n - 1


def put_person(s, p, c, t, punk=False):
    """Put a card from the deck into play at the front of column c (RAD-A1)."""
    take_from_deck(s, t)
    i = int(s["col_len"][p, c])
    s["ent_kind"][p, c, i] = R.PERSON
    s["ent_type"][p, c, i] = t
    s["ent_punk"][p, c, i] = punk
    s["ent_uid"][p, c, i] = s["next_uid"]
    s["next_uid"] += 1
    s["col_len"][p, c] = i + 1


def first_game_on_player_1(seed=4):
    """RAD-S3 first-game camps (0: Arcade, Mercenary Camp, Victory Totem; 1: Garage, Railgun,
    Supply Depot), moved on to player 1's actions phase."""
    states = new_game(2, seed, R.OPTION_FIRST_GAME_CAMPS)
    if states[0]["turn_player"] == 0:
        R.apply_action(states, 0, R.A_END_TURN)
    assert states[0]["phase"] == R.PHASE_ACTIONS and states[0]["turn_player"] == 1
    return states


ASSASSIN = D.DECK_TYPE_ID["assassin"]
SNIPER = D.DECK_TYPE_ID["sniper"]
BANISH = D.DECK_TYPE_ID["banish"]
BOMBARDMENT = D.DECK_TYPE_ID["bombardment"]
RAILGUN_USE = R.A_USE + (1 * 3 + 0) * 3 + 0  # player 1's column 2 holds Railgun, alone


@functools.cache
def _board():
    states = first_game_on_player_1()
    s = states[0]
    put_person(s, 0, 0, ASSASSIN)
    put_person(s, 0, 1, BANISH, punk=True)
    put_person(s, 1, 0, SNIPER)
    return states


def board():
    """Player 1 to act: player 0 has an Assassin (col 1) and a punk hiding a Banish (col 2),
    player 1 a Sniper (col 1), 3 water."""
    return _board().copy()


@functools.cache
def _railgun_target():
    states = board()
    assert RAILGUN_USE in legal(R, states)
    R.apply_action(states, 0, RAILGUN_USE)
    assert states[0]["phase"] == R.PHASE_DECISION
    return states


def railgun_target():
    """Player 1 used Railgun (damage, RAD-I2) and now picks the target."""
    return _railgun_target().copy()


# ---- what the shared tests check beyond the round trip -----------------------------------------


def round_trip_coverage(pairs):
    phases, options, features = set(), set(), set()
    for _, snap in pairs:
        phases.add(snap["phase"])
        opts = snap["options"]
        options.add((opts["raiders_slot"], opts["vera_vosh"], opts["zeto_khan"]))
        options.add(opts["first_game_camps"])
        vm = snap["vm"]
        features |= true_keys(
            {
                "lifted": vm["lifted"] is not None,
                "revealed": bool(vm["revealed"]),
                "internal frame": any("internal" in f for f in vm["frames"]),
                "nested frames": len(vm["frames"]) >= 3,
                "events phase decision": snap["in_events_phase"] and snap["pending"],
                "reshuffled": snap["reshuffled"],
                "punk": any(
                    e.get("punk") for pl in snap["players"] for col in pl["columns"] for e in col
                ),
            }
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


def truncated_coverage(snaps):
    decisions = 0
    for snap in snaps:
        if snap["truncated"]:
            assert snap["phase"] == "over" and snap["pending"] is None
            decisions += bool(snap["vm"]["frames"])
    assert decisions > 0  # a cut inside an effect keeps its frames


CONTINUE = {"stride": 25, "live": 20, "steps": 120}
REUSE = {"players": (2, 2), "steps": 60}  # the new game's record keeps leftovers of the old


def batch(positions, truncated):
    return np.concatenate([new_game(2, 1), railgun_target(), board()])


def untouched(positions):
    return railgun_target()


def _lifted(positions):
    lifted = next(p for p in positions if p[0]["lift_uid"] != 0)
    return [railgun_target(), lifted]


WRITES_EVERY_FIELD = (_lifted, 1500)


def unwritable(positions):
    states = board()
    states[0]["ent_uid"][0, 2, 2] = 99  # an empty place with a uid
    return [(states, "cannot snapshot")]


def names_coverage(checked, keys):
    assert checked > 1000


ANY_ACTION_STRIDE = 40

# ---- corrupt snapshots --------------------------------------------------------------------------


def bases(positions, truncated):
    finished = first(positions, lambda s: s["terminated"] == 1 and s["winner"] >= 0)
    return {
        "actions": codec.to_dict(board(), 0),
        "decision": codec.to_dict(railgun_target(), 0),
        "draft": codec.to_dict(new_game(2, 42), 0),
        "over": codec.to_dict(finished, 0),
    }


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
    "unknown key": ("actions", set_("colour", 1), ["snapshot", "unknown key 'colour'"]),
    "missing player key": (
        "actions",
        lambda s: s["players"][1].pop("queue"),
        ["players[1]", "missing key 'queue'"],
    ),
    "unknown entity key": (
        "actions",
        set_("players", 0, "columns", 0, 1, "hp", 2),
        ["players[0].columns[0][1]", "unknown key 'hp'"],
    ),
    "wrong game": ("actions", set_("game", "century"), ["game", "'century'"]),
    "wrong version": ("actions", set_("version", 2), ["version", "unsupported", "2"]),
    "bad rng": ("actions", set_("rng", "12345"), ["rng", "hex word"]),
    "water as a string": ("actions", set_("water", "3"), ["water", "integer", "'3'"]),
    "water as a bool": ("actions", set_("water", True), ["water", "integer"]),
    "negative water": ("actions", set_("water", -1), ["water", "-1", "out of range"]),
    "flag as an int": ("actions", set_("reshuffled", 0), ["reshuffled", "true or false"]),
    "players not a list": ("actions", set_("players", {}), ["players", "expected a list"]),
    "two columns": (
        "actions",
        lambda s: s["players"][0]["columns"].pop(),
        ["players[0].columns", "expected 3 entries, got 2"],
    ),
    "unknown phase": ("actions", set_("phase", "setup"), ["phase", "unknown phase 'setup'"]),
    "player index": ("actions", set_("first_player", 2), ["first_player", "player index 2"]),
    "Raiders slot": (
        "actions",
        set_("options", "raiders_slot", 1),
        ["options.raiders_slot", "1", "2..3"],
    ),
    "Vera reading": (
        "actions",
        set_("options", "vera_vosh", "always"),
        ["options.vera_vosh", "unknown reading 'always'"],
    ),
    "Zeto reading": (
        "actions",
        set_("options", "zeto_khan", 1),
        ["options.zeto_khan", "expected a string"],
    ),
    "first-game offers": (
        "actions",
        set_("draft", "offers", 0, ["Garage", "Railgun", "Supply Depot"]),
        ["draft.offers[0]", "first_game_camps", "Arcade"],
    ),
    "kept camp not offered": (
        "draft",
        set_("draft", "kept", 0, ["Nowhere Camp"]),
        ["draft.kept[0][0]", "unknown camp name 'Nowhere Camp'"],
    ),
    "kept before player 0 is done": (
        "draft",
        _kept_by_player_1_first,
        ["draft.kept", "only after player 0 has kept 3"],
    ),
    "draft with cards drawn": ("draft", _draft_with_cards, ["phase", "during the draft"]),
    "draft with people": ("draft", _draft_with_people, ["columns[0]", "stay empty"]),
    "draft decider": ("draft", set_("current_player", 1), ["current_player", "player 0"]),
    "unknown card in hand": (
        "actions",
        set_("players", 0, "hand", {"Joker": 1}),
        ["players[0].hand", "unknown card name 'Joker'"],
    ),
    "zero count in hand": (
        "actions",
        set_("players", 0, "hand", {"Banish": 0}),
        ["players[0].hand['Banish']", "count 0", "1..66"],
    ),
    "unknown camp": (
        "actions",
        set_("players", 0, "columns", 2, 0, "camp", "Castle"),
        ["players[0].columns[2][0].camp", "unknown camp name 'Castle'"],
    ),
    "camp not in its column": ("actions", _swap_camps, ["columns[0][0].camp", "'Arcade'"]),
    "camp state": (
        "actions",
        set_("players", 1, "columns", 1, 0, "state", "burning"),
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
        set_("players", 0, "columns", 0, 1, "uid", 10),
        ["columns[0][1].uid", "person uid 10", "7..9"],
    ),
    "camp uid range": (
        "actions",
        set_("players", 0, "columns", 0, 1, "uid", 3),
        ["columns[0][1].uid", "person uid 3"],
    ),
    "damaged punk": (
        "actions",
        set_("players", 0, "columns", 1, 1, "damaged", True),
        ["columns[1][1].damaged", "punk", "RAD-K3"],
    ),
    "face-up event in play": (
        "actions",
        set_("players", 0, "columns", 1, 1, "punk", False),
        ["columns[1][1].person", "'Banish' is an event"],
    ),
    "Vera flag under the other reading": (
        "actions",
        set_("players", 0, "columns", 0, 1, "vera_used", True),
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
        set_("players", 1, "juggernaut_moves", 1),
        ["players[1].juggernaut_moves", "no Juggernaut"],
    ),
    "person in a queue": (
        "actions",
        set_("players", 0, "queue", ["Assassin", None, None]),
        ["players[0].queue[0]", "'Assassin' is a person"],
    ),
    "bomb-0 event in a queue": (
        "actions",
        set_("players", 0, "queue", [None, "Truce", None]),
        ["players[0].queue[1]", "'Truce' has bomb 0", "RAD-A4"],
    ),
    "two Raiders": (
        "actions",
        set_("players", 1, "queue", ["Raiders", None, "Raiders"]),
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
        set_("leftovers", "frames_tail", [["x"] * 13]),
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
        set_("first_turn_done", False),
        ["first_turn_done", "RAD-T2"],
    ),
    "pending outside a decision": (
        "actions",
        set_("pending", {"decider": 1, "options": ["skip"]}),
        ["pending", "only the decision phase"],
    ),
    "score before the end": ("actions", set_("score", [3, 3]), ["score", "null"]),
    "winner before the end": ("actions", set_("winner", 0), ["winner", "terminated"]),
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
        set_("pending", None),
        ["pending", "needs a pending decision"],
    ),
    "decider mismatch": (
        "decision",
        set_("pending", "decider", 0),
        ["pending.decider", "current_player 1"],
    ),
    "no options": ("decision", set_("pending", "options", []), ["pending.options", "at least"]),
    "unknown option": (
        "decision",
        set_("pending", "options", ["fly away"]),
        ["pending.options[0]", "unknown action label 'fly away'"],
    ),
    "main action as option": (
        "decision",
        set_("pending", "options", ["end turn"]),
        ["pending.options[0]", "main action"],
    ),
    "option listed twice": (
        "decision",
        set_("pending", "options", ["skip", "skip"]),
        ["pending.options[1]", "twice"],
    ),
    "target on an empty place": (
        "decision",
        set_("pending", "options", ["target opp col 3 pos 2"]),
        ["pending.options", "not legal: ['target opp col 3 pos 2']", "rules give exactly"],
    ),
    "hand card not held": (
        "decision",
        set_("pending", "options", ["select Truce"]),
        ["pending.options", "not legal: ['select Truce']", "rules give exactly"],
    ),
    "queue slot empty": (
        "decision",
        set_("pending", "options", ["select opp slot 1"]),
        ["pending.options", "not legal: ['select opp slot 1']", "rules give exactly"],
    ),
    "mask kept twice": (
        "decision",
        set_("leftovers", "mask", ["skip"]),
        ["leftovers.mask", "pending.options"],
    ),
    "unknown program": (
        "decision",
        set_("vm", "frames", 0, "program", "Laser ability 1"),
        ["vm.frames[0].program", "unknown program 'Laser ability 1'"],
    ),
    "internal frame keys": (
        "decision",
        set_("vm", "frames", 0, {"internal": "teleport", "arg": 0}),
        ["vm.frames[0]", "missing key 'pc'"],
    ),
    "unknown internal op": ("decision", _internal_teleport, ["unknown internal op 'teleport'"]),
    "source uid not issued": (
        "decision",
        set_("vm", "frames", 0, "source_uid", 10),
        ["vm.frames[0].source_uid", "uid 10", "0..9"],
    ),
    "pc past the end": (
        "decision",
        set_("vm", "frames", 0, "pc", 5),
        ["vm.frames[0].pc", "pc 5", "0..1"],
    ),
    "end past the program": (
        "decision",
        set_("vm", "frames", 0, "end", 4),
        ["vm.frames[0].end", "end 4", "1..1"],
    ),
    "finished running frame": ("decision", _finished_frame, ["vm.frames[0]", "pc == end"]),
    "discarding a person": (
        "decision",
        set_("vm", "frames", 0, "then", "discard Assassin"),
        ["vm.frames[0].then", "only a resolved event"],
    ),
    "unknown then": (
        "decision",
        set_("vm", "frames", 0, "then", "explode"),
        ["vm.frames[0].then", "'explode'"],
    ),
    "stack in the actions phase": (
        "decision",
        _actions_with_stack,
        ["vm.frames", "empty in phase 'actions'"],
    ),
    "wrong winner": ("over", _wrong_winner, ["winner", "RAD-E1"]),
    "wrong score": ("over", _wrong_score, ["score", "undestroyed camps"]),
    "missing final score": ("over", set_("score", None), ["score", "final score"]),
    "over but live": ("over", set_("terminated", False), ["phase", "'over'"]),
}
