"""Endeavor (the rules text's game, docs/endeavor.md) as a Numba kernel over one record per game.

A round is planning then execution (END-O1…O5). Planning is a sequence of hidden decisions:
each player in seat order picks a role from their hand of 3, then how many tokens to put on it;
nobody observes another's pick before execution. Execution runs in role-number order (END-O3);
each role is a loop of choices (send a ship, collect a good, buy a card, attack, take an empire
card, settle a city) that ends with ``A_DONE`` or when nothing more is possible. A decision with
one legal action is taken automatically. The legal actions of the pending decision are kept in
``pend_mask``; ``current_player`` is the decider.
"""

import numpy as np
from numba import types

from meeple_gym.core.jit import array_arg, kernel, standalone_kernel
from meeple_gym.core.masks import _single_action
from meeple_gym.core.records import clear_record, copy_values
from meeple_gym.core.rng import randint, shuffle
from meeple_gym.core.stepping import batch_kernels
from meeple_gym.endeavor import data as D

MAXP = 4
NR = D.N_REGIONS  # 7
NG = len(D.GOODS)  # 5
N_ROLES = D.N_ROLES  # 6
NC = D.N_CITIES  # 49
NEMP = D.N_EMPIRE  # 30
NB = D.N_BUILDINGS  # 20
BOARD = D.BOARD_SLOTS  # 9
MARKERS = D.MARKERS
MARKET = D.EMPIRE_MARKET
B_MARKET = D.BUILDING_MARKET
ROUND_LIMIT = D.ROUND_LIMIT
UPGRADE_COST = D.UPGRADE_COST
MAX_TOKENS = 40  # largest token count a player can put on a role (18 + every extra_tokens card)
# Bounds of the int16 counters: snapshots refuse more, so no legal step can wrap.
# Strength: every token on the role plus one per role-bonus card on the board (END-O4, END-B1).
MAX_STRENGTH = MAX_TOKENS + BOARD
# Goods one Merchant action can add (END-A2, END-B2): the home port's good, 2 from each marker
# city (upgraded), 1 per extra_good card on the board. A player executes one role a round
# (END-O1), so after r Merchant opportunities a player holds at most r times this (Governor
# payments only spend), and at most ROUND_LIMIT times it in any game (END-E4).
GOODS_PER_ROUND_MAX = 1 + 2 * MARKERS + BOARD  # 16
MAX_GOODS = ROUND_LIMIT * GOODS_PER_ROUND_MAX  # 192, far below the int16 maximum
# END-E2: marker cities (+1 if upgraded), each board card's points plus at most one point per
# marker city for a region-points card, 1 per 3 goods.
_CARD_POINTS_MAX = max(int(D.CITY_POINTS.max()), int(D.EMPIRE_POINTS.max()))
_CARD_POINTS_MAX = max(_CARD_POINTS_MAX, int(D.BUILDING_POINTS.max()))
MAX_SCORE = (
    MARKERS * (int(D.CITY_POINTS.max()) + 1) + BOARD * (_CARD_POINTS_MAX + MARKERS) + MAX_GOODS // 3
)
STEP_CAP = 20000  # engine guard; no END rule
CITIES_PER_REGION = D.CITIES_PER_REGION

TRAVEL = D.REGION_TRAVEL.astype(np.int16)
OPEN_AT_START = D.REGION_OPEN_AT_START.astype(np.int8)
PREVIOUS = D.REGION_PREVIOUS.astype(np.int8)
REGION_SLOTS = D.REGION_SLOTS.astype(np.int8)
N_SLOTS = int(D.REGION_SLOTS.sum())  # 17 face-up city slots (END-R4)
SLOT_REGION = np.repeat(np.arange(NR, dtype=np.int8), D.REGION_SLOTS.astype(np.int64))
FIRST_SLOT = np.concatenate([[0], np.cumsum(D.REGION_SLOTS)[:-1]]).astype(np.int8)
REGION_CITIES = D.REGION_CITIES.astype(np.int8)
CITY_REGION = D.CITY_REGION.astype(np.int8)
CITY_GOOD = D.CITY_GOOD.astype(np.int8)
CITY_SETTLE = D.CITY_SETTLE_COST.astype(np.int16)
CITY_BUILD = D.CITY_BUILD_COST.astype(np.int16)
CITY_POINTS = D.CITY_POINTS.astype(np.int16)
CITY_ABILITY = D.CITY_ABILITY.astype(np.int8)
CITY_ARG = D.CITY_ABILITY_ARG.astype(np.int8)
EMP_VOTE = D.EMPIRE_VOTE_COST.astype(np.int16)
EMP_COND = D.EMPIRE_CONDITION.astype(np.int8)
EMP_COND_REGION = D.EMPIRE_CONDITION_REGION.astype(np.int8)
EMP_COND_COUNT = D.EMPIRE_CONDITION_COUNT.astype(np.int16)
EMP_POINTS = D.EMPIRE_POINTS.astype(np.int16)
EMP_ABILITY = D.EMPIRE_ABILITY.astype(np.int8)
EMP_ARG = D.EMPIRE_ABILITY_ARG.astype(np.int8)
BLD_COST = D.BUILDING_WORK_COST.astype(np.int16)
BLD_POINTS = D.BUILDING_POINTS.astype(np.int16)
BLD_ABILITY = D.BUILDING_ABILITY.astype(np.int8)
BLD_ARG = D.BUILDING_ABILITY_ARG.astype(np.int8)
TOKENS_BY_PLAYERS = np.array([0, 0, 15, 18, 15], np.int16)
EMPIRE_DRAW = np.array([0, 0, 4, 3, 3], np.int8)
EMPIRE_KEEP = D.EMPIRE_KEEP
STARTING_PICKS = np.full((5, 6), -1, np.int8)  # END-S3: pick order by seat offset
for _n, _order in D.STARTING_PICK_ORDER.items():
    STARTING_PICKS[_n, : len(_order)] = _order

