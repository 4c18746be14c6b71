"""Century observation encoder: layout, seat rotation, no hidden information, batch, bounds."""

import numpy as np
import pytest
from game_cases import (
    KernelGame,
    assert_batch_encode_equals_single,
    assert_within,
    observation_bounds,
)

from meeple_gym.century.data import MERCHANT_NAMES, POINT_COST, POINT_VALUE, STARTING_UPGRADE_TYPE
from meeple_gym.century.rules import (
    A_ACQUIRE,
    A_PLAY,
    MARKET_SIZE,
    MAX_PLAYERS,
    N_DECK,
    N_POINT,
    NUM_ACTIONS,
    PHASE_OVER,
    PHASE_PAY,
    PHASE_TRADE,
    PHASE_UPGRADE,
    POINT_ROW_SIZE,
    apply_action,
    legal_mask_into,
)
from meeple_gym.core.rng import game_key
from meeple_gym.encoders import century as enc

PLAYER_COUNTS = (2, 3, 4, 5)


GAME = KernelGame("century", over=lambda s: s["phase"] == PHASE_OVER)


def new_game(num_players, seed):
    return GAME.new(num_players, game_key(seed))


def random_positions(num_players, seed, every=7):
    """Copies of one uniform-random game's state every ``every`` sub-decisions, end included."""
    return GAME.random_positions(new_game(num_players, seed), seed, every)


observe = GAME.observe


def test_layout_size_matches_documented_table():
    # Sizes as listed in the module docstring, summed independently of the offset constants.
    player_block = 1 + 4 + 45 + 45 + 1 + 1 + 1 + 1 + 5 + 1
    board = 6 * (45 + 1 + 4) + 5 * (4 + 1 + 1) + 1 + 1 + 4 + 1 + 1 + 1 + 4 + 6 + 45 + 1 + 6 + 1
    assert enc.PLAYER_BLOCK == player_block == 105
    assert enc.OBS_SIZE == MAX_PLAYERS * player_block + board == 927


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_shape_dtype_and_setup_values(num_players):
    states = new_game(num_players, seed=11)
    s = states[0]
    obs = observe(states, 0)
    assert obs.shape == (enc.OBS_SIZE,) and obs.dtype == np.float32
    # Every entry overwritten, and all are small non-negative numbers.
    assert np.all(obs >= 0)
    # CSR-S4 / CSR-S1: 6 market cards and 5 point cards dealt from 43 and 36.
    assert obs[enc.MERCHANT_DECK_SIZE] == N_DECK - 6
    assert obs[enc.POINT_DECK_SIZE] == N_POINT - 5
    # CSR-S2: 2 x players of each coin; gold above slot 1, silver above slot 2.
    assert obs[enc.GOLD_LEFT] == obs[enc.SILVER_LEFT] == 2 * num_players
    assert list(obs[enc.COIN_PAYS : enc.COIN_PAYS + 4]) == [1, 0, 0, 1]
    assert obs[enc.NUM_PLAYERS_ONEHOT + num_players - 2] == 1
    assert obs[enc.NUM_PLAYERS_ONEHOT : enc.NUM_PLAYERS_ONEHOT + 4].sum() == 1
    assert obs[enc.PHASE_ONEHOT] == 1  # main phase
    for k in range(MARKET_SIZE):
        b = enc.MARKET_OFFSET + k * enc.MARKET_BLOCK
        assert np.flatnonzero(obs[b : b + 45]).tolist() == [s["market"][k]]
        assert obs[b + enc.M_PRESENT] == 1
    for j in range(POINT_ROW_SIZE):
        b = enc.POINT_ROW_OFFSET + j * enc.POINT_BLOCK
        card = s["point_row"][j]
        assert list(obs[b : b + 4]) == list(POINT_COST[card])
        assert obs[b + enc.R_POINTS] == POINT_VALUE[card]
    # CSR-S3: both starting cards in hand, nothing played.
    assert obs[enc.P_IN_HAND + 0] == obs[enc.P_IN_HAND + 1] == 1
    assert obs[enc.P_IN_HAND : enc.P_IN_HAND + 45].sum() == 2
    assert obs[enc.P_PLAYED : enc.P_PLAYED + 45].sum() == 0


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_own_block_first_then_turn_order(num_players):
    states = new_game(num_players, seed=5)
    s = states[0]
    # Distinct caravans and coins so every seat's block is recognisable.
    for p in range(num_players):
        s["caravan"][p] = [p + 1, 2 * p, 7, p]
        s["gold"][p] = p
    for player in range(num_players):
        obs = observe(states, player)
        for i in range(MAX_PLAYERS):
            b = i * enc.PLAYER_BLOCK
            if i >= num_players:
                assert not obs[b : b + enc.PLAYER_BLOCK].any()  # padding, present flag 0
                continue
            seat = (player + i) % num_players
            assert obs[b + enc.P_PRESENT] == 1
            assert list(obs[b + enc.P_CARAVAN : b + enc.P_CARAVAN + 4]) == list(s["caravan"][seat])
            assert obs[b + enc.P_GOLD] == seat
            position = (seat - s["first_player"]) % num_players  # CSR-S6
            onehot = obs[b + enc.P_POSITION : b + enc.P_POSITION + MAX_PLAYERS]
            assert np.flatnonzero(onehot).tolist() == [position]
            assert obs[b + enc.P_TO_ACT] == (seat == s["current_player"])


