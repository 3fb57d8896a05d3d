"""The fitted models' loop on documents and questions of this test's own: `mmkg eval --features`
writes training rows, scripts/train_ranker.py fits them with document-grouped folds (the same file
twice from the same rows), and `mmkg eval --cv` scores each question with its fold's model."""
import json
import subprocess
import sys

import pytest

from conftest import ROOT, run

NATIVE = ("--embedder", "native")

DOCS = {
    "kettles.txt": "An electric kettle boils water with a heating element under its base. "
                   "The kettle switches itself off when the steam from the boiling water reaches a bimetallic strip. "
                   "Limescale builds up inside a kettle in hard water areas and slows the heating.",
    "bicycles.txt": "A bicycle derailleur moves the chain between sprockets to change gear. "
                    "Disc brakes on a bicycle stop the wheel by squeezing pads against a rotor fixed to the hub. "
                    "Tubeless tyres seal small punctures with liquid sealant inside the tyre.",
    "bread.txt": "Bread dough rises because yeast ferments sugars and releases carbon dioxide. "
                 "Kneading develops gluten, which traps the gas and gives the loaf its structure. "
                 "A sourdough starter is a culture of wild yeast and lactic acid bacteria.",
    "tides.txt": "Tides are caused mainly by the gravitational pull of the Moon on the oceans. "
                 "Spring tides happen when the Sun and the Moon line up, at new and full moon. "
                 "Neap tides, with the smallest range, happen when the Sun and Moon are at right angles.",
}
QA = [
    ("t1", "factual", "What makes a kettle switch itself off?", "kettles.txt",
     "switches itself off when the steam from the boiling water reaches a bimetallic strip"),
    ("t2", "factual", "Why does limescale matter in a kettle?", "kettles.txt",
     "Limescale builds up inside a kettle in hard water areas and slows the heating"),
    ("t3", "factual", "How does a derailleur change gear?", "bicycles.txt",
     "A bicycle derailleur moves the chain between sprockets to change gear"),
    ("t4", "factual", "How do disc brakes stop a wheel?", "bicycles.txt",
     "stop the wheel by squeezing pads against a rotor fixed to the hub"),
    ("t5", "factual", "Why does bread dough rise?", "bread.txt",
     "Bread dough rises because yeast ferments sugars and releases carbon dioxide"),
    ("t6", "entity", "What is a sourdough starter?", "bread.txt",
     "A sourdough starter is a culture of wild yeast and lactic acid bacteria"),
    ("t7", "factual", "What causes the tides?", "tides.txt",
     "Tides are caused mainly by the gravitational pull of the Moon on the oceans"),
    ("t8", "factual", "When do neap tides happen?", "tides.txt",
     "Neap tides, with the smallest range, happen when the Sun and Moon are at right angles"),
]
# Ids chosen so that a hash puts them in both of two folds (scripts/fitting.py assign_folds).
UNANSWERABLE = [("u1", "How many watts does a travel kettle draw?"),
                ("u2", "Which company first sold disc brakes for bicycles?"),
                ("u3", "At what temperature should sourdough be baked?"),
                ("u4", "How high was the highest tide ever recorded?")]


@pytest.fixture(scope="module")
def fitted_set(tmp_path_factory):
    base = tmp_path_factory.mktemp("fitted")
    docs = base / "docs"
    docs.mkdir()
    for name, text in DOCS.items():
        (docs / name).write_text(text + "\n")
    qa = base / "qa.jsonl"
    with qa.open("w") as f:
        for qid, typ, q, doc, quote in QA:
            f.write(json.dumps({"id": qid, "type": typ, "question": q, "answer_keywords": [quote.split()[-1].lower()],
                                "evidence": [{"doc": doc, "quote": quote}]}) + "\n")
        for qid, q in UNANSWERABLE:
            f.write(json.dumps({"id": qid, "type": "unanswerable", "question": q, "answer_keywords": ["do not"],
                                "evidence": []}) + "\n")
    store = base / "store"
    r = run("ingest", docs, "--json", "--embedder", "native", store=store)
    assert r.rc == 0, r
    return base, qa, store


def train(features, qa, out, folds=2, script="train_ranker.py"):
    return subprocess.run([sys.executable, str(ROOT / "scripts" / script), "--out", str(out), "--folds",
                           str(folds), f"t={features}", "--qa", f"t={qa}"], capture_output=True, text=True, timeout=600)


