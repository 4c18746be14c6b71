"""Exceptions raised by the public API. Each names the problem; none leaves a state changed."""


class MeepleError(Exception):
    """Base class of every meeple-gym error."""


class UnknownGameError(MeepleError, KeyError):
    """``make``/``make_batch`` was asked for a game that is not registered."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class PlayerCountError(MeepleError, ValueError):
    """The game does not support that number of players."""


class OptionError(MeepleError, ValueError):
    """An unknown option, or an option with a bad value."""


class ActionError(MeepleError, ValueError):
    """An action that is out of range or of the wrong type."""


class IllegalActionError(ActionError):
    """An in-range action that the rules forbid in the current position."""


class GameOverError(MeepleError, RuntimeError):
    """A step on a game that has already ended."""


class SnapshotError(MeepleError, ValueError):
    """A snapshot (``from_dict``) that is malformed or describes an impossible state."""


class NotResetError(MeepleError, RuntimeError):
    """The env was used (``last``, ``observe``, ``step``, ...) before ``reset()``."""
