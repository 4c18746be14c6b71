"""The kernels run as plain Python under NUMBA_DISABLE_JIT=1 (for coverage tools) and play
exactly the same games as the compiled kernels."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent / "tools"))
from play_fixed_line import play  # noqa: E402

SCRIPT = Path(__file__).parent / "tools" / "play_fixed_line.py"


@pytest.mark.parametrize(
    "game,players,options",
    [
        ("century", 3, 0),
        ("radlands", 2, 0),
        ("radlands", 2, 15),
        ("everdell", 2, 0),
        ("everdell", 1, 3),
        ("endeavor", 3, 0),
    ],
)
def test_plain_python_kernels_match_compiled(game, players, options):
    steps = 250
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    result = subprocess.run(
        [sys.executable, str(SCRIPT), game, str(players), str(options), str(steps)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=600,
    )
    mode, *records = result.stdout.split()
    assert mode == "plain-python"
    assert records == play(game, players, options, steps)