def _hide_shuffle(states, rng):
    """Same position, different face-down deck order and RNG word."""
    other = states.copy()
    s = other[0]
    top = s["merchant_deck_top"]
    s["merchant_deck"][top:] = rng.permutation(s["merchant_deck"][top:])
    top = s["point_deck_top"]
    s["point_deck"][top:] = rng.permutation(s["point_deck"][top:])
    s["rng"][0] = np.uint64(rng.integers(1 << 62))
    return other


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_hidden_deck_order_does_not_leak(num_players):
    rng = np.random.default_rng(num_players)
    for states in random_positions(num_players, seed=100 + num_players, every=13):
        other = _hide_shuffle(states, rng)
        for player in range(num_players):
            np.testing.assert_array_equal(observe(states, player), observe(other, player))


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_visible_changes_show_for_every_player(num_players):
    states = new_game(num_players, seed=3)
    edits = []
    a = states.copy()
    a[0]["caravan"][num_players - 1, 2] += 1  # an opponent's (or own) caravan
    edits.append(a)
    b = states.copy()
    b[0]["market"][[0, 1]] = b[0]["market"][[1, 0]]  # market order
    edits.append(b)
    c = states.copy()
    c[0]["market_cubes"][3, 1] = 2  # cubes lying on a market card
    edits.append(c)
    d = states.copy()
    d[0]["point_row"][[0, 4]] = d[0]["point_row"][[4, 0]]  # point row order
    edits.append(d)
    e = states.copy()
    e[0]["merchant_deck_top"] += 1  # the deck got smaller
    edits.append(e)
    for player in range(num_players):
        base = observe(states, player)
        for edited in edits:
            assert not np.array_equal(base, observe(edited, player))


def test_sub_decision_details():
    states = new_game(2, seed=9)
    s = states[0]
    mask = np.zeros(NUM_ACTIONS, np.int8)
    # Pay for market slot 3: the target and the next paying slot are shown (CSR-A1).
    s["caravan"][s["current_player"]] = [5, 0, 0, 0]
    apply_action(states, 0, A_ACQUIRE + 2)
    assert s["phase"] == PHASE_PAY
    obs = observe(states, 0)
    assert obs[enc.PHASE_ONEHOT + PHASE_PAY] == 1
    assert np.flatnonzero(obs[enc.ACQUIRE_SLOT : enc.ACQUIRE_SLOT + 6]).tolist() == [2]
    assert obs[enc.PAY_INDEX] == 0
    legal_mask_into(states, 0, mask)
    apply_action(states, 0, np.flatnonzero(mask)[0])
    assert observe(states, 1)[enc.PAY_INDEX] == 1  # public: the other seat sees it too
    # Play the starting upgrade card: pending card and upgrades left (CSR-P3).
    states = new_game(2, seed=9)
    apply_action(states, 0, A_PLAY + STARTING_UPGRADE_TYPE)
    assert states[0]["phase"] == PHASE_UPGRADE
    obs = observe(states, 1)
    pending = obs[enc.PENDING_CARD : enc.PENDING_CARD + 45]
    assert np.flatnonzero(pending).tolist() == [STARTING_UPGRADE_TYPE]
    assert obs[enc.UPGRADES_LEFT] == 2
    assert not obs[enc.ACQUIRE_SLOT : enc.ACQUIRE_SLOT + 6].any()
    # A trade: pending card shown in TRADE (CSR-P5).
    states = new_game(2, seed=9)
    s = states[0]
    p = s["current_player"]
    trade = MERCHANT_NAMES.index("YY>G")
    s["cards"][p, trade] = 1  # in hand; the caravan holds 3+ yellow at setup (CSR-S7)
    apply_action(states, 0, A_PLAY + trade)
    assert s["phase"] == PHASE_TRADE
    obs = observe(states, p)
    assert np.flatnonzero(obs[enc.PENDING_CARD : enc.PENDING_CARD + 45]).tolist() == [trade]
    assert obs[enc.P_PLAYED + trade] == 1


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_batch_encode_equals_single(num_players):
    positions = list(random_positions(num_players, seed=40 + num_players, every=11))
    states = np.concatenate(positions)
    players = (np.arange(len(states)) % num_players).astype(np.int64)
    assert_batch_encode_equals_single(enc, states, players)


def test_bounds_contain_observations_over_random_games():
    low, high = observation_bounds(enc)
    seen = 0
    for num_players in PLAYER_COUNTS:
        for seed in range(6):
            for states in random_positions(num_players, seed=1000 * num_players + seed, every=5):
                for player in range(num_players):
                    assert_within(observe(states, player), low, high)
                    seen += 1
    assert seen > 1000
