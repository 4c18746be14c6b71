"""Compile-time cuts (benchmarks/README.md, Compile time) that must not change results: internal
kernels (no Python entry wrappers), state copies through byte views, the kernels' optimisation
level."""

import ast
import os
import re
from pathlib import Path

import hypothesis.strategies as st
import numba
import numpy as np
import pytest
from hypothesis import given, settings
from support import run_json

import meeple_gym as mg
from meeple_gym.core import compiler, jit
from meeple_gym.core.action_check import check_actions
from meeple_gym.core.records import clear_record, copy_record, copy_values, take_records
from meeple_gym.core.rng import py_derive_key
from meeple_gym.core.sampling import policy_words, random_legal_actions
from meeple_gym.core.vector_kernels import draw_seats, gather_finished

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


needs_internal = pytest.mark.skipif(
    not compiler.active("internal"), reason="internal kernels fell back (compiler fence)"
)


@needs_internal
def test_a_private_kernel_is_internal_and_still_answers_python():
    assert isinstance(_doubled, compiler.internal.InternalKernelDispatcher)
    values = np.arange(4, dtype=np.int64)
    assert sum_doubled(values) == 12  # called from a kernel: the wrapper-less copy
    assert _doubled(values, 3) == 6  # called from Python: the copy with entry wrappers
    # With a warm cache sum_doubled loads whole and never compiles _doubled in this process:
    # ask for the overload (compiled here, or rebuilt from its own cache entry).
    _doubled.compile((numba.typeof(values), numba.types.int64))
    internal = next(iter(_doubled.overloads.values()))
    assert internal.fndesc.llvm_cpython_wrapper_name not in internal.library.get_llvm_str()
    # No machine code of its own: the kernels that call it link and emit its module.
    assert isinstance(internal.library, compiler.internal.LinkOnlyLibrary)
    assert internal.library.get_pointer_to_function(internal.fndesc.llvm_func_name) == 0


@jit.kernel(fragment=True)
def _tripled(values, k):
    return values[k] * 3


@jit.kernel
def sum_tripled(values):
    total = 0
    for k in range(values.shape[0]):
        total += _tripled(values, k)
    return total


@needs_internal
def test_a_fragment_is_internal_and_compiled_into_a_fragment_library():
    values = np.arange(4, dtype=np.int64)
    assert sum_tripled(values) == 18
    assert _tripled(values, 3) == 9  # from Python, like any internal kernel
    internal = compiler.internal
    assert isinstance(_tripled, internal.InternalKernelDispatcher)
    # checked on the declaration: with a warm cache the caller loads and the fragment is never
    # compiled in this process
    assert _tripled._compiler.pipeline_class is internal.FragmentPipeline
    assert internal.FragmentPipeline._lowering is internal.FragmentLowering
    assert issubclass(internal.FragmentLibrary, internal.LinkOnlyLibrary)  # no machine code
    with pytest.raises(ValueError, match="internal"):
        jit.kernel(fragment=True)(lambda: 0)


KERNEL_DECORATORS = ("kernel", "parallel_kernel", "standalone_kernel")


def _kernel_functions(decorators=("kernel",)):
    root = Path(jit.__file__).resolve().parents[1]  # the meeple_gym package (envs/ in a checkout)
    folders = [
        root,
        jit.package_dir("meeple_gym.encoders"),
        jit.package_dir("meeple_gym.baselines"),
    ]
    for folder in folders:
        for path in folder.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.FunctionDef) and any(
                    getattr(d.func if isinstance(d, ast.Call) else d, "id", None) in decorators
                    for d in node.decorator_list
                ):
                    yield path.name, node


def test_internal_kernels_never_need_their_numba_environment():
    # An internal kernel's environment pointer is never set (LinkOnlyLibrary); Numba reads
    # it only to print or to raise an exception built from runtime values.
    offenders, checked = [], 0
    for filename, function in _kernel_functions():
        if not function.name.startswith("_"):
            continue
        checked += 1
        for node in ast.walk(function):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "print":
                offenders.append(f"{filename}:{node.lineno} print")
            if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
                if not all(isinstance(a, ast.Constant) for a in node.exc.args):
                    offenders.append(f"{filename}:{node.lineno} raise with runtime values")
    assert checked > 100
    assert offenders == []


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


