"""PettingZoo and friends (docs/pettingzoo.md): human rendering, ``illegal_action`` on the AEC
env, ``parallel_env`` through the turn-based conversion, ``state()``, the flat observation
option, bool masks, SuperSuit's observation wrappers and pickling. PettingZoo's own checkers
(``api_test``, ``seed_test``, ``render_test``, ``parallel_api_test``, ``state_test``) run on
every game.

``python -m pytest tests/test_pettingzoo_integration.py`` (SuperSuit from the ``test`` extra)."""

import functools
import importlib
import pickle

import numpy as np
import pytest
from pettingzoo.test import (
    api_test,
    parallel_api_test,
    parallel_seed_test,
    render_test,
    seed_test,
    state_test,
)

import meeple_gym as mg
from meeple_gym.core.aec import ILLEGAL_ACTION_REWARD
from meeple_gym.core.errors import (
    ActionError,
    GameOverError,
    IllegalActionError,
    NotResetError,
    OptionError,
)

GAMES = ["century", "endeavor", "everdell", "radlands"]


def _first_legal(mask) -> int:
    return int(np.flatnonzero(mask)[0])


def _first_illegal(mask) -> int:
    return int(np.flatnonzero(np.asarray(mask) == 0)[0])


def _actor(infos):
    """The agent the parallel env marks as the one to act."""
    (actor,) = [agent for agent, info in infos.items() if info["is_active"]]
    assert infos[actor]["active_seat"] == int(actor.split("_")[1])
    return actor


def _play_first_legal_parallel(env, seed):
    """Play one game through the parallel env, the actor taking its lowest legal action and
    every other agent sending an illegal action (which must be ignored)."""
    observations, infos = env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    while env.agents:
        actor = _actor(infos)
        actions = {}
        for agent in env.agents:
            mask = observations[agent]["action_mask"]
            if agent == actor:
                actions[agent] = _first_legal(mask)
            else:
                assert not mask.any(), "only the active agent may have legal actions"
                actions[agent] = env.action_space(agent).n - 1  # ignored
        observations, rewards, terminations, truncations, infos = env.step(actions)
        for agent, reward in rewards.items():
            totals[agent] += reward
        steps += 1
    return totals, steps


def _play_first_legal_aec(env, seed):
    env.reset(seed=seed)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    steps = 0
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        if terminated or truncated:
            env.step(None)
        else:
            env.step(_first_legal(obs["action_mask"]))
            steps += 1
    return totals, steps


# ---- PettingZoo's own checkers, every game ----------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_render_test_with_every_mode(game, capsys):
    pytest.importorskip("cairosvg", reason="rgb_array needs the pictures extra (CairoSVG)")
    module = importlib.import_module(f"meeple_gym.{game}.env")
    assert module.raw_env.metadata["render_modes"] == ["ansi", "human", "rgb_array"]
    render_test(module.env)  # PettingZoo checks each mode's type (rgb_array: HxWx3)
    assert capsys.readouterr().out.strip()  # "human" printed the board


@pytest.mark.parametrize("game", GAMES)
def test_parallel_api_test(game):
    module = importlib.import_module(f"meeple_gym.{game}.env")
    parallel_api_test(module.parallel_env(), num_cycles=300)
    parallel_api_test(mg.make_parallel(game, 2), num_cycles=100)


@pytest.mark.parametrize("game", GAMES)
def test_api_and_seed_tests_with_the_flat_observation(game):
    api_test(mg.make(game, 2, observation_mode="flat"), num_cycles=100)
    seed_test(functools.partial(mg.make, game, 2, observation_mode="flat"), num_cycles=30)


@pytest.mark.parametrize("game", GAMES)
def test_state_test_and_illegal_action_lose_pass_unmasked_sampling(game):
    # state_test samples actions without the mask: "lose" ends the game instead of raising.
    env = mg.make(game, 2, illegal_action="lose")
    state_test(env, mg.make_parallel(game, 2, illegal_action="lose"), num_cycles=20)
    api_test(mg.make(game, 2, illegal_action="lose", observation_mode="flat"), num_cycles=50)
    parallel_api_test(
        mg.make_parallel(game, 2, illegal_action="lose", observation_mode="flat"), num_cycles=50
    )
    # parallel_seed_test also samples without the mask
    parallel_seed_test(functools.partial(mg.make_parallel, game, 2, illegal_action="lose"))