def test_features_train_and_cross_validate(fitted_set):
    base, qa, store = fitted_set
    feats = base / "features.jsonl"
    r = run("eval", qa, "--mode", "hybrid", "--fusion", "fitted", "--features", feats, "--json", *NATIVE, store=store)
    assert r.rc == 0, r
    assert r.json()["fusion"] == "fitted"
    rows = [json.loads(line) for line in feats.read_text().splitlines()]
    assert [x["id"] for x in rows] == [q[0] for q in QA]  # the answerable questions, in order
    for x, (_, _, _, doc, _) in zip(rows, QA):
        assert x["evidence_docs"] == [doc]
        assert all(len(c["x"]) == len(x["features"]) for c in x["candidates"])
        holders = [c for c in x["candidates"] if c["evidence"]]
        assert holders and all(c["doc"] == doc for c in holders), x["id"]

    m1, m2 = base / "m1.json", base / "m2.json"
    p = train(feats, qa, m1)
    assert p.returncode == 0, p.stderr
    assert train(feats, qa, m2).returncode == 0
    assert m1.read_bytes() == m2.read_bytes()  # retraining reproduces the file exactly
    model = json.loads(m1.read_text())
    assert model["format"] == "mmkg-ranker" and model["version"] == 1
    assert len(model["model"]["weights"]) == len(model["features"])
    folds = model["folds"]
    assert len(folds) == 2
    held = [set(f["questions"]) for f in folds]
    assert set.union(*held) == {q[0] for q in QA} | {u[0] for u in UNANSWERABLE} and not held[0] & held[1]
    # Document-grouped: a document's questions are all held out by the same fold.
    for f in folds:
        for qid, _, _, doc, _ in QA:
            assert (qid in f["questions"]) == (doc in {d.split("/", 1)[1] for d in f["docs"]}), (qid, f["docs"])

    r = run("eval", qa, "--mode", "hybrid", "--fusion", "fitted", "--ranker", m1, "--cv", "--json", *NATIVE, store=store)
    assert r.rc == 0, r
    assert r.json()["cv"] == {"folded": len(QA), "unfolded": 0}  # hybrid's searches; the unanswerable have none
    r = run("eval", qa, "--mode", "hybrid", "--fusion", "fitted", "--ranker", m1, "--cv", "--answers", "--json",
            *NATIVE, store=store)
    assert r.rc == 0, r
    assert r.json()["cv"] == {"folded": len(QA) + len(UNANSWERABLE), "unfolded": 0}  # the answers ask them too


def test_answerability_rows_train_a_model_that_decides(fitted_set):
    base, qa, store = fitted_set
    feats = base / "answer-features.jsonl"
    r = run("eval", qa, "--mode", "hybrid", "--answers", "--features", feats, "--json", *NATIVE, store=store)
    assert r.rc == 0, r
    rule = r.json()
    every = [json.loads(line) for line in feats.read_text().splitlines()]
    assert {x["kind"] for x in every} == {"answerable", "selector"}  # no ranker rows without --fusion fitted
    lines = [x for x in every if x["kind"] == "answerable"]
    rows = [x for x in lines if not x.get("without_evidence")]
    assert [x["id"] for x in rows] == [q[0] for q in QA] + [u[0] for u in UNANSWERABLE]
    assert [x["answerable"] for x in rows] == [True] * len(QA) + [False] * len(UNANSWERABLE)
    found = {it["id"]: it["found"] for it in rule["items"]}
    assert all(x["found"] == found[x["id"]] and len(x["x"]) == len(x["features"]) for x in rows)
    # Each answerable question asked again without its evidence passages: a negative example.
    without = [x for x in lines if x.get("without_evidence")]
    assert [x["id"] for x in without] == [q[0] for q in QA] and not any(x["answerable"] for x in without)
    # With its only passage gone, "What makes a kettle switch itself off?" is no longer covered as well.
    cov = {(x["id"], bool(x.get("without_evidence"))): x["x"][x["features"].index("coverage")] for x in lines}
    assert cov[("t1", True)] < cov[("t1", False)], cov

    m1, m2 = base / "a1.json", base / "a2.json"
    p = train(feats, qa, m1, script="train_answerable.py")
    assert p.returncode == 0, p.stderr
    assert train(feats, qa, m2, script="train_answerable.py").returncode == 0
    assert m1.read_bytes() == m2.read_bytes()
    model = json.loads(m1.read_text())
    assert model["format"] == "mmkg-answerable" and "threshold" in model["model"]
    assert all("threshold" in f for f in model["folds"])
    figures = model["trained"]["figures"]["pooled"]
    assert figures["unanswerable"] == len(UNANSWERABLE) and figures["answerable"] == len(QA)
    assert figures["without_evidence"] == len(QA)  # training rows, not counted as questions

    r = run("eval", qa, "--mode", "hybrid", "--answers", "--answerable", m1, "--cv", "--json", *NATIVE, store=store)
    assert r.rc == 0, r
    assert r.json()["cv"]["folded"] == len(QA) + len(UNANSWERABLE)
    # The same rows, re-scored by the model file: each refusal is the cut's verdict on its score.
    r = run("ask", "What makes a kettle switch itself off?", "--answerable", m1, "--json", *NATIVE, store=store)
    assert r.rc == 0, r


