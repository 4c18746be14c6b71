"""A rule-of-thumb Endeavor player that sees only the observation vector and the action mask.

It decodes the observation with the layout of ``meeple_gym.encoders.endeavor`` and reads the
card tables (``meeple_gym.endeavor.data``, as loaded in ``meeple_gym.endeavor.rules``); nothing
else. Everything is valued in end points (END-E2): a card is worth its points plus a guess for
its ability that shrinks as the game nears round 12 (END-E4); a token lost for good (a ship, an
attack) costs what a token earns over the rounds left; a board slot (END-B1: 9 for all cards)
costs a little while slots are plentiful and more once they run short.

Planning (END-O1): each role in hand is priced by planning what it would do now with every
token on it, and the best one is chosen:

* Sailor: ships that open regions (early, END-R2/R3), give the Governor a far region with
  better cities than ours, or meet a ships condition of a wanted empire card.
* Merchant: one good per marker city (2 if upgraded), the home port, extra-good cards; goods
  count more while a settle or an empire condition needs them.
* Craftsman: the best set of buildings, slot cities and upgrades the work buys (a small
  knapsack with the free board slots as a second limit).
* Commander: attacks on opponents' cities in regions where we hold one, when the points taken
  away beat the token lost (END-A4); ships are never attacked (they score nothing).
* Politician: the best set of empire cards whose conditions hold (knapsack on votes).
* Governor: settle the best reachable cities (END-G), moving the weakest marker once all 3
  are out.

Tokens: all of them. They come back at the end of the round (END-O5) and more tokens on the
same role go first (END-O3), so holding back gains nothing. Executing a role replans at every
step and takes the plan's best item, or ``done``. Setup: the starting city with the most
points (END-S3); the empire card returned is the one least worth keeping (END-S4).
"""

from __future__ import annotations

import numpy as np
from numba import types

from meeple_gym.baselines.kernel_agent import KernelAgent
from meeple_gym.core.jit import array_arg, kernel, standalone_kernel
from meeple_gym.core.masks import _legal_or, _onehot
from meeple_gym.core.records import copy_values
from meeple_gym.encoders import endeavor as E
from meeple_gym.endeavor import rules as R

# ---- weights (own judgement, in end points) --------------------------------------------------
TOKEN_ROUND = 0.17  # what one token earns per round (about 2.5 points a round from 15 tokens)
ROLE_BONUS_USE = 0.3  # +1 strength for one role, used about every third round
GOOD_POINT = 1.0 / 3.0  # END-E2
GOOD_NEEDED = 0.45  # a good that a settle or an empire condition is waiting for
EXPLORE = 1.2  # opening a region: a new city card now, another at round end (END-R2, END-O5)
MARKER_EXTRA = 0.6  # a marker city also yields goods and may be upgraded
SLOT_EARLY = 0.5  # a board slot while more than 3 are free
SLOT_LATE = 1.2
NEG = -1e9
MAX_ITEMS = 48
MAX_WORK = R.MAX_TOKENS + R.BOARD + 1

REGION_MEAN_POINTS = np.array(
    [R.CITY_POINTS[R.REGION_CITIES[r]].mean() for r in range(R.NR)], dtype=np.float64
)

VIEW_DTYPE = np.dtype(
    [
        ("n", np.int64),
        ("rnd", np.int64),
        ("phase", np.int64),
        ("sub", np.int64),
        ("pool", np.int64, (R.MAXP,)),
        ("placed", np.int64),
        ("goods", np.int64, (R.MAXP, R.NG)),
        ("ships", np.int64, (R.MAXP, R.NR)),
        ("board_n", np.int64, (R.MAXP,)),
        ("markers", np.int64, (R.MAXP,)),
        # The board's cards as the compact observation codes them (flag index + 1, ascending)
        ("board_codes", np.int64, (R.MAXP, R.BOARD)),
        # ... and what the decision reads of them (``_abilities``):
        ("defence", np.int64, (R.MAXP,)),  # defence cards on each board (END-A4)
        ("bonus", np.int64, (R.N_ROLES,)),  # own role-bonus cards per role
        ("discount", np.int64),  # own travel-discount cards
        ("extra_good", np.int64),  # own extra-good cards
        ("region_pts", np.int64, (R.NR,)),  # own region-points cards per region
        ("slot_city", np.int64, (R.N_SLOTS,)),
        ("slot_owner", np.int64, (R.N_SLOTS,)),  # relative seat, -1 unclaimed
        ("slot_up", np.int64, (R.N_SLOTS,)),
        ("open", np.int64, (R.NR,)),
        ("emarket", np.int64, (R.MARKET,)),
        ("bmarket", np.int64, (R.B_MARKET,)),
        ("roles", np.int64, (R.N_ROLES,)),
        ("hand", np.int64, (R.NEMP,)),
        ("strength", np.int64),
        ("used", np.int64),
        ("gov_slot", np.int64),
        ("role", np.int64),  # own role this round, -1 none
        # Scratch space of the plans, which never run inside one another (a planning
        # decision allocated about twenty small arrays). Left as it was by the last call:
        # each plan sets what it reads (heuristic_action does not zero the view).
        ("k_cost", np.int64, (MAX_ITEMS,)),  # knapsack items (_craft_plan, _politics_plan)
        ("k_worth", np.float64, (MAX_ITEMS,)),
        ("k_uses", np.int64, (MAX_ITEMS,)),
        ("k_action", np.int64, (MAX_ITEMS,)),
        ("k_keep", np.int64, (MAX_ITEMS,)),
        ("k_taken", np.int64, (MAX_ITEMS,)),
        ("slot_taken", np.int64, (R.N_SLOTS,)),  # _governor_plan, _attack_plan
        ("open0", np.int64, (R.NR,)),  # _sail_plan's saved open regions and ships
        ("ships0", np.int64, (R.NR,)),
    ]
)


