"""Compile-time cuts (benchmarks/README.md, Compile time) that must not change results: internal
kernels (no Python entry wrappers), state copies through byte views, the kernels' optimisation
level."""

import ast
import os
from pathlib import Path

import numba
import numpy as np
import pytest
from support import run_json

import meeple_gym as mg
from meeple_gym.core import compiler, jit
from meeple_gym.core.records import clear_record, copy_record, copy_values, take_records
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
