"""Profile a game's random rollouts with Linux ``perf``: a perf map names the Numba kernels.

    python benchmarks/perf_map.py --game century --seconds 30 &
    perf record -e cpu-clock -F 4000 -p "$(cat /tmp/meeple_perf.pid)" -- sleep 10
    perf report --stdio --sort symbol

Numba's machine code has no symbols, so ``perf report`` shows bare addresses. This script
compiles the game's rollout kernels into an empty kernel cache (code loaded from a cache keeps
no LLVM module to name its functions), writes ``/tmp/perf-<pid>.map`` (the file ``perf`` reads
for just-in-time code: start, size and name of every function of every code library alive),
writes its pid to ``--pid-file`` and plays ``random_rollout`` batches for ``--seconds``. With
``--dump NAME`` it also writes the machine code of the first function whose symbol contains
NAME to ``NAME.bin`` and its address to ``NAME.addr``, for an instruction-level histogram
(``objdump -D -b binary -mi386:x86-64 NAME.bin`` and ``perf script -F ip``).

This reads Numba's private code libraries (``_final_module``, ``_codegen._engine``): a
measuring tool, not part of the library (benchmarks/README.md, "Borrowed arguments").
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import os
import tempfile
import time

os.environ.setdefault("MEEPLE_GYM_CACHE_DIR", tempfile.mkdtemp(prefix="meeple-perf-"))

import numba  # noqa: E402
from numba.core import codegen  # noqa: E402

import meeple_gym as mg  # noqa: E402


def code_libraries() -> set:
    found = set()
    for obj in gc.get_objects():
        try:
            if isinstance(obj, codegen.CodeLibrary):
                found.add(obj)
        except TypeError:  # weak proxies
            continue
    return found


def function_addresses() -> dict[int, str]:
    entries = {}
    for library in code_libraries():
        module = getattr(library, "_final_module", None)
        if module is None:
            continue
        for function in module.functions:
            if function.is_declaration:
                continue
            address = library._codegen._engine.get_function_address(function.name)
            if address:
                entries[address] = function.name
    return entries


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="century")
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--games", type=int, default=4000, help="games per rollout call")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--pid-file", default="/tmp/meeple_perf.pid")
    parser.add_argument("--dump", help="write the machine code of this function")
    args = parser.parse_args()
    numba.set_num_threads(args.threads)
    batch = mg.make_batch(args.game, 1, args.players, seed=0)
    batch.random_rollout(64, threads=args.threads)  # compile
    entries = function_addresses()
    starts = sorted(entries)
    ends = starts[1:] + [starts[-1] + 4096]
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as out:
        for start, end in zip(starts, ends, strict=True):
            out.write(f"{start:x} {end - start:x} {entries[start]}\n")
    if args.dump:
        wrappers = ("cfunc", "_ZN7cpython")  # the entry points from Python, not the kernel
        for start, end in zip(starts, ends, strict=True):
            if args.dump in entries[start] and not entries[start].startswith(wrappers):
                with open(f"{args.dump}.bin", "wb") as out:
                    out.write(ctypes.string_at(start, end - start))
                with open(f"{args.dump}.addr", "w") as out:
                    out.write(hex(start))
                break
    with open(args.pid_file, "w") as out:
        out.write(str(os.getpid()))
    print(f"pid {os.getpid()}: {len(starts)} functions mapped; playing", flush=True)
    started = time.monotonic()
    while time.monotonic() - started < args.seconds:
        batch.random_rollout(args.games, threads=args.threads)


if __name__ == "__main__":
    main()
