"""Rule-by-rule tests of the Century kernel (envs/century/rules.py).

Every rule ID of the rules checklist (CSR-…, see docs/century.md) has at least one test here
that names it. Positions are built with ``init_game`` and then edited field by field; the
kernel is driven only through ``legal_mask_into`` / ``apply_action`` (and the scoring and reward
kernels). Expected values come from the rules and the printed cards, not from running the code.
"""

import numpy as np
import pytest

from meeple_gym.century.data import (
    DECK_TYPES,
    KIND_SPICE,
    MERCHANT_KIND,
    MERCHANT_NAMES,
    POINT_COST,
    POINT_NAMES,
)
from meeple_gym.century.rules import (
    A_ACQUIRE,
    A_CLAIM,
    A_PLACE,
    A_PLAY,
    A_REST,
    A_RETURN,
    A_STOP,
    A_TRADE,
    A_UPGRADE,
    IN_HAND,
    MAX_PLAYERS,
    N_DECK,
    N_POINT,
    NOT_OWNED,
    NUM_ACTIONS,
    PHASE_DISCARD,
    PHASE_MAIN,
    PHASE_OVER,
    PHASE_PAY,
    PHASE_TRADE,
    PHASE_UPGRADE,
    PLAYED,
    STATE_DTYPE,
    STEP_CAP,
    apply_action,
    final_scores_into,
    init_game,
    legal_mask_into,
    rewards_into,
)
from meeple_gym.core.rng import derive_key

Y, R, G, B = range(4)
PLUS_YY = MERCHANT_NAMES.index("+YY")
U2 = MERCHANT_NAMES.index("U2")
U3 = MERCHANT_NAMES.index("U3")
PLUS_YYY = MERCHANT_NAMES.index("+YYY")
YY_TO_G = MERCHANT_NAMES.index("YY>G")
YR_TO_B = MERCHANT_NAMES.index("YR>B")
# Book: 2-3 players end on the 6th point card, 4-5 players on the 5th (CSR-E1).
END_TARGET = {2: 6, 3: 6, 4: 5, 5: 5}
PLAYER_COUNTS = (2, 3, 4, 5)


# ---- helpers ------------------------------------------------------------------------------


def new_game(num_players=2, seed=0):
    states = np.zeros(1, STATE_DTYPE)
    key = derive_key(np.uint64(seed), np.uint64(0), np.uint64(0))
    init_game(states, 0, num_players, np.uint64(key))
    return states


def legal(states):
    mask = np.zeros(NUM_ACTIONS, np.int8)
    legal_mask_into(states, 0, mask)
    return {int(a) for a in np.flatnonzero(mask)}


def act(states, action):
    """Apply ``action`` after checking that the kernel itself calls it legal."""
    assert action in legal(states), f"action {action} is not legal"
    apply_action(states, 0, action)


def cubes(letters):
    """'YYG' -> [2, 0, 1, 0]."""
    return [letters.count(ch) for ch in "YRGB"]


def caravan(states, p):
    return [int(x) for x in states[0]["caravan"][p]]


def set_caravan(states, p, letters):
    states[0]["caravan"][p] = cubes(letters)


def opening(num_players, seed, letters=None):
    """A fresh game and its first player ``p``, whose caravan is set to ``letters`` if given."""
    states = new_game(num_players, seed)
    p = int(states[0]["current_player"])
    if letters is not None:
        set_caravan(states, p, letters)
    return states, p


def to_act(states, p):
    """Make seat ``p`` the player to act at the start of a turn."""
    s = states[0]
    s["current_player"] = p
    s["phase"] = PHASE_MAIN


def owned(states, p):
    return {t: int(v) for t, v in enumerate(states[0]["cards"][p]) if v != NOT_OWNED}


def claim_slot(states, p, j):
    """Give seat ``p`` exactly the cost of point slot ``j`` and claim it."""
    to_act(states, p)
    states[0]["caravan"][p] = POINT_COST[states[0]["point_row"][j]]
    act(states, A_CLAIM + j)


