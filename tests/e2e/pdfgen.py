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
