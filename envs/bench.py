"""Throughput and start-up measurements for one game; each function returns a JSON-safe dict.

``run_all(game)`` runs everything (``meeple bench`` and benchmarks/bench_game.py call it):

- ``batched_step``: uniform-random self-play through ``BatchEnv.step`` (mask check,
  kernels, auto-reset and observation encoding included) with actions from
  ``meeple_gym.core.sampling.random_legal_actions``, for batch sizes 1, 4, 16, … and 1 or 2 threads.
- ``kernel_step``: the same through the game's ``step_batch`` kernel alone (no action check,
  no observation encoding), to show what the rules cost.
- ``rollout``: complete uniform-random games played entirely inside the Numba kernel
  (``random_rollout``), per player count and thread count. A step is one sub-decision.
- ``startup``: first-call compile time (a fresh process with an empty ``MEEPLE_GYM_CACHE_DIR``)
  and warm start (a fresh process with that cache filled): import + make + reset + 1st step.
- ``vector_env``: learner steps/s of the Gymnasium vector env (``make_vec``, random opponent
  played inside the batch, and self-play) against ``BatchEnv.step`` steps/s on the same batch
  size, in both auto-reset modes.
- ``aec``: the PettingZoo loop (``agent_iter``/``last``/``step``) with random legal actions.
- ``reference``: the slow pure-Python rules (where the game has one) on the same games.

Every timing loop is bounded by seconds, not by a step count, so the whole run takes a few
minutes on 2 cores whatever the machine's speed (``quick=True``: well under a minute after
the compile).
"""

from __future__ import annotations

import itertools
import json
import math
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba
import numpy as np

import meeple_gym as mg
from meeple_gym.core.batch import MAX_SEED, check_seed
from meeple_gym.core.errors import OptionError
from meeple_gym.core.options import check_int
from meeple_gym.core.registry import check_num_players
from meeple_gym.core.sampling import policy_words, random_legal_actions
from meeple_gym.core.thread_policy import threads_for, use_threads
from meeple_gym.core.vector_env import check_autoreset_mode

# Per game: the figures its issue asks for are its ``GameSpec.bench_targets`` (a missing key has
# no target); its slow reference is ``GameSpec.reference``.
# The vector env keeps at least half of BatchEnv's steps/s (every game).
VECTOR_ENV_MIN_RATIO = 0.5
# ... and at least 85% of its game steps/s (learner and opponent moves counted alike).
VECTOR_ENV_MIN_GAME_STEP_RATIO = 0.85
BATCH_SIZES = tuple(4**k for k in range(9))  # 1 … 65536
QUICK_MAX_BATCH = 4096


def thread_counts(wanted=(1, 2)) -> list[int]:
    """The requested thread counts that this Numba build can run."""
    wanted = [check_int("threads", t, 1, None) for t in wanted]
    return [t for t in wanted if t <= numba.config.NUMBA_NUM_THREADS]


def _check(game, *, players=(), batch_sizes=(), threads=(), seconds=None, seed=None):
    """Refuse a measurement's bad arguments before it starts (``OptionError`` names the
    argument and its range); thread counts above what Numba runs are skipped, not refused."""
    spec = mg.get_spec(game)
    for n in players:
        check_num_players(spec, n)
    for size in batch_sizes:
        check_int("batch_size", size, 1, None)
    thread_counts(threads)
    if seconds is not None:
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float, np.number)):
            raise OptionError(f"seconds must be a number, got {type(seconds).__name__}")
        if not (math.isfinite(seconds) and seconds > 0):
            raise OptionError(f"seconds must be a finite number > 0, got {seconds}")
    if seed is not None:
        check_seed(seed)


def _check_batches(game, num_players, batch_sizes, threads, seconds, seed) -> tuple:
    """``_check`` of a measurement of one player count over ``batch_sizes``; those as a tuple."""
    batch_sizes = tuple(batch_sizes)
    _check(
        game,
        players=[num_players],
        batch_sizes=batch_sizes,
        threads=threads,
        seconds=seconds,
        seed=seed,
    )
    return batch_sizes


