#!/usr/bin/env python3
"""Compare hybrid fusion methods on a dev set, offline, from the single modes' candidate lists.

For every question of a QA file (JSON lines, ../shared/eval/README.md) it runs
`mmkg search --json -k 50 --mode bm25` and `--mode dense` (cached in --cache, so a second run
costs nothing), then fuses the two top-50 lists with each method below and scores recall@5,
recall@10 and MRR per question type with eval's matching rule (src/eval/eval.cc evidence_in).
The near-duplicate cut of Searcher::fuse is not simulated, so figures can differ a little from
`mmkg eval`; use --eval to print what the binary itself measures (`mmkg eval --json`) for the
fusions it knows (`--fusion NAME`).

    scripts/fusion_compare.py --bin build/mmkg --store /tmp/vig \
        --qa ../shared/eval/dev_vignettes_qa.jsonl --cache /tmp/fc-vig [--eval relative,rrf,...]
    scripts/fusion_compare.py --table before.json after.json   # per-type table of `mmkg eval --json` runs
"""
import argparse
import json
import math
import os
import subprocess
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
from benchutil import evidence_in  # noqa: E402


def search(binary, store, query, mode, extra):
    cmd = [binary, "search", query, "--json", "-k", "50", "--mode", mode, "--store", store] + extra
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    return json.loads(out)["results"]


def lists_for(args, items):
    os.makedirs(args.cache, exist_ok=True)
    out = {}
    for q in items:
        path = os.path.join(args.cache, q["id"] + ".json")
        if os.path.exists(path):
            with open(path) as f:
                out[q["id"]] = json.load(f)
            continue
        got = {m: [{"id": h["chunk_id"], "score": h["score"], "text": h["text"]}
                   for h in search(args.bin, args.store, q["question"], m, args.extra)]
               for m in ("bm25", "dense")}
        with open(path, "w") as f:
            json.dump(got, f)
        out[q["id"]] = got
    return out


# ---- fusion methods: (lex, den) lists of {"id", "score"} best first -> ids best first

def minmax(hits):
    if not hits:
        return {}
    hi = max(h["score"] for h in hits)
    lo = min(h["score"] for h in hits)
    return {h["id"]: (h["score"] - lo) / (hi - lo) if hi > lo else 1.0 for h in hits}


def zscores(hits):
    if not hits:
        return {}
    s = [h["score"] for h in hits]
    m = sum(s) / len(s)
    sd = math.sqrt(sum((x - m) ** 2 for x in s) / len(s)) or 1.0
    return {h["id"]: (h["score"] - m) / sd for h in hits}


def order(scores):
    return [i for i, _ in sorted(scores.items(), key=lambda kv: -kv[1])]


def relative(lex, den, alpha=0.5):
    f = defaultdict(float)
    for i, v in minmax(lex).items():
        f[i] += (1 - alpha) * v
    for i, v in minmax(den).items():
        f[i] += alpha * v
    return order(f)


def rrf(lex, den, k=60):
    f = defaultdict(float)
    for hits in (lex, den):
        for r, h in enumerate(hits):
            f[h["id"]] += 1 / (k + r + 1)
    return order(f)


def rank_floor(fused, lists, mult=2, add=2):
    """Keeps a hit at 0-based rank r of any list at 0-based fused position <= mult*r+add (1-based: 2r+1)."""
    best = {}
    for hits in lists:
        for r, h in enumerate(hits):
            best[h["id"]] = min(best.get(h["id"], 1e9), r)
    out = []
    rest = list(fused)
    while rest:
        pos = len(out)
        # the hit whose deadline is due now, if any, else the next fused one
        due = [i for i in rest if mult * best.get(i, 1e9) + add <= pos]
        pick = min(due, key=lambda i: best[i]) if due else rest[0]
        out.append(pick)
        rest.remove(pick)
    return out


def guarded(lex, den):
    f = defaultdict(float)
    for hits in (lex, den):
        for i, v in zscores(hits).items():
            f[i] += v
    return rank_floor(order(f), [lex, den])


def zsum(lex, den):
    f = defaultdict(float)
    for hits in (lex, den):
        for i, v in zscores(hits).items():
            f[i] += v
    return order(f)


def peak(hits, top=10):
    """How far the list's best score stands above the rest: z-score of the top hit over the list."""
    z = zscores(hits)
    return z[hits[0]["id"]] if hits else 0.0


def conf_relative(lex, den):
    """Relative fusion, each list weighted by how peaked it is (z of its top hit)."""
    wl, wd = max(peak(lex), 1e-3), max(peak(den), 1e-3)
    f = defaultdict(float)
    for i, v in minmax(lex).items():
        f[i] += wl * v
    for i, v in minmax(den).items():
        f[i] += wd * v
    return order(f)


def mnz(lex, den):
    f = defaultdict(float)
    n = defaultdict(int)
    for hits in (lex, den):
        for i, v in minmax(hits).items():
            f[i] += v
            n[i] += 1
    return order({i: f[i] * n[i] for i in f})


