"""The rating ladder (docs/baselines.md, Ladders): seeded round-robin, OpenSkill ratings, table,
PNG."""

import json

import pytest

from meeple_gym import OptionError
from meeple_gym.baselines.evaluate import make_agent
from meeple_gym.baselines.ladder import format_ladder, run_ladder
from meeple_gym.cli import main


def test_ladder_orders_agents_by_strength_and_counts_every_game():
    agents = ["random", "heuristic", "ladder_agents:FirstLegal"]
    result = run_ladder("century", 2, agents, 30, seed=3, progress=False)
    order = [r["agent"] for r in result["ratings"]]
    # The heuristic beats random in every game here, and random beats always-first-legal.
    assert order == ["heuristic", "random", "ladder_agents:FirstLegal"]
    for r in result["ratings"]:
        assert r["games"] == 2 * 30 == r["wins"] + r["draws"] + r["losses"]
        assert r["ordinal"] == pytest.approx(r["mu"] - 3 * r["sigma"])
    assert len(result["matches"]) == 3
    assert sum(r["wins"] for r in result["ratings"]) == sum(
        m["wins"] + m["losses"] for m in result["matches"]
    )
    text = format_ladder(result)
    assert text.index("heuristic") < text.index("FirstLegal")


def test_ladder_depends_only_on_the_seed():
    agents = ["random", "ladder_agents:Seeded"]
    first = run_ladder("century", 2, agents, 12, seed=9, progress=False)
    assert run_ladder("century", 2, agents, 12, seed=9, progress=False) == first
    assert run_ladder("century", 2, agents, 12, seed=10, progress=False) != first


def test_imported_agents_get_game_and_seed_and_bad_ones_are_refused():
    agent = make_agent("ladder_agents:Seeded", "century", 5)
    assert (agent.game, agent.seed) == ("century", 5)
    for bad in ("ladder_agents:Missing", "no_such_module:Agent", "ladder_agents:NoActBatch"):
        with pytest.raises(OptionError):
            make_agent(bad, "century", 0)
    with pytest.raises(OptionError):
        run_ladder("century", 2, ["random"], 4, progress=False)
    with pytest.raises(OptionError):
        run_ladder("century", 2, ["random", "random"], 4, progress=False)


def test_ladder_command_json_and_plot(capsys, tmp_path):
    png = tmp_path / "ladder.png"
    argv = ["ladder", "--game", "century", "--agents", "random", "heuristic"]
    argv += ["--games-per-pair", "10", "--json", "--plot", str(png)]
    assert main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert [r["agent"] for r in result["ratings"]] == ["heuristic", "random"]
    assert png.read_bytes().startswith(b"\x89PNG")
