"""Rollouts, matches and ladders sharded across Ray workers, with the same results as locally.

>>> from meeple_gym import distributed
>>> out = distributed.rollout("century", 2, 100_000, seed=0, backend="ray", num_workers=8)
>>> distributed.save_rollout(out, "century.npz")
>>> match = distributed.play_match("century", 2, ["heuristic", "random"], 20_000, seed=0,
...                                backend="ray")

Bit-identical by construction. Work is cut into shards whose results depend only on the seed
and the shard's position, never on which worker plays it or how many there are:

- a uniform-random rollout (no ``agents``) is the in-kernel ``random_rollout`` of
  ``meeple_gym.core.batch``: game ``g`` deals from key (seed, g) and draws its moves from
  (seed, g, policy), so a shard is just the range of game indices it plays
  (``play_random_games(first_game, num_games)``);
- a match or an agent rollout is played in batches of ``max_batch`` games
  (``meeple_gym.baselines.evaluate.match_chunks``): each batch has its own seed and makes its
  named agents afresh from it, so a shard is one batch;
- a ladder's matches are seeded per pair (``ladder_pairs``) and rated in a fixed order on the
  driver once all are back (``rate_ladder``).

``backend="local"`` runs the very same code in this process (rollouts without agents call
``BatchEnv.random_rollout`` itself). Ray retries a shard whose worker died
(``max_retries``); a retried shard replays the same games, so the result does not change.

Workers. Each Ray task asks for one CPU and runs Numba on one thread (``threads_per_worker``),
so N workers use N cores without oversubscribing them. A local Ray started by ``ray.init()``
inherits this process's environment: its workers import the installed ``meeple_gym`` and load
the kernels from the same cache (``~/.cache/meeple-gym``), which the driver warms first. On a
cluster, install meeple-gym on every node and run ``meeple warmup`` there once (or bake it
into the image); otherwise each worker compiles the kernels on its first task. See
docs/distributed.md.
"""

from __future__ import annotations

import json
import math
import sys
import time

import numpy as np

from meeple_gym.core.errors import MeepleError, OptionError
from meeple_gym.core.options import check_int

BACKENDS = ("local", "ray")
FORMAT_VERSION = 1
DEFAULT_MAX_RETRIES = 3
# Rollout shards per worker: a few each, so a worker with short games does not sit idle.
SHARDS_PER_WORKER = 4


class ClusterError(MeepleError, ConnectionError):
    """Ray could not be started or its cluster joined (e.g. ``address="auto"`` with none
    running); the message says which address and why."""


# ----------------------------------------------------------------------------- shards


def random_rollout_shard(job: dict) -> dict:
    """Games ``job["first"] .. job["first"] + job["count"] - 1`` of a uniform-random rollout
    (``meeple_gym.core.batch.play_random_games``): the same games, move for move, as those
    indices of ``make_batch(game, 1, num_players, seed).random_rollout(...)``."""
    import meeple_gym as mg
    from meeple_gym.core.batch import check_seed, play_random_games
    from meeple_gym.core.threads import check_fork_safe

    spec = mg.get_spec(job["game"])
    num_players = job["num_players"]
    code = spec.options_code(dict(spec.options), num_players)
    check_fork_safe()
    seed = check_seed(job["seed"])
    return play_random_games(spec, job["first"], job["count"], num_players, seed, code)


class _Recorder:
    """Collects the decisions ``_play_chunk`` reports, then lays them out game by game."""

    def __init__(self, observations: bool):
        self.observations = observations
        self.parts = []

    def __call__(self, rows, players, actions, obs, masks):
        extra = (obs.astype(np.float32, copy=False), masks != 0) if self.observations else ()
        self.parts.append((rows, players.astype(np.int8), actions.astype(np.int32), *extra))

    def arrays(self, size: int) -> dict:
        columns = list(zip(*self.parts, strict=True))
        rows = np.concatenate(columns[0])
        order = np.argsort(rows, kind="stable")  # game by game, each in the order played
        offsets = np.zeros(size + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=size), out=offsets[1:])
        out = {
            "traj_offsets": offsets,
            "traj_player": np.concatenate(columns[1])[order],
            "traj_action": np.concatenate(columns[2])[order],
        }
        if self.observations:
            out["traj_observation"] = np.concatenate(columns[3])[order]
            out["traj_mask"] = np.concatenate(columns[4])[order]
        return out