class _Threads:
    """Run a block with ``numba.set_num_threads(n)``, restoring the previous count after."""

    def __init__(self, n: int):
        self.n = n

    def __enter__(self):
        self.previous = numba.get_num_threads()
        numba.set_num_threads(self.n)

    def __exit__(self, *exc):
        numba.set_num_threads(self.previous)


def machine_info() -> dict:
    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "numba_threads": numba.config.NUMBA_NUM_THREADS,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
    }


def _time_loop(step, seconds: float, min_iters: int = 3) -> tuple[int, float]:
    """Call ``step()`` until ``seconds`` have passed (at least ``min_iters`` times)."""
    iters = 0
    start = time.perf_counter()
    while True:
        step()
        iters += 1
        elapsed = time.perf_counter() - start
        if iters >= min_iters and elapsed >= seconds:
            return iters, elapsed


def _step_runs(make_step, batch_sizes, threads, seconds) -> list[dict]:
    runs = []
    for size in batch_sizes:
        step = make_step(size)
        for t in thread_counts(threads):
            with _Threads(t):
                step()  # first touch of the buffers at this size and thread count
                iters, elapsed = _time_loop(step, seconds)
                chosen = threads_for(size)  # what the thread policy runs at the end
            runs.append(
                {
                    "batch_size": size,
                    "threads": t,
                    "policy_threads": chosen,
                    "steps": iters * size,
                    "seconds": elapsed,
                    "steps_per_s": iters * size / elapsed,
                }
            )
        del step
    return runs


def _best(runs: list[dict]) -> dict:
    best = max(runs, key=lambda r: r["steps_per_s"])
    return {
        "best_steps_per_s": best["steps_per_s"],
        "best_batch_size": best["batch_size"],
        "best_threads": best["threads"],
    }


def _batch_random_step(
    game: str, size: int, num_players: int, seed: int, observation: str | None = None
):
    """One random step of every game of a fresh ``copy=False`` batch, as a callable."""
    extra = {} if observation is None else {"observation": observation}
    batch = mg.make_batch(game, size, num_players, seed, copy=False, **extra)
    batch.reset()
    words = policy_words(seed, size)
    actions = np.empty(size, dtype=np.int64)

    def step():
        # The sampler is a parallel kernel too: under the same thread policy as the step.
        with use_threads(size):
            random_legal_actions(batch.legal_mask, words, actions)
        batch.step(actions)

    return step


def batched_step(
    game: str,
    num_players: int = 2,
    batch_sizes=BATCH_SIZES,
    threads=(1, 2),
    seconds: float = 0.8,
    seed: int = 0,
    observation: str | None = None,
) -> dict:
    """Random self-play steps/s through ``BatchEnv.step`` (one step = one action per game).

    Each step includes the action check, the rules kernel, auto-reset, new masks and the
    observation encoding of every game. The batch hands back its buffers (``copy=False``),
    as a training loop that consumes each step's arrays at once would use it.
    ``observation``: the observation encoded (``make_batch``'s keyword; None: the full one).
    """
    batch_sizes = _check_batches(game, num_players, batch_sizes, threads, seconds, seed)

    def make_step(size):
        return _batch_random_step(game, size, num_players, seed, observation)

    runs = _step_runs(make_step, batch_sizes, threads, seconds)
    return {"num_players": num_players, "runs": runs, **_best(runs)}


