"""Everdell's compact observation (``observation="compact"``): the full observation's
information in fewer floats, through every entry point.

The slow reference is ``encoders.everdell.compact_from_full``, which decodes the full vector's
one-hots into the compact codes; the kernel must match it everywhere, so the compact vector
carries what the full one does and nothing more (the leak tests check that directly too).
"""

import pickle
import warnings

import gymnasium
import numpy as np
import pytest
from game_cases import KernelGame, assert_batch_encode_equals_single, count_reshuffled_unseen
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test

import meeple_gym as mg
from meeple_gym.core.errors import OptionError
from meeple_gym.core.rng import game_key
from meeple_gym.encoders import everdell as enc

FULL = KernelGame("everdell")
COMPACT = KernelGame("everdell")
COMPACT.encoder = enc.COMPACT
COMPACT.obs_size = enc.COMPACT_OBS_SIZE


def positions(games_per_count=2, every=3):
    """Uniform-random games of every player count (and option mix), every ``every`` moves."""
    for n in (1, 2, 3, 4):
        for k in range(games_per_count):
            seed = 100 * n + k
            states = FULL.new(n, game_key(seed), 1 + seed % 3)
            yield from FULL.random_positions(states, seed, every)


def seats(states):
    return range(max(1, states[0]["num_players"]))


def test_compact_matches_the_reference_and_its_bounds():
    checked = 0
    for states in positions():
        for p in seats(states):
            compact = COMPACT.observe(states, p)  # starts as junk: every entry is written
            np.testing.assert_array_equal(compact, enc.compact_from_full(FULL.observe(states, p)))
            assert (compact >= enc.COMPACT_OBS_LOW).all() and (
                compact <= enc.COMPACT_OBS_HIGH
            ).all()
            checked += 1
    assert checked > 1000


def test_compact_is_smaller_and_decodes_one_hots():
    assert enc.COMPACT_OBS_SIZE * 4 < enc.OBS_SIZE
    states = FULL.new(2, game_key(5))
    full, compact = FULL.observe(states, 0), COMPACT.observe(states, 0)
    # The Meadow and the own hand read the same in both.
    for i in range(8):
        row = full[enc.MEADOW + i * enc.MEADOW_BLOCK : enc.MEADOW + i * enc.MEADOW_BLOCK + 48]
        assert compact[enc.C_MEADOW + 2 * i] == row.argmax() + 1 == states[0]["meadow"][i] + 1
    np.testing.assert_array_equal(compact[enc.C_HAND : enc.C_HAND + 48], states[0]["hand"][0])
    assert compact[enc.C_NUM_PLAYERS] == 2 and compact[enc.C_PEND_KIND] == states[0]["pend_kind"]


def test_other_hands_do_not_leak():
    rng = np.random.default_rng(1)
    checked = 0
    for states in positions(every=6):
        for owner in range(states[0]["num_players"]):
            held = np.flatnonzero(states[0]["hand"][owner])
            if held.size == 0:
                continue
            other = states.copy()
            hand = other[0]["hand"][owner]
            t = rng.choice(held)  # one card becomes another: same hand size
            hand[t] -= 1
            hand[(t + 1 + rng.integers(47)) % 48] += 1
            COMPACT.assert_only_owner_sees(states, other, owner, len(seats(states)))
            checked += 1
    assert checked > 50


def test_deck_and_discard_contents_do_not_leak():
    def edit(s):  # a deck card and the face-down discard pile change; sizes stay
        s["deck"][0] = (s["deck"][0] + 1) % 48
        n = s["discard_n"]
        s["discard"][:n] = (s["discard"][:n] + 5) % 48

    def unseen(a, b):
        COMPACT.assert_same_view(a, b, seats(a))

    rng = np.random.default_rng(2)
    assert count_reshuffled_unseen(positions(every=6), rng, unseen, edit) > 50


def test_batch_encode_equals_single():
    states = np.concatenate(list(positions(games_per_count=1, every=9)))
    rng = np.random.default_rng(4)
    players = np.array([rng.integers(max(1, s["num_players"])) for s in states], np.int64)
    assert_batch_encode_equals_single(enc.COMPACT, states, players)


def _play(batch, steps, seed=3):
    rng = np.random.default_rng(seed)
    obs = [batch.reset()]
    for _ in range(steps):
        acts = [rng.choice(np.flatnonzero(m)) for m in batch.legal_mask]
        obs.append(batch.step(np.array(acts))[0])
    return np.stack(obs)


