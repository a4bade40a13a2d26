"""Serve an AI over HTTP for a game to call (FastAPI + uvicorn).

POST /v1/move with a view (docs/contract.md) returns the bot's move; GET
/v1/health reports the bot and its model; the OpenAPI docs are at /docs.  A
malformed or inconsistent view gets 422 with a message saying what is wrong.
The bot is built once per worker process, before the server accepts requests.
"""

from __future__ import annotations

import argparse


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--bot", default="policy:default", help="bot spec to serve (default policy:default, the shipped model)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default 1; each loads the model once)")
    p.add_argument("--seed", type=int, default=None, help="seed of the bot's random draws (sampling bots)")
    p.add_argument("--log-level", default="warning", choices=["critical", "error", "warning", "info", "debug"],
                   help="uvicorn log level (default warning)")
    p.add_argument("--access-log", action="store_true", help="log every request (off by default: it costs throughput)")


def run(args) -> int:
    import os

    import uvicorn

    from ..serve import ENV_BOT, ENV_SEED, create_app

    if not 1 <= args.workers <= 64:
        raise ValueError(f"--workers must be in 1..64, got {args.workers}")
    if not 0 <= args.port <= 65535:
        raise ValueError(f"--port must be in 0..65535, got {args.port}")
    app = create_app(args.bot, seed=args.seed)  # fails now, with a clear message, on a bad bot or model
    print(f"serving {app.state.bot.name} on http://{args.host}:{args.port} "
          f"(POST /v1/move, GET /v1/health, docs at /docs), {args.workers} worker(s)", flush=True)
    options = dict(host=args.host, port=args.port, log_level=args.log_level, access_log=args.access_log,
                   timeout_keep_alive=30, backlog=4096,
                   http="cavallo_env.serve:NoDelayHTTPProtocol")
    if args.workers == 1:
        uvicorn.run(app, **options)
    else:
        os.environ[ENV_BOT] = args.bot
        if args.seed is not None:
            os.environ[ENV_SEED] = str(args.seed)
        uvicorn.run("cavallo_env.serve:app_from_env", factory=True, workers=args.workers, **options)
    return 0
