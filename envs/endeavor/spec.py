"""Endeavor's ``GameSpec`` (the rules text's game, docs/endeavor.md). No options."""

from encoders import endeavor as encoder
from envs.core.game import GameSpec
from envs.endeavor import rules, snapshot

SPEC = GameSpec.from_modules(
    "endeavor", rules, encoder, snapshot, min_players=2, max_players=4, docs="docs/endeavor.md"
)
