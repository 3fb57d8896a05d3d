"""The OpenAI-compatible HTTP embedder against a real server: llama-cpp-python serving SmolLM2 in
embedding mode. That server returns one vector per token and refuses batches of several inputs,
so this also proves the client's mean pooling and batch splitting on a real peer."""
import pytest

from conftest import run
from model_server import ModelServer, smollm2_gguf

DOCS = {
    "tides.txt": "Tides are the rise and fall of sea levels caused by the gravitational pull of the moon "
                 "and the sun acting on the rotating earth.",
    "bread.txt": "Sourdough bread rises because wild yeast and lactic acid bacteria ferment the flour "
                 "and release carbon dioxide into the dough.",
    "chess.txt": "In chess, castling moves the king two squares towards a rook and places that rook on the "
                 "square the king crossed, in a single move.",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    log = tmp_path_factory.mktemp("llama") / "server.log"
    s = ModelServer(smollm2_gguf(), "--embedding", "true", log_path=str(log))
    yield s
    s.stop()


@pytest.fixture
def docs(tmp_path):
    d = tmp_path / "docs"
    d.mkdir()
    for name, text in DOCS.items():
        (d / name).write_text(text)
    return d


def test_ingest_and_dense_search_through_a_real_server(server, docs, tmp_path):
    spec = server.url + "#model=smollm2&batch=8"
    st = tmp_path / "store"
    r = run("ingest", docs, "--json", "--embedder", spec, store=st)
    assert r.rc == 0, r
    j = r.json()
    assert j["documents"] == 3 and j["embedded"] == 3, j
    # Each document is one chunk: its own text, as the query, is its nearest neighbour (cosine 1),
    # which fails if vectors were pooled, ordered or mapped to chunks wrongly.
    for name, text in DOCS.items():
        r = run("search", text, "--mode", "dense", "--json", "-k", "3", "--embedder", spec, store=st)
        assert r.rc == 0, r
        hits = r.json()["results"]
        assert hits[0]["doc"].endswith(name), (name, hits)
        assert hits[0]["score"] > 0.999
        assert hits[1]["score"] < hits[0]["score"]
    # re-ingest: embeddings are reused, the server is not asked again
    j = run("ingest", docs, "--json", "--embedder", spec, store=st).json()
    assert j["embedded"] == 0
    # the vectors are tagged with the HTTP model: the native embedder is refused as a mismatch
    r = run("search", "moon", "--mode", "dense", "--json", "--embedder", "native", store=st)
    assert r.rc == 2 and "no embeddings for native:all-MiniLM-L6-v2" in r.err, r


def test_gemma_prompts_change_query_vectors(server, docs, tmp_path):
    plain, gemma = server.url + "#model=smollm2", server.url + "#model=smollm2&prompts=gemma"
    st_plain, st_gemma = tmp_path / "plain", tmp_path / "gemma"
    assert run("ingest", docs, "--embedder", plain, store=st_plain).rc == 0
    assert run("ingest", docs, "--embedder", gemma, store=st_gemma).rc == 0
    q = DOCS["tides.txt"]
    s_plain = run("search", q, "--mode", "dense", "--json", "--embedder", plain, store=st_plain).json()["results"]
    s_gemma = run("search", q, "--mode", "dense", "--json", "--embedder", gemma, store=st_gemma).json()["results"]
    assert s_plain[0]["score"] > 0.999
    # with prompts the query ("task: search result | query: ...") and the document ("title: none |
    # text: ...") are embedded differently, so the same text no longer scores exactly 1
    assert s_gemma[0]["score"] < 0.999


def test_unreachable_server_warns_and_a_rerun_backfills(server, docs, tmp_path):
    """Documents go in without vectors when the embedding server is down (one warning naming it);
    the next ingest with the server up embeds exactly the chunks that lack vectors."""
    from model_server import free_port
    st = tmp_path / "s"
    url = f"http://127.0.0.1:{free_port()}/v1#model=smollm2"
    r = run("ingest", docs, "--json", "--embedder", url, store=st, timeout=120)
    assert r.rc == 0, r
    assert r.json()["documents"] == 3
    warn = [l for l in r.err.splitlines() if l.startswith("mmkg: warning")]
    assert len(warn) == 1, r
    assert "embedding server at" in warn[0] and "cannot connect" in warn[0] and "start the server" in warn[0]
    j = run("ingest", docs, "--json", "--embedder", server.url + "#model=smollm2", store=st).json()
    assert j["documents"] == 0 and j["embedded"] == 3, j
