"""Dice Nim's ``GameSpec``: every fact about the game that the rest of meeple-gym reads."""

from meeple_gym.core.game import GameSpec

from . import determinize, encoder, rules, snapshot

SPEC = GameSpec.from_modules(
    "minimal",
    rules,
    encoder,
    snapshot,
    min_players=rules.MIN_PLAYERS,
    max_players=rules.MAX_PLAYERS,
    docs="docs/adding-a-game.md",
    determinize=determinize,
    heuristic=f"{__package__}.heuristic:MinimalHeuristicAgent",
    search={
        "sims": 100,
        "c": 1.0,
        "prior": 0.0,
        "epsilon": 0.1,
        "depth": 0,
        "scale": 1.0,
        "scores": "meeple_gym.baselines.ismcts:_scores_score_of",
        "score_kernels": {"score_of": f"{__package__}.rules:score_of"},
        "rollout": f"{__package__}.heuristic:heuristic_action",
    },
)
