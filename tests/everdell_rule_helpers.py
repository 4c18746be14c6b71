"""Position builders and action names for tests/test_everdell_rules.py.

A position is built by editing one ``STATE_DTYPE`` record (cities, hands, resources, workers,
board); the kernel is then driven only through ``legal_mask_into`` and ``apply_action``, and
``act`` checks that the kernel itself calls each action legal before applying it. Every one of
the 128 cards stays in exactly one place: cards put into hands, cities, the Meadow or under a
Dungeon are pulled out of the deck, which otherwise holds the cards in type order (its top is
the highest type id left).

Card and location facts used for expected values are restated in the tests from the printed
cards and the rule book; these helpers only name things.
"""

import numpy as np

# The builders and action ids both helper modules share, re-exported for the rule tests.
from everdell_scenarios import (  # noqa: F401
    card,
    city_card,
    city_code,
    give,
    number,
    pay,
    place_basic,
    play_hand,
    play_meadow,
    player,
    pull,
    resources,
    restock,
    reveal,
    score,
    set_resources,
    stack,
    worker,
)
from everdell_scenarios import meadow as meadow_position
from game_cases import act_checked, legal_set

from meeple_gym.core.rng import PyRng, game_key
from meeple_gym.everdell import data as D
from meeple_gym.everdell import rules as R

CARD = D.CARD_ID
EVENT = D.EVENT_ID
LOC = D.LOCATION_ID
WINTER, SPRING, SUMMER, AUTUMN = range(4)
TWIG, RESIN, PEBBLE, BERRY = range(4)
# Workers a player owns in each season (EVD-S5, EVD-F2..F4): 2, then +1, +1, +2.
WORKERS_IN = (2, 3, 4, 6)

# Common Constructions that cost resources: with no resources none of them is playable, so a
# blank position offers no Meadow play until a test hands out resources.
DEFAULT_MEADOW = (
    "farm",
    "farm",
    "mine",
    "twig_barge",
    "resin_refinery",
    "general_store",
    "storehouse",
    "farm",
)
# Forest cards with fixed gains (no sub-decision) unless a test asks for others.
DEFAULT_FOREST = (
    "forest_3_berry",
    "forest_2_berry_1_card",
    "forest_2_resin_1_twig",
    "forest_1_twig_1_resin_1_berry",
)
DEFAULT_SPECIALS = (
    "the_everdell_games",
    "tax_relief",
    "croak_wart_cure",
    "flying_doctor_service",
)


# ---- building positions ---------------------------------------------------------------------


def new_game(num_players=2, seed=0, options=0):
    # A recarray view: under NUMBA_DISABLE_JIT=1 the kernels run as plain Python and need
    # attribute access on records.
    states = np.zeros(1, R.STATE_DTYPE).view(np.recarray)
    R.init_game(states, 0, num_players, game_key(seed), options)
    return states


def deck_top(states, n=1):
    """The top ``n`` deck cards as keys, top first."""
    s = states[0]
    k = int(s["deck_n"])
    return [D.CARD_KEYS[int(t)] for t in s["deck"][k - n : k][::-1]]


def blank(
    num_players=2,
    *,
    season=WINTER,
    meadow=DEFAULT_MEADOW,
    forest=None,
    specials=DEFAULT_SPECIALS,
    options=0,
    seed=0,
):
    """A quiet position at the start of seat 0's turn.

    Empty hands, cities and supplies; every player in ``season`` with that season's workers,
    all free; the given Meadow, forest cards (the first 3 or 4 of ``DEFAULT_FOREST`` by player
    count) and dealt special events; nothing achieved. Solo keeps Rugwort's setup from
    ``init_game`` (his workers on the first forest card and the 3-twig space, year from
    ``options``).
    """
    states = new_game(num_players, seed, options)
    restock(states, meadow)
    s = states[0]
    s["season"][:] = 0
    s["workers"][:] = 0
    s["season"][:num_players] = season
    s["workers"][:num_players] = WORKERS_IN[season]
    s["wloc"][:] = R.W_FREE
    s["wperm"][:] = 0
    if forest is None:
        forest = DEFAULT_FOREST[: 4 if num_players >= 3 else 3]
    s["forest"][:] = -1
    for j, key in enumerate(forest):
        s["forest"][j] = LOC[key]
    for j, key in enumerate(specials):
        s["specials"][j] = EVENT[key]
    s["event_owner"][:] = -1
    s["event_store"][:] = 0
    s["first_player"] = 0
    turn_to(states, 0)
    return states


def turn_to(states, p):
    """Open a fresh turn for player ``p`` (no task running) and recompute its legal actions."""
    s = states[0]
    assert s["depth"] == 0, "a task is still running"
    s["turn_player"] = p
    s["current_player"] = p
    s["plays_this_turn"] = 0
    R._turn_mask(s, p)
    s["pend_kind"] = R.PK_TURN


