"""Everdell rules kernel: every EVD rule of ../docs/everdell.md over one NumPy record per game.

A game is one record of ``STATE_DTYPE``. Every choice is one step in a fixed action space
(``NUM_ACTIONS``): a turn's action (place a worker, play a card, prepare for season, pass) and
every sub-decision it leads to (how to pay, which resources, which cards, which opponent,
which card to copy). Multi-step effects run on a small task stack (``fr_*`` fields): a task
either finishes, pushes another task, or stops with a decision (``pend_kind`` and the legal
actions in ``pend_mask``). A decision with one legal action is taken automatically.

Solo (``num_players == 1``): seat 1 is Rugwort, the automated opponent (docs/everdell.md,
"Solo"); he has a city, workers that block spaces and a score, but never decides anything:
his moves come from the game's RNG (the d8) and fixed rules.
"""

import numpy as np
from numba import types

from meeple_gym.core.jit import array_arg, kernel, record_arg, standalone_kernel
from meeple_gym.core.masks import _single_action
from meeple_gym.core.records import clear_record, copy_values
from meeple_gym.core.rng import randint, shuffle
from meeple_gym.core.stepping import batch_kernels
from meeple_gym.everdell import data as D

# ---- sizes -----------------------------------------------------------------------------------
MAXP = 4
NT = D.N_CARD_TYPES  # 48 card types
NE = D.N_EVENTS  # 20 events
NL = D.N_LOCATIONS
DECK_SIZE = D.DECK_SIZE  # 128
CITY_SLOTS = 22  # 15 spaces + 3 Wanderers + 4 Husband/Wife sharing a space
HAND_LIMIT = D.HAND_LIMIT
CITY_LIMIT = D.CITY_LIMIT
MEADOW = D.MEADOW_SIZE
MAX_WORKERS = D.MAX_WORKERS
MAX_FOREST = 4
N_SPECIAL_DEALT = D.SPECIAL_EVENTS_DEALT
MAX_FRAMES = 16
STEP_CAP = 5000  # sub-decisions; a game past it is truncated (engine safety, no EVD rule)
RUGWORT = 1  # seat of the solo opponent

# ---- count bounds (snapshots refuse more; envs/everdell/snapshot.py) -------------------------
# EVD-S1 has no supply limit, so resources, point tokens and Storehouse stock are bounded by
# the game's length instead. One step adds at most a few dozen to any count (the largest
# single gains: a Barge Toad's 2 twigs per Farm, 8 Farms in the deck; a production round fires
# one chosen card per step), so STEP_CAP steps stay far below COUNT_MAX. Above it, int32
# counters leave room for a whole game of worst-case steps even when every step also empties
# a Storehouse or pays out a Chapel (each below COUNT_MAX): COUNT_MAX + STEP_CAP * (2 *
# COUNT_MAX + 352) < 2**31, so no legal step from an accepted snapshot can wrap.
COUNT_MAX = 100_000
# A Chapel gains one token per visit and a visit takes a step, so a game gives at most
# STEP_CAP; int16 holds twice that.
CHAPEL_TOKENS_MAX = STEP_CAP
# A Storehouse's stock grows by at most 3 (twigs) per production of that card, and it fires at
# most once per step (Chip Sweep and Miner Mole cannot copy it), so a game adds at most
# 3 * STEP_CAP; int16 holds twice that.
STORE_MAX = 3 * STEP_CAP
# Cards put into play in one turn: each one moves into a city (a solo Fool to the discard
# pile) and only a few one-shot effects take cards out again, so a turn plays far fewer than
# the deck's 128; int16 holds it with room (Rugwort plays as many, solo).
PLAYS_MAX = DECK_SIZE

# ---- tables as kernel constants --------------------------------------------------------------
KIND = D.CARD_KIND.astype(np.int8)
COLOR = D.CARD_COLOR.astype(np.int8)
UNIQUE = D.CARD_UNIQUE.astype(np.int8)
COPIES = D.CARD_COPIES.astype(np.int8)
COST = D.CARD_COST.astype(np.int16)
POINTS = D.CARD_POINTS.astype(np.int16)
CITY_SPACE = D.CARD_CITY_SPACE.astype(np.int8)
OPEN = D.CARD_OPEN.astype(np.int8)
HOME = D.CRITTER_HOME.astype(np.int8)
EV_SPECIAL = D.EVENT_IS_SPECIAL.astype(np.int8)
EV_REQ_COLOR = D.EVENT_REQ_COLOR.astype(np.int8)
EV_REQ_COUNT = D.EVENT_REQ_COUNT.astype(np.int8)
EV_REQ_CARDS = D.EVENT_REQ_CARDS.astype(np.int8)
EV_COST_BERRY = D.EVENT_COST_BERRY.astype(np.int16)
EV_POINTS = D.EVENT_POINTS.astype(np.int16)
EV_MAX = D.EVENT_MAX_POINTS.astype(np.int16)
LOC_KIND = D.LOCATION_KIND.astype(np.int8)
LOC_EXCLUSIVE = D.LOCATION_EXCLUSIVE.astype(np.int8)
LOC_GAIN = D.LOCATION_GAIN.astype(np.int16)
LOC_ANY = D.LOCATION_ANY.astype(np.int8)
LOC_CARDS = D.LOCATION_CARDS.astype(np.int8)
LOC_POINTS = D.LOCATION_POINTS.astype(np.int8)
LOC_DISCARD = D.LOCATION_DISCARD.astype(np.int8)
SEASON_NEW_WORKERS = D.SEASON_NEW_WORKERS.astype(np.int8)
SEASON_PRODUCTION = D.SEASON_PRODUCTION.astype(np.int8)
BASIC_LOCS = np.array(D.BASIC_LOCATIONS, np.int8)
FOREST_LOCS = np.array(D.FOREST_LOCATIONS, np.int8)
JOURNEY_LOCS = np.array(D.JOURNEY_LOCATIONS, np.int8)
SPECIAL_EVENTS = np.array(D.SPECIAL_EVENTS, np.int8)
N_BASIC = len(D.BASIC_LOCATIONS)
N_FOREST_TYPES = len(D.FOREST_LOCATIONS)
N_JOURNEY = len(D.JOURNEY_LOCATIONS)
N_BASIC_EVENTS = len(D.BASIC_EVENTS)
HAVEN = D.HAVEN
FOREST_DEALT = np.array([D.FOREST_DEALT[n] for n in (1, 1, 2, 3, 4)], np.int8)  # by count
# The deck in type order: DECK_ORDER[k] = type of the k-th card before shuffling.
DECK_ORDER = np.repeat(np.arange(NT, dtype=np.int8), D.CARD_COPIES.astype(np.int64))

TWIG, RESIN, PEBBLE, BERRY = D.TWIG, D.RESIN, D.PEBBLE, D.BERRY
CRITTER, CONSTRUCTION = D.CRITTER, D.CONSTRUCTION
TRAVELER, PRODUCTION, DESTINATION, GOVERNANCE, PROSPERITY = range(5)
WINTER, SPRING, SUMMER, AUTUMN = range(4)

_C = D.CARD_ID
ARCHITECT = _C["architect"]
BARD = _C["bard"]
BARGE_TOAD = _C["barge_toad"]
CASTLE = _C["castle"]
CEMETERY = _C["cemetery"]
CHAPEL = _C["chapel"]
CHIP_SWEEP = _C["chip_sweep"]
CLOCK_TOWER = _C["clock_tower"]
COURTHOUSE = _C["courthouse"]
CRANE = _C["crane"]
DOCTOR = _C["doctor"]
DUNGEON = _C["dungeon"]
EVER_TREE = _C["ever_tree"]
FAIRGROUNDS = _C["fairgrounds"]
FARM = _C["farm"]
FOOL = _C["fool"]
GENERAL_STORE = _C["general_store"]
HISTORIAN = _C["historian"]
HUSBAND = _C["husband"]
INN = _C["inn"]
INNKEEPER = _C["innkeeper"]
JUDGE = _C["judge"]
KING = _C["king"]
LOOKOUT = _C["lookout"]
MINE = _C["mine"]
MINER_MOLE = _C["miner_mole"]
MONASTERY = _C["monastery"]
MONK = _C["monk"]
PALACE = _C["palace"]
PEDDLER = _C["peddler"]
POST_OFFICE = _C["post_office"]
POSTAL_PIGEON = _C["postal_pigeon"]
QUEEN = _C["queen"]
RANGER = _C["ranger"]
RESIN_REFINERY = _C["resin_refinery"]
RUINS = _C["ruins"]
SCHOOL = _C["school"]
SHEPHERD = _C["shepherd"]
SHOPKEEPER = _C["shopkeeper"]
STOREHOUSE = _C["storehouse"]
TEACHER = _C["teacher"]
THEATER = _C["theater"]
TWIG_BARGE = _C["twig_barge"]
UNDERTAKER = _C["undertaker"]
UNIVERSITY = _C["university"]
WANDERER = _C["wanderer"]
WIFE = _C["wife"]
WOODCARVER = _C["woodcarver"]

_E = D.EVENT_ID
EV_MARKETING = _E["a_brilliant_marketing_plan"]
EV_WEE_RUN = _E["a_wee_run_city"]
EV_FIREWORKS = _E["an_evening_of_fireworks"]
EV_SCROLLS = _E["ancient_scrolls_discovered"]
EV_ACORN = _E["capture_of_the_acorn_thieves"]
EV_CROAK = _E["croak_wart_cure"]
EV_FLYING_DOCTOR = _E["flying_doctor_service"]
EV_GRADUATION = _E["graduation_of_scholars"]
EV_MINISTERING = _E["ministering_to_miscreants"]
EV_PILGRIMS = _E["path_of_the_pilgrims"]
EV_PERFORMER = _E["performer_in_residence"]
EV_CHAPEL_CEILING = _E["pristine_chapel_ceiling"]
EV_FALLEN = _E["remembering_the_fallen"]
EV_TAX_RELIEF = _E["tax_relief"]
EV_GAMES = _E["the_everdell_games"]
EV_NEW_MANAGEMENT = _E["under_new_management"]

_L = D.LOCATION_ID
LOC_3_TWIG = _L["basic_3_twig"]
LOC_2_RESIN = _L["basic_2_resin"]
LOC_1_PEBBLE = _L["basic_1_pebble"]
LOC_BERRY_CARD = _L["basic_1_berry_1_card"]
F_DISCARD_DRAW = _L["forest_discard_any_draw_2_each"]
F_DISCARD_GAIN = _L["forest_discard_up_to_3_gain_any_each"]
F_COPY_BASIC = _L["forest_copy_basic_and_draw_1"]
F_MEADOW_PICK = _L["forest_take_2_meadow_play_1_discounted"]

# ---- options (packed by envs/everdell/spec.py) -----------------------------------------------
OPTION_YEAR_SHIFT = 0  # bits 0-1: Rugwort's year 1..3 (0 means 1)
OPTION_FOOL_BONUSES = 4  # bit 2: Historian / Shopkeeper pay for a Fool sent to an opponent
OPTION_PASS_ANYTIME = 8  # bit 3: the literal "pass at any time" reading of EVD-E1

# ---- actions ---------------------------------------------------------------------------------
# Turn actions (EVD-T1) first, then the sub-decision groups. Location groups are reused by
# sub-decisions that pick a location (Lookout, Clock Tower, Ranger, the copy-basic forest card).
A_PLACE_BASIC = 0  # + basic location 0..7
A_PLACE_FOREST = A_PLACE_BASIC + N_BASIC  # + forest position 0..3
A_PLACE_HAVEN = A_PLACE_FOREST + MAX_FOREST
A_PLACE_JOURNEY = A_PLACE_HAVEN + 1  # + 0..3 = the 5, 4, 3, 2 point spaces
A_PLACE_EVENT = A_PLACE_JOURNEY + N_JOURNEY  # + 0..3 basic events, 4..7 dealt special events
A_PLACE_CITY = A_PLACE_EVENT + N_BASIC_EVENTS + N_SPECIAL_DEALT  # + rel * CITY_SLOTS + slot
A_PLACE_RUGWORT = A_PLACE_CITY + MAXP * CITY_SLOTS  # + 0: an Inn, 1: a Post Office of Rugwort
A_PLAY_HAND = A_PLACE_RUGWORT + 2  # + card type
A_PLAY_MEADOW = A_PLAY_HAND + NT  # + Meadow position
A_PREPARE = A_PLAY_MEADOW + MEADOW
A_PASS = A_PREPARE + 1
A_PAY = A_PASS + 1  # + payment method (PAY_*)
A_RESOURCE = A_PAY + 7  # + resource
A_CARD = A_RESOURCE + 4  # + card type (own hand, or Rugwort's city)
A_MEADOW = A_CARD + NT  # + Meadow position
A_CITY = A_MEADOW + MEADOW  # + rel * CITY_SLOTS + slot
A_PLAYER = A_CITY + MAXP * CITY_SLOTS  # + rel seat (1..3)
A_REVEALED = A_PLAYER + MAXP  # + index into the revealed cards
A_WORKER = A_REVEALED + 8  # + worker index
A_NUMBER = A_WORKER + MAX_WORKERS  # + 0..5
A_DONE = A_NUMBER + 6
NUM_ACTIONS = A_DONE + 1

PAY_NORMAL, PAY_TOKEN, PAY_EVER_TREE, PAY_INNKEEPER, PAY_CRANE, PAY_DUNGEON, PAY_JUDGE = range(7)
PAY_NAMES = (
    "normal",
    "occupied token",
    "Ever Tree token",
    "Innkeeper",
    "Crane",
    "Dungeon",
    "Judge",
)

