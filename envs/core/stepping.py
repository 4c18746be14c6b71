"""The batch kernels every game shares: ``reset_batch``, ``legal_masks_batch`` and
``step_batch`` (envs/core/game.py).

``batch_kernels`` binds the templates below to one game's kernels through their globals
(``meeple_gym.core.jit.rebind``) and compiles them into that game's cache group: the four games
reset and step their batches the same way, so one copy of each loop serves them all.
"""

import numpy as np
from numba import prange

from meeple_gym.core.jit import game_kernel, kernel, rebind
from meeple_gym.core.records import copy_record
from meeple_gym.core.rng import STREAM_DETERMINIZE, STREAM_GAME, derive_key
from meeple_gym.core.sampling import ALL_SEATS_RANDOM, random_legal


@kernel
def _one_seat_per_player(s, num_players):
    """The seats whose final scores a batch reports: one per player."""
    return num_players


# Templates: they run only as batch_kernels compiles them, with apply_action, legal_mask_into,
# init_game, rewards_into, seat_count and random_action taken from the game.
def _mask_random_action(states, g, scratch, words, slot):
    """The default ``random_action``: the legal mask into ``scratch``, then one uniform draw."""
    legal_mask_into(states, g, scratch)  # noqa: F821 - bound per game
    return random_legal(scratch, words, slot)


def reset_batch(states, num_players, seed, first_index, episodes, options=0):
    """Reset every game: game ``i`` uses RNG key (seed, first_index + i, episode i)."""
    for i in prange(states.shape[0]):
        key = derive_key(seed, np.uint64(first_index + i), np.uint64(episodes[i] * 2 + STREAM_GAME))
        init_game(states, i, num_players, key, options)  # noqa: F821 - bound per game


def legal_masks_batch(states, masks):
    """``masks[i]``: the legal actions of game ``i``."""
    for i in prange(states.shape[0]):
        legal_mask_into(states, i, masks[i])  # noqa: F821 - bound per game


def _step_game(
    states,
    g,
    actions,
    masks,
    rewards,
    terminated,
    truncated,
    num_players,
    seed,
    episodes,
    final_scores,
    final_lengths,
    final_states,
    options,
    seats,
    next_seats,
    words,
):
    """One game of ``step_batch`` (a kernel of its own: Numba types a prange body twice)."""
    # Each row view taken once: a view counts a reference on the whole batch's array, an
    # atomic operation on memory every thread's games share.
    mask_row = masks[g]
    reward_row = rewards[g]
    action = actions[g]
    report = action >= 0  # the caller's move reports its step; opponent moves only an end
    if action < 0:  # no move by the caller in this game on this call
        reward_row[:] = 0.0
        terminated[g] = False
        truncated[g] = False
    seat = seats[g]  # the learner's seat, -1: no random opponent play, or ALL_SEATS_RANDOM
    everyone = seat == ALL_SEATS_RANDOM
    ended = False
    if everyone:
        action = random_action(states, g, mask_row, words, g)  # noqa: F821 - bound per game
    elif action < 0 and seat >= 0 and states[g].current_player != seat:
        action = random_legal(mask_row, words, g)
    while action >= 0:
        apply_action(states, g, action)  # noqa: F821 - bound per game
        s = states[g]
        over = s.terminated == 1 or s.truncated == 1
        if report or (over and not ended):
            rewards_into(s, reward_row)  # noqa: F821 - bound per game
            terminated[g] = s.terminated == 1
            truncated[g] = s.truncated == 1
        report = False
        if over:
            if not ended:  # the end the learner sees; a later one would overwrite it
                for p in range(seat_count(s, num_players)):  # noqa: F821 - bound per game
                    final_scores[g, p] = s.score[p]
                final_lengths[g] = s.step_count
                if everyone:
                    break  # a rollout keeps its finished game; no re-deal
                copy_record(final_states, g, states, g)  # kept: the re-deal overwrites it
            episodes[g] += 1
            key = derive_key(seed, np.uint64(g), np.uint64(episodes[g] * 2 + STREAM_GAME))
            init_game(states, g, num_players, key, options)  # noqa: F821 - bound per game
            # A second end before the learner moved: the caller draws the seat after it.
            seat = -1 if ended else next_seats[g]
            ended = True
        if everyone:  # a rollout: masks[g] is scratch, no caller reads it
            action = random_action(states, g, mask_row, words, g)  # noqa: F821 - bound per game
            continue
        action = -1
        if seat >= 0 and states[g].current_player != seat:
            # The random opponent's move: the game's sampler draws what random_legal would
            # from the mask, without building it where the game can (Century).
            action = random_action(states, g, mask_row, words, g)  # noqa: F821 - bound per game
        if action < 0:  # the caller's turn (or nothing legal): its mask
            legal_mask_into(states, g, mask_row)  # noqa: F821 - bound per game


