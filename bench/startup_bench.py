#!/usr/bin/env python3
"""Wall time of `mmkg search` and `mmkg ask` as whole processes (model load included), per build and
embedder, measured side by side: each round runs every (build, embedder, command) once, in an order
that rotates between rounds, so machine noise hits all alike. Medians are reported.

  bench/startup_bench.py --store DIR --build NAME=PATH/TO/mmkg [--build NAME=...]
      [--embedder native:fp32 --embedder native] [--rounds 7] [--query "..."] [--json OUT]

The int8 encoder's layer cache (src/embed/int8_cache.h) is kept in a private folder: with
--cold, emptied before every int8 run (the first process after a model or code change); by
default warmed once before the rounds (every later process). Builds without the cache ignore it.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchutil import loadavg, machine_info, write_results  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--store", required=True)
    ap.add_argument("--build", action="append", required=True, help="NAME=PATH of an mmkg binary")
    ap.add_argument("--embedder", action="append", help="embedder specs (default native:fp32 and native)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--query", default="Let's Encrypt certificate")
    ap.add_argument("--cold", action="store_true", help="empty the int8 cache before every run")
    ap.add_argument("--json", help="write the results here")
    a = ap.parse_args()
    builds = [tuple(b.split("=", 1)) for b in a.build]
    embedders = a.embedder or ["native:fp32", "native"]
    commands = {"search": ["search", a.query, "--json"], "ask": ["ask", a.query, "--json"]}
    cache = tempfile.mkdtemp(prefix="mmkg-startup-cache-")
    env = dict(os.environ, MMKG_CACHE_DIR=cache)
    env.pop("MMKG_STORE", None)

    def run(binary, emb, cmd):
        if a.cold:
            shutil.rmtree(cache, ignore_errors=True)
        t0 = time.perf_counter()
        p = subprocess.run([binary, *commands[cmd], "--store", a.store, "--embedder", emb], capture_output=True,
                           text=True, env=env, stdin=subprocess.DEVNULL)
        dt = time.perf_counter() - t0
        if p.returncode != 0:
            sys.exit(f"{binary} {cmd} --embedder {emb} failed ({p.returncode}): {p.stderr[-2000:]}")
        return dt

    cases = [(name, path, emb, cmd) for name, path in builds for emb in embedders for cmd in commands]
    for name, path, emb, cmd in cases:  # warm-up: page cache, and the int8 cache unless --cold
        run(path, emb, cmd)
    times = {c: [] for c in cases}
    load_before = loadavg()
    for r in range(a.rounds):
        order = cases[r % len(cases):] + cases[:r % len(cases)]
        for c in order:
            times[c].append(run(c[1], c[2], c[3]))
    shutil.rmtree(cache, ignore_errors=True)

    rows = []
    for (name, path, emb, cmd), ts in times.items():
        rows.append({"build": name, "embedder": emb, "command": cmd, "median_ms": round(statistics.median(ts) * 1000, 1),
                     "min_ms": round(min(ts) * 1000, 1), "runs": len(ts)})
    print(f"| build | embedder | command | median ms | min ms |")
    print(f"|---|---|---|---:|---:|")
    for row in rows:
        print(f"| {row['build']} | {row['embedder']} | {row['command']} | {row['median_ms']} | {row['min_ms']} |")
    res = {"date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "command": " ".join(sys.argv),
           "machine": machine_info(), "load_before": load_before, "load_after": loadavg(),
           "cold_int8_cache": a.cold, "query": a.query, "store": a.store, "rows": rows}
    if a.json:
        write_results(res, a.json)


if __name__ == "__main__":
    main()
