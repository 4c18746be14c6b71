"""Dice Nim, the smallest complete meeple-gym game (docs/adding-a-game.md walks through it).

Importing this package registers it as ``"minimal"``::

    import examples.minimal_game  # noqa: F401 - registers "minimal"
    import meeple_gym as mg
    env = mg.make("minimal")

Rules. A pile of 15-25 stones (dealt at random) lies between two players; the first player is
drawn at random. On a turn a player takes 1, 2 or 3 stones, or rolls the die and takes what it
shows (1-3, fewer if the pile is smaller). Whoever takes the last stone wins.

Layout, as a built-in game's (``meeple_gym.century``): ``rules`` (the Numba kernels and the
state dtype), ``encoder`` (the observation), ``snapshot`` (snapshots, action names, the text
board), ``determinize`` (the hidden information: the RNG word only), ``heuristic`` (the
rule-of-thumb agent), ``spec`` (the ``GameSpec``) and ``env`` (the PettingZoo module layout).
A built-in game keeps its encoder in ``encoders/`` and its heuristic in ``baselines/``; a game
of your own can keep everything in one package, as this one does.
"""

from meeple_gym.core.jit import register_kernel_package

# Before any kernel is declared: the game's kernels are cached under its name, keyed by this
# package's sources (a built-in game's are keyed by meeple_gym.<game>).
register_kernel_package("minimal", __name__)


def register() -> None:
    """Register the game as ``"minimal"`` (idempotent): its one registry entry."""
    from meeple_gym.core.registry import register_game

    register_game("minimal", f"{__name__}.spec")


register()