def match_shard(job: dict) -> dict:
    """One batch of a match (``evaluate.match_chunks``): slots ``0..n-1`` of a batch seeded
    ``job["seed"]``, seat ``p`` of game ``i`` held by agent ``job["seats"][i, p]``, agents
    made afresh from the batch seed exactly as ``evaluate.play_match`` does. With
    ``job["trajectories"]`` it also returns every decision (``rollout``'s format)."""
    from meeple_gym.baselines.evaluate import _play_chunk, chunk_agents

    agents = chunk_agents(job["agents"], job["game"], job["seed"])
    record = _Recorder(job.get("observations", False)) if job.get("trajectories") else None
    seats = np.asarray(job["seats"])
    winner, scores, lengths, truncated = _play_chunk(
        job["game"], job["num_players"], agents, seats, job["seed"], None, record
    )
    out = {"winner": winner, "scores": scores, "length": lengths, "truncated": truncated}
    if record is not None:
        out.update(record.arrays(seats.shape[0]))
    return out


def merge_shards(parts: list[dict]) -> dict:
    """Shard results joined in shard order; trajectory offsets shifted to the whole run."""
    out = {}
    for key in parts[0]:
        if key == "traj_offsets":
            ends = np.cumsum([p["traj_offsets"][-1] for p in parts])
            starts = np.concatenate([[0], ends[:-1]])
            out[key] = np.concatenate(
                [[0]] + [p[key][1:] + s for p, s in zip(parts, starts, strict=True)]
            ).astype(np.int64)
        else:
            out[key] = np.concatenate([p[key] for p in parts])
    return out


# ----------------------------------------------------------------------------- running


def _check_backend(backend, address, num_workers) -> int | None:
    if backend not in BACKENDS:
        raise OptionError(f"backend must be one of {', '.join(BACKENDS)}, got {backend!r}")
    if address is not None and backend != "ray":
        raise OptionError("address is for the ray backend")
    if num_workers is not None:
        num_workers = check_int("num_workers", num_workers, 1, None)
    return num_workers


def _import_ray():
    try:
        import ray
    except ImportError as exc:
        raise OptionError("the ray backend needs Ray: pip install 'meeple-gym[ray]'") from exc
    return ray


def connect(address: str | None = None, num_workers: int | None = None):
    """The ``ray`` module, initialised: an already running ``ray.init`` is used as it is;
    else ``ray.init(address)`` (None starts a local instance with ``num_workers`` CPUs, or
    all of them; ``"auto"`` or ``"ray://host:10001"`` join a cluster)."""
    ray = _import_ray()
    if not ray.is_initialized():
        kwargs = {"include_dashboard": False}
        if address is None and num_workers is not None:
            kwargs["num_cpus"] = num_workers
        try:
            ray.init(address=address, **kwargs)
        # Ray's own errors for no cluster at that address (ConnectionError) and for an address
        # it cannot parse (ValueError); every other argument here is fixed or checked.
        except (ConnectionError, ValueError) as exc:
            where = "start a local Ray" if address is None else f"join Ray at {address!r}"
            raise ClusterError(f"cannot {where}: {exc}") from exc
    return ray


def _on_worker(fn, job, threads):
    """Run a shard on a Ray worker with ``threads`` Numba threads (restored afterwards)."""
    import numba

    previous = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        return fn(job)
    finally:
        numba.set_num_threads(previous)


_REMOTE = {}


