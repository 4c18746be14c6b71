"""Hostile and careless input at every public entry point: read-only buffers, the batch save/restore
gate, snapshot size limits, argument types, pickling and fork."""

import json
import multiprocessing
import pickle

import numpy as np
import pytest

import meeple_gym as mg
from meeple_gym import (
    ActionError,
    GameOverError,
    IllegalActionError,
    MeepleError,
    OptionError,
    PlayerCountError,
    SnapshotError,
)
from meeple_gym.core.errors import NotResetError
from meeple_gym.core.sampling import policy_words, random_legal_actions

GAMES = ["century", "radlands", "everdell", "endeavor"]
PUBLIC_ARRAYS = (
    "states",
    "legal_mask",
    "observation",
    "rewards",
    "terminated",
    "truncated",
    "final_scores",
    "final_lengths",
    "episodes",
    "current_player",
)


def _played_batch(game, size=6, players=2, seed=3, steps=12, **kwargs):
    batch = mg.make_batch(game, size, players, seed=seed, **kwargs)
    batch.reset()
    words = policy_words(seed, size)
    actions = np.zeros(size, np.int64)
    for _ in range(steps):
        random_legal_actions(batch.legal_mask, words, actions)
        batch.step(actions)
    return batch, words


# ---- public buffers ------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_public_arrays_are_read_only_even_when_the_flag_is_flipped(game):
    batch, _ = _played_batch(game)
    for name in PUBLIC_ARRAYS:
        view = getattr(batch, name)
        with pytest.raises(ValueError):
            view[...] = 1
        with pytest.raises(ValueError):
            view.flags.writeable = True


def test_step_returns_fresh_arrays_by_default_and_views_with_copy_false():
    batch, words = _played_batch("century")
    actions = np.zeros(batch.batch_size, np.int64)
    random_legal_actions(batch.legal_mask, words, actions)
    kept = batch.step(actions)
    random_legal_actions(batch.legal_mask, words, actions)
    after = batch.step(actions)
    assert not np.array_equal(kept[0], after[0])  # the kept buffer was not overwritten
    assert all(a.flags.writeable for a in kept)

    fast, words = _played_batch("century", copy=False)
    random_legal_actions(fast.legal_mask, words, actions)
    obs, rewards, term, trunc = fast.step(actions)
    assert not obs.flags.writeable and np.shares_memory(obs, fast.observation)
    with pytest.raises(OptionError, match="copy"):
        mg.make_batch("century", 2, 2, copy="yes")


@pytest.mark.parametrize("game", GAMES)
def test_get_and_set_states_restore_the_whole_batch(game):
    batch, words = _played_batch(game)
    saved, episodes = batch.get_states(), batch.episodes.copy()
    obs, mask = batch.observation.copy(), batch.legal_mask.copy()
    saved_words = words.copy()

    def play(k):
        actions = np.zeros(batch.batch_size, np.int64)
        trail = []
        for _ in range(k):
            random_legal_actions(batch.legal_mask, words, actions)
            trail.append(batch.step(actions)[0])
        return np.stack(trail), batch.states.tobytes()

    first = play(20)
    restored_obs = batch.set_states(saved, episodes=episodes)
    assert np.array_equal(restored_obs, obs) and np.array_equal(batch.legal_mask, mask)
    words[:] = saved_words
    second = play(20)
    assert np.array_equal(first[0], second[0]) and first[1] == second[1]


@pytest.mark.parametrize("game", GAMES)
def test_foreign_states_pass_the_snapshot_checks(game):
    # States of another batch were never handed out by this one: they take the slow gate.
    source, _ = _played_batch(game, seed=5)
    target = mg.make_batch(game, source.batch_size, 2, seed=0)
    target.reset()
    target.set_states(np.frombuffer(source.states.tobytes(), dtype=source.states.dtype))
    assert target.states.tobytes() == source.states.tobytes()
    assert np.array_equal(target.legal_mask, source.legal_mask)
    assert np.array_equal(target.observation, source.observation)


@pytest.mark.parametrize("game", GAMES)
def test_corrupt_states_are_refused_and_nothing_changes(game):
    batch, _ = _played_batch(game)
    before = batch.states.tobytes(), batch.legal_mask.tobytes()
    rng = np.random.default_rng(0)
    raw = rng.integers(0, 256, len(before[0]), dtype=np.uint8).tobytes()
    cases = [
        raw,  # random bytes
        b"\0" * (len(before[0]) - 1),  # wrong length
        np.zeros(batch.batch_size, dtype=np.int64),  # wrong dtype
        batch.get_states()[:2],  # wrong shape
    ]
    bad_player = batch.get_states()
    bad_player["current_player"][1] = 100
    cases.append(bad_player)
    for case in cases:
        with pytest.raises(SnapshotError):
            batch.set_states(case)
        assert (batch.states.tobytes(), batch.legal_mask.tobytes()) == before