SAILOR, MERCHANT, CRAFTSMAN, COMMANDER, POLITICIAN, GOVERNOR = range(6)
EUROPE, WEST_AFRICA = D.EUROPE, D.WEST_AFRICA
AB_NONE = D.ABILITY_NONE
AB_ROLE_BONUS = D.ABILITY_ROLE_BONUS
AB_TRAVEL = D.ABILITY_TRAVEL_DISCOUNT
AB_EXTRA_GOOD = D.ABILITY_EXTRA_GOOD
AB_DEFENCE = D.ABILITY_DEFENCE
AB_EXTRA_TOKENS = D.ABILITY_EXTRA_TOKENS
AB_REGION_POINTS = D.ABILITY_REGION_POINTS
COND_CITIES_IN_REGION = D.COND_CITIES_IN_REGION
COND_SHIPS_IN_REGION = D.COND_SHIPS_IN_REGION
COND_CITIES_TOTAL = D.COND_CITIES_TOTAL
COND_GOODS_TOTAL = D.COND_GOODS_TOTAL

# Board card kinds (END-B1: buildings, bought city cards and empire cards share 9 slots).
K_NONE, K_CITY, K_BUILDING, K_EMPIRE = range(4)

# ---- actions ---------------------------------------------------------------------------------
A_ROLE = 0  # + role (planning, END-O1)
A_TOKENS = A_ROLE + N_ROLES  # + tokens on the role, 0..MAX_TOKENS
A_SLOT = A_TOKENS + MAX_TOKENS + 1  # + city slot: start city, collect, buy, settle, move, attack
A_EMPIRE = A_SLOT + N_SLOTS  # + empire card id: return at setup, take with the Politician
A_REGION = A_EMPIRE + NEMP  # + region: Sailor sends a ship there
A_HOME = A_REGION + NR  # Merchant: collect at the home port
A_GOOD = A_HOME + 1  # + good: the home port's good, a good paid when settling
A_BUILDING = A_GOOD + NG  # + building market position
A_UPGRADE = A_BUILDING + B_MARKET  # + city slot of one's own city
A_ATTACK_SHIP = A_UPGRADE + N_SLOTS  # + region * MAXP + relative seat of the ship's owner
A_PAY_TOKEN = A_ATTACK_SHIP + NR * MAXP  # Governor: pay a missing good with one more token
A_DONE = A_PAY_TOKEN + 1
NUM_ACTIONS = A_DONE + 1

# Phases (what the pending decision is about).
PH_START_CITY = 0
PH_EMPIRE_RETURN = 1
PH_PLAN_ROLE = 2
PH_PLAN_TOKENS = 3
PH_ROLE = 4  # executing a role (sub: SUB_*)
PH_OVER = 5
PHASE_NAMES = ("start city", "return empire card", "plan role", "plan tokens", "role", "over")
SUB_MAIN = 0
SUB_HOME_GOOD = 1  # Merchant: which good the home port gives
SUB_GOV_PAY = 2  # Governor: pay the settle cost
SUB_GOV_MOVE = 3  # Governor: which own marker moves to the new city