# Decision kinds (pend_kind): what the pending mask is about; action_to_string reads it.
PK_NONE = 0
PK_TURN = 1
PK_PAY = 2  # how to pay
PK_REDUCE = 3  # which cost resource to take off (A_RESOURCE / A_DONE)
PK_JUDGE_FROM = 4
PK_JUDGE_TO = 5
PK_JAIL = 6  # which critter goes to the Dungeon (A_CITY)
PK_FOOL_TARGET = 7  # A_PLAYER
PK_RUINS = 8  # which Construction Ruins replaces (A_CITY)
PK_GAIN = 9  # which resource to gain (A_RESOURCE)
PK_DISCARD = 10  # which hand card to discard (A_CARD / A_DONE)
PK_GIVE_TO = 11  # which opponent receives (A_PLAYER)
PK_NUMBER = 12  # how many (A_NUMBER)
PK_PRODUCE_ORDER = 13  # which green card fires next (A_CITY)
PK_COPY_GREEN = 14  # Chip Sweep / Miner Mole target (A_CITY)
PK_REVEALED = 15  # pick a revealed card (A_REVEALED / A_DONE)
PK_MEADOW = 16  # pick a Meadow card (A_MEADOW / A_DONE)
PK_LOCATION = 17  # pick a basic/forest location (A_PLACE_BASIC / A_PLACE_FOREST / A_DONE)
PK_WORKER = 18  # pick one of own workers (A_WORKER / A_DONE)
PK_PLACE = 19  # Ranger: the new spot (A_PLACE_*)
PK_REMOVE = 20  # University / Croak Wart Cure / Acorn Thieves: a card of own city (A_CITY)
PK_GIVE_RESOURCE = 21  # which resource to give (A_RESOURCE / A_DONE)
PK_PILE = 22  # Cemetery: 0 deck, 1 discard pile (A_NUMBER)
PK_RUG_REMOVE = 23  # solo: which card type leaves Rugwort's city (A_CARD)
PK_GIVE_CARD = 24  # which hand card to give (A_CARD)
PK_PEDDLER_PAY = 25  # A_RESOURCE / A_DONE
PK_STOREHOUSE = 26  # which stock to put on the Storehouse (A_RESOURCE)
PK_HAND_OR_MEADOW = 27  # Queen: A_CARD (hand) or A_MEADOW
PK_COURTHOUSE = 28  # A_RESOURCE (twig, resin, pebble)
N_PK = 29

# Worker locations (wloc): -1 on hand (available); board locations by id; events, city cards.
W_FREE = -1
W_EVENT = 32  # + event id
W_CITY = 64  # + owner * 32 + slot
W_RUG_INN = 200
W_RUG_POST = 201
W_LIMBO = 250  # its card left the city: deployed until the next recall

# Origins of a card being played.
O_HAND, O_MEADOW, O_FREE, O_INN, O_FOREST = range(5)

# Task kinds.
T_PLAY = 1
T_CARD = 2  # a card's effect: mode a=0 on play / production, 1 = worker visit
T_LOCATION = 3
T_EVENT = 4
T_PREPARE = 5
T_PRODUCE_ALL = 6
T_DISCARD = 7
T_GAIN = 8
T_GIVE_RESOURCES = 9
T_RANGER = 10

STATE_DTYPE = np.dtype(
    [
        ("rng", np.uint64, (1,)),
        ("num_players", np.int8),
        ("seats", np.int8),  # arrays in use: num_players, or 2 in solo (Rugwort is seat 1)
        ("current_player", np.int8),  # the decider
        ("turn_player", np.int8),
        ("first_player", np.int8),
        ("terminated", np.int8),
        ("truncated", np.int8),
        ("winner", np.int8),  # -1: none / draw
        ("step_count", np.int32),
        ("turn_count", np.int32),
        ("score", np.int32, (MAXP,)),
        ("rug_year", np.int8),
        ("opt_fool_bonuses", np.int8),  # option fool_bonuses (docs/everdell.md, Options)
        ("opt_pass_anytime", np.int8),  # option pass_anytime (EVD-E1's literal reading)
        # cards
        ("deck", np.int8, (DECK_SIZE,)),  # top = deck[deck_n - 1]
        ("deck_n", np.int16),
        ("discard", np.int8, (DECK_SIZE,)),
        ("discard_n", np.int16),
        ("meadow", np.int8, (MEADOW,)),
        ("hand", np.int8, (MAXP, NT)),
        ("hand_n", np.int8, (MAXP,)),
        # cities: one record per slot; slots are stable while a card stays
        ("city", np.int8, (MAXP, CITY_SLOTS)),  # card type, -1 empty
        ("city_occupied", np.int8, (MAXP, CITY_SLOTS)),  # occupied token used (EVD-P3)
        ("city_tokens", np.int16, (MAXP, CITY_SLOTS)),  # Chapel / Clock Tower point tokens
        ("city_store", np.int16, (MAXP, CITY_SLOTS, 4)),  # Storehouse stock
        ("city_jail", np.int8, (MAXP, CITY_SLOTS, 2)),  # Dungeon prisoners (critter types)
        ("rug_city", np.int8, (NT,)),  # solo: Rugwort's cards by type
        # players
        ("resources", np.int32, (MAXP, 4)),  # at most COUNT_MAX when loaded
        ("tokens", np.int32, (MAXP,)),  # point tokens
        ("season", np.int8, (MAXP,)),
        ("workers", np.int8, (MAXP,)),  # workers owned
        ("wloc", np.int16, (MAXP, MAX_WORKERS)),
        ("wperm", np.int8, (MAXP, MAX_WORKERS)),  # never recalled (Cemetery, Monastery, Journey)
        ("passed", np.int8, (MAXP,)),
        ("plays_this_turn", np.int16),  # solo: cards the player put into play this turn
        # board
        ("forest", np.int8, (MAX_FOREST,)),  # location ids, -1 unused
        ("specials", np.int8, (N_SPECIAL_DEALT,)),  # dealt special event ids
        ("event_owner", np.int8, (NE,)),  # -1 not achieved
        ("event_store", np.int8, (NE,)),  # points parked on a claimed event
        ("rug_forest", np.int8),  # solo: forest position of his worker, -1 gone
        ("rug_basic", np.int8),  # solo: basic location of his worker
        ("rug_journey", np.int8),  # solo: journey location id, -1 none
        ("rug_meadow", np.int8),  # solo: bitmask of Meadow positions his workers block
        # revealed cards (Postal Pigeon, Cemetery, Teacher, Scrolls, Meadow pick)
        ("revealed", np.int8, (8,)),
        ("revealed_n", np.int8),
        ("tucked", np.int16),  # cards tucked under events (Scrolls, Acorn Thieves, Graduation)
        # task stack
        ("depth", np.int8),
        ("fr_kind", np.int8, (MAX_FRAMES,)),
        ("fr_actor", np.int8, (MAX_FRAMES,)),
        ("fr_stage", np.int8, (MAX_FRAMES,)),
        ("fr_a", np.int16, (MAX_FRAMES,)),
        ("fr_b", np.int16, (MAX_FRAMES,)),
        ("fr_c", np.int16, (MAX_FRAMES,)),
        ("fr_d", np.int16, (MAX_FRAMES,)),
        ("fr_n", np.int16, (MAX_FRAMES,)),
        ("fr_cost", np.int16, (MAX_FRAMES, 4)),
        ("fr_bits", np.int32, (MAX_FRAMES,)),  # a set of city slots (production order)
        ("ret", np.int16),
        ("answer", np.int16),
        ("pend_kind", np.int8),
        ("pend_mask", np.int8, (NUM_ACTIONS,)),
    ]
)
# Standalone kernels take the batch as a C-contiguous array of records (meeple_gym.core.jit).
STATES = array_arg(STATE_DTYPE)


# ---- cards, piles, hand ----------------------------------------------------------------------
@kernel
def _to_discard(s, card):
    s.discard[s.discard_n] = card
    s.discard_n += 1


@kernel
def _draw_one(s):
    """The top deck card, or -1; an empty deck is rebuilt from the discard pile (EVD-D4)."""
    if s.deck_n == 0 and s.discard_n > 0:
        n = s.discard_n
        for i in range(n):
            s.deck[i] = s.discard[i]
            s.discard[i] = -1
        s.deck_n = n
        s.discard_n = 0
        shuffle(s.rng, s.deck, n)
    if s.deck_n == 0:
        return -1
    s.deck_n -= 1
    card = s.deck[s.deck_n]
    s.deck[s.deck_n] = -1
    return card


@kernel
def _gain_card(s, p, card):
    """Put ``card`` into p's hand, or discard it when the hand is full or p passed (EVD-D2,
    EVD-E1)."""
    if s.hand_n[p] < HAND_LIMIT and s.passed[p] == 0:
        s.hand[p, card] += 1
        s.hand_n[p] += 1
    else:
        _to_discard(s, card)


@kernel
def _draw(s, p, n):
    """Draw up to ``n`` cards; drawing stops at the hand limit (EVD-D1, EVD-D2)."""
    for _ in range(n):
        if s.hand_n[p] >= HAND_LIMIT:
            return
        card = _draw_one(s)
        if card < 0:
            return
        s.hand[p, card] += 1
        s.hand_n[p] += 1


@kernel
def _remove_from_hand(s, p, card):
    s.hand[p, card] -= 1
    s.hand_n[p] -= 1


@kernel
def _refill_meadow(s):
    """Fill every empty Meadow position from the deck (EVD-D3)."""
    for i in range(MEADOW):
        if s.meadow[i] < 0:
            s.meadow[i] = _draw_one(s)


@kernel
def _meadow_open(s, p, i):
    """Meadow position ``i`` holds a card player ``p`` may take (solo: not under Rugwort)."""
    if s.meadow[i] < 0:
        return False
    return not (s.num_players == 1 and (s.rug_meadow >> i) & 1)


# ---- cities ----------------------------------------------------------------------------------
@kernel
def _is_rugwort(s, p):
    return s.num_players == 1 and p == RUGWORT


@kernel
def _count_type(s, p, t):
    if _is_rugwort(s, p):
        return np.int64(s.rug_city[t])
    n = 0
    for k in range(CITY_SLOTS):
        n += s.city[p, k] == t
    return n


@kernel
def _find_type(s, p, t):
    for k in range(CITY_SLOTS):
        if s.city[p, k] == t:
            return k
    return -1


@kernel
def _spaces_used(s, p, skip):
    """City spaces taken (EVD-P4): Wanderer takes none, a Husband and a Wife share one;
    ``skip`` is a slot to leave out (a card about to leave), or -1."""
    n = 0
    husbands = 0
    wives = 0
    for k in range(CITY_SLOTS):
        t = s.city[p, k]
        if t < 0 or k == skip:
            continue
        if t == HUSBAND:
            husbands += 1
        elif t == WIFE:
            wives += 1
        n += CITY_SPACE[t]
    return n - min(husbands, wives)


@kernel
def _fits(s, p, t, skip):
    """Card type ``t`` may enter p's city (uniqueness EVD-P2, 15 spaces EVD-P4), with the card
    in slot ``skip`` leaving first (a payment that removes a card), or -1."""
    return _fits_counted(s, p, t, skip, -1)


@kernel
def _fits_counted(s, p, t, skip, used):
    """``_fits`` with p's spaces used (``_spaces_used(s, p, skip)``) given, or -1 to count them
    here, only when the space limit decides: the turn menu counts them once per menu."""
    if UNIQUE[t] and _find_type(s, p, t) >= 0 and _find_type(s, p, t) != skip:
        return False
    if CITY_SPACE[t] == 0:
        return True
    if t == HUSBAND or t == WIFE:
        partner = WIFE if t == HUSBAND else HUSBAND
        own = 0
        other = 0
        for k in range(CITY_SLOTS):
            if k == skip:
                continue
            own += s.city[p, k] == t
            other += s.city[p, k] == partner
        if other > own:
            return True  # shares the space of an unpaired partner
    if used < 0:
        used = _spaces_used(s, p, skip)
    return used < CITY_LIMIT


@kernel
def _free_slot(s, p):
    for k in range(CITY_SLOTS):
        if s.city[p, k] < 0:
            return k
    return -1


@kernel
def _city_code(p, k):
    return W_CITY + p * 32 + k


@kernel
def _remove_city_card(s, p, k, perm_dest, to_discard):
    """Take the card in slot ``k`` out of p's city. Its workers stay deployed (``W_LIMBO``)
    until their owner's next recall; permanent ones move to ``perm_dest`` (University) or stay
    out of play; Dungeon prisoners go to the discard pile; tokens and stock on it are lost."""
    code = _city_code(p, k)
    for q in range(MAXP):
        for w in range(MAX_WORKERS):
            if s.wloc[q, w] == code:
                if s.wperm[q, w] and perm_dest >= 0:
                    s.wloc[q, w] = perm_dest
                else:
                    s.wloc[q, w] = W_LIMBO
    for j in range(2):
        if s.city_jail[p, k, j] >= 0:
            _to_discard(s, s.city_jail[p, k, j])
            s.city_jail[p, k, j] = -1
    card = s.city[p, k]
    s.city[p, k] = -1
    s.city_occupied[p, k] = 0
    s.city_tokens[p, k] = 0
    s.city_store[p, k, :] = 0
    if to_discard:
        _to_discard(s, card)
    return card


@kernel
def _husband_paired(s, p, k):
    """The Husband in slot ``k`` has a Wife partner: Husbands pair with Wives in slot order."""
    wives = _count_type(s, p, WIFE)
    if _is_rugwort(s, p):
        return wives > 0
    rank = 0
    for j in range(k):
        rank += s.city[p, j] == HUSBAND
    return rank < wives


@kernel
def _pairs(s, p):
    return min(_count_type(s, p, HUSBAND), _count_type(s, p, WIFE))


@kernel
def _color_count(s, p, color):
    n = 0
    if _is_rugwort(s, p):
        for t in range(NT):
            if COLOR[t] == color:
                n += s.rug_city[t]
        return n
    for k in range(CITY_SLOTS):
        t = s.city[p, k]
        if t >= 0 and COLOR[t] == color:
            n += 1
    return n


