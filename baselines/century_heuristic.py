"""A rule-of-thumb Century: Spice Road player that sees only the observation vector.

It decodes its own block and the public board with the layout of ``meeple_gym.encoders.century`` and
reads the card tables of ``meeple_gym.century.data``; nothing else. Plan of a main turn:

1. Claim the affordable point card worth most (printed points + 3 for gold, 1 for silver).
2. Otherwise pick a target: the point card with the best (points + coin) / (distance + 1),
   where the distance counts the cube-steps still missing (a missing cube of level L costs L
   upgrades from a spare lower cube, or L + 1 from nothing).
3. While it owns few merchant cards, acquire a cheap good card (worth minus cubes paid).
4. Play the hand card that brings the caravan closest to the target (trades with their best
   repeat count, upgrades step by step, over-10 discards simulated).
5. Rest when no card in hand helps and some are played; else take the free leftmost card.

Sub-decisions reuse the same caravan score: upgrade while it improves, trade the best count,
pay and discard the cube whose loss hurts least (spare yellow first).
"""

from __future__ import annotations

import numpy as np
from numba import types

from meeple_gym.baselines.kernel_agent import KernelAgent
from meeple_gym.century import data as D
from meeple_gym.century import rules as R
from meeple_gym.century.rules import N_COLOURS, N_TYPES
from meeple_gym.core.jit import array_arg, kernel, standalone_kernel
from meeple_gym.core.masks import _first_legal, _legal_or
from meeple_gym.encoders.century import (
    COIN_PAYS,
    M_CUBES,
    M_PRESENT,
    M_TYPE,
    MARKET_BLOCK,
    MARKET_OFFSET,
    OBS_SIZE,
    P_CARAVAN,
    P_IN_HAND,
    P_PLAYED,
    PENDING_CARD,
    PHASE_ONEHOT,
    POINT_BLOCK,
    POINT_ROW_OFFSET,
    R_COST,
    R_POINTS,
    R_PRESENT,
)

# One missing cube-step outweighs any gain in cube value (at most 3 per cube, 10 cubes).
DIST_WEIGHT = 64
# Acquire only while owning fewer cards than this, and only a card worth this much net.
ACQUIRE_UNTIL_CARDS = 8
ACQUIRE_MIN_NET = 2.0
GOLD_POINTS, SILVER_POINTS = 3.0, 1.0  # CSR-E2
ALL_COLOURS = (1 << N_COLOURS) - 1  # _least_useful's bit set of allowed colours
assert N_COLOURS == 4, "_distance is written out for four colours"


@kernel
def _distance(car, cost):
    """Cube-steps missing before ``car`` holds ``cost`` (0 when the card is affordable)."""
    # Four colours in scalars: no array to allocate, and this runs for every candidate a
    # decision scores (with the allocations gone a decision takes a third of its former time;
    # benchmarks/README.md, "ISMCTS").
    s0, m0 = _spare_missing(car[0], cost[0])
    s1, m1 = _spare_missing(car[1], cost[1])
    s2, m2 = _spare_missing(car[2], cost[2])
    s3, m3 = _spare_missing(car[3], cost[3])
    # CSR-P3: from the top colour down, a missing cube is made from the nearest spare lower
    # cube by (c - lower) upgrades, else it costs c + 1 steps from nothing.
    d = 0
    m3, s2, d = _use_spare(m3, s2, 1, d)
    m3, s1, d = _use_spare(m3, s1, 2, d)
    m3, s0, d = _use_spare(m3, s0, 3, d)
    d += m3 * 4
    m2, s1, d = _use_spare(m2, s1, 1, d)
    m2, s0, d = _use_spare(m2, s0, 2, d)
    d += m2 * 3
    m1, s0, d = _use_spare(m1, s0, 1, d)
    d += m1 * 2
    return d + m0


@kernel
def _spare_missing(have, need):
    """(spare, missing) cubes of one colour (``0 * have``: a zero of the same integer type)."""
    if have >= need:
        return have - need, 0 * have
    return 0 * have, need - have


@kernel
def _use_spare(missing, spare, steps, d):
    """Cover ``missing`` cubes from ``spare`` lower ones, ``steps`` upgrades each."""
    use = min(missing, spare)
    return missing - use, spare - use, d + use * steps


@kernel
def _score(car, cost):
    """Lower is better: distance to the target first, then cube value (CSR-E2 counts it)."""
    value = 0
    for c in range(1, N_COLOURS):
        value += c * car[c]
    return DIST_WEIGHT * _distance(car, cost) - value


@kernel
def _total(car):
    return car[0] + car[1] + car[2] + car[3]


@kernel
def _least_useful(car, cost, allowed):
    """The colour (bit c of ``allowed`` set) whose loss raises the score least; yellow on
    ties."""
    best_c = -1
    best = 0
    for c in range(N_COLOURS):
        if car[c] > 0 and (allowed >> c) & 1:
            car[c] -= 1
            v = _score(car, cost)
            car[c] += 1
            if best_c < 0 or v < best:
                best_c = c
                best = v
    return best_c