STATE_DTYPE = np.dtype(
    [
        ("rng", np.uint64, (1,)),
        ("num_players", np.int8),
        ("phase", np.int8),
        ("sub", np.int8),
        ("current_player", np.int8),  # the decider
        ("first_player", np.int8),
        ("terminated", np.int8),
        ("truncated", np.int8),
        ("winner", np.int8),  # -1: none, or a shared win (see winners)
        ("winners", np.int8),  # bitmask of the players sharing the win (END-E3)
        ("step_count", np.int32),
        ("round", np.int8),  # read as s["round"]: on a recarray s.round is NumPy's method
        ("score", np.int16, (MAXP,)),
        ("pick_index", np.int8),  # setup / planning cursor
        # players
        ("pool", np.int16, (MAXP,)),  # tokens on the player board
        ("lost", np.int16, (MAXP,)),  # force tokens lost for good (END-A4)
        ("placed", np.int16, (MAXP,)),  # tokens on this round's role (hidden until execution)
        ("role", np.int8, (MAXP,)),  # this round's role (hidden until execution), -1 none
        ("goods", np.int16, (MAXP, NG)),
        ("ships", np.int8, (MAXP, NR)),
        ("board_kind", np.int8, (MAXP, BOARD)),
        ("board_id", np.int8, (MAXP, BOARD)),
        ("board_n", np.int8, (MAXP,)),
        ("empire_hand", np.int8, (MAXP, NEMP)),  # secret hand (END-S4)
        ("role_deck", np.int8, (MAXP, N_ROLES)),  # top = role_deck[p, role_deck_n - 1]
        ("role_deck_n", np.int8, (MAXP,)),
        ("role_hand", np.int8, (MAXP, N_ROLES)),
        ("role_aside", np.int8, (MAXP, N_ROLES)),
        ("order", np.int8, (MAXP,)),  # last round's execution order of seats (END-O3 ties)
        ("exec_order", np.int8, (MAXP,)),
        ("exec_index", np.int8),
        # regions and cities
        ("region_open", np.int8, (NR,)),
        ("region_deck", np.int8, (NR, CITIES_PER_REGION)),  # top = [r, region_deck_n[r] - 1]
        ("region_deck_n", np.int8, (NR,)),
        ("slot_city", np.int8, (N_SLOTS,)),  # -1 empty
        ("slot_owner", np.int8, (N_SLOTS,)),  # marker owner, -1 unclaimed
        ("slot_upgraded", np.int8, (N_SLOTS,)),
        # decks and markets
        ("empire_deck", np.int8, (NEMP,)),
        ("empire_deck_n", np.int8),
        ("empire_market", np.int8, (MARKET,)),
        ("building_deck", np.int8, (NB,)),
        ("building_deck_n", np.int8),
        ("building_market", np.int8, (B_MARKET,)),
        # the role being executed
        ("strength", np.int16),  # units left
        ("used", np.int16),  # ships sent / attacks made: each needs a token of its own
        ("took_goods", np.int8),
        ("city_used", np.int32),  # Merchant: slots already collected from (bitmask)
        ("home_used", np.int8),
        ("gov_slot", np.int8),  # Governor: the city being settled
        ("gov_due", np.int16),  # Governor: goods still to pay
        ("pend_mask", np.int8, (NUM_ACTIONS,)),
    ]
)
# Standalone kernels take the batch as a C-contiguous array of records (meeple_gym.core.jit).
STATES = array_arg(STATE_DTYPE)


# ---- cards on the player board (END-B1, END-B2) ----------------------------------------------
@kernel
def _card_ability(kind, cid):
    if kind == K_CITY:
        return CITY_ABILITY[cid], CITY_ARG[cid]
    if kind == K_BUILDING:
        return BLD_ABILITY[cid], BLD_ARG[cid]
    if kind == K_EMPIRE:
        return EMP_ABILITY[cid], EMP_ARG[cid]
    return AB_NONE, -1


@kernel
def _card_points(kind, cid):
    if kind == K_CITY:
        return CITY_POINTS[cid]
    if kind == K_BUILDING:
        return BLD_POINTS[cid]
    if kind == K_EMPIRE:
        return EMP_POINTS[cid]
    return 0


@kernel
def _ability_count(s, p, ability, arg):
    """Cards on p's board with ``ability`` (and argument ``arg``; -1: any argument)."""
    n = 0
    for i in range(s.board_n[p]):
        ab, a = _card_ability(s.board_kind[p, i], s.board_id[p, i])
        if ab == ability and (arg < 0 or a == arg):
            n += 1
    return n


@kernel
def _add_to_board(s, p, kind, cid):
    i = s.board_n[p]
    s.board_kind[p, i] = kind
    s.board_id[p, i] = cid
    s.board_n[p] = i + 1
    ab, arg = _card_ability(kind, cid)
    if ab == AB_EXTRA_TOKENS:
        s.pool[p] += arg  # the pool grows when the card enters the board