def run_on_ray(
    fn,
    jobs: list,
    address: str | None = None,
    num_workers: int | None = None,
    max_retries: int = DEFAULT_MAX_RETRIES,
    threads_per_worker: int = 1,
    on_done=None,
) -> list:
    """``[fn(job) for job in jobs]``, as Ray tasks, at most ``num_workers`` at a time (default:
    the cluster's CPUs). A task whose worker dies is retried up to ``max_retries`` times; an
    exception raised by ``fn`` is not retried and is raised here. ``fn`` must be importable
    on the workers (or picklable by value). ``on_done(index, result)`` is called as each
    task finishes."""
    ray = connect(address, num_workers)
    max_retries = check_int("max_retries", max_retries, 0, None)
    threads_per_worker = check_int("threads_per_worker", threads_per_worker, 1, None)
    if num_workers is None:
        num_workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
    key = (max_retries, threads_per_worker)
    if key not in _REMOTE:
        _REMOTE[key] = ray.remote(num_cpus=threads_per_worker, max_retries=max_retries)(_on_worker)
    remote = _REMOTE[key]
    results = [None] * len(jobs)
    pending = {}
    queue = iter(enumerate(jobs))
    for index, job in queue:
        pending[remote.remote(fn, job, threads_per_worker)] = index
        if len(pending) >= num_workers:
            break
    try:
        while pending:
            [ready], _ = ray.wait(list(pending), num_returns=1)
            index = pending.pop(ready)
            results[index] = ray.get(ready)
            if on_done is not None:
                on_done(index, results[index])
            for next_index, job in queue:
                pending[remote.remote(fn, job, threads_per_worker)] = next_index
                break
    except BaseException:
        for ref in pending:  # do not leave the other shards running for nothing
            ray.cancel(ref)
        raise
    return results


def warm_for_ray(game: str, parts, address: str | None, progress: bool = True) -> None:
    """Compile ``game``'s kernels here first when Ray runs on this machine (no ``address``):
    its workers then load them from the shared cache instead of each compiling them."""
    if address is None:
        from meeple_gym.core.warmup import ensure_warm

        ensure_warm([game], parts=parts, progress=progress)


def run_jobs(fn, jobs, backend="local", address=None, num_workers=None, on_done=None) -> list:
    """``[fn(job) for job in jobs]`` in this process (``"local"``) or on Ray."""
    if backend == "ray":
        return run_on_ray(fn, jobs, address, num_workers, on_done=on_done)
    results = []
    for index, job in enumerate(jobs):
        results.append(fn(job))
        if on_done is not None:
            on_done(index, results[-1])
    return results


def _progress_bar(total: int, desc: str, progress: bool):
    from tqdm import tqdm

    return tqdm(
        total=total, desc=desc, unit="game", file=sys.stderr, disable=not progress, leave=False
    )


def _run_with_progress(fn, jobs, backend, address, num_workers, total, desc, progress):
    """``run_jobs`` with a bar that counts the games of each finished shard."""
    with _progress_bar(total, desc, progress) as bar:
        return run_jobs(
            fn,
            jobs,
            backend,
            address,
            num_workers,
            on_done=lambda i, r: bar.update(r["length"].shape[0]),
        )


def _named_agents(agents, backend: str) -> list:
    if backend == "ray":
        for agent in agents:
            if not isinstance(agent, str):
                raise OptionError(
                    "the ray backend takes agents by name or import path "
                    f"('package.module:Name'), not objects (got {type(agent).__name__}): "
                    "each worker makes its own"
                )
    return list(agents)


# ----------------------------------------------------------------------------- rollout


