"""Observation encoders: one module per game, each a Numba kernel from a game state to a float32
vector seen from one player's seat (``encode_into`` / ``encode_batch``) plus its layout."""