# ---- render_mode="human" ----------------------------------------------------------------------


def test_human_render_prints_what_ansi_returns(capsys):
    human = mg.make("century", 3, render_mode="human")
    ansi = mg.make("century", 3, render_mode="ansi")
    human.reset(seed=4)
    ansi.reset(seed=4)
    capsys.readouterr()
    assert human.render() is None
    printed = capsys.readouterr().out
    assert printed == ansi.render() + "\n"
    with pytest.raises(OptionError):
        mg.make("century", 2, render_mode="rgb")


# ---- illegal_action ---------------------------------------------------------------------------


def test_illegal_action_lose_ends_the_game_with_a_loss_for_the_actor():
    env = mg.make("century", 3, illegal_action="lose")
    env.reset(seed=2)
    env.step(_first_legal(env.last()[0]["action_mask"]))  # someone other than the first actor
    actor = env.agent_selection
    before = env.unwrapped.to_dict()
    bad = _first_illegal(env.last()[0]["action_mask"])
    env.step(bad)
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards == {a: (ILLEGAL_ACTION_REWARD if a == actor else 0.0) for a in env.agents}
    assert {a: i["illegal_action"] for a, i in env.infos.items()} == {
        a: a == actor for a in env.agents
    }
    assert env.unwrapped.to_dict() == before  # the illegal action itself changed nothing
    assert not env.unwrapped.action_masks().any()
    finals = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        assert terminated and not truncated and not obs["action_mask"].any()
        finals[agent] = reward
        with pytest.raises(GameOverError):
            env.step(0)
        env.step(None)
    assert finals == {a: (-1.0 if a == actor else 0.0) for a in env.possible_agents}
    assert env.agents == []


def test_illegal_action_raise_is_the_default_and_bad_actions_raise_in_both_modes():
    env = mg.make("century", 2)
    env.reset(seed=0)
    bad = _first_illegal(env.last()[0]["action_mask"])
    before = env.unwrapped.to_dict()
    with pytest.raises(IllegalActionError):
        env.step(bad)
    assert env.unwrapped.to_dict() == before and not any(env.terminations.values())
    lose = mg.make("century", 2, illegal_action="lose")
    lose.reset(seed=0)
    for action in (-1, 10_000, 1.5, "0", True):
        with pytest.raises(ActionError):
            lose.step(action)
    assert not any(lose.terminations.values())
    for bad_value in ("forfeit", None, 1):
        with pytest.raises(OptionError):
            mg.make("century", 2, illegal_action=bad_value)
    with pytest.raises(OptionError):
        mg.make("century", 2, observation_mode="image")


def test_env_module_takes_the_env_keywords():
    module = importlib.import_module("meeple_gym.century.env")
    env = module.env(num_players=3, illegal_action="lose", observation_mode="flat")
    assert env.unwrapped.illegal_action == "lose"
    assert env.unwrapped.observation_mode == "flat"
    with pytest.raises(OptionError):
        module.env(observation_mode="nope")


# ---- parallel_env -----------------------------------------------------------------------------


def test_parallel_names_the_active_agent_right_after_reset_and_ignores_the_others():
    aec = mg.make("century", 3)
    aec.reset(seed=5)
    par = mg.make_parallel("century", 3)
    observations, infos = par.reset(seed=5)
    assert set(infos) == set(par.possible_agents)
    assert [a for a, info in infos.items() if info["is_active"]] == [aec.agent_selection]
    seat = aec.unwrapped.agent_name_mapping[aec.agent_selection]
    assert {info["active_seat"] for info in infos.values()} == {seat}
    actor = aec.agent_selection
    assert np.array_equal(observations[actor]["action_mask"], aec.last()[0]["action_mask"])
    masks = par.action_masks()
    assert masks[actor].dtype == bool
    assert np.array_equal(masks[actor], observations[actor]["action_mask"].astype(bool))
    assert not any(masks[a].any() for a in par.agents if a != actor)


@pytest.mark.parametrize("game", ["century", "radlands"])
def test_parallel_plays_the_same_game_as_the_aec_env(game):
    # Same seed and same policy for the actor: the parallel game is the AEC game.
    par_totals, par_steps = _play_first_legal_parallel(mg.make_parallel(game, 2), seed=9)
    aec_totals, aec_steps = _play_first_legal_aec(mg.make(game, 2), seed=9)
    assert par_steps == aec_steps
    assert par_totals == aec_totals
    assert sum(aec_totals.values()) == pytest.approx(0.0)