def build(states, p, *keys):
    """Put cards into p's city (Rugwort's card counts in solo); returns their slots."""
    s = states[0]
    slots = []
    for key in keys:
        t = pull(states, key)
        if s["num_players"] == 1 and p == R.RUGWORT:
            s["rug_city"][t] += 1
            slots.append(-1)
            continue
        k = int(np.flatnonzero(s["city"][p] < 0)[0])
        s["city"][p, k] = t
        if key == "clock_tower":
            s["city_tokens"][p, k] = 3  # it enters the city with 3 point tokens
        slots.append(k)
    return slots


def slot_of(states, p, key):
    found = np.flatnonzero(states[0]["city"][p] == CARD[key])
    return int(found[0]) if len(found) else -1


def jail(states, p, *keys):
    """Put critters under p's Dungeon (cells in order)."""
    s = states[0]
    k = slot_of(states, p, "dungeon")
    for cell, key in enumerate(keys):
        s["city_jail"][p, k, cell] = pull(states, key)


def deploy(states, p, code=None, n=None):
    """Put ``n`` (default all) of p's free workers on location code ``code`` (default the
    shared 1-berry space)."""
    s = states[0]
    code = LOC["basic_1_berry"] if code is None else code
    free = [w for w in range(int(s["workers"][p])) if s["wloc"][p, w] == R.W_FREE]
    for w in free[: len(free) if n is None else n]:
        s["wloc"][p, w] = code


def free_workers(states, p):
    s = states[0]
    return sum(int(s["wloc"][p, w] == R.W_FREE) for w in range(int(s["workers"][p])))


def hand_of(states, p):
    """Player p's hand as {card key: count}."""
    return {D.CARD_KEYS[t]: int(v) for t, v in enumerate(states[0]["hand"][p]) if v}


def city_of(states, p):
    """Player p's city as a sorted list of card keys."""
    return sorted(D.CARD_KEYS[int(t)] for t in states[0]["city"][p] if t >= 0)


def meadow_of(states):
    return [D.CARD_KEYS[int(t)] if t >= 0 else None for t in states[0]["meadow"]]


def card_total(states):
    """Every card, wherever it is: must stay 128."""
    s = states[0]
    return (
        int(s["deck_n"])
        + int(s["discard_n"])
        + int(s["hand"].sum())
        + int((s["meadow"] >= 0).sum())
        + int((s["city"] >= 0).sum())
        + int((s["city_jail"] >= 0).sum())
        + int(s["rug_city"].sum())
        + int(s["tucked"])
        + int(s["revealed_n"])
    )


def event_points(states, p, key):
    return int(R.event_points(states[0], p, EVENT[key]))


def d8_roll(states):
    """The Meadow position (0..7) Rugwort's next d8 roll will give: the game's RNG stream
    replayed on a copy of its word."""
    return PyRng(int(states[0]["rng"][0])).randint(R.MEADOW)


# ---- driving the kernel ---------------------------------------------------------------------


def legal(states):
    return legal_set(R, states)


def act(states, *actions):
    """Apply each action after checking that the kernel itself calls it legal."""
    act_checked(R, states, actions)


def pending(states):
    """(decision kind, decider)."""
    return int(states[0]["pend_kind"]), int(states[0]["current_player"])


def choose_first(states, kind):
    """Answer decisions of ``kind`` with their lowest legal action while they last."""
    while pending(states)[0] == kind:
        act(states, min(legal(states)))


def place_forest(j):
    return R.A_PLACE_FOREST + j


def place_journey(points):
    """The Journey space worth ``points`` (5, 4, 3 or 2)."""
    return R.A_PLACE_JOURNEY + (5, 4, 3, 2).index(points)


def place_event(states, key):
    e = EVENT[key]
    if e in D.BASIC_EVENTS:
        return R.A_PLACE_EVENT + D.BASIC_EVENTS.index(e)
    j = [int(x) for x in states[0]["specials"]].index(e)
    return R.A_PLACE_EVENT + len(D.BASIC_EVENTS) + j


def place_city(states, p, owner, slot):
    """p's worker onto the card in ``owner``'s city slot ``slot``."""
    rel = (owner - p) % int(states[0]["seats"])
    return R.A_PLACE_CITY + rel * R.CITY_SLOTS + slot


def resource(r):
    return R.A_RESOURCE + r


# The rule tests' names ("meadow", a Meadow position, is also a parameter of blank()).
city, revealed, meadow = city_card, reveal, meadow_position


DONE = R.A_DONE
PREPARE = R.A_PREPARE
PASS = R.A_PASS
HAVEN = R.A_PLACE_HAVEN


# ---- EVD-E4: the rule book's 62-point example city ------------------------------------------

