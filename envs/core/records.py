"""Copying state between arrays inside kernels, in the ways that compile fastest.

Numba lowers ``dst[i] = src[j]`` on records as one load and one store per byte of the record,
unrolled: a Radlands state copy is about 1,700 LLVM instructions, and it made the batch step
one of the slowest kernels to compile (benchmarks/README.md, Compile time). Copying through
``uint8`` views is a loop that LLVM turns into a single ``memcpy``.

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
    dst_bytes = dst.view(np.uint8)
    src_bytes = src.view(np.uint8)
    size = dst_bytes.shape[0] // dst.shape[0]
    start = dst_index * size
    origin = src_index * size
    for k in range(size):
        dst_bytes[start + k] = src_bytes[origin + k]


@kernel
def clear_record(states, index):
    """Every byte of ``states[index]`` set to zero: one memset where resetting each field with
    its own slice assignment costs Numba a broadcast loop nest apiece."""
    data = states.view(np.uint8)
    size = data.shape[0] // states.shape[0]
    for k in range(index * size, (index + 1) * size):
        data[k] = 0


@kernel
def copy_values(dst, src):
    """``dst[:] = src`` for 1-D arrays of the same length (see the module docstring). Only the
    shorter length is copied if they differ: a loop must not write past either end."""
    for k in range(min(dst.shape[0], src.shape[0])):
        dst[k] = src[k]
