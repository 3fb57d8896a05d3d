"""Figures and tables end to end: extraction from PDFs, OCR, search hits, citations, the figure
command, the Markdown export, deletes, and the OCR cache."""
import pytest

from conftest import run
import figgen


@pytest.fixture
def paper(tmp_path):
    d = tmp_path / "docs"
    d.mkdir()
    return figgen.paper_with_figures(d / "quokka.pdf")


def test_pdf_figures_ingest_search_figure_export(tmp_path, paper, store):
    r = run("ingest", paper, "--json", store=store)
    assert r.rc == 0, r
    j = r.json()
    # The raster architecture image and the vector plot; the logo repeated on 4 pages is dropped.
    assert j["figures"] == 2, j
    assert j["ocr"]["images"] >= 1, j

    r = run("search", "quokka architecture", "--json", "--mode", "bm25", store=store)
    hits = r.json()["results"]
    figs = [h for h in hits if h["kind"] == "figure"]
    assert figs, hits
    assert figs[0]["figure_id"] and figs[0]["figure_label"] == "Figure 1"
    assert figs[0]["page"] == 1

    # OCR read the words drawn in the raster image.
    r = run("figure", figs[0]["figure_id"], "--json", store=store)
    assert r.rc == 0, r
    f = r.json()
    assert f["caption"] == "Figure 1: Architecture of the quokka model."
    assert f["source"] == "raster"
    assert "ENCODER" in f["text"].upper(), f
    assert f["text_source"] == "ocr" and f["ocr_confidence"] > 60
    assert any("As shown in Figure 1" in s for s in f["references"]), f

    out = tmp_path / "fig1.png"
    r = run("figure", figs[0]["figure_id"][:8], "-o", out, store=store)
    assert r.rc == 0, r
    assert out.read_bytes()[:4] == b"\x89PNG"

    # The vector plot: its axis labels are figure text, not body text.
    r = run("search", "wombat loss epochs", "--json", "--mode", "bm25", store=store)
    hits = r.json()["results"]
    assert hits[0]["kind"] == "figure" and hits[0]["figure_label"] == "Figure 2", hits[0]
    r = run("figure", hits[0]["figure_id"], "--json", store=store)
    f2 = r.json()
    assert f2["source"] == "vector" and "wombat loss" in f2["text"]
    assert any("Figure 2 shows" in s for s in f2["references"]), f2

    # Markdown export: images in place, named like pymupdf4llm's (NAME-PAGE0-K.png).
    r = run("export", "quokka.pdf", "--format", "md", "-o", tmp_path / "md", "--json", store=store)
    assert r.rc == 0, r
    e = r.json()
    assert e["figures"] == 2
    raw = (tmp_path / "md" / "quokka_raw.md").read_text()
    assert "![](images/quokka.pdf-0-0.png)\n\nFigure 1: Architecture of the quokka model." in raw
    assert "![](images/quokka.pdf-1-0.png)" in raw
    assert (tmp_path / "md" / "images" / "quokka.pdf-0-0.png").read_bytes()[:4] == b"\x89PNG"
    r = run("export", "quokka.pdf", "--format", "md", "--annotated", "-o", tmp_path / "md", store=store)
    assert r.rc == 0, r
    ann = (tmp_path / "md" / "quokka_annotated.md").read_text()
    assert "Text in the figure (OCR)" in ann and "ENCODER" in ann.upper()


def test_ask_cites_the_figure(paper, store):
    assert run("ingest", paper, store=store).rc == 0
    r = run("ask", "What does Figure 2 show?", "--json", "--llm", "none", store=store)
    assert r.rc == 0, r
    a = r.json()
    figs = [c for c in a["citations"] if c["figure_id"]]
    assert figs, a["citations"]
    assert figs[0]["kind"] == "figure" and figs[0]["figure_label"] == "Figure 2"
    r = run("ask", "What does Figure 2 show?", "--llm", "none", store=store)
    assert "quokka.pdf, page 2, Figure 2" in r.out, r


def test_ocr_cache_and_delete(tmp_path, paper, store):
    r = run("ingest", paper, "--json", store=store)
    assert r.json()["ocr"]["images"] >= 1
    images = list((store / "figures").glob("*.png"))
    assert len(images) == 2
    # Delete removes the figures and their images; the OCR cache stays.
    assert run("delete", "quokka.pdf", store=store).rc == 0
    assert not list((store / "figures").glob("*.png"))
    r = run("ingest", paper, "--json", store=store)
    j = r.json()
    assert j["ocr"]["images"] == 0 and j["ocr"]["cached"] >= 1, j
    assert len(list((store / "figures").glob("*.png"))) == 2
    # --no-figures: text only.
    s2 = tmp_path / "s2"
    r = run("ingest", paper, "--json", "--no-figures", store=s2)
    assert r.json()["figures"] == 0
    assert run("check", store=store).rc == 0


def test_a_question_naming_a_figure_of_one_paper(tmp_path, paper, store):
    # Two papers, each with a Figure 2: the one the question names is cited, and the step log
    # says how it was found.
    other = figgen.paper_with_figures(paper.parent / "numbat.pdf", animal="numbat")
    assert run("ingest", paper, other, store=store).rc == 0
    r = run("ask", "What does Figure 2 of the numbat paper show?", "--json", "--llm", "none", store=store)
    assert r.rc == 0, r
    a = r.json()
    figs = [c for c in a["citations"] if c["figure_id"]]
    assert figs and figs[0]["doc"] == "numbat.pdf" and figs[0]["figure_label"] == "Figure 2", a["citations"]
    step = [s for s in a["trace"] if s["step"] == "figures"][0]
    assert step["labels"] == ["Figure 2"]
    assert [(f["doc"], f["pinned"]) for f in step["figures"]] == [("numbat.pdf", True)], step
    retrieve = [s for s in a["trace"] if s["step"] == "retrieve"][0]
    assert retrieve["figures"][0]["passage"] == 1 and retrieve["figures"][0]["doc"] == "numbat.pdf", retrieve
    r = run("ask", "What does Figure 2 of the numbat paper show?", "-v", "--llm", "none", store=store)
    assert "figures: the question names Figure 2: numbat.pdf, page 2" in r.err, r.err


def test_scanned_pdf_is_read_with_ocr(tmp_path, store):
    scan = figgen.scanned_pdf(tmp_path / "scan.pdf", [["INVOICE NUMBER 4471", "PAYABLE TO PLATYPUS LTD"],
                                                      ["DELIVERY NOTE 98", "SHIPPED BY ECHIDNA POST"],
                                                      ["RECEIPT 12", "PAID IN FULL"]])
    r = run("ingest", scan, "--json", store=store)
    assert r.rc == 0, r
    j = r.json()
    assert j["documents"] == 1 and j["figures"] == 3 and j["ocr"]["images"] == 3, j
    assert any("read with OCR" in w["warning"] for w in j["warnings"]), j["warnings"]
    r = run("search", "echidna delivery", "--json", "--mode", "bm25", store=store)
    hits = r.json()["results"]
    assert hits and hits[0]["page"] == 2 and hits[0]["kind"] == "figure", hits
    # Without figures there is nothing to read: one clear error naming the way out.
    r = run("ingest", scan, "--no-figures", store=tmp_path / "s2")
    assert r.rc != 0 and "without --no-figures" in r.err, r
