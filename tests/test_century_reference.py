"""The Numba Century kernel against the slow pure-Python reference (envs/century/reference.py).

Both are driven with the same actions; after every sub-decision the kernel's legal mask must
equal the reference's legal list and the two full state records must be equal. Rare rules that
random play seldom reaches are set up directly in the reference and copied into the kernel with
``ReferenceGame.to_record``.

Every run plays 1,000 uniform-random games per player count, split into chunks of 250 so
pytest-xdist can spread them over the cores.
"""

import random
from collections import Counter

import numpy as np
import pytest

from meeple_gym.century import rules
from meeple_gym.century.data import MERCHANT_NAMES, POINT_COST
from meeple_gym.century.reference import ReferenceGame
from meeple_gym.century.rules import (
    A_ACQUIRE,
    A_CLAIM,
    A_PLAY,
    A_REST,
    A_STOP,
    A_TRADE,
    CARAVAN_LIMIT,
    MARKET_SIZE,
    N_DECK,
    N_POINT,
    NUM_ACTIONS,
    PHASE_DISCARD,
    PHASE_MAIN,
    PHASE_PAY,
    PHASE_TRADE,
    PHASE_UPGRADE,
    STARTING_SPICE_TYPE,
    STATE_DTYPE,
    STEP_CAP,
)
from meeple_gym.century.spec import SPEC
from meeple_gym.core.batch import play_random_games
from meeple_gym.core.rng import STREAM_POLICY, PyRng, game_key, py_derive_key

PLAYER_COUNTS = (2, 3, 4, 5)
SEED = 20240611
GAMES_PER_COUNT = 1000
CHUNK = 250


def test_state_dtype_is_packed():
    # _assert_same_state compares raw bytes: that equals "every field equal" only without padding.
    field_bytes = sum(STATE_DTYPE.fields[name][0].itemsize for name in STATE_DTYPE.names)
    assert STATE_DTYPE.itemsize == field_bytes


# ---- helpers ---------------------------------------------------------------------------------


def _kernel_game(num_players, seed, index):
    states = np.zeros(1, STATE_DTYPE)
    # The kernel deals from derive_key(seed, index, STREAM_GAME), the reference's key too.
    rules.init_game(states, 0, num_players, game_key(seed, index))
    return states


def _loaded_kernel(ref):
    """A kernel state equal to ``ref``'s, for scenarios set up by hand in the reference."""
    states = np.zeros(1, STATE_DTYPE)
    ref.to_record(states, 0)
    return states


def _assert_same_state(ref, states, where):
    record = np.zeros(1, STATE_DTYPE)
    ref.to_record(record, 0)
    if record.tobytes() == states.tobytes():  # fast path: the dtype is packed
        return
    diffs = [
        f"{name}: reference {record[name][0].tolist()} kernel {states[name][0].tolist()}"
        for name in STATE_DTYPE.names
        if not np.array_equal(record[name], states[name])
    ]
    pytest.fail(f"{where}: state fields differ\n" + "\n".join(diffs))


def _assert_same_legal(ref, states, mask, where):
    rules.legal_mask_into(states, 0, mask)
    expected = [0] * NUM_ACTIONS
    legal = ref.legal_actions()
    for action in legal:
        expected[action] = 1
    assert mask.tolist() == expected, (
        f"{where}: reference legal {legal}, kernel legal {np.flatnonzero(mask).tolist()}"
    )
    return legal


def _step_both(ref, states, action):
    ref.step(action)
    rules.apply_action(states, 0, action)


def _tags(ref, action):
    """Which rarely-reached rules this decision exercises, for the coverage checks."""
    tags = []
    if ref.phase == PHASE_DISCARD:
        tags.append("CSR-K1 discard")
    elif ref.phase == PHASE_PAY:
        tags.append("CSR-A1 pay")
    elif ref.phase == PHASE_TRADE and action > A_TRADE:
        tags.append("CSR-P5 repeated trade")
    elif ref.phase == PHASE_UPGRADE and action == A_STOP:
        tags.append("CSR-P4 stop upgrading")
    elif ref.phase == PHASE_MAIN:
        if action == A_REST:
            tags.append("CSR-R1 rest")
        elif A_ACQUIRE <= action < A_REST and ref.merchants_drawn == N_DECK:
            tags.append("CSR-A3 acquire with the deck out")
        elif action >= A_CLAIM and ref.gold_left == 0:
            tags.append(f"CSR-C3 claim slot {action - A_CLAIM} with gold out")
    return tags


def _check_end_rules(ref):
    """Rule facts about a finished game that hold whatever the implementation."""
    n = ref.num_players
    if not ref.terminated:
        return
    # CSR-E1: someone reached the target, and everyone had the same number of turns.
    assert max(len(p.claimed) for p in ref.players) >= (6 if n <= 3 else 5)
    assert ref.turn_count % n == 0
    # CSR-E3: the winner has the top score and nobody later in turn order equals it.
    scores = ref.final_scores
    assert scores[ref.winner] == max(scores)
    winner_position = (ref.winner - ref.first_player) % n
    for position in range(winner_position + 1, n):
        assert scores[(ref.first_player + position) % n] < scores[ref.winner]


