"""Baseline agents: ``RandomAgent`` (uniform over legal actions, any game) and one
rule-of-thumb heuristic per game that reads only the observation vector and the mask
(``CenturyHeuristicAgent``, ``RadlandsHeuristicAgent``, ``EverdellHeuristicAgent``,
``EndeavorHeuristicAgent``). Every agent has
``act(observation_dict)`` and ``act_batch(observations, masks)``.

``opponent="heuristic"`` finds a game's heuristic through its ``GameSpec.heuristic``
("module:Class"), not through this list: a new game's heuristic may live anywhere
(docs/adding-a-game.md)."""

from meeple_gym.baselines.century_heuristic import CenturyHeuristicAgent
from meeple_gym.baselines.endeavor_heuristic import EndeavorHeuristicAgent
from meeple_gym.baselines.everdell_heuristic import EverdellHeuristicAgent
from meeple_gym.baselines.radlands_heuristic import RadlandsHeuristicAgent
from meeple_gym.baselines.random_agent import RandomAgent

__all__ = [
    "CenturyHeuristicAgent",
    "EndeavorHeuristicAgent",
    "EverdellHeuristicAgent",
    "RadlandsHeuristicAgent",
    "RandomAgent",
]
