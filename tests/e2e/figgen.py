"""Generates documents with figures for the figure suite, with PyMuPDF: a paper whose raster
image shows known words (for OCR), a vector plot with axis labels, a logo on every page;
Markdown and HTML that refer to local images. Unusual (CMYK, indexed, 16-bit, masks) and broken
images are in badfigs.py."""
import fitz  # PyMuPDF

W, H = 595, 842


def text_image_png(words, width=480, height=200, invert=False):
    """A PNG of `words` in large type (what OCR must read back)."""
    doc = fitz.open()
    page = doc.new_page(width=width, height=height)
    if invert:
        page.draw_rect(page.rect, color=(0, 0, 0), fill=(0.1, 0.1, 0.2))
    y = 60
    for line in words:
        page.insert_text((24, y), line, fontsize=30, fontname="helv", color=(1, 1, 1) if invert else (0, 0, 0))
        y += 50
    pix = page.get_pixmap(dpi=144)
    data = pix.tobytes("png")
    doc.close()
    return data


def noise_png(w=64, h=32, seed=1):
    pix = fitz.Pixmap(fitz.csRGB, fitz.IRect(0, 0, w, h), False)
    for y in range(h):
        for x in range(w):
            pix.set_pixel(x, y, ((x * 7 + seed * 40) % 256, (y * 11) % 256, (x * y + seed) % 256))
    return pix.tobytes("png")


def _text(page, x, y, s, size=10):
    page.insert_text((x, y), s, fontsize=size, fontname="helv")


def paper_with_figures(path, animal="quokka"):
    doc = fitz.open()
    logo = noise_png(seed=3)
    arch = text_image_png([f"{animal.upper()} ENCODER", "DECODER STACK 2024"])
    for p in range(1, 5):
        page = doc.new_page(width=W, height=H)
        page.insert_image(fitz.Rect(480, 20, 560, 60), stream=logo)  # the same logo on every page
        _text(page, 72, 90, f"Section {p}: notes on the {animal} model", 14)
        y = 120
        for i in range(4):
            _text(page, 72, y, f"Page {p} paragraph line {i} describes the {animal} model and its training in words.")
            y += 13
        if p == 1:
            _text(page, 72, y + 10, f"As shown in Figure 1, the {animal} architecture stacks an encoder and a decoder.")
            page.insert_image(fitz.Rect(120, 200, 460, 342), stream=arch)
            _text(page, 72, 362, f"Figure 1: Architecture of the {animal} model.")
        if p == 2:
            # A vector plot: axes, a curve of many segments, tick labels, an axis title.
            x0, y0, w, h = 130, 220, 320, 200
            page.draw_line((x0, y0 + h), (x0 + w, y0 + h))
            page.draw_line((x0, y0), (x0, y0 + h))
            pts = [(x0 + w * i / 24, y0 + h * (0.1 + 0.8 * (1 - (i / 24) ** 0.5))) for i in range(25)]
            for a, b in zip(pts, pts[1:]):
                page.draw_line(a, b, color=(0.8, 0.1, 0.1))
            for i in range(5):
                _text(page, x0 + w * i / 4 - 5, y0 + h + 14, str(i * 25), 8)
            _text(page, x0 + w / 2 - 20, y0 + h + 28, "epochs", 9)
            _text(page, x0 + 150, y0 + 20, "wombat loss", 8)
            _text(page, 72, y0 + h + 56, f"Figure 2: Training loss of the {animal} model over epochs.")
            _text(page, 72, y0 + h + 90, f"Figure 2 shows that the loss of the {animal} model falls quickly at first.")
    doc.save(str(path))
    doc.close()
    return path


def scanned_pdf(path, pages):
    """A PDF of page images only (a scan): each page a full-page picture of its lines of words."""
    doc = fitz.open()
    for words in pages:
        page = doc.new_page(width=W, height=H)
        page.insert_image(page.rect, stream=text_image_png(words, width=W, height=300))
    doc.save(str(path))
    doc.close()
    return path


def markdown_with_images(folder):
    """notes.md referring to images/arch.png (with a caption) and to a missing image."""
    img = folder / "images"
    img.mkdir(parents=True, exist_ok=True)
    (img / "arch.png").write_bytes(text_image_png(["PLATYPUS ROUTER"], invert=True))
    (folder / "broken.png").write_bytes(b"\x89PNG\r\n\x1a\nnot really a png")
    md = folder / "notes.md"
    md.write_text(
        "# Platypus notes\n\nThe platypus router sends each token to one expert.\n\n"
        "![Figure 7: The platypus router.](images/arch.png)\n\n"
        "As Figure 7 shows, routing is sparse.\n\n![a broken picture](broken.png)\n\n"
        "![outside](../outside.png)\n"
    )
    return md


