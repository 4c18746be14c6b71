"""Replay the golden playthroughs in tests/golden (see tests/golden_playthrough.py)."""

import json

import pytest
from golden_playthrough import CASES, path_for, record

pytestmark = pytest.mark.smoke  # .ci/compat: the fallback and the oldest Numba replay them too


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}p-{c[2]}")
def test_golden_playthrough_replays_identically(case):
    expected = json.loads(path_for(*case).read_text())
    actual = json.loads(json.dumps(record(*case)))
    assert len(actual["steps"]) == len(expected["steps"])
    for i, (got, want) in enumerate(zip(actual["steps"], expected["steps"], strict=True)):
        assert got == want, f"step {i} differs"
    assert actual["final"] == expected["final"]
    assert actual["rewards"] == expected["rewards"]
