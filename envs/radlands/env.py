"""Radlands as a PettingZoo AEC environment (2 players).

===================  ==========================================================================
Agents               ``player_0``, ``player_1`` (seats); the first player is a coin flip
Action space         ``Discrete(189)``; the table is in docs/radlands.md (draft keeps, main
                     actions, then targets, placements, choices, hand picks, columns, events)
Agent to act         whoever decides: the opponent picks the camp Raiders damage, Scud
                     Launcher's target, Mercenary Camp and The Octagon choices, Vanguard's
                     hit-back and their keep in Famine
Observation          ``{"observation": float32 (see encoders/radlands.py), "action_mask": int8}``
Rewards              at the end only: +1 winner, -1 loser; 0 to both on a draw (RAD-E2)
Options              raiders_slot, vera_vosh, zeto_khan, first_game_camps (docs/radlands.md)
Illegal actions      raise ``IllegalActionError`` (state unchanged); with
                     ``illegal_action="lose"`` the game ends, -1 to the actor (docs/pettingzoo.md)
===================  ==========================================================================
"""

from meeple_gym.core import aec, parallel
from meeple_gym.radlands.spec import SPEC

raw_env, env = aec.module_envs(SPEC, __name__)
parallel_env = parallel.module_parallel_env(env, __name__)
