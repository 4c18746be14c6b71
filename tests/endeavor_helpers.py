"""Position builders and action names for the Endeavor kernel tests.

A position is built by editing one ``STATE_DTYPE`` record of a fresh game from
``rules.init_game`` (slots, markers, ships, goods, board cards, markets, role hands); the kernel
is then driven only through ``legal_mask_into`` and ``apply_action``, and ``act`` checks that
the kernel itself calls each action legal before applying it. Cards moved by these helpers are
taken out of wherever they were (deck, slot, market, hand), so every card stays in one place.

Fields are read as ``s["name"]``, never ``s.name``: a NumPy record's ``round`` attribute is its
rounding method, not the field.
"""

import numpy as np
from game_cases import act_checked, legal_set

from meeple_gym.core.rng import game_key
from meeple_gym.endeavor import data as D
from meeple_gym.endeavor import rules as R

CITY = D.CITY_ID
EMPIRE = D.EMPIRE_ID
BUILDING = D.BUILDING_ID
REGION = D.REGION_ID
ROLE = {name: i for i, name in enumerate(D.ROLES)}
GOOD = {name: i for i, name in enumerate(D.GOODS)}
SAILOR, MERCHANT, CRAFTSMAN, COMMANDER, POLITICIAN, GOVERNOR = range(6)
KIND = {"city": R.K_CITY, "building": R.K_BUILDING, "empire": R.K_EMPIRE}

DONE = R.A_DONE
HOME = R.A_HOME
PAY_TOKEN = R.A_PAY_TOKEN


# ---- action names ---------------------------------------------------------------------------


def role(r):
    return R.A_ROLE + (ROLE[r] if isinstance(r, str) else r)


def tokens(t):
    return R.A_TOKENS + t


def slot(k):
    return R.A_SLOT + k


def empire(key):
    return R.A_EMPIRE + EMPIRE[key]


def region(key):
    return R.A_REGION + REGION[key]


def good(name):
    return R.A_GOOD + GOOD[name]


def building(i):
    """Buy the building at market position ``i``."""
    return R.A_BUILDING + i


def upgrade(k):
    return R.A_UPGRADE + k


def attack_ship(states, p, q, region_key):
    """p's Commander attacks one of q's ships in the region."""
    rel = (q - p) % int(states[0]["num_players"])
    return R.A_ATTACK_SHIP + REGION[region_key] * R.MAXP + rel


# ---- building positions ---------------------------------------------------------------------


def new_game(num_players=2, seed=0):
    # A recarray view: under NUMBA_DISABLE_JIT=1 the kernels need attribute access on records.
    states = np.zeros(1, R.STATE_DTYPE).view(np.recarray)
    R.init_game(states, 0, num_players, game_key(seed), 0)
    return states


def blank(num_players=2, seed=0):
    """Round 1 planning with seat 0 first and nothing claimed.

    Every city is in its region's deck in id order (top = highest id) and no slot shows a city;
    Europe and West Africa open; empire hands empty, the empire and building decks in id order
    with the markets dealt from their tops; every player holds the roles Sailor, Merchant and
    Craftsman (the others in the deck), no goods, ships, markers or board cards, and the
    player count's tokens.
    """
    states = new_game(num_players, seed)
    s = states[0]
    n = num_players
    s["first_player"] = 0
    s["order"][:] = -1
    s["order"][:n] = np.arange(n)
    for r in range(R.NR):
        s["region_deck"][r] = R.REGION_CITIES[r]
        s["region_deck_n"][r] = R.CITIES_PER_REGION
        s["region_open"][r] = R.OPEN_AT_START[r]
    s["slot_city"][:] = -1
    s["slot_owner"][:] = -1
    s["slot_upgraded"][:] = 0
    s["empire_hand"][:] = 0
    s["empire_deck"][:] = np.arange(R.NEMP)
    s["empire_deck_n"] = R.NEMP
    s["empire_market"][:] = -1
    s["building_deck"][:] = np.arange(R.NB)
    s["building_deck_n"] = R.NB
    s["building_market"][:] = -1
    R._refill_markets(s)
    for p in range(n):
        set_roles(states, p, (SAILOR, MERCHANT, CRAFTSMAN))
    s["round"] = 1
    R._start_planning(s)
    R._fill_mask(s)
    return states


