"""Every public entry point checks its numbers where they are given: an ``OptionError`` that
names the argument and the allowed range, not an OverflowError at the first move, a silent
default, or a bare ValueError from deep inside."""

from __future__ import annotations

import re

import numpy as np
import pytest

from meeple_gym import bench, distributed
from meeple_gym.baselines import evaluate
from meeple_gym.baselines.ismcts import ISMCTSAgent
from meeple_gym.baselines.ladder import run_ladder
from meeple_gym.baselines.random_agent import RandomAgent
from meeple_gym.core.errors import OptionError, PlayerCountError

GAME = "century"
MAX_SEED = 2**64 - 1
SEED_RANGE = re.escape(f"seed must be in [0, {MAX_SEED}]")


# ---- seeds: 0 .. 2**64 - 1 everywhere (the kernels take them as uint64) ---------------------


def test_ismcts_seed_out_of_range_is_refused_when_made():
    # 2**64 used to be accepted and to raise OverflowError at the first move.
    for seed in (-1, 2**64, 2**100):
        with pytest.raises(OptionError, match=f"ismcts: {SEED_RANGE}"):
            ISMCTSAgent(GAME, sims=2, seed=seed)
    assert ISMCTSAgent(GAME, sims=2, seed=MAX_SEED).seed == MAX_SEED


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"sims": 0}, r"ismcts: sims must be in \[1, 1000000\], got 0"),
        ({"sims": True}, "ismcts: sims must be an int, got bool"),
        ({"sims": 2.5}, "ismcts: sims must be an int, got float"),
        ({"depth": 2**63}, rf"ismcts: depth must be in \[0, {2**63 - 1}\]"),
        ({"c": "1"}, "ismcts: c must be a number, got str"),
        ({"c": True}, "ismcts: c must be a number, got bool"),
        ({"prior": [1]}, "ismcts: prior must be a number, got list"),
    ],
)
def test_ismcts_parameters_are_checked_with_their_range(kwargs, message):
    with pytest.raises(OptionError, match=message):
        ISMCTSAgent(GAME, **kwargs)


def test_random_agent_seed_range():
    for seed in (-1, 2**64):
        with pytest.raises(OptionError, match=SEED_RANGE):
            RandomAgent(seed)
    masks = np.ones((3, 4), dtype=np.int8)
    for seed in (None, 0, MAX_SEED):
        assert RandomAgent(seed).act_batch(None, masks).shape == (3,)


@pytest.mark.parametrize("name", ["random", "heuristic", "ismcts:sims=2", "ladder_agents:Seeded"])
def test_make_agent_refuses_a_seed_out_of_range(name):
    with pytest.raises(OptionError, match="seed must be in"):
        evaluate.make_agent(name, GAME, 2**64)


def test_agent_seeds_wrap_instead_of_overflowing():
    # Agent k of a match seeded s gets s + k; at the largest seed that must stay a valid seed.
    agents = evaluate.chunk_agents(["random", "ismcts:sims=2"], GAME, MAX_SEED)
    assert agents[1].seed == 0
    assert evaluate.agent_seed(MAX_SEED, 1) == 0 and evaluate.agent_seed(5, 1) == 6


def test_a_match_at_the_largest_seed_with_the_search_second_is_played():
    # It used to raise OverflowError at the search agent's first move (its seed was 2**64).
    result = evaluate.play_match(GAME, 2, ["random", "ismcts:sims=2"], 2, MAX_SEED, progress=False)
    assert result["wins"] + result["draws"] + result["losses"] == 2


@pytest.mark.parametrize("seed", [-1, 2**64])
def test_run_ladder_refuses_a_bad_seed_before_any_game(seed):
    with pytest.raises(OptionError, match=SEED_RANGE):
        run_ladder(GAME, 2, ["random", "heuristic"], 2, seed=seed, progress=False)
    with pytest.raises(OptionError, match=SEED_RANGE):
        distributed.run_ladder(GAME, 2, ["random", "heuristic"], 2, seed, backend="ray")


