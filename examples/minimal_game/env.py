"""Dice Nim as a PettingZoo AEC module, the layout of PettingZoo's classic games.

>>> from examples.minimal_game.env import env
>>> e = env(render_mode="ansi")
"""

from meeple_gym.core import aec, parallel

from .spec import SPEC

raw_env, env = aec.module_envs(SPEC, __name__)
parallel_env = parallel.module_parallel_env(env, __name__)