def set_roles(states, p, hand):
    """p holds exactly the roles ``hand``; the others lie in the deck, none set aside."""
    s = states[0]
    s["role_hand"][p] = 0
    for r in hand:
        s["role_hand"][p, r] = 1
    rest = [r for r in range(R.N_ROLES) if r not in hand]
    s["role_deck"][p] = -1
    s["role_deck"][p, : len(rest)] = rest
    s["role_deck_n"][p] = len(rest)
    s["role_aside"][p] = 0


def ensure_role(states, p, r):
    """Swap role ``r`` into p's hand (from the deck or the set-aside pile) if it is not there."""
    s = states[0]
    if s["role_hand"][p, r]:
        return
    h = int(np.flatnonzero(s["role_hand"][p])[0])
    s["role_hand"][p, h] = 0
    s["role_hand"][p, r] = 1
    if s["role_aside"][p, r]:
        s["role_aside"][p, r] = 0
        s["role_aside"][p, h] = 1
    else:
        deck = s["role_deck"][p]
        deck[int(np.flatnonzero(deck[: s["role_deck_n"][p]] == r)[0])] = h


def region_slots(key):
    r = REGION[key] if isinstance(key, str) else key
    return [k for k in range(R.N_SLOTS) if R.SLOT_REGION[k] == r]


def _take_from(array, n, value):
    """Remove ``value`` from ``array[:n]`` keeping the order; returns the new count."""
    items = [int(x) for x in array[:n]]
    items.remove(value)
    array[: n - 1] = items
    array[n - 1] = -1
    return n - 1


def _take_city(states, c):
    s = states[0]
    r = int(R.CITY_REGION[c])
    n = int(s["region_deck_n"][r])
    if c in s["region_deck"][r, :n]:
        s["region_deck_n"][r] = _take_from(s["region_deck"][r], n, c)
        return
    k = int(np.flatnonzero(s["slot_city"] == c)[0])
    s["slot_city"][k] = -1
    s["slot_owner"][k] = -1
    s["slot_upgraded"][k] = 0


def _take_building(states, b):
    s = states[0]
    n = int(s["building_deck_n"])
    if b in s["building_deck"][:n]:
        s["building_deck_n"] = _take_from(s["building_deck"], n, b)
    else:
        s["building_market"][int(np.flatnonzero(s["building_market"] == b)[0])] = -1


def _take_empire(states, e):
    s = states[0]
    n = int(s["empire_deck_n"])
    if e in s["empire_deck"][:n]:
        s["empire_deck_n"] = _take_from(s["empire_deck"], n, e)
    elif e in s["empire_market"]:
        s["empire_market"][int(np.flatnonzero(s["empire_market"] == e)[0])] = -1
    else:
        holder = int(np.flatnonzero(s["empire_hand"][:, e])[0])
        s["empire_hand"][holder, e] = 0


def open_region(states, key):
    """Mark the region open (as if a ship had reached it); deals no city."""
    states[0]["region_open"][REGION[key]] = 1


def put_city(states, key, owner=-1, upgraded=False):
    """Put city ``key`` face up in a free slot of its region (opening it), with ``owner``'s
    marker (-1: unclaimed); returns the slot."""
    s = states[0]
    c = CITY[key]
    _take_city(states, c)
    r = int(R.CITY_REGION[c])
    s["region_open"][r] = 1
    free = [k for k in region_slots(r) if s["slot_city"][k] < 0]
    assert free, f"no free slot for {key}"
    k = free[0]
    s["slot_city"][k] = c
    s["slot_owner"][k] = owner
    s["slot_upgraded"][k] = int(upgraded)
    return k