# ---- workers ---------------------------------------------------------------------------------
@kernel
def _count_at(s, code):
    n = 0
    for q in range(MAXP):
        for w in range(s.workers[q]):
            n += s.wloc[q, w] == code
    if s.num_players == 1:  # Rugwort's workers block their spaces (solo)
        if code < N_BASIC and s.rug_basic == code:
            n += 1
        if s.rug_forest >= 0 and s.forest[s.rug_forest] == code:
            n += 1
        if s.rug_journey >= 0 and s.rug_journey == code:
            n += 1
    return n


@kernel
def _player_at(s, p, code):
    for w in range(s.workers[p]):
        if s.wloc[p, w] == code:
            return True
    return False


@kernel
def _free_worker(s, p):
    for w in range(s.workers[p]):
        if s.wloc[p, w] == W_FREE:
            return w
    return -1


@kernel
def _card_spots(s, p, t):
    """Worker spots of a Destination (EVD-W4): Cemetery and Monastery open a second spot with
    Undertaker / Monk in the same city."""
    if t == CEMETERY and _count_type(s, p, UNDERTAKER) > 0:
        return 2
    if t == MONASTERY and _count_type(s, p, MONK) > 0:
        return 2
    return 1


# ---- paying (EVD-P1, EVD-P3 and the card-playing abilities) ----------------------------------
@kernel
def _deficit(s, p, c0, c1, c2, c3):
    r = s.resources[p]
    return max(0, c0 - r[0]) + max(0, c1 - r[1]) + max(0, c2 - r[2]) + max(0, c3 - r[3])


@kernel
def _deficit_card(s, p, t, berry_off):
    return _deficit(s, p, COST[t, 0], COST[t, 1], COST[t, 2], max(0, COST[t, 3] - berry_off))


@kernel
def _judge_swap_ok(s, p, c, a):
    """With cost ``c``, paying one unit of kind ``a`` with another kind makes it affordable."""
    if c[a] == 0:
        return False
    # Scalars, not a copy of ``c``: this runs in every turn menu, and a copy is a heap allocation.
    for b in range(4):
        if b != a:
            c0 = np.int64(c[0]) - (a == 0) + (b == 0)
            c1 = np.int64(c[1]) - (a == 1) + (b == 1)
            c2 = np.int64(c[2]) - (a == 2) + (b == 2)
            c3 = np.int64(c[3]) - (a == 3) + (b == 3)
            if _deficit(s, p, c0, c1, c2, c3) == 0:
                return True
    return False


@kernel
def _fool_target_ok(s, p, q):
    """An opponent's city with room and no Fool (EVD-P2, P4); a passed opponent too (EVD-E1:
    passing stops receiving cards into the hand, not a card played into the city)."""
    if q == p or _is_rugwort(s, q):
        return False
    return _fits(s, q, FOOL, -1)


@kernel
def _fool_has_target(s, p):
    if s.num_players == 1:
        return True  # solo: a Fool goes to Rugwort (docs/everdell.md, Solo)
    for q in range(s.num_players):
        if _fool_target_ok(s, p, q):
            return True
    return False


@kernel
def _has_other_construction(s, p):
    for k in range(CITY_SLOTS):
        t = s.city[p, k]
        if t >= 0 and KIND[t] == CONSTRUCTION:
            return True
    return False


@kernel
def _enters(s, p, t, skip):
    """Card ``t`` played by p can be placed: its own city (or, for a Fool, an opponent's), with
    the card in ``skip`` leaving first."""
    if t == FOOL:
        return _fool_has_target(s, p)
    if t == RUINS:
        return _has_other_construction(s, p)
    return _fits(s, p, t, skip)


@kernel
def _jail_slot(s, p):
    """The Dungeon's slot and its free cell index, or (-1, -1)."""
    k = _find_type(s, p, DUNGEON)
    if k < 0:
        return k, -1
    cells = 2 if _find_type(s, p, RANGER) >= 0 else 1
    for j in range(cells):
        if s.city_jail[p, k, j] < 0:
            return k, j
    return k, -1


@kernel
def _jailable(s, p, t, k):
    """Slot ``k`` holds a critter that may go to the Dungeon to pay for card ``t``."""
    ct = s.city[p, k]
    if ct < 0 or KIND[ct] != CRITTER:
        return False
    dk, cell = _jail_slot(s, p)
    if cell < 0:
        return False
    if cell == 1 and ct == RANGER:
        return False  # the Ranger cannot fill the cell it opens
    if cell == 0 and ct == RANGER and s.city_jail[p, dk, 1] >= 0:
        return False
    return _enters(s, p, t, k)


@kernel
def _pay_methods(s, p, t, out):
    """Fill ``out[PAY_*]`` with the legal ways for p to pay for card ``t`` (one card-playing
    ability per play)."""
    out[:] = 0
    is_critter = KIND[t] == CRITTER
    if _deficit_card(s, p, t, 0) == 0 and _enters(s, p, t, -1):
        out[PAY_NORMAL] = 1
    if is_critter and _enters(s, p, t, -1):
        home = HOME[t]
        for k in range(CITY_SLOTS):
            if s.city[p, k] == home and s.city_occupied[p, k] == 0:
                out[PAY_TOKEN] = 1
            if s.city[p, k] == EVER_TREE and s.city_occupied[p, k] == 0:
                out[PAY_EVER_TREE] = 1
    total = COST[t, 0] + COST[t, 1] + COST[t, 2] + COST[t, 3]
    if total == 0:
        return
    if is_critter and COST[t, BERRY] > 0:
        k = _find_type(s, p, INNKEEPER)
        if k >= 0 and _deficit_card(s, p, t, 3) == 0 and _enters(s, p, t, k):
            out[PAY_INNKEEPER] = 1
    if not is_critter:
        k = _find_type(s, p, CRANE)
        if k >= 0 and _deficit_card(s, p, t, 0) <= 3 and _enters(s, p, t, k):
            out[PAY_CRANE] = 1
    _, cell = _jail_slot(s, p)
    if cell >= 0 and _deficit_card(s, p, t, 0) <= 3:
        for k in range(CITY_SLOTS):
            if _jailable(s, p, t, k):
                out[PAY_DUNGEON] = 1
                break
    if _find_type(s, p, JUDGE) >= 0 and _enters(s, p, t, -1):
        c = COST[t]
        for a in range(4):
            if _judge_swap_ok(s, p, c, a):
                out[PAY_JUDGE] = 1
                break


@kernel
def _enters_menu(s, p, t, used):
    """``_enters(s, p, t, -1)`` with p's city spaces used (``_spaces_used(s, p, -1)``) given:
    the turn menu counts them once instead of once per card."""
    if t == FOOL or t == RUINS:
        return _enters(s, p, t, -1)
    return _fits_counted(s, p, t, -1, used)


@kernel
def _playable(s, p, t, used, inn_k, crane_k, cell, judge):
    """Some way of ``_pay_methods`` is legal: the same tests, stopping at the first that holds,
    with no array to fill. The turn menu asks this for every card in hand and in the Meadow, so
    it looks up p's city once and passes: ``used`` spaces, the Innkeeper's and the Crane's
    slots (-1: none), the Dungeon's free ``cell`` (``_jail_slot``) and whether p has a Judge."""
    is_critter = KIND[t] == CRITTER
    enters = _enters_menu(s, p, t, used)
    if enters and _deficit_card(s, p, t, 0) == 0:
        return True
    if is_critter and enters:
        home = HOME[t]
        for k in range(CITY_SLOTS):
            if s.city_occupied[p, k] == 0 and (s.city[p, k] == home or s.city[p, k] == EVER_TREE):
                return True
    if COST[t, 0] + COST[t, 1] + COST[t, 2] + COST[t, 3] == 0:
        return False
    if is_critter and COST[t, BERRY] > 0:
        if inn_k >= 0 and _deficit_card(s, p, t, 3) == 0 and _enters(s, p, t, inn_k):
            return True
    if not is_critter:
        if crane_k >= 0 and _deficit_card(s, p, t, 0) <= 3 and _enters(s, p, t, crane_k):
            return True
    if cell >= 0 and _deficit_card(s, p, t, 0) <= 3:
        for k in range(CITY_SLOTS):
            if _jailable(s, p, t, k):
                return True
    if enters and judge:
        for a in range(4):
            if _judge_swap_ok(s, p, COST[t], a):
                return True
    return False


@kernel
def _playable_discounted(s, p, t, discount):
    """Card ``t`` can be played by p with ``discount`` resources of any kinds off (Inn -3,
    forest Meadow pick -1)."""
    return _deficit_card(s, p, t, 0) <= discount and _enters(s, p, t, -1)


@kernel
def _playable_free(s, p, t):
    """Card ``t`` (printed value at most 3) may be played for free (Queen, Postal Pigeon)."""
    return POINTS[t] <= 3 and _enters(s, p, t, -1)


# ---- task stack ------------------------------------------------------------------------------
WAIT = True
GO = False


@kernel
def _push(s, kind, actor, a, b, c, d):
    f = s.depth
    s.fr_kind[f] = kind
    s.fr_actor[f] = actor
    s.fr_stage[f] = 0
    s.fr_a[f] = a
    s.fr_b[f] = b
    s.fr_c[f] = c
    s.fr_d[f] = d
    s.fr_n[f] = 0
    s.fr_cost[f, :] = 0
    s.fr_bits[f] = 0
    s.depth = f + 1


@kernel
def _pop(s):
    s.depth -= 1


@kernel
def _ask(s, player, kind):
    """Open a decision for ``player``; the caller has filled ``pend_mask``."""
    s.current_player = player
    s.pend_kind = kind
    return WAIT


@kernel
def _take_answer(s):
    a = s.answer
    s.answer = -1
    return a


@kernel
def _rel(s, p, q):
    return (np.int64(q) - np.int64(p)) % np.int64(s.seats)


@kernel
def _abs(s, p, rel):
    return (np.int64(p) + np.int64(rel)) % np.int64(s.seats)


@kernel
def _receivers(s, p, cards):
    """Opponents who may receive from p: not passed (EVD-E1), room in hand when ``cards``
    (EVD-D2); never Rugwort (he takes nothing, docs/everdell.md Solo). Returns a bitmask."""
    bits = 0
    for q in range(s.num_players):
        if q == p or s.passed[q]:
            continue
        if cards and s.hand_n[q] >= HAND_LIMIT:
            continue
        bits |= 1 << q
    return bits


# ---- what may be done ------------------------------------------------------------------------
@kernel
def _meadow_pick_ok(s, p):
    """The forest card that takes 2 Meadow cards needs one playable at 1 less (subtleties)."""
    for i in range(MEADOW):
        if _meadow_open(s, p, i) and _playable_discounted(s, p, s.meadow[i], 1):
            return True
    return False


@kernel
def _location_effect_ok(s, p, loc):
    if loc == F_MEADOW_PICK:
        return _meadow_pick_ok(s, p)
    return True


@kernel
def _event_ok(s, p, e):
    """EVD-W5: unclaimed, every requirement met, the cost affordable."""
    if s.event_owner[e] >= 0:
        return False
    if s.resources[p, BERRY] < EV_COST_BERRY[e]:
        return False
    color = EV_REQ_COLOR[e]
    if color == D.ALL_COLORS:
        for c in range(5):
            if _color_count(s, p, c) < EV_REQ_COUNT[e]:
                return False
        return True
    if color >= 0:
        return _color_count(s, p, color) >= EV_REQ_COUNT[e]
    for j in range(2):
        t = EV_REQ_CARDS[e, j]
        if t >= 0 and _find_type(s, p, t) < 0:
            return False
    return True


@kernel
def _visit_ok(s, p, o, k):
    """p may put a worker on the card in o's slot ``k`` (EVD-W4) and its action can be done."""
    t = s.city[o, k]
    if t < 0:
        return False
    if COLOR[t] != DESTINATION and t != STOREHOUSE:
        return False
    if o != p and (OPEN[t] == 0 or t == STOREHOUSE):
        return False
    if _count_at(s, _city_code(o, k)) >= _card_spots(s, o, t):
        return False
    return _visit_action_ok(s, p, t, k)


@kernel
def _visit_action_ok(s, p, t, k):
    if t == INN:
        for i in range(MEADOW):
            if _meadow_open(s, p, i) and _playable_discounted(s, p, s.meadow[i], 3):
                return True
        return False
    if t == QUEEN:
        for c in range(NT):
            if s.hand[p, c] > 0 and _playable_free(s, p, c):
                return True
        for i in range(MEADOW):
            if _meadow_open(s, p, i) and _playable_free(s, p, s.meadow[i]):
                return True
        return False
    if t == POST_OFFICE:
        return s.hand_n[p] >= 2
    if t == MONASTERY:
        return s.resources[p].sum() >= 2
    if t == UNIVERSITY:
        for j in range(CITY_SLOTS):
            if j != k and s.city[p, j] >= 0:
                return True
        return False
    if t == CEMETERY:
        return s.deck_n + s.discard_n > 0
    return True


@kernel
def _rug_visit_ok(s, p, t):
    code = W_RUG_INN if t == INN else W_RUG_POST
    if s.rug_city[t] <= _count_at(s, code):
        return False
    return _visit_action_ok(s, p, t, -1)