@kernel
def travel_cost(s, p, r):
    """END-R1, END-R3: the region's cost, 1 lower per travel-discount card, never below 1."""
    return max(1, TRAVEL[r] - _ability_count(s, p, AB_TRAVEL, -1))


@kernel
def _defence_each(s, q):
    """END-A4: each ship and city defends with 1, plus 1 per defence card of its owner."""
    return 1 + _ability_count(s, q, AB_DEFENCE, -1)


@kernel
def _cities_held(s, p, region):
    n = 0
    for k in range(N_SLOTS):
        if s.slot_owner[k] == p and (region < 0 or SLOT_REGION[k] == region):
            n += 1
    return n


@kernel
def _condition_met(s, p, e):
    """END-A5: the empire card's condition, checked when it is taken."""
    cond = EMP_COND[e]
    need = EMP_COND_COUNT[e]
    if cond == COND_CITIES_IN_REGION:
        return _cities_held(s, p, EMP_COND_REGION[e]) >= need
    if cond == COND_SHIPS_IN_REGION:
        return s.ships[p, EMP_COND_REGION[e]] >= need
    if cond == COND_CITIES_TOTAL:
        return _cities_held(s, p, -1) >= need
    # COND_GOODS_TOTAL, the last kind: every card has a condition (END-A5)
    return s.goods[p].sum() >= need


# ---- decks -----------------------------------------------------------------------------------
@kernel
def _deal_city(s, k):
    """Deal the top card of the slot's region deck to empty slot ``k`` (END-O5)."""
    r = SLOT_REGION[k]
    if s.region_deck_n[r] > 0:
        s.region_deck_n[r] -= 1
        s.slot_city[k] = s.region_deck[r, s.region_deck_n[r]]
        s.region_deck[r, s.region_deck_n[r]] = -1


@kernel
def _refill_markets(s):
    for i in range(MARKET):
        if s.empire_market[i] < 0 and s.empire_deck_n > 0:
            s.empire_deck_n -= 1
            s.empire_market[i] = s.empire_deck[s.empire_deck_n]
            s.empire_deck[s.empire_deck_n] = -1
    for i in range(B_MARKET):
        if s.building_market[i] < 0 and s.building_deck_n > 0:
            s.building_deck_n -= 1
            s.building_market[i] = s.building_deck[s.building_deck_n]
            s.building_deck[s.building_deck_n] = -1


@kernel
def _draw_role(s, p):
    """END-O2: draw the top role; an empty deck is rebuilt from the set-aside roles."""
    if s.role_deck_n[p] == 0:
        n = 0
        for r in range(N_ROLES):
            if s.role_aside[p, r]:
                s.role_deck[p, n] = r
                s.role_aside[p, r] = 0
                n += 1
        s.role_deck_n[p] = n
        shuffle(s.rng, s.role_deck[p], n)
    if s.role_deck_n[p] > 0:
        s.role_deck_n[p] -= 1
        s.role_hand[p, s.role_deck[p, s.role_deck_n[p]]] = 1
        s.role_deck[p, s.role_deck_n[p]] = -1


# ---- what the decider may do -----------------------------------------------------------------
@kernel
def _can_sail(s, p, r):
    """END-A1, END-R3: a ship to region ``r`` (never Europe; the region before it on its
    chain must be open); each ship needs a token of its own to stay there."""
    if r == EUROPE:
        return False
    if PREVIOUS[r] >= 0 and s.region_open[PREVIOUS[r]] == 0:
        return False
    return s.used < s.placed[p] and travel_cost(s, p, r) <= s.strength


@kernel
def _can_buy_city(s, p, k):
    c = s.slot_city[k]
    return c >= 0 and s.slot_owner[k] < 0 and s.board_n[p] < BOARD and CITY_BUILD[c] <= s.strength


@kernel
def _can_settle(s, p, k):
    """END-G: an unclaimed city of an open region where p has a ship (Europe and West Africa
    need none); 1 token, plus 1 per settle good p cannot pay."""
    c = s.slot_city[k]
    if c < 0 or s.slot_owner[k] >= 0 or s.strength < 1:
        return False
    r = SLOT_REGION[k]
    if r > WEST_AFRICA and s.ships[p, r] == 0:
        return False
    missing = max(0, CITY_SETTLE[c] - s.goods[p].sum())
    return 1 + missing <= s.strength


@kernel
def _attack_ship_ok(s, p, q, r):
    if q == p or s.ships[q, r] == 0 or s.used >= s.placed[p]:
        return False
    return s.strength > s.ships[q, r] * _defence_each(s, q)