def html_with_figure(folder):
    img = folder / "img"
    img.mkdir(parents=True, exist_ok=True)
    (img / "chart.png").write_bytes(text_image_png(["NUMBAT SALES"]))
    h = folder / "page.html"
    h.write_text(
        "<html><head><title>Numbat report</title></head><body><h1>Numbat report</h1>"
        "<p>Sales of numbats grew every quarter, as the chart shows.</p>"
        "<figure><img src='img/chart.png' alt='chart'><figcaption>Figure 3: Numbat sales per quarter."
        "</figcaption></figure></body></html>"
    )
    return h


# ---- tables ----

TABLE_ROWS = [["Site", "Quokkas", "Survey year"],
              ["Rottnest Island", "12000", "2019"],
              ["Bald Island", "850", "2020"],
              ["Two Peoples Bay", "430", "2018"]]


def _prose(page, y, n, what):
    for i in range(n):
        _text(page, 72, y, f"Line {i} of the {what} paragraph talks about the quokka survey and its many sites.")
        y += 13
    return y


def ruled_table_pdf(path):
    """A page with prose, "Table 1: ..." and a fully ruled 4 x 3 grid below it, then prose."""
    doc = fitz.open()
    page = doc.new_page(width=W, height=H)
    _text(page, 72, 72, "Quokka survey", 14)
    y = _prose(page, 100, 3, "opening")
    _text(page, 72, y + 14, "Table 1: Quokka counts per island site.")
    top, rh, xs = y + 26, 20, [90, 250, 360, 480]
    for k in range(len(TABLE_ROWS) + 1):
        page.draw_line((xs[0], top + k * rh), (xs[-1], top + k * rh), width=0.6)
    for x in xs:
        page.draw_line((x, top), (x, top + rh * len(TABLE_ROWS)), width=0.6)
    for r, row in enumerate(TABLE_ROWS):
        for c, cell in enumerate(row):
            _text(page, xs[c] + 6, top + r * rh + 14, cell)
    _prose(page, top + rh * len(TABLE_ROWS) + 30, 3, "closing")
    doc.save(str(path))
    doc.close()
    return path


def aligned_table_pdf(path):
    """A page with an unruled table: "Table 1: ..." then columns aligned by position only, the
    numbers right-aligned; prose before and after."""
    doc = fitz.open()
    page = doc.new_page(width=W, height=H)
    _text(page, 72, 72, "Wombat regression", 14)
    y = _prose(page, 100, 3, "opening")
    _text(page, 72, y + 14, "Table 1: Coefficients of the wombat burrow model.")
    rows = [["", "Estimate", "Std. Error", "p value"],
            ["(Intercept)", "3.141", "0.212", "0.001"],
            ["burrow depth", "-0.577", "0.061", "0.004"],
            ["soil moisture", "12.25", "1.830", "0.020"]]
    right = [0, 260, 360, 450]  # right edges of the number columns
    y0 = y + 34
    for r, row in enumerate(rows):
        for c, cell in enumerate(row):
            if not cell:
                continue
            x = 72 if c == 0 else right[c] - fitz.get_text_length(cell, fontname="helv", fontsize=10)
            _text(page, x, y0 + r * 14, cell)
    _prose(page, y0 + 14 * len(rows) + 20, 3, "closing")
    doc.save(str(path))
    doc.close()
    return path


def markdown_table(folder):
    md = folder / "survey.md"
    md.write_text(
        "# Bilby survey\n\nThe bilby counts per reserve are below.\n\n"
        "Table 1: Bilby counts per reserve.\n\n"
        "| Reserve | Bilbies | Year |\n|---|---:|---|\n| Currawinya | 310 | 2021 |\n| Astrebla \\| Downs | 95 | 2022 |\n\n"
        "The counts rose since the fences were built.\n"
    )
    return md


def html_table(folder):
    h = folder / "numbats.html"
    h.write_text(
        "<html><head><title>Numbat census</title></head><body><h1>Numbat census</h1>"
        "<p>Numbats were counted in three woodlands.</p>"
        "<table><caption>Table 1: Numbat census by woodland.</caption>"
        "<thead><tr><th>Woodland</th><th>Numbats</th></tr></thead>"
        "<tbody><tr><td>Dryandra</td><td>540</td></tr><tr><td>Perup</td><td>120</td></tr>"
        "<tr><td>Batalling</td><td>35</td></tr></tbody></table>"
        "<p>Dryandra holds most of them.</p></body></html>"
    )
    return h
