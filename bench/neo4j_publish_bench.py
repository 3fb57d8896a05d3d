#!/usr/bin/env python3
"""How long the shared store's publishing statement holds the counter node's lock (docs/SCALE.md).

Every publish (and delete) of the shared store increments `(:MmkgStore)` first, so publishes
run one after another across all writers: their duration bounds how many documents a second
the whole cluster can commit. This stages documents of N chunks (text of 150 words, a 384-d
vector) the way `Neo4jStore::write_staged` does and times the publishing statement alone,
which it reads from src/store/neo4j_store.cc (kPublish), so the statement timed is the one mmkg
runs. Against an empty database of a server started with `scripts/neo4j.sh start STATE`.

Usage: bench/neo4j_publish_bench.py --state STATE [--chunks 10,100,500] [--docs 20] [--json out.json]
"""
import argparse
import json
import pathlib
import random
import re
import subprocess
import time
import uuid

import server_load
from neo4j_index_latency import run

ROOT = pathlib.Path(__file__).resolve().parents[1]


def publish_statement():
    src = (ROOT / "src" / "store" / "neo4j_store.cc").read_text()
    m = re.search(r'const char\* kPublish = R"\((.*?)\)";', src, re.S)
    if not m:
        raise SystemExit("kPublish not found in src/store/neo4j_store.cc")
    return m.group(1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--state", required=True)
    ap.add_argument("--chunks", default="10,100,500")
    ap.add_argument("--docs", type=int, default=20, help="documents published per size")
    ap.add_argument("--json")
    a = ap.parse_args()
    url = subprocess.run(["bash", str(ROOT / "scripts" / "neo4j.sh"), "status", a.state], capture_output=True,
                         text=True, check=True).stdout.strip()
    if run(url, "MATCH (d:Document) RETURN count(d)")[0][0]:
        raise SystemExit("the database holds documents: use an empty one")
    run(url, "MERGE (s:MmkgStore {key: 'store'}) ON CREATE SET s.generation = 0")
    for stmt in ("CREATE INDEX b_sc IF NOT EXISTS FOR (c:StagedChunk) ON (c.version)",
                 "CREATE INDEX b_sd IF NOT EXISTS FOR (d:StagedDocument) ON (d.version)",
                 "CREATE INDEX b_sf IF NOT EXISTS FOR (f:StagedFigureRecord) ON (f.version)",
                 "CREATE INDEX b_c IF NOT EXISTS FOR (c:Chunk) ON (c.doc_id)",
                 "CREATE INDEX b_d IF NOT EXISTS FOR (d:Document) ON (d.id)",
                 "CREATE INDEX b_dp IF NOT EXISTS FOR (d:Document) ON (d.path)",
                 "CREATE INDEX b_f IF NOT EXISTS FOR (f:FigureRecord) ON (f.doc_id)",
                 "CREATE INDEX b_s IF NOT EXISTS FOR (s:SourcePart) ON (s.doc_id)",
                 "CALL db.awaitIndexes(300)"):
        run(url, stmt)
    pub = publish_statement()
    rng = random.Random(3)
    words = "the attention model of a to in for that is with query key value head layer".split()
    out = {"generated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "sizes": {}}
    for n in [int(x) for x in a.chunks.split(",")]:
        stage_ms, pub_ms = [], []
        for i in range(a.docs):
            v, doc = uuid.uuid4().hex, uuid.uuid4().hex
            rows = [{"id": f"{doc}:{k}", "doc_id": doc, "text": " ".join(rng.choice(words) for _ in range(150)),
                     "embedding": [rng.uniform(-1, 1) for _ in range(384)]} for k in range(n)]
            t0 = time.perf_counter()
            run(url, "CREATE (d:StagedDocument) SET d.id = $d, d.path = $p, d.chunks = $n, d.version = $v, "
                     "d.staged_at = timestamp()", {"d": doc, "p": f"/bench/{doc}.txt", "n": n, "v": v})
            for b in range(0, n, 500):
                run(url, "UNWIND $rows AS r CREATE (c:StagedChunk) SET c = r, c.version = $v, c.staged_at = timestamp()",
                    {"rows": rows[b:b + 500], "v": v})
            t1 = time.perf_counter()
            r = run(url, pub, {"v": v, "replace": []})
            t2 = time.perf_counter()
            if not r:
                raise SystemExit("the publish published nothing")
            stage_ms.append((t1 - t0) * 1000)
            pub_ms.append((t2 - t1) * 1000)
        out["sizes"][n] = {"documents": a.docs, "stage_p50_ms": server_load.pct(stage_ms, 50),
                           "publish_p50_ms": server_load.pct(pub_ms, 50),
                           "publish_p99_ms": server_load.pct(pub_ms, 99),
                           "publish_ms_per_chunk": server_load.pct(pub_ms, 50) / n}
        print(f"{n} chunks: stage p50 {out['sizes'][n]['stage_p50_ms']:.1f} ms, publish p50 "
              f"{out['sizes'][n]['publish_p50_ms']:.1f} ms (p99 {out['sizes'][n]['publish_p99_ms']:.1f}), "
              f"{out['sizes'][n]['publish_ms_per_chunk']:.3f} ms a chunk", flush=True)
    if a.json:
        pathlib.Path(a.json).write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