@pytest.mark.parametrize("game", ["century", "radlands", "everdell", "endeavor"])
def test_take_records_is_fancy_indexing(game):
    dtype = mg.get_spec(game).state_dtype
    states = np.zeros(9, dtype)
    states.view(np.uint8)[:] = np.random.default_rng(3).integers(0, 256, states.nbytes)
    states.flags.writeable = False  # a batch's read-only view works too
    for rows in ([4, 0, 4, 8], np.array([], np.int64), np.array([2], np.int32)):
        taken = take_records(states, rows)
        expected = states[np.asarray(rows, np.int64)]
        assert taken.dtype == dtype and taken.shape == expected.shape
        assert taken.flags.c_contiguous and taken.flags.writeable
        assert taken.tobytes() == expected.tobytes()


def test_copy_values_copies_and_never_writes_past_either_end():
    source = np.arange(5, dtype=np.int8)
    target = np.full(5, -1, np.int16)
    copy_values(target, source)
    assert target.tolist() == [0, 1, 2, 3, 4]
    short = np.full(3, -1, np.int8)
    copy_values(short, source)
    assert short.tolist() == [0, 1, 2]
    longer = np.full(7, -1, np.int8)
    copy_values(longer, source)
    assert longer.tolist() == [0, 1, 2, 3, 4, -1, -1]


def _is_constant(node):
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    return isinstance(node, ast.Constant) or (isinstance(node, ast.Name) and node.id.isupper())


def test_kernels_never_slice_assign_from_an_array():
    # ``a[:] = b`` with an array on the right links Numba's formatted shape error, and with it
    # Numba's unicode code, into every kernel that reaches it (about 9% of Radlands' cold
    # compile); records.copy_values is the loop. A constant on the right is a plain fill.
    offenders, checked = [], 0
    for filename, function in _kernel_functions(decorators=KERNEL_DECORATORS):
        checked += 1
        for node in ast.walk(function):
            if isinstance(node, ast.Assign):
                target = node.targets[0]
            elif isinstance(node, ast.AugAssign):
                target = node.target
            else:
                continue
            sliced = isinstance(target, ast.Subscript) and any(
                isinstance(part, ast.Slice) for part in ast.walk(target.slice)
            )
            if sliced and not _is_constant(node.value):
                offenders.append(f"{filename}:{node.lineno} {ast.unparse(node)}")
    assert checked > 300
    assert offenders == []


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
    assert jit.group_key("core").split("-")[2] == f"O{jit.opt_level()}"
    if compiler.active("dispatcher"):
        assert jit.opt_level() == jit.KERNEL_OPT_LEVEL


# A kernel compiled in a process that finds the internal kernels it calls in the cache links
# their cached bitcode (LinkOnlyCacheImpl); its results must match a compile from scratch.
HEURISTIC_RUN = """
import gc, json, sys
import numpy as np
import meeple_gym as mg
from meeple_gym.core.compiler.internal import InternalKernelDispatcher
game, part = sys.argv[1], sys.argv[2]
if part == "single":
    env = mg.make(game, num_players=2)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    print(json.dumps({}))
    sys.exit()
sys.path.insert(0, sys.argv[3])  # this file's folder
from test_internal_kernels import heuristic_play
actions = heuristic_play(game)
hits = sum(sum(d._cache_hits.values()) for d in gc.get_objects()
           if isinstance(d, InternalKernelDispatcher))
print(json.dumps({"actions": actions, "internal_cache_hits": hits}))
"""


def heuristic_play(game):
    """The heuristic's choices over 20 batch steps of 8 games."""
    from meeple_gym.baselines.evaluate import make_agent

    batch = mg.make_batch(game, 8, 2, seed=4)
    obs = batch.reset()
    agent = make_agent("heuristic", game, 0)
    actions = []
    for _ in range(20):
        chosen = agent.act_batch(obs, batch.legal_mask)
        actions.append(chosen.tolist())
        obs = batch.step(chosen)[0]
    return actions


