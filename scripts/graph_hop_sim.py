#!/usr/bin/env python3
"""Simulate the graph's bridge-entity hop offline (bench/results/history/EVAL-journal-to-20261128.md, "Graph: multi-hop and broad
questions (issue 13, session 2)").

For each question of a QA file: hybrid's top 50 (`mmkg search --json -k 50`, cached), the hop list
of graph/algo/bridge.cc recomputed from `mmkg graph export` (seeds = hybrid's first SEEDS chunks,
default all 10; entities shared with chunks of other documents, scored by log(C / df)), and the
context of 10 the slot rule would give (up to 2 slots after hybrid's 8). Prints the questions whose recall@10 or
first-evidence rank changes and recall@10 / MRR per type, hybrid -> with the hop.

  scripts/graph_hop_sim.py --bin build/mmkg --store S --qa QA [--seeds 10] [--rule head|deep1|deep2]
                           [--only ID,ID,...] [--same-document] [--cache DIR]

The hop is simulated for every question (retrieval gives it only to questions of two parts,
text/question_shape.h; --only limits it to the listed question ids).

--rule head: the hop list's first chunk, if hybrid found it at ranks 11-20 (what retrieval does);
deep1/deep2: the best 1 or 2 hop-scored chunks among hybrid's ranks 11-20.
"""
import argparse
import collections
import json
import math
import os
import re
import subprocess



def norm(s):
    return re.sub(r"\s+", " ", s).strip().lower()


def holds(text, quote):
    t, q = norm(text), norm(quote)
    return q in t or q[:60] in t or q[-60:] in t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--store", required=True)
    ap.add_argument("--qa", required=True)
    ap.add_argument("--seeds", type=int, default=10, help="hybrid chunks the hop starts from (retrieval: all within the cut, 10)")
    ap.add_argument("--rule", choices=["head", "deep1", "deep2"], default="head")
    ap.add_argument("--only", default="", help="comma-separated question ids that get the hop (default: all)")
    ap.add_argument("--same-document", action="store_true", help="count entities shared within a seed's document")
    ap.add_argument("--cache", default=None)
    a = ap.parse_args()
    graph = subprocess.run([a.bin, "graph", "export", "--store", a.store], capture_output=True, text=True,
                           check=True).stdout
    mentions = collections.defaultdict(dict)  # chunk -> entity -> doc
    df = collections.Counter()
    for line in graph.splitlines():
        o = json.loads(line)
        if o["kind"] == "entity":
            for m in o["mentions"]:
                mentions[m["chunk_id"]][o["id"]] = m["doc_id"]
                df[o["id"]] += 1
    by_entity = collections.defaultdict(list)
    for c, es in mentions.items():
        for e, d in es.items():
            by_entity[e].append((c, d))
    n_chunks = len(mentions)
    totals = collections.defaultdict(lambda: [0, 0.0, 0.0, 0.0, 0.0])
    for line in open(a.qa):
        q = json.loads(line)
        if not q["evidence"]:
            continue
        cache = os.path.join(a.cache, q["id"] + ".json") if a.cache else None
        if cache and os.path.exists(cache):
            hits = json.load(open(cache))
        else:
            out = subprocess.run([a.bin, "search", q["question"], "--store", a.store, "--json", "-k", "50"],
                                 capture_output=True, text=True, check=True).stdout
            hits = [{"id": h["chunk_id"], "text": h["text"]} for h in json.loads(out)["results"]]
            if cache:
                os.makedirs(a.cache, exist_ok=True)
                json.dump(hits, open(cache, "w"))
        ids = [h["id"] for h in hits]
        text = {h["id"]: h["text"] for h in hits}
        hop = []
        if not a.only or q["id"] in a.only.split(","):
            seeds = ids[: a.seeds]
            seed_docs = collections.defaultdict(set)
            for c in seeds:
                for e, d in mentions.get(c, {}).items():
                    seed_docs[e].add(d)
            score = collections.Counter()
            for e, docs in seed_docs.items():
                for c, d in by_entity[e]:
                    if c in seeds or (d in docs and not a.same_document):
                        continue
                    score[c] += math.log(n_chunks / df[e])
            hop = [c for c, s in score.most_common() if s > 0]
        deep = ids[10:20]
        if a.rule == "head":
            slots = [c for c in hop[:1] if c in deep]
        else:
            slots = [c for c in hop if c in deep][: 1 if a.rule == "deep1" else 2]
        context = ids[:8] + slots + ids[8: 10 - len(slots)]

        def score_of(lst):
            found = [any(holds(text[c], e["quote"]) for c in lst[:10]) for e in q["evidence"]]
            first = [i + 1 for i, c in enumerate(lst[:10]) if any(holds(text[c], e["quote"]) for e in q["evidence"])]
            return sum(found) / len(found), 1.0 / first[0] if first else 0.0

        before, after = score_of(ids), score_of(context)
        t = totals[q["type"]]
        t[0] += 1
        t[1] += before[0]
        t[2] += after[0]
        t[3] += before[1]
        t[4] += after[1]
        if before != after:
            print(q["id"], q["type"], "recall@10 / RR", before, "->", after,
                  "slots at hybrid ranks", [ids.index(c) + 1 for c in slots])
    for ty, (n, r0, r1, m0, m1) in sorted(totals.items()):
        print(f"{ty:10} n={n:2}  R@10 {r0 / n:.3f} -> {r1 / n:.3f}  MRR {m0 / n:.3f} -> {m1 / n:.3f}")


if __name__ == "__main__":
    main()
