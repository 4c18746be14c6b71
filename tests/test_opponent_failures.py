"""Opponents that fail: raise, or return something that is not a legal integer action.

An opponent's output is never coerced (7.9 does not play 7): ``check_agent_action``
(envs/core/options.py) refuses it with an ``OpponentError`` naming the opponent and the value.
After any opponent failure the vector env and the single-agent env raise ``OpponentError`` on
every step until ``reset()``: a learner action is never played in the opponent's turn.
"""

from __future__ import annotations

import numpy as np
import pytest

import meeple_gym as mg
from meeple_gym import OpponentError
from meeple_gym.baselines.evaluate import ActBatchAdapter, play_match
from meeple_gym.core.gym_env import SingleAgentEnv
from meeple_gym.core.options import check_agent_action
from meeple_gym.core.vector_env import BatchVectorEnv

GAMES = ("century", "radlands", "everdell", "endeavor")
NEVER = 10**9


def first_legal(masks) -> np.ndarray:
    return np.argmax(np.asarray(masks) != 0, axis=1)


# What a broken opponent returns, from the masks it was given (rows, num_actions).
def raises(masks):
    raise RuntimeError("opponent bug 42")


BAD_BATCH_OUTPUTS = {
    "raises": raises,
    "floats": lambda m: first_legal(m) + 0.9,  # int() of it would be legal
    "integral floats": lambda m: first_legal(m).astype(np.float64),
    "bools": lambda m: np.ones(len(m), dtype=bool),
    "list with a float": lambda m: [0.5, *first_legal(m)[1:].tolist()],
    "wrong shape": lambda m: first_legal(m)[:, None],
    "too few": lambda m: first_legal(m)[:-1],
    "out of range": lambda m: np.full(len(m), m.shape[1]),
    "uint64 max": lambda m: np.full(len(m), 2**64 - 1, dtype=np.uint64),
    "negative": lambda m: np.full(len(m), -1),
    "illegal": lambda m: np.argmin(np.asarray(m) != 0, axis=1),
    "none": lambda m: None,
}


class Faulty:
    """An ``act_batch`` opponent: legal moves for its first calls, then from call ``fail_at``
    on whatever ``bad(masks)`` gives (or raises)."""

    def __init__(self, bad, fail_at=2):
        self.bad = bad
        self.fail_at = fail_at
        self.calls = 0

    def act_batch(self, observations, masks):
        self.calls += 1
        if self.calls >= self.fail_at:
            return self.bad(np.asarray(masks))
        return first_legal(masks)

    def __repr__(self) -> str:
        return "Faulty()"


def first_opponent_error(env, step):
    """From a reset, ``info = step(env, info)`` until the opponent fails; its OpponentError."""
    try:
        _, info = env.reset(seed=0)
        for _ in range(200):
            info = step(env, info)
    except OpponentError as exc:
        return exc
    raise AssertionError("the opponent never failed")


def vector_failure(env):
    """Play first-legal learner moves until the opponent fails; returns its OpponentError."""
    return first_opponent_error(
        env, lambda env, info: env.step(first_legal(info["action_mask"]))[4]
    )


def assert_vector_env_refuses_until_reset(env, opponent, cause_text):
    batch = env.batch
    before = batch.get_states().tobytes()
    # Actions the mask accepts: in rows where the failed opponent is to act, these are moves
    # for the opponent's seat, which the env used to play for it.
    for _ in range(2):
        with pytest.raises(OpponentError, match=cause_text) as info:
            env.step(first_legal(batch.legal_mask))
        assert "call reset()" in str(info.value)
        assert isinstance(info.value.__cause__, OpponentError)
    with pytest.raises(OpponentError):
        env.action_masks()
    assert batch.get_states().tobytes() == before  # nothing was played
    opponent.fail_at = NEVER
    obs, info = env.reset(seed=1)
    for _ in range(5):
        obs, _, _, _, info = env.step(first_legal(info["action_mask"]))


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("kind", ["raises", "illegal", "floats"])
def test_vector_env_refuses_every_step_after_the_opponent_fails(game, kind):
    opponent = Faulty(BAD_BATCH_OUTPUTS[kind])
    env = BatchVectorEnv(game, 4, 2, opponent=opponent, seat=0, illegal_action="raise")
    exc = vector_failure(env)
    assert "opponent Faulty()" in str(exc)
    if kind == "raises":
        assert "RuntimeError: opponent bug 42" in str(exc)
        assert isinstance(exc.__cause__, RuntimeError)
        cause_text = "opponent bug 42"
    else:
        cause_text = "Faulty"
    assert_vector_env_refuses_until_reset(env, opponent, cause_text)


