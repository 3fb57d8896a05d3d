"""Faults tried on purpose (issue 15): SIGKILL at random moments of ingest with embeddings and the
graph, of re-embedding and of delete; two writers at once; a full disk; a read-only store; corrupt
files. After each fault `mmkg check` must pass, and a re-run must finish with no error and give the
same store as an uninterrupted run. Bounded in time: a few seeds each here; the long soak run is
bench/fault_soak.py (docs/BENCHMARKS.md)."""
import contextlib
import os
import random
import shutil
import signal
import subprocess
import time

import pytest

import pdfgen
from conftest import BIN, CORPUS, run
from test_kill import dump

NATIVE = {"MMKG_EMBEDDER": "native"}


# The fault tests need an ingest long enough to be killed in every stage, not a big corpus: each
# corpus file is cut to its first INPUT_BYTES (at a paragraph end), which keeps every kind of
# document (plain text, PDFs with headers) and a few seconds of embedding and graph work.
INPUT_BYTES = 30_000


def make_inputs(d):
    d.mkdir(parents=True)
    for f in CORPUS.iterdir():
        text = f.read_text(encoding="utf-8")
        if len(text) > INPUT_BYTES:
            cut = text.rfind("\n\n", 0, INPUT_BYTES)
            text = text[:cut if cut > 0 else INPUT_BYTES] + "\n"
        (d / f.name).write_text(text, encoding="utf-8")
    for i in range(2):
        pdfgen.paper(d / f"paper{i}.pdf", pages=6 + i, header=f"Header {i}")
    return d


def full_dump(store):
    """dump() plus the embeddings and the vector index (through check)."""
    import sqlite3
    db = sqlite3.connect(str(store / "mmkg.db"))
    vectors = db.execute("SELECT count(*) FROM chunks c JOIN embeddings e ON e.text_hash = c.text_hash").fetchone()
    db.close()
    c = run("check", "--json", store=store, env=NATIVE)
    assert c.rc == 0, c
    checks = {x["name"]: x for x in c.json()["checks"]}
    return dump(store), vectors, checks["vectors"]["detail"].split(" (")[0]


def check_ok(store, what):
    c = run("check", "--json", store=store, env=NATIVE)
    assert c.rc == 0, f"{what}: {c.out} {c.err}"
    return {x["name"]: x for x in c.json()["checks"]}


def killed_runs(args, store, rnd, full, env, times=2):
    """Starts `mmkg ARGS --store STORE` `times` times, each killed after a random fraction of
    `full` seconds; after each kill the store must pass check. Returns how many kills landed."""
    kills = 0
    e = dict(os.environ, **env)
    e.pop("MMKG_STORE", None)
    for _ in range(times):
        p = subprocess.Popen([BIN, *map(str, args), "--store", str(store)], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, env=e)
        time.sleep(rnd.uniform(0.0, full))
        if p.poll() is None:
            p.send_signal(signal.SIGKILL)
            kills += 1
        p.wait()
        if (store / "mmkg.db").exists():
            check_ok(store, f"after a kill of {args[0]}")
    return kills


def timed(args, store, env):
    t0 = time.monotonic()
    r = run(*args, "--json", store=store, env=env)
    assert r.rc == 0, r
    return time.monotonic() - t0


def test_kill_during_ingest_with_embeddings_and_graph(tmp_path):
    inputs = make_inputs(tmp_path / "in")
    ref = tmp_path / "ref"
    full = timed(["ingest", inputs], ref, NATIVE)
    expected = full_dump(ref)
    rnd = random.Random(15)
    kills = trial = 0
    # A kill drawn late in the reference run's time misses a run that goes faster than the
    # reference did (the machine's load changed): trials go on until four kills have landed.
    while trial < 4 or (kills < 4 and trial < 10):
        store = tmp_path / f"k{trial}"
        kills += killed_runs(["ingest", inputs], store, rnd, full, NATIVE)
        r = run("ingest", inputs, "--json", store=store, env=NATIVE)
        assert r.rc == 0, r
        assert full_dump(store) == expected, f"trial {trial}"
        assert check_ok(store, "after the re-run")["files"]["detail"] == "no leftover files"
        trial += 1
    assert kills >= 4, f"the kills must land while ingest runs: {kills} in {trial} trials"


def test_kill_during_re_embedding(tmp_path):
    """Chunks stored without vectors (--embedder none), then embedded by a later ingest: killed."""
    inputs = make_inputs(tmp_path / "in")
    ref = tmp_path / "ref"
    assert run("ingest", inputs, store=ref).rc == 0
    full = timed(["ingest", inputs], ref, NATIVE)
    expected = full_dump(ref)
    rnd = random.Random(7)
    for trial in range(3):
        store = tmp_path / f"k{trial}"
        assert run("ingest", inputs, store=store).rc == 0
        killed_runs(["ingest", inputs], store, rnd, full, NATIVE)
        r = run("ingest", inputs, "--json", store=store, env=NATIVE)
        assert r.rc == 0, r
        assert full_dump(store) == expected, f"trial {trial}"