def test_restoring_stale_bytes_recomputes_masks():
    # Writing saved bytes over a batch used to leave stale masks; set_states recomputes them.
    batch, words = _played_batch("century", size=8)
    saved = batch.get_states()
    actions = np.zeros(8, np.int64)
    random_legal_actions(batch.legal_mask, words, actions)
    batch.step(actions)
    batch.set_states(saved.tobytes())
    spec = mg.get_spec("century")
    expected = np.zeros_like(batch.legal_mask)
    spec.legal_masks_batch(saved.copy(), expected)
    assert np.array_equal(batch.legal_mask, expected)
    with pytest.raises(IllegalActionError):
        illegal = np.array([np.flatnonzero(row == 0)[0] for row in expected])
        batch.step(illegal)


# ---- snapshot size, depth and message length -----------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_deep_and_huge_snapshots_give_short_snapshot_errors(game):
    env = mg.make(game, num_players=2)
    env.reset(seed=0)
    good = env.unwrapped.to_dict()
    deep = current = {}
    for _ in range(10_000):
        current["x"] = {}
        current = current["x"]
    key = next(iter(good))
    cases = [
        deep,
        {**good, key: deep},
        {**good, key: list(range(1_000_000))},
        {**good, key: object()},
    ]
    for case in cases:
        with pytest.raises(SnapshotError) as info:
            env.unwrapped.from_dict(case)
        assert len(str(info.value)) < 400


@pytest.mark.parametrize("game", GAMES)
def test_accepted_snapshots_round_trip_through_json(game):
    env = mg.make(game, num_players=2)
    env.reset(seed=4)
    for _ in range(30):
        obs = env.last()[0]
        if not obs["action_mask"].any():
            break
        env.step(int(np.flatnonzero(obs["action_mask"])[-1]))
    snap = json.loads(json.dumps(env.unwrapped.to_dict()))
    twin = mg.make(game, num_players=2)
    twin.unwrapped.from_dict(snap)
    assert twin.unwrapped.to_dict() == snap


# ---- argument types: one rule, MeepleError subclasses naming the argument ------------------------


def test_numpy_ints_are_ints_and_floats_are_not():
    env = mg.make("century", num_players=np.int64(3))
    assert env.unwrapped.num_players == 3 and type(env.unwrapped.num_players) is int
    mg.make_batch("century", np.int32(2), np.int64(2), seed=np.uint64(5))
    with pytest.raises(PlayerCountError, match="num_players"):
        mg.make("century", num_players=2.0)
    with pytest.raises(OptionError, match="raiders_slot"):
        mg.make("radlands", raiders_slot=3.0)
    with pytest.raises(OptionError, match="cult_of_chrome must be a bool"):
        mg.make("radlands", cult_of_chrome=0)
    with pytest.raises(OptionError, match="not available"):
        mg.make("radlands", cult_of_chrome=True)
    with pytest.raises(OptionError, match="batch_size"):
        mg.make_batch("century", 2.0, 2)
    with pytest.raises(OptionError, match="seed"):
        mg.make_batch("century", 2, 2, seed=-1)


def test_rugwort_year_is_for_the_solo_game_only():
    mg.make("everdell", num_players=1, rugwort_year=np.int64(2))
    for n in (2, 3, 4):
        with pytest.raises(OptionError, match="rugwort_year"):
            mg.make("everdell", num_players=n, rugwort_year=1)
        with pytest.raises(OptionError, match="rugwort_year"):
            mg.make_batch("everdell", 2, n, rugwort_year=2)


def test_huge_unsigned_action_is_reported_as_itself():
    batch = mg.make_batch("century", 2, 2)
    batch.reset()
    with pytest.raises(ActionError, match=str(2**64 - 1)):
        batch.step(np.array([2**64 - 1, 0], dtype=np.uint64))
    env = mg.make("century", num_players=2)
    env.reset(seed=0)
    with pytest.raises(ActionError, match=str(2**64 - 1)):
        env.step(np.uint64(2**64 - 1))


def test_rollout_threads_are_checked():
    batch = mg.make_batch("century", 1, 2)
    import numba

    for bad in (0, numba.config.NUMBA_NUM_THREADS + 1, 1.5, True):
        with pytest.raises(OptionError, match="threads"):
            batch.random_rollout(2, threads=bad)
    with pytest.raises(OptionError, match="num_games"):
        batch.random_rollout(0)