def random_playout(num_players, seed):
    """Uniform-random legal play to the end; returns the final state and (player, phase, action)."""
    states = new_game(num_players, seed)
    rng = np.random.default_rng(seed)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    log = []
    while states[0]["phase"] != PHASE_OVER:
        legal_mask_into(states, 0, mask)
        action = int(rng.choice(np.flatnonzero(mask)))
        log.append((int(states[0]["current_player"]), int(states[0]["phase"]), action))
        apply_action(states, 0, action)
    return states, log


@pytest.fixture(scope="module")
def playouts():
    return {n: [random_playout(n, seed) for seed in range(3)] for n in PLAYER_COUNTS}


# ---- setup --------------------------------------------------------------------------------


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_csr_s1_five_point_cards_face_up_rest_face_down(n):
    """CSR-S1."""
    for seed in range(5):
        s = new_game(n, seed)[0]
        assert sorted(s["point_deck"]) == list(range(N_POINT))
        assert list(s["point_row"]) == list(s["point_deck"][:5])
        assert s["point_deck_top"] == 5  # the other 31 stay in the face-down deck
        assert (s["point_owner"] == -1).all()


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_csr_s4_six_market_cards_face_up_rest_face_down(n):
    """CSR-S4."""
    for seed in range(5):
        s = new_game(n, seed)[0]
        assert sorted(s["merchant_deck"]) == sorted(DECK_TYPES)
        assert PLUS_YY not in s["merchant_deck"] and U2 not in s["merchant_deck"]
        assert list(s["market"]) == list(s["merchant_deck"][:6])
        assert s["merchant_deck_top"] == 6
        assert not s["market_cubes"].any()


def test_csr_s1_s4_decks_shuffled_differently_per_seed():
    games = [new_game(3, seed)[0] for seed in range(40)]
    point_orders = {tuple(s["point_deck"]) for s in games}
    merchant_orders = {tuple(s["merchant_deck"]) for s in games}
    assert len(point_orders) == 40 and len(merchant_orders) == 40
    # The face-up cards themselves vary, not only the hidden order.
    assert len({int(s["point_row"][0]) for s in games}) >= 10
    assert len({int(s["market"][0]) for s in games}) >= 10


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_csr_s2_two_gold_and_two_silver_coins_per_player(n):
    """CSR-S2."""
    s = new_game(n)[0]
    assert s["gold_left"] == 2 * n
    assert s["silver_left"] == 2 * n
    assert not s["gold"].any() and not s["silver"].any()


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_csr_s3_hand_is_exactly_the_starting_pair(n):
    """CSR-S3."""
    states = new_game(n, seed=n)
    for p in range(n):
        assert owned(states, p) == {PLUS_YY: IN_HAND, U2: IN_HAND}
    for p in range(n, MAX_PLAYERS):
        assert owned(states, p) == {}


def test_csr_s5_upgrades_follow_yellow_red_green_brown():
    # CSR-S5 fixes the value order; one upgrade step moves a cube one place up it.
    for start, after in (("Y", "R"), ("R", "G"), ("G", "B")):
        states = new_game()
        p = int(states[0]["current_player"])
        set_caravan(states, p, start)
        act(states, A_PLAY + U2)
        act(states, A_UPGRADE + "YRG".index(start))
        assert caravan(states, p) == cubes(after)


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_csr_s6_first_player_roughly_uniform(n):
    """CSR-S6."""
    draws = 400 * n
    firsts = [int(new_game(n, seed)[0]["first_player"]) for seed in range(draws)]
    counts = np.bincount(firsts, minlength=n)
    assert len(counts) == n  # never a seat outside the table
    expected = draws / n
    sd = np.sqrt(draws * (1 / n) * (1 - 1 / n))
    assert (np.abs(counts - expected) < 5 * sd).all(), counts
    assert new_game(n, 0)[0]["current_player"] == new_game(n, 0)[0]["first_player"]


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_csr_s6_play_goes_in_seat_order(n):
    states = new_game(n, seed=7)
    first = int(states[0]["first_player"])
    seen = []
    for _ in range(2 * n):
        p = int(states[0]["current_player"])
        seen.append(p)
        set_caravan(states, p, "")
        state = states[0]["cards"][p, PLUS_YY]
        act(states, A_PLAY + PLUS_YY if state == IN_HAND else A_REST)
    assert seen == [(first + i) % n for i in range(2 * n)]


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_csr_s7_starting_cubes_by_turn_position(n):
    """CSR-S7."""
    by_position = [cubes("YYY"), cubes("YYYY"), cubes("YYYY"), cubes("YYYR"), cubes("YYYR")]
    firsts = set()
    for seed in range(12):
        states = new_game(n, seed)
        first = int(states[0]["first_player"])
        firsts.add(first)
        for p in range(n):
            assert caravan(states, p) == by_position[(p - first) % n], (seed, p)
        for p in range(n, MAX_PLAYERS):
            assert caravan(states, p) == [0, 0, 0, 0]
    assert firsts - {0}, "no seed put the first player away from seat 0"


