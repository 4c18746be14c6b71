"""Baseline agents: ``RandomAgent`` (uniform over legal actions, any game) and one
rule-of-thumb heuristic per game that reads only the observation vector and the mask
(``CenturyHeuristicAgent``, ``RadlandsHeuristicAgent``, ``EverdellHeuristicAgent``,
``EndeavorHeuristicAgent``). Every agent has
``act(observation_dict)`` and ``act_batch(observations, masks)``."""

from baselines.century_heuristic import CenturyHeuristicAgent
from baselines.endeavor_heuristic import EndeavorHeuristicAgent
from baselines.everdell_heuristic import EverdellHeuristicAgent
from baselines.radlands_heuristic import RadlandsHeuristicAgent
from baselines.random_agent import RandomAgent

__all__ = [
    "CenturyHeuristicAgent",
    "EndeavorHeuristicAgent",
    "EverdellHeuristicAgent",
    "RadlandsHeuristicAgent",
    "RandomAgent",
]
