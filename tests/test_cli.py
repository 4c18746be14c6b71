"""The ``meeple`` command line: arena, eval, bench and its error handling."""

from __future__ import annotations

import json
import math
import subprocess
import sys
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
    }
    vector = result["vector_env"]
    assert vector["runs"] and all(r["ratio"] > 0 for r in vector["runs"])


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
