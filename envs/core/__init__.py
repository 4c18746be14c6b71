"""Game-independent machinery shared by every meeple-gym game. Core names no game and imports
no game, encoder or baseline module (tests/test_import_graph.py): games register themselves
(``registry.register_game``) and the layers above core inject what core may not import.

- ``jit``: the one place where Numba options are set; ``compiler``: the compile-time fence
  behind it (the techniques that cut cold compiles).
- ``rng``: the per-game counter-based RNG whose words live inside each game's state.
- ``records``: copying and clearing state records inside kernels.
- ``sampling``: uniform-random actions over batches of masks.
- ``stepping``: the batch kernels every game shares (reset, masks, step).
- ``errors``: the exception types the public API raises.
- ``options``: argument checks shared by the public API.
- ``game``: the ``GameSpec`` each game module fills in: its kernels and every per-game fact.
- ``registry``: ``register_game``, ``available_games``, ``get_spec``, ``make`` and
  ``make_batch``; each game's Gymnasium id.
- ``aec`` / ``batch``: the PettingZoo AEC env and the batched env built on a ``GameSpec``;
  ``parallel``: the PettingZoo Parallel env.
- ``gym_env`` / ``vector_env``: the single-agent Gymnasium env and the vector env;
  ``opponents``: the factory they get their opponents from (installed by
  ``meeple_gym.opponents``).
- ``warmup``: compiling every kernel of a game ahead of time (``meeple warmup``).
- ``snapshot`` / ``snapshot_fields``: the shared half of every game's snapshot codec (its field
  table, the round trip, the JSON readers); ``gate``: the checks every loaded position passes.
- ``locking``: one lock per env object; ``threads``: the threading layer and fork safety;
  ``files``: output files written whole or not at all.
"""
