"""The on-disk kernel cache is keyed by the sources and tables a kernel may inline:
an edited data table is used on the next start, and an unwritable cache only costs a warning.
A damaged cache entry is dropped and compiled afresh (meeple_gym.core.compiler.cache)."""

import csv
import os
import re
import shutil
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numba
import pytest
from numba.core.errors import TypingError

from meeple_gym.core import compiler, jit
from meeple_gym.core.compiler import cache as cache_repair

ROOT = Path(__file__).resolve().parent.parent

# Plays the starting "+YY" card of the player to act and prints how many yellow cubes it added.
PLAY_SPICE_CARD = textwrap.dedent(
    """
    import numpy as np, meeple_gym as mg
    assert mg.__file__.startswith(COPY), mg.__file__
    spec = mg.get_spec("century")
    states = np.zeros(1, dtype=spec.state_dtype)
    spec.init_game(states, 0, 2, np.uint64(5), np.int64(0))
    action = next(a for a in range(spec.num_actions)
                  if spec.action_to_string(states, 0, a).startswith("play +YY"))
    player = int(states["current_player"][0])
    before = int(states["caravan"][0, player, 0])
    spec.apply_action(states, 0, action)
    print(int(states["caravan"][0, player, 0]) - before)
    """
)


def _copy_package(dest: Path) -> None:
    # The installed layout: envs/ becomes meeple_gym/, with encoders/ and baselines/ inside it.
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "envs", dest / "meeple_gym", ignore=ignore)
    for name in ("encoders", "baselines"):
        shutil.copytree(ROOT / name, dest / "meeple_gym" / name, ignore=ignore)


def _yellow_output(copy: Path) -> int:
    with open(copy / "meeple_gym" / "century" / "data" / "merchant_cards.csv") as f:
        row = next(r for r in csv.DictReader(f) if r["name"] == "+YY")
    return int(row["out_yellow"])


def _command(copy: Path, cache: Path, script: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(copy), MEEPLE_GYM_CACHE_DIR=str(cache))
    return {
        "args": [sys.executable, "-c", f"COPY = {str(copy)!r}\n" + script],
        "env": env,
        "cwd": copy,
        "text": True,
    }


def _run(copy: Path, cache: Path, script: str = PLAY_SPICE_CARD) -> subprocess.CompletedProcess:
    return subprocess.run(**_command(copy, cache, script), capture_output=True, timeout=900)


def test_edited_table_is_used_on_next_start(tmp_path):
    copy, cache = tmp_path / "pkg", tmp_path / "cache"
    _copy_package(copy)
    first = _run(copy, cache)
    assert first.returncode == 0, first.stderr
    assert int(first.stdout) == _yellow_output(copy)

    table = copy / "meeple_gym" / "century" / "data" / "merchant_cards.csv"
    text = table.read_text()
    edited = text.replace("0,+YY,spice,5,1,0,0,0,0,0,2,0,0,0", "0,+YY,spice,5,1,0,0,0,0,0,3,0,0,0")
    assert edited != text
    table.write_text(edited)
    second = _run(copy, cache)
    assert second.returncode == 0, second.stderr
    assert int(second.stdout) == _yellow_output(copy) == 3
    # Both versions stay cached side by side under their own keys.
    assert len(list(cache.glob("*/century-*"))) == 2


def test_unwritable_cache_compiles_without_it_and_warns_once(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    copy = tmp_path / "pkg"
    _copy_package(copy)
    result = _run(copy, blocker / "cache")
    assert result.returncode == 0, result.stderr
    assert int(result.stdout) == _yellow_output(copy)
    assert result.stderr.count("CacheWarning") == 1
    assert "MEEPLE_GYM_CACHE_DIR" in result.stderr


def test_cache_groups_follow_the_game_a_module_belongs_to():
    assert jit.kernel_group("meeple_gym.everdell.rules") == "everdell"
    assert jit.kernel_group("meeple_gym.encoders.radlands") == "radlands"
    assert jit.kernel_group("meeple_gym.baselines.endeavor_heuristic") == "endeavor"
    assert jit.kernel_group("meeple_gym.core.rng") == "core"
    sources = {label for label, _ in jit.group_sources("century")}
    assert "meeple_gym/century/data/point_cards.csv" in sources
    assert "meeple_gym/core/rng.py" in sources
    assert "meeple_gym/encoders/century.py" in sources
    assert "meeple_gym/baselines/century_heuristic.py" in sources
    assert not any("radlands" in s for s in sources)
    # Core modules without kernels (env wrappers, the gate, the CLI) never force a recompile.
    assert "meeple_gym/core/aec.py" not in sources
    assert "meeple_gym/core/gate.py" not in sources


def test_cache_root_honours_the_environment_variable(monkeypatch, tmp_path):
    monkeypatch.setenv(jit.CACHE_ENV_VAR, str(tmp_path))
    assert jit.cache_root() == tmp_path
    monkeypatch.delenv(jit.CACHE_ENV_VAR)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    assert jit.cache_root() == tmp_path / "numba"
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    assert jit.cache_root().name == "meeple-gym"


@pytest.mark.parametrize("group", ["core", "century", "radlands", "everdell", "endeavor"])
def test_cache_key_changes_with_any_source(group, tmp_path, monkeypatch):
    # A stand-in package root: editing any file of the group must change the key.
    fake = tmp_path / "root"
    for label, path in jit.group_sources(group):
        target = fake / label
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())

    def fake_package_dir(name):
        return fake.joinpath(*name.split("."))

    monkeypatch.setattr(jit, "package_dir", fake_package_dir)
    jit.group_key.cache_clear()
    try:
        before = jit.group_key(group)
        victim = jit.group_sources(group)[-1][1]
        assert victim.is_relative_to(fake)
        victim.write_bytes(victim.read_bytes() + b"\n# edited\n")
        jit.group_key.cache_clear()
        assert jit.group_key(group) != before
    finally:
        jit.group_key.cache_clear()


