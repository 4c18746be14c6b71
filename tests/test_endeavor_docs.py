"""docs/endeavor.md lists every designed card exactly as the data tables define it (END-C2), and
its balance figures are the ones benchmarks/endeavor_card_stats.py measured on these tables."""

import sys
from pathlib import Path

from meeple_gym.endeavor import data as D

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs" / "tools"))
from endeavor_tables import balance_results, balance_table, tables  # noqa: E402


def test_docs_tables_match_the_data():
    page = (ROOT / "docs" / "endeavor.md").read_text()
    for row in tables().splitlines():
        if row.startswith("| ") and not row.startswith("| region |"):
            assert row in page, f"docs/endeavor.md is out of date: missing {row!r}"


def test_docs_say_this_is_not_the_published_game():
    page = (ROOT / "docs" / "endeavor.md").read_text()
    assert "not the published board game" in page


def test_balance_figures_measured_on_these_tables():
    """END-A5: the per-card figures were measured on the current tables (a table edit
    changes the digest: re-run benchmarks/endeavor_card_stats.py) and the page shows them."""
    for result in balance_results():
        assert result["tables_digest"] == D.TABLES_DIGEST, (
            f"{result['policy']} figures are stale: re-run benchmarks/endeavor_card_stats.py"
        )
    page = (ROOT / "docs" / "endeavor.md").read_text()
    for row in balance_table().splitlines():
        assert row in page, f"docs/endeavor.md balance table is out of date: missing {row!r}"


def test_every_card_taken_in_random_and_heuristic_play():
    """END-A5: no card is dead; every city, empire card and building was held at
    the end of some game under random play and under heuristic self-play."""
    sizes = {"city": D.N_CITIES, "empire": D.N_EMPIRE, "building": D.N_BUILDINGS}
    for result in balance_results():
        cards = result["cards"]
        assert len(cards) == sum(sizes.values())
        for kind, n in sizes.items():
            assert sorted(c["id"] for c in cards if c["kind"] == kind) == list(range(n))
        never = [c["name"] for c in cards if c["held"] == 0]
        assert not never and not result["never_taken"], (result["policy"], never)
