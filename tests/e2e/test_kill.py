"""SIGKILL during ingest at random moments, then a re-run, gives the same store as one clean run."""
import random
import signal
import sqlite3
import subprocess
import time

import pdfgen
from conftest import BIN, CORPUS, run


def dump(store):
    """The store's logical content, independent of row ids and timestamps."""
    db = sqlite3.connect(str(store / "mmkg.db"))
    docs = sorted(db.execute("SELECT id, path, name, format, title, bytes, pages, chunks, text FROM documents"))
    chunks = sorted(db.execute(
        "SELECT id, doc_id, seq, page_start, page_end, heading_path, start_off, end_off, text FROM chunks"))
    fts = db.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'attention OR zebra1'").fetchone()
    db.execute("INSERT INTO chunks_fts(chunks_fts, rank) VALUES('integrity-check', 1)")
    # The knowledge graph: every document in it exactly once, nothing counted twice. (Entity names
    # and ids may differ with the order documents reached the graph, so sizes are compared.)
    graph = (db.execute("SELECT count(*) FROM graph_docs").fetchone(),
             db.execute("SELECT count(*) FROM graph_entities").fetchone(),
             db.execute("SELECT count(*), sum(count) FROM graph_mentions").fetchone(),
             db.execute("SELECT count(*), round(sum(weight), 3) FROM graph_relations").fetchone())
    db.close()
    return docs, chunks, fts, graph


def make_inputs(d):
    d.mkdir()
    for f in CORPUS.iterdir():
        (d / f.name).write_bytes(f.read_bytes())
    for i in range(6):
        pdfgen.paper(d / f"paper{i}.pdf", pages=30 + i, header=f"Header {i}")
    for i in range(40):
        (d / f"note{i}.txt").write_text(f"Note {i}.\n\n" + (f"Sentence {i} about attention and zebra1. " * 200))
    return d


def test_kill_and_resume_gives_same_store(tmp_path):
    inputs = make_inputs(tmp_path / "in")
    ref = tmp_path / "ref"
    assert run("ingest", inputs, store=ref).rc == 0
    expected = dump(ref)
    t0 = time.monotonic()
    run("ingest", inputs, store=tmp_path / "timing")
    full = time.monotonic() - t0

    rnd = random.Random(42)
    for trial in range(4):
        store = tmp_path / f"killed{trial}"
        kills = 0
        for _ in range(3):  # kill repeatedly before letting it finish
            p = subprocess.Popen([BIN, "ingest", str(inputs), "--store", str(store)], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            time.sleep(rnd.uniform(0.0, max(full, 0.05)))
            if p.poll() is None:
                p.send_signal(signal.SIGKILL)
                kills += 1
            p.wait()
        r = run("ingest", inputs, "--json", store=store)
        assert r.rc == 0, r
        assert dump(store) == expected, f"trial {trial} after {kills} kills"