def rollout(
    game: str,
    num_players: int,
    num_games: int,
    seed: int = 0,
    *,
    agents: list | None = None,
    trajectories: bool = False,
    observations: bool = False,
    backend: str = "local",
    address: str | None = None,
    num_workers: int | None = None,
    shard_games: int | None = None,
    max_batch: int | None = None,
    progress: bool = False,
    out: str | None = None,
    chunk_decisions: int | None = None,
) -> dict:
    """Play ``num_games`` self-play games; per-game arrays and, optionally, every decision.

    Without ``agents``: uniform-random games in the Numba kernel, exactly
    ``make_batch(game, 1, num_players, seed).random_rollout(num_games)``; ``shard_games``
    games per Ray task (default: a few tasks per worker). With ``agents`` (names or import
    paths as in ``meeple eval``; one name plays every seat, two play first-vs-rest, or one
    per seat, seats rotated) the games are played through the batch env in batches of
    ``max_batch`` (default ``evaluate.MAX_BATCH``), exactly as ``play_match`` plays them, and
    ``trajectories=True`` records each decision (``observations=True`` adds the acting
    player's observation and legal mask; large).

    Returns a dict: ``length`` (G,) steps, ``scores`` (G, seats), ``winner`` (G,) seat or -1
    (truncated or no single winner; -2 a solo game lost to the automated opponent),
    ``truncated`` (G,), with agents also ``seat_agent`` (G, players) and the trajectory
    arrays (docs/distributed.md, "Trajectories"), and ``meta`` (a dict). The result is the
    same, bit for bit, on every backend and any number of workers.

    ``out``: also write the result to this ``.npz`` (``save_rollout``'s file). Trajectories
    on the local backend are then streamed to it as they are played
    (``meeple_gym.rollout_stream``), ``chunk_decisions`` decisions at a time, so memory stays
    flat at any game count; the returned dict then has ``traj_offsets`` but not the
    decisions themselves (read them from the file).
    """
    import meeple_gym as mg
    from meeple_gym.baselines import evaluate
    from meeple_gym.core.batch import check_seed
    from meeple_gym.core.registry import check_num_players

    num_workers = _check_backend(backend, address, num_workers)
    spec = mg.get_spec(game)
    num_players = check_num_players(spec, num_players)
    num_games = check_int("num_games", num_games, 1, evaluate.MAX_GAMES)
    seed = int(check_seed(seed))
    # Checked where given, even if this kind of rollout does not use it.
    if shard_games is not None:
        shard_games = check_int("shard_games", shard_games, 1, None)
    if max_batch is not None:
        max_batch = check_int("max_batch", max_batch, 1, None)
    if chunk_decisions is not None:
        chunk_decisions = check_int("chunk_decisions", chunk_decisions, 1, None)
    if out is not None:
        from meeple_gym.core.files import check_output_path

        check_output_path(out)  # before any game is played
    meta = {
        "format": FORMAT_VERSION,
        "game": game,
        "num_players": num_players,
        "num_games": num_games,
        "seed": seed,
        "agents": None,
        "max_batch": None,
    }
    start_time = time.perf_counter()
    if agents is None:
        if trajectories or observations:
            raise OptionError(
                "trajectories are recorded for agent games; give agents (e.g. ['random']): "
                "the in-kernel random rollout keeps no per-step record"
            )
        result = _random_rollout(
            spec,
            game,
            num_players,
            num_games,
            seed,
            backend,
            address,
            num_workers,
            shard_games,
            progress,
        )
    else:
        if observations and not trajectories:
            raise OptionError("observations=True needs trajectories=True")
        agents = _named_agents(agents, backend)
        if len(agents) == 1:
            agents = agents * num_players
        agents = evaluate.check_match(game, num_players, agents, num_games, seed)
        max_batch = evaluate.MAX_BATCH if max_batch is None else max_batch  # 0 is no default
        evaluate.chunk_agents(agents, game, seed)  # fail fast on an unknown agent
        if backend == "ray":
            connect(address, num_workers)  # no cluster: say so before compiling anything
            warm_for_ray(game, ("batch",), address, progress)
        seats = evaluate.seat_table(num_games, num_players, len(agents))
        meta["agents"] = [evaluate.agent_label(a) for a in agents]
        meta["max_batch"] = max_batch
        if out is not None and trajectories and backend == "local":
            return _stream_rollout(
                out,
                game,
                num_players,
                agents,
                seats,
                seed,
                observations,
                meta,
                start_time,
                chunk_decisions,
                progress,
            )
        jobs = [
            {
                "game": game,
                "num_players": num_players,
                "agents": agents,
                "seats": seats[a:b],
                "seed": s,
                "trajectories": bool(trajectories),
                "observations": bool(observations),
            }
            for a, b, s in evaluate.match_chunks(num_games, seed, max_batch)
        ]
        parts = _run_with_progress(
            match_shard, jobs, backend, address, num_workers, num_games, f"{game} rollout", progress
        )
        result = merge_shards(parts)
        result["seat_agent"] = seats
    meta["backend"] = backend
    meta["seconds"] = time.perf_counter() - start_time
    result["meta"] = meta
    if out is not None:
        save_rollout(result, out)
    return result


