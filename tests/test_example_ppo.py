"""The masked-PPO example (examples/ppo_masked.py, docs/learning.md) and its loader agent
(meeple_gym.baselines.torch_agent): a short training run on the Century vector env has finite
losses, writes a checkpoint that the evaluator and ``meeple eval`` load, replays exactly from
its seed, and masks illegal actions both when acting and in the update. The full 10-minute
demo and its figures are in docs/learning.md; here only a few hundred steps run. Needs torch."""

import math
from pathlib import Path

import numpy as np
import pytest
from support import load_script

torch = pytest.importorskip("torch")

from meeple_gym.baselines.evaluate import play_match  # noqa: E402
from meeple_gym.baselines.torch_agent import (  # noqa: E402
    PolicyAgent,
    load_checkpoint,
    masked_logits,
)
from meeple_gym.core.errors import OptionError  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "ppo_masked.py"


@pytest.fixture(scope="module")
def ppo():
    return load_script("ppo_masked", EXAMPLE)


def small_run(ppo, tmp_path, seed=3, name="ckpt.pt", game="century"):
    # 8 envs x 32 steps x 2 iterations = 512 learner steps, a tiny network.
    argv = [
        "--game", game, "--seed", str(seed), "--num-envs", "8", "--num-steps", "32",
        "--total-timesteps", "512", "--hidden", "16", "--num-minibatches", "2",
        "--update-epochs", "2", "--checkpoint", str(tmp_path / name), "--quiet",
    ]  # fmt: skip
    return ppo.main(argv)


def actor_weights(path):
    return load_checkpoint(path)["actor"]


def test_short_run_has_finite_losses_and_a_loadable_checkpoint(ppo, tmp_path):
    result = small_run(ppo, tmp_path)
    assert result["global_step"] == 512
    assert len(result["curve"]) == 2
    for entry in result["curve"]:
        for key in ("loss", "pg_loss", "v_loss", "entropy", "approx_kl"):
            assert math.isfinite(entry[key]), (key, entry)
        assert entry["entropy"] >= 0
    path = tmp_path / "ckpt.pt"
    assert (tmp_path / "ckpt.json").is_file()  # the curve beside it
    ckpt = load_checkpoint(path)
    assert ckpt["game"] == "century" and ckpt["num_players"] == 2
    assert ckpt["meta"]["global_step"] == 512
    # The evaluator plays it through play_match; the batch raises on any illegal action.
    agent = PolicyAgent("century", path=path)
    r = play_match("century", 2, [agent, "random"], num_games=12, seed=0, progress=False)
    assert r["games"] == 12 and r["wins"] + r["draws"] + r["losses"] == 12
    # Sampling mode also plays legally, and is seeded.
    sampler = PolicyAgent("century", seed=5, path=path, greedy=False)
    r = play_match("century", 2, ["random", sampler], num_games=12, seed=1, progress=False)
    assert r["games"] == 12


def test_meeple_eval_loads_the_checkpoint_by_import_path(ppo, tmp_path, monkeypatch, capsys):
    from meeple_gym.cli import main

    small_run(ppo, tmp_path)
    monkeypatch.setenv("MEEPLE_CHECKPOINT", str(tmp_path / "ckpt.pt"))
    agents = ["meeple_gym.baselines.torch_agent:PolicyAgent", "random"]
    code = main(["eval", "--game", "century", "--agents", *agents, "--games", "10", "--json"])
    assert code == 0
    out = capsys.readouterr().out
    assert '"games": 10' in out


def test_same_seed_same_weights_other_seed_other_weights(ppo, tmp_path):
    small_run(ppo, tmp_path, seed=3, name="a.pt")
    small_run(ppo, tmp_path, seed=3, name="b.pt")
    small_run(ppo, tmp_path, seed=4, name="c.pt")
    a, b, c = (actor_weights(tmp_path / n) for n in ("a.pt", "b.pt", "c.pt"))
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert not all(torch.equal(a[k], c[k]) for k in a)


def test_masked_policy_gives_illegal_actions_no_probability(ppo):
    torch.manual_seed(0)
    num_actions = 12
    agent = ppo.Agent(np.full(6, 2.0, dtype=np.float32), num_actions, [8])
    # Make the illegal actions the most attractive ones before masking.
    with torch.no_grad():
        agent.actor[-1].bias[:] = torch.linspace(10.0, -10.0, num_actions)
    obs = torch.rand(256, 6)
    mask = torch.rand(256, num_actions) < 0.3
    mask[torch.arange(256), torch.randint(num_actions, (256,))] = True  # >= 1 legal each
    action, logprob, entropy, value = agent.get_action_and_value(obs, mask)
    assert mask[torch.arange(256), action].all()
    assert value.shape == (256, 1)
    # Entropy and log-probability are those of the softmax over the legal actions only.
    logits = agent.actor(obs * agent.obs_scale)
    for i in range(0, 256, 37):
        legal = logits[i][mask[i]]
        p = torch.softmax(legal, 0)
        assert torch.isclose(entropy[i], -(p * p.log()).sum(), atol=1e-5)
        pos = int(mask[i][: action[i]].sum())  # index of the action among the legal ones
        assert torch.isclose(logprob[i], p[pos].log(), atol=1e-5)
    # The update replays stored actions through the same masked distribution.
    _, replay_logprob, _, _ = agent.get_action_and_value(obs, mask, action)
    assert torch.allclose(replay_logprob, logprob)
    probs = torch.softmax(masked_logits(logits, mask), 1)
    assert (probs[~mask] == 0).all()


def test_loader_refuses_a_missing_file_and_another_games_checkpoint(ppo, tmp_path):
    with pytest.raises(OptionError, match="no checkpoint"):
        PolicyAgent("century", path=tmp_path / "missing.pt")
    torch.save({"format": "something else"}, tmp_path / "other.pt")
    with pytest.raises(OptionError, match="not a meeple_gym.ppo_masked"):
        PolicyAgent("century", path=tmp_path / "other.pt")
    small_run(ppo, tmp_path)
    with pytest.raises(OptionError, match="trained on 'century'"):
        PolicyAgent("radlands", path=tmp_path / "ckpt.pt")


def test_a_rerun_does_not_overwrite_an_existing_checkpoint(ppo, tmp_path):
    small_run(ppo, tmp_path)
    path = tmp_path / "ckpt.pt"
    before = path.read_bytes()
    with pytest.raises(SystemExit, match="--overwrite"):
        small_run(ppo, tmp_path, seed=4)
    assert path.read_bytes() == before
    argv = [
        "--game", "century", "--seed", "4", "--num-envs", "8", "--num-steps", "32",
        "--total-timesteps", "256", "--hidden", "16", "--num-minibatches", "2",
        "--update-epochs", "1", "--checkpoint", str(path), "--quiet", "--overwrite",
    ]  # fmt: skip
    ppo.main(argv)
    assert path.read_bytes() != before