# ---- a turn -------------------------------------------------------------------------------


def _setup_play(states, p):
    set_caravan(states, p, "Y")


def _setup_acquire(states, p):
    set_caravan(states, p, "")


def _setup_rest(states, p):
    states[0]["cards"][p, U2] = PLAYED


def _setup_claim(states, p):
    states[0]["caravan"][p] = POINT_COST[states[0]["point_row"][2]]


MAIN_ACTIONS = {
    "play": (_setup_play, A_PLAY + PLUS_YY),
    "acquire": (_setup_acquire, A_ACQUIRE + 0),
    "rest": (_setup_rest, A_REST),
    "claim": (_setup_claim, A_CLAIM + 2),
}


@pytest.mark.parametrize("name", sorted(MAIN_ACTIONS))
def test_csr_t1_one_main_action_ends_the_turn(name):
    """CSR-T1."""
    setup, action = MAIN_ACTIONS[name]
    states, p = opening(3, 2)
    setup(states, p)
    act(states, action)
    assert states[0]["current_player"] == (p + 1) % 3
    assert states[0]["phase"] == PHASE_MAIN


def test_csr_t1_main_phase_offers_only_the_four_actions():
    states, p = opening(2, 3)
    states[0]["cards"][p, U2] = PLAYED
    states[0]["caravan"][p] = POINT_COST[states[0]["point_row"][0]]
    actions = legal(states)
    assert actions and all(a < A_UPGRADE for a in actions)
    assert {A_PLAY + PLUS_YY, A_ACQUIRE, A_REST, A_CLAIM} <= actions


def test_csr_t1_random_games_take_exactly_one_main_action_per_turn(playouts):
    for n, games in playouts.items():
        for _, log in games:
            turns = []  # maximal runs of one player acting; consecutive turns change player
            for player, phase, action in log:
                if not turns or turns[-1][0] != player:
                    turns.append((player, []))
                turns[-1][1].append((phase, action))
                in_main = phase == PHASE_MAIN
                assert in_main == (action < A_UPGRADE), (n, phase, action)
            for _, steps in turns:
                phases = [phase for phase, _ in steps]
                assert phases[0] == PHASE_MAIN and phases.count(PHASE_MAIN) == 1


# ---- play ---------------------------------------------------------------------------------


def test_csr_p1_played_card_goes_to_the_played_pile():
    """CSR-P1."""
    states, p = opening(2, 4, "")
    act(states, A_PLAY + PLUS_YY)
    assert states[0]["cards"][p, PLUS_YY] == PLAYED
    assert states[0]["cards"][p, U2] == IN_HAND
    assert states[0]["cards"][1 - p, PLUS_YY] == IN_HAND  # the other player's copy is untouched
    to_act(states, p)
    assert A_PLAY + PLUS_YY not in legal(states)  # it cannot be played again before a rest


@pytest.mark.parametrize("t", [t for t in range(45) if MERCHANT_KIND[t] == KIND_SPICE])
def test_csr_p2_spice_card_gains_its_cubes(t):
    """CSR-P2."""
    states, p = opening(2, 5, "R")
    states[0]["cards"][p, t] = IN_HAND
    act(states, A_PLAY + t)
    expected = np.add(cubes("R"), cubes(MERCHANT_NAMES[t][1:]))
    assert caravan(states, p) == list(expected)


