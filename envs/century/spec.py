"""Century's ``GameSpec``: what the registry hands to the AEC env, the batch and the CLI."""

from meeple_gym.century import determinize, rules, snapshot
from meeple_gym.core.game import GameSpec
from meeple_gym.encoders import century as encoder

SPEC = GameSpec.from_modules(
    "century",
    rules,
    encoder,
    snapshot,
    min_players=rules.MIN_PLAYERS,
    max_players=rules.MAX_PLAYERS,
    docs="docs/century.md",
    determinize=determinize,
)
