"""Full benchmark of one game: writes benchmarks/results/<game>.json and prints it.

    python benchmarks/bench_game.py --game century          # a few minutes on 2 cores
    python benchmarks/bench_game.py --game radlands --quick  # smaller batches, shorter runs

What is measured is described in benchmarks/README.md and envs/bench.py.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without installing

from meeple_gym import bench  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="century")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--out", help="default: benchmarks/results/<game>.json")
    args = parser.parse_args(argv)

    result = bench.run_all(
        args.game, quick=args.quick, log=lambda m: print(f"[bench] {m}", file=sys.stderr)
    )
    out = Path(args.out or ROOT / "benchmarks" / "results" / f"{args.game}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"plot written to {bench.plot(result, out.with_suffix('.png'))}", file=sys.stderr)
    print(json.dumps(result, indent=2))
    print(bench.format_summary(result), file=sys.stderr)
    print(f"written to {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
