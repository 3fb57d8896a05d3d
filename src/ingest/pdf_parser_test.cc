// Tests for the PDF parser. Fixture PDFs are generated with MuPDF's own PDF writer.
#include <gtest/gtest.h>
#include <mupdf/fitz.h>
#include <mupdf/pdf.h>
#include <zlib.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ingest/parser.h"
#include "ingest/pdf_layout.h"

namespace mmkg {
namespace {

// ---- fixture writer ----

/// One text run: position of the baseline start, measured from the TOP-left of a
/// 612x792 page (converted to PDF space when written).
struct Run {
  float x, y;
  float size;
  std::string text;
  bool bold = false;
  bool mono = false;  ///< Courier
};

struct PageSpec {
  std::vector<Run> runs;
  std::string extra;  ///< raw content-stream operators appended (graphics)
};

struct WriteOptions {
  std::string title;
  bool encrypt = false;
  std::string user_password;   ///< empty: opens without password
  std::string owner_password = "owner";
};

std::string pdf_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '(' || c == ')' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

std::string content_stream(const PageSpec& page) {
  std::ostringstream cs;
  for (const Run& r : page.runs) {
    cs << "BT /" << (r.mono ? "F3" : r.bold ? "F2" : "F1") << ' ' << r.size << " Tf 1 0 0 1 " << r.x << ' '
       << (792.0f - r.y) << " Tm (" << pdf_escape(r.text) << ") Tj ET\n";
  }
  cs << page.extra;
  return cs.str();
}

/// Writes a PDF with Helvetica (F1), Helvetica-Bold (F2) and Courier (F3) using MuPDF's PDF API.
std::string write_pdf(const std::vector<PageSpec>& pages, const WriteOptions& wo = {}) {
  std::vector<std::string> contents;
  for (const PageSpec& p : pages) contents.push_back(content_stream(p));

  fz_context* ctx = fz_new_context(nullptr, nullptr, FZ_STORE_DEFAULT);
  if (!ctx) throw std::runtime_error("fz_new_context failed");
  pdf_document* doc = nullptr;
  fz_font* regular = nullptr;
  fz_font* bold = nullptr;
  fz_font* mono = nullptr;
  fz_buffer* out_buf = nullptr;
  fz_output* out = nullptr;
  std::string result;
  volatile bool failed = false;
  fz_var(doc);
  fz_var(regular);
  fz_var(bold);
  fz_var(mono);
  fz_var(out_buf);
  fz_var(out);
  fz_try(ctx) {
    doc = pdf_create_document(ctx);
    regular = fz_new_base14_font(ctx, "Helvetica");
    bold = fz_new_base14_font(ctx, "Helvetica-Bold");
    pdf_obj* f1 = pdf_add_simple_font(ctx, doc, regular, PDF_SIMPLE_ENCODING_LATIN);
    pdf_obj* f2 = pdf_add_simple_font(ctx, doc, bold, PDF_SIMPLE_ENCODING_LATIN);
    mono = fz_new_base14_font(ctx, "Courier");
    pdf_obj* f3 = pdf_add_simple_font(ctx, doc, mono, PDF_SIMPLE_ENCODING_LATIN);
    for (size_t i = 0; i < contents.size(); ++i) {
      pdf_obj* res = pdf_new_dict(ctx, doc, 1);
      pdf_obj* fonts = pdf_dict_puts_dict(ctx, res, "Font", 3);
      pdf_dict_puts(ctx, fonts, "F1", f1);
      pdf_dict_puts(ctx, fonts, "F2", f2);
      pdf_dict_puts(ctx, fonts, "F3", f3);
      fz_buffer* buf = fz_new_buffer_from_copied_data(
          ctx, reinterpret_cast<const unsigned char*>(contents[i].data()), contents[i].size());
      pdf_obj* page = pdf_add_page(ctx, doc, fz_make_rect(0, 0, 612, 792), 0, res, buf);
      pdf_insert_page(ctx, doc, -1, page);
      pdf_drop_obj(ctx, page);
      pdf_drop_obj(ctx, res);
      fz_drop_buffer(ctx, buf);
    }
    pdf_drop_obj(ctx, f1);
    pdf_drop_obj(ctx, f2);
    pdf_drop_obj(ctx, f3);
    if (!wo.title.empty()) {
      pdf_obj* info = pdf_add_new_dict(ctx, doc, 1);
      pdf_dict_put_text_string(ctx, info, PDF_NAME(Title), wo.title.c_str());
      pdf_dict_put_drop(ctx, pdf_trailer(ctx, doc), PDF_NAME(Info), info);
    }
    pdf_write_options opts = pdf_default_write_options;
    if (wo.encrypt) {
      opts.do_encrypt = PDF_ENCRYPT_AES_256;
      opts.permissions = -1;
      std::snprintf(opts.upwd_utf8, sizeof(opts.upwd_utf8), "%s", wo.user_password.c_str());
      std::snprintf(opts.opwd_utf8, sizeof(opts.opwd_utf8), "%s", wo.owner_password.c_str());
    }
    out_buf = fz_new_buffer(ctx, 4096);
    out = fz_new_output_with_buffer(ctx, out_buf);
    pdf_write_document(ctx, doc, out, &opts);
    fz_close_output(ctx, out);
  }
  fz_always(ctx) {
    fz_drop_output(ctx, out);
    fz_drop_font(ctx, regular);
    fz_drop_font(ctx, bold);
    fz_drop_font(ctx, mono);
    pdf_drop_document(ctx, doc);
  }
  fz_catch(ctx) { failed = true; }
  if (!failed) {
    unsigned char* data = nullptr;
    size_t len = fz_buffer_storage(ctx, out_buf, &data);
    result.assign(reinterpret_cast<const char*>(data), len);
  }
  fz_drop_buffer(ctx, out_buf);
  fz_drop_context(ctx);
  if (failed) throw std::runtime_error("writing the fixture PDF failed");
  return result;
}

/// Lays out HTML with MuPDF's story engine (real font metrics, justified text) into a
/// two-column letter-size document: `head` full width on page 1, `body` flowing through the
/// columns. Every page gets a running header and a page-number footer.
std::string write_story_pdf(const std::string& head, const std::string& body) {
  const char* css =
      "p{text-align:justify;font-size:10pt;margin:0 0 4pt 0} h1{font-size:17pt;text-align:center}"
      "h2{font-size:12pt;margin:8pt 0 4pt 0}";
  fz_context* ctx = fz_new_context(nullptr, nullptr, FZ_STORE_DEFAULT);
  if (!ctx) throw std::runtime_error("fz_new_context failed");
  fz_buffer* out_buf = nullptr;
  fz_output* out = nullptr;
  fz_document_writer* wri = nullptr;
  fz_story* head_story = nullptr;
  fz_story* body_story = nullptr;
  volatile bool failed = false;
  fz_var(out_buf);
  fz_var(out);
  fz_var(wri);
  fz_var(head_story);
  fz_var(body_story);
  auto story = [&](const std::string& html, float em) {
    fz_buffer* b = fz_new_buffer_from_copied_data(
        ctx, reinterpret_cast<const unsigned char*>(html.data()), html.size());
    fz_story* st = nullptr;
    fz_try(ctx) st = fz_new_story(ctx, b, css, em, nullptr);
    fz_always(ctx) fz_drop_buffer(ctx, b);
    fz_catch(ctx) fz_rethrow(ctx);
    return st;
  };
  auto draw = [&](fz_story* st, fz_device* dev, fz_rect where) {
    fz_rect filled;
    int more = fz_place_story(ctx, st, where, &filled);
    fz_draw_story(ctx, st, dev, fz_identity);
    return std::make_pair(more != 0, filled);
  };
  std::vector<std::string> margins;
  for (int page = 1; page < 30; ++page) {
    margins.push_back("<p style='font-size:8pt'>Journal of Layout Tests, Vol. 3</p>");
    margins.push_back("<p style='font-size:9pt;text-align:center'>" + std::to_string(page) + "</p>");
  }
  fz_try(ctx) {
    out_buf = fz_new_buffer(ctx, 8192);
    out = fz_new_output_with_buffer(ctx, out_buf);
    wri = fz_new_pdf_writer_with_output(ctx, out, "");
    head_story = story(head, 10);
    body_story = story(body, 10);
    bool more = true;
    for (int page = 1; more && page < 30; ++page) {
      fz_device* dev = fz_begin_page(ctx, wri, fz_make_rect(0, 0, 612, 792));
      float top = 72;
      if (page == 1) top = draw(head_story, dev, fz_make_rect(72, 72, 540, 400)).second.y1 + 10;
      fz_story* header = story(margins[2 * (page - 1)], 8);
      draw(header, dev, fz_make_rect(72, 40, 540, 60));
      fz_drop_story(ctx, header);
      fz_story* footer = story(margins[2 * (page - 1) + 1], 9);
      draw(footer, dev, fz_make_rect(72, 740, 540, 760));
      fz_drop_story(ctx, footer);
      more = draw(body_story, dev, fz_make_rect(72, top, 297, 720)).first;
      if (more) more = draw(body_story, dev, fz_make_rect(315, top, 540, 720)).first;
      fz_end_page(ctx, wri);
    }
    fz_close_document_writer(ctx, wri);
  }
  fz_always(ctx) {
    fz_drop_story(ctx, head_story);
    fz_drop_story(ctx, body_story);
    if (wri)
      fz_drop_document_writer(ctx, wri);  // the writer owns `out`
    else
      fz_drop_output(ctx, out);
  }
  fz_catch(ctx) { failed = true; }
  std::string result;
  if (!failed) {
    unsigned char* data = nullptr;
    size_t len = fz_buffer_storage(ctx, out_buf, &data);
    result.assign(reinterpret_cast<const char*>(data), len);
  }
  fz_drop_buffer(ctx, out_buf);
  fz_drop_context(ctx);
  if (failed) throw std::runtime_error("writing the story PDF failed");
  return result;
}

/// A paragraph of body lines starting at (x, y), one line every `leading` points.
void add_lines(PageSpec& page, float x, float y, float size, float leading,
               const std::vector<std::string>& lines, bool bold = false) {
  for (size_t i = 0; i < lines.size(); ++i)
    page.runs.push_back({x, y + leading * static_cast<float>(i), size, lines[i], bold});
}

ParsedDocument parse(const std::string& bytes) {
  return make_pdf_parser()->parse("test.pdf", bytes);
}

std::string all_text(const ParsedDocument& d) {
  std::string s;
  for (const Block& b : d.blocks) s += b.text + "\n";
  return s;
}

const char* kind_name(BlockKind k) {
  switch (k) {
    case BlockKind::Heading: return "H";
    case BlockKind::Paragraph: return "P";
    case BlockKind::ListItem: return "L";
    default: return "?";
  }
}

/// Human-readable block list for failure messages.
std::string dump(const ParsedDocument& d) {
  std::string s;
  for (const Block& b : d.blocks)
    s += "[p" + std::to_string(b.page) + " " + kind_name(b.kind) + std::to_string(b.level) + "] " +
         b.text + "\n";
  return s;
}

const Block* find_block(const ParsedDocument& d, const std::string& needle) {
  for (const Block& b : d.blocks)
    if (b.text.find(needle) != std::string::npos) return &b;
  return nullptr;
}

/// A typical single-column page of body text (11pt Helvetica, 14pt leading) with a heading.
PageSpec body_page(const std::string& tag, float y = 100) {
  PageSpec p;
  add_lines(p, 72, y, 11, 14,
            {"The " + tag + " section opens with a plain sentence that fills the line",
             "and goes on for a while so that the paragraph has several lines of",
             "ordinary text, written in the body font of the document " + tag + "."});
  return p;
}

/// Expects `fn` to throw InputError whose message contains `needle`.
template <typename F>
void expect_input_error(F&& fn, const std::string& needle) {
  try {
    fn();
    ADD_FAILURE() << "expected InputError containing '" << needle << "'";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

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

TEST(PdfParser, HeadingsAtTwoSizesGetLevels) {
  PageSpec p;
  p.runs.push_back({72, 80, 22, "Introduction"});
  add_lines(p, 72, 110, 11, 14,
            {"Attention is a mechanism that lets a model weigh the parts of its input",
             "differently, and it is the main idea of this short document."});
  p.runs.push_back({72, 160, 16, "Background"});
  add_lines(p, 72, 185, 11, 14,
            {"Earlier sequence models used recurrence, which made them slow to train",
             "on long inputs because every step waits for the previous one."});
  p.runs.push_back({72, 235, 16, "Related Work"});
  add_lines(p, 72, 260, 11, 14,
            {"Convolutional models were tried as well and they train in parallel, but",
             "they need many layers to relate distant positions of a sequence."});
  ParsedDocument d = parse(write_pdf({p, body_page("second")}));
  ASSERT_GE(d.blocks.size(), 6u) << dump(d);
  EXPECT_EQ(d.blocks[0].kind, BlockKind::Heading) << dump(d);
  EXPECT_EQ(d.blocks[0].level, 1);
  EXPECT_EQ(d.blocks[0].text, "Introduction");
  EXPECT_EQ(d.blocks[1].kind, BlockKind::Paragraph);
  EXPECT_EQ(d.blocks[1].text,
            "Attention is a mechanism that lets a model weigh the parts of its input "
            "differently, and it is the main idea of this short document.");
  EXPECT_EQ(d.blocks[2].kind, BlockKind::Heading);
  EXPECT_EQ(d.blocks[2].level, 2);
  EXPECT_EQ(d.blocks[2].text, "Background");
  EXPECT_EQ(d.blocks[3].kind, BlockKind::Paragraph);
  EXPECT_EQ(d.blocks[4].kind, BlockKind::Heading);
  EXPECT_EQ(d.blocks[4].level, 2);
  EXPECT_EQ(d.blocks[5].kind, BlockKind::Paragraph);
  EXPECT_EQ(d.title, "Introduction");  // no metadata title: first level-1 heading
}

TEST(PdfParser, BoldHeadingAtBodySize) {
  PageSpec p;
  add_lines(p, 72, 80, 11, 14,
            {"A first paragraph in the regular body font, long enough to be a normal",
             "paragraph that ends with a period."});
  p.runs.push_back({72, 125, 11, "Method Details", true});
  add_lines(p, 72, 145, 11, 14,
            {"The method is described here in the regular body font again, with a few",
             "lines of text that belong to the section above."});
  ParsedDocument d = parse(write_pdf({p}));
  const Block* h = find_block(d, "Method Details");
  ASSERT_TRUE(h) << dump(d);
  EXPECT_EQ(h->kind, BlockKind::Heading) << dump(d);
  EXPECT_GE(h->level, 1);
  EXPECT_LE(h->level, 6);
  EXPECT_EQ(h->text, "Method Details");
  const Block* body = find_block(d, "The method is described");
  ASSERT_TRUE(body);
  EXPECT_EQ(body->kind, BlockKind::Paragraph);
  EXPECT_EQ(find_block(d, "A first paragraph")->kind, BlockKind::Paragraph);
}

TEST(PdfParser, MetadataTitleWins) {
  PageSpec p = body_page("meta");
  p.runs.push_back({72, 60, 20, "Heading Title"});
  WriteOptions wo;
  wo.title = "The Real Title";
  ParsedDocument d = parse(write_pdf({p}, wo));
  EXPECT_EQ(d.title, "The Real Title");
}

TEST(PdfParser, TwoColumnsReadColumnByColumn) {
  PageSpec p;
  p.runs.push_back({120, 80, 18, "A Study Of Columns In Portable Documents"});
  // Full-width abstract under the title.
  add_lines(p, 72, 115, 10, 12,
            {"This abstract spans the full width of the page above both of the columns of the body",
             "text, and it must come right after the title and before the columns are read out."});
  // Columns written interleaved (left line, right line, ...) so MuPDF's order is wrong.
  const int n = 12;
  for (int i = 0; i < n; ++i) {
    float y = 170 + 12.0f * i;
    p.runs.push_back({72, y, 10, "Left column line " + std::to_string(i + 1) + " text goes here ok"});
    p.runs.push_back({320, y, 10, "Right column line " + std::to_string(i + 1) + " more words here"});
  }
  // A full-width closing line below both columns stays in place.
  p.runs.push_back({72, 340, 10,
                    "A closing note that is as wide as the page again sits below both of the columns."});
  ParsedDocument d = parse(write_pdf({p}));
  std::string text = all_text(d);
  size_t title = text.find("A Study Of Columns");
  size_t abstract = text.find("This abstract spans");
  size_t closing = text.find("A closing note");
  ASSERT_NE(title, std::string::npos) << dump(d);
  ASSERT_NE(abstract, std::string::npos) << dump(d);
  ASSERT_NE(closing, std::string::npos) << dump(d);
  EXPECT_LT(title, abstract);
  size_t prev = abstract;
  for (int i = 1; i <= n; ++i) {
    size_t pos = text.find("Left column line " + std::to_string(i) + " ");
    ASSERT_NE(pos, std::string::npos) << i << "\n" << dump(d);
    EXPECT_GT(pos, prev) << "left line " << i << "\n" << dump(d);
    prev = pos;
  }
  for (int i = 1; i <= n; ++i) {
    size_t pos = text.find("Right column line " + std::to_string(i) + " ");
    ASSERT_NE(pos, std::string::npos) << i << "\n" << dump(d);
    EXPECT_GT(pos, prev) << "right line " << i << "\n" << dump(d);
    prev = pos;
  }
  EXPECT_GT(closing, prev) << dump(d);
  EXPECT_EQ(d.blocks.front().kind, BlockKind::Heading) << dump(d);
}

TEST(PdfParser, ColumnBreakMidSentenceIsJoined) {
  PageSpec p;
  for (int i = 0; i < 6; ++i) {
    float y = 100 + 12.0f * i;
    p.runs.push_back({72, y, 10, "Left side words number " + std::to_string(i) + " in column"});
    p.runs.push_back({320, y, 10, i == 0 ? "continues right here, and the" : "right side words in the column"});
  }
  ParsedDocument d = parse(write_pdf({p}));
  EXPECT_NE(all_text(d).find("in column continues right here"), std::string::npos) << dump(d);
}

TEST(PdfParser, HyphenatedLineEndsRejoined) {
  PageSpec p;
  add_lines(p, 72, 100, 11, 14,
            {"Transformers rely on a mechanism called atten-",
             "tion to relate words, and a variant called self-",
             "attention relates the words of one sentence. Self-attention is",
             "everywhere now, and so is the well-known trick of pre-",
             "Training as well as the dash - used as punctuation."});
  ParsedDocument d = parse(write_pdf({p}));
  ASSERT_EQ(d.blocks.size(), 1u) << dump(d);
  const std::string& t = d.blocks[0].text;
  EXPECT_NE(t.find("called attention to relate"), std::string::npos) << t;
  // "self-attention" is written with a hyphen elsewhere: the compound keeps its hyphen.
  EXPECT_NE(t.find("called self-attention relates"), std::string::npos) << t;
  // Next line starts upper-case: the hyphen stays, no space.
  EXPECT_NE(t.find("pre-Training"), std::string::npos) << t;
  EXPECT_NE(t.find("the dash - used"), std::string::npos) << t;
}

TEST(PdfParser, RunningHeadersFootersAndPageNumbersDropped) {
  std::vector<PageSpec> pages;
  const int n = 5;
  for (int i = 1; i <= n; ++i) {
    PageSpec p = body_page("body" + std::to_string(i), 120);
    p.runs.push_back({72, 40, 9, "ACME Corp Quarterly Report 2024"});
    p.runs.push_back({400, 40, 9, "Chapter " + std::to_string(i)});  // varies: digits normalised
    p.runs.push_back({72, 770, 9, "Confidential - do not distribute"});
    if (i % 2 == 0)
      p.runs.push_back({300, 755, 9, std::to_string(i)});
    else
      p.runs.push_back({280, 755, 9, "Page " + std::to_string(i) + " of " + std::to_string(n)});
    pages.push_back(p);
  }
  ParsedDocument d = parse(write_pdf(pages));
  EXPECT_EQ(d.pages, n);
  std::string text = all_text(d);
  EXPECT_EQ(text.find("ACME"), std::string::npos) << dump(d);
  EXPECT_EQ(text.find("Confidential"), std::string::npos) << dump(d);
  EXPECT_EQ(text.find("Chapter"), std::string::npos) << dump(d);
  EXPECT_EQ(text.find("Page "), std::string::npos) << dump(d);
  for (const Block& b : d.blocks) {
    EXPECT_FALSE(b.text.size() <= 2 && std::isdigit(static_cast<unsigned char>(b.text[0])))
        << dump(d);
  }
  for (int i = 1; i <= n; ++i) {
    const Block* b = find_block(d, "The body" + std::to_string(i) + " section");
    ASSERT_TRUE(b) << i << "\n" << dump(d);
    EXPECT_EQ(b->page, i);
  }
}

TEST(PdfParser, BulletListItems) {
  PageSpec p;
  add_lines(p, 72, 100, 11, 14, {"The list below has three items in it, all of them short:"});
  p.runs.push_back({80, 120, 11, "- first item of the list"});
  p.runs.push_back({80, 134, 11, "- second item of the list"});
  p.runs.push_back({80, 148, 11, "- third item of the list"});
  ParsedDocument d = parse(write_pdf({p}));
  ASSERT_EQ(d.blocks.size(), 4u) << dump(d);
  EXPECT_EQ(d.blocks[1].kind, BlockKind::ListItem);
  EXPECT_EQ(d.blocks[1].text, "first item of the list");
  EXPECT_EQ(d.blocks[3].text, "third item of the list");
}

TEST(PdfParser, LatinCharactersAreUtf8) {
  PageSpec p;
  add_lines(p, 72, 100, 11, 14, {"Caf\351 na\357ve r\351sum\351 \374ber"});
  ParsedDocument d = parse(write_pdf({p}));
  ASSERT_EQ(d.blocks.size(), 1u);
  EXPECT_EQ(d.blocks[0].text, "Caf\xC3\xA9 na\xC3\xAFve r\xC3\xA9sum\xC3\xA9 \xC3\xBC" "ber");
}

TEST(PdfParser, JustifiedTwoColumnPaperFromLayoutEngine) {
  // Deterministic filler text; every paragraph starts with a numbered marker word.
  const char* words[] = {"the", "model", "attention", "layer", "sequence", "token", "training",
                         "data", "network", "results", "method", "we", "show", "that", "our",
                         "approach", "improves", "over", "baseline", "performance", "across",
                         "tasks", "language", "translation", "encoder", "decoder"};
  std::mt19937 rng(11);
  std::string body;
  int paras = 0;
  for (int sec = 1; sec <= 6; ++sec) {
    body += "<h2>" + std::to_string(sec) + " Section heading number " + std::to_string(sec) + "</h2>";
    for (int p = 0; p < 3; ++p) {
      std::string text = "Marker" + std::to_string(++paras) + " opens this paragraph";
      int n = 60 + static_cast<int>(rng() % 60);
      for (int i = 0; i < n; ++i) text += std::string(" ") + words[rng() % 26];
      body += "<p>" + text + ".</p>";
    }
  }
  std::string head =
      "<h1>Attention Over Columns: A Layout Study</h1>"
      "<p>This abstract runs across the full width of the first page, above both columns, and "
      "it is long enough to wrap over several lines of justified text before the body starts "
      "in the two columns below it, which are read one after the other.</p>";
  ParsedDocument d = parse(write_story_pdf(head, body));
  ASSERT_GE(d.pages, 2);
  ASSERT_FALSE(d.blocks.empty());
  EXPECT_EQ(d.blocks[0].kind, BlockKind::Heading) << dump(d);
  EXPECT_EQ(d.blocks[0].level, 1);
  EXPECT_EQ(d.title, "Attention Over Columns: A Layout Study");
  std::string text = all_text(d);
  EXPECT_EQ(text.find("Journal of Layout Tests"), std::string::npos) << dump(d);
  // Markers and section headings come out in order: the columns are read one by one.
  size_t prev = text.find("This abstract runs");
  ASSERT_NE(prev, std::string::npos) << dump(d);
  for (int i = 1; i <= paras; ++i) {
    size_t pos = text.find("Marker" + std::to_string(i) + " opens");
    ASSERT_NE(pos, std::string::npos) << i << "\n" << dump(d);
    EXPECT_GT(pos, prev) << "paragraph " << i << "\n" << dump(d);
    prev = pos;
  }
  int headings = 0;
  for (const Block& b : d.blocks) {
    if (b.kind == BlockKind::Heading && b.text.find("Section heading number") != std::string::npos) {
      ++headings;
      EXPECT_EQ(b.level, 2) << b.text;
    }
    // Paragraphs are whole: each one that starts a page's text in mid-sentence is the tail of
    // the previous page's last paragraph, never a fragment from the other column.
    EXPECT_FALSE(b.kind == BlockKind::Paragraph && b.text.size() <= 3) << dump(d);
  }
  EXPECT_EQ(headings, 6) << dump(d);
}

TEST(PdfParser, CodeBlocksKeepLinesAndIndentation) {
  PageSpec p;
  add_lines(p, 72, 100, 11, 14, {"The program below returns zero, which is all it does:"});
  const float adv = 0.6f * 10;  // Courier advance at 10pt
  p.runs.push_back({72, 124, 10, "int main(void) {", false, true});
  p.runs.push_back({72 + 4 * adv, 136, 10, "return 0;", false, true});
  p.runs.push_back({72 + 4 * adv, 148, 10, "x = 1;", false, true});
  p.runs.push_back({72 + 20 * adv, 148, 10, "// aligned comment", false, true});
  p.runs.push_back({72, 160, 10, "}", false, true});
  add_lines(p, 72, 184, 11, 14, {"After the code, the text goes on as a normal paragraph."});
  ParsedDocument d = parse(write_pdf({p}));
  ASSERT_EQ(d.blocks.size(), 3u) << dump(d);
  EXPECT_EQ(d.blocks[1].kind, BlockKind::Code);
  EXPECT_EQ(d.blocks[1].text,
            "int main(void) {\n    return 0;\n    x = 1;          // aligned comment\n}");
  EXPECT_EQ(d.blocks[2].kind, BlockKind::Paragraph);
}

TEST(PdfParser, TableOfContentsEntriesAreSeparate) {
  PageSpec p;
  p.runs.push_back({72, 80, 18, "Contents"});
  const char* entries[] = {"1 Introduction", "2 Background and related work", "3 Method"};
  for (int i = 0; i < 3; ++i) {
    float y = 110 + 14.0f * i;
    p.runs.push_back({72, y, 11, entries[i], true});
    p.runs.push_back({260, y, 11, ". . . . . . . . . . . . . . . . . . . . " + std::to_string(i + 2)});
  }
  ParsedDocument d = parse(write_pdf({p}));
  ASSERT_EQ(d.blocks.size(), 4u) << dump(d);
  EXPECT_EQ(d.blocks[1].text, "1 Introduction ... 2");
  EXPECT_EQ(d.blocks[1].kind, BlockKind::Paragraph);  // bold, but an entry, not a heading
  EXPECT_EQ(d.blocks[3].text, "3 Method ... 4");
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

// ---- layout helpers ----

TEST(PdfLayout, PageNumberLines) {
  for (const char* s : {"3", "- 3 -", "Page 3", "page 3 of 10", "3 / 10", "xiv", "IV", "[12]",
                        "\xE2\x80\x93 7 \xE2\x80\x93", "p. 5", "Seite 4 von 9"})
    EXPECT_TRUE(pdf::is_page_number_text(s)) << s;
  for (const char* s : {"", "Chapter 3", "3 apples", "mix", "civil", "iiii", "2024-01-01 report", "Page"})
    EXPECT_FALSE(pdf::is_page_number_text(s)) << s;
}

TEST(PdfLayout, MarginKeyNormalisesNumbers) {
  EXPECT_EQ(pdf::margin_key("Chapter 12  Results"), "chapter # results");
  EXPECT_EQ(pdf::margin_key("Chapter 3 Results"), "chapter # results");
  EXPECT_EQ(pdf::margin_key("xii Preface"), "# preface");
  EXPECT_EQ(pdf::margin_key("Section 1.2.3"), "section #.#.#");
}

TEST(PdfLayout, JoinLine) {
  pdf::CompoundSet compounds = {"well-known"};
  std::string t = "the atten-";
  pdf::join_line(t, "tion span", false, &compounds);
  EXPECT_EQ(t, "the attention span");
  t = "a well-";
  pdf::join_line(t, "known fact", false, &compounds);
  EXPECT_EQ(t, "a well-known fact");
  t = "end of line";
  pdf::join_line(t, "next line", false, &compounds);
  EXPECT_EQ(t, "end of line next line");
  t = "soft";
  pdf::join_line(t, "ware", true, &compounds);
  EXPECT_EQ(t, "software");
  t = "range 3-";
  pdf::join_line(t, "5 pages", false, &compounds);
  EXPECT_EQ(t, "range 3- 5 pages");
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
