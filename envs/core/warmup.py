"""Compile (or load from the cache) every kernel a game needs, ahead of time, with progress.

``meeple warmup`` runs this for Docker images and cluster nodes; the other commands call
``ensure_warm`` so that a first run says it is compiling and shows progress instead of sitting
silent. The work is split into parts (single-game kernels, batch kernels with the heuristic,
rollouts, the ISMCTS search); games compile side by side in worker processes (Numba compiles on
one core), each game's parts one after the other in one process.

A part is *warm* when its game's cache folder (keyed by the game's sources, ``meeple_gym.core.jit``)
holds the marker this module writes once the part compiled. Commands warm only the parts they
use (the arena needs no single-game kernels, ``eval`` no rollout kernel and the search only
when an ``ismcts`` agent plays).
"""

from __future__ import annotations

import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from multiprocessing import get_context

import numpy as np

PARTS = ("single", "batch", "rollout", "search")


def warm_part(task: tuple[str, str]) -> tuple[str, str, float]:
    """Compile one part of one game's kernels (in this process); returns its time."""
    from meeple_gym.core import registry as mg
    from meeple_gym.core.opponents import opponent_factory
    from meeple_gym.core.sampling import policy_words, random_legal_actions

    game, part = task
    start = time.perf_counter()
    spec = mg.get_spec(game)
    n = spec.default_players
    make_agent = opponent_factory().make_agent  # the baselines, injected (core names none)
    if part == "single":
        env = mg.make(game, num_players=n)
        env.reset(seed=0)
        obs = env.last()[0]
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        env.unwrapped.to_dict()
    elif part == "batch":
        batch = mg.make_batch(game, 2, n, seed=0)
        obs = batch.reset()
        actions = np.zeros(2, dtype=np.int64)
        random_legal_actions(batch.legal_mask, policy_words(0, 2), actions)
        # A game without a heuristic (GameSpec.heuristic None) warms the random agent's path.
        agent = make_agent("heuristic" if spec.heuristic else "random", game, 0)
        agent.act_batch(obs, batch.legal_mask)
        agent.act({"observation": obs[0], "action_mask": batch.legal_mask[0]})
        batch.step(actions)
    elif part == "rollout":
        mg.make_batch(game, 1, n, seed=0).random_rollout(2)
    elif part == "search":
        if spec.search is None:  # a game without an ISMCTS search: nothing to compile
            return game, part, time.perf_counter() - start
        batch = mg.make_batch(game, 1, n, seed=0)
        batch.reset()
        make_agent("ismcts:sims=2", game, 0).act_states(batch.get_states())
    else:
        raise ValueError(f"unknown warm-up part {part!r}; parts: {PARTS}")
    return game, part, time.perf_counter() - start


def marker_path(game: str, part: str):
    from meeple_gym.core import jit

    return jit.cache_dir(game) / f"warm-{part}.json"


def is_warm(game: str, parts=PARTS) -> bool:
    return all(marker_path(game, part).is_file() for part in parts)


def _mark_warm(game: str, part: str, seconds: float) -> None:
    try:
        path = marker_path(game, part)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"game": game, "part": part, "compile_seconds": seconds}))
    except OSError:
        pass  # no writable cache: nothing to remember (mg.core.jit warned)


def warm_game(task: tuple[str, tuple[str, ...]]) -> tuple[str, dict[str, float]]:
    """Compile ``parts`` of one game in this process, in order; returns their times."""
    game, parts = task
    seconds = {}
    for part in parts:
        _, _, seconds[part] = warm_part((game, part))
    return game, seconds


def warm(
    games, workers: int | None = None, progress: bool = True, stream=None, parts=PARTS
) -> dict:
    """Compile ``parts`` of ``games``; returns {game: {part: seconds}}.

    ``workers`` processes (default: the number of CPUs) compile games side by side. A game's
    parts compile in one process, one after the other: they share the game's standalone
    kernels (the interpreter, the encoder, the heuristic; meeple_gym.core.jit), which two
    processes would both compile.
    """
    from tqdm import tqdm

    stream = stream or sys.stderr
    tasks = [(g, tuple(parts)) for g in games]
    workers = max(1, min(workers or os.cpu_count() or 1, len(tasks)))
    seconds: dict[str, dict[str, float]] = {g: {} for g in games}
    bar = tqdm(
        total=len(tasks), desc="compiling kernels", unit="game", disable=not progress, file=stream
    )

    def record(game, took):
        seconds[game].update(took)
        for part, part_seconds in took.items():
            _mark_warm(game, part, part_seconds)
        bar.set_postfix_str(game)
        bar.update()

    try:
        if workers == 1:
            for task in tasks:
                record(*warm_game(task))
        else:
            # "spawn": a fresh interpreter per worker, whatever the parent already ran.
            with ProcessPoolExecutor(workers, mp_context=get_context("spawn")) as pool:
                futures = [pool.submit(warm_game, task) for task in tasks]
                for future in as_completed(futures):
                    record(*future.result())
    finally:
        bar.close()
    return seconds


def ensure_warm(games, parts=PARTS, progress: bool = True, stream=None) -> list[str]:
    """Warm the ``parts`` of ``games`` that are not yet; says so first. Returns the games it
    compiled."""
    stream = stream or sys.stderr
    cold = [g for g in games if not is_warm(g, parts)]
    if cold:
        print(
            f"meeple: compiling the kernels of {', '.join(cold)} (first run after install or "
            "an update; about a minute on 2 cores, then cached)",
            file=stream,
            flush=True,
        )
        todo = [p for p in parts if not all(is_warm(g, (p,)) for g in cold)]
        warm(cold, progress=progress, stream=stream, parts=todo)
    return cold