def _stream_rollout(
    path,
    game,
    num_players,
    agents,
    seats,
    seed,
    observations,
    meta,
    start_time,
    chunk_decisions,
    progress,
):
    """``rollout``'s agent games on this process, streamed to ``path``."""
    from meeple_gym.baselines import evaluate
    from meeple_gym.rollout_stream import DEFAULT_CHUNK_DECISIONS, stream_rollout

    meta["backend"] = "local"
    chunks = evaluate.match_chunks(seats.shape[0], seed, meta["max_batch"])

    def finish_meta():
        meta["seconds"] = time.perf_counter() - start_time
        return meta

    with evaluate.match_progress(seats.shape[0], f"{game} rollout", progress) as bar:
        options = {
            "chunk_decisions": chunk_decisions or DEFAULT_CHUNK_DECISIONS,
            "meta": finish_meta,
            "bar": bar,
        }
        result = stream_rollout(
            path, game, num_players, agents, seats, chunks, observations, options
        )
    result["meta"] = meta
    return result


def _random_rollout(
    spec, game, num_players, num_games, seed, backend, address, num_workers, shard_games, progress
):
    import meeple_gym as mg

    if backend == "local":
        return mg.make_batch(game, 1, num_players, seed=seed).random_rollout(num_games)
    ray = connect(address, num_workers)  # no cluster: say so before compiling anything
    warm_for_ray(game, ("rollout",), address, progress)
    if shard_games is None:
        workers = num_workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        shard_games = math.ceil(num_games / (SHARDS_PER_WORKER * workers))
    jobs = [
        {
            "game": game,
            "num_players": num_players,
            "seed": seed,
            "first": first,
            "count": min(shard_games, num_games - first),
        }
        for first in range(0, num_games, shard_games)
    ]
    parts = _run_with_progress(
        random_rollout_shard,
        jobs,
        backend,
        address,
        num_workers,
        num_games,
        f"{game} rollout",
        progress,
    )
    return merge_shards(parts)


def save_rollout(result: dict, path) -> str:
    """Write ``rollout``'s result to one compressed NumPy ``.npz`` file (``meta`` as JSON),
    whole or not at all (``meeple_gym.core.files.atomic_write``). ``np.load(path)`` reads it
    back; so does ``load_rollout``."""
    from meeple_gym.core.files import atomic_write

    arrays = {k: np.asarray(v) for k, v in result.items() if k != "meta"}
    meta = np.array(json.dumps(result.get("meta", {}), sort_keys=True))
    path = str(path)
    with atomic_write(path) as f:  # a file object: savez would append ".npz" to a bare name
        np.savez_compressed(f, meta=meta, **arrays)
    return path


def load_rollout(path, keys=None) -> dict:
    """A rollout file as a dict of arrays, with ``meta`` decoded; only ``keys`` (those of
    them the file has) if given, so a reader of actions does not load every observation."""
    with np.load(path, allow_pickle=False) as data:
        wanted = data.files if keys is None else [k for k in data.files if k in keys]
        out = {k: data[k] for k in wanted if k != "meta"}
        out["meta"] = json.loads(str(data["meta"])) if "meta" in data.files else {}
    return out


# ----------------------------------------------------------------------------- eval, ladder


def _match_jobs(game, num_players, agents, num_games, seed, max_batch) -> tuple[list, np.ndarray]:
    from meeple_gym.baselines import evaluate

    seats = evaluate.seat_table(num_games, num_players, len(agents))
    jobs = [
        {"game": game, "num_players": num_players, "agents": agents, "seats": seats[a:b], "seed": s}
        for a, b, s in evaluate.match_chunks(num_games, seed, max_batch)
    ]
    return jobs, seats


