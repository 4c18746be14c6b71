"""Replays (``meeple_gym.replay``, ``meeple replay``): the page holds every picture exactly,
stays small, and a trajectory file is rebuilt into the game it recorded."""

from __future__ import annotations

import json
import re

import pytest

import meeple_gym as mg
from meeple_gym.replay import (
    _frames,
    record_game,
    recording_from_trajectories,
    replay_html,
)

GAMES = ["century", "radlands", "everdell", "endeavor"]


def _page_data(page: str) -> dict:
    found = re.search(r'<script type="application/json" id="data">(.*?)</script>', page, re.S)
    return json.loads(found.group(1).replace("<\\/", "</"))


def _decode(data: dict, t: int) -> str:
    runs = data["frames"][t]
    return "".join(
        data["pieces"][k]
        for i in range(0, len(runs), 2)
        for k in range(runs[i], sum(runs[i : i + 2]))
    )


@pytest.mark.parametrize("game", GAMES)
def test_the_page_holds_every_picture_and_move_exactly(game):
    recording = record_game(game, 2, agents=["random"], seed=4)
    page = replay_html(recording, viewer=0)
    data = _page_data(page)
    spec = mg.get_spec(game)
    assert len(data["frames"]) == recording.num_steps + 1 == len(recording.states)
    for t in (0, recording.num_steps // 2, recording.num_steps):
        assert _decode(data, t) == spec.draw(recording.states[t], 0, 0)
    assert [s["a"] for s in data["steps"]] == recording.action_texts
    assert [s["n"] for s in data["steps"]] == recording.legal_counts
    assert all(n >= 1 for n in recording.legal_counts)
    # the last frame is the finished game, whose scores the recording states
    assert recording.result
    assert "<script" not in page.split('id="data">', 1)[1].split("</script>", 1)[0]


def test_frames_are_stored_once_and_rebuilt_in_order():
    svgs = ["<svg><rect a/><text>x</text></svg>", "<svg><rect a/><text>y</text></svg>"]
    pieces, frames = _frames(svgs)
    data = {"pieces": pieces, "frames": frames}
    assert [_decode(data, t) for t in range(2)] == svgs
    assert pieces.count("<rect a/>") == 1


def test_a_300_step_game_stays_under_2_mb():
    # Random Century games with 3 players run to several hundred steps.
    recording = record_game("century", 3, agents=["random"], seed=0)
    assert recording.num_steps >= 300
    size = len(replay_html(recording).encode())
    assert size < 2_000_000, f"{recording.num_steps} steps: {size:,} bytes"


@pytest.mark.parametrize("game", ["radlands", "everdell", "endeavor"])
def test_every_game_stays_under_2_mb_per_300_steps(game):
    # Their random games are shorter; the page grows with the steps, so scale to 300.
    recording = record_game(game, 4 if game == "endeavor" else 2, agents=["random"], seed=1)
    size = len(replay_html(recording).encode())
    per_300 = size * 300 / min(300, recording.num_steps)
    assert per_300 < 2_000_000, f"{recording.num_steps} steps: {size:,} bytes"


def test_a_trajectory_file_is_rebuilt_into_the_game_it_recorded(tmp_path):
    from meeple_gym import distributed

    out = distributed.rollout(
        "century", 2, 3, seed=9, agents=["heuristic", "random"], trajectories=True
    )
    path = distributed.save_rollout(out, tmp_path / "traj.npz")
    for g in range(3):
        recording = recording_from_trajectories(path, g)
        lo, hi = out["traj_offsets"][g], out["traj_offsets"][g + 1]
        assert recording.actions == [int(a) for a in out["traj_action"][lo:hi]]
        assert recording.players == [int(p) for p in out["traj_player"][lo:hi]]
        final = recording.states[-1]
        spec = mg.get_spec("century")
        assert spec.to_dict(final, 0)  # a finished, valid record
        assert recording.result.endswith(
            ", ".join(f"P{p}: {int(v)}" for p, v in enumerate(out["scores"][g]))
        )


def test_a_file_without_trajectories_is_refused_by_name(tmp_path):
    from meeple_gym import distributed

    plain = distributed.rollout("century", 2, 2, seed=1)
    path = distributed.save_rollout(plain, tmp_path / "plain.npz")
    with pytest.raises(mg.OptionError, match="not a trajectory file.*--trajectories"):
        recording_from_trajectories(path, 0)
