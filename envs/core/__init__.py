"""Game-independent machinery shared by every meeple-gym game.

- ``jit``: the one place where Numba options are set.
- ``rng``: the per-game counter-based RNG whose words live inside each game's state.
- ``errors``: the exception types the public API raises.
- ``game``: the ``GameSpec`` protocol each game module fills in.
- ``aec`` / ``batch``: the PettingZoo AEC env and the batched env built on a ``GameSpec``.
- ``registry``: ``available_games``, ``make`` and ``make_batch``.
- ``snapshot`` / ``snapshot_fields``: the shared half of every game's snapshot codec (its field
  table, the round trip, the JSON readers); ``gate``: the checks every loaded position passes.
"""
