"""The ``meeple`` command: ``arena``, ``eval``, ``ladder``, ``rollout``, ``bench``, ``warmup``,
``check``, ``replay`` and ``play`` (the last two in ``meeple_gym.cli_views``).

    meeple arena [--games N] [--seed S] [--json]
    meeple warmup [--game G ...] [--workers N] [--json]
    meeple ladder --game G --players 2 --agents random heuristic pkg.mod:Agent [--plot F]
    meeple eval --game century --players 2 --agents heuristic random --games 1000 --seed 0
    meeple rollout --game century --players 2 --games 100000 [--out FILE.npz]
    meeple bench --game century [--quick] [--json] [--out FILE]
    meeple check century [--players 2 3] [--quick] [--json]
    meeple replay --game century --agents heuristic random --seed 3 --out game.html
    meeple play --game radlands --vs heuristic [--seat 1] [--port 8000] [--no-browser]

``eval``, ``ladder`` and ``rollout`` take ``--backend ray [--address ADDR] [--workers N]`` to
spread the games over Ray workers, with the same results as ``--backend local``
(docs/distributed.md).

Errors. A mistake (unknown game or agent, bad player count or number, an output path that
cannot be written, a Ray cluster that cannot be reached) prints one line on stderr,
``meeple COMMAND: error: ...``, and exits with status 2; output paths are checked before any
game is played. Ctrl-C ends any command with one line and status 130, and leaves no partial
output file: files are written whole or not at all (``meeple_gym.core.files``). Output piped
into a reader that stops early (``| head``) ends the command quietly with status 141. Anything
else is a bug and shows its traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from meeple_gym.core.batch import MAX_SEED
from meeple_gym.core.errors import MeepleError, OptionError
from meeple_gym.core.files import atomic_write, check_output_path, check_plot_path

EXIT_USAGE = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report a command ended by Ctrl-C
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as for any command whose reader went away
MAX_GAMES = (1 << 63) - 1  # game counts index int64 arrays


class _DefaultsFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Each option's default at the end of its help, where it has one to show (not for flags,
    nor where the help already says what happens without the option)."""

    def _get_help_string(self, action):
        if action.default is None or action.default is False:  # 0 is a default to show
            return action.help
        return super()._get_help_string(action)


class _Parser(argparse.ArgumentParser):
    """argparse with usage errors on one line (``--help`` shows the usage), and every option's
    default in its help."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("formatter_class", _DefaultsFormatter)
        super().__init__(*args, **kwargs)

    def error(self, message):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _print_json(obj) -> None:
    print(json.dumps(obj, indent=2))


def _int_in(lo: int, hi: int):
    """An argparse type: an int in [lo, hi]."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None
        if value < lo:
            raise argparse.ArgumentTypeError(f"must be at least {lo}, got {value}")
        if value > hi:
            raise argparse.ArgumentTypeError(f"must be at most {hi}, got {value}")
        return value

    return parse


_positive_int = _int_in(1, MAX_GAMES)
_seed = _int_in(0, MAX_SEED)


def _output_file(text: str) -> str:
    """An argparse type: a file this process can create (checked before any work)."""
    try:
        check_output_path(text)
    except OSError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def _plot_file(text: str) -> str:
    """An argparse type: a figure file (suffix of a format matplotlib writes)."""
    try:
        check_plot_path(text)
    except (OSError, OptionError) as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def cmd_warmup(args) -> int:
    import meeple_gym as mg
    from meeple_gym.core import jit
    from meeple_gym.core.warmup import warm

    games = args.game or mg.available_games()
    for game in games:
        mg.get_spec(game)  # fail fast on an unknown game
    start = time.perf_counter()
    seconds = warm(games, workers=args.workers, progress=not args.json)
    result = {
        "games": games,
        "wall_s": time.perf_counter() - start,
        "compile_s": seconds,
        "cache": {g: str(jit.cache_dir(g)) for g in games},
    }
    if args.json:
        _print_json(result)
    else:
        for game in games:
            parts = ", ".join(f"{p} {t:.1f} s" for p, t in seconds[game].items())
            print(f"{game:<10} {parts}")
        print(f"all kernels cached in {result['wall_s']:.1f} s under {jit.cache_root()}")
    return 0