@kernel
def _attack_city_ok(s, p, k):
    q = s.slot_owner[k]
    if q < 0 or q == p or s.used >= s.placed[p]:
        return False
    if _cities_held(s, p, SLOT_REGION[k]) == 0:
        return False
    return s.strength > _defence_each(s, q)


@kernel
def _role_mask(s, p, mask):
    """The choices of the role p is executing (END-A1…A5, END-G); A_DONE ends the role."""
    role = s.role[p]
    sub = s.sub
    if sub == SUB_HOME_GOOD:
        for g in range(NG):
            mask[A_GOOD + g] = 1
        return
    if sub == SUB_GOV_PAY:
        for g in range(NG):
            if s.goods[p, g] > 0:
                mask[A_GOOD + g] = 1
        if s.strength >= 1 and s.goods[p].sum() < s.gov_due:
            mask[A_PAY_TOKEN] = 1  # END-G: a token only for a good the player lacks
        return
    if sub == SUB_GOV_MOVE:
        for k in range(N_SLOTS):
            if s.slot_owner[k] == p:
                mask[A_SLOT + k] = 1
        return
    mask[A_DONE] = 1
    if s.strength <= 0:
        return
    if role == SAILOR:
        for r in range(NR):
            if _can_sail(s, p, r):
                mask[A_REGION + r] = 1
    elif role == MERCHANT:
        for k in range(N_SLOTS):
            if s.slot_owner[k] == p and not (s.city_used >> k) & 1:
                mask[A_SLOT + k] = 1
        if s.home_used == 0:
            mask[A_HOME] = 1
    elif role == CRAFTSMAN:
        for i in range(B_MARKET):
            b = s.building_market[i]
            if b >= 0 and s.board_n[p] < BOARD and BLD_COST[b] <= s.strength:
                mask[A_BUILDING + i] = 1
        for k in range(N_SLOTS):
            if _can_buy_city(s, p, k):
                mask[A_SLOT + k] = 1
            if s.slot_owner[k] == p and s.slot_upgraded[k] == 0 and s.strength >= UPGRADE_COST:
                mask[A_UPGRADE + k] = 1
    elif role == COMMANDER:
        n = s.num_players
        for r in range(NR):
            for rel in range(1, n):
                if _attack_ship_ok(s, p, (p + rel) % n, r):
                    mask[A_ATTACK_SHIP + r * MAXP + rel] = 1
        for k in range(N_SLOTS):
            if _attack_city_ok(s, p, k):
                mask[A_SLOT + k] = 1
    elif role == POLITICIAN:
        if s.board_n[p] < BOARD:
            for e in range(NEMP):
                held = s.empire_hand[p, e] == 1
                if not held:
                    for i in range(MARKET):
                        held = held or s.empire_market[i] == e
                if held and EMP_VOTE[e] <= s.strength and _condition_met(s, p, e):
                    mask[A_EMPIRE + e] = 1
    else:
        for k in range(N_SLOTS):
            if _can_settle(s, p, k):
                mask[A_SLOT + k] = 1


@kernel
def _fill_mask(s):
    mask = s.pend_mask
    mask[:] = 0
    p = s.current_player
    phase = s.phase
    if phase == PH_START_CITY:
        for k in range(N_SLOTS):
            if s.slot_city[k] >= 0 and s.slot_owner[k] < 0:
                mask[A_SLOT + k] = 1  # END-S3: any open city, at no cost
    elif phase == PH_EMPIRE_RETURN:
        for e in range(NEMP):
            if s.empire_hand[p, e]:
                mask[A_EMPIRE + e] = 1
    elif phase == PH_PLAN_ROLE:
        for r in range(N_ROLES):
            if s.role_hand[p, r]:
                mask[A_ROLE + r] = 1
    elif phase == PH_PLAN_TOKENS:
        for t in range(min(s.pool[p], MAX_TOKENS) + 1):
            mask[A_TOKENS + t] = 1
    elif phase == PH_ROLE:
        _role_mask(s, p, mask)


# ---- rounds ----------------------------------------------------------------------------------
@kernel
def _empire_to_return(s, p):
    return s.empire_hand[p].sum() - EMPIRE_KEEP


@kernel
def _start_planning(s):
    s.phase = PH_PLAN_ROLE
    s.pick_index = 0
    s.current_player = s.order[0]
    for p in range(s.num_players):
        s.role[p] = -1
        s.placed[p] = 0


