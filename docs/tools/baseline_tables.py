"""Markdown tables of docs/baselines.md from the match and ladder JSON in
benchmarks/results/baselines/ (written by the commands listed in docs/baselines.md).

    python docs/tools/baseline_tables.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "baselines"
GAMES = ("century", "radlands", "everdell", "endeavor")


def _load(name: str) -> dict | None:
    path = RESULTS / f"{name}.json"
    return json.loads(path.read_text()) if path.is_file() else None


def _rate(r: dict) -> str:
    return f"{r['win_rate']:.1%} [{r['ci_low']:.1%}, {r['ci_high']:.1%}]"


def _wall(r: dict) -> str:
    wall = r.get("wall_s")
    return "" if wall is None else f"{wall / 60:.1f} min"


def strength_tables() -> str:
    lines = ["| game | agents | players | games | win rate of the first [Wilson 95%] | wall |"]
    lines.append("| --- | --- | --- | --- | --- | --- |")
    for prefix in ("eval", "budget", "net"):
        for game in GAMES:
            r = _load(f"{prefix}_{game}")
            if r:
                agents = " vs ".join(f"`{a}`" for a in r["agents"])
                row = [game, agents, str(r["num_players"]), str(r["games"]), _rate(r), _wall(r)]
                lines.append("| " + " | ".join(row) + " |")
    for game in GAMES:
        for n in (3, 4):
            r = _load(f"multi_{game}_{n}")
            if r:
                agents = f"`{r['agents'][0]}` vs {n - 1} x `{r['agents'][1]}`"
                row = [game, agents, str(n), str(r["games"]), _rate(r), _wall(r)]
                lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def ladder_table(game: str) -> str:
    r = _load(f"ladder_{game}")
    if r is None:
        return ""
    lines = ["| rank | agent | mu | sigma | mu - 3 sigma | wins | draws | losses |"]
    lines.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for k, row in enumerate(r["ratings"], 1):
        cells = [str(k), f"`{row['agent']}`", f"{row['mu']:.1f}", f"{row['sigma']:.2f}"]
        cells += [f"{row['ordinal']:.1f}", str(row["wins"]), str(row["draws"]), str(row["losses"])]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _pair(ladder: dict, first: str, second: str) -> str:
    """The ladder match of two agents, from ``first``'s side."""
    from scipy.stats import binomtest

    for m in ladder["matches"]:
        if sorted(m["agents"]) != sorted([first, second]):
            continue
        wins = m["wins"] if m["agents"][0] == first else m["games"] - m["wins"] - m["draws"]
        ci = binomtest(wins, m["games"]).proportion_ci(confidence_level=0.95, method="wilson")
        rate = {"win_rate": wins / m["games"], "ci_low": ci.low, "ci_high": ci.high}
        return f"{wins}/{m['games']}, " + _rate(rate)
    return ""


def net_table() -> str:
    """The learned agent per game: its 400-game match against the heuristic, its ladder
    matches against the heuristic and the search, and its ladder rank."""
    lines = [
        "| game | `net` vs `heuristic`, 400 games | ladder: vs `heuristic` | "
        "ladder: vs `ismcts` | ladder rank |"
    ]
    lines.append("| --- | --- | --- | --- | --- |")
    for game in GAMES:
        match, ladder = _load(f"net_{game}"), _load(f"ladder_{game}")
        if not match or not ladder:
            continue
        names = [row["agent"] for row in ladder["ratings"]]
        if "net" not in names:
            continue
        rank = f"{names.index('net') + 1} of {len(names)}"
        cells = [game, _rate(match), _pair(ladder, "net", "heuristic")]
        cells += [_pair(ladder, "net", "ismcts"), rank]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> int:
    print(strength_tables())
    print()
    print(net_table())
    for game in GAMES:
        table = ladder_table(game)
        if table:
            print(f"\n### {game}\n\n{table}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
