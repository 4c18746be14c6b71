"""Endeavor's ``GameSpec`` (the rules text's game, docs/endeavor.md). No options."""

from meeple_gym.core.game import GameSpec
from meeple_gym.encoders import endeavor as encoder
from meeple_gym.endeavor import determinize, draw, rules, snapshot


def reference_game(num_players: int, seed: int, index: int):
    """Game ``index`` of ``seed`` in the slow reference rules (``meeple bench``)."""
    from meeple_gym.endeavor.reference import ReferenceGame

    return ReferenceGame(num_players, seed, index)


SPEC = GameSpec.from_modules(
    "endeavor",
    rules,
    encoder,
    snapshot,
    min_players=2,
    max_players=4,
    docs="docs/endeavor.md",
    determinize=determinize,
    drawing=draw,
    reference=reference_game,
    heuristic="meeple_gym.baselines.endeavor_heuristic:EndeavorHeuristicAgent",
    # ISMCTS defaults (docs/baselines.md, "Defaults", has the matches that chose them).
    search={
        "sims": 400,
        "c": 0.5,
        "prior": 3.0,
        "epsilon": 0.0,
        "depth": 0,
        "scale": 8.0,
        "scores": "meeple_gym.baselines.ismcts:_scores_score_of",
        "score_kernels": {"score_of": "meeple_gym.endeavor.rules:score_of"},
        "rollout": "meeple_gym.baselines.endeavor_heuristic:heuristic_action_compact",
        "rollout_observation": "compact",
        # Play-outs fill the heuristic's view straight from the record, the fields its decoders
        # read from either observation: the same decisions without encoding and decoding a
        # vector (tests/test_search_speedups.py; benchmarks/README.md).
        "rollout_view": {
            "view_into": "meeple_gym.baselines.endeavor_heuristic:view_into",
            "new_view": "meeple_gym.baselines.endeavor_heuristic:new_view",
            "decide": "meeple_gym.baselines.endeavor_heuristic:heuristic_action_view",
        },
    },
    # The settings of the learned agent's trainer that made the shipped weights of `net`
    # (docs/baselines.md, "The learned agent"); `rounds` and `ppo_iterations` are the round
    # and the PPO batch shipped.
    training={
        "rounds": 4,
        "sims": 200,
        "round_games": 128,
        "imitation_games": 1024,
        "ppo_iterations": 304,
    },
    bench_targets={"batched_steps_per_s": 1_000_000, "warm_start_s": 2.0},
    # observation="compact": the same information in 409 floats (docs/endeavor.md).
    observations={"compact": "meeple_gym.encoders.endeavor:COMPACT"},
)
