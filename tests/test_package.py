"""One import name: the repo's envs/, encoders/ and baselines/ folders are installed as meeple_gym,
meeple_gym.encoders and meeple_gym.baselines, and nothing named envs, encoders or baselines comes
from this distribution."""

import subprocess
import sys
from pathlib import Path

import pytest

import meeple_gym as mg

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import importlib, json
found = {}
for name in ("envs", "encoders", "baselines"):
    try:
        module = importlib.import_module(name)
        found[name] = getattr(module, "__file__", None) or str(module.__path__)
    except ImportError:
        found[name] = None
import meeple_gym, meeple_gym.encoders, meeple_gym.baselines
found["meeple_gym"] = meeple_gym.__file__
found["make"] = callable(meeple_gym.make) and callable(meeple_gym.make_batch)
print(json.dumps(found))
"""


def test_only_meeple_gym_is_importable_from_outside_the_repo(tmp_path):
    import json

    result = subprocess.run(
        [sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=tmp_path, check=True
    )
    found = json.loads(result.stdout)
    assert found["make"] is True
    ours = [str(ROOT / name) for name in ("envs", "encoders", "baselines")]
    ours.append(str(Path(mg.__file__).parent))
    for name in ("envs", "encoders", "baselines"):
        # Another distribution may own the name (PyPI has all three); ours must not.
        assert found[name] is None or not any(found[name].startswith(p) for p in ours), found


def test_every_package_folder_is_listed_for_installation():
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    on_disk = {"meeple_gym.encoders", "meeple_gym.baselines"}
    for init in (ROOT / "envs").rglob("__init__.py"):
        rel = init.parent.relative_to(ROOT / "envs").parts
        on_disk.add(".".join(("meeple_gym", *rel)))
    assert listed == on_disk
    assert config["package-dir"] == {
        "meeple_gym": "envs",
        "meeple_gym.encoders": "encoders",
        "meeple_gym.baselines": "baselines",
    }


def test_the_public_api_lives_under_one_name():
    import meeple_gym.baselines as baselines
    import meeple_gym.encoders as encoders

    assert mg.available_games() == ["century", "endeavor", "everdell", "radlands"]
    assert hasattr(encoders, "century") or (ROOT / "encoders" / "century.py").exists()
    assert hasattr(baselines, "RandomAgent")
    encode = mg.get_spec("century").encode_batch
    assert getattr(encode, "py_func", encode).__module__ == "meeple_gym.encoders.century"
