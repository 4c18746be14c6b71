"""The ISMCTS agent (docs/baselines.md, The search agent): legal, deterministic, batch- and
thread-independent choices on every game, its parameters, and its place in matches and the
ladder."""

import numba
import numpy as np
import pytest

import meeple_gym as mg
from meeple_gym import OptionError
from meeple_gym.baselines.evaluate import make_agent, play_match
from meeple_gym.baselines.ismcts import ISMCTSAgent
from meeple_gym.baselines.ladder import run_ladder
from meeple_gym.core.sampling import policy_words, random_legal_actions

GAMES = ("century", "radlands", "everdell", "endeavor")
# Small budgets that still run every branch: heuristic play-outs with the progressive bias and
# a depth cap (score evaluation), and random play-outs to the end (terminal rewards).
CAPPED = {"sims": 24, "rollout": "heuristic", "prior": 1.0, "depth": 8}
FULL = {"sims": 12, "rollout": "random", "depth": 0}


def random_positions(game, num_players, size, seed, max_moves=60):
    """``size`` live records and their masks: game ``i`` taken after ``i * max_moves // size``
    random moves (a game that ends is re-dealt, so every record is live)."""
    batch = mg.make_batch(game, size, num_players, seed)
    batch.reset()
    words = policy_words(seed, size)
    actions = np.zeros(size, dtype=np.int64)
    targets = np.arange(size) * max_moves // size
    states = batch.get_states()
    masks = batch.legal_mask.copy()
    for move in range(1, max_moves):
        random_legal_actions(batch.legal_mask, words, actions)
        batch.step(actions)
        now = targets == move
        states[now] = batch.states[now]
        masks[now] = batch.legal_mask[now]
    return states, masks


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("params", [CAPPED, FULL], ids=["capped-heuristic", "full-random"])
def test_actions_are_legal_deterministic_and_leave_the_records_alone(game, params):
    states, masks = random_positions(game, 2, 10, seed=4)
    before = states.copy()
    agent = ISMCTSAgent(game, seed=7, **params)
    actions = agent.act_states(states)
    assert actions.dtype == np.int64 and actions.shape == (10,)
    assert (masks[np.arange(10), actions] == 1).all()
    assert states.tobytes() == before.tobytes()
    # Same seed, same actions; the seed matters somewhere in the batch.
    assert (ISMCTSAgent(game, seed=7, **params).act_states(states) == actions).all()


@pytest.mark.parametrize("game", GAMES)
def test_actions_depend_only_on_seed_and_record_not_batch_or_threads(game):
    states, _ = random_positions(game, 2, 8, seed=11)
    agent = ISMCTSAgent(game, seed=3, **CAPPED)
    together = agent.act_states(states)
    alone = np.array([agent.act_states(states[i : i + 1])[0] for i in range(8)])
    assert (together == alone).all()
    assert (agent.act_states(states[::-1]) == together[::-1]).all()
    previous = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one_thread = agent.act_states(states)
    finally:
        numba.set_num_threads(previous)
    assert (one_thread == together).all()


@pytest.mark.parametrize("game", GAMES)
def test_root_statistics_are_the_counts_the_search_chose_by(game):
    states, masks = random_positions(game, 2, 12, seed=6, max_moves=80)
    agent = ISMCTSAgent(game, seed=5, **CAPPED)
    actions, visits, values = agent.root_statistics(states)
    assert (actions == agent.act_states(states)).all()  # the same search, same move
    assert visits.shape == values.shape == masks.shape and visits.dtype == np.float32
    rows = np.arange(masks.shape[0])
    choice = (masks != 0).sum(axis=1) > 1
    assert choice.any()
    # Every iteration goes through exactly one root move, and the move played is the most
    # visited one (the module docs).
    assert (visits[choice].sum(axis=1) == CAPPED["sims"]).all()
    assert (visits[rows, actions][choice] == visits[choice].max(axis=1)).all()
    # Forced moves are not searched; illegal and unvisited moves have nothing.
    assert not visits[~choice].any() and not values[~choice].any()
    assert not visits[masks == 0].any()
    assert not values[visits == 0].any()
    assert (np.abs(values) <= 1).all() and values[visits > 0].std() > 0


def test_different_seeds_search_differently():
    states, _ = random_positions("century", 2, 16, seed=5)
    picks = {tuple(ISMCTSAgent("century", sims=6, seed=s).act_states(states)) for s in range(6)}
    assert len(picks) > 1


@pytest.mark.parametrize(("game", "players"), [("century", 4), ("everdell", 1), ("endeavor", 3)])
def test_other_player_counts(game, players):
    states, masks = random_positions(game, players, 6, seed=2)
    actions = ISMCTSAgent(game, seed=1, **CAPPED).act_states(states)
    assert (masks[np.arange(6), actions] == 1).all()


