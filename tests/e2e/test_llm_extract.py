"""`mmkg ingest --extract llm` against a real model: llama-cpp-python serving SmolLM2-135M.
One short markdown document in a few chunks; checks the extractor id, typed entities grounded in
the text, verbatim evidence, the extraction cache (a rebuild makes no model call), a server that is
down (nothing cached, the next ingest resumes), and the usage error without a model."""
import json
import pathlib
import sqlite3

import pytest

from conftest import run
from model_server import ModelServer, free_port, smollm2_gguf

DOC = """# Transformers

The Transformer is a neural network architecture that uses multi-head attention instead of recurrence.

BERT is a language model pre-trained on BooksCorpus and English Wikipedia by Google.

## Evaluation

BERT was evaluated on the GLUE benchmark. RoBERTa extends BERT with more training data.
"""

EXTRA = "\nDistilBERT is a smaller model distilled from BERT by Hugging Face.\n"

LLM_TYPES = {"concept", "method", "model", "dataset", "metric", "task", "person", "organization", "artifact",
             "other"}
CHUNKING = ["--chunk-size", "200", "--overlap", "0"]


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    log = tmp_path_factory.mktemp("llama") / "server.log"
    s = ModelServer(smollm2_gguf(), "--n_ctx", "4096", log_path=str(log))
    yield s
    s.stop()


# The name `--llm local` gives the model (the GGUF's file name), so that extractions made through
# the fixture's server are the ones `--llm local` finds in the cache.
MODEL = pathlib.Path(smollm2_gguf()).stem


def llm(server, concurrency=2):
    return f"{server.url}#model={MODEL}&concurrency={concurrency}"


def dead_llm():
    return f"http://127.0.0.1:{free_port()}/v1#model={MODEL}&retries=0"


def extractions(store):
    db = sqlite3.connect(str(store / "mmkg.db"))
    rows = [json.loads(r) for (r,) in db.execute("SELECT result FROM extractions WHERE extractor LIKE 'llm-v1:%'")]
    db.close()
    return rows


def test_llm_extraction_builds_a_grounded_typed_graph_and_caches_it(tmp_path, server):
    doc = tmp_path / "transformers.md"
    doc.write_text(DOC)
    st = tmp_path / "store"
    r = run("ingest", doc, "--extract", "llm", "--llm", llm(server), "--json", *CHUNKING, store=st, timeout=900)
    assert r.rc == 0, r
    j = r.json()
    g = j["graph"]
    chunks = j["chunks"]
    assert chunks >= 2
    assert g["extractor"].startswith(f"llm-v1:{MODEL}:"), g
    assert g["chunks_extracted"] == chunks and g["extractions_cached"] == 0
    # one request per chunk, two when the first answer was usable (gleaning)
    assert chunks <= g["llm_calls"] <= 2 * chunks, g
    assert g["llm_requests"] >= g["llm_calls"] and g["llm_cached"] == 0
    assert g["prompt_tokens"] > 0 and g["completion_tokens"] > 0
    assert g["llm_fallbacks"] < chunks, f"every chunk fell back to the rules: {r.err}"
    assert g["entities"] > 0

    # What the model kept is in the text: names (as written), evidence sentences (verbatim).
    flat = " ".join(DOC.split())
    rows = extractions(st)
    assert len(rows) == chunks
    llm_rows = [x for x in rows if any(t[1] == "llm" for t in x["t"])]
    assert len(llm_rows) == chunks - g["llm_fallbacks"]
    for x in llm_rows:
        for t in x["t"]:
            assert t[1] == "llm" and t[4] in LLM_TYPES | {""}, t
            assert t[0].lower() in DOC.lower() or " ".join(t[0].split()).lower() in flat.lower(), t
        for rel in x["r"]:
            assert " ".join(rel[3].split()) in flat, rel

    exported = [json.loads(line) for line in run("graph", "export", store=st).out.splitlines()]
    ents = [e for e in exported if e["kind"] == "entity"]
    assert any(e["type"] in LLM_TYPES for e in ents)
    rels = [e for e in exported if e["kind"] == "relation"]
    assert all("description" in x for x in rels)

    # Rebuild the same document (delete, ingest again) against a server that is not there: every
    # chunk comes from the extraction cache, so no request is even tried.
    assert run("delete", "transformers.md", store=st).rc == 0
    again = run("ingest", doc, "--extract", "llm", "--llm", dead_llm(), "--json", *CHUNKING, store=st, timeout=300)
    assert again.rc == 0, again
    g2 = again.json()["graph"]
    assert g2["llm_calls"] == 0 and g2["llm_requests"] == 0, g2
    assert g2["extractions_cached"] == chunks and g2["chunks_extracted"] == 0
    assert g2["documents_added"] == 1 and g2["entities"] == g["entities"]

    # The same with --llm local: same model name, so the same cache; the server is never started.
    assert run("delete", "transformers.md", store=st).rc == 0
    local = run("ingest", doc, "--extract", "llm", "--llm", "local", "--json", "-v", *CHUNKING, store=st, timeout=300)
    assert local.rc == 0, local
    g3 = local.json()["graph"]
    assert g3["extractor"] == g["extractor"] and g3["llm_calls"] == 0 and g3["extractions_cached"] == chunks, g3
    assert "starting the local model server" not in local.err
    assert not (st / "local-llm.log").exists()


def test_a_server_that_is_down_caches_nothing_and_the_next_ingest_resumes(tmp_path, server):
    doc = tmp_path / "transformers.md"
    doc.write_text(DOC)
    st = tmp_path / "store"
    assert run("ingest", doc, "--extract", "llm", "--llm", llm(server), "--json", *CHUNKING, store=st,
               timeout=900).rc == 0
    # An edited copy while the server is down: the ingest succeeds, its graph waits.
    edited = tmp_path / "transformers2.md"
    edited.write_text(DOC + EXTRA)
    down = run("ingest", edited, "--extract", "llm", "--llm", dead_llm(), "--json", *CHUNKING, store=st, timeout=300)
    assert down.rc == 0, down
    assert down.json()["documents"] == 1 and down.json()["graph"] is None
    assert "knowledge graph not updated" in down.err and "next ingest resumes" in down.err
    # The next ingest (nothing new to parse) builds it: unchanged chunks from the cache, only the
    # new text is sent to the model.
    up = run("ingest", edited, "--extract", "llm", "--llm", llm(server), "--json", *CHUNKING, store=st, timeout=900)
    assert up.rc == 0, up
    g = up.json()["graph"]
    assert g["documents_added"] == 1
    assert g["extractions_cached"] >= 2, g
    assert 1 <= g["chunks_extracted"] <= 2 and g["llm_calls"] <= 2 * g["chunks_extracted"], g


def test_extract_llm_without_a_model_is_a_usage_error(tmp_path, monkeypatch):
    for var in ("MMKG_LLM_BASE_URL", "MMKG_LLM_MODEL", "GROQ_API_KEY", "OPENAI_API_KEY", "MMKG_CONFIG"):
        monkeypatch.delenv(var, raising=False)
    doc = tmp_path / "transformers.md"
    doc.write_text(DOC)
    st = tmp_path / "store"
    r = run("ingest", doc, "--extract", "llm", store=st)
    assert r.rc == 2, r
    assert "--extract llm needs a chat model" in r.err and "--llm local" in r.err
    assert not st.exists(), "nothing is written before the configuration is checked"
    bad = run("ingest", doc, "--extract", "llm", "--llm", "local#model=x", store=st)
    assert bad.rc == 2 and "unknown --llm local option" in bad.err
