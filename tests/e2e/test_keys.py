"""Scoped API keys: `mmkg keys add|list|revoke` and `mmkg serve` with a key file. A read key reads
and cannot write, a key for another workspace reads nothing, a revoked key is refused by the
running server at its next request, MMKG_API_KEY still opens everything, and the key file never
holds a key."""
import json
import subprocess

import pytest
import requests

from conftest import BIN, CORPUS, run
from server_proc import Server

T = 120


def keys(*args, store):
    p = subprocess.run([BIN, "keys", *args, "--store", str(store)], capture_output=True, text=True, timeout=T)
    return p


def add(store, name, scope, *workspaces):
    ws = [a for w in workspaces for a in ("--workspace", w)]
    p = keys("add", "--name", name, "--scope", scope, *ws, "--json", store=store)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    store = tmp_path_factory.mktemp("keys") / "store"
    assert run("ingest", CORPUS / "attention_wiki.txt", store=store).rc == 0
    made = {"reader": add(store, "reader", "read", "default"),
            "writer": add(store, "writer", "write", "default"),
            "other": add(store, "other team", "write", "other"),
            "all": add(store, "admin", "write", "*")}
    s = Server(store, tmp_path_factory.mktemp("keys-logs"), "--auth", "all", key="master-key")
    yield store, s, made
    assert s.stop() == 0, s.log()


def get(s, key, path="/api/documents"):
    return requests.get(s.url + path, headers={"Authorization": f"Bearer {key}"} if key else {}, timeout=T)


def delete(s, key, doc="nothing-like-this"):
    return requests.delete(f"{s.url}/api/documents/{doc}", headers={"X-API-Key": key}, timeout=T)


def test_the_key_file_keeps_hashes_only(served):
    store, _, made = served
    text = (store / "keys.json").read_text()
    for k in made.values():
        assert k["key"].startswith("mmkg_") and k["key"] not in text and k["key"].split("_")[2] not in text
    listed = json.loads(keys("list", "--json", store=store).stdout)
    assert sorted(k["name"] for k in listed["keys"]) == ["admin", "other team", "reader", "writer"]
    assert all(set(k) == {"id", "name", "scope", "workspaces", "created"} for k in listed["keys"])


def test_scopes_and_workspaces_on_the_routes(served):
    _, s, made = served
    reader, writer, other, admin = (made[n]["key"] for n in ("reader", "writer", "other", "all"))
    # Reads: every read route answers a read key of this workspace, and refuses the other one.
    for path in ("/api/documents", "/api/stats", "/api/search?q=attention", "/api/jobs", "/v1/models"):
        assert get(s, reader, path).status_code == 200, path
        r = get(s, other, path)
        assert r.status_code == 403 and "workspace 'default'" in r.json()["error"]["message"], (path, r.text)
        assert get(s, None, path).status_code == 401, path
    r = requests.post(s.url + "/api/ask", json={"question": "what is attention?"}, timeout=T,
                      headers={"X-API-Key": reader})
    assert r.status_code == 200 and r.json()["citations"], r.text
    # Writes: a read key is refused with 403, a write key of this workspace passes the check
    # (the document does not exist: 404), a write key of another workspace is refused.
    r = delete(s, reader)
    assert r.status_code == 403 and "read only" in r.json()["error"]["message"], r.text
    assert delete(s, writer).status_code == 404
    assert delete(s, admin).status_code == 404
    assert delete(s, other).status_code == 403
    assert delete(s, "master-key").status_code == 404  # MMKG_API_KEY opens everything, as before
    assert get(s, "mmkg_000000000000_" + "0" * 64).status_code == 401
    assert requests.get(s.url + "/health", timeout=T).status_code == 200  # open


def test_revoke_takes_effect_on_the_running_server(served):
    store, s, _ = served
    k = add(store, "short-lived", "read", "default")
    assert get(s, k["key"]).status_code == 200  # added while the server runs: known at once
    p = keys("revoke", k["id"][:6], "--json", store=store)
    assert p.returncode == 0 and json.loads(p.stdout)["revoked"]["name"] == "short-lived", p.stderr
    assert get(s, k["key"]).status_code == 401


def test_cli_errors(tmp_path):
    store = tmp_path / "s"
    for args, words in ((["add", "--name", "x", "--scope", "admin", "--workspace", "a"], "scope"),
                        (["add", "--name", "x"], "--workspace"),
                        (["add", "--name", "x", "--workspace", "a b"], "workspace name"),
                        (["revoke", "nope"], "no key")):
        p = keys(*args, store=store)
        assert p.returncode == 2 and words in p.stderr, (args, p.stderr)
    (tmp_path / "bad.json").write_text("{}")
    p = subprocess.run([BIN, "keys", "list", "--keys", str(tmp_path / "bad.json")], capture_output=True, text=True)
    assert p.returncode == 1 and "not an mmkg key file" in p.stderr, p.stderr