def test_sentence_rows_train_a_selector_that_picks(fitted_set):
    base, qa, store = fitted_set
    feats = base / "answer-features.jsonl"
    if not feats.exists():
        r = run("eval", qa, "--mode", "hybrid", "--answers", "--features", feats, *NATIVE, store=store)
        assert r.rc == 0, r
    rows = [json.loads(line) for line in feats.read_text().splitlines()]
    rows = [x for x in rows if x["kind"] == "selector"]
    # One line per answerable question; each candidate sentence with its features and labels.
    assert [x["id"] for x in rows] == [q[0] for q in QA]
    for x in rows:
        assert x["candidates"] and all(len(c["x"]) == len(x["features"]) for c in x["candidates"])
    # "What makes a kettle switch itself off?": the sentence with "strip" in the kettle passage.
    t1 = next(x for x in rows if x["id"] == "t1")
    assert any(c["keyword"] and c["evidence"] for c in t1["candidates"]), t1
    assert not any(c["keyword"] for c in t1["candidates"] if not c["evidence"])

    m1, m2 = base / "s1.json", base / "s2.json"
    p = train(feats, qa, m1, script="train_selector.py")
    assert p.returncode == 0, p.stderr
    assert train(feats, qa, m2, script="train_selector.py").returncode == 0
    assert m1.read_bytes() == m2.read_bytes()
    model = json.loads(m1.read_text())
    assert model["format"] == "mmkg-selector" and len(model["folds"]) == 2
    figures = model["trained"]["figures"]["pooled"]
    assert figures["questions"] == len(QA) and 0 <= figures["cv_answered"] <= 1

    r = run("eval", qa, "--mode", "hybrid", "--answers", "--selector", m1, "--cv", "--json", *NATIVE, store=store)
    assert r.rc == 0, r
    assert r.json()["cv"]["folded"] == len(QA) + len(UNANSWERABLE)
    r = run("ask", "What makes a kettle switch itself off?", "--selector", m1, "--json", *NATIVE, store=store)
    assert r.rc == 0 and r.json()["found"], r
    nofolds = base / "selector-nofolds.json"
    nofolds.write_text(json.dumps({"format": "mmkg-selector", "version": 1, "features": ["hand"],
                                   "model": {"bias": 0, "weights": [1]}}))
    r = run("eval", qa, "--mode", "hybrid", "--answers", "--selector", nofolds, "--cv", *NATIVE, store=store)
    assert r.rc == 2 and "no cross-validation folds" in r.err, r
    r = run("ask", "kettle", "--selector", base / "answer-features.jsonl", store=store)
    assert r.rc == 2 and "selector" in r.err, r


def test_feature_and_fold_misuse_say_what_to_do(fitted_set):
    base, qa, store = fitted_set
    r = run("eval", qa, "--mode", "hybrid", "--fusion", "zscore", "--features", base / "f.jsonl", *NATIVE, store=store)
    assert r.rc == 2 and "--fusion fitted" in r.err, r
    r = run("eval", qa, "--mode", "hybrid", "--fusion", "fitted", "--features", base / "f.jsonl", "--embedder", "none",
            store=store)
    assert r.rc == 2 and "dense retrieval is unavailable" in r.err, r
    nofolds = base / "nofolds.json"
    nofolds.write_text(json.dumps({"format": "mmkg-ranker", "version": 1, "features": ["prox"],
                                   "model": {"bias": 0, "weights": [1]}}))
    r = run("eval", qa, "--mode", "hybrid", "--fusion", "fitted", "--ranker", nofolds, "--cv", *NATIVE,
            store=store)
    assert r.rc == 2 and "no cross-validation folds" in r.err, r
    bad = base / "bad.json"
    bad.write_text("{}")
    r = run("search", "kettle", "--fusion", "fitted", "--ranker", bad, store=store)
    assert r.rc == 2 and "not a ranker model" in r.err, r