def test_run_ladder_checks_counts_before_the_first_pair(monkeypatch):
    def no_games(*args, **kwargs):
        raise AssertionError("a pair was played before the arguments were checked")

    monkeypatch.setattr("meeple_gym.baselines.ladder.play_match", no_games)
    with pytest.raises(OptionError, match=r"games_per_pair must be in \[1, "):
        run_ladder(GAME, 2, ["random", "heuristic"], 0, progress=False)
    with pytest.raises(PlayerCountError, match="supports 2 to 5 players, not 9"):
        run_ladder(GAME, 9, ["random", "heuristic"], 2, progress=False)


# ---- batch sizes and game counts --------------------------------------------------------


def test_rollout_max_batch_zero_is_refused_not_the_default():
    with pytest.raises(OptionError, match=r"max_batch must be in \[1, inf\], got 0"):
        distributed.rollout(GAME, 2, 4, agents=["random"], max_batch=0)
    # Checked where given, even by the in-kernel rollout that does not batch agents.
    with pytest.raises(OptionError, match="max_batch"):
        distributed.rollout(GAME, 2, 4, max_batch=0)
    with pytest.raises(OptionError, match="shard_games"):
        distributed.rollout(GAME, 2, 4, agents=["random"], shard_games=0)


def test_match_max_batch_zero_is_refused():
    with pytest.raises(OptionError, match="max_batch"):
        distributed.play_match(GAME, 2, ["random", "random"], 4, max_batch=0)
    with pytest.raises(OptionError, match="max_batch"):
        evaluate.match_chunks(10, 0, 0)


def test_game_counts_beyond_int64_are_refused():
    with pytest.raises(OptionError, match=rf"num_games must be in \[1, {2**63 - 1}\]"):
        distributed.rollout(GAME, 2, 2**63)
    with pytest.raises(OptionError, match="num_games"):
        evaluate.check_match(GAME, 2, ["random", "random"], 2**63, 0)


def test_match_helpers_check_their_arguments():
    with pytest.raises(OptionError, match="seed must be in"):
        evaluate.match_chunks(10, -1)
    with pytest.raises(OptionError, match=r"chunk must be in \[1, inf\], got 0"):
        evaluate.chunk_seed(0, 0)
    with pytest.raises(OptionError, match="num_agents must be 2 or num_players"):
        evaluate.seat_table(6, 3, 1)


# ---- benchmarks --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: bench.batched_step(GAME, seconds=0), "seconds must be a finite number > 0"),
        (lambda: bench.batched_step(GAME, threads=(0,)), "threads must be in"),
        (lambda: bench.kernel_step(GAME, seed=-1), "seed must be in"),
        (lambda: bench.kernel_step(GAME, batch_sizes=(0,)), "batch_size must be in"),
        (lambda: bench.vector_env(GAME, seconds=0), "seconds must be a finite number > 0"),
        (lambda: bench.vector_env(GAME, autoreset_modes=["Later"]), "autoreset_mode must be"),
        (lambda: bench.rollout(GAME, seconds=float("nan")), "seconds must be a finite"),
        (lambda: bench.aec(GAME, seconds=-1), "seconds must be a finite"),
        (lambda: bench.reference(GAME, seed=2**64), "seed must be in"),
    ],
)
def test_bench_arguments_are_checked_before_measuring(call, message):
    with pytest.raises((OptionError, PlayerCountError), match=message):
        call()


def test_bench_vector_env_runs_at_the_largest_seed():
    # Its learner policy is seeded seed + 1, which used to overflow uint64 here.
    result = bench.vector_env(GAME, batch_size=4, threads=(1,), seconds=0.06, seed=MAX_SEED)
    # One run per auto-reset mode and opponent (random, and self-play for the wrapper's cost).
    assert [(r["autoreset_mode"], r["opponent"], r["threads"]) for r in result["runs"]] == [
        ("NextStep", "random", 1),
        ("NextStep", "self", 1),
        ("SameStep", "random", 1),
        ("SameStep", "self", 1),
    ]


# ---- the trained-policy agent ----------------------------------------------------------


def test_policy_agent_seed_is_checked_before_the_checkpoint_is_read(tmp_path):
    pytest.importorskip("torch")
    from meeple_gym.baselines.torch_agent import PolicyAgent

    missing = tmp_path / "none.pt"
    with pytest.raises(OptionError, match="seed must be in"):
        PolicyAgent(GAME, seed=-1, path=missing)
    with pytest.raises(OptionError, match="greedy must be a bool"):
        PolicyAgent(GAME, greedy="no", path=missing)