@kernel
def _place_mask(s, p, mask, exclude):
    """Worker placements open to p (EVD-W1…W7); ``exclude`` is a location code p may not pick
    (the spot a Ranger moves from), or -9."""
    nump = s.num_players
    for i in range(N_BASIC):
        loc = BASIC_LOCS[i]
        if loc == exclude:
            continue
        if LOC_EXCLUSIVE[loc] and _count_at(s, loc) > 0:
            continue
        mask[A_PLACE_BASIC + i] = 1
    cap = 2 if nump == 4 else 1
    for j in range(MAX_FOREST):
        loc = s.forest[j]
        if loc < 0 or loc == exclude:
            continue
        if _count_at(s, loc) >= cap or _player_at(s, p, loc):
            continue
        if _location_effect_ok(s, p, loc):
            mask[A_PLACE_FOREST + j] = 1
    if exclude != HAVEN:
        mask[A_PLACE_HAVEN] = 1
    if s.season[p] == AUTUMN:
        for j in range(N_JOURNEY):
            loc = JOURNEY_LOCS[j]
            if loc == exclude or s.hand_n[p] < LOC_DISCARD[loc]:
                continue
            if LOC_EXCLUSIVE[loc] and _count_at(s, loc) > 0:
                continue
            mask[A_PLACE_JOURNEY + j] = 1
    for e in range(N_BASIC_EVENTS):
        if W_EVENT + e != exclude and _event_ok(s, p, e):
            mask[A_PLACE_EVENT + e] = 1
    for j in range(N_SPECIAL_DEALT):
        e = s.specials[j]
        if W_EVENT + e != exclude and _event_ok(s, p, e):
            mask[A_PLACE_EVENT + N_BASIC_EVENTS + j] = 1
    for r in range(nump):
        o = _abs(s, p, r)
        for k in range(CITY_SLOTS):
            if _city_code(o, k) != exclude and _visit_ok(s, p, o, k):
                mask[A_PLACE_CITY + r * CITY_SLOTS + k] = 1
    if nump == 1:
        if exclude != W_RUG_INN and _rug_visit_ok(s, p, INN):
            mask[A_PLACE_RUGWORT] = 1
        if exclude != W_RUG_POST and _rug_visit_ok(s, p, POST_OFFICE):
            mask[A_PLACE_RUGWORT + 1] = 1


@kernel
def _all_deployed(s, p):
    return _free_worker(s, p) < 0


# Standalone: the turn menu is asked for by _advance, init_game and rederive_pending.
@standalone_kernel(record_arg(STATE_DTYPE), types.int64)
def _turn_mask(s, p):
    """EVD-T1: place a worker, play a card, prepare for season, or pass (autumn, EVD-E1)."""
    mask = s.pend_mask
    mask[:] = 0
    if _free_worker(s, p) >= 0:
        _place_mask(s, p, mask, -9)
    # p's city, looked up once for every card below (nothing changes while the menu is built).
    used = _spaces_used(s, p, -1)
    inn_k = _find_type(s, p, INNKEEPER)
    crane_k = _find_type(s, p, CRANE)
    judge = _find_type(s, p, JUDGE) >= 0
    _, cell = _jail_slot(s, p)
    for t in range(NT):
        if s.hand[p, t] > 0 and _playable(s, p, t, used, inn_k, crane_k, cell, judge):
            mask[A_PLAY_HAND + t] = 1
    for i in range(MEADOW):
        if _meadow_open(s, p, i) and _playable(
            s, p, s.meadow[i], used, inn_k, crane_k, cell, judge
        ):
            mask[A_PLAY_MEADOW + i] = 1
    if s.season[p] < AUTUMN and _all_deployed(s, p):
        mask[A_PREPARE] = 1  # EVD-F1, EVD-F5
    # EVD-E1: passing only once p has reached autumn. Before it the mask is never empty: a
    # free worker can go to the Haven, and with every worker deployed prepare is legal.
    if s.season[p] == AUTUMN or s.opt_pass_anytime:
        mask[A_PASS] = 1


