"""The built-in games: one registry entry each (``meeple_gym.core.registry.register_game``).

Everything else about a game lives in its ``GameSpec`` (``meeple_gym.<game>.spec``), which
loads only when the game is first made. docs/adding-a-game.md shows how to add one.
"""

from meeple_gym.core.registry import register_game

register_game("century", "meeple_gym.century.spec")
register_game("endeavor", "meeple_gym.endeavor.spec")
register_game("everdell", "meeple_gym.everdell.spec")
register_game("radlands", "meeple_gym.radlands.spec")
