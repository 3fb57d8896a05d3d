#!/usr/bin/env python3
"""Dense and hybrid retrieval at scale (called by bench/run.sh; see docs/BENCHMARKS.md).

For each store size N (default 10k, 100k, 1M chunks) runs bench/hybrid_bench.cc twice, each in a
fresh process so that the peak memory (VmHWM) is per size and per phase:
  1. `mmkg_hybrid_bench build`: writes a synthetic store (Zipf-sampled text over the vocabulary of
     examples/corpus, random unit 384-d vectors as the chunks' embeddings under the native model's
     id), builds the vector index (flat up to the threshold, 20,000 vectors, hnswlib HNSW above;
     the sizes listed in --flat-sizes, default none, are built flat), measures its recall@10
     against an exact scan on random query vectors;
  2. `mmkg_hybrid_bench search`: opens the store with a Searcher (real native embedder), times query
     embedding, BM25, dense and hybrid search (k = 10) over a few hundred queries, and BM25 straight
     from FTS5 beside it (what BM25 cost before the Xapian index).
Prints a Markdown report and writes the JSON results (--out). Stores are deleted afterwards unless
--keep.
"""
import argparse
import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchutil import loadavg, machine_info, write_results  # noqa: E402


def log(msg):
    print(f"hybrid_bench: {msg}", file=sys.stderr, flush=True)


def run(cmd):
    log(" ".join(cmd))
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{cmd[0]} exited {p.returncode}")
    return json.loads(p.stdout.strip().splitlines()[-1]), wall


def human(n):
    return f"{n // 1000000}M" if n % 1000000 == 0 else f"{n // 1000}k" if n % 1000 == 0 else str(n)


