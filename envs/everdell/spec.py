"""Everdell's ``GameSpec`` and its options (docs/everdell.md, "Options")."""

from encoders import everdell as encoder
from envs.core.errors import OptionError
from envs.core.game import GameSpec
from envs.everdell import rules, snapshot

OPTIONS = {
    "rugwort_year": 1,  # solo only: Rugwort the Rascal (1), the Rotten (2), the Rapscallion (3)
    "fool_bonuses": False,  # Historian / Shopkeeper pay for a Fool sent to an opponent
}
_CHOICES = {"rugwort_year": (1, 2, 3), "fool_bonuses": (False, True)}


def encode_options(options: dict) -> int:
    """Validate the options and pack them into the bits ``rules.init_game`` reads."""
    for name, allowed in _CHOICES.items():
        value = options[name]
        if isinstance(value, bool) != isinstance(allowed[0], bool) or value not in allowed:
            raise OptionError(f"everdell: option {name} must be one of {allowed}, got {value!r}")
    code = int(options["rugwort_year"]) << rules.OPTION_YEAR_SHIFT
    if options["fool_bonuses"]:
        code |= rules.OPTION_FOOL_BONUSES
    return code


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
)
