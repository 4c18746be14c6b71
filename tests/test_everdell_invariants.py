"""Invariants over many random Everdell games, checked after every sub-decision.

Uniform random play over the legal actions, under the rules (passing only from autumn,
EVD-E1, so every game runs through the four seasons) and under the ``pass_anytime`` option
(the literal reading: short games). The default run is small; ``pytest -m slow`` plays the
large count.
"""

import numba
import numpy as np
import pytest

from meeple_gym.core.batch import play_random_games
from meeple_gym.core.rng import game_key
from meeple_gym.everdell import data as D
from meeple_gym.everdell import rules as R
from meeple_gym.everdell.spec import SPEC


def _cards_accounted(s):
    """EVD-S4: where the 128 cards are — deck, discard, Meadow, hands, cities, Dungeons,
    Rugwort's city, revealed, under events, and a card being paid for (held by its task)."""
    n = int(s["deck_n"]) + int(s["discard_n"]) + int((s["meadow"] >= 0).sum())
    n += int(s["hand"].sum()) + int((s["city"] >= 0).sum()) + int((s["city_jail"] >= 0).sum())
    n += int(s["rug_city"].sum()) + int(s["revealed_n"]) + int(s["tucked"])
    for f in range(int(s["depth"])):
        if s["fr_kind"][f] != R.T_PLAY:
            continue
        stage = s["fr_stage"][f]
        solo_fool = s["num_players"] == 1 and s["fr_a"][f] == R.FOOL
        if stage < R.PS_TARGET or (stage == R.PS_TARGET and not solo_fool):
            n += 1
    return n


def _spaces(city):
    used = sum(int(D.CARD_CITY_SPACE[t]) for t in city if t >= 0)
    return used - min(int((city == R.HUSBAND).sum()), int((city == R.WIFE).sum()))


def _check(s):
    assert _cards_accounted(s) == R.DECK_SIZE
    assert (s["hand"] >= 0).all() and (s["hand"].sum(axis=1) == s["hand_n"]).all()
    assert (s["hand_n"] <= R.HAND_LIMIT).all()  # EVD-D2
    assert (s["resources"] >= 0).all()  # EVD-S1: the supply is unlimited, holdings never negative
    assert (s["workers"] <= R.MAX_WORKERS).all()  # EVD-S5
    for p in range(int(s["seats"])):
        city = s["city"][p]
        if not (s["num_players"] == 1 and p == R.RUGWORT):
            assert _spaces(city) <= R.CITY_LIMIT  # EVD-P4
            for t in np.flatnonzero(D.CARD_UNIQUE):  # EVD-P2
                assert (city == t).sum() <= 1
        deployed = s["wloc"][p, : s["workers"][p]]
        assert ((deployed == R.W_FREE) | (deployed >= 0)).all()
    for e in range(R.NE):  # EVD-W5: one achiever per event
        owners = s["event_owner"][e]
        assert owners < s["seats"]


def _check_turn(s, mask, pass_anytime):
    """EVD-E1: no pass before autumn (unless the option), and nobody is stuck before it: the
    Haven (a free worker) or Prepare for Season (every worker deployed) is open."""
    p = int(s["current_player"])
    if s["season"][p] == R.AUTUMN or pass_anytime:
        assert mask[R.A_PASS] == 1
        return
    assert mask[R.A_PASS] == 0
    assert mask[R.A_PLACE_HAVEN] == 1 or mask[R.A_PREPARE] == 1


def _play(num_players, seed, options, pass_anytime, rng):
    if pass_anytime:
        options |= R.OPTION_PASS_ANYTIME
    states = np.zeros(1, R.STATE_DTYPE)
    R.init_game(states, 0, num_players, game_key(seed), np.int64(options))
    s = states[0]
    mask = np.zeros(R.NUM_ACTIONS, np.int8)
    while s["terminated"] == 0 and s["truncated"] == 0:
        R.legal_mask_into(states, 0, mask)
        legal = np.flatnonzero(mask)
        assert legal.size > 0, f"no legal action (pend_kind {s['pend_kind']})"
        assert 0 <= s["current_player"] < num_players
        if s["pend_kind"] == R.PK_TURN:
            _check_turn(s, mask, pass_anytime)
        R.apply_action(states, 0, int(rng.choice(legal)))
        _check(s)
    assert s["terminated"] == 1, "a random game hit the step cap"
    assert s["passed"][:num_players].all()  # EVD-E1: the game ends when everyone has passed
    if not pass_anytime:
        assert (s["season"][:num_players] == R.AUTUMN).all()  # EVD-E1: passing needs autumn
    return int(s["step_count"])


@pytest.mark.parametrize("num_players", [1, 2, 3, 4])
@pytest.mark.parametrize("pass_anytime", [False, True])
def test_invariants_small(num_players, pass_anytime):
    rng = np.random.default_rng(num_players)
    years = (1, 2, 3) if num_players == 1 else (1,)
    for seed in range(40):
        _play(num_players, seed, years[seed % len(years)], pass_anytime, rng)


@pytest.mark.slow
@pytest.mark.parametrize("num_players", [1, 2, 3, 4])
def test_invariants_large(num_players):
    rng = np.random.default_rng(100 + num_players)
    for seed in range(1500):
        _play(num_players, 10_000 + seed, 1 + seed % 3, seed % 4 == 0, rng)


def test_final_scores_match_score_of():
    """The recorded scores are EVD-E2's sum for each seat at the end."""
    rng = np.random.default_rng(3)
    for num_players in (1, 2, 4):
        states = np.zeros(1, R.STATE_DTYPE)
        R.init_game(states, 0, num_players, game_key(77), np.int64(0))
        mask = np.zeros(R.NUM_ACTIONS, np.int8)
        s = states[0]
        while s["terminated"] == 0:
            R.legal_mask_into(states, 0, mask)
            R.apply_action(states, 0, int(rng.choice(np.flatnonzero(mask))))
        for p in range(int(s["seats"])):
            assert s["score"][p] == R.score_of(s, p)


def _rollout(num_games, num_players, chunk, threads):
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        out = play_random_games(SPEC, 0, num_games, num_players, 5, 0, chunk=chunk)
    finally:
        numba.set_num_threads(previous)
    return out["length"], out["scores"], out["winner"], out["truncated"]


def test_rollouts_end_and_do_not_depend_on_chunks_or_threads():
    """Same seed, same games, whatever the batch split or thread count; no game is cut off."""
    a = _rollout(600, 3, 1, 1)
    b = _rollout(600, 3, 37, numba.config.NUMBA_NUM_THREADS)
    for x, y in zip(a, b, strict=True):
        np.testing.assert_array_equal(x, y)
    assert not a[3].any()
    assert (a[0] > 0).all()
