"""Shared fixtures for the end-to-end suite: runs the real mmkg binary on real files."""
import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = os.environ.get("MMKG_BIN", str(ROOT / "build" / "mmkg"))
CORPUS = ROOT / "examples" / "corpus"
DEV_QA = ROOT.parent / "shared" / "eval" / "dev_qa.jsonl"


class Result:
    def __init__(self, proc):
        self.rc = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr

    def json(self):
        return json.loads(self.out)

    def __repr__(self):
        return f"rc={self.rc}\nstdout={self.out[:2000]}\nstderr={self.err[:2000]}"


def run(*args, store=None, timeout=600, env=None, prefix=()):
    cmd = list(prefix) + [BIN] + [str(a) for a in args]
    if store is not None:
        cmd += ["--store", str(store)]
    e = dict(os.environ)
    e.pop("MMKG_STORE", None)
    # Embedding is the slow part of ingest: suites that are not about dense retrieval skip it;
    # test_dense.py passes --embedder native explicitly.
    e["MMKG_EMBEDDER"] = "none"
    if env:
        e.update(env)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=e, stdin=subprocess.DEVNULL)
    return Result(p)


def llama_servers(tag):
    """Pids of the llama-cpp-python servers whose environment holds MMKG_TEST_TAG=tag: the ones
    started by an mmkg the test ran with that tag (the server inherits mmkg's environment). Not
    every such server on the machine: another test run may have its own up at the same time."""
    found = set()
    for d in pathlib.Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            if b"llama_cpp.server" not in (d / "cmdline").read_bytes():
                continue
            if f"MMKG_TEST_TAG={tag}".encode() in (d / "environ").read_bytes().split(b"\0"):
                found.add(d.name)
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return found


@pytest.fixture
def store(tmp_path):
    return tmp_path / "store"


@pytest.fixture(scope="session")
def dense_store(tmp_path_factory):
    """The sample corpus ingested with the native embedder (all-MiniLM-L6-v2)."""
    s = tmp_path_factory.mktemp("dense") / "store"
    r = run("ingest", CORPUS, "--json", "--embedder", "native", store=s)
    assert r.rc == 0, r
    return s


@pytest.fixture(scope="session")
def corpus_store(tmp_path_factory):
    s = tmp_path_factory.mktemp("corpus") / "store"
    r = run("ingest", CORPUS, "--json", store=s)
    assert r.rc == 0, r
    return s


@pytest.fixture(scope="session")
def neo4j(tmp_path_factory):
    """One real Neo4j per test process (per pytest-xdist worker), shared by the modules that need
    one: each of them empties the database before it writes."""
    from neo4j_server import Neo4j
    n = Neo4j(tmp_path_factory.mktemp("neo4j"))
    yield n
    n.stop()
