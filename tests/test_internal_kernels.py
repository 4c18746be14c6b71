"""Compile-time cuts of issue 11 that must not change results: internal kernels (no Python
entry wrappers), state copies through byte views, the kernels' optimisation level."""

import numba
import numpy as np
import pytest

import meeple_gym as mg
from meeple_gym.core import jit
from meeple_gym.core.records import clear_record, copy_record
from meeple_gym.core.sampling import policy_words, random_legal_actions

pytestmark = pytest.mark.skipif(numba.config.DISABLE_JIT, reason="needs the compiler")

STATE = np.dtype([("a", np.int8, (3, 5)), ("b", np.uint64, (2,)), ("c", np.int16)])


@jit.kernel
def _doubled(values, k):
    return values[k] * 2


@jit.kernel
def sum_doubled(values):
    total = 0
    for k in range(values.shape[0]):
        total += _doubled(values, k)
    return total


def test_a_private_kernel_is_internal_and_still_answers_python():
    assert isinstance(_doubled, jit._InternalKernelDispatcher)
    values = np.arange(4, dtype=np.int64)
    assert sum_doubled(values) == 12  # called from a kernel: the wrapper-less copy
    assert _doubled(values, 3) == 6  # called from Python: the copy with entry wrappers
    internal = next(iter(_doubled.overloads.values()))
    assert internal.fndesc.llvm_cpython_wrapper_name not in internal.library.get_llvm_str()


def _filled_states(n):
    states = np.zeros(n, STATE)
    for g in range(n):
        states[g]["a"] = np.arange(15, dtype=np.int8).reshape(3, 5) + g
        states[g]["b"] = [g + 1, 2**63 + g]
        states[g]["c"] = -g - 1
    return states


def test_copy_record_copies_one_state_exactly():
    source = _filled_states(3)
    target = np.zeros(4, STATE)
    copy_record(target, 2, source, 1)
    assert target[2].tobytes() == source[1].tobytes()
    assert not target[[0, 1, 3]].tobytes().strip(b"\0")  # nothing else written


def test_clear_record_zeroes_one_state_only():
    states = _filled_states(3)
    before = states.copy()
    clear_record(states, 1)
    assert not states[1].tobytes().strip(b"\0")
    assert states[0].tobytes() == before[0].tobytes()
    assert states[2].tobytes() == before[2].tobytes()


@pytest.mark.parametrize("game", ["century", "radlands", "everdell", "endeavor"])
def test_a_reset_clears_what_the_last_game_left(game):
    # init_game starts from a zeroed record: a finished game's leftovers must not leak into
    # the next deal, so a re-deal over a played state equals a deal into a fresh array.
    spec = mg.get_spec(game)
    players = max(spec.min_players, 2) if spec.max_players >= 2 else spec.min_players
    played = mg.make_batch(game, 2, players, seed=5)
    played.reset()
    actions = np.zeros(2, np.int64)
    for step in range(300):
        random_legal_actions(played.legal_mask, policy_words(step, 2), actions)
        played.step(actions)
    states = played.get_states()
    assert states[1]["step_count"] > 0
    spec.init_game(states, 1, players, np.uint64(99), 0)
    fresh = np.zeros(2, states.dtype)
    spec.init_game(fresh, 1, players, np.uint64(99), 0)
    assert states[1].tobytes() == fresh[1].tobytes()


def test_the_cache_key_names_the_optimisation_level():
    assert jit.group_key("core").split("-")[2] == f"O{jit.KERNEL_OPT_LEVEL}"