def markdown(res):
    L = []
    m = res["machine"]
    L.append(f"## Dense and hybrid retrieval on synthetic stores — {res['date']}")
    L.append("")
    L.append(f"Machine: {m.get('cpu', '?')}, {m.get('nproc')} cores, {m.get('mem_gib')} GiB RAM; "
             f"OPENBLAS_CORETYPE={res.get('openblas_coretype') or '(unset)'}; load average "
             f"{res['loadavg_start']} at start, {res['loadavg_end']} at end")
    L.append("")
    L.append("| chunks | write s | chunks/s | index | index build s | recall@10 (random q) | store GB | vectors.idx GB "
             "| build VmHWM MiB | search VmHWM MiB | total wall s |")
    L.append("|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for s in res["sizes"]:
        b, q = s.get("build"), s.get("search")
        if not b:
            L.append(f"| {human(s['chunks'])} | failed: {s.get('error', '?')} |")
            continue
        w, ix, iq, fb = b["write"], b["index"], b.get("index_quality") or {}, b["files_bytes"]
        search_hwm = f"{q['memory_peak']['vm_hwm_mib']:,.0f}" if q else "–"
        recall = f"{iq['recall_at_10']:.3f}" if "recall_at_10" in iq else "–"
        L.append(f"| {human(s['chunks'])} "
                 f"| {w['generate_seconds'] + w['put_document_seconds'] + w['checkpoint_seconds']:.1f} "
                 f"| {w['chunks_per_s']:,.0f} | {ix['kind'] + (' (forced)' if ix.get('hnsw_threshold_override') else '')} | {ix['build_seconds']:.2f} | {recall} "
                 f"| {(fb['mmkg.db'] + fb['mmkg.db-wal']) / 1e9:.2f} | {fb['vectors.idx'] / 1e9:.2f} "
                 f"| {b['memory_peak']['vm_hwm_mib']:,.0f} | {search_hwm} "
                 f"| {s['build_wall'] + s.get('search_wall', 0):.0f} |")
    L.append("")
    L.append("Search latency (ms, one query at a time, k = 10; embed = the query's embedding alone, included in "
             "dense and hybrid):")
    L.append("")
    L.append("| chunks | query set | embed p50 | embed p99 | bm25 p50 | bm25 p99 | dense p50 | dense p99 "
             "| hybrid p50 | hybrid p99 |")
    L.append("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for s in res["sizes"]:
        q = s.get("search")
        if not q:
            continue
        for st in q["sets"]:
            cells = []
            for m in ("embed", "bm25", "dense", "hybrid"):
                cut = f" (n={st[m]['n']})" if st[m].get("truncated") else ""
                cells.append(f"| {st[m]['p50_ms']:.2f} | {st[m]['p99_ms']:.2f}{cut}")
            L.append(f"| {human(s['chunks'])} | {st['set']} ({st['queries']}) " + " ".join(cells) + " |")
    L.append("")
    L.append("Lexical search: the Xapian index (built from 20,000 chunks on) against FTS5 on the same store, "
             "side by side in one process (ms, k = 10; shared = mean share of FTS5's top 10 in Xapian's):")
    L.append("")
    L.append("| chunks | lexical index build s | lexical.xapian GB | query set | served by Xapian | FTS5 p50 | FTS5 p99 "
             "| Xapian (bm25) p50 | Xapian p99 | shared |")
    L.append("|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|")
    for s in res["sizes"]:
        b, q = s.get("build"), s.get("search")
        if not b or not q or "lexical_index" not in b:
            continue
        lx = b["lexical_index"]
        for st in q["sets"]:
            if "bm25_fts5" not in st:
                continue
            f, x = st["bm25_fts5"], st["bm25"]
            cut = f" (n={f['n']})" if f.get("truncated") else ""
            L.append(f"| {human(s['chunks'])} | {lx['build_seconds']:.1f} | {b['files_bytes'].get('lexical.xapian', 0) / 1e9:.2f} "
                     f"| {st['set']} | {st['bm25_served_by_xapian']} | {f['p50_ms']:.2f} | {f['p99_ms']:.2f}{cut} "
                     f"| {x['p50_ms']:.2f} | {x['p99_ms']:.2f} | {st['bm25_top_k_shared_with_fts5']:.2f} |")
    L.append("")
    return "\n".join(L)


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(root, "build", "bench", "mmkg_hybrid_bench"))
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--queries", type=int, default=300)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("-k", type=int, default=10)
    ap.add_argument("--flat-sizes", default="",
                    help="comma-separated sizes whose vector index is built flat (exact) instead of HNSW "
                         "(before hnswlib, FAISS HNSW took well over an hour for 1M vectors on 2 cores)")
    ap.add_argument("--max-pass-seconds", type=float, default=60,
                    help="stop a (query set, mode) pass after this long; the queries run so far are reported")
    ap.add_argument("--vocab-dir", default=os.path.join(root, "examples", "corpus"))
    ap.add_argument("--workdir", default=None, help="where the stores go (default: a temporary folder)")
    ap.add_argument("--keep", action="store_true", help="keep the stores")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()

    sizes = [int(x) for x in args.sizes.split(",") if x.strip()]
    flat_sizes = {int(x) for x in args.flat_sizes.split(",") if x.strip()}
    work = args.workdir or tempfile.mkdtemp(prefix="mmkg-hybrid-bench-")
    os.makedirs(work, exist_ok=True)
    res = {"date": dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "machine": machine_info(), "loadavg_start": loadavg(),
           "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE", ""),
           "k": args.k, "queries_per_set": args.queries, "max_pass_seconds": args.max_pass_seconds,
           "flat_sizes": sorted(flat_sizes), "sizes": []}
    try:
        for n in sizes:
            store = os.path.join(work, f"store-{n}")
            shutil.rmtree(store, ignore_errors=True)
            entry = {"chunks": n, "loadavg_before": loadavg()}
            res["sizes"].append(entry)
            try:
                cmd = [args.bin, "build", "--store", store, "--chunks", str(n), "--vocab-dir", args.vocab_dir]
                if n in flat_sizes:
                    cmd += ["--hnsw-threshold", str(n + 1)]
                entry["build"], entry["build_wall"] = run(cmd)
                entry["loadavg_after_build"] = loadavg()
                entry["search"], entry["search_wall"] = run(
                    [args.bin, "search", "--store", store, "--queries", str(args.queries),
                     "--warmup", str(args.warmup), "-k", str(args.k), "--max-pass-seconds", str(args.max_pass_seconds)])
                entry["loadavg_after_search"] = loadavg()
            except Exception as e:  # keep the sizes that worked
                log(f"{n} chunks: {e}")
                entry["error"] = str(e)
            finally:
                if not args.keep:
                    shutil.rmtree(store, ignore_errors=True)
    finally:
        if not args.keep and not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    res["loadavg_end"] = loadavg()
    write_results(res, args.out)
    print(markdown(res))
    print(f"\nJSON: {args.out}")


if __name__ == "__main__":
    main()
