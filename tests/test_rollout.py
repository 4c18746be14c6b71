"""One-step rollout values (``meeple_gym.baselines.rollout``): the kernel against a slow
reference built from the public engine, pairing, determinism, hidden information, errors."""

from __future__ import annotations

import numba
import numpy as np
import pytest

import meeple_gym as mg
from meeple_gym import OptionError
from meeple_gym.baselines.evaluate import make_agent, play_match
from meeple_gym.baselines.rollout import STREAM_ROLLOUT, RolloutAgent, best_moves
from meeple_gym.core.rng import PyRng, py_derive_key
from tests.test_ismcts import random_positions

GAMES = ("century", "radlands", "everdell", "endeavor")
MASK64 = (1 << 64) - 1
STEP_MIX = 0x9E3779B97F4A7C15


def reference_move_values(game, record, seed, samples):
    """``RolloutAgent._values`` of one record the slow way: determinized copies restored into
    a public batch, the move played, then the heuristic agent on the full observation for every
    seat until the game ends; rewards and final scores as the batch reports them."""
    spec = mg.get_spec(game)
    players = int(record["num_players"]) if "num_players" in record.dtype.names else 2
    index = int(record["rng"][0]) ^ ((int(record["step_count"]) * STEP_MIX) & MASK64)
    rng = PyRng(py_derive_key(seed, index, STREAM_ROLLOUT))
    probe = mg.make_batch(game, 1, players, seed=0)
    probe.reset()
    probe.set_states(record[None].copy())
    legal = np.flatnonzero(probe.legal_mask[0])
    player = int(record["current_player"])
    worlds = [rng.next_u64() for _ in range(samples)]
    rows = []
    for world in worlds:
        for _ in legal:
            copy = record[None].copy()
            spec.determinize_into(copy, 0, player, np.uint64(world))
            rows.append(copy)
    batch = mg.make_batch(game, len(rows), players, seed=0)
    batch.reset()
    obs = batch.set_states(np.concatenate(rows))
    heuristic = make_agent("heuristic", game)
    actions = np.tile(legal, samples).astype(np.int64)
    done = np.zeros(len(rows), dtype=bool)
    reward = np.zeros(len(rows))
    margin = np.zeros(len(rows))
    while not done.all():
        obs, rewards, terminated, truncated = batch.step(actions)
        ended = (terminated | truncated) & ~done
        final = batch.final_scores
        others = np.delete(final, player, axis=1).max(axis=1)
        reward[ended] = rewards[ended, player]
        margin[ended] = (final[:, player] - others)[ended]
        done |= ended
        actions = heuristic.act_batch(obs, batch.legal_mask)
    out = np.zeros((2, spec.num_actions))
    for values, k in ((reward, 0), (margin, 1)):
        out[k, legal] = values.reshape(samples, legal.size).mean(axis=0)
    return out


@pytest.mark.parametrize("game", ["century", "everdell"])
def test_move_values_match_the_slow_reference(game):
    states, _ = random_positions(game, 2, 3, seed=12, max_moves=40)
    agent = RolloutAgent(game, samples=2, seed=9)
    rewards, margins = agent.move_values(states)
    for i in range(states.shape[0]):
        expected = reference_move_values(game, states[i], 9, 2)
        assert np.allclose(rewards[i], expected[0]), i
        assert np.allclose(margins[i], expected[1], atol=1e-6), i


@pytest.mark.parametrize("game", GAMES)
def test_values_depend_only_on_seed_and_record(game):
    states, masks = random_positions(game, 2, 6, seed=3, max_moves=50)
    agent = RolloutAgent(game, samples=2, seed=4)
    before = states.copy()
    together = agent.move_values(states)
    assert states.tobytes() == before.tobytes()
    alone = [agent.move_values(states[i : i + 1]) for i in range(6)]
    for k in range(2):
        assert np.array_equal(together[k], np.concatenate([a[k] for a in alone]))
        assert not together[k][masks == 0].any()  # illegal moves have no value
    previous = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one_thread = agent.move_values(states)
    finally:
        numba.set_num_threads(previous)
    assert all(np.array_equal(a, b) for a, b in zip(one_thread, together, strict=True))
    actions = agent.act_states(states)
    assert (masks[np.arange(6), actions] == 1).all()
    assert np.abs(together[0]).max() <= 1
    other_seed = RolloutAgent(game, samples=2, seed=5).move_values(states)
    assert not np.array_equal(other_seed[1], together[1])


