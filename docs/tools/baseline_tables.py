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
    for prefix in ("eval", "budget"):
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


def main() -> int:
    print(strength_tables())
    for game in GAMES:
        table = ladder_table(game)
        if table:
            print(f"\n### {game}\n\n{table}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
