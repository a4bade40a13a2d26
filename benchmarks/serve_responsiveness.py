"""Does ``cavallo serve`` stay responsive while a bot thinks, and bounded under big bodies?

1. Starts ``cavallo serve --bot ismcts:20000`` (a search of about 3 s per
   Cavalloìcera move on this machine), posts a view to ``/v1/move`` and, while
   the search runs, times ``GET /v1/health`` every 100 ms: before the bot moved
   off the event loop a health check waited for the whole search (2.9 s).
2. Sends ten 50 MB bodies to ``/v1/move`` at once and reports their status
   codes and the server's resident memory before and after (``/proc``;
   before the body limit, ten such bodies took 840 MB).

    python benchmarks/serve_responsiveness.py [--json benchmarks/results/serve_responsiveness.json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from cavallo_env import games

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ai_latency import free_port  # noqa: E402


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def post(url: str, body: bytes, timeout: float = 120) -> int:
    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:  # the server closed the connection after its 413
        return -1


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--bot", default="ismcts:20000")
    p.add_argument("--json", type=Path, default=None)
    args = p.parse_args(argv)
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "cavallo_env.cli", "serve", "--bot", args.bot, "--ai", args.bot,
                             "--port", str(port), "--move-timeout", "60"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    out = {"bot": args.bot}
    try:
        for _ in range(600):
            try:
                urllib.request.urlopen(f"{url}/v1/health", timeout=1).read()
                break
            except OSError:
                time.sleep(0.1)
        g = games.get("cavalloicera")
        s = g.new_state(1)
        view = json.dumps(g.make_view(s, s.current)).encode()
        done = {}
        t = threading.Thread(target=lambda: done.update(status=post(f"{url}/v1/move", view),
                                                        at=time.perf_counter()))
        t0 = time.perf_counter()
        t.start()
        health = []
        while t.is_alive():
            h0 = time.perf_counter()
            urllib.request.urlopen(f"{url}/v1/health", timeout=30).read()
            health.append(time.perf_counter() - h0)
            time.sleep(0.1)
        t.join()
        out.update(move_status=done["status"], move_s=round(done["at"] - t0, 2), health_checks=len(health),
                   health_max_ms=round(1000 * max(health), 1), health_median_ms=round(1000 * sorted(health)[len(health) // 2], 1))
        print(f"{args.bot} thought {out['move_s']} s (status {out['move_status']}); {len(health)} health checks "
              f"meanwhile: median {out['health_median_ms']} ms, max {out['health_max_ms']} ms")
        before = rss_mb(proc.pid)
        big = b"{" + b" " * (50 * 2 ** 20) + b"}"
        statuses = []
        threads = [threading.Thread(target=lambda: statuses.append(post(f"{url}/v1/move", big))) for _ in range(10)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        after = rss_mb(proc.pid)
        out.update(big_bodies=sorted(statuses), rss_before_mb=round(before, 1), rss_after_mb=round(after, 1))
        print(f"ten 50 MB bodies: statuses {sorted(statuses)} (-1: connection closed after the 413); "
              f"server memory {before:.0f} MB before, {after:.0f} MB after")
    finally:
        proc.terminate()
        proc.wait(10)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
