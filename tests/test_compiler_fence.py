"""The compiler fence (meeple_gym.core.compiler): each technique that reaches into Numba's
internals is checked; one that fails its check, or all of them under MEEPLE_GYM_PLAIN_NUMBA=1,
fall back to plain numba.njit with one CompilerFallbackWarning, and the games play the same."""

import hashlib
import json
import os
import sys
import warnings
from pathlib import Path

import numba
import numpy as np
import pytest
from numba.core import codegen
from support import run_json

import meeple_gym as mg
from meeple_gym.core import compiler, jit

GAMES = ["century", "endeavor", "everdell", "radlands"]
# (players, seed) of each game's short seeded game.
SEEDED = {"century": (2, 101), "endeavor": (2, 606), "everdell": (1, 404), "radlands": (2, 31)}

# sha256 of seeded_game(game), recorded on the fast path (every technique active, Numba 0.68).
# Regenerate only for an intended change of the rules or of the state layout.
DIGESTS = {
    "century": {
        "playthrough": "a64b06ab989df63efaea1cbd764fbb79c6cee843817e3332d5a5b5fb0d88f6f8",
        "rollout": "014971085229046b7553c46c20917e7cd52359970aedb189cd517348250cc590",
    },
    "endeavor": {
        "playthrough": "9fd2cf7742ff48e9ae42f1fb958b92127c9b2dd11e5ec73fc69b13aac1c1a0fa",
        "rollout": "f375a74c573af8a43b5dddfe4f96c55a8922cf61d91a94bc2ac64709dd269ab5",
    },
    "everdell": {
        "playthrough": "94d1147722bd1677f4d855e28baf9507c2f238534d779e376bf8de47eb2a45f1",
        "rollout": "c0721f3c55541f8c5893ee3e1692e944769f1bcbeeddc27bc662839df5230630",
    },
    "radlands": {
        "playthrough": "b11beba0aae4eee4b2ffa758c05fc517a0a377f5ea7382f2e41e57ac6cad553f",
        "rollout": "57fea0f8173bcff19155c28198d04e322eb0c70dcb108706af5ac0cf6d8f5099",
    },
}

forced = os.environ.get(compiler.PLAIN_NUMBA_ENV, "") not in ("", "0")
needs_compiler = pytest.mark.skipif(numba.config.DISABLE_JIT, reason="needs the compiler")


def seeded_game(game: str) -> dict:
    """Digests of a golden playthrough (the AEC env, tests/golden_playthrough.py) and of a
    random rollout (the batch kernels) of ``game``."""
    sys.path.insert(0, str(Path(__file__).parent))
    from golden_playthrough import record

    players, seed = SEEDED[game]
    playthrough = json.dumps(record(game, players, seed), sort_keys=True)
    rollout = mg.make_batch(game, 4, players, seed=seed).random_rollout(8)
    games = json.dumps({key: np.asarray(value).tolist() for key, value in rollout.items()})
    return {
        "playthrough": hashlib.sha256(playthrough.encode()).hexdigest(),
        "rollout": hashlib.sha256(games.encode()).hexdigest(),
    }


@pytest.mark.smoke
def test_every_technique_reports_active_or_fallback():
    status = compiler.status()
    assert list(status) == list(compiler.TECHNIQUES)
    if forced:
        assert set(status.values()) == {"fallback"}
        assert compiler.cache_tag() == "plain"
    else:
        # CI runs supported Numbas only: there every technique must be active.
        assert compiler.TESTED_NUMBA[0] <= compiler.numba_version() <= compiler.TESTED_NUMBA[1]
        assert set(status.values()) == {"active"}, compiler.reasons()
        assert compiler.cache_tag() == "fast"
    assert jit.group_key("century").endswith(f"-{compiler.cache_tag()}")


