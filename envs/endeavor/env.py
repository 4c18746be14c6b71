"""Endeavor (the rules text's game) as a PettingZoo AEC environment (2 to 4 players).

===================  ==========================================================================
Agents               ``player_0`` … ``player_{n-1}`` (seats); the first player is random
Action space         ``Discrete(NUM_ACTIONS)``; the table is in docs/endeavor.md (setup picks,
                     role and tokens while planning, then each role's choices and ``done``)
Agent to act         whoever decides: while planning every player in turn picks a role and a
                     token count, hidden from the others until execution; then each player
                     executes their role in role-number order (END-O3). A decision with a
                     single legal action is taken automatically
Observation          ``{"observation": float32 (see encoders/endeavor.py), "action_mask": int8}``
Rewards              at the end only: +1 shared by the winners, -1 shared by the others; 0 to
                     all when everyone ties (END-E3) or the game is cut off
Illegal actions      raise ``IllegalActionError`` (state unchanged); with
                     ``illegal_action="lose"`` the game ends, -1 to the actor (docs/pettingzoo.md)
===================  ==========================================================================
"""

from meeple_gym.core import aec, parallel
from meeple_gym.endeavor.spec import SPEC

raw_env, env = aec.module_envs(SPEC, __name__)
parallel_env = parallel.module_parallel_env(env, __name__)
