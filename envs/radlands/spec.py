"""Radlands' ``GameSpec`` and its options (docs/radlands.md, "Options")."""

import numpy as np

from meeple_gym.core.errors import OptionError
from meeple_gym.core.game import GameSpec
from meeple_gym.core.options import check_choice
from meeple_gym.encoders import radlands as encoder
from meeple_gym.radlands import determinize, draw, rules, snapshot

OPTIONS = {
    "raiders_slot": 3,  # RAD-I8: the seed's slot 3; 2 is the printed card
    "vera_vosh": "first_use_per_turn",
    "zeto_khan": "first_event_placed",
    "first_game_camps": False,  # RAD-S3
    "cult_of_chrome": False,  # RAD-S1: no public card list of those camps was found
}
_CHOICES = {
    "raiders_slot": (3, 2),
    "vera_vosh": ("first_use_per_turn", "first_use_per_card"),
    "zeto_khan": ("first_event_placed", "first_event_resolved"),
    "first_game_camps": (False, True),
    "cult_of_chrome": (False, True),
}


def encode_options(options: dict, num_players: int) -> int:
    """Validate the options and pack them into the bits ``rules.init_game`` reads."""
    del num_players  # always 2
    if options["cult_of_chrome"] is True or options["cult_of_chrome"] is np.True_:
        raise OptionError(
            "radlands: cult_of_chrome is not available: no public card list of the "
            "Cult of Chrome camps could be found (docs/radlands.md)"
        )
    options = {
        name: check_choice("radlands", name, options[name], allowed)
        for name, allowed in _CHOICES.items()
    }
    code = 0
    if options["raiders_slot"] == 2:
        code |= rules.OPTION_RAIDERS_SLOT_2
    if options["vera_vosh"] == "first_use_per_card":
        code |= rules.OPTION_VERA_PER_CARD
    if options["zeto_khan"] == "first_event_resolved":
        code |= rules.OPTION_ZETO_RESOLVED
    if options["first_game_camps"]:
        code |= rules.OPTION_FIRST_GAME_CAMPS
    return code


def reference_game(num_players: int, seed: int, index: int):
    """Game ``index`` of ``seed`` in the slow reference rules (``meeple bench``)."""
    from meeple_gym.radlands.reference import ReferenceGame

    return ReferenceGame(seed, 0, index)


SPEC = GameSpec.from_modules(
    "radlands",
    rules,
    encoder,
    snapshot,
    min_players=2,
    max_players=2,
    options=OPTIONS,
    encode_options=encode_options,
    docs="docs/radlands.md",
    determinize=determinize,
    drawing=draw,
    reference=reference_game,
    heuristic="meeple_gym.baselines.radlands_heuristic:RadlandsHeuristicAgent",
    # ISMCTS defaults (docs/baselines.md, "Defaults", has the matches that chose them).
    search={
        "sims": 200,
        "c": 0.5,
        "prior": 3.0,
        "epsilon": 0.1,
        "depth": 20,
        "scale": 1.0,
        "scores": "meeple_gym.baselines.ismcts:_scores_radlands",
        "score_kernels": {"record_scores": "meeple_gym.radlands.rules:_record_scores"},
        "rollout": "meeple_gym.baselines.radlands_heuristic:heuristic_action_compact",
        "rollout_observation": "compact",
        # Play-outs fill the heuristic's board straight from the record, the fields its
        # decoders read from either observation: the same decisions without encoding and
        # decoding a vector (tests/test_search_speedups.py; benchmarks/README.md).
        "rollout_view": {
            "view_into": "meeple_gym.baselines.radlands_heuristic:view_into",
            "new_view": "meeple_gym.baselines.radlands_heuristic:new_view",
            "decide": "meeple_gym.baselines.radlands_heuristic:heuristic_action_view",
        },
    },
    # The settings of the learned agent's trainer that made the shipped weights of `net`
    # (docs/baselines.md, "The learned agent"); `rounds` and `ppo_iterations` are the round
    # and the PPO batch of the second run. Two more runs went on from those weights with
    # `--gae-lambda 0.95` (docs/baselines.md gives their commands). The network samples its
    # moves: a greedy one can loop forever taking and junking the Water Silo (RAD-A5, RAD-A6).
    training={
        "rounds": 1,
        "sims": 100,
        "ppo_iterations": 376,
        "play": "sample",
    },
    bench_targets={"batched_steps_per_s": 1_000_000, "warm_start_s": 2.0},
    # observation="compact": the same information in 214 floats (docs/radlands.md).
    observations={"compact": "meeple_gym.encoders.radlands:COMPACT"},
)
