"""The knowledge graph end to end: built on ingest, entity linking in `ask`, `mmkg graph`
commands, exports (the Cypher export loaded into a real Neo4j), deletion, the Neo4j backend, and
figure nodes linked to the entities they depict."""
import json
import shutil
import xml.etree.ElementTree as ET

import pytest

from conftest import CORPUS, run
import pdfgen


@pytest.fixture(scope="module")
def graph_store(tmp_path_factory):
    s = tmp_path_factory.mktemp("graph") / "store"
    r = run("ingest", CORPUS, "--json", store=s)
    assert r.rc == 0, r
    g = r.json()["graph"]
    assert g["documents_added"] == 3 and g["entities"] > 100 and g["relations"] > 100, g
    assert g["aliases"] > g["entities"], g  # surface variants were merged into entities
    return s


def entity(store, name):
    r = run("graph", "entity", name, "--json", store=store)
    assert r.rc == 0, r
    return r.json()


def linked(store, question):
    r = run("ask", question, "--json", store=store)
    assert r.rc == 0, r
    return r.json()["entities"]


def test_linking_cases_from_the_issue(graph_store):
    att = linked(graph_store, "what is attention?")
    assert att and att[0]["name"].lower() == "attention", att
    mha = linked(graph_store, "what is MHA?")
    assert mha and mha[0]["name"].lower() == "multi-head attention", mha
    full = linked(graph_store, "multi-head attention")
    assert full and full[0]["id"] == mha[0]["id"], (full, mha)


def test_acronym_and_variants_are_one_entity(graph_store):
    e = entity(graph_store, "MHA")
    assert e["name"].lower() == "multi-head attention"
    keys = {a.lower().replace("-", " ") for a in e["aliases"]}
    assert "mha" in keys and "multi head attention" in keys, e
    assert e["mentions"] >= 3 and e["neighbors"], e
    assert entity(graph_store, "Multi-head attention")["id"] == e["id"]


def test_distinct_things_stay_apart(graph_store):
    a = entity(graph_store, "attention")
    s = entity(graph_store, "attention sink")
    assert a["id"] != s["id"]
    assert "sink" in s["name"].lower()


def test_neighbors_carry_evidence_sentences(graph_store):
    r = run("graph", "neighbors", "multi-head attention", "--json", store=graph_store)
    assert r.rc == 0, r
    n = r.json()["neighbors"]
    assert n
    for x in n[:10]:
        assert x["evidence"] and all(ev["sentence"] and ev["doc"] for ev in x["evidence"]), x
    r = run("graph", "entity", "zzzz qqqq xxxx", store=graph_store)
    assert r.rc == 1 and "no entity matches" in r.err


def test_an_entity_is_found_by_the_id_its_neighbours_give(graph_store):
    n = run("graph", "entity", "multi-head attention", "--json", store=graph_store).json()["neighbors"][0]
    r = run("graph", "entity", n["id"], "--json", store=graph_store)
    assert r.rc == 0, r
    assert r.json()["id"] == n["id"] and r.json()["name"] == n["name"]


def test_ask_reports_entities_and_uses_graph(graph_store):
    r = run("ask", "what is MHA?", "--json", "-v", store=graph_store)
    j = r.json()
    steps = [s["step"] for s in j["trace"]]
    assert "graph" in steps
    assert "mmkg: graph:" in r.err and "linked entities" in r.err
    # By default its chunk lists stay out of retrieval (docs/EVAL.md); --graph-lists on fuses them.
    graph_step = next(s for s in j["trace"] if s["step"] == "graph")
    assert graph_step["lists"] == 0 and "not fused into retrieval" in r.err, graph_step
    on = run("ask", "what is MHA?", "--json", "--graph-lists", "on", store=graph_store).json()
    assert next(s for s in on["trace"] if s["step"] == "graph")["lists"] >= 1
    # --graph none: no graph step, no entities
    j = run("ask", "what is MHA?", "--json", "--graph", "none", store=graph_store).json()
    assert j["entities"] == [] and "graph" not in [s["step"] for s in j["trace"]]