# ---- decoding --------------------------------------------------------------------------------
@kernel
def _card_ability(kind, cid):
    if kind == 0:
        return R.CITY_ABILITY[cid], R.CITY_ARG[cid]
    if kind == 1:
        return R.BLD_ABILITY[cid], R.BLD_ARG[cid]
    return R.EMP_ABILITY[cid], R.EMP_ARG[cid]


@kernel
def _add_ability(v, i, ab, arg):
    if ab == R.AB_DEFENCE:
        v.defence[i] += 1
    if i != 0:
        return
    if ab == R.AB_ROLE_BONUS:
        v.bonus[arg] += 1
    elif ab == R.AB_TRAVEL:
        v.discount += 1
    elif ab == R.AB_EXTRA_GOOD:
        v.extra_good += 1
    elif ab == R.AB_REGION_POINTS:
        v.region_pts[arg] += 1


@kernel
def _abilities(v):
    """The view's ability counts (defence per seat; the observer's role bonuses, travel
    discounts, extra goods, region points) from its board codes."""
    v.discount = 0
    v.extra_good = 0
    v.bonus[:] = 0
    v.region_pts[:] = 0
    for i in range(R.MAXP):
        v.defence[i] = 0
        for j in range(R.BOARD):
            flag = v.board_codes[i, j] - 1
            if flag < 0:
                break
            if flag < R.NC:
                ab, arg = _card_ability(0, flag)
            elif flag < R.NC + R.NB:
                ab, arg = _card_ability(1, flag - R.NC)
            else:
                ab, arg = _card_ability(2, flag - R.NC - R.NB)
            _add_ability(v, i, ab, arg)


@kernel
def _board_codes(obs, start, count, first_code, v, i, listed):
    """Player ``i``'s set board flags among entries ``start`` to ``start + count`` as codes
    (``first_code`` + index), appended to ``v.board_codes[i]`` from ``listed`` on, reading
    until the board's ``board_n`` entries are found; returns how many are listed."""
    for c in range(count):
        if listed >= v.board_n[i]:
            break
        if obs[start + c] != 0:
            v.board_codes[i, listed] = first_code + c
            listed += 1
    return listed


@kernel
def _decode(obs, v):
    v.n = 2 + _onehot(obs, E.NUM_PLAYERS_ONEHOT, 3)
    v.rnd = np.int64(obs[E.ROUND])
    v.phase = _onehot(obs, E.PHASE_ONEHOT, E.N_PHASES)
    v.sub = max(0, _onehot(obs, E.SUB_ONEHOT, E.N_SUBS))
    for i in range(R.MAXP):
        b = E.PLAYERS + i * E.PLAYER_BLOCK
        v.pool[i] = np.int64(obs[b + E.P_POOL])
        v.board_n[i] = np.int64(obs[b + E.P_BOARD_N])
        v.markers[i] = np.int64(obs[b + E.P_MARKERS])
        for g in range(R.NG):
            v.goods[i, g] = np.int64(obs[b + E.P_GOODS + g])
        for r in range(R.NR):
            v.ships[i, r] = np.int64(obs[b + E.P_SHIPS + r])
        # A board card sets one entry (a second copy sets the same one), so at most
        # ``board_n`` entries are set: the scan stops once it has found that many. Seats past
        # ``n`` are all zeros (the encoder writes only the players' blocks).
        v.board_codes[i, :] = 0
        if i < v.n:
            listed = _board_codes(obs, b + E.P_BOARD_CITY, R.NC, 1, v, i, 0)
            listed = _board_codes(obs, b + E.P_BOARD_BUILDING, R.NB, 1 + R.NC, v, i, listed)
            _board_codes(obs, b + E.P_BOARD_EMPIRE, R.NEMP, 1 + R.NC + R.NB, v, i, listed)
    _abilities(v)
    v.placed = np.int64(obs[E.PLAYERS + E.P_PLACED])
    v.gov_slot = -1
    for k in range(R.N_SLOTS):
        b = E.SLOTS + k * E.SLOT_BLOCK
        # An empty slot (a region not open yet) has no city entry set: no need to scan for it.
        v.slot_city[k] = _onehot(obs, b + E.S_CITY, R.NC) if obs[b + E.S_PRESENT] != 0 else -1
        v.slot_owner[k] = _onehot(obs, b + E.S_OWNER, R.MAXP)
        v.slot_up[k] = np.int64(obs[b + E.S_UPGRADED])
        if obs[b + E.S_SETTLING] != 0:
            v.gov_slot = k
    for r in range(R.NR):
        v.open[r] = np.int64(obs[E.REGIONS + r * E.REGION_BLOCK + E.R_OPEN])
    for i in range(R.MARKET):
        v.emarket[i] = _onehot(obs, E.EMPIRE_MARKET + i * R.NEMP, R.NEMP)
    for i in range(R.B_MARKET):
        v.bmarket[i] = _onehot(obs, E.BUILDING_MARKET + i * R.NB, R.NB)
    for r in range(R.N_ROLES):
        v.roles[r] = np.int64(obs[E.OWN_ROLE_HAND + r])
    for e in range(R.NEMP):
        v.hand[e] = np.int64(obs[E.OWN_EMPIRE_HAND + e])
    v.strength = np.int64(obs[E.STRENGTH])
    v.used = np.int64(obs[E.USED])
    v.role = _onehot(obs, E.PLAYERS + E.P_ROLE, R.N_ROLES)


