// Tests for the PDF parser as a whole: document structure and metadata, character decoding,
// bad and damaged input, thread safety and a real document. Layout recovery (headings, reading
// order, line joining, page furniture, block kinds) is tested in pdf_layout_test.cc. Fixture
// PDFs are generated with MuPDF's own PDF writer (pdf_fixture_test_util.h).
#include <gtest/gtest.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ingest/parser.h"
#include "support/pdf_fixtures.h"

namespace mmkg {
namespace {

using namespace pdf_fixture;

using pdf_fixture::expect_input_error;

// ---- structure ----

TEST(PdfParser, MultiPageDocumentHasPageNumbers) {
  std::vector<PageSpec> pages = {body_page("alpha"), body_page("beta"), body_page("gamma")};
  ParsedDocument d = parse(write_pdf(pages));
  EXPECT_EQ(d.format, "pdf");
  EXPECT_EQ(d.pages, 3);
  EXPECT_TRUE(d.warnings.empty());
  const Block* a = find_block(d, "alpha section");
  const Block* b = find_block(d, "beta section");
  const Block* g = find_block(d, "gamma section");
  ASSERT_TRUE(a && b && g) << dump(d);
  EXPECT_EQ(a->page, 1);
  EXPECT_EQ(b->page, 2);
  EXPECT_EQ(g->page, 3);
  for (const Block& blk : d.blocks) EXPECT_GE(blk.page, 1);
  // The three lines of a page form one paragraph, joined with single spaces.
  EXPECT_EQ(a->kind, BlockKind::Paragraph);
  EXPECT_EQ(a->text,
            "The alpha section opens with a plain sentence that fills the line and goes on for "
            "a while so that the paragraph has several lines of ordinary text, written in the "
            "body font of the document alpha.");
}

TEST(PdfParser, MetadataTitleWins) {
  PageSpec p = body_page("meta");
  p.runs.push_back({72, 60, 20, "Heading Title"});
  WriteOptions wo;
  wo.title = "The Real Title";
  ParsedDocument d = parse(write_pdf({p}, wo));
  EXPECT_EQ(d.title, "The Real Title");
}

// ---- characters ----

TEST(PdfParser, LatinCharactersAreUtf8) {
  PageSpec p;
  add_lines(p, 72, 100, 11, 14, {"Caf\351 na\357ve r\351sum\351 \374ber"});
  ParsedDocument d = parse(write_pdf({p}));
  ASSERT_EQ(d.blocks.size(), 1u);
  EXPECT_EQ(d.blocks[0].text, "Caf\xC3\xA9 na\xC3\xAFve r\xC3\xA9sum\xC3\xA9 \xC3\xBC" "ber");
}

TEST(PdfParser, SeparateAccentGlyphsAreComposed) {
  // TeX-style: the dieresis is its own glyph drawn over the "o".
  PageSpec p;
  const float size = 20;
  p.runs.push_back({72, 100, size, "M"});                                   // M: 0.833 em
  float o_x = 72 + 0.833f * size;
  p.runs.push_back({o_x + (0.556f - 0.333f) * size / 2, 100, size, "\250"});  // dieresis: 0.333 em
  p.runs.push_back({o_x, 100, size, "o"});                                  // o: 0.556 em
  p.runs.push_back({o_x + 0.556f * size, 100, size, "ller wrote this line of text."});
  ParsedDocument d = parse(write_pdf({p}));
  ASSERT_EQ(d.blocks.size(), 1u) << dump(d);
  EXPECT_EQ(d.blocks[0].text, "M\xC3\xB6ller wrote this line of text.");
}

// ---- bad input ----

// A TeX bitmap font without a Unicode map gives ligatures as their slot numbers (T1: 0x1B ff,
// 0x1C fi; OT1: 0x0C fi, 0x0D fl): in a word they are the ligature, not a dropped control or a
// space ("dierent", "signi cant" made those words unfindable).
TEST(PdfParser, TexLigatureSlotsInWordsAreLigatures) {
  ParsedDocument d = parse(write_type3_pdf("the di\x1B" "erent signi\x0C" "cant \x1C" "eld of sta\x1B a\x0D" "ow"));
  const std::string text = all_text(d);
  EXPECT_NE(text.find("the different significant field of staff aflow"), std::string::npos) << dump(d);
  // a slot between spaces is no ligature: it stays out of the text
  d = parse(write_type3_pdf("one \x1B two"));
  EXPECT_NE(all_text(d).find("one two"), std::string::npos) << dump(d);
}

TEST(PdfParser, EncryptedNeedsPassword) {
  WriteOptions wo;
  wo.encrypt = true;
  wo.user_password = "secret";
  std::string bytes = write_pdf({body_page("locked")}, wo);
  expect_input_error([&] { parse(bytes); }, "encrypted");
  expect_input_error([&] { parse(bytes); }, "qpdf --decrypt");
}

TEST(PdfParser, EncryptedWithEmptyUserPasswordOpens) {
  WriteOptions wo;
  wo.encrypt = true;  // owner password only: readers open it without asking
  ParsedDocument d = parse(write_pdf({body_page("open")}, wo));
  EXPECT_NE(find_block(d, "The open section"), nullptr) << dump(d);
}

TEST(PdfParser, TruncatedNeverCrashes) {
  std::vector<PageSpec> pages;
  for (int i = 0; i < 6; ++i) pages.push_back(body_page("part" + std::to_string(i)));
  std::string bytes = write_pdf(pages);
  int parsed = 0, rejected = 0;
  for (size_t cut : {bytes.size() / 2, bytes.size() / 3, bytes.size() * 3 / 4, bytes.size() - 10,
                     size_t{20}, size_t{9}}) {
    try {
      ParsedDocument d = parse(bytes.substr(0, cut));
      ++parsed;
      for (const Block& b : d.blocks) EXPECT_GE(b.page, 1);
    } catch (const InputError& e) {
      ++rejected;
      EXPECT_GT(std::strlen(e.what()), 10u);
    }
  }
  EXPECT_EQ(parsed + rejected, 6);
  // Cutting only the trailer and xref away is repairable: the text is still there.
  ParsedDocument d = parse(bytes.substr(0, bytes.size() - 10));
  EXPECT_NE(find_block(d, "The part5 section"), nullptr) << dump(d);
}

TEST(PdfParser, LostPageTreeIsRebuiltFromPageObjects) {
  std::vector<PageSpec> pages = {body_page("first"), body_page("second"), body_page("third")};
  std::string bytes = write_pdf(pages);
  // Unhook the page tree from the catalog (same length, so the xref stays valid).
  size_t catalog = bytes.find("/Catalog");
  ASSERT_NE(catalog, std::string::npos);
  size_t key = bytes.find("/Pages", catalog);
  if (key == std::string::npos || key > catalog + 200) key = bytes.rfind("/Pages", catalog);
  ASSERT_NE(key, std::string::npos);
  bytes.replace(key, 6, "/Pagez");
  ParsedDocument d = parse(bytes);
  EXPECT_EQ(d.pages, 3);
  EXPECT_NE(find_block(d, "The first section"), nullptr) << dump(d);
  EXPECT_NE(find_block(d, "The third section"), nullptr) << dump(d);
  ASSERT_FALSE(d.warnings.empty());
  EXPECT_NE(d.warnings.back().find("page tree"), std::string::npos) << d.warnings.back();
}

TEST(PdfParser, AbsurdPageCountIsNotTrusted) {
  std::string bytes = write_pdf({body_page("counted"), body_page("twice"), body_page("thrice")});
  size_t pos = bytes.find("/Count 3");
  ASSERT_NE(pos, std::string::npos);
  bytes.replace(pos, 8, "/Count 999999999");  // offsets shift: MuPDF repairs the xref
  auto t0 = std::chrono::steady_clock::now();
  try {
    ParsedDocument d = parse(bytes);
    EXPECT_EQ(d.pages, 3);
    EXPECT_NE(find_block(d, "The thrice section"), nullptr) << dump(d);
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("PDF"), std::string::npos);
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
}

TEST(PdfParser, MutatedBytesNeverCrash) {
  std::string bytes = write_pdf({body_page("fuzz"), body_page("more")});
  std::mt19937 rng(12345);
  for (int iter = 0; iter < 150; ++iter) {
    std::string m = bytes;
    int flips = 1 + static_cast<int>(rng() % 20);
    for (int k = 0; k < flips; ++k) m[rng() % m.size()] = static_cast<char>(rng() & 0xFF);
    if (iter % 3 == 0) m.resize(rng() % m.size());
    try {
      ParsedDocument d = parse(m);
      for (const Block& b : d.blocks) EXPECT_GE(b.page, 1);
    } catch (const InputError&) {
    }
  }
}

TEST(PdfParser, RandomBytesRejected) {
  std::mt19937 rng(7);
  std::string bytes(4096, '\0');
  for (char& c : bytes) c = static_cast<char>(rng() & 0xFF);
  expect_input_error([&] { parse(bytes); }, "not a PDF");
  // With a PDF header in front, MuPDF tries to repair and finds nothing.
  std::string with_header = "%PDF-1.7\n" + bytes;
  EXPECT_THROW(parse(with_header), InputError);
}

TEST(PdfParser, JpegBytesRejected) {
  std::string jpeg("\xFF\xD8\xFF\xE0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00", 20);
  jpeg += std::string(500, '\x42');
  expect_input_error([&] { parse(jpeg); }, "JPEG");
}

TEST(PdfParser, EmptyRejected) { expect_input_error([] { parse(""); }, "empty"); }

TEST(PdfParser, NoTextRejected) {
  PageSpec p;
  p.extra = "0 0 1 rg 100 100 200 200 re f 1 w 50 50 m 500 700 l S\n";
  expect_input_error([&] { parse(write_pdf({p})); }, "no extractable text");
  expect_input_error([&] { parse(write_pdf({p, p})); }, "no extractable text");
}

TEST(PdfParser, PagesWithoutTextAreWarned) {
  PageSpec blank;
  blank.extra = "0 0 1 rg 100 100 200 200 re f\n";
  ParsedDocument d = parse(write_pdf({body_page("only"), blank, blank, blank}));
  EXPECT_EQ(d.pages, 4);
  ASSERT_FALSE(d.warnings.empty());
  EXPECT_NE(d.warnings[0].find("3 of 4 pages"), std::string::npos) << d.warnings[0];
}

TEST(PdfParser, ParallelParsesAreIndependent) {
  std::vector<PageSpec> pages;
  for (int i = 0; i < 8; ++i) pages.push_back(body_page("thread" + std::to_string(i)));
  std::string bytes = write_pdf(pages);
  std::vector<int> blocks(4, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < 10; ++k) blocks[t] = static_cast<int>(parse(bytes).blocks.size());
    });
  }
  for (auto& th : threads) th.join();
  for (int b : blocks) EXPECT_EQ(b, 8);
}