def test_best_moves_breaks_ties_by_the_other_value_then_the_lowest_action():
    values = np.zeros((3, 2, 4))
    masks = np.array([[1, 1, 1, 0], [1, 0, 1, 1], [0, 1, 1, 1]], dtype=np.int8)
    values[0, 1] = [2.0, 5.0, 5.0, 9.0]  # action 3 is illegal
    values[0, 0] = [0.0, -0.5, 0.5, 1.0]
    values[1, 1] = [1.0, 0.0, 1.0, 1.0]
    values[1, 0] = [0.0, 0.0, 0.0, 0.0]
    values[2, 1] = [0.0, -1.0, -2.0, -1.0]
    values[2, 0] = [1.0, 0.2, 0.9, 0.1]
    assert best_moves(values, masks).tolist() == [2, 0, 1]
    assert best_moves(values, masks, "reward").tolist() == [2, 0, 2]


def test_the_rollout_agent_beats_the_heuristic():
    agent = RolloutAgent("century", samples=4, seed=1)
    result = play_match("century", 2, [agent, "heuristic"], 24, seed=3, progress=False)
    assert result["wins"] > 12, result


@pytest.mark.parametrize("game", ["radlands", "everdell"])
def test_hidden_cards_do_not_change_what_the_rollouts_play(game):
    """Two records the player to act cannot tell apart (one a determinization of the other)
    give the same distribution of best moves: the values read the record only through
    ``determinize_into`` and the root's legal mask (the search's test, the same way)."""
    from scipy.stats import chi2_contingency

    spec = mg.get_spec(game)
    states, _ = random_positions(game, 2, 3, seed=21, max_moves=40)
    agent = RolloutAgent(game, samples=1, seed=5)
    for g in range(1, 3):
        original = states[g : g + 1].copy()
        twin = original.copy()
        player = np.array([original["current_player"][0]], dtype=np.int64)
        spec.determinize_batch(twin, player, np.uint64(99 + g))
        assert twin.tobytes() != original.tobytes()
        counts = []
        for record in (original, twin):
            copies = np.repeat(record, 200)
            copies["rng"][:, 0] = np.arange(1, 201, dtype=np.uint64) * np.uint64(STEP_MIX)
            counts.append(np.bincount(agent.act_states(copies), minlength=spec.num_actions))
        table = np.array(counts)
        table = table[:, table.sum(axis=0) > 0]
        if table.shape[1] > 1:
            assert chi2_contingency(table).pvalue > 1e-3


def test_bad_arguments_and_records_are_refused():
    with pytest.raises(OptionError, match="samples"):
        RolloutAgent("century", samples=0)
    with pytest.raises(OptionError, match="value must be one of"):
        RolloutAgent("century", value="score")
    with pytest.raises(OptionError, match="seed"):
        RolloutAgent("century", seed=-1)
    agent = RolloutAgent("century", samples=1)
    with pytest.raises(OptionError, match="state array"):
        agent.act_states(np.zeros(3))
    states, _ = random_positions("century", 2, 2, seed=1)
    states["terminated"][1] = 1
    with pytest.raises(ValueError, match="game 1 is over"):
        agent.move_values(states)


def test_the_distillation_study_runs_and_starts_from_the_heuristic(tmp_path):
    pytest.importorskip("torch")
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "benchmarks" / "distill_targets.py"
    spec = importlib.util.spec_from_file_location("distill_targets", path)
    study = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(study)
    out = tmp_path / "study.json"
    argv = ["--game", "century", "--train-games", "3", "6", "--valid-games", "3"]
    argv += ["--samples", "2", "--expert-games", "2", "--eval-games", "2", "--epochs", "2"]
    result = study.main([*argv, "--workdir", str(tmp_path), "--out", str(out)])
    assert out.exists() and result["expert_vs_heuristic"]["games"] == 2
    assert [row["train_games"] for row in result["sizes"]] == [3, 6]
    for row in result["sizes"]:
        assert len(row["passes"]) == 3 and row["vs_heuristic"]["games"] == 2
        untrained = row["passes"][0]  # the correction before training is the heuristic
        assert untrained["overrides"] == 0
        assert untrained["regret"] == pytest.approx(untrained["heuristic_regret"])
