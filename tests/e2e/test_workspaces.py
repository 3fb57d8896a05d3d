"""Workspaces: one `mmkg serve` holding three stores (default, alpha, beta), chosen per request by
the path prefix /w/NAME or the X-MMKG-Workspace header, with scoped keys from a key file. Every
route of the OpenAPI document is tried with a key for alpha against beta (by prefix and by header)
and must refuse it; the same route answers beta's own key. Unknown and malformed workspace names,
uploads into one workspace only, the openai package and the MCP SDK on a workspace's prefix, and
the command line's checks of --workspace."""
import asyncio
import json
import re
import subprocess

import pytest
import requests

from conftest import BIN, run
from server_proc import Server
from test_server import SPEC, check

T = 120
ALPHA_FACT = "The Zorblax valve of the alpha rig opens at 42 kPa and closes at 17 kPa."
BETA_FACT = "The Quendril pump of the beta line turns at 7 rpm when the tank is full."
SECRET = "Quendril"  # a word only beta's document holds
SECRETS = (SECRET, "beta-notes")  # its text and its name


def add_key(keys, name, scope, *workspaces):
    ws = [a for w in workspaces for a in ("--workspace", w)]
    p = subprocess.run([BIN, "keys", "add", "--keys", str(keys), "--name", name, "--scope", scope, *ws, "--json"],
                       capture_output=True, text=True, timeout=T)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)["key"]


@pytest.fixture(scope="module")
def spaces(tmp_path_factory):
    root = tmp_path_factory.mktemp("workspaces")
    for name, text in (("alpha", ALPHA_FACT), ("beta", BETA_FACT)):
        (root / f"{name}-notes.md").write_text(f"# {name.title()} notes\n\n{text}\n")
        assert run("ingest", root / f"{name}-notes.md", store=root / name).rc == 0
    keys = root / "keys.json"
    made = {"alpha": add_key(keys, "alpha reader", "read", "alpha"),
            "alpha-writer": add_key(keys, "alpha writer", "write", "alpha"),
            "beta": add_key(keys, "beta reader", "read", "beta"),
            "beta-writer": add_key(keys, "beta writer", "write", "beta"),
            "all": add_key(keys, "auditor", "read", "*")}
    # No --auth: with workspaces, reads need a key too.
    s = Server(root / "default", root / "logs", "--keys", keys, "--workspace", f"alpha={root / 'alpha'}",
               "--workspace", f"beta={root / 'beta'}", "--json", key="master-key")
    yield s, made, root
    assert s.stop() == 0, s.log()


def hdr(key, workspace=None):
    h = {"Authorization": f"Bearer {key}"}
    if workspace:
        h["X-MMKG-Workspace"] = workspace
    return h


def beta_ids(s, key):
    """Real ids of beta's document and chunk, so every route is tried on something that exists."""
    hits = requests.get(f"{s.url}/w/beta/api/search", params={"q": "Quendril pump"}, headers=hdr(key), timeout=T)
    assert hits.status_code == 200, hits.text
    hit = hits.json()["results"][0]
    return {"key": "beta-notes.md", "id": hit["chunk_id"], "name": SECRET, "n": "1"}


BODIES = {
    ("/api/search", "post"): {"query": "Quendril pump"},
    ("/api/ask", "post"): {"question": "How fast does the Quendril pump turn?"},
    ("/v1/chat/completions", "post"): {"model": "mmkg", "messages": [{"role": "user", "content": "Quendril pump speed?"}]},
    ("/api/chat", "post"): {"model": "mmkg", "stream": False, "messages": [{"role": "user", "content": "Quendril?"}]},
    ("/mcp", "post"): {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "search", "arguments": {"query": "Quendril"}}},
}
# Routes that show no workspace's data: any valid key reads them.
SERVER_WIDE = {"/metrics", "/api/workspaces", "/api/tags", "/api/version"}


def call(s, method, path, headers, ids, prefix=""):
    url = s.url + prefix + re.sub(r"\{(\w+)\}", lambda m: ids[m.group(1)], path)
    if (path, method) == ("/api/documents", "post"):
        return requests.post(url, files={"file": ("x.md", b"# X\n\nQuendril again.\n")}, headers=headers, timeout=T)
    if (path, method) == ("/api/jobs/{id}/events", "get"):
        headers = {**headers, "Accept": "text/event-stream"}
    return requests.request(method.upper(), url, json=BODIES.get((path, method)), headers=headers, timeout=T)


