#!/usr/bin/env python3
"""How alike two embedders rank: for every question of a QA file, the dense top-k of store A
(searched with embedder A) against the dense top-k of store B (embedder B), each store ingested
with its own embedder. Reports the mean share of A's top k that B also returns and how often both
rank the same chunk first: a finer measure than the dev sets' recall and MRR, which move by a
whole question when two near-tied chunks swap places.

It also measures how far apart the two embedders' scores are (|score B - score A| for the chunks
both return) and, in A's ranking, the near ties that decide the dev-set metrics: for each question
with evidence, the score gap that keeps its first evidence chunk at its rank (MRR: the gap to the
nearer neighbour) and each evidence chunk inside or outside the top 10 (recall@10: the gap to the
10th / 11th score). A decision whose gap is below B's 90th-percentile score error can flip under B
for no reason but rounding; "at stake" is how much MRR / recall@10 such flips can move.

  bench/embed_agreement.py QA.jsonl --a STORE_A:SPEC_A --b STORE_B:SPEC_B [--bin-b OTHER_MMKG] [--k 10]

Example (bench/results/history/BENCHMARKS-journal-to-20261128.md, "Native embedder: int8 vs fp32"):
  bench/embed_agreement.py ../shared/eval/dev_vignettes_qa.jsonl \
      --a /tmp/v_fp32:native:fp32 --b /tmp/v_int8:native:int8
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchutil import evidence_in  # noqa: E402

DEPTH = 20  # ranks fetched for the tie analysis (the 10th / 11th boundary and beyond)


def top(binary, store, spec, question, k):
    """[(chunk_id, score, text)] of the dense top k."""
    out = subprocess.run([binary, "search", question, "--store", store, "--embedder", spec, "--mode", "dense",
                          "-k", str(k), "--json"], capture_output=True, text=True, check=True)
    return [(r["chunk_id"], r["score"], r["text"]) for r in json.loads(out.stdout)["results"]]


def decisions(hits, evidence, n_evidence):
    """The near-tie gaps of one question in one ranking: [(gap, metric, weight)]."""
    scores = [s for _, s, _ in hits]
    ranks = []
    for quote in evidence:
        r = next((i for i, (_, _, t) in enumerate(hits) if evidence_in(t, quote)), None)
        if r is not None:
            ranks.append(r)
    out = []
    first = min(ranks) if ranks else None
    if first is not None and first < 10:
        near = [scores[first - 1] - scores[first]] if first > 0 else []
        if first + 1 < len(scores):
            near.append(scores[first] - scores[first + 1])
        if near:  # one place up or down changes 1/r
            rr = 1.0 / (first + 1)
            out.append((min(near), "mrr", max(abs(rr - 1.0 / first) if first else 0, rr - 1.0 / (first + 2))))
    for r in ranks:
        if r < 10 and len(scores) > 10:
            out.append((scores[r] - scores[10], "recall@10", 1.0 / n_evidence))
        elif 10 <= r < len(scores):
            out.append((scores[9] - scores[r], "recall@10", 1.0 / n_evidence))
    return out


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
    items = [json.loads(line) for line in open(args.qa) if line.strip()]
    overlap = same_first = 0
    errors, gaps = [], []
    answerable = 0
    for item in items:
        q = item["question"]
        a = top(args.bin, store_a, spec_a, q, max(args.k, DEPTH))
        b = top(args.bin_b or args.bin, store_b, spec_b, q, max(args.k, DEPTH))
        ak, bk = [c for c, _, _ in a[:args.k]], [c for c, _, _ in b[:args.k]]
        overlap += len(set(ak) & set(bk)) / max(1, len(ak))
        same_first += bool(ak and bk and ak[0] == bk[0])
        sb = {c: s for c, s, _ in b}
        errors += [abs(sb[c] - s) for c, s, _ in a if c in sb]
        evidence = [e["quote"] for e in item.get("evidence", [])]
        if evidence:
            answerable += 1
            gaps += decisions(a, evidence, len(evidence))
    errors.sort()
    pct = lambda p: errors[min(len(errors) - 1, int(p * len(errors)))] if errors else 0.0
    p90 = pct(0.9)
    at_risk = [(g, m, w) for g, m, w in gaps if g < p90]
    stake = {m: sum(w for _, mm, w in at_risk if mm == m) / max(1, answerable) for m in ("mrr", "recall@10")}
    res = {"qa": args.qa, "questions": len(items), "k": args.k, "a": args.a, "b": args.b,
           "top_k_overlap": overlap / len(items), "same_first": same_first,
           "score_error": {"median": pct(0.5), "p90": p90, "max": errors[-1] if errors else 0.0, "n": len(errors)},
           "deciding_gaps": len(gaps), "gaps_below_p90_error": len(at_risk),
           "at_stake": stake, "smallest_gaps": sorted(g for g, _, _ in gaps)[:5]}
    if args.json:
        print(json.dumps(res))
    else:
        print(f"{len(items)} questions: B returns {res['top_k_overlap']:.3f} of A's top {args.k}; "
              f"same first chunk {same_first} / {len(items)}")
        print(f"score error |B - A|: median {pct(0.5):.4f}, p90 {p90:.4f}, max {res['score_error']['max']:.4f}")
        print(f"{len(at_risk)} of {len(gaps)} deciding gaps in A are below B's p90 score error; at stake: "
              f"MRR {stake['mrr']:.3f}, recall@10 {stake['recall@10']:.3f}")


if __name__ == "__main__":
    sys.exit(main())