def cmd_arena(args) -> int:
    from tqdm import tqdm

    import meeple_gym as mg
    from meeple_gym.baselines.evaluate import play_match
    from meeple_gym.core.warmup import ensure_warm

    rows = []
    ensure_warm(mg.available_games(), parts=("batch", "rollout"))
    for game in mg.available_games():
        players = 2
        match = play_match(
            game, players, ["heuristic", "random"], args.games, args.seed, progress=not args.json
        )
        batch = mg.make_batch(game, 1, players, seed=args.seed)
        batch.random_rollout(8)  # compile or load the kernel outside the timing
        # One call in the kernel, so nothing to count within it: the bar names the phase.
        with tqdm(
            total=args.rollout_games,
            desc=f"{game} random self-play",
            unit="game",
            file=sys.stderr,
            disable=args.json,
            leave=False,
        ) as bar:
            start = time.perf_counter()
            out = batch.random_rollout(args.rollout_games)
            elapsed = time.perf_counter() - start
            bar.update(args.rollout_games)
        rows.append(
            {
                "game": game,
                "players": players,
                "games": args.games,
                "heuristic_win_rate": match["win_rate"],
                "ci_low": match["ci_low"],
                "ci_high": match["ci_high"],
                "draws": match["draws"],
                "rollout_games": args.rollout_games,
                "steps_per_s": float(out["length"].sum()) / elapsed,
                "games_per_s": args.rollout_games / elapsed,
            }
        )
    if args.json:
        _print_json(rows)
        return 0
    print(f"heuristic vs random: {args.games} games, seats rotated, seed {args.seed}")
    print(f"random self-play: {args.rollout_games} complete games in the batched kernel\n")
    header = f"{'game':<10} {'players':>7}  {'heuristic win rate (95% CI)':<29} "
    print(header + f"{'steps/s':>12} {'games/s':>10}")
    for r in rows:
        rate = f"{r['heuristic_win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]"
        print(
            f"{r['game']:<10} {r['players']:>7}  {rate:<29} "
            f"{r['steps_per_s']:>12,.0f} {r['games_per_s']:>10,.0f}"
        )
    return 0


def _backend_kwargs(args) -> dict:
    return {"backend": args.backend, "address": args.address, "num_workers": args.workers}


def _start_backend(args) -> None:
    """Refuse backend arguments that do not fit, and join Ray now: a cluster that cannot be
    reached is reported before any kernel is compiled or game played."""
    from meeple_gym import distributed

    distributed._check_backend(args.backend, args.address, args.workers)
    if args.backend == "ray":
        distributed.connect(args.address, args.workers)


def _check_agents(game: str, agents, seed: int) -> None:
    """Make each agent once, so that an unknown name, a bad import path or a bad parameter is
    reported before the kernels are warmed."""
    from meeple_gym.baselines.evaluate import agent_seed, make_agent

    for k, name in enumerate(agents):
        make_agent(name, game, agent_seed(seed, k))


def _match_parts(agents) -> tuple[str, ...]:
    """The warm-up parts a match between ``agents`` uses: the search only for ``ismcts``."""
    from meeple_gym.baselines.evaluate import is_search_name

    return ("batch", "search") if any(map(is_search_name, agents)) else ("batch",)


def _run_games(args, run, games: int) -> dict:
    """``run`` (play_match or run_ladder) on the chosen backend, its kernels warmed first."""
    from meeple_gym.core.warmup import ensure_warm

    _start_backend(args)
    ensure_warm([args.game], parts=_match_parts(args.agents))
    return run(
        args.game,
        args.players,
        args.agents,
        games,
        args.seed,
        progress=not args.json,
        **_backend_kwargs(args),
    )


