"""A rule-of-thumb Everdell player that sees only the observation vector and the action mask.

It decodes the observation with the layout of ``meeple_gym.encoders.everdell`` and reads the
card, event and location tables (``meeple_gym.everdell.data``); nothing else. Everything is
valued in points:

* a card's *worth* is its base points plus an estimate of what it will still bring: production
  for the productions left (EVD-F2, EVD-F4), Prosperity bonuses for the city it joins and
  makes, a worker spot's future visits, a Governance discount or bonus per later card, a step
  towards an event, a free critter it admits later (EVD-P3); less when the city is filling up
  (EVD-P4);
* a card's *price* is its cost at fixed resource values, scaled down as the game nears its end
  (left-over resources score nothing, EVD-E2), and zero when an occupied token pays for it;
* a worker spot is worth what it gives: resources (more when they are missing for the best
  cards in hand or Meadow), cards (less near the hand limit, EVD-D2), points, an event
  (EVD-W5), a Journey (EVD-W7, autumn), a Destination's action (EVD-W4).

Turn (EVD-T1): play the card with the best worth minus price if that is positive, else place
a worker on the best spot, else prepare for season (EVD-F1; only with every worker placed),
else pass (EVD-E1). Sub-decisions: free payment first, then normal payment, then abilities that
cost a card; cost reductions on missing resources; gains of the most needed resource; discards
of the least useful cards (stopping when the rest are worth keeping); gifts of the least useful
resources to the weakest opponent; a Fool for the strongest one.

The weights of these values (the worth of each resource, the plays, productions and visits
still to come by season, the thresholds of the turn, a per-card correction of the worth, ...)
are one coefficient vector, ``COEFFICIENTS``; the defaults are set by hand, and
``EverdellHeuristicAgent(coefficients=...)`` plays with others, such as the ones the learned
agent ``net`` learned by play (meeple_gym.baselines.coef_train).

Solo (Rugwort, docs/everdell.md "Solo"): every card played lets him play one, so a card must
be worth a little more; events are worth more (he takes the basic ones we leave and scores
for each special event we miss).
"""

from __future__ import annotations

import numpy as np
from numba import prange, types

from meeple_gym.baselines.kernel_agent import KernelAgent, check_coefficients
from meeple_gym.core.jit import array_arg, kernel, parallel_kernel, standalone_kernel
from meeple_gym.core.masks import _legal_or
from meeple_gym.encoders import everdell as E
from meeple_gym.everdell import data as D
from meeple_gym.everdell import rules as R

NT = R.NT
NE = R.NE
SLOTS = R.CITY_SLOTS
NEG = -1.0e9

COST = D.CARD_COST.astype(np.int64)
POINTS = D.CARD_POINTS.astype(np.int64)
KIND = D.CARD_KIND.astype(np.int64)
COLOR = D.CARD_COLOR.astype(np.int64)
UNIQUE = D.CARD_UNIQUE.astype(np.int64)
SPACE = D.CARD_CITY_SPACE.astype(np.int64)
HOME = D.CRITTER_HOME.astype(np.int64)
ADMITS = D.CONSTRUCTION_ADMITS.astype(np.int64)
EV_SPECIAL = D.EVENT_IS_SPECIAL.astype(np.int64)
EV_REQ_COLOR = D.EVENT_REQ_COLOR.astype(np.int64)
EV_REQ_COUNT = D.EVENT_REQ_COUNT.astype(np.int64)
EV_REQ_CARDS = D.EVENT_REQ_CARDS.astype(np.int64)
EV_COST_BERRY = D.EVENT_COST_BERRY.astype(np.int64)
EV_POINTS = D.EVENT_POINTS.astype(np.int64)
LOC_GAIN = D.LOCATION_GAIN.astype(np.int64)
LOC_ANY = D.LOCATION_ANY.astype(np.int64)
LOC_CARDS = D.LOCATION_CARDS.astype(np.int64)
LOC_POINTS = D.LOCATION_POINTS.astype(np.int64)
LOC_DISCARD = D.LOCATION_DISCARD.astype(np.int64)
BASIC_LOCS = np.array(D.BASIC_LOCATIONS, np.int64)
FOREST_LOCS = np.array(D.FOREST_LOCATIONS, np.int64)
JOURNEY_LOCS = np.array(D.JOURNEY_LOCATIONS, np.int64)
SPECIAL_EVENTS = np.array(D.SPECIAL_EVENTS, np.int64)

# The coefficients of the move values, one float vector (a board's ``coef``): the defaults
# below are the hand-set ones; an agent may play with learned ones (``coefficients=``, trained
# by meeple_gym.baselines.coef_train). Name, default values and the scale of a training step.
COEFFICIENTS = (
    # points a resource is worth when spent or gained: twig, resin, pebble, berry
    ("resource_worth", (0.5, 0.75, 1.0, 0.7), 0.25),
    # by season (winter..autumn): later cards to play, productions still to come, worker
    # visits still to come on a new Destination, price factor of resources
    ("future_plays", (10.0, 8.0, 5.0, 2.0), 2.0),
    ("future_productions", (2.0, 1.0, 1.0, 0.0), 0.5),
    ("future_visits", (2.0, 1.6, 1.2, 0.6), 0.5),
    ("price_factor", (1.0, 0.9, 0.8, 0.6), 0.25),
    ("store_stock", (3.0, 2.0, 1.0, 2.0), 0.5),  # what a Storehouse production stocks
    ("needed", (1.5,), 0.4),  # a resource the target cards lack, relative to resource_worth
    ("spare", (0.45,), 0.1),  # a resource they do not lack
    # what a city space is worth to keep free for a later card (EVD-P4): grows as it fills
    ("space_cost_min", (0.8,), 0.2),
    ("space_cost_full", (2.0,), 0.5),
    ("end_price_factor", (0.1,), 0.1),  # autumn, no worker left: resources score nothing (EVD-E2)
    ("hand_play_bonus", (0.05,), 0.1),  # a card out of hand frees hand room
    ("deficit_penalty", (1.0,), 0.25),  # a card only an ability that costs a card pays for
    ("play_above", (0.0,), 0.25),  # play the best card if its worth minus price is above this
    ("place_above", (-0.5,), 0.25),  # else place a worker if the best spot is worth more
    # points added to a card's worth, by card type: what the terms above miss about a card
    ("card_worth", (0.0,) * NT, 0.5),
)
_offsets = np.cumsum([0] + [len(values) for _, values, _ in COEFFICIENTS])
(
    K_RESOURCE,
    K_PLAYS,
    K_PRODUCTIONS,
    K_VISITS,
    K_PRICE,
    K_STORE,
    K_NEEDED,
    K_SPARE,
    K_SPACE_MIN,
    K_SPACE_FULL,
    K_END_PRICE,
    K_HAND_BONUS,
    K_DEFICIT,
    K_PLAY_AT,
    K_PLACE_AT,
    K_CARD,
) = (int(k) for k in _offsets[:-1])
NUM_COEFFICIENTS = int(_offsets[-1])
DEFAULT_COEFFICIENTS = np.concatenate([values for _, values, _ in COEFFICIENTS]).astype(np.float64)
COEFFICIENT_SCALES = np.concatenate(
    [np.full(len(values), step) for _, values, step in COEFFICIENTS]
).astype(np.float64)
N_TARGETS = 5
SOLO_PLAY_COST = 1.2  # his card is worth 2-3 points; more and we would stop playing
RUG_MISSED_SPECIAL = np.array([0.0, 3.0, 6.0, 6.0])  # his points per special event we miss