# ---- turn actions ----------------------------------------------------------------------------
@kernel
def _place(s, p, action, w):
    """Put worker ``w`` of p (-1: the first free one) on the spot of a place action and queue
    its effect."""
    if w < 0:
        w = _free_worker(s, p)
    if action < A_PLACE_FOREST:
        loc = BASIC_LOCS[action - A_PLACE_BASIC]
        s.wloc[p, w] = loc
        _push(s, T_LOCATION, p, loc, 0, 0, 0)
    elif action < A_PLACE_HAVEN:
        loc = s.forest[action - A_PLACE_FOREST]
        s.wloc[p, w] = loc
        _push(s, T_LOCATION, p, loc, 0, 0, 0)
    elif action == A_PLACE_HAVEN:
        s.wloc[p, w] = HAVEN
        _push(s, T_LOCATION, p, HAVEN, 0, 0, 0)
    elif action < A_PLACE_EVENT:
        loc = JOURNEY_LOCS[action - A_PLACE_JOURNEY]
        s.wloc[p, w] = loc
        s.wperm[p, w] = 1  # EVD-W7: the worker stays and scores there
        _push(s, T_LOCATION, p, loc, 0, 0, 0)
    elif action < A_PLACE_CITY:
        j = action - A_PLACE_EVENT
        e = j if j < N_BASIC_EVENTS else s.specials[j - N_BASIC_EVENTS]
        s.wloc[p, w] = W_EVENT + e
        s.event_owner[e] = p
        s.resources[p, BERRY] -= EV_COST_BERRY[e]
        _push(s, T_EVENT, p, e, 0, 0, 0)
    elif action < A_PLACE_RUGWORT:
        j = action - A_PLACE_CITY
        o = _abs(s, p, j // CITY_SLOTS)
        k = j % CITY_SLOTS
        t = s.city[o, k]
        s.wloc[p, w] = _city_code(o, k)
        if t == CEMETERY or t == MONASTERY:
            s.wperm[p, w] = 1
        if o != p:
            s.tokens[o] += 1  # EVD-W4: the owner of an open Destination takes a point token
        _push(s, T_CARD, p, t, 1, o, k)
    else:
        t = INN if action == A_PLACE_RUGWORT else POST_OFFICE
        s.wloc[p, w] = W_RUG_INN if t == INN else W_RUG_POST
        s.tokens[RUGWORT] += 1
        _push(s, T_CARD, p, t, 1, RUGWORT, -1)


@kernel
def _turn_action(s, p, action):
    if action < A_PLAY_HAND:
        _place(s, p, action, -1)
    elif action < A_PLAY_MEADOW:
        t = action - A_PLAY_HAND
        _remove_from_hand(s, p, t)
        _push(s, T_PLAY, p, t, O_HAND, 0, 0)
    elif action < A_PREPARE:
        i = action - A_PLAY_MEADOW
        t = s.meadow[i]
        s.meadow[i] = -1
        _refill_meadow(s)  # EVD-D3
        _push(s, T_PLAY, p, t, O_MEADOW, 0, 0)
    elif action == A_PREPARE:
        _push(s, T_PREPARE, p, 0, 0, 0, 0)
    else:
        s.passed[p] = 1  # EVD-E1


# ---- playing a card (EVD-P1…P5) --------------------------------------------------------------
PS_START, PS_PAY, PS_JAIL, PS_REDUCE, PS_JUDGE_FROM, PS_JUDGE_TO = range(6)
PS_PAYNOW, PS_SHEPHERD, PS_PLACE, PS_TARGET, PS_TRIGGERS, PS_EFFECT, PS_END = range(6, 13)
# Stages that only ask (after PS_TARGET / PS_TRIGGERS did their side effects), so that every
# question can be asked again from its stage (rederive_pending).
PS_RUG_REMOVE, PS_COURTHOUSE = 13, 14
N_PLAY_STAGES = 15


@kernel
def _set_cost(s, f, t):
    for r in range(4):
        s.fr_cost[f, r] = COST[t, r]


@kernel(fragment=True)
def _pay_for_play(s, f, p, t, stage):
    """The payment stages of playing card t (EVD-P2, EVD-P3): the method, then what it asks
    for (a prisoner for the Dungeon, the resources a discount or the Judge changes)."""
    mask = s.pend_mask
    if stage == PS_PAY:
        a = _take_answer(s)
        if a < 0:
            mask[:] = 0
            m = np.zeros(7, np.int8)
            _pay_methods(s, p, t, m)
            for i in range(7):
                mask[A_PAY + i] = m[i]
            return _ask(s, p, PK_PAY)
        method = a - A_PAY
        s.fr_c[f] = method
        if method == PAY_NORMAL:
            _set_cost(s, f, t)
            s.fr_stage[f] = PS_PAYNOW
        elif method == PAY_TOKEN or method == PAY_EVER_TREE:
            host = HOME[t] if method == PAY_TOKEN else EVER_TREE
            for k in range(CITY_SLOTS):
                if s.city[p, k] == host and s.city_occupied[p, k] == 0:
                    s.city_occupied[p, k] = 1  # EVD-P3
                    break
            s.fr_stage[f] = PS_PLACE
        elif method == PAY_INNKEEPER:
            _remove_city_card(s, p, _find_type(s, p, INNKEEPER), -1, True)
            _set_cost(s, f, t)
            s.fr_cost[f, BERRY] = max(0, s.fr_cost[f, BERRY] - 3)
            s.fr_stage[f] = PS_PAYNOW
        elif method == PAY_CRANE:
            _remove_city_card(s, p, _find_type(s, p, CRANE), -1, True)
            _set_cost(s, f, t)
            s.fr_n[f] = 3
            s.fr_stage[f] = PS_REDUCE
        elif method == PAY_DUNGEON:
            s.fr_stage[f] = PS_JAIL
        else:
            _set_cost(s, f, t)
            s.fr_stage[f] = PS_JUDGE_FROM
        return GO
    if stage == PS_JAIL:
        a = _take_answer(s)
        if a < 0:
            mask[:] = 0
            for k in range(CITY_SLOTS):
                if _jailable(s, p, t, k):
                    mask[A_CITY + k] = 1
            return _ask(s, p, PK_JAIL)
        k = a - A_CITY
        dk, cell = _jail_slot(s, p)
        prisoner = _remove_city_card(s, p, k, -1, False)
        s.city_jail[p, dk, cell] = prisoner
        _set_cost(s, f, t)
        s.fr_n[f] = 3
        s.fr_stage[f] = PS_REDUCE
        return GO
    if stage == PS_REDUCE:
        c = s.fr_cost[f]
        left = s.fr_n[f]
        a = _take_answer(s)
        if a < 0:
            if c.sum() <= left:
                c[:] = 0  # the discount covers the whole cost; what is left over is lost
                s.fr_stage[f] = PS_PAYNOW
                return GO
            mask[:] = 0
            for r in range(4):
                if c[r] > 0:
                    c[r] -= 1
                    if _deficit(s, p, c[0], c[1], c[2], c[3]) <= left - 1:
                        mask[A_RESOURCE + r] = 1
                    c[r] += 1
            if _deficit(s, p, c[0], c[1], c[2], c[3]) == 0:
                mask[A_DONE] = 1
            return _ask(s, p, PK_REDUCE)
        if a == A_DONE:
            s.fr_stage[f] = PS_PAYNOW
        else:
            c[a - A_RESOURCE] -= 1
            s.fr_n[f] = left - 1
            if left - 1 == 0:
                s.fr_stage[f] = PS_PAYNOW
        return GO
    if stage == PS_JUDGE_FROM:
        a = _take_answer(s)
        c = s.fr_cost[f]
        if a < 0:
            mask[:] = 0
            for r in range(4):
                if _judge_swap_ok(s, p, c, r):
                    mask[A_RESOURCE + r] = 1
            return _ask(s, p, PK_JUDGE_FROM)
        s.fr_d[f] = a - A_RESOURCE
        s.fr_stage[f] = PS_JUDGE_TO
        return GO
    if stage == PS_JUDGE_TO:
        a = _take_answer(s)
        c = s.fr_cost[f]
        r0 = s.fr_d[f]
        if a < 0:
            mask[:] = 0
            for b in range(4):
                if b != r0:
                    c[r0] -= 1
                    c[b] += 1
                    if _deficit(s, p, c[0], c[1], c[2], c[3]) == 0:
                        mask[A_RESOURCE + b] = 1
                    c[r0] += 1
                    c[b] -= 1
            return _ask(s, p, PK_JUDGE_TO)
        c[r0] -= 1
        c[a - A_RESOURCE] += 1
        s.fr_stage[f] = PS_PAYNOW
        return GO
    return GO


@kernel(fragment=True)
def _play_fool_or_ruins(s, f, p, t):
    """PS_TARGET: the Fool goes into an opponent's city (solo: to the discard, and a card
    leaves Rugwort's city); the Ruins replace a Construction of the city."""
    mask = s.pend_mask
    a = _take_answer(s)
    if t == FOOL:
        if s.num_players == 1:
            # Solo: the Fool is discarded and any one card leaves Rugwort's city.
            _to_discard(s, FOOL)
            if s.rug_city.sum() == 0:
                _pop(s)
                return GO
            s.fr_stage[f] = PS_RUG_REMOVE
            return GO
        if a < 0:
            mask[:] = 0
            for q in range(s.num_players):
                if _fool_target_ok(s, p, q):
                    mask[A_PLAYER + _rel(s, p, q)] = 1
            return _ask(s, p, PK_FOOL_TARGET)
        q = _abs(s, p, a - A_PLAYER)
        s.city[q, _free_slot(s, q)] = FOOL
        if s.opt_fool_bonuses:  # the other reading: the player still "played a Critter"
            if _find_type(s, p, HISTORIAN) >= 0:
                _draw(s, p, 1)
            if _find_type(s, p, SHOPKEEPER) >= 0:
                s.resources[p, BERRY] += 1
        _pop(s)  # by default nothing triggers for a card played into another city
        return GO
    # Ruins: replace a Construction of the city, regain its cost, draw 2.
    if a < 0:
        mask[:] = 0
        for k in range(CITY_SLOTS):
            c = s.city[p, k]
            if c >= 0 and KIND[c] == CONSTRUCTION:
                mask[A_CITY + k] = 1
        return _ask(s, p, PK_RUINS)
    k = a - A_CITY
    # A permanent worker on the replaced card stays, now on the Ruins (as for University).
    old = _remove_city_card(s, p, k, _city_code(p, k), True)
    for r in range(4):
        s.resources[p, r] += COST[old, r]
    s.city[p, k] = RUINS
    s.fr_d[f] = k
    _draw(s, p, 2)
    s.fr_stage[f] = PS_TRIGGERS
    return GO


@kernel
def _run_play(s, f):
    p = s.fr_actor[f]
    t = s.fr_a[f]
    stage = s.fr_stage[f]
    mask = s.pend_mask
    if stage == PS_START:
        origin = s.fr_b[f]
        if origin == O_FREE:
            s.fr_stage[f] = PS_PLACE
        elif origin == O_INN or origin == O_FOREST:
            _set_cost(s, f, t)
            s.fr_n[f] = 3 if origin == O_INN else 1
            s.fr_stage[f] = PS_REDUCE
        else:
            s.fr_stage[f] = PS_PAY
        return GO
    if PS_PAY <= stage <= PS_JUDGE_TO:
        return _pay_for_play(s, f, p, t, stage)
    if stage == PS_PAYNOW:
        for r in range(4):
            s.resources[p, r] -= s.fr_cost[f, r]
        s.fr_stage[f] = PS_SHEPHERD if t == SHEPHERD and s.fr_cost[f, BERRY] > 0 else PS_PLACE
        return GO
    if stage == PS_SHEPHERD:
        # The berries paid for a Shepherd go to an opponent (card text), else to the supply.
        bits = _receivers(s, p, False)
        a = _take_answer(s)
        if bits == 0:
            s.fr_stage[f] = PS_PLACE
            return GO
        if a < 0:
            mask[:] = 0
            for q in range(s.num_players):
                if (bits >> q) & 1:
                    mask[A_PLAYER + _rel(s, p, q)] = 1
            return _ask(s, p, PK_GIVE_TO)
        q = _abs(s, p, a - A_PLAYER)
        s.resources[q, BERRY] += s.fr_cost[f, BERRY]
        s.fr_stage[f] = PS_PLACE
        return GO
    if stage == PS_PLACE:
        s.plays_this_turn += 1
        if t == FOOL or t == RUINS:
            s.fr_stage[f] = PS_TARGET
            return GO
        k = _free_slot(s, p)
        s.city[p, k] = t
        if t == CLOCK_TOWER:
            s.city_tokens[p, k] = 3
        s.fr_d[f] = k
        s.fr_stage[f] = PS_TRIGGERS
        return GO
    if stage == PS_TARGET:
        return _play_fool_or_ruins(s, f, p, t)
    if stage == PS_RUG_REMOVE:
        a = _take_answer(s)
        if a < 0:
            mask[:] = 0
            for c in range(NT):
                if s.rug_city[c] > 0:
                    mask[A_CARD + c] = 1
            return _ask(s, p, PK_RUG_REMOVE)
        s.rug_city[a - A_CARD] -= 1
        _to_discard(s, a - A_CARD)
        _pop(s)
        return GO
    if stage == PS_TRIGGERS:
        # Governance bonuses for a later card, never for the bonus card itself.
        if t != HISTORIAN and _find_type(s, p, HISTORIAN) >= 0:
            _draw(s, p, 1)
        if KIND[t] == CRITTER and t != SHOPKEEPER and _find_type(s, p, SHOPKEEPER) >= 0:
            s.resources[p, BERRY] += 1
        if KIND[t] == CONSTRUCTION and t != COURTHOUSE and _find_type(s, p, COURTHOUSE) >= 0:
            s.fr_stage[f] = PS_COURTHOUSE
        else:
            s.fr_stage[f] = PS_EFFECT
        return GO
    if stage == PS_COURTHOUSE:
        a = _take_answer(s)
        if a < 0:
            mask[:] = 0
            mask[A_RESOURCE + TWIG] = 1
            mask[A_RESOURCE + RESIN] = 1
            mask[A_RESOURCE + PEBBLE] = 1
            return _ask(s, p, PK_COURTHOUSE)
        s.resources[p, a - A_RESOURCE] += 1
        s.fr_stage[f] = PS_EFFECT
        return GO
    if stage == PS_EFFECT:
        s.fr_stage[f] = PS_END
        if (COLOR[t] == TRAVELER or COLOR[t] == PRODUCTION) and t != RUINS:
            _push(s, T_CARD, p, t, 0, p, s.fr_d[f])
        return GO
    _pop(s)
    return GO


# ---- card abilities (EVD-P5) -----------------------------------------------------------------
@kernel
def _ask_number(s, p, top):
    s.pend_mask[:] = 0
    for n in range(top + 1):
        s.pend_mask[A_NUMBER + n] = 1
    return _ask(s, p, PK_NUMBER)


@kernel
def _copy_target_ok(t, own):
    """Green cards Chip Sweep (own city) and Miner Mole (another city) may trigger; copying
    Storehouse, Chip Sweep or Miner Mole is not allowed (docs/everdell.md, Choices)."""
    if t < 0 or COLOR[t] != PRODUCTION:
        return False
    if t == CHIP_SWEEP:
        return False
    if not own and (t == MINER_MOLE or t == STOREHOUSE):
        return False
    return True


@kernel
def _reveal_from_deck(s, n):
    s.revealed_n = 0
    for _ in range(n):
        c = _draw_one(s)
        if c < 0:
            break
        s.revealed[s.revealed_n] = c
        s.revealed_n += 1


@kernel
def _discard_revealed(s, keep_index):
    for i in range(s.revealed_n):
        if i != keep_index:
            _to_discard(s, s.revealed[i])
        s.revealed[i] = -1
    s.revealed_n = 0


@kernel
def _produce(s, f, p, t, ctx, k, a):
    """A green card's effect for p (EVD-P5: when played and in spring and autumn), its
    conditions read in ``ctx``'s city (Miner Mole)."""
    mask = s.pend_mask
    stage = s.fr_stage[f]
    if t == FARM:
        s.resources[p, BERRY] += 1
    elif t == MINE:
        s.resources[p, PEBBLE] += 1
    elif t == RESIN_REFINERY:
        s.resources[p, RESIN] += 1
    elif t == TWIG_BARGE:
        s.resources[p, TWIG] += 2
    elif t == GENERAL_STORE:
        s.resources[p, BERRY] += 2 if _count_type(s, ctx, FARM) > 0 else 1
    elif t == BARGE_TOAD:
        s.resources[p, TWIG] += 2 * _count_type(s, ctx, FARM)
    elif t == FAIRGROUNDS:
        _draw(s, p, 2)
    elif t == HUSBAND:
        if stage == 0:
            s.fr_stage[f] = 1
            paired = _husband_paired(s, ctx, k) if k >= 0 else _count_type(s, ctx, WIFE) > 0
            if _count_type(s, ctx, FARM) > 0 and paired:
                _push(s, T_GAIN, p, 1, 15, 0, 0)
            return GO
    elif t == DOCTOR or t == WOODCARVER:
        r = BERRY if t == DOCTOR else TWIG
        if a < 0:
            return _ask_number(s, p, min(3, s.resources[p, r]))
        n = a - A_NUMBER
        s.resources[p, r] -= n
        s.tokens[p] += n
    elif t == MONK:
        if stage == 0:
            s.fr_stage[f] = 1
            _push(s, T_GIVE_RESOURCES, p, 0, 2, 1 << BERRY, 0)
            return GO
        s.tokens[p] += 2 * s.ret
    elif t == PEDDLER:
        if stage == 0:  # pay up to 2 resources, then take as many of any kinds
            if a < 0 and s.fr_n[f] < 2 and s.resources[p].sum() > 0:
                mask[:] = 0
                for r in range(4):
                    if s.resources[p, r] > 0:
                        mask[A_RESOURCE + r] = 1
                mask[A_DONE] = 1
                return _ask(s, p, PK_PEDDLER_PAY)
            if a >= 0 and a != A_DONE:
                s.resources[p, a - A_RESOURCE] -= 1
                s.fr_n[f] += 1
                return GO
            s.fr_stage[f] = 1
            _push(s, T_GAIN, p, s.fr_n[f], 15, 0, 0)
            return GO
    elif t == TEACHER:
        if stage == 0:
            _reveal_from_deck(s, 2)
            s.fr_stage[f] = 1
            return GO
        if stage == 1:  # keep one
            if s.revealed_n == 0:
                _pop(s)
                return GO
            if a < 0:
                mask[:] = 0
                for i in range(s.revealed_n):
                    mask[A_REVEALED + i] = 1
                return _ask(s, p, PK_REVEALED)
            i = a - A_REVEALED
            _gain_card(s, p, s.revealed[i])
            if s.revealed_n == 2:
                s.revealed[0] = s.revealed[1 - i]
                s.revealed[1] = -1
                s.revealed_n = 1
                s.fr_stage[f] = 2
                return GO
            s.revealed[0] = -1
            s.revealed_n = 0
        elif stage == 2:  # give the other to an opponent with room, else discard (EVD-D2)
            bits = _receivers(s, p, True)
            if bits != 0 and a < 0:
                mask[:] = 0
                for q in range(s.num_players):
                    if (bits >> q) & 1:
                        mask[A_PLAYER + _rel(s, p, q)] = 1
                return _ask(s, p, PK_GIVE_TO)
            card = s.revealed[0]
            s.revealed[0] = -1
            s.revealed_n = 0
            if a >= 0:
                _gain_card(s, _abs(s, p, a - A_PLAYER), card)
            else:
                _to_discard(s, card)
    elif t == CHIP_SWEEP or t == MINER_MOLE:
        if stage == 0:
            if a < 0:
                mask[:] = 0
                any_target = False
                own = t == CHIP_SWEEP
                for r in range(s.seats):
                    if own != (r == 0):
                        continue
                    q = _abs(s, p, r)
                    if _is_rugwort(s, q):
                        for c in range(NT):
                            if s.rug_city[c] > 0 and _copy_target_ok(c, False):
                                mask[A_CARD + c] = 1
                                any_target = True
                        continue
                    for j in range(CITY_SLOTS):
                        if own and j == k:
                            continue
                        if _copy_target_ok(s.city[q, j], own):
                            mask[A_CITY + r * CITY_SLOTS + j] = 1
                            any_target = True
                if not any_target:
                    _pop(s)
                    return GO
                return _ask(s, p, PK_COPY_GREEN)
            s.fr_stage[f] = 1
            if a < A_MEADOW:  # a card type of Rugwort's city
                _push(s, T_CARD, p, a - A_CARD, 0, RUGWORT, -1)
            else:
                j = a - A_CITY
                q = _abs(s, p, j // CITY_SLOTS)
                _push(s, T_CARD, p, s.city[q, j % CITY_SLOTS], 0, q, j % CITY_SLOTS)
            return GO
    elif t == STOREHOUSE:
        if a < 0:
            mask[:] = 0
            for r in range(4):
                mask[A_RESOURCE + r] = 1
            return _ask(s, p, PK_STOREHOUSE)
        r = a - A_RESOURCE
        s.city_store[ctx, k, r] += 3 if r == TWIG else (1 if r == PEBBLE else 2)
    _pop(s)
    return GO


@kernel
def _travel(s, f, p, t, k, a):
    """A tan Traveler's one-time effect when played (EVD-P5)."""
    mask = s.pend_mask
    stage = s.fr_stage[f]
    if t == BARD:
        if stage == 0:
            s.fr_stage[f] = 1
            _push(s, T_DISCARD, p, 0, 5, 0, 0)
            return GO
        s.tokens[p] += s.ret
    elif t == WANDERER:
        _draw(s, p, 3)
    elif t == SHEPHERD:
        s.resources[p, BERRY] += 3
        chapel = _find_type(s, p, CHAPEL)
        if chapel >= 0:
            s.tokens[p] += s.city_tokens[p, chapel]
    elif t == RANGER:
        _pop(s)
        _push(s, T_RANGER, p, 0, 0, 0, 0)
        return GO
    elif t == POSTAL_PIGEON:
        if stage == 0:
            _reveal_from_deck(s, 2)
            s.fr_stage[f] = 1
            return GO
        if a < 0:
            mask[:] = 0
            for i in range(s.revealed_n):
                if _playable_free(s, p, s.revealed[i]):
                    mask[A_REVEALED + i] = 1
            mask[A_DONE] = 1
            return _ask(s, p, PK_REVEALED)
        _pop(s)
        if a == A_DONE:
            _discard_revealed(s, -1)
        else:
            i = a - A_REVEALED
            card = s.revealed[i]
            _discard_revealed(s, i)
            _push(s, T_PLAY, p, card, O_FREE, 0, 0)
        return GO
    elif t == UNDERTAKER:
        # Discard 3 Meadow cards, refill, then take 1 Meadow card into hand.
        if stage == 0:
            if a >= 0:
                i = a - A_MEADOW
                _to_discard(s, s.meadow[i])
                s.meadow[i] = -1
                s.fr_n[f] += 1
            any_open = False
            mask[:] = 0
            for i in range(MEADOW):
                if _meadow_open(s, p, i):
                    mask[A_MEADOW + i] = 1
                    any_open = True
            if s.fr_n[f] < 3 and any_open:
                return _ask(s, p, PK_MEADOW)
            _refill_meadow(s)
            s.fr_stage[f] = 1
            return GO
        if stage == 1:
            if a < 0:
                if s.hand_n[p] >= HAND_LIMIT:
                    _pop(s)
                    return GO
                mask[:] = 0
                any_open = False
                for i in range(MEADOW):
                    if _meadow_open(s, p, i):
                        mask[A_MEADOW + i] = 1
                        any_open = True
                if not any_open:
                    _pop(s)
                    return GO
                return _ask(s, p, PK_MEADOW)
            i = a - A_MEADOW
            _gain_card(s, p, s.meadow[i])
            s.meadow[i] = -1
            _refill_meadow(s)
    _pop(s)
    return GO


@kernel(fragment=True)
def _visit_post_office(s, f, p, stage, a):
    """Post Office: give 2 cards to an opponent, discard any number, then draw up to the hand
    limit."""
    mask = s.pend_mask
    if stage == 0:
        if a >= 0:
            c = a - A_CARD
            _remove_from_hand(s, p, c)
            s.revealed[s.revealed_n] = c  # held until the receiver is chosen
            s.revealed_n += 1
            s.fr_n[f] += 1  # counted when picked, so the question can be asked again
        if s.fr_n[f] < 2:
            mask[:] = 0
            for c in range(NT):
                if s.hand[p, c] > 0:
                    mask[A_CARD + c] = 1
            return _ask(s, p, PK_GIVE_CARD)
        s.fr_stage[f] = 1
        return GO
    if stage == 1:
        bits = _receivers(s, p, True)
        if bits != 0 and a < 0:
            mask[:] = 0
            for q in range(s.num_players):
                if (bits >> q) & 1:
                    mask[A_PLAYER + _rel(s, p, q)] = 1
            return _ask(s, p, PK_GIVE_TO)
        for i in range(s.revealed_n):
            if a >= 0:
                _gain_card(s, _abs(s, p, a - A_PLAYER), s.revealed[i])
            else:
                _to_discard(s, s.revealed[i])
            s.revealed[i] = -1
        s.revealed_n = 0
        s.fr_stage[f] = 2
        _push(s, T_DISCARD, p, 0, HAND_LIMIT, 0, 0)
        return GO
    _draw(s, p, HAND_LIMIT)
    _pop(s)
    return GO


@kernel(fragment=True)
def _visit_cemetery(s, f, p, stage, a):
    """Cemetery: reveal 4 from the deck or the discard pile; play one of them for free."""
    mask = s.pend_mask
    if stage == 0:
        if a < 0:
            mask[:] = 0
            if s.deck_n + s.discard_n > 0:
                mask[A_NUMBER] = 1
            if s.discard_n > 0:
                mask[A_NUMBER + 1] = 1
            return _ask(s, p, PK_PILE)
        if a == A_NUMBER:
            _reveal_from_deck(s, 4)
        else:
            s.revealed_n = 0
            for _ in range(min(4, s.discard_n)):
                s.discard_n -= 1
                s.revealed[s.revealed_n] = s.discard[s.discard_n]
                s.discard[s.discard_n] = -1
                s.revealed_n += 1
        s.fr_stage[f] = 1
        return GO
    if a < 0:
        mask[:] = 0
        playable = False
        for i in range(s.revealed_n):
            if _enters(s, p, s.revealed[i], -1):
                mask[A_REVEALED + i] = 1
                playable = True
        if playable:
            return _ask(s, p, PK_REVEALED)
        _discard_revealed(s, -1)
        _pop(s)
        return GO
    i = a - A_REVEALED
    card = s.revealed[i]
    _discard_revealed(s, i)
    _pop(s)
    _push(s, T_PLAY, p, card, O_FREE, 0, 0)
    return GO


@kernel
def _visit(s, f, p, t, o, k, a):
    """A Destination's action for the worker p just placed on it (EVD-W4)."""
    mask = s.pend_mask
    stage = s.fr_stage[f]
    if t == CHAPEL:
        s.city_tokens[o, k] += 1
        _draw(s, p, 2 * s.city_tokens[o, k])
    elif t == STOREHOUSE:
        for r in range(4):
            s.resources[p, r] += s.city_store[o, k, r]
            s.city_store[o, k, r] = 0
    elif t == LOOKOUT:
        # Copy any basic or forest location, even an occupied one.
        if a < 0:
            mask[:] = 0
            for i in range(N_BASIC):
                mask[A_PLACE_BASIC + i] = 1
            for j in range(MAX_FOREST):
                if s.forest[j] >= 0 and _location_effect_ok(s, p, s.forest[j]):
                    mask[A_PLACE_FOREST + j] = 1
            return _ask(s, p, PK_LOCATION)
        _pop(s)
        if a < A_PLACE_FOREST:
            _push(s, T_LOCATION, p, BASIC_LOCS[a - A_PLACE_BASIC], 0, 0, 0)
        else:
            _push(s, T_LOCATION, p, s.forest[a - A_PLACE_FOREST], 0, 0, 0)
        return GO
    elif t == MONASTERY:
        if stage == 0:
            s.fr_stage[f] = 1
            _push(s, T_GIVE_RESOURCES, p, 2, 2, 15, 0)
            return GO
        s.tokens[p] += 4
    elif t == INN:
        if a < 0:
            mask[:] = 0
            for i in range(MEADOW):
                if _meadow_open(s, p, i) and _playable_discounted(s, p, s.meadow[i], 3):
                    mask[A_MEADOW + i] = 1
            return _ask(s, p, PK_MEADOW)
        i = a - A_MEADOW
        card = s.meadow[i]
        s.meadow[i] = -1
        _refill_meadow(s)
        _pop(s)
        _push(s, T_PLAY, p, card, O_INN, 0, 0)
        return GO
    elif t == QUEEN:
        if a < 0:
            mask[:] = 0
            for c in range(NT):
                if s.hand[p, c] > 0 and _playable_free(s, p, c):
                    mask[A_CARD + c] = 1
            for i in range(MEADOW):
                if _meadow_open(s, p, i) and _playable_free(s, p, s.meadow[i]):
                    mask[A_MEADOW + i] = 1
            return _ask(s, p, PK_HAND_OR_MEADOW)
        if a < A_MEADOW:
            card = a - A_CARD
            _remove_from_hand(s, p, card)
        else:
            i = a - A_MEADOW
            card = s.meadow[i]
            s.meadow[i] = -1
            _refill_meadow(s)
        _pop(s)
        _push(s, T_PLAY, p, card, O_FREE, 0, 0)
        return GO
    elif t == POST_OFFICE:
        return _visit_post_office(s, f, p, stage, a)
    elif t == UNIVERSITY:
        if stage == 0:
            if a < 0:
                mask[:] = 0
                for j in range(CITY_SLOTS):
                    if j != k and s.city[p, j] >= 0:
                        mask[A_CITY + j] = 1
                return _ask(s, p, PK_REMOVE)
            j = a - A_CITY
            old = _remove_city_card(s, p, j, _city_code(p, k), True)
            for r in range(4):
                s.resources[p, r] += COST[old, r]
            s.tokens[p] += 1
            s.fr_stage[f] = 1
            _push(s, T_GAIN, p, 1, 15, 0, 0)
            return GO
    elif t == CEMETERY:
        return _visit_cemetery(s, f, p, stage, a)
    _pop(s)
    return GO


# Standalone: a card's effects are most of the task interpreter _run_top.
@standalone_kernel(record_arg(STATE_DTYPE), types.int64, returns=types.boolean)
def _run_card(s, f):
    p = s.fr_actor[f]
    t = s.fr_a[f]
    a = _take_answer(s)
    if s.fr_b[f] == 1:
        return _visit(s, f, p, t, s.fr_c[f], s.fr_d[f], a)
    if COLOR[t] == TRAVELER:
        return _travel(s, f, p, t, s.fr_d[f], a)
    return _produce(s, f, p, t, s.fr_c[f], s.fr_d[f], a)


# ---- locations (EVD-W1…W3, W6, W7) -----------------------------------------------------------
@kernel
def _run_location(s, f):
    p = s.fr_actor[f]
    loc = s.fr_a[f]
    a = _take_answer(s)
    stage = s.fr_stage[f]
    mask = s.pend_mask
    kind = LOC_KIND[loc]
    if loc == HAVEN:  # EVD-W6: 1 resource of choice per 2 cards discarded
        if stage == 0:
            s.fr_stage[f] = 1
            _push(s, T_DISCARD, p, 0, HAND_LIMIT, 0, 0)
            return GO
        _pop(s)
        _push(s, T_GAIN, p, s.ret // 2, 15, 0, 0)
        return GO
    if kind == D.LOC_JOURNEY:  # EVD-W7: discard exactly the space's points
        _pop(s)
        _push(s, T_DISCARD, p, LOC_DISCARD[loc], LOC_DISCARD[loc], 0, 0)
        return GO
    if loc == F_DISCARD_DRAW:
        if stage == 0:
            s.fr_stage[f] = 1
            _push(s, T_DISCARD, p, 0, HAND_LIMIT, 0, 0)
            return GO
        _draw(s, p, 2 * s.ret)
        _pop(s)
        return GO
    if loc == F_DISCARD_GAIN:
        if stage == 0:
            s.fr_stage[f] = 1
            _push(s, T_DISCARD, p, 0, 3, 0, 0)
            return GO
        _pop(s)
        _push(s, T_GAIN, p, s.ret, 15, 0, 0)
        return GO
    if loc == F_COPY_BASIC:
        if a < 0:
            mask[:] = 0
            for i in range(N_BASIC):
                mask[A_PLACE_BASIC + i] = 1
            return _ask(s, p, PK_LOCATION)
        _draw(s, p, 1)
        _pop(s)
        _push(s, T_LOCATION, p, BASIC_LOCS[a - A_PLACE_BASIC], 0, 0, 0)
        return GO
    if loc == F_MEADOW_PICK:
        # Take 2 Meadow cards (then refill), play one of them for 1 resource less, keep the other.
        if stage == 0:
            if a >= 0:
                i = a - A_MEADOW
                s.revealed[s.revealed_n] = s.meadow[i]
                s.revealed_n += 1
                s.meadow[i] = -1
            if s.revealed_n < 2:
                mask[:] = 0
                need_playable = s.revealed_n == 1 and not _playable_discounted(
                    s, p, s.revealed[0], 1
                )
                found = False
                for i in range(MEADOW):
                    if _meadow_open(s, p, i):
                        if need_playable and not _playable_discounted(s, p, s.meadow[i], 1):
                            continue
                        mask[A_MEADOW + i] = 1
                        found = True
                if found:
                    return _ask(s, p, PK_MEADOW)
            _refill_meadow(s)
            s.fr_stage[f] = 1
            return GO
        if a < 0:
            mask[:] = 0
            for i in range(s.revealed_n):
                if _playable_discounted(s, p, s.revealed[i], 1):
                    mask[A_REVEALED + i] = 1
            return _ask(s, p, PK_REVEALED)
        i = a - A_REVEALED
        card = s.revealed[i]
        for j in range(s.revealed_n):
            if j != i:
                _gain_card(s, p, s.revealed[j])
            s.revealed[j] = -1
        s.revealed_n = 0
        _pop(s)
        _push(s, T_PLAY, p, card, O_FOREST, 0, 0)
        return GO
    # Fixed gains: resources, cards, point tokens, and resources of choice.
    for r in range(4):
        s.resources[p, r] += LOC_GAIN[loc, r]
    _draw(s, p, LOC_CARDS[loc])
    s.tokens[p] += LOC_POINTS[loc]
    _pop(s)
    if LOC_ANY[loc] > 0:
        _push(s, T_GAIN, p, LOC_ANY[loc], 15, 0, 0)
    return GO


# ---- generic sub-tasks -----------------------------------------------------------------------
@kernel
def _run_discard(s, f):
    """Discard between fr_a and fr_b cards from hand, one choice at a time; ret = count."""
    p = s.fr_actor[f]
    a = _take_answer(s)
    if a >= 0:
        if a == A_DONE:
            s.ret = s.fr_n[f]
            _pop(s)
            return GO
        c = a - A_CARD
        _remove_from_hand(s, p, c)
        _to_discard(s, c)
        s.fr_n[f] += 1
    if s.fr_n[f] >= s.fr_b[f] or s.hand_n[p] == 0:
        s.ret = s.fr_n[f]
        _pop(s)
        return GO
    mask = s.pend_mask
    mask[:] = 0
    for c in range(NT):
        if s.hand[p, c] > 0:
            mask[A_CARD + c] = 1
    if s.fr_n[f] >= s.fr_a[f]:
        mask[A_DONE] = 1
    return _ask(s, p, PK_DISCARD)


@kernel
def _run_gain(s, f):
    """Gain fr_a resources of the player's choice among the kinds in bitmask fr_b."""
    p = s.fr_actor[f]
    a = _take_answer(s)
    if a >= 0:
        s.resources[p, a - A_RESOURCE] += 1
        s.fr_a[f] -= 1
    if s.fr_a[f] <= 0:
        _pop(s)
        return GO
    mask = s.pend_mask
    mask[:] = 0
    for r in range(4):
        if (s.fr_b[f] >> r) & 1:
            mask[A_RESOURCE + r] = 1
    return _ask(s, p, PK_COURTHOUSE if s.fr_b[f] == 7 else PK_GAIN)


@kernel
def _run_give_resources(s, f):
    """Give between fr_a and fr_b resources (kinds in bitmask fr_c) to one opponent, or with
    fr_d = 1 each resource to an opponent of the player's choice (A Brilliant Marketing Plan:
    "to opponents"); with no opponent able to receive they go to the supply (EVD-E1).
    ret = count given."""
    p = s.fr_actor[f]
    a = _take_answer(s)
    mask = s.pend_mask
    if s.fr_stage[f] == 2:  # fr_d = 1: who receives the resource kept in fr_bits
        bits = _receivers(s, p, False)
        if bits != 0 and a < 0:
            mask[:] = 0
            for q in range(s.num_players):
                if (bits >> q) & 1:
                    mask[A_PLAYER + _rel(s, p, q)] = 1
            return _ask(s, p, PK_GIVE_TO)
        if a >= 0:
            s.resources[_abs(s, p, a - A_PLAYER), s.fr_bits[f]] += 1
        s.fr_stage[f] = 0
        return GO
    if s.fr_stage[f] == 0:
        if a >= 0:
            if a == A_DONE:
                s.fr_stage[f] = 1
                return GO
            r = a - A_RESOURCE
            s.resources[p, r] -= 1
            s.fr_n[f] += 1
            if s.fr_d[f] == 1:
                s.fr_bits[f] = r
                s.fr_stage[f] = 2
                return GO
            s.fr_cost[f, r] += 1
        if s.fr_n[f] < s.fr_b[f]:
            mask[:] = 0
            found = False
            for r in range(4):
                if (s.fr_c[f] >> r) & 1 and s.resources[p, r] > 0:
                    mask[A_RESOURCE + r] = 1
                    found = True
            if s.fr_n[f] >= s.fr_a[f]:
                mask[A_DONE] = 1
                found = True
            if found:
                return _ask(s, p, PK_GIVE_RESOURCE)
        s.fr_stage[f] = 1
        return GO
    s.ret = s.fr_n[f]
    bits = _receivers(s, p, False)
    if s.fr_d[f] == 0 and s.fr_n[f] > 0 and bits != 0 and a < 0:
        mask[:] = 0
        for q in range(s.num_players):
            if (bits >> q) & 1:
                mask[A_PLAYER + _rel(s, p, q)] = 1
        return _ask(s, p, PK_GIVE_TO)
    if a >= 0:
        q = _abs(s, p, a - A_PLAYER)
        for r in range(4):
            s.resources[q, r] += s.fr_cost[f, r]
    _pop(s)
    return GO


@kernel
def _run_ranger(s, f):
    """Ranger: move one of p's deployed workers to a new spot, resolved as a new placement."""
    p = s.fr_actor[f]
    a = _take_answer(s)
    mask = s.pend_mask
    if s.fr_stage[f] == 0:
        if a < 0:
            mask[:] = 0
            found = False
            for w in range(s.workers[p]):
                loc = s.wloc[p, w]
                if loc != W_FREE and loc != W_LIMBO and s.wperm[p, w] == 0:
                    mask[A_WORKER + w] = 1
                    found = True
            if not found:
                _pop(s)
                return GO
            return _ask(s, p, PK_WORKER)  # compulsory: the card has no "may"
        w = a - A_WORKER
        s.fr_a[f] = w
        s.fr_b[f] = s.wloc[p, w]
        s.wloc[p, w] = W_FREE
        s.fr_stage[f] = 1
        return GO
    if a < 0:
        mask[:] = 0
        _place_mask(s, p, mask, s.fr_b[f])
        if mask.sum() == 0:
            s.wloc[p, s.fr_a[f]] = s.fr_b[f]
            _pop(s)
            return GO
        return _ask(s, p, PK_PLACE)
    w = s.fr_a[f]
    _pop(s)
    _place(s, p, a, w)
    return GO


# ---- events (EVD-W5) -------------------------------------------------------------------------
@kernel
def _store_event(s, e, points):
    cap = EV_MAX[e]
    s.event_store[e] = min(points, cap) if cap >= 0 else points


@kernel
def _run_event(s, f):
    p = s.fr_actor[f]
    e = s.fr_a[f]
    a = _take_answer(s)
    stage = s.fr_stage[f]
    mask = s.pend_mask
    if e == EV_MARKETING or e == EV_NEW_MANAGEMENT:
        if e == EV_MARKETING:  # hand opponents up to 3 resources, 2 points each
            if stage == 0:
                s.fr_stage[f] = 1
                _push(s, T_GIVE_RESOURCES, p, 0, 3, 15, 1)  # each to an opponent
                return GO
            _store_event(s, e, 2 * s.ret)
        else:  # park up to 3 resources: twig/berry 1 point, resin/pebble 2
            if a >= 0 and a != A_DONE:
                r = a - A_RESOURCE
                s.resources[p, r] -= 1
                s.fr_n[f] += 1
                s.fr_c[f] += 2 if (r == RESIN or r == PEBBLE) else 1
            if a != A_DONE and s.fr_n[f] < 3 and s.resources[p].sum() > 0:
                mask[:] = 0
                for r in range(4):
                    if s.resources[p, r] > 0:
                        mask[A_RESOURCE + r] = 1
                mask[A_DONE] = 1
                return _ask(s, p, PK_GIVE_RESOURCE)
            _store_event(s, e, s.fr_c[f])
    elif e == EV_FIREWORKS or e == EV_PERFORMER:  # park up to 3 twigs / berries, 2 points each
        r = TWIG if e == EV_FIREWORKS else BERRY
        if a < 0:
            return _ask_number(s, p, min(3, s.resources[p, r]))
        n = a - A_NUMBER
        s.resources[p, r] -= n
        _store_event(s, e, 2 * n)
    elif e == EV_WEE_RUN:  # take back one placed worker
        if a < 0:
            mask[:] = 0
            found = False
            for w in range(s.workers[p]):
                loc = s.wloc[p, w]
                if loc != W_FREE and loc != W_EVENT + e and s.wperm[p, w] == 0:
                    mask[A_WORKER + w] = 1
                    found = True
            if found:
                return _ask(s, p, PK_WORKER)  # compulsory when a worker can come back
        else:
            s.wloc[p, a - A_WORKER] = W_FREE
        _store_event(s, e, EV_POINTS[e])
    elif e == EV_SCROLLS:  # reveal 5, keep any, tuck the rest for 1 point each
        if stage == 0:
            _reveal_from_deck(s, 5)
            s.fr_stage[f] = 1
            return GO
        if a >= 0 and a != A_DONE:
            i = a - A_REVEALED
            _gain_card(s, p, s.revealed[i])
            s.revealed_n -= 1
            s.revealed[i] = s.revealed[s.revealed_n]
            s.revealed[s.revealed_n] = -1
        if a != A_DONE and s.revealed_n > 0 and s.hand_n[p] < HAND_LIMIT:
            mask[:] = 0
            for i in range(s.revealed_n):
                mask[A_REVEALED + i] = 1
            mask[A_DONE] = 1
            return _ask(s, p, PK_REVEALED)
        n = s.revealed_n
        for i in range(n):
            s.revealed[i] = -1
        s.revealed_n = 0
        s.tucked += n
        _store_event(s, e, n)
    elif e == EV_ACORN or e == EV_CROAK:
        # Acorn Thieves: tuck up to 2 critters of the city, 3 points each. Croak Wart Cure:
        # discard 2 cards of the city (the 2 berries were paid on placing).
        if a >= 0 and a != A_DONE:
            k = a - A_CITY
            if e == EV_ACORN:
                _remove_city_card(s, p, k, -1, False)
                s.tucked += 1
            else:
                _remove_city_card(s, p, k, -1, True)
            s.fr_n[f] += 1
        if a != A_DONE and s.fr_n[f] < 2:
            mask[:] = 0
            found = False
            for k in range(CITY_SLOTS):
                c = s.city[p, k]
                if c >= 0 and (e == EV_CROAK or KIND[c] == CRITTER):
                    mask[A_CITY + k] = 1
                    found = True
            if found:
                if e == EV_ACORN:
                    mask[A_DONE] = 1
                return _ask(s, p, PK_REMOVE)
        _store_event(s, e, 3 * s.fr_n[f] if e == EV_ACORN else EV_POINTS[e])
    elif e == EV_GRADUATION:  # tuck up to 3 critters from hand, 2 points each
        if a >= 0 and a != A_DONE:
            _remove_from_hand(s, p, a - A_CARD)
            s.tucked += 1
            s.fr_n[f] += 1
        if a != A_DONE and s.fr_n[f] < 3:
            mask[:] = 0
            found = False
            for c in range(NT):
                if s.hand[p, c] > 0 and KIND[c] == CRITTER:
                    mask[A_CARD + c] = 1
                    found = True
            if found:
                mask[A_DONE] = 1
                return _ask(s, p, PK_DISCARD)
        _store_event(s, e, 2 * s.fr_n[f])
    elif e == EV_CHAPEL_CEILING:  # per Chapel token: draw 1 and gain 1 resource
        chapel = _find_type(s, p, CHAPEL)
        n = s.city_tokens[p, chapel] if chapel >= 0 else 0
        _draw(s, p, n)
        _pop(s)
        _push(s, T_GAIN, p, n, 15, 0, 0)
        return GO
    elif e == EV_TAX_RELIEF:  # every green card fires once
        _store_event(s, e, EV_POINTS[e])
        _pop(s)
        _push(s, T_PRODUCE_ALL, p, 0, 0, 0, 0)
        s.fr_bits[s.depth - 1] = _green_bits(s, p)
        return GO
    elif EV_POINTS[e] >= 0:
        _store_event(s, e, EV_POINTS[e])
    _pop(s)
    return GO


# ---- production and seasons (EVD-F1…F5) ------------------------------------------------------
@kernel
def _green_bits(s, p):
    bits = 0
    for k in range(CITY_SLOTS):
        t = s.city[p, k]
        if t >= 0 and COLOR[t] == PRODUCTION:
            bits |= 1 << k
    return bits


@kernel
def _run_produce_all(s, f):
    """Fire each green card of the set once, in the order the player picks."""
    p = s.fr_actor[f]
    a = _take_answer(s)
    if a >= 0:
        k = a - A_CITY
        s.fr_bits[f] &= ~(1 << k)
        _push(s, T_CARD, p, s.city[p, k], 0, p, k)
        return GO
    bits = s.fr_bits[f]
    for k in range(CITY_SLOTS):  # a card that left the city no longer fires
        if (bits >> k) & 1 and (s.city[p, k] < 0 or COLOR[s.city[p, k]] != PRODUCTION):
            bits &= ~(1 << k)
    s.fr_bits[f] = bits
    if bits == 0:
        _pop(s)
        return GO
    mask = s.pend_mask
    mask[:] = 0
    for k in range(CITY_SLOTS):
        if (bits >> k) & 1:
            mask[A_CITY + k] = 1
    return _ask(s, p, PK_PRODUCE_ORDER)


@kernel
def _clock_tower_ok(s, p, loc):
    if LOC_KIND[loc] > D.LOC_FOREST:
        return False
    return _player_at(s, p, loc) and _location_effect_ok(s, p, loc)


@kernel
def _run_prepare(s, f):
    """EVD-F1…F4: Clock Tower first, then the season's bonus, recall, new workers."""
    p = s.fr_actor[f]
    a = _take_answer(s)
    stage = s.fr_stage[f]
    mask = s.pend_mask
    if stage == 0:
        tower = _find_type(s, p, CLOCK_TOWER)
        if a < 0:
            if tower >= 0 and s.city_tokens[p, tower] > 0:
                mask[:] = 0
                found = False
                for i in range(N_BASIC):
                    if _clock_tower_ok(s, p, BASIC_LOCS[i]):
                        mask[A_PLACE_BASIC + i] = 1
                        found = True
                for j in range(MAX_FOREST):
                    if s.forest[j] >= 0 and _clock_tower_ok(s, p, s.forest[j]):
                        mask[A_PLACE_FOREST + j] = 1
                        found = True
                if found:
                    mask[A_DONE] = 1
                    return _ask(s, p, PK_LOCATION)
            s.fr_stage[f] = 1
            return GO
        s.fr_stage[f] = 1
        if a != A_DONE:
            s.city_tokens[p, tower] -= 1
            if a < A_PLACE_FOREST:
                loc = BASIC_LOCS[a - A_PLACE_BASIC]
            else:
                loc = s.forest[a - A_PLACE_FOREST]
            _push(s, T_LOCATION, p, loc, 0, 0, 0)
        return GO
    if stage == 1:
        s.season[p] += 1
        s.fr_stage[f] = 2
        if SEASON_PRODUCTION[s.season[p]]:
            _push(s, T_PRODUCE_ALL, p, 0, 0, 0, 0)
            s.fr_bits[s.depth - 1] = _green_bits(s, p)
        return GO
    if stage == 2:
        if s.season[p] == SUMMER:  # EVD-F3: up to 2 Meadow cards, then refill
            if a >= 0 and a != A_DONE:
                i = a - A_MEADOW
                _gain_card(s, p, s.meadow[i])
                s.meadow[i] = -1
                s.fr_n[f] += 1
            if a != A_DONE and s.fr_n[f] < 2 and s.hand_n[p] < HAND_LIMIT:
                mask[:] = 0
                found = False
                for i in range(MEADOW):
                    if _meadow_open(s, p, i):
                        mask[A_MEADOW + i] = 1
                        found = True
                if found:
                    mask[A_DONE] = 1
                    return _ask(s, p, PK_MEADOW)
            _refill_meadow(s)
        # Recall (EVD-F1): every worker not on a permanent spot comes back; then new workers.
        for w in range(s.workers[p]):
            if s.wperm[p, w] == 0:
                s.wloc[p, w] = W_FREE
        gain = SEASON_NEW_WORKERS[s.season[p]]
        if s.num_players == 1 and s.rug_year == 3 and s.season[p] == AUTUMN:
            gain -= 1  # year 3: one of your workers leaves the game
        for _ in range(gain):
            w = s.workers[p]
            s.wloc[p, w] = W_FREE
            s.wperm[p, w] = 0
            s.workers[p] = w + 1
        if s.num_players == 1:
            _rugwort_season(s, s.season[p])
    _pop(s)
    return GO


# ---- solo: Rugwort (docs/everdell.md, Solo) --------------------------------------------------
RUG_JOURNEY_BY_YEAR = np.array([0, JOURNEY_LOCS[2], JOURNEY_LOCS[1], JOURNEY_LOCS[0]], np.int8)
RUG_MISSED_SPECIAL = np.array([0, 3, 6, 6], np.int16)


@kernel
def _rugwort_play(s):
    """After each card the player plays, Rugwort rolls the d8 and plays that Meadow card."""
    i = randint(s.rng, 0, MEADOW)
    t = s.meadow[i]
    if t < 0:
        return
    s.meadow[i] = -1
    _refill_meadow(s)
    if t == FOOL:
        if _fits(s, 0, FOOL, -1):
            s.city[0, _free_slot(s, 0)] = FOOL
        else:
            _to_discard(s, FOOL)
        return
    s.rug_city[t] += 1


@kernel
def _rugwort_season(s, season):
    """Rugwort's moves after the player prepares for ``season``."""
    for e in range(N_BASIC_EVENTS):
        if s.event_owner[e] < 0 and _color_count(s, RUGWORT, EV_REQ_COLOR[e]) >= EV_REQ_COUNT[e]:
            s.event_owner[e] = RUGWORT
    if season == SPRING:
        s.rug_meadow |= 1
    elif season == SUMMER:
        s.rug_meadow |= 2
    else:
        s.rug_meadow |= 4 | 8
    n_forest = 0
    for j in range(MAX_FOREST):
        n_forest += s.forest[j] >= 0
    if season == AUTUMN:
        s.rug_forest = -1
        s.rug_journey = RUG_JOURNEY_BY_YEAR[s.rug_year]
    elif s.rug_forest >= 0:
        s.rug_forest = (s.rug_forest + 1) % n_forest
    if season == SPRING:
        s.rug_basic = LOC_2_RESIN
    elif season == SUMMER:
        s.rug_basic = LOC_1_PEBBLE
    else:
        s.rug_basic = -1 if s.rug_year == 3 else LOC_BERRY_CARD


# ---- scoring (EVD-E2, EVD-E3) ----------------------------------------------------------------
@kernel
def _workers_on(s, p, t):
    """Workers (anyone's) on p's cards of type ``t``."""
    n = 0
    for k in range(CITY_SLOTS):
        if s.city[p, k] == t:
            n += _count_at(s, _city_code(p, k))
    return n


@kernel
def event_points(s, p, e):
    """Points event ``e`` gives its owner ``p`` at the end."""
    if EV_SPECIAL[e] == 0:
        return 3
    if e == EV_FLYING_DOCTOR:
        n = 0
        for q in range(s.seats):
            n += _pairs(s, q)
        return 3 * n
    if e == EV_MINISTERING:
        n = 0
        k = _find_type(s, p, DUNGEON)
        if k >= 0:
            n = np.int64(s.city_jail[p, k, 0] >= 0) + np.int64(s.city_jail[p, k, 1] >= 0)
        return min(6, 3 * n)
    if e == EV_PILGRIMS:
        return min(6, 3 * _workers_on(s, p, MONASTERY))
    if e == EV_FALLEN:
        return min(6, 3 * _workers_on(s, p, CEMETERY))
    if e == EV_CHAPEL_CEILING:
        k = _find_type(s, p, CHAPEL)
        return 2 * s.city_tokens[p, k] if k >= 0 else 0
    return s.event_store[e]


@kernel
def score_of(s, p):
    """EVD-E2: base points + point tokens + Prosperity bonuses + Journey + events."""
    if _is_rugwort(s, p):
        return _rugwort_score(s)
    total = s.tokens[p]
    basic_events = 0
    special_events = 0
    for e in range(NE):
        if s.event_owner[e] == p:
            total += event_points(s, p, e)
            if EV_SPECIAL[e]:
                special_events += 1
            else:
                basic_events += 1
    for w in range(s.workers[p]):
        loc = s.wloc[p, w]
        if 0 <= loc < NL and LOC_KIND[loc] == D.LOC_JOURNEY:
            total += LOC_POINTS[loc]
    # One pass over the city (the observation scores every seat on every step): base points
    # and tokens, and the counts that the bonus cards score per card.
    architects = kings = husbands = wives = 0
    castles = palaces = schools = theaters = ever_trees = 0
    common_constructions = unique_constructions = common_critters = unique_critters = 0
    prosperity = 0
    for k in range(CITY_SLOTS):
        t = s.city[p, k]
        if t < 0:
            continue
        total += POINTS[t] + s.city_tokens[p, k]
        unique = UNIQUE[t] == 1
        if KIND[t] == CONSTRUCTION:
            unique_constructions += unique
            common_constructions += not unique
        else:
            unique_critters += unique
            common_critters += not unique
        prosperity += COLOR[t] == PROSPERITY
        architects += t == ARCHITECT
        kings += t == KING
        husbands += t == HUSBAND
        wives += t == WIFE
        castles += t == CASTLE
        palaces += t == PALACE
        schools += t == SCHOOL
        theaters += t == THEATER
        ever_trees += t == EVER_TREE
    total += architects * min(6, s.resources[p, RESIN] + s.resources[p, PEBBLE])
    total += kings * (basic_events + 2 * special_events)
    total += castles * common_constructions + palaces * unique_constructions
    total += schools * common_critters + theaters * unique_critters
    total += ever_trees * prosperity  # the Ever Tree counts itself (a Prosperity card)
    total += 3 * min(husbands, wives)  # Wife: 3 points for each Wife with a Husband partner
    return total


@kernel
def _rugwort_score(s):
    total = s.tokens[RUGWORT]
    for t in range(NT):
        total += s.rug_city[t] * (3 if COLOR[t] == PROSPERITY else 2)
    for e in range(NE):
        if EV_SPECIAL[e] == 0 and s.event_owner[e] == RUGWORT:
            total += 3
    for j in range(N_SPECIAL_DEALT):
        if s.event_owner[s.specials[j]] != 0:
            total += RUG_MISSED_SPECIAL[s.rug_year]
    if s.rug_journey >= 0:
        total += LOC_POINTS[s.rug_journey]
    return total


@kernel
def _finish(s, truncated):
    for p in range(s.seats):
        s.score[p] = score_of(s, p)
    s.current_player = -1
    s.pend_kind = PK_NONE
    s.pend_mask[:] = 0
    if truncated:  # the task stack stays as it was, so a card being paid for is not lost
        s.truncated = 1
        s.winner = -1
        return
    s.terminated = 1
    if s.num_players == 1:
        s.winner = 0 if s.score[0] > s.score[1] else (1 if s.score[1] > s.score[0] else -1)
        return
    # EVD-E3: most points, then most events, then most leftover resources.
    best = -1
    tied = False
    best_key = np.zeros(3, np.int64)
    for p in range(s.num_players):
        events = 0
        for e in range(NE):
            events += s.event_owner[e] == p
        key0 = np.int64(s.score[p])
        key1 = np.int64(events)
        key2 = np.int64(s.resources[p].sum())
        if best < 0:
            better = True
        elif key0 != best_key[0]:
            better = key0 > best_key[0]
        elif key1 != best_key[1]:
            better = key1 > best_key[1]
        else:
            better = key2 > best_key[2]
        same = best >= 0 and key0 == best_key[0] and key1 == best_key[1] and key2 == best_key[2]
        if better:
            best = p
            tied = False
            best_key[0] = key0
            best_key[1] = key1
            best_key[2] = key2
        elif same:
            tied = True
    s.winner = -1 if tied else best


# ---- the driver ------------------------------------------------------------------------------
@kernel
def _end_turn(s):
    """After a turn: Rugwort's plays (solo), then the next player who has not passed."""
    if s.num_players == 1:
        for _ in range(s.plays_this_turn):
            _rugwort_play(s)
    s.plays_this_turn = 0
    n = s.num_players
    for step in range(1, n + 1):
        q = (s.turn_player + step) % n
        if s.passed[q] == 0:
            s.turn_player = q
            s.turn_count += 1
            return True
    return False


# Standalone: the task interpreter, called by _advance and rederive_pending.
@standalone_kernel(record_arg(STATE_DTYPE), returns=types.boolean)
def _run_top(s):
    f = s.depth - 1
    kind = s.fr_kind[f]
    if kind == T_PLAY:
        return _run_play(s, f)
    if kind == T_CARD:
        return _run_card(s, f)
    if kind == T_LOCATION:
        return _run_location(s, f)
    if kind == T_EVENT:
        return _run_event(s, f)
    if kind == T_PREPARE:
        return _run_prepare(s, f)
    if kind == T_PRODUCE_ALL:
        return _run_produce_all(s, f)
    if kind == T_DISCARD:
        return _run_discard(s, f)
    if kind == T_GAIN:
        return _run_gain(s, f)
    if kind == T_GIVE_RESOURCES:
        return _run_give_resources(s, f)
    return _run_ranger(s, f)


@kernel
def _advance(s):
    """Run tasks until a player must decide; a decision with one legal action is taken at
    once. With no task left the turn ends and the next player's turn opens."""
    while True:
        if s.depth == 0:
            if not _end_turn(s):
                _finish(s, False)
                return
            p = s.turn_player
            _turn_mask(s, p)
            s.current_player = p
            s.pend_kind = PK_TURN
            return
        s.pend_kind = PK_NONE
        if _run_top(s):
            only = _single_action(s.pend_mask)
            if only >= 0:
                s.answer = only
                continue
            return


@kernel
def rederive_pending(states, g):
    """Recompute the pending decision of a record stopped at a decision point (snapshot
    loading): the turn menu (EVD-T1) with an empty stack, else the top task's question asked
    again from its stage. Every question is asked before the stage changes anything else, so
    for a position the engine reached this rewrites only what it had already written. Returns
    whether the top task stopped with a decision."""
    s = states[g]
    s.pend_mask[:] = 0
    if s.depth == 0:
        p = s.turn_player
        _turn_mask(s, p)
        s.current_player = p
        s.pend_kind = PK_TURN
        return True
    s.answer = -1
    s.pend_kind = PK_NONE
    s.current_player = -1
    return _run_top(s) == WAIT and s.pend_kind != PK_NONE


@standalone_kernel(STATES, types.int64, types.int64)
def apply_action(states, g, action):
    """Apply a legal ``action`` of the player to act (callers check the mask)."""
    s = states[g]
    s.step_count += 1
    if s.pend_kind == PK_TURN:
        p = s.current_player
        s.turn_player = p
        _turn_action(s, p, action)
        _advance(s)
    else:
        s.answer = action
        _advance(s)
    if s.terminated == 0 and s.step_count >= STEP_CAP:
        _finish(s, True)


@standalone_kernel(STATES, types.int64, array_arg(np.int8))
def legal_mask_into(states, g, mask):
    s = states[g]
    copy_values(mask, s.pend_mask)


@kernel
def rewards_into(s, out):
    """Terminal rewards: +1 to the winner, -1/(n-1) to each other player (solo: -1 for a loss
    to Rugwort); 0 to all on a draw or a truncated game."""
    out[:] = 0.0
    if s.terminated == 1 and s.winner >= 0:
        n = s.num_players
        if n == 1:
            out[0] = 1.0 if s.winner == 0 else -1.0
            return
        for p in range(n):
            out[p] = 1.0 if p == s.winner else -1.0 / (n - 1)


# ---- setup (EVD-S1…S7) -----------------------------------------------------------------------
@standalone_kernel(STATES, types.int64, types.int64, types.uint64, types.int64)
def init_game(states, g, num_players, key, options=0):
    """A fresh game from RNG word ``key``; solo (1 player) adds Rugwort as seat 1."""
    clear_record(states, g)  # every field 0; the lines below set the rest
    s = states[g]
    s.rng[0] = key
    year = options & 3
    s.rug_year = 1 if year == 0 else year
    s.opt_fool_bonuses = 1 if options & OPTION_FOOL_BONUSES else 0
    s.opt_pass_anytime = 1 if options & OPTION_PASS_ANYTIME else 0
    s.num_players = num_players
    seats = 2 if num_players == 1 else num_players
    s.seats = seats
    s.winner = -1
    s.city[:, :] = -1
    s.city_jail[:, :, :] = -1
    s.season[:] = WINTER
    s.wloc[:, :] = W_FREE
    for p in range(num_players):
        s.workers[p] = SEASON_NEW_WORKERS[WINTER]  # EVD-S5
    s.event_owner[:] = -1
    s.revealed[:] = -1
    s.answer = -1
    # EVD-S7: a random first player.
    first = randint(s.rng, 0, num_players)
    s.first_player = first
    # EVD-S2: forest cards (3 with 1-2 players, 4 with 3-4).
    forest = FOREST_LOCS.copy()
    shuffle(s.rng, forest, N_FOREST_TYPES)
    s.forest[:] = -1
    for j in range(FOREST_DEALT[num_players]):
        s.forest[j] = forest[j]
    # EVD-S3: 4 of the 16 special events.
    specials = SPECIAL_EVENTS.copy()
    shuffle(s.rng, specials, specials.shape[0])
    for j in range(N_SPECIAL_DEALT):
        s.specials[j] = specials[j]
    # EVD-S4: shuffle the 128 cards, deal the Meadow, then the hands (EVD-S6: 5, 6, 7, 8 in
    # turn order from the first player).
    for i in range(DECK_SIZE):
        s.deck[i] = DECK_ORDER[i]
        s.discard[i] = -1
    s.deck_n = DECK_SIZE
    shuffle(s.rng, s.deck, DECK_SIZE)
    s.meadow[:] = -1
    _refill_meadow(s)
    for i in range(num_players):
        p = (first + i) % num_players
        _draw(s, p, 5 + i)
    # Solo: Rugwort blocks the first forest card and the 3-twig space.
    s.rug_forest = 0 if num_players == 1 else -1
    s.rug_basic = LOC_3_TWIG if num_players == 1 else -1
    s.rug_journey = -1
    s.turn_player = first
    s.current_player = first
    _turn_mask(s, first)
    s.pend_kind = PK_TURN


# ---- batched kernels -------------------------------------------------------------------------
@kernel
def _seat_count(s, num_players):
    """The seats whose final scores a batch reports: solo adds Rugwort's (seat 1)."""
    return s.seats


reset_batch, legal_masks_batch, step_batch = batch_kernels(
    "everdell", apply_action, legal_mask_into, init_game, rewards_into, _seat_count
)
