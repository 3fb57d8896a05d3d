"""PDFs whose images are unusual or broken, written object by object (PyMuPDF would re-encode
or refuse the broken streams): CMYK, indexed, 16-bit and 1-bit mask images that must come out
as ordinary RGB PNGs; a JBIG2 stream of garbage, a JPEG cut in half, a Flate stream of garbage
and an image that declares 30000x30000 pixels over a few bytes, each of which must cost one
warning and never the document; and an enormous valid image (20000x20000 RGB, compressed to a
few MB) that must be rendered downscaled in bounded memory."""
import random
import zlib

import pymupdf

W, H = 612, 792


class Image:
    """An image XObject: its dictionary entries (PDF syntax, without << >>) and its raw stream."""

    def __init__(self, entries, data):
        self.entries = entries
        self.data = data


def _esc(s):
    return s.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def write_pdf(path, pages):
    """pages: a list of (content operators, {name: Image}). Helvetica is /F1 on every page."""
    objs = [None, None, b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"]  # 1, 2, 3

    def add(body):
        objs.append(body)
        return len(objs)

    def stream(entries, data):
        return b"<< " + entries.encode() + b" /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"

    kids = []
    for content, images in pages:
        xobjs = " ".join(f"/{n} {add(stream(im.entries, im.data))} 0 R" for n, im in images.items())
        cref = add(stream("", content.encode("latin-1")))
        kids.append(add(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {W} {H}] /Contents {cref} 0 R "
                        f"/Resources << /Font << /F1 3 0 R >> /XObject << {xobjs} >> >> >>".encode()))
    objs[0] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objs[1] = f"<< /Type /Pages /Kids [{' '.join(f'{k} 0 R' for k in kids)}] /Count {len(kids)} >>".encode()
    out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for i, body in enumerate(objs, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % i + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objs) + 1)
    for off in offsets:
        out += b"%010d 00000 n \n" % off
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objs) + 1, xref)
    path.write_bytes(bytes(out))
    return path


def text(x, top, s, size=11):
    return f"BT /F1 {size} Tf {x} {H - top} Td ({_esc(s)}) Tj ET\n"


def body(words):
    """Four lines of prose naming `words` (what search must still find)."""
    return "".join(text(72, 80 + 14 * i, f"This page is about the {words} and line {i} of its story goes here.")
                   for i in range(4))


def draw(name, top, w=240, h=150, x=150, fill=None):
    """Draws image `name` with its top-left corner at (x, top), `w` x `h` points."""
    colour = f"{fill} rg " if fill else ""
    return f"q {colour}{w} 0 0 {h} {x} {H - top - h} cm /{name} Do Q\n"


def figure(name, top, caption, h=150, **kw):
    return draw(name, top, h=h, **kw) + text(72, top + h + 20, caption, 10)


# ---- images ----

def flate(entries, raw):
    return Image(entries + " /Filter /FlateDecode", zlib.compress(raw))


def cmyk_jpeg_red(w=64, h=48):
    pix = pymupdf.Pixmap(pymupdf.csCMYK, pymupdf.IRect(0, 0, w, h), False)
    pix.set_rect(pix.irect, (0, 255, 255, 0))  # C=0 M=1 Y=1 K=0: red
    return Image(f"/Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace /DeviceCMYK "
                 "/BitsPerComponent 8 /Filter /DCTDecode", pix.tobytes("jpg"))


def rgb_jpeg(w=96, h=64):
    pix = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, w, h), False)
    for y in range(h):
        for x in range(w):
            pix.set_pixel(x, y, ((x * 5) % 256, (y * 7) % 256, ((x + y) * 3) % 256))
    return pix.tobytes("jpg")


def image_dict(w, h, cs, bpc=8):
    return f"/Type /XObject /Subtype /Image /Width {w} /Height {h} /ColorSpace {cs} /BitsPerComponent {bpc}"


def cmyk_flate_blue(w=40, h=30):
    return flate(image_dict(w, h, "/DeviceCMYK"), bytes([255, 255, 0, 0]) * (w * h))  # C=1 M=1: blue


