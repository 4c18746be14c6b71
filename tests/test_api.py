"""The public API: registry, PettingZoo conformance, batch env, determinism and bad input."""

import functools
import json

import numba
import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import meeple_gym as mg
from meeple_gym.core.errors import (
    ActionError,
    GameOverError,
    IllegalActionError,
    OptionError,
    PlayerCountError,
    SnapshotError,
    UnknownGameError,
)

PLAYER_COUNTS = [2, 3, 4, 5]  # Century's
GAMES = ["century", "endeavor", "everdell", "radlands"]
# (game, players) for every registered game and player count
CASES = (
    [("century", n) for n in PLAYER_COUNTS]
    + [("radlands", 2)]
    + [("everdell", n) for n in (1, 2, 3, 4)]
    + [("endeavor", n) for n in (2, 3, 4)]
)
MIN_PLAYERS = {"century": 2, "radlands": 2, "everdell": 1, "endeavor": 2}
# one mid-size and one largest player count per game, for the slower checks
MID_CASES = [("century", 3), ("radlands", 2), ("everdell", 3), ("endeavor", 3)]
BIG_CASES = [("century", 4), ("radlands", 2), ("everdell", 4), ("endeavor", 4)]
BAD_PLAYER_COUNTS = {
    "century": [1, 6, 0, "3", 2.0, True],
    "radlands": [1, 3, 0, "2", 2.0, True],
    "everdell": [0, 5, "2", 2.0, True],
    "endeavor": [1, 5, "2", 2.0, True],
}


def _case_id(case):
    return f"{case[0]}-{case[1]}p"


def _smoke(cases, chosen):
    """``cases`` with the ``chosen`` ones marked for .ci/compat's smoke set."""
    return [
        pytest.param(case, marks=pytest.mark.smoke, id=_case_id(case))
        if case in chosen
        else pytest.param(case, id=_case_id(case))
        for case in cases
    ]


def _first_legal(obs):
    return int(np.flatnonzero(obs["action_mask"])[0])


def _play_random(env, seed, max_steps=100_000):
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    trace = []
    for agent in env.agent_iter(max_steps):
        obs, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            action = None
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        trace.append((agent, action, reward))
        env.step(action)
    return trace


def test_available_games_lists_every_game():
    assert set(GAMES) <= set(mg.available_games())
    assert mg.available_games() == sorted(mg.available_games())


# One player count per game in the smoke set.
@pytest.mark.parametrize("case", _smoke(CASES, [(g, 2) for g in GAMES]))
def test_pettingzoo_api_test(case):
    game, num_players = case
    api_test(mg.make(game, num_players=num_players), num_cycles=2000)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_pettingzoo_seed_test(case):
    game, num_players = case
    seed_test(functools.partial(mg.make, game, num_players=num_players), num_cycles=500)


@pytest.mark.parametrize("game", GAMES)
def test_spaces_are_cached_and_shared_shape(game):
    env = mg.make(game, num_players=MIN_PLAYERS[game])
    for agent in env.possible_agents:
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
    space = env.observation_space("player_0")
    assert space["action_mask"].dtype == np.int8
    assert space["observation"].dtype == np.float32


@pytest.mark.parametrize("case", BIG_CASES, ids=_case_id)
def test_rewards_are_zero_sum_and_only_at_the_end(case):
    game, num_players = case
    env = mg.make(game, num_players=num_players)
    trace = _play_random(env, seed=11)
    rewards = {}
    for agent, action, reward in trace:
        if action is not None:
            assert reward == 0.0, "reward before the end"
        else:
            rewards[agent] = reward
    assert sorted(rewards) == env.unwrapped.possible_agents
    assert abs(sum(rewards.values())) < 1e-6
    values = sorted(rewards.values())
    winners = [r for r in values if r > 0]
    if winners:  # +1 shared by the k winners, -1 shared by the others (k = 1 but in Endeavor)
        k = len(winners)
        assert all(abs(r - 1 / k) < 1e-6 for r in winners)
        assert all(abs(r + 1 / (num_players - k)) < 1e-6 for r in values[: num_players - k])
    else:  # a draw pays 0 to everyone
        assert values == [0.0] * num_players