def _summary(game, num_players, agents, seed, seats, parts) -> dict:
    from meeple_gym.baselines import evaluate

    out = merge_shards(parts)
    return evaluate.match_summary(
        game,
        num_players,
        [evaluate.agent_label(a) for a in agents],
        seed,
        seats,
        out["winner"],
        out["scores"],
        out["length"],
        out["truncated"],
    )


def play_match(
    game: str,
    num_players: int,
    agent_names: list,
    num_games: int,
    seed: int = 0,
    progress: bool = True,
    max_batch: int | None = None,
    *,
    backend: str = "local",
    address: str | None = None,
    num_workers: int | None = None,
) -> dict:
    """``meeple_gym.baselines.evaluate.play_match`` on a backend: ``"ray"`` plays each batch
    of ``max_batch`` games as one Ray task and returns the same dict as the local run."""
    from meeple_gym.baselines import evaluate

    num_workers = _check_backend(backend, address, num_workers)
    max_batch = evaluate.MAX_BATCH if max_batch is None else max_batch
    if backend == "local":
        return evaluate.play_match(
            game, num_players, agent_names, num_games, seed, progress, max_batch=max_batch
        )
    agents = evaluate.check_match(
        game, num_players, _named_agents(agent_names, backend), num_games, seed
    )
    max_batch = check_int("max_batch", max_batch, 1, None)
    evaluate.chunk_agents(agents, game, seed)  # fail fast on an unknown agent
    connect(address, num_workers)  # no cluster: say so before compiling anything
    warm_for_ray(game, ("batch",), address, progress)
    jobs, seats = _match_jobs(game, num_players, agents, num_games, seed, max_batch)
    parts = _run_with_progress(
        match_shard,
        jobs,
        backend,
        address,
        num_workers,
        num_games,
        f"{game} {' vs '.join(agents)}",
        progress,
    )
    return _summary(game, num_players, agents, seed, seats, parts)


def run_ladder(
    game: str,
    num_players: int,
    agents: list[str],
    games_per_pair: int,
    seed: int = 0,
    progress: bool = True,
    *,
    backend: str = "local",
    address: str | None = None,
    num_workers: int | None = None,
) -> dict:
    """``meeple_gym.baselines.ladder.run_ladder`` on a backend: ``"ray"`` plays every batch
    of every pair's match as its own Ray task, then rates them on this process in the local
    order, so the ladder is the same as the local one."""
    from meeple_gym.baselines import evaluate, ladder

    num_workers = _check_backend(backend, address, num_workers)
    if backend == "local":
        return ladder.run_ladder(game, num_players, agents, games_per_pair, seed, progress)
    agents = ladder.check_ladder(
        game, _named_agents(agents, backend), seed, num_players, games_per_pair
    )
    pairs = ladder.ladder_pairs(agents, seed)
    jobs, owners, tables = [], [], []
    for index, (a, b, match_seed) in enumerate(pairs):
        evaluate.check_match(game, num_players, [a, b], games_per_pair, match_seed)
        pair_jobs, seats = _match_jobs(
            game, num_players, [a, b], games_per_pair, match_seed, evaluate.MAX_BATCH
        )
        jobs += pair_jobs
        owners += [index] * len(pair_jobs)
        tables.append(seats)
    connect(address, num_workers)  # no cluster: say so before compiling anything
    warm_for_ray(game, ("batch",), address, progress)
    total = games_per_pair * len(pairs)
    parts = _run_with_progress(
        match_shard, jobs, backend, address, num_workers, total, f"{game} ladder", progress
    )
    results = []
    for index, (a, b, match_seed) in enumerate(pairs):
        mine = [p for p, owner in zip(parts, owners, strict=True) if owner == index]
        results.append(_summary(game, num_players, [a, b], match_seed, tables[index], mine))
    return ladder.rate_ladder(game, num_players, agents, games_per_pair, seed, pairs, results)