def test_csr_p3_same_cube_upgraded_twice_yellow_red_green():
    """CSR-P3."""
    states, p = opening(2, 6, "Y")
    act(states, A_PLAY + U2)
    assert states[0]["phase"] == PHASE_UPGRADE
    assert legal(states) == {A_UPGRADE + Y, A_STOP}
    act(states, A_UPGRADE + Y)
    assert caravan(states, p) == cubes("R")
    assert states[0]["current_player"] == p and states[0]["phase"] == PHASE_UPGRADE
    assert legal(states) == {A_UPGRADE + R, A_STOP}
    act(states, A_UPGRADE + R)
    assert caravan(states, p) == cubes("G")
    # Two upgrades used up "upgrade 2": the turn is over.
    assert states[0]["current_player"] == 1 - p and states[0]["phase"] == PHASE_MAIN


def test_csr_p3_brown_cannot_be_upgraded():
    states, p = opening(2, 6, "BBB")
    act(states, A_PLAY + U2)
    assert legal(states) == {A_STOP}
    states = new_game(2, seed=6)
    set_caravan(states, p, "GB")
    act(states, A_PLAY + U2)
    assert legal(states) == {A_UPGRADE + G, A_STOP}
    act(states, A_UPGRADE + G)
    assert caravan(states, p) == cubes("BB")
    assert legal(states) == {A_STOP}


def test_csr_p3_upgrade_three_allows_three_steps():
    states, p = opening(2, 6, "Y")
    states[0]["cards"][p, U3] = IN_HAND
    act(states, A_PLAY + U3)
    for colour in (Y, R):
        act(states, A_UPGRADE + colour)
        assert states[0]["phase"] == PHASE_UPGRADE and states[0]["current_player"] == p
    act(states, A_UPGRADE + G)
    assert caravan(states, p) == cubes("B")
    assert states[0]["current_player"] == 1 - p


def test_csr_p4_stop_with_zero_upgrades_still_plays_the_card():
    """CSR-P4."""
    states, p = opening(2, 8, "YYR")
    act(states, A_PLAY + U2)
    act(states, A_STOP)
    assert caravan(states, p) == cubes("YYR")
    assert states[0]["cards"][p, U2] == PLAYED
    assert states[0]["current_player"] == 1 - p and states[0]["phase"] == PHASE_MAIN


def test_csr_p4_stop_after_one_of_two_upgrades():
    states, p = opening(2, 8, "YY")
    act(states, A_PLAY + U2)
    act(states, A_UPGRADE + Y)
    act(states, A_STOP)
    assert caravan(states, p) == cubes("YR")
    assert states[0]["current_player"] == 1 - p


def test_csr_p4_upgrade_card_playable_with_nothing_to_upgrade():
    # Project choice: with no yellow, red or green cube the card can still be played, then stopped.
    states, p = opening(2, 8, "")
    act(states, A_PLAY + U2)
    assert legal(states) == {A_STOP}
    act(states, A_STOP)
    assert states[0]["cards"][p, U2] == PLAYED


@pytest.mark.parametrize("repeats", [1, 2, 3])
def test_csr_p5_book_example_six_yellow_two_for_one_green(repeats):
    """CSR-P5."""
    states, p = opening(2, 9, "YYYYYY")
    states[0]["cards"][p, YY_TO_G] = IN_HAND
    act(states, A_PLAY + YY_TO_G)
    assert states[0]["phase"] == PHASE_TRADE
    # 1, 2 or 3 times; a 4th repeat would need 8 yellow.
    assert legal(states) == {A_TRADE + 0, A_TRADE + 1, A_TRADE + 2}
    act(states, A_TRADE + repeats - 1)
    assert caravan(states, p) == [6 - 2 * repeats, 0, repeats, 0]
    assert states[0]["cards"][p, YY_TO_G] == PLAYED
    assert states[0]["current_player"] == 1 - p


def test_csr_p5_trade_needs_its_input_at_least_once():
    states, p = opening(2, 9)
    states[0]["cards"][p, YY_TO_G] = IN_HAND
    set_caravan(states, p, "YRGB")
    assert A_PLAY + YY_TO_G not in legal(states)
    set_caravan(states, p, "YY")
    assert A_PLAY + YY_TO_G in legal(states)