def test_kill_while_the_embedding_stage_runs(tmp_path):
    """Documents are committed before they are embedded (issue 15): killed once every document is
    stored and searchable but not every chunk has its vector, the store checks clean, and the
    re-run skips the documents and embeds exactly the chunks without vectors."""
    import sqlite3
    inputs = make_inputs(tmp_path / "in")
    n_files = len(list(inputs.iterdir()))
    store = tmp_path / "s"
    # One embedding thread: the embedding stage runs well behind the writer.
    e = dict(os.environ, **NATIVE, MMKG_EMBED_THREADS="1")
    e.pop("MMKG_STORE", None)
    p = subprocess.Popen([BIN, "ingest", str(inputs), "--store", str(store)], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, env=e)
    caught = None
    deadline = time.monotonic() + 120
    while p.poll() is None and time.monotonic() < deadline and caught is None:
        time.sleep(0.05)
        if not (store / "mmkg.db").exists():
            continue
        try:
            db = sqlite3.connect(f"file:{store / 'mmkg.db'}?mode=ro", uri=True, timeout=5)
            docs = db.execute("SELECT count(*) FROM documents").fetchone()[0]
            chunks, with_vec = db.execute(
                "SELECT count(*), count(e.text_hash) FROM chunks c "
                "LEFT JOIN embeddings e ON e.text_hash = c.text_hash").fetchone()
            found = db.execute("SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH 'attention'").fetchone()[0]
            db.close()
        except sqlite3.OperationalError:  # the schema is being made
            continue
        if docs == n_files and with_vec < chunks:
            p.send_signal(signal.SIGKILL)
            caught = (chunks, with_vec, found)
    p.kill()
    p.wait()
    assert caught, "the embedding stage was done before every document was committed"
    assert caught[2] > 0, "BM25 finds the committed documents before their vectors"
    checks = check_ok(store, "after a kill in the embedding stage")
    db = sqlite3.connect(str(store / "mmkg.db"))
    missing = db.execute("SELECT count(*) FROM chunks c WHERE NOT EXISTS "
                         "(SELECT 1 FROM embeddings e WHERE e.text_hash = c.text_hash)").fetchone()[0]
    db.close()
    assert missing > 0 and f"{missing} without a vector" in checks["vectors"]["detail"], checks["vectors"]
    r = run("ingest", inputs, "--json", store=store, env=NATIVE)
    assert r.rc == 0, r
    j = r.json()
    assert j["documents"] == 0 and j["skipped"] == n_files, j
    assert j["embedded"] == missing, j
    checks = check_ok(store, "after the re-run")
    assert "without a vector" not in checks["vectors"]["detail"], checks["vectors"]


def test_kill_during_delete(tmp_path):
    inputs = make_inputs(tmp_path / "in")
    names = ["attention_papers.txt", "paper0.pdf", "attention_wiki.txt"]
    ref = tmp_path / "ref"
    assert run("ingest", inputs, store=ref, env=NATIVE).rc == 0
    full = timed(["delete", *names], ref, NATIVE)
    expected = full_dump(ref)
    base = tmp_path / "base"
    assert run("ingest", inputs, store=base, env=NATIVE).rc == 0
    rnd = random.Random(3)
    for trial in range(4):
        store = tmp_path / f"k{trial}"
        shutil.copytree(base, store)
        killed_runs(["delete", *names], store, rnd, max(full, 0.5), NATIVE, times=1)
        # The re-run deletes what is left (a name already gone is "not found": exit 1, said so).
        left = [n for n in names if run("delete", n, store=store, env=NATIVE).rc == 0]
        assert full_dump(store) == expected, f"trial {trial} (re-run deleted {left})"


def test_two_writers_at_once_give_the_serial_store(tmp_path):
    a = make_inputs(tmp_path / "a")
    b = tmp_path / "b"
    b.mkdir()
    shutil.copy(a / "attention_wiki.txt", b / "attention_wiki.txt")  # overlap: same file in both
    pdfgen.paper(b / "other.pdf", pages=5, header="Other")
    # The file both folders hold is stored once, under the path of whichever writer came first.
    expected = []
    for order in ((a, b), (b, a)):
        ref = tmp_path / f"ref-{order[0].name}"
        for d in order:
            assert run("ingest", d, store=ref, env=NATIVE).rc == 0
        expected.append(full_dump(ref))
    store = tmp_path / "store"
    e = dict(os.environ, **NATIVE)
    procs = [subprocess.Popen([BIN, "ingest", str(d), "--json", "--store", str(store)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=e) for d in (a, b)]
    outs = [p.communicate(timeout=600) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
    assert any("waiting for it to finish" in err for _, err in outs), "the second writer waits for the first"
    assert full_dump(store) in expected


@contextlib.contextmanager
def tmpfs(path, size):
    """A small tmpfs at `path` (root, or a user namespace allowed to mount); skips otherwise."""
    path.mkdir(parents=True, exist_ok=True)
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)], capture_output=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({r.stderr.decode().strip()}); the full-disk and read-only "
                    "store tests need root")
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], capture_output=True)


