"""A rating ladder: a seeded round-robin between agents, rated with OpenSkill.

>>> from meeple_gym.baselines.ladder import run_ladder
>>> table = run_ladder("century", 2, ["random", "heuristic", "mypkg.agents:MyAgent"], 200)

Every pair of agents plays ``games_per_pair`` games through
``meeple_gym.baselines.evaluate.play_match`` (seats rotated game by game; with more than two
seats the first agent of the pair takes one seat and the second all the others). Each game then
updates the two agents' ratings (Plackett-Luce, ``openskill``): the agent in the winning seat
ranks first; a game with no single winner is a draw. Games are rated pair by pair in a fixed
order, so the ladder depends only on the seed. The table is sorted by the conservative estimate
``mu - 3 sigma``.
"""

from __future__ import annotations

import sys
from itertools import combinations

from meeple_gym.baselines.evaluate import MAX_GAMES, agent_seed, make_agent, play_match
from meeple_gym.core.batch import check_seed
from meeple_gym.core.errors import OptionError
from meeple_gym.core.options import check_int
from meeple_gym.core.rng import py_derive_key

_PAIR_STREAM = 0x4C41  # RNG stream id of the per-pair match seeds


def check_ladder(
    game: str, agents, seed: int, num_players: int | None = None, games_per_pair: int | None = None
) -> list:
    """Check a ladder's arguments before any game: the seed, the agents (two or more,
    distinct, all known) and, if given, the player count and games per pair. Returns the
    agents as a list."""
    import meeple_gym as mg
    from meeple_gym.core.registry import check_num_players

    spec = mg.get_spec(game)
    seed = int(check_seed(seed))
    if num_players is not None:
        check_num_players(spec, num_players)
    if games_per_pair is not None:
        check_int("games_per_pair", games_per_pair, 1, MAX_GAMES)
    agents = list(agents)
    if len(agents) < 2 or len(set(agents)) != len(agents):
        raise OptionError(f"a ladder needs two or more distinct agents, got {agents}")
    for k, name in enumerate(agents):
        make_agent(name, game, agent_seed(seed, k))  # fail fast on an unknown agent
    return agents


def ladder_pairs(agents: list, seed: int) -> list[tuple]:
    """``(a, b, match_seed)`` of each match of the round-robin, in rating order."""
    seed = int(check_seed(seed))
    pairs = combinations(range(len(agents)), 2)
    return [
        (agents[i], agents[j], py_derive_key(seed, index, _PAIR_STREAM))
        for index, (i, j) in enumerate(pairs)
    ]


def run_ladder(
    game: str,
    num_players: int,
    agents: list[str],
    games_per_pair: int,
    seed: int = 0,
    progress: bool = True,
) -> dict:
    from tqdm import tqdm

    agents = check_ladder(game, agents, seed, num_players, games_per_pair)
    pairs = ladder_pairs(agents, seed)
    results = []
    bar = tqdm(pairs, desc=f"{game} ladder", unit="pair", file=sys.stderr, disable=not progress)
    for a, b, match_seed in bar:
        bar.set_postfix_str(f"{a} vs {b}")
        # The match's own bar (under this one) shows the step within long games.
        results.append(
            play_match(game, num_players, [a, b], games_per_pair, match_seed, progress=progress)
        )
    return rate_ladder(game, num_players, agents, games_per_pair, seed, pairs, results)


def rate_ladder(game, num_players, agents, games_per_pair, seed, pairs, results) -> dict:
    """The ladder from each pair's ``play_match`` result: games are rated pair by pair in
    order, so the ratings depend only on the results, not on where they were played."""
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    ratings = {name: model.rating(name=name) for name in agents}
    record = {name: {"games": 0, "wins": 0, "draws": 0, "losses": 0} for name in agents}
    matches = []
    for (a, b, match_seed), result in zip(pairs, results, strict=True):
        for winner in result["winning_agent"]:
            ranks = [1, 1] if winner < 0 else ([1, 2] if winner == 0 else [2, 1])
            [[ratings[a]], [ratings[b]]] = model.rate([[ratings[a]], [ratings[b]]], ranks=ranks)
            for name, rank, other in ((a, ranks[0], ranks[1]), (b, ranks[1], ranks[0])):
                record[name]["games"] += 1
                key = "draws" if rank == other else ("wins" if rank < other else "losses")
                record[name][key] += 1
        matches.append(
            {
                "agents": [a, b],
                "seed": match_seed,
                "games": games_per_pair,
                "wins": result["wins"],
                "draws": result["draws"],
                "losses": result["losses"],
                "win_rate": result["win_rate"],
                "ci_low": result["ci_low"],
                "ci_high": result["ci_high"],
                "truncated": result["truncated"],
            }
        )
    rows = [
        {
            "agent": name,
            "mu": float(ratings[name].mu),
            "sigma": float(ratings[name].sigma),
            "ordinal": float(ratings[name].ordinal()),
            **record[name],
        }
        for name in agents
    ]
    rows.sort(key=lambda r: r["ordinal"], reverse=True)
    return {
        "game": game,
        "num_players": num_players,
        "games_per_pair": games_per_pair,
        "seed": seed,
        "model": "openskill PlackettLuce",
        "ratings": rows,
        "matches": matches,
    }


def format_ladder(result: dict) -> str:
    lines = [
        f"{result['game']}, {result['num_players']} players: {result['games_per_pair']} games "
        f"per pair, seed {result['seed']} ({result['model']})",
        f"{'rank':>4}  {'agent':<28} {'mu':>7} {'sigma':>6} {'mu-3σ':>7}  {'W-D-L':>13}",
    ]
    for rank, r in enumerate(result["ratings"], 1):
        wdl = f"{r['wins']}-{r['draws']}-{r['losses']}"
        lines.append(
            f"{rank:>4}  {r['agent']:<28} {r['mu']:>7.2f} {r['sigma']:>6.2f} "
            f"{r['ordinal']:>7.2f}  {wdl:>13}"
        )
    return "\n".join(lines)


def plot_ladder(result: dict, path) -> str:
    """A PNG of the ratings: mu with a 3-sigma bar per agent (needs matplotlib). The suffix of
    ``path`` picks the format (.png, .svg, .pdf, ...); the file is written whole or not at all."""
    from meeple_gym.core.files import plot_format, pyplot, save_figure

    plt = pyplot()

    fmt = plot_format(path)  # a bad suffix fails before the drawing
    rows = result["ratings"][::-1]
    fig, ax = plt.subplots(figsize=(7, 0.6 * len(rows) + 1.5))
    ax.errorbar(
        [r["mu"] for r in rows],
        range(len(rows)),
        xerr=[3 * r["sigma"] for r in rows],
        fmt="o",
        capsize=4,
    )
    ax.set_yticks(range(len(rows)), [r["agent"] for r in rows])
    ax.set_xlabel("rating mu (bar: 3 sigma)")
    ax.set_title(
        f"{result['game']}, {result['num_players']} players: "
        f"{result['games_per_pair']} games per pair"
    )
    ax.grid(True, axis="x", alpha=0.3)
    fig.tight_layout()
    save_figure(fig, path, fmt)
    return str(path)
