"""One table of ask and search options (src/app/request_options.cc), seen from every front door of
the real binary: `mmkg serve --max-rounds 1 --context-chunks 3 --rerank none` makes those the
defaults of every ask of the server (POST /api/ask, the OpenAI chat endpoint, the MCP ask tool over
/mcp and over `mmkg mcp`'s stdio), a request's own options override them, and a value out of range
is refused at each door with the same words."""
import asyncio

import httpx2
import pytest
import requests
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from conftest import BIN, run
from server_proc import API_KEY, Server
from test_server import check, expect_errors

T = 300
QUESTION = "What is multi-head attention?"
DEFAULTS = ["--max-rounds", "1", "--context-chunks", "3", "--rerank", "none"]


@pytest.fixture(scope="module")
def srv(corpus_store, tmp_path_factory):
    s = Server(corpus_store, tmp_path_factory.mktemp("options-logs"), *DEFAULTS)
    yield s
    assert s.stop() == 0, s.log()


def step(answer, name):
    return next(s for s in answer["trace"] if s["step"] == name)


def ask(srv, **body):
    r = requests.post(f"{srv.url}/api/ask", json={"question": QUESTION, **body}, timeout=T)
    return check(r, "/api/ask", "post", 200)


def test_the_servers_flags_are_every_asks_defaults_and_a_request_overrides_them(srv):
    a = ask(srv)
    assert step(a, "orchestrate")["max_rounds"] == 1 and a["rounds"] == 1, step(a, "orchestrate")
    assert 0 < a["context_chunks"] <= 3, a["context_chunks"]
    assert "rerank" not in step(a, "retrieve"), step(a, "retrieve")  # --rerank none
    b = ask(srv, max_rounds=2, context_chunks=6, rerank="lexical", k=8)
    assert step(b, "orchestrate")["max_rounds"] == 2
    assert 3 < b["context_chunks"] <= 6, b["context_chunks"]
    assert step(b, "retrieve")["rerank"]["reranker"] == "lexical"
    # The OpenAI endpoint answers with the same defaults: at most 3 passages to cite.
    r = requests.post(f"{srv.url}/v1/chat/completions", timeout=T,
                      json={"model": "mmkg", "messages": [{"role": "user", "content": QUESTION}]})
    assert r.status_code == 200, r.text
    assert 0 < len({c["chunk_id"] for c in r.json()["citations"]}) <= 3, r.json()["citations"]


def test_every_http_option_is_checked_against_its_range(srv):
    bad = [{"max_rounds": 6}, {"max_rounds": "2"}, {"context_chunks": 65}, {"k": 0}, {"rerank_weight": 1.5},
           {"judge": "strict"}, {"graph_lists": "on"}, {"rerank": "cross"}, {"context_tokens": 20},
           {"parallel": 2}, {"max_round": 1}]
    responses = [requests.post(f"{srv.url}/api/ask", json={"question": QUESTION, **b}, timeout=T) for b in bad]
    expect_errors("/api/ask", "post", 400, "bad_request", responses)
    msg = [r.json()["error"]["message"] for r in responses]
    assert msg[0] == "max_rounds must be an integer from 1 to 5, not 6", msg[0]
    assert "rerank: unknown reranker 'cross'" in msg[7], msg[7]
    assert "option parallel is not known here" in msg[9] and "option max_round is not known" in msg[10], msg
    ok = requests.get(f"{srv.url}/api/search", params={"q": "attention", "k": "1000", "mode": "bm25"}, timeout=T)
    assert ok.status_code == 200, ok.text
    r = requests.get(f"{srv.url}/api/search", params={"q": "attention", "k": "1001"}, timeout=T)
    assert r.status_code == 400 and r.json()["error"]["message"] == "k must be an integer from 1 to 1000, not 1001"


def mcp_session(client, body):
    async def main():
        async with client as c:
            return await body(c)
    return asyncio.run(asyncio.wait_for(main(), T))


@pytest.mark.parametrize("kind", ["http", "stdio"])
def test_the_mcp_ask_tool_takes_the_same_options_over_the_same_defaults(srv, corpus_store, kind):
    if kind == "stdio":
        client = Client(StdioServerParameters(command=BIN, args=["mcp", "--store", str(corpus_store), "--llm", "none",
                                                                 *DEFAULTS], env={"MMKG_EMBEDDER": "none"}))
    else:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {API_KEY}"}, timeout=httpx2.Timeout(60, read=T))
        client = Client(streamable_http_client(f"{srv.url}/mcp", http_client=http))

    async def body(c):
        tools = {t.name: t for t in (await c.list_tools()).tools}
        props = tools["ask"].input_schema["properties"]
        assert props["max_rounds"]["minimum"] == 1 and props["max_rounds"]["maximum"] == 5, props["max_rounds"]
        assert props["context_chunks"]["default"] == 8 and "parallel" not in props, props
        assert tools["search"].input_schema["properties"]["k"]["maximum"] == 1000
        a = await c.call_tool("ask", {"question": QUESTION})
        assert not a.is_error and 0 < a.structured_content["context_chunks"] <= 3, a.structured_content
        wide = await c.call_tool("ask", {"question": QUESTION, "context_chunks": 6})
        assert not wide.is_error and wide.structured_content["context_chunks"] > 3, wide.structured_content
        wrong = await c.call_tool("ask", {"question": QUESTION, "max_rounds": 6})
        assert wrong.is_error and "max_rounds must be at most 5" in wrong.content[0].text, wrong
    mcp_session(client, body)


def test_the_cli_and_the_servers_flags_refuse_what_the_table_refuses(corpus_store, tmp_path):
    r = run("ask", QUESTION, "--max-rounds", "6", store=corpus_store)
    assert r.rc == 2 and "--max-rounds must be an integer from 1 to 5, not 6" in r.err, r
    r = run("search", "attention", "-k", "1001", store=corpus_store)
    assert r.rc == 2 and "-k must be an integer from 1 to 1000, not 1001" in r.err, r
    for args in (["--max-rounds", "6"], ["--rerank", "cross"], ["--context-tokens", "20"]):
        r = run("serve", "--port", "0", *args, store=corpus_store, timeout=60)
        assert r.rc == 2 and args[0] in r.err, (args, r)
    r = run("mcp", "--judge", "strict", store=corpus_store, timeout=60)
    assert r.rc == 2 and "--judge must be one of none, borderline or all" in r.err, r
