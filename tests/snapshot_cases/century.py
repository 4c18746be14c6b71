"""Century: sampled positions and corrupt snapshots for the shared snapshot tests."""

import numpy as np
from snapshot_helpers import cut_at_step_cap, legal, play_and_sample, set_

from meeple_gym.century import rules as R
from meeple_gym.century import snapshot as codec
from meeple_gym.core.rng import game_key

GAME = "century"


def new_game(num_players, seed):
    states = np.zeros(1, R.STATE_DTYPE)
    R.init_game(states, 0, num_players, game_key(seed))
    return states


def over(states) -> bool:
    return states[0]["phase"] == R.PHASE_OVER


def step_random(states, rng):
    R.apply_action(states, 0, int(rng.choice(legal(R, states))))


def _step_claimer(states, rng):
    """Claims whenever it can and rarely buys, so points are scored while the market is full."""
    moves = legal(R, states)
    claims = moves[(moves >= R.A_CLAIM) & (moves < R.A_UPGRADE)]
    others = moves[(moves < R.A_ACQUIRE) | (moves >= R.A_REST)]
    if claims.size:
        moves = claims
    elif others.size and rng.random() < 0.9:
        moves = others
    R.apply_action(states, 0, int(rng.choice(moves)))


def sample(num_games=16, sample_rate=0.08, seed=7):
    """Random games (every other one by a claiming policy); copies of sampled positions plus
    every opening and final position."""
    rng = np.random.default_rng(seed)
    starts = (
        (new_game(R.MIN_PLAYERS + g % 4, seed * 1000 + g), _step_claimer if g % 2 else step_random)
        for g in range(num_games)
    )
    return play_and_sample(starts, over, lambda states: rng.random() < sample_rate, rng)


def truncate(positions):
    """CSR-E4: push sampled positions to one step below the cap, then take one more step."""
    return cut_at_step_cap(R, positions, 3, step_random, over)


# ---- what the shared tests check beyond the round trip -----------------------------------------


def round_trip_coverage(pairs):
    # The sample must reach every sub-decision and finished games, or the test proves little.
    assert {snap["phase"] for _, snap in pairs} == set(R.PHASE_NAMES)


def truncated_coverage(snaps):
    kinds = set()
    for snap in snaps:
        if snap["truncated"]:
            assert snap["phase"] == "over"
            kinds.add(None if snap["pending"] is None else snap["pending"]["phase"])
    # Cut-offs inside a sub-decision keep its fields (the kernel does not clear them).
    assert {None, "upgrade", "pay"} <= kinds


CONTINUE = {"stride": 4, "live": 10, "steps": 150}
REUSE = {"players": (5, 2), "steps": 0}


def reinit(states, num_players, seed):
    R.init_game(states, 0, num_players, game_key(seed))


def batch(positions, truncated):
    out = np.zeros(3, R.STATE_DTYPE)
    for g in range(3):
        R.init_game(out, g, 2 + g, game_key(100 + g))
    R.apply_action(out, 1, R.A_ACQUIRE + 2)  # game 1 now owes two cubes for slot 3
    assert codec.to_dict(out, 1)["pending"] == {"phase": "pay", "slot": 3, "paid": 0}
    return out


