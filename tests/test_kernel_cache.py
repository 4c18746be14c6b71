"""The on-disk kernel cache is keyed by the sources and tables a kernel may inline (issue #10.11):
an edited data table is used on the next start, and an unwritable cache only costs a warning."""

import csv
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from meeple_gym.core import jit

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


def _run(copy: Path, cache: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(copy), MEEPLE_GYM_CACHE_DIR=str(cache))
    return subprocess.run(
        [sys.executable, "-c", f"COPY = {str(copy)!r}\n" + PLAY_SPICE_CARD],
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
        cwd=copy,
    )


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