def put_on_board(states, p, kind, key):
    """Put a card straight onto p's board (taken from wherever it is). The card's ability
    works from then on; an extra_tokens card adds no tokens this way (tests that need that
    take the card with a real action)."""
    s = states[0]
    if kind == "city":
        cid = CITY[key]
        _take_city(states, cid)
    elif kind == "building":
        cid = BUILDING[key]
        _take_building(states, cid)
    else:
        cid = EMPIRE[key]
        _take_empire(states, cid)
    i = int(s["board_n"][p])
    assert i < R.BOARD, "board full"
    s["board_kind"][p, i] = KIND[kind]
    s["board_id"][p, i] = cid
    s["board_n"][p] = i + 1


def set_building_market(states, *keys):
    """The building market shows ``keys`` in order (None: an empty position); the cards it
    showed before go back under the deck."""
    _set_market(states, "building", BUILDING, _take_building, keys)


def set_empire_market(states, *keys):
    """As ``set_building_market`` for the empire market."""
    _set_market(states, "empire", EMPIRE, _take_empire, keys)


def _set_market(states, kind, ids, take, keys):
    s = states[0]
    market = s[kind + "_market"]
    _clear_market(market, s, kind + "_deck")
    for i, key in enumerate(keys):
        if key is not None:
            take(states, ids[key])
            market[i] = ids[key]


def _clear_market(market, s, deck_field):
    deck = s[deck_field]
    for i in range(market.shape[0]):
        if market[i] >= 0:
            n = int(s[deck_field + "_n"])
            deck[1 : n + 1] = deck[:n].copy()
            deck[0] = market[i]
            s[deck_field + "_n"] = n + 1
            market[i] = -1


def give_empire(states, p, *keys):
    """Put empire cards into p's secret hand."""
    for key in keys:
        _take_empire(states, EMPIRE[key])
        states[0]["empire_hand"][p, EMPIRE[key]] = 1


def set_ships(states, p, key, n):
    """p has ``n`` ships in the region (opened); the tokens come from (or go back to) p's
    pool, as a ship's token does."""
    s = states[0]
    r = REGION[key]
    s["pool"][p] -= n - int(s["ships"][p, r])
    s["ships"][p, r] = n
    s["region_open"][r] = 1


def set_goods(states, p, **amounts):
    """p's goods, by name (``tea=2, spice=1``); the kinds not named become 0."""
    s = states[0]
    s["goods"][p] = 0
    for name, amount in amounts.items():
        s["goods"][p, GOOD[name]] = amount


def drain_city_decks(states, keep=None):
    """Empty every region's city deck except the top ``keep[region]`` cards (the rest are
    taken out of the game: only for end-of-game tests)."""
    s = states[0]
    keep = keep or {}
    for r in range(R.NR):
        k = keep.get(D.REGIONS[r], 0)
        n = int(s["region_deck_n"][r])
        s["region_deck"][r, :k] = s["region_deck"][r, n - k : n].copy()
        s["region_deck"][r, k:] = -1
        s["region_deck_n"][r] = k


# ---- reading a position ---------------------------------------------------------------------


def legal(states):
    return legal_set(R, states)


def pending(states):
    """(phase, sub-step, decider)."""
    s = states[0]
    return int(s["phase"]), int(s["sub"]), int(s["current_player"])


def deciding(states, p, phase=R.PH_ROLE):
    s = states[0]
    return int(s["phase"]) == phase and int(s["current_player"]) == p


def markers(states, p):
    return int((states[0]["slot_owner"] == p).sum())


def board_of(states, p):
    """p's board as a list of (kind name, card key)."""
    s = states[0]
    names = {R.K_CITY: ("city", D.CITY_KEYS), R.K_BUILDING: ("building", D.BUILDING_KEYS)}
    names[R.K_EMPIRE] = ("empire", D.EMPIRE_KEYS)
    out = []
    for i in range(int(s["board_n"][p])):
        kind, keys = names[int(s["board_kind"][p, i])]
        out.append((kind, keys[int(s["board_id"][p, i])]))
    return out