@pytest.mark.parametrize("game", GAMES)
def test_same_seed_same_game_and_reset_without_seed_moves_on(game):
    n = MIN_PLAYERS[game]
    a, b = mg.make(game, num_players=n), mg.make(game, num_players=n)
    assert _play_random(a, seed=5) == _play_random(b, seed=5)
    a.reset(seed=5)
    first = a.unwrapped.to_dict()
    a.reset()
    assert a.unwrapped.to_dict() != first


@pytest.mark.parametrize("game", GAMES)
def test_action_to_string_and_render(game):
    env = mg.make(game, num_players=2, render_mode="ansi")
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    names = [env.unwrapped.action_to_string(a) for a in np.flatnonzero(obs["action_mask"])]
    assert len(set(names)) == len(names) and all(names)
    text = env.render()
    assert isinstance(text, str)
    assert "player 0" in text and "player 1" in text


@pytest.mark.parametrize("case", MID_CASES, ids=_case_id)
def test_snapshot_round_trip_through_env_and_clone(case):
    game, num_players = case
    env = mg.make(game, num_players=num_players)
    env.reset(seed=9)
    rng = np.random.default_rng(0)
    for _ in range(40):
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    snap = json.loads(json.dumps(env.unwrapped.to_dict()))
    twin = mg.make(game, num_players=num_players)
    twin.reset(seed=1)
    twin.unwrapped.from_dict(snap)
    assert twin.unwrapped.state_array.tobytes() == env.unwrapped.state_array.tobytes()
    if terminated or truncated:  # a finished game (random play can end one early) has no tail
        return
    assert twin.agent_selection == env.agent_selection
    clone = env.unwrapped.clone()
    tail_a = _continue(env.unwrapped, seed=3)
    tail_b = _continue(clone, seed=3)
    tail_c = _continue(twin.unwrapped, seed=3)
    assert tail_a == tail_b == tail_c


def _continue(raw, seed):
    rng = np.random.default_rng(seed)
    out = []
    for agent in raw.agent_iter(100_000):
        obs, reward, term, trunc, _ = raw.last()
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        out.append((agent, action, reward))
        raw.step(action)
    return out


# ---- bad input ----------------------------------------------------------------------------


def test_unknown_game():
    with pytest.raises(UnknownGameError, match="chess"):
        mg.make("chess")
    with pytest.raises(UnknownGameError, match="chess"):
        mg.make_batch("chess", 4)


@pytest.mark.parametrize("case", [(g, bad) for g in GAMES for bad in BAD_PLAYER_COUNTS[g]], ids=str)
def test_bad_player_count(case):
    game, bad = case
    with pytest.raises(PlayerCountError, match=game):
        mg.make(game, num_players=bad)
    with pytest.raises(PlayerCountError):
        mg.make_batch(game, 4, num_players=bad)


@pytest.mark.parametrize("game", GAMES)
def test_bad_option_and_render_mode(game):
    with pytest.raises(OptionError, match="speed"):
        mg.make(game, num_players=2, speed=3)
    with pytest.raises(OptionError, match="render_mode"):
        mg.make(game, num_players=2, render_mode="svg")
    with pytest.raises(OptionError, match="batch_size"):
        mg.make_batch(game, 0, 2)
    with pytest.raises(OptionError, match="seed"):
        mg.make_batch(game, 2, 2, seed=-1)