def test_parallel_infos_are_fresh_dicts():
    par = mg.make_parallel("century", 2, observation_mode="flat")
    observations, infos = par.reset(seed=1)
    actor = _actor(infos)
    kept = {a: dict(i) for a, i in infos.items()}
    kept_mask = infos[actor]["action_mask"].copy()
    _, _, _, _, infos2 = par.step(
        {a: _first_legal(infos[actor]["action_mask"]) for a in par.agents}
    )
    assert infos2[actor] is not infos[actor]
    assert infos.keys() == kept.keys()
    assert all(infos[a].keys() == kept[a].keys() for a in infos)
    assert np.array_equal(infos[actor]["action_mask"], kept_mask)
    # The AEC env's own info dicts are not the ones handed out.
    raw_infos = par.aec_env.unwrapped.infos
    assert all(infos2[a] is not raw_infos[a] for a in infos2)


# ---- state() ----------------------------------------------------------------------------------


@pytest.mark.parametrize("num_players", [2, 4])
def test_state_is_every_seats_observation_and_the_seat_to_act(num_players):
    env = mg.make("century", num_players)
    env.reset(seed=3)
    for _ in range(7):
        env.step(_first_legal(env.last()[0]["action_mask"]))
    raw = env.unwrapped
    size = raw.spec.obs_size
    state = env.state()
    assert state.dtype == np.float32 and state.shape == env.unwrapped.state_space.shape
    assert env.unwrapped.state_space.contains(state)
    for seat, agent in enumerate(env.possible_agents):
        assert np.array_equal(
            state[seat * size : (seat + 1) * size], env.observe(agent)["observation"]
        )
    one_hot = state[num_players * size :]
    assert one_hot.tolist() == [float(a == env.agent_selection) for a in env.possible_agents]
    state[:] = -1  # a fresh array: the env is not affected
    assert env.unwrapped.state_space.contains(env.state())
    with pytest.raises(NotResetError):
        mg.make("century", 2).state()


def test_parallel_state_and_state_space_come_from_the_aec_env():
    par = mg.make_parallel("century", 2)
    par.reset(seed=8)
    assert par.state_space is par.aec_env.unwrapped.state_space
    assert np.array_equal(par.state(), par.aec_env.unwrapped.state())


# ---- flat observations and bool masks ---------------------------------------------------------


def test_flat_observation_is_the_dict_vector_and_the_mask_is_in_the_info():
    flat = mg.make("century", 3, observation_mode="flat")
    dict_env = mg.make("century", 3)
    space = flat.observation_space("player_0")
    assert space == dict_env.observation_space("player_0")["observation"]
    flat.reset(seed=6)
    dict_env.reset(seed=6)
    for _ in range(40):
        actor = dict_env.agent_selection
        assert flat.agent_selection == actor
        obs, _, _, _, info = flat.last()
        ref, _, _, _, ref_info = dict_env.last()
        assert isinstance(obs, np.ndarray) and space.contains(obs)
        assert np.array_equal(obs, ref["observation"])
        assert info["action_mask"].dtype == np.int8
        assert np.array_equal(info["action_mask"], ref["action_mask"])
        assert "action_mask" not in ref_info
        for agent in flat.agents:
            if agent != actor:
                assert not flat.infos[agent]["action_mask"].any()
        bools = flat.unwrapped.action_masks()
        assert bools.dtype == bool and np.array_equal(bools, ref["action_mask"] != 0)
        action = _first_legal(info["action_mask"])
        flat.step(action)
        dict_env.step(action)


def test_flat_info_masks_cannot_be_written():
    env = mg.make("century", 2, observation_mode="flat")
    env.reset(seed=0)
    waiting = next(a for a in env.agents if a != env.agent_selection)
    with pytest.raises(ValueError):
        env.infos[waiting]["action_mask"][0] = 1
    mask = env.infos[env.agent_selection]["action_mask"]
    mask[:] = 1  # the actor's mask is a copy: editing it changes nothing
    with pytest.raises(IllegalActionError):
        env.step(_first_illegal(env.unwrapped.action_masks()))