def kernel_step(
    game: str,
    num_players: int = 2,
    batch_sizes=(1024, 16384),
    threads=(1, 2),
    seconds: float = 0.5,
    seed: int = 0,
) -> dict:
    """The same self-play through the game's ``step_batch`` kernel alone: no action check and
    no observation encoding. Shows how much of ``batched_step`` the rules themselves take."""
    batch_sizes = _check_batches(game, num_players, batch_sizes, threads, seconds, seed)
    spec = mg.get_spec(game)
    seed64 = np.uint64(seed)
    options = spec.options_code(spec.options, num_players)

    def make_step(size):
        states = np.zeros(size, dtype=spec.state_dtype)
        episodes = np.zeros(size, dtype=np.int64)
        masks = np.zeros((size, spec.num_actions), dtype=np.int8)
        rewards = np.zeros((size, spec.max_players), dtype=np.float32)
        terminated = np.zeros(size, dtype=np.bool_)
        truncated = np.zeros(size, dtype=np.bool_)
        final_scores = np.zeros((size, spec.seats(num_players)), dtype=np.int32)
        final_lengths = np.zeros(size, dtype=np.int64)
        final_states = np.zeros(size, dtype=spec.state_dtype)
        spec.reset_batch(states, num_players, seed64, 0, episodes, options)
        spec.legal_masks_batch(states, masks)
        words = policy_words(seed, size)
        actions = np.empty(size, dtype=np.int64)
        no_seats = np.full(size, -1, dtype=np.int64)  # no in-kernel opponent
        no_words = np.zeros(size, dtype=np.uint64)

        def step():
            with use_threads(size):
                _kernel_call(masks, actions)

        def _kernel_call(masks, actions):
            random_legal_actions(masks, words, actions)
            spec.step_batch(
                states,
                actions,
                masks,
                rewards,
                terminated,
                truncated,
                num_players,
                seed64,
                episodes,
                final_scores,
                final_lengths,
                final_states,
                options,
                no_seats,
                no_seats,
                no_words,
            )

        return step

    runs = _step_runs(make_step, batch_sizes, threads, seconds)
    return {"num_players": num_players, "runs": runs, **_best(runs)}


VECTOR_WINDOWS = 6


def _game_steps(batch, before: dict) -> int:
    """Game steps the rows of ``batch`` played since ``before`` (its step counters and episode
    numbers then): a row whose episode changed finished its old game (``final_lengths``) and
    played ``step_count`` moves of the new one (a row that ended twice counts its last game)."""
    count = batch._states["step_count"].astype(np.int64)
    changed = batch._episodes != before["episodes"]
    played = np.where(
        changed, batch._final_lengths - before["count"] + count, count - before["count"]
    )
    return int(played.sum())


def _make_vector_step(game, size, num_players, seed, opponent, autoreset_mode="SameStep"):
    """One learner step of a fresh ``make_vec`` env (``copy=False``) with random legal
    actions, as a callable; ``step.env`` is the env."""
    import gymnasium

    from meeple_gym.core.gym_env import GAME_IDS

    env = gymnasium.make_vec(
        GAME_IDS[game],
        num_envs=size,
        vectorization_mode="vector_entry_point",
        num_players=num_players,
        opponent=opponent,
        copy=False,
        autoreset_mode=autoreset_mode,
    )
    _, info = env.reset(seed=seed)
    words = policy_words((seed + 1) & MAX_SEED, size)
    actions = np.empty(size, dtype=np.int64)
    state = {"mask": info["action_mask"]}

    def step():
        with use_threads(size):
            random_legal_actions(state["mask"], words, actions)
        state["mask"] = env.step(actions)[4]["action_mask"]

    step.env = env
    return step


def _game_steps_per_learner_step(step, steps: int = 20) -> float:
    """Mean game steps (learner and opponent moves) in one learner step of ``step``."""
    batch = step.env.unwrapped.batch
    total = 0
    for _ in range(steps):
        before = {
            "count": batch._states["step_count"].astype(np.int64),
            "episodes": batch._episodes.copy(),
        }
        step()
        total += _game_steps(batch, before)
    return total / (steps * batch.batch_size)


