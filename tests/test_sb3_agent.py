"""Saved SB3 models as agents: ``make_agent("sb3:PATH.zip", ...)``, ``meeple eval`` and
``meeple ladder`` (meeple_gym.baselines.sb3_agent), and progress within long games."""

import zipfile

import numpy as np
import pytest

pytest.importorskip("stable_baselines3", reason="sb3 agents need stable-baselines3")
pytest.importorskip("sb3_contrib", reason="MaskablePPO comes from sb3-contrib")

from sb3_contrib import MaskablePPO  # noqa: E402
from stable_baselines3 import A2C, PPO  # noqa: E402

import meeple_gym as mg  # noqa: E402
from meeple_gym import cli  # noqa: E402
from meeple_gym.baselines import evaluate  # noqa: E402
from meeple_gym.baselines.evaluate import make_agent, play_match  # noqa: E402
from meeple_gym.baselines.sb3_agent import Sb3Agent  # noqa: E402
from meeple_gym.sb3 import make_sb3_vec_env  # noqa: E402


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    """A tiny MaskablePPO and a tiny PPO trained a few hundred steps on Century."""
    root = tmp_path_factory.mktemp("sb3_models")
    out = {}
    for name, cls in (("maskable", MaskablePPO), ("ppo", PPO)):
        venv = make_sb3_vec_env("century", 8, seed=0)  # "lose": unmasked PPO can train
        model = cls("MlpPolicy", venv, n_steps=32, batch_size=64, n_epochs=1, seed=0)
        model.learn(256)
        model.save(root / name)  # SB3 adds .zip
        out[name] = root / f"{name}.zip"
    return out


def legal_play(agent, game="century", n=16, steps=300, seed=0):
    """Step a batch with ``agent`` playing every seat; returns the number of decisions."""
    batch = mg.make_batch(game, n, 2, seed)
    obs = batch.reset()
    decisions = 0
    for _ in range(steps):
        masks = batch.legal_mask.copy()
        actions = agent.act_batch(obs, masks)
        assert actions.shape == (n,) and actions.dtype == np.int64
        assert masks[np.arange(n), actions].all(), "an illegal action"
        decisions += n
        obs, *_ = batch.step(actions)
    return decisions


@pytest.mark.parametrize("kind", ["maskable", "ppo"])
def test_spec_makes_an_agent_that_plays_only_legal_moves(models, kind):
    agent = make_agent(f"sb3:{models[kind]}", "century", 0)
    assert isinstance(agent, Sb3Agent)
    assert agent.algo == ("MaskablePPO" if kind == "maskable" else "PPO")
    assert agent.name == f"sb3:{models[kind]}"
    assert legal_play(agent) == 16 * 300


def test_plain_ppo_masks_the_logits(models):
    """The tiny PPO's own favourite is often illegal; the agent still picks the legal action
    the policy likes best."""
    import torch

    agent = make_agent(f"sb3:{models['ppo']}", "century", 0)
    batch = mg.make_batch("century", 64, 2, 3)
    obs = batch.reset()
    masks = batch.legal_mask.astype(bool)
    policy = agent.model.policy
    with torch.no_grad():
        logits = policy.get_distribution(policy.obs_to_tensor(obs)[0]).distribution.logits
    logits = logits.numpy()
    unmasked = logits.argmax(axis=1)
    assert not masks[np.arange(64), unmasked].all()  # the mask matters here
    best_legal = np.where(masks, logits, -np.inf).argmax(axis=1)
    np.testing.assert_array_equal(agent.act_batch(obs, masks), best_legal)


def test_maskable_agent_asks_predict_once_per_batch_with_the_masks(models, monkeypatch):
    agent = make_agent(f"sb3:{models['maskable']}", "century", 0)
    calls = []
    real = agent.model.predict

    def spy(obs, **kwargs):
        calls.append((obs.shape, kwargs["action_masks"].shape))
        return real(obs, **kwargs)

    monkeypatch.setattr(agent.model, "predict", spy)
    batch = mg.make_batch("century", 32, 2, 0)
    obs = batch.reset()
    agent.act_batch(obs, batch.legal_mask)
    assert calls == [((32, obs.shape[1]), (32, batch.legal_mask.shape[1]))]


def test_sampling_agent_is_legal_and_seeded(models):
    path = models["maskable"]
    batch = mg.make_batch("century", 64, 2, 1)
    obs = batch.reset()
    masks = batch.legal_mask
    a, b, c = (Sb3Agent(path, "century", s, deterministic=False) for s in (5, 5, 6))
    acts = [x.act_batch(obs, masks) for x in (a, b, c)]
    np.testing.assert_array_equal(acts[0], acts[1])
    assert masks[np.arange(64), acts[2]].all()
    assert legal_play(Sb3Agent(path, "century", 0, deterministic=False), steps=100) == 1600


