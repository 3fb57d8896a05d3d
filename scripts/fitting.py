"""What scripts/train_ranker.py and scripts/train_answerable.py share: SET=FILE arguments, the
document-grouped cross-validation folds, logistic regression on standardised features, and the
model file's JSON (read by src/index/fitted_model.cc).

Folds: questions are linked to their evidence documents, and documents that share a question are
merged (union-find), so that no document is in both the fold a model is fitted on and the fold
it is scored on; GroupKFold (deterministic) makes K folds of those groups. A question without
evidence (unanswerable) is given a fold by a hash of its id. Both trainers call assign_folds on
the same questions in the same order, so a question is held out by the same fold in both files.
"""
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
            sys.exit(f"{what} '{v}' is not SET=FILE")
        out.append(tuple(v.split("=", 1)))
    return out


def read_jsonl(path):
    with open(path) as fh:
        return [json.loads(line) for line in fh if line.strip()]


def qa_items(qa_pairs):
    """(id, set, docs) of every question of the QA files, in file order; docs are "set/file"."""
    out = []
    for set_name, path in qa_pairs:
        for rec in read_jsonl(path):
            docs = sorted({f"{set_name}/{e['doc']}" for e in rec.get("evidence", [])})
            out.append((rec["id"], set_name, docs))
    return out


def doc_groups(docs_per_question):
    """Union-find over documents: each question's group index (its documents' component)."""
    parent = {}

    def find(d):
        parent.setdefault(d, d)
        while parent[d] != d:
            parent[d] = parent[parent[d]]
            d = parent[d]
        return d

    for docs in docs_per_question:
        for d in docs[1:]:
            parent[find(d)] = find(docs[0])
        find(docs[0])
    comps = sorted({find(d) for d in parent})
    index = {c: i for i, c in enumerate(comps)}
    return np.array([index[find(docs[0])] for docs in docs_per_question], dtype=int), len(comps)


def assign_folds(items, k):
    """{question id: fold} for items (id, set, docs), and the number of folds."""
    with_docs = [it for it in items if it[2]]
    groups, n_groups = doc_groups([it[2] for it in with_docs])
    k = min(k, n_groups)
    fold = {}
    for f, (_, test) in enumerate(GroupKFold(n_splits=k).split(np.zeros(len(with_docs)), groups=groups)):
        for i in test:
            fold[with_docs[i][0]] = f
    for qid, _, docs in items:
        if not docs:
            fold[qid] = int(hashlib.sha256(qid.encode()).hexdigest(), 16) % k
    return fold, k


def fit_logistic(x, y, balanced=False):
    """L2 logistic regression (lbfgs, C=1) on standardised columns; weights in raw feature space."""
    mean, sd = x.mean(axis=0), x.std(axis=0)
    sd[sd < 1e-12] = 1.0
    lr = LogisticRegression(C=1.0, max_iter=5000, class_weight="balanced" if balanced else None)
    lr.fit((x - mean) / sd, y)
    w = lr.coef_[0] / sd
    b = float(lr.intercept_[0] - np.sum(lr.coef_[0] * mean / sd))
    return w, b


def weights_json(cols, w, b, n, threshold=None):
    full = [0.0] * n
    for c, v in zip(cols, w):
        full[c] = round(float(v), 6)
    out = {"bias": round(b, 6), "weights": full}
    if threshold is not None:
        out["threshold"] = round(float(threshold), 6)
    return out


def backward_eliminate(cols, score):
    """Drops features one at a time while dropping one does not lower score(cols) (higher is
    better; ties drop the higher-numbered feature); returns the features kept."""
    cols = list(cols)
    best = score(cols)
    while len(cols) > 1:
        trials = [(score([c for c in cols if c != d]), d) for d in cols]
        value, drop = max(trials)
        if value < best - 1e-12:
            break
        best, cols = value, [c for c in cols if c != drop]
    return cols


def add_common_args(ap, rows_from):
    """The arguments both trainers take."""
    ap.add_argument("features", nargs="+", help=f"SET=FILE: a dev set's `{rows_from}` output")
    ap.add_argument("--qa", action="append", required=True, help="SET=FILE: the set's QA file (every set's)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--folds", type=int, default=5, help="outer folds (document groups), default 5")
    ap.add_argument("--all-features", action="store_true", help="no feature selection")


def model_file(kind, names, cols, model, folds, trained):
    """The model file's JSON (src/index/fitted_model.cc reads it): the full model, the features it
    kept, one model per fold, and how it was trained."""
    return {"format": f"mmkg-{kind}", "version": FORMAT_VERSION, "features": names, "model": model,
            "selected": [names[c] for c in cols], "folds": folds, "trained": trained}


def write_model(path, out):
    with open(path, "w") as fh:
        json.dump(out, fh, indent=1)
        fh.write("\n")