def _run(game, part, cache):
    env = dict(os.environ, MEEPLE_GYM_CACHE_DIR=str(cache))
    return run_json(["-c", HEURISTIC_RUN, game, part, str(Path(__file__).parent)], env)[0]


@needs_internal
def test_kernels_linking_cached_internal_kernels_play_the_same(tmp_path):
    # The reference is this process's own kernels (compiled here, or whole from the cache).
    _run("century", "single", tmp_path)
    after_partial = _run("century", "batch", tmp_path)
    assert after_partial["internal_cache_hits"] > 0  # internal kernels came from the cache
    assert after_partial["actions"] == heuristic_play("century")


def _reference_check(actions, masks, skip):
    """The NumPy checks BatchEnv and the vector env made before check_actions: (error text or
    None, acts, illegal)."""
    n = masks.shape[1]
    out_of_range = ((actions < 0) | (actions >= n)) & ~skip
    bad = np.flatnonzero(out_of_range)
    if bad.size:
        return f"action {actions[bad[0]]} in game {bad[0]} is out of range", None, None
    acts = np.where(skip, -1, actions).astype(np.int64)
    illegal = ~skip & (masks[np.arange(len(acts)), np.where(skip, 0, acts)] == 0)
    return None, acts, illegal


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(1, 40),
    actions_count=st.integers(1, 9),
    dtype=st.sampled_from([np.int64, np.int32, np.uint8, np.uint64, np.int16]),
    seed=st.integers(0, 2**32 - 1),
    out_of_range=st.booleans(),
)
def test_check_actions_matches_the_numpy_checks(rows, actions_count, dtype, seed, out_of_range):
    rng = np.random.default_rng(seed)
    masks = (rng.random((rows, actions_count)) < 0.6).astype(np.int8)
    skip = rng.random(rows) < 0.2
    high = actions_count + (3 if out_of_range else 0)
    actions = rng.integers(0, high, rows).astype(dtype)
    if out_of_range and np.dtype(dtype).kind == "i":
        actions[rng.integers(0, rows)] = -1
    if dtype is np.uint64 and out_of_range:
        actions[rng.integers(0, rows)] = np.iinfo(np.uint64).max  # must not become -1
    before = actions.copy()
    illegal = np.ones(rows, dtype=np.bool_)
    error, acts, expected_illegal = _reference_check(actions.astype(object), masks, skip)
    if error is not None:
        with pytest.raises(mg.ActionError, match=re.escape(error)):
            check_actions(actions, masks, skip, illegal)
    else:
        got, first, count = check_actions(actions, masks, skip, illegal)
        assert got.dtype == np.int64 and got.tolist() == acts.tolist()
        assert illegal.tolist() == expected_illegal.tolist()
        assert count == expected_illegal.sum()
        assert first == (int(np.flatnonzero(expected_illegal)[0]) if count else -1)
    assert actions.tolist() == before.tolist()  # the caller's array is never written


def test_check_actions_refuses_wrong_shapes_and_dtypes():
    masks = np.ones((3, 4), np.int8)
    no_skip = np.zeros(3, np.bool_)
    scratch = np.zeros(3, np.bool_)
    for actions, text in (
        (np.zeros(2, np.int64), "shape"),
        (np.zeros((3, 1), np.int64), "shape"),
        (np.zeros(3, np.float32), "integer"),
        (np.zeros(3, np.bool_), "integer"),
    ):
        with pytest.raises(mg.ActionError, match=text):
            check_actions(actions, masks, no_skip, scratch)
    strided = np.arange(6, dtype=np.int64)[::2] % 4
    strided.flags.writeable = False
    assert check_actions(strided, masks, no_skip, scratch)[0].tolist() == [0, 2, 0]