def cmd_eval(args) -> int:
    import meeple_gym as mg
    from meeple_gym.baselines.evaluate import check_match
    from meeple_gym.distributed import play_match

    mg.get_spec(args.game)  # fail fast on an unknown game
    check_match(args.game, args.players, args.agents, args.games, args.seed)
    _check_agents(args.game, args.agents, args.seed)
    result = _run_games(args, play_match, args.games)
    if args.json:
        _print_json(result)
        return 0
    first = result["agents"][0]
    others = ", ".join(result["agents"][1:]) or "the game's automated opponent"
    print(f"{args.game}, {args.players} players: {first} vs {others}; {args.games} games")
    # Truncated games (step cap reached) count as draws; say how many, a looping policy shows.
    print(
        f"wins {result['wins']}  draws {result['draws']}  losses {result['losses']}  "
        f"truncated {result['truncated']}"
    )
    print(
        f"win rate {result['win_rate']:.3f}  95% CI (Wilson) "
        f"[{result['ci_low']:.3f}, {result['ci_high']:.3f}]"
    )
    scores = ", ".join(
        f"{name} {s:.1f}" for name, s in zip(result["agents"], result["mean_scores"], strict=True)
    )
    print(f"mean score: {scores}; mean game length {result['mean_length']:.0f} steps")
    return 0


def cmd_ladder(args) -> int:
    import meeple_gym as mg
    from meeple_gym.baselines.ladder import check_ladder, format_ladder, plot_ladder
    from meeple_gym.distributed import run_ladder

    mg.get_spec(args.game)  # fail fast on an unknown game
    check_ladder(args.game, args.agents, args.seed, args.players, args.games_per_pair)
    result = _run_games(args, run_ladder, args.games_per_pair)
    if args.plot:
        result["plot"] = plot_ladder(result, args.plot)
    if args.json:
        _print_json(result)
    else:
        print(format_ladder(result))
    return 0


def cmd_rollout(args) -> int:
    import numpy as np

    import meeple_gym as mg
    from meeple_gym import distributed
    from meeple_gym.baselines.evaluate import check_match
    from meeple_gym.core.registry import check_num_players
    from meeple_gym.core.warmup import ensure_warm

    spec = mg.get_spec(args.game)  # fail fast on an unknown game
    check_num_players(spec, args.players)
    if (args.trajectories or args.observations) and not args.agents:
        raise OptionError(
            "--trajectories records agent games: add --agents (e.g. --agents random); the "
            "in-kernel random rollout keeps no per-step record"
        )
    if args.agents:
        seated = args.agents * args.players if len(args.agents) == 1 else args.agents
        check_match(args.game, args.players, seated, args.games, args.seed)
        _check_agents(args.game, seated, args.seed)
    _start_backend(args)
    ensure_warm([args.game], parts=("batch",) if args.agents else ("rollout",))
    # Decisions are only kept to be written: with --out they are streamed to the file (flat
    # memory at any game count); without it only their count is printed, one a step.
    trajectories = args.trajectories or args.observations
    out = distributed.rollout(
        args.game,
        args.players,
        args.games,
        args.seed,
        agents=args.agents,
        trajectories=trajectories and bool(args.out),
        observations=args.observations and bool(args.out),
        progress=not args.json,
        out=args.out,
        **_backend_kwargs(args),
    )
    meta = out["meta"]
    winners = out["winner"]
    summary = {
        **{k: v for k, v in meta.items() if k != "format"},
        "games_per_s": args.games / meta["seconds"],
        "mean_length": float(out["length"].mean()),
        "truncated": int(out["truncated"].sum()),
        "wins_by_seat": np.bincount(winners[winners >= 0], minlength=out["scores"].shape[1])
        .astype(int)
        .tolist(),
        "draws": int(np.sum(winners == -1)),
        "steps": int(out["length"].sum()),
    }
    if trajectories:
        summary["decisions"] = summary["steps"]  # traj_offsets[-1], one decision a step
    if args.out:
        summary["out"] = str(args.out)
    if args.json:
        _print_json(summary)
        return 0
    who = " vs ".join(meta["agents"]) if meta["agents"] else "uniform random (in-kernel)"
    print(
        f"{args.game}, {args.players} players, {who}: {args.games} games, seed {args.seed}, "
        f"backend {args.backend}"
    )
    print(
        f"{summary['games_per_s']:,.0f} games/s; mean length {summary['mean_length']:.1f} "
        f"steps; wins by seat {summary['wins_by_seat']}; draws {summary['draws']}; "
        f"truncated {summary['truncated']}"
    )
    if args.out:
        print(f"written to {summary['out']}")
    return 0


