"""Century's ``GameSpec``: what the registry hands to the AEC env, the batch and the CLI."""

from meeple_gym.century import determinize, draw, rules, snapshot
from meeple_gym.core.game import GameSpec
from meeple_gym.encoders import century as encoder


def reference_game(num_players: int, seed: int, index: int):
    """Game ``index`` of ``seed`` in the slow reference rules (``meeple bench``)."""
    from meeple_gym.century.reference import ReferenceGame

    return ReferenceGame(num_players, seed, index)


SPEC = GameSpec.from_modules(
    "century",
    rules,
    encoder,
    snapshot,
    min_players=rules.MIN_PLAYERS,
    max_players=rules.MAX_PLAYERS,
    docs="docs/century.md",
    determinize=determinize,
    drawing=draw,
    reference=reference_game,
    heuristic="meeple_gym.baselines.century_heuristic:CenturyHeuristicAgent",
    # ISMCTS defaults (docs/baselines.md, "Defaults", has the matches that chose them).
    search={
        "sims": 1000,
        "c": 1.0,
        "prior": 0.0,
        "epsilon": 0.1,
        "depth": 20,
        "scale": 8.0,
        "scores": "meeple_gym.baselines.ismcts:_scores_century",
        "score_kernels": {"final_scores_into": "meeple_gym.century.rules:final_scores_into"},
        "rollout": "meeple_gym.baselines.century_heuristic:heuristic_action",
    },
    # The settings of the learned agent's trainer that made the shipped weights of `net`
    # (docs/baselines.md, "The learned agent"); `rounds` is the round shipped.
    training={
        "rounds": 4,
        "sims": 300,
    },
    bench_targets={
        "batched_steps_per_s": 3_000_000,
        "rollout_games_per_s_max_players": 8_000,
        "aec_steps_per_s": 50_000,
        "warm_start_s": 2.0,
    },
    losers_share_loss=True,
)