def vector_env(
    game: str,
    num_players: int = 2,
    batch_size: int = 1024,
    threads=(1, 2),
    seconds: float = 1.0,
    seed: int = 0,
    opponents=("random", "self"),
    autoreset_modes=("NextStep", "SameStep"),
) -> dict:
    """Learner steps/s of ``gymnasium.make_vec(..., opponent=...)`` against ``BatchEnv.step``
    steps/s on the same batch size, per thread count and opponent.

    With the random opponent a learner step includes the opponent moves played inside the
    batch until every row waits for its learner: with 2 players about two game steps, where
    ``BatchEnv.step`` plays one. ``game_step_ratio`` compares game steps (learner steps x
    ``game_steps_per_learner_step``, counted from the games' step counters) and so the
    wrapper's own cost; in self-play (``"self"``) a learner step is one game step and the two
    ratios are the same. Both envs hand back their buffers (``copy=False``) and both policies
    draw with ``random_legal_actions``. ``autoreset_modes``: Gymnasium's default
    ``"NextStep"`` (a row that ended spends a learner step on its reset: no game step) and
    ``"SameStep"`` (every learner step a decision, as in the figures before both were
    measured)."""
    _check_batches(game, num_players, [batch_size], threads, seconds, seed)
    autoreset_modes = [check_autoreset_mode(m).value for m in autoreset_modes]
    # The two are timed in alternating short windows and compared window by window (median of
    # the ratios), so a change in machine load hits both sides of each ratio alike.
    batch_step = _batch_random_step(game, batch_size, num_players, seed)
    runs = []
    for mode, opponent in itertools.product(autoreset_modes, opponents):
        vector_step = _make_vector_step(game, batch_size, num_players, seed, opponent, mode)
        per_learner = _game_steps_per_learner_step(vector_step)
        for t in thread_counts(threads):
            with _Threads(t):
                batch_step()
                vector_step()
                windows = []
                for _ in range(VECTOR_WINDOWS):
                    b_iters, b_s = _time_loop(batch_step, seconds / VECTOR_WINDOWS)
                    v_iters, v_s = _time_loop(vector_step, seconds / VECTOR_WINDOWS)
                    windows.append((b_iters * batch_size / b_s, v_iters * batch_size / v_s))
            ratio = float(np.median([v / b for b, v in windows]))
            runs.append(
                {
                    "opponent": opponent,
                    "autoreset_mode": mode,
                    "batch_size": batch_size,
                    "threads": t,
                    "batch_steps_per_s": float(np.median([b for b, _ in windows])),
                    "vector_learner_steps_per_s": float(np.median([v for _, v in windows])),
                    "ratio": ratio,
                    "game_steps_per_learner_step": per_learner,
                    "game_step_ratio": ratio * per_learner,
                    "windows": VECTOR_WINDOWS,
                }
            )
    return {
        "num_players": num_players,
        "opponents": list(opponents),
        "autoreset_modes": list(autoreset_modes),
        "runs": runs,
    }


def rollout(game: str, player_counts=None, threads=(1, 2), seconds: float = 1.0, seed: int = 0):
    """Complete random games per second inside the kernel, per player count and threads."""
    spec = mg.get_spec(game)
    counts = list(player_counts or spec.player_counts())
    _check(game, players=counts, threads=threads, seconds=seconds, seed=seed)
    runs = []
    for n in counts:
        batch = mg.make_batch(game, 1, n, seed)
        batch.random_rollout(8)  # compile or load from cache outside the timing
        for t in thread_counts(threads):
            # Calibrate on a short run, then size the timed run to about ``seconds``.
            start = time.perf_counter()
            batch.random_rollout(128, threads=t)
            rate = 128 / max(time.perf_counter() - start, 1e-6)
            num_games = int(min(max(rate * seconds, 256), 2_000_000))
            start = time.perf_counter()
            out = batch.random_rollout(num_games, threads=t)
            elapsed = time.perf_counter() - start
            steps = int(out["length"].sum())
            runs.append(
                {
                    "num_players": n,
                    "threads": t,
                    "games": num_games,
                    "steps": steps,
                    "seconds": elapsed,
                    "games_per_s": num_games / elapsed,
                    "steps_per_s": steps / elapsed,
                    "mean_length": steps / num_games,
                    "truncated": int(out["truncated"].sum()),
                }
            )
    return {"runs": runs}


