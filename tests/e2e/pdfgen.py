"""Generates test PDFs with PyMuPDF: pages, headings, two columns, hyphenation, running headers."""
import fitz  # PyMuPDF

BODY = 10
W, H = 595, 842  # A4 points


def _text(page, x, y, s, size=BODY, bold=False):
    page.insert_text((x, y), s, fontsize=size, fontname="hebo" if bold else "helv")


def paper(path, pages=4, header="Journal of Testing Vol. 1", hyphen=True, columns=False, encrypt=None):
    """A multi-page paper: a title, section headings, body text, running header/footer and page numbers."""
    doc = fitz.open()
    for p in range(1, pages + 1):
        page = doc.new_page(width=W, height=H)
        _text(page, 72, 40, header, size=8)                  # running header
        _text(page, 290, 810, str(p), size=8)                 # page number
        _text(page, 72, 825, "Preprint. Do not distribute.", size=8)  # running footer
        y = 90
        if p == 1:
            _text(page, 72, y, "Gated Widgets for Sparse Retrieval", size=20, bold=True)
            y += 40
        _text(page, 72, y, f"{p}. Section about topic{p}", size=14, bold=True)
        y += 24
        lines = [
            f"This is page {p} and it talks about the special keyword zebra{p} in detail.",
            "Our widgets combine sparse retrieval with gating, and the results are",
            "consistent across every benchmark we tried during the long evaluation.",
        ]
        if hyphen:
            lines += ["The method relies on a carefully designed atten-",
                      "tion mechanism that filters the irrelevant passages."]
        for ln in lines:
            _text(page, 72, y, ln)
            y += 13
        if columns:
            y += 20
            left = [f"Left column line {i} mentions alpha{p}x{i} words." for i in range(8)]
            right = [f"Right column line {i} mentions omega{p}x{i} words." for i in range(8)]
            yy = y
            for ln in left:
                _text(page, 72, yy, ln)
                yy += 13
            yy = y
            for ln in right:
                _text(page, 320, yy, ln)
                yy += 13
    kw = {}
    if encrypt:
        kw = dict(encryption=fitz.PDF_ENCRYPT_AES_256, user_pw=encrypt, owner_pw=encrypt + "o")
    doc.set_metadata({"title": "Gated Widgets for Sparse Retrieval"})
    doc.save(str(path), **kw)
    doc.close()
    return path


def blank(path, pages=1):
    doc = fitz.open()
    for _ in range(pages):
        doc.new_page()
    doc.save(str(path))
    doc.close()
    return path


def figure_paper(path):
    """One page of text about multi-head attention with a captioned vector figure (boxes, arrows,
    a circle) that the text refers to: "Figure 1: Multi-head attention in the Transformer."."""
    doc = fitz.open()
    page = doc.new_page(width=W, height=H)
    y = 90
    _text(page, 72, y, "Attention Models", size=20, bold=True)
    y += 40
    for ln in ["The Transformer uses multi-head attention. Multi-head attention runs several",
               "attention heads in parallel. Figure 1 shows multi-head attention in detail.",
               "The Transformer reaches 28.4 BLEU on the WMT 2014 translation benchmark."]:
        _text(page, 72, y, ln)
        y += 13
    y += 20
    for i in range(3):
        page.draw_rect(fitz.Rect(100 + i * 130, y, 200 + i * 130, y + 80), color=(0, 0, 1), fill=(0.8, 0.8, 1),
                       width=1.5)
        if i < 2:
            page.draw_line((200 + i * 130, y + 40), (230 + i * 130, y + 40), color=(0, 0, 0), width=2)
    page.draw_circle((300, y + 150), 40, color=(1, 0, 0), fill=(1, 0.8, 0.8))
    y += 210
    _text(page, 72, y, "Figure 1: Multi-head attention in the Transformer.", size=9)
    y += 30
    _text(page, 72, y, "More text follows here about scaled dot-product attention and the Transformer.")
    doc.save(str(path))
    doc.close()
    return path