@kernel
def _decode_compact(obs, v):
    """``_decode`` of the compact observation (``encoders.endeavor.encode_compact_into``): the
    same view, field for field, with codes instead of one-hot scans."""
    v.n = np.int64(obs[E.C_NUM_PLAYERS]) + E.MIN_PLAYERS - 1
    v.rnd = np.int64(obs[E.C_ROUND])
    v.phase = np.int64(obs[E.C_PHASE]) - 1
    v.sub = max(0, np.int64(obs[E.C_SUB]) - 1)
    for i in range(R.MAXP):
        b = i * E.C_PLAYER_BLOCK
        v.pool[i] = np.int64(obs[b + E.CP_POOL])
        v.board_n[i] = np.int64(obs[b + E.CP_BOARD_N])
        v.markers[i] = np.int64(obs[b + E.CP_MARKERS])
        for g in range(R.NG):
            v.goods[i, g] = np.int64(obs[b + E.CP_GOODS + g])
        for r in range(R.NR):
            v.ships[i, r] = np.int64(obs[b + E.CP_SHIPS + r])
        # Board codes ascend through city, building, empire ids: the order of the flag scan.
        for j in range(R.BOARD):
            v.board_codes[i, j] = np.int64(obs[b + E.CP_BOARD + j])
    _abilities(v)
    v.placed = np.int64(obs[E.CP_PLACED])
    v.gov_slot = -1
    for k in range(R.N_SLOTS):
        b = E.C_SLOTS + k * E.C_SLOT_BLOCK
        v.slot_city[k] = np.int64(obs[b + E.CS_CITY]) - 1
        v.slot_owner[k] = np.int64(obs[b + E.CS_OWNER]) - 1
        v.slot_up[k] = np.int64(obs[b + E.CS_UPGRADED])
        if obs[b + E.CS_SETTLING] != 0:
            v.gov_slot = k
    for r in range(R.NR):
        v.open[r] = np.int64(obs[E.C_REGIONS + r * E.REGION_BLOCK + E.R_OPEN])
    for i in range(R.MARKET):
        v.emarket[i] = np.int64(obs[E.C_EMPIRE_MARKET + i]) - 1
    for i in range(R.B_MARKET):
        v.bmarket[i] = np.int64(obs[E.C_BUILDING_MARKET + i]) - 1
    for r in range(R.N_ROLES):
        v.roles[r] = np.int64(obs[E.C_OWN_ROLE_HAND + r])
    for e in range(R.NEMP):
        v.hand[e] = np.int64(obs[E.C_OWN_EMPIRE_HAND + e])
    v.strength = np.int64(obs[E.C_STRENGTH])
    v.used = np.int64(obs[E.C_USED])
    v.role = np.int64(obs[E.CP_ROLE]) - 1


# ---- worth of things -------------------------------------------------------------------------
@kernel
def _rounds_after(v):
    """Rounds still to play after this one (END-E4)."""
    return max(0, R.ROUND_LIMIT - v.rnd)


@kernel
def _token_cost(v):
    """A token lost for good (a ship, an attack) earns nothing in the rounds left."""
    return TOKEN_ROUND * _rounds_after(v)


@kernel
def _cities_in(v, i, r):
    n = 0
    for k in range(R.N_SLOTS):
        if v.slot_owner[k] == i and (r < 0 or R.SLOT_REGION[k] == r):
            n += 1
    return n


