"""The ``meeple`` commands that show games: ``replay`` (an HTML page of a game) and ``play``
(a person against an agent, in the browser). ``meeple_gym.cli`` adds them to its parser.

    meeple replay --game century --agents heuristic random --seed 3 --out game.html
    meeple replay --trajectories rad.npz --index 7 --out game.html
    meeple play --game radlands --vs heuristic [--seat 1] [--port 8000] [--no-browser]
"""

from __future__ import annotations

from meeple_gym.core.errors import OptionError


def add_view_commands(sub, game_help: str, cli) -> None:
    """Add ``replay`` and ``play`` to the subparsers ``sub`` of ``meeple``; ``cli`` is the
    ``meeple_gym.cli`` module (its argument types)."""
    rp = sub.add_parser("replay", help="write a game as one self-contained HTML page")
    rp.add_argument("--game", default="century", help=game_help)
    rp.add_argument("--players", type=int, help="players (default: the game's usual count)")
    rp.add_argument(
        "--agents",
        nargs="+",
        default=["heuristic", "random"],
        help="agents as in `meeple eval` (game 0 of that match)",
    )
    rp.add_argument("--seed", type=cli._seed, default=0, help="the game's seed")
    rp.add_argument(
        "--trajectories",
        metavar="NPZ",
        help="replay a game of this `meeple rollout --trajectories` file instead of playing one",
    )
    rp.add_argument("--index", type=int, default=0, help="with --trajectories: which game")
    rp.add_argument(
        "--viewer",
        type=int,
        help="show this seat's own hidden cards (default: the public view, all face down)",
    )
    rp.add_argument(
        "--out", metavar="HTML", type=cli._output_file, required=True, help="the page to write"
    )
    rp.set_defaults(func=cmd_replay)

    pl = sub.add_parser("play", help="play against an agent in the browser (localhost only)")
    pl.add_argument("--game", default="century", help=game_help)
    pl.add_argument("--vs", default="heuristic", help="the agent in every other seat")
    pl.add_argument("--seat", type=int, default=0, help="your seat")
    pl.add_argument("--players", type=int, help="players (default: the game's usual count)")
    pl.add_argument("--port", type=int, default=8000, help="the port (0: any free one)")
    pl.add_argument("--seed", type=cli._seed, help="seed of the first game (default: random)")
    pl.add_argument("--no-browser", action="store_true", help="print the URL only")
    pl.set_defaults(func=cmd_play)


def cmd_replay(args) -> int:
    import meeple_gym as mg
    from meeple_gym.replay import record_game, recording_from_trajectories, write_replay

    if args.trajectories:
        recording = recording_from_trajectories(args.trajectories, args.index)
    else:
        spec = mg.get_spec(args.game)
        players = spec.default_players if args.players is None else args.players
        recording = record_game(args.game, players, agents=args.agents, seed=args.seed)
    if args.viewer is not None and not 0 <= args.viewer < recording.num_players:
        raise OptionError(f"--viewer must be a seat in [0, {recording.num_players})")
    write_replay(args.out, recording, args.viewer)
    print(f"{args.out}: {recording.game}, {recording.num_steps} steps, {recording.result}")
    return 0


def cmd_play(args) -> int:
    from meeple_gym.play import serve

    if not 0 <= args.port < 65536:
        raise OptionError(f"--port must be in [0, 65535], got {args.port}")
    serve(
        args.game,
        args.vs,
        seat=args.seat,
        num_players=args.players,
        seed=args.seed,
        port=args.port,
        open_browser=not args.no_browser,
    )
    return 0
