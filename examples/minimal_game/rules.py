"""Dice Nim's rules as Numba kernels over one structured NumPy record per game.

Every kernel takes the batch (a 1-D array of ``STATE_DTYPE``) and a game index, so one compiled
function serves a single game and a batch of millions alike. The chance events (the deal, the
first player, the die) draw from the RNG word in the record (``meeple_gym.core.rng``): a game
is a function of its seed, whatever the batch size or thread count.
"""

import numpy as np
from numba import types

from meeple_gym.core.jit import array_arg, kernel, standalone_kernel
from meeple_gym.core.records import clear_record
from meeple_gym.core.rng import randint
from meeple_gym.core.stepping import batch_kernels

MIN_PLAYERS = 2
MAX_PLAYERS = 2
MIN_PILE = 15
MAX_PILE = 25
MAX_TAKE = 3
# Each action takes at least one stone, so a game lasts at most MAX_PILE steps; the cap is
# there because every game has one (the snapshot checks it), never reached.
STEP_CAP = 1000

# Actions: take 1, 2 or 3 stones, or roll the die and take what it shows.
A_TAKE = 0  # + (stones - 1)
A_ROLL = A_TAKE + MAX_TAKE
NUM_ACTIONS = A_ROLL + 1  # 4

STATE_DTYPE = np.dtype(
    [
        ("rng", np.uint64, (1,)),  # the game's chance stream
        ("num_players", np.int8),
        ("current_player", np.int8),  # the player to act; the winner once the game is over
        ("terminated", np.int8),
        ("truncated", np.int8),
        ("winner", np.int8),  # -1 until the game is over
        ("start_pile", np.int8),  # stones dealt
        ("pile", np.int8),  # stones left
        ("last_roll", np.int8),  # what the last roll took, 0 if the last action was no roll
        ("step_count", np.int32),
        ("taken", np.int16, (MAX_PLAYERS,)),  # stones each player took
        ("score", np.int16, (MAX_PLAYERS,)),  # filled when the game ends: 1 for the winner
    ]
)
# Standalone kernels take the batch as a C-contiguous array of records (meeple_gym.core.jit).
STATES = array_arg(STATE_DTYPE)


@standalone_kernel(STATES, types.int64, types.int64, types.uint64, types.int64)
def init_game(states, g, num_players, key, options=0):
    """Deal game ``g`` from the RNG word ``key``; ``options`` is 0 (the game has none)."""
    clear_record(states, g)  # every field 0; the lines below set the rest
    s = states[g]
    s.rng[0] = key
    s.num_players = num_players
    s.winner = -1
    s.start_pile = MIN_PILE + randint(s.rng, 0, MAX_PILE - MIN_PILE + 1)
    s.pile = s.start_pile
    s.current_player = randint(s.rng, 0, num_players)


@standalone_kernel(STATES, types.int64, array_arg(np.int8))
def legal_mask_into(states, g, mask):
    """The legal actions of game ``g``'s player to act, into ``mask`` (int8 0/1)."""
    s = states[g]
    mask[:] = 0
    if s.terminated == 1 or s.truncated == 1:
        return
    for k in range(MAX_TAKE):
        if k + 1 <= s.pile:
            mask[A_TAKE + k] = 1
    mask[A_ROLL] = 1


@kernel
def _take(s, p, stones):
    s.pile -= stones
    s.taken[p] += stones


@standalone_kernel(STATES, types.int64, types.int64)
def apply_action(states, g, action):
    """Apply a legal ``action`` of the player to act in game ``g``."""
    s = states[g]
    p = s.current_player
    s.last_roll = 0
    if action == A_ROLL:
        roll = 1 + randint(s.rng, 0, MAX_TAKE)
        stones = min(roll, s.pile)
        s.last_roll = stones
    else:
        stones = action - A_TAKE + 1
    _take(s, p, stones)
    s.step_count += 1
    if s.pile == 0:
        s.terminated = 1
        s.winner = p
        s.score[p] = 1
    elif s.step_count >= STEP_CAP:  # pragma: no cover - every game ends before the cap
        s.truncated = 1
    else:
        s.current_player = (p + 1) % s.num_players


@kernel
def score_of(s, p):
    """The current score of seat ``p``: 1 for the winner once the game is over (ISMCTS)."""
    return s.score[p]


@kernel
def rewards_into(s, out):
    """Terminal rewards: +1 to the winner, -1 to the loser; 0 if truncated."""
    out[:] = 0.0
    if s.terminated == 1:
        for p in range(s.num_players):
            out[p] = 1.0 if p == s.winner else -1.0


# ---- batched kernels: the shared loops of meeple_gym.core.stepping, bound to this game's ----
reset_batch, legal_masks_batch, step_batch = batch_kernels(
    "minimal", apply_action, legal_mask_into, init_game, rewards_into
)
