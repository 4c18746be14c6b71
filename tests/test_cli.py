"""The ``meeple`` command line: arena, eval, bench and its error handling."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import meeple_gym as mg
from meeple_gym.baselines.evaluate import seat_table
from meeple_gym.cli import main
from meeple_gym.core.sampling import policy_words, random_legal_actions

ROOT = Path(__file__).resolve().parent.parent


def run_json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def wilson(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval from its textbook formula (independent of scipy)."""
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return centre - half, centre + half


def test_eval_json_keys_and_counts(capsys):
    games = 24
    result = run_json(
        capsys,
        [
            "eval",
            "--game",
            "century",
            "--players",
            "2",
            "--agents",
            "heuristic",
            "random",
            "--games",
            str(games),
            "--seed",
            "3",
            "--json",
        ],
    )
    for key in ("wins", "draws", "losses", "win_rate", "ci_low", "ci_high"):
        assert key in result
    assert result["wins"] + result["draws"] + result["losses"] == games
    assert result["win_rate"] == pytest.approx(result["wins"] / games)
    low, high = wilson(result["wins"], games)
    assert result["ci_low"] == pytest.approx(low, abs=1e-9)
    assert result["ci_high"] == pytest.approx(high, abs=1e-9)
    assert 0.0 <= result["ci_low"] <= result["win_rate"] <= result["ci_high"] <= 1.0
    # The heuristic plans towards point cards; uniform-random play rarely claims any.
    assert result["wins"] > result["losses"]
    # Seats rotate game by game, so with 2 players the first agent sits in each seat 12 times
    # and can win at most that often in each.
    assert sum(result["wins_by_seat"]) == result["wins"]
    assert all(w <= games // 2 for w in result["wins_by_seat"])


def test_eval_is_reproducible(capsys):
    argv = ["eval", "--agents", "random", "random", "--games", "30", "--seed", "11", "--json"]
    first = run_json(capsys, argv)
    again = run_json(capsys, argv)
    assert first == again
    assert first["wins"] + first["draws"] + first["losses"] == 30


def test_eval_more_players_two_agents(capsys):
    result = run_json(
        capsys, ["eval", "--players", "3", "--agents", "random", "random", "--games", "9", "--json"]
    )
    assert result["num_players"] == 3
    assert result["wins"] + result["draws"] + result["losses"] == 9


def test_eval_text_output(capsys):
    assert main(["eval", "--agents", "heuristic", "random", "--games", "6"]) == 0
    out = capsys.readouterr().out
    assert "wins" in out and "draws" in out and "losses" in out
    assert "95% CI" in out


def test_arena_json_has_one_row_per_game(capsys):
    rows = run_json(capsys, ["arena", "--games", "8", "--rollout-games", "40", "--json"])
    assert [r["game"] for r in rows] == mg.available_games()
    for r in rows:
        assert r["players"] == 2
        assert 0.0 <= r["ci_low"] <= r["heuristic_win_rate"] <= r["ci_high"] <= 1.0
        assert r["steps_per_s"] > 0 and r["games_per_s"] > 0
        # Every complete game takes more than one sub-decision.
        assert r["steps_per_s"] > r["games_per_s"]


def test_arena_table(capsys):
    assert main(["arena", "--games", "4", "--rollout-games", "20"]) == 0
    out = capsys.readouterr().out
    for game in mg.available_games():
        assert game in out
    assert "steps/s" in out and "games/s" in out


def test_bench_quick_json_keys(capsys, tmp_path):
    out_file = tmp_path / "bench.json"
    result = run_json(
        capsys, ["bench", "--game", "century", "--quick", "--json", "--out", str(out_file)]
    )
    assert json.loads(out_file.read_text()) == result
    png = out_file.with_suffix(".png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000  # the plot beside the JSON
    for key in (
        "machine",
        "state_bytes_per_game",
        "startup",
        "batched_step",
        "rollout",
        "aec",
        "reference",
        "targets",
    ):
        assert key in result
    assert result["state_bytes_per_game"] == mg.get_spec("century").state_dtype.itemsize
    assert result["quick"] is True
    sizes = {r["batch_size"] for r in result["batched_step"]["runs"]}
    assert 1 in sizes and max(sizes) < 65536  # --quick skips the largest batches
    assert {r["num_players"] for r in result["rollout"]["runs"]} == {2, 3, 4, 5}
    for run in result["rollout"]["runs"]:
        assert run["games_per_s"] > 0 and run["steps"] > run["games"]
    start = result["startup"]
    # A cold start compiles, so it cannot beat a warm start from the filled cache.
    assert start["cold_compile_s"] > start["warm_start_s"] > 0
    assert {t["name"] for t in result["targets"]} == {
        "batched_steps_per_s",
        "rollout_games_per_s_max_players",
        "aec_steps_per_s",
        "warm_start_s",
        "vector_env_vs_batch_ratio",
        "vector_env_per_game_step_ratio",
    }
    vector = result["vector_env"]
    assert vector["runs"] and all(r["ratio"] > 0 for r in vector["runs"])
    assert {r["opponent"] for r in vector["runs"]} == {"random", "self"}
    for r in vector["runs"]:
        # A random-opponent learner step holds the opponent's moves too; self-play one move.
        assert r["game_steps_per_learner_step"] >= 1.0
        if r["opponent"] == "self":
            assert r["game_steps_per_learner_step"] == 1.0
    # The thread policy in force, and the threads it ran per batch size and requested count.
    policy = result["thread_policy"]
    assert policy["mode"] in ("auto", "batch", "fixed") and policy["free_cores"] >= 1
    for run in result["batched_step"]["runs"]:
        assert 1 <= run["policy_threads"] <= run["threads"]
        if run["batch_size"] < policy["parallel_min_batch"] and policy["mode"] != "fixed":
            assert run["policy_threads"] == 1
    from meeple_gym import bench

    summary = bench.format_summary(result)
    assert f"thread policy: {policy['mode']}" in summary and "threads the policy ran" in summary


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["eval", "--game", "no-such-game", "--games", "2"], "unknown game"),
        (["eval", "--players", "9", "--games", "2"], "players"),
        (["eval", "--agents", "heuristic", "wizard", "--games", "2"], "unknown agent"),
        (["eval", "--players", "4", "--agents", "a", "b", "c", "--games", "2"], "agents"),
        (["bench", "--game", "no-such-game"], "unknown game"),
    ],
)
def test_errors_exit_2_with_message(capsys, argv, fragment):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert fragment in captured.err
    assert captured.out == ""