def _play_both(num_players, index, choose, seen):
    """Play one game on both sides with ``choose(ref, legal) -> action``; compare every step."""
    ref = ReferenceGame(num_players, SEED, index)
    states = _kernel_game(num_players, SEED, index)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    _assert_same_state(ref, states, f"{num_players}p game {index} deal")  # CSR-S1..S7
    while True:
        where = f"{num_players}p game {index} step {ref.step_count}"
        legal = _assert_same_legal(ref, states, mask, where)
        if ref.is_over:
            assert legal == []
            break
        if ref.phase == PHASE_MAIN:
            # CSR-K1: no caravan holds more than 10 cubes between turns.
            assert all(sum(p.cubes) <= CARAVAN_LIMIT for p in ref.players)
        action = choose(ref, legal)
        seen.update(_tags(ref, action))
        _step_both(ref, states, action)
        _assert_same_state(ref, states, where)
    record = states[0]
    assert bool(record["terminated"]) == ref.terminated
    assert bool(record["truncated"]) == ref.truncated
    assert record["winner"] == (-1 if ref.winner is None else ref.winner)
    assert record["score"][:num_players].tolist() == ref.scores()  # CSR-E2
    _check_end_rules(ref)
    return ref


def _uniform_chooser(num_players, index):
    rnd = random.Random(100_000 * num_players + index)
    return lambda ref, legal: rnd.choice(legal)


def _run_uniform_games(num_players, start, count):
    seen = Counter()
    for index in range(start, start + count):
        ref = _play_both(num_players, index, _uniform_chooser(num_players, index), seen)
        seen["terminated"] += ref.terminated
    assert seen["terminated"] == count  # uniform play never needs the CSR-E4 cap
    for tag in (
        "CSR-K1 discard",
        "CSR-A1 pay",
        "CSR-P5 repeated trade",
        "CSR-P4 stop upgrading",
        "CSR-R1 rest",
        "CSR-A3 acquire with the deck out",
    ):
        assert seen[tag] > 0, f"random play never reached {tag}"


# ---- random games ----------------------------------------------------------------------------


@pytest.mark.parametrize("start", range(0, GAMES_PER_COUNT, CHUNK))
@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_uniform_random_games_match_kernel(num_players, start):
    _run_uniform_games(num_players, start, CHUNK)


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_coin_hunting_games_match_kernel(num_players):
    # CSR-C3: uniform play rarely empties the gold pile. This policy claims slot 1 whenever it
    # can, and any slot once gold is gone, so claims after the silver shift are common.
    def choose(ref, legal):
        if ref.phase == PHASE_MAIN:
            claims = [a for a in legal if a >= A_CLAIM]
            if claims and (claims[0] == A_CLAIM or ref.gold_left == 0):
                return claims[0]
            return rnd.choice([a for a in legal if a < A_CLAIM])
        return rnd.choice(legal)

    seen = Counter()
    for index in range(40):
        rnd = random.Random(7_000 + 100 * num_players + index)
        _play_both(num_players, 50_000 + index, choose, seen)
    assert seen["CSR-C3 claim slot 0 with gold out"] > 0
    assert seen["CSR-C3 claim slot 1 with gold out"] > 0


def test_step_cap_truncates_like_the_kernel():
    # CSR-E4: a player who never claims never ends the game; the cap must end it as truncation.
    # A non-claim action always exists: "+2 yellow" is either in hand or can be rested back.
    rnd = random.Random(99)

    def never_claim(ref, legal):
        if ref.phase == PHASE_MAIN:
            legal = [a for a in legal if a < A_CLAIM]
        return rnd.choice(legal)

    ref = _play_both(2, 0, never_claim, Counter())
    assert ref.truncated and not ref.terminated
    assert ref.step_count == STEP_CAP
    assert ref.winner is None


# ---- the Numba rollout kernel ----------------------------------------------------------------


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_random_rollout_matches_reference(num_players):
    seed, first_game, num_games = 4321, 3, 12
    out = play_random_games(SPEC, first_game, num_games, num_players, seed, 0, chunk=5)
    lengths, scores, winners, truncated = (
        out[k] for k in ("length", "scores", "winner", "truncated")
    )
    for k in range(num_games):
        g = first_game + k
        ref = ReferenceGame(num_players, seed, g)
        # The kernel's policy: the r-th legal action in ascending order, r = randint(count).
        policy = PyRng(py_derive_key(seed, g, STREAM_POLICY))
        while not ref.is_over:
            legal = ref.legal_actions()
            ref.step(legal[policy.randint(len(legal))])
        assert lengths[k] == ref.step_count
        assert scores[k, :num_players].tolist() == ref.scores()
        assert winners[k] == (-1 if ref.winner is None else ref.winner)
        assert bool(truncated[k]) == ref.truncated


# ---- rare rules, set up by hand --------------------------------------------------------------


