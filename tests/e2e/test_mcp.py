"""The MCP server end to end with the official Python SDK (`mcp` on PyPI): `mmkg mcp` over stdio and
`mmkg serve`'s /mcp over Streamable HTTP (with --auth all, so the API key is needed), on one store:
the sample corpus and a PNG (a figure). The same checks run over both transports: the tools (each
called, the image of get_figure, the structured content of ask), the resources, bad arguments and
an unknown tool."""
import asyncio
import base64
import json
import os
import re
import shutil
import struct
import subprocess
import zlib

import httpx2
import pytest
import requests
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from conftest import BIN, CORPUS, run
from server_proc import API_KEY, Server

TOOLS = {"search", "ask", "get_chunk", "get_figure", "graph_entity", "list_documents"}
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
T = 120  # seconds for one SDK session


def png(w, h):
    """A small RGB PNG with a pattern (an image document: one figure)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + b"".join(bytes(((x * 5) % 256, (y * 7) % 256, 120)) for x in range(w)) for y in range(h))
    return PNG_MAGIC + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + \
        chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    d = tmp_path_factory.mktemp("mcp")
    docs = d / "docs"
    shutil.copytree(CORPUS, docs)
    (docs / "pattern.png").write_bytes(png(160, 96))
    r = run("ingest", docs, "--json", store=d / "store")
    assert r.rc == 0, r
    assert r.json()["figures"] >= 1, r
    return d / "store"


@pytest.fixture(scope="module")
def entity(store):
    """A name the knowledge graph knows."""
    r = run("graph", "export", "--format", "jsonl", store=store)
    assert r.rc == 0, r
    return next(j["name"] for j in map(json.loads, r.out.splitlines()) if j["kind"] == "entity")


@pytest.fixture(scope="module")
def srv(store, tmp_path_factory):
    s = Server(store, tmp_path_factory.mktemp("mcp-logs"), "--auth", "all")
    yield s
    assert s.stop() == 0, s.log()


def connect(kind, store, srv, key=API_KEY):
    """An SDK client over `kind` ("stdio": `mmkg mcp` as a subprocess; "http": the server's /mcp)."""
    if kind == "stdio":
        return Client(StdioServerParameters(command=BIN, args=["mcp", "--store", str(store), "--llm", "none"],
                                            env={"MMKG_EMBEDDER": "none"}))
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    http = httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(60, read=300))
    return Client(streamable_http_client(f"{srv.url}/mcp", http_client=http))


def session(kind, store, srv, body):
    """Runs `await body(client)` in one SDK session over `kind`."""
    async def main():
        async with connect(kind, store, srv) as client:
            return await body(client)
    return asyncio.run(asyncio.wait_for(main(), T))


def text_of(result):
    return "\n".join(c.text for c in result.content if c.type == "text")


@pytest.fixture(params=["stdio", "http"])
def kind(request):
    return request.param


def test_tools(kind, store, srv, entity):
    async def body(c):
        assert c.protocol_version == "2025-11-25"
        tools = {t.name: t for t in (await c.list_tools()).tools}
        assert set(tools) == TOOLS
        assert tools["ask"].output_schema and tools["search"].input_schema["required"] == ["query"]

        s = await c.call_tool("search", {"query": "multi-head attention", "k": 3, "mode": "bm25"})
        assert not s.is_error and len(s.structured_content["results"]) == 3, s
        a = await c.call_tool("ask", {"question": "What is multi-head attention?"})
        assert not a.is_error, a
        assert a.structured_content["found"] and a.structured_content["citations"], a.structured_content
        assert "Sources" in text_of(a)
        cite = a.structured_content["citations"][0]
        assert f"[{cite['n']}] {cite['where']}" in text_of(a), text_of(a)  # one rendering of a location
        assert s.structured_content["results"][0]["where"] in text_of(s)
        ch = await c.call_tool("get_chunk", {"chunk_id": cite["chunk_id"]})
        assert not ch.is_error and ch.structured_content["doc"] == cite["doc"], ch
        assert ch.structured_content["text"] in text_of(ch)

        docs = (await c.call_tool("list_documents", {})).structured_content["documents"]
        assert {d["doc"] for d in docs} == {p.name for p in CORPUS.iterdir()} | {"pattern.png"}
        # The image document's Markdown links its figure, which get_figure opens.
        md = (await c.read_resource("mmkg://documents/pattern.png")).contents[0].text
        fid = re.search(r"mmkg://figures/(\w+)", md).group(1)
        f = await c.call_tool("get_figure", {"figure_id": fid})
        img = [x for x in f.content if x.type == "image"]
        assert not f.is_error and img and img[0].mime_type == "image/png", f
        assert base64.b64decode(img[0].data).startswith(PNG_MAGIC)

        e = await c.call_tool("graph_entity", {"name": entity})
        assert not e.is_error and e.structured_content["name"], e
        assert isinstance(e.structured_content["aliases"], list)
    session(kind, store, srv, body)