@settings(max_examples=40, deadline=None)
@given(
    rows=st.integers(1, 30),
    players=st.integers(1, 4),
    fixed_seat=st.sampled_from([None, -1, 0, 2]),
    seed=st.integers(0, 2**32 - 1),
)
def test_gather_finished_matches_the_numpy_gathers(rows, players, fixed_seat, seed):
    """fixed_seat None: self-play (every seat's results, no seat draws); -1: learner mode, seats
    drawn per episode; k: learner mode, always seat k."""
    every_seat = fixed_seat is None
    rng = np.random.default_rng(seed)
    terminated = rng.random(rows) < 0.3
    truncated = rng.random(rows) < 0.1
    ended = rng.random(rows) < 0.3
    seats = rng.integers(0, players, rows)
    episodes = rng.integers(0, 1000, rows)
    final_states = np.zeros(rows, STATE)
    final_states.view(np.uint8)[:] = rng.integers(0, 256, final_states.nbytes)
    rewards = rng.normal(size=(rows, players + 1)).astype(np.float32)
    scores = rng.integers(-50, 50, (rows, players + 1)).astype(np.int32)
    width = players if every_seat else 1
    outputs = {
        "ended": ended.copy(),
        "final_seat": np.full(rows, 7, np.int64),
        "terminated": np.zeros(rows, np.bool_),
        "truncated": np.zeros(rows, np.bool_),
        "reward": np.zeros((rows, width)),
        "score": np.zeros((rows, width), np.int64),
    }
    expected = {k: v.copy() for k, v in outputs.items()}
    new_rows, new_seats = np.zeros(rows, np.int64), np.zeros(rows, np.int64)
    new_states = np.zeros(rows, STATE)
    seats_out, next_seats = seats.copy(), np.full(rows, -9, np.int64)
    batch_seed = int(rng.integers(0, 2**63))
    new = gather_finished(
        terminated,
        truncated,
        ended.copy(),
        seats_out,
        every_seat,
        final_states.view(np.uint8),
        rewards,
        scores,
        new_rows,
        new_seats,
        new_states.view(np.uint8),
        *outputs.values(),
        np.uint64(batch_seed),
        episodes,
        players,
        -1 if fixed_seat is None else fixed_seat,
        next_seats,
    )
    # What the vector env did with NumPy before (one fancy index per output).
    all_rows = np.flatnonzero(terminated | truncated)
    fresh = all_rows[~ended[all_rows]]
    expected["ended"][fresh] = True
    expected["final_seat"][fresh] = seats[fresh]
    expected["terminated"][fresh] = terminated[fresh]
    expected["truncated"][fresh] = truncated[fresh]
    if every_seat:
        expected["reward"][fresh] = rewards[fresh, :players]
        expected["score"][fresh] = scores[fresh, :players]
    else:
        expected["reward"][fresh, 0] = rewards[fresh, seats[fresh]]
        expected["score"][fresh, 0] = scores[fresh, seats[fresh]]
    assert new == fresh.size
    assert new_rows[:new].tolist() == fresh.tolist()
    assert new_seats[:new].tolist() == seats[fresh].tolist()
    assert new_states[:new].tobytes() == final_states[fresh].tobytes()
    for name, array in outputs.items():
        assert array.tolist() == expected[name].tolist(), name
    # Every finished row, new or not, draws its seats; the others keep theirs.
    expected_seats, expected_next = seats.copy(), np.full(rows, -9)
    for r in all_rows.tolist() if fixed_seat is not None else []:
        current = int(episodes[r])
        for out, episode in ((expected_seats, current), (expected_next, current + 1)):
            drawn = py_derive_key(batch_seed, r, 2 * episode + 3) % players
            out[r] = drawn if fixed_seat == -1 else fixed_seat
    assert seats_out.tolist() == expected_seats.tolist()
    assert next_seats.tolist() == expected_next.tolist()


def test_draw_seats_follows_the_documented_stream():
    episodes = np.array([0, 5, 2**40, 7])
    rows = np.array([3, 0, 2], np.int64)
    seats, next_seats = np.full(4, -1), np.full(4, -1)
    draw_seats(rows, np.uint64(2**64 - 1), episodes, 3, -1, seats, next_seats)
    for r in rows.tolist():
        assert seats[r] == py_derive_key(2**64 - 1, r, 2 * int(episodes[r]) + 3) % 3
        assert next_seats[r] == py_derive_key(2**64 - 1, r, 2 * int(episodes[r]) + 5) % 3
    assert seats[1] == next_seats[1] == -1  # not drawn