def test_csr_p5_repeats_limited_by_every_input_colour():
    states, p = opening(2, 9)
    states[0]["cards"][p, YR_TO_B] = IN_HAND
    set_caravan(states, p, "YYYRR")
    act(states, A_PLAY + YR_TO_B)
    assert legal(states) == {A_TRADE + 0, A_TRADE + 1}  # red allows only two
    act(states, A_TRADE + 1)
    assert caravan(states, p) == cubes("YBB")


# ---- acquire ------------------------------------------------------------------------------


def test_csr_a1_cubes_go_left_and_cubes_on_the_card_come_along():
    """CSR-A1."""
    states, p = opening(2, 10)
    s = states[0]
    before = list(s["market"])
    target = before[3]
    s["market_cubes"][3] = cubes("RBB")  # left there by earlier buyers
    set_caravan(states, p, "YYRG")
    act(states, A_ACQUIRE + 3)
    assert s["phase"] == PHASE_PAY and s["current_player"] == p
    # One cube of the player's choice on each of the three cards to the left.
    for colour in (R, Y, G):
        assert legal(states) == {A_PLACE + c for c in range(4) if caravan(states, p)[c] > 0}
        act(states, A_PLACE + colour)
    assert s["cards"][p, target] == IN_HAND
    assert list(s["market"][:3]) == before[:3]  # cards left of the target do not move
    assert [list(s["market_cubes"][k]) for k in range(3)] == [cubes("R"), cubes("Y"), cubes("G")]
    # YYRG - R - Y - G + RBB on the card.
    assert caravan(states, p) == cubes("YRBB")
    assert s["current_player"] == 1 - p


def test_csr_a1_a2_slot_k_needs_k_cubes():
    states, p = opening(2, 10)
    for letters in ("", "Y", "YB", "YYRGB"):
        set_caravan(states, p, letters)
        slots = {a - A_ACQUIRE for a in legal(states) if A_ACQUIRE <= a < A_REST}
        assert slots == set(range(len(letters) + 1))


def test_csr_a2_leftmost_card_is_free():
    """CSR-A2."""
    states, p = opening(2, 11)
    s = states[0]
    target = int(s["market"][0])
    set_caravan(states, p, "")
    s["market_cubes"][0] = cubes("G")
    act(states, A_ACQUIRE + 0)
    assert s["cards"][p, target] == IN_HAND
    assert caravan(states, p) == cubes("G")  # paid nothing, got the cube lying on it
    assert s["current_player"] == 1 - p  # no placing sub-decision


def test_csr_a3_cards_slide_with_their_cubes_and_the_last_slot_refills():
    """CSR-A3."""
    states, p = opening(2, 12)
    s = states[0]
    before = list(s["market"])
    top = int(s["merchant_deck_top"])
    next_card = int(s["merchant_deck"][top])
    lying = {2: cubes("Y"), 3: cubes("RR"), 4: cubes("G"), 5: cubes("B")}
    for k, row in lying.items():
        s["market_cubes"][k] = row
    set_caravan(states, p, "Y")
    act(states, A_ACQUIRE + 1)
    act(states, A_PLACE + Y)
    assert list(s["market"]) == [before[0], *before[2:], next_card]
    assert list(s["market_cubes"][0]) == cubes("Y")
    for k in range(2, 6):
        assert list(s["market_cubes"][k - 1]) == lying[k]
    assert list(s["market_cubes"][5]) == [0, 0, 0, 0]
    assert s["merchant_deck_top"] == top + 1


def test_csr_a3_slot_stays_empty_when_the_deck_is_out():
    states, p = opening(2, 12)
    s = states[0]
    s["merchant_deck_top"] = N_DECK
    before = list(s["market"])
    set_caravan(states, p, "YYYYYY")
    act(states, A_ACQUIRE + 0)
    assert list(s["market"]) == [*before[1:], -1]
    to_act(states, p)
    assert A_ACQUIRE + 5 not in legal(states)
    act(states, A_ACQUIRE + 0)
    assert list(s["market"]) == [*before[2:], -1, -1]
    to_act(states, p)
    slots = {a - A_ACQUIRE for a in legal(states) if A_ACQUIRE <= a < A_REST}
    assert slots == {0, 1, 2, 3}