def test_action_masks_names_an_agent_and_refuses_unknown_ones():
    env = mg.make("radlands", 2)
    env.reset(seed=0)
    other = next(a for a in env.agents if a != env.agent_selection)
    assert env.unwrapped.action_masks(env.agent_selection).any()
    assert not env.unwrapped.action_masks(other).any()
    with pytest.raises(OptionError):
        env.unwrapped.action_masks("player_9")


# ---- SuperSuit --------------------------------------------------------------------------------


def _supersuit_wrappers():
    ss = pytest.importorskip("supersuit")
    return {
        "dtype": lambda e: ss.dtype_v0(e, np.float64),
        "normalize": lambda e: ss.normalize_obs_v0(e, env_min=0.0, env_max=1.0),
        "flatten": ss.flatten_v0,
        "frame_stack": lambda e: ss.frame_stack_v1(e, 3),
    }


@pytest.mark.parametrize("wrapper", ["dtype", "normalize", "flatten", "frame_stack"])
def test_supersuit_observation_wrappers_on_the_flat_aec_env(wrapper):
    wrap = _supersuit_wrappers()[wrapper]
    env = wrap(mg.make("century", 2, observation_mode="flat"))
    api_test(env, num_cycles=100)
    env.reset(seed=0)
    obs, _, _, _, info = env.last()
    size = mg.get_spec("century").obs_size
    if wrapper == "dtype":
        assert obs.dtype == np.float64
    if wrapper == "normalize":
        assert obs.min() >= 0.0 and obs.max() <= 1.0
    assert obs.shape == ((3 * size,) if wrapper == "frame_stack" else (size,))
    assert info["action_mask"].any()  # the mask still reaches the agent, through the info


@pytest.mark.parametrize("game", GAMES)
def test_supersuit_wrappers_on_the_flat_parallel_env(game):
    ss = pytest.importorskip("supersuit")
    base = mg.make_parallel(game, 2, observation_mode="flat")
    env = ss.frame_stack_v1(ss.normalize_obs_v0(ss.dtype_v0(base, np.float32)), 2)
    observations, infos = env.reset(seed=0)
    size = mg.get_spec(game).obs_size
    for _ in range(30):
        if not env.agents:
            break
        actor = _actor(infos)
        assert all(
            o.shape == (2 * size,) and 0 <= o.min() <= o.max() <= 1 for o in observations.values()
        )
        actions = {a: _first_legal(infos[actor]["action_mask"]) for a in env.agents}
        observations, _, _, _, infos = env.step(actions)


# ---- pickling ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs", [{"observation_mode": "flat"}, {"illegal_action": "lose"}], ids=["flat", "lose"]
)
def test_pickled_aec_env_with_options_continues_the_same_game(kwargs):
    env = mg.make("century", 2, **kwargs)
    env.reset(seed=12)
    for _ in range(5):
        env.step(_first_legal(env.unwrapped.action_masks()))
    twin = pickle.loads(pickle.dumps(env))
    if kwargs.get("observation_mode") == "flat":
        for copied in (twin, env.unwrapped.clone()):
            waiting = next(a for a in copied.agents if a != copied.agent_selection)
            with pytest.raises(ValueError):  # the shared zero mask stays read-only in copies
                copied.infos[waiting]["action_mask"][0] = 1
    assert twin.unwrapped.illegal_action == env.unwrapped.illegal_action
    assert twin.unwrapped.observation_mode == env.unwrapped.observation_mode
    for _ in range(20):
        action = _first_legal(env.unwrapped.action_masks())
        env.step(action)
        twin.step(action)
    assert twin.unwrapped.to_dict() == env.unwrapped.to_dict()
    assert np.array_equal(twin.state(), env.state())


def test_pickled_parallel_env_continues_the_same_game():
    par = mg.make_parallel("century", 2)
    observations, infos = par.reset(seed=4)
    twin = pickle.loads(pickle.dumps(par))
    for _ in range(15):
        actor = _actor(infos)
        actions = {a: _first_legal(observations[actor]["action_mask"]) for a in par.agents}
        observations, rewards, _, _, infos = par.step(actions)
        twin_obs, twin_rewards, _, _, twin_infos = twin.step(actions)
        assert rewards == twin_rewards and infos == twin_infos
        assert all(
            np.array_equal(observations[a]["observation"], twin_obs[a]["observation"])
            for a in observations
        )
