"""Every ```python block of README.md and docs/*.md runs as written, in order within its file.

Each file's blocks run one after the other in one fresh interpreter (a block may use what an
earlier block of the same file made), in an empty working folder, so a block that reads a file
the text never makes, or names something nobody defined, fails here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC_FILES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
# What a block needs beyond the test extras, by the module it imports.
OPTIONAL_MODULES = ("ray", "sb3_contrib", "torch", "pyspiel", "ray.rllib")


def python_blocks(path: Path) -> list[str]:
    return BLOCK.findall(path.read_text())


def _script(path: Path, blocks: list[str]) -> str:
    parts = []
    for number, block in enumerate(blocks):
        # A marker per block, so a failure names the block that raised.
        parts.append(f"print('--- block {number} of {path.name}', flush=True)\n{block}")
    return "\n".join(parts)


def test_the_block_finder_sees_the_readme_examples():
    blocks = python_blocks(ROOT / "README.md")
    assert len(blocks) >= 5
    assert any("mg.make(" in block for block in blocks)


@pytest.mark.parametrize("path", [p for p in DOC_FILES if python_blocks(p)], ids=lambda p: p.name)
def test_every_python_block_runs_in_order(path, tmp_path):
    blocks = python_blocks(path)
    for module in OPTIONAL_MODULES:
        needed = re.compile(rf"^\s*(import {re.escape(module)}\b|from {re.escape(module)}\b)", re.M)
        if any(needed.search(block) for block in blocks):
            pytest.importorskip(module, reason=f"{path.name} needs {module}")
    env = dict(os.environ, PYTHONUNBUFFERED="1", MPLBACKEND="Agg")
    done = subprocess.run(
        [sys.executable, "-c", _script(path, blocks)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    started = re.findall(r"^--- block (\d+) of ", done.stdout, re.M)
    where = f"block {started[-1]}" if started else "before the first block"
    assert done.returncode == 0, f"{path.name}, {where} failed:\n{done.stderr[-3000:]}"
    assert len(started) == len(blocks)
