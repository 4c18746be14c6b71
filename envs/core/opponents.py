"""Where the envs of core get their opponents from: an injected factory.

Core resolves no agent name itself (it imports no baseline): ``SingleAgentEnv``,
``BatchVectorEnv`` and ``warmup`` ask the factory installed here, which ``import meeple_gym``
installs (``meeple_gym.opponents``, over ``meeple_gym.baselines.evaluate``). Install another to
change what opponent names mean.
"""

from __future__ import annotations

from typing import Any, Protocol

from meeple_gym.core.errors import OpponentError, OptionError


class OpponentFactory(Protocol):
    def make_agent(self, name: Any, game: str, seed: int = 0) -> Any:
        """A fresh agent for ``name`` (a name string or an agent object) in ``game``."""

    def record_policy(self, agent: Any):
        """``states -> actions`` of an agent that reads game records, else None."""

    def is_search_name(self, name: Any) -> bool:
        """Whether ``name`` asks for a search agent (it reads game records)."""


_FACTORY: OpponentFactory | None = None


def install_opponent_factory(factory: OpponentFactory) -> None:
    global _FACTORY
    _FACTORY = factory


def opponent_factory() -> OpponentFactory:
    if _FACTORY is None:
        raise OptionError("no opponent factory installed: import meeple_gym first")
    return _FACTORY


def opponent_failure(exc: BaseException, who: str) -> OpponentError:
    """What the envs report when the opponent ``who`` raised ``exc`` (and keep raising until
    reset): ``exc`` itself if it is already an OpponentError, else one that names ``who``."""
    if isinstance(exc, OpponentError):
        return exc
    return OpponentError(f"{who} raised {type(exc).__name__}: {exc}")
