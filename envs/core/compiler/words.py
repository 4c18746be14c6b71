"""Technique ``word_loads``: eight bytes of an array read as one word, with no view.

Century's rollout sampler reads a player's 45 card states eight to a 64-bit word
(envs/century/rules.py). Through ``states.view(np.uint64)`` every call took a view of the whole
batch, and a view counts a reference on the batch's memory: an atomic operation on a cache line
that every thread's games share, on most steps. ``load_word(array, byte)`` reads the eight
bytes at byte offset ``byte`` of a C-contiguous array's data (any alignment, the machine's byte
order) as one ``uint64``, with one unaligned load and no view (benchmarks/README.md, "Borrowed
arguments").

Relies on (``check``): ``numba.extending.intrinsic``, ``cgutils.create_struct_proxy`` and the
``data`` member of Numba's array structure. Fallback: a kernel that views the array as bytes
and assembles the word from them (the same value; a counted view and eight loads).
"""

from __future__ import annotations

from llvmlite import ir
from numba.core import cgutils, types
from numba.core.datamodel import default_manager
from numba.extending import intrinsic

from meeple_gym.core import compiler as fence


def check() -> str | None:
    absent = fence.missing([(cgutils, ("create_struct_proxy",))])
    if absent:
        return absent
    model = default_manager[types.Array(types.uint8, 1, "C")]
    if "data" not in getattr(model, "_fields", ()):
        return "Numba's array structure has no data member"
    return None


@intrinsic
def load_word(typingctx, array, byte):
    """The eight bytes at byte offset ``byte`` of ``array``'s data as a uint64 (the caller keeps
    ``byte + 8`` within the array)."""
    if not isinstance(array, types.Array) or not isinstance(byte, types.Integer):
        return None
    signature = types.uint64(array, byte)

    def codegen(context, builder, sig, args):
        data = cgutils.create_struct_proxy(sig.args[0])(context, builder, value=args[0]).data
        offset = context.cast(builder, args[1], sig.args[1], types.intp)
        base = builder.bitcast(data, ir.IntType(8).as_pointer())
        pointer = builder.bitcast(builder.gep(base, [offset]), ir.IntType(64).as_pointer())
        return builder.load(pointer, align=1)

    return signature, codegen
