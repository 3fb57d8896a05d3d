"""`mmkg serve --llm local`: one llama-cpp-python server (SmolLM2) started for the whole process and
shared by every reader session; concurrent chat requests answered through it; the model calls
counted in /metrics; the model server stopped with `mmkg serve`."""
import concurrent.futures as cf
import re
import signal
import subprocess
import uuid

import requests

from conftest import BIN, CORPUS, llama_servers, run


def children(pid):
    p = subprocess.run(["ps", "--ppid", str(pid), "-o", "args="], capture_output=True, text=True)
    return [l for l in p.stdout.splitlines() if "llama_cpp.server" in l]


def test_one_local_model_serves_every_request(tmp_path):
    st = tmp_path / "store"
    assert run("ingest", CORPUS, store=st).rc == 0
    tag = uuid.uuid4().hex  # marks the model server this mmkg starts: other runs may have theirs
    env = {k: v for k, v in __import__("os").environ.items() if k not in ("MMKG_STORE", "MMKG_LLM_BASE_URL")}
    env["MMKG_EMBEDDER"] = "none"
    env["MMKG_TEST_TAG"] = tag
    out, err = tmp_path / "serve.out", tmp_path / "serve.err"
    with open(out, "wb") as o, open(err, "wb") as e:
        proc = subprocess.Popen([BIN, "serve", "--port", "0", "--store", str(st), "--llm", "local", "--workers", "2"],
                                stdout=o, stderr=e, stdin=subprocess.DEVNULL, env=env)
    try:
        url = None
        for _ in range(6000):  # the model server starts first (up to a minute on 2 cores)
            m = re.search(r"http://[\d.:]+", out.read_text())
            if m:
                url = m.group(0)
                break
            assert proc.poll() is None, err.read_text()[-3000:]
            __import__("time").sleep(0.05)
        assert url, err.read_text()[-3000:]
        assert len(children(proc.pid)) == 1, children(proc.pid)

        def chat(q):
            r = requests.post(url + "/v1/chat/completions", timeout=600,
                              json={"model": "mmkg", "messages": [{"role": "user", "content": q}]})
            assert r.status_code == 200, r.text
            return r.json()

        with cf.ThreadPoolExecutor(2) as ex:
            answers = list(ex.map(chat, ["what is multi-head attention?", "what is self-attention?"]))
        for a in answers:
            assert a["choices"][0]["message"]["content"].strip(), a
            assert a["citations"], a
        # Both sessions used the one model server, and the metrics counted its calls.
        assert len(children(proc.pid)) == 1, children(proc.pid)
        # A follow-up with the model: it rewrites the question (or the rules do when its rewrite
        # fails the checks, and the step says why); either way the topic comes from the history.
        r = requests.post(url + "/api/ask", timeout=600, json={
            "question": "Which brain mechanism inspired it?", "max_rounds": 1,
            "history": [{"role": "user", "content": "What is SpiLiFormer?"},
                        {"role": "assistant", "content": "SpiLiFormer is a spiking Transformer [1]."}]})
        assert r.status_code == 200, r.text
        a = r.json()
        step = a["trace"][0]
        assert step["step"] == "rewrite" and step["method"] in ("llm", "rules"), step
        # The model was reached: it answered (usable or not), the call did not fail.
        assert not step.get("fallback", "").startswith("model call failed"), step
        if step["method"] == "rules":
            assert step["fallback"] and a["standalone_question"] == "Which brain mechanism inspired SpiLiFormer?", step
        else:
            assert " it " not in f" {a['standalone_question'].lower()} ", step
        # Every reader session fits its context to the one model's window: no step's call is
        # refused for its length (the sessions were once given the server without its window).
        for s in a["trace"]:
            assert "maximum context length" not in s.get("fallback", ""), s
        assert a["context_tokens"] <= 4096, a["context_tokens"]
        metrics = requests.get(url + "/metrics", timeout=60).text
        calls = float(re.search(r"^mmkg_model_calls_total (\S+)$", metrics, re.M).group(1))
        assert calls >= 2, metrics
    finally:
        proc.send_signal(signal.SIGTERM)
        rc = proc.wait(timeout=120)
    assert rc == 0, err.read_text()[-3000:]
    assert llama_servers(tag) == set()