def test_exports(graph_store, tmp_path, neo4j):
    st = run("stats", "--json", store=graph_store).json()["graph"]
    r = run("graph", "export", "--format", "jsonl", store=graph_store)
    lines = [json.loads(l) for l in r.out.splitlines()]
    kinds = [l["kind"] for l in lines]
    assert kinds.count("entity") == st["entities"] and kinds.count("relation") == st["relations"]
    out = tmp_path / "g.graphml"
    assert run("graph", "export", "--format", "graphml", "-o", out, store=graph_store).rc == 0
    root = ET.parse(out).getroot()
    ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
    kinds = [n.find("g:data[@key='kind']", ns).text for n in root.findall(".//g:node", ns)]
    assert kinds.count("entity") == st["entities"]
    # The Cypher export loads into a stock Neo4j, statement by statement. A one-document store:
    # Neo4j takes seconds per statement to parse the literal rows of the whole corpus's graph.
    small = tmp_path / "small"
    assert run("ingest", CORPUS / "attention_wiki.txt", store=small).rc == 0
    st = run("stats", "--json", store=small).json()["graph"]
    assert st["entities"] > 10 and st["relations"] > 10, st
    cy = run("graph", "export", "--format", "cypher", store=small).out.splitlines()
    assert sum(l.startswith("UNWIND") for l in cy) >= 3, cy  # entities, relations, mentions
    neo4j.query("MATCH (n) DETACH DELETE n")
    assert all(l.endswith(";") for l in cy)
    neo4j.run_many([l[:-1] for l in cy if l.startswith("CREATE CONSTRAINT")], batch=1)  # schema: own transaction
    neo4j.run_many([l[:-1] for l in cy if not l.startswith("CREATE CONSTRAINT")])
    assert neo4j.query("MATCH (e:Entity) RETURN count(e)")[0][0] == st["entities"]
    assert neo4j.query("MATCH ()-[r:REL]->() RETURN count(r)")[0][0] == st["relations"]
    neo4j.query("MATCH (n) DETACH DELETE n")


def write(d, name, text):
    d.mkdir(exist_ok=True)
    (d / name).write_text(text)


SHARED = ("Rotary Position Embedding (RoPE) encodes positions by rotating query and key vectors. "
          "RoPE is used by many large language models. ")


def test_delete_and_replace_keep_the_graph_in_step(tmp_path):
    d, st = tmp_path / "docs", tmp_path / "store"
    write(d, "a.txt", SHARED + "Flash Decoding splits the key-value cache across thread blocks. "
                               "Flash Decoding uses RoPE in its benchmarks.")
    write(d, "b.txt", SHARED + "Linear Attention replaces the softmax kernel with a feature map. "
                               "Linear Attention is compared with RoPE-based models.")
    assert run("ingest", d, store=st).rc == 0
    rope = entity(st, "RoPE")
    assert entity(st, "rotary position embedding")["id"] == rope["id"]
    assert entity(st, "Flash Decoding")["name"].lower() == "flash decoding"
    j = run("delete", "a.txt", "--json", store=st).json()
    assert j["graph"]["documents_removed"] == 1
    rope2 = entity(st, "RoPE")
    assert rope2["id"] == rope["id"] and rope2["mentions"] < rope["mentions"]  # shared entity stays
    names = [l["name"].lower() for l in map(json.loads, run("graph", "export", store=st).out.splitlines())
             if l["kind"] == "entity"]
    assert "flash decoding" not in names  # only a.txt mentioned it
    (d / "a.txt").unlink()
    # replacing b.txt removes its old mentions
    write(d, "b.txt", SHARED + "Sparse Attention is a variant of attention. Sparse Attention drops small scores.")
    assert run("ingest", d, store=st).rc == 0
    names = [l["name"].lower() for l in map(json.loads, run("graph", "export", store=st).out.splitlines())
             if l["kind"] == "entity"]
    assert "linear attention" not in names and "sparse attention" in names


