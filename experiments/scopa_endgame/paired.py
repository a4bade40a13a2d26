"""Paired screen of Scopa search variants against one opponent, on the same single deals.

Every spec plays the same duplicate deals (seed, indices 0..N-1) against the
opponent; each deal's pair score (a win 1, a draw 1/2, over the two games) is
written as one JSON line, so a stopped screen keeps what it played.  The
summary compares each spec with the first, deal by deal (the mean paired
difference and its 95% interval).

    python experiments/scopa_endgame/paired.py play "ismcts:1000|ismcts:1000,exact=1" \
        heuristic --seed 7 --deals 400 --out /tmp/exact.jsonl
    python experiments/scopa_endgame/paired.py summary /tmp/exact.jsonl

(the screen of ``exact=1``, the search that solves the last round exactly;
the paired script of commit e9fcdd1, unchanged but for these commands)
"""

from __future__ import annotations

import argparse
import collections
import json
import math
import multiprocessing as mp

from cavallo_env import evaluation as ev


def play(specs: list[str], opponent: str, seed: int, deals: int, out: str, jobs: int) -> None:
    tasks = [(s, opponent, seed, i, "scopa", {"match": False}) for i in range(deals) for s in specs]
    with open(out, "w") as f, mp.get_context("fork").Pool(jobs) as pool:
        for t, (games, timing) in zip(tasks, pool.imap(ev._task, tasks, chunksize=1)):
            score = sum(1.0 if g.diff > 0 else 0.5 if g.diff == 0 else 0.0 for g in games) / 2
            f.write(json.dumps({"spec": t[0], "deal": t[3], "score": score,
                                "ms": 1000 * timing["a"][0] / max(timing["a"][1], 1)}) + "\n")
            f.flush()


def summary(paths: list[str]) -> None:
    rows = [json.loads(line) for p in paths for line in open(p)]
    by: dict = collections.defaultdict(dict)
    for r in rows:
        by[r["spec"]][r["deal"]] = r
    specs = list(dict.fromkeys(r["spec"] for r in rows))
    base = by[specs[0]]
    for s in specs:
        d = by[s]
        line = (f"{s:34s} deals {len(d):4d}  score {100 * sum(r['score'] for r in d.values()) / len(d):.1f}%"
                f"  {sum(r['ms'] for r in d.values()) / len(d):.0f} ms a decision")
        if s != specs[0]:
            diffs = [d[k]["score"] - base[k]["score"] for k in d if k in base]
            m = sum(diffs) / len(diffs)
            var = sum((x - m) ** 2 for x in diffs) / max(len(diffs) - 1, 1)
            line += f"  vs {specs[0]} on {len(diffs)}: {100 * m:+.1f} ± {196 * math.sqrt(var / len(diffs)):.1f}"
        print(line)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("play")
    p.add_argument("specs", help="bot specs separated by '|'; the first is the baseline")
    p.add_argument("opponent")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--deals", type=int, default=400)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--out", required=True)
    s = sub.add_parser("summary")
    s.add_argument("paths", nargs="+")
    a = ap.parse_args()
    if a.cmd == "play":
        play(a.specs.split("|"), a.opponent, a.seed, a.deals, a.out, a.jobs)
    else:
        summary(a.paths)


if __name__ == "__main__":
    main()
