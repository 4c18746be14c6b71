"""The vector env's bookkeeping after each kernel call, as kernels (meeple_gym.core.vector_env).

After a step over 1,024 games the interpreter's own data is out of the caches and each NumPy
call costs several times its isolated figure; the dozen calls this replaces were 7-9% of a
Century self-play step on 2 threads (benchmarks/README.md, "Vector env, round 6").

The learner seat of row ``r``'s ``e``-th episode (learner mode, no fixed seat) is RNG key
(seed, r, 2e + 3) modulo the number of seats (docs/gymnasium.md, Seeding).
"""

import numpy as np

from meeple_gym.core.jit import kernel
from meeple_gym.core.rng import derive_key

# Seat draws use the odd RNG streams 2e + 3: deals use the even ones and the random policy 1.
SEAT_STREAM_OFFSET = 3


@kernel
def learner_seat(seed, row, episode, num_players):
    """The learner seat of ``row``'s episode ``episode`` (see the module docstring)."""
    stream = np.uint64(episode) * np.uint64(2) + np.uint64(SEAT_STREAM_OFFSET)
    key = derive_key(seed, np.uint64(row), stream)
    return np.int64(key % np.uint64(num_players))


@kernel
def _draw_row(r, seed, episodes, num_players, fixed_seat, seats, next_seats):
    """Row ``r``'s learner seat for its current episode and the one after it."""
    if fixed_seat >= 0:
        seats[r] = fixed_seat
        next_seats[r] = fixed_seat
    else:
        seats[r] = learner_seat(seed, r, episodes[r], num_players)
        next_seats[r] = learner_seat(seed, r, episodes[r] + 1, num_players)


@kernel
def draw_seats(rows, seed, episodes, num_players, fixed_seat, seats, next_seats):
    """The learner seats of ``rows`` (int64) for their current and next episodes; every row
    gets ``fixed_seat`` if it is >= 0."""
    for k in range(rows.shape[0]):
        _draw_row(rows[k], seed, episodes, num_players, fixed_seat, seats, next_seats)


@kernel
def gather_finished(
    terminated,
    truncated,
    ended,
    seats,
    self_play,
    final_bytes,
    rewards,
    final_scores,
    new_rows,
    new_seats,
    new_bytes,
    ended_out,
    final_seat_out,
    terminated_out,
    truncated_out,
    reward_out,
    score_out,
    seed,
    episodes,
    num_players,
    fixed_seat,
    next_seats,
):
    """One pass over the rows after a kernel call. A row whose game just ended
    (``terminated | truncated``) is new if its learner had not already seen an end in this
    step (``ended``): its row, learner seat (``seats``) and final record (the bytes of
    ``final_bytes``) are appended to ``new_rows``, ``new_seats`` and ``new_bytes``, and its
    row of the step's outputs is set: ``ended_out``, ``final_seat_out``, ``terminated_out``,
    ``truncated_out``, and ``reward_out``/``score_out``: in ``self_play`` every seat's reward
    and final score; in learner mode the learner seat's, in column 0, and then every finished
    row gets the learner seats of its new episode and the next one in ``seats``/``next_seats``
    (``draw_seats``).

    ``final_bytes`` and ``new_bytes`` are flat ``uint8`` views of record arrays (one compile
    for every game). Returns how many rows are new."""
    size = final_bytes.shape[0] // terminated.shape[0]
    new = 0
    for r in range(terminated.shape[0]):
        if not (terminated[r] or truncated[r]):
            continue
        if not ended[r]:
            seat = seats[r]
            new_rows[new] = r
            new_seats[new] = seat
            to_bytes = new_bytes[new * size : (new + 1) * size]
            from_bytes = final_bytes[r * size : (r + 1) * size]
            for k in range(size):
                to_bytes[k] = from_bytes[k]
            new += 1
            ended_out[r] = True
            final_seat_out[r] = seat
            terminated_out[r] = terminated[r]
            truncated_out[r] = truncated[r]
            if self_play:
                for j in range(reward_out.shape[1]):
                    reward_out[r, j] = rewards[r, j]
                    score_out[r, j] = final_scores[r, j]
            else:
                reward_out[r, 0] = rewards[r, seat]
                score_out[r, 0] = final_scores[r, seat]
        if not self_play:
            _draw_row(r, seed, episodes, num_players, fixed_seat, seats, next_seats)
    return new
