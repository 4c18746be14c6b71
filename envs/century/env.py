"""Century: Spice Road as a PettingZoo AEC environment.

>>> from meeple_gym.century.env import env
>>> e = env(num_players=3, render_mode="ansi")
>>> e.reset(seed=0)
>>> for agent in e.agent_iter():
...     obs, reward, terminated, truncated, info = e.last()
...     action = None if terminated or truncated else int(obs["action_mask"].nonzero()[0][0])
...     e.step(action)

===================  ==========================================================================
Agents               ``player_0 … player_{n-1}`` (seats); n = 2…5; the first player is random
Action space         ``Discrete(79)``; the table is in docs/century.md (play, acquire, rest,
                     claim, then the sub-decisions upgrade/stop, trade x1…x10, place, return)
Observation          ``{"observation": float32 (see encoders/century.py), "action_mask": int8}``
Rewards              at the end only: +1 winner, -1/(n-1) each other player; 0 on truncation
Termination          the round after a player's 5th point card (6th with 2–3 players) ends
Truncation           after ``rules.STEP_CAP`` sub-decisions (CSR-E4)
Illegal actions      raise ``IllegalActionError`` (state unchanged); with
                     ``illegal_action="lose"`` the game ends, -1 to the actor (docs/pettingzoo.md)
===================  ==========================================================================
"""

from meeple_gym.century.spec import SPEC
from meeple_gym.core import aec, parallel

raw_env, env = aec.module_envs(SPEC, __name__)
parallel_env = parallel.module_parallel_env(env, __name__)