@kernel
def _start_execution(s):
    """END-O3: role-number order; more tokens first; ties keep last round's order."""
    n = s.num_players
    for i in range(n):
        s.exec_order[i] = s.order[i]
    for i in range(1, n):  # insertion sort is stable: equal keys keep last round's order
        j = i
        while j > 0:
            a = s.exec_order[j - 1]
            b = s.exec_order[j]
            if s.role[b] < s.role[a] or (s.role[b] == s.role[a] and s.placed[b] > s.placed[a]):
                s.exec_order[j - 1] = b
                s.exec_order[j] = a
                j -= 1
            else:
                break
    s.exec_index = 0
    _begin_role(s)


@kernel
def _begin_role(s):
    p = s.exec_order[s.exec_index]
    s.phase = PH_ROLE
    s.sub = SUB_MAIN
    s.current_player = p
    # END-O4: one unit per token, plus 1 per card that strengthens this role.
    s.strength = s.placed[p] + _ability_count(s, p, AB_ROLE_BONUS, s.role[p])
    s.used = 0
    s.took_goods = 0
    s.city_used = 0
    s.home_used = 0
    s.gov_slot = -1
    s.gov_due = 0


@kernel
def _end_role(s):
    p = s.current_player
    if s.role[p] == MERCHANT and s.took_goods:
        for i in range(s.board_n[p]):  # END-B2: an extra_good card adds its good
            ab, arg = _card_ability(s.board_kind[p, i], s.board_id[p, i])
            if ab == AB_EXTRA_GOOD:
                s.goods[p, arg] += 1
    s.exec_index += 1
    if s.exec_index < s.num_players:
        _begin_role(s)
    else:
        _end_round(s)


@kernel
def _end_round(s):
    """END-O5 and END-E1/E4: roles set aside and redrawn, slots and markets refilled, then the
    end conditions."""
    n = s.num_players
    for p in range(n):
        r = s.role[p]
        s.role_hand[p, r] = 0
        s.role_aside[p, r] = 1
        _draw_role(s, p)
        s.order[p] = s.exec_order[p]
    for k in range(N_SLOTS):
        if s.slot_city[k] < 0 and s.region_open[SLOT_REGION[k]]:
            _deal_city(s, k)
    _refill_markets(s)
    # END-E1: "every region open and no city card left to deal" implies every city deck is
    # empty, the first condition; END-E4 adds the round limit.
    cities_left = 0
    for r in range(NR):
        cities_left += s.region_deck_n[r]
    if cities_left == 0 or s.empire_deck_n == 0 or s["round"] >= ROUND_LIMIT:
        _finish(s, False)
        return
    s["round"] += 1
    _start_planning(s)


# ---- scoring (END-E2, END-E3) ----------------------------------------------------------------
@kernel
def score_of(s, p):
    """END-E2: cities holding p's markers (+1 per upgrade), cards on p's board, 1 per 3 goods,
    and 1 per marker city of a region-points card's region."""
    total = 0
    for k in range(N_SLOTS):
        if s.slot_owner[k] == p:
            total += CITY_POINTS[s.slot_city[k]] + s.slot_upgraded[k]
    for i in range(s.board_n[p]):
        kind = s.board_kind[p, i]
        cid = s.board_id[p, i]
        total += _card_points(kind, cid)
        ab, arg = _card_ability(kind, cid)
        if ab == AB_REGION_POINTS:
            total += _cities_held(s, p, arg)
    return total + s.goods[p].sum() // 3


@kernel
def _finish(s, truncated):
    n = s.num_players
    for p in range(n):
        s.score[p] = score_of(s, p)
    s.phase = PH_OVER
    s.current_player = -1
    s.pend_mask[:] = 0
    s.winner = -1
    s.winners = 0
    if truncated:
        s.truncated = 1
        return
    s.terminated = 1
    # END-E3: points, then empire cards on the board, then tokens left; still equal: shared.
    best0 = -1
    best1 = -1
    best2 = -1
    for p in range(n):
        empire = 0
        for i in range(s.board_n[p]):
            empire += s.board_kind[p, i] == K_EMPIRE
        key0 = np.int64(s.score[p])
        key1 = np.int64(empire)
        key2 = np.int64(s.pool[p])
        if (key0, key1, key2) > (best0, best1, best2):
            best0 = key0
            best1 = key1
            best2 = key2
            s.winners = 1 << p
        elif (key0, key1, key2) == (best0, best1, best2):
            s.winners |= 1 << p
    count = 0
    for p in range(n):
        if (s.winners >> p) & 1:
            count += 1
            s.winner = p
    if count > 1:
        s.winner = -1