# Run in a fresh interpreter; prints one JSON line of phase timings (seconds).
_STARTUP_SCRIPT = r"""
import json, sys, time
t0 = time.perf_counter()
import numpy as np
import meeple_gym as mg
game, n, mode = sys.argv[1], int(sys.argv[2]), sys.argv[3]
out = {"import": time.perf_counter() - t0}
if mode in ("batch", "all"):
    t = time.perf_counter()
    b = mg.make_batch(game, 4, n, seed=0)
    b.reset()
    b.step(b.legal_mask.argmax(axis=1))
    out["batch_make_reset_step"] = time.perf_counter() - t
if mode in ("aec", "all"):
    t = time.perf_counter()
    e = mg.make(game, n)
    e.reset(seed=0)
    obs = e.last()[0]
    e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    out["aec_make_reset_step"] = time.perf_counter() - t
if mode == "all":
    t = time.perf_counter()
    b.random_rollout(4)
    out["rollout_first_call"] = time.perf_counter() - t
out["total"] = time.perf_counter() - t0
print(json.dumps(out))
"""


def _run_fresh(game: str, num_players: int, mode: str, cache_dir: str) -> dict:
    # The child imports the installed meeple_gym (editable or not), like a user's first start.
    env = dict(os.environ, MEEPLE_GYM_CACHE_DIR=cache_dir)
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-c", _STARTUP_SCRIPT, game, str(num_players), mode],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"start-up probe failed:\n{proc.stderr[-2000:]}")
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    result["process_wall"] = wall  # includes interpreter start and exit
    return result


def startup(game: str, num_players: int = 2) -> dict:
    """Cold (empty Numba cache: everything compiles) vs warm (cache filled) fresh processes."""
    _check(game, players=[num_players])
    with tempfile.TemporaryDirectory(prefix="meeple-numba-cache-") as cache_dir:
        cold = _run_fresh(game, num_players, "all", cache_dir)
        warm_aec = _run_fresh(game, num_players, "aec", cache_dir)
        warm_batch = _run_fresh(game, num_players, "batch", cache_dir)
    return {
        "cold": cold,
        "warm_aec": warm_aec,
        "warm_batch": warm_batch,
        "cold_compile_s": cold["total"],
        "warm_start_s": max(warm_aec["total"], warm_batch["total"]),
    }


class _Uniform:
    """Cheap uniform picks for Python-level loops: floats drawn from NumPy in blocks, so the
    policy costs far less than the environment step being measured."""

    def __init__(self, seed: int, block: int = 8192):
        self.rng = np.random.default_rng(seed)
        self.block = block
        self.values = self.rng.random(block).tolist()
        self.next = 0

    def below(self, n: int) -> int:
        if self.next == self.block:
            self.values = self.rng.random(self.block).tolist()
            self.next = 0
        u = self.values[self.next]
        self.next += 1
        return int(u * n)


def _timed_games(num_players: int, play_game, seconds: float) -> dict:
    """One run record: whole games ``play_game(games_so_far) -> steps`` until ``seconds`` pass."""
    steps = games = 0
    start = time.perf_counter()
    while True:
        steps += play_game(games)
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            break
    return {
        "num_players": num_players,
        "games": games,
        "steps": steps,
        "seconds": elapsed,
        "steps_per_s": steps / elapsed,
        "games_per_s": games / elapsed,
    }


def aec(game: str, player_counts=(2,), seconds: float = 1.0, seed: int = 0) -> dict:
    """Steps/s through the PettingZoo API, playing whole games until ``seconds`` pass."""
    player_counts = tuple(player_counts)
    _check(game, players=player_counts, seconds=seconds, seed=seed)
    runs = []
    for n in player_counts:
        env = mg.make(game, n)
        uniform = _Uniform(seed)
        env.reset(seed=seed)
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))  # warm-up outside timing

        def play_game(_games, env=env, uniform=uniform):
            steps = 0
            env.reset()
            for _agent in env.agent_iter():
                obs, _reward, terminated, truncated, _info = env.last()
                if terminated or truncated:
                    action = None
                else:
                    legal = obs["action_mask"].nonzero()[0]
                    action = int(legal[uniform.below(legal.size)])
                    steps += 1
                env.step(action)
            return steps

        runs.append(_timed_games(n, play_game, seconds))
    return {"runs": runs}


