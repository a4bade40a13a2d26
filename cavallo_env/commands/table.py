"""Play in the browser: start the server (as ``cavallo serve``) and open its table page.

Pick the deck and the game, read the rules and start a game: Cavalloìcera
with an AI partner against two AIs, Briscola or Scopa (a match to 11) against
one AI.  The page offers the shipped AIs by level, "Strong" (the network-guided
search, the default where this copy ships it) and "Fast" (the network alone),
then the heuristic and greedy bots, unless ``--ai`` names other bot specs or
levels (the page then offers them, the first as its default).  ``--no-browser`` only prints the
address (e.g. on a machine without a screen).  Ctrl-C stops the server.
"""

from __future__ import annotations

import argparse
import webbrowser

from .serve import add_service_arguments, app_options, bind, serve, serve_bot


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 = any free port)")
    p.add_argument("--ai", action="append", default=None, metavar="SPEC",
                   help="an AI the page offers, a bot spec or a level (strong, fast; repeat; the first is the "
                        "default; default: search:default (strong), policy:default (fast), heuristic, greedy)")
    p.add_argument("--seed", type=int, default=None, help="seed of the AIs' random draws (sampling bots)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser, only print the address")
    add_service_arguments(p)


def run(args) -> int:
    from ..serve import create_app  # lazy: fastapi (cavallo_env.serve), the optional runtime extra
    from ..serve.service import default_table_ais  # lazy: fastapi, as above

    options = app_options(args)
    sock = bind(args.host, args.port)
    ais = options["table_ais"] or default_table_ais()
    # POST /v1/move answers every game: the --ai given first, else the strongest level that serves every game
    bot = ais[0] if options["table_ais"] else serve_bot(None)
    app = create_app(bot, seed=args.seed, **{**options, "table_ais": ais})
    host = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host
    url = f"http://{host}:{sock.getsockname()[1]}/"

    def ready():
        print(f"the table is at {url} (Ctrl-C stops the server)", flush=True)
        if not args.no_browser:
            try:
                webbrowser.open(url)
            except webbrowser.Error as e:  # no browser here: the address is printed
                print(f"could not open a browser ({e}): open {url} yourself", flush=True)

    serve(app, sock, args, on_ready=ready)
    return 0