@pytest.mark.parametrize("kind", sorted(BAD_BATCH_OUTPUTS))
def test_vector_env_names_every_malformed_opponent_output(kind):
    opponent = Faulty(BAD_BATCH_OUTPUTS[kind])
    env = BatchVectorEnv("century", 4, 2, opponent=opponent, seat=0)
    exc = vector_failure(env)
    assert str(exc).startswith("opponent Faulty() ")
    if kind != "raises":
        assert "returned" in str(exc) and exc.__cause__ is None
    assert_vector_env_refuses_until_reset(env, opponent, "Faulty")


def test_vector_env_opponent_failing_in_reset_blocks_steps_too():
    opponent = Faulty(raises, fail_at=1)
    env = BatchVectorEnv("century", 4, 2, opponent=opponent, seat=1)  # seat 0 moves first
    with pytest.raises(OpponentError, match="opponent bug 42"):
        env.reset(seed=0)
    with pytest.raises(OpponentError, match="opponent bug 42"):
        env.step(np.zeros(4, dtype=np.int64))


class FloatSearch:
    """A record-reading (search) opponent that returns float actions."""

    def act_states(self, states):
        return np.zeros(len(states)) + 0.5

    def __repr__(self) -> str:
        return "FloatSearch()"


def test_search_opponents_are_checked_too():
    env = BatchVectorEnv("century", 4, 2, opponent=FloatSearch(), seat=1)
    assert "opponent FloatSearch() returned dtype float64" in str(vector_failure(env))
    single = SingleAgentEnv("century", 2, opponent=FloatSearch(), seat=1)
    assert "opponent FloatSearch() (seat 0) returned dtype" in str(single_failure(single))


# ---- the single-agent env -----------------------------------------------------------------
def legal_of(observation) -> np.ndarray:
    return np.flatnonzero(observation["action_mask"])


# What a broken act(observation) opponent returns (``None``: raise).
BAD_OUTPUTS = {
    "float": lambda legal: legal[0] + 0.9,
    "numpy float": lambda legal: np.float64(legal[0]),
    "bool": lambda legal: True,
    "numpy bool": lambda legal: np.bool_(True),
    "string": lambda legal: str(legal[0]),
    "out of range": lambda legal: 10**6,
    "negative": lambda legal: -1,
    "array": lambda legal: np.array([legal[0]]),
    "none": lambda legal: None,
}


class FaultyCallable:
    def __init__(self, bad, fail_at=1):
        self.bad = bad
        self.fail_at = fail_at
        self.calls = 0

    def __call__(self, observation):
        self.calls += 1
        legal = legal_of(observation)
        if self.calls < self.fail_at:
            return int(legal[0])
        if self.bad is None:
            raise RuntimeError("opponent bug 42")
        if self.bad == "illegal":
            return int(np.flatnonzero(observation["action_mask"] == 0)[0])
        return self.bad(legal)

    def __repr__(self) -> str:
        return "FaultyCallable()"


def single_failure(env):
    def step(env, info):  # the game must not end before the opponent fails
        _, _, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
        assert not (term or trunc)
        return info

    return first_opponent_error(env, step)


def assert_single_env_refuses_until_reset(env, opponent, cause_text):
    before = env.aec_env.unwrapped.to_dict()
    for _ in range(2):
        with pytest.raises(OpponentError, match=cause_text) as info:
            env.step(0)
        assert "call reset()" in str(info.value)
    assert env.aec_env.unwrapped.to_dict() == before
    assert not env.action_masks().any()
    opponent.fail_at = NEVER
    _, info = env.reset(seed=1)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("bad", [None, "illegal"], ids=["raises", "illegal"])
def test_single_agent_env_refuses_every_step_after_the_opponent_fails(game, bad):
    opponent = FaultyCallable(bad, fail_at=3)
    env = SingleAgentEnv(game, 2, opponent=opponent, seat=0)
    exc = single_failure(env)
    assert "opponent FaultyCallable() (seat 1)" in str(exc)
    if bad is None:
        assert "RuntimeError: opponent bug 42" in str(exc)
        assert isinstance(exc.__cause__, RuntimeError)
    else:
        assert "illegal now" in str(exc)
    assert_single_env_refuses_until_reset(env, opponent, "FaultyCallable")


