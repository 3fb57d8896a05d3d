#!/usr/bin/env python3
"""How alike two embedders rank: for every question of a QA file, the dense top-k of store A
(searched with embedder A) against the dense top-k of store B (embedder B), each store ingested
with its own embedder. Reports the mean share of A's top k that B also returns and how often both
rank the same chunk first: a finer measure than the dev sets' recall and MRR, which move by a
whole question when two near-tied chunks swap places.

  bench/embed_agreement.py QA.jsonl --a STORE_A:SPEC_A --b STORE_B:SPEC_B [--bin-b OTHER_MMKG] [--k 10]

Example (docs/BENCHMARKS.md, "Native embedder: int8 vs fp32"):
  bench/embed_agreement.py ../shared/eval/dev_vignettes_qa.jsonl \
      --a /tmp/v_fp32:native:fp32 --b /tmp/v_int8:native:int8
"""
import argparse
import json
import os
import subprocess
import sys


def top(binary, store, spec, question, k):
    out = subprocess.run([binary, "search", question, "--store", store, "--embedder", spec, "--mode", "dense",
                          "-k", str(k), "--json"], capture_output=True, text=True, check=True)
    return [r["chunk_id"] for r in json.loads(out.stdout)["results"]]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("qa")
    ap.add_argument("--a", required=True, help="STORE:SPEC of the reference")
    ap.add_argument("--b", required=True, help="STORE:SPEC compared with it")
    ap.add_argument("--bin", default=os.environ.get("MMKG_BIN", os.path.join(here, "..", "build", "mmkg")))
    ap.add_argument("--bin-b", help="another mmkg binary for B (e.g. an older build)")
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    store_a, spec_a = args.a.split(":", 1)
    store_b, spec_b = args.b.split(":", 1)
    questions = [json.loads(line)["question"] for line in open(args.qa) if line.strip()]
    overlap = same_first = 0
    for q in questions:
        a = top(args.bin, store_a, spec_a, q, args.k)
        b = top(args.bin_b or args.bin, store_b, spec_b, q, args.k)
        overlap += len(set(a) & set(b)) / max(1, len(a))
        same_first += bool(a and b and a[0] == b[0])
    res = {"qa": args.qa, "questions": len(questions), "k": args.k, "a": args.a, "b": args.b,
           "top_k_overlap": overlap / len(questions), "same_first": same_first}
    if args.json:
        print(json.dumps(res))
    else:
        print(f"{len(questions)} questions: B returns {res['top_k_overlap']:.3f} of A's top {args.k}; "
              f"same first chunk {same_first} / {len(questions)}")


if __name__ == "__main__":
    sys.exit(main())
