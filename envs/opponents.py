"""Opponents by name for the envs of core (``opponent="heuristic"``, ``"ismcts:sims=50"``,
``"package.module:Agent"``, ...): the factory ``import meeple_gym`` installs into
``meeple_gym.core.opponents``. It sits above core and imports the baselines only when asked,
so that core imports no baseline and ``import meeple_gym`` stays cheap."""

from __future__ import annotations

from meeple_gym.core.opponents import install_opponent_factory


class BaselineOpponents:
    """The names of ``meeple_gym.baselines.evaluate.make_agent``."""

    def make_agent(self, name, game: str, seed: int = 0):
        from meeple_gym.baselines.evaluate import make_agent

        return make_agent(name, game, seed)

    def record_policy(self, agent):
        from meeple_gym.baselines.evaluate import record_policy

        return record_policy(agent)

    def is_search_name(self, name) -> bool:
        from meeple_gym.baselines.evaluate import is_search_name

        return is_search_name(name)


FACTORY = BaselineOpponents()
install_opponent_factory(FACTORY)