def step_batch(
    states,
    actions,
    masks,
    rewards,
    terminated,
    truncated,
    num_players,
    seed,
    episodes,
    final_scores,
    final_lengths,
    final_states,
    options,
    seats,
    next_seats,
    words,
):
    """Apply one action per game, re-deal finished games in place and refresh the masks; then,
    where ``seats[i] >= 0``, play the random opponent until seat ``seats[i]`` is to act.

    ``rewards``/``terminated``/``truncated`` describe the step just taken. A game that ended
    leaves its scores, length and terminal record in ``final_scores``/``final_lengths``/
    ``final_states`` and is immediately re-dealt from key (seed, i, 2 * episode) so every slot
    always holds a live game. A game whose action is negative is left as it is (no reward)
    unless it has an opponent to play. The opponent draws with ``words[i]`` (advanced in
    place) through the game's ``random_action`` (what ``random_legal`` would draw from its mask,
    with ``masks[i]`` as scratch until the learner is to act and gets its mask), and the learner
    sits in ``next_seats[i]`` after an end; see envs/core/game.py.
    ``seats[i] == ALL_SEATS_RANDOM`` plays every seat at random until the game ends and keeps
    the finished game in place (the random rollout: one kernel serves both); there
    ``masks`` is only ``random_action``'s scratch space.
    """
    for i in prange(states.shape[0]):
        _step_game(
            states,
            i,
            actions,
            masks,
            rewards,
            terminated,
            truncated,
            num_players,
            seed,
            episodes,
            final_scores,
            final_lengths,
            final_states,
            options,
            seats,
            next_seats,
            words,
        )


def batch_kernels(
    game,
    apply_action,
    legal_mask_into,
    init_game,
    rewards_into,
    seat_count=_one_seat_per_player,
    random_action=None,
):
    """``(reset_batch, legal_masks_batch, step_batch)`` of ``game``, parallel kernels built
    from its own (envs/core/game.py); ``seat_count(s, num_players)`` is how many seats' scores a
    finished game reports. ``random_action(states, g, scratch, words, slot)`` (optional) plays
    the random rollout and the random opponent's moves: it must return exactly what
    ``random_legal`` draws from game ``g``'s legal mask with ``words[slot]`` (-1 and no draw
    when nothing is legal), and may overwrite the int8 row ``scratch``; a game can compute it
    without building the mask."""
    namespace = dict(globals())
    namespace.update(
        apply_action=apply_action,
        legal_mask_into=legal_mask_into,
        init_game=init_game,
        rewards_into=rewards_into,
        seat_count=seat_count,
    )
    if random_action is None:
        random_action = game_kernel(rebind(_mask_random_action, namespace), game, internal=True)
    namespace["random_action"] = random_action
    namespace["_step_game"] = game_kernel(rebind(_step_game, namespace), game, internal=True)
    return tuple(
        game_kernel(rebind(template, namespace), game, parallel=True)
        for template in (reset_batch, legal_masks_batch, step_batch)
    )


def determinize_batch(states, players, seed):
    """Determinize every game for its ``players[i]``; row ``i`` keyed by ``derive_key(seed, i,
    STREAM_DETERMINIZE)``, so results do not depend on batch size or threads."""
    for i in prange(states.shape[0]):
        key = derive_key(seed, np.uint64(i), np.uint64(STREAM_DETERMINIZE))
        determinize_into(states, i, players[i], key)  # noqa: F821 - bound per game


def determinize_kernel(game, determinize_into):
    """``determinize_batch`` of ``game``: the template above bound to its ``determinize_into``."""
    namespace = dict(globals())
    namespace["determinize_into"] = determinize_into
    return game_kernel(rebind(determinize_batch, namespace), game, parallel=True)