def test_make_batch_compact_same_game_and_deterministic():
    full = mg.make_batch("everdell", 6, 2, seed=7)
    compact = mg.make_batch("everdell", 6, 2, seed=7, observation="compact")
    assert compact.spec.observation == "compact" and compact.spec.obs_size == enc.COMPACT_OBS_SIZE
    assert compact.observation.shape == (6, enc.COMPACT_OBS_SIZE)
    a, b = _play(full, 40), _play(compact, 40)
    np.testing.assert_array_equal(full.get_states(), compact.get_states())  # the same games
    assert b.shape[-1] == enc.COMPACT_OBS_SIZE
    for t in range(a.shape[0]):
        for g in range(6):
            np.testing.assert_array_equal(b[t, g], enc.compact_from_full(a[t, g]))
    again = _play(mg.make_batch("everdell", 6, 2, seed=7, observation="compact"), 40)
    np.testing.assert_array_equal(b, again)
    # Another batch size deals the same first rows (results do not depend on the batch size).
    small = mg.make_batch("everdell", 3, 2, seed=7, observation="compact").reset()
    np.testing.assert_array_equal(small, b[0, :3])


def test_spec_variant_is_shared_and_pickles():
    spec = mg.get_spec("everdell", "compact")
    assert spec is mg.get_spec("everdell").with_observation("compact")
    assert spec.with_observation("full") is mg.get_spec("everdell")
    assert pickle.loads(pickle.dumps(spec)) is spec
    assert spec.observation_names() == ("full", "compact")


def test_unknown_observation_is_refused():
    with pytest.raises(OptionError, match="observation"):
        mg.make_batch("everdell", 2, observation="tiny")
    with pytest.raises(OptionError, match="observation"):
        mg.make("century", observation="compact")  # a game without a compact encoder


def test_pettingzoo_api_and_spaces_with_compact():
    env = mg.make("everdell", 2, observation="compact")
    space = env.observation_space("player_0")["observation"]
    assert space.shape == (enc.COMPACT_OBS_SIZE,)
    np.testing.assert_array_equal(space.high, enc.COMPACT_OBS_HIGH)
    api_test(env, num_cycles=200)
    env.reset(seed=2)
    obs = env.observe(env.agent_selection)["observation"]
    assert obs.shape == (enc.COMPACT_OBS_SIZE,) and space.contains(obs)
    clone = pickle.loads(pickle.dumps(env.unwrapped))
    assert clone.spec.observation == "compact"


def test_gymnasium_check_env_with_compact():
    env = gymnasium.make("meeple_gym/Everdell-v0", observation="compact", render_mode="ansi")
    assert env.observation_space.shape == (enc.COMPACT_OBS_SIZE,)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    assert [str(w.message) for w in caught] == []


def test_vector_env_with_compact():
    envs = gymnasium.make_vec(
        "meeple_gym/Everdell-v0",
        num_envs=3,
        vectorization_mode="vector_entry_point",
        observation="compact",
    )
    obs, info = envs.reset(seed=0)
    assert obs.shape == (3, enc.COMPACT_OBS_SIZE)
    assert envs.single_observation_space.shape == (enc.COMPACT_OBS_SIZE,)
    mask = info["action_mask"]
    obs, *_ = envs.step(np.array([np.flatnonzero(m)[0] for m in mask]))
    assert envs.observation_space.contains(obs)
    clone = pickle.loads(pickle.dumps(envs.unwrapped))
    assert clone.single_observation_space.shape == (enc.COMPACT_OBS_SIZE,)
    envs.close()


def test_bench_measures_the_compact_observation():
    from meeple_gym import bench
    from meeple_gym.cli import build_parser

    r = bench.batched_step(
        "everdell", batch_sizes=(4,), threads=(1,), seconds=0.01, observation="compact"
    )
    assert r["runs"][0]["steps_per_s"] > 0
    args = build_parser().parse_args(["bench", "--game", "everdell", "--observation", "compact"])
    assert args.observation == "compact"


def test_bench_refuses_an_observation_the_game_lacks(capsys):
    from meeple_gym.cli import main

    assert main(["bench", "--game", "century", "--observation", "compact"]) == 2
    captured = capsys.readouterr()
    assert "observation" in captured.err and captured.out == ""


@pytest.mark.parametrize("vector", [False, True])
def test_heuristic_opponent_reads_the_full_observation(vector):
    # The heuristic agent is a policy over the full vector: with observation="compact" the
    # learner sees the compact one and the heuristic opponent still gets the full one.
    kwargs = {"observation": "compact", "opponent": "heuristic"}
    if vector:
        env = gymnasium.make_vec(
            "meeple_gym/Everdell-v0", num_envs=2, vectorization_mode="vector_entry_point", **kwargs
        )
    else:
        env = gymnasium.make("meeple_gym/Everdell-v0", **kwargs)
    obs, info = env.reset(seed=0)
    for _ in range(40):
        mask = info["action_mask"]
        # (a vector row that just ended shows an all-zero mask; its action is not used)
        first = [int(np.argmax(m)) for m in np.atleast_2d(mask)]
        act = np.array(first) if vector else first[0]
        obs, _, term, trunc, info = env.step(act)
        assert obs.shape[-1] == enc.COMPACT_OBS_SIZE
        if not vector and (term or trunc):
            obs, info = env.reset()
    env.close()