def _affordable(ref, slot):
    """Give the current player exactly the cubes of point card ``slot`` (CSR-C1)."""
    ref.player.cubes = POINT_COST[ref.point_row[slot]].tolist()


@pytest.mark.parametrize(
    ("gold_left", "silver_left", "slot", "gold_gained", "silver_gained"),
    [
        (6, 6, 0, 1, 0),  # CSR-C3: gold above the first card
        (6, 6, 1, 0, 1),  # silver above the second
        (6, 6, 2, 0, 0),  # nothing above the others
        (0, 6, 0, 0, 1),  # gold gone: silver moves to the first position ...
        (0, 6, 1, 0, 0),  # ... and the second position pays nothing
        (6, 0, 1, 0, 0),  # silver gone: the second position pays nothing
        (0, 0, 0, 0, 0),  # both gone
    ],
)
def test_claim_coins(gold_left, silver_left, slot, gold_gained, silver_gained):
    ref = ReferenceGame(3, SEED, 1)
    ref.gold_left, ref.silver_left = gold_left, silver_left
    _affordable(ref, slot)
    states = _loaded_kernel(ref)
    seat = ref.current_player
    _step_both(ref, states, A_CLAIM + slot)
    _assert_same_state(ref, states, "claim")
    assert (ref.players[seat].gold, ref.players[seat].silver) == (gold_gained, silver_gained)
    assert (ref.gold_left, ref.silver_left) == (
        gold_left - gold_gained,
        silver_left - silver_gained,
    )
    assert ref.players[seat].cubes == [0, 0, 0, 0]  # CSR-C1: the exact cost is paid


@pytest.mark.parametrize("num_players", PLAYER_COUNTS)
def test_tie_goes_to_later_player_and_round_is_finished(num_players):
    ref = ReferenceGame(num_players, SEED, 2)
    for player in ref.players:
        player.cubes = [3, 1, 0, 0]  # one point each, nothing else scores
    ref.end_triggered = True
    states = _loaded_kernel(ref)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    # CSR-E1: the round runs to its end; every player plays "+2 yellow" (scores nothing).
    for position in range(num_players):
        assert not ref.is_over
        assert ref.current_player == (ref.first_player + position) % num_players
        _assert_same_legal(ref, states, mask, f"turn {position}")
        _step_both(ref, states, A_PLAY + STARTING_SPICE_TYPE)
        _assert_same_state(ref, states, f"turn {position}")
    assert ref.terminated
    assert ref.final_scores == [1] * num_players
    # CSR-E3: all tied, so the last player in turn order wins.
    assert ref.winner == (ref.first_player + num_players - 1) % num_players


def test_market_shrinks_once_the_deck_is_out():
    ref = ReferenceGame(2, SEED, 3)
    ref.merchants_drawn = N_DECK  # CSR-A3: nothing left to refill from
    states = _loaded_kernel(ref)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    _step_both(ref, states, A_ACQUIRE)
    _assert_same_state(ref, states, "acquire")
    assert states["market"][0][MARKET_SIZE - 1] == -1
    _step_both(ref, states, A_PLAY + STARTING_SPICE_TYPE)  # the other player's turn
    legal = _assert_same_legal(ref, states, mask, "after")
    assert A_ACQUIRE + MARKET_SIZE - 1 not in legal and A_ACQUIRE in legal


def test_point_row_shrinks_once_the_point_deck_is_out():
    ref = ReferenceGame(4, SEED, 4)
    ref.points_drawn = N_POINT  # CSR-C2: nothing left to refill from
    _affordable(ref, 2)
    states = _loaded_kernel(ref)
    _step_both(ref, states, A_CLAIM + 2)
    _assert_same_state(ref, states, "claim")
    assert states["point_row"][0][-1] == -1


def test_trade_repeats_book_example():
    # CSR-P5: 6 yellow and "2 yellow -> 1 green": once, twice or three times.
    trade = MERCHANT_NAMES.index("YY>G")
    ref = ReferenceGame(2, SEED, 5)
    ref.player.cubes = [6, 0, 0, 0]
    ref.player.hand.add(trade)
    states = _loaded_kernel(ref)
    mask = np.zeros(NUM_ACTIONS, np.int8)
    _step_both(ref, states, A_PLAY + trade)
    assert _assert_same_legal(ref, states, mask, "trade") == [A_TRADE, A_TRADE + 1, A_TRADE + 2]
    seat = ref.current_player
    _step_both(ref, states, A_TRADE + 2)
    _assert_same_state(ref, states, "traded")
    assert ref.players[seat].cubes == [0, 0, 3, 0]


def test_reference_rejects_illegal_actions_without_change():
    ref = ReferenceGame(3, SEED, 6)
    before = _loaded_kernel(ref)
    legal = set(ref.legal_actions())
    for action in (-1, NUM_ACTIONS, A_REST, A_STOP, *range(NUM_ACTIONS)):
        if action in legal:
            continue
        with pytest.raises(ValueError):
            ref.step(action)
    _assert_same_state(ref, before, "after illegal actions")