C = D.CARD_ID
ARCHITECT, BARD, BARGE_TOAD, CASTLE = C["architect"], C["bard"], C["barge_toad"], C["castle"]
CEMETERY, CHAPEL, CHIP_SWEEP = C["cemetery"], C["chapel"], C["chip_sweep"]
CLOCK_TOWER, COURTHOUSE, CRANE, DOCTOR = C["clock_tower"], C["courthouse"], C["crane"], C["doctor"]
DUNGEON, EVER_TREE, FAIRGROUNDS, FARM = C["dungeon"], C["ever_tree"], C["fairgrounds"], C["farm"]
FOOL, GENERAL_STORE, HISTORIAN = C["fool"], C["general_store"], C["historian"]
HUSBAND, INN, INNKEEPER, JUDGE = C["husband"], C["inn"], C["innkeeper"], C["judge"]
KING, LOOKOUT, MINE, MINER_MOLE = C["king"], C["lookout"], C["mine"], C["miner_mole"]
MONASTERY, MONK, PALACE, PEDDLER = C["monastery"], C["monk"], C["palace"], C["peddler"]
POST_OFFICE, POSTAL_PIGEON, QUEEN = C["post_office"], C["postal_pigeon"], C["queen"]
RANGER, RESIN_REFINERY, RUINS = C["ranger"], C["resin_refinery"], C["ruins"]
SCHOOL, SHEPHERD, SHOPKEEPER = C["school"], C["shepherd"], C["shopkeeper"]
STOREHOUSE, TEACHER, THEATER = C["storehouse"], C["teacher"], C["theater"]
TWIG_BARGE, UNDERTAKER, UNIVERSITY = C["twig_barge"], C["undertaker"], C["university"]
WANDERER, WIFE, WOODCARVER = C["wanderer"], C["wife"], C["woodcarver"]

EV = D.EVENT_ID
EV_MARKETING = EV["a_brilliant_marketing_plan"]
EV_WEE_RUN = EV["a_wee_run_city"]
EV_FIREWORKS = EV["an_evening_of_fireworks"]
EV_SCROLLS = EV["ancient_scrolls_discovered"]
EV_ACORN = EV["capture_of_the_acorn_thieves"]
EV_CROAK = EV["croak_wart_cure"]
EV_FLYING_DOCTOR = EV["flying_doctor_service"]
EV_GRADUATION = EV["graduation_of_scholars"]
EV_MINISTERING = EV["ministering_to_miscreants"]
EV_PILGRIMS = EV["path_of_the_pilgrims"]
EV_PERFORMER = EV["performer_in_residence"]
EV_CHAPEL_CEILING = EV["pristine_chapel_ceiling"]
EV_FALLEN = EV["remembering_the_fallen"]
EV_NEW_MANAGEMENT = EV["under_new_management"]

L = D.LOCATION_ID
F_DISCARD_DRAW = L["forest_discard_any_draw_2_each"]
F_DISCARD_GAIN = L["forest_discard_up_to_3_gain_any_each"]
F_COPY_BASIC = L["forest_copy_basic_and_draw_1"]
F_MEADOW_PICK = L["forest_take_2_meadow_play_1_discounted"]
HAVEN = D.HAVEN

TRAVELER, PRODUCTION, DESTINATION, GOVERNANCE, PROSPERITY = range(5)
WINTER, SPRING, SUMMER, AUTUMN = range(4)

BOARD_DTYPE = np.dtype(
    [
        ("res", np.float64, (4,)),
        ("hand", np.int64, (NT,)),
        ("hand_n", np.int64),
        ("city", np.int64, (R.MAXP, SLOTS)),  # card type by relative seat, -1 empty
        ("occ", np.int64, (SLOTS,)),  # own occupied tokens
        ("ctok", np.int64, (SLOTS,)),  # own point tokens on cards
        ("store", np.float64, (SLOTS, 4)),  # own Storehouse stock
        ("cnt", np.int64, (NT,)),  # own city, cards per type
        ("colors", np.int64, (5,)),
        ("spaces", np.int64),
        ("season", np.int64),
        ("free", np.int64),
        ("meadow", np.int64, (R.MEADOW,)),
        ("blocked", np.int64, (R.MEADOW,)),
        ("forest", np.int64, (R.MAX_FOREST,)),  # location ids, -1 unused
        ("specials", np.int64, (R.N_SPECIAL_DEALT,)),
        ("ev_owner", np.int64, (NE,)),  # relative seat, -1 unclaimed
        ("my_basic_events", np.int64),
        ("my_special_events", np.int64),
        ("nump", np.int64),
        ("seats", np.int64),
        ("score", np.float64, (R.MAXP,)),
        ("passed", np.int64, (R.MAXP,)),
        ("rug_city", np.int64, (NT,)),
        ("rug_year", np.int64),
        ("pend", np.int64),
        ("top_kind", np.int64),
        ("top_card", np.int64),
        ("top_loc", np.int64),
        ("top_event", np.int64),
        ("top_stage", np.int64),
        ("top_count", np.int64),
        ("top_min", np.int64),
        ("par_kind", np.int64),
        ("par_card", np.int64),
        ("par_loc", np.int64),
        ("par_event", np.int64),
        ("play_card", np.int64),
        ("play_cost", np.float64, (4,)),
        ("revealed", np.int64, (8,)),
        ("revealed_n", np.int64),
        ("lam", np.float64),  # price factor of resources now
        ("gw", np.float64, (4,)),  # worth of gaining one resource of each kind now
        ("need", np.float64, (4,)),  # what the target cards lack
        ("worth", np.float64, (NT,)),
        ("price", np.float64, (NT,)),  # full price, token ignored
        ("free_play", np.int64, (NT,)),  # an occupied token would pay for it (EVD-P3)
        ("keep", np.float64, (NT,)),  # worth of keeping a card of this type in hand
        # worth and keep are filled on first use (_worth, _keep): a decision reads a few cards.
        ("worth_ok", np.int8, (NT,)),
        ("keep_ok", np.int8, (NT,)),
        ("coef", np.float64, (NUM_COEFFICIENTS,)),  # the move values' coefficients
        ("gw_ok", np.int8),  # gw and need are filled on first read too (_gains)
    ]
)


# ---- decoding --------------------------------------------------------------------------------
@kernel
def _onehot(obs, start, n):
    for i in range(n):
        if obs[start + i] > 0.5:
            return i
    return -1


@kernel
def _decode(obs, b):
    """The board of the full observation ``obs``."""
    b.nump = _onehot(obs, E.NUM_PLAYERS_ONEHOT, R.MAXP) + 1
    b.seats = 2 if b.nump == 1 else b.nump
    b.season = max(0, _onehot(obs, E.P_SEASON, 4))
    b.rug_year = _onehot(obs, E.RUG_YEAR, 3) + 1  # 0 outside solo
    b.hand_n = int(obs[E.P_HAND_N])
    for r in range(4):
        b.res[r] = obs[E.P_RESOURCES + r]
    b.free = int(obs[E.P_FREE])
    b.spaces = int(obs[E.P_SPACES])
    for c in range(5):
        b.colors[c] = int(obs[E.P_COLORS + c])
    for t in range(NT):
        b.hand[t] = int(obs[E.HAND + t])
        b.rug_city[t] = int(obs[E.RUG_CITY + t])
        b.cnt[t] = 0
    for i in range(R.MAXP):
        pb = i * E.PLAYER_BLOCK
        b.score[i] = obs[pb + E.P_SCORE] - E.SCORE_SHIFT
        b.passed[i] = int(obs[pb + E.P_PASSED])
        for k in range(SLOTS):
            sb = pb + E.P_CITY + k * E.SLOT_BLOCK
            b.city[i, k] = _onehot(obs, sb + E.S_TYPE, NT) if obs[sb + E.S_PRESENT] > 0.5 else -1
            if i == 0:
                _own_slot(obs, b, k, sb + E.S_OCCUPIED, sb + E.S_TOKENS, sb + E.S_STORE)
    for i in range(R.MEADOW):
        mb = E.MEADOW + i * E.MEADOW_BLOCK
        b.meadow[i] = _onehot(obs, mb + E.M_TYPE, NT) if obs[mb + E.M_PRESENT] > 0.5 else -1
        b.blocked[i] = int(obs[mb + E.M_BLOCKED])
    for j in range(R.MAX_FOREST):
        f = _onehot(obs, E.FOREST + j * E.N_FOREST_TYPES, E.N_FOREST_TYPES)
        b.forest[j] = FOREST_LOCS[f] if f >= 0 else -1
    for j in range(R.N_SPECIAL_DEALT):
        b.specials[j] = SPECIAL_EVENTS[_onehot(obs, E.SPECIALS + j * E.N_SPECIALS, E.N_SPECIALS)]
    for e in range(NE):
        b.ev_owner[e] = _onehot(obs, E.EVENT_OWNER + e * R.MAXP, R.MAXP)
    _count_own_events(b)
    b.pend = _onehot(obs, E.PEND_KIND, E.N_PK)
    b.top_kind = max(0, _onehot(obs, E.TOP_KIND, E.N_TASK_KINDS))
    b.top_card = _onehot(obs, E.TOP_CARD, NT)
    b.top_loc = _onehot(obs, E.TOP_LOCATION, E.NL)
    b.top_event = _onehot(obs, E.TOP_EVENT, NE)
    b.top_stage = int(obs[E.TOP_STAGE])
    b.top_count = int(obs[E.TOP_COUNT])
    b.top_min = int(obs[E.TOP_MIN])
    b.par_kind = max(0, _onehot(obs, E.PARENT_KIND, E.N_TASK_KINDS))
    b.par_card = _onehot(obs, E.PARENT_CARD, NT)
    b.par_loc = _onehot(obs, E.PARENT_LOCATION, E.NL)
    b.par_event = _onehot(obs, E.PARENT_EVENT, NE)
    b.play_card = _onehot(obs, E.PLAY_CARD, NT) if obs[E.PLAY_PRESENT] > 0.5 else -1
    for r in range(4):
        b.play_cost[r] = obs[E.PLAY_COST + r]
    b.revealed_n = int(obs[E.REVEALED_N])
    for i in range(8):
        b.revealed[i] = _onehot(obs, E.REVEALED + i * NT, NT) if i < b.revealed_n else -1
    _derive(b)


