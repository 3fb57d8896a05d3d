// Test fixtures for the PDF parser tests (header-only): PDFs written with MuPDF's own PDF
// writer from positioned text runs or laid out by its story engine, and helpers to inspect
// the parsed blocks. Used by pdf_parser_test.cc and pdf_layout_test.cc.
#pragma once

#include <gtest/gtest.h>

#include "core/error.h"

#include <mupdf/fitz.h>
#include <mupdf/pdf.h>

#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/types.h"
#include "ingest/parser.h"

namespace mmkg::pdf_fixture {

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

/// An image XObject: its dictionary in PDF syntax ("<< /Type /XObject /Subtype /Image ... >>",
/// no /Length) and its stream exactly as stored (encoded as the dictionary's /Filter says, or
/// broken on purpose). Drawn by "/NAME Do" in PageSpec::extra.
struct ImageXObject {
  std::string name, dict, data;
};

struct PageSpec {
  std::vector<Run> runs;
  std::string extra;  ///< raw content-stream operators appended (graphics)
  std::vector<ImageXObject> images;
};

struct WriteOptions {
  std::string title;
  bool encrypt = false;
  std::string user_password;   ///< empty: opens without password
  std::string owner_password = "owner";
};

inline std::string pdf_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '(' || c == ')' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

inline std::string content_stream(const PageSpec& page) {
  std::ostringstream cs;
  for (const Run& r : page.runs) {
    cs << "BT /" << (r.mono ? "F3" : r.bold ? "F2" : "F1") << ' ' << r.size << " Tf 1 0 0 1 " << r.x << ' '
       << (792.0f - r.y) << " Tm (" << pdf_escape(r.text) << ") Tj ET\n";
  }
  cs << page.extra;
  return cs.str();
}

/// Writes a PDF with Helvetica (F1), Helvetica-Bold (F2) and Courier (F3) using MuPDF's PDF API.
inline std::string write_pdf(const std::vector<PageSpec>& pages, const WriteOptions& wo = {}) {
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
      if (!pages[i].images.empty()) {
        pdf_obj* xobjects = pdf_dict_puts_dict(ctx, res, "XObject", static_cast<int>(pages[i].images.size()));
        for (const ImageXObject& im : pages[i].images) {
          fz_stream* stm = fz_open_memory(ctx, reinterpret_cast<const unsigned char*>(im.dict.data()), im.dict.size());
          pdf_lexbuf lex;
          pdf_lexbuf_init(ctx, &lex, PDF_LEXBUF_SMALL);
          pdf_obj* dict = pdf_parse_stm_obj(ctx, doc, stm, &lex);  // a throw leaks: fixtures only
          pdf_lexbuf_fin(ctx, &lex);
          fz_drop_stream(ctx, stm);
          fz_buffer* data = fz_new_buffer_from_copied_data(
              ctx, reinterpret_cast<const unsigned char*>(im.data.data()), im.data.size());
          pdf_dict_puts_drop(ctx, xobjects, im.name.c_str(), pdf_add_stream(ctx, doc, data, dict, 1));
          pdf_drop_obj(ctx, dict);
          fz_drop_buffer(ctx, data);
        }
      }
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

/// One line of text at 12pt in a Type3 font such as pdfTeX embeds for a bitmap (PK) TeX font:
/// glyphs named /aNN, no ToUnicode map, so a reader sees each byte's slot number (a ligature at
/// T1's 0x1B-0x1F or OT1's 0x0B-0x0F comes out as that control character). `text` holds the
/// raw bytes: lower-case letters, spaces and the ligature slots. Every glyph is a filled box
/// 500 units wide. Written by hand (MuPDF's writer makes no Type3 fonts), offsets computed.
inline std::string write_type3_pdf(const std::string& text) {
  std::vector<int> codes = {11, 12, 13, 14, 15, 27, 28, 29, 30, 31, 32};
  for (int c = 'a'; c <= 'z'; ++c) codes.push_back(c);
  std::string diffs, procs, widths;
  for (int c : codes) {
    diffs += std::to_string(c) + " /a" + std::to_string(c) + " ";
    procs += "/a" + std::to_string(c) + (c == 32 ? " 6 0 R " : " 5 0 R ");
  }
  for (int c = 11; c <= 122; ++c) widths += "500 ";
  const std::string content = "BT /T3 12 Tf 72 700 Td (" + pdf_escape(text) + ") Tj ET\n";
  const std::string glyph = "500 0 0 0 450 700 d1 0 0 450 700 re f\n";
  const std::string blank = "500 0 0 0 0 0 d1\n";
  std::vector<std::string> objs = {
      "<< /Type /Catalog /Pages 2 0 R >>",
      "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
      "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /T3 4 0 R >> >> "
      "/Contents 7 0 R >>",
      "<< /Type /Font /Subtype /Type3 /FontMatrix [0.001 0 0 0.001 0 0] /FontBBox [0 0 500 700] "
      "/FirstChar 11 /LastChar 122 /Widths [" + widths + "] /Encoding << /Type /Encoding /Differences [" + diffs +
          "] >> /CharProcs << " + procs + ">> /Resources << >> >>",
      "<< /Length " + std::to_string(glyph.size()) + " >>\nstream\n" + glyph + "endstream",
      "<< /Length " + std::to_string(blank.size()) + " >>\nstream\n" + blank + "endstream",
      "<< /Length " + std::to_string(content.size()) + " >>\nstream\n" + content + "endstream"};
  std::string pdf = "%PDF-1.4\n";
  std::vector<size_t> offsets;
  for (size_t i = 0; i < objs.size(); ++i) {
    offsets.push_back(pdf.size());
    pdf += std::to_string(i + 1) + " 0 obj\n" + objs[i] + "\nendobj\n";
  }
  const size_t xref = pdf.size();
  pdf += "xref\n0 " + std::to_string(objs.size() + 1) + "\n0000000000 65535 f \n";
  for (size_t off : offsets) {
    char line[32];
    std::snprintf(line, sizeof line, "%010zu 00000 n \n", off);
    pdf += line;
  }
  pdf += "trailer\n<< /Size " + std::to_string(objs.size() + 1) + " /Root 1 0 R >>\nstartxref\n" +
         std::to_string(xref) + "\n%%EOF\n";
  return pdf;
}

/// Lays out HTML with MuPDF's story engine (real font metrics, justified text) into a
/// two-column letter-size document: `head` full width on page 1, `body` flowing through the
/// columns. Every page gets a running header and a page-number footer.
inline std::string write_story_pdf(const std::string& head, const std::string& body) {
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

// ---- page content and parsed-document helpers ----

/// A paragraph of body lines starting at (x, y), one line every `leading` points.
inline void add_lines(PageSpec& page, float x, float y, float size, float leading,
                      const std::vector<std::string>& lines, bool bold = false) {
  for (size_t i = 0; i < lines.size(); ++i)
    page.runs.push_back({x, y + leading * static_cast<float>(i), size, lines[i], bold});
}

inline ParsedDocument parse(const std::string& bytes) {
  return make_pdf_parser()->parse("test.pdf", bytes);
}

inline std::string all_text(const ParsedDocument& d) {
  std::string s;
  for (const Block& b : d.blocks) s += b.text + "\n";
  return s;
}

inline const char* kind_name(BlockKind k) {
  switch (k) {
    case BlockKind::Heading: return "H";
    case BlockKind::Paragraph: return "P";
    case BlockKind::ListItem: return "L";
    default: return "?";
  }
}

/// Human-readable block list for failure messages.
inline std::string dump(const ParsedDocument& d) {
  std::string s;
  for (const Block& b : d.blocks)
    s += "[p" + std::to_string(b.page) + " " + kind_name(b.kind) + std::to_string(b.level) + "] " +
         b.text + "\n";
  return s;
}

inline const Block* find_block(const ParsedDocument& d, const std::string& needle) {
  for (const Block& b : d.blocks)
    if (b.text.find(needle) != std::string::npos) return &b;
  return nullptr;
}

/// A typical single-column page of body text (11pt Helvetica, 14pt leading) with a heading.
inline PageSpec body_page(const std::string& tag, float y = 100) {
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

}  // namespace mmkg::pdf_fixture
