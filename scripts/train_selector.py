#!/usr/bin/env python3
"""Fits the extractive answer's sentence selector (src/agents/sentence_select.h) with
document-grouped cross-validation, and writes the model file the C++ code reads (--selector FILE).

    scripts/train_selector.py --out models/selector.json \\
        --qa dev=../shared/eval/dev_qa.jsonl dev=FEATURES.jsonl ...

Inputs: for each dev set, its QA file (--qa SET=FILE) and the rows `mmkg eval --answers --llm
none --features FILE` wrote for it (SET=FILE): per answerable question, every candidate sentence
of the context, once per part of the question, with its selection features, whether it holds one
of the question's answer keywords and whether its passage holds an evidence quote.

Method (no constant chosen by looking at dev questions):
  * label: the sentence holds an answer keyword and its passage an evidence quote (a sentence
    that answers and whose citation is evidence);
  * model: L2-regularised logistic regression on standardised features (scikit-learn, lbfgs,
    C=1, not tuned), pointwise over all candidate sentences of all questions;
  * the measure: a question is answered when, for some part, the sentence scored best for that
    part is a positive one (the synthesizer writes each part's best sentence);
  * features: backward elimination by that measure, cross-validated inside each outer training
    fold (nested; the reported figure is honest);
  * folds: document-grouped, the same as the other trainers' (scripts/fitting.py).

Output: the full model, one model per fold with the question ids it held out, each feature's
weight, and the cross-validated and in-sample measure beside the hand-set score's (the feature
"hand"). The end-to-end figures come from `mmkg eval --answers --selector FILE --cv`.
Retraining on the same inputs writes the same file byte for byte.
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
        self.docs = sorted({f"{set_name}/{d}" for d in rec["evidence_docs"]})
        if rec["features"] != names:
            sys.exit(f"train_selector: {self.id}: feature names differ between files; re-run mmkg eval --features")
        c = rec["candidates"]
        self.x = np.array([r["x"] for r in c], dtype=float).reshape(len(c), len(names))
        self.part = np.array([r["part"] for r in c], dtype=int)
        self.y = np.array([1 if r["keyword"] and r["evidence"] else 0 for r in c])


def load(pairs):
    qs, names = [], None
    for set_name, path in pairs:
        for rec in read_jsonl(path):
            if rec.get("kind") != "selector":
                continue
            names = names or rec["features"]
            qs.append(Question(rec, set_name, names))
    if not qs:
        sys.exit("train_selector: no selector rows; write them with mmkg eval --answers --llm none --features FILE")
    return qs, names


def fit(qs, cols):
    return fit_logistic(np.vstack([q.x[:, cols] for q in qs]), np.concatenate([q.y for q in qs]))


def answered(q, s):
    """1 when some part's best sentence (by score s; ties: the first) is a positive one."""
    for p in np.unique(q.part):
        rows = np.flatnonzero(q.part == p)
        if q.y[rows[int(np.argmax(s[rows]))]]:
            return 1.0
    return 0.0


def measure(qs, cols, w, b):
    return float(np.mean([answered(q, q.x[:, cols] @ w + b) for q in qs])) if qs else 0.0


def cv_measure(qs, groups, cols, k):
    hits = []
    for train, test in GroupKFold(n_splits=k).split(np.zeros(len(qs)), groups=groups):
        w, b = fit([qs[i] for i in train], cols)
        hits += [answered(qs[i], qs[i].x[:, cols] @ w + b) for i in test]
    return float(np.mean(hits))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(ap, "mmkg eval --answers --llm none --features")
    a = ap.parse_args()

    qs, names = load(parse_pairs(a.features, "features"))
    groups, n_groups = doc_groups([q.docs for q in qs])
    fold_of, k = assign_folds(qa_items(parse_pairs(a.qa, "qa")), a.folds)
    missing = [q.id for q in qs if q.id not in fold_of]
    if missing:
        sys.exit(f"train_selector: {missing[0]} has features but no QA record; pass every set's --qa")
    all_cols = list(range(len(names)))
    hand = names.index("hand")
    inner_k = max(2, k - 1)

    def select(sub, sub_groups, kk):
        return backward_eliminate(all_cols, lambda c: cv_measure(sub, sub_groups, c, kk))

    folds, per_q = [], {}
    for f in range(k):
        train = [i for i, q in enumerate(qs) if fold_of[q.id] != f]
        test = [i for i, q in enumerate(qs) if fold_of[q.id] == f]
        tr = [qs[i] for i in train]
        cols = all_cols if a.all_features else select(tr, groups[train], min(inner_k, len(set(groups[train]))))
        w, b = fit(tr, cols)
        model = weights_json(cols, w, b, len(names))
        model["questions"] = sorted(qid for qid, fo in fold_of.items() if fo == f)
        model["docs"] = sorted({d for i in test for d in qs[i].docs})
        folds.append(model)
        for i in test:
            per_q[qs[i].id] = answered(qs[i], qs[i].x[:, cols] @ w + b)
        print(f"fold {f + 1}: {len(test)} questions, features {', '.join(names[c] for c in cols)}", file=sys.stderr)

    cols = all_cols if a.all_features else select(qs, groups, min(k, n_groups))
    w, b = fit(qs, cols)
    figures = {}
    for s in sorted({q.set for q in qs}) + ["pooled"]:
        sub = [q for q in qs if s in ("pooled", q.set)]
        figures[s] = {"questions": len(sub),
                      "cv_answered": round(float(np.mean([per_q[q.id] for q in sub])), 4),
                      "in_sample_answered": round(measure(sub, cols, w, b), 4),
                      "hand_answered": round(float(np.mean([answered(q, q.x[:, hand]) for q in sub])), 4),
                      "any_positive": round(float(np.mean([1.0 if q.y.any() else 0.0 for q in sub])), 4)}
    out = model_file("selector", names, cols, weights_json(cols, w, b, len(names)), folds, {
        "method": "logistic regression (scikit-learn lbfgs, C=1, standardised features), backward "
                  "feature elimination by nested document-grouped CV (questions whose best sentence "
                  "for some part holds an answer keyword in an evidence passage)",
        "groups": n_groups,
        "outer_folds": k,
        "figures": figures,
    })
    write_model(a.out, out)
    for s, v in figures.items():
        print(f"{s:10s} n={v['questions']:3d}  CV {v['cv_answered']:.3f}  in-sample {v['in_sample_answered']:.3f}  "
              f"hand {v['hand_answered']:.3f}  (a positive sentence in the context: {v['any_positive']:.3f})",
              file=sys.stderr)
    print("selected: " + ", ".join(names[c] for c in cols), file=sys.stderr)


if __name__ == "__main__":
    main()
