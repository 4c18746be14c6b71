"""A conformance suite for any registered game: ``check_game(name)`` (docs/testing.md).

>>> from meeple_gym.testing import check_game
>>> report = check_game("century")                  # every player count, about a minute
>>> report = check_game("mygame", 2, quick=True)    # one count, a few seconds
>>> print(report)

It drives a game only through the public API (``meeple_gym.make``, ``make_batch``,
``make_parallel``, ``get_spec``, snapshots, PettingZoo's and Gymnasium's own checkers), so it
works on a game registered from outside the project just as on the bundled ones. Each check
is described in docs/testing.md. The first failure raises ``ConformanceError`` (an
``AssertionError``) naming the check, the game, the player count and the seed; success
returns a ``ConformanceReport`` (the checks run, skipped, and their times).

Kernel compilation (the first use of a game in a fresh cache) is not counted in the budgets
below: ``quick=True`` is the profile the project's own tests use (a few seconds per player
count), the default profile takes about a minute per game over all its player counts.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import hashlib
import io
import json
import time
import warnings
from collections.abc import Callable, Iterable

import numba
import numpy as np

import meeple_gym as mg
from meeple_gym.core.batch import PARALLEL_MIN_BATCH
from meeple_gym.core.errors import ActionError, GameOverError, IllegalActionError

__all__ = ["CHECKS", "ConformanceError", "ConformanceReport", "Profile", "check_game"]

# In the order they run: the suite's own checks first (cheap, and they stop a lying mask
# before anything steps through it), then PettingZoo's and Gymnasium's checkers.
CHECKS = (
    "masks",
    "illegal_actions",
    "snapshots",
    "determinism",
    "batch_equivalence",
    "games_end",
    "pettingzoo_api",
    "pettingzoo_seed",
    "pettingzoo_parallel",
    "gymnasium",
)
# Bound on the steps of one game when the spec declares no ``step_cap``: a game still running
# after this many steps has no end (every bundled game is cut off by 20,000 at the latest).
DEFAULT_MAX_STEPS = 100_000


class ConformanceError(AssertionError):
    """A check failed; ``check``, ``game``, ``num_players`` and ``seed`` say which and where
    (rerun ``check_game(game, num_players, seed=seed, checks=[check])`` to reproduce it)."""

    def __init__(self, check: str, game: str, num_players: int, seed: int, detail: str):
        self.check, self.game, self.num_players, self.seed = check, game, num_players, seed
        self.detail = detail
        super().__init__(
            f"check {check!r} failed for game {game!r} with {num_players} players, seed {seed}: "
            f"{detail} (rerun it alone: check_game({game!r}, {num_players}, seed={seed}, "
            f"checks=[{check!r}]))"
        )

    def __reduce__(self):
        # Rebuilt from its fields, so that it crosses process boundaries (pickle) intact.
        return (type(self), (self.check, self.game, self.num_players, self.seed, self.detail))


class _Failure(Exception):
    """Raised inside a check; the driver turns it into a ConformanceError."""


def _require(condition, message) -> None:
    if not condition:
        raise _Failure(message() if callable(message) else message)


@dataclasses.dataclass(frozen=True)
class Profile:
    """How much each check does. ``games``: AEC games played by the masks, illegal-action,
    snapshot and determinism checks; ``probes``: positions per game where actions are refused
    and snapshots taken; ``shadow_steps``: steps a restored game is followed; ``batch_slots``,
    ``batch_steps``: the small batches of the batch checks; ``big_batch_steps``: steps of the
    batches big enough to run on several threads (the costliest part); ``end_slots``:
    batch slots that must each finish a game; ``rollout_games``: in-kernel random games."""

    games: int
    probes: int
    shadow_steps: int
    batch_slots: int
    batch_steps: int
    big_batch_steps: int
    end_slots: int
    rollout_games: int
    api_cycles: int
    seed_cycles: int
    parallel_cycles: int


# Each profile field: (the full run, the quick run), side by side.
_SIZES = {
    "games": (3, 1),
    "probes": (10, 4),
    "shadow_steps": (60, 12),
    "batch_slots": (7, 3),
    "batch_steps": (600, 80),
    "big_batch_steps": (200, 40),
    "end_slots": (32, 4),
    "rollout_games": (2000, 100),
    "api_cycles": (800, 120),
    "seed_cycles": (300, 40),
    "parallel_cycles": (500, 60),
}
FULL = Profile(**{name: sizes[0] for name, sizes in _SIZES.items()})
QUICK = Profile(**{name: sizes[1] for name, sizes in _SIZES.items()})


@dataclasses.dataclass
class ConformanceReport:
    """What ``check_game`` ran: ``runs`` holds (check, num_players, seconds) per check run,
    ``skipped`` (check, num_players, reason) per check left out."""

    game: str
    player_counts: tuple[int, ...]
    seed: int
    runs: list[tuple[str, int, float]] = dataclasses.field(default_factory=list)
    skipped: list[tuple[str, int, str]] = dataclasses.field(default_factory=list)
    seconds: float = 0.0

    def as_dict(self) -> dict:
        """The report as JSON-safe values."""
        return {
            "game": self.game,
            "player_counts": list(self.player_counts),
            "seed": self.seed,
            "seconds": self.seconds,
            "runs": [{"check": c, "num_players": n, "seconds": t} for c, n, t in self.runs],
            "skipped": [{"check": c, "num_players": n, "reason": r} for c, n, r in self.skipped],
        }

    def __str__(self) -> str:
        counts = ", ".join(map(str, self.player_counts))
        lines = [
            f"{self.game}: {len(self.runs)} checks passed for {counts} players "
            f"(seed {self.seed}) in {self.seconds:.1f} s"
        ]
        lines += [f"  {check:<20} {n}p {sec:6.2f} s" for check, n, sec in self.runs]
        lines += [f"  {check:<20} {n}p skipped: {why}" for check, n, why in self.skipped]
        return "\n".join(lines)


@dataclasses.dataclass
class _Case:
    """One game and player count under test, with the settings every check reads."""

    name: str
    spec: object
    num_players: int
    seed: int
    profile: Profile
    threads: tuple[int, ...]
    max_steps: int
    verbose: bool

    @property
    def num_actions(self) -> int:
        return self.spec.num_actions

    def env(self, **kwargs):
        return mg.make(self.name, num_players=self.num_players, **kwargs)

    def batch(self, size: int, seed: int | None = None):
        seed = self.seed if seed is None else seed
        return mg.make_batch(self.name, size, self.num_players, seed=seed, copy=False)

    def game_seed(self, index: int) -> int:
        """The AEC seed of game ``index`` (kept apart from the batch seed's slot-0 games)."""
        return (self.seed + 7_919 * (index + 1)) % 2**64


# ---- helpers shared by the checks -----------------------------------------------------------


def _first_difference(a: np.ndarray, b: np.ndarray) -> str:
    """The first field whose bytes differ between two records, for messages."""
    for field in a.dtype.names:
        if a[field].tobytes() != b[field].tobytes():
            return field
    return "none"


def _same_record(a: np.ndarray, b: np.ndarray, what: str) -> None:
    _require(
        a.tobytes() == b.tobytes(),
        lambda: f"{what}: the records differ (first field {_first_difference(a, b)!r})",
    )


def _probe_steps(profile: Profile, game_index: int) -> set[int]:
    """The decision indices of a game where probes run: spread geometrically, so that both the
    opening and deep positions are probed whatever the game's length, shifted per game."""
    steps, k = set(), 0.0
    while len(steps) < profile.probes:
        steps.add(game_index + int(1.9**k))
        k += 1
    return steps


def _random_action(rng: np.random.Generator, mask: np.ndarray) -> int:
    return int(rng.choice(np.flatnonzero(mask)))


def _hash_actions(mask: np.ndarray, seed: int, step: int) -> np.ndarray:
    """A legal action per row drawn from a SplitMix64-style hash of (seed, row, step) alone, so
    that a slot's actions never depend on the batch size, the thread count or the other slots."""
    rows = np.arange(mask.shape[0], dtype=np.uint64)
    words = rows * np.uint64(0x9E3779B97F4A7C15) ^ np.uint64((seed * 1_000_003 + step) % 2**64)
    for shift, mul in ((30, 0xBF58476D1CE4E5B9), (27, 0x94D049BB133111EB)):
        words = (words ^ (words >> np.uint64(shift))) * np.uint64(mul)
    words ^= words >> np.uint64(31)
    counts = mask.sum(axis=1)
    _require(counts.min() > 0, "a batch row has no legal action in a game in progress")
    pick = (words % counts.astype(np.uint64)).astype(np.int64)
    return (np.cumsum(mask, axis=1) <= pick[:, None]).sum(axis=1).astype(np.int64)


def _digest(*arrays) -> bytes:
    h = hashlib.blake2b(digest_size=16)
    for array in arrays:
        h.update(np.ascontiguousarray(array).tobytes())
    return h.digest()


def _expect_refusal(step: Callable, action, error: type, what: str, bad=None) -> None:
    """``step(action)`` must raise ``error`` (a meeple-gym ActionError) naming the bad action
    (``bad``, default ``action`` itself)."""
    bad = action if bad is None else bad
    try:
        step(action)
    except error as exc:
        _require(str(bad) in str(exc), f"{what}: the error does not name action {bad}")
        return
    except Exception as exc:  # noqa: BLE001 - any other type is the failure reported
        raise _Failure(
            f"{what}: action {bad} raised {type(exc).__name__}, not {error.__name__}"
        ) from exc
    raise _Failure(f"{what}: action {bad} was accepted")


# ---- the AEC walk: one random game with probes ----------------------------------------------


def _walk(case: _Case, env, game_index: int, on_decision=None, on_end=None) -> list:
    """Play one uniform-random game of ``env`` from ``reset(seed)``; ``on_decision(t, agent,
    obs)`` runs before decision ``t`` and may return an action to take instead; ``on_end()``
    runs once the game is over. Returns the trace (agent, action, reward, state digest)."""
    rng = np.random.default_rng([case.seed, game_index])
    env.reset(seed=case.game_seed(game_index))
    raw = env.unwrapped
    trace, t, ended = [], 0, False
    for agent in env.agent_iter(case.max_steps * (case.num_players + 1)):
        obs, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            if not ended and on_end is not None:
                on_end()
            ended = True
            trace.append((agent, None, reward, _digest(raw.state_array)))
            env.step(None)
            continue
        _require(t < case.max_steps, f"game {game_index} did not end within {t} steps")
        action = on_decision(t, agent, obs) if on_decision is not None else None
        if action is None:
            action = _random_action(rng, obs["action_mask"])
        env.step(action)
        trace.append((agent, action, reward, _digest(raw.state_array)))
        t += 1
    _require(ended and not env.agents, f"game {game_index} did not end")
    return trace


# ---- masks ----------------------------------------------------------------------------------


def _check_masks(case: _Case) -> None:
    """Every observation's mask is the legal mask of the agent to act (zeros for the others),
    matches ``action_masks()``, is non-empty while the game runs, and the batch kernels give the
    same masks for the same records."""
    spec, env = case.spec, case.env()
    raw = env.unwrapped
    reference = np.zeros(case.num_actions, np.int8)

    def on_decision(t, agent, obs):
        mask = obs["action_mask"]
        _require(
            mask.dtype == np.int8 and mask.shape == (case.num_actions,),
            f"step {t}: the action mask is {mask.dtype} {mask.shape}, not int8 "
            f"({case.num_actions},)",
        )
        _require(mask.any(), f"step {t}: {agent} is to act but no action is legal")
        _require(set(np.unique(mask).tolist()) <= {0, 1}, f"step {t}: a mask holds values not 0/1")
        record = raw.state_array.copy()
        spec.legal_mask_into(record, 0, reference)
        _same_record(record, raw.state_array, f"step {t}: legal_mask_into changed the record")
        _require(
            np.array_equal(mask, reference),
            f"step {t}: {agent}'s observed mask differs from legal_mask_into "
            f"(actions {np.flatnonzero(mask != reference).tolist()[:8]})",
        )
        _require(
            np.array_equal(raw.action_masks(), mask.astype(bool)),
            f"step {t}: action_masks() differs from the observed mask",
        )
        if t in probes:
            for other in env.agents:
                if other != agent:
                    _require(
                        not env.observe(other)["action_mask"].any(),
                        f"step {t}: {other} is not to act but has legal actions",
                    )
        return None

    for game_index in range(case.profile.games):
        probes = _probe_steps(case.profile, game_index)
        _walk(case, env, game_index, on_decision)
    _check_batch_masks(case)


def _check_batch_masks(case: _Case) -> None:
    """The batch's masks (``legal_masks_batch``, after resets, steps and auto-resets) are
    ``legal_mask_into``'s for the same records."""
    batch = case.batch(case.profile.batch_slots)
    batch.reset()
    reference = np.zeros(case.num_actions, np.int8)
    for step in range(case.profile.batch_steps):
        for i in range(batch.batch_size):
            case.spec.legal_mask_into(batch.states[i : i + 1].copy(), 0, reference)
            _require(
                np.array_equal(batch.legal_mask[i], reference),
                lambda i=i, step=step: (
                    f"batch step {step}, row {i}: the batch's mask differs "
                    "from legal_mask_into's (actions "
                    f"{np.flatnonzero(batch.legal_mask[i] != reference).tolist()[:8]})"
                ),
            )
        batch.step(_hash_actions(batch.legal_mask, case.seed, step))


# ---- illegal and out-of-range actions -------------------------------------------------------


def _check_illegal_actions(case: _Case) -> None:
    """An illegal action raises IllegalActionError, an out-of-range one ActionError, and
    neither changes anything: in the AEC env and in the batch."""
    env = case.env()
    raw = env.unwrapped
    bad_values = (case.num_actions, -1)

    def on_decision(t, agent, obs):
        if t not in probes:
            return None
        before = (raw.state_array.tobytes(), env.agent_selection, obs["action_mask"].copy())
        illegal = np.flatnonzero(obs["action_mask"] == 0)
        refusals = [(int(a), IllegalActionError) for a in illegal[:: max(1, illegal.size // 2)]]
        refusals += [(a, ActionError) for a in bad_values]
        for action, error in refusals:
            _expect_refusal(env.step, action, error, f"env step {t}")
            after = (raw.state_array.tobytes(), env.agent_selection)
            _require(
                after == before[:2],
                f"env step {t}: refusing action {action} changed the game",
            )
            _require(
                np.array_equal(env.last()[0]["action_mask"], before[2]),
                f"env step {t}: refusing action {action} changed the mask",
            )
        return None

    def on_end():
        before = raw.state_array.tobytes()
        _expect_refusal(env.step, 0, GameOverError, "after the end")
        _require(raw.state_array.tobytes() == before, "a step after the end changed the game")

    for game_index in range(case.profile.games):
        probes = _probe_steps(case.profile, game_index)
        _walk(case, env, game_index, on_decision, on_end)
    _check_batch_refusals(case)


def _batch_buffers(batch) -> bytes:
    return _digest(
        batch.states, batch.legal_mask, batch.observation, batch.episodes, batch.current_player
    )


def _check_batch_refusals(case: _Case) -> None:
    slots = max(2, case.profile.batch_slots)
    batch = case.batch(slots)
    batch.reset()
    for step in range(case.profile.shadow_steps * 2):
        actions = _hash_actions(batch.legal_mask, case.seed, step)
        if step % 5 == 0:
            before = _batch_buffers(batch)
            row = step % slots
            illegal = np.flatnonzero(batch.legal_mask[row] == 0)
            cases = [(case.num_actions, ActionError), (-1, ActionError)]
            if illegal.size:
                cases.append((int(illegal[-1]), IllegalActionError))
            for bad, error in cases:
                wrong = actions.copy()
                wrong[row] = bad
                _expect_refusal(batch.step, wrong, error, f"batch step {step}, row {row}", bad)
                _require(
                    _batch_buffers(batch) == before,
                    f"batch step {step}: refusing action {bad} in row {row} changed the batch",
                )
        batch.step(actions)


# ---- snapshots ------------------------------------------------------------------------------


def _restore(case: _Case, raw, twin, t) -> dict:
    """``raw``'s position through JSON into ``twin``: the same record and agent to act."""
    snap = raw.to_dict()
    try:
        text = json.dumps(snap)
    except (TypeError, ValueError) as exc:
        raise _Failure(f"step {t}: to_dict() is not JSON-safe ({exc})") from None
    twin.unwrapped.from_dict(json.loads(text))
    _same_record(twin.unwrapped.state_array, raw.state_array, f"step {t}: snapshot round trip")
    # A finished game's agent to act is bookkeeping of the dead steps, not part of the record.
    _require(
        t == "end" or twin.agent_selection == raw.agent_selection,
        f"step {t}: the restored env has {twin.agent_selection} to act, not {raw.agent_selection}",
    )
    _require(
        json.loads(json.dumps(twin.unwrapped.to_dict())) == json.loads(text),
        f"step {t}: the restored position gives another snapshot",
    )
    return snap


def _check_snapshots(case: _Case) -> None:
    """Mid-game ``to_dict``/``from_dict`` (through JSON) and ``clone`` reproduce the record's
    bytes and continue identically; ``get_states``/``set_states`` do the same for a batch."""
    env, twin = case.env(), case.env()
    twin.reset(seed=(case.seed + 1) % 2**64)  # a different game, overwritten by from_dict
    raw = env.unwrapped
    shadows: list = []  # (name, raw env, steps left) following the main game

    def follow(t):
        for name, shadow, _ in shadows:
            _same_record(shadow.state_array, raw.state_array, f"step {t}: {name} after restore")

    def on_decision(t, agent, obs):
        follow(t)
        if t in probes:
            _restore(case, raw, twin, t)
            shadows[:] = [("from_dict", twin.unwrapped, case.profile.shadow_steps)]
            shadows.append(("clone", raw.clone(), case.profile.shadow_steps))
        shadows[:] = [(n, s, left - 1) for n, s, left in shadows if left > 0]
        action = _random_action(shadow_rng, obs["action_mask"])
        for _, shadow, _ in shadows:
            shadow.step(action)
        return action

    def on_end():
        follow("end")
        _restore(case, raw, twin, "end")  # a finished game round-trips too

    for game_index in range(case.profile.games):
        probes = _probe_steps(case.profile, game_index)
        shadow_rng = np.random.default_rng([case.seed, game_index, 1])
        shadows.clear()
        _walk(case, env, game_index, on_decision, on_end)
    _check_batch_snapshots(case)


def _batch_outputs(batch) -> bytes:
    """The batch's buffers and the results of the last step (``final_*`` only for the games
    that step ended: the other rows hold older games' results)."""
    done = batch.terminated | batch.truncated
    return _digest(
        _batch_buffers(batch),
        batch.rewards,
        batch.terminated,
        batch.truncated,
        batch.final_scores[done],
        batch.final_lengths[done],
        batch.final_states[done],
    )


def _check_batch_snapshots(case: _Case) -> None:
    slots, steps = case.profile.batch_slots, case.profile.shadow_steps
    batch = case.batch(slots)
    batch.reset()
    for probe in range(case.profile.probes):
        saved, episodes = batch.get_states(), batch.episodes.copy()
        twin = case.batch(slots, seed=case.seed)
        twin.reset()
        # Bytes from another batch: restored through the full snapshot checks.
        twin.set_states(saved.tobytes(), episodes=episodes)
        _same_record(twin.states, batch.states, f"batch probe {probe}: set_states")
        _require(
            _batch_buffers(twin) == _batch_buffers(batch),
            f"batch probe {probe}: masks or observations differ after set_states",
        )
        for step in range(steps):
            actions = _hash_actions(batch.legal_mask, case.seed, probe * steps + step)
            batch.step(actions)
            twin.step(actions)
            _require(
                _batch_outputs(twin) == _batch_outputs(batch),
                f"batch probe {probe}: the restored batch differs {step + 1} steps later",
            )


# ---- determinism ----------------------------------------------------------------------------


def _batch_trace(case: _Case, size: int, steps: int, watch: int) -> list:
    """Per step, a digest of each of the first ``watch`` slots of a fresh batch."""
    batch = case.batch(size)
    batch.reset()
    out = []
    for step in range(steps):
        batch.step(_hash_actions(batch.legal_mask, case.seed, step))
        done = batch.terminated | batch.truncated
        row = []
        for i in range(watch):
            parts = [batch.states[i : i + 1], batch.legal_mask[i], batch.observation[i]]
            parts += [batch.rewards[i], batch.terminated[i], batch.truncated[i]]
            if done[i]:
                parts += [batch.final_states[i : i + 1], batch.final_scores[i]]
                parts.append(batch.final_lengths[i])
            row.append(_digest(*parts))
        out.append(row)
    return out


def _check_determinism(case: _Case) -> None:
    """The same seed gives the same games: two envs, two batches, two in-kernel rollouts."""
    first, second = case.env(), case.env()
    for game_index in range(case.profile.games):
        a = _walk(case, first, game_index)
        b = _walk(case, second, game_index)
        if a != b:
            where = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
            where = min(len(a), len(b)) if where is None else where
            raise _Failure(
                f"game {game_index}: two envs with the same seed and actions diverge at "
                f"step {where}"
            )
    slots, steps = case.profile.batch_slots, case.profile.batch_steps // 2
    _require(
        _batch_trace(case, slots, steps, slots) == _batch_trace(case, slots, steps, slots),
        "two batches with the same seed and actions diverge",
    )
    games = max(2, case.profile.rollout_games // 10)
    one = case.batch(1).random_rollout(games)
    two = case.batch(1).random_rollout(games)
    for key in one:
        _require(np.array_equal(one[key], two[key]), f"random_rollout's {key!r} is not repeatable")


# ---- batch sizes and threads ----------------------------------------------------------------


@contextlib.contextmanager
def _threads(count: int):
    # The "batch" thread policy: big batches really run on ``count`` threads, however busy
    # the machine is (the "auto" policy could fall back to one and hide a difference).
    from meeple_gym.core import thread_policy

    previous, mode = numba.get_num_threads(), thread_policy.mode()
    numba.set_num_threads(count)
    thread_policy.set_mode("batch")
    try:
        yield
    finally:
        numba.set_num_threads(previous)
        thread_policy.set_mode(mode)


def _first_difference_step(a: list, b: list, slots: int) -> str:
    for step, (x, y) in enumerate(zip(a, b, strict=False)):
        for slot in range(slots):
            if x[slot] != y[slot]:
                return f"slot {slot} differs from step {step}"
    return "the traces differ in length"


def _check_batch_equivalence(case: _Case) -> None:
    """Slot ``i``'s games depend on (seed, i) and its actions only: batch sizes 1, k and N (the
    parallel path) and every thread count give the same trajectories, slot 0 the same as the
    AEC env's games from ``reset(seed)``, and the in-kernel rollout likewise."""
    steps, k = case.profile.batch_steps, case.profile.batch_slots
    big = max(PARALLEL_MIN_BATCH, 2 * k)
    with _threads(case.threads[0]):
        reference = _batch_trace(case, k, steps, k)
    runs = [(1, case.threads[0], steps)]
    runs += [(big, t, min(steps, case.profile.big_batch_steps)) for t in case.threads]
    for size, threads, length in runs:
        with _threads(threads):
            trace = _batch_trace(case, size, length, min(size, k))
        watched = min(size, k)
        _require(
            [row[:watched] for row in trace] == [row[:watched] for row in reference[:length]],
            lambda trace=trace, size=size, threads=threads, watched=watched: (
                f"batch size {size} (Numba threads: {threads}) differs from batch size {k} "
                f"(threads: {case.threads[0]}): {_first_difference_step(trace, reference, watched)}"
            ),
        )
    _check_aec_matches_slot_zero(case, steps)
    games = case.profile.rollout_games
    few = max(1, games // 7)
    with _threads(case.threads[0]):
        whole = case.batch(1).random_rollout(games)
    for threads in case.threads:
        part = case.batch(3).random_rollout(few, threads=threads)
        for key in whole:
            _require(
                np.array_equal(whole[key][:few], part[key]),
                f"random_rollout's {key!r} depends on the batch size, game count or threads "
                f"({threads} threads)",
            )


def _check_aec_matches_slot_zero(case: _Case, steps: int) -> None:
    """The AEC env from ``reset(seed)`` then ``reset()`` deals what slot 0 of a batch with that
    seed deals: the same actions give the same records and rewards."""
    batch = case.batch(1)
    batch.reset()
    env = case.env()
    env.reset(seed=case.seed)
    raw = env.unwrapped
    for step in range(steps):
        actions = _hash_actions(batch.legal_mask, case.seed, step)
        obs = env.last()[0]
        _require(
            np.array_equal(batch.legal_mask[0], obs["action_mask"]),
            f"step {step}: the env's mask differs from slot 0 of the batch",
        )
        _require(
            np.array_equal(batch.observation[0], obs["observation"]),
            f"step {step}: the env's observation differs from slot 0 of the batch",
        )
        batch.step(actions)
        env.step(int(actions[0]))
        if batch.terminated[0] or batch.truncated[0]:
            _same_record(batch.final_states[0:1], raw.state_array, f"step {step}: final record")
            rewards = [env.rewards[a] for a in env.agents]
            _require(
                np.allclose(rewards, batch.rewards[0]),
                f"step {step}: the env's rewards {rewards} differ from the batch's "
                f"{batch.rewards[0].tolist()}",
            )
            while env.agents:
                env.step(None)
            env.reset()  # the stream's next game, as the batch re-deals
        _same_record(batch.states[0:1], raw.state_array, f"step {step}: env vs batch slot 0")


# ---- games end ------------------------------------------------------------------------------


def _check_games_end(case: _Case) -> None:
    """Random games end (terminated or truncated, not both) within the step cap, rewards come
    only on the step that ends a game, and a truncated game has no winner."""
    slots = case.profile.end_slots
    batch = case.batch(slots)
    batch.reset()
    finished = np.zeros(slots, bool)
    cap = getattr(case.spec, "step_cap", None) or None  # 0 or missing: not declared
    for step in range(case.max_steps + 1):
        if finished.all():
            break
        batch.step(_hash_actions(batch.legal_mask, case.seed, step))
        done = batch.terminated | batch.truncated
        _require(
            not (batch.terminated & batch.truncated).any(), f"step {step}: both ended flags set"
        )
        _require(
            not batch.rewards[~done].any(),
            f"step {step}: a reward on a step that did not end the game",
        )
        for i in np.flatnonzero(done):
            length = int(batch.final_lengths[i])
            _require(
                0 < length <= case.max_steps,
                f"slot {i}: a game ended with length {length} (limit {case.max_steps})",
            )
            _require(
                not batch.truncated[i] or int(batch.final_states[i]["winner"]) < 0,
                f"slot {i}: a truncated game has a winner",
            )
        finished |= done
    _require(
        finished.all(),
        f"slots {np.flatnonzero(~finished).tolist()[:8]} did not end within {case.max_steps} steps",
    )
    out = case.batch(1).random_rollout(case.profile.rollout_games)
    _require((out["length"] > 0).all(), "random_rollout reports a game of length 0")
    if cap is not None:
        _require(out["length"].max() <= cap, f"a rollout game ran past the step cap {cap}")
    _require((out["winner"][out["truncated"]] < 0).all(), "a truncated rollout game has a winner")


# ---- PettingZoo and Gymnasium ---------------------------------------------------------------


@contextlib.contextmanager
def _quiet(verbose: bool):
    """PettingZoo's checkers print progress and warn about dict observations: hush them."""
    if verbose:
        yield
        return
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _check_pettingzoo_api(case: _Case) -> None:
    from pettingzoo.test import api_test

    with _quiet(case.verbose):
        api_test(case.env(), num_cycles=case.profile.api_cycles)
        api_test(case.env(observation_mode="flat"), num_cycles=case.profile.api_cycles // 4)


def _check_pettingzoo_seed(case: _Case) -> None:
    from pettingzoo.test import seed_test

    make = functools.partial(mg.make, case.name, case.num_players)
    with _quiet(case.verbose):
        seed_test(make, num_cycles=case.profile.seed_cycles)


def _check_pettingzoo_parallel(case: _Case) -> None:
    from pettingzoo.test import parallel_api_test

    with _quiet(case.verbose):
        env = mg.make_parallel(case.name, case.num_players)
        parallel_api_test(env, num_cycles=case.profile.parallel_cycles)


def gymnasium_id(spec) -> str | None:
    """The Gymnasium id registered for ``spec``'s game: the spec's ``gym_id`` if it declares
    one, else any registered id whose ``game`` keyword names the game; None if there is none.
    An id counts only if Gymnasium has it for this very game (a copy of a spec under another
    name keeps the original's declared id)."""
    import gymnasium

    def for_this_game(env_id) -> bool:
        env_spec = gymnasium.registry.get(env_id) if isinstance(env_id, str) else None
        return env_spec is not None and (env_spec.kwargs or {}).get("game") == spec.name

    declared = getattr(spec, "gym_id", None)
    declared = declared() if callable(declared) else declared
    if for_this_game(declared):
        return declared
    return next((env_id for env_id in gymnasium.registry if for_this_game(env_id)), None)


def _check_gymnasium(case: _Case) -> None:
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    # check_env steps actions sampled without the mask: "lose" ends such an episode.
    env = gymnasium.make(
        gymnasium_id(case.spec), num_players=case.num_players, illegal_action="lose"
    )
    with _quiet(case.verbose):
        check_env(env.unwrapped, skip_render_check=True)


_RUNNERS: dict[str, Callable[[_Case], None]] = {
    "masks": _check_masks,
    "illegal_actions": _check_illegal_actions,
    "snapshots": _check_snapshots,
    "determinism": _check_determinism,
    "batch_equivalence": _check_batch_equivalence,
    "games_end": _check_games_end,
    "pettingzoo_api": _check_pettingzoo_api,
    "pettingzoo_seed": _check_pettingzoo_seed,
    "pettingzoo_parallel": _check_pettingzoo_parallel,
    "gymnasium": _check_gymnasium,
}


def _skip_reason(check: str, case: _Case) -> str | None:
    if check == "gymnasium" and gymnasium_id(case.spec) is None:
        return "no Gymnasium id is registered for this game"
    return None


# ---- the driver -----------------------------------------------------------------------------


def _player_counts(spec, num_players) -> tuple[int, ...]:
    if num_players is None:
        return tuple(spec.player_counts())
    counts = (num_players,) if isinstance(num_players, (int, np.integer)) else num_players
    counts = tuple(int(n) for n in counts)
    bad = [n for n in counts if n not in spec.player_counts()]
    if bad:
        raise mg.PlayerCountError(
            f"{spec.name} supports {spec.min_players} to {spec.max_players} players, not {bad}"
        )
    return counts


def _thread_counts(threads) -> tuple[int, ...]:
    """Thread counts to compare: ``threads`` if given, else 1 and 2 (as available)."""
    available = numba.config.NUMBA_NUM_THREADS
    if threads is None:
        threads = (1, 2)
    elif isinstance(threads, (int, np.integer)):
        threads = (1, int(threads))
    counts = tuple(dict.fromkeys(int(t) for t in threads if 1 <= int(t) <= available))
    return counts or (1,)


def _selected_checks(checks) -> tuple[str, ...]:
    if checks is None:
        return CHECKS
    chosen = (checks,) if isinstance(checks, str) else tuple(checks)
    unknown = sorted(set(chosen) - set(CHECKS))
    if unknown:
        raise ValueError(f"unknown checks {unknown}; the checks are {', '.join(CHECKS)}")
    return tuple(c for c in CHECKS if c in chosen)


def check_game(
    name: str,
    num_players: int | Iterable[int] | None = None,
    *,
    games: int | None = None,
    seed: int = 0,
    threads: int | Iterable[int] | None = None,
    quick: bool = False,
    checks: str | Iterable[str] | None = None,
    max_steps: int | None = None,
    verbose: bool = False,
) -> ConformanceReport:
    """Run the conformance checks on the registered game ``name``.

    ``num_players``: a count, several, or None for every count the game supports. ``games``:
    AEC games per check (default from the profile). ``seed``: every game, batch and policy of
    the run derives from it. ``threads``: Numba thread counts whose results must agree
    (default 1 and 2, as the machine allows; an int ``t`` means 1 and ``t``). ``quick``: the
    small profile (a few seconds per player count) the project's tests use. ``checks``: run
    only these (names in ``CHECKS``). ``max_steps``: the longest game allowed (default the
    spec's ``step_cap`` if it has one, else 100,000 decisions). ``verbose``: print each check
    and let PettingZoo's checkers print.

    Raises ``ConformanceError`` at the first failure; returns a ``ConformanceReport``."""
    spec = mg.get_spec(name)
    profile = QUICK if quick else FULL
    if games is not None:
        profile = dataclasses.replace(profile, games=int(games))
    if max_steps is None:
        max_steps = getattr(spec, "step_cap", None) or DEFAULT_MAX_STEPS
    counts = _player_counts(spec, num_players)
    report = ConformanceReport(game=name, player_counts=counts, seed=seed)
    started = time.perf_counter()
    for n in counts:
        case = _Case(name, spec, n, seed, profile, _thread_counts(threads), int(max_steps), verbose)
        for check in _selected_checks(checks):
            _run_check(case, check, report)
    report.seconds = time.perf_counter() - started
    if verbose:
        print(report)
    return report


def _run_check(case: _Case, check: str, report: ConformanceReport) -> None:
    reason = _skip_reason(check, case)
    if reason is not None:
        report.skipped.append((check, case.num_players, reason))
        return
    started = time.perf_counter()
    try:
        _RUNNERS[check](case)
    except _Failure as exc:
        raise ConformanceError(check, case.name, case.num_players, case.seed, str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - anything a check trips over is its failure
        detail = f"{type(exc).__name__}: {exc}"
        raise ConformanceError(check, case.name, case.num_players, case.seed, detail) from exc
    seconds = time.perf_counter() - started
    report.runs.append((check, case.num_players, seconds))
    if case.verbose:
        print(f"{case.name} {case.num_players}p {check}: ok ({seconds:.2f} s)", flush=True)
