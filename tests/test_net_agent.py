"""The learned agent ``net``: shipped weights, NumPy-only play, legality, determinism, the
weights format's errors, and the trainer (a short run lowers its loss; the exported NumPy
network computes what the torch one does)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import meeple_gym as mg
from meeple_gym.baselines.evaluate import AGENT_NAMES, make_agent, play_match
from meeple_gym.baselines.net_agent import (
    NET_FORMAT,
    NetAgent,
    forward,
    load_net,
    save_net,
    shipped_weights,
)
from meeple_gym.core.errors import OptionError

GAMES = ["century", "radlands", "everdell", "endeavor"]
MAX_WEIGHTS_BYTES = 5 * 1024 * 1024


def _positions(game: str, size: int = 24, steps: int = 12, seed: int = 3):
    """Observations and masks of mid-game positions reached by random play."""
    batch = mg.make_batch(game, size, 2, seed=seed)
    obs = batch.reset()
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        keys = np.where(batch.legal_mask != 0, rng.random(batch.legal_mask.shape), -1.0)
        obs, _, _, _ = batch.step(keys.argmax(axis=1).astype(np.int64))
    return obs.copy(), batch.legal_mask.copy()


def _tiny_net(tmp_path, game="century", hidden=(8,), seed=0, name="tiny.npz"):
    spec = mg.get_spec(game)
    rng = np.random.default_rng(seed)
    sizes = [spec.obs_size, *hidden]
    layers = [
        (rng.normal(size=(a, b)).astype(np.float32) * 0.1, np.zeros(b, np.float32))
        for a, b in zip(sizes[:-1], sizes[1:], strict=True)
    ]
    policy = (
        rng.normal(size=(sizes[-1], spec.num_actions)).astype(np.float32),
        np.zeros(spec.num_actions, np.float32),
    )
    value = (rng.normal(size=(sizes[-1], 1)).astype(np.float32), np.zeros(1, np.float32))
    meta = {"game": game, "obs_size": spec.obs_size, "num_actions": spec.num_actions}
    return save_net(
        tmp_path / name,
        meta=meta,
        hidden=layers,
        policy=policy,
        value=value,
        obs_scale=np.ones(spec.obs_size, np.float32),
    )


@pytest.mark.parametrize("game", GAMES)
def test_shipped_weights_load_and_fit_the_budget(game):
    path = shipped_weights(game)
    assert path.is_file(), f"no shipped weights for {game}"
    assert path.stat().st_size <= MAX_WEIGHTS_BYTES
    agent = make_agent("net", game)
    spec = mg.get_spec(game)
    assert isinstance(agent, NetAgent) and agent.name == "net"
    assert (agent.obs_size, agent.num_actions) == (spec.obs_size, spec.num_actions)
    assert agent.meta["format"] == NET_FORMAT and agent.meta["game"] == game


@pytest.mark.parametrize("game", GAMES)
def test_net_plays_only_legal_moves(game):
    obs, mask = _positions(game)
    for greedy in (True, False):
        actions = NetAgent(game, seed=5, greedy=greedy).act_batch(obs, mask)
        assert actions.dtype == np.int64 and actions.shape == (mask.shape[0],)
        assert mask[np.arange(mask.shape[0]), actions].all()
    # Whole games: the evaluator refuses any illegal move an agent returns.
    result = play_match(game, 2, ["net", "random"], num_games=4, seed=1, progress=False)
    assert result["wins"] + result["draws"] + result["losses"] == 4


@pytest.mark.parametrize("game", GAMES)
def test_net_is_deterministic_under_a_seed(game):
    obs, mask = _positions(game, seed=8)
    # The shipped agent, as its weights play (Radlands samples): the same seed, the same moves.
    shipped = [NetAgent(game, seed=4).act_batch(obs, mask) for _ in range(2)]
    assert np.array_equal(shipped[0], shipped[1])
    greedy = NetAgent(game, greedy=True)
    assert np.array_equal(greedy.act_batch(obs, mask), greedy.act_batch(obs, mask))
    sampled = [NetAgent(game, seed=11, greedy=False).act_batch(obs, mask) for _ in range(2)]
    assert np.array_equal(sampled[0], sampled[1])
    # Row by row through act() gives the batch's greedy moves.
    rows = [
        greedy.act({"observation": o, "action_mask": m}) for o, m in zip(obs, mask, strict=True)
    ]
    assert rows == greedy.act_batch(obs, mask).tolist()


def test_sampling_follows_the_policy(tmp_path):
    agent = NetAgent("century", seed=2, path=_tiny_net(tmp_path), greedy=False)
    obs, mask = _positions("century", size=1, steps=3)
    probs = agent.policy(obs, mask)[0]
    assert np.isclose(probs.sum(), 1.0) and np.all(probs[mask[0] == 0] == 0)
    draws = agent.act_batch(np.repeat(obs, 4000, axis=0), np.repeat(mask, 4000, axis=0))
    freq = np.bincount(draws, minlength=probs.size) / draws.size
    assert np.abs(freq - probs).max() < 0.03


def test_sparse_first_layer_is_the_dense_product(tmp_path):
    from meeple_gym.core.sparse import scaled_sparse_product

    rng = np.random.default_rng(0)
    x = np.where(rng.random((50, 300)) < 0.05, rng.integers(1, 9, (50, 300)), 0)
    x = x.astype(np.float32)
    scale = rng.random(300).astype(np.float32)
    w = rng.normal(size=(300, 17)).astype(np.float32)
    out = np.zeros((50, 17), np.float32)
    scaled_sparse_product(x, scale, w, out)
    assert np.allclose(out, (x * scale) @ w, atol=1e-4)
    net = load_net(_tiny_net(tmp_path))
    with pytest.raises(OptionError, match="expected observations"):
        forward(net, x)  # wrong width: refused before the kernel reads past a row


def test_net_play_imports_no_torch():
    code = (
        "import sys\n"
        "import numpy as np\n"
        "import meeple_gym as mg\n"
        "from meeple_gym.baselines.evaluate import make_agent\n"
        "b = mg.make_batch('century', 4, 2, seed=0)\n"
        "obs = b.reset()\n"
        "make_agent('net', 'century').act_batch(obs, b.legal_mask)\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_net_path_spec_and_errors(tmp_path):
    path = _tiny_net(tmp_path)
    agent = make_agent(f"net:{path}", "century")
    assert agent.path == path and agent.name == f"net:{path}"
    assert "net" in AGENT_NAMES
    with pytest.raises(OptionError, match="no network weights"):
        make_agent(f"net:{tmp_path / 'missing.npz'}", "century")
    with pytest.raises(OptionError, match="trained on 'century', not 'radlands'"):
        make_agent(f"net:{path}", "radlands")
    with pytest.raises(OptionError, match="not a net agent"):
        NetAgent.from_spec("net:", "century")
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip file")
    with pytest.raises(OptionError, match="not a network weights file"):
        make_agent(f"net:{bad}", "century")
    # A file whose arrays do not match its sizes is refused, not played.
    with np.load(path) as data:
        arrays = dict(data)
    arrays["policy_w"] = arrays["policy_w"][:, :3]
    broken = tmp_path / "broken.npz"
    np.savez(broken, **arrays)
    with pytest.raises(OptionError, match="policy has shapes"):
        load_net(broken)
    with pytest.raises(OptionError, match="not a meeple_gym.net/1"):
        load_net(_with_meta(tmp_path, "other.npz", format="other/1"))


def test_act_batch_checks_its_input(tmp_path):
    agent = NetAgent("century", path=_tiny_net(tmp_path))
    obs, mask = _positions("century", size=2, steps=1)
    with pytest.raises(OptionError, match="expected observations"):
        agent.act_batch(obs[:, :10], mask)
    with pytest.raises(OptionError, match="expected observations"):
        agent.act_batch(obs, mask[:1])
    with pytest.raises(ValueError, match="no legal action"):
        agent.act_batch(obs, np.zeros_like(mask))
    with pytest.raises(OptionError, match="greedy must be a bool"):
        NetAgent("century", path=_tiny_net(tmp_path), greedy=1)


def test_net_as_gym_opponent():
    import gymnasium

    env = gymnasium.make("meeple_gym/Century-v0", opponent="net")
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(5000):  # the net answers every move; the game must reach its end
        action = int(rng.choice(np.flatnonzero(info["action_mask"])))
        obs, reward, term, trunc, info = env.step(action)
        if term or trunc:
            break
    assert term or trunc


@pytest.fixture(scope="module")
def small_data():
    from meeple_gym.baselines.net_train import collect

    return collect("century", 8, seed=4, both_seats=True, epsilon=0.1)


def test_collect_records_heuristic_targets(small_data):
    data = small_data
    n = data["target"].shape[0]
    assert n > 100
    assert data["obs"].shape == (n, mg.get_spec("century").obs_size)
    assert data["mask"][np.arange(n), data["target"]].all()  # every target is legal
    assert ((data["mask"] != 0).sum(axis=1) > 1).all()  # forced moves are left out
    assert set(np.unique(data["value"])) <= {-1.0, 0.0, 1.0}


def test_short_training_lowers_the_loss_and_exports_the_same_network(tmp_path, small_data):
    pytest.importorskip("torch")
    from meeple_gym.baselines import net_train

    spec = mg.get_spec("century")
    high = np.broadcast_to(np.asarray(spec.obs_high, np.float32), (spec.obs_size,))
    model = net_train.Model(1.0 / np.maximum(high, 1.0), spec.num_actions, [64], seed=0)
    import torch

    optimizer = torch.optim.Adam([p for m in model.modules for p in m.parameters()], lr=1e-3)
    before = net_train.evaluate_loss(model, small_data)
    net_train.fit(model, optimizer, small_data, 5, 128, np.random.default_rng(0))
    after = net_train.evaluate_loss(model, small_data)
    assert after < before * 0.8, (before, after)

    path = net_train.save(model, tmp_path / "net.npz", {"game": "century", **_sizes(spec)})
    net = load_net(path)
    obs = small_data["obs"][:64]
    logits, values = forward(net, obs)
    with torch.no_grad():
        t_logits, t_values = model(torch.as_tensor(obs))
    # float16 storage: close, not equal.
    assert np.allclose(logits, t_logits.numpy(), atol=0.05, rtol=0.02)
    assert np.allclose(values, np.tanh(t_values.numpy()), atol=0.05)


def _sizes(spec) -> dict:
    return {"obs_size": spec.obs_size, "num_actions": spec.num_actions}


def _twice(tmp_path, seed: int, **settings):
    """Two tiny seeded training runs on Radlands: (their curves, their two weights files)."""
    from meeple_gym.baselines.net_train import train

    settings = {"ppo_iterations": 0, "play": "greedy", **settings}  # not the spec's PPO stage
    kwargs = dict(eval_games=4, hidden=(16,), progress=False, threads=1, **settings)
    runs = [train("radlands", tmp_path / f"run{k}.npz", seed=seed, **kwargs) for k in range(2)]
    return runs, [dict(np.load(tmp_path / f"run{k}.npz")) for k in range(2)]


def test_training_run_is_seeded(tmp_path):
    pytest.importorskip("torch")
    settings = dict(rounds=1, imitation_games=8, round_games=4, sims=8)
    runs, (a, b) = _twice(tmp_path, 3, epochs=1, imitation_epochs=1, **settings)
    assert all(np.array_equal(a[key], b[key]) for key in a)
    assert [p["loss"] for p in runs[0]["curve"]] == [p["loss"] for p in runs[1]["curve"]]
    assert [p["stage"] for p in runs[0]["curve"]] == ["imitation", "round 1"]
    assert (tmp_path / "run0.json").is_file()
    # The learning curve is drawn when matplotlib is there (the test extras have it).
    pytest.importorskip("matplotlib")
    assert (tmp_path / "run0.png").stat().st_size > 1000
    assert runs[0]["plot"] == str(tmp_path / "run0.png")


def _tiny_model(game="century", hidden=(32,)):
    from meeple_gym.baselines import net_train

    spec = mg.get_spec(game)
    high = np.broadcast_to(np.asarray(spec.obs_high, np.float32), (spec.obs_size,))
    return net_train.Model(1.0 / np.maximum(high, 1.0), spec.num_actions, list(hidden), seed=0)


def test_play_learner_records_the_learners_sampled_legal_moves_and_its_wins():
    torch = pytest.importorskip("torch")
    from meeple_gym.baselines.net_train import play_learner

    data = play_learner("century", _tiny_model(), 6, seed=2, generator=torch.Generator())
    n = data["action"].shape[0]
    assert n > 50
    assert data["mask"][np.arange(n), data["action"]].all()
    assert ((data["mask"] != 0).sum(axis=1) > 1).all()  # forced moves are left out
    assert (data["logp"] <= 0).all() and (data["logp"] > -30).all()
    assert set(np.unique(data["value"])) <= {-1.0, 1.0}  # a draw is not a win
    per_game = {int(r): v for r, v in zip(data["row"], data["value"], strict=True)}
    assert sum(v > 0 for v in per_game.values()) == data["wins"]
    # The learner sits in seat i % 2: it decided in every game.
    assert set(per_game) == set(range(6))


def test_ppo_update_moves_the_policy_toward_won_games():
    torch = pytest.importorskip("torch")
    from meeple_gym.baselines.net_train import play_learner, ppo_update, settings_for

    # The shipped network wins about two games in three: both outcomes occur.
    shipped = load_net(shipped_weights("century"))
    model = _tiny_model(hidden=[w.shape[1] for w, _ in shipped["hidden"]])
    model.load(shipped)
    data = play_learner("century", model, 8, seed=5, generator=torch.Generator())

    def logp():
        with torch.no_grad():
            logits, _ = model(torch.as_tensor(data["obs"]))
            legal = torch.as_tensor(data["mask"] != 0)
            all_logp = torch.log_softmax(logits.masked_fill(~legal, -1e9), dim=1)
            return all_logp.gather(1, torch.as_tensor(data["action"])[:, None])[:, 0].numpy()

    before = logp()
    settings = settings_for("century", entropy=0.0, ppo_epochs=2, batch_size=64)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    ppo_update(model, optimizer, data, settings, np.random.default_rng(0))
    change = logp() - before
    won = data["value"] > 0
    assert won.any() and (~won).any()
    # Moves of won games got likelier relative to those of lost games.
    assert change[won].mean() > change[~won].mean() + 0.01, (
        change[won].mean(),
        change[~won].mean(),
    )


def test_gae_advantages_follow_each_games_own_decisions():
    from meeple_gym.baselines.net_train import advantages

    # Two games' decisions interleaved as play_learner records them: game 0 won, game 1 lost.
    row = np.array([0, 1, 0, 1, 0])
    old_value = np.array([0.1, -0.2, 0.3, 0.4, 0.5], dtype=np.float32)
    outcome = np.array([1, -1, 1, -1, 1], dtype=np.float32)
    # lambda 1: the outcome less the value head, decision by decision.
    assert np.array_equal(advantages(row, old_value, outcome, 1.0), outcome - old_value)
    # lambda 0: the next estimate of the same game less this one; the outcome at the end.
    one_step = [0.3 - 0.1, 0.4 - -0.2, 0.5 - 0.3, -1 - 0.4, 1 - 0.5]
    np.testing.assert_allclose(advantages(row, old_value, outcome, 0.0), one_step, atol=1e-6)
    # lambda 0.5 in between: game 0's first decision adds half of its next one, and so on.
    half = advantages(row, old_value, outcome, 0.5)
    game0 = [0.5, 0.2 + 0.5 * 0.5, 0.2 + 0.5 * (0.2 + 0.25)]
    np.testing.assert_allclose(half[[4, 2, 0]], game0, atol=1e-6)
    np.testing.assert_allclose(half[[3, 1]], [-1.4, 0.6 + 0.5 * -1.4], atol=1e-6)


def test_ppo_stage_from_initial_weights_is_seeded(tmp_path):
    pytest.importorskip("torch")
    from meeple_gym.baselines.net_train import train

    init = _tiny_net(tmp_path, "radlands", hidden=(16,))
    settings = dict(init=init, rounds=0, ppo_iterations=3, ppo_games=4, eval_every=2)
    runs, (a, b) = _twice(tmp_path, 1, **settings)
    kwargs = dict(eval_games=4, progress=False, threads=1, **settings)
    assert all(np.array_equal(a[key], b[key]) for key in a)
    assert not np.array_equal(a["policy_w"], np.load(init)["policy_w"])  # it learned
    assert [p["stage"] for p in runs[0]["curve"]] == ["start", "ppo 2", "ppo 3"]
    assert runs[0]["init"] == init.name
    with pytest.raises(OptionError, match="layer"):
        train("radlands", tmp_path / "bad.npz", **{**kwargs, "hidden": (8,)})
    with pytest.raises(OptionError, match="hidden layers"):
        train("radlands", tmp_path / "bad.npz", **{**kwargs, "hidden": (16, 16)})


def test_every_training_setting_has_a_command_line_flag():
    from meeple_gym.baselines.net_train import DEFAULTS, parse_args, settings_for

    argv = ["--game", "everdell", "--ppo-learning-rate", "5e-5", "--hidden", "8", "8"]
    args = vars(parse_args([*argv, "--play", "sample", "--sims", "40"]))
    run_only = {"game", "out", "minutes", "threads", "init"}
    assert set(args) - run_only == set(DEFAULTS)
    given = {k: v for k, v in args.items() if k not in run_only}
    settings = settings_for("everdell", **given)
    assert settings["ppo_learning_rate"] == 5e-5 and settings["hidden"] == (8, 8)
    assert settings["play"] == "sample" and settings["sims"] == 40
    assert settings["rounds"] == mg.get_spec("everdell").training["rounds"]  # not given


def test_training_settings_come_from_the_spec_then_the_caller():
    from meeple_gym.baselines.net_train import DEFAULTS, settings_for

    for game in GAMES:
        settings = settings_for(game)
        assert set(settings) == set(DEFAULTS)
        for key, value in (mg.get_spec(game).training or {}).items():
            assert settings[key] == (tuple(value) if key == "hidden" else value)
    assert settings_for("century", rounds=3, sims=None)["rounds"] == 3
    with pytest.raises(OptionError, match="unknown training settings"):
        settings_for("century", round=3)
    with pytest.raises(OptionError, match="expert_share"):
        settings_for("century", expert_share=1.5)
    with pytest.raises(OptionError, match="round_games"):
        settings_for("century", round_games=0)
    with pytest.raises(OptionError, match="ppo_clip"):
        settings_for("century", ppo_clip=1.5)
    with pytest.raises(OptionError, match="ppo_iterations"):
        settings_for("century", ppo_iterations=-1)
    with pytest.raises(OptionError, match="ppo_learning_rate"):
        settings_for("century", ppo_learning_rate=0)
    with pytest.raises(OptionError, match="gae_lambda"):
        settings_for("century", gae_lambda=1.5)
    with pytest.raises(OptionError, match="play must be one of"):
        settings_for("century", play="best")
    with pytest.raises(OptionError, match="temperature"):
        settings_for("century", temperature=0.0)


def _with_meta(tmp_path, name, **changes):
    arrays = dict(np.load(_tiny_net(tmp_path)))
    meta = json.loads(str(arrays["meta"]))
    arrays["meta"] = np.array(json.dumps({**meta, **changes}))
    path = tmp_path / name
    np.savez(path, **arrays)
    return path


def test_weights_say_whether_they_play_greedily_or_sample(tmp_path):
    sampler = _with_meta(tmp_path, "sampler.npz", play="sample")
    obs, masks = _positions("century", size=64)
    assert NetAgent("century", path=sampler).greedy is False
    assert NetAgent("century", path=sampler, greedy=True).greedy is True
    assert NetAgent("century", path=_tiny_net(tmp_path)).greedy is True  # no entry: greedy
    # Sampling is seeded: the same seed plays the same moves, another seed other ones.
    runs = [NetAgent("century", seed=s, path=sampler).act_batch(obs, masks) for s in (5, 5, 6)]
    assert np.array_equal(runs[0], runs[1]) and not np.array_equal(runs[0], runs[2])
    # A low temperature leans the draw onto the likeliest move; the metadata can set it.
    greedy = NetAgent("century", path=sampler, greedy=True).act_batch(obs, masks)
    cold = _with_meta(tmp_path, "cold.npz", play="sample", temperature=1e-4)
    assert NetAgent("century", path=cold).temperature == 1e-4
    assert np.array_equal(NetAgent("century", path=cold).act_batch(obs, masks), greedy)
    hot = NetAgent("century", path=cold, temperature=1.0)
    assert not np.array_equal(hot.act_batch(obs, masks), greedy)
    for bad in (0, -1.0, float("nan"), "warm", True):
        with pytest.raises(OptionError, match="temperature"):
            NetAgent("century", path=sampler, temperature=bad)
    with pytest.raises(OptionError, match="unknown play mode"):
        NetAgent("century", path=_with_meta(tmp_path, "odd.npz", play="sometimes"))
    with pytest.raises(OptionError, match="greedy must be a bool"):
        NetAgent("century", path=sampler, greedy="yes")


def test_damaged_metadata_is_refused(tmp_path):
    with pytest.raises(OptionError, match="damaged metadata"):
        load_net(_with_meta(tmp_path, "damaged.npz", obs_size="many"))


def _anchored(tmp_path, game, weight=2.0, zero_policy=True, name="anchored.npz"):
    """A tiny network marked as a correction to the heuristic (``anchor_weight``)."""
    arrays = dict(np.load(_tiny_net(tmp_path, game, name="plain_" + name)))
    meta = json.loads(str(arrays["meta"]))
    arrays["meta"] = np.array(json.dumps({**meta, "anchor_weight": weight}))
    if zero_policy:  # what the trainer starts from: no correction yet
        arrays["policy_w"] = np.zeros_like(arrays["policy_w"])
        arrays["policy_b"] = np.zeros_like(arrays["policy_b"])
    np.savez(tmp_path / name, **arrays)
    return tmp_path / name


@pytest.mark.parametrize("game", ["century", "everdell"])
def test_an_untrained_correction_plays_the_heuristic(tmp_path, game):
    obs, masks = _positions(game, size=48)
    agent = NetAgent(game, path=_anchored(tmp_path, game))
    heuristic = make_agent("heuristic", game).act_batch(obs, masks)
    assert agent.anchor_weight == 2.0
    assert np.array_equal(agent.act_batch(obs, masks), heuristic)
    # Its policy: the heuristic's move weighs e^2 against 1 for every other legal move.
    legal = (masks != 0).sum(axis=1)
    expected = np.exp(2.0) / (np.exp(2.0) + legal - 1)
    probs = agent.policy(obs, masks)
    np.testing.assert_allclose(probs[np.arange(len(obs)), heuristic], expected, rtol=1e-5)


def test_the_anchor_adds_its_weight_to_the_heuristics_logit_only(tmp_path):
    obs, masks = _positions("century", size=48)
    plain = NetAgent("century", path=_tiny_net(tmp_path, "century", name="plain_x.npz"))
    anchored = NetAgent("century", path=_anchored(tmp_path, "century", 1.5, zero_policy=False))
    heuristic = make_agent("heuristic", "century").act_batch(obs, masks)
    legal = masks != 0
    has_others = legal.sum(axis=1) > 1
    assert has_others.sum() > 10
    obs, masks, legal, heuristic = (
        obs[has_others],
        masks[has_others],
        legal[has_others],
        heuristic[has_others],
    )
    with np.errstate(divide="ignore", invalid="ignore"):  # illegal moves: log 0
        shift = np.log(anchored.policy(obs, masks)) - np.log(plain.policy(obs, masks))
    rows = np.arange(len(obs))
    lifted = shift[rows, heuristic]
    others = np.where(legal, shift, np.nan)
    others[rows, heuristic] = np.nan
    # every other legal move moves by the same normalising constant; the heuristic's by 1.5 more
    assert (np.nanmax(others, axis=1) - np.nanmin(others, axis=1) < 1e-4).all()
    np.testing.assert_allclose(lifted - np.nanmax(others, axis=1), 1.5, atol=1e-4)


def test_a_bad_anchor_weight_is_refused(tmp_path):
    for bad in (-1.0, "strong", True, float("nan")):
        with pytest.raises(OptionError, match="anchor_weight"):
            load_net(_with_meta(tmp_path, "bad_anchor.npz", anchor_weight=bad))
    from meeple_gym.baselines.net_train import settings_for

    with pytest.raises(OptionError, match="anchor_weight"):
        settings_for("century", anchor_weight=-2.0)
    with pytest.raises(OptionError, match="round_play must be one of"):
        settings_for("century", round_play="best")


def test_an_anchored_model_starts_as_the_heuristic_and_learns_corrections(tmp_path, small_data):
    torch = pytest.importorskip("torch")
    from meeple_gym.baselines import net_train

    spec = mg.get_spec("century")
    high = np.broadcast_to(np.asarray(spec.obs_high, np.float32), (spec.obs_size,))
    scale = 1.0 / np.maximum(high, 1.0)
    model = net_train.Model(scale, spec.num_actions, [64], seed=0, anchor_weight=2.0)
    path = net_train.save(model, tmp_path / "start.npz", {"game": "century", **_sizes(spec)})
    obs, masks = small_data["obs"][:64], small_data["mask"][:64]
    start = NetAgent("century", path=path)
    assert start.anchor_weight == 2.0
    assert np.array_equal(start.act_batch(obs, masks), small_data["anchor"][:64])
    # Targets that differ from the heuristic's move: the correction learns them.
    data = dict(small_data)
    legal = data["mask"] != 0
    other = np.where(legal, np.arange(spec.num_actions), -1)
    other[np.arange(len(other)), data["anchor"]] = -1
    data["target"] = other.max(axis=1)  # the highest legal move that is not the heuristic's
    assert not (start.act_batch(data["obs"], data["mask"]) == data["target"]).any()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    before = net_train.evaluate_loss(model, data)
    net_train.fit(model, optimizer, data, 8, 128, np.random.default_rng(0))
    assert net_train.evaluate_loss(model, data) < before * 0.5
    trained = NetAgent("century", path=net_train.save(model, tmp_path / "t.npz", start.meta))
    agree = trained.act_batch(data["obs"], data["mask"]) == data["target"]
    assert agree.mean() > 0.75  # from none at the start (0.86 when written)
    with pytest.raises(OptionError, match="anchor_weight"):
        net_train.Model(scale, spec.num_actions, [64], seed=0).load(load_net(path))


def test_an_anchored_training_run_skips_the_imitation(tmp_path):
    pytest.importorskip("torch")
    from meeple_gym.baselines.net_train import train

    kwargs = dict(eval_games=4, hidden=(16,), progress=False, threads=1, ppo_iterations=0)
    run = train(
        "century",
        tmp_path / "anchored.npz",
        anchor_weight=2.0,
        round_play="greedy",
        rounds=1,
        round_games=4,
        sims=8,
        **kwargs,
    )
    assert [p["stage"] for p in run["curve"]] == ["heuristic", "round 1"]
    agent = NetAgent("century", path=tmp_path / "anchored.npz")
    assert agent.anchor_weight == 2.0 and "correction to the heuristic" in agent.meta["method"]
    with pytest.raises(OptionError, match="anchor_weight"):  # --init with another anchor
        train("century", tmp_path / "b.npz", init=tmp_path / "anchored.npz", rounds=0, **kwargs)


def test_examples_are_stored_as_bytes_when_that_loses_nothing(small_data):
    from meeple_gym.baselines.net_train import compact_observations

    obs, _ = _positions("century")
    assert small_data["obs"].dtype == np.uint8  # Century's encoder writes small whole numbers
    assert np.array_equal(compact_observations(obs), obs)
    halves = obs + 0.5
    assert compact_observations(halves).dtype == np.float32
    assert np.array_equal(compact_observations(halves), halves)
    assert compact_observations(obs + 256).dtype == np.float32


def test_a_one_hot_distribution_target_is_the_single_move_target(small_data):
    pytest.importorskip("torch")
    import torch

    from meeple_gym.baselines import net_train

    spec = mg.get_spec("century")
    model = net_train.Model(np.ones(spec.obs_size, np.float32), spec.num_actions, [16], seed=1)
    part = {k: torch.as_tensor(v[:50]) for k, v in small_data.items()}
    one_hot = torch.nn.functional.one_hot(part["target"], spec.num_actions).float()
    args = (model, part["obs"], part["mask"] != 0, part["target"], part["value"], part["anchor"])
    hard, value_loss = net_train.loss_terms(*args)
    soft, soft_value_loss = net_train.loss_terms(*args, one_hot)
    assert torch.isclose(hard, soft) and torch.equal(value_loss, soft_value_loss)
    spread = torch.where(part["mask"] != 0, 1.0, 0.0)
    spread = spread / spread.sum(dim=1, keepdim=True)
    assert net_train.loss_terms(*args, spread)[0] != hard


@pytest.fixture(scope="module")
def visit_data():
    from meeple_gym.baselines.ismcts import ISMCTSAgent
    from meeple_gym.baselines.net_train import collect

    expert = ISMCTSAgent("century", sims=16, seed=2)
    return collect("century", 6, seed=9, expert=expert, targets="visits")


def check_distribution_targets(data: dict, least: int) -> None:
    """``policy`` rows are distributions over the legal moves, and ``target`` is the move each
    one weighs most (the search's or the rollout algorithm's choice)."""
    n = data["target"].shape[0]
    assert n > least and data["policy"].shape == data["mask"].shape
    assert np.allclose(data["policy"].sum(axis=1), 1.0)
    assert not data["policy"][data["mask"] == 0].any()
    rows = np.arange(n)
    assert (data["policy"][rows, data["target"]] == data["policy"].max(axis=1)).all()


def test_visit_targets_are_the_searchs_root_shares(visit_data):
    data = visit_data
    check_distribution_targets(data, 50)
    # The shares are multiples of 1 / sims.
    assert np.allclose(data["policy"] * 16, np.round(data["policy"] * 16), atol=1e-4)
    assert (data["policy"] > 0).sum(axis=1).max() > 1  # distributions, not one move


def test_training_on_visit_targets_lowers_their_loss(visit_data):
    pytest.importorskip("torch")
    import torch

    from meeple_gym.baselines import net_train

    spec = mg.get_spec("century")
    high = np.broadcast_to(np.asarray(spec.obs_high, np.float32), (spec.obs_size,))
    model = net_train.Model(1.0 / np.maximum(high, 1.0), spec.num_actions, [64], seed=0)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    before = net_train.evaluate_loss(model, visit_data)
    net_train.fit(model, optimizer, visit_data, 5, 64, np.random.default_rng(0))
    after = net_train.evaluate_loss(model, visit_data)
    # A distribution's cross-entropy never falls below its own entropy: compare what is above.
    shares = visit_data["policy"]
    entropy = -np.where(shares > 0, shares * np.log(np.where(shares > 0, shares, 1)), 0).sum(1)
    floor = float(entropy.mean())
    assert after - floor < 0.7 * (before - floor), (before, after, floor)
    single = {k: v for k, v in visit_data.items() if k != "policy"}
    assert net_train.evaluate_loss(model, single) != after  # the shares were the target


def test_visit_targets_need_the_search():
    from meeple_gym.baselines.net_train import collect, settings_for

    with pytest.raises(OptionError, match="needs the search"):
        collect("century", 2, seed=1, targets="visits")
    with pytest.raises(OptionError, match="targets must be one of"):
        collect("century", 2, seed=1, targets="counts")
    with pytest.raises(OptionError, match="targets must be one of"):
        settings_for("century", targets="counts")
    from meeple_gym.baselines.net_train import parse_args

    assert parse_args(["--game", "century", "--targets", "visits"]).targets == "visits"


def test_rollout_targets_are_the_margins_softmax_and_the_best_move():
    from meeple_gym.baselines.net_train import collect, margin_policy
    from meeple_gym.baselines.rollout import RolloutAgent

    expert = RolloutAgent("century", samples=2, seed=3)
    data = collect("century", 4, seed=2, expert=expert, targets="rollouts", target_temperature=3)
    check_distribution_targets(data, 30)
    # The softmax itself: a move 3 points better at temperature 3 has e times the weight.
    masks = np.array([[1, 1, 0, 1]], dtype=np.int8)
    shares = margin_policy(np.array([[0.0, 3.0, 50.0, 3.0]]), masks, 3.0)
    assert shares[0, 2] == 0 and np.isclose(shares[0, 1] / shares[0, 0], np.e)
    assert np.isclose(shares[0, 1], shares[0, 3])
    with pytest.raises(OptionError, match="needs a RolloutAgent"):
        collect("century", 2, seed=1, targets="rollouts")


def test_a_rollout_target_training_run(tmp_path):
    pytest.importorskip("torch")
    from meeple_gym.baselines.net_train import settings_for, train

    with pytest.raises(OptionError, match="target_temperature"):
        settings_for("century", target_temperature=0)
    with pytest.raises(OptionError, match="rollout_samples"):
        settings_for("century", rollout_samples=0)
    kwargs = dict(eval_games=4, hidden=(16,), progress=False, threads=1, ppo_iterations=0)
    run = train(
        "century",
        tmp_path / "roll.npz",
        anchor_weight=2.0,
        rounds=1,
        round_games=4,
        targets="rollouts",
        rollout_samples=2,
        **kwargs,
    )
    assert [p["stage"] for p in run["curve"]] == ["heuristic", "round 1"]
    assert run["settings"]["targets"] == "rollouts" and np.isfinite(run["curve"][1]["loss"])
    agent = NetAgent("century", path=tmp_path / "roll.npz")
    assert "trained on rollout values" in agent.meta["method"]
