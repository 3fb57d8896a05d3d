#!/usr/bin/env python3
"""Reranker cost per question (docs/BENCHMARKS.md, "Reranking").

    python3 bench/rerank_bench.py --store /tmp/rr [--qa ../shared/eval/dev_qa.jsonl]
        [--rerankers lexical,embed,lexical+embed] [--llm local]

For each reranker: (1) every dev question asked in a fresh `mmkg ask --json` process (a cold
sentence-vector cache for embed), taking the retrieve step's "rerank" ms from the trace; (2) one
`mmkg eval --rerank R` process over all questions (the cache warm across questions), taking its
"rerank_ms_per_question". Prints a Markdown table (mean, median, p90 of the cold runs).
"""
import argparse, json, os, statistics, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--store", required=True)
    ap.add_argument("--qa", default=os.path.join(ROOT, "..", "shared", "eval", "dev_qa.jsonl"))
    ap.add_argument("--bin", default=os.environ.get("MMKG_BIN", os.path.join(ROOT, "build", "mmkg")))
    ap.add_argument("--rerankers", default="none,lexical,embed,lexical+embed")
    ap.add_argument("--llm", default="none", help="model for --rerank llm (local or a URL)")
    a = ap.parse_args()
    questions = [json.loads(l)["question"] for l in open(a.qa) if l.strip()]
    print("| reranker | cold: mean ms | median | p90 | warm (one process): ms per question | retrieve step mean ms |")
    print("|---|---:|---:|---:|---:|---:|")
    for rr in a.rerankers.split(","):
        extra = ["--llm", a.llm] if "llm" in rr else []
        cold, step = [], []
        for q in questions:
            p = subprocess.run([a.bin, "ask", q, "--json", "--rerank", rr, "--store", a.store] + extra,
                               capture_output=True, text=True)
            if p.returncode != 0:
                sys.exit(f"rerank_bench: {rr}: {p.stderr.strip()}")
            ret = next(s for s in json.loads(p.stdout)["trace"] if s["step"] == "retrieve")
            cold.append(ret.get("rerank", {}).get("ms", 0.0))
            step.append(ret["ms"])
        if rr == "none":  # the retrieve step without a reranker, for comparison
            print(f"| none | | | | | {statistics.mean(step):.1f} |")
            continue
        p = subprocess.run([a.bin, "eval", a.qa, "--json", "--mode", "hybrid", "--rerank", rr, "--store", a.store]
                           + extra, capture_output=True, text=True, check=True)
        warm = json.loads(p.stdout)["modes"]["hybrid+rerank"]["rerank_ms_per_question"]
        cold.sort()
        p90 = cold[min(len(cold) - 1, int(0.9 * len(cold)))]
        print(f"| {rr} | {statistics.mean(cold):.1f} | {statistics.median(cold):.1f} | {p90:.1f} | {warm:.1f} | "
              f"{statistics.mean(step):.1f} |")


if __name__ == "__main__":
    main()