@kernel
def _decode_compact(obs, b):
    """The board of the compact observation ``obs`` (``encoders.everdell``, compact layout):
    the same board as ``_decode`` of the full one (checked field by field in
    tests/test_search_speedups.py). Each one-hot of the full vector is one code here (index + 1,
    0: none), so ``code - 1`` is what ``_onehot`` returns there; no 48-entry scans."""
    b.nump = int(obs[E.C_NUM_PLAYERS])
    b.seats = 2 if b.nump == 1 else b.nump
    b.season = max(0, int(obs[E.C_P_SEASON]) - 1)
    b.rug_year = int(obs[E.C_RUG_YEAR])  # 0 outside solo
    b.hand_n = int(obs[E.C_P_HAND_N])
    for r in range(4):
        b.res[r] = obs[E.C_P_RESOURCES + r]
    b.free = int(obs[E.P_FREE - E.C_P_SHIFT])
    b.spaces = int(obs[E.P_SPACES - E.C_P_SHIFT])
    for c in range(5):
        b.colors[c] = int(obs[E.P_COLORS - E.C_P_SHIFT + c])
    for t in range(NT):
        b.hand[t] = int(obs[E.C_HAND + t])
        b.rug_city[t] = int(obs[E.C_RUG_CITY + t])
        b.cnt[t] = 0
    for i in range(R.MAXP):
        pb = i * E.C_PLAYER_BLOCK
        b.score[i] = obs[pb + E.C_P_SCORE] - E.SCORE_SHIFT
        b.passed[i] = int(obs[pb + E.P_PASSED])  # the head rows keep the full block's places
        for k in range(SLOTS):
            sb = pb + E.C_P_CITY + k * E.C_SLOT_BLOCK
            b.city[i, k] = int(obs[sb + E.C_S_TYPE]) - 1
            if i == 0:
                _own_slot(obs, b, k, sb + E.C_S_OCCUPIED, sb + E.C_S_TOKENS, sb + E.C_S_STORE)
    for i in range(R.MEADOW):
        b.meadow[i] = int(obs[E.C_MEADOW + 2 * i]) - 1
        b.blocked[i] = int(obs[E.C_MEADOW + 2 * i + 1])
    for j in range(R.MAX_FOREST):
        f = int(obs[E.C_FOREST + j]) - 1
        b.forest[j] = FOREST_LOCS[f] if f >= 0 else -1
    for j in range(R.N_SPECIAL_DEALT):
        b.specials[j] = SPECIAL_EVENTS[int(obs[E.C_SPECIALS + j]) - 1]
    for e in range(NE):
        b.ev_owner[e] = int(obs[E.C_EVENT_OWNER + e]) - 1
    _count_own_events(b)
    b.pend = int(obs[E.C_PEND_KIND])
    b.top_kind = int(obs[E.C_TOP_KIND])
    _subject(b.top_kind, int(obs[E.C_TOP_SUBJECT]) - 1, b, True)
    b.top_stage = int(obs[E.C_TOP_STAGE])
    b.top_count = int(obs[E.C_TOP_COUNT])
    b.top_min = int(obs[E.C_TOP_MIN])
    b.par_kind = int(obs[E.C_PARENT_KIND])
    _subject(b.par_kind, int(obs[E.C_PARENT_SUBJECT]) - 1, b, False)
    b.play_card = int(obs[E.C_PLAY_CARD]) - 1 if obs[E.C_PLAY_PRESENT] > 0.5 else -1
    for r in range(4):
        b.play_cost[r] = obs[E.C_PLAY_COST + r]
    b.revealed_n = int(obs[E.C_REVEALED_N])
    for i in range(8):
        b.revealed[i] = int(obs[E.C_REVEALED + i]) - 1 if i < b.revealed_n else -1
    _derive(b)


@kernel
def _own_slot(obs, b, k, occupied_at, tokens_at, store_at):
    """Own city slot ``k``'s token, points and Storehouse stock (read where each layout keeps
    them), and its card in the per-type count; ``b.city[0, k]`` is decoded already."""
    b.occ[k] = int(obs[occupied_at])
    b.ctok[k] = int(obs[tokens_at])
    for r in range(4):
        b.store[k, r] = obs[store_at + r]
    if b.city[0, k] >= 0:
        b.cnt[b.city[0, k]] += 1


@kernel
def _count_own_events(b):
    """Basic and special events achieved by the decider (``b.ev_owner`` decoded already)."""
    b.my_basic_events = 0
    b.my_special_events = 0
    for e in range(NE):
        if b.ev_owner[e] == 0:
            if EV_SPECIAL[e]:
                b.my_special_events += 1
            else:
                b.my_basic_events += 1


@kernel
def _subject(kind, subject, b, top):
    """The card, location or event of a task of ``kind`` whose compact subject is ``subject``
    (-1: none), in the board's top-task fields or (``top`` False) its parent-task fields."""
    card = subject if kind == R.T_PLAY or kind == R.T_CARD else -1
    loc = subject if kind == R.T_LOCATION else -1
    event = subject if kind == R.T_EVENT else -1
    if top:
        b.top_card, b.top_loc, b.top_event = card, loc, event
    else:
        b.par_card, b.par_loc, b.par_event = card, loc, event


@kernel
def _derive(b):
    """The board's values that depend on the whole position, after the decoded fields."""
    b.lam = b.coef[K_PRICE + b.season]
    if b.season == AUTUMN and b.free == 0:
        b.lam = b.coef[K_END_PRICE]
    # Card types (shifted by one: -1 is an empty slot) on own slots with a free token, so
    # that each critter's test below is two reads instead of ``_token_pays``' slot loop.
    open_type = np.zeros(NT + 1, np.int64)
    for k in range(SLOTS):
        if b.occ[k] == 0:
            open_type[b.city[0, k] + 1] = 1
    for t in range(NT):
        pays = KIND[t] == D.CRITTER and (open_type[HOME[t] + 1] or open_type[EVER_TREE + 1])
        b.free_play[t] = 1 if pays else 0
        b.price[t] = 0.0
        for r in range(4):
            b.price[t] += COST[t, r] * b.coef[K_RESOURCE + r] * b.lam
    # worth and keep are computed on first read (``_worth``, ``_keep``), after every price
    # (Ruins' worth reads them); nothing changes the board once decoded, so the values are
    # the ones an eager loop would store.
    for t in range(NT):
        b.worth_ok[t] = 0
        b.keep_ok[t] = 0
    # gw and need read the worth of the target cards: about half of a decision's cost, and
    # most sub-decisions (which card to discard, which resource to pay) never read them.
    b.gw_ok = 0


@kernel
def _worth(b, t):
    """``_card_worth(b, t)``, computed once per decoded board."""
    if t < 0:
        t += NT  # what indexing the eagerly filled array with a negative t read
    if b.worth_ok[t] == 0:
        b.worth[t] = _card_worth(b, t) + b.coef[K_CARD + t]
        b.worth_ok[t] = 1
    return b.worth[t]


@kernel
def _keep(b, t):
    """``_keep_value(b, t)``, computed once per decoded board."""
    if t < 0:
        t += NT  # what indexing the eagerly filled array with a negative t read
    if b.keep_ok[t] == 0:
        b.keep[t] = _keep_value(b, t)
        b.keep_ok[t] = 1
    return b.keep[t]


