"""Serve the AI over HTTP (FastAPI + uvicorn): the in-game AI for a game to call,
and the table in the browser.

POST /v1/move with a view (docs/contract.md) returns the bot's move; GET
/v1/health reports the bot and its model; the OpenAPI docs are at /docs; the
page at / is the table where a person plays every game against the AI
(docs/table.md).  A malformed or inconsistent view gets 422 with a message
saying what is wrong.  The bots are built once per worker process, and the
port is taken, before the server says it is serving.
"""

from __future__ import annotations

import argparse
import json
import os
import socket

from .. import levels

#: what uvicorn imports by name: the HTTP protocol (cavallo_env.serve.protocol), and the app of each worker
PROTOCOL = "cavallo_env.serve.protocol:NoDelayHTTPProtocol"
APP_FACTORY = "cavallo_env.serve.app:app_from_env"


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--bot", default=None,
                   help="bot spec to serve, or a level: strong, fast (default: the strong AI, search:default, where "
                        "this copy ships it for every game, else the fast one, policy:default)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1; each loads the model once)")
    p.add_argument("--seed", type=int, default=None, help="seed of the bot's random draws (sampling bots)")
    p.add_argument("--ai", action="append", default=None, metavar="SPEC",
                   help="an AI the table's players may choose, a bot spec or a level (strong, fast; repeat; the first "
                        "is the default; default: --bot, then search:default (strong), policy:default (fast), heuristic, greedy)")
    add_service_arguments(p)
    p.add_argument("--table-seeds", action="store_true",
                   help="let a new table be asked for a seed (tests, benchmarks; a seed deals every card)")


def add_service_arguments(p: argparse.ArgumentParser) -> None:
    """The server's limits and logging, shared by ``cavallo serve`` and ``cavallo table``."""
    p.add_argument("--db", default=None, metavar="URL",
                   help="the database every table and move is written to: postgresql://user@host/db, "
                        "sqlite:///<file> or a file path (default $CAVALLO_DB, else tables.sqlite3 in the user's "
                        "data directory; docs/database.md)")
    p.add_argument("--max-tables", type=int, default=200, help="tables at once in memory per worker (default 200)")
    p.add_argument("--tables-per-client", type=int, default=8,
                   help="tables one client (one address; an IPv6 /64) may hold at once (default 8)")
    p.add_argument("--table-ttl", type=float, default=1800.0, help="seconds an idle table is kept (default 1800)")
    p.add_argument("--move-timeout", type=float, default=10.0,
                   help="seconds a bot may think per move (default 10; past it /v1/move answers 503 and a "
                        "table's AI plays the heuristic's move)")
    p.add_argument("--max-body", type=int, default=1_000_000, help="largest request body in bytes (default 1000000)")
    p.add_argument("--read-timeout", type=float, default=10.0,
                   help="seconds a client has to send a request's headers, and then its body (default 10; "
                        "past it 408 and the connection is closed)")
    p.add_argument("--trust-proxy", action="append", default=None, metavar="ADDR",
                   help="a reverse proxy (address or network, '*' any; repeat, or comma-separate) whose "
                        "X-Forwarded-For names the client; default none: the connection's address is the client")
    p.add_argument("--log-level", default="warning", choices=["critical", "error", "warning", "info", "debug"],
                   help="uvicorn log level (default warning)")
    p.add_argument("--access-log", action="store_true", help="log every request (off by default: it costs throughput)")


def app_options(args) -> dict:
    """``create_app``'s keyword options from the command line."""
    return {"table_ais": [levels.resolve(a) for a in args.ai] if args.ai else None, "max_tables": args.max_tables, "table_ttl": args.table_ttl,
            "move_timeout": args.move_timeout, "max_body": args.max_body,
            "table_seeds": getattr(args, "table_seeds", False), "tables_per_client": args.tables_per_client,
            "read_timeout": args.read_timeout, "trust_proxy": ",".join(args.trust_proxy or ()), "db": args.db}


