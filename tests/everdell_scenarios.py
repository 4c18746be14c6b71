"""Builders for hand-made Everdell positions, shared by the Everdell scenario tests.

A position starts from ``rules.init_game`` and is then cleared to a blank mid-game board:
empty hands and cities, no resources, both starting workers free, winter, player 0 to act,
a fixed forest and fixed special events, a Meadow of 8 chosen cards and the rest of the 128
cards in the deck in type order. Builders then give cards, build cities, set resources and
place workers. Every card a builder uses is pulled out of the deck, so all 128 cards stay
accounted for (``card_total``).

The kernel is driven only through ``legal_mask_into`` / ``apply_action``; ``do`` checks that
the kernel itself calls each action legal. At a turn decision (no task running) the legal
mask is a pure function of the state, so ``legal`` recomputes it with the kernel's own turn
mask after builders have edited the record.
"""

import numpy as np
from game_cases import legal_set, pull_from_deck

from meeple_gym.core.rng import game_key
from meeple_gym.everdell import data as D
from meeple_gym.everdell import rules as R

CARD = D.CARD_ID
LOC = D.LOCATION_ID
EVENT = D.EVENT_ID
RES = {"twig": D.TWIG, "resin": D.RESIN, "pebble": D.PEBBLE, "berry": D.BERRY}

# Meadow filler: cards worth 4+ points (no Queen / Postal Pigeon target) costing 4+ resources.
# Castle and Palace use both copies (``set_meadow`` swaps one back into the deck); of the
# others one copy stays in the deck for tests that build with them.
FILLER_MEADOW = ("king", "queen", "doctor", "castle", "palace", "ever_tree", "castle", "palace")
FOREST = ("forest_3_berry", "forest_2_resin_1_twig", "forest_2_any", "forest_1_pebble_3_card")
SPECIALS = ("the_everdell_games", "croak_wart_cure", "graduation_of_scholars", "tax_relief")

DONE = R.A_DONE
PREPARE = R.A_PREPARE
PASS = R.A_PASS


# ---- building positions -------------------------------------------------------------------


def restock(states, meadow):
    """Empty hands and discard pile, the whole deck in type order, then the Meadow ``meadow``
    (card keys) dealt out of it: every card in exactly one place again."""
    s = states[0]
    s["hand"][:] = 0
    s["hand_n"][:] = 0
    s["deck"][:] = R.DECK_ORDER
    s["deck_n"] = R.DECK_SIZE
    s["discard"][:] = -1
    s["discard_n"] = 0
    s["meadow"][:] = -1
    for i, key in enumerate(meadow):
        s["meadow"][i] = pull(states, key)


def new_position(num_players=2, seed=0, options=0, meadow=FILLER_MEADOW):
    """A blank position (see the module docstring) with player 0 to act."""
    # A recarray view: the kernels also run as plain Python (NUMBA_DISABLE_JIT=1), where
    # records need attribute access.
    states = np.zeros(1, R.STATE_DTYPE).view(np.recarray)
    R.init_game(states, 0, num_players, game_key(seed), np.int64(options))
    restock(states, meadow)
    s = states[0]
    s["forest"][:] = -1
    for j in range(int(R.FOREST_DEALT[num_players])):
        s["forest"][j] = LOC[FOREST[j]]
    for j, key in enumerate(SPECIALS):
        s["specials"][j] = EVENT[key]
    s["first_player"] = 0
    turn(states, 0)
    return states


def pull(states, key):
    """Take one card ``key`` out of the deck (the copy nearest the top)."""
    t = CARD[key]
    n = pull_from_deck(states[0], t, key)
    states[0]["deck"][n - 1] = -1  # the freed slot reads empty
    return t


def stack(states, *keys):
    """Put these cards on top of the deck; ``keys[0]`` is drawn first."""
    s = states[0]
    for key in reversed(keys):
        t = pull(states, key)
        s["deck"][s["deck_n"]] = t
        s["deck_n"] += 1


def set_meadow(states, i, key):
    """Meadow position ``i`` holds ``key``; the card it held goes back to the deck bottom."""
    s = states[0]
    t = pull(states, key)
    old = int(s["meadow"][i])
    if old >= 0:
        n = int(s["deck_n"])
        s["deck"][1 : n + 1] = s["deck"][:n].copy()
        s["deck"][0] = old
        s["deck_n"] = n + 1
    s["meadow"][i] = t


def give(states, p, *keys):
    """Put these cards into p's hand."""
    s = states[0]
    for key in keys:
        s["hand"][p, pull(states, key)] += 1
        s["hand_n"][p] += 1


def build(states, p, *keys):
    """Put these cards into p's city (first free slots); returns their slots."""
    s = states[0]
    slots = []
    for key in keys:
        t = pull(states, key)
        k = int(np.flatnonzero(s["city"][p] < 0)[0])
        s["city"][p, k] = t
        slots.append(k)
    return slots if len(slots) != 1 else slots[0]


def rug_build(states, *keys):
    """Solo: put these cards into Rugwort's city."""
    for key in keys:
        states[0]["rug_city"][pull(states, key)] += 1


def to_discard(states, *keys):
    """Put these cards on the discard pile; the last one ends on top."""
    s = states[0]
    for key in keys:
        s["discard"][s["discard_n"]] = pull(states, key)
        s["discard_n"] += 1