# ---- applying a decision ---------------------------------------------------------------------
@kernel
def _apply_role(s, p, a):
    role = s.role[p]
    if s.sub == SUB_HOME_GOOD:
        s.goods[p, a - A_GOOD] += 1
        s.took_goods = 1
        s.sub = SUB_MAIN
        return
    if s.sub == SUB_GOV_PAY:
        if a == A_PAY_TOKEN:
            s.strength -= 1  # END-G: a missing good paid with one more token
        else:
            s.goods[p, a - A_GOOD] -= 1
        s.gov_due -= 1
        if s.gov_due == 0:
            if _cities_held(s, p, -1) < MARKERS:
                s.slot_owner[s.gov_slot] = p
                s.sub = SUB_MAIN
            else:
                s.sub = SUB_GOV_MOVE
        return
    if s.sub == SUB_GOV_MOVE:
        k = a - A_SLOT
        s.slot_owner[k] = -1  # END-G: the marker moves; that city becomes free
        s.slot_upgraded[k] = 0
        s.slot_owner[s.gov_slot] = p
        s.sub = SUB_MAIN
        return
    if a == A_DONE:
        _end_role(s)
        return
    if role == SAILOR:
        r = a - A_REGION
        s.strength -= travel_cost(s, p, r)
        s.used += 1
        s.ships[p, r] += 1
        s.pool[p] -= 1  # END-A1: one spent token stays as the ship
        if s.region_open[r] == 0:  # END-R2: the first ship opens the region
            s.region_open[r] = 1
            _deal_city(s, FIRST_SLOT[r])
    elif role == MERCHANT:
        s.strength -= 1
        if a == A_HOME:
            s.home_used = 1
            s.sub = SUB_HOME_GOOD
        else:
            k = a - A_SLOT
            s.city_used |= 1 << k
            s.goods[p, CITY_GOOD[s.slot_city[k]]] += 2 if s.slot_upgraded[k] else 1
            s.took_goods = 1
    elif role == CRAFTSMAN:
        if a < A_EMPIRE:
            k = a - A_SLOT
            c = s.slot_city[k]
            s.strength -= CITY_BUILD[c]
            s.slot_city[k] = -1
            _add_to_board(s, p, K_CITY, c)
        elif a < A_UPGRADE:
            i = a - A_BUILDING
            b = s.building_market[i]
            s.strength -= BLD_COST[b]
            s.building_market[i] = -1
            _add_to_board(s, p, K_BUILDING, b)
        else:
            s.strength -= UPGRADE_COST
            s.slot_upgraded[a - A_UPGRADE] = 1
    elif role == COMMANDER:
        s.strength -= 1
        s.used += 1
        s.lost[p] += 1  # END-A4: the attacker loses a force token for good
        s.pool[p] -= 1
        if a >= A_ATTACK_SHIP:
            j = a - A_ATTACK_SHIP
            r = j // MAXP
            q = (p + j % MAXP) % s.num_players
            s.ships[q, r] -= 1
            s.pool[q] += 1  # the sunk ship's token goes home
        else:
            k = a - A_SLOT
            s.slot_owner[k] = -1
            s.slot_upgraded[k] = 0
    elif role == POLITICIAN:
        e = a - A_EMPIRE
        s.strength -= EMP_VOTE[e]
        if s.empire_hand[p, e]:
            s.empire_hand[p, e] = 0
        else:
            for i in range(MARKET):
                if s.empire_market[i] == e:
                    s.empire_market[i] = -1
        _add_to_board(s, p, K_EMPIRE, e)
    else:
        k = a - A_SLOT
        s.strength -= 1
        s.gov_slot = k
        s.gov_due = CITY_SETTLE[s.slot_city[k]]
        s.sub = SUB_GOV_PAY


@kernel
def _apply(s, a):
    p = s.current_player
    phase = s.phase
    n = s.num_players
    if phase == PH_START_CITY:
        s.slot_owner[a - A_SLOT] = p
        s.pick_index += 1
        if s.pick_index < 6 and STARTING_PICKS[n, s.pick_index] >= 0:
            s.current_player = (s.first_player + STARTING_PICKS[n, s.pick_index]) % n
        else:
            s.phase = PH_EMPIRE_RETURN
            s.pick_index = 0
            s.current_player = s.order[0]
    elif phase == PH_EMPIRE_RETURN:
        e = a - A_EMPIRE
        s.empire_hand[p, e] = 0
        s.empire_deck[s.empire_deck_n] = e
        s.empire_deck_n += 1
        if _empire_to_return(s, p) == 0:
            s.pick_index += 1
            if s.pick_index < n:
                s.current_player = s.order[s.pick_index]
            else:  # END-S4: the returned cards are shuffled back; 3 face up
                shuffle(s.rng, s.empire_deck, s.empire_deck_n)
                _refill_markets(s)
                _start_planning(s)
    elif phase == PH_PLAN_ROLE:
        s.role[p] = a - A_ROLE
        s.phase = PH_PLAN_TOKENS
    elif phase == PH_PLAN_TOKENS:
        s.placed[p] = a - A_TOKENS
        s.pick_index += 1
        if s.pick_index < n:
            s.phase = PH_PLAN_ROLE
            s.current_player = s.order[s.pick_index]
        else:
            _start_execution(s)
    else:
        _apply_role(s, p, a)


