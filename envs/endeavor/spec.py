"""Endeavor's ``GameSpec`` (the rules text's game, docs/endeavor.md). No options."""

from meeple_gym.core.game import GameSpec
from meeple_gym.encoders import endeavor as encoder
from meeple_gym.endeavor import determinize, rules, snapshot

SPEC = GameSpec.from_modules(
    "endeavor",
    rules,
    encoder,
    snapshot,
    min_players=2,
    max_players=4,
    docs="docs/endeavor.md",
    determinize=determinize,
)