def score(states, p):
    return int(R.score_of(states[0], p))


def card_counts(s):
    """How many places hold each city, empire and building card (each must be 1)."""

    def held(size, *piles):  # each pile: card ids, -1 for an empty place
        counts = np.zeros(size, np.int64)
        for pile in piles:
            np.add.at(counts, pile[pile >= 0], 1)
        return counts

    decks = [s["region_deck"][r, : s["region_deck_n"][r]] for r in range(R.NR)]
    cities = held(R.NC, *decks, s["slot_city"])
    emp = held(R.NEMP, s["empire_deck"][: s["empire_deck_n"]], s["empire_market"])
    emp += s["empire_hand"].sum(axis=0)
    bld = held(R.NB, s["building_deck"][: s["building_deck_n"]], s["building_market"])
    tables = {R.K_CITY: cities, R.K_EMPIRE: emp, R.K_BUILDING: bld}
    for p in range(R.MAXP):
        for i in range(s["board_n"][p]):
            tables[int(s["board_kind"][p, i])][s["board_id"][p, i]] += 1
    return cities, emp, bld


def extra_tokens_on_board(s, p):
    """Tokens p's extra_tokens board cards added (END-B2, loader docstring)."""
    tables = {
        R.K_CITY: (D.CITY_ABILITY, D.CITY_ABILITY_ARG),
        R.K_BUILDING: (D.BUILDING_ABILITY, D.BUILDING_ABILITY_ARG),
        R.K_EMPIRE: (D.EMPIRE_ABILITY, D.EMPIRE_ABILITY_ARG),
    }
    total = 0
    for i in range(s["board_n"][p]):
        ability, arg = tables[int(s["board_kind"][p, i])]
        cid = s["board_id"][p, i]
        if ability[cid] == D.ABILITY_EXTRA_TOKENS:
            total += int(arg[cid])
    return total


# ---- driving the kernel ---------------------------------------------------------------------


def act(states, *actions):
    """Apply each action after checking that the kernel itself calls it legal."""
    act_checked(R, states, actions, where=pending)


def plan(states, roles, placed):
    """Play a whole planning phase: seat p picks ``roles[p]`` (swapped into its hand if need
    be) and puts ``placed[p]`` tokens on it, in planning order, each pick checked legal.
    Execution then starts; decisions with one legal action (a role with no strength) pass
    at once."""
    s = states[0]
    assert int(s["phase"]) == R.PH_PLAN_ROLE and int(s["pick_index"]) == 0
    n = int(s["num_players"])
    for p in range(n):
        ensure_role(states, p, roles[p])
    R._fill_mask(s)
    this_round = int(s["round"])
    planning = (R.PH_PLAN_ROLE, R.PH_PLAN_TOKENS)
    while int(s["phase"]) in planning and int(s["round"]) == this_round:
        p = int(s["current_player"])
        if int(s["phase"]) == R.PH_PLAN_ROLE:
            act(states, role(roles[p]))
        else:
            act(states, tokens(placed[p]))


def execution_order(states):
    """Press Done for every player who still has a role decision this round; returns the
    deciders in the order they came."""
    s = states[0]
    order = []
    start_round = int(s["round"])
    while int(s["phase"]) == R.PH_ROLE and int(s["round"]) == start_round:
        order.append(int(s["current_player"]))
        act(states, DONE)
    return order


def drain_empire_deck(states, keep=0):
    """Leave only the top ``keep`` cards in the empire deck (the rest are taken out of the
    game: only for end-of-game tests)."""
    s = states[0]
    n = int(s["empire_deck_n"])
    s["empire_deck"][:keep] = s["empire_deck"][n - keep : n].copy()
    s["empire_deck"][keep:] = -1
    s["empire_deck_n"] = keep
