"""A store shared through Neo4j (--store neo4j://..., issue 35), against a real Neo4j 5.26: two
"machines" (processes with separate --cache folders) see each other's ingests and deletes without a
restart, rank exactly as the embedded store does on the same files, and a writer killed with
SIGKILL leaves no half document for any reader; a re-run finishes it and `mmkg check` passes."""
import json
import os
import random
import signal
import subprocess
import time

import pytest

from conftest import BIN, CORPUS, DEV_QA, run
import pdfgen


def wipe(neo4j):
    """An empty database (the vector index too: other suites leave one of another dimension)."""
    while neo4j.query("MATCH (n) WITH n LIMIT 10000 DETACH DELETE n RETURN count(*)")[0][0]:
        pass
    neo4j.query("DROP INDEX mmkg_chunk_embedding IF EXISTS")


def on(neo4j, cache, *args, embedder="native"):
    """mmkg ARGS against the shared store, as the machine whose cache folder is `cache`."""
    return run(*args, "--cache", cache, "--embedder", embedder, store=neo4j.spec)


def questions():
    return [json.loads(line)["question"] for line in DEV_QA.read_text().splitlines() if line.strip()]


def top10(store_args, q):
    r = run("search", q, "--json", "-k", "10", "--embedder", "native", *store_args)
    assert r.rc == 0, r
    return [(h["chunk_id"], round(h["score"], 9)) for h in r.json()["results"]]


def graph_counts(ingest_json):
    g = ingest_json["graph"]
    return {k: g[k] for k in ("entities", "aliases", "relations", "mentions", "communities")}


def test_two_machines_share_one_store_and_rank_as_the_embedded_store(tmp_path, neo4j):
    wipe(neo4j)
    a, b = tmp_path / "cache-a", tmp_path / "cache-b"
    local = tmp_path / "embedded"
    ref = run("ingest", CORPUS, "--json", "--embedder", "native", store=local)
    assert ref.rc == 0, ref
    shared = on(neo4j, a, "ingest", CORPUS, "--json")
    assert shared.rc == 0, shared
    s, r = shared.json(), ref.json()
    assert (s["documents"], s["chunks"], s["embedded"]) == (r["documents"], r["chunks"], r["embedded"])
    assert graph_counts(s) == graph_counts(r)
    # Machine B never ingested: it reads everything from Neo4j, and ranks as the embedded store.
    st = on(neo4j, b, "stats", "--json")
    assert st.rc == 0, st
    assert st.json()["documents"] == 3 and st.json()["chunks"] == r["chunks"], st
    # Exact ids and scores of the top 10 for a few questions (a process each); eval compares the
    # ranks of every dev question in every mode below.
    for q in questions()[:8]:
        assert top10(("--store", neo4j.spec, "--cache", b), q) == top10(("--store", local), q), q
    ev_local = run("eval", DEV_QA, "--json", "--embedder", "native", store=local).json()
    ev_b = on(neo4j, b, "eval", DEV_QA, "--json").json()
    assert ev_b["items"] == ev_local["items"]
    assert ev_b["mrr"] == ev_local["mrr"] and ev_b["recall_at_k"] == ev_local["recall_at_k"]
    ans = on(neo4j, b, "ask", "what is multi-head attention?", "--json")
    assert ans.rc == 0 and ans.json()["citations"], ans

    # A delete through B: A stops finding the document at once, without a restart.
    victim = "attention_wiki.txt"
    assert any(h["doc"] == victim for h in on(neo4j, a, "search", "attention", "--json", "-k", "50").json()["results"])
    d = on(neo4j, b, "delete", victim, "--json")
    assert d.rc == 0, d
    hits = on(neo4j, a, "search", "attention", "--json", "-k", "50").json()["results"]
    assert hits and not any(h["doc"] == victim for h in hits)
    assert on(neo4j, a, "stats", "--json").json()["documents"] == 2
    assert neo4j.query("MATCH (d:Document {name: $n}) RETURN count(d)", {"n": victim})[0][0] == 0
    assert on(neo4j, a, "check", "--json").rc == 0


def documents_seen(neo4j, cache):
    """{name: chunks} of what machine `cache` sees, and the chunks it holds per document."""
    r = on(neo4j, cache, "stats", "--json", embedder="none")
    if r.rc != 0:
        return None
    return {d["doc"]: d["chunks"] for d in r.json()["docs"]}


