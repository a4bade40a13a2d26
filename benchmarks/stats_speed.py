"""The speed of the figures of the AI against people: ``GET /v1/stats`` (its first request after a start) and
``cavallo people``, over a database of ``--games`` finished games (default 5,000: the most /v1/stats counts).

Builds a SQLite file with ``--distinct`` real games played to the end at a table (the person random, the AI
greedy; every game and deck of the page), copied under new table ids up to ``--games`` finished games, each
written with its result as the table writes a game's last move (schema 2).  Then, in one run:

* after (this code): a new app on the database answers its first ``GET /v1/stats`` (the stored results summed
  in SQL); ``cavallo people --db FILE`` runs as a command (a new Python process, its start included);
* before (schema 1's way, the same machine and run): every record of the 5,000 most recent games read and
  replayed (``people.results_of``) and summed (``people.summarize``): what the first /v1/stats did after a
  start, and what ``cavallo people`` did (it also read every game, without the limit).

``cavallo_people_s``: ``before_work`` and ``after_work`` are the command's work in this process (its modules
imported); ``after_whole_command`` the command run as a new process (mostly importing its modules).

    python benchmarks/stats_speed.py                       # 5,000 games
    python benchmarks/stats_speed.py --games 2000 --json benchmarks/results/stats_speed.json
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]  # this checkout's cavallo_env, and the tests' games


def build(path: str, games: int, distinct: int) -> None:
    """``games`` finished games in the SQLite file ``path``: ``distinct`` played ones, copied."""
    from people_fixtures import TABLE_GAMES, finished_game, store_with

    played = [finished_game(g, d, seed, ai=("greedy", "heuristic")[seed % 2], player_id=f"player-{seed % 7}")
              for seed in range(distinct // len(TABLE_GAMES) + 1) for g, d in TABLE_GAMES][:distinct]
    copies = [fg.__class__(**{**fg.__dict__, "table_id": f"{fg.table_id}-{i}"})
              for i in range(games // distinct + 1) for fg in played][:games]
    store_with(path, copies).close()


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def after_http(path: str) -> tuple[float, dict]:
    from fastapi.testclient import TestClient

    from cavallo_env.serve import create_app
    from cavallo_env.store import open_store

    store = open_store(path)
    with TestClient(create_app("greedy", table_ais=["greedy", "heuristic"], db=store)) as client:
        seconds, r = timed(lambda: client.get("/v1/stats"))
    store.close()
    assert r.status_code == 200, r.text
    return seconds, r.json()


def before_replay(path: str, limit: int | None) -> tuple[float, dict]:
    from cavallo_env import people
    from cavallo_env.store import open_store

    store = open_store(path)

    def work():
        results, skipped = people.results_of(store.finished_games(limit=limit))
        return {"games": len(results), "lines": [x.to_dict() for x in people.summarize(results)]}

    out = timed(work)
    store.close()
    return out


def after_command_work(path: str) -> float:
    """What ``cavallo people`` does once its modules are imported: the sums and the games that do not replay."""
    from cavallo_env import people
    from cavallo_env.store import open_store

    store = open_store(path)

    def work():
        store.fill_results()
        tallies, _, _ = store.result_tallies()
        store.skipped_games()
        return people.lines_of(people.Tally(*t) for t in tallies)

    seconds, _ = timed(work)
    store.close()
    return seconds


def after_command(path: str) -> tuple[float, str]:
    cmd = [sys.executable, "-m", "cavallo_env.cli", "people", "--db", path, "--json"]
    seconds, p = timed(lambda: subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=600))
    assert p.returncode == 0, p.stderr
    return seconds, p.stdout


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=5000, help="finished games in the database (default 5000)")
    ap.add_argument("--distinct", type=int, default=40, help="real games played, copied up to --games")
    ap.add_argument("--json", metavar="FILE", default=None, help="also write the figures as JSON")
    args = ap.parse_args(argv)
    if not 1 <= args.distinct <= args.games:
        ap.error("--distinct must be between 1 and --games")
    from cavallo_env.serve.routers.stats import MAX_GAMES

    with tempfile.TemporaryDirectory(prefix="stats-speed-") as tmp:
        path = str(Path(tmp) / "tables.sqlite3")
        t_build, _ = timed(lambda: build(path, args.games, args.distinct))
        t_http, answer = after_http(path)
        t_old_http, old = before_replay(path, MAX_GAMES)
        t_cmd, printed = after_command(path)
        t_old_cmd, old_all = before_replay(path, None)
        t_cmd_work = after_command_work(path)
    same = answer["lines"] == json.loads(json.dumps(old["lines"])) and \
        json.loads(printed)["lines"] == json.loads(json.dumps(old_all["lines"]))
    figures = {"games": args.games, "build_s": round(t_build, 2),
               "v1_stats_first_request_s": {"before": round(t_old_http, 3), "after": round(t_http, 4)},
               "cavallo_people_s": {"before_work": round(t_old_cmd, 3), "after_work": round(t_cmd_work, 4),
                                 "after_whole_command": round(t_cmd, 3)},
               "same_figures": same}
    print(json.dumps(figures, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n", encoding="utf-8")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