def test_full_disk_is_a_clear_error_and_the_store_stays_consistent(tmp_path):
    inputs = make_inputs(tmp_path / "in")
    ref = tmp_path / "ref"
    assert run("ingest", inputs, store=ref, env=NATIVE).rc == 0
    expected = full_dump(ref)
    with tmpfs(tmp_path / "mnt", "1m") as mnt:
        store = mnt / "store"
        r = run("ingest", inputs, "--json", store=store, env=NATIVE)
        assert r.rc != 0, r
        errors = [l for l in r.err.splitlines() if l.startswith("mmkg: error:")]
        assert errors and all("disk full" in l or "No space" in l for l in errors), r.err
        check_ok(store, "after a full disk")
        # Space again: the re-run finishes and gives the store of a run that never hit the wall.
        subprocess.run(["mount", "-o", "remount,size=200m", str(mnt)], check=True)
        r = run("ingest", inputs, "--json", store=store, env=NATIVE)
        assert r.rc == 0, r
        got = full_dump(store)
        # Paths differ only in the folder (the inputs are the same files).
        assert got == expected


def snapshot_files(d):
    return {p.relative_to(d): (p.stat().st_size, p.read_bytes()) for p in sorted(d.rglob("*")) if p.is_file()}


def test_read_only_store_answers_and_refuses_writes_cleanly(tmp_path):
    inputs = make_inputs(tmp_path / "in")
    with tmpfs(tmp_path / "mnt", "100m") as mnt:
        store = mnt / "store"
        assert run("ingest", inputs, store=store, env=NATIVE).rc == 0
        subprocess.run(["mount", "-o", "remount,ro", str(mnt)], check=True)
        before = snapshot_files(store)
        s = run("search", "what is attention", "--json", store=store, env=NATIVE)
        assert s.rc == 0 and s.json()["results"], s
        a = run("ask", "what is attention?", "--json", store=store, env=NATIVE)
        assert a.rc == 0 and a.json()["found"], a
        assert "warning" not in a.err, a.err
        check_ok(store, "read-only")
        extra = tmp_path / "extra.txt"
        extra.write_text("Okapis live in the Ituri forest.\n")
        for args in (["ingest", extra], ["delete", "attention_wiki.txt"]):
            r = run(*args, store=store, env=NATIVE)
            assert r.rc != 0, r
            errors = [l for l in r.err.splitlines() if l.startswith("mmkg: error:")]
            assert len(errors) == 1 and "read-only" in errors[0], r.err
        assert snapshot_files(store) == before, "nothing half-written"


def test_corrupt_database_wal_and_vector_index(tmp_path):
    inputs = make_inputs(tmp_path / "in")
    base = tmp_path / "base"
    assert run("ingest", inputs, store=base, env=NATIVE).rc == 0
    # The vector index: truncated or overwritten, it is rebuilt from the database, with a message.
    for how in ("truncate", "garbage"):
        store = tmp_path / f"vec-{how}"
        shutil.copytree(base, store)
        idx = store / "vectors.idx"
        data = idx.read_bytes()
        idx.write_bytes(data[: len(data) // 2] if how == "truncate" else bytes(random.Random(1).randrange(256)
                                                                                for _ in range(len(data))))
        r = run("search", "attention", "--json", store=store, env=NATIVE)
        assert r.rc == 0 and r.json()["results"], r
        checks = check_ok(store, f"vector index {how}")
        assert "of" in checks["vectors"]["detail"]
    # The database: truncated, or its header overwritten: refused with one clear line, no crash.
    for how in ("truncate", "header"):
        store = tmp_path / f"db-{how}"
        shutil.copytree(base, store)
        db = store / "mmkg.db"
        data = db.read_bytes()
        db.write_bytes(data[: len(data) // 3] if how == "truncate" else b"\0" * 100 + data[100:])
        for args in (["search", "attention"], ["check"], ["ingest", inputs]):
            r = run(*args, store=store, env=NATIVE)
            assert r.rc == 1, f"{how} {args}: exit {r.rc}: {r.err}"
            errors = [l for l in r.err.splitlines() if l.startswith("mmkg: error:")]
            assert len(errors) >= 1 and ("mmkg.db" in errors[0] or "database" in errors[0]), r.err
    # A torn WAL: a writer killed, then the tail of its WAL lost (a crash of the machine during a
    # commit). SQLite drops the torn frames; the store is consistent and a re-run completes.
    rnd = random.Random(5)
    for trial in range(3):
        store = tmp_path / f"wal{trial}"
        shutil.copytree(base, store)
        extra = tmp_path / f"extra{trial}"
        extra.mkdir()
        pdfgen.paper(extra / "more.pdf", pages=12, header="More")
        killed_runs(["ingest", extra], store, rnd, 3.0, NATIVE, times=1)
        wal = store / "mmkg.db-wal"
        if wal.exists() and wal.stat().st_size > 4096:
            data = wal.read_bytes()
            wal.write_bytes(data[: rnd.randrange(32, len(data))])
        check_ok(store, "torn WAL")
        r = run("ingest", extra, "--json", store=store, env=NATIVE)
        assert r.rc == 0, r
        check_ok(store, "after the re-run")
