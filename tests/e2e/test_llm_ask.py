"""`mmkg ask --llm local`: mmkg starts llama-cpp-python with SmolLM2 on loopback, asks it, verifies
its cited sentences against the passages, and stops the server afterwards."""
import uuid

from conftest import CORPUS, llama_servers, run


def test_ask_local_model_answers_with_verified_citations(tmp_path):
    st = tmp_path / "store"
    assert run("ingest", CORPUS, store=st).rc == 0
    tag = uuid.uuid4().hex  # marks the model server this command starts (test_server_llm.py checks it is inherited)
    r = run("ask", "what is multi-head attention?", "--llm", "local", "--json", "-v", store=st, timeout=600,
            env={"MMKG_TEST_TAG": tag})
    assert r.rc == 0, r
    j = r.json()
    synth = next(s for s in j["trace"] if s["step"] == "synthesize")
    assert synth["model"].startswith("openai:SmolLM2"), synth
    assert synth["prompt_tokens"] > 0 and synth["model_ms"] > 0
    assert "mmkg: synthesize: model" in r.err and "mmkg: verify:" in r.err
    assert j["found"] and j["citations"]
    for c in j["citations"]:
        assert f"[{c['n']}]" in j["answer"]
        for part in c["quote"].split(" … "):  # quotes are verbatim from the chunk
            assert part in " ".join(c["text"].split()), (part, c["text"])
    verify = next(s for s in j["trace"] if s["step"] == "verify")
    if verify["answer_from"] == "llm":
        assert verify["verified_sentences"] >= 1
    else:  # nothing the model wrote was supported: the extractive answer, and the trace says why
        assert verify["fallback"]
    if synth["synthesizer"] == "llm":  # the model's draft went through the verifier
        assert verify["model_sentences"] >= 1
        assert verify["verified_sentences"] + verify["dropped"] == verify["model_sentences"]
    # the server was stopped with the command
    assert llama_servers(tag) == set()
    # the same question again comes from the response cache (temperature 0)
    j2 = run("ask", "what is multi-head attention?", "--llm", "local", "--json", store=st, timeout=600).json()
    assert next(s for s in j2["trace"] if s["step"] == "synthesize")["cached"] is True
    assert j2["answer"] == j["answer"]


def test_unanswerable_question_makes_no_model_call(tmp_path):
    st = tmp_path / "store"
    assert run("ingest", CORPUS, store=st).rc == 0
    j = run("ask", "Which GPU was the quantum chromodynamics lattice simulation benchmarked on?",
            "--llm", "local", "--json", store=st, timeout=600).json()
    assert j["found"] is False
    synth = next(s for s in j["trace"] if s["step"] == "synthesize")
    assert synth["prompt_tokens"] == 0 and synth["fallback"]


def test_judge_checks_every_sentence_with_the_real_model(tmp_path):
    """--judge all: the local model is also asked, through structured output, whether each
    sentence is supported by its passage; its verdicts are in the trace."""
    st = tmp_path / "store"
    assert run("ingest", CORPUS, store=st).rc == 0
    r = run("ask", "what is multi-head attention?", "--llm", "local", "--judge", "all", "--json", "-v",
            store=st, timeout=900)
    assert r.rc == 0, r
    j = r.json()
    synth = next(s for s in j["trace"] if s["step"] == "synthesize")
    verify = next(s for s in j["trace"] if s["step"] == "verify")
    assert j["found"] and j["citations"]
    if synth["synthesizer"] == "llm":
        judge = verify["judge"]
        assert judge["model"].startswith("openai:SmolLM2") and judge["scope"] == "all"
        # every sentence above the lexical floor went to the judge, in one call
        assert judge["sentences"] >= 1 and judge["prompt_tokens"] > 0 and judge["ms"] > 0, judge
        assert "error" not in judge, judge
        assert judge["vetoes"] <= judge["sentences"]
        assert "mmkg: verify: judge" in r.err
    else:
        assert synth["fallback"]
    # --judge none: no judge in the trace
    j2 = run("ask", "what is multi-head attention?", "--llm", "local", "--judge", "none", "--json",
             store=st, timeout=900).json()
    assert "judge" not in next(s for s in j2["trace"] if s["step"] == "verify")