# ---- rest ---------------------------------------------------------------------------------


def test_csr_r1_rest_returns_every_played_card():
    """CSR-R1."""
    states, p = opening(2, 13)
    s = states[0]
    played = [U2, PLUS_YY, YY_TO_G]
    for t in played:
        s["cards"][p, t] = PLAYED
    s["cards"][p, U3] = IN_HAND
    s["cards"][1 - p, YR_TO_B] = PLAYED
    act(states, A_REST)
    assert owned(states, p) == {t: IN_HAND for t in [*played, U3]}
    assert s["cards"][1 - p, YR_TO_B] == PLAYED  # only the resting player's cards return


def test_csr_r1_rest_needs_a_played_card():
    # Project choice: resting with nothing to take back is not offered.
    states = new_game(2, seed=13)
    assert A_REST not in legal(states)
    states[0]["cards"][states[0]["current_player"], PLUS_YY] = PLAYED
    assert A_REST in legal(states)


# ---- claim --------------------------------------------------------------------------------


@pytest.mark.parametrize("card", range(N_POINT))
def test_csr_c1_claim_needs_the_exact_cubes(card):
    """CSR-C1."""
    states, p = opening(2, 14)
    s = states[0]
    s["point_row"][0] = card
    cost = POINT_COST[card]
    # One cube short of a colour, even with a more valuable cube instead, is not enough.
    for c in np.flatnonzero(cost):
        short = cost.copy()
        short[c] -= 1
        short[(c + 1) % 4] += 1
        s["caravan"][p] = short
        assert A_CLAIM not in legal(states), POINT_NAMES[card]
    s["caravan"][p] = cost + np.array(cubes("Y"))
    act(states, A_CLAIM)
    assert caravan(states, p) == cubes("Y")  # exactly the cost went back to the supply
    assert s["point_owner"][card] == p
    assert s["point_count"][p] == 1


def test_csr_c2_point_row_slides_and_refills():
    """CSR-C2."""
    states, p = opening(2, 15)
    s = states[0]
    row = list(s["point_row"])
    top = int(s["point_deck_top"])
    claim_slot(states, p, 1)
    assert list(s["point_row"]) == [row[0], *row[2:], int(s["point_deck"][top])]
    assert s["point_deck_top"] == top + 1
    # With the point deck used up the last slot stays empty and cannot be claimed.
    s["point_deck_top"] = N_POINT
    row = list(s["point_row"])
    claim_slot(states, p, 0)
    assert list(s["point_row"]) == [*row[1:], -1]
    to_act(states, p)
    s["caravan"][p] = 10
    assert A_CLAIM + 4 not in legal(states)


def test_csr_c3_gold_on_first_slot_silver_on_second():
    """CSR-C3."""
    states = new_game(2, seed=16)
    s = states[0]
    claim_slot(states, 0, 0)
    assert (s["gold"][0], s["silver"][0], s["gold_left"]) == (1, 0, 3)
    claim_slot(states, 0, 1)
    assert (s["gold"][0], s["silver"][0], s["silver_left"]) == (1, 1, 3)
    claim_slot(states, 0, 2)
    assert (s["gold"][0], s["silver"][0]) == (1, 1)
    assert (s["gold_left"], s["silver_left"]) == (3, 3)


def test_csr_c3_silver_moves_to_first_slot_when_gold_runs_out():
    states = new_game(2, seed=16)
    s = states[0]
    s["gold_left"] = 1
    claim_slot(states, 0, 0)  # the last gold coin
    assert (s["gold"][0], s["gold_left"]) == (1, 0)
    claim_slot(states, 1, 1)  # the second slot now pays nothing
    assert (s["gold"][1], s["silver"][1], s["silver_left"]) == (0, 0, 4)
    claim_slot(states, 1, 0)  # silver now lies above the first slot
    assert (s["gold"][1], s["silver"][1], s["silver_left"]) == (0, 1, 3)
    s["silver_left"] = 0
    claim_slot(states, 1, 0)  # nothing left at all
    assert (s["gold"][1], s["silver"][1]) == (0, 1)


