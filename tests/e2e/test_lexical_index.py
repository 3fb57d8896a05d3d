"""The Xapian lexical index of large stores, driven through the CLI with its threshold lowered to
0 (MMKG_LEXICAL_THRESHOLD) so a small corpus gets one: ingest builds it, search uses it, delete
keeps it in step, check compares it with the chunks, and a broken or stale index never gives a
wrong answer (FTS5 answers until the next write rebuilds or syncs it)."""
import shutil
import sqlite3

from conftest import CORPUS, run

ENV = {"MMKG_LEXICAL_THRESHOLD": "0"}


def search(store, query, k=10):
    r = run("search", query, "--mode", "bm25", "-k", str(k), "--json", store=store, env=ENV)
    assert r.rc == 0, r
    return r.json()


def lexical_check(store):
    r = run("check", "--json", store=store, env=ENV)
    checks = {c["name"]: c for c in r.json()["checks"]}
    return r, checks["lexical"]


def test_lexical_index_lifecycle(tmp_path):
    store = tmp_path / "store"
    docs = tmp_path / "docs"
    docs.mkdir()
    for name in ("attention_wiki.txt", "attention_papers.txt"):
        shutil.copy(CORPUS / name, docs / name)
    r = run("ingest", docs, "--json", "--extract", "none", store=store, env=ENV)
    assert r.rc == 0, r
    assert r.json()["lexical_index"].startswith("built"), r.json()
    assert (store / "lexical.xapian").is_dir()

    s = search(store, "multi-head attention")
    assert s["lexical_backend"] == "xapian", s
    assert s["results"] and "«" in s["results"][0]["snippet"]
    wiki = [h for h in search(store, "attention", k=50)["results"] if h["doc"] == "attention_wiki.txt"]
    assert wiki

    r, lex = lexical_check(store)
    assert r.rc == 0 and lex["ok"] and "matches" in lex["detail"], lex

    # A delete keeps it in step: the document's chunks are gone from Xapian's answers.
    r = run("delete", "attention_wiki.txt", "--json", store=store, env=ENV)
    assert r.rc == 0, r
    s = search(store, "attention", k=50)
    assert s["lexical_backend"] == "xapian"
    assert all(h["doc"] != "attention_wiki.txt" for h in s["results"])
    r, lex = lexical_check(store)
    assert r.rc == 0 and lex["ok"] and "matches" in lex["detail"], lex

    # A write behind its back (as a writer killed between its commit and the index update):
    # search falls back to FTS5 and finds the new text, and the next write syncs the index.
    db = sqlite3.connect(store / "mmkg.db")
    db.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'")
    db.commit()
    db.close()
    s = search(store, "attention")
    assert s["lexical_backend"] == "fts5" and s["results"], s
    r, lex = lexical_check(store)
    assert r.rc == 0 and lex["ok"] and "behind" in lex["detail"], lex
    shutil.copy(CORPUS / "attention_wiki.txt", docs / "attention_wiki.txt")
    r = run("ingest", docs, "--json", "--extract", "none", store=store, env=ENV)
    assert r.rc == 0, r
    assert r.json()["lexical_index"].startswith("synced"), r.json()
    s = search(store, "attention", k=50)
    assert s["lexical_backend"] == "xapian"
    assert any(h["doc"] == "attention_wiki.txt" for h in s["results"])

    # A corrupt index: search still answers (FTS5), check says so, the next write rebuilds it.
    for f in (store / "lexical.xapian").iterdir():
        f.write_bytes(b"garbage")
    s = search(store, "attention")
    assert s["lexical_backend"] == "fts5" and s["results"], s
    r, lex = lexical_check(store)
    assert r.rc == 0 and lex["ok"], lex
    r = run("delete", "attention_papers.txt", "--json", store=store, env=ENV)
    assert r.rc == 0, r
    s = search(store, "attention")
    assert s["lexical_backend"] == "xapian" and s["results"], s
    assert all(h["doc"] == "attention_wiki.txt" for h in s["results"])
    r, lex = lexical_check(store)
    assert r.rc == 0 and lex["ok"] and "matches" in lex["detail"], lex


def test_check_fails_when_the_index_disagrees_with_the_chunks(tmp_path):
    store = tmp_path / "store"
    r = run("ingest", CORPUS / "attention_wiki.txt", "--json", "--extract", "none", store=store, env=ENV)
    assert r.rc == 0, r
    # Remove a chunk behind mmkg's back without moving the generation: the index still claims it.
    db = sqlite3.connect(store / "mmkg.db")
    db.execute("DELETE FROM chunks WHERE rowid = (SELECT max(rowid) FROM chunks)")
    db.commit()
    db.close()
    r, lex = lexical_check(store)
    assert r.rc == 1 and not lex["ok"] and "does not match" in lex["detail"], lex