def test_neo4j_backend_end_to_end(tmp_path, neo4j):
    neo4j.query("MATCH (n) DETACH DELETE n")
    st = tmp_path / "store"
    r = run("ingest", CORPUS, "--json", "--graph", neo4j.spec, store=st)
    assert r.rc == 0, r
    g = r.json()["graph"]
    assert g["entities"] > 100
    assert neo4j.query("MATCH (e:Entity) RETURN count(e)")[0][0] == g["entities"]
    mha = run("ask", "what is MHA?", "--json", "--graph", neo4j.spec, store=st).json()["entities"]
    assert mha and mha[0]["name"].lower() == "multi-head attention", mha
    # the same corpus in SQLite gives the same graph size
    st2 = tmp_path / "store2"
    g2 = run("ingest", CORPUS, "--json", store=st2).json()["graph"]
    assert (g2["entities"], g2["relations"]) == (g["entities"], g["relations"])
    neo4j.query("MATCH (n) DETACH DELETE n")


def test_neo4j_vector_index_serves_dense_search(tmp_path, neo4j):
    """With the graph in Neo4j, chunk vectors go to a Neo4j vector index that serves dense search."""
    neo4j.query("MATCH (n) DETACH DELETE n")
    d, st = tmp_path / "docs", tmp_path / "store"
    texts = {
        "tides.txt": "Tides are the rise and fall of sea levels caused by the gravitational pull of the moon.",
        "bread.txt": "Sourdough bread rises because wild yeast ferments the flour and releases carbon dioxide.",
        "chess.txt": "In chess, castling moves the king two squares towards a rook in a single move.",
    }
    for name, text in texts.items():
        write(d, name, text)
    r = run("ingest", d, "--json", "--embedder", "native", "--graph", neo4j.spec, store=st)
    assert r.rc == 0, r
    assert neo4j.query("MATCH (c:Chunk) WHERE c.embedding IS NOT NULL RETURN count(c)")[0][0] == 3
    faiss = run("search", "why does dough rise", "--mode", "dense", "--json", "--embedder", "native",
                store=st).json()
    r = run("search", "why does dough rise", "--mode", "dense", "--json", "--embedder", "native",
            "--graph", neo4j.spec, store=st)
    assert r.rc == 0, r
    j = r.json()
    assert j["dense_backend"] == "neo4j" and faiss["dense_backend"] == "faiss"
    assert j["results"][0]["doc"] == "bread.txt"
    # Neo4j's cosines (vector index without quantisation) agree with FAISS's exact inner products
    for a, b in zip(j["results"], faiss["results"]):
        assert a["chunk_id"] == b["chunk_id"] and abs(a["score"] - b["score"]) < 1e-3, (a, b)
    neo4j.query("MATCH (n) DETACH DELETE n")


SEARCHES = [  # (query, a word every one of the first five hits holds)
    ("multi-head attention", "head"),
    ("scaled dot-product attention", "dot"),
    ("positional encoding of the tokens", "position"),
    ("softmax overflow", "softmax"),
    ("attention wiki", "attention"),
]


def search(store, query, *extra, mode="bm25", k=5):
    r = run("search", query, "--mode", mode, "-k", k, "--json", *extra, store=store)
    assert r.rc == 0, r
    return r.json()


def test_neo4j_full_text_index_serves_lexical_search(tmp_path, neo4j):
    """With the graph in Neo4j, chunk text goes to a Neo4j full-text index that serves the lexical
    side of search: the same search tests pass with FTS5 (graph in SQLite) and with Neo4j, and a
    deleted document's chunks leave Neo4j's index."""
    neo4j.query("MATCH (n) DETACH DELETE n")
    st = tmp_path / "store"
    assert run("ingest", CORPUS, "--graph", neo4j.spec, store=st).rc == 0
    assert neo4j.query("MATCH (c:Chunk) WHERE c.text IS NULL RETURN count(c)")[0][0] == 0
    chunks = run("stats", "--json", store=st).json()["chunks"]
    assert neo4j.query("MATCH (c:Chunk) RETURN count(c)")[0][0] == chunks
    backends = {"fts5": ("--graph", "sqlite"), "neo4j": ("--graph", neo4j.spec)}
    assert run("ingest", CORPUS, store=st).rc == 0  # the SQLite graph too, for the fts5 runs
    top = {}
    for name, flags in backends.items():
        for query, word in SEARCHES:
            j = search(st, query, *flags)
            assert j["lexical_backend"] == name and j["dense_backend"] is None, j
            hits = j["results"]
            assert len(hits) == 5, (name, query, hits)
            assert all(word in h["text"].lower() for h in hits), (name, query)
            assert [h["rank"] for h in hits] == [1, 2, 3, 4, 5]
            assert all(a["score"] >= b["score"] for a, b in zip(hits, hits[1:])), (name, query)
            top[name, query] = [h["chunk_id"] for h in hits]
    for query, _ in SEARCHES:  # two BM25s over the same chunks: mostly the same passages
        assert len(set(top["fts5", query]) & set(top["neo4j", query])) >= 2, (query, top)
    wiki = search(st, "attention wiki", *backends["neo4j"], k=10)["results"]
    assert any(h["doc"] == "attention_wiki.txt" for h in wiki), wiki
    assert run("delete", "attention_wiki.txt", "--graph", neo4j.spec, store=st).rc == 0
    assert neo4j.query("MATCH (c:Chunk {doc_id: $d}) RETURN count(c)", {"d": wiki[0]["doc_id"]})[0][0] == 0
    hits = search(st, "attention wiki", *backends["neo4j"], k=50)
    assert hits["lexical_backend"] == "neo4j" and hits["results"], hits
    assert all(h["doc"] != "attention_wiki.txt" for h in hits["results"]), hits
    neo4j.query("MATCH (n) DETACH DELETE n")


