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
  * folds: document-grouped (scripts/fitting.py, assign_folds); unanswerable questions are not
    training rows here, and their fold comes from a hash of the id, so that `mmkg eval --cv`
    scores their answers with a model that did not see them either.

Output: the full model (fitted on every question), one model per fold with the question ids it
held out, each feature's weight, and the cross-validated and in-sample figures of the pool's
ranking (the end-to-end figures come from `mmkg eval --cv`, docs/EVAL.md). Retraining on
the same inputs writes the same file byte for byte.
"""
import argparse
import sys

import numpy as np
from sklearn.model_selection import GroupKFold

from fitting import (add_common_args, assign_folds, backward_eliminate, doc_groups, fit_logistic, model_file,
    parse_pairs, qa_items, read_jsonl, weights_json, write_model)


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
        for rec in read_jsonl(path):
            if rec.get("kind", "ranker") != "ranker":
                continue
            names = names or rec["features"]
            qs.append(Question(rec, set_name, names))
    return qs, names


def groups_of(qs):
    return doc_groups([q.docs for q in qs])


def fit(qs, cols):
    return fit_logistic(np.vstack([q.x[:, cols] for q in qs]), np.concatenate([q.y for q in qs]))


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
    return backward_eliminate(cols, lambda c: sum(cv_score(qs, groups, c, k)))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(ap, "mmkg eval --fusion fitted --features")
    a = ap.parse_args()

    qs, names = load(parse_pairs(a.features, "features"))
    groups, n_groups = groups_of(qs)
    fold_of, k = assign_folds(qa_items(parse_pairs(a.qa, "qa")), a.folds)
    missing = [q.id for q in qs if q.id not in fold_of]
    if missing:
        sys.exit(f"train_ranker: {missing[0]} has features but no QA record; pass every set's --qa")
    all_cols = list(range(len(names)))
    inner_k = max(2, k - 1)

    # Outer folds: selection and fit on the training groups only; the held-out questions scored.
    folds, per_q = [], {}
    for f in range(k):
        train = [i for i, q in enumerate(qs) if fold_of[q.id] != f]
        test = [i for i, q in enumerate(qs) if fold_of[q.id] == f]
        tr = [qs[i] for i in train]
        tr_groups = groups[train]
        cols = all_cols if a.all_features else select(tr, tr_groups, all_cols, min(inner_k, len(set(tr_groups))))
        w, b = fit(tr, cols)
        model = weights_json(cols, w, b, len(names))
        model["questions"] = sorted(qid for qid, fo in fold_of.items() if fo == f)
        model["docs"] = sorted({d for i in test for d in qs[i].docs})
        folds.append(model)
        for i in test:
            per_q[qs[i].id] = ranking_metrics([qs[i]], cols, w, b)
        print(f"fold {f + 1}: {len(test)} questions, {len(model['docs'])} documents, features "
              f"{', '.join(names[c] for c in cols)}", file=sys.stderr)

    # The full model: selection and fit on every question.
    cols = all_cols if a.all_features else select(qs, groups, all_cols, min(k, n_groups))
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
    out = model_file("ranker", names, cols, weights_json(cols, w, b, len(names)), folds, {
        "method": "logistic regression (scikit-learn lbfgs, C=1, standardised features), backward "
                  "feature elimination by nested document-grouped CV (R@10 + MRR of the pool)",
        "groups": n_groups,
        "outer_folds": k,
        "pool_figures": in_sample,
    })
    write_model(a.out, out)
    for s, v in in_sample.items():
        print(f"{s:10s} n={v['questions']:3d}  CV R@10 {v['cv_recall_at_10']:.3f} MRR {v['cv_mrr']:.3f}  "
              f"in-sample R@10 {v['in_sample_recall_at_10']:.3f} MRR {v['in_sample_mrr']:.3f}  "
              f"(z-sum R@10 {v['zsum_recall_at_10']:.3f} MRR {v['zsum_mrr']:.3f})", file=sys.stderr)
    print("selected: " + ", ".join(names[c] for c in cols), file=sys.stderr)


if __name__ == "__main__":
    main()