@standalone_kernel(STATES, types.int64, types.int64)
def apply_action(states, g, action):
    """Apply a legal ``action``; forced decisions that follow are taken at once."""
    s = states[g]
    s.step_count += 1
    a = action
    while True:
        _apply(s, a)
        if s.phase == PH_OVER:
            return
        _fill_mask(s)
        a = _single_action(s.pend_mask)
        if a < 0:
            break
    if s.step_count >= STEP_CAP:
        _finish(s, True)


@standalone_kernel(STATES, types.int64, array_arg(np.int8))
def legal_mask_into(states, g, mask):
    copy_values(mask, states[g].pend_mask)


@kernel
def rewards_into(s, out):
    """+1 shared among the winners, -1 shared among the others; 0 to all if everyone ties or
    the game was cut off."""
    out[:] = 0.0
    if s.terminated == 0:
        return
    n = s.num_players
    k = 0
    for p in range(n):
        k += (s.winners >> p) & 1
    if k == 0 or k == n:
        return
    for p in range(n):
        out[p] = 1.0 / k if (s.winners >> p) & 1 else -1.0 / (n - k)


# ---- setup (END-S1…S6) -----------------------------------------------------------------------
@standalone_kernel(STATES, types.int64, types.int64, types.uint64, types.int64)
def init_game(states, g, num_players, key, options=0):
    clear_record(states, g)  # every field 0; the lines below set the rest
    s = states[g]
    n = num_players
    s.rng[0] = key
    s.num_players = n
    s.winner = -1
    s["round"] = 1
    s.role[:] = -1
    s.board_kind[:, :] = K_NONE
    s.board_id[:, :] = -1
    s.role_deck[:, :] = -1
    s.order[:] = -1
    s.exec_order[:] = -1
    s.sub = SUB_MAIN
    s.gov_slot = -1
    # END-S6: a random first player; seats follow in order.
    first = randint(s.rng, 0, n)
    s.first_player = first
    for i in range(n):
        s.order[i] = (first + i) % n
        s.pool[i] = TOKENS_BY_PLAYERS[n]  # END-S1
    # END-R2, END-S2: city decks by region; Europe and West Africa open with their slots dealt.
    for r in range(NR):
        for j in range(CITIES_PER_REGION):
            s.region_deck[r, j] = REGION_CITIES[r, j]
        s.region_deck_n[r] = CITIES_PER_REGION
        shuffle(s.rng, s.region_deck[r], CITIES_PER_REGION)
        s.region_open[r] = OPEN_AT_START[r]
    s.slot_city[:] = -1
    s.slot_owner[:] = -1
    for k in range(N_SLOTS):
        if s.region_open[SLOT_REGION[k]]:
            _deal_city(s, k)
    # END-S5: buildings shuffled; the market is dealt with the empire market after setup.
    for b in range(NB):
        s.building_deck[b] = b
    s.building_deck_n = NB
    shuffle(s.rng, s.building_deck, NB)
    s.building_market[:] = -1
    # END-O2: each player's 6 roles, shuffled, 3 in hand.
    for p in range(n):
        for r in range(N_ROLES):
            s.role_deck[p, r] = r
        s.role_deck_n[p] = N_ROLES
        shuffle(s.rng, s.role_deck[p], N_ROLES)
        for _ in range(D.ROLE_HAND):
            _draw_role(s, p)
    # END-S4: each player draws 3 empire cards (4 with 2 players) and will return all but 2.
    for e in range(NEMP):
        s.empire_deck[e] = e
    s.empire_deck_n = NEMP
    shuffle(s.rng, s.empire_deck, NEMP)
    s.empire_market[:] = -1
    for i in range(n):
        p = s.order[i]
        for _ in range(EMPIRE_DRAW[n]):
            s.empire_deck_n -= 1
            s.empire_hand[p, s.empire_deck[s.empire_deck_n]] = 1
            s.empire_deck[s.empire_deck_n] = -1
    # END-S3: starting cities in snake order, at no cost.
    s.phase = PH_START_CITY
    s.current_player = (first + STARTING_PICKS[n, 0]) % n
    _fill_mask(s)


# ---- batched kernels -------------------------------------------------------------------------
reset_batch, legal_masks_batch, step_batch = batch_kernels(
    "endeavor", apply_action, legal_mask_into, init_game, rewards_into
)
