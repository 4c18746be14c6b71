"""Everdell's ``GameSpec`` and its options (docs/everdell.md, "Options")."""

from meeple_gym.core.errors import OptionError
from meeple_gym.core.game import GameSpec
from meeple_gym.core.options import check_choice
from meeple_gym.encoders import everdell as encoder
from meeple_gym.everdell import determinize, draw, rules, snapshot

OPTIONS = {
    # Solo only: Rugwort the Rascal (1), the Rotten (2), the Rapscallion (3); None means 1.
    "rugwort_year": None,
    "fool_bonuses": False,  # Historian / Shopkeeper pay for a Fool sent to an opponent
    "pass_anytime": False,  # EVD-E1 read literally: pass from the first turn, not from autumn
}


def encode_options(options: dict, num_players: int) -> int:
    """Validate the options and pack them into the bits ``rules.init_game`` reads."""
    year = options["rugwort_year"]
    if year is None:
        year = 1
    elif num_players != 1:
        raise OptionError(
            f"everdell: option rugwort_year is for the solo game (num_players=1), "
            f"not {num_players} players"
        )
    year = check_choice("everdell", "rugwort_year", year, (1, 2, 3))
    code = year << rules.OPTION_YEAR_SHIFT
    if check_choice("everdell", "fool_bonuses", options["fool_bonuses"], (False, True)):
        code |= rules.OPTION_FOOL_BONUSES
    if check_choice("everdell", "pass_anytime", options["pass_anytime"], (False, True)):
        code |= rules.OPTION_PASS_ANYTIME
    return code


def reference_game(num_players: int, seed: int, index: int):
    """Game ``index`` of ``seed`` in the slow reference rules (``meeple bench``)."""
    from meeple_gym.everdell.reference import ReferenceGame

    return ReferenceGame(seed, num_players, 0, index)


SPEC = GameSpec.from_modules(
    "everdell",
    rules,
    encoder,
    snapshot,
    min_players=1,
    max_players=4,
    options=OPTIONS,
    encode_options=encode_options,
    docs="docs/everdell.md",
    determinize=determinize,
    drawing=draw,
    seats_for=snapshot.seats_for,  # solo: Rugwort holds seat 1
    reference=reference_game,
    heuristic="meeple_gym.baselines.everdell_heuristic:EverdellHeuristicAgent",
    # ISMCTS defaults (docs/baselines.md, "Defaults", has the matches that chose them).
    search={
        "sims": 100,
        "c": 0.5,
        "prior": 3.0,
        "epsilon": 0.1,
        "depth": 0,
        "scale": 10.0,
        "scores": "meeple_gym.baselines.ismcts:_scores_score_of",
        "score_kernels": {"score_of": "meeple_gym.everdell.rules:score_of"},
        # Play-outs encode the compact observation and the heuristic decodes it: the same
        # decisions as from the full one (tests/test_search_speedups.py), with less to write
        # and no one-hot scans (benchmarks/README.md, "ISMCTS").
        "rollout": "meeple_gym.baselines.everdell_heuristic:heuristic_action_compact",
        "rollout_observation": "compact",
    },
    # The settings of the learned agent's trainer that made the shipped weights of `net`
    # (docs/baselines.md, "The learned agent"); `rounds` is the round shipped.
    # The shipped network: a correction to the heuristic (untrained) whose anchor plays with
    # coefficients learned by 35 generations of the cross-entropy method (docs/baselines.md).
    training={
        "anchor_weight": 2.0,
        "anchor_generations": 35,
        "rounds": 0,
        "hidden": [64],
    },
    bench_targets={"batched_steps_per_s": 500_000, "warm_start_s": 2.0},
    losers_share_loss=True,
    # observation="compact": the same information in 1472 floats (docs/everdell.md).
    observations={"compact": "meeple_gym.encoders.everdell:COMPACT"},
)