# ---- caravan and supply -------------------------------------------------------------------


def test_csr_k1_over_ten_at_end_of_turn_player_returns_chosen_colours():
    """CSR-K1."""
    states, p = opening(2, 17, "YYYYYYYYGB")
    s = states[0]
    s["cards"][p, PLUS_YYY] = IN_HAND
    act(states, A_PLAY + PLUS_YYY)  # 13 cubes
    assert s["phase"] == PHASE_DISCARD and s["current_player"] == p
    assert legal(states) == {A_RETURN + Y, A_RETURN + G, A_RETURN + B}
    act(states, A_RETURN + B)
    act(states, A_RETURN + G)
    assert s["phase"] == PHASE_DISCARD  # 11 still too many
    act(states, A_RETURN + Y)
    assert caravan(states, p) == cubes("Y" * 10)
    assert s["current_player"] == 1 - p and s["phase"] == PHASE_MAIN


def test_csr_k1_exactly_ten_keeps_everything():
    states, p = opening(2, 17, "YYYYYYRG")
    s = states[0]
    act(states, A_PLAY + PLUS_YY)
    assert caravan(states, p) == cubes("YYYYYYYYRG")
    assert s["current_player"] == 1 - p and s["phase"] == PHASE_MAIN


def test_csr_k1_only_the_player_whose_turn_ends_returns_cubes():
    states, p = opening(2, 17, "")
    s = states[0]
    set_caravan(states, 1 - p, "Y" * 12)
    act(states, A_PLAY + PLUS_YY)
    assert s["current_player"] == 1 - p and s["phase"] == PHASE_MAIN
    assert caravan(states, 1 - p) == cubes("Y" * 12)


def test_csr_k2_supply_is_unlimited():
    """CSR-K2."""
    states, p = opening(3, 18)
    s = states[0]
    for other in range(3):
        if other != p:
            s["caravan"][other] = 1000  # far more of every colour than any real box holds
    set_caravan(states, p, "YYYYYY")
    s["cards"][p, YY_TO_G] = IN_HAND
    act(states, A_PLAY + YY_TO_G)
    act(states, A_TRADE + 2)
    assert caravan(states, p) == cubes("GGG")
    to_act(states, p)
    act(states, A_PLAY + PLUS_YY)
    assert caravan(states, p) == cubes("YYGGG")


# ---- end and scoring ----------------------------------------------------------------------


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_csr_e1_trigger_is_sixth_card_for_2_3_and_fifth_for_4_5(n):
    states = new_game(n, seed=19)
    s = states[0]
    p = int(s["current_player"])
    s["point_count"][p] = END_TARGET[n] - 2
    claim_slot(states, p, 0)
    assert s["end_triggered"] == 0
    claim_slot(states, p, 0)
    assert s["point_count"][p] == END_TARGET[n]
    assert s["end_triggered"] == 1


@pytest.mark.parametrize("n", PLAYER_COUNTS)
def test_csr_e1_round_is_finished_before_the_game_ends(n):
    for position in range(n):
        states = new_game(n, seed=20)
        s = states[0]
        first = 1  # seat order differs from turn order
        s["first_player"] = first
        s["caravan"][:] = 0
        trigger = (first + position) % n
        s["point_count"][trigger] = END_TARGET[n] - 1
        claim_slot(states, trigger, 0)
        assert s["end_triggered"] == 1
        acted = []
        while s["phase"] != PHASE_OVER:
            assert s["terminated"] == 0
            acted.append(int(s["current_player"]))
            act(states, A_PLAY + PLUS_YY)
        # Every seat after the trigger in turn order gets its turn, then the game ends.
        assert acted == [(first + k) % n for k in range(position + 1, n)]
        assert s["terminated"] == 1 and s["truncated"] == 0


def test_csr_e1_random_games_end_with_equal_turns(playouts):
    for n, games in playouts.items():
        for states, log in games:
            s = states[0]
            assert s["terminated"] == 1, n
            turns = np.bincount([p for p, phase, _ in log if phase == PHASE_MAIN], minlength=n)
            assert (turns == turns[0]).all(), (n, turns)
            assert s["point_count"][:n].max() >= END_TARGET[n]