def test_figures_are_nodes_linked_to_the_entities_they_depict(tmp_path, neo4j):
    """A PDF figure becomes a figure node linked to the entities its caption names: in
    `graph entity --json`, in every export, in Neo4j, and gone when its document is deleted."""
    pdf = pdfgen.figure_paper(tmp_path / "paper.pdf")
    st = tmp_path / "store"
    r = run("ingest", pdf, "--json", store=st)
    assert r.rc == 0 and r.json()["figures"] == 1, r
    e = entity(st, "multi-head attention")
    assert len(e["figures"]) == 1, e
    f = e["figures"][0]
    assert (f["doc"], f["page"], f["label"], f["kind"]) == ("paper.pdf", 1, "Figure 1", "figure"), f
    assert f["caption"].startswith("Figure 1: Multi-head attention"), f
    assert "in paper.pdf, page 1, Figure 1 (figure " in run("graph", "entity", "multi-head attention", store=st).out
    lines = [json.loads(l) for l in run("graph", "export", store=st).out.splitlines()]
    figs = [l for l in lines if l["kind"] == "figure"]
    assert [x["id"] for x in figs] == [f["id"]] and e["id"] in figs[0]["entities"], figs
    out = tmp_path / "g.graphml"
    assert run("graph", "export", "--format", "graphml", "-o", out, store=st).rc == 0
    root = ET.parse(out).getroot()
    ns = {"g": "http://graphml.graphdrawing.org/xmlns"}
    assert root.find(f".//g:node[@id='{f['id']}']", ns) is not None
    assert root.find(f".//g:edge[@source='{f['id']}'][@target='{e['id']}']", ns) is not None
    # The Neo4j backend: a (:Figure)-[:DEPICTS]->(:Entity), and the same entity report.
    neo4j.query("MATCH (n) DETACH DELETE n")
    st2 = tmp_path / "store2"
    assert run("ingest", pdf, "--graph", neo4j.spec, store=st2).rc == 0
    rows = neo4j.query("MATCH (f:Figure)-[:DEPICTS]->(e:Entity) RETURN f.id, f.label, f.page, collect(e.name)")
    assert len(rows) == 1 and rows[0][:3] == [f["id"], "Figure 1", 1], rows
    assert "multi-head attention" in [n.lower() for n in rows[0][3]], rows
    e2 = run("graph", "entity", "multi-head attention", "--json", "--graph", neo4j.spec, store=st2).json()
    assert e2["figures"] == e["figures"], (e2, e)
    assert run("delete", "paper.pdf", "--graph", neo4j.spec, store=st2).rc == 0
    assert neo4j.query("MATCH (f:Figure) RETURN count(f)")[0][0] == 0
    neo4j.query("MATCH (n) DETACH DELETE n")
    # Deleted from SQLite too: no figure left in the export.
    assert run("delete", "paper.pdf", store=st).rc == 0
    assert not [l for l in run("graph", "export", store=st).out.splitlines() if '"kind":"figure"' in l]
