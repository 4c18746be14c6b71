"""Learned coefficients of a heuristic's move values: the Everdell heuristic plays with any
coefficient vector (its defaults are the hand-set play), the cross-entropy method
(``meeple_gym.baselines.coef_train``) is seeded and improves a bad start, and an anchored
network's weights carry the learned coefficients to ``NetAgent``."""

from __future__ import annotations

import json

import numba
import numpy as np
import pytest

import meeple_gym as mg
from meeple_gym.baselines import everdell_heuristic as H
from meeple_gym.baselines.coef_train import (
    coefficient_heuristic,
    cross_entropy_method,
    fitness,
)
from meeple_gym.baselines.kernel_agent import game_heuristic
from meeple_gym.baselines.net_agent import NetAgent, load_net
from meeple_gym.core.errors import OptionError


def _positions(size=64, steps=40, seed=5):
    """Observations and masks of Everdell positions reached by the heuristic's play."""
    batch = mg.make_batch("everdell", size, 2, seed=seed)
    obs = batch.reset()
    heuristic = H.EverdellHeuristicAgent()
    seen_obs, seen_masks = [], []
    for _ in range(steps):
        seen_obs.append(obs.copy())
        seen_masks.append(batch.legal_mask.copy())
        obs, _, term, trunc = batch.step(heuristic.act_batch(obs, batch.legal_mask))
    return np.concatenate(seen_obs), np.concatenate(seen_masks)


def _with(**changes) -> np.ndarray:
    """The default coefficients with the named groups set to the given values."""
    coef = H.DEFAULT_COEFFICIENTS.copy()
    offset = 0
    for name, values, _ in H.COEFFICIENTS:
        if name in changes:
            coef[offset : offset + len(values)] = changes[name]
        offset += len(values)
    return coef


def test_the_default_coefficients_are_the_heuristic():
    obs, masks = _positions()
    plain = H.EverdellHeuristicAgent().act_batch(obs, masks)
    with_defaults = H.EverdellHeuristicAgent(coefficients=H.DEFAULT_COEFFICIENTS)
    assert np.array_equal(with_defaults.act_batch(obs, masks), plain)
    row = 100
    single = {"observation": obs[row], "action_mask": masks[row]}
    assert with_defaults.act(single) == plain[row]
    assert H.NUM_COEFFICIENTS == len(H.DEFAULT_COEFFICIENTS) == len(H.COEFFICIENT_SCALES)
    assert (H.COEFFICIENT_SCALES > 0).all()


def test_other_coefficients_change_the_play_and_stay_legal():
    obs, masks = _positions()
    plain = H.EverdellHeuristicAgent().act_batch(obs, masks)
    # Play a card only when it is worth 100 points more than its price: never, in practice.
    picky = H.EverdellHeuristicAgent(coefficients=_with(play_above=100.0))
    moves = picky.act_batch(obs, masks)
    assert (masks[np.arange(len(moves)), moves] != 0).all()
    plays = (moves >= H.R.A_PLAY_HAND) & (moves < H.R.A_PREPARE)
    played_before = (plain >= H.R.A_PLAY_HAND) & (plain < H.R.A_PREPARE)
    assert played_before.sum() > 20
    assert plays.sum() < played_before.sum() / 2
    # Learned coefficients are kept read-only; the kernel gets its own copy.
    assert not picky.coefficients.flags.writeable


@pytest.mark.parametrize(
    "bad, message",
    [
        (np.zeros(3), "must be"),
        (np.full(H.NUM_COEFFICIENTS, np.nan), "finite"),
        (["x"] * H.NUM_COEFFICIENTS, "numbers"),
        (np.zeros((2, H.NUM_COEFFICIENTS)), "shape"),
    ],
)
def test_bad_coefficients_are_refused(bad, message):
    with pytest.raises(ValueError, match=message):
        H.EverdellHeuristicAgent(coefficients=bad)


def test_only_a_heuristic_with_coefficients_takes_them():
    with pytest.raises(ValueError, match="no coefficients"):
        game_heuristic("century", np.zeros(3))
    with pytest.raises(OptionError, match="no coefficients"):
        coefficient_heuristic("radlands")
    assert coefficient_heuristic("everdell") is H.EverdellHeuristicAgent
    from meeple_gym.baselines.net_train import settings_for

    with pytest.raises(OptionError, match="no coefficients"):
        settings_for("century", anchor_weight=2.0, anchor_generations=1)
    with pytest.raises(OptionError, match="anchored"):
        settings_for("everdell", anchor_weight=0.0, anchor_generations=1)
    with pytest.raises(OptionError, match="anchor_elite"):
        settings_for("everdell", anchor_weight=2.0, anchor_population=4, anchor_elite=5)