def test_bad_arguments_and_unknown_tools(kind, store, srv):
    async def body(c):
        # The SDK speaks 2025-11-25: arguments the schema refuses are the tool's error (SEP-1303).
        missing = await c.call_tool("search", {})
        assert missing.is_error and "query is required" in text_of(missing), missing
        wrong = await c.call_tool("search", {"query": "attention", "k": "ten"})
        assert wrong.is_error and "k must be of type integer" in text_of(wrong), wrong
        gone = await c.call_tool("get_chunk", {"chunk_id": "ffffffffffffdead"})
        assert gone.is_error and "no such chunk" in text_of(gone), gone
        with pytest.raises(MCPError) as err:
            await c.call_tool("no_such_tool", {})
        assert err.value.code == -32602 and "unknown tool" in err.value.message
        assert len((await c.list_tools()).tools) == len(TOOLS)  # the session is still fine
    session(kind, store, srv, body)


def test_resources(kind, store, srv):
    async def body(c):
        res = (await c.list_resources()).resources
        assert {r.name for r in res} == {p.name for p in CORPUS.iterdir()} | {"pattern.png"}
        wiki = next(r for r in res if r.name == "attention_wiki.txt")
        assert str(wiki.uri).startswith("mmkg://documents/") and wiki.mime_type == "text/markdown"
        doc = (await c.read_resource(str(wiki.uri))).contents[0]
        assert doc.mime_type == "text/markdown" and len(doc.text) > 1000
        templates = (await c.list_resource_templates()).resource_templates
        assert {t.uri_template for t in templates} == {"mmkg://documents/{key}", "mmkg://figures/{id}"}
        with pytest.raises(MCPError) as err:
            await c.read_resource("mmkg://documents/no-such-document.txt")
        assert err.value.code == -32002
    session(kind, store, srv, body)


def test_http_needs_the_key(store, srv):
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    r = requests.post(f"{srv.url}/mcp", json=init, timeout=T)
    assert r.status_code == 401 and r.json()["error"]["code"] == "unauthorized", r.text

    async def refused():
        async with connect("http", store, srv, key="wrong-key") as c:
            await c.list_tools()
    with pytest.raises(BaseException):
        asyncio.run(asyncio.wait_for(refused(), T))

    # With the key: a session id, 202 for a notification, 405 for GET, DELETE ends the session.
    key = {"Authorization": f"Bearer {API_KEY}"}
    r = requests.post(f"{srv.url}/mcp", json=init, headers=key, timeout=T)
    assert r.status_code == 200 and r.json()["result"]["protocolVersion"] == "2025-06-18", r.text
    sid = {**key, "Mcp-Session-Id": r.headers["Mcp-Session-Id"]}
    note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    assert requests.post(f"{srv.url}/mcp", json=note, headers=sid, timeout=T).status_code == 202
    assert requests.get(f"{srv.url}/mcp", headers=sid, timeout=T).status_code == 405
    assert requests.delete(f"{srv.url}/mcp", headers=sid, timeout=T).status_code == 204
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    assert requests.post(f"{srv.url}/mcp", json=ping, headers=sid, timeout=T).status_code == 404


def test_stdio_stdout_carries_only_messages(store):
    lines = [json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                         "params": {"protocolVersion": "2099-01-01", "capabilities": {}}}),
             "this is not json",
             json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
             json.dumps({"jsonrpc": "2.0", "id": 2, "method": "resources/subscribe", "params": {"uri": "x"}}),
             json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                         "params": {"name": "ask", "arguments": {"question": "What is attention?"}}})]
    env = {k: v for k, v in os.environ.items() if k != "MMKG_STORE"}
    env["MMKG_EMBEDDER"] = "none"
    p = subprocess.run([BIN, "mcp", "--store", str(store), "--llm", "none", "-v"], input="\n".join(lines) + "\n",
                       capture_output=True, text=True, timeout=T, env=env)
    assert p.returncode == 0, p.stderr
    out = [json.loads(l) for l in p.stdout.splitlines()]  # every line is a message
    assert [m.get("id") for m in out] == [1, None, 2, 3], p.stdout
    assert out[0]["result"]["protocolVersion"] == "2025-11-25"
    assert out[1]["error"]["code"] == -32700 and out[2]["error"]["code"] == -32601
    assert out[3]["result"]["structuredContent"]["citations"], out[3]
    assert "mmkg: mcp: serving" in p.stderr  # the log went to stderr


def test_stdio_without_a_store_fails_at_start(tmp_path):
    r = run("mcp", store=tmp_path / "none")
    assert r.rc == 2 and "mmkg ingest" in r.err and r.out == "", r