def cmd_bench(args) -> int:
    import meeple_gym as mg
    from meeple_gym import bench
    from meeple_gym.core.warmup import ensure_warm

    mg.get_spec(args.game, args.observation)  # fail fast on an unknown game or observation
    plot_path = args.plot or (str(Path(args.out).with_suffix(".png")) if args.out else None)
    if plot_path:
        check_plot_path(plot_path)  # the default beside --out too, before the measurements
        if args.out and Path(plot_path).resolve() == Path(args.out).resolve():
            raise OptionError(f"--out and the plot would both be {args.out!r}: give --plot")
    ensure_warm([args.game], parts=("single", "batch", "rollout"))

    def log(msg):
        print(f"[bench] {msg}", file=sys.stderr, flush=True)

    result = bench.run_all(args.game, quick=args.quick, log=log, observation=args.observation)
    if args.out:
        with atomic_write(args.out, "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")
    if plot_path:
        log(f"plot written to {bench.plot(result, plot_path)}")
    if args.json:
        _print_json(result)
    else:
        print(bench.format_summary(result))
    return 0


def cmd_check(args) -> int:
    from meeple_gym.testing import ConformanceError, check_game

    try:
        report = check_game(
            args.game, args.players, seed=args.seed, quick=args.quick, checks=args.check
        )
    except ConformanceError as exc:
        print(f"meeple check: FAILED: {exc}", file=sys.stderr)
        return 1
    if args.json:
        _print_json(report.as_dict())
    else:
        print(report)
    return 0


def _add_match_arguments(
    parser, game_help: str, default_agents: list[str], agents_help: str
) -> None:
    """The arguments every match-playing command shares."""
    parser.add_argument("--game", default="century", help=game_help)
    parser.add_argument("--players", type=int, default=2, help="players per game")
    parser.add_argument("--agents", nargs="+", default=default_agents, help=agents_help)
    parser.add_argument("--seed", type=_seed, default=0, help="the match's seed")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    _add_backend_arguments(parser)


def _add_backend_arguments(parser) -> None:
    parser.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="where to play: this process, or Ray workers (same results; needs meeple-gym[ray])",
    )
    parser.add_argument(
        "--address",
        help="Ray cluster to join (e.g. auto, ray://host:10001); default: start a local Ray",
    )
    parser.add_argument(
        "--workers", type=_positive_int, help="Ray tasks at a time (default: the cluster's CPUs)"
    )


def _games() -> str:
    import meeple_gym as mg

    return ", ".join(mg.available_games())


