"""Rollouts, matches and ladders on Ray (docs/distributed.md): the same results as the local run,
bit for bit, whatever the number of workers, also when a worker dies and its task is retried.

One local Ray instance (2 CPUs) serves the whole module; tests that need no Ray run without it.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest
from support import local_ray

import meeple_gym as mg
from meeple_gym import distributed
from meeple_gym.baselines.evaluate import play_match
from meeple_gym.baselines.ladder import run_ladder
from meeple_gym.cli import main
from meeple_gym.core.errors import OptionError

GAME = "century"


@pytest.fixture(scope="module")
def ray():
    yield from local_ray()


def assert_same_arrays(expected: dict, got: dict):
    keys = sorted(k for k in expected if k != "meta")
    assert sorted(k for k in got if k != "meta") == keys
    for key in keys:
        assert got[key].dtype == expected[key].dtype, key
        np.testing.assert_array_equal(got[key], expected[key], err_msg=key)


def reference_rollout(num_games, seed, num_players=2):
    """The in-kernel rollout the distributed one must reproduce."""
    return mg.make_batch(GAME, 1, num_players, seed=seed).random_rollout(num_games)


# ---------------------------------------------------------------- without Ray


def test_random_shards_replay_the_same_games_in_any_split():
    expected = reference_rollout(90, seed=11)
    for size in (90, 31, 7):
        jobs = [
            {"game": GAME, "num_players": 2, "seed": 11, "first": f, "count": min(size, 90 - f)}
            for f in range(0, 90, size)
        ]
        parts = [distributed.random_rollout_shard(job) for job in jobs]
        assert_same_arrays(expected, distributed.merge_shards(parts))


def test_local_rollout_is_the_batch_rollout():
    out = distributed.rollout(GAME, 3, 40, seed=5)
    assert_same_arrays(reference_rollout(40, seed=5, num_players=3), out)
    assert out["meta"]["agents"] is None


def test_agent_rollout_agrees_with_play_match_and_records_every_decision():
    agents = ["random", "heuristic"]
    out = distributed.rollout(
        GAME, 2, 40, seed=3, agents=agents, trajectories=True, observations=True, max_batch=16
    )
    match = play_match(GAME, 2, agents, 40, seed=3, progress=False, max_batch=16)
    rows = np.arange(40)
    winning = np.where(
        out["winner"] >= 0, out["seat_agent"][rows, np.maximum(out["winner"], 0)], out["winner"]
    )
    assert winning.tolist() == match["winning_agent"]
    assert out["length"].mean() == match["mean_length"]
    # One recorded decision per step of each game, by the seat whose turn it was.
    offsets = out["traj_offsets"]
    np.testing.assert_array_equal(np.diff(offsets), out["length"])
    spec = mg.get_spec(GAME)
    obs_size = mg.make_batch(GAME, 1, 2).reset().shape[1]
    assert out["traj_observation"].shape == (offsets[-1], obs_size)
    assert out["traj_mask"].shape == (offsets[-1], spec.num_actions)
    taken = out["traj_mask"][np.arange(offsets[-1]), out["traj_action"]]
    assert taken.all()  # every recorded action was legal where it was taken


def test_trajectory_replays_to_the_recorded_result():
    """A game rebuilt from its recorded actions (slot ``i`` of a batch with the match seed, as
    docs/distributed.md says) is played by the recorded seats and ends with the recorded
    scores."""
    out = distributed.rollout(GAME, 2, 5, seed=8, agents=["heuristic"], trajectories=True)
    game = 3
    batch = mg.make_batch(GAME, game + 1, 2, seed=8)
    batch.reset()
    span = slice(out["traj_offsets"][game], out["traj_offsets"][game + 1])
    for action, player in zip(out["traj_action"][span], out["traj_player"][span], strict=True):
        assert batch.current_player[game] == player
        step = batch.legal_mask.argmax(axis=1)  # any legal move for the other slots
        step[game] = action
        _, _, terminated, truncated = batch.step(step)
    assert terminated[game] or truncated[game]
    np.testing.assert_array_equal(batch.final_scores[game][:2], out["scores"][game])


def test_save_and_load(tmp_path):
    out = distributed.rollout(GAME, 2, 12, seed=2, agents=["random"], trajectories=True)
    path = distributed.save_rollout(out, tmp_path / "games.npz")
    back = distributed.load_rollout(path)
    assert_same_arrays(out, back)
    assert back["meta"] == json.loads(json.dumps(out["meta"]))
    with np.load(path) as raw:  # plain NumPy reads it, no pickle
        assert raw["traj_offsets"][-1] == raw["traj_action"].shape[0]


def test_cli_rollout_with_agents_writes_trajectories(tmp_path, capsys):
    path = tmp_path / "games.npz"
    argv = ["rollout", "--games", "6", "--agents", "heuristic", "random", "--trajectories"]
    assert main([*argv, "--seed", "4", "--out", str(path)]) == 0
    text = capsys.readouterr().out
    assert "heuristic vs random: 6 games" in text and str(path) in text
    games = distributed.load_rollout(path)
    assert games["meta"]["agents"] == ["heuristic", "random"]
    np.testing.assert_array_equal(np.diff(games["traj_offsets"]), games["length"])
    assert "traj_observation" not in games  # only with --observations


def test_bad_arguments():
    with pytest.raises(OptionError, match="backend"):
        distributed.rollout(GAME, 2, 4, backend="dask")
    with pytest.raises(OptionError, match="address"):
        distributed.rollout(GAME, 2, 4, address="auto")
    with pytest.raises(OptionError, match="agents"):
        distributed.rollout(GAME, 2, 4, trajectories=True)
    with pytest.raises(OptionError, match="trajectories"):
        distributed.rollout(GAME, 2, 4, agents=["random"], observations=True)
    from meeple_gym.baselines.random_agent import RandomAgent

    with pytest.raises(OptionError, match="name or import path"):
        distributed.play_match(GAME, 2, [RandomAgent(0), "random"], 4, backend="ray")
    with pytest.raises(OptionError, match="unknown agent"):
        distributed.rollout(GAME, 2, 4, agents=["nobody"], backend="ray")
    assert main(["rollout", "--games", "3", "--trajectories"]) == 2


# ---------------------------------------------------------------- on Ray


def test_random_rollout_on_ray_equals_local(ray):
    expected = reference_rollout(150, seed=21)
    for workers, shard in ((1, None), (2, 23)):
        out = distributed.rollout(
            GAME, 2, 150, seed=21, backend="ray", num_workers=workers, shard_games=shard
        )
        assert_same_arrays(expected, out)


def test_agent_rollout_on_ray_equals_local(ray):
    kwargs = {"agents": ["random", "heuristic"], "trajectories": True, "max_batch": 16}
    local = distributed.rollout(GAME, 2, 40, seed=6, **kwargs)
    assert_same_arrays(local, distributed.rollout(GAME, 2, 40, seed=6, backend="ray", **kwargs))


def test_eval_on_ray_equals_local(ray):
    agents = ["random", "heuristic"]
    local = play_match(GAME, 3, agents, 40, seed=9, progress=False, max_batch=16)
    for workers in (1, 2):
        got = distributed.play_match(
            GAME, 3, agents, 40, 9, False, 16, backend="ray", num_workers=workers
        )
        assert got == local


def test_ladder_on_ray_equals_local(ray):
    # An import path too: the workers import it themselves.
    agents = ["random", "heuristic", "meeple_gym.baselines.random_agent:RandomAgent"]
    local = run_ladder(GAME, 2, agents, 10, seed=4, progress=False)
    got = distributed.run_ladder(GAME, 2, agents, 10, seed=4, progress=False, backend="ray")
    assert got == local


def test_cli_on_ray_equals_local(ray, tmp_path, capsys):
    args = ["--game", GAME, "--games", "60", "--seed", "3", "--json"]
    assert main(["rollout", *args, "--out", str(tmp_path / "local.npz")]) == 0
    assert main(["rollout", *args, "--out", str(tmp_path / "ray.npz"), "--backend", "ray"]) == 0
    assert_same_arrays(
        distributed.load_rollout(tmp_path / "local.npz"),
        distributed.load_rollout(tmp_path / "ray.npz"),
    )
    capsys.readouterr()
    evals = []
    for backend in ("local", "ray"):
        assert main(["eval", *args, "--backend", backend, "--workers", "2"]) == 0
        evals.append(json.loads(capsys.readouterr().out))
    assert evals[0] == evals[1]


def test_worker_error_reaches_the_caller(ray):
    job = {"game": "no-such-game", "num_players": 2, "seed": 0, "first": 0, "count": 1}
    with pytest.raises(mg.UnknownGameError):
        distributed.run_on_ray(distributed.random_rollout_shard, [job])


def test_worker_dying_mid_run_is_retried_with_identical_results(ray, tmp_path):
    flag = str(tmp_path / "crashed")

    def crash_once(job):
        # The first task to get here kills its worker process (no cleanup, like an OOM kill
        # or a lost node); Ray retries that task on a new worker.
        try:
            os.close(os.open(flag, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            return distributed.random_rollout_shard(job)
        os._exit(1)

    jobs = [
        {"game": GAME, "num_players": 2, "seed": 13, "first": f, "count": 20}
        for f in range(0, 80, 20)
    ]
    parts = distributed.run_on_ray(crash_once, jobs, num_workers=2, max_retries=2)
    assert os.path.exists(flag)
    assert_same_arrays(reference_rollout(80, seed=13), distributed.merge_shards(parts))
    os.remove(flag)  # the same crash with no retries left is an error, not a silent gap
    with pytest.raises(ray.exceptions.WorkerCrashedError):
        distributed.run_on_ray(crash_once, jobs[:1], max_retries=0)
