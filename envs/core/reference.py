"""What the slow, plain-Python reference games share: ``shuffled`` (the kernels' Fisher-Yates
order on ``PyRng``) and, for Endeavor, Everdell and Radlands, the decision loop.

Those three write their rules as one generator, ``self._game()`` kept in ``self._flow``: it
yields a pending decision (an object with ``decider`` and ``actions``) whenever a player must
choose, receives the chosen action, and returns when the game ends. ``FlowGame`` drives it:
the legal actions, ``step`` and the engine's step cap (no rule of any game: a game cut off
there is a truncation, which the subclass records in ``_truncate``).
"""

from __future__ import annotations

from meeple_gym.core.rng import PyRng


def shuffled(rng: PyRng, items: list) -> list:
    """Fisher-Yates from the top: for i = n-1 .. 1 swap item i with item randint(i+1)."""
    items = list(items)
    for i in range(len(items) - 1, 0, -1):
        j = rng.randint(i + 1)
        items[i], items[j] = items[j], items[i]
    return items


class FlowGame:
    step_cap: int  # the rules kernel's STEP_CAP

    @property
    def is_over(self) -> bool:
        return self.terminated or self.truncated

    @property
    def decider(self) -> int | None:
        return None if self._pending is None else self._pending.decider

    def legal_actions(self) -> list[int]:
        return [] if self._pending is None else list(self._pending.actions)

    def step(self, action: int) -> None:
        if self._pending is None or action not in self._pending.actions:
            raise ValueError(f"illegal action {action}")
        self.step_count += 1
        self._pending = self._advance(action)
        if self._pending is not None and self.step_count >= self.step_cap:
            self._flow.close()
            self._pending = None
            self._truncate()

    def _advance(self, action):
        """The next pending decision after ``action`` (None to start), None once it is over."""
        try:
            return self._flow.send(action)
        except StopIteration:
            return None

    def _truncate(self) -> None:
        self._finish(truncated=True)
