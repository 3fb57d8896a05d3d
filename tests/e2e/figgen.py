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


def paper_with_figures(path):
    doc = fitz.open()
    logo = noise_png(seed=3)
    arch = text_image_png(["QUOKKA ENCODER", "DECODER STACK 2024"])
    for p in range(1, 5):
        page = doc.new_page(width=W, height=H)
        page.insert_image(fitz.Rect(480, 20, 560, 60), stream=logo)  # the same logo on every page
        _text(page, 72, 90, f"Section {p}: notes on the quokka model", 14)
        y = 120
        for i in range(4):
            _text(page, 72, y, f"Page {p} paragraph line {i} describes the quokka model and its training in words.")
            y += 13
        if p == 1:
            _text(page, 72, y + 10, "As shown in Figure 1, the quokka architecture stacks an encoder and a decoder.")
            page.insert_image(fitz.Rect(120, 200, 460, 342), stream=arch)
            _text(page, 72, 362, "Figure 1: Architecture of the quokka model.")
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
            _text(page, 72, y0 + h + 56, "Figure 2: Training loss of the quokka model over epochs.")
            _text(page, 72, y0 + h + 90, "Figure 2 shows that the loss of the quokka model falls quickly at first.")
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
