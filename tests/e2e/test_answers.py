"""Extractive answers (`mmkg ask --llm none`) on a small corpus of its own: a definition question
opens with the definition, a two-part question gets a cited sentence per part, a "how many"
question quotes the number, and a question about something the documents never mention gets
"the documents do not say"."""
import pytest

from conftest import run

DOCS = {
    "pumps.md": """# Centrifugal pumps

Centrifugal pumps are found in almost every water treatment plant and in many ships.
A centrifugal pump is a rotating machine that moves fluid by converting the kinetic energy of an impeller into pressure.
The impeller spins inside a volute casing, and the casing slows the fluid down.

## Priming

Before the first start, the casing must be filled with liquid, because a dry impeller cannot lift water.
The standard test rig at the plant holds 48 litres of water in its priming tank.
""",
    "bearings.md": """# Bearings

Bearing wear is the most common reason a pump is taken out of service.
Engineers replace the bearings every 20000 running hours, following the maintenance schedule of the plant.
Vibration analysis detects early wear long before the bearing fails.

## Lubrication

Grease must be renewed at each inspection because old grease hardens and stops protecting the races.
""",
    "valves.md": """# Valves

A check valve lets fluid flow in one direction only and closes when the flow reverses.
Gate valves are used for isolation and should not be left half open, since the flow erodes the gate.
""",
}


@pytest.fixture(scope="module")
def answers_store(tmp_path_factory):
    d = tmp_path_factory.mktemp("answers")
    corpus = d / "corpus"
    corpus.mkdir()
    for name, text in DOCS.items():
        (corpus / name).write_text(text)
    s = d / "store"
    r = run("ingest", corpus, "--json", store=s)
    assert r.rc == 0, r
    return s


def ask(store, q):
    r = run("ask", q, "--json", "--llm", "none", store=store)
    assert r.rc == 0, r
    return r.json()


def test_definition_question_opens_with_the_definition(answers_store):
    j = ask(answers_store, "What is a centrifugal pump?")
    assert j["found"] is True
    # Not "Centrifugal pumps are found in ..." (where pumps are seen) but what a pump is.
    assert j["answer"].startswith("A centrifugal pump is a rotating machine"), j["answer"]


def test_two_part_question_gets_a_cited_sentence_per_part(answers_store):
    j = ask(answers_store, "Why must the casing be filled before the first start, and how often are the bearings replaced?")
    assert j["found"] is True
    a = j["answer"]
    assert "dry impeller" in a and "20000" in a, a
    docs = {c["doc"] for c in j["citations"]}
    assert docs == {"pumps.md", "bearings.md"}, j["citations"]
    # Every cited passage holds the words quoted from it.
    for c in j["citations"]:
        assert c["quote"]
        for part in c["quote"].split(" \u2026 "):  # sentences apart are joined with " … "
            assert part in " ".join(c["text"].split()), c


def test_number_question_quotes_the_number(answers_store):
    j = ask(answers_store, "How many litres does the priming tank of the test rig hold?")
    assert j["found"] is True
    assert "48" in j["answer"], j["answer"]
    assert len(j["citations"]) == 1, j["citations"]


def test_question_about_an_unknown_name_is_not_answered(answers_store):
    j = ask(answers_store, "Which Grundfos model does the plant use for its priming tank?")
    assert j["found"] is False
    assert "do not say" in j["answer"]
    assert j["citations"] == []