@kernel
def _token_pays(b, t):
    """An occupied-token slot of the city would pay for critter ``t`` (EVD-P3): the plain
    definition of ``free_play``, which ``_decode`` fills from one pass over the slots
    (tests/test_search_speedups.py checks they agree)."""
    if KIND[t] != D.CRITTER:
        return False
    for k in range(SLOTS):
        c = b.city[0, k]
        if b.occ[k] == 0 and (c == HOME[t] or c == EVER_TREE):
            return True
    return False


@kernel
def _deficit(b, t):
    n = 0.0
    for r in range(4):
        n += max(0.0, COST[t, r] - b.res[r])
    return n


@kernel
def _net(b, t):
    """Worth minus what paying for ``t`` costs now (0 when a token pays)."""
    if b.free_play[t]:
        return _worth(b, t)
    return _worth(b, t) - b.price[t]


@kernel
def _enters(b, t):
    """Roughly: ``t`` could join the city (unique, 15 spaces; EVD-P2, EVD-P4)."""
    if UNIQUE[t] and b.cnt[t] > 0:
        return False
    if t == FOOL:
        return True
    if SPACE[t] == 0:
        return True
    return b.spaces < R.CITY_LIMIT or _shares_space(b, t)


@kernel
def _shares_space(b, t):
    if t == HUSBAND:
        return b.cnt[WIFE] > b.cnt[HUSBAND]
    if t == WIFE:
        return b.cnt[HUSBAND] > b.cnt[WIFE]
    return False


@kernel
def _gain_weights(b):
    """Pick up to ``N_TARGETS`` target cards (hand or Meadow, good worth for their price, not
    too far out of reach); ``need`` is what they lack together. A resource they lack is worth
    more."""
    b.need[:] = 0.0
    taken = np.zeros(NT, np.int64)
    for _ in range(N_TARGETS):
        best = -1
        best_v = 0.0
        for src in range(2):
            n = NT if src == 0 else R.MEADOW
            for i in range(n):
                if src == 0:
                    t = i
                    if b.hand[t] == 0:
                        continue
                else:
                    t = b.meadow[i]
                    if t < 0 or b.blocked[i]:
                        continue
                if taken[t] or b.free_play[t] or not _enters(b, t):
                    continue
                gap = _deficit(b, t)
                if gap == 0.0:
                    continue
                v = (_worth(b, t) - b.price[t]) / (1.0 + 0.4 * gap)
                if v > best_v:
                    best_v = v
                    best = t
        if best < 0:
            break
        taken[best] = 1
        for r in range(4):
            b.need[r] += max(0.0, COST[best, r] - b.res[r])
    late = 0.6 if b.season == AUTUMN else 1.0
    for r in range(4):
        b.gw[r] = (
            b.coef[K_RESOURCE + r] * late * (b.coef[K_NEEDED] if b.need[r] > 0 else b.coef[K_SPARE])
        )


@kernel
def _gains(b):
    """Fill ``gw`` and ``need`` on their first read (``_gain_weights``; nothing changes the board
    once decoded, so these are the values an eager call would store)."""
    if b.gw_ok == 0:
        _gain_weights(b)
        b.gw_ok = 1


@kernel
def _gw(b, r):
    """``b.gw[r]``, filled on first read."""
    _gains(b)
    return b.gw[r]


@kernel
def _need(b, r):
    """``b.need[r]``, filled on first read."""
    _gains(b)
    return b.need[r]


@kernel
def _gain_value(b, g, n_any):
    """Worth of gaining resources ``g`` (4 kinds) and ``n_any`` of free choice."""
    rem = np.empty(4)
    for r in range(4):
        rem[r] = _need(b, r)
    v = 0.0
    for r in range(4):
        take = min(g[r], rem[r])
        rem[r] -= take
        v += b.coef[K_RESOURCE + r] * (take * b.coef[K_NEEDED] + (g[r] - take) * b.coef[K_SPARE])
    for _ in range(n_any):
        best = 0
        for r in range(4):
            if rem[r] * b.coef[K_RESOURCE + r] > rem[best] * b.coef[K_RESOURCE + best]:
                best = r
        if rem[best] > 0:
            rem[best] -= 1
            v += b.coef[K_RESOURCE + best] * b.coef[K_NEEDED]
        else:
            v += b.coef[K_RESOURCE + 2] * b.coef[K_SPARE]
    return v * (0.6 if b.season == AUTUMN else 1.0)


@kernel
def _keep_value(b, t):
    """Worth of a hand card: what playing it would gain, less the further out of reach it is
    (much less in autumn, with few turns left to gather)."""
    if not _enters(b, t):
        return 0.05
    gap = 0.0 if b.free_play[t] else _deficit(b, t)
    far = 0.75 if b.season == AUTUMN else 0.25
    return 0.25 + 0.5 * max(0.0, _net(b, t)) / (1.0 + far * gap)


# ---- card worth ------------------------------------------------------------------------------
@kernel
def _base_yield(b, t, farms):
    """Points-equivalent of one activation of green card ``t`` (EVD-P5), copiers aside."""
    if t == FARM:
        return b.coef[K_RESOURCE + 3]
    if t == MINE:
        return b.coef[K_RESOURCE + 2]
    if t == RESIN_REFINERY:
        return b.coef[K_RESOURCE + 1]
    if t == TWIG_BARGE:
        return 2 * b.coef[K_RESOURCE + 0]
    if t == GENERAL_STORE:
        return b.coef[K_RESOURCE + 3] * (2.0 if farms > 0 else 1.0)
    if t == BARGE_TOAD:
        return 2 * b.coef[K_RESOURCE + 0] * farms
    if t == FAIRGROUNDS:
        return 0.8
    if t == HUSBAND:
        return 0.8 if farms > 0 and b.cnt[WIFE] > b.cnt[HUSBAND] else 0.2
    if t == DOCTOR:
        return 0.3 * min(3.0, b.res[3] + 1.0)
    if t == WOODCARVER:
        return 0.35 * min(3.0, b.res[0] + 1.0)
    if t == MONK:
        return 1.2
    if t == PEDDLER:
        return 0.3
    if t == TEACHER:
        return 0.5
    if t == STOREHOUSE:
        return 1.0 / (1.0 + b.cnt[STOREHOUSE])  # each stock needs a worker to collect
    return 0.0


@kernel
def _copyable(c, own):
    """Green cards Chip Sweep (own) / Miner Mole (another city) may copy."""
    if c < 0 or COLOR[c] != PRODUCTION or c == CHIP_SWEEP:
        return False
    return own or (c != MINER_MOLE and c != STOREHOUSE)


@kernel
def _yield(b, t, farms):
    """One activation of green card ``t``; Chip Sweep and Miner Mole copy the best target."""
    if t == CHIP_SWEEP:
        best = 0.0
        for k in range(SLOTS):
            c = b.city[0, k]
            if _copyable(c, True) and c != STOREHOUSE and c != MINER_MOLE:
                best = max(best, _base_yield(b, c, farms))
        return best
    if t == MINER_MOLE:
        best = 0.0
        for i in range(1, b.seats):
            for k in range(SLOTS):
                if _copyable(b.city[i, k], False):
                    best = max(best, _base_yield(b, b.city[i, k], farms))
        for c in range(NT):
            if b.rug_city[c] > 0 and _copyable(c, False):
                best = max(best, _base_yield(b, c, farms))
        return best
    return _base_yield(b, t, farms)