def reference(game: str, player_counts=(2,), seconds: float = 2.0, seed: int = 0) -> dict | None:
    """The slow reference rules on uniform-random games (None if the game has none)."""
    player_counts = tuple(player_counts)
    _check(game, players=player_counts, seconds=seconds, seed=seed)
    build = mg.get_spec(game).reference
    if build is None:
        return None
    runs = []
    for n in player_counts:
        uniform = _Uniform(seed)

        def play_game(games, n=n, uniform=uniform):
            steps = 0
            g = build(n, seed, games)
            while not g.is_over:
                legal = g.legal_actions()
                g.step(legal[uniform.below(len(legal))])
                steps += 1
            return steps

        runs.append(_timed_games(n, play_game, seconds))
    return {"runs": runs}


def _targets(result: dict, game: str) -> list[dict]:
    spec = mg.get_spec(game)
    big = [r for r in result["rollout"]["runs"] if r["num_players"] == spec.max_players]
    aec_runs = result["aec"]["runs"]
    measured = {
        "batched_steps_per_s": result["batched_step"]["best_steps_per_s"],
        "rollout_games_per_s_max_players": max(r["games_per_s"] for r in big),
        "aec_steps_per_s": min(r["steps_per_s"] for r in aec_runs),
        "warm_start_s": result["startup"]["warm_start_s"] if result.get("startup") else None,
    }
    targets = dict(spec.bench_targets)
    if result.get("vector_env"):
        runs = result["vector_env"]["runs"]
        ratios = [r["ratio"] for r in runs if r.get("opponent", "random") == "random"]
        if ratios:
            measured["vector_env_vs_batch_ratio"] = min(ratios)
            targets["vector_env_vs_batch_ratio"] = VECTOR_ENV_MIN_RATIO
        # The wrapper's own cost: at least 85% of BatchEnv's game steps/s (any opponent).
        measured["vector_env_per_game_step_ratio"] = min(
            r.get("game_step_ratio", r["ratio"]) for r in runs
        )
        targets["vector_env_per_game_step_ratio"] = VECTOR_ENV_MIN_GAME_STEP_RATIO
    rows = []
    for name, target in targets.items():
        value = measured[name]
        if value is None:
            met = None
        elif name == "warm_start_s":
            met = value <= target
        else:
            met = value >= target
        rows.append({"name": name, "target": target, "measured": value, "met": met})
    return rows


def run_all(
    game: str = "century",
    quick: bool = False,
    include_startup: bool = True,
    log=None,
    observation: str | None = None,
) -> dict:
    """Every measurement for ``game``; ``log(msg)`` (e.g. ``print`` to stderr) reports progress.
    ``observation`` (e.g. "compact"): the observation ``batched_step`` encodes."""
    spec = mg.get_spec(game, observation)
    log = log or (lambda msg: None)
    sizes = [b for b in BATCH_SIZES if not quick or b <= QUICK_MAX_BATCH]
    scale = 0.3 if quick else 1.0
    counts = list(spec.player_counts())
    from meeple_gym.core import thread_policy

    result = {
        "game": game,
        "quick": quick,
        "machine": machine_info(),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "state_bytes_per_game": int(spec.state_dtype.itemsize),
        "num_actions": spec.num_actions,
        "obs_size": spec.obs_size,
        "observation": spec.observation,
    }
    if include_startup:
        log("start-up: cold compile and warm start in fresh processes")
        result["startup"] = startup(game)
    log("batched random self-play through BatchEnv.step")
    result["batched_step"] = batched_step(
        game, batch_sizes=sizes, seconds=0.8 * scale, observation=observation
    )
    log("the same through the rules kernel alone (no checks, no observations)")
    result["kernel_step"] = kernel_step(game, seconds=0.5 * scale)
    log("Gymnasium vector env (random opponent) against BatchEnv.step, batch 1024")
    result["vector_env"] = vector_env(game, seconds=1.0 * scale)
    log("in-kernel random rollouts")
    result["rollout"] = rollout(game, counts, seconds=1.0 * scale)
    log("PettingZoo AEC loop")
    result["aec"] = aec(game, counts, seconds=1.0 * scale)
    log("slow reference rules")
    result["reference"] = reference(game, counts, seconds=2.0 * scale)
    result["targets"] = _targets(result, game)
    # The policy in force and, per batch size and requested thread count, what it chose
    # (batched_step's "policy_threads"); the load average says how busy the machine was.
    result["thread_policy"] = thread_policy.report()
    return result