@kernel
def _goods_total(v, i):
    return v.goods[i].sum()


@kernel
def _ability_worth(v, ab, arg):
    left = _rounds_after(v)
    if ab == R.AB_ROLE_BONUS:
        return ROLE_BONUS_USE * left / 3.0 * (1.5 if arg == R.CRAFTSMAN else 1.0)
    if ab == R.AB_EXTRA_TOKENS:
        return arg * TOKEN_ROUND * left
    if ab == R.AB_EXTRA_GOOD:
        return GOOD_POINT * left / 3.0
    if ab == R.AB_TRAVEL:
        return 0.05 * left
    if ab == R.AB_DEFENCE:
        return 0.3 if left > 0 else 0.0
    if ab == R.AB_REGION_POINTS:
        return _cities_in(v, 0, arg) + (0.5 if left > 1 else 0.0)
    return 0.0


@kernel
def _slot_cost(v):
    free = R.BOARD - v.board_n[0]
    if _rounds_after(v) == 0:
        return 0.0
    return SLOT_EARLY if free > 3 else SLOT_LATE


@kernel
def _city_card_worth(v, c):
    ab, arg = _card_ability(0, c)
    return R.CITY_POINTS[c] + _ability_worth(v, ab, arg)


@kernel
def _building_worth(v, b):
    ab, arg = _card_ability(1, b)
    return R.BLD_POINTS[b] + _ability_worth(v, ab, arg)


@kernel
def _empire_worth(v, e):
    ab, arg = _card_ability(2, e)
    return R.EMP_POINTS[e] + _ability_worth(v, ab, arg)


@kernel
def _condition_met(v, e, extra_goods, extra_ship_region):
    """END-A5: the condition of empire card ``e`` for us, with some goods or one ship more."""
    cond = R.EMP_COND[e]
    need = R.EMP_COND_COUNT[e]
    if cond == R.COND_CITIES_IN_REGION:
        return _cities_in(v, 0, R.EMP_COND_REGION[e]) >= need
    if cond == R.COND_SHIPS_IN_REGION:
        r = R.EMP_COND_REGION[e]
        return v.ships[0, r] + (1 if r == extra_ship_region else 0) >= need
    if cond == R.COND_CITIES_TOTAL:
        return _cities_in(v, 0, -1) >= need
    return _goods_total(v, 0) + extra_goods >= need  # COND_GOODS_TOTAL, the last kind


@kernel
def _empire_available(v, e):
    if v.hand[e]:
        return True
    for i in range(R.MARKET):
        if v.emarket[i] == e:
            return True
    return False


@kernel
def _marker_worth(v, k):
    """What our marker on slot ``k`` is worth (its city's points and upgrade)."""
    return R.CITY_POINTS[v.slot_city[k]] + v.slot_up[k]


@kernel
def _weakest_marker(v, exclude):
    best = -1
    best_w = 1e9
    for k in range(R.N_SLOTS):
        if v.slot_owner[k] == 0 and k != exclude:
            w = _marker_worth(v, k)
            if w < best_w:
                best_w = w
                best = k
    return best


# ---- a small knapsack (Craftsman work, Politician votes) -------------------------------------
@kernel
def _knapsack(cost, worth, uses_slot, count, capacity, slots, keep, taken):
    """Best total worth of items within ``capacity`` and ``slots``; ``keep`` marks the set.

    Only the items that can be taken (worth above 0, within both limits) enter, and each limit
    is cut to what those items could use together: a skipped item would change no cell, and
    cells past the cut equal the cut's. One table of values is updated in place, from the top
    down so that each item is counted once, and a byte per item and cell records where taking
    it did better; walking those back gives the set. The set and the total are those of the
    full table over every item (tests/test_search_speedups.py), which had a value per item and
    cell and was about a fifth of the search's time in Endeavor (benchmarks/README.md)."""
    cap = min(capacity, MAX_WORK - 1)
    n = 0
    all_cost = 0
    all_slots = 0
    for i in range(count):
        keep[i] = 0
        if worth[i] > 0 and cost[i] <= cap and uses_slot[i] <= slots:
            taken[n] = i
            n += 1
            all_cost += cost[i]
            all_slots += uses_slot[i]
    if n == 0:
        return 0.0
    cap = min(cap, all_cost)
    if all_slots <= slots:
        return _knapsack_no_slot_limit(cost, worth, n, cap, keep, taken)
    slots = min(slots, all_slots)
    best = np.zeros((slots + 1, cap + 1))
    took = np.empty((n, slots + 1, cap + 1), np.bool_)
    for j in range(n):
        i = taken[j]
        need = uses_slot[i]
        price = cost[i]
        gain = worth[i]
        for f in range(slots, -1, -1):
            row = took[j, f]
            if f < need:
                row[:] = False
                continue
            for w in range(cap, price - 1, -1):
                alt = best[f - need, w - price] + gain
                better = alt > best[f, w]
                if better:
                    best[f, w] = alt
                row[w] = better
            row[:price] = False
    f = slots
    w = cap
    for j in range(n - 1, -1, -1):
        i = taken[j]
        if took[j, f, w]:
            keep[i] = 1
            f -= uses_slot[i]
            w -= cost[i]
    return best[slots, cap]