def indexed_stripes(w=40, h=30):
    # Palette: 0 red, 1 green; left half red, right half green.
    row = bytes([0] * (w // 2) + [1] * (w - w // 2))
    return flate(image_dict(w, h, "[/Indexed /DeviceRGB 1 <FF0000 00C000>]"), row * h)


def rgb16_green(w=40, h=30):
    return flate(image_dict(w, h, "/DeviceRGB", 16), bytes([0, 0, 0xFF, 0xFF, 0, 0]) * (w * h))


def mask_checker(w=64, h=64):
    rows = b"".join(bytes([0x0F if (y // 8) % 2 else 0xF0] * (w // 8)) for y in range(h))
    return flate(f"/Type /XObject /Subtype /Image /Width {w} /Height {h} /ImageMask true /BitsPerComponent 1", rows)


def gray_gradient(w=64, h=64):
    return flate(image_dict(w, h, "/DeviceGray"), bytes((x * 4) % 256 for _ in range(h) for x in range(w)))


def garbage(n, seed):
    rnd = random.Random(seed)
    return bytes(rnd.randrange(256) for _ in range(n))


def jbig2_garbage(w=200, h=150):
    return Image(image_dict(w, h, "/DeviceGray", 1) + " /Filter /JBIG2Decode", garbage(600, 1))


def jpeg_truncated():
    data = rgb_jpeg()
    return Image(image_dict(96, 64, "/DeviceRGB") + " /Filter /DCTDecode", data[: len(data) // 2])


def flate_garbage(w=100, h=80):
    return Image(image_dict(w, h, "/DeviceRGB") + " /Filter /FlateDecode", garbage(500, 2))


def declared_enormous():
    """Declares 30000x30000 RGB (2.7 GB decoded) over a few hundred bytes."""
    return Image(image_dict(30000, 30000, "/DeviceRGB") + " /Filter /FlateDecode", zlib.compress(b"\x80" * 3000))


# What each broken figure's warning must say, by page and label.
BROKEN = {
    (3, "Figure 6"): "JBIG2",
    (4, "Figure 7"): "JPEG",
    (4, "Figure 8"): "Flate",
    (5, "Figure 9"): "30000x30000",
}
GOOD = {(1, "Figure 1"), (1, "Figure 2"), (2, "Figure 3"), (2, "Figure 4"), (3, "Figure 5"), (5, "Figure 10")}


def unusual_images_paper(path):
    """Five pages, two captioned figures each (see BROKEN and GOOD), one animal per page."""
    pages = [
        (body("cassowary feathers") + figure("A", 150, "Figure 1: A CMYK photograph of a red square.")
         + figure("B", 430, "Figure 2: A CMYK drawing in blue."),
         {"A": cmyk_jpeg_red(), "B": cmyk_flate_blue()}),
        (body("echidna spines") + figure("A", 150, "Figure 3: An indexed image, red and green.")
         + figure("B", 430, "Figure 4: A sixteen bit green image."),
         {"A": indexed_stripes(), "B": rgb16_green()}),
        (body("kookaburra calls") + figure("A", 150, "Figure 5: A checkerboard drawn as a stencil mask.",
                                           fill="0 0 1")
         + figure("B", 430, "Figure 6: A scanned page in JBIG2 that is corrupt."),
         {"A": mask_checker(), "B": jbig2_garbage()}),
        (body("wallaby hops") + figure("A", 150, "Figure 7: A photograph cut off halfway.")
         + figure("B", 430, "Figure 8: A drawing whose data is garbage."),
         {"A": jpeg_truncated(), "B": flate_garbage()}),
        (body("dingo tracks") + figure("A", 150, "Figure 9: A panorama that claims to be enormous.")
         + figure("B", 430, "Figure 10: A grey gradient that is fine."),
         {"A": declared_enormous(), "B": gray_gradient()}),
    ]
    return write_pdf(path, pages)


def deflate_rows(runs):
    """Flate data of rows repeated: runs of (row bytes, count). Streamed, never whole in memory."""
    z = zlib.compressobj(9)
    parts = []
    for row, n in runs:
        block = row * 64
        parts += [z.compress(block) for _ in range(n // 64)] + [z.compress(row * (n % 64))]
    return b"".join(parts) + z.flush()


def enormous_image_paper(path, side=20000):
    """One page with a valid `side` x `side` RGB image (1.2 GB decoded at 20000): the top half
    red, the bottom half blue. Identical rows compress to about a thousandth."""
    data = deflate_rows([(b"\xd0\x10\x10" * side, side // 2), (b"\x10\x10\xd0" * side, side - side // 2)])
    img = Image(image_dict(side, side, "/DeviceRGB") + " /Filter /FlateDecode", data)
    page = body("quoll burrows") + figure("A", 150, "Figure 1: An enormous satellite image.", w=300, h=300)
    return write_pdf(path, [(page, {"A": img})])


def enormous_indexed_paper(path, side=20000):
    """One page with a valid `side` x `side` indexed image (two colours, all the first). MuPDF
    expands indexed images at full size before scaling them down: 1.6 GB at 20000."""
    img = Image(image_dict(side, side, "[/Indexed /DeviceRGB 1 <D01010 1010D0>]") + " /Filter /FlateDecode",
                deflate_rows([(b"\x00" * side, side)]))
    page = body("bandicoot dens") + figure("A", 150, "Figure 1: An enormous indexed map.", w=300, h=300)
    return write_pdf(path, [(page, {"A": img})])


def enormous_inline_image_paper(path):
    """An inline image (BI ... ID ... EI, meant for small images) declaring 30000x30000 RGB over
    3000 bytes: MuPDF decodes inline images while it reads the page, so the page stops there."""
    content = (body("potoroo nests") + "q 200 0 0 120 150 400 cm\nBI /W 30000 /H 30000 /CS /RGB /BPC 8 ID\n"
               + "\x80" * 3000 + "\nEI Q\n" + text(72, 600, "The potoroo paragraph after the image."))
    return write_pdf(path, [(content, {})])
