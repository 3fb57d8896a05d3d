#!/usr/bin/env python3
"""Fits the hybrid search's ranker (Fusion::Fitted, src/index/ranker.h) with document-grouped
cross-validation, and writes the model file the C++ code reads (models/ranker.json).

    scripts/train_ranker.py --out models/ranker.json \\
        --qa dev=../shared/eval/dev_qa.jsonl dev=FEATURES.jsonl ...

Inputs: for each dev set, its QA file (--qa SET=FILE) and the feature rows `mmkg eval --fusion
fitted --features FILE` wrote for it (SET=FILE): per question, its hybrid pool (up to 50 BM25 and
50 dense candidates), each candidate's features and which evidence quotes it holds.

Method (no constant chosen by looking at dev questions):
  * label: a candidate holds one of the question's evidence quotes (the eval's matching rule);
  * model: L2-regularised logistic regression on standardised features (scikit-learn, lbfgs,
    C=1; the solver's default, not tuned), pointwise over all candidates of all questions;
  * features: backward elimination, a feature dropped while dropping it does not lower the
    cross-validated R@10 + MRR of the pool's ranking (computed inside each outer training fold,
    so the reported figure is nested and honest);
  * groups: documents. Questions are linked to their evidence documents and documents that share
    a question are merged (union-find), so that no document is in both the fold a model is fitted
    on and the fold it is scored on; GroupKFold (deterministic) makes K folds of those groups.
    Unanswerable questions have no evidence document and are not training rows; each is given
    to a fold by a hash of its id, so `mmkg eval --cv` scores its answer with a model
    that did not see it either.

Output: the full model (fitted on every question), one model per fold with the question ids it
held out, each feature's weight, and the cross-validated and in-sample figures of the pool's
ranking (the end-to-end figures come from `mmkg eval --cv`, docs/EVAL.md). Retraining on
the same inputs writes the same file byte for byte.
"""
import argparse
import hashlib
import json
import sys

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold

FORMAT_VERSION = 1


def parse_pairs(values, what):
    out = []
    for v in values:
        if "=" not in v:
            sys.exit(f"train_ranker: {what} '{v}' is not SET=FILE")
        out.append(tuple(v.split("=", 1)))
    return out


class Question:
    def __init__(self, rec, set_name, names):
        self.id = rec["id"]
        self.set = set_name
        self.type = rec["type"]
        self.n_evidence = rec["evidence"]
        self.docs = sorted({f"{set_name}/{d}" for d in rec["evidence_docs"]})
        if rec["features"] != names:
            sys.exit(f"train_ranker: {self.id}: feature names differ between files; re-run mmkg eval --features")
        c = rec["candidates"]
        self.x = np.array([r["x"] for r in c], dtype=float).reshape(len(c), len(names))
        self.holds = [set(r["evidence"]) for r in c]
        self.y = np.array([1 if h else 0 for h in self.holds])


def load(feature_pairs):
    qs, names = [], None
    for set_name, path in feature_pairs:
        with open(path) as f:
            for line in f:
                if not line.strip():
                    continue
                rec = json.loads(line)
                names = names or rec["features"]
                qs.append(Question(rec, set_name, names))
    return qs, names


def groups_of(qs):
    """Union-find over documents; each question's group is its documents' component."""
    parent = {}

    def find(d):
        parent.setdefault(d, d)
        while parent[d] != d:
            parent[d] = parent[parent[d]]
            d = parent[d]
        return d

    for q in qs:
        for d in q.docs[1:]:
            parent[find(d)] = find(q.docs[0])
        find(q.docs[0])
    comps = sorted({find(d) for d in parent})
    index = {c: i for i, c in enumerate(comps)}
    return np.array([index[find(q.docs[0])] for q in qs]), comps


def fit(qs, cols):
    x = np.vstack([q.x[:, cols] for q in qs])
    y = np.concatenate([q.y for q in qs])
    mean, sd = x.mean(axis=0), x.std(axis=0)
    sd[sd < 1e-12] = 1.0
    lr = LogisticRegression(C=1.0, max_iter=5000)
    lr.fit((x - mean) / sd, y)
    w = lr.coef_[0] / sd
    b = float(lr.intercept_[0] - np.sum(lr.coef_[0] * mean / sd))
    return w, b


def ranking_metrics(qs, cols, w, b, k=10):
    """Mean recall@k and MRR of the pools ranked by the model (ties: pool order)."""
    rec, mrr = [], []
    for q in qs:
        s = q.x[:, cols] @ w + b
        order = np.argsort(-s, kind="stable")
        found, first = set(), 0
        for r, i in enumerate(order):
            if q.holds[i]:
                if r < k:
                    found |= q.holds[i]
                if not first:
                    first = r + 1
        rec.append(len(found) / max(1, q.n_evidence))
        mrr.append(1.0 / first if first else 0.0)
    return float(np.mean(rec)), float(np.mean(mrr))


def cv_score(qs, groups, cols, k):
    """Pooled cross-validated recall@10 and MRR (each question scored by a model without its group)."""
    scored = [None] * len(qs)
    for train, test in GroupKFold(n_splits=k).split(np.zeros(len(qs)), groups=groups):
        w, b = fit([qs[i] for i in train], cols)
        for i in test:
            scored[i] = ranking_metrics([qs[i]], cols, w, b)
    r = float(np.mean([s[0] for s in scored]))
    m = float(np.mean([s[1] for s in scored]))
    return r, m


