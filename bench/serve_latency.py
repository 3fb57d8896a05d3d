#!/usr/bin/env python3
"""Search and ask latency through `mmkg serve`, several stores side by side (issue 35, item 4).

Starts one `mmkg serve` per store (embedded folders and shared `neo4j://` stores with their
--cache), all at once, then, round after round, sends each server the same batch of questions
one at a time: `GET /api/search?k=10&q=...` and `POST /api/ask {"question": ...}` (extractive,
--llm none). Alternating the servers round by round lets machine noise hit all alike. Each
request on a shared store pays the server's per-request refresh (one generation query to Neo4j),
which the direct Searcher calls of mmkg_hybrid_bench do not.

Usage:
  bench/serve_latency.py --server e10k=/tmp/e10k --server s10k=neo4j://127.0.0.1:7474,/tmp/c10k \
      [--rounds 5] [--per-round 40] [--bin build/mmkg] [--json out.json]

The questions are those of ../shared/eval/*_qa.jsonl (172), cycled. Prints a Markdown table of
p50/p99 per server and kind, plus each server's start-up time (for a shared store with an empty
--cache: the new node's copy of the store).
"""
import argparse
import json
import pathlib
import statistics
import tempfile
import time
import urllib.parse

import server_load

ROOT = pathlib.Path(__file__).resolve().parents[1]
EVAL = ROOT.parent / "shared" / "eval"


def questions():
    qs = []
    for name in ("dev_qa.jsonl", "dev_vignettes_qa.jsonl", "dev_manuals_qa.jsonl"):
        p = EVAL / name
        if p.exists():
            qs += [json.loads(l)["question"] for l in p.read_text().splitlines() if l.strip()]
    return qs or server_load.FALLBACK


def timed(fn):
    t0 = time.perf_counter()
    st, body = fn()
    if st != 200:
        raise RuntimeError(f"HTTP {st}: {body[:200]}")
    return (time.perf_counter() - t0) * 1000


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default=str(ROOT / "build" / "mmkg"))
    ap.add_argument("--server", action="append", required=True,
                    help="NAME=STORE or NAME=neo4j://...,CACHE_DIR (repeat)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--per-round", type=int, default=40, help="questions per round and server")
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--wrk", type=int, default=0, metavar="SECONDS",
                    help="then searches at 8 connections for this long per server (wrk): requests/s")
    ap.add_argument("--json")
    a = ap.parse_args()
    qs = questions()
    servers = {}
    started = {}
    thr = {}
    try:
        for spec in a.server:
            name, _, rest = spec.partition("=")
            store, _, cache = rest.partition(",")
            extra = ["--cache", cache] if cache else []
            t0 = time.perf_counter()
            servers[name] = server_load.Server(a.bin, store, None, *extra)
            started[name] = time.perf_counter() - t0
        res = {n: {"search": [], "ask": []} for n in servers}
        for n, s in servers.items():  # warm each server's caches and encoder
            for q in qs[:a.warmup]:
                server_load.http("GET", s.url + "/api/search?k=10&q=" + urllib.parse.quote(q))
                server_load.http("POST", s.url + "/api/ask", {"question": q})
        i = 0
        for r in range(a.rounds):
            batch = [qs[(i + j) % len(qs)] for j in range(a.per_round)]
            i += a.per_round
            for n, s in servers.items():
                for q in batch:
                    res[n]["search"].append(timed(lambda: server_load.http(
                        "GET", s.url + "/api/search?k=10&q=" + urllib.parse.quote(q))))
                for q in batch:
                    res[n]["ask"].append(timed(lambda: server_load.http("POST", s.url + "/api/ask", {"question": q})))
        if a.wrk:
            with tempfile.TemporaryDirectory() as tmp:
                for n, s in servers.items():
                    thr[n] = server_load.wrk(s.url, 8, a.wrk, qs, pathlib.Path(tmp))
    finally:
        for s in servers.values():
            s.stop()
    out = {"generated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "rounds": a.rounds,
           "per_round": a.per_round, "servers": {}}
    print("| server | start s | search p50 / p99 ms | ask p50 / p99 ms | requests | search req/s, 8 connections |")
    print("|---|---:|---:|---:|---:|---:|")
    for n in servers:
        d = {"start_s": started[n]}
        if n in thr:
            d["search_8_connections"] = thr[n]
        for kind in ("search", "ask"):
            xs = res[n][kind]
            d[kind] = {"p50_ms": server_load.pct(xs, 50), "p99_ms": server_load.pct(xs, 99),
                       "mean_ms": statistics.mean(xs), "requests": len(xs)}
        out["servers"][n] = d
        print(f"| {n} | {d['start_s']:.1f} | {d['search']['p50_ms']:.1f} / {d['search']['p99_ms']:.1f} | "
              f"{d['ask']['p50_ms']:.1f} / {d['ask']['p99_ms']:.1f} | {d['search']['requests']} + {d['ask']['requests']} | "
              + (f"{thr[n]['rps']:.1f} |" if n in thr else "- |"))
    if a.json:
        pathlib.Path(a.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
