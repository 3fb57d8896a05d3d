#!/usr/bin/env python3
"""Ingest as a pipeline (issue 15): wall time of `mmkg ingest` and how soon documents are searchable
by BM25, for two mmkg binaries side by side (old and new), on the same inputs, fresh store each.

While an ingest runs, the store's database is polled (read-only, every 0.1 s) with a full-text
query on the chunks (what BM25 search runs): "first" is when the first document's chunks match,
"all docs" when every document is committed; "cpu" is the process's user + system time. Runs
alternate between the binaries.

  bench/ingest_pipeline_bench.py --bin old=/work/main/build/mmkg --bin new=build/mmkg \\
      --input octave=/tmp/octave.pdf --input corpus=examples/corpus [--repeat 2] [-- EXTRA ARGS]
"""
import argparse
import json
import os
import resource
import shutil
import sqlite3
import subprocess
import tempfile
import time


def poll(db_path):
    """(documents committed, chunks matching any word) or None while the store is being made."""
    try:
        db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True, timeout=1)
        try:
            docs = db.execute("SELECT count(*) FROM documents").fetchone()[0]
            hits = db.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'the OR a OR of'").fetchone()[0]
            return docs, hits
        finally:
            db.close()
    except sqlite3.Error:
        return None


def run_once(binary, inputs, extra, n_docs):
    store = tempfile.mkdtemp(prefix="mmkg-pipe-bench-")
    shutil.rmtree(store)
    env = dict(os.environ)
    env.pop("MMKG_STORE", None)
    env.pop("MMKG_EMBEDDER", None)
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    p = subprocess.Popen([binary, "ingest", *inputs, "--store", store, "--no-progress", "--json", *extra],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    first = all_docs = None
    db_path = os.path.join(store, "mmkg.db")
    while p.poll() is None:
        time.sleep(0.1)
        if all_docs is not None or not os.path.exists(db_path):
            continue
        got = poll(db_path)
        if got and got[1] > 0 and first is None:
            first = time.monotonic() - t0
        if got and got[0] >= n_docs:
            all_docs = time.monotonic() - t0
    out, err = p.communicate()
    wall = time.monotonic() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime)
    if p.returncode != 0:
        raise SystemExit(f"{binary} failed ({p.returncode}): {err}")
    j = json.loads(out)
    shutil.rmtree(store, ignore_errors=True)
    return {"wall": wall, "cpu": cpu, "ingest_s": j["seconds"], "embed_s": j.get("embed_seconds"), "first": first,
            "all_docs": all_docs, "documents": j["documents"], "chunks": j["chunks"], "embedded": j.get("embedded")}


def count_docs(paths):
    n = 0
    for p in paths:
        n += sum(len(fs) for _, _, fs in os.walk(p)) if os.path.isdir(p) else 1
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", action="append", required=True, help="NAME=PATH")
    ap.add_argument("--input", action="append", required=True, help="NAME=PATH[,PATH...]")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("extra", nargs="*")
    a = ap.parse_args()
    bins = [b.split("=", 1) for b in a.bin]
    for name, paths in (i.split("=", 1) for i in a.input):
        inputs = paths.split(",")
        n_docs = count_docs(inputs)
        for r in range(a.repeat):
            for bname, path in bins:
                res = run_once(path, inputs, a.extra, n_docs)
                print(json.dumps({"input": name, "bin": bname, "run": r + 1, **res}), flush=True)


if __name__ == "__main__":
    main()
