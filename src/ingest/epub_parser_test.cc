// Tests for the EPUB parser: spine order, chapter structure, images, DRM, broken books.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "ingest/files.h"
#include "ingest/parser.h"
#include "support/image_fixtures.h"
#include "support/parser_fixtures.h"

namespace mmkg {
namespace {

namespace fx = image_fixture;
using Entries = std::vector<std::pair<std::string, std::string>>;

const char* kContainer =
    "<?xml version=\"1.0\"?><container version=\"1.0\" xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\">"
    "<rootfiles><rootfile full-path=\"OEBPS/content.opf\" media-type=\"application/oebps-package+xml\"/>"
    "</rootfiles></container>";

const char* kOpf =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>"
    "<package xmlns=\"http://www.idpf.org/2007/opf\" version=\"3.0\" unique-identifier=\"id\">"
    "<metadata xmlns:dc=\"http://purl.org/dc/elements/1.1/\"><dc:title>The Tiny &amp; Odd Book</dc:title>"
    "<dc:identifier id=\"id\">x</dc:identifier></metadata>"
    "<manifest>"
    "<item id=\"c2\" href=\"Text/chapter%202.xhtml\" media-type=\"application/xhtml+xml\"/>"
    "<item id=\"c1\" href=\"Text/ch1.xhtml\" media-type=\"application/xhtml+xml\"/>"
    "<item id=\"fig\" href=\"Images/fig.png\" media-type=\"image/png\"/>"
    "<item id=\"nav\" href=\"nav.xhtml\" media-type=\"application/xhtml+xml\" properties=\"nav\"/>"
    "</manifest>"
    "<spine><itemref idref=\"c1\"/><itemref idref=\"fig\"/><itemref idref=\"c2\"/></spine></package>";

const char* kChapter1 =
    "<?xml version=\"1.0\" encoding=\"UTF-8\"?><!DOCTYPE html>"
    "<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><title/><link rel=\"stylesheet\" href=\"s.css\"/></head>"
    "<body><h1>Chapter One</h1><p>First paragraph about quokkas.</p>"
    "<figure><img src=\"../Images/fig.png\" alt=\"a fig\"/><figcaption>Figure 1: The quokka.</figcaption></figure>"
    "</body></html>";

const char* kChapter2 =
    "<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><script src=\"x.js\"/></head><body>"
    "<h2>Part Two</h2><p>More <a id=\"p7\"/>text.</p><div/><p>After the empty div.</p>"
    "<img src=\"../Images/missing.png\"/><img src=\"../../../escape.png\"/>"
    "<img src=\"../Images/fig.png\" alt=\"again\"/></body></html>";

Entries book(const Entries& extra = {}) {
  Entries e = {{"mimetype", "application/epub+zip"},
               {"META-INF/container.xml", kContainer},
               {"OEBPS/content.opf", kOpf},
               {"OEBPS/Text/ch1.xhtml", kChapter1},
               {"OEBPS/Text/chapter 2.xhtml", kChapter2},
               {"OEBPS/Images/fig.png", fx::rgb_png(60, 40)}};
  e.insert(e.end(), extra.begin(), extra.end());
  return e;
}

ParsedDocument epub_parse(const std::string& bytes) { return make_epub_parser()->parse("book.epub", bytes); }

std::string epub_error_of(const std::string& bytes) {
  try {
    epub_parse(bytes);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(EpubParser, ChaptersInSpineOrderWithStructureAndImages) {
  EXPECT_STREQ(make_epub_parser()->name(), "epub");
  const ParsedDocument d = epub_parse(fx::zip(book()));
  EXPECT_EQ(d.format, "epub");
  EXPECT_EQ(d.pages, 0);
  EXPECT_EQ(d.title, "The Tiny & Odd Book");
  EXPECT_EQ(testing::render_blocks(d),
            "H1:Chapter One|P:First paragraph about quokkas.|F:Figure 1: The quokka.|"
            "H2:Part Two|P:More text.|P:After the empty div.");
  ASSERT_EQ(d.figures.size(), 1u) << "the same image in two chapters is one figure";
  const Figure& f = d.figures[0];
  EXPECT_EQ(f.source, "file");
  EXPECT_EQ(f.caption, "Figure 1: The quokka.");
  EXPECT_EQ(f.label, "Figure 1");
  EXPECT_EQ(f.alt, "a fig");
  EXPECT_EQ(f.block, 2u);
  EXPECT_EQ(f.width, 60);
  ASSERT_EQ(d.warnings.size(), 2u);
  EXPECT_NE(d.warnings[0].find("missing.png\" skipped: not in the book"), std::string::npos) << d.warnings[0];
  EXPECT_NE(d.warnings[1].find("escape.png\" skipped: it points outside the book"), std::string::npos) << d.warnings[1];

  ParseContext off;
  off.figures = false;
  const ParsedDocument no_figs = make_epub_parser()->parse("book.epub", fx::zip(book()), off);
  EXPECT_TRUE(no_figs.figures.empty());
  EXPECT_TRUE(no_figs.warnings.empty());
}

TEST(EpubParser, DetectedByContent) {
  const std::string bytes = fx::zip(book());
  EXPECT_EQ(detect_format("book.epub", bytes), "epub");
  EXPECT_EQ(detect_format("download.zip", bytes), "epub");
  EXPECT_EQ(detect_format("truncated.epub", bytes.substr(0, 10)), "epub") << "the parser explains";
}

TEST(EpubParser, MissingContainerFallsBackToTheOpf) {
  Entries e = book();
  e.erase(e.begin() + 1);  // no META-INF/container.xml
  EXPECT_EQ(epub_parse(fx::zip(e)).title, "The Tiny & Odd Book");
}

TEST(EpubParser, DrmIsRefusedFontObfuscationIsNot) {
  const std::string enc_head =
      "<encryption xmlns=\"urn:oasis:names:tc:opendocument:xmlns:container\" "
      "xmlns:enc=\"http://www.w3.org/2001/04/xmlenc#\"><enc:EncryptedData><enc:CipherData>";
  const std::string drm = enc_head + "<enc:CipherReference URI=\"OEBPS/Text/ch1.xhtml\"/></enc:CipherData>"
                                     "</enc:EncryptedData></encryption>";
  EXPECT_NE(epub_error_of(fx::zip(book({{"META-INF/encryption.xml", drm}}))).find("DRM-protected"), std::string::npos);
  const std::string fonts = enc_head + "<enc:CipherReference URI=\"OEBPS/Fonts/a.otf\"/></enc:CipherData>"
                                       "</enc:EncryptedData></encryption>";
  EXPECT_EQ(epub_error_of(fx::zip(book({{"META-INF/encryption.xml", fonts}}))), "");
}

TEST(EpubParser, BrokenBooksAreInputErrors) {
  EXPECT_NE(epub_error_of("not a zip").find("not a valid EPUB"), std::string::npos);
  EXPECT_NE(epub_error_of(std::string("PK\x03\x04", 4) + std::string(100, 'x')).find("not a valid EPUB"),
            std::string::npos);
  EXPECT_NE(epub_error_of(fx::zip({{"mimetype", "application/epub+zip"}})).find("no package document"),
            std::string::npos);
  Entries no_spine = book();
  no_spine[2].second = "<package><manifest/><spine/></package>";
  EXPECT_NE(epub_error_of(fx::zip(no_spine)).find("no chapters"), std::string::npos);
  Entries binary = book();
  binary[3].second = std::string("\x00\x01\x02\x03\xFF\xFE", 6) + std::string(200, '\0');
  binary[4].second = binary[3].second;
  EXPECT_NE(epub_error_of(fx::zip(binary)).find("no chapter of the EPUB could be read"), std::string::npos);
}

TEST(EpubParser, MutatedBooksNeverCrash) {
  const std::string seed = fx::zip(book());
  std::mt19937 rng(99);
  int ok = 0, refused = 0;
  for (int round = 0; round < 200; ++round) {
    std::string b = seed;
    const int edits = 1 + static_cast<int>(rng() % 6);
    for (int k = 0; k < edits; ++k) b[rng() % b.size()] = static_cast<char>(rng());
    if (round % 4 == 0) b.resize(rng() % b.size());
    try {
      epub_parse(b);
      ++ok;
    } catch (const InputError&) {
      ++refused;
    }
  }
  EXPECT_EQ(ok + refused, 200);
}

}  // namespace
}  // namespace mmkg