def test_a_writer_killed_mid_document_leaves_nothing_half_visible(tmp_path, neo4j):
    wipe(neo4j)
    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(6):
        pdfgen.paper(docs / f"paper{i}.pdf", pages=20 + i, header=f"Header {i}")
    pdfgen.figure_paper(docs / "figures.pdf")
    for f in CORPUS.iterdir():
        (docs / f.name).write_bytes(f.read_bytes())
    ref = run("ingest", docs, "--json", store=tmp_path / "embedded")
    assert ref.rc == 0, ref
    want = {d["doc"]: d["chunks"] for d in run("stats", "--json", store=tmp_path / "embedded").json()["docs"]}
    rng = random.Random(35)
    env = dict(os.environ, MMKG_EMBEDDER="none")
    env.pop("MMKG_STORE", None)
    for attempt in range(4):
        p = subprocess.Popen([BIN, "ingest", str(docs), "--store", neo4j.spec, "--cache", str(tmp_path / "writer")],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.5, 4.0))
        p.send_signal(signal.SIGKILL)
        p.wait()
        seen = documents_seen(neo4j, tmp_path / "reader")
        if seen is None:  # killed before the store existed
            continue
        for name, chunks in seen.items():
            assert chunks == want[name], f"attempt {attempt}: {name} has {chunks} of {want[name]} chunks"
        staged = neo4j.query("MATCH (c:Chunk) WHERE NOT EXISTS { MATCH (d:Document {id: c.doc_id}) } RETURN count(c)")
        assert staged[0][0] == 0, "chunk nodes of no published document are visible to the indexes"
    done = on(neo4j, tmp_path / "writer", "ingest", docs, "--json", embedder="none")
    assert done.rc == 0, done
    assert documents_seen(neo4j, tmp_path / "reader") == want
    assert on(neo4j, tmp_path / "reader", "check", "--json", embedder="none").rc == 0


def three_folders(root):
    """Folders A, B, C (papers with figures, notes and the sample corpus), for workers over
    overlapping pairs of them."""
    folders = [root / n for n in "ABC"]
    for f in folders:
        f.mkdir(parents=True)
    for i in range(3):
        pdfgen.paper(folders[i] / f"paper{i}.pdf", pages=8 + 2 * i, header=f"Header {i}")
        (folders[i] / f"note{i}.txt").write_text(f"Note {i}.\n\n" + f"Sentence {i} about attention heads. " * 120)
    pdfgen.figure_paper(folders[0] / "figures.pdf")
    for j, f in enumerate(sorted(CORPUS.iterdir())):
        (folders[j % 3] / f.name).write_bytes(f.read_bytes())
    return folders


def shared_state(neo4j, cache):
    st = on(neo4j, cache, "stats", "--json", embedder="none").json()
    docs = sorted((d["path"], d["chunks"], d["id"]) for d in st["docs"])
    g = st["graph"]
    return docs, st["chunks"], {k: g[k] for k in ("entities", "relations", "mentions", "communities")}


def embedded_state(store):
    st = run("stats", "--json", store=store).json()
    docs = sorted((d["path"], d["chunks"], d["id"]) for d in st["docs"])
    g = st["graph"]
    return docs, st["chunks"], {k: g[k] for k in ("entities", "relations", "mentions", "communities")}


