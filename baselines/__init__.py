"""Baseline agents: ``RandomAgent`` (uniform over legal actions, any game) and
``CenturyHeuristicAgent`` (a rule-of-thumb Century player that reads only the observation)."""

from baselines.century_heuristic import CenturyHeuristicAgent
from baselines.random_agent import RandomAgent

__all__ = ["CenturyHeuristicAgent", "RandomAgent"]