def test_aec_calls_before_reset_and_after_everyone_left():
    env = mg.make("century", num_players=2, render_mode="ansi")
    for call in (env.last, lambda: env.observe("player_0"), lambda: env.step(0), env.render):
        with pytest.raises(NotResetError, match="reset"):
            call()
    assert issubclass(NotResetError, MeepleError)
    env.reset(seed=2)
    while env.agents:
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
    with pytest.raises(GameOverError):
        env.last()
    with pytest.raises(GameOverError):
        env.step(None)
    with pytest.raises(OptionError, match="unknown agent"):
        env.unwrapped.observe("player_9")


# ---- pickling ------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_pickled_env_continues_the_same_game(game):
    env = mg.make(game, num_players=2)
    env.reset(seed=9)
    for _ in range(10):
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    twin = pickle.loads(pickle.dumps(env))
    assert twin.agent_selection == env.agent_selection
    rng = np.random.default_rng(0)
    for _ in range(50_000):
        if not env.agents:
            break
        obs, _, term, trunc, _ = env.last()
        twin_obs, *_ = twin.last()
        assert np.array_equal(obs["observation"], twin_obs["observation"])
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        env.step(action)
        twin.step(action)
        assert twin.agent_selection == env.agent_selection or not env.agents
        assert twin.terminations == env.terminations
    assert not env.agents and not twin.agents  # both saw the game end


# ---- fork after a parallel kernel ----------------------------------------------------------------


def _child_rollout(queue):
    out = mg.make_batch("century", 1, 2, seed=11).random_rollout(600)
    queue.put(out["length"].tolist())


def test_fork_after_a_parallel_kernel():
    parent = mg.make_batch("century", 1, 2, seed=11).random_rollout(600)  # a prange kernel
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child_rollout, args=(queue,))
    child.start()
    lengths = queue.get(timeout=300)
    child.join(timeout=60)
    assert child.exitcode == 0
    assert lengths == parent["length"].tolist()


# ---- counts bounded by what the game reaches (Century) -------------------------------------------


def _century_snapshot():
    env = mg.make("century", num_players=2)
    env.reset(seed=0)
    for _ in range(40):
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[-1]))
    return env.unwrapped.to_dict()


def test_century_cube_counts_are_bounded_by_the_turns_played():
    from meeple_gym.century import snapshot as century

    snap = _century_snapshot()
    turns = snap["turn_count"]
    twin = mg.make("century", num_players=2)
    # CSR-A1: one cube per turn at most on a market card; int16's maximum is far beyond it.
    for cubes in (turns + 2, century.MAX_MARKET_CUBES + 1, 32767):
        bad = json.loads(json.dumps(snap))
        bad["market"][0]["cubes"]["yellow"] = cubes
        with pytest.raises(SnapshotError, match="market"):
            twin.unwrapped.from_dict(bad)
    ok = json.loads(json.dumps(snap))
    ok["market"][0]["cubes"]["yellow"] = turns + 1  # one a turn, the current turn included
    twin.unwrapped.from_dict(ok)
    # CSR-K1: a caravan holds 10 cubes plus, while returning cubes, what one action added.
    bad = json.loads(json.dumps(snap))
    bad["players"][0]["caravan"]["brown"] = 32767
    with pytest.raises(SnapshotError, match="caravan"):
        twin.unwrapped.from_dict(bad)
    # Cubes are only added to a caravan of at most 10 (the main phase), so this is the peak.
    assert max(century.MAX_CARAVAN_CUBES, century.MAX_MARKET_CUBES + 1) < np.iinfo(np.int16).max


# ---- solo Everdell results name Rugwort's seat ---------------------------------------------------


def test_solo_everdell_results_have_a_column_for_rugwort():
    out = mg.make_batch("everdell", 1, 1, seed=4).random_rollout(60)
    assert out["scores"].shape == (60, 2)
    decided = out["winner"] >= 0
    assert set(out["winner"][decided].tolist()) <= {0, 1}
    rows = np.flatnonzero(decided)
    won = out["scores"][rows, out["winner"][rows]]
    lost = out["scores"][rows, 1 - out["winner"][rows]]
    assert (won > lost).all()  # the winner's column holds the higher score
    assert (out["winner"] == 1).any()  # Rugwort wins some uniform-random games
    batch, words = _played_batch("everdell", size=4, players=1, steps=0)
    actions = np.zeros(4, np.int64)
    while not batch.final_lengths.any():
        random_legal_actions(batch.legal_mask, words, actions)
        batch.step(actions)
    assert batch.final_scores.shape == (4, 2)
