"""Agent rollouts streamed to their file (meeple_gym.rollout_stream) hold the same data as the
in-memory rollout, keep only a bounded chunk of decisions in memory, and the match progress
moves at every step of a game, not only when games end."""

from __future__ import annotations

import json

import numpy as np
import pytest

from meeple_gym import distributed
from meeple_gym.baselines import evaluate
from meeple_gym.cli import main
from meeple_gym.replay import recording_from_trajectories
from meeple_gym.rollout_stream import ChunkedRecorder, stream_rollout

GAME = "century"
AGENTS = ["heuristic", "random"]


def assert_same(expected: dict, got: dict, keys) -> None:
    for key in keys:
        assert got[key].dtype == expected[key].dtype, key
        np.testing.assert_array_equal(got[key], expected[key], err_msg=key)


def test_streamed_file_equals_the_in_memory_rollout(tmp_path):
    kwargs = {"agents": AGENTS, "trajectories": True, "observations": True, "max_batch": 4}
    memory = distributed.rollout(GAME, 2, 6, seed=7, **kwargs)
    path = tmp_path / "streamed.npz"
    # 37 decisions at a time: many flushes and reordering blocks within each batch of 4.
    small = distributed.rollout(GAME, 2, 6, seed=7, out=str(path), chunk_decisions=37, **kwargs)
    assert "traj_observation" not in small  # the decisions went to the file only
    on_disk = distributed.load_rollout(path)
    keys = [k for k in memory if k != "meta"]
    assert sorted(k for k in on_disk if k != "meta") == sorted(keys)
    assert_same(memory, on_disk, keys)
    assert_same(memory, small, [k for k in small if k != "meta"])
    assert on_disk["meta"]["max_batch"] == 4 and on_disk["meta"]["agents"] == AGENTS
    # The in-memory result saved whole reads back the same as the streamed file.
    whole = distributed.load_rollout(distributed.save_rollout(memory, tmp_path / "whole.npz"))
    assert_same(whole, on_disk, keys)


def test_the_chunk_size_bounds_the_buffer(tmp_path):
    seats = evaluate.seat_table(5, 2, 2)
    chunks = evaluate.match_chunks(5, 3, 5)
    for chunk in (1, 23):
        recorders = []
        options = {"chunk_decisions": chunk, "meta": {}, "on_batch": recorders.append}
        path = tmp_path / f"chunk{chunk}.npz"
        out = stream_rollout(path, GAME, 2, AGENTS, seats, chunks, True, options)
        [record] = recorders
        assert isinstance(record, ChunkedRecorder)
        # At most the chunk, or one step's decisions (5 live games) when the chunk is smaller.
        assert 0 < record.peak_buffered <= max(chunk, 5)
        with np.load(path) as data:
            assert data["traj_observation"].shape[0] == out["traj_offsets"][-1]
            np.testing.assert_array_equal(np.diff(data["traj_offsets"]), data["length"])


def test_cli_observations_file_is_replayed(tmp_path, capsys):
    path = tmp_path / "obs.npz"
    argv = ["rollout", "--games", "3", "--agents", *AGENTS, "--observations", "--seed", "2"]
    assert main([*argv, "--out", str(path), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["out"] == str(path)
    with np.load(path) as data:
        offsets, actions = data["traj_offsets"], data["traj_action"]
        assert summary["decisions"] == offsets[-1]
        assert data["traj_observation"].shape[0] == offsets[-1]
        assert data["traj_mask"][np.arange(offsets[-1]), actions].all()  # legal when taken
    recording = recording_from_trajectories(path, 1)
    assert recording.actions == [int(a) for a in actions[offsets[1] : offsets[2]]]


class RecordingProgress(evaluate.MatchProgress):
    """Notes every step and every batch of finished games, in order."""

    def __init__(self, num_games):
        super().__init__(num_games, "test", enabled=False)
        self.events = []

    def step(self, live, step):
        super().step(live, step)
        self.events.append(("step", live))

    def games_ended(self, lengths, truncated):
        super().games_ended(lengths, truncated)
        self.events.append(("ended", lengths.size))


def test_match_progress_moves_within_each_game():
    progress = RecordingProgress(4)
    result = evaluate.play_match(GAME, 2, AGENTS, 4, seed=1, progress=progress, max_batch=2)
    steps = [n for kind, n in progress.events if kind == "step"]
    first_end = next(i for i, (kind, _) in enumerate(progress.events) if kind == "ended")
    assert first_end > 10  # many updates before the first game is over
    assert sum(n for kind, n in progress.events if kind == "ended") == 4
    # One count per live game per step: all the steps of all the games.
    assert sum(steps) == progress.steps == round(result["mean_length"] * 4)
    assert progress.bar.total == progress.steps  # all games over: the estimate is exact


class InterruptedAgent:
    """Plays the first legal action, then is interrupted (as by Ctrl-C) on its 41st call."""

    name = "interrupted"

    def __init__(self):
        self.calls = 0

    def act_batch(self, observations, masks):
        self.calls += 1
        if self.calls > 40:
            raise KeyboardInterrupt
        return np.argmax(masks, axis=1)


def test_an_interrupted_stream_leaves_no_file_and_no_scratch(tmp_path):
    agent = InterruptedAgent()
    with pytest.raises(KeyboardInterrupt):
        distributed.rollout(
            GAME,
            2,
            4,
            agents=[agent, "random"],
            trajectories=True,
            observations=True,
            out=str(tmp_path / "cut.npz"),
            chunk_decisions=16,  # scratch files were written before the interruption
        )
    assert agent.calls > 40
    assert list(tmp_path.iterdir()) == []
