#!/usr/bin/env python3
"""Fits the answerability model of extractive answers (src/agents/answerable.h): does the
evidence answer the question, or should the answer say the documents do not? Writes the model
file the C++ code reads (models/answerable.json).

    scripts/train_answerable.py --out models/answerable.json \\
        dev=FEATURES.jsonl ... --qa dev=../shared/eval/dev_qa.jsonl ...

Inputs: the rows `mmkg eval --answers --features FILE` wrote for each dev set ("kind":
"answerable": each answer's features, and whether the question has evidence), and the sets' QA
files (for the folds).

Method (no constant chosen by looking at dev questions):
  * label: the question is answerable (it has evidence) or not (type unanswerable); and, made
    from the dev documents themselves, every answerable question asked again with its evidence
    passages left out of retrieval ("without_evidence" rows): the subject is still there, the
    answer is not, the hard kind of unanswerable question. They are training rows only (in their
    question's fold); the figures count the real questions;
  * model: L2 logistic regression on standardised features, classes balanced (scikit-learn,
    lbfgs, C=1);
  * the cut: the score below which an answer says the documents do not say, placed so that at
    most --max-refused (5%, the product's bound) of the answerable training questions fall below
    it;
  * features: backward elimination, a feature dropped while dropping it does not lower the
    cross-validated ROC AUC, inside each outer training fold (nested, so the reported figure is
    honest);
  * folds: document-grouped (scripts/fitting.py), the same folds as scripts/train_ranker.py.

Output: the full model and one model per fold (with its cut and held-out questions), and the
cross-validated and in-sample figures: unanswerable questions refused, answerable ones refused.
"""
import argparse
import sys

import numpy as np
from sklearn.metrics import roc_auc_score

from fitting import (add_common_args, assign_folds, backward_eliminate, fit_logistic, model_file,
    parse_pairs, qa_items, read_jsonl, weights_json, write_model)


def load(feature_pairs):
    rows, names = [], None
    for set_name, path in feature_pairs:
        for rec in read_jsonl(path):
            if rec.get("kind") != "answerable":
                continue
            if names and rec["features"] != names:
                sys.exit(f"train_answerable: {rec['id']}: feature names differ between files; re-run mmkg eval")
            names = rec["features"]
            rows.append({"id": rec["id"], "set": set_name, "type": rec["type"], "y": 1 if rec["answerable"] else 0,
                         "x": rec["x"], "synthetic": bool(rec.get("without_evidence"))})
    if not rows:
        sys.exit("train_answerable: no answerability rows; write them with mmkg eval --answers --features FILE")
    return rows, names


def cut_for(scores_answerable, max_refused):
    """The highest cut that refuses at most max_refused of these answerable scores."""
    s = np.sort(np.asarray(scores_answerable))
    allowed = int(np.floor(max_refused * len(s)))
    return float(s[allowed]) if allowed < len(s) else float(s[-1])


def inner_auc(x, y, groups_fold, cols):
    """Cross-validated ROC AUC over the given folds (each fold's scores from a model without it)."""
    scores = np.zeros(len(y))
    for f in sorted(set(groups_fold)):
        tr, te = groups_fold != f, groups_fold == f
        if len(set(y[tr])) < 2:
            return 0.0
        w, b = fit_logistic(x[tr][:, cols], y[tr], balanced=True)
        scores[te] = x[te][:, cols] @ w + b
    return roc_auc_score(y, scores) if len(set(y)) == 2 else 0.0


def select(x, y, folds_of, cols):
    return backward_eliminate(cols, lambda c: inner_auc(x, y, folds_of, c))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_common_args(ap, "mmkg eval --answers --features")
    ap.add_argument("--no-synthetic", action="store_true", help="leave out the without-evidence rows")
    ap.add_argument("--max-refused", type=float, default=0.05,
                    help="share of answerable training questions the cut may refuse (default 0.05)")
    a = ap.parse_args()

    rows, names = load(parse_pairs(a.features, "features"))
    if a.no_synthetic:
        rows = [r for r in rows if not r["synthetic"]]
    fold_of, k = assign_folds(qa_items(parse_pairs(a.qa, "qa")), a.folds)
    missing = [r["id"] for r in rows if r["id"] not in fold_of]
    if missing:
        sys.exit(f"train_answerable: {missing[0]} has features but no QA record; pass every set's --qa")
    x = np.array([r["x"] for r in rows], dtype=float)
    y = np.array([r["y"] for r in rows])
    fo = np.array([fold_of[r["id"]] for r in rows])
    all_cols = list(range(len(names)))

    synth = np.array([r["synthetic"] for r in rows])

    def fit_cut(idx, cols):
        w, b = fit_logistic(x[idx][:, cols], y[idx], balanced=True)
        s = x[idx][:, cols] @ w + b
        return w, b, cut_for(s[y[idx] == 1], a.max_refused)

    folds, cv_refused = [], np.zeros(len(rows), dtype=bool)
    for f in range(k):
        tr = np.where(fo != f)[0]
        te = np.where(fo == f)[0]
        cols = all_cols if a.all_features else select(x[tr], y[tr], fo[tr], all_cols)
        w, b, cut = fit_cut(tr, cols)
        cv_refused[te] = x[te][:, cols] @ w + b < cut
        model = weights_json(cols, w, b, len(names), threshold=cut)
        model["questions"] = sorted(qid for qid, g in fold_of.items() if g == f)
        folds.append(model)
        print(f"fold {f + 1}: {len(te)} questions, features {', '.join(names[c] for c in cols)}", file=sys.stderr)

    cols = all_cols if a.all_features else select(x, y, fo, all_cols)
    w, b, cut = fit_cut(np.arange(len(rows)), cols)
    in_refused = x[:, cols] @ w + b < cut
    figures = {}
    for s in sorted({r["set"] for r in rows}) + ["pooled"]:
        m = np.array([s in ("pooled", r["set"]) for r in rows]) & ~synth
        un, an = m & (y == 0), m & (y == 1)
        figures[s] = {"questions": int(m.sum()), "unanswerable": int(un.sum()), "answerable": int(an.sum()),
                      "cv_unanswerable_refused": int((cv_refused & un).sum()),
                      "cv_answerable_refused": int((cv_refused & an).sum()),
                      "in_sample_unanswerable_refused": int((in_refused & un).sum()),
                      "in_sample_answerable_refused": int((in_refused & an).sum()),
                      "without_evidence": int((m_all := np.array([s in ("pooled", r["set"]) for r in rows]) & synth).sum()),
                      "cv_without_evidence_refused": int((cv_refused & m_all).sum())}
    out = model_file("answerable", names, cols, weights_json(cols, w, b, len(names), threshold=cut), folds, {
        "method": "logistic regression (scikit-learn lbfgs, C=1, balanced classes, standardised features), "
                  f"cut refusing at most {a.max_refused:.0%} of answerable training questions, backward "
                  "feature elimination by nested document-grouped CV (ROC AUC)",
        "outer_folds": k,
        "figures": figures,
    })
    write_model(a.out, out)
    for s, v in figures.items():
        print(f"{s:10s} unanswerable refused CV {v['cv_unanswerable_refused']}/{v['unanswerable']} "
              f"(in-sample {v['in_sample_unanswerable_refused']}), answerable refused CV "
              f"{v['cv_answerable_refused']}/{v['answerable']} (in-sample {v['in_sample_answerable_refused']})",
              file=sys.stderr)
    print("selected: " + ", ".join(names[c] for c in cols), file=sys.stderr)


if __name__ == "__main__":
    main()
