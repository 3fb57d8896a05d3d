"""Figures from Markdown, HTML and image files (needs the image-reference parsers)."""
from conftest import run
import figgen


def test_markdown_and_html_images(tmp_path, store):
    d = tmp_path / "site"
    d.mkdir()
    figgen.markdown_with_images(d)
    figgen.html_with_figure(d)
    r = run("ingest", d, "--json", "-v", store=store)
    assert r.rc == 0, r
    j = r.json()
    # The images the pages show are their figures, not documents of their own.
    assert j["figures"] == 2 and j["documents"] == 2, j
    warned = " ".join(w["warning"] for w in j["warnings"])
    assert "broken.png" in warned and "outside.png" in warned, j["warnings"]
    r = run("search", "platypus router", "--json", "--mode", "bm25", store=store)
    figs = [h for h in r.json()["results"] if h["kind"] == "figure"]
    assert figs and figs[0]["figure_label"] == "Figure 7", r.json()
    r = run("figure", figs[0]["figure_id"], "--json", store=store)
    assert "PLATYPUS" in r.json()["text"].upper(), r.json()
    r = run("search", "numbat sales quarter", "--json", "--mode", "bm25", store=store)
    figs = [h for h in r.json()["results"] if h["kind"] == "figure"]
    assert figs and figs[0]["figure_label"] == "Figure 3", r.json()


def test_image_file_is_a_document(tmp_path, store):
    p = tmp_path / "scan.png"
    p.write_bytes(figgen.text_image_png(["ECHIDNA INVOICE 4471"]))
    r = run("ingest", p, "--json", store=store)
    assert r.rc == 0, r
    assert r.json()["figures"] == 1
    r = run("search", "echidna invoice", "--json", "--mode", "bm25", store=store)
    hits = r.json()["results"]
    assert hits and hits[0]["kind"] == "figure", hits