def serve_bot(text: str | None) -> str:
    """The spec ``--bot`` names (a level's name is its spec for every game); without one, the strongest level
    this copy ships for every game (cavallo_env.levels), else ``policy:default`` (whose error says what is missing)."""
    if text is None:
        return levels.default_spec() or "policy:default"
    return levels.resolve(text)


def bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound now: a port in use or a bad address is an error before anything is served."""
    if not 0 <= port <= 65535:
        raise ValueError(f"--port must be in 0..65535, got {port}")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        raise ValueError(f"cannot listen on {host}:{port}: {e.strerror or e}") from None
    return sock


def serve(app, sock: socket.socket, args, on_ready=None) -> None:
    """Run uvicorn on ``sock`` (one worker); ``on_ready()`` once it accepts connections."""
    import uvicorn  # lazy: uvicorn, the optional runtime extra

    # lazy: uvicorn and fastapi (cavallo_env.serve), the optional runtime extra
    from ..serve.protocol import listen_backlog, raise_open_files_limit

    raise_open_files_limit()
    # proxy_headers off: uvicorn would believe X-Forwarded-For from 127.0.0.1; the app reads it (--trust-proxy)
    config = uvicorn.Config(app, log_level=args.log_level, access_log=args.access_log, timeout_keep_alive=30,
                            backlog=listen_backlog(), http=PROTOCOL, proxy_headers=False)
    config.read_timeout = args.read_timeout  # the headers' deadline (NoDelayHTTPProtocol)
    server = uvicorn.Server(config)
    if on_ready is not None:
        startup = server.startup

        async def started(sockets=None):
            await startup(sockets=sockets)
            if server.started:
                on_ready()

        server.startup = started
    server.run(sockets=[sock])


def run(args) -> int:
    import uvicorn  # lazy: uvicorn, the optional runtime extra

    # lazy: fastapi (cavallo_env.serve), the optional runtime extra
    from ..serve.app import create_app
    from ..serve.protocol import listen_backlog, raise_open_files_limit
    from ..serve.settings import ENV_BOT, ENV_OPTIONS, ENV_READ_TIMEOUT, ENV_SEED
    from ..store.urls import is_memory, resolve, shown

    if not 1 <= args.workers <= 64:
        raise ValueError(f"--workers must be in 1..64, got {args.workers}")
    db = resolve(args.db)
    if args.workers > 1 and is_memory(db):
        raise ValueError("--db sqlite:// is a database in one process's memory: several --workers need a file or "
                         "a PostgreSQL server")
    args.bot = serve_bot(args.bot)
    sock = bind(args.host, args.port)
    options = dict(app_options(args), db=db)
    # fails now, with a clear message, on a bad bot or model or database (and migrates it, once, before any worker)
    app = create_app(args.bot, seed=args.seed, **options)
    port = sock.getsockname()[1]
    print(f"serving {args.bot} on http://{args.host}:{port} "
          f"(the table at /, POST /v1/move, GET /v1/health, docs at /docs), {args.workers} worker(s), "
          f"tables kept in {shown(db)}", flush=True)
    if args.workers == 1:
        serve(app, sock, args)
    else:
        sock.close()  # uvicorn binds it again for its workers
        os.environ[ENV_BOT] = args.bot
        # every worker serves every table: each reads and writes the one database
        os.environ[ENV_OPTIONS] = json.dumps(options)
        if args.seed is not None:
            os.environ[ENV_SEED] = str(args.seed)
        os.environ[ENV_READ_TIMEOUT] = str(args.read_timeout)
        raise_open_files_limit()  # the workers inherit it
        uvicorn.run(APP_FACTORY, factory=True, workers=args.workers, host=args.host,
                    port=port, log_level=args.log_level, access_log=args.access_log, timeout_keep_alive=30,
                    backlog=listen_backlog(), http=PROTOCOL, proxy_headers=False)
    return 0