@kernel
def _knapsack_no_slot_limit(cost, worth, n, cap, keep, taken):
    """``_knapsack`` where the items could all take a board slot together: the table needs no
    slot axis. Its cells are the full table's at any slot count at least the slots of the
    items so far, which is every cell the walk back reads, so the set and the total are the
    same (and the table is up to ten times smaller)."""
    best = np.zeros(cap + 1)
    took = np.empty((n, cap + 1), np.bool_)
    for j in range(n):
        i = taken[j]
        price = cost[i]
        gain = worth[i]
        row = took[j]
        for w in range(cap, price - 1, -1):
            alt = best[w - price] + gain
            better = alt > best[w]
            if better:
                best[w] = alt
            row[w] = better
        row[:price] = False
    w = cap
    for j in range(n - 1, -1, -1):
        i = taken[j]
        if took[j, w]:
            keep[i] = 1
            w -= cost[i]
    return best[cap]


@kernel
def _plan_best(v, count, capacity, slots):
    """(total worth, action of the plan's most valuable item or -1) of the ``count`` items in
    ``v``'s knapsack scratch."""
    cost, worth, uses_slot, action, keep = v.k_cost, v.k_worth, v.k_uses, v.k_action, v.k_keep
    total = _knapsack(cost, worth, uses_slot, count, capacity, slots, keep, v.k_taken)
    best_a = -1
    best_v = NEG
    for i in range(count):
        if keep[i] and worth[i] > best_v:
            best_v = worth[i]
            best_a = action[i]
    return total, best_a


@kernel
def _craft_plan(v, work):
    """END-A3: buildings of the market, unclaimed slot cities, upgrades of our cities."""
    cost, worth, uses, action = v.k_cost, v.k_worth, v.k_uses, v.k_action
    slot_cost = _slot_cost(v)
    m = 0
    for i in range(R.B_MARKET):
        b = v.bmarket[i]
        if b >= 0:
            cost[m] = R.BLD_COST[b]
            worth[m] = _building_worth(v, b) - slot_cost
            uses[m] = 1
            action[m] = R.A_BUILDING + i
            m += 1
    for k in range(R.N_SLOTS):
        c = v.slot_city[k]
        if c >= 0 and v.slot_owner[k] < 0:
            cost[m] = R.CITY_BUILD[c]
            worth[m] = _city_card_worth(v, c) - slot_cost
            uses[m] = 1
            action[m] = R.A_SLOT + k
            m += 1
        if v.slot_owner[k] == 0 and v.slot_up[k] == 0:
            cost[m] = R.UPGRADE_COST
            # END-A3 R: +1 point, and 1 more good per Merchant action
            worth[m] = 1.0 + GOOD_POINT * _rounds_after(v) / 3.0
            uses[m] = 0
            action[m] = R.A_UPGRADE + k
            m += 1
    return _plan_best(v, m, work, R.BOARD - v.board_n[0])


@kernel
def _politics_plan(v, votes):
    """END-A5: empire cards from hand or market whose condition we meet now."""
    cost, worth, uses, action = v.k_cost, v.k_worth, v.k_uses, v.k_action
    slot_cost = _slot_cost(v)
    m = 0
    for e in range(R.NEMP):
        if _empire_available(v, e) and _condition_met(v, e, 0, -1):
            cost[m] = R.EMP_VOTE[e]
            worth[m] = _empire_worth(v, e) - slot_cost
            uses[m] = 1
            action[m] = R.A_EMPIRE + e
            m += 1
    return _plan_best(v, m, votes, R.BOARD - v.board_n[0])


# ---- Governor (END-G) ------------------------------------------------------------------------
@kernel
def _settle_gain(v, k, exclude):
    """Gain of putting a marker on slot ``k`` (moving the weakest one once all are out)."""
    c = v.slot_city[k]
    gain = R.CITY_POINTS[c] + v.region_pts[R.SLOT_REGION[k]]
    if v.markers[0] >= R.MARKERS:
        w = _weakest_marker(v, exclude)
        if w < 0:
            return NEG
        gain -= _marker_worth(v, w) + v.region_pts[R.SLOT_REGION[w]]
    else:
        gain += MARKER_EXTRA if _rounds_after(v) > 0 else 0.0
    return gain


@kernel
def _can_reach(v, k):
    c = v.slot_city[k]
    if c < 0 or v.slot_owner[k] >= 0:
        return False
    r = R.SLOT_REGION[k]
    return r <= R.WEST_AFRICA or v.ships[0, r] > 0