def test_bad_option_values_name_the_option():
    with pytest.raises(OptionError, match="raiders_slot"):
        mg.make("radlands", raiders_slot=1)
    with pytest.raises(OptionError, match="vera_vosh"):
        mg.make_batch("radlands", 2, 2, vera_vosh="sometimes")
    with pytest.raises(OptionError, match="cult_of_chrome"):
        mg.make("radlands", cult_of_chrome=True)
    with pytest.raises(OptionError, match="rugwort_year"):
        mg.make("everdell", num_players=1, rugwort_year=4)
    with pytest.raises(OptionError, match="rugwort_year"):
        mg.make("everdell", num_players=1, rugwort_year=True)
    with pytest.raises(OptionError, match="fool_bonuses"):
        mg.make_batch("everdell", 2, 2, fool_bonuses="yes")
    with pytest.raises(OptionError, match="raiders_slot"):
        mg.make("endeavor", num_players=2, raiders_slot=3)  # Endeavor has no options


def test_everdell_options_change_the_game():
    """The options reach the kernel: Rugwort's year is in the state, fool_bonuses too."""
    env = mg.make("everdell", num_players=1, rugwort_year=3, fool_bonuses=True)
    env.reset(seed=0)
    state = env.unwrapped.state_array[0]
    assert state["rug_year"] == 3 and state["opt_fool_bonuses"] == 1


@pytest.mark.parametrize("game", GAMES)
def test_bad_actions_leave_state_untouched(game):
    env = mg.make(game, num_players=2)
    env.reset(seed=2)
    before = env.unwrapped.state_array.tobytes()
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    cases = [
        (ActionError, 79),
        (ActionError, -1),
        (ActionError, 1.5),
        (ActionError, "3"),
        (ActionError, True),
        (IllegalActionError, illegal),
    ]
    for error, action in cases:
        with pytest.raises(error):
            env.step(action)
        assert env.unwrapped.state_array.tobytes() == before
    env.step(np.int64(_first_legal(env.observe(env.agent_selection))))  # numpy ints are fine


@pytest.mark.parametrize("game", GAMES)
def test_step_after_the_end(game):
    env = mg.make(game, num_players=2)
    _play_random(env, seed=4)
    assert env.agents == []
    with pytest.raises(GameOverError):
        env.step(0)


@pytest.mark.parametrize("game", GAMES)
def test_step_after_the_end_with_an_action_while_agents_remain(game):
    env = mg.make(game, num_players=2)
    env.reset(seed=4)
    rng = np.random.default_rng(1)
    while not env.terminations[env.agent_selection]:
        obs = env.observe(env.agent_selection)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    before = env.unwrapped.state_array.tobytes()
    with pytest.raises(GameOverError):
        env.step(0)
    assert env.unwrapped.state_array.tobytes() == before


@pytest.mark.parametrize("game", GAMES)
def test_malformed_snapshots(game):
    env = mg.make(game, num_players=2)
    env.reset(seed=0)
    good = env.unwrapped.to_dict()
    before = env.unwrapped.state_array.tobytes()
    for broken in ({}, "not a dict", {**good, "bogus": 1}, {**good, "game": "chess"}):
        with pytest.raises(SnapshotError):
            env.unwrapped.from_dict(broken)
        assert env.unwrapped.state_array.tobytes() == before


@pytest.mark.parametrize("game", GAMES)
def test_batch_bad_actions_leave_state_untouched(game):
    batch = mg.make_batch(game, 8, 2, seed=1)
    batch.reset()
    before = batch.states.tobytes()
    legal = batch.legal_mask.argmax(axis=1)
    illegal = legal.copy()
    illegal[3] = int(np.flatnonzero(batch.legal_mask[3] == 0)[0])
    for error, actions in [
        (ActionError, legal[:4]),
        (ActionError, legal.astype(np.float64)),
        (ActionError, np.full(8, batch.num_actions)),
        (IllegalActionError, illegal),
    ]:
        with pytest.raises(error):
            batch.step(actions)
        assert batch.states.tobytes() == before
    batch.step(legal)


def test_batch_step_before_reset():
    batch = mg.make_batch("century", 2, 2)
    with pytest.raises(ActionError, match="reset"):
        batch.step(np.zeros(2, np.int64))


