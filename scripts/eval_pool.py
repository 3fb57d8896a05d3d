"""Pools `mmkg eval --json` reports of several dev sets into one JSON file and prints a table.

    python3 scripts/eval_pool.py --out OUT.json NAME=REPORT.json [NAME=REPORT.json ...]

Per set and pooled over all sets' questions (each question counts once, whatever its set):
per mode, recall@5, recall@10 and MRR over the answerable questions (from the reports' items), overall and
per question type; with answers, accuracy overall and per type (and per subtype where the QA
file gives one), unanswerable questions answered as such, answerable questions refused, the direct
answers' exact match and token F1 against the gold answers (QA files with an "answer"), and citation precision (cited passages holding an evidence
quote over all passages cited in answers to answerable questions, from the items' counts).
The output keeps every set's whole report under "sets" so nothing is lost.
"""
import argparse
import datetime
import json
import sys
from collections import defaultdict


def mean(xs):
    xs = list(xs)
    return sum(xs) / len(xs) if xs else None


def mode_names(items):
    names = set()
    for it in items:
        for k in it:
            if k.startswith("recall_at_10_"):
                names.add(k[len("recall_at_10_"):])
    return sorted(names)


def retrieval(items):
    """Per mode: recall@10 and MRR over answerable items, overall and per type."""
    ans = [it for it in items if it.get("type") != "unanswerable"]
    out = {}
    for m in mode_names(items):
        scored = [it for it in ans if ("recall_at_10_" + m) in it]
        if not scored:
            continue

        def block(xs):
            return {"questions": len(xs),
                    "recall_at_5": mean(it["recall_at_5_" + m] for it in xs if ("recall_at_5_" + m) in it),
                    "recall_at_10": mean(it["recall_at_10_" + m] for it in xs),
                    "mrr": mean(1.0 / it["first_rank_" + m] if it.get("first_rank_" + m) else 0.0 for it in xs)}
        by_type = defaultdict(list)
        for it in scored:
            by_type[it["type"]].append(it)
        out[m] = dict(block(scored), by_type={t: block(xs) for t, xs in sorted(by_type.items())})
    return out


def answers(items):
    with_answer = [it for it in items if "answer_correct" in it]
    if not with_answer:
        return None
    by_type = defaultdict(list)
    for it in with_answer:
        by_type[it["type"]].append(it)
    unans = by_type.get("unanswerable", [])
    answerable = [it for it in with_answer if it["type"] != "unanswerable"]
    refused = sum(1 for it in answerable if not it["found"])
    cited = sum(it["citations"] for it in answerable)
    gold = [it for it in with_answer if "direct_em" in it]
    by_sub = defaultdict(list)
    for it in with_answer:
        if it.get("subtype"):
            by_sub[it["subtype"]].append(it)
    direct = None
    if gold:
        direct = {"questions": len(gold),
                  "exact_match": mean(it["direct_em"] for it in gold),
                  "f1": mean(it["direct_f1"] for it in gold),
                  "answered": mean(1.0 if it.get("direct") else 0.0 for it in gold)}
    return {
        "questions": len(with_answer),
        "direct": direct,
        "by_subtype": {t: {"questions": len(xs), "correct": sum(1 for it in xs if it["answer_correct"]),
                           "direct_em": mean(it.get("direct_em", 0.0) for it in xs)}
                       for t, xs in sorted(by_sub.items())},
        "accuracy": mean(1.0 if it["answer_correct"] else 0.0 for it in with_answer),
        "by_type": {t: {"questions": len(xs), "correct": sum(1 for it in xs if it["answer_correct"])}
                    for t, xs in sorted(by_type.items())},
        "unanswerable_detected": sum(1 for it in unans if it["answer_correct"]),
        "unanswerable": len(unans),
        "answerable_refused": refused,
        "answerable": len(answerable),
        "citation_precision": sum(it["citations_with_evidence"] for it in answerable) / cited if cited else None,
    }


def summary(items):
    return {"questions": len(items), "retrieval": retrieval(items), "answers": answers(items)}


def fmt(x, spec=".3f"):
    return "-" if x is None else format(x, spec)


def print_table(result, out=sys.stdout):
    rows = list(result["sets"].items()) + [("pooled", {"summary": result["pooled"]})]
    # "search": `mmkg search`'s default ranking (hybrid with the graph's passages: hybrid+ppr).
    print(f"{'set':<10} {'Qs':>4} {'hyb R@10':>8} {'hyb MRR':>7} {'srch R@5':>8} {'acc':>6} {'multi-hop':>9} "
          f"{'unans':>7} {'refused':>7} {'cit.prec':>8} {'dir EM':>6} {'dir F1':>6}", file=out)
    for name, s in rows:
        sm = s["summary"]
        r = sm["retrieval"].get("hybrid") or {}
        srch = sm["retrieval"].get("hybrid+ppr") or r
        a = sm["answers"] or {}
        mh = (a.get("by_type") or {}).get("multi_hop")
        print(f"{name:<10} {sm['questions']:>4} {fmt(r.get('recall_at_10')):>8} {fmt(r.get('mrr')):>7} "
              f"{fmt(srch.get('recall_at_5')):>8} "
              f"{fmt(a.get('accuracy')):>6} "
              f"{(str(mh['correct']) + '/' + str(mh['questions'])) if mh else '-':>9} "
              f"{(str(a['unanswerable_detected']) + '/' + str(a['unanswerable'])) if a else '-':>7} "
              f"{(str(a['answerable_refused']) + '/' + str(a['answerable'])) if a else '-':>7} "
              f"{fmt(a.get('citation_precision')):>8} "
              f"{fmt((a.get('direct') or {}).get('exact_match')):>6} {fmt((a.get('direct') or {}).get('f1')):>6}",
              file=out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("reports", nargs="+", help="NAME=REPORT.json")
    a = ap.parse_args(argv)
    sets = {}
    all_items = []
    for arg in a.reports:
        name, _, path = arg.partition("=")
        if not path:
            ap.error(f"expected NAME=REPORT.json, got {arg!r}")
        with open(path) as f:
            rep = json.load(f)
        items = rep.get("items", [])
        sets[name] = {"report": rep, "summary": summary(items)}
        all_items += items
    result = {
        "generated": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "sets": sets,
        "pooled": summary(all_items),
    }
    with open(a.out, "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
    print_table(result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
