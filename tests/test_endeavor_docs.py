"""docs/endeavor.md lists every designed card exactly as the data tables define it (END-C2)."""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "docs" / "tools"))
from endeavor_tables import tables  # noqa: E402


def test_docs_tables_match_the_data():
    page = (ROOT / "docs" / "endeavor.md").read_text()
    for row in tables().splitlines():
        if row.startswith("| ") and not row.startswith("| region |"):
            assert row in page, f"docs/endeavor.md is out of date: missing {row!r}"


def test_docs_say_this_is_not_the_published_game():
    page = (ROOT / "docs" / "endeavor.md").read_text()
    assert "not the published board game" in page
