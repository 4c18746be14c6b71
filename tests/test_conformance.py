"""The shipped conformance suite, ``meeple_gym.testing.check_game`` (docs/testing.md): every game
and player count passes its quick profile, and deliberately broken copies of a game fail the check
that is meant to catch them."""

import dataclasses
import itertools
import json
import pickle

import numba
import numpy as np
import pytest

import meeple_gym as mg
from meeple_gym.core import registry
from meeple_gym.testing import CHECKS, ConformanceError, ConformanceReport, check_game

CASES = [(game, n) for game in mg.available_games() for n in mg.get_spec(game).player_counts()]


@pytest.mark.parametrize("game, num_players", CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_every_game_and_player_count_passes(game, num_players):
    report = check_game(game, num_players, quick=True, seed=3)
    assert isinstance(report, ConformanceReport)
    ran = [check for check, n, _ in report.runs if n == num_players]
    skipped = [check for check, n, _ in report.skipped]
    assert sorted(ran + skipped) == sorted(CHECKS)
    assert "gymnasium" in ran  # every bundled game has a Gymnasium id


# ---- broken games: each must fail the check named for it -------------------------------------

BASE = "century"  # the quickest game to play; the breakages do not depend on its rules


def _hide_one_action(spec):
    """legal_mask_into forgets the last legal action (the batch kernels still offer it)."""

    def legal_mask_into(states, g, mask):
        spec.legal_mask_into(states, g, mask)
        legal = np.flatnonzero(mask)
        if legal.size > 1:
            mask[legal[-1]] = 0

    return {"legal_mask_into": legal_mask_into}


def _drop_a_field(spec):
    """from_dict loses the step count: the loaded record is not the saved one (and loading it
    again gives the same wrong record, so the gate's own round trip does not notice)."""

    def from_dict(snapshot):
        states = spec.from_dict(snapshot)
        states["step_count"] = 0
        return states

    return {"from_dict": from_dict}


def _seed_by_batch_size(spec):
    """Deals depend on the batch size: the batch kernels get the seed mixed with it."""

    def mixed(states, seed):
        return np.uint64(seed) ^ np.uint64(len(states))

    def reset_batch(states, num_players, seed, *rest):
        return spec.reset_batch(states, num_players, mixed(states, seed), *rest)

    def step_batch(states, *rest):
        rest = list(rest)
        rest[6] = mixed(states, rest[6])  # the seed, after actions .. num_players
        return spec.step_batch(states, *rest)

    return {"reset_batch": reset_batch, "step_batch": step_batch}


def _mutate_on_refusal(spec):
    """Refusing an illegal action changes the game: the action's name is built by a function
    that writes the record it was given."""

    def action_to_string(states, g, action):
        states[g]["step_count"] += 1
        return spec.action_to_string(states, g, action)

    return {"action_to_string": action_to_string}


def _deal_from_a_counter(spec):
    """The same seed deals different games: init_game mixes in a process-wide counter."""
    counter = itertools.count(1)

    def init_game(states, g, num_players, key, options):
        key = np.uint64(key) ^ np.uint64(next(counter))
        return spec.init_game(states, g, num_players, key, options)

    return {"init_game": init_game}


BROKEN = [
    ("hidden_action", _hide_one_action, "masks"),
    ("dropped_field", _drop_a_field, "snapshots"),
    ("seed_by_batch_size", _seed_by_batch_size, "batch_equivalence"),
    ("mutate_on_refusal", _mutate_on_refusal, "illegal_actions"),
    ("counter_deal", _deal_from_a_counter, "determinism"),
]


def _register(monkeypatch, name: str, spec) -> None:
    """Register ``spec`` under ``name`` for one test (the registry's own tables, restored
    afterwards; the spec is already loaded, so its module path is never imported)."""
    monkeypatch.setitem(registry._REGISTRY, name, "unused")
    monkeypatch.setitem(registry._LOADED, name, spec)


@pytest.mark.parametrize("name, breaker, check", BROKEN, ids=[b[0] for b in BROKEN])
def test_a_broken_game_fails_the_check_that_covers_it(monkeypatch, name, breaker, check):
    base = mg.get_spec(BASE)
    fake = f"broken_{name}"
    _register(monkeypatch, fake, dataclasses.replace(base, name=fake, **breaker(base)))
    with pytest.raises(ConformanceError) as info:
        check_game(fake, 2, quick=True, seed=5)
    error = info.value
    assert isinstance(error, AssertionError)
    assert (error.check, error.game, error.num_players, error.seed) == (check, fake, 2, 5)
    assert f"check {check!r}" in str(error) and fake in str(error) and "seed 5" in str(error)
    again = pickle.loads(pickle.dumps(error))  # e.g. from a worker process
    assert (again.check, again.detail, str(again)) == (check, error.detail, str(error))


def test_the_unbroken_copy_passes_so_the_breakage_is_what_fails(monkeypatch):
    base = mg.get_spec(BASE)
    _register(monkeypatch, "copy", dataclasses.replace(base, name="copy"))
    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        report = check_game("copy", 2, quick=True, seed=5, checks=CHECKS[:6], threads=2)
        assert numba.get_num_threads() == 1  # the thread comparison put the count back
    finally:
        numba.set_num_threads(previous)
    assert [check for check, _, _ in report.runs] == list(CHECKS[:6])


def test_a_game_without_a_gymnasium_id_skips_that_check(monkeypatch):
    base = mg.get_spec(BASE)
    _register(monkeypatch, "no_gym", dataclasses.replace(base, name="no_gym"))
    report = check_game("no_gym", 2, quick=True, checks=["gymnasium", "pettingzoo_parallel"])
    assert [check for check, _, _ in report.runs] == ["pettingzoo_parallel"]
    assert [check for check, _, _ in report.skipped] == ["gymnasium"]
    assert "gymnasium" in str(report) and "skipped" in str(report)


def test_bad_arguments_are_refused_before_anything_runs():
    with pytest.raises(ValueError, match="unknown checks"):
        check_game(BASE, 2, checks=["masks", "speed"])
    with pytest.raises(mg.PlayerCountError, match="7"):
        check_game(BASE, 7)
    with pytest.raises(mg.UnknownGameError):
        check_game("chess")


# ---- meeple check ---------------------------------------------------------------------------


def test_the_cli_runs_the_checks_and_reports_a_failure(monkeypatch, capsys):
    from meeple_gym.cli import main

    argv = ["check", BASE, "--players", "3", "--quick", "--check", "masks", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(run["check"], run["num_players"]) for run in out["runs"]] == [("masks", 3)]
    base = mg.get_spec(BASE)
    broken = dataclasses.replace(base, name="broken", **_drop_a_field(base))
    _register(monkeypatch, "broken", broken)
    assert main(["check", "broken", "--players", "2", "--quick", "--check", "snapshots"]) == 1
    assert "check 'snapshots' failed for game 'broken'" in capsys.readouterr().err
    assert main(["check", BASE, "--players", "9"]) == 2
