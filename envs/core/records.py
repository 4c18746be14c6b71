"""Copying state between arrays inside kernels, in the ways that compile fastest.

Numba lowers ``dst[i] = src[j]`` on records as one load and one store per byte of the record,
unrolled: a Radlands state copy is about 1,700 LLVM instructions, and it made the batch step
one of the slowest kernels to compile (benchmarks/README.md, Compile time). Copying through
``uint8`` views is a short loop instead. The loops index a slice of the record's own bytes from
0: indexed by ``start + k`` into the whole batch, each index might be negative as far as Numba
can tell, its wraparound check kept the loop from vectorizing, and a 2,775-byte Everdell record
took 3.6 us to copy (0.1 us now; benchmarks/README.md, "Everdell steps, second pass").

``dst[:] = src`` with an array on the right has Numba check the shapes and build the error
message with string formatting, which links Numba's unicode code into every kernel that reaches
it: five such assignments were about 9% of Radlands' cold compile. ``copy_values`` is the loop.
"""

import numpy as np

from meeple_gym.core.jit import kernel


@kernel
def copy_record(dst, dst_index, src, src_index):
    """``dst[dst_index] = src[src_index]`` for 1-D C-contiguous arrays of the same record
    dtype."""
    size = dst.itemsize
    to_bytes = dst.view(np.uint8)[dst_index * size : (dst_index + 1) * size]
    from_bytes = src.view(np.uint8)[src_index * size : (src_index + 1) * size]
    for k in range(size):
        to_bytes[k] = from_bytes[k]


@kernel
def clear_record(states, index):
    """Every byte of ``states[index]`` set to zero: one memset where resetting each field with
    its own slice assignment costs Numba a broadcast loop nest apiece."""
    size = states.itemsize
    record_bytes = states.view(np.uint8)[index * size : (index + 1) * size]
    for k in range(size):
        record_bytes[k] = 0


@kernel
def copy_values(dst, src):
    """``dst[:] = src`` for 1-D arrays of the same length (see the module docstring). Only the
    shorter length is copied if they differ: a loop must not write past either end."""
    for k in range(min(dst.shape[0], src.shape[0])):
        dst[k] = src[k]


def take_records(states, rows):
    """``states[rows]`` (a new C-contiguous record array) for a 1-D C-contiguous ``states`` and
    integer ``rows``: each record copied as one row of bytes. NumPy's fancy indexing of a record
    dtype with subarrays copies field by field: 26 us for 11 Everdell records, 6 us this way
    (the vector env's finished games, an evaluator's or opponent's records)."""
    raw = states.view(np.uint8).reshape(states.shape[0], states.dtype.itemsize)
    rows = np.asarray(rows)
    return raw[rows].view(states.dtype).reshape(rows.shape[0])
