"""All Numba options live here so every kernel compiles the same way.

fastmath stays off (bit-exact results across machines); ``cache=True`` so a warm start only
loads machine code; ``error_model="numpy"`` drops Python's zero-division checks from hot loops.

Coverage: under ``NUMBA_DISABLE_JIT=1`` every kernel runs as plain Python when given
``states.view(np.recarray)`` (plain NumPy records have no attribute access);
tests/test_pure_python_mode.py checks that this plays the same games as the compiled kernels.
"""

import numba

JIT_OPTIONS = {"cache": True, "fastmath": False, "nogil": True, "error_model": "numpy"}


def kernel(fn):
    """Compile a serial kernel with the project's options."""
    return numba.njit(**JIT_OPTIONS)(fn)


def parallel_kernel(fn):
    """Compile a kernel whose outer ``numba.prange`` loop runs across threads."""
    return numba.njit(parallel=True, **JIT_OPTIONS)(fn)