def test_a_key_for_alpha_never_reads_beta_on_any_route(spaces):
    s, keys, _ = spaces
    ids = beta_ids(s, keys["beta"])
    tried = 0
    for path, item in SPEC["paths"].items():
        for method in item:
            if method not in ("get", "post", "delete"):
                continue
            for how in ("prefix", "header"):
                p = "/w/beta" if how == "prefix" else ""
                r = call(s, method, path, hdr(keys["alpha"], None if how == "prefix" else "beta"), ids, p)
                tried += 1
                assert not any(x in r.text for x in SECRETS), (method, p, how, r.status_code, r.text[:300])
                if path in SERVER_WIDE:
                    assert r.status_code == 200, (method, p, r.text[:300])
                else:
                    assert r.status_code == 403, (method, p, how, r.status_code, r.text[:300])
                    assert "'beta'" in r.json()["error"]["message"]
    assert tried >= 2 * 26
    # The routes are real: beta's own read key reads them (writes: 403 read-only, not 'beta').
    for path in ("/api/documents", "/api/chunks/{id}", "/api/entities/{name}"):
        r = call(s, "get", path, hdr(keys["beta"]), ids, "/w/beta")
        assert r.status_code == 200 and any(x in r.text for x in SECRETS), (path, r.text[:300])
    r = call(s, "post", "/api/ask", hdr(keys["beta"]), ids, "/w/beta")
    assert r.status_code == 200 and r.json()["citations"][0]["doc"] == "beta-notes.md", r.text[:500]
    r = call(s, "delete", "/api/documents/{key}", hdr(keys["beta"]), ids, "/w/beta")
    assert r.status_code == 403 and "read only" in r.text


def test_workspace_list_shows_what_the_key_may_read(spaces):
    s, keys, _ = spaces
    for key, names in ((keys["alpha"], ["alpha"]), (keys["all"], ["default", "alpha", "beta"]),
                       ("master-key", ["default", "alpha", "beta"])):
        body = check(requests.get(f"{s.url}/api/workspaces", headers=hdr(key), timeout=T), "/api/workspaces", status=200)
        assert [w["name"] for w in body["workspaces"]] == names, body
    body = requests.get(f"{s.url}/api/workspaces", headers=hdr(keys["all"]), timeout=T).json()
    assert {w["name"]: w["documents"] for w in body["workspaces"]} == {"default": 0, "alpha": 1, "beta": 1}
    assert requests.get(f"{s.url}/api/workspaces", timeout=T).status_code == 401
    # Per-workspace gauges.
    text = requests.get(f"{s.url}/metrics", headers=hdr(keys["alpha"]), timeout=T).text
    assert 'mmkg_ingest_jobs{workspace="beta",state="queued"} 0' in text


def test_unknown_and_malformed_workspaces(spaces):
    s, keys, _ = spaces
    r = requests.get(f"{s.url}/w/gamma/api/documents", headers=hdr(keys["all"]), timeout=T)
    assert r.status_code == 404 and "no workspace 'gamma'" in r.json()["error"]["message"], r.text
    # A key for one workspace learns nothing of which others exist.
    assert requests.get(f"{s.url}/w/gamma/api/documents", headers=hdr(keys["alpha"]), timeout=T).status_code == 403
    r = requests.get(f"{s.url}/api/documents", headers=hdr(keys["all"], "bad name!"), timeout=T)
    assert r.status_code == 400 and "workspace name" in r.json()["error"]["message"], r.text
    r = requests.get(f"{s.url}/w/alpha/api/documents", headers=hdr(keys["all"], "beta"), timeout=T)
    assert r.status_code == 400 and "'alpha'" in r.text and "'beta'" in r.text, r.text
    # The default workspace: unprefixed, by name, and /health open there only.
    for url, h in ((f"{s.url}/api/documents", hdr("master-key")), (f"{s.url}/w/default/api/documents", hdr("master-key"))):
        assert requests.get(url, headers=h, timeout=T).json() == {"documents": []}
    assert requests.get(f"{s.url}/health", timeout=T).status_code == 200
    assert requests.get(f"{s.url}/w/beta/health", timeout=T).status_code == 401


def test_upload_lands_in_its_workspace_only(spaces):
    s, keys, _ = spaces
    files = {"file": ("gamma-notes.md", b"# Gamma\n\nThe Vexmoor gauge reads 3 bar.\n")}
    r = requests.post(f"{s.url}/w/alpha/api/documents", files=files, headers=hdr(keys["beta-writer"]), timeout=T)
    assert r.status_code == 403, r.text
    r = requests.post(f"{s.url}/w/alpha/api/documents", files=files, headers=hdr(keys["alpha-writer"]), timeout=T)
    assert r.status_code == 202, r.text
    job = r.json()["job"]["id"]
    with requests.get(f"{s.url}/w/alpha/api/jobs/{job}/events", headers={**hdr(keys["alpha"]), "Accept": "text/event-stream"},
                      stream=True, timeout=T) as ev:
        assert '"state":"done"' in ev.text.replace(" ", ""), ev.text[-500:]
    names = [d["doc"] for d in requests.get(f"{s.url}/w/alpha/api/documents", headers=hdr(keys["alpha"]), timeout=T).json()["documents"]]
    assert sorted(names) == ["alpha-notes.md", "gamma-notes.md"]
    beta = requests.get(f"{s.url}/w/beta/api/documents", headers=hdr(keys["beta"]), timeout=T).json()["documents"]
    assert [d["doc"] for d in beta] == ["beta-notes.md"]
    # alpha's job is not beta's, even to a key that reads both.
    assert requests.get(f"{s.url}/w/beta/api/jobs/{job}", headers=hdr(keys["all"]), timeout=T).status_code == 404
    assert requests.get(f"{s.url}/w/alpha/api/jobs/{job}", headers=hdr(keys["all"]), timeout=T).status_code == 200


