"""Print the Endeavor card tables of docs/endeavor.md from envs/endeavor/data; ``--write`` puts
them into the page in place of the old ones (run it after a table change;
tests/test_endeavor_docs.py checks that the page and the data agree)."""

import json
import sys
from pathlib import Path

from meeple_gym.endeavor import data as D

PAGE = Path(__file__).resolve().parents[1] / "endeavor.md"
FIRST_HEADING = "### Regions (END-R1…R4)"


def ability_text(kind: int, arg: int) -> str:
    name = D.ABILITIES[kind]
    if name == "none":
        return "—"
    if name == "role_bonus":
        return f"+1 {D.ROLES[arg]}"
    if name == "travel_discount":
        return "travel −1"
    if name == "extra_good":
        return f"+1 {D.GOODS[arg]} per Merchant action"
    if name == "defence":
        return "defence +1"
    if name == "extra_tokens":
        return f"+{arg} tokens"
    return f"+1 per own city in {D.REGION_NAMES[arg]}"


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def condition_text(e: int) -> str:
    kind = D.CONDITIONS[D.EMPIRE_CONDITION[e]]
    n = int(D.EMPIRE_CONDITION_COUNT[e])
    region = D.EMPIRE_CONDITION_REGION[e]
    where = D.REGION_NAMES[region] if region >= 0 else ""
    return {
        "cities_in_region": f"{_count(n, 'city', 'cities')} in {where}",
        "ships_in_region": f"{_count(n, 'ship', 'ships')} in {where}",
        "cities_total": _count(n, "city", "cities"),
        "goods_total": _count(n, "good", "goods"),
    }[kind]


def _row(*cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def _table(title: str, header: tuple, rows) -> list[str]:
    """A Markdown table under its heading: header, separator, one line per row of cells."""
    return [title, "", _row(*header), "|" + "---|" * len(header), *(_row(*r) for r in rows)]


def tables() -> str:
    out = _table(
        FIRST_HEADING,
        ("region", "travel cost", "open at start", "after", "city slots"),
        (
            (
                D.REGION_NAMES[i],
                D.REGION_TRAVEL[i],
                "yes" if D.REGION_OPEN_AT_START[i] else "no",
                D.REGION_NAMES[D.REGION_PREVIOUS[i]] if D.REGION_PREVIOUS[i] >= 0 else "—",
                D.REGION_SLOTS[i],
            )
            for i in range(D.N_REGIONS)
        ),
    )
    out += [""] + _table(
        "### City cards (49: 7 per region)",
        (
            "city",
            "region",
            "good",
            "settle (goods)",
            "build (work)",
            "points",
            "ability on a board",
        ),
        (
            (
                D.CITY_NAMES[i],
                D.REGION_NAMES[D.CITY_REGION[i]],
                D.GOODS[D.CITY_GOOD[i]],
                D.CITY_SETTLE_COST[i],
                D.CITY_BUILD_COST[i],
                D.CITY_POINTS[i],
                ability_text(D.CITY_ABILITY[i], D.CITY_ABILITY_ARG[i]),
            )
            for i in range(D.N_CITIES)
        ),
    )
    out += [""] + _table(
        "### Empire cards (30)",
        ("card", "votes", "condition", "points", "ability"),
        (
            (
                D.EMPIRE_NAMES[e],
                D.EMPIRE_VOTE_COST[e],
                condition_text(e),
                D.EMPIRE_POINTS[e],
                ability_text(D.EMPIRE_ABILITY[e], D.EMPIRE_ABILITY_ARG[e]),
            )
            for e in range(D.N_EMPIRE)
        ),
    )
    out += [""] + _table(
        "### Buildings (20)",
        ("building", "work", "points", "ability"),
        (
            (
                D.BUILDING_NAMES[b],
                D.BUILDING_WORK_COST[b],
                D.BUILDING_POINTS[b],
                ability_text(D.BUILDING_ABILITY[b], D.BUILDING_ABILITY_ARG[b]),
            )
            for b in range(D.N_BUILDINGS)
        ),
    )
    return "\n".join(out) + "\n"


RESULTS = Path(__file__).resolve().parents[2] / "benchmarks" / "results"
BALANCE_FILES = ("endeavor_cards_2p.json", "endeavor_cards_2p_heuristic.json")
BALANCE_HEADER = "| kind | card | random play: holder wins (times held) | heuristic self-play |"
MIN_HELD = 100  # fewer holds: the count alone, no rate


def balance_results() -> list[dict]:
    """benchmarks/endeavor_card_stats.py's figures: random play, then heuristic self-play."""
    return [json.loads((RESULTS / name).read_text()) for name in BALANCE_FILES]


def _rate(row: dict) -> str:
    if row["held"] < MIN_HELD:
        return f"({row['held']} held)"
    return f"{row['win_rate']:.0%} ({row['held']})"


def balance_table() -> str:
    random_play, heuristic = balance_results()
    out = [BALANCE_HEADER, "|---|---|---|---|"]
    for a, b in zip(random_play["cards"], heuristic["cards"], strict=True):
        assert (a["kind"], a["name"]) == (b["kind"], b["name"])
        out.append(f"| {a['kind']} | {a['name']} | {_rate(a)} | {_rate(b)} |")
    return "\n".join(out) + "\n"


def write(path: Path = PAGE) -> None:
    """Replace the page's card tables (from the regions heading up to the next ``## ``
    heading) and its balance table (from its header to the next blank line)."""
    page = path.read_text()
    start = page.index(FIRST_HEADING)
    end = page.index("\n## ", start) + 1
    page = page[:start] + tables() + "\n" + page[end:]
    start = page.index(BALANCE_HEADER)
    end = page.index("\n\n", start) + 1
    path.write_text(page[:start] + balance_table() + page[end:])


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        write()
    else:
        print(tables(), end="")