@pytest.mark.smoke
@needs_compiler
def test_declared_kernels_follow_the_fence():
    from meeple_gym.century import rules

    fast = compiler.active("dispatcher")
    assert fast is not forced
    apply_action = rules.apply_action
    if fast:
        assert isinstance(apply_action, compiler.dispatch.KernelDispatcher)
        assert apply_action._meeple_standalone.impl.py_func.__name__ == "apply_action"
        assert isinstance(rules._end_target, compiler.internal.InternalKernelDispatcher)
    else:  # ordinary Numba dispatchers, standalone and internal kernels included
        assert type(apply_action) is numba.core.registry.CPUDispatcher
        assert not hasattr(apply_action, "_meeple_standalone")
        assert type(rules._end_target) is numba.core.registry.CPUDispatcher
        assert type(apply_action._cache) is numba.core.caching.FunctionCache
    # Both paths cache with the same options.
    assert apply_action.targetoptions["nogil"] and apply_action._cache._enabled


@pytest.mark.smoke
@needs_compiler
@pytest.mark.parametrize("game", GAMES)
def test_seeded_games_match_the_fast_path(game):
    # Under MEEPLE_GYM_PLAIN_NUMBA=1 (.ci/compat) this compares the fallback with the fast path.
    assert seeded_game(game) == DIGESTS[game]


DIGEST_RUN = """
import json, sys, warnings
sys.path.insert(0, sys.argv[2])
from test_compiler_fence import seeded_game
from meeple_gym.core import compiler
digests = seeded_game(sys.argv[1])
print(json.dumps({"status": compiler.status(), "tag": compiler.cache_tag(), **digests}))
"""


# Slow (a cold plain-Numba compile per game, 5-6 CPU minutes in all): CI proves the same on
# every run through .ci/compat, whose fallback part runs the seeded-game digests above.
@pytest.mark.slow
@needs_compiler
@pytest.mark.skipif(forced, reason="this process runs the fallback already")
@pytest.mark.parametrize("game", GAMES)
def test_forced_fallback_warns_once_and_plays_as_the_fast_path(game, tmp_path):
    env = dict(os.environ, MEEPLE_GYM_CACHE_DIR=str(tmp_path))
    env[compiler.PLAIN_NUMBA_ENV] = "1"
    args = ["-W", "always", "-c", DIGEST_RUN, game, str(Path(__file__).parent)]
    report, result = run_json(args, env)
    assert set(report.pop("status").values()) == {"fallback"}
    assert report.pop("tag") == "plain"
    assert report == DIGESTS[game] == seeded_game(game)
    (warning,) = [line for line in result.stderr.splitlines() if "CompilerFallbackWarning" in line]
    assert f"Numba {numba.__version__}" in warning and compiler.PLAIN_NUMBA_ENV in warning
    for technique in compiler.TECHNIQUES:
        assert technique in warning
    # Its cache folder is the fallback's own.
    assert [p.name.rsplit("-", 1)[-1] for p in tmp_path.glob(f"*/{game}-*")] == ["plain"]


def _resolve_recording(environ=None):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        reasons = compiler.resolve(environ)
    return reasons, [w for w in seen if issubclass(w.category, compiler.CompilerFallbackWarning)]


@pytest.mark.smoke
def test_the_environment_variable_forces_every_fallback_with_one_warning():
    reasons, seen = _resolve_recording({compiler.PLAIN_NUMBA_ENV: "1"})
    assert all(reasons.values())
    assert len(seen) == 1 and numba.__version__ in str(seen[0].message)
    reasons, seen = _resolve_recording({compiler.PLAIN_NUMBA_ENV: "0"})
    if not forced:
        assert not any(reasons.values()) and not seen


@pytest.mark.smoke
def test_an_untested_numba_falls_back_with_one_warning(monkeypatch):
    monkeypatch.setattr(numba, "__version__", "0.69.0")
    reasons, seen = _resolve_recording({})
    assert set(reasons.values()) == {"outside the tested range 0.59-0.68"}
    (warning,) = seen
    assert "Numba 0.69.0" in str(warning.message)
    assert compiler.numba_version("0.58.1") < compiler.TESTED_NUMBA[0]


def _sum_of_squares(values):
    total = 0
    for k in range(values.shape[0]):
        total += values[k] * values[k]
    return total