def test_forced_moves_cost_no_search_and_match_the_only_legal_action():
    states, masks = random_positions("century", 2, 40, seed=8, max_moves=200)
    forced = np.flatnonzero(masks.sum(axis=1) == 1)
    assert forced.size  # Century's pay and discard steps are often forced
    actions = ISMCTSAgent("century", sims=1).act_states(states[forced])
    assert (actions == masks[forced].argmax(axis=1)).all()


def test_aec_env_helper(monkeypatch):
    from meeple_gym.core import gate

    env = mg.make("radlands")
    env.reset(seed=3)
    agent = ISMCTSAgent("radlands", **FULL)
    checked = agent.act_states(env.unwrapped.state_array)  # a copy, checked
    calls = []
    real = gate.load_snapshot
    monkeypatch.setattr(gate, "load_snapshot", lambda *a: calls.append(1) or real(*a))
    action = agent.act_env(env)
    assert calls == []  # the env's own live record is searched unchecked
    assert action == checked[0]
    assert env.observe(env.agent_selection)["action_mask"][action] == 1
    env.step(action)
    with pytest.raises(OptionError):
        ISMCTSAgent("century", sims=4).act_env(env)  # another game's env
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        env.step(agent.act_env(env))
    with pytest.raises(ValueError, match="over"):
        agent.act_env(env)


def test_search_beats_random_in_the_evaluator():
    result = play_match("century", 2, ["ismcts:sims=48,rollout=heuristic,depth=20", "random"], 16)
    assert result["win_rate"] >= 0.9


def test_ladder_places_ismcts():
    agents = ["random", "ismcts:sims=32,rollout=heuristic,depth=20"]
    result = run_ladder("century", 2, agents, 8, seed=1, progress=False)
    assert [r["agent"] for r in result["ratings"]][0] == agents[1]


def test_agent_names_parse_and_bad_parameters_are_refused():
    agent = make_agent(
        "ismcts:sims=64,rollout=heuristic,c=0.5,prior=2,epsilon=0,depth=9", "endeavor", 4
    )
    assert (agent.sims, agent.rollout, agent.c, agent.prior, agent.epsilon, agent.depth) == (
        64,
        "heuristic",
        0.5,
        2.0,
        0.0,
        9,
    )
    assert agent.seed == 4 and agent.name.startswith("ismcts:sims=64")
    assert agent.net == 0.0 and "net" not in agent.name
    assert make_agent("ismcts:sims=8,net=2", "century", 0).name.endswith(",net=2")
    default = make_agent("ismcts", "century", 0)
    assert default.sims == ISMCTSAgent.DEFAULTS["century"]["sims"]
    bad = [
        "ismcts:sims=0",
        "ismcts:sims=x",
        "ismcts:rollout=greedy",
        "ismcts:c=-1",
        "ismcts:epsilon=2",
        "ismcts:depth=-3",
        "ismcts:speed=3",
        "ismcts:sims=3,sims=4",
        "ismcts:sims",
        "ismcts:scale=0",
        "ismcts:net=-1",
        "ismcts:net=x",
    ]
    for name in bad:
        with pytest.raises(OptionError):
            make_agent(name, "century", 0)


def test_bad_records_are_refused_before_the_kernel():
    agent = ISMCTSAgent("century", sims=4)
    states, _ = random_positions("century", 2, 2, seed=1)
    with pytest.raises(OptionError):
        agent.act_states(states.tolist())
    with pytest.raises(OptionError):
        agent.act_states(random_positions("endeavor", 2, 2, seed=1)[0])
    finished = states.copy()
    finished["terminated"][1] = 1
    with pytest.raises(ValueError, match="game 1 is over"):
        agent.act_states(finished)
    corrupt = states.copy()
    corrupt["current_player"][0] = 9
    with pytest.raises(mg.SnapshotError):
        agent.act_states(corrupt)


def test_search_opponent_in_the_gymnasium_envs():
    import gymnasium

    env = gymnasium.make("meeple_gym/Radlands-v0", opponent="ismcts:sims=8,rollout=random")
    obs, info = env.reset(seed=1)
    for _ in range(30):
        legal = np.flatnonzero(env.unwrapped.action_masks())
        obs, reward, terminated, truncated, info = env.step(int(legal[0]))
        if terminated or truncated:
            break
    vec = gymnasium.make_vec(
        "meeple_gym/Century-v0",
        num_envs=3,
        vectorization_mode="vector_entry_point",
        opponent="ismcts:sims=8",
    )
    obs, info = vec.reset(seed=2)
    for _ in range(20):
        masks = info["action_mask"].astype(bool)
        obs, reward, terminated, truncated, info = vec.step(masks.argmax(axis=1))
    assert obs.shape[0] == 3