# Steps a small Century batch, plays a random rollout (the parallel step kernel) and one action
# through the single-game entry points, and prints a digest of everything it saw.
PLAY_CENTURY = textwrap.dedent(
    """
    import hashlib, numpy as np, meeple_gym as mg
    assert mg.__file__.startswith(COPY), mg.__file__
    batch = mg.make_batch("century", 4, 2, seed=7)
    seen = hashlib.sha256(batch.reset().tobytes())
    for _ in range(30):
        for array in batch.step(np.argmax(batch.legal_mask, axis=1)):
            seen.update(array.tobytes())
    rollout = batch.random_rollout(8)
    seen.update(rollout["length"].tobytes() + rollout["scores"].tobytes())
    spec = mg.get_spec("century")
    states = np.zeros(1, dtype=spec.state_dtype)
    spec.init_game(states, 0, 2, np.uint64(5), np.int64(0))
    spec.apply_action(states, 0, next(a for a in range(spec.num_actions)
                                      if spec.action_to_string(states, 0, a).startswith("play")))
    seen.update(states.tobytes())
    print(seen.hexdigest())
    """
)

GARBAGE = b"\x00\xffnot a kernel cache file\n" * 40


def _files(cache: Path) -> dict[str, tuple[int, int]]:
    return {
        str(p.relative_to(cache)): (p.stat().st_size, p.stat().st_mtime_ns)
        for p in cache.rglob("*")
        if p.is_file()
    }


def _corrupt(group: Path) -> dict[Path, bytes | None]:
    """Damage entries that PLAY_CENTURY loads, each in another way; returns each file's new
    bytes (None: deleted). Among them: standalone kernels' implementations, a stub and its
    generated source, the parallel step kernel, the encoder and a link-only kernel (bitcode,
    loaded when apply_action's implementation recompiles)."""

    def entry(pattern: str) -> Path:
        (path,) = group.glob(pattern)
        return path

    def cut(data: bytes) -> bytes:
        return data[: len(data) // 2]

    def garble(data: bytes) -> bytes:  # same size, a pickle that still loads
        middle = len(data) // 2
        return (
            data[:middle]
            + bytes(b ^ 0x5A for b in data[middle : middle + 64])
            + data[middle + 64 :]
        )

    damage = {
        "*/rules.init_game-*.nbi": cut,
        "*/stepping.step_batch__*-*.nbi": lambda data: GARBAGE,
        "*/rules.apply_action-*.nbi": lambda data: b"",
        "*/century.encode_into-*.1.nbc": cut,
        "standalone_*/meeple_gym.century.rules.apply_action.*.1.nbc": lambda data: GARBAGE,
        "*/rules._end_action-*.1.nbc": lambda data: GARBAGE,
        "*/rules.legal_mask_into-*.1.nbc": garble,
        "*/stepping.reset_batch__*-*.1.nbc": lambda data: b"",
        "standalone/meeple_gym.century.rules.init_game.py": lambda data: GARBAGE,
        "*/century.encode_batch-*.1.nbc": None,  # missing: the index still names it
    }
    damaged = {}
    for pattern, how in damage.items():
        path = entry(pattern)
        if how is None:
            path.unlink()
            damaged[path] = None
        else:
            damaged[path] = how(path.read_bytes())
            path.write_bytes(damaged[path])
    return damaged


def _corrupt_cache_warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if "CorruptCacheWarning" in line]


needs_cache_repair = pytest.mark.skipif(
    not compiler.active("cache"), reason="the repairing cache fell back (compiler fence)"
)


@needs_cache_repair
def test_corrupt_cache_entries_are_dropped_and_compiled_afresh(tmp_path):
    copy, cache = tmp_path / "pkg", tmp_path / "cache"
    _copy_package(copy)
    first = _run(copy, cache, PLAY_CENTURY)
    assert first.returncode == 0, first.stderr
    (group,) = cache.glob("*/century-*")
    damaged = _corrupt(group)

    second = _run(copy, cache, PLAY_CENTURY)
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout
    (warning,) = _corrupt_cache_warnings(second.stderr)
    assert str(group) in warning
    # Every damaged entry was loaded, dropped and saved again.
    for path, bad in damaged.items():
        assert path.is_file() and path.read_bytes() != bad, path

    before = _files(cache)
    third = _run(copy, cache, PLAY_CENTURY)
    assert third.returncode == 0, third.stderr
    assert third.stdout == first.stdout
    assert not _corrupt_cache_warnings(third.stderr)
    assert _files(cache) == before  # warm: everything loaded, nothing compiled or saved