# Printed base points of the example city's cards (restated from the printed cards). The book
# gives only the totals; this city is one that matches them: 22 base points, a Husband-Wife
# pair (Wife +3), Architect with 2 leftover resin/pebble (+2), King with 1 basic and 2 special
# events (+5), 3 Destinations for Grand Tour, Inn + Bard for Performer in Residence and
# Monk + Dungeon (1 prisoner) for Ministering to Miscreants.
EXAMPLE_CITY = {
    "husband": 2,
    "wife": 2,
    "architect": 2,
    "king": 4,
    "inn": 2,
    "bard": 0,
    "monk": 0,
    "dungeon": 0,
    "post_office": 2,
    "lookout": 2,
    "farm": 1,
    "mine": 2,
    "teacher": 2,
    "crane": 1,
}
EXAMPLE_PRISONER = "shepherd"
EXAMPLE_EVENTS = ("performer_in_residence", "ministering_to_miscreants", "grand_tour")


def example_city():
    """Seat 0 of a 2-player game holds the example city, set field by field."""
    states = blank(
        2,
        season=AUTUMN,
        specials=(
            "performer_in_residence",
            "ministering_to_miscreants",
            "tax_relief",
            "the_everdell_games",
        ),
    )
    s = states[0]
    build(states, 0, *EXAMPLE_CITY)
    jail(states, 0, EXAMPLE_PRISONER)
    s["tokens"][0] = 14
    set_resources(states, 0, twig=3, resin=1, pebble=1, berry=2)  # Architect: 1 + 1
    for key in EXAMPLE_EVENTS:
        s["event_owner"][EVENT[key]] = 0
    s["event_store"][EVENT["performer_in_residence"]] = 6  # 3 berries parked, 2 points each
    s["wloc"][0, 0] = LOC["journey_4"]
    s["wperm"][0, 0] = 1
    turn_to(states, 0)
    return states


def example_city_snapshot():
    """The same city written as a snapshot dict by hand (envs/everdell/snapshot.py format):
    seat 0 in autumn with the example city, seat 1 still in winter with nothing."""
    used = list(EXAMPLE_CITY) + [EXAMPLE_PRISONER]
    meadow = list(DEFAULT_MEADOW)
    rest = []
    for key in D.CARD_KEYS:
        rest += [key] * int(D.CARD_COPIES[CARD[key]])
    for key in used + meadow:
        rest.remove(key)
    city = []
    for slot, key in enumerate(EXAMPLE_CITY):
        city.append(
            {
                "slot": slot,
                "card": key,
                "occupied": False,
                "tokens": 0,
                "store": {"twig": 0, "resin": 0, "pebble": 0, "berry": 0},
                "jail": [EXAMPLE_PRISONER if key == "dungeon" else None, None],
            }
        )
    free = {"where": "free", "permanent": False}
    journey = {"where": "location", "location": "journey_4", "permanent": True}
    you = {
        "hand": {},
        "hand_size": 0,
        "city": city,
        "resources": {"twig": 3, "resin": 1, "pebble": 1, "berry": 2},
        "tokens": 14,
        "season": "autumn",
        "workers": [journey] + [free] * 5,
        "passed": False,
        "score": 0,
    }
    other = {
        "hand": {},
        "hand_size": 0,
        "city": [],
        "resources": {"twig": 0, "resin": 0, "pebble": 0, "berry": 0},
        "tokens": 0,
        "season": "winter",
        "workers": [free] * 2,
        "passed": False,
        "score": 0,
    }

    def event(key, owner=None, store=0):
        return {"event": key, "owner": owner, "store": store}

    return {
        "game": "everdell",
        "version": 2,
        "num_players": 2,
        "options": {"rug_year": 1, "fool_bonuses": False, "pass_anytime": False},
        "first_player": 0,
        "turn_player": 0,
        "turn_count": 0,
        "step_count": 0,
        "plays_this_turn": 0,
        "terminated": False,
        "truncated": False,
        "winner": None,
        "players": [you, other],
        "rugwort": None,
        "deck": rest,
        "discard": [],
        "meadow": meadow,
        "forest": list(DEFAULT_FOREST[:3]),
        "events": {
            "basic": [
                event("cartographers_expedition"),
                event("city_monument"),
                event("grand_tour", 0),
                event("harvest_festival"),
            ],
            "special": [
                event("performer_in_residence", 0, 6),
                event("ministering_to_miscreants", 0),
                event("tax_relief"),
                event("the_everdell_games"),
            ],
        },
        "revealed": [],
        "tucked": 0,
        "stack": {"frames": [], "ret": 0},
        # The same turn as example_city()'s (from_dict accepts only the rules' own list).
        "pending": {"player": 0, "kind": "turn", "legal": sorted(legal(example_city()))},
        "leftovers": {"frames": []},
        "rng": "0x1",
    }