@pytest.mark.parametrize("game", ["radlands", "everdell"])
def test_hidden_cards_do_not_change_what_the_search_plays(game):
    """Two records the player to act cannot tell apart (one is a determinization of the other:
    opposing hands, deck order, punks, RNG word resampled) give the same distribution of
    searched actions. Each record is copied 300 times with different RNG words (hidden too),
    so each copy searches with its own key; a search that read the true hidden cards would
    play differently on the two records."""
    from scipy.stats import chi2_contingency

    spec = mg.get_spec(game)
    states, _ = random_positions(game, 2, 4, seed=21, max_moves=40)
    agent = ISMCTSAgent(game, sims=16, rollout="random", depth=0, prior=0.0, seed=5)
    for g in range(1, 4):
        original = states[g : g + 1].copy()
        player = np.array([original["current_player"][0]], dtype=np.int64)
        twin = original.copy()
        spec.determinize_batch(twin, player, np.uint64(99 + g))
        assert twin.tobytes() != original.tobytes()
        counts = []
        for record in (original, twin):
            copies = np.repeat(record, 300)
            copies["rng"][:, 0] = np.arange(1, 301, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
            actions = agent.act_states(copies)
            counts.append(np.bincount(actions, minlength=spec.num_actions))
        table = np.array(counts)
        table = table[:, table.sum(axis=0) > 0]
        if table.shape[1] > 1:
            assert chi2_contingency(table).pvalue > 1e-3


@pytest.mark.parametrize("game", ["century", "radlands"])
def test_the_network_prior_steers_the_root(game):
    """``net``: the learned policy (from the acting player's own observation) as the root's
    prior. Its move is legal and seeded; a weight that dwarfs the values makes the root spend
    its visits on the network's likeliest move."""
    from meeple_gym.baselines.net_agent import NetAgent

    states, masks = random_positions(game, 2, 16, seed=8)
    spec = mg.get_spec(game)
    obs = np.zeros((16, spec.obs_size), dtype=np.float32)
    spec.encode_batch(states.copy(), states["current_player"].astype(np.int64), obs)
    probs = NetAgent(game).policy(obs, masks)
    choice = (masks != 0).sum(axis=1) > 1
    top = probs.argmax(axis=1)
    clear = choice & (np.sort(probs, axis=1)[:, -2] < 0.9 * probs.max(axis=1))
    assert clear.sum() >= 6

    steered = ISMCTSAgent(game, sims=400, seed=2, net=1e4)
    actions = steered.act_states(states)
    assert (masks[np.arange(16), actions] == 1).all()
    assert (ISMCTSAgent(game, sims=400, seed=2, net=1e4).act_states(states) == actions).all()
    assert (actions[clear] == top[clear]).all()
    # Without the prior the same search disagrees with the network somewhere.
    plain = ISMCTSAgent(game, sims=400, seed=2).act_states(states)
    assert (plain[clear] != top[clear]).any()


def test_records_the_engine_handed_out_skip_the_snapshot_check(monkeypatch):
    from meeple_gym.core import gate

    batch = mg.make_batch("radlands", 4, 2, seed=5)
    batch.reset()
    issued = batch.get_states()
    agent = ISMCTSAgent("radlands", sims=8, seed=3)
    checked = agent.act_states(issued.copy())  # warm; the check ran or not, same moves
    calls = []
    real = gate.load_snapshot
    monkeypatch.setattr(gate, "load_snapshot", lambda *a: calls.append(1) or real(*a))
    assert (agent.act_states(issued) == checked).all()
    assert calls == []  # byte for byte what get_states gave: no snapshot round trip
    changed = issued.copy()
    changed["current_player"][1] = 1 - changed["current_player"][1]  # no longer issued bytes
    try:
        agent.act_states(changed)
    except mg.SnapshotError:
        pass  # refused, or searched after the check: either way it was checked
    assert len(calls) == 1  # the changed record only
    corrupt = issued.copy()
    corrupt["current_player"][0] = 9
    with pytest.raises(mg.SnapshotError):
        agent.act_states(corrupt)


def test_the_registry_of_handed_out_records_is_bounded():
    from meeple_gym.core.gate import IssuedStates, digests_of, engine_records

    batch = mg.make_batch("century", 5, 2, seed=1)
    batch.reset()
    states = batch.get_states()
    assert all(engine_records("century").known(states[i : i + 1].tobytes()) for i in range(5))
    assert not engine_records("radlands").known(states[:1].tobytes())  # per game
    small = IssuedStates(limit=3)
    small.add(digests_of(states))
    known = [small.known(states[i : i + 1].tobytes()) for i in range(5)]
    assert known == [False, False, True, True, True]  # the oldest are forgotten first


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_the_shared_registry_works_in_a_child_forked_while_it_was_locked():
    import os
    import select
    import signal

    from meeple_gym.core.gate import engine_records

    batch = mg.make_batch("century", 3, 2, seed=2)
    batch.reset()
    record = batch.get_states()[:1].tobytes()
    registry = engine_records("century")
    read, write = os.pipe()
    with registry._lock:  # another thread's moment inside the registry, at the fork
        pid = os.fork()
        if pid == 0:  # the child: the registry must not stay locked
            os.write(write, b"1" if engine_records("century").known(record) else b"0")
            os._exit(0)
    answered, _, _ = select.select([read], [], [], 60)
    if not answered:  # a child stuck on the lock: end it rather than hang the run
        os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    assert answered and os.read(read, 1) == b"1"
