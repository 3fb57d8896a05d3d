"""Bad input never crashes, is named in one error line, and never stops the rest of the batch."""
import os
import pathlib
import tempfile
import random
import shutil

import pdfgen
from conftest import run


def make_bad_files(d):
    """Every kind of bad input the issue lists, plus two good files. Returns (good, bad) names."""
    d.mkdir(parents=True, exist_ok=True)
    (d / "good.txt").write_text("The quokka is a small marsupial that lives on Rottnest Island.\n")
    pdfgen.paper(d / "good.pdf", pages=2)
    (d / "empty.txt").write_bytes(b"")
    full = (d / "good.pdf").read_bytes()
    (d / "truncated.pdf").write_bytes(full[: len(full) // 3])
    (d / "corrupt.pdf").write_bytes(b"%PDF-1.7\n" + bytes(random.Random(1).randrange(256) for _ in range(5000)))
    pdfgen.paper(d / "encrypted.pdf", pages=2, encrypt="secret")
    (d / "photo.pdf").write_bytes(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01" + bytes(range(256)) * 20)
    (d / "random.txt").write_bytes(bytes(random.Random(2).randrange(256) for _ in range(20000)))
    (d / "invalid-utf8.txt").write_bytes("Caf\u00e9 ok \u2014 then ".encode() + b"\xff\xfe\xc3(" + b" more text\n")
    os.symlink(d / "loop_b", d / "loop_a.txt")
    os.symlink(d / "loop_a.txt", d / "loop_b")
    bad = ["empty.txt", "corrupt.pdf", "encrypted.pdf", "photo.pdf", "random.txt", "invalid-utf8.txt",
           "loop_a.txt"]
    return ["good.txt", "good.pdf"], bad


def error_lines(err):
    return [l for l in err.splitlines() if l.startswith("mmkg: error: ")]


def test_bad_inputs_are_reported_and_the_rest_goes_in(tmp_path, store):
    d = tmp_path / "in"
    good, bad = make_bad_files(d)
    r = run("ingest", d, "--json", store=store)
    assert r.rc == 1, r
    j = r.json()
    failed = {os.path.basename(f["path"]): f["error"] for f in j["failed"]}
    for name in bad:
        assert name in failed, (name, failed)
    # the truncated PDF may be repaired by MuPDF (then it is ingested) or reported; never a crash
    assert j["documents"] + len(failed) >= len(good) + len(bad)
    assert "encrypted" in failed["encrypted.pdf"]
    assert "JPEG" in failed["photo.pdf"]
    assert "empty" in failed["empty.txt"]
    assert "binary" in failed["random.txt"]
    assert "invalid UTF-8" in failed["invalid-utf8.txt"]
    assert "loop" in failed["loop_a.txt"]
    # one stderr line per failure, naming the file
    lines = error_lines(r.err)
    assert len(lines) == len(j["failed"]), r.err
    for f in j["failed"]:
        assert any(l.startswith(f"mmkg: error: {f['path']}: ") for l in lines)
    # the good files are searchable
    assert run("search", "quokka", "--json", store=store).json()["results"][0]["doc"] == "good.txt"
    hits = run("search", "zebra1", "--json", store=store).json()["results"]
    assert "good.pdf" in {h["doc"] for h in hits}


def test_unreadable_file(tmp_path, store):
    if os.geteuid() == 0:
        # an unprivileged user must be able to reach the folders: pytest's are private to root
        tmp_path = pathlib.Path(tempfile.mkdtemp(prefix="mmkg-perm-"))
        store = tmp_path / "store"
    d = tmp_path / "in"
    d.mkdir()
    (d / "ok.txt").write_text("Readable text about wombats.\n")
    secret = d / "secret.txt"
    secret.write_text("Unreadable text about numbats.\n")
    secret.chmod(0)
    prefix = ()
    if os.geteuid() == 0:
        # root reads everything: drop to an unprivileged user for this run
        setpriv = shutil.which("setpriv")
        assert setpriv, "setpriv (util-linux) is needed to test permissions as root"
        os.chmod(tmp_path, 0o777)
        d.chmod(0o777)
        (d / "ok.txt").chmod(0o644)
        prefix = (setpriv, "--reuid=65534", "--regid=65534", "--clear-groups")
    try:
        r = run("ingest", d, "--json", store=store, prefix=prefix)
    finally:
        if os.geteuid() == 0:
            shutil.rmtree(tmp_path, ignore_errors=True)
    assert r.rc == 1, r
    j = r.json()
    assert len(j["failed"]) == 1 and j["failed"][0]["path"].endswith("secret.txt")
    assert "permission denied" in j["failed"][0]["error"]
    assert j["documents"] == 1


def test_directory_symlink_loop_terminates(tmp_path, store):
    d = tmp_path / "in"
    (d / "sub").mkdir(parents=True)
    (d / "sub" / "a.txt").write_text("Text about axolotls.\n")
    os.symlink(d, d / "sub" / "up")
    r = run("ingest", d, "--json", store=store, timeout=60)
    assert r.rc == 1, r
    assert r.json()["documents"] == 1
    assert any("symlink loop" in f["error"] for f in r.json()["failed"])


def test_symlink_leading_out_of_the_folder_is_skipped_unless_followed(tmp_path, store):
    """The issue's finding: `mmkg ingest FOLDER` ingested a link.txt pointing at /etc/passwd."""
    d = tmp_path / "in"
    d.mkdir()
    (d / "notes.txt").write_text("Capybaras are the largest living rodents.\n")
    os.symlink("/etc/passwd", d / "link.txt")
    r = run("ingest", d, "--json", store=store)
    assert r.rc == 0, r
    j = r.json()
    assert j["documents"] == 1 and j["failed"] == []
    assert len(j["skipped_links"]) == 1 and j["skipped_links"][0]["path"].endswith("link.txt")
    assert "--follow-symlinks" in j["skipped_links"][0]["warning"]
    assert "link.txt" in r.err and "outside the folder" in r.err
    assert run("stats", "--json", store=store).json()["documents"] == 1
    assert run("search", "root", "--json", store=store).json()["results"] == []
    # Asked to follow it, the user gets it.
    r = run("ingest", d, "--follow-symlinks", "--json", store=store)
    assert r.rc == 0, r
    assert r.json()["documents"] == 1 and r.json()["skipped_links"] == []


def test_huge_single_line_file_is_ingested(tmp_path, store):
    f = tmp_path / "huge.txt"
    words = ["lorem", "ipsum", "dolor", "sit", "amet", "tapir", "consectetur", "adipiscing"]
    rnd = random.Random(3)
    with open(f, "w") as fh:
        written = 0
        while written < 50 * 1024 * 1024:
            s = " ".join(rnd.choice(words) for _ in range(2000)) + ". "
            fh.write(s)
            written += len(s)
    r = run("ingest", f, "--json", store=store, timeout=900)
    assert r.rc == 0, r
    assert r.json()["chunks"] > 40000
    assert run("search", "tapir", "-k", "3", "--json", store=store).json()["results"]
    # and a size limit is stated when one is set
    r = run("ingest", f, "--max-file-size", "10", "--json", store=str(store) + "2")
    assert r.rc == 1 and "--max-file-size" in r.json()["failed"][0]["error"]


def test_encodings_become_utf8(tmp_path, store):
    d = tmp_path / "enc"
    d.mkdir()
    text = "Crème brûlée and naïve café owners in Zürich.\n\nSecond paragraph about the fjord.\n"
    (d / "utf16.txt").write_bytes(text.encode("utf-16"))          # with BOM
    (d / "utf16be.txt").write_bytes(b"\xfe\xff" + text.encode("utf-16-be"))
    (d / "latin1.txt").write_bytes(text.encode("latin-1"))
    (d / "bom8.txt").write_bytes(b"\xef\xbb\xbf" + text.encode())
    r = run("ingest", d, "--json", store=store)
    assert r.rc == 0, r
    assert r.json()["documents"] == 4
    hits = run("search", "brûlée", "--json", store=store).json()["results"]
    assert len(hits) == 4
    for h in hits:
        assert "Crème brûlée and naïve café owners in Zürich." in h["text"]
        assert "\ufeff" not in h["text"] and "\x00" not in h["text"]
    # accent-insensitive search too
    assert len(run("search", "creme brulee", "--json", store=store).json()["results"]) == 4


def test_a_model_folder_that_does_not_load_is_refused_before_anything_is_written(tmp_path, store):
    """A misspelt --embedder native:PATH used to warn and build a store with no embeddings (exit 0)."""
    doc = tmp_path / "a.md"
    doc.write_text("# Quokkas\n\nThe quokka lives on Rottnest Island.\n")
    r = run("ingest", doc, "--embedder", "native:no-such-model-folder", store=store)
    assert r.rc == 2, r
    assert "--embedder native:no-such-model-folder" in r.err and "none for BM25 only" in r.err, r.err
    assert not store.exists(), list(store.iterdir())


def test_an_unknown_native_precision_is_refused_before_anything_is_written(tmp_path, store):
    """native:fp32 and native:int8 choose the precision; anything else that reads as one is refused."""
    doc = tmp_path / "a.md"
    doc.write_text("# Quokkas\n\nThe quokka lives on Rottnest Island.\n")
    r = run("ingest", doc, "--embedder", "native:fp16", store=store)
    assert r.rc == 2, r
    assert "fp16" in r.err and "fp32" in r.err and "int8" in r.err, r.err
    assert not store.exists(), list(store.iterdir())


def test_a_url_store_is_never_made_into_a_folder(tmp_path):
    """--store neo4j://USER:PASS@HOST:PORT used to create a local folder named "neo4j:" holding an
    embedded store (the password in its path). Now it names a shared store in Neo4j: a server that
    is not there is one error line without the password (exit 1), another scheme is a usage error
    (exit 2), a shared store with the graph in SQLite is refused, and nothing is written."""
    doc = tmp_path / "a.md"
    doc.write_text("# Quokkas\n\nThe quokka lives on Rottnest Island.\n")
    url = "neo4j://neo4j:s3cret@127.0.0.1:1"
    cache = tmp_path / "cache"
    try:
        for args in (("ingest", doc), ("ask", "where does the quokka live?"), ("stats",)):
            r = run(*args, "--cache", cache, store=url)
            assert r.rc == 1, r
            assert "cannot connect" in r.err and "s3cret" not in r.err, r.err
            assert len(r.err.strip().splitlines()) == 1, r.err
        r = run("ingest", doc, store="ftp://u:s3cret@host/x")
        assert r.rc == 2 and "neo4j://" in r.err and "s3cret" not in r.err, r
        r = run("stats", "--graph", "sqlite", "--cache", cache, store=url)
        assert r.rc == 2 and "graph" in r.err and "s3cret" not in r.err, r
        assert not os.path.exists("neo4j:") and not os.path.exists("ftp:"), "a folder named after the URL was made"
        assert not cache.exists() or not any(cache.rglob("mmkg.db")), "a local copy of a store that is not there"
    finally:
        for d in ("neo4j:", "ftp:"):
            if os.path.isdir(d):
                shutil.rmtree(d)


def test_a_bad_default_in_the_environment_is_a_usage_error_not_an_abort(tmp_path):
    """MMKG_EMBEDDER and MMKG_GRAPH are parsed with the command line: a bad value is one error line
    and exit 2 (it used to end the process with an uncaught exception, exit 134), --help still
    works, and a flag given on the command line overrides it."""
    store = tmp_path / "s"
    for var, value, said in (("MMKG_EMBEDDER", "bogus", "unknown embedder"),
                             ("MMKG_GRAPH", "bogus", "unknown graph backend")):
        r = run("stats", store=store, env={var: value})
        assert r.rc == 2 and said in r.err and "terminate" not in r.err, r
        assert run("--help", env={var: value}).rc == 0
    doc = tmp_path / "a.md"
    doc.write_text("# Quokkas\n\nThe quokka lives on Rottnest Island.\n")
    r = run("ingest", doc, "--embedder", "none", store=store, env={"MMKG_EMBEDDER": "bogus"})
    assert r.rc == 0, r