def relative_floor(lex, den):
    return rank_floor(relative(lex, den), [lex])


def zsum_floor_lex(lex, den):
    return rank_floor(zsum(lex, den), [lex])


def zsum_top(lex, den, top=50):
    return zsum(lex[:top], den[:top])


METHODS = {
    "bm25": lambda l, d: [h["id"] for h in l],
    "dense": lambda l, d: [h["id"] for h in d],
    "relative": relative,
    "rrf": rrf,
    "guarded": guarded,
    "zsum": zsum,
    "conf_relative": conf_relative,
    "mnz": mnz,
    "relative_floor": relative_floor,
    "zsum_floor_lex": zsum_floor_lex,
}


def score(items, lists, method):
    per = defaultdict(lambda: [0, 0.0, 0.0, 0.0])
    for q in items:
        if not q.get("evidence"):
            continue
        L = lists[q["id"]]
        text = {h["id"]: h["text"] for m in ("bm25", "dense") for h in L[m]}
        ranked = method(L["bm25"], L["dense"])[:10]
        f5 = f10 = 0
        first = 0
        for ev in q["evidence"]:
            for r, cid in enumerate(ranked):
                if evidence_in(text[cid], ev["quote"]):
                    f5 += r < 5
                    f10 += 1
                    first = r + 1 if first == 0 or r + 1 < first else first
                    break
        n = len(q["evidence"])
        for key in ("all", q["type"]):
            s = per[key]
            s[0] += 1
            s[1] += f5 / n
            s[2] += f10 / n
            s[3] += 1 / first if first else 0
    return {k: (v[0], v[1] / v[0], v[2] / v[0], v[3] / v[0]) for k, v in per.items()}


def table(rows, types):
    """One row per method: R@5 / R@10 / MRR overall and per question type."""
    cols = ["all"] + types
    print("| method | " + " | ".join(f"{t} (n={rows[0][1][t][0]})" for t in cols) + " |")
    print("|---|" + "---|" * len(cols))
    for name, sc in rows:
        cells = [f"{sc[t][1]:.3f} / {sc[t][2]:.3f} / {sc[t][3]:.3f}" for t in cols]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("(cells: recall@5 / recall@10 / MRR)")


def run_eval(args, fusions):
    for fu in fusions:
        cmd = [args.bin, "eval", args.qa, "--json", "--store", args.store, "--fusion", fu] + args.extra
        j = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
        for name, m in sorted(j["modes"].items()):
            if m.get("unavailable"):
                continue
            print(f"eval --fusion {fu}: {name:14s} R@5 {m['recall_at_k']['5']:.3f} "
                  f"R@10 {m['recall_at_k']['10']:.3f} MRR {m['mrr']:.3f}")
            for t, s in sorted(m.get("by_type", {}).items()):
                print(f"    {t:12s} R@5 {s['recall_at_k']['5']:.3f} R@10 {s['recall_at_k']['10']:.3f} MRR {s['mrr']:.3f}")


def eval_table(paths):
    """Per-type table (R@5 / R@10 / MRR) of bm25, dense, hybrid, hybrid+graph from `mmkg eval --json` files."""
    runs = [(os.path.basename(p), json.load(open(p))) for p in paths]
    types = sorted({t for _, j in runs for m in j["modes"].values() for t in m.get("by_type", {})})
    print("| run | mode | all | " + " | ".join(types) + " |")
    print("|---|---|---|" + "---|" * len(types))
    for name, j in runs:
        for mode in ("bm25", "dense", "hybrid", "hybrid+graph"):
            m = j["modes"].get(mode)
            if not m or m.get("unavailable"):
                continue
            cells = [f"{m['recall_at_k']['5']:.3f} / {m['recall_at_k']['10']:.3f} / {m['mrr']:.3f}"]
            for t in types:
                b = m["by_type"].get(t)
                cells.append(f"{b['recall_at_5']:.2f} / {b['recall_at_10']:.2f} / {b['mrr']:.2f}" if b else "")
            print(f"| {name} | {mode} | " + " | ".join(cells) + " |")
    print("(cells: recall@5 / recall@10 / MRR)")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--table":
        return eval_table(sys.argv[2:])
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default="build/mmkg")
    ap.add_argument("--store", required=True)
    ap.add_argument("--qa", required=True)
    ap.add_argument("--cache", required=True, help="directory for the cached candidate lists")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--eval", default="", help="comma-separated --fusion names to measure with `mmkg eval --json`")
    ap.add_argument("--extra", nargs="*", default=[], help="more flags for mmkg (e.g. --embedder native)")
    args = ap.parse_args()
    items = [json.loads(l) for l in open(args.qa) if l.strip()]
    lists = lists_for(args, items)
    types = sorted({q["type"] for q in items if q.get("evidence")})
    rows = [(m, score(items, lists, METHODS[m])) for m in args.methods.split(",")]
    table(rows, types)
    if args.eval:
        run_eval(args, args.eval.split(","))


if __name__ == "__main__":
    sys.exit(main())