# ---- batch semantics and determinism -------------------------------------------------------


def _first_games(game, batch_size, num_players, seed, threads, slots=7):
    """Final scores and lengths of the first game of slots 0..slots-1 under a fixed policy."""
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        batch = mg.make_batch(game, batch_size, num_players, seed=seed)
        batch.reset()
        watched = min(slots, batch_size)
        done = {}
        steps = np.zeros(batch_size, np.int64)
        idx = np.arange(batch_size)
        while len(done) < watched:
            mask = batch.legal_mask
            counts = mask.sum(axis=1)
            pick = (idx * 7 + steps * 13) % counts  # deterministic per slot and step
            order = np.cumsum(mask, axis=1)
            actions = (order <= pick[:, None]).sum(axis=1)
            _, rewards, term, trunc = batch.step(actions)
            steps += 1
            for i in np.flatnonzero(term | trunc):
                if i < watched and i not in done:
                    done[int(i)] = (
                        batch.final_scores[i].tolist(),
                        int(batch.final_lengths[i]),
                        rewards[i].tolist(),
                    )
                steps[i] = 0
        return [done[i] for i in range(watched)]
    finally:
        numba.set_num_threads(previous)


@pytest.mark.parametrize("case", _smoke(MID_CASES, [("century", 3)]))
def test_batch_games_do_not_depend_on_batch_size_or_threads(case):
    game, n = case
    reference = _first_games(game, 7, n, seed=21, threads=1)
    assert _first_games(game, 1, n, seed=21, threads=1) == reference[:1]
    assert _first_games(game, 7, n, seed=21, threads=2) == reference
    assert _first_games(game, 1024, n, seed=21, threads=2) == reference
    assert _first_games(game, 1024, n, seed=21, threads=1) == reference


def test_batch_auto_reset_and_rewards():
    batch = mg.make_batch("century", 64, 2, seed=3)
    obs = batch.reset()
    assert obs.shape == (64, mg.get_spec("century").obs_size)
    rng = np.random.default_rng(0)
    finished = 0
    for _ in range(3000):
        choice = rng.random(batch.legal_mask.shape) * batch.legal_mask
        _, rewards, term, trunc = batch.step(choice.argmax(axis=1))
        for i in np.flatnonzero(term):
            finished += 1
            assert sorted(rewards[i].tolist()) == [-1.0, 1.0]
            assert batch.episodes[i] >= 1
            assert batch.states[i]["step_count"] == 0  # already re-dealt
        assert np.all(batch.legal_mask.sum(axis=1) > 0)
    assert finished > 0


@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_random_rollout_depends_only_on_seed(case):
    game, num_players = case
    spec = mg.get_spec(game)
    from meeple_gym.core.batch import random_rollout

    many = random_rollout(spec, 200, num_players, 8, threads=2)
    few = random_rollout(spec, 13, num_players, 8, threads=1)
    for key in ("length", "scores", "winner", "truncated"):
        assert np.array_equal(many[key][:13], few[key])
    batch = mg.make_batch(game, 3, num_players, seed=8)
    via_batch = batch.random_rollout(13)
    assert np.array_equal(via_batch["scores"], few["scores"])
    other = random_rollout(spec, 13, num_players, 9)
    assert not np.array_equal(other["length"], few["length"])


@pytest.mark.parametrize("case", BIG_CASES, ids=_case_id)
def test_batch_state_copy_and_bytes_round_trip(case):
    batch = mg.make_batch(case[0], 16, case[1], seed=2)
    batch.reset()
    saved = batch.states.tobytes()
    clone = batch.states.copy()
    batch.step(batch.legal_mask.argmax(axis=1))
    restored = np.frombuffer(saved, dtype=batch.states.dtype)
    assert np.array_equal(restored, clone)
    assert restored.tobytes() != batch.states.tobytes()