def test_the_cross_entropy_method_is_seeded_for_any_thread_count_and_can_stop():
    kwargs = dict(population=4, elite=2, games=6)
    seen = []

    def record(g, coefficients, scores):
        seen.append((g, coefficients.copy(), scores.copy()))
        return g == 2  # stop after the second generation

    first = cross_entropy_method("everdell", 5, seed=7, on_generation=record, **kwargs)
    assert [g for g, _, _ in seen] == [1, 2]
    np.testing.assert_array_equal(first, seen[-1][1])
    assert all(s.shape == (4,) and ((0 <= s) & (s <= 1)).all() for _, _, s in seen)
    previous = numba.get_num_threads()
    try:  # the same coefficients on one thread as on all of them
        numba.set_num_threads(1)
        again = cross_entropy_method("everdell", 2, seed=7, **kwargs)
    finally:
        numba.set_num_threads(previous)
    np.testing.assert_array_equal(again, first)
    other = cross_entropy_method("everdell", 2, seed=8, **kwargs)
    assert not np.array_equal(other, first)
    assert not np.array_equal(first, H.DEFAULT_COEFFICIENTS)
    start = _with(needed=2.0)
    np.testing.assert_array_equal(cross_entropy_method("everdell", 0, start=start), start)
    with pytest.raises(OptionError, match="elite"):
        cross_entropy_method("everdell", 1, population=2, elite=3)


def test_the_cross_entropy_method_improves_a_bad_start():
    # A card is played only when it is worth 2 points more than its price: a weak player.
    bad = _with(play_above=2.0)
    games, seed = 100, 11  # measured on other games than the method's
    before = fitness("everdell", bad, games, seed)
    learned = cross_entropy_method(
        "everdell", 6, population=12, elite=3, games=60, seed=0, start=bad
    )
    after = fitness("everdell", learned, games, seed)
    assert before < 0.3
    assert after > before + 0.1


def _tiny_anchored_run(out, **changes):
    """A training run of seconds: an anchored Everdell network, a coefficient stage of a few
    games and no rounds (``changes`` override)."""
    from meeple_gym.baselines.net_train import train

    settings = dict(
        anchor_weight=2.0,
        anchor_generations=1,
        anchor_population=2,
        anchor_elite=1,
        anchor_games=4,
        rounds=0,
        eval_games=4,
        hidden=(8,),
    )
    return train("everdell", out, progress=False, threads=1, **{**settings, **changes})


def test_an_anchored_training_run_learns_and_ships_the_coefficients(tmp_path):
    pytest.importorskip("torch")
    run = _tiny_anchored_run(tmp_path / "coef.npz", anchor_generations=2, anchor_population=3)
    stages = [p["stage"] for p in run["curve"]]
    assert stages == ["heuristic", "coefficients 1", "coefficients 2"]
    assert all(0 <= p["fitness"] <= 1 for p in run["curve"][1:])
    agent = NetAgent("everdell", path=tmp_path / "coef.npz")
    learned = np.asarray(agent.meta["anchor_coefficients"])
    assert learned.shape == (H.NUM_COEFFICIENTS,)
    assert not np.array_equal(learned, H.DEFAULT_COEFFICIENTS)
    assert "cross-entropy" in agent.meta["method"] and "DAgger" not in agent.meta["method"]
    # The untrained correction plays exactly the anchor, which plays the learned coefficients.
    obs, masks = _positions(size=16, steps=30)
    tuned = H.EverdellHeuristicAgent(coefficients=learned)
    assert np.array_equal(agent.act_batch(obs, masks), tuned.act_batch(obs, masks))


def _rewrite_meta(path, out, **changes):
    arrays = dict(np.load(path))
    meta = {**json.loads(str(arrays["meta"])), **changes}
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez(out, **arrays)
    return out


def test_bad_anchor_coefficients_in_a_weights_file_are_refused(tmp_path):
    from tests.test_net_agent import _anchored

    path = _anchored(tmp_path, "everdell")
    short = _rewrite_meta(path, tmp_path / "short.npz", anchor_coefficients=[1.0, 2.0])
    with pytest.raises(OptionError, match="anchor_coefficients"):
        NetAgent("everdell", path=short)
    unanchored = _rewrite_meta(
        path, tmp_path / "plain.npz", anchor_weight=0.0, anchor_coefficients=[1.0]
    )
    with pytest.raises(OptionError, match="anchor_coefficients without"):
        load_net(unanchored)
    century = _anchored(tmp_path, "century", name="century.npz")
    wrong_game = _rewrite_meta(century, tmp_path / "c.npz", anchor_coefficients=[1.0])
    with pytest.raises(OptionError, match="no coefficients"):
        NetAgent("century", path=wrong_game)


def test_the_shipped_everdell_network_plays_its_learned_coefficients():
    agent = NetAgent("everdell")
    learned = np.asarray(agent.meta["anchor_coefficients"])
    assert agent.anchor_weight > 0 and learned.shape == (H.NUM_COEFFICIENTS,)
    assert not np.allclose(learned, H.DEFAULT_COEFFICIENTS)
    obs, masks = _positions(size=16, steps=30)
    tuned = H.EverdellHeuristicAgent(coefficients=learned).act_batch(obs, masks)
    # The correction network's lift never outweighs the anchor's (it is untrained: zero).
    assert np.array_equal(agent.act_batch(obs, masks), tuned)
    assert not agent.value(obs).any()  # an untrained value layer: no estimate, 0
