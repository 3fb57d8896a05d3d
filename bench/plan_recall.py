#!/usr/bin/env python3
"""Do a planner's sub-queries find the evidence? For each question of QA.jsonl and each report of
bench/llm_fallbacks.py given (its "plans": every question's first plan), every sub-query is
searched on STORE (one `mmkg serve --llm none`, GET /api/search, k hits each) and the plan scores
the share of the question's evidence passages found: an evidence quote counts as found when a
hit of any sub-query is from its document and holds the quote's first 50 characters (case and
spacing aside). Prints one JSON object: per report, the mean evidence recall, the questions whose
plan came from the model, and the same recall on just those questions for every report (the plans
compared question by question).

    python3 bench/plan_recall.py QA.jsonl --store STORE REPORT.json [REPORT.json ...] [--k 5]
"""
import argparse
import json
import re
import subprocess
import sys
import urllib.parse
import urllib.request


def norm(t):
    return " ".join(str(t).lower().split())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("qa")
    ap.add_argument("reports", nargs="+")
    ap.add_argument("--store", required=True)
    ap.add_argument("--mmkg", default="build/mmkg")
    ap.add_argument("--k", type=int, default=5)
    a = ap.parse_args()
    gold = {}
    for line in open(a.qa):
        if line.strip():
            it = json.loads(line)
            gold[it["id"]] = [(e["doc"], norm(e["quote"])[:50]) for e in it.get("evidence", []) if e.get("quote")]
    reports = {r: {p["id"]: p for p in json.load(open(r))["plans"]} for r in a.reports}
    proc = subprocess.Popen([a.mmkg, "serve", "--store", a.store, "--llm", "none", "--port", "0", "--quiet"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    cache = {}
    try:
        url = re.search(r"http://[\d.:]+", proc.stdout.readline()).group(0)

        def hits_of(q):
            if q not in cache:
                qs = urllib.parse.urlencode({"q": q, "k": a.k})
                with urllib.request.urlopen(f"{url}/api/search?{qs}", timeout=120) as r:
                    cache[q] = [(h["doc"], norm(h["text"])) for h in json.load(r)["results"]]
            return cache[q]

        def recall(plan, qid):
            hits = [h for q in plan["subqueries"] if not q.endswith(" is ...") for h in hits_of(q)]
            found = sum(any(d == doc and quote in text for d, text in hits) for doc, quote in gold[qid])
            return found / len(gold[qid])

        ids = [q for q in gold if gold[q] and all(q in r for r in reports.values())]
        by_model = {r: [q for q in ids if p[q]["planner"] == "llm"] for r, p in reports.items()}
        out = {"qa": a.qa, "k": a.k, "questions": len(ids), "reports": {}}
        for r, plans in reports.items():
            rec = {q: recall(plans[q], q) for q in ids}
            row = {"evidence_recall": round(sum(rec.values()) / len(ids), 4), "model_plans": len(by_model[r]),
                   "subqueries_per_plan": round(sum(len(plans[q]["subqueries"]) for q in ids) / len(ids), 2)}
            for other, qs in by_model.items():
                if qs:
                    row["recall_on_model_planned_of:" + other] = round(sum(rec[q] for q in qs) / len(qs), 4)
            out["reports"][r] = row
        print(json.dumps(out, indent=1))
    finally:
        proc.terminate()
        proc.wait(60)


if __name__ == "__main__":
    sys.exit(main())
