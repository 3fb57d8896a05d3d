"""Conversations: a follow-up question is made standalone from the earlier turns, through
/api/ask (history), the OpenAI endpoint (the official openai client) and the Ollama endpoint, with
no model (rules). A scripted dialogue on the sample corpus; every body is validated against the
OpenAPI document. The same with `--llm local` is in test_server_llm.py."""
import pytest
import requests

from server_proc import Server
from test_server import check, check_schema, expect_errors

T = 300

# The dialogue: the first question names the topic, the next two lean on it.
FIRST = "What is SpiLiFormer?"
SECOND = "Which brain mechanism inspired it?"
THIRD = "and what problem of spiking Transformers is it meant to fix?"


@pytest.fixture(scope="module")
def srv(corpus_store, tmp_path_factory):
    s = Server(corpus_store, tmp_path_factory.mktemp("conversation-logs"))
    yield s
    assert s.stop() == 0, s.log()


def ask(srv, question, history=()):
    r = requests.post(f"{srv.url}/api/ask", timeout=T,
                      json={"question": question, "history": list(history), "max_rounds": 1})
    return check(r, "/api/ask", "post", 200)


def rewrite_step(a):
    steps = [s for s in a["trace"] if s["step"] == "rewrite"]
    assert len(steps) == 1 and a["trace"][0]["step"] == "rewrite", a["trace"]
    return steps[0]


def test_scripted_dialogue_through_api_ask(srv):
    first = ask(srv, FIRST)
    assert first["standalone_question"] == FIRST
    assert not any(s["step"] == "rewrite" for s in first["trace"])  # no history: no rewrite step
    assert "SpiLiFormer" in first["answer"] and first["citations"], first["answer"]

    history = [{"role": "user", "content": FIRST}, {"role": "assistant", "content": first["answer"]}]
    second = ask(srv, SECOND, history)
    step = rewrite_step(second)
    assert step["method"] == "rules" and step["topic"] == "SpiLiFormer", step
    assert second["standalone_question"] == "Which brain mechanism inspired SpiLiFormer?", second["standalone_question"]
    assert second["question"] == SECOND  # as asked
    assert second["found"] and "lateral inhibition" in second["answer"].lower(), second["answer"]
    assert any(c["doc"] == "attention_papers.txt" for c in second["citations"]), second["citations"]

    history += [{"role": "user", "content": SECOND}, {"role": "assistant", "content": second["answer"]}]
    third = ask(srv, THIRD, history)
    step = rewrite_step(third)
    assert step["previous"] == "Which brain mechanism inspired SpiLiFormer?" and step["topic"] == "SpiLiFormer", step
    assert third["standalone_question"] == "What problem of spiking Transformers is SpiLiFormer meant to fix?"
    assert third["citations"] and any("SpiLiFormer" in c["text"] for c in third["citations"]), third["citations"]

    # A new topic in the same conversation is read as asked.
    other = ask(srv, "What is multi-head attention?", history)
    assert rewrite_step(other)["method"] == "none"
    assert other["standalone_question"] == "What is multi-head attention?"


def test_the_same_follow_up_without_history_is_not_rewritten(srv):
    a = ask(srv, SECOND)
    assert a["standalone_question"] == SECOND and "SpiLiFormer" not in a["standalone_question"]


def test_openai_client_conversation(srv):
    from openai import OpenAI

    client = OpenAI(base_url=f"{srv.url}/v1", api_key="x", max_retries=0, timeout=T)
    messages = [{"role": "system", "content": "Answer from the documents."},
                {"role": "user", "content": FIRST},
                {"role": "assistant", "content": "SpiLiFormer is a spiking Transformer."},
                {"role": "user", "content": SECOND}]
    raw = client.chat.completions.with_raw_response.create(model="mmkg", messages=messages)
    body = raw.http_response.json()
    check_schema(body, "ChatCompletion")
    assert body["standalone_question"] == "Which brain mechanism inspired SpiLiFormer?", body
    assert "lateral inhibition" in raw.parse().choices[0].message.content.lower()


def test_ollama_conversation(srv):
    body = {"model": "mmkg", "stream": False,
            "messages": [{"role": "user", "content": FIRST}, {"role": "assistant", "content": "A spiking Transformer."},
                         {"role": "user", "content": SECOND}]}
    one = check(requests.post(f"{srv.url}/api/chat", json=body, timeout=T), "/api/chat", "post", 200)
    assert one["standalone_question"] == "Which brain mechanism inspired SpiLiFormer?", one
    assert "lateral inhibition" in one["message"]["content"].lower()


def test_bad_history_is_a_clear_400(srv):
    bad = [{"question": SECOND, "history": "hi"},
           {"question": SECOND, "history": [{"role": "user"}]},
           {"question": SECOND, "history": [{"role": "system", "content": "x"}]},
           {"question": SECOND, "history": [{"role": "user", "content": 5}]},
           {"question": SECOND, "history": [["user", "x"]]}]
    expect_errors("/api/ask", "post", 400, "bad_request",
                  [requests.post(f"{srv.url}/api/ask", json=b, timeout=T) for b in bad])
    r = requests.post(f"{srv.url}/v1/chat/completions", timeout=T,
                      json={"model": "mmkg", "messages": [5, {"role": "user", "content": SECOND}]})
    assert r.status_code == 400 and "object" in r.json()["error"]["message"], r.text
