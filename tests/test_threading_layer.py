"""The fork-safe threading layer loads in any kind of install (README "Threads, processes and
safety"; envs/core/threads.py): a venv or a ``--user`` install keeps the ``tbb`` wheel's library
off the loader's path, where Numba alone would fall back to OpenMP without a word."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from meeple_gym.core import threads

ROOT = Path(__file__).resolve().parents[1]

_PROBE = """
import json
import meeple_gym as mg
from meeple_gym.core import threads
mg.make_batch("century", 4, 2, seed=0).random_rollout(64)  # a parallel kernel
print(json.dumps(threads.layer_report()))
"""


def _probe(**env_changes) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_THREADING_LAYER"}
    env.update(env_changes)
    out = subprocess.run(
        [sys.executable, "-c", _PROBE], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(
    not threads._tbb_library_paths(), reason="the tbb package is not installed on this platform"
)
def test_an_installed_tbb_package_is_the_layer_numba_runs():
    # In a venv this failed before preload_tbb: Numba found no libtbb.so.12 and ran OpenMP.
    report = _probe()
    assert report["layer"] == "tbb", report
    assert report["fork_safe"] is True
    assert report["tbb_library"] in threads._tbb_library_paths()
    assert Path(report["tbb_library"]).is_file()


def test_a_layer_chosen_by_the_user_is_respected():
    report = _probe(NUMBA_THREADING_LAYER="workqueue")
    assert report["layer"] == "workqueue"
    assert report["fork_safe"] is False
    assert report["tbb_library"] is None
    assert "NUMBA_THREADING_LAYER" in report["tbb_note"]


def test_the_tbb_library_is_found_through_the_distribution_record():
    paths = threads._tbb_library_paths()
    if not paths:
        pytest.skip("the tbb package is not installed on this platform")
    # The wheel puts it in <prefix>/lib (or ~/.local/lib), not beside the Python package.
    for path in paths:
        assert Path(path).name.startswith(("libtbb", "tbb12"))
        assert Path(path).is_file()


def test_ci_runs_the_readme_test_line_verbatim_in_a_fresh_venv():
    readme = (ROOT / "README.md").read_text()
    block = readme.split("## Quick start", 1)[1].split("```bash", 1)[1].split("```", 1)[0]
    lines = [line for line in block.strip().splitlines() if line.strip()]
    make_venv, _, test_line = lines
    assert "venv" in make_venv
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert make_venv in ci, "CI makes its venv as the README does"
    assert test_line in ci, "CI runs the README's test line verbatim"
    assert ci.index(make_venv) < ci.index(test_line)
    # Its status is taken whole: under `set -e` a failed install before the last `&&` would
    # otherwise skip the tests and let the script go on.
    at = ci.index(test_line)
    assert ci[at - 1] == "set +e" and ci[at + 1] == "status=$?"
