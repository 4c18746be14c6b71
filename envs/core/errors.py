"""Exceptions raised by the public API. Each names the problem; none leaves a state changed."""


class MeepleError(Exception):
    """Base class of every meeple-gym error."""


class UnknownGameError(MeepleError, KeyError):
    """``make``/``make_batch`` was asked for a game that is not registered."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else ""


class PlayerCountError(MeepleError, ValueError):
    """The game does not support that number of players."""


class OptionError(MeepleError, ValueError, TypeError):
    """An unknown option, or an option with a bad value. A ``TypeError`` too, as Python raises
    for an unknown keyword: libraries that retry a constructor without a keyword it refuses
    (SB3's ``make_vec_env`` with ``render_mode``, TorchRL's ``GymEnv``) catch ``TypeError``."""


# The end of every message that refuses an illegal action in an env that has the option.
ILLEGAL_ACTION_HINT = '(illegal_action="lose" ends the episode as a loss instead)'


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


class OpponentError(MeepleError, RuntimeError):
    """An opponent (or a match's agent) raised, or returned something that is not a legal
    action. The message names the opponent and what it did; a raised exception is chained as
    the ``__cause__``. An env whose opponent failed raises this on every later ``step`` until
    ``reset()``: the failed opponent's turn is never handed to the learner."""
