"""Print the Endeavor card tables of docs/endeavor.md from envs/endeavor/data (run after a table
change and paste the output over the "Tables" subsections; tests/test_endeavor_docs.py checks
that the page and the data agree)."""

from envs.endeavor import data as D


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


def condition_text(e: int) -> str:
    kind = D.CONDITIONS[D.EMPIRE_CONDITION[e]]
    n = int(D.EMPIRE_CONDITION_COUNT[e])
    region = D.EMPIRE_CONDITION_REGION[e]
    where = D.REGION_NAMES[region] if region >= 0 else ""
    return {
        "none": "—",
        "cities_in_region": f"{n} cities in {where}",
        "ships_in_region": f"{n} ships in {where}",
        "cities_total": f"{n} cities",
        "goods_total": f"{n} goods",
    }[kind]


def tables() -> str:
    out = ["### Regions (END-R1…R4)", ""]
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


if __name__ == "__main__":
    print(tables(), end="")