@kernel(fragment=True)
def _color_worth(b, t, w, farms):
    """``w`` plus what card t's color brings: its production, visits, governance bonus,
    traveler effect or Prosperity points."""
    s = b.season
    color = COLOR[t]
    if color == PRODUCTION:
        w += _yield(b, t, farms) * (1.0 + b.coef[K_PRODUCTIONS + s])
        if t == FARM:  # a Farm also feeds General Stores / Barge Toads already there
            w += (
                0.4 * (b.cnt[GENERAL_STORE] + b.cnt[BARGE_TOAD]) * (1.0 + b.coef[K_PRODUCTIONS + s])
            )
    elif color == DESTINATION:
        visit = 1.0
        if t == INN or t == QUEEN or t == CEMETERY:
            visit = 1.6
        elif t == CHAPEL:
            visit = 2.0
        elif t == MONASTERY:
            visit = 1.5
        elif t == UNIVERSITY:
            visit = 0.5
        elif t == POST_OFFICE:
            visit = 0.6
        w += visit * b.coef[K_VISITS + s] / (1.0 + b.cnt[t])  # a second copy shares the visits
    elif color == GOVERNANCE:
        plays = b.coef[K_PLAYS + s]
        if t == HISTORIAN:
            w += 0.3 * plays
        elif t == SHOPKEEPER:
            w += 0.3 * plays
        elif t == COURTHOUSE:
            w += 0.35 * plays
        elif t == CLOCK_TOWER:
            w += 2.5  # starts with 3 point tokens
        elif t == INNKEEPER or t == CRANE:
            w += 0.8
        elif t == JUDGE or t == DUNGEON:
            w += 0.6
    elif color == TRAVELER:
        if t == WANDERER:
            w += 1.2
        elif t == BARD:
            junk = 0
            for c in range(NT):
                if b.hand[c] > 0 and c != BARD and POINTS[c] < 2:
                    junk += b.hand[c]
            w += 0.8 * min(5, junk)
        elif t == SHEPHERD:
            w += 3 * b.coef[K_RESOURCE + 3]
            k = -1
            for j in range(SLOTS):
                if b.city[0, j] == CHAPEL:
                    k = j
            if k >= 0:
                w += b.ctok[k]
        elif t == POSTAL_PIGEON or t == RANGER:
            w += 1.0
        elif t == UNDERTAKER:
            w += 0.5
        elif t == RUINS:  # swap the weakest Construction for its cost and 2 cards
            best = -2.0
            for k in range(SLOTS):
                c = b.city[0, k]
                if c >= 0 and KIND[c] == D.CONSTRUCTION and c != RUINS:
                    lasting = 0.0 if COLOR[c] == PROSPERITY or COLOR[c] == TRAVELER else 1.0
                    best = max(best, b.price[c] - POINTS[c] - b.ctok[k] - lasting)
            w += 0.6 + best
    else:  # Prosperity: bonuses for the city as it is and as it grows
        grow = 0.25 * b.coef[K_PLAYS + s]
        if t == CASTLE or t == PALACE or t == SCHOOL or t == THEATER:
            want_kind = D.CONSTRUCTION if (t == CASTLE or t == PALACE) else D.CRITTER
            want_unique = 1 if (t == PALACE or t == THEATER) else 0
            n = 0
            for k in range(SLOTS):
                c = b.city[0, k]
                if c >= 0 and KIND[c] == want_kind and UNIQUE[c] == want_unique:
                    n += 1
            w += n + grow
        elif t == EVER_TREE:
            w += 1 + b.colors[PROSPERITY] + grow * 0.5
        elif t == KING:
            w += b.my_basic_events + 2 * b.my_special_events + 0.15 * b.coef[K_PLAYS + s]
        elif t == ARCHITECT:
            w += min(6.0, b.res[1] + b.res[2]) * 0.6 + 1.0
        elif t == WIFE:
            if b.cnt[HUSBAND] > b.cnt[WIFE]:
                w += 3.0
    return w


@kernel
def _card_worth(b, t):
    """Points ``t`` should bring over the rest of the game if played now (cost aside)."""
    w = float(POINTS[t])
    farms = b.cnt[FARM] + (1 if t == FARM else 0)
    color = COLOR[t]
    if t == FOOL:
        if b.nump == 1:  # solo: any one card leaves Rugwort's city (2 or 3 of his points)
            return 3.0 + SOLO_PLAY_COST
        return 2.0 if b.nump == 2 else 1.0  # -2 for the strongest opponent
    w = _color_worth(b, t, w, farms)
    # Bonuses from Prosperity cards already in the city (EVD-E2).
    unique = UNIQUE[t]
    if KIND[t] == D.CONSTRUCTION:
        if b.cnt[CASTLE] > 0 and unique == 0:
            w += 1.0
        if b.cnt[PALACE] > 0 and unique == 1:
            w += 1.0
    else:
        if b.cnt[SCHOOL] > 0 and unique == 0:
            w += 1.0
        if b.cnt[THEATER] > 0 and unique == 1:
            w += 1.0
    if b.cnt[EVER_TREE] > 0 and color == PROSPERITY:
        w += 1.0
    if t == HUSBAND and b.cnt[WIFE] > b.cnt[HUSBAND]:
        w += 3.0  # pairs a lone Wife
    # Governance bonuses this play triggers (EVD-P5).
    if b.cnt[HISTORIAN] > 0 and t != HISTORIAN:
        w += 0.35
    if KIND[t] == D.CRITTER and b.cnt[SHOPKEEPER] > 0 and t != SHOPKEEPER:
        w += b.coef[K_RESOURCE + 3]
    if KIND[t] == D.CONSTRUCTION and b.cnt[COURTHOUSE] > 0 and t != COURTHOUSE:
        w += 0.9
    # A Construction's occupied token admits a critter for free later (EVD-P3).
    if KIND[t] == D.CONSTRUCTION:
        for j in range(2):
            c = ADMITS[t, j]
            if c >= 0 and (b.hand[c] > 0 or _in_meadow(b, c)) and not (UNIQUE[c] and b.cnt[c]):
                w += 0.5 * COST[c, 3] * b.coef[K_RESOURCE + 3]
                break
        if t == EVER_TREE:
            w += 1.5
    # Steps towards events (EVD-W5).
    for e in range(4):
        if b.ev_owner[e] >= 0 or EV_REQ_COLOR[e] != color:
            continue
        have = b.colors[color]
        if have + 1 == EV_REQ_COUNT[e]:
            w += 2.0
        elif have < EV_REQ_COUNT[e]:
            w += 0.4
    for j in range(R.N_SPECIAL_DEALT):
        e = b.specials[j]
        if b.ev_owner[e] >= 0:
            continue
        # solo: a special event we miss is worth points to Rugwort too
        stake = 1.0 + (RUG_MISSED_SPECIAL[b.rug_year] / 3.0 if b.nump == 1 else 0.0)
        for i in range(2):
            if EV_REQ_CARDS[e, i] == t and b.cnt[t] == 0:
                other = EV_REQ_CARDS[e, 1 - i]
                if other >= 0 and b.cnt[other] > 0:
                    w += 3.5 * stake
                elif other >= 0 and (b.hand[other] > 0 or _in_meadow(b, other)):
                    w += 1.0 * stake
                else:
                    w += 0.3 * stake
    if b.nump == 1:
        w -= SOLO_PLAY_COST  # each card played makes Rugwort play one (2-3 of his points)
    # A filling city has room for few more cards (EVD-P4).
    if SPACE[t] > 0 and not _shares_space(b, t) and t != RUINS:
        fill = b.spaces / R.CITY_LIMIT
        w -= b.coef[K_SPACE_MIN] + b.coef[K_SPACE_FULL] * fill * fill
    return w


@kernel
def _in_meadow(b, t):
    for i in range(R.MEADOW):
        if b.meadow[i] == t and b.blocked[i] == 0:
            return True
    return False


# ---- worker spots ----------------------------------------------------------------------------
@kernel
def _draw_value(b, n):
    room = R.HAND_LIMIT - b.hand_n
    n = min(n, room)
    per = 0.35 if b.hand_n <= 5 else 0.2
    if b.season == AUTUMN:
        per *= 0.6
    return n * per


@kernel
def _junk(b):
    """Number of hand cards hardly worth keeping."""
    n = 0
    for t in range(NT):
        if b.hand[t] > 0 and _keep(b, t) < 0.35:
            n += b.hand[t]
    return n


@kernel
def _cheapest_keeps(b, n):
    """Total keep value of the ``n`` least useful hand cards."""
    counts = np.empty(NT, np.int64)
    for t in range(NT):
        counts[t] = b.hand[t]
    total = 0.0
    for _ in range(n):
        best = -1
        for t in range(NT):
            if counts[t] > 0 and (best < 0 or _keep(b, t) < _keep(b, best)):
                best = t
        if best < 0:
            break
        counts[best] -= 1
        total += _keep(b, best)
    return total


@kernel
def _max_gw(b):
    return max(max(_gw(b, 0), _gw(b, 1)), max(_gw(b, 2), _gw(b, 3)))