@pytest.mark.parametrize("kind", sorted(BAD_OUTPUTS))
def test_single_agent_env_never_coerces_an_opponent_output(kind):
    opponent = FaultyCallable(BAD_OUTPUTS[kind])
    env = SingleAgentEnv("century", 2, opponent=opponent, seat=1)
    exc = single_failure(env)
    assert str(exc).startswith("opponent FaultyCallable() (seat 0) returned")
    assert opponent.calls == 1
    assert_single_env_refuses_until_reset(env, opponent, "FaultyCallable")


def test_opponent_error_is_a_meeple_and_runtime_error():
    assert issubclass(OpponentError, mg.MeepleError)
    assert issubclass(OpponentError, RuntimeError)


# ---- the shared check ---------------------------------------------------------------------
MASK = np.array([0, 1, 1, 0], dtype=np.int8)


@pytest.mark.parametrize("value", [1, 2, np.int8(2), np.uint64(1), np.array(2)])
def test_check_agent_action_accepts_legal_integers(value):
    action = check_agent_action(value, MASK, "opponent X")
    assert type(action) is int and action == int(value)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (1.0, "float 1.0, not an integer"),
        (np.float32(2), "float32"),
        (True, "bool True"),
        (np.bool_(True), "bool"),
        ("1", "str '1'"),
        (None, "NoneType"),
        (np.array([1]), "ndarray"),
        (np.array(1.5), "ndarray"),
        (4, "action 4, out of range"),
        (-1, "action -1, out of range"),
        (0, "action 0, illegal now; legal: [1, 2]"),
    ],
)
def test_check_agent_action_names_the_opponent_and_the_value(value, text):
    with pytest.raises(OpponentError, match="^opponent X returned") as info:
        check_agent_action(value, MASK, "opponent X")
    assert text in str(info.value)


def test_check_agent_action_on_batches():
    masks = np.array([[0, 1, 0], [1, 1, 0]], dtype=np.int8)
    out = check_agent_action(np.array([1, 0], dtype=np.uint8), masks, "agent A")
    assert out.dtype == np.int64 and out.tolist() == [1, 0]
    out = check_agent_action([1, 0], masks, "agent A")  # a list of ints is integers too
    assert out.dtype == np.int64 and out.tolist() == [1, 0]
    for value, text in [
        ([1.0, 0], "dtype float64"),
        ([True, False], "dtype bool"),
        (["1", "0"], "dtype <U1"),
        (np.array([1.0, 0.0]), "dtype float64"),
        (np.array([True, False]), "dtype bool"),
        (np.array([1]), "shape (1,) for 2 games"),
        (np.array([[1], [0]]), "shape (2, 1)"),
        (np.array([1, 3]), "action 3 for its row 1, out of range"),
        (np.array([2**64 - 1, 0], dtype=np.uint64), "out of range"),
        (np.array([0, 2]), "action 0 for its row 0, illegal there; legal: [1] (2 rows"),
    ]:
        with pytest.raises(OpponentError, match="^agent A returned") as info:
            check_agent_action(value, masks, "agent A")
        assert text in str(info.value), (value, str(info.value))


# ---- matches (baselines/evaluate.py) ------------------------------------------------------
class FloatAct:
    name = "float-act"

    def act(self, observation):
        return float(np.flatnonzero(observation["action_mask"])[0])


class FloatBatch:
    name = "float-batch"

    def act_batch(self, observations, masks):
        return first_legal(masks) + 0.25


@pytest.mark.parametrize("agent", [FloatAct(), FloatBatch()], ids=["act", "act_batch"])
def test_match_agents_are_never_coerced(agent):
    with pytest.raises(OpponentError, match=f"agent '{agent.name}' returned"):
        play_match("century", 2, [agent, "random"], num_games=2, progress=False)


def test_act_batch_adapter_checks_each_row():
    adapter = ActBatchAdapter(FloatAct())
    masks = np.array([[0, 1], [1, 0]], dtype=np.int8)
    with pytest.raises(OpponentError, match="agent 'float-act' returned float 1.0"):
        adapter.act_batch(np.zeros((2, 3), np.float32), masks)