def build_parser() -> argparse.ArgumentParser:
    games = _games()
    parser = _Parser(
        prog="meeple",
        description=f"meeple-gym: tabletop-game RL environments. Games: {games}.",
    )
    game_help = f"the game: one of {games}"
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    arena = sub.add_parser(
        "arena", help="heuristic vs random and random self-play speed for every game"
    )
    arena.add_argument("--games", type=_positive_int, default=200, help="match games per game")
    arena.add_argument("--seed", type=_seed, default=0, help="seed of every match and rollout")
    arena.add_argument(
        "--rollout-games", type=_positive_int, default=20_000, help="self-play games per game"
    )
    arena.add_argument("--json", action="store_true", help="print JSON instead of a table")
    arena.set_defaults(func=cmd_arena)

    ev = sub.add_parser("eval", help="play a seeded match between agents")
    _add_match_arguments(
        ev,
        game_help,
        ["heuristic", "random"],
        "one agent per seat, or two (the first in one rotating seat, the second in the rest): "
        "random, heuristic, ismcts[:key=value,...], net (the shipped trained network) or "
        "net:WEIGHTS.npz, sb3:MODEL.zip (a saved PPO or MaskablePPO) or package.module:Class",
    )
    ev.add_argument("--games", type=_positive_int, default=1000, help="games to play")
    ev.set_defaults(func=cmd_eval)

    be = sub.add_parser("bench", help="measure throughput and start-up time")
    be.add_argument("--game", default="century", help=game_help)
    be.add_argument("--quick", action="store_true", help="smaller batches and shorter runs")
    be.add_argument(
        "--observation",
        default=None,
        help='the observation the batched steps encode (e.g. "compact"; default: the full one)',
    )
    be.add_argument("--json", action="store_true", help="print JSON instead of a summary")
    be.add_argument(
        "--out", metavar="FILE", type=_output_file, help="also write the JSON result to FILE"
    )
    be.add_argument(
        "--plot",
        metavar="PNG",
        type=_plot_file,
        help="write the plot here (default with --out: beside it, .png; needs matplotlib)",
    )
    be.set_defaults(func=cmd_bench)

    la = sub.add_parser("ladder", help="rate agents in a seeded round-robin (OpenSkill)")
    _add_match_arguments(
        la,
        game_help,
        ["random", "heuristic"],
        "agents: random, heuristic, ismcts[:sims=N,rollout=random|heuristic,c=X,prior=X,net=X,"
        "epsilon=X,depth=N] (the search agent), net or net:WEIGHTS.npz (a trained network), "
        "sb3:MODEL.zip (a saved PPO or MaskablePPO), or package.module:Class",
    )
    la.add_argument(
        "--games-per-pair", type=_positive_int, default=200, help="games each pair of agents plays"
    )
    la.add_argument(
        "--plot", metavar="PNG", type=_plot_file, help="also draw the ladder to this PNG"
    )
    la.set_defaults(func=cmd_ladder)

    ro = sub.add_parser(
        "rollout", help="self-play games to one .npz file (uniform random, or agents)"
    )
    ro.add_argument("--game", default="century", help=game_help)
    ro.add_argument("--players", type=int, default=2, help="players per game")
    ro.add_argument("--games", type=_positive_int, default=10_000, help="games to play")
    ro.add_argument("--seed", type=_seed, default=0, help="the rollout's seed")
    ro.add_argument(
        "--agents",
        nargs="+",
        help="play with agents (one for every seat, two, or one per seat) through the batch "
        "env; default: uniform random in the Numba kernel",
    )
    ro.add_argument(
        "--trajectories", action="store_true", help="record every decision (needs --agents)"
    )
    ro.add_argument(
        "--observations",
        action="store_true",
        help="also record each decision's observation and legal mask (large on disk, "
        "streamed to --out in chunks so memory stays flat; implies --trajectories)",
    )
    ro.add_argument(
        "--out", metavar="FILE", type=_output_file, help="write the games to this .npz file"
    )
    ro.add_argument("--json", action="store_true", help="print one JSON object")
    _add_backend_arguments(ro)
    ro.set_defaults(func=cmd_rollout)

    wu = sub.add_parser(
        "warmup", help="compile and cache every kernel now (for images and cluster nodes)"
    )
    wu.add_argument(
        "--game",
        action="append",
        help=f"a game to warm, one of {games} (repeat for several; default: all of them)",
    )
    wu.add_argument("--workers", type=_positive_int, help="compile processes (default: CPUs)")
    wu.add_argument("--json", action="store_true", help="print JSON instead of a table")
    wu.set_defaults(func=cmd_warmup)

    from meeple_gym.testing import CHECKS

    ck = sub.add_parser("check", help="run the conformance suite on a game (docs/testing.md)")
    ck.add_argument("game", help=game_help)
    ck.add_argument(
        "--players", type=int, nargs="+", help="player counts (default: every one the game has)"
    )
    ck.add_argument("--seed", type=_seed, default=0, help="seed of every game the checks play")
    ck.add_argument("--quick", action="store_true", help="the small profile the tests use")
    ck.add_argument(
        "--check", action="append", choices=CHECKS, help="run only this check (repeatable)"
    )
    ck.add_argument("--json", action="store_true", help="print JSON instead of a table")
    ck.set_defaults(func=cmd_check)

    from meeple_gym import cli_views

    cli_views.add_view_commands(sub, game_help, sys.modules[__name__])
    return parser


def _one_line(exc: BaseException) -> str:
    return "; ".join(line.strip() for line in str(exc).splitlines() if line.strip())


def main(argv=None) -> int:
    """Run one command; returns its exit status (module docstring, "Errors")."""
    prog = "meeple"
    try:
        args = build_parser().parse_args(argv)
        prog = f"meeple {args.command}"
        return args.func(args)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:  # `meeple ... | head`: the reader has all it wanted
        # Python would flush stdout again at exit and fail once more: point it at devnull.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except MeepleError as exc:  # the package's own errors: messages written for the user
        print(f"{prog}: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except MemoryError as exc:  # e.g. --games 10**15: the arrays cannot be allocated
        print(
            f"{prog}: error: out of memory ({_one_line(exc)}); ask for fewer games", file=sys.stderr
        )
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