@kernel
def _governor_plan(v, strength, goods):
    """Greedy settles: (total gain, first slot). Goods pay first, tokens cover the rest."""
    taken = v.slot_taken
    taken[:] = 0
    total = 0.0
    first = -1
    markers0 = v.markers[0]
    while strength >= 1:
        best_k = -1
        best_g = 0.0
        for k in range(R.N_SLOTS):
            if taken[k] or not _can_reach(v, k):
                continue
            due = R.CITY_SETTLE[v.slot_city[k]]
            if 1 + max(0, due - goods) > strength:
                continue
            g = _settle_gain(v, k, -1) - GOOD_POINT * min(due, goods)
            if g > best_g:
                best_g = g
                best_k = k
        if best_k < 0:
            break
        due = R.CITY_SETTLE[v.slot_city[best_k]]
        strength -= 1 + max(0, due - goods)
        goods = max(0, goods - due)
        taken[best_k] = 1
        total += best_g
        if first < 0:
            first = best_k
        # later settles in this plan see a fuller set of markers (approximate)
        v.markers[0] = min(R.MARKERS, v.markers[0] + 1)
    v.markers[0] = markers0
    return total, first


# ---- Sailor (END-A1, END-R2, END-R3) ---------------------------------------------------------
@kernel
def _ship_worth(v, r):
    """Worth of one more ship of ours in region ``r`` (before its token is counted)."""
    worth = 0.0
    left = _rounds_after(v)
    if v.open[r] == 0:
        # a new city card now and at round end; nearer the end, less time to use them
        worth += EXPLORE * min(1.0, left / 6.0) + 0.3 * (REGION_MEAN_POINTS[r] - 1.0)
    if v.ships[0, r] == 0 and left > 0:
        # the Governor may settle here: best unclaimed city over our weakest marker
        best = REGION_MEAN_POINTS[r] if v.open[r] == 0 else 0.0
        for k in range(R.N_SLOTS):
            if R.SLOT_REGION[k] == r and v.slot_city[k] >= 0 and v.slot_owner[k] < 0:
                best = max(best, R.CITY_POINTS[v.slot_city[k]])
        floor = 0.0
        if v.markers[0] >= R.MARKERS:
            w = _weakest_marker(v, -1)
            floor = _marker_worth(v, w) if w >= 0 else 0.0
        worth += 0.6 * max(0.0, best - floor)
    for e in range(R.NEMP):
        if R.EMP_COND[e] == R.COND_SHIPS_IN_REGION and R.EMP_COND_REGION[e] == r:
            if _empire_available(v, e) and not _condition_met(v, e, 0, -1):
                if _condition_met(v, e, 0, r):
                    worth += 0.6 * _empire_worth(v, e)
    return worth


@kernel
def _travel(v, r):
    return max(1, R.TRAVEL[r] - v.discount)


@kernel
def _can_sail(v, r, strength, ships_left):
    if r == 0 or ships_left <= 0:
        return False
    if R.PREVIOUS[r] >= 0 and v.open[R.PREVIOUS[r]] == 0:
        return False
    return _travel(v, r) <= strength


@kernel
def _sail_plan(v, strength, ships_left):
    """Greedy ships: (total gain, first region). ``v.open`` / ``v.ships`` restored after."""
    open0, ships0 = v.open0, v.ships0
    copy_values(open0, v.open)
    copy_values(ships0, v.ships[0])
    total = 0.0
    first = -1
    cost = _token_cost(v)
    while True:
        best_r = -1
        best_g = 0.0
        for r in range(R.NR):
            if _can_sail(v, r, strength, ships_left):
                g = _ship_worth(v, r) - cost
                if g > best_g:
                    best_g = g
                    best_r = r
        if best_r < 0:
            break
        strength -= _travel(v, best_r)
        ships_left -= 1
        v.open[best_r] = 1
        v.ships[0, best_r] += 1
        total += best_g
        if first < 0:
            first = best_r
    copy_values(v.open, open0)
    copy_values(v.ships[0], ships0)
    return total, first


# ---- Commander (END-A4) ----------------------------------------------------------------------
@kernel
def _attack_plan(v, strength, attacks_left):
    """Greedy city attacks: (total gain, first slot). Points taken from one of n - 1
    opponents count 1 / (n - 1) of our own."""
    taken = v.slot_taken
    taken[:] = 0
    total = 0.0
    first = -1
    cost = _token_cost(v)
    share = 1.0 / (v.n - 1)
    while attacks_left > 0:
        best_k = -1
        best_g = 0.0
        for k in range(R.N_SLOTS):
            q = v.slot_owner[k]
            if taken[k] or q <= 0 or _cities_in(v, 0, R.SLOT_REGION[k]) == 0:
                continue
            if strength <= 1 + v.defence[q]:
                continue
            g = share * (R.CITY_POINTS[v.slot_city[k]] + v.slot_up[k]) - cost
            if g > best_g:
                best_g = g
                best_k = k
        if best_k < 0:
            break
        taken[best_k] = 1
        strength -= 1
        attacks_left -= 1
        total += best_g
        if first < 0:
            first = best_k
    return total, first