def test_csr_e2_score_formula():
    """CSR-E2."""
    states = new_game(2, seed=21)
    s = states[0]
    # Printed points: "YYRR" is worth 6, "BBBBB" 20.
    s["point_owner"][POINT_NAMES.index("YYRR")] = 0
    s["point_owner"][POINT_NAMES.index("BBBBB")] = 0
    s["gold"][0], s["silver"][0] = 2, 1
    set_caravan(states, 0, "YYYYYRGGB")
    s["point_owner"][POINT_NAMES.index("RRRR")] = 1  # 8 points
    s["silver"][1] = 3
    set_caravan(states, 1, "YYYYYYYYYY")
    out = np.zeros(MAX_PLAYERS, np.int16)
    final_scores_into(s, out)
    assert out[0] == 6 + 20 + 3 * 2 + 1 + 4
    assert out[1] == 8 + 3


def _finish_with_caravans(first, letters_by_seat):
    """3 players: the last player in turn order takes the final turn (a yellow-only gain)."""
    n = len(letters_by_seat)
    states = new_game(n, seed=22)
    s = states[0]
    s["first_player"] = first
    for p, letters in enumerate(letters_by_seat):
        set_caravan(states, p, letters)
    s["end_triggered"] = 1
    to_act(states, (first + n - 1) % n)
    act(states, A_PLAY + PLUS_YY)  # yellow is worth nothing, so scores stay as set
    assert s["terminated"] == 1
    return states


def test_csr_e3_tie_goes_to_the_later_player_in_turn_order():
    """CSR-E3."""
    # Turn order is seats 2, 0, 1 (first player 2).
    assert _finish_with_caravans(2, ["R", "R", "R"])[0]["winner"] == 1
    # Seats 0 and 2 tie: seat 0 plays after seat 2, so seat 0 wins (not the higher seat).
    assert _finish_with_caravans(2, ["R", "", "R"])[0]["winner"] == 0
    # Seats 0 and 1 tie with first player 1: turn order 1, 2, 0.
    assert _finish_with_caravans(1, ["G", "G", "R"])[0]["winner"] == 0
    # Without a tie the best score wins wherever it sits.
    assert _finish_with_caravans(2, ["R", "R", "RR"])[0]["winner"] == 2


def test_rewards_only_at_the_end_winner_plus_one():
    states = new_game(3, seed=22)
    out = np.ones(MAX_PLAYERS, np.float32)
    rewards_into(states[0], out)
    assert not out.any()  # nothing during the game
    states = _finish_with_caravans(2, ["R", "", "R"])
    rewards_into(states[0], out)
    assert out[0] == 1.0
    assert out[1] == pytest.approx(-0.5) and out[2] == pytest.approx(-0.5)
    assert out[:3].sum() == pytest.approx(0.0)


def test_csr_e4_step_cap_truncates_with_zero_rewards():
    """CSR-E4."""
    states = new_game(2, seed=23)
    s = states[0]
    s["step_count"] = STEP_CAP - 2
    act(states, A_PLAY + PLUS_YY)
    assert s["truncated"] == 0 and s["phase"] == PHASE_MAIN
    act(states, A_PLAY + PLUS_YY)
    assert s["step_count"] == STEP_CAP
    assert s["truncated"] == 1 and s["terminated"] == 0
    assert s["phase"] == PHASE_OVER
    assert legal(states) == set()
    out = np.ones(MAX_PLAYERS, np.float32)
    rewards_into(s, out)
    assert not out.any()


def test_csr_e4_sub_decisions_count_as_steps():
    states, p = opening(2, 23, "YY")
    s = states[0]
    act(states, A_PLAY + U2)
    act(states, A_UPGRADE + Y)
    assert s["step_count"] == 2
    s["step_count"] = STEP_CAP - 1
    act(states, A_STOP)  # a sub-decision can be the step that reaches the cap
    assert s["truncated"] == 1 and s["terminated"] == 0 and s["phase"] == PHASE_OVER
