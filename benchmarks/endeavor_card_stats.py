"""Per-card balance check for Endeavor's designed tables (docs/endeavor.md, "Balance").

Plays uniformly random games and, for every card, the win rate of the players who held it at
the end (a city: its marker or the card on the board; an empire card or building: on the
board). A balanced table keeps every card near the average win rate of a holder; a card far
above it would decide games.

    python benchmarks/endeavor_card_stats.py --players 2 --games 200000 [--json FILE]
    python benchmarks/endeavor_card_stats.py --policy heuristic --games 20000

``--policy heuristic`` seats the heuristic agent in every seat instead (games then differ only
by the deal), a check that the skew seen under random play is not an artefact of its tiny
scores.

Every card must be taken under both policies (END-A5: a card nobody can take is dead); the
run lists those held in no game, and the JSON records them with the tables' digest
(``data.TABLES_DIGEST``), so tests/test_endeavor_docs.py sees figures measured on old tables.
"""

import argparse
import json

import numpy as np
from tqdm import tqdm

from meeple_gym.core.rng import game_key
from meeple_gym.core.sampling import random_legal
from meeple_gym.endeavor import data as D
from meeple_gym.endeavor import rules as R

KINDS = (("city", D.N_CITIES, D.CITY_NAMES), ("empire", D.N_EMPIRE, D.EMPIRE_NAMES))
KINDS += (("building", D.N_BUILDINGS, D.BUILDING_NAMES),)


def _holders(s, n):
    """(kind, card id) -> set of seats holding the card at the end."""
    held = {}
    for k in range(R.N_SLOTS):
        if s["slot_owner"][k] >= 0:
            held.setdefault(("city", int(s["slot_city"][k])), set()).add(int(s["slot_owner"][k]))
    names = {R.K_CITY: "city", R.K_BUILDING: "building", R.K_EMPIRE: "empire"}
    for p in range(n):
        for i in range(int(s["board_n"][p])):
            key = (names[int(s["board_kind"][p, i])], int(s["board_id"][p, i]))
            held.setdefault(key, set()).add(p)
    return held


def card_stats(
    num_players: int, games: int, seed: int = 0, progress: bool = True, policy: str = "random"
) -> dict:
    agent = None
    if policy == "heuristic":
        from meeple_gym.baselines.endeavor_heuristic import EndeavorHeuristicAgent
        from meeple_gym.encoders import endeavor as encoder

        agent = EndeavorHeuristicAgent()
        obs = np.zeros(encoder.OBS_SIZE, np.float32)
    states = np.zeros(1, R.STATE_DTYPE)
    mask = np.zeros(R.NUM_ACTIONS, np.int8)
    words = np.zeros(1, np.uint64)
    held_games = {}
    held_wins = {}
    for g in tqdm(range(games), disable=not progress, desc=f"{num_players} players"):
        R.init_game(states, 0, num_players, game_key(seed, g), 0)
        words[0] = game_key(seed + 1, g)
        s = states[0]
        while s["phase"] != R.PH_OVER:
            R.legal_mask_into(states, 0, mask)
            if agent is None:
                action = random_legal(mask, words, 0)
            else:
                encoder.encode_into(states, 0, int(s["current_player"]), obs)
                action = agent.act({"observation": obs, "action_mask": mask})
            R.apply_action(states, 0, action)
        for key, seats in _holders(s, num_players).items():
            for p in seats:
                held_games[key] = held_games.get(key, 0) + 1
                held_wins[key] = held_wins.get(key, 0) + int((s["winners"] >> p) & 1)
    rows = []
    for kind, count, names in KINDS:
        for cid in range(count):
            n_held = held_games.get((kind, cid), 0)
            wins = held_wins.get((kind, cid), 0)
            rows.append(
                {
                    "kind": kind,
                    "id": cid,
                    "name": names[cid],
                    "held": n_held,
                    "win_rate": wins / n_held if n_held else None,
                }
            )
    total_held = sum(held_games.values())
    average = sum(held_wins.values()) / total_held if total_held else 0.0
    return {
        "num_players": num_players,
        "policy": policy,
        "games": games,
        "seed": seed,
        "tables_digest": D.TABLES_DIGEST,
        "average": average,
        "never_taken": [f"{row['kind']} {row['name']}" for row in rows if row["held"] == 0],
        "cards": rows,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=None, help="200000 random, 20000 heuristic")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--policy", choices=("random", "heuristic"), default="random")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    args = parser.parse_args(argv)
    if args.games is None:
        args.games = 200000 if args.policy == "random" else 20000
    result = card_stats(args.players, args.games, args.seed, policy=args.policy)
    print(
        f"{args.games} {args.policy} {args.players}-player games; a holder wins "
        f"{result['average']:.1%} on average"
    )
    for row in result["cards"]:
        rate = "-" if row["win_rate"] is None else f"{row['win_rate']:.1%}"
        print(f"{row['kind']:>8} {row['name']:<28} held {row['held']:>6}  wins {rate}")
    print("never taken:", ", ".join(result["never_taken"]) or "none")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump(result, handle, indent=1)


if __name__ == "__main__":
    main()