# ---- Merchant (END-A2) -----------------------------------------------------------------------
@kernel
def _goods_wanted(v):
    """Goods a settle (2 per free or weak marker) or an empire condition is waiting for."""
    want = 0
    for k in range(R.N_SLOTS):
        if _can_reach(v, k) and _settle_gain(v, k, -1) > 0:
            want = max(want, R.CITY_SETTLE[v.slot_city[k]])
    for e in range(R.NEMP):
        if R.EMP_COND[e] == R.COND_GOODS_TOTAL and _empire_available(v, e):
            want = max(want, R.EMP_COND_COUNT[e])
    return max(0, want - _goods_total(v, 0))


@kernel
def _merchant_worth(v, strength):
    n = 0
    for k in range(R.N_SLOTS):
        if v.slot_owner[k] == 0:
            n += 1
    n = min(n + 1, strength)  # each owned city once, the home port once
    goods = 0
    taken = 0
    for k in range(R.N_SLOTS):
        if v.slot_owner[k] == 0 and taken < n:
            goods += 2 if v.slot_up[k] else 1
            taken += 1
    if taken < n:
        goods += 1
    if goods > 0:
        goods += v.extra_good
    wanted = min(goods, _goods_wanted(v))
    return GOOD_POINT * goods + GOOD_NEEDED * wanted


# ---- planning (END-O1) -----------------------------------------------------------------------
@kernel
def _role_worth(v, role, tokens):
    s = tokens + v.bonus[role]
    if role == R.SAILOR:
        return _sail_plan(v, s, tokens)[0]
    if role == R.MERCHANT:
        return _merchant_worth(v, s)
    if role == R.CRAFTSMAN:
        return _craft_plan(v, s)[0]
    if role == R.COMMANDER:
        return _attack_plan(v, s, tokens)[0]
    if role == R.POLITICIAN:
        return _politics_plan(v, s)[0]
    return _governor_plan(v, s, _goods_total(v, 0))[0]


@kernel
def _plan_role(v, mask):
    best_a = -1
    best_w = NEG
    tokens = min(v.pool[0], R.MAX_TOKENS)
    for r in range(R.N_ROLES):
        if mask[R.A_ROLE + r] == 0:
            continue
        w = _role_worth(v, r, tokens)
        if w > best_w:
            best_w = w
            best_a = R.A_ROLE + r
    return best_a


@kernel
def _plan_tokens(mask):
    # END-O5: tokens come back after the round; END-O3: more tokens act first. So: all.
    for t in range(R.MAX_TOKENS, -1, -1):
        if mask[R.A_TOKENS + t]:
            return R.A_TOKENS + t
    return -1


# ---- setup (END-S3, END-S4) ------------------------------------------------------------------
@kernel
def _start_city(v, mask):
    best_a = -1
    best_w = NEG
    for k in range(R.N_SLOTS):
        if mask[R.A_SLOT + k] and v.slot_city[k] >= 0:
            c = v.slot_city[k]
            w = R.CITY_POINTS[c] - 0.01 * R.CITY_SETTLE[c]
            if w > best_w:
                best_w = w
                best_a = R.A_SLOT + k
    return best_a


@kernel
def _keep_worth(v, e):
    """How much an empire card in hand is worth keeping: its worth minus how hard it is."""
    hard = 0.3 * R.EMP_VOTE[e]
    cond = R.EMP_COND[e]
    need = R.EMP_COND_COUNT[e]
    if cond == R.COND_CITIES_IN_REGION or cond == R.COND_SHIPS_IN_REGION:
        r = R.EMP_COND_REGION[e]
        hard += need * (0.5 + R.TRAVEL[r] / 3.0)
    elif cond == R.COND_CITIES_TOTAL:
        hard += 0.4 * (need - 1)
    elif cond == R.COND_GOODS_TOTAL:
        hard += need / 6.0
    return _empire_worth(v, e) - hard


@kernel
def _return_card(v, mask):
    best_a = -1
    best_w = -NEG
    for e in range(R.NEMP):
        if mask[R.A_EMPIRE + e]:
            w = _keep_worth(v, e)
            if w < best_w:
                best_w = w
                best_a = R.A_EMPIRE + e
    return best_a