@kernel
def _cap(car, cost):
    """CSR-K1: drop the least useful cubes until at most 10 remain (in place)."""
    while _total(car) > R.CARAVAN_LIMIT:
        car[_least_useful(car, cost, ALL_COLOURS)] -= 1


@kernel
def _best_upgrade(car, cost):
    """Colour whose one-step upgrade lowers the score most, or -1 if none helps (CSR-P3)."""
    base = _score(car, cost)
    best_c = -1
    best = base
    for c in range(N_COLOURS - 1):
        if car[c] > 0:
            car[c] -= 1
            car[c + 1] += 1
            v = _score(car, cost)
            car[c] += 1
            car[c + 1] -= 1
            if v < best:
                best = v
                best_c = c
    return best_c


@kernel
def _max_repeats(car, t):
    n = 0
    while n < R.MAX_TRADE_REPEATS:
        for c in range(N_COLOURS):
            if car[c] < (n + 1) * D.MERCHANT_IN[t, c]:
                return n
        n += 1
    return n


@kernel
def _trade_result(car, t, n, cost, out):
    for c in range(N_COLOURS):
        out[c] = car[c] + n * (D.MERCHANT_OUT[t, c] - D.MERCHANT_IN[t, c])
    _cap(out, cost)


@kernel
def _best_trade_count(car, t, cost, tmp):
    """(repeats, score) of the best legal repeat count of trade ``t`` (CSR-P5); ``tmp`` is
    scratch space for one caravan."""
    best_n = 0
    best = 0
    for n in range(1, _max_repeats(car, t) + 1):
        _trade_result(car, t, n, cost, tmp)
        v = _score(tmp, cost)
        if best_n == 0 or v < best:
            best_n = n
            best = v
    return best_n, best


@kernel
def _play_score(car, t, cost, tmp):
    """Score of the caravan after playing card ``t`` well; a large value if it cannot be.
    ``tmp`` is scratch space for one caravan."""
    for c in range(N_COLOURS):
        tmp[c] = car[c]
    kind = D.MERCHANT_KIND[t]
    if kind == D.KIND_SPICE:  # CSR-P2
        for c in range(N_COLOURS):
            tmp[c] += D.MERCHANT_OUT[t, c]
        _cap(tmp, cost)
        return _score(tmp, cost)
    if kind == D.KIND_UPGRADE:  # CSR-P3/P4: greedy steps, stop when none helps
        for _ in range(D.MERCHANT_UPGRADES[t]):
            c = _best_upgrade(tmp, cost)
            if c < 0:
                break
            tmp[c] -= 1
            tmp[c + 1] += 1
        return _score(tmp, cost)
    n, v = _best_trade_count(car, t, cost, tmp)
    if n == 0:
        return 1 << 40
    return v


@kernel
def _card_worth(t):
    """Rough worth of owning merchant card ``t``, in cube-levels gained per play."""
    kind = D.MERCHANT_KIND[t]
    if kind == D.KIND_UPGRADE:
        return 1.5 * D.MERCHANT_UPGRADES[t]
    gain = 0.0
    for c in range(N_COLOURS):
        gain += (c + 1) * (D.MERCHANT_OUT[t, c] - D.MERCHANT_IN[t, c])
    if kind == D.KIND_TRADE:
        gain *= 1.5  # a trade can be repeated
    return gain


@kernel
def _decode_target(obs, car, cost, row_cost):
    """Fill ``cost`` with the target point card's cost; return the claim slot or -1.
    ``row_cost`` is scratch space."""
    best_j = -1
    best = -1.0
    for j in range(R.POINT_ROW_SIZE):
        b = POINT_ROW_OFFSET + j * POINT_BLOCK
        if obs[b + R_PRESENT] == 0:
            continue
        for c in range(N_COLOURS):
            row_cost[c] = np.int64(obs[b + R_COST + c])
        worth = obs[b + R_POINTS] + _coin_bonus(obs, j)
        ratio = worth / (_distance(car, row_cost) + 1.0)
        if ratio > best:
            best = ratio
            best_j = j
    cost[:] = 0
    if best_j >= 0:
        b = POINT_ROW_OFFSET + best_j * POINT_BLOCK
        for c in range(N_COLOURS):
            cost[c] = np.int64(obs[b + R_COST + c])
    return best_j


@kernel
def _last_set(obs, start, n):
    """The last of ``obs[start:start + n]`` that is not 0 (-1: none); one read for a one-hot
    whose entry is late, where a forward scan reads all ``n``."""
    for i in range(n - 1, -1, -1):
        if obs[start + i] != 0:
            return i
    return -1


