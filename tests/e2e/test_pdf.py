"""PDF ingestion through MuPDF on generated papers: pages, headings, columns, hyphens, headers."""
import sqlite3

import pdfgen
from conftest import run


def chunks_of(store, doc):
    j = run("search", "widgets OR zebra1 OR zebra2 OR zebra3 OR zebra4 OR alpha1x0", "-k", "100", "--json",
            store=store).json()
    return [h for h in j["results"] if h["doc"] == doc]


def test_pages_headings_hyphens_headers(tmp_path, store):
    pdfgen.paper(tmp_path / "paper.pdf", pages=4)
    r = run("ingest", tmp_path / "paper.pdf", "--json", store=store)
    assert r.rc == 0, r
    assert r.json()["pages"] == 4
    for p in range(1, 5):
        hits = run("search", f"zebra{p}", "--json", store=store).json()["results"]
        assert hits, p
        assert hits[0]["page"] <= p <= hits[0]["page_end"], hits[0]
        text = hits[0]["text"]
        # hyphenated line end rejoined
        assert "attention mechanism" in text and "atten-" not in text, text
        # running header, footer and page numbers dropped
        assert "Journal of Testing" not in text and "Do not distribute" not in text, text
    # headings recovered from font size: they appear as Markdown headings and in heading paths
    hits = run("search", "zebra3", "--json", store=store).json()["results"]
    assert "3. Section about topic3" in hits[0]["heading_path"], hits[0]
    assert "Gated Widgets for Sparse Retrieval" in hits[0]["heading_path"]
    assert run("search", "Journal Testing distribute", "--json", store=store).json()["results"] == []


def test_two_columns_read_in_order(tmp_path, store):
    pdfgen.paper(tmp_path / "cols.pdf", pages=1, columns=True, hyphen=False)
    assert run("ingest", tmp_path / "cols.pdf", store=store).rc == 0
    db = sqlite3.connect(str(store / "mmkg.db"))
    (full,) = db.execute("SELECT text FROM documents").fetchone()
    db.close()
    # the whole left column comes before the right column
    assert full.index("alpha1x0") < full.index("alpha1x7") < full.index("omega1x0") < full.index("omega1x7"), full


def test_ask_cites_pdf_page(tmp_path, store):
    pdfgen.paper(tmp_path / "paper.pdf", pages=4)
    run("ingest", tmp_path / "paper.pdf", store=store)
    j = run("ask", "Which page talks about zebra3?", "--json", store=store).json()
    assert j["found"], j
    assert j["citations"][0]["doc"] == "paper.pdf"
    assert j["citations"][0]["page"] == 3


def test_pdf_without_text_is_reported(tmp_path, store):
    pdfgen.blank(tmp_path / "blank.pdf", pages=2)
    r = run("ingest", tmp_path / "blank.pdf", "--json", store=store)
    assert r.rc == 1
    assert "no extractable text" in r.json()["failed"][0]["error"]