def test_two_processes_compile_into_one_empty_cache(tmp_path):
    copy, cache = tmp_path / "pkg", tmp_path / "cache"
    _copy_package(copy)
    command = _command(copy, cache, PLAY_CENTURY)
    runs = [
        subprocess.Popen(**command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    results = [run.communicate(timeout=900) for run in runs]
    for run, (_, stderr) in zip(runs, results, strict=True):
        assert run.returncode == 0, stderr
        assert "Warning" not in stderr, stderr
    assert results[0][0] == results[1][0]

    before = _files(cache)
    warm = _run(copy, cache, PLAY_CENTURY)
    assert warm.returncode == 0, warm.stderr
    assert warm.stdout == results[0][0]
    assert "Warning" not in warm.stderr, warm.stderr
    assert _files(cache) == before


def _add(a, b):
    return a + b


@needs_cache_repair
def test_a_damaged_entry_is_dropped_and_errors_of_the_kernel_still_raise(tmp_path, monkeypatch):
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path))

    def dispatcher():  # a fresh one each time: the next call loads from the cache
        compiled = numba.njit(cache=True)(_add)
        compiled._cache = cache_repair.RepairingFunctionCache(_add)
        return compiled

    assert dispatcher()(1, 2) == 3
    (index,) = tmp_path.rglob("*.nbi")
    index.write_bytes(index.read_bytes()[:-5])
    fresh = dispatcher()
    with pytest.warns(cache_repair.CorruptCacheWarning, match=re.escape(str(tmp_path))) as seen:
        assert fresh(1, 2) == 3
    assert len(seen) == 1
    assert fresh._cache_misses and not fresh._cache_hits
    again = dispatcher()
    assert again(1, 2) == 3
    assert again._cache_hits and not again._cache_misses  # saved again, whole
    # A typing error of the kernel is raised, not taken for a damaged entry.
    with pytest.raises(TypingError), warnings.catch_warnings():
        warnings.simplefilter("error")
        fresh(1, "two")


TWIN_POLICIES = textwrap.dedent(
    """
    from meeple_gym.core.jit import kernel


    @kernel
    def lowest_legal(obs, mask):
        for a in range(mask.shape[0]):
            if mask[a] != 0:
                return a
        return -1


    @kernel
    def highest_legal(obs, mask):
        for a in range(mask.shape[0] - 1, -1, -1):
            if mask[a] != 0:
                return a
        return -1
    """
)

# One template bound twice in one cache group: each binding must run its own policy, compiled
# or loaded from the cache.
RUN_TWIN_POLICIES = textwrap.dedent(
    """
    import numpy as np
    from meeple_gym.core.masks import policy_batch
    import twin_policies as T

    rng = np.random.default_rng(3)
    masks = (rng.random((64, 40)) < 0.3).astype(np.int8)
    masks[:, 7] = 1
    obs = np.zeros((64, 5), np.float32)
    for policy, pick in ((T.lowest_legal, np.argmax), (T.highest_legal, None)):
        out = np.zeros(64, np.int64)
        policy_batch(policy, "century")(obs, masks, out)
        want = [pick(m) if pick else 39 - np.argmax(m[::-1]) for m in masks]
        assert (out == want).all(), (policy.py_func.__name__, out[:8], want[:8])
    print("ok")
    """
)


def test_one_template_bound_twice_in_a_group_keeps_both_bindings(tmp_path):
    """Numba names a cache entry after the function, not its globals: without the binding's
    digest in the name (``jit.rebind``), the second policy would load the first one's code."""
    (tmp_path / "twin_policies.py").write_text(TWIN_POLICIES)
    cache = tmp_path / "cache"
    env = dict(os.environ, PYTHONPATH=str(tmp_path), MEEPLE_GYM_CACHE_DIR=str(cache))
    command = [sys.executable, "-c", RUN_TWIN_POLICIES]
    for run in ("cold", "warm"):
        result = subprocess.run(
            command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=900
        )
        assert result.returncode == 0, f"{run}: {result.stderr}"
        assert result.stdout.strip() == "ok"
        if run == "cold":
            before = _files(cache)
    assert _files(cache) == before  # the warm run loaded both bindings, compiled nothing


def test_binding_tag_follows_what_the_globals_are_bound_to():
    def template(x):
        return helper(x) + OFFSET  # noqa: F821 - bound below

    def other():
        pass

    base = {"__name__": __name__, "helper": _add, "OFFSET": 1, "unused": other}
    tag = jit.binding_tag(template.__code__, base)
    assert tag == jit.binding_tag(template.__code__, dict(base, unused=_add))  # not read
    assert tag != jit.binding_tag(template.__code__, dict(base, helper=other))
    assert tag != jit.binding_tag(template.__code__, dict(base, OFFSET=2))
    bound = jit.rebind(template, base)
    assert bound.__qualname__.endswith(tag) and bound.__name__ == "template"