def jail(states, p, dungeon_slot, key, cell=0):
    """A critter already held in a cell of p's Dungeon."""
    states[0]["city_jail"][p, dungeon_slot, cell] = pull(states, key)


def set_resources(states, p, twig=0, resin=0, pebble=0, berry=0):
    states[0]["resources"][p] = (twig, resin, pebble, berry)


def loc_code(key):
    """Worker location code of a basic / forest / Haven / Journey location."""
    return LOC[key]


def city_code(owner, slot):
    return R.W_CITY + owner * 32 + slot


def place_worker(states, p, code, permanent=False):
    """Put p's first free worker on ``code`` (no effect is resolved); returns its index."""
    s = states[0]
    for w in range(int(s["workers"][p])):
        if s["wloc"][p, w] == R.W_FREE:
            s["wloc"][p, w] = code
            s["wperm"][p, w] = int(permanent)
            return w
    raise AssertionError(f"player {p} has no free worker")


def turn(states, p):
    """Make it p's turn (nothing running); the mask is recomputed by ``legal``."""
    s = states[0]
    assert s["depth"] == 0, "a task is still running"
    s["turn_player"] = p
    s["current_player"] = p
    s["pend_kind"] = R.PK_TURN
    R._turn_mask(s, p)


# ---- reading positions --------------------------------------------------------------------


def legal(states):
    """The legal actions of the player to act, as a set."""
    s = states[0]
    if s["pend_kind"] == R.PK_TURN and s["depth"] == 0 and s["terminated"] == 0:
        R._turn_mask(s, int(s["current_player"]))  # the kernel's own turn mask
    return legal_set(R, states)


def do(states, *actions):
    """Apply each action after checking that the kernel calls it legal; between turns (no
    card held by a running task) the 128 cards must be accounted for."""
    for action in actions:
        options = legal(states)
        assert action in options, f"action {action} not legal (pending {pending(states)})"
        R.apply_action(states, 0, action)
        if states[0]["depth"] == 0:
            assert card_total(states) == R.DECK_SIZE


def pending(states):
    """(decision kind, decider)."""
    s = states[0]
    return int(s["pend_kind"]), int(s["current_player"])


def hand(states, p):
    return {D.CARD_KEYS[t]: int(n) for t, n in enumerate(states[0]["hand"][p]) if n}


def hand_size(states, p):
    s = states[0]
    assert int(s["hand"][p].sum()) == int(s["hand_n"][p])
    return int(s["hand_n"][p])


def city(states, p):
    """Keys of the cards in p's city, in slot order."""
    return [D.CARD_KEYS[int(t)] for t in states[0]["city"][p] if t >= 0]


def slot_of(states, p, key):
    found = np.flatnonzero(states[0]["city"][p] == CARD[key])
    return int(found[0]) if len(found) else None


def resources(states, p):
    """p's resources as (twig, resin, pebble, berry)."""
    return tuple(int(x) for x in states[0]["resources"][p])


def tokens(states, p):
    return int(states[0]["tokens"][p])


def discard_pile(states):
    s = states[0]
    return [D.CARD_KEYS[int(t)] for t in s["discard"][: int(s["discard_n"])]]


def meadow_cards(states):
    return [D.CARD_KEYS[int(t)] if t >= 0 else None for t in states[0]["meadow"]]


def top_of_deck(states, n=1):
    s = states[0]
    k = int(s["deck_n"])
    return [D.CARD_KEYS[int(t)] for t in s["deck"][k - n : k][::-1]]


def revealed(states):
    s = states[0]
    return [D.CARD_KEYS[int(t)] for t in s["revealed"][: int(s["revealed_n"])]]


def score(states, p):
    return int(R.score_of(states[0], p))


def card_total(states):
    """Every card wherever it is: deck, discard, Meadow, hands, cities, Dungeons, Rugwort,
    revealed, tucked under events. Always 128."""
    s = states[0]
    return (
        int(s["deck_n"])
        + int(s["discard_n"])
        + int((s["meadow"] >= 0).sum())
        + int(s["hand"].sum())
        + int((s["city"] >= 0).sum())
        + int((s["city_jail"] >= 0).sum())
        + int(s["rug_city"].sum())
        + int(s["revealed_n"])
        + int(s["tucked"])
    )


# ---- action ids ---------------------------------------------------------------------------


def play_hand(key):
    return R.A_PLAY_HAND + CARD[key]


def play_meadow(i):
    return R.A_PLAY_MEADOW + i


def place_basic(key):
    return R.A_PLACE_BASIC + D.BASIC_LOCATIONS.index(LOC[key])


def place_forest(position):
    return R.A_PLACE_FOREST + position


def place_city(slot, rel=0):
    """A worker onto slot ``slot`` of the city ``rel`` seats after the decider."""
    return R.A_PLACE_CITY + rel * R.CITY_SLOTS + slot


def pay(method):
    return R.A_PAY + method


def resource(name):
    return R.A_RESOURCE + RES[name]


def card(key):
    return R.A_CARD + CARD[key]


def meadow(i):
    return R.A_MEADOW + i


def city_card(slot, rel=0):
    return R.A_CITY + rel * R.CITY_SLOTS + slot


def player(rel):
    return R.A_PLAYER + rel


def reveal(i):
    return R.A_REVEALED + i


def worker(w):
    return R.A_WORKER + w


def number(n):
    return R.A_NUMBER + n