# ---- executing a role ------------------------------------------------------------------------
@kernel
def _execute(v, mask):
    role = v.role
    s = v.strength
    if v.sub == R.SUB_HOME_GOOD:
        best = -1
        for g in range(R.NG):  # any good pays a settle; take the scarcest kind
            if mask[R.A_GOOD + g] and (best < 0 or v.goods[0, g] < v.goods[0, best]):
                best = g
        return R.A_GOOD + best
    if v.sub == R.SUB_GOV_PAY:
        # END-G: a token pays only for a good we lack, so the total paid is the same in any
        # order; goods first, the commonest kind.
        best = -1
        for g in range(R.NG):
            if mask[R.A_GOOD + g] and (best < 0 or v.goods[0, g] > v.goods[0, best]):
                best = g
        return R.A_GOOD + best if best >= 0 else R.A_PAY_TOKEN
    if v.sub == R.SUB_GOV_MOVE:
        w = _weakest_marker(v, v.gov_slot)
        return R.A_SLOT + w if w >= 0 else -1
    ships_left = v.placed - v.used
    if role == R.SAILOR:
        first = _sail_plan(v, s, ships_left)[1]
        return R.A_REGION + first if first >= 0 else R.A_DONE
    if role == R.MERCHANT:
        for k in range(R.N_SLOTS):  # every good is worth having (END-E2)
            if mask[R.A_SLOT + k]:
                return R.A_SLOT + k
        return R.A_HOME if mask[R.A_HOME] else R.A_DONE
    if role == R.CRAFTSMAN:
        return _best_or_done(_craft_plan(v, s)[1])
    if role == R.COMMANDER:
        first = _attack_plan(v, s, ships_left)[1]
        return R.A_SLOT + first if first >= 0 else R.A_DONE
    if role == R.POLITICIAN:
        return _best_or_done(_politics_plan(v, s)[1])
    if role == R.GOVERNOR:
        first = _governor_plan(v, s, _goods_total(v, 0))[1]
        return R.A_SLOT + first if first >= 0 else R.A_DONE
    return R.A_DONE


@kernel
def _best_or_done(a):
    return a if a >= 0 else R.A_DONE


# Standalone: both observations' entry points share one compiled copy of the decisions.
@standalone_kernel(array_arg(np.int8), array_arg(VIEW_DTYPE), returns=types.int64)
def _decide(mask, views):
    v = views[0]
    action = -1
    if v.phase == R.PH_START_CITY:
        action = _start_city(v, mask)
    elif v.phase == R.PH_EMPIRE_RETURN:
        action = _return_card(v, mask)
    elif v.phase == R.PH_PLAN_ROLE:
        action = _plan_role(v, mask)
    elif v.phase == R.PH_PLAN_TOKENS:
        action = _plan_tokens(mask)
    elif v.phase == R.PH_ROLE:
        action = _execute(v, mask)
    return _legal_or(action, mask, R.A_DONE)


@standalone_kernel(array_arg(np.float32), array_arg(np.int8), returns=types.int64)
def heuristic_action(obs, mask):
    """The heuristic's action for one observation vector and its 0/1 action mask."""
    # The record ``views[0]`` points into ``views``: the array is passed down so that it stays
    # alive while the record is used (a record alone does not keep its array alive). Not
    # zeroed: the decoders set every field but the plans' scratch, which each plan sets
    # before it reads it (zeroing 4 KB was 5% of Endeavor's search).
    views = np.empty(1, VIEW_DTYPE)
    _decode(obs, views[0])
    return _decide(mask, views)


@standalone_kernel(array_arg(np.float32), array_arg(np.int8), returns=types.int64)
def heuristic_action_compact(obs, mask):
    """``heuristic_action`` on the compact observation (``observation="compact"``): the same
    view, so the same action (tests/test_search_speedups.py); the search's play-outs use it."""
    views = np.empty(1, VIEW_DTYPE)  # as in heuristic_action
    _decode_compact(obs, views[0])
    return _decide(mask, views)


@standalone_kernel(array_arg(VIEW_DTYPE), array_arg(np.int8), returns=types.int64)
def heuristic_action_view(views, mask):
    """``heuristic_action`` on a view that ``view_into`` filled from a game's record: the
    search's play-outs (GameSpec.search ``rollout_view``)."""
    _abilities(views[0])
    return _decide(mask, views)


@standalone_kernel(R.STATES, types.int64, types.int64, array_arg(VIEW_DTYPE))
def view_into(states, g, player, views):
    """``views[0]``: what ``player`` sees of game ``g``, as the decoders would read it from
    either observation (``meeple_gym.encoders.endeavor.encode_view``)."""
    E.encode_view(states[g], player, views[0])


@kernel
def new_view(size):
    """The buffer ``view_into`` fills (``size``, the search's observation size, is unused)."""
    return np.zeros(1, VIEW_DTYPE)


class EndeavorHeuristicAgent(KernelAgent, policy=heuristic_action, game="endeavor"):
    """A sensible-beginner Endeavor player; deterministic, decides from the observation only."""

    obs_size = E.OBS_SIZE
    num_actions = R.NUM_ACTIONS