def test_three_workers_over_overlapping_folders_equal_one_ingest(tmp_path, neo4j):
    wipe(neo4j)
    a, b, c = three_folders(tmp_path / "in")
    ref = tmp_path / "embedded"
    assert run("ingest", a, b, c, "--embedder", "native", store=ref).rc == 0
    env = dict(os.environ, MMKG_EMBEDDER="native")
    env.pop("MMKG_STORE", None)
    workers = [subprocess.Popen([BIN, "ingest", str(x), str(y), "--json", "--store", neo4j.spec,
                                 "--cache", str(tmp_path / f"w{i}")], env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
               for i, (x, y) in enumerate(((a, b), (b, c), (a, c)))]
    outs = [w.communicate(timeout=900) for w in workers]
    for w, (out, err) in zip(workers, outs):
        assert w.returncode == 0, err
    reports = [json.loads(out) for out, _ in outs]
    # Every document was parsed and embedded by one worker: the others found it stored.
    assert sum(r["documents"] for r in reports) == len(embedded_state(ref)[0])
    assert sum(1 for r in reports if r.get("graph")) == 1, "one worker built the graph, for all"
    assert shared_state(neo4j, tmp_path / "reader") == embedded_state(ref)
    assert neo4j.query("MATCH (d:Document) RETURN count(d)")[0][0] == len(embedded_state(ref)[0])
    for q in questions()[:8]:
        assert top10(("--store", neo4j.spec, "--cache", tmp_path / "reader"), q) == top10(("--store", ref), q), q
    assert on(neo4j, tmp_path / "reader", "check", "--json").rc == 0


def test_killed_workers_leave_a_store_a_rerun_completes(tmp_path, neo4j):
    wipe(neo4j)
    a, b, c = three_folders(tmp_path / "in")
    ref = tmp_path / "embedded"
    assert run("ingest", a, b, c, store=ref).rc == 0
    env = dict(os.environ, MMKG_EMBEDDER="none", MMKG_CLAIM_TTL="2")
    env.pop("MMKG_STORE", None)
    rng = random.Random(7)
    for round_ in range(2):
        workers = [subprocess.Popen([BIN, "ingest", str(x), str(y), "--store", neo4j.spec,
                                     "--cache", str(tmp_path / f"w{i}")], env=env, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL)
                   for i, (x, y) in enumerate(((a, b), (b, c), (a, c)))]
        time.sleep(rng.uniform(1.0, 5.0))
        for w in workers:
            if w.poll() is None:
                w.send_signal(signal.SIGKILL)
            w.wait()
        seen = documents_seen(neo4j, tmp_path / "reader")
        want = {p.rsplit("/", 1)[1]: n for p, n, _ in embedded_state(ref)[0]}
        for name, chunks in (seen or {}).items():
            assert chunks == want[name], f"round {round_}: {name} has {chunks} of {want[name]} chunks"
    time.sleep(2.5)  # the killed workers' claims lapse
    r = subprocess.run([BIN, "ingest", str(a), str(b), str(c), "--json", "--store", neo4j.spec, "--cache",
                        str(tmp_path / "w0")], env=env, capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr
    assert shared_state(neo4j, tmp_path / "reader") == embedded_state(ref)
    assert on(neo4j, tmp_path / "reader", "check", "--json", embedder="none").rc == 0


def test_two_servers_over_one_store(tmp_path, neo4j):
    """Two `mmkg serve` (two machines: separate --cache folders) over one Neo4j: a document uploaded
    through A is listed, searched, asked about, its figure and highlighted page served, and deleted,
    through B, within seconds and without a restart; a reader polling B meanwhile never sees a
    document with fewer chunks than it has."""
    import requests
    import figgen
    from server_proc import API_KEY, Server

    wipe(neo4j)
    bearer = {"Authorization": f"Bearer {API_KEY}"}
    a = Server(neo4j.spec, tmp_path / "logs-a", "--cache", tmp_path / "cache-a", embedder="native")
    b = Server(neo4j.spec, tmp_path / "logs-b", "--cache", tmp_path / "cache-b", embedder="native")
    try:
        pdf = tmp_path / "quokka.pdf"
        figgen.paper_with_figures(pdf)
        files = [(p.name, p.read_bytes()) for p in sorted(CORPUS.iterdir())] + [("quokka.pdf", pdf.read_bytes())]
        seen, stop = [], []

        def poll_b():
            while not stop:
                r = requests.get(f"{b.url}/api/documents", timeout=60)
                if r.status_code == 200:
                    seen.extend((d["doc"], d["chunks"]) for d in r.json()["documents"])
                time.sleep(0.1)

        import threading
        reader = threading.Thread(target=poll_b)
        reader.start()
        r = requests.post(f"{a.url}/api/documents", files=[("file", f) for f in files], headers=bearer, timeout=600)
        assert r.status_code == 202, r.text
        job = r.json()["job"]["id"]
        deadline = time.monotonic() + 600
        while requests.get(f"{a.url}/api/jobs/{job}", timeout=60).json()["state"] not in ("done", "failed"):
            assert time.monotonic() < deadline
            time.sleep(0.2)
        assert requests.get(f"{a.url}/api/jobs/{job}", timeout=60).json()["state"] == "done"
        # The job is known to B too (kept in the shared store), with A's result.
        jb = requests.get(f"{b.url}/api/jobs/{job}", timeout=60)
        assert jb.status_code == 200 and jb.json()["state"] == "done", jb.text[:300]
        assert jb.json()["result"]["documents"] == len(files), jb.json()
        assert requests.get(f"{b.url}/api/jobs/j0-0-0", timeout=60).status_code == 404

        def through_b():
            names = {d["doc"]: d["chunks"] for d in requests.get(f"{b.url}/api/documents", timeout=60).json()["documents"]}
            return names if "quokka.pdf" in names and len(names) == len(files) else None
        t0 = time.monotonic()
        while not through_b():
            assert time.monotonic() - t0 < 10, "B does not list A's upload within 10 s"
            time.sleep(0.2)
        final = through_b()
        stop.append(1)
        reader.join()
        for doc, chunks in seen:
            assert chunks == final[doc], f"B listed {doc} with {chunks} of {final[doc]} chunks"

        hits = requests.get(f"{b.url}/api/search", params={"q": "quokka architecture", "k": 10}, timeout=600).json()
        figs = [h for h in hits["results"] if h["kind"] == "figure"]
        assert figs, hits
        fid = figs[0]["figure_id"]
        img_b = requests.get(f"{b.url}/api/figures/{fid}/image", timeout=60)
        img_a = requests.get(f"{a.url}/api/figures/{fid}/image", timeout=60)
        assert img_b.status_code == 200 and img_b.content[:8] == b"\x89PNG\r\n\x1a\n" and img_b.content == img_a.content
        text = [h for h in requests.get(f"{b.url}/api/search", params={"q": "quokka", "k": 10}, timeout=60).json()["results"]
                if h["doc"] == "quokka.pdf" and h["boxes"]]
        assert text
        page = text[0]["boxes"][0]["page"]
        lit = requests.get(f"{b.url}/api/documents/{text[0]['doc_id']}/pages/{page}/image",
                           params={"chunk": text[0]["chunk_id"], "zoom": 1}, timeout=60)
        assert lit.status_code == 200 and int(lit.headers["X-Highlight-Boxes"]) >= 1, lit.text[:300]
        ans = requests.post(f"{b.url}/api/ask", json={"question": "what does the quokka architecture figure show?"},
                            timeout=600)
        assert ans.status_code == 200 and ans.json()["citations"], ans.text[:500]

        # Deleted through B: A stops listing and finding it within seconds.
        assert requests.delete(f"{b.url}/api/documents/quokka.pdf", headers=bearer, timeout=60).status_code == 200
        t0 = time.monotonic()
        while "quokka.pdf" in [d["doc"] for d in requests.get(f"{a.url}/api/documents", timeout=60).json()["documents"]]:
            assert time.monotonic() - t0 < 10, "A still lists the document B deleted"
            time.sleep(0.2)
        hits = requests.get(f"{a.url}/api/search", params={"q": "quokka", "k": 20}, timeout=60).json()["results"]
        assert not any(h["doc"] == "quokka.pdf" for h in hits)
    finally:
        assert a.stop() == 0, a.log()
        assert b.stop() == 0, b.log()


def test_a_workspace_on_the_shared_store(tmp_path, neo4j):
    """A server whose default workspace is a local folder and whose workspace "team" is the store
    in Neo4j: an upload to /w/team lands in Neo4j (the CLI sees it there), is answered from there,
    and the local workspace stays empty."""
    import requests
    from server_proc import API_KEY, Server

    wipe(neo4j)
    bearer = {"Authorization": f"Bearer {API_KEY}"}
    s = Server(tmp_path / "local", tmp_path / "logs", "--cache", tmp_path / "cache",
               "--workspace", f"team={neo4j.spec}", embedder="native")
    try:
        note = b"# Team notes\n\nThe Zorblax valve of the team rig opens at 42 kPa and closes at 17 kPa.\n"
        r = requests.post(f"{s.url}/w/team/api/documents", files=[("file", ("team-notes.md", note))], headers=bearer,
                          timeout=600)
        assert r.status_code == 202, r.text
        job = r.json()["job"]["id"]
        deadline = time.monotonic() + 600
        while (j := requests.get(f"{s.url}/w/team/api/jobs/{job}", headers=bearer, timeout=60).json())["state"] not in ("done", "failed"):
            assert time.monotonic() < deadline
            time.sleep(0.2)
        assert j["state"] == "done", j
        ans = requests.post(f"{s.url}/w/team/api/ask", json={"question": "At what pressure does the Zorblax valve open?"},
                            headers=bearer, timeout=600).json()
        assert ans["citations"] and ans["citations"][0]["doc"] == "team-notes.md" and "42 kPa" in ans["answer"], ans
        assert requests.get(f"{s.url}/api/documents", headers=bearer, timeout=60).json() == {"documents": []}
    finally:
        assert s.stop() == 0, s.log()
    st = on(neo4j, tmp_path / "cache-cli", "stats", "--json")
    assert st.rc == 0 and [d["doc"] for d in st.json()["docs"]] == ["team-notes.md"], st