def test_play_match_and_opponent_in_the_vector_env(models):
    spec = f"sb3:{models['maskable']}"
    result = play_match("century", 2, [spec, "random"], 6, seed=0, progress=False)
    assert result["agents"] == [spec, "random"]
    assert result["wins"] + result["draws"] + result["losses"] == 6
    assert "truncated" in result
    # The same spec works as the batched vector env's opponent (asked through act_batch).
    venv = make_sb3_vec_env("century", 4, seed=0, opponent=spec)
    venv.reset()
    rng = np.random.default_rng(0)
    for _ in range(50):
        masks = venv.action_masks()
        venv.step((rng.random(masks.shape) * masks).argmax(axis=1))


def test_meeple_eval_takes_an_sb3_model_and_prints_truncations(models, capsys):
    code = cli.main(
        ["eval", "--game", "century", "--agents", f"sb3:{models['maskable']}", "random"]
        + ["--games", "4"]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "truncated" in out and "4 games" in out
    code = cli.main(
        ["eval", "--game", "century", "--agents", f"sb3:{models['ppo']}", "random"]
        + ["--games", "4", "--json"]
    )
    assert code == 0
    assert '"truncated"' in capsys.readouterr().out


def test_meeple_ladder_takes_sb3_models(models, capsys):
    agents = [f"sb3:{models['maskable']}", f"sb3:{models['ppo']}", "random"]
    code = cli.main(["ladder", "--agents", *agents, "--games-per-pair", "2", "--json"])
    assert code == 0
    out = capsys.readouterr().out
    assert all(a in out for a in agents) and '"truncated"' in out


def test_bad_paths_give_an_option_error_naming_the_path(models, tmp_path):
    missing = tmp_path / "nope.zip"
    with pytest.raises(mg.OptionError, match="nope.zip.*does not exist"):
        make_agent(f"sb3:{missing}", "century", 0)
    text = tmp_path / "notes.zip"
    text.write_text("not a model")
    with pytest.raises(mg.OptionError, match="notes.zip.*not a zip"):
        make_agent(f"sb3:{text}", "century", 0)
    other = tmp_path / "other.zip"
    with zipfile.ZipFile(other, "w") as z:
        z.writestr("readme.txt", "a zip, but no SB3 model")
    with pytest.raises(mg.OptionError, match="other.zip.*not a saved SB3 model"):
        make_agent(f"sb3:{other}", "century", 0)
    with pytest.raises(mg.OptionError, match="is a directory"):
        make_agent(f"sb3:{tmp_path}", "century", 0)
    with pytest.raises(mg.OptionError, match="empty model path"):
        make_agent("sb3:", "century", 0)
    # A Century model asked to play Radlands: the observation sizes differ.
    with pytest.raises(mg.OptionError, match=r"maskable\.zip.*another game"):
        make_agent(f"sb3:{models['maskable']}", "radlands", 0)


def test_other_algorithms_are_refused_by_name(tmp_path):
    venv = make_sb3_vec_env("century", 2, seed=0)
    A2C("MlpPolicy", venv, n_steps=4, seed=0).save(tmp_path / "a2c")
    with pytest.raises(mg.OptionError, match="a2c.zip.*not a PPO or MaskablePPO"):
        make_agent(f"sb3:{tmp_path / 'a2c.zip'}", "century", 0)


def test_cli_reports_a_bad_model_path(tmp_path, capsys):
    code = cli.main(["eval", "--agents", f"sb3:{tmp_path / 'gone.zip'}", "random", "--games", "2"])
    assert code != 0
    err = capsys.readouterr().err
    assert "gone.zip" in err and "does not exist" in err


class RecordingProgress(evaluate.MatchProgress):
    """A MatchProgress (bar hidden) that records what play_match reports to it."""

    def __init__(self, num_games):
        super().__init__(num_games, "test", enabled=False)
        self.games = 0
        self.notes = []

    def step(self, live, step):
        super().step(live, step)
        self.notes.append((step, live))

    def games_ended(self, lengths, truncated):
        super().games_ended(lengths, truncated)
        self.games += lengths.size


def test_progress_shows_the_step_within_games():
    """The progress hears of every step of the running games, not only of finished games, so
    a match of long games never looks hung."""
    progress = RecordingProgress(3)
    agents = [make_agent("random", "century", 0), make_agent("random", "century", 1)]
    seats = evaluate.seat_table(3, 2, 2)
    winner, scores, lengths, truncated = evaluate._play_chunk(
        "century", 2, agents, seats, 0, progress
    )
    assert progress.games == 3
    steps = [step for step, _ in progress.notes]
    assert steps == list(range(1, len(steps) + 1))  # one note per step
    assert len(steps) == lengths.max()  # until the longest game ended
    assert progress.notes[0] == (1, 3)  # all three games playing at the first step
    assert progress.notes[-1][1] == int((lengths == lengths.max()).sum())