@pytest.mark.smoke
@needs_compiler
@pytest.mark.skipif(forced, reason="needs the fast path to compare with")
def test_a_failing_feature_check_falls_back_with_one_warning(monkeypatch):
    # A Numba whose code libraries lack a method the link-only library relies on.
    name = "_verify_declare_only_symbols"
    owner = next(c for c in codegen.JITCodeLibrary.__mro__ if name in vars(c))
    with monkeypatch.context() as patched:
        patched.delattr(owner, name)
        reasons, seen = _resolve_recording({})
    assert "_verify_declare_only_symbols" in reasons["internal"]
    assert [name for name, why in reasons.items() if why] == ["internal"]
    (warning,) = seen
    assert "internal" in str(warning.message) and numba.__version__ in str(warning.message)

    values = np.arange(7, dtype=np.int64)
    fast = jit._compile_internal(_sum_of_squares, cacheable=False, link_only=True)
    assert isinstance(fast, compiler.internal.InternalKernelDispatcher)
    assert fast(values) == _sum_of_squares(values) == 91
    monkeypatch.setattr(compiler, "_reasons", reasons)  # this process's fence, for this test
    assert compiler.cache_tag() == "without-internal"
    fallback = jit._compile_internal(_sum_of_squares, cacheable=False, link_only=True)
    assert type(fallback) is compiler.dispatch.KernelDispatcher  # an ordinary kernel
    assert fallback(values) == 91


@pytest.mark.smoke
def test_the_cache_key_covers_the_fence_and_tells_the_paths_apart(monkeypatch):
    labels = {label for label, _ in jit.group_sources("core")}
    package = jit.package_dir("meeple_gym.core.compiler")
    modules = {f"meeple_gym/core/compiler/{p.name}" for p in package.glob("*.py")}
    technique_modules = {
        f"meeple_gym/core/compiler/{m}.py" for m, _ in compiler.TECHNIQUES.values()
    }
    assert modules == technique_modules | {"meeple_gym/core/compiler/__init__.py"}
    assert modules <= labels
    try:
        keys = {}
        for tag, why in (("fast", None), ("plain", "forced")):
            monkeypatch.setattr(compiler, "_reasons", dict.fromkeys(compiler.TECHNIQUES, why))
            jit.group_key.cache_clear()
            keys[tag] = jit.group_key("century")
        assert keys["fast"].endswith("-fast") and keys["plain"].endswith("-plain")
        assert keys["fast"].rsplit("-", 2)[0] == keys["plain"].rsplit("-", 2)[0]
    finally:
        monkeypatch.undo()
        jit.group_key.cache_clear()


LOAD_WORD = None  # set by the test below to one of the two paths of jit.word_loader


def _words_at(array, offsets, out):
    for i in range(offsets.shape[0]):
        out[i] = LOAD_WORD(array, offsets[i])


@needs_compiler
def test_word_loads_read_what_the_bytes_say_on_both_paths(monkeypatch):
    """``word_loader``'s intrinsic (fast path) and its byte-by-byte fallback give the word the
    array's bytes spell in the machine's byte order, at every offset and alignment, for byte
    arrays and record arrays (Century's sampler reads its batch of records this way)."""
    rng = np.random.default_rng(5)
    records = np.zeros(3, np.dtype([("a", np.int8), ("b", np.int16, (3,)), ("c", np.uint64)]))
    records.view(np.uint8)[:] = rng.integers(0, 256, records.nbytes, dtype=np.uint8)
    arrays = [rng.integers(0, 256, 29, dtype=np.uint8), records]
    paths = {"fallback": jit._compile(jit._load_word_from_bytes, cacheable=False)}
    if compiler.active("word_loads"):
        paths["intrinsic"] = compiler.words.load_word
        assert jit.word_loader() is compiler.words.load_word
    for name, load in paths.items():
        monkeypatch.setitem(globals(), "LOAD_WORD", load)
        reader = jit._compile(_words_at, cacheable=False)
        for array in arrays:
            raw = array.view(np.uint8).tobytes()
            offsets = np.arange(len(raw) - 7, dtype=np.int64)
            out = np.zeros(offsets.shape[0], np.uint64)
            reader(array, offsets, out)
            expected = [int.from_bytes(raw[k : k + 8], sys.byteorder) for k in offsets]
            assert out.tolist() == expected, name
    assert ("intrinsic" in paths) is not forced