@kernel
def _loc_value(b, loc):
    """Worth of the action of board location ``loc`` (EVD-W1…W3, W6, W7)."""
    if loc == HAVEN:
        return (_junk(b) // 2) * _max_gw(b) - 0.3
    if loc == F_DISCARD_DRAW:
        return 0.25 * _junk(b)
    if loc == F_DISCARD_GAIN:
        n = min(3, _junk(b))
        return n * (_max_gw(b) - 0.15)
    if loc == F_COPY_BASIC:
        best = 0.0
        for i in range(R.N_BASIC):
            best = max(best, _fixed_value(b, BASIC_LOCS[i]))
        return best + _draw_value(b, 1)
    if loc == F_MEADOW_PICK:
        best = 0.0
        for i in range(R.MEADOW):
            t = b.meadow[i]
            if t >= 0 and b.blocked[i] == 0 and _enters(b, t) and _deficit(b, t) <= 1:
                best = max(best, _net(b, t) + _best_cost_unit(b, t))
        return best + 0.3
    if D.LOCATION_KIND[loc] == D.LOC_JOURNEY:
        n = LOC_DISCARD[loc]
        if b.hand_n < n:
            return NEG
        return LOC_POINTS[loc] - _cheapest_keeps(b, n)
    return _fixed_value(b, loc)


@kernel
def _fixed_value(b, loc):
    """Worth of a location with fixed gains: resources, cards, points, resources of choice."""
    g = np.zeros(4)
    for r in range(4):
        g[r] = LOC_GAIN[loc, r]
    return LOC_POINTS[loc] + _draw_value(b, LOC_CARDS[loc]) + _gain_value(b, g, LOC_ANY[loc])


@kernel
def _best_cost_unit(b, t):
    """Price of the dearest single resource of ``t``'s cost (what one reduction saves)."""
    best = 0.0
    for r in range(4):
        if COST[t, r] > 0:
            best = max(best, b.coef[K_RESOURCE + r] * b.lam)
    return best


@kernel
def _event_value(b, e):
    """Points event ``e`` should bring if claimed now, plus denying it to the others."""
    if EV_SPECIAL[e] == 0:
        return 6.0 if b.nump == 1 else 4.0  # solo: Rugwort claims what we leave (3 points)
    v = 3.0
    if EV_POINTS[e] >= 0:
        v = float(EV_POINTS[e])
    if e == EV_MARKETING:
        v = 2.0 * min(3.0, b.res.sum()) - 0.5 * min(3.0, b.res.sum())
    elif e == EV_FIREWORKS:
        v = 1.4 * min(3.0, b.res[0])
    elif e == EV_PERFORMER:
        v = 1.3 * min(3.0, b.res[3])
    elif e == EV_CROAK:
        v = 3.0
    elif e == EV_GRADUATION:
        n = 0
        for t in range(NT):
            if KIND[t] == D.CRITTER:
                n += b.hand[t]
        v = 1.6 * min(3, n)
    elif e == EV_FLYING_DOCTOR:
        v = 3.0 * max(1, b.cnt[HUSBAND] + b.cnt[WIFE]) * 0.5
    elif e == EV_MINISTERING or e == EV_PILGRIMS or e == EV_FALLEN:
        v = 3.0
    elif e == EV_CHAPEL_CEILING:
        v = 2.0
        for k in range(SLOTS):
            if b.city[0, k] == CHAPEL:
                v = 2.5 * max(1, b.ctok[k])
    elif e == EV_SCROLLS:
        v = 3.5
    elif e == EV_ACORN:
        v = 3.0
    elif e == EV_NEW_MANAGEMENT:
        v = 1.5 * min(3.0, b.res.sum())
    elif e == EV_WEE_RUN:
        v = 5.0
    if b.nump == 1:
        return v + RUG_MISSED_SPECIAL[b.rug_year]
    return v + 1.0


@kernel
def _visit_value(b, t, rel):
    """Worth of a worker on Destination ``t`` of relative seat ``rel`` (EVD-W4)."""
    v = 0.0
    if t == CHAPEL:
        tokens = 0
        for k in range(SLOTS):
            if b.city[0, k] == CHAPEL:
                tokens = b.ctok[k]
        v = 1.0 + _draw_value(b, 2 * (tokens + 1))
    elif t == STOREHOUSE:
        for k in range(SLOTS):
            if b.city[0, k] == STOREHOUSE:
                v += _gain_value(b, b.store[k], 0)
        v -= 0.2
    elif t == LOOKOUT:
        for i in range(R.N_BASIC):
            v = max(v, _loc_value(b, BASIC_LOCS[i]))
        for j in range(R.MAX_FOREST):
            if b.forest[j] >= 0:
                v = max(v, _loc_value(b, b.forest[j]))
    elif t == MONASTERY:
        v = 4.0 - 2 * min(_gw(b, 0), _gw(b, 3)) - 0.8
    elif t == INN:
        for i in range(R.MEADOW):
            c = b.meadow[i]
            if c >= 0 and b.blocked[i] == 0 and _enters(b, c) and _deficit(b, c) <= 3:
                v = max(v, _worth(b, c) - max(0.0, b.price[c] - 3 * b.lam * 0.9))
    elif t == QUEEN:
        for c in range(NT):
            if POINTS[c] <= 3 and _enters(b, c) and (b.hand[c] > 0 or _in_meadow(b, c)):
                v = max(v, _worth(b, c))
    elif t == POST_OFFICE:
        v = _draw_value(b, 2 + _junk(b)) - 0.4
    elif t == UNIVERSITY:
        v = 0.3
        if b.cnt[FOOL] > 0 or b.cnt[RUINS] > 0:
            v = 2.5
    elif t == CEMETERY:
        v = 2.0 - (0.8 if b.season < AUTUMN else 0.0)
    if rel != 0:
        v -= 1.0 if b.nump <= 2 else 0.4  # its owner takes a point token
    return v


# ---- turn ------------------------------------------------------------------------------------
@kernel
def _placement_value(b, a):
    """Worth of the placement action ``a`` (the A_PLACE_* groups)."""
    if a < R.A_PLACE_FOREST:
        return _loc_value(b, BASIC_LOCS[a - R.A_PLACE_BASIC])
    if a < R.A_PLACE_HAVEN:
        loc = b.forest[a - R.A_PLACE_FOREST]
        return _loc_value(b, loc) if loc >= 0 else NEG
    if a == R.A_PLACE_HAVEN:
        return _loc_value(b, HAVEN)
    if a < R.A_PLACE_EVENT:
        return _loc_value(b, JOURNEY_LOCS[a - R.A_PLACE_JOURNEY])
    if a < R.A_PLACE_CITY:
        j = a - R.A_PLACE_EVENT
        e = j if j < R.N_BASIC_EVENTS else b.specials[j - R.N_BASIC_EVENTS]
        return _event_value(b, e) - EV_COST_BERRY[e] * _gw(b, 3)
    if a < R.A_PLACE_RUGWORT:
        j = a - R.A_PLACE_CITY
        rel = j // SLOTS
        t = b.city[rel, j % SLOTS]
        return _visit_value(b, t, rel) if t >= 0 else NEG
    return _visit_value(b, INN if a == R.A_PLACE_RUGWORT else POST_OFFICE, 1)


@kernel
def _turn(b, mask):
    best_a = -1
    best_v = NEG
    # Play a card: worth minus price, a little extra for a card out of hand (frees hand room).
    for t in range(NT):
        if mask[R.A_PLAY_HAND + t]:
            v = _net(b, t) + b.coef[K_HAND_BONUS]
            if not b.free_play[t] and _deficit(b, t) > 0:
                v -= b.coef[K_DEFICIT]  # only an ability that costs a card pays for it
            if v > best_v:
                best_v = v
                best_a = R.A_PLAY_HAND + t
    for i in range(R.MEADOW):
        if mask[R.A_PLAY_MEADOW + i]:
            t = b.meadow[i]
            v = _net(b, t)
            if not b.free_play[t] and _deficit(b, t) > 0:
                v -= b.coef[K_DEFICIT]
            if v > best_v:
                best_v = v
                best_a = R.A_PLAY_MEADOW + i
    if best_v > b.coef[K_PLAY_AT]:
        return best_a
    # Place a worker.
    best_p = -1
    best_pv = NEG
    for a in range(R.A_PLACE_BASIC, R.A_PLAY_HAND):
        if mask[a]:
            v = _placement_value(b, a)
            if v > best_pv:
                best_pv = v
                best_p = a
    if best_p >= 0 and best_pv > b.coef[K_PLACE_AT]:
        return best_p
    if mask[R.A_PREPARE]:
        return R.A_PREPARE
    if best_p >= 0 and best_pv > NEG:
        return best_p
    if best_a >= 0 and best_v > -1.0:
        return best_a
    if mask[R.A_PASS]:  # from autumn on (EVD-E1)
        return R.A_PASS
    # Before autumn passing is not legal; something else always is (the Haven or prepare).
    if best_p >= 0:
        return best_p
    return best_a


# ---- sub-decisions ---------------------------------------------------------------------------
PAY_ORDER = np.array(
    [R.PAY_TOKEN, R.PAY_NORMAL, R.PAY_JUDGE, R.PAY_EVER_TREE, R.PAY_INNKEEPER, R.PAY_CRANE],
    np.int64,
)


@kernel
def _pay(b, mask):
    t = b.play_card
    # The Ever Tree's single token is kept for a dear critter (EVD-P3).
    if mask[R.A_PAY + R.PAY_EVER_TREE] and t >= 0 and COST[t, 3] >= 3:
        if not mask[R.A_PAY + R.PAY_TOKEN]:
            return R.A_PAY + R.PAY_EVER_TREE
    for m in PAY_ORDER:
        if mask[R.A_PAY + m]:
            return R.A_PAY + m
    return R.A_PAY + R.PAY_DUNGEON


@kernel
def _best_resource(b, mask, base, prefer_missing):
    best = -1
    best_v = NEG
    for r in range(4):
        if mask[base + r]:
            v = _gw(b, r)
            if prefer_missing and b.play_cost[r] > b.res[r]:
                v += 10.0
            if v > best_v:
                best_v = v
                best = base + r
    return best


@kernel
def _cheapest_resource(b, mask):
    best = -1
    best_v = NEG
    for r in range(4):
        if mask[R.A_RESOURCE + r]:
            v = -_gw(b, r) + 0.01 * b.res[r]
            if v > best_v:
                best_v = v
                best = R.A_RESOURCE + r
    return best


@kernel
def _card_pick(b, mask, low):
    """Hand card (A_CARD group) with the highest keep value, or the lowest with ``low``."""
    best = -1
    best_v = NEG
    for t in range(NT):
        if mask[R.A_CARD + t]:
            v = -_keep(b, t) if low else _keep(b, t)
            if v > best_v:
                best_v = v
                best = R.A_CARD + t
    return best


@kernel
def _discard(b, mask):
    a = _card_pick(b, mask, True)
    if a < 0:
        return R.A_DONE
    lowest = _keep(b, a - R.A_CARD)
    threshold = 0.3
    if b.top_kind == R.T_EVENT:  # Graduation of Scholars: 2 points per critter tucked
        threshold = 2.0
    elif b.par_kind == R.T_LOCATION:
        if b.par_loc == HAVEN:
            threshold = 0.35
        elif b.par_loc == F_DISCARD_DRAW:
            threshold = 0.5
        elif b.par_loc == F_DISCARD_GAIN:
            threshold = _max_gw(b)
    elif b.par_kind == R.T_CARD and b.par_card == BARD:
        threshold = 1.0
    if mask[R.A_DONE] and lowest >= threshold:
        return R.A_DONE
    return a


@kernel
def _meadow_pick(b, mask):
    best = -1
    best_v = NEG
    inn = b.top_kind == R.T_CARD and b.top_card == INN
    undertaker_discard = b.top_kind == R.T_CARD and b.top_card == UNDERTAKER and b.top_stage == 0
    forest_pick = b.top_kind == R.T_LOCATION
    for i in range(R.MEADOW):
        if not mask[R.A_MEADOW + i]:
            continue
        t = b.meadow[i]
        if inn:
            v = _worth(b, t) - max(0.0, b.price[t] - 3 * b.lam * 0.9)
        elif undertaker_discard:
            v = -_keep(b, t)
        elif forest_pick:
            v = _net(b, t) + _best_cost_unit(b, t) if _deficit(b, t) <= 1 else _keep(b, t)
        else:
            v = _keep(b, t)
        if v > best_v:
            best_v = v
            best = R.A_MEADOW + i
    if b.top_kind == R.T_PREPARE and mask[R.A_DONE] and best_v < 0.1:
        return R.A_DONE
    return best


@kernel
def _revealed_pick(b, mask):
    best = -1
    best_v = NEG
    scrolls = b.top_kind == R.T_EVENT
    keep_only = b.top_kind == R.T_CARD and b.top_card == TEACHER
    for i in range(b.revealed_n):
        if not mask[R.A_REVEALED + i]:
            continue
        t = b.revealed[i]
        if t < 0:
            continue
        if scrolls or keep_only:
            v = _keep(b, t)
        elif b.top_kind == R.T_LOCATION:  # forest Meadow pick: play one at 1 less
            v = _net(b, t) + _best_cost_unit(b, t)
        else:  # Postal Pigeon / Cemetery: played for free
            v = _worth(b, t)
        if v > best_v:
            best_v = v
            best = R.A_REVEALED + i
    if mask[R.A_DONE]:
        if best < 0 or (scrolls and best_v < 1.0) or (not scrolls and best_v <= 0.0):
            return R.A_DONE
    return best


@kernel
def _location_pick(b, mask):
    best = -1
    best_v = NEG
    for a in range(R.A_PLACE_BASIC, R.A_PLACE_HAVEN):
        if mask[a]:
            v = _placement_value(b, a)
            if v > best_v:
                best_v = v
                best = a
    if mask[R.A_DONE] and (best < 0 or best_v < 1.0):
        return R.A_DONE  # Clock Tower: a token is a point
    return best


@kernel
def _city_pick(b, mask, base, mode):
    """A slot of the A_CITY group: mode 0 the least valuable own card, 1 the best green card
    to copy, 2 production order (producers before spenders), 3 Acorn Thieves."""
    best = -1
    best_v = NEG
    farms = b.cnt[FARM]
    for j in range(R.MAXP * SLOTS):
        if not mask[base + j]:
            continue
        t = b.city[j // SLOTS, j % SLOTS]
        if t < 0:
            continue
        if mode == 0:
            lasting = 0.3 if COLOR[t] != TRAVELER else 0.0
            v = 0.2 * (COST[t, 0] + COST[t, 1] + COST[t, 2] + COST[t, 3]) - POINTS[t] - lasting
        elif mode == 1:
            v = _yield(b, t, farms)
        elif mode == 2:
            spender = t == DOCTOR or t == WOODCARVER or t == MONK or t == PEDDLER
            v = -1.0 if spender else (0.0 if t == CHIP_SWEEP or t == MINER_MOLE else 1.0)
            v -= 0.001 * j
        else:
            v = -float(POINTS[t])
        if v > best_v:
            best_v = v
            best = base + j
    if mode == 3 and mask[R.A_DONE] and (best < 0 or -best_v >= 3.0):
        return R.A_DONE
    return best


@kernel
def _player_pick(b, mask, strongest):
    best = -1
    best_v = NEG
    for r in range(1, R.MAXP):
        if mask[R.A_PLAYER + r]:
            v = b.score[r] if strongest else -b.score[r]
            if v > best_v:
                best_v = v
                best = R.A_PLAYER + r
    return best


@kernel
def _give_resource(b, mask):
    """Monastery (2, forced), Monk (berries, 2 points each), Marketing Plan (2 points each),
    Under New Management (twig/berry 1 point, resin/pebble 2)."""
    if b.top_kind == R.T_EVENT:  # Under New Management
        best = -1
        best_v = 0.0
        for r in range(4):
            if mask[R.A_RESOURCE + r]:
                v = (2.0 if (r == 1 or r == 2) else 1.0) - _gw(b, r)
                if v > best_v:
                    best_v = v
                    best = R.A_RESOURCE + r
        return best if best >= 0 else R.A_DONE
    a = _cheapest_resource(b, mask)
    if a < 0:
        return R.A_DONE
    if mask[R.A_DONE] and b.top_count >= b.top_min:
        worth = 2.0 if b.par_kind == R.T_EVENT or b.par_card == MONK else 0.0
        if _gw(b, a - R.A_RESOURCE) >= worth:
            return R.A_DONE
    return a


@kernel
def _peddler(b, mask):
    lo = _cheapest_resource(b, mask)
    if lo >= 0 and _gw(b, lo - R.A_RESOURCE) < _max_gw(b) - 0.4:
        return lo
    return R.A_DONE


@kernel
def _hand_or_meadow(b, mask):
    best = -1
    best_v = NEG
    for t in range(NT):
        if mask[R.A_CARD + t] and _worth(b, t) + 0.05 > best_v:
            best_v = _worth(b, t) + 0.05
            best = R.A_CARD + t
    for i in range(R.MEADOW):
        if mask[R.A_MEADOW + i] and _worth(b, b.meadow[i]) > best_v:
            best_v = _worth(b, b.meadow[i])
            best = R.A_MEADOW + i
    return best


@kernel
def _storehouse(b, mask):
    best = -1
    best_v = NEG
    for r in range(4):
        if mask[R.A_RESOURCE + r] and b.coef[K_STORE + r] * _gw(b, r) > best_v:
            best_v = b.coef[K_STORE + r] * _gw(b, r)
            best = R.A_RESOURCE + r
    return best


@kernel
def _rug_remove(b, mask):
    best = -1
    best_v = NEG
    for t in range(NT):
        if mask[R.A_CARD + t]:
            v = 3.0 if COLOR[t] == PROSPERITY else 2.0  # his scoring: 3 per purple, 2 other
            if v > best_v:
                best_v = v
                best = R.A_CARD + t
    return best


@kernel
def _judge_to(b, mask):
    """Pay the swapped unit with the resource we hold most spare of."""
    best = -1
    best_v = NEG
    for r in range(4):
        if mask[R.A_RESOURCE + r]:
            v = b.res[r] - b.play_cost[r] - _gw(b, r)
            if v > best_v:
                best_v = v
                best = R.A_RESOURCE + r
    return best


@kernel
def _last_legal(mask, lo, hi):
    for a in range(hi - 1, lo - 1, -1):
        if mask[a]:
            return a
    return -1


@kernel
def _decide(b, mask):
    pk = b.pend
    if pk == R.PK_TURN:
        return _turn(b, mask)
    if pk == R.PK_PAY:
        return _pay(b, mask)
    if pk == R.PK_REDUCE or pk == R.PK_JUDGE_FROM:
        return _best_resource(b, mask, R.A_RESOURCE, True)
    if pk == R.PK_JUDGE_TO:
        return _judge_to(b, mask)
    if pk == R.PK_JAIL or pk == R.PK_RUINS:
        return _city_pick(b, mask, R.A_CITY, 0)
    if pk == R.PK_REMOVE:
        return _city_pick(b, mask, R.A_CITY, 3 if b.top_event == EV_ACORN else 0)
    if pk == R.PK_FOOL_TARGET:
        return _player_pick(b, mask, True)
    if pk == R.PK_GIVE_TO:
        return _player_pick(b, mask, False)
    if pk == R.PK_GAIN or pk == R.PK_COURTHOUSE:
        return _best_resource(b, mask, R.A_RESOURCE, False)
    if pk == R.PK_DISCARD:
        return _discard(b, mask)
    if pk == R.PK_GIVE_CARD:
        return _card_pick(b, mask, True)
    if pk == R.PK_NUMBER:
        return _last_legal(mask, R.A_NUMBER, R.A_NUMBER + 6)  # 1 or 2 points per unit
    if pk == R.PK_PILE:
        return R.A_NUMBER  # the deck: the discard pile is face down too
    if pk == R.PK_PRODUCE_ORDER:
        return _city_pick(b, mask, R.A_CITY, 2)
    if pk == R.PK_COPY_GREEN:
        a = _city_pick(b, mask, R.A_CITY, 1)
        if a < 0:
            for t in range(NT):  # a green card of Rugwort's city
                if mask[R.A_CARD + t]:
                    return R.A_CARD + t
        return a
    if pk == R.PK_REVEALED:
        return _revealed_pick(b, mask)
    if pk == R.PK_MEADOW:
        return _meadow_pick(b, mask)
    if pk == R.PK_LOCATION:
        return _location_pick(b, mask)
    if pk == R.PK_WORKER:
        # Ranger / A Wee Run City: any placed worker has done its job; move or take it back.
        for w in range(R.MAX_WORKERS):
            if mask[R.A_WORKER + w]:
                return R.A_WORKER + w
        return R.A_DONE
    if pk == R.PK_PLACE:
        best = -1
        best_v = NEG
        for a in range(R.A_PLACE_BASIC, R.A_PLAY_HAND):
            if mask[a]:
                v = _placement_value(b, a)
                if v > best_v:
                    best_v = v
                    best = a
        return best
    if pk == R.PK_GIVE_RESOURCE:
        return _give_resource(b, mask)
    if pk == R.PK_RUG_REMOVE:
        return _rug_remove(b, mask)
    if pk == R.PK_PEDDLER_PAY:
        return _peddler(b, mask)
    if pk == R.PK_STOREHOUSE:
        return _storehouse(b, mask)
    if pk == R.PK_HAND_OR_MEADOW:
        return _hand_or_meadow(b, mask)
    return -1


# Standalone rather than heuristic_action, which only allocates the board it passes in.
@standalone_kernel(
    array_arg(np.float32), array_arg(np.int8), array_arg(BOARD_DTYPE), returns=types.int64
)
def _act(obs, mask, boards):
    b = boards[0]
    _decode(obs, b)
    return _decide(b, mask)


@kernel
def _boards_with(coefficients):
    """A zeroed board (in an array of one) that values moves with ``coefficients``; decoding an
    observation fills everything else."""
    boards = np.zeros(1, BOARD_DTYPE)
    coef = boards[0].coef
    for k in range(NUM_COEFFICIENTS):  # callers pass NUM_COEFFICIENTS (the agent checks)
        coef[k] = coefficients[k]
    return boards


@kernel
def heuristic_action(obs, mask):
    """The heuristic's action for one observation vector and its 0/1 action mask."""
    return heuristic_action_with(obs, mask, DEFAULT_COEFFICIENTS)


@kernel
def heuristic_action_with(obs, mask, coefficients):
    """``heuristic_action`` valuing moves with ``coefficients`` (``NUM_COEFFICIENTS`` floats laid
    out as ``COEFFICIENTS``) instead of the defaults."""
    # A record view does not keep its array alive and Numba frees an array right after its
    # last use, so the array is passed down and held here until the decision is made.
    boards = _boards_with(coefficients)
    action = _act(obs, mask, boards)
    return _legal_or(action, mask, -1)


@kernel
def _act_compact(obs, mask, boards):
    b = boards[0]
    _decode_compact(obs, b)
    return _decide(b, mask)


@kernel
def heuristic_action_compact(obs, mask):
    """``heuristic_action`` for a compact observation vector (``observation="compact"``): the
    same decision, without the full vector's one-hot scans. ISMCTS play-outs use it."""
    boards = _boards_with(DEFAULT_COEFFICIENTS)
    action = _act_compact(obs, mask, boards)
    return _legal_or(action, mask, -1)


@parallel_kernel
def _coefficients_batch(obs, masks, coefficients, out):
    for i in prange(obs.shape[0]):
        out[i] = heuristic_action_with(obs[i], masks[i], coefficients)


class EverdellHeuristicAgent(KernelAgent, policy=heuristic_action, game="everdell"):
    """A sensible-beginner Everdell player; deterministic, decides from the observation only.
    ``coefficients``: ``NUM_COEFFICIENTS`` finite numbers laid out as ``COEFFICIENTS`` to value
    moves with instead of the defaults (learned ones: meeple_gym.baselines.coef_train)."""

    obs_size = E.OBS_SIZE
    num_actions = R.NUM_ACTIONS
    default_coefficients = DEFAULT_COEFFICIENTS
    coefficient_scales = COEFFICIENT_SCALES

    def __init__(self, coefficients=None):
        self.coefficients = None
        if coefficients is not None:
            self.coefficients = check_coefficients(coefficients, NUM_COEFFICIENTS)
            coef = self.coefficients.copy()  # writable: a read-only array compiles apart
            # instance attributes: KernelAgent.act and act_batch call these
            self.policy = lambda obs, mask: heuristic_action_with(obs, mask, coef)
            self.policy_batch = lambda obs, masks, out: _coefficients_batch(obs, masks, coef, out)