def test_usage_error_exit_code_from_a_real_process():
    proc = subprocess.run(
        [sys.executable, "-m", "meeple_gym.cli", "eval", "--game", "nope", "--games", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2
    assert "unknown game" in proc.stderr


def test_bad_games_value_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["eval", "--games", "0"])
    assert exc.value.code == 2
    assert "--games" in capsys.readouterr().err


# ---- mistakes: one line on stderr, exit status 2, before any work ------------------------


def one_line_error(capsys, argv) -> str:
    """The single stderr line of a command that must fail with status 2 and print nothing on
    stdout (argparse's own errors end in SystemExit(2), the others in main's return value)."""
    try:
        status = main(argv)
    except SystemExit as exc:
        status = exc.code
    captured = capsys.readouterr()
    assert status == 2, captured.err
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith(f"meeple {argv[0]}: error: ")
    return lines[0]


MISTAKES = [
    # agent specs
    (["eval", "--agents", "json:dumps", "random"], "'json:dumps' cannot be made"),
    (["eval", "--agents", ":", "random"], "not an import path"),
    (["eval", "--agents", "os:", "random"], "not an import path"),
    (["eval", "--agents", "nonexistent.module:X", "random"], "No module named 'nonexistent'"),
    (["eval", "--agents", "meeple_gym:available_games", "random"], "neither act_batch"),
    (["eval", "--agents", "heuristic:foo", "random"], "takes no parameters"),
    (["eval", "--agents", "ismcts:sims=abc", "random"], "sims must be an integer"),
    (["eval", "--agents", "ismcts:bogus=1", "random"], "bad parameter 'bogus=1'"),
    (["ladder", "--agents", "random", "json:dumps"], "'json:dumps' cannot be made"),
    (["rollout", "--agents", ":"], "not an import path"),
    # numbers
    (["eval", "--seed", "-1"], "argument --seed: must be at least 0"),
    (["eval", "--seed", str(2**64)], f"argument --seed: must be at most {2**64 - 1}"),
    (["arena", "--seed", "-1"], "argument --seed"),
    (["ladder", "--seed", "-1"], "argument --seed"),
    (["rollout", "--seed", "x"], "argument --seed: must be an integer"),
    (["rollout", "--games", str(2**63)], f"argument --games: must be at most {2**63 - 1}"),
    (["ladder", "--games-per-pair", "0"], "argument --games-per-pair: must be at least 1"),
    (["eval", "--players", "abc"], "argument --players"),
    (["rollout", "--players", "1"], "2 to 5 players"),
    (["warmup", "--workers", "0"], "argument --workers"),
    (["eval", "--backend", "local", "--address", "auto"], "address"),
    # output paths
    (["rollout", "--out", "{tmp}/missing/games.npz"], "folder '{tmp}/missing' does not exist"),
    (["rollout", "--out", "{tmp}"], "it is a folder"),
    (["rollout", "--out", "{file}/games.npz"], "is not a folder"),
    (["rollout", "--out", ""], "non-empty file name"),
    (["ladder", "--plot", "{tmp}/missing/ladder.png"], "does not exist"),
    (["ladder", "--plot", "{tmp}"], "it is a folder"),
    (["ladder", "--plot", "{tmp}/ladder.txt"], "ending in .png"),
    (["bench", "--out", "{tmp}/missing/bench.json"], "does not exist"),
    (["bench", "--plot", "{tmp}"], "it is a folder"),
    (["bench", "--out", "{tmp}/bench.png"], "--out and the plot would both be"),
    # the plot beside --out (bench.png) would land on a folder
    (["bench", "--out", "{tmp}/sub/bench.json"], "it is a folder"),
]


@pytest.mark.parametrize("argv, fragment", MISTAKES)
def test_mistakes_print_one_line_and_exit_2_before_any_work(
    capsys, tmp_path, monkeypatch, argv, fragment
):
    from meeple_gym.core import warmup

    def no_work(*args, **kwargs):  # every command warms its kernels before it plays
        raise AssertionError("the mistake was not reported before the work started")

    monkeypatch.setattr(warmup, "ensure_warm", no_work)
    (tmp_path / "a-file").write_text("")
    (tmp_path / "sub" / "bench.png").mkdir(parents=True)
    argv = [a.format(tmp=tmp_path, file=tmp_path / "a-file") for a in argv]
    if argv[0] in ("eval", "rollout"):
        argv += ["--games", "2"]
    line = one_line_error(capsys, argv)
    assert fragment.format(tmp=tmp_path) in line
    assert "Traceback" not in line


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux /proc")
def test_an_unwritable_folder_is_refused_at_once(capsys):
    # /proc refuses new files even to root, who may write into any chmod-ed folder.
    line = one_line_error(capsys, ["rollout", "--games", "2", "--out", "/proc/games.npz"])
    assert "cannot write '/proc/games.npz'" in line


def test_too_many_games_is_one_line(capsys):
    # 10**15 games: the result arrays alone need petabytes, so allocation fails at once.
    line = one_line_error(capsys, ["rollout", "--games", str(10**15)])
    assert "out of memory" in line


def test_ctrl_c_is_130_and_bugs_keep_their_traceback(capsys, monkeypatch):
    from meeple_gym import distributed

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(distributed, "play_match", interrupted)
    try:
        status = main(["eval", "--games", "2", "--json"])
    except KeyboardInterrupt:  # as a failure of this test, not as a stop of the whole run
        pytest.fail("Ctrl-C escaped main() instead of ending it with status 130")
    assert status == 130
    assert capsys.readouterr().err.splitlines() == ["meeple eval: interrupted"]

    def bug(*args, **kwargs):
        raise RuntimeError("an internal bug")

    monkeypatch.setattr(distributed, "play_match", bug)
    with pytest.raises(RuntimeError, match="an internal bug"):  # not swallowed as exit 2
        main(["eval", "--games", "2", "--json"])


@pytest.mark.parametrize("command", ["eval", "ladder", "rollout"])
def test_ray_without_a_cluster_is_one_line_before_any_work(capsys, monkeypatch, command):
    ray = pytest.importorskip("ray")
    from meeple_gym.core import warmup

    # What ray.init(address="auto") raises when no cluster runs (whether one runs on this
    # machine is not up to the test, so Ray's answer is replayed).
    def no_cluster(*args, **kwargs):
        raise ConnectionError("Could not find any running Ray instance.")

    def no_work(*args, **kwargs):
        raise AssertionError("the mistake was not reported before the work started")

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", no_cluster)
    monkeypatch.setattr(warmup, "ensure_warm", no_work)
    argv = [command, "--backend", "ray", "--address", "auto", "--json"]
    argv += ["--games-per-pair", "2"] if command == "ladder" else ["--games", "2"]
    line = one_line_error(capsys, argv)
    assert "cannot join Ray at 'auto': Could not find any running Ray instance." in line


# ``python -m meeple_gym.cli`` (which runs ``sys.exit(main())``), with SIGINT handled as at a
# terminal. A process started in the background by a non-interactive shell (``(cmd &)``, as some
# CI runners do) inherits SIGINT ignored, and Python then installs no KeyboardInterrupt
# handler: the child would ignore the test's Ctrl-C and play its million games on (reproduced;
# the likely cause of this test's CI hangs). Restored in the child itself rather than in a
# preexec_fn, which is not safe with the threads of a pytest-xdist worker.
CLI_WITH_SIGINT = (
    "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "from meeple_gym.cli import main; sys.exit(main())"
)


def test_ctrl_c_ends_a_rollout_with_130_and_no_output_file(tmp_path):
    from meeple_gym.core.warmup import ensure_warm

    ensure_warm(["century"], parts=("batch",))  # the child then prints nothing before it plays
    out = tmp_path / "games.npz"
    started = tmp_path / "started"
    tests = str(ROOT / "tests")
    # PYTHONFAULTHANDLER: a child that hangs after SIGINT dumps its threads' stacks on SIGABRT.
    env = dict(os.environ, MEEPLE_TEST_STARTED=str(started), PYTHONFAULTHANDLER="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [tests, env.get("PYTHONPATH")]))
    argv = ["rollout", "--games", "1000000", "--agents", "cli_agents:SignalsStart", "random"]
    proc = subprocess.Popen(
        [sys.executable, "-c", CLI_WITH_SIGINT, *argv, "--json", "--out", str(out)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 600  # a bound for a stuck child, not a timing check
        while not started.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert started.exists() and proc.poll() is None, "the rollout never started playing"
        proc.send_signal(signal.SIGINT)
        try:
            stdout, stderr = proc.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGABRT)  # faulthandler writes where each thread is
            _, stacks = proc.communicate(timeout=60)
            pytest.fail(f"the rollout did not end within 300 s of SIGINT; its stacks:\n{stacks}")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, stderr
    assert stderr.splitlines() == ["meeple rollout: interrupted"]
    assert stdout == ""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["started"]  # no file, no temp file


# ---- helpers behind the commands ----------------------------------------------------------


def test_random_legal_actions_picks_legal_uniform_actions():
    rows, legal = 8000, [3, 17, 40, 78]
    masks = np.zeros((rows, 79), dtype=np.int8)
    masks[:, legal] = 1
    masks[5] = 0  # a row with nothing legal
    out = np.zeros(rows, dtype=np.int64)
    random_legal_actions(masks, policy_words(1, rows), out)
    assert out[5] == -1
    picks = np.delete(out, 5)
    assert set(picks.tolist()) <= set(legal)
    # Chi-square against the uniform distribution (3 degrees of freedom): 30 is far past
    # the 99.99th percentile (~21), so only a real bias fails this.
    counts = np.array([np.sum(picks == a) for a in legal])
    expected = picks.size / len(legal)
    assert np.sum((counts - expected) ** 2 / expected) < 30


def test_random_legal_actions_rows_do_not_depend_on_batch_size():
    rng = np.random.default_rng(0)
    masks = (rng.random((64, 79)) < 0.3).astype(np.int8)
    small, large = np.zeros(16, dtype=np.int64), np.zeros(64, dtype=np.int64)
    random_legal_actions(masks[:16], policy_words(9, 16), small)
    random_legal_actions(masks, policy_words(9, 64), large)
    assert np.array_equal(small, large[:16])


@pytest.mark.parametrize("num_players, num_agents", [(2, 2), (3, 3), (4, 2), (5, 5)])
def test_seat_rotation_is_balanced(num_players, num_agents):
    seats = seat_table(4 * num_players, num_players, num_agents)
    # The first agent holds exactly one seat per game and each seat equally often.
    assert np.all(np.sum(seats == 0, axis=1) == 1)
    assert np.all(np.sum(seats == 0, axis=0) == 4)
    if num_agents == num_players:  # every agent is seated once per game
        assert np.all(np.sort(seats, axis=1) == np.arange(num_players))


def test_warmup_compiles_in_workers_and_marks_the_game_warm(capsys, tmp_path, monkeypatch):
    # An empty cache root of its own: the game starts cold, so the marker must appear.
    monkeypatch.setenv("MEEPLE_GYM_CACHE_DIR", str(tmp_path))
    from meeple_gym.core import warmup

    assert not warmup.is_warm("century")
    result = run_json(capsys, ["warmup", "--game", "century", "--workers", "2", "--json"])
    assert result["games"] == ["century"]
    assert sorted(result["compile_s"]["century"]) == sorted(warmup.PARTS)
    assert result["cache"]["century"].startswith(str(tmp_path))
    assert warmup.is_warm("century")
    # Warm now: nothing left to compile, and nothing is said.
    assert warmup.ensure_warm(["century"]) == []
    assert "compiling" not in capsys.readouterr().err


def test_warmup_refuses_an_unknown_game(capsys):
    assert main(["warmup", "--game", "chess"]) == 2
    assert "chess" in capsys.readouterr().err


def test_a_closed_stdout_pipe_ends_quietly():
    from meeple_gym.core.warmup import ensure_warm

    ensure_warm(["century"], parts=("batch",))  # the child then has nothing to say on stderr
    proc = subprocess.Popen(
        [sys.executable, "-m", "meeple_gym.cli", "eval", "--games", "2", "--json"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    proc.stdout.close()  # like `| head` that has already quit: the result cannot be printed
    stderr = proc.stderr.read()
    proc.wait()
    assert proc.returncode == 141
    assert stderr == ""


# ---- writers: whole files or none ---------------------------------------------------------


def _write_partial_then_interrupt(target):
    """Write a few bytes to ``target`` (a path or a file object), then act like Ctrl-C."""
    if hasattr(target, "write"):
        target.write(b"partial")
    else:
        Path(target).write_bytes(b"partial")
    raise KeyboardInterrupt


def test_an_interrupted_rollout_save_keeps_the_previous_file(tmp_path, monkeypatch):
    from meeple_gym import distributed

    out = tmp_path / "games.npz"
    out.write_bytes(b"the previous run")
    monkeypatch.setattr(
        np, "savez_compressed", lambda f, **arrays: _write_partial_then_interrupt(f)
    )
    with pytest.raises(KeyboardInterrupt):
        distributed.save_rollout({"length": np.arange(3), "meta": {}}, out)
    assert out.read_bytes() == b"the previous run"
    assert [p.name for p in tmp_path.iterdir()] == ["games.npz"]  # no temporary file left


def test_an_interrupted_plot_leaves_no_file(tmp_path, monkeypatch):
    from matplotlib.figure import Figure

    from meeple_gym.baselines.ladder import plot_ladder

    result = {
        "game": "century",
        "num_players": 2,
        "games_per_pair": 2,
        "ratings": [{"agent": "random", "mu": 25.0, "sigma": 8.0}],
    }
    monkeypatch.setattr(Figure, "savefig", lambda self, f, **kw: _write_partial_then_interrupt(f))
    with pytest.raises(KeyboardInterrupt):
        plot_ladder(result, tmp_path / "ladder.png")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("command", ["", "arena", "eval", "ladder", "rollout", "bench", "warmup"])
def test_every_help_lists_the_games_and_the_defaults(command, capsys):
    argv = [command, "--help"] if command else ["--help"]
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 0
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps lines
    if command in ("", "eval", "ladder", "rollout", "bench", "warmup"):
        assert ", ".join(mg.available_games()) in text
    if command:
        assert "(default: " in text
    if command in ("eval", "ladder", "rollout"):
        assert "players per game (default: 2)" in text
        assert "seed (default: 0)" in text