def untouched(positions):
    return positions[len(positions) // 2]


# No WRITES_EVERY_FIELD: to_dict writes names by index without a check of its own.


def unwritable(positions):
    states = positions[0].copy()
    states[0]["upgrades_left"] = 1  # no upgrade card is being played
    return [(states, "cannot snapshot: pending fields")]


def names_coverage(checked, keys):
    assert checked > 500


ANY_ACTION_STRIDE = 20

# ---- corrupt snapshots --------------------------------------------------------------------------


def bases(positions, truncated):
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
            return {"main": codec.to_dict(states, 0)}
    raise AssertionError("no suitable position in the sample")


def _owner_of_a_market_card(snap):
    for p, player in enumerate(snap["players"]):
        for pile in ("hand", "played"):
            for i, name in enumerate(player[pile]):
                if name not in ("+YY", "U2"):
                    return p, pile, i
    raise AssertionError("nobody owns a market card")


def _claimant(snap):
    return next(p for p, player in enumerate(snap["players"]) if player["point_cards"])


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


# name: (base, mutation, words the message must contain)
VALIDATION_CASES = {
    "missing key": ("main", lambda s: s.pop("rng"), ["snapshot", "missing key 'rng'"]),
    "missing player key": (
        "main",
        lambda s: s["players"][1].pop("silver"),
        ["players[1]", "'silver'"],
    ),
    "unknown key": ("main", set_("colour", "blue"), ["snapshot", "unknown key 'colour'"]),
    "unknown nested key": ("main", set_("players", 0, "bonus", 1), ["players[0]", "unknown key"]),
    "unknown cube colour": ("main", set_("market", 0, "cubes", "purple", 1), ["'purple'"]),
    "wrong type int": ("main", set_("turn_count", "12"), ["turn_count", "integer"]),
    "wrong type float": ("main", set_("step_count", 3.0), ["step_count", "integer"]),
    "wrong type bool": ("main", set_("terminated", 0), ["terminated", "true or false"]),
    "wrong type list": ("main", set_("players", {}), ["players", "list"]),
    "wrong type card": ("main", set_("merchant_deck", 0, 7), ["merchant_deck[0]", "string"]),
    "wrong game": ("main", set_("game", "chess"), ["game", "'chess'"]),
    "wrong version": ("main", set_("version", 2), ["version", "unsupported", "2"]),
    "bad rng": ("main", set_("rng", "12345"), ["rng", "hex digits"]),
    "unknown merchant": (
        "main",
        lambda s: s["players"][0]["hand"].append("YY>Q"),
        ["'YY>Q'", "unknown"],
    ),
    "unknown point card": ("main", set_("point_deck", 0, "QQQ"), ["point_deck[0]", "'QQQ'"]),
    "starting card in deck": ("main", set_("merchant_deck", 0, "+YY"), ["starting card"]),
    "negative caravan": (
        "main",
        set_("players", 1, "caravan", "red", -1),
        ["caravan.red", "negative"],
    ),
    "negative market cubes": (
        "main",
        _negative_market_cubes,
        ["market[1].cubes.green", "negative"],
    ),
    "current player index": (
        "main",
        lambda s: s.update(current_player=s["num_players"]),
        ["current_pl"],
    ),
    "first player index": ("main", set_("first_player", -1), ["first_player", "player index"]),
    "winner index": ("main", set_("winner", 9), ["winner", "player index"]),
    "too few player entries": ("main", _drop_player, ["players", "num_players"]),
    "num_players mismatch": ("main", _more_players, ["num_players"]),
    "num_players range": ("main", set_("num_players", 6), ["num_players", "2..5"]),
    "market card twice": ("main", _dup_market_card, ["duplicated", "market slot 1"]),
    "market card missing": ("main", _drop_deck_card, ["market cards missing"]),
    "owned card in deck": ("main", _owned_card_also_in_deck, ["duplicated", "merchant_deck"]),
    "card listed twice": ("main", _listed_twice, ["listed twice"]),
    "point card twice": ("main", _dup_point_card, ["point card", "duplicated", "point_row slot 1"]),
    "point card missing": ("main", _drop_point_card, ["point cards missing"]),
    "point value": ("main", _bad_points, ["point_row[0].points", "worth"]),
    "gold does not add up": ("main", _shift_gold, ["gold coins do not add up"]),
    "silver does not add up": ("main", _extra_silver_in_supply, ["silver coins do not add up"]),
    "starting card missing": ("main", _drop_starting_card, ["starting card 'U2'"]),
    "market order": ("main", _swap_market, ["market", "dealing order"]),
    "empty slot with deck left": ("main", _empty_market_slot, ["market", "empty slot"]),
    "caravan over 10 in main": ("main", _overfull_caravan, ["caravan", "main phase", "CSR-K1"]),
    "other caravan over 10": ("main", _overfull_other_caravan, ["caravan", "CSR-K1"]),
    "turn order": ("main", _wrong_turn_order, ["current_player", "turns"]),
    "score before the end": ("main", _score_while_live, ["score", "null"]),
    "flags vs phase": ("main", _truncated_but_live, ["phase", "truncated"]),
    "end flag": ("main", _end_flag_without_cards, ["end_triggered"]),
    "pending in main": ("main", _trade_pending_in_main, ["phase 'main'", "pending"]),
    "phase without pending": ("main", _upgrade_without_pending, ["'upgrade'", "pending"]),
    "phase vs pending kind": ("main", _upgrade_with_trade_pending, ["'upgrade'", "'trade'"]),
    "upgrade card not played": (
        "main",
        _pending_card_not_played,
        ["pending.card", "played pile"],
    ),
    "pay for the free slot": ("main", _pay_for_free_slot, ["pending.slot", "2..6"]),
    "pending extra key": ("main", _pending_extra_key, ["pending", "unknown key 'colour'"]),
    "discard without excess": ("main", _discard_without_excess, ["pending", "more than 10"]),
}
