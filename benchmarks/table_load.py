"""Load on the table: many tables played at once by scripted clients, with the AI's moves.

Starts ``cavallo serve`` (one worker, the table AI ``--ai``, default the
shipped models) on a free local port; then ``--tables`` clients in this
process, each on its own HTTP/1.1 keep-alive connection, play whole games one
after another for ``--seconds`` seconds: the client creates a table (the four
deck/game pairs of the page in turn), plays a random legal move of seat 0
when it is its turn and asks ``POST /v1/tables/{id}/ai`` for every AI move,
exactly as the page does (without its pauses).  Every answer other than 2xx
is an error.  Reports moves/s over the whole process (yours and the AI's),
AI moves/s, request latency (median, p99), games finished, errors, and the
server's CPU time per move (what a move costs on a busy machine too).

Every table and move is written to the server's database (docs/database.md):
the run is made once per ``--db``: ``sqlite`` (a new SQLite file, the
default database), ``postgres`` (a throwaway PostgreSQL server from Debian's
``postgresql`` package, as the tests start it) or a database URL.  Each run
reports the database's growth in bytes per move played.

Target (ISSUE): 50 tables at once, >= 200 moves/s, no error, on each database.

    python benchmarks/table_load.py                          # 50 tables, 30 s, policy:default, SQLite and PostgreSQL
    python benchmarks/table_load.py --seconds 60 --json benchmarks/results/table_load.json
    python benchmarks/table_load.py --db sqlite --db postgresql://me@localhost/cavallo_bench
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ai_latency import free_port, percentile, read_response, start_server  # noqa: E402

PAIRS = [("cavalloicera", "bresciane"), ("briscola", "bresciane"), ("briscola", "milanesi"), ("scopa", "milanesi")]


def request(port: int, method: str, path: str, body=None, token: str | None = None) -> bytes:
    data = b"" if body is None else json.dumps(body).encode()
    head = f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: {len(data)}\r\n"
    if body is not None:
        head += "Content-Type: application/json\r\n"
    if token is not None:
        head += f"Authorization: Bearer {token}\r\n"
    return (head + "\r\n").encode() + data


async def load(port: int, tables: int, seconds: float, seed: int) -> dict:
    stats = {"moves": 0, "ai_moves": 0, "games": 0, "errors": 0, "statuses": {}, "by_game": {}}
    latencies = []
    stop = time.perf_counter() + seconds

    async def client(i: int):
        rng = random.Random(seed * 1000 + i)
        reader, writer = await asyncio.open_connection("127.0.0.1", port)

        token = None

        async def call(method, path, body=None):
            t0 = time.perf_counter()
            writer.write(request(port, method, path, body, token))
            status, raw = await read_response(reader)
            latencies.append(time.perf_counter() - t0)
            if not 200 <= status < 300:
                stats["errors"] += 1
                stats["statuses"][status] = stats["statuses"].get(status, 0) + 1
                raise RuntimeError(f"{method} {path}: {status} {raw[:200]!r}")
            return json.loads(raw) if raw else None

        try:
            k = i
            while time.perf_counter() < stop:
                game, deck = PAIRS[k % len(PAIRS)]
                k += 1
                token = None
                snap = await call("POST", "/v1/tables", {"game": game, "deck": deck, "seed": rng.randrange(2 ** 31)})
                tid, token = snap["id"], snap["token"]
                while not snap["done"] and time.perf_counter() < stop:
                    if snap["your_turn"]:
                        m = rng.choice(snap["legal"])
                        snap = await call("POST", f"/v1/tables/{tid}/move",
                                          {"play": m["play"], "capture": m.get("capture", []), "expect": snap["moves"]})
                    else:
                        snap = await call("POST", f"/v1/tables/{tid}/ai")
                        stats["ai_moves"] += 1
                    stats["moves"] += 1
                    key = f"{game}/{deck}"
                    stats["by_game"][key] = stats["by_game"].get(key, 0) + 1
                if snap["done"]:
                    stats["games"] += 1
                await call("DELETE", f"/v1/tables/{tid}")
        except RuntimeError as e:
            stats.setdefault("first_error", str(e))
        finally:
            writer.close()

    t0 = time.perf_counter()
    await asyncio.gather(*(client(i) for i in range(tables)))
    wall = time.perf_counter() - t0
    lat = sorted(latencies)
    return dict(stats, tables=tables, seconds=round(wall, 2), requests=len(lat),
                moves_per_s=round(stats["moves"] / wall, 1), ai_moves_per_s=round(stats["ai_moves"] / wall, 1),
                latency_median_ms=round(1000 * percentile(lat, 0.5), 2),
                latency_p99_ms=round(1000 * percentile(lat, 0.99), 2))


@contextlib.contextmanager
def database(spec: str):
    """The URL of the database ``spec`` names: ``sqlite`` a new file, ``postgres`` a throwaway server, else a URL."""
    if spec == "sqlite":
        with tempfile.TemporaryDirectory(prefix="cavallo-bench-") as d:
            yield f"sqlite:///{d}/tables.sqlite3"
    elif spec == "postgres":
        sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
        from store_fixtures import new_database, postgres_server  # the tests' throwaway PostgreSQL server

        with postgres_server() as base:
            yield new_database(base)
    else:
        yield spec


def _size(url: str) -> tuple[int, int]:
    """(bytes on disk, moves stored) of the database ``url``."""
    from sqlalchemy import func, select

    from cavallo_env.store import open_store
    from cavallo_env.store.schema import moves

    store = open_store(url)
    try:
        with store.engine.connect() as conn:
            n = conn.execute(select(func.count()).select_from(moves)).scalar()
        return store.size_bytes(), int(n)
    finally:
        store.close()


def cpu_seconds(pid: int) -> float | None:
    """The CPU time (user + system) the process ``pid`` has used so far; None where /proc is missing."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    import os

    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(args, spec: str) -> dict:
    """One load run on the database ``spec``: the results, with its growth in bytes per move."""
    with database(spec) as url:
        port = free_port()
        # every table comes from this one address: its quota must hold them all
        proc = start_server(args.ai, 1, port, extra=("--ai", args.ai, "--max-tables", "1000", "--table-seeds",
                                                     "--tables-per-client", str(args.tables), "--db", url))
        try:
            size0, _ = _size(url)
            cpu0 = cpu_seconds(proc.pid)
            res = asyncio.run(load(port, args.tables, args.seconds, args.seed))
            cpu1 = cpu_seconds(proc.pid)
        finally:
            proc.terminate()
            proc.wait(10)
        size1, stored = _size(url)
    kind = "postgresql" if spec == "postgres" or spec.startswith("postgres") else "sqlite"
    # the server's own CPU time per move: what a move costs whatever else runs on the machine (a database
    # server's processes not included)
    cpu = None if cpu0 is None or cpu1 is None else round(1000 * (cpu1 - cpu0) / max(res["moves"], 1), 3)
    return dict(res, db=kind, moves_stored=stored, db_bytes=size1, server_cpu_ms_per_move=cpu,
                db_bytes_per_move=round((size1 - size0) / max(stored, 1), 1))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tables", type=int, default=50, help="tables played at once (default 50)")
    p.add_argument("--seconds", type=float, default=30.0, help="how long, per database (default 30)")
    p.add_argument("--ai", default="policy:default", help="the tables' AI (default policy:default)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--db", action="append", default=None, metavar="DB",
                   help="sqlite (a new file), postgres (a throwaway server: Debian's postgresql package) or a "
                        "database URL; repeat for several runs (default: sqlite and postgres)")
    p.add_argument("--json", type=Path, default=None, help="write the result here")
    args = p.parse_args(argv)
    runs = [run(args, spec) for spec in args.db or ["sqlite", "postgres"]]
    command = "python benchmarks/table_load.py " + " ".join(argv if argv is not None else sys.argv[1:])
    out = {"ai": args.ai, "command": command.strip(), "runs": runs}
    print(json.dumps(out, indent=2))
    ok = True
    for res in runs:
        met = res["errors"] == 0 and res["moves_per_s"] >= 200
        ok &= met
        print(f"{res['db']}: {res['tables']} tables, {res['moves_per_s']} moves/s ({res['ai_moves_per_s']} by the AI), "
              f"{res['errors']} errors, {res['server_cpu_ms_per_move']} ms of server CPU and "
              f"{res['db_bytes_per_move']} database bytes per move: "
              f"target (>= 200 moves/s, no error) {'met' if met else 'MISSED'}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=2) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
