"""Copying one game's state between record arrays inside kernels.

Numba lowers ``dst[i] = src[j]`` on records as one load and one store per byte of the record,
unrolled: a Radlands state copy is about 1,700 LLVM instructions, and it made the batch step
one of the slowest kernels to compile (issue 11). Copying through ``uint8`` views is a loop
that LLVM turns into a single ``memcpy``.
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