@kernel
def _coin_bonus(obs, j):
    # CSR-C3: the coin lying above point slot j (slots 1 and 2 only).
    if j >= 2:
        return 0.0
    return GOLD_POINTS * obs[COIN_PAYS + 2 * j] + SILVER_POINTS * obs[COIN_PAYS + 2 * j + 1]


@kernel
def _main_action(obs, mask, car, cost, tmp):
    # 1. CSR-C1: claim the affordable point card worth most.
    best_a = -1
    best = -1.0
    for j in range(R.POINT_ROW_SIZE):
        if mask[R.A_CLAIM + j] != 0:
            worth = obs[POINT_ROW_OFFSET + j * POINT_BLOCK + R_POINTS] + _coin_bonus(obs, j)
            if worth > best:
                best = worth
                best_a = R.A_CLAIM + j
    if best_a >= 0:
        return best_a
    owned = 0
    for t in range(N_TYPES):
        owned += np.int64(obs[P_IN_HAND + t] + obs[P_PLAYED + t])
    # 3. CSR-A1: early on, buy the card with the best worth net of the cubes paid for it.
    if owned < ACQUIRE_UNTIL_CARDS:
        acquire_a, acquire_net = _best_acquire(obs, mask)
        if acquire_net >= ACQUIRE_MIN_NET:
            return acquire_a
    # 4. Play the hand card that brings the caravan closest to the target.
    base = _score(car, cost)
    best_a = -1
    best_v = base
    for t in range(N_TYPES):
        if mask[R.A_PLAY + t] != 0:
            v = _play_score(car, t, cost, tmp)
            if v < best_v:
                best_v = v
                best_a = R.A_PLAY + t
    if best_a >= 0:
        return best_a
    # 5. CSR-R1: nothing in hand helps, so take the played cards back; else grow the hand.
    if mask[R.A_REST] != 0:
        return R.A_REST
    # The market is read here only if step 3 did not (late in the game, most turns).
    acquire_a = _best_acquire(obs, mask)[0]
    if acquire_a >= 0:
        return acquire_a
    return _first_legal(mask)


@kernel
def _best_acquire(obs, mask):
    """(action, net worth) of the market card with the best worth net of the cubes paid for
    it (-1 and -1e9 if none can be taken)."""
    acquire_a = -1
    acquire_net = -1e9
    for k in range(R.MARKET_SIZE):
        if mask[R.A_ACQUIRE + k] == 0:
            continue
        b = MARKET_OFFSET + k * MARKET_BLOCK
        if obs[b + M_PRESENT] == 0:
            continue
        t = _last_set(obs, b + M_TYPE, N_TYPES)
        if t < 0:
            continue
        net = _card_worth(t) - k
        for c in range(N_COLOURS):
            net += (c + 1) * obs[b + M_CUBES + c]
        if net > acquire_net:
            acquire_net = net
            acquire_a = R.A_ACQUIRE + k
    return acquire_a, acquire_net


@standalone_kernel(array_arg(np.float32), array_arg(np.int8), returns=types.int64)
def heuristic_action(obs, mask):
    """The heuristic's action for one observation vector and its int 0/1 action mask."""
    # One allocation for every caravan-sized array the decision uses: the caravan, the
    # target's cost, and two scratch rows (it was one per candidate scored).
    rows = np.zeros((4, N_COLOURS), np.int64)
    car, cost, tmp = rows[0], rows[1], rows[2]
    for c in range(N_COLOURS):
        car[c] = np.int64(obs[P_CARAVAN + c])  # own block comes first
    _decode_target(obs, car, cost, rows[3])
    phase = max(0, _last_set(obs, PHASE_ONEHOT, 6))
    action = -1
    if phase == R.PHASE_MAIN:
        action = _main_action(obs, mask, car, cost, tmp)
    elif phase == R.PHASE_UPGRADE:
        c = _best_upgrade(car, cost)
        action = R.A_STOP if c < 0 else R.A_UPGRADE + c
    elif phase == R.PHASE_TRADE:
        t = _last_set(obs, PENDING_CARD, N_TYPES)
        if t >= 0:
            n, _ = _best_trade_count(car, t, cost, tmp)
            if n > 0:
                action = R.A_TRADE + n - 1
    elif phase == R.PHASE_PAY or phase == R.PHASE_DISCARD:
        base = R.A_PLACE if phase == R.PHASE_PAY else R.A_RETURN
        allowed = 0
        for c in range(N_COLOURS):
            if mask[base + c] != 0:
                allowed |= 1 << c
        c = _least_useful(car, cost, allowed)
        if c >= 0:
            action = base + c
    return _legal_or(action, mask, -1)


class CenturyHeuristicAgent(KernelAgent, policy=heuristic_action, game="century"):
    """A sensible-beginner Century player; deterministic, decides from the observation only."""

    obs_size = OBS_SIZE
    num_actions = R.NUM_ACTIONS
