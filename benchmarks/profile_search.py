"""Where an ISMCTS heuristic play-out step goes: each kernel the search calls, timed on its own.

    python benchmarks/profile_search.py --game everdell     # writes results/profile_search.json

Positions: every decision of 16 two-player games of heuristic self-play. Each kernel is called
once per position in a compiled loop (three repetitions, the best per-call time kept): the
encoder of the observation the play-outs read (the search spec's ``rollout_observation``:
Everdell's compact one), the play-out heuristic on the stored observation, the legal mask, the
record copy of ``meeple_gym.core.records.copy_record`` alone and followed by ``apply_action``
or by ``determinize_into``. Endeavor's play-outs have filled the heuristic's view from the
record since its search spec gained ``rollout_view``; this still times its compact path, the
one the view replaced (benchmarks/README.md, "Play-outs read a view"). Per-call
microseconds; on a busy machine compare the shares, not the
values (benchmarks/README.md, "Performance round 3").
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

import meeple_gym as mg  # noqa: E402
from meeple_gym.baselines import ismcts  # noqa: E402
from meeple_gym.baselines.evaluate import make_agent  # noqa: E402
from meeple_gym.core.jit import game_kernel, rebind  # noqa: E402
from meeple_gym.core.records import copy_record  # noqa: E402
from meeple_gym.core.registry import get_spec  # noqa: E402
from meeple_gym.core.rng import next_u64  # noqa: E402


# Templates compiled per game with its kernels as globals (as in baselines/ismcts.py).
# ruff: noqa: F821
def t_encode(states, players, obs, reps):
    acc = 0.0
    for _ in range(reps):
        for i in range(states.shape[0]):
            encode_into(states, i, players[i], obs)
            acc += obs[0]
    return acc


def t_heur(obs_all, masks, reps):
    acc = 0
    for _ in range(reps):
        for i in range(obs_all.shape[0]):
            acc += heuristic_action(obs_all[i], masks[i])
    return acc


def t_mask(states, mask, reps):
    acc = 0
    for _ in range(reps):
        for i in range(states.shape[0]):
            legal_mask_into(states, i, mask)
            acc += mask[0]
    return acc


def t_copy(states, work, reps):
    for _ in range(reps):
        for i in range(states.shape[0]):
            copy_record(work, 0, states, i)
    return 0


def t_apply(states, work, actions, reps):
    for _ in range(reps):
        for i in range(states.shape[0]):
            copy_record(work, 0, states, i)
            apply_action(work, 0, actions[i])
    return 0


def t_det(states, work, players, reps):
    words = np.zeros(1, np.uint64)
    words[0] = 12345
    for _ in range(reps):
        for i in range(states.shape[0]):
            copy_record(work, 0, states, i)
            determinize_into(work, 0, players[i], next_u64(words, 0))
    return 0


def positions(game: str, encoder, games: int = 16, seed: int = 1):
    """Records, observations (``encoder``'s: the one the play-outs read), masks and heuristic
    actions of every decision of ``games``."""
    batch = mg.make_batch(game, games, 2, seed)
    obs = batch.reset()
    agent = make_agent("heuristic", game, seed)
    seen = ([], [], [], [])
    rollout_obs = np.zeros((games, encoder.obs_size), np.float32)
    for _ in range(3000):
        live = (batch.states["terminated"] == 0) & (batch.states["truncated"] == 0)
        if not live.any():
            break
        actions = agent.act_batch(obs, batch.legal_mask)
        players = batch.states["current_player"].astype(np.int64)
        encoder.encode_batch(batch.get_states(), players, rollout_obs)
        parts = (batch.states, rollout_obs, batch.legal_mask, actions)
        for out, part in zip(seen, parts, strict=True):
            out.append(part[live].copy())
        obs, *_ = batch.step(actions)
    states, observations, masks, actions = (np.concatenate(part) for part in seen)
    return states, observations.astype(np.float32), masks.astype(np.int8), actions.astype(np.int64)


def profile(game: str) -> dict:
    spec = get_spec(game)
    encoder = spec.with_observation(spec.search.get("rollout_observation"))
    namespace = dict(globals())
    namespace.update(
        encode_into=encoder.encode_into,
        legal_mask_into=spec.legal_mask_into,
        apply_action=spec.apply_action,
        determinize_into=spec.determinize_into,
        heuristic_action=ismcts._resolve(spec.search["rollout"]),
    )
    k = {
        f.__name__: game_kernel(rebind(f, namespace), game)
        for f in (t_encode, t_heur, t_mask, t_copy, t_apply, t_det)
    }
    states, obs, masks, actions = positions(game, encoder)
    n = states.shape[0]
    players = states["current_player"].astype(np.int64)
    one_obs = np.zeros(encoder.obs_size, np.float32)
    mask = np.zeros(spec.num_actions, np.int8)
    work = states[:1].copy()
    calls = {
        "encode": lambda r: k["t_encode"](states, players, one_obs, r),
        "heuristic": lambda r: k["t_heur"](obs, masks, r),
        "legal_mask": lambda r: k["t_mask"](states, mask, r),
        "copy_record": lambda r: k["t_copy"](states, work, r),
        "copy_record+apply": lambda r: k["t_apply"](states, work, actions, r),
        "copy_record+determinize": lambda r: k["t_det"](states, work, players, r),
    }
    result = {"positions": n, "us_per_call": {}}
    for name, fn in calls.items():
        fn(1)  # compile or load
        best = np.inf
        for _ in range(3):
            start = time.perf_counter()
            fn(3)
            best = min(best, (time.perf_counter() - start) / 3 / n)
        result["us_per_call"][name] = round(best * 1e6, 2)
        print(f"  {game:9s} {name:24s} {best * 1e6:8.2f} us", file=sys.stderr)
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", choices=ismcts.available_games(), action="append")
    parser.add_argument(
        "--out", default=str(ROOT / "benchmarks" / "results" / "profile_search.json")
    )
    args = parser.parse_args(argv)
    result = {"load_before": list(os.getloadavg()), "games": {}}
    for game in args.game or ["everdell"]:
        result["games"][game] = profile(game)
    result["load_after"] = list(os.getloadavg())
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
