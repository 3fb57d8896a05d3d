"""Tables end to end: a ruled and an aligned-columns table in PDFs, a Markdown pipe table and an
HTML <table> become table figures with Markdown rows: counted by ingest, found by search with
kind "table", shown by `mmkg figure`, cited by `mmkg ask`, Table nodes in the graph, and put
back in place by the Markdown export."""
import json

import pytest

from conftest import run
import figgen


def ingest(path, store):
    r = run("ingest", path, "--json", store=store)
    assert r.rc == 0, r
    return r.json()


def table_hit(store, query):
    r = run("search", query, "--json", "--mode", "bm25", store=store)
    assert r.rc == 0, r
    hits = r.json()["results"]
    assert hits, r
    assert hits[0]["kind"] == "table" and hits[0]["figure_label"] == "Table 1", hits[0]
    return hits[0]


def table_of(store, hit):
    r = run("figure", hit["figure_id"], "--json", store=store)
    assert r.rc == 0, r
    f = r.json()
    assert f["kind"] == "table" and f["source"] == "table", f
    return f


def rows_of(markdown):
    """Cells of a GFM table, the delimiter row left out."""
    lines = markdown.strip().split("\n")
    assert set(lines[1].replace("|", "")) == {"-"}, markdown
    return [[c.strip() for c in l.strip("|").split(" |")] for l in [lines[0]] + lines[2:]]


def graph_tables(store):
    lines = [json.loads(l) for l in run("graph", "export", store=store).out.splitlines()]
    return [l for l in lines if l["kind"] == "figure" and l["type"] == "table"]


def test_ruled_pdf_table(tmp_path, store):
    pdf = figgen.ruled_table_pdf(tmp_path / "survey.pdf")
    j = ingest(pdf, store)
    assert j["tables"] == 1 and j["figures"] == 0, j
    hit = table_hit(store, "Rottnest Island quokkas")
    assert hit["page"] == 1
    f = table_of(store, hit)
    assert f["caption"] == "Table 1: Quokka counts per island site.", f
    assert rows_of(f["table"]) == figgen.TABLE_ROWS, f["table"]
    # The cells left the body text: the only chunk with them is the table's.
    hits = run("search", "Two Peoples Bay", "--json", "--mode", "bm25", store=store).json()["results"]
    assert [h["kind"] for h in hits] == ["table"], hits
    # ask (extractive, no LLM) cites the table.
    r = run("ask", "How many quokkas are on Rottnest Island?", "--llm", "none", store=store)
    assert r.rc == 0 and "survey.pdf, page 1, Table 1" in r.out, r
    assert "| Rottnest Island | 12000 | 2019 |" in r.out, r  # the row itself is quoted
    # A question naming the table is answered from it, even though no sentence refers to it.
    r = run("ask", "What does Table 1 of the survey show?", "--llm", "none", store=store)
    assert r.rc == 0 and "survey.pdf, page 1, Table 1" in r.out, r
    # A Table node in the graph.
    t = graph_tables(store)
    assert [(x["label"], x["page"]) for x in t] == [("Table 1", 1)], t
    # The export puts the rows back after the caption.
    r = run("export", "survey.pdf", "--format", "md", "-o", tmp_path / "md", store=store)
    assert r.rc == 0, r
    md = (tmp_path / "md" / "survey_raw.md").read_text()
    assert "Table 1: Quokka counts per island site.\n\n| Site | Quokkas | Survey year |" in md, md


def test_aligned_columns_pdf_table(tmp_path, store):
    pdf = figgen.aligned_table_pdf(tmp_path / "wombat.pdf")
    j = ingest(pdf, store)
    assert j["tables"] == 1, j
    f = table_of(store, table_hit(store, "burrow depth estimate"))
    assert rows_of(f["table"]) == [["", "Estimate", "Std. Error", "p value"],
                                   ["(Intercept)", "3.141", "0.212", "0.001"],
                                   ["burrow depth", "-0.577", "0.061", "0.004"],
                                   ["soil moisture", "12.25", "1.830", "0.020"]], f["table"]


def test_markdown_and_html_tables(tmp_path, store):
    d = tmp_path / "docs"
    d.mkdir()
    figgen.markdown_table(d)
    figgen.html_table(d)
    j = ingest(d, store)
    assert j["tables"] == 2, j
    f = table_of(store, table_hit(store, "Currawinya bilbies"))
    assert f["caption"] == "Table 1: Bilby counts per reserve.", f
    assert rows_of(f["table"]) == [["Reserve", "Bilbies", "Year"], ["Currawinya", "310", "2021"],
                                   ["Astrebla \\| Downs", "95", "2022"]], f["table"]
    f = table_of(store, table_hit(store, "Dryandra numbats"))
    assert f["caption"] == "Table 1: Numbat census by woodland.", f
    assert rows_of(f["table"])[1] == ["Dryandra", "540"], f["table"]
    r = run("ask", "How many numbats are in Perup?", "--llm", "none", store=store)
    assert r.rc == 0 and "numbats.html, Table 1" in r.out, r
    assert len(graph_tables(store)) == 2
    # --no-figures: the rows stay in the body text.
    s3 = tmp_path / "s3"
    r = run("ingest", d, "--json", "--no-figures", store=s3)
    assert r.rc == 0 and r.json()["tables"] == 0, r
    hits = run("search", "Currawinya", "--json", "--mode", "bm25", store=s3).json()["results"]
    assert hits and hits[0]["kind"] == "text", hits
