"""Any agent in the evaluator (docs/pettingzoo.md, Agents): ``play_match`` and ``meeple eval`` take
agent objects (``act_batch`` or only ``act``) and ``package.module:Name`` import paths.
``tests/integrations_agents.py`` stands in for a user's package."""

import json

import integrations_agents as user
import pytest

import meeple_gym as mg
from meeple_gym import OptionError
from meeple_gym.baselines.evaluate import make_agent, play_match
from meeple_gym.baselines.random_agent import RandomAgent
from meeple_gym.cli import main


def _without_labels(result):
    return {k: v for k, v in result.items() if k != "agents"}


def test_an_agent_object_plays_like_the_agent_its_name_makes():
    # make_agent("random", game, seed + k) is RandomAgent(seed + k): passing that object
    # instead of the name must play the very same games.
    by_name = play_match("century", 2, ["random", "heuristic"], 40, seed=3, progress=False)
    by_object = play_match("century", 2, [RandomAgent(3), "heuristic"], 40, seed=3, progress=False)
    assert _without_labels(by_object) == _without_labels(by_name)
    assert by_object["agents"] == ["RandomAgent", "heuristic"]


@pytest.mark.parametrize("game", ["century", "radlands"])
def test_an_act_only_agent_plays_like_its_act_batch_twin(game):
    single = user.FirstLegalAct(obs_size=mg.get_spec(game).obs_size)
    one = play_match(game, 2, [single, "random"], 12, seed=1, progress=False)
    batch = play_match(game, 2, [user.FirstLegalBatch(), "random"], 12, seed=1, progress=False)
    assert _without_labels(one) == _without_labels(batch)
    assert single.calls > 0
    assert one["agents"] == ["FirstLegalAct", "random"]
    assert batch["agents"] == ["first-legal", "random"]  # the agent's own name attribute


def test_import_paths_name_classes_factories_and_agent_objects():
    made = make_agent("integrations_agents:FirstLegalBatch", "century")
    assert isinstance(made, user.FirstLegalBatch)
    wrapped = make_agent("integrations_agents:make_first_legal", "century", 4)
    assert isinstance(wrapped.agent, user.FirstLegalAct)  # act-only: adapted to act_batch
    assert make_agent("integrations_agents:first_legal", "century") is user.first_legal
    for bad in (object(), 42, "integrations_agents:nothing_here"):
        with pytest.raises(OptionError):
            play_match("century", 2, [bad, "random"], 2, progress=False)


def test_meeple_eval_takes_an_import_path(capsys):
    argv = ["eval", "--agents", "integrations_agents:FirstLegalAct", "heuristic"]
    assert main([*argv, "--games", "10", "--seed", "2", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["agents"] == ["integrations_agents:FirstLegalAct", "heuristic"]
    assert result["wins"] + result["draws"] + result["losses"] == 10
    same = play_match("century", 2, [user.FirstLegalAct(), "heuristic"], 10, seed=2, progress=False)
    assert _without_labels(result) == json.loads(json.dumps(_without_labels(same)))