def _fmt(x: float) -> str:
    return f"{x:,.0f}" if x >= 100 else f"{x:,.2f}"


def format_summary(result: dict) -> str:
    """A readable multi-line summary of ``run_all``'s result."""
    lines = [
        f"meeple bench: {result['game']}{' (quick)' if result['quick'] else ''}  "
        f"[{result['machine']['cpu_count']} CPUs, numba {result['machine']['numba']}]",
        f"state: {result['state_bytes_per_game']:,} bytes per game; "
        f"{result['num_actions']} actions; observation {result['obs_size']} floats"
        f" ({result.get('observation', 'full')})",
    ]
    policy = result.get("thread_policy")
    if policy:
        load = result.get("load_average")
        lines.append(
            f"thread policy: {policy['mode']} (serial below {policy['parallel_min_batch']} "
            f"games; at most {policy['free_cores']:.1f} free of {policy['cpus']} cores"
            + (f", load {load[0]:.2f}" if load else "")
            + f"; override: {policy['override']})"
        )
    if result.get("startup"):
        s = result["startup"]
        lines.append(
            f"start-up: cold compile {s['cold_compile_s']:.1f} s (fresh process, empty cache); "
            f"warm import+make+reset+step {s['warm_aec']['total']:.2f} s (AEC), "
            f"{s['warm_batch']['total']:.2f} s (batch)"
        )
    b = result["batched_step"]
    lines.append(f"\nBatchEnv.step, random actions, {b['num_players']} players (steps/s):")
    threads = sorted({r["threads"] for r in b["runs"]})
    lines.append(
        "  batch "
        + "".join(f"{f'{t} thread(s)':>16}" for t in threads)
        + "   threads the policy ran"
    )
    for size in sorted({r["batch_size"] for r in b["runs"]}):
        rows = {r["threads"]: r for r in b["runs"] if r["batch_size"] == size}
        cells = "".join(
            f"{_fmt(rows[t]['steps_per_s']) if t in rows else '-':>16}" for t in threads
        )
        chosen = "/".join(str(rows[t].get("policy_threads", t)) for t in threads if t in rows)
        lines.append(f"  {size:>5} {cells}   {chosen}")
    k = result["kernel_step"]
    lines.append(
        f"  rules kernel alone (step_batch, no checks/observations): best "
        f"{_fmt(k['best_steps_per_s'])} steps/s (batch {k['best_batch_size']}, "
        f"{k['best_threads']} thread(s))"
    )
    if result.get("vector_env"):
        v = result["vector_env"]
        lines.append(
            f"\nGymnasium vector env vs BatchEnv.step ({v['num_players']} players; learner "
            "steps/s vs steps/s, and per game step):"
        )
        for r in v["runs"]:
            lines.append(
                f"  {r.get('opponent', 'random'):>6} opponent, "
                f"{r.get('autoreset_mode', 'SameStep'):>8}, batch {r['batch_size']}, "
                f"{r['threads']} thread(s): vector env {_fmt(r['vector_learner_steps_per_s'])}, "
                f"BatchEnv {_fmt(r['batch_steps_per_s'])}  (ratio {r['ratio']:.2f}; "
                f"{r.get('game_steps_per_learner_step', 1):.2f} game steps a learner step, "
                f"per game step {r.get('game_step_ratio', r['ratio']):.2f})"
            )
    lines.append("\nin-kernel random_rollout (complete games):")
    lines.append("  players threads        games/s          steps/s  mean length")
    for r in result["rollout"]["runs"]:
        lines.append(
            f"  {r['num_players']:>7} {r['threads']:>7} {_fmt(r['games_per_s']):>14} "
            f"{_fmt(r['steps_per_s']):>16} {r['mean_length']:>12.0f}"
        )
    lines.append("\nPettingZoo AEC loop / slow reference (steps/s, games/s):")
    ref = {r["num_players"]: r for r in (result["reference"] or {"runs": []})["runs"]}
    for r in result["aec"]["runs"]:
        text = f"  {r['num_players']} players: AEC {_fmt(r['steps_per_s'])} steps/s"
        text += f", {_fmt(r['games_per_s'])} games/s"
        if r["num_players"] in ref:
            rr = ref[r["num_players"]]
            text += (
                f";  reference {_fmt(rr['steps_per_s'])} steps/s, {_fmt(rr['games_per_s'])} games/s"
            )
        lines.append(text)
    lines.append("\ntargets:")
    for t in result["targets"]:
        mark = {True: "met", False: "NOT met", None: "not measured"}[t["met"]]
        value = "-" if t["measured"] is None else _fmt(t["measured"])
        lines.append(
            f"  {t['name']:<34} target {_fmt(t['target']):>10}  measured {value:>12}  {mark}"
        )
    return "\n".join(lines)


