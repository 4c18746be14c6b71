"""Century's ``GameSpec``: what the registry hands to the AEC env, the batch and the CLI."""

from encoders import century as encoder
from envs.century import rules, snapshot
from envs.core.game import GameSpec

SPEC = GameSpec.from_modules(
    "century",
    rules,
    encoder,
    snapshot,
    min_players=rules.MIN_PLAYERS,
    max_players=rules.MAX_PLAYERS,
    docs="docs/century.md",
)
