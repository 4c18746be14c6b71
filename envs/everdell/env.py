"""Everdell as a PettingZoo AEC environment (1 to 4 players).

===================  ==========================================================================
Agents               ``player_0`` … ``player_{n-1}`` (seats); the first player is random
                     (EVD-S7). With 1 player the opponent is Rugwort, the base game's automated
                     opponent: he is not an agent; his moves come from the game's RNG (the d8)
Action space         ``Discrete(NUM_ACTIONS)``; the table is in docs/everdell.md (turn actions:
                     place a worker, play a card, prepare for season, pass; then the
                     sub-decisions: payment, resources, cards, Meadow, city cards, opponents,
                     revealed cards, workers, numbers, done)
Agent to act         whoever decides; every sub-decision is its own step for the player whose
                     card or action it is. A decision with a single legal action is taken
                     automatically
Observation          ``{"observation": float32 (see encoders/everdell.py), "action_mask": int8}``
Rewards              at the end only: +1 winner, -1/(n-1) to the others; solo +1 / -1 against
                     Rugwort; 0 to all on a tie after EVD-E3's tie-breaks
Options              rugwort_year (1, 2, 3; solo only), fool_bonuses, pass_anytime (EVD-E1 read
                     literally: pass before autumn); docs/everdell.md
Illegal actions      raise ``IllegalActionError`` (state unchanged); with
                     ``illegal_action="lose"`` the game ends, -1 to the actor (docs/pettingzoo.md)
===================  ==========================================================================
"""

from meeple_gym.core import aec, parallel
from meeple_gym.everdell.spec import SPEC

raw_env, env = aec.module_envs(SPEC, __name__)
parallel_env = parallel.module_parallel_env(env, __name__)