def plot(result: dict, path) -> Path:
    """A PNG of ``run_all``'s result: steps/s against batch size for each thread count
    (``BatchEnv.step`` and the rules kernel alone), and rollout games/s per player count.
    Needs matplotlib (``pip install meeple-gym[plot]``). The suffix of ``path`` picks the
    format (.png, .svg, .pdf, ...); the file is written whole or not at all."""
    from meeple_gym.core.files import plot_format, pyplot, save_figure

    plt = pyplot()

    path = Path(path)
    fmt = plot_format(path)  # a bad suffix fails before the drawing
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    for key, style, label in (
        ("batched_step", "-o", "BatchEnv.step"),
        ("kernel_step", "--s", "kernel"),
    ):
        runs = result[key]["runs"]
        for t in sorted({r["threads"] for r in runs}):
            pts = sorted((r["batch_size"], r["steps_per_s"]) for r in runs if r["threads"] == t)
            left.plot(*zip(*pts, strict=True), style, label=f"{label}, {t} thread{'s' * (t > 1)}")
    left.set(xscale="log", yscale="log", xlabel="batch size (games)", ylabel="steps/s")
    left.set_title(
        f"{result['game']}: random self-play, {result['batched_step']['num_players']} players"
    )
    left.grid(True, which="both", alpha=0.3)
    left.legend(fontsize=8)
    runs = result["rollout"]["runs"]
    players = sorted({r["num_players"] for r in runs})
    threads = sorted({r["threads"] for r in runs})
    width = 0.8 / len(threads)
    for i, t in enumerate(threads):
        rates = [
            next((r["games_per_s"] for r in runs if r["num_players"] == n and r["threads"] == t), 0)
            for n in players
        ]
        xs = [k + (i - (len(threads) - 1) / 2) * width for k in range(len(players))]
        right.bar(xs, rates, width, label=f"{t} thread{'s' * (t > 1)}")
    right.set_xticks(range(len(players)), [str(n) for n in players])
    right.set(xlabel="players", ylabel="games/s")
    right.set_title("in-kernel random_rollout (complete games)")
    right.grid(True, axis="y", alpha=0.3)
    right.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path, fmt)
    return path
