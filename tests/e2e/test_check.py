"""mmkg check: a consistent store passes every check; a store broken behind mmkg's back fails the
checks that concern it, with exit code 1 and the reason in --json."""
import shutil
import sqlite3

from conftest import CORPUS, run


def test_check_passes_on_a_fresh_store_and_fails_on_a_broken_one(tmp_path):
    store = tmp_path / "store"
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("attention_wiki.txt", "attention_papers.txt"):
        shutil.copy(CORPUS / name, docs / name)
    r = run("ingest", docs, "--json", store=store)
    assert r.rc == 0, r

    r = run("check", "--json", store=store)
    assert r.rc == 0, r
    j = r.json()
    assert j["ok"] is True
    names = [c["name"] for c in j["checks"]]
    assert names[:3] == ["sqlite", "fulltext", "chunks"] and "graph" in names
    assert all(c["ok"] for c in j["checks"]), j
    human = run("check", store=store)
    assert human.rc == 0 and "the store is consistent" in human.out

    # Break the full-text index and orphan a chunk behind mmkg's back.
    db = sqlite3.connect(store / "mmkg.db")
    db.execute("DELETE FROM chunks_fts WHERE rowid = (SELECT max(rowid) FROM chunks)")
    db.execute("PRAGMA foreign_keys = OFF")
    db.execute("UPDATE chunks SET doc_id = 'gone' WHERE rowid = (SELECT min(rowid) FROM chunks)")
    db.commit()
    db.close()
    r = run("check", "--json", store=store)
    assert r.rc == 1, r
    j = r.json()
    assert j["ok"] is False
    failed = {c["name"] for c in j["checks"] if not c["ok"]}
    assert failed == {"fulltext", "chunks"}, j
    assert "rebuild" in next(c["detail"] for c in j["checks"] if c["name"] == "fulltext")