def select(qs, groups, cols, k):
    """Backward elimination by inner cross-validated R@10 + MRR."""
    cols = list(cols)
    best = sum(cv_score(qs, groups, cols, k))
    improved = True
    while improved and len(cols) > 1:
        improved = False
        trials = []
        for c in cols:
            rest = [x for x in cols if x != c]
            trials.append((sum(cv_score(qs, groups, rest, k)), -c, rest))
        score, _, rest = max(trials)
        if score >= best - 1e-12:
            best, cols, improved = score, rest, True
    return cols


def weights_json(cols, w, b, n):
    full = [0.0] * n
    for c, v in zip(cols, w):
        full[c] = round(float(v), 6)
    return {"bias": round(b, 6), "weights": full}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("features", nargs="+", help="SET=FILE: a dev set's `mmkg eval --features` output")
    ap.add_argument("--qa", action="append", default=[], help="SET=FILE: the set's QA file (for unanswerable ids)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--folds", type=int, default=5, help="outer folds (document groups), default 5")
    ap.add_argument("--all-features", action="store_true", help="no feature selection")
    a = ap.parse_args()

    qs, names = load(parse_pairs(a.features, "features"))
    groups, comps = groups_of(qs)
    k = min(a.folds, len(comps))
    all_cols = list(range(len(names)))
    inner_k = max(2, k - 1)

    # Outer folds: selection and fit on the training groups only; the held-out questions scored.
    folds, per_q = [], {}
    for f, (train, test) in enumerate(GroupKFold(n_splits=k).split(np.zeros(len(qs)), groups=groups)):
        tr = [qs[i] for i in train]
        tr_groups = groups[train]
        cols = all_cols if a.all_features else select(tr, tr_groups, all_cols, min(inner_k, len(set(tr_groups))))
        w, b = fit(tr, cols)
        model = weights_json(cols, w, b, len(names))
        model["questions"] = sorted(qs[i].id for i in test)
        model["docs"] = sorted({d for i in test for d in qs[i].docs})
        folds.append(model)
        for i in test:
            per_q[qs[i].id] = ranking_metrics([qs[i]], cols, w, b)
        print(f"fold {f + 1}: {len(test)} questions, {len(model['docs'])} documents, features "
              f"{', '.join(names[c] for c in cols)}", file=sys.stderr)

    # Unanswerable questions: a fold each, by a hash of the id.
    for set_name, path in parse_pairs(a.qa, "qa"):
        with open(path) as fh:
            for line in fh:
                if not line.strip():
                    continue
                rec = json.loads(line)
                if rec.get("evidence"):
                    continue
                h = int(hashlib.sha256(rec["id"].encode()).hexdigest(), 16) % k
                folds[h]["questions"].append(rec["id"])
    for fm in folds:
        fm["questions"] = sorted(set(fm["questions"]))

    # The full model: selection and fit on every question.
    cols = all_cols if a.all_features else select(qs, groups, all_cols, k)
    w, b = fit(qs, cols)
    in_sample = {}
    for s in sorted({q.set for q in qs}) + ["pooled"]:
        sub = [q for q in qs if s in ("pooled", q.set)]
        r_in, m_in = ranking_metrics(sub, cols, w, b)
        r_cv = float(np.mean([per_q[q.id][0] for q in sub]))
        m_cv = float(np.mean([per_q[q.id][1] for q in sub]))
        zs = [names.index(n) for n in ("bm25_z", "dense_z", "prox_z")]
        r_z, m_z = ranking_metrics(sub, zs, np.ones(3), 0.0)
        in_sample[s] = {"questions": len(sub), "cv_recall_at_10": round(r_cv, 4), "cv_mrr": round(m_cv, 4),
                        "in_sample_recall_at_10": round(r_in, 4), "in_sample_mrr": round(m_in, 4),
                        "zsum_recall_at_10": round(r_z, 4), "zsum_mrr": round(m_z, 4)}
    out = {
        "format": "mmkg-ranker",
        "version": FORMAT_VERSION,
        "features": names,
        "model": weights_json(cols, w, b, len(names)),
        "selected": [names[c] for c in cols],
        "folds": folds,
        "trained": {
            "method": "logistic regression (scikit-learn lbfgs, C=1, standardised features), backward "
                      "feature elimination by nested document-grouped CV (R@10 + MRR of the pool)",
            "groups": len(comps),
            "outer_folds": k,
            "pool_figures": in_sample,
        },
    }
    with open(a.out, "w") as fh:
        json.dump(out, fh, indent=1, sort_keys=False)
        fh.write("\n")
    for s, v in in_sample.items():
        print(f"{s:10s} n={v['questions']:3d}  CV R@10 {v['cv_recall_at_10']:.3f} MRR {v['cv_mrr']:.3f}  "
              f"in-sample R@10 {v['in_sample_recall_at_10']:.3f} MRR {v['in_sample_mrr']:.3f}  "
              f"(z-sum R@10 {v['zsum_recall_at_10']:.3f} MRR {v['zsum_mrr']:.3f})", file=sys.stderr)
    print("selected: " + ", ".join(names[c] for c in cols), file=sys.stderr)


if __name__ == "__main__":
    main()