def test_openai_client_on_a_workspace_prefix(spaces):
    from openai import OpenAI, PermissionDeniedError
    s, keys, _ = spaces
    client = OpenAI(base_url=f"{s.url}/w/beta/v1", api_key=keys["beta"], max_retries=0, timeout=T)
    out = client.chat.completions.create(model="mmkg", messages=[{"role": "user", "content": "How fast does the Quendril pump turn?"}])
    text = out.choices[0].message.content
    assert "7 rpm" in text and "beta-notes.md" in text, text
    wrong = OpenAI(base_url=f"{s.url}/w/beta/v1", api_key=keys["alpha"], max_retries=0, timeout=T)
    with pytest.raises(PermissionDeniedError):
        wrong.chat.completions.create(model="mmkg", messages=[{"role": "user", "content": "Quendril?"}])


def test_mcp_client_on_a_workspace_prefix(spaces):
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    s, keys, _ = spaces

    async def documents(key):
        http = httpx2.AsyncClient(headers=hdr(key), timeout=httpx2.Timeout(60))
        async with Client(streamable_http_client(f"{s.url}/w/alpha/mcp", http_client=http)) as c:
            res = await c.call_tool("list_documents", {})
            return json.dumps(res.structured_content)

    listed = asyncio.run(asyncio.wait_for(documents(keys["alpha"]), T))
    assert "alpha-notes.md" in listed and "beta-notes" not in listed, listed
    with pytest.raises(Exception) as refused:
        asyncio.run(asyncio.wait_for(documents(keys["beta"]), T))

    def messages(e):
        return [str(e)] + [m for x in getattr(e, "exceptions", ()) for m in messages(x)]
    # The SDK hides the status (403: the route loop above checks it); the refusal is the server's.
    assert any("error response" in m for m in messages(refused.value)), messages(refused.value)


def test_serve_checks_its_workspaces(tmp_path):
    for args, words in ((["--workspace", "default=" + str(tmp_path / "x")], "default"),
                        (["--workspace", "a b=" + str(tmp_path / "x")], "workspace name"),
                        (["--workspace", "nostore"], "NAME=STORE"),
                        (["--workspace", f"a={tmp_path / 's'}", "--workspace", f"b={tmp_path / 's'}"], "same store")):
        p = subprocess.run([BIN, "serve", "--port", "0", "--llm", "none", "--store", str(tmp_path / "s0"), *args],
                           capture_output=True, text=True, timeout=T, env={"MMKG_EMBEDDER": "none", "PATH": "/usr/bin:/bin"})
        assert p.returncode == 2 and words in p.stderr, (args, p.returncode, p.stderr)


def test_workspaces_dir_finds_new_workspaces_while_serving(tmp_path):
    """--workspaces-dir: a subfolder made while the server runs (an empty one, or a store `mmkg
    ingest` filled) is a workspace at the next request, listed, read and written; a name with no
    subfolder stays 404."""
    root = tmp_path / "spaces"
    s = Server(tmp_path / "default", tmp_path / "logs", "--workspaces-dir", root, "--auth", "none", key=None)
    try:
        def listed():
            r = requests.get(f"{s.url}/api/workspaces", timeout=T)
            assert r.status_code == 200, r.text
            return {w["name"]: w["documents"] for w in r.json()["workspaces"]}
        assert listed() == {"default": 0}
        (root / "gamma").mkdir()
        (tmp_path / "delta-notes.md").write_text("# Delta\n\nThe Vexmoor gauge of the delta plant reads 3 bar.\n")
        assert run("ingest", tmp_path / "delta-notes.md", store=root / "delta").rc == 0
        assert listed() == {"default": 0, "delta": 1, "gamma": 0}
        r = requests.post(f"{s.url}/w/delta/api/ask", json={"question": "What does the Vexmoor gauge read?"}, timeout=T)
        assert r.status_code == 200 and r.json()["citations"][0]["doc"] == "delta-notes.md", r.text[:400]
        r = requests.post(f"{s.url}/w/gamma/api/documents", files={"file": ("g.md", b"# G\n\nGamma text.\n")}, timeout=T)
        assert r.status_code == 202, r.text
        assert requests.get(f"{s.url}/w/epsilon/api/documents", timeout=T).status_code == 404
        assert requests.get(f"{s.url}/api/documents", timeout=T).json() == {"documents": []}
    finally:
        assert s.stop() == 0, s.log()
