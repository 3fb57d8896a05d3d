#!/usr/bin/env python3
"""Neo4j's own vector and full-text indexes over a shared store's chunks (docs/SCALE.md's sizing).

Against a Neo4j started by `scripts/neo4j.sh start STATE` that holds a shared store (for example
one written by `mmkg_hybrid_bench build --store neo4j://...`): makes sure the vector index
(`mmkg_chunk_embedding`, cosine, the chunks' dimension) and the full-text index (`mmkg_chunk_text`)
exist, timing their population when they are new, then times k-nearest queries with random unit
vectors and full-text queries with the dev questions' words, one at a time over the Query API
(what a search served by Neo4j instead of the node's copy would pay), and reports the database's
size on disk: the store files and each index folder.

Usage: bench/neo4j_index_latency.py --state STATE [--queries 300] [--json out.json]
"""
import argparse
import json
import math
import pathlib
import random
import re
import subprocess
import time
import urllib.request

import serve_latency
import server_load

ROOT = pathlib.Path(__file__).resolve().parents[1]


def run(url, statement, params=None):
    body = json.dumps({"statement": statement, "parameters": params or {}}).encode()
    req = urllib.request.Request(url + "/db/neo4j/query/v2", data=body, method="POST",
                                 headers={"Content-Type": "application/json", "Accept": "application/json"})
    with urllib.request.urlopen(req, timeout=3600) as r:
        d = json.loads(r.read())
    if d.get("errors"):
        raise RuntimeError(d["errors"])
    return d["data"]["values"]


def wait_online(url, name):
    t0 = time.perf_counter()
    while True:
        state = run(url, "SHOW INDEXES YIELD name, state WHERE name = $n RETURN state", {"n": name})
        if state and state[0][0] == "ONLINE":
            return time.perf_counter() - t0
        if state and state[0][0] == "FAILED":
            raise RuntimeError(f"index {name} failed")
        time.sleep(0.5)


def du(path):
    out = subprocess.run(["du", "-sb", str(path)], capture_output=True, text=True).stdout.split()
    return int(out[0]) if out else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--state", required=True, help="the folder given to scripts/neo4j.sh start")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--json")
    a = ap.parse_args()
    url = subprocess.run(["bash", str(ROOT / "scripts" / "neo4j.sh"), "status", a.state], capture_output=True,
                         text=True, check=True).stdout.strip()
    chunks = run(url, "MATCH (c:Chunk) RETURN count(c)")[0][0]
    dim = run(url, "MATCH (c:Chunk) WHERE c.embedding IS NOT NULL RETURN size(c.embedding) LIMIT 1")[0][0]
    out = {"generated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "chunks": chunks, "dim": dim}
    have = {r[0] for r in run(url, "SHOW INDEXES YIELD name RETURN name")}
    if "mmkg_chunk_embedding" not in have:
        run(url, "CREATE VECTOR INDEX mmkg_chunk_embedding IF NOT EXISTS FOR (c:Chunk) ON (c.embedding) OPTIONS "
                 "{indexConfig: {`vector.dimensions`: $d, `vector.similarity_function`: 'cosine'}}", {"d": dim})
        out["vector_index_build_s"] = wait_online(url, "mmkg_chunk_embedding")
    if "mmkg_chunk_text" not in have:
        run(url, "CREATE FULLTEXT INDEX mmkg_chunk_text IF NOT EXISTS FOR (c:Chunk) ON EACH [c.heading_path, c.text]")
        out["fulltext_index_build_s"] = wait_online(url, "mmkg_chunk_text")
    rng = random.Random(7)

    def vec():
        v = [rng.gauss(0, 1) for _ in range(dim)]
        n = math.sqrt(sum(x * x for x in v))
        return [x / n for x in v]

    words = [re.findall(r"[a-z]{3,}", q.lower()) for q in serve_latency.questions()]
    words = [w for w in words if w]

    def timed(stmt, params):
        t0 = time.perf_counter()
        rows = run(url, stmt, params)
        return (time.perf_counter() - t0) * 1000, len(rows)

    vq = "CALL db.index.vector.queryNodes('mmkg_chunk_embedding', $k, $q) YIELD node, score RETURN node.id, score"
    fq = "CALL db.index.fulltext.queryNodes('mmkg_chunk_text', $q, {limit: $k}) YIELD node, score RETURN node.id, score"
    for i in range(a.warmup):
        timed(vq, {"k": a.k, "q": vec()})
        timed(fq, {"k": a.k, "q": " ".join(words[i % len(words)])})
    for name, stmt, arg in (("vector", vq, lambda i: vec()), ("fulltext", fq, lambda i: " ".join(words[i % len(words)]))):
        lat = [timed(stmt, {"k": a.k, "q": arg(i)})[0] for i in range(a.queries)]
        out[name] = {"p50_ms": server_load.pct(lat, 50), "p99_ms": server_load.pct(lat, 99), "queries": len(lat)}
    # Store files hold what was checkpointed (every 15 minutes by default; there is no
    # checkpoint procedure to call on Community): the transaction logs hold the rest.
    db = pathlib.Path(a.state) / "data" / "databases" / "neo4j"
    if not db.exists():
        db = next(pathlib.Path(a.state).rglob("databases/neo4j"), db)
    out["disk_bytes"] = {"database": du(db), "transaction_logs": du(db.parent.parent / "transactions" / "neo4j")}
    idx = db / "schema" / "index"
    if idx.exists():
        for p in sorted(idx.iterdir()):
            out["disk_bytes"]["index/" + p.name] = du(p)
    print(json.dumps(out, indent=1))
    if a.json:
        pathlib.Path(a.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
