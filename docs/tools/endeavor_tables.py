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


def tables() -> str:
    out = [FIRST_HEADING, ""]
    out += [
        "| region | travel cost | open at start | after | city slots |",
        "|---|---|---|---|---|",
    ]
    for i in range(D.N_REGIONS):
        prev = D.REGION_PREVIOUS[i]
        out.append(
            f"| {D.REGION_NAMES[i]} | {D.REGION_TRAVEL[i]} | "
            f"{'yes' if D.REGION_OPEN_AT_START[i] else 'no'} | "
            f"{D.REGION_NAMES[prev] if prev >= 0 else '—'} | {D.REGION_SLOTS[i]} |"
        )
    out += ["", "### City cards (49: 7 per region)", ""]
    out += [
        "| city | region | good | settle (goods) | build (work) | points | ability on a board |",
        "|---|---|---|---|---|---|---|",
    ]
    for i in range(D.N_CITIES):
        out.append(
            f"| {D.CITY_NAMES[i]} | {D.REGION_NAMES[D.CITY_REGION[i]]} | "
            f"{D.GOODS[D.CITY_GOOD[i]]} | {D.CITY_SETTLE_COST[i]} | {D.CITY_BUILD_COST[i]} | "
            f"{D.CITY_POINTS[i]} | {ability_text(D.CITY_ABILITY[i], D.CITY_ABILITY_ARG[i])} |"
        )
    out += ["", "### Empire cards (30)", ""]
    out += ["| card | votes | condition | points | ability |", "|---|---|---|---|---|"]
    for e in range(D.N_EMPIRE):
        out.append(
            f"| {D.EMPIRE_NAMES[e]} | {D.EMPIRE_VOTE_COST[e]} | {condition_text(e)} | "
            f"{D.EMPIRE_POINTS[e]} | {ability_text(D.EMPIRE_ABILITY[e], D.EMPIRE_ABILITY_ARG[e])} |"
        )
    out += ["", "### Buildings (20)", ""]
    out += ["| building | work | points | ability |", "|---|---|---|---|"]
    for b in range(D.N_BUILDINGS):
        out.append(
            f"| {D.BUILDING_NAMES[b]} | {D.BUILDING_WORK_COST[b]} | {D.BUILDING_POINTS[b]} | "
            f"{ability_text(D.BUILDING_ABILITY[b], D.BUILDING_ABILITY_ARG[b])} |"
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