// ---- a real document ----

/// Valid UTF-8 without control characters (newlines allowed in code), no doubled spaces in prose.
bool clean_utf8(const std::string& s, bool code) {
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    int n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || i + n > s.size()) return false;
    for (int k = 1; k < n; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    if (c < 0x20 && !(code && c == '\n')) return false;
    if (c == 0x7F) return false;
    if (!code && c == ' ' && i + 1 < s.size() && s[i + 1] == ' ') return false;
    i += n;
  }
  return code || (s.front() != ' ' && s.back() != ' ');
}

/// Reads a file, gunzipping it if its name ends in .gz. Empty on failure.
std::string read_maybe_gz(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (p.extension() != ".gz") return raw;
  std::string out;
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) return {};
  zs.next_in = reinterpret_cast<Bytef*>(raw.data());
  zs.avail_in = static_cast<uInt>(raw.size());
  char buf[1 << 16];
  int rc = Z_OK;
  while (rc == Z_OK) {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof(buf);
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof(buf) - zs.avail_out);
  }
  inflateEnd(&zs);
  return rc == Z_STREAM_END ? out : std::string();
}

TEST(PdfParser, RealDocumentFromSystemDocs) {
  namespace fs = std::filesystem;
  fs::path best;
  uintmax_t best_size = 0;
  std::error_code ec;
  if (fs::exists("/usr/share/doc", ec)) {
    for (auto it = fs::recursive_directory_iterator(
             "/usr/share/doc", fs::directory_options::skip_permission_denied, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) break;
      std::string name = it->path().filename().string();
      bool pdf = name.size() > 4 && (name.ends_with(".pdf") || name.ends_with(".pdf.gz"));
      if (!pdf || !it->is_regular_file(ec)) continue;
      uintmax_t size = it->file_size(ec);
      if (!ec && size > best_size) best = it->path(), best_size = size;
    }
  }
  if (best.empty()) GTEST_SKIP() << "no PDF under /usr/share/doc";
  std::string bytes = read_maybe_gz(best);
  ASSERT_FALSE(bytes.empty()) << best;
  auto t0 = std::chrono::steady_clock::now();
  ParsedDocument d;
  ASSERT_NO_THROW(d = parse(bytes)) << best;
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[ info     ] %s: %d pages, %zu blocks, %zu warnings, %.3f s (%.0f pages/s)\n",
              best.c_str(), d.pages, d.blocks.size(), d.warnings.size(), secs,
              d.pages / std::max(secs, 1e-9));
  if (d.pages <= 100) GTEST_SKIP() << "largest PDF has only " << d.pages << " pages";
  EXPECT_GT(d.pages, 100);
  EXPECT_GT(d.blocks.size(), 100u);
  for (const Block& b : d.blocks) {
    ASSERT_GE(b.page, 1);
    ASSERT_LE(b.page, d.pages);
    ASSERT_FALSE(b.text.empty());
    ASSERT_TRUE(clean_utf8(b.text, b.kind == BlockKind::Code)) << b.text;
  }
}

}  // namespace
}  // namespace mmkg
