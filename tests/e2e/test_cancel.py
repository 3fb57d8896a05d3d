"""An ask stops when its caller leaves: `mmkg serve --workers 1` with a real local model
(llama-cpp-python serving SmolLM2), an ask started and then abandoned (a streamed ask whose client
closes after the first step, a plain one whose client gives up, an MCP tools/call followed by
notifications/cancelled). Each time the server counts the ask cancelled, its reader is free at
once, and no model call is made after the stop."""
import re
import threading
import time
import uuid

import pytest
import requests

from model_server import ModelServer, smollm2_gguf
from server_proc import Server

T = 600


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    s = ModelServer(smollm2_gguf(), log_path=str(tmp_path_factory.mktemp("llama") / "server.log"))
    yield s
    s.stop()


@pytest.fixture(scope="module")
def srv(corpus_store, model, tmp_path_factory):
    s = Server(corpus_store, tmp_path_factory.mktemp("cancel-logs"), "--workers", "1", "--max-rounds", "2",
               llm=model.url + "#model=smollm2")
    yield s
    assert s.stop() == 0, s.log()


@pytest.fixture(scope="module")
def full_ask_calls(srv):
    """The model calls of an ask left to finish (the first, which also probes the server)."""
    before = metric(srv, "mmkg_model_calls_total")
    r = requests.post(f"{srv.url}/api/ask", json={"question": question()}, timeout=T)
    assert r.status_code == 200, r.text
    return metric(srv, "mmkg_model_calls_total") - before


@pytest.fixture(autouse=True)
def idle_model(model):
    """The model server done with what an earlier test abandoned (llama-cpp-python finishes a
    generation whose client left, and answers nothing else meanwhile): one token asked for."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        r = requests.post(model.url + "/chat/completions", timeout=T,
                          json={"messages": [{"role": "user", "content": "hi"}], "max_tokens": 1})
        if r.status_code == 200:
            return
        time.sleep(0.5)
    pytest.fail("the model server stayed busy")


def metric(srv, name, labels=""):
    text = requests.get(f"{srv.url}/metrics", timeout=T).text
    m = re.search(rf"^{re.escape(name + labels)} (\S+)$", text, re.M)
    assert m, (name, labels, text[-2000:])
    return float(m.group(1))


def settled(srv, cancelled_before):
    """Waits for the server to count the stop and free its reader; the model calls then made."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        busy = metric(srv, "mmkg_sessions", '{workspace="default",state="busy"}')
        if metric(srv, "mmkg_asks_cancelled_total") > cancelled_before and busy == 0:
            return metric(srv, "mmkg_model_calls_total")
        time.sleep(0.1)
    pytest.fail("the abandoned ask was not stopped within 60 s:\n" + srv.log()[-3000:])


def no_more_calls(srv, calls):
    time.sleep(4)  # a model call takes seconds here: one started after the stop would show
    assert metric(srv, "mmkg_model_calls_total") == calls
    assert metric(srv, "mmkg_sessions", '{workspace="default",state="busy"}') == 0


def question():
    return f"What is multi-head attention, and how is it used in the encoder? ({uuid.uuid4().hex[:8]})"


def test_a_streamed_ask_stops_when_its_client_closes(srv, full_ask_calls):
    before = metric(srv, "mmkg_asks_cancelled_total")
    calls_before = metric(srv, "mmkg_model_calls_total")
    with requests.post(f"{srv.url}/api/ask", json={"question": question(), "stream": True}, stream=True,
                       timeout=T) as r:
        assert r.status_code == 200
        for line in r.iter_lines():
            if line.startswith(b"event: step"):
                break  # the first step is done; the client leaves
    calls = settled(srv, before)
    assert 0 < calls - calls_before < full_ask_calls, (calls_before, calls, full_ask_calls)
    no_more_calls(srv, calls)
    # The one reader is free: the next ask is answered.
    a = requests.post(f"{srv.url}/api/ask", json={"question": "What is multi-head attention?", "max_rounds": 1},
                      timeout=T)
    assert a.status_code == 200 and a.json()["answer"], a.text


def test_a_plain_ask_stops_when_its_client_gives_up(srv):
    before = metric(srv, "mmkg_asks_cancelled_total")
    with pytest.raises(requests.exceptions.ReadTimeout):
        requests.post(f"{srv.url}/api/ask", json={"question": question()}, timeout=(10, 1.5))
    no_more_calls(srv, settled(srv, before))


def test_an_mcp_ask_stops_on_notifications_cancelled(srv, full_ask_calls):
    url = f"{srv.url}/mcp"
    init = requests.post(url, timeout=T, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}})
    assert init.status_code == 200, init.text
    headers = {"Mcp-Session-Id": init.headers["Mcp-Session-Id"], "MCP-Protocol-Version": "2025-11-25"}
    requests.post(url, headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, timeout=T)
    calls_before = metric(srv, "mmkg_model_calls_total")
    reply = {}

    def call():
        reply["r"] = requests.post(url, headers=headers, timeout=T, json={
            "jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "ask", "arguments": {"question": question()}}})
    t = threading.Thread(target=call)
    t.start()
    deadline = time.monotonic() + 60
    while metric(srv, "mmkg_sessions", '{workspace="default",state="busy"}') == 0:
        assert time.monotonic() < deadline, "the MCP ask did not start"
        time.sleep(0.05)
    c = requests.post(url, headers=headers, timeout=T, json={
        "jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 2, "reason": "test"}})
    assert c.status_code == 202, c.text
    t.join(T)
    assert reply["r"].status_code == 202 and not reply["r"].text, reply["r"].text  # no answer to a cancelled call
    deadline = time.monotonic() + 10
    while metric(srv, "mmkg_sessions", '{workspace="default",state="busy"}') != 0:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    calls = metric(srv, "mmkg_model_calls_total")
    assert calls - calls_before < full_ask_calls, (calls_before, calls, full_ask_calls)  # an abandoned call is not counted
    no_more_calls(srv, calls)


def test_an_mcp_ask_over_stdio_stops_on_notifications_cancelled(corpus_store, model):
    """`mmkg mcp` reads stdin on a thread of its own: the cancellation reaches the ask while it
    runs, the ask gets no answer, and the requests after it are answered."""
    import json
    import os
    import subprocess
    env = {k: v for k, v in os.environ.items() if k != "MMKG_STORE"}
    env["MMKG_EMBEDDER"] = "none"
    from conftest import BIN
    p = subprocess.Popen([BIN, "mcp", "--store", str(corpus_store), "--llm", model.url + "#model=smollm2"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)

    def send(m):
        p.stdin.write(json.dumps(m) + "\n")
        p.stdin.flush()
    send({"jsonrpc": "2.0", "id": 1, "method": "initialize",
          "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    assert json.loads(p.stdout.readline())["id"] == 1
    send({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
          "params": {"name": "ask", "arguments": {"question": question()}}})
    time.sleep(1.0)  # the ask is under way (a model call takes seconds here)
    send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 5}})
    send({"jsonrpc": "2.0", "id": 6, "method": "ping"})
    p.stdin.close()
    replies = [json.loads(l) for l in p.stdout.read().splitlines()]
    assert p.wait(T) == 0
    assert [r["id"] for r in replies] == [6], replies  # no answer to the cancelled ask
