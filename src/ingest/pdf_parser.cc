// PDF parser: MuPDF extracts positioned characters page by page; pdf_layout recovers reading
// order, headings, paragraphs and drops running headers/footers.
//
// MuPDF reports errors with setjmp/longjmp (fz_try/fz_catch). Every MuPDF call that can throw
// runs inside `guarded()` with no C++ object of its own, and C++ exceptions are only thrown
// outside of fz_try blocks. Each parse creates its own fz_context, so parses can run on several
// threads at once.
#include <mupdf/fitz.h>
#include <mupdf/pdf.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ingest/mupdf_support.h"
#include "ingest/parser.h"
#include "ingest/pdf_chars.h"
#include "ingest/pdf_figures.h"
#include "ingest/pdf_layout.h"

namespace mmkg {
namespace {

using mupdf::guarded;
using mupdf::one_line;
using pdf::CharKind;
using pdf::clean_metadata;
using pdf::compose_accent;
using pdf::encode_utf8;
using pdf::is_spacing_accent;
using pdf::map_char;

constexpr const char* kNoText = "PDF has no extractable text and no images (scanned images?)";
constexpr const char* kNoTextNoFigures =
    "PDF has no extractable text (scanned images?); ingest it without --no-figures to read its page images with OCR";
// Flate, JPEG and JBIG2 images are decoded downscaled and stay far below MuPDF's memory cap at any size.
constexpr const char* kEncrypted =
    "encrypted PDF (password required); decrypt it first, e.g. qpdf --decrypt";

// ---- MuPDF plumbing ----

struct Diagnostics {
  bool repaired = false;
};

void on_parse_warning(void* user, const char* msg) {
  // MuPDF prints warnings to stderr by default; keep quiet and remember repairs.
  if (msg && (std::strstr(msg, "repair") || std::strstr(msg, "broken xref")))
    static_cast<Diagnostics*>(user)->repaired = true;
}

void on_parse_error(void*, const char*) {}

/// Owns the MuPDF objects of one parse; drops them in reverse order (drops never throw).
struct Session {
  mupdf::MemoryBudget budget{mupdf::kContextMemoryLimit};  // outlives ctx (members go after the destructor's body)
  fz_context* ctx = nullptr;
  fz_stream* stm = nullptr;
  fz_document* doc = nullptr;
  Diagnostics diag;

  Session() = default;
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() {
    close_document();
    if (ctx) fz_drop_context(ctx);
  }
  void close_document() {
    if (doc) fz_drop_document(ctx, doc);
    if (stm) fz_drop_stream(ctx, stm);
    doc = nullptr;
    stm = nullptr;
  }
};

struct ListDeleter {
  fz_context* ctx;
  void operator()(fz_display_list* l) const { fz_drop_display_list(ctx, l); }
};

struct StextDeleter {
  fz_context* ctx;
  void operator()(fz_stext_page* p) const { fz_drop_stext_page(ctx, p); }
};

/// True if object `num` is a page dictionary. Never throws.
__attribute__((noinline)) bool is_page_object(fz_context* ctx, pdf_document* doc, int num) {
  volatile bool page = false;
  pdf_obj* obj = nullptr;
  fz_var(obj);
  fz_try(ctx) {
    obj = pdf_load_object(ctx, doc, num);
    page = pdf_is_dict(ctx, obj) &&
           pdf_name_eq(ctx, pdf_dict_get(ctx, obj, PDF_NAME(Type)), PDF_NAME(Page));
  }
  fz_always(ctx) pdf_drop_obj(ctx, obj);
  fz_catch(ctx) return false;  // unreadable object: not a page we can use
  return page;
}

/// Points the catalog (created if lost too) at a new page tree with the given kids.
void install_page_tree(fz_context* ctx, pdf_document* doc, pdf_obj* kids, int count) {
  // Adding objects starts a new xref section with its own trailer: fetch the trailer after.
  pdf_obj* pages = pdf_add_new_dict(ctx, doc, 3);
  fz_try(ctx) {
    pdf_dict_put(ctx, pages, PDF_NAME(Type), PDF_NAME(Pages));
    pdf_dict_put(ctx, pages, PDF_NAME(Kids), kids);
    pdf_dict_put_int(ctx, pages, PDF_NAME(Count), count);
    pdf_obj* root = pdf_dict_get(ctx, pdf_trailer(ctx, doc), PDF_NAME(Root));
    if (!pdf_is_dict(ctx, root)) {
      root = pdf_add_new_dict(ctx, doc, 2);
      pdf_dict_put(ctx, root, PDF_NAME(Type), PDF_NAME(Catalog));
      pdf_dict_put_drop(ctx, pdf_trailer(ctx, doc), PDF_NAME(Root), root);
    }
    pdf_dict_put(ctx, root, PDF_NAME(Pages), pages);
  }
  fz_always(ctx) pdf_drop_obj(ctx, pages);
  fz_catch(ctx) fz_rethrow(ctx);
}

/// Truncated files often lose the page tree (written last by many producers) while the page
/// objects survive. Builds a new page tree from every object of /Type /Page, in object order.
/// MuPDF calls only; runs inside guarded(). Returns the number of pages found.
int recover_page_tree(fz_context* ctx, fz_document* fdoc) {
  pdf_document* doc = pdf_specifics(ctx, fdoc);
  if (!doc) return 0;
  pdf_obj* kids = pdf_new_array(ctx, doc, 16);
  volatile int found = 0;  // written inside fz_try, read after it
  fz_try(ctx) {
    const int n = pdf_xref_len(ctx, doc);
    for (int num = 1; num < n; ++num)
      if (is_page_object(ctx, doc, num)) pdf_array_push_drop(ctx, kids, pdf_new_indirect(ctx, doc, num, 0));
    found = pdf_array_len(ctx, kids);
    if (found > 0) install_page_tree(ctx, doc, kids, found);
  }
  fz_always(ctx) pdf_drop_obj(ctx, kids);
  fz_catch(ctx) fz_rethrow(ctx);
  return found;
}

// ---- sniffing ----

bool has_pdf_header(std::string_view bytes) {
  std::string_view head = bytes.substr(0, 1024);
  return head.find("%PDF-") != std::string_view::npos;
}

std::string describe_non_pdf(std::string_view b) {
  auto starts = [&](std::string_view magic) { return b.substr(0, magic.size()) == magic; };
  if (starts("\xFF\xD8\xFF")) return "looks like a JPEG image";
  if (starts("\x89PNG")) return "looks like a PNG image";
  if (starts("GIF8")) return "looks like a GIF image";
  if (starts("PK\x03\x04")) return "looks like a ZIP archive (DOCX, EPUB, ...)";
  if (starts("\x1F\x8B")) return "looks like a gzip file; decompress it first";
  if (starts("%!PS")) return "looks like PostScript; convert it with ps2pdf";
  if (starts("II*") || starts("MM\x00*")) return "looks like a TIFF image";
  return "no %PDF- header";
}

// ---- page extraction ----

// Plain comparisons: std::fmin/fmax are library calls (NaN rules) and show up in profiles.
inline float min2(float a, float b) { return b < a ? b : a; }
inline float max2(float a, float b) { return a < b ? b : a; }

/// Coordinates from broken files can be NaN or huge: clamp them to something harmless.
inline float finite_or_zero(float v) {
  if (v > -1e6f && v < 1e6f) return v;
  return v != v ? 0.0f : (v > 0 ? 1e6f : -1e6f);
}

// Font-name fragments (lower case) for fonts whose flags do not say bold / monospaced.
// A leading '^' anchors the fragment at the start of the name (TeX font names).
constexpr const char* kBoldNames[] = {"bold", "black", "heavy", "^cmbx", "^sfbx", "^cmb10", nullptr};
constexpr const char* kMonoNames[] = {"courier", "mono", "consol", "typewriter", "^cmtt", "^sftt",
                                      "^lmtt", "menlo", "monaco", "inconsolata", "fixed",
                                      "nimbusmon", "sourcecode", "lettergothic", nullptr};

bool font_name_is(const char* name, const char* const* fragments) {
  if (!name) return false;
  if (const char* plus = std::strchr(name, '+')) name = plus + 1;  // subset prefix ABCDEF+
  char low[96];
  size_t n = 0;
  for (; name[n] && n + 1 < sizeof(low); ++n)
    low[n] = static_cast<char>((name[n] >= 'A' && name[n] <= 'Z') ? name[n] + 32 : name[n]);
  low[n] = 0;
  for (; *fragments; ++fragments) {
    const char* f = *fragments;
    if (f[0] == '^' ? std::strncmp(low, f + 1, std::strlen(f + 1)) == 0 : std::strstr(low, f) != nullptr)
      return true;
  }
  return false;
}

/// Collects the lines of one structured-text page: merges MuPDF lines split at wide word gaps,
/// splits lines at gaps wider than two ems (gutters, table cells).
class PageExtractor {
 public:
  PageExtractor(fz_context* ctx, pdf::Page& pg) : ctx_(ctx), pg_(pg) {}

  uint64_t chars = 0;     ///< text characters kept
  uint64_t unmapped = 0;  ///< characters without a Unicode mapping

  void run(const fz_stext_page* sp) {
    pg_.x0 = finite_or_zero(sp->mediabox.x0);
    pg_.y0 = finite_or_zero(sp->mediabox.y0);
    pg_.x1 = finite_or_zero(sp->mediabox.x1);
    pg_.y1 = finite_or_zero(sp->mediabox.y1);
    begin();
    for (const fz_stext_block* b = sp->first_block; b; b = b->next) {
      if (b->type != FZ_STEXT_BLOCK_TEXT) continue;
      block_start_ = true;
      for (const fz_stext_line* ln = b->u.t.first_line; ln; ln = ln->next) line(ln);
    }
    finish();
    // Lines without a usable page box (broken PDFs): fall back to the text's own extent.
    if (!(pg_.y1 - pg_.y0 > 1.0f) && !pg_.lines.empty()) {
      pg_.y0 = pg_.lines[0].y0;
      pg_.y1 = pg_.lines[0].y1;
      for (const pdf::Line& l : pg_.lines) {
        pg_.y0 = std::fmin(pg_.y0, l.y0);
        pg_.y1 = std::fmax(pg_.y1, l.y1);
      }
    }
  }

 private:
  struct FontInfo {
    fz_font* font = nullptr;
    bool bold = false;
    bool mono = false;
  };

  /// One character's text and geometry, as decode() reads it.
  struct Glyph {
    char buf[8];
    size_t len = 0;
    uint32_t cp = 0;  // the last code point of `buf` (a ligature's last letter)
    float x0 = 0, y0 = 0, x1 = 0, y1 = 0, size = 0;
  };

  void line(const fz_stext_line* ln) {
    horizontal_ = ln->wmode == 0 && ln->dir.x > 0.95f && std::fabs(ln->dir.y) < 0.1f;
    bool first = true;  // the segment before stays open until this line's first character
    for (const fz_stext_char* ch = ln->first_char; ch; ch = ch->next) add_char(ch, first);
  }

  void add_char(const fz_stext_char* ch, bool& first) {
    Glyph g;
    if (!decode(ch, g) || compose_with_last(g)) return;
    const float em = max2(g.size, last_size_);
    const FontInfo& fi = font_info(ch->font);
    break_or_join(ch, g, fi, em, first);
    const bool recomposed = compose_with_waiting_accent(g, em);
    append(ch, g, fi, recomposed);
  }

  /// The character's text (TeX ligature slots expanded) and box. False for a character that
  /// adds no text of its own (dropped, unmapped, a space, a soft hyphen): its effect on the
  /// line is recorded here.
  bool decode(const fz_stext_char* ch, Glyph& g) {
    const char* lig = pdf::tex_ligature(ch->c);
    const bool ligature = lig && ((cur_.nchars > 0 && spaces_ == 0 && pdf::is_ascii_alpha(last_cp_)) ||
                                  (ch->next && ch->next->c > 0 && pdf::is_ascii_alpha(static_cast<uint32_t>(ch->next->c))));
    CharKind kind = CharKind::Text;
    if (ligature) {
      g.len = std::strlen(lig);
      std::memcpy(g.buf, lig, g.len);
    } else {
      kind = pdf::map_char(ch->c, g.buf, &g.len);
    }
    switch (kind) {
      case CharKind::Drop:
        return false;
      case CharKind::Unmapped:
        ++unmapped;
        return false;
      case CharKind::Space:
        // Kept verbatim for now (code indentation); collapsed in finish() unless monospaced.
        if (cur_.nchars > 0) {
          pg_.text.push_back(' ');
          ++spaces_;
        }
        return false;
      case CharKind::SoftHyphen:
        soft_ = true;
        return false;
      case CharKind::Text:
        break;
    }
    const fz_quad& q = ch->quad;  // bounding box of the quad (fz_rect_from_quad, inlined)
    g.x0 = finite_or_zero(min2(min2(q.ul.x, q.ur.x), min2(q.ll.x, q.lr.x)));
    g.y0 = finite_or_zero(min2(min2(q.ul.y, q.ur.y), min2(q.ll.y, q.lr.y)));
    g.x1 = finite_or_zero(max2(max2(q.ul.x, q.ur.x), max2(q.ll.x, q.lr.x)));
    g.y1 = finite_or_zero(max2(max2(q.ul.y, q.ur.y), max2(q.ll.y, q.lr.y)));
    g.size = finite_or_zero(ch->size);
    g.cp = ligature ? static_cast<uint32_t>(g.buf[g.len - 1]) : static_cast<uint32_t>(ch->c);
    return true;
  }

  /// A spacing accent drawn over the letter before it: that letter becomes the composed one.
  /// True when it did (the accent adds nothing else).
  bool compose_with_last(Glyph& g) {
    if (!(is_spacing_accent(g.cp) && cur_.nchars > 0 && spaces_ == 0 && last_cp_ != 0)) return false;
    float cx = 0.5f * (g.x0 + g.x1);  // accent drawn over the letter before it
    uint32_t composed = cx > last_x0_ && cx < last_x1_ ? compose_accent(g.cp, last_cp_) : 0;
    if (!composed) return false;
    pg_.text.resize(last_off_);
    pg_.text.append(g.buf, encode_utf8(composed, g.buf));
    last_cp_ = composed;
    return true;
  }

  /// Whether the character continues the current line or starts a new one: monospaced text
  /// keeps its gaps as spaces, a MuPDF line split at a wide word gap is merged back, a gutter
  /// or a new MuPDF line starts a new line.
  void break_or_join(const fz_stext_char* ch, const Glyph& g, const FontInfo& fi, float em, bool& first) {
    float gap = g.x0 - last_x1_;
    float spaced = 0.6f * em * static_cast<float>(spaces_);  // width of the spaces in the gap
    if (fi.mono && cur_.nchars > 0 && cur_.nmono == cur_.nchars && horizontal_ && !cur_.rotated &&
        gap > 0 && gap < 60.0f * em && std::fabs(finite_or_zero(ch->origin.y) - cur_.base) < 0.25f * em) {
      // Monospaced text on one baseline is code or aligned output: keep it on one line and
      // turn the gap into the number of spaces it spans.
      first = false;
      float advance = last_x1_ - last_x0_;
      if (advance > 0.2f * em) {
        int want = static_cast<int>(std::lround(gap / advance)) - spaces_;
        pg_.text.append(static_cast<size_t>(std::clamp(want, 0, 200)), ' ');
      } else if (pg_.text.back() != ' ') {
        pg_.text.push_back(' ');
      }
    } else if (first) {
      // MuPDF starts a new line at wide word gaps (justified text, "end.  Next"): a line that
      // continues the previous one on the same baseline, less than an em away, is merged back.
      first = false;
      bool merge = cur_.nchars > 0 && horizontal_ && !cur_.rotated && g.size > 0 &&
                   std::fabs(finite_or_zero(ch->origin.y) - cur_.base) < 0.25f * em &&
                   std::fabs(g.size - last_size_) < 0.15f * em && gap > -0.5f * em &&
                   gap < 1.0f * em + spaced;
      if (merge) {
        if (pg_.text.back() != ' ') pg_.text.push_back(' ');
        block_start_ = false;
      } else {
        finish();
        begin();
      }
    } else if (horizontal_ && cur_.nchars > 0 && g.size > 0 && gap > 2.0f * em + spaced) {
      // A wide gap not filled by space characters: a column gutter or a table cell boundary.
      finish();
      begin();
    }
  }

  /// The accent came first, drawn over this letter: the accent's text becomes the composed
  /// letter. True when it did (the accent already started, or continued, the word).
  bool compose_with_waiting_accent(Glyph& g, float em) {
    bool recomposed = false;
    if (accent_off_ != std::string::npos && spaces_ == 0 && cur_.nchars > 0 &&
        accent_cx_ > g.x0 - 0.1f * em && accent_cx_ < g.x1 + 0.1f * em) {
      if (uint32_t composed = compose_accent(accent_cp_, g.cp)) {
        recomposed = true;
        pg_.text.resize(accent_off_);
        g.len = encode_utf8(composed, g.buf);
        g.cp = composed;
        cur_.nchars--;
      }
    }
    accent_off_ = std::string::npos;
    return recomposed;
  }

  /// Adds the character to the current line: its box, its word, its text and its counts.
  void append(const fz_stext_char* ch, const Glyph& g, const FontInfo& fi, bool recomposed) {
    const float x0 = g.x0, y0 = g.y0, x1 = g.x1, y1 = g.y1;
    if (cur_.nchars == 0) {
      cur_.x0 = x0, cur_.y0 = y0, cur_.x1 = x1, cur_.y1 = y1;
      cur_.base = finite_or_zero(ch->origin.y);
    } else {
      cur_.x0 = min2(cur_.x0, x0), cur_.y0 = min2(cur_.y0, y0);
      cur_.x1 = max2(cur_.x1, x1), cur_.y1 = max2(cur_.y1, y1);
    }
    soft_ = false;
    spaces_ = 0;
    last_x0_ = x0;
    last_x1_ = x1;
    last_size_ = g.size;
    last_off_ = pg_.text.size();
    last_cp_ = g.cp;
    if (is_spacing_accent(g.cp)) {
      accent_off_ = last_off_;
      accent_cp_ = g.cp;
      accent_cx_ = 0.5f * (x0 + x1);
    }
    if (!recomposed && (cur_.nchars == 0 || pg_.text.back() == ' ')) words_.push_back({x0, x1});
    else if (!words_.empty()) words_.back().x1 = max2(words_.back().x1, x1);
    pg_.text.append(g.buf, g.len);
    cur_.nchars++;
    cur_.nbold += fi.bold;
    cur_.nmono += fi.mono;
    count_size(g.size);
  }

  void begin() {
    cur_ = pdf::Line{};
    cur_.text_off = static_cast<uint32_t>(pg_.text.size());
    cur_.rotated = !horizontal_;
    cur_.block_start = block_start_;
    block_start_ = false;
    last_cp_ = 0;
    accent_off_ = std::string::npos;
    nsizes_ = 0;
    soft_ = false;
    spaces_ = 0;
    words_.clear();
  }

  void finish() {
    while (pg_.text.size() > cur_.text_off && pg_.text.back() == ' ') pg_.text.pop_back();
    if (cur_.nchars == 0) {
      pg_.text.resize(cur_.text_off);
      return;
    }
    if (cur_.nmono * 10 < cur_.nchars * 9) {  // prose: collapse runs of spaces in place
      size_t w = cur_.text_off;
      for (size_t r = cur_.text_off; r < pg_.text.size(); ++r) {
        if (pg_.text[r] == ' ' && pg_.text[w - 1] == ' ') continue;
        pg_.text[w++] = pg_.text[r];
      }
      pg_.text.resize(w);
    }
    cur_.text_len = static_cast<uint32_t>(pg_.text.size() - cur_.text_off);
    cur_.soft_hyphen = soft_;
    cur_.word_off = static_cast<uint32_t>(pg_.words.size());
    cur_.word_count = static_cast<uint32_t>(words_.size());
    pg_.words.insert(pg_.words.end(), words_.begin(), words_.end());
    int best = 0;
    for (int k = 1; k < nsizes_; ++k)
      if (size_count_[k] > size_count_[best]) best = k;
    cur_.size = nsizes_ ? size_key_[best] / 4.0f : 0.0f;
    chars += cur_.nchars;
    pg_.lines.push_back(cur_);
  }

  void count_size(float size) {
    int key = static_cast<int>(min2(max2(size, 0.0f), 4000.0f) * 4.0f + 0.5f);
    for (int k = 0; k < nsizes_; ++k) {
      if (size_key_[k] == key) {
        size_count_[k]++;
        return;
      }
    }
    if (nsizes_ < kMaxSizes) {
      size_key_[nsizes_] = key;
      size_count_[nsizes_++] = 1;
    }
  }

  const FontInfo& font_info(fz_font* font) {
    if (last_ < fonts_.size() && fonts_[last_].font == font) return fonts_[last_];
    for (last_ = 0; last_ < fonts_.size(); ++last_)
      if (fonts_[last_].font == font) return fonts_[last_];
    FontInfo fi;
    fi.font = font;
    if (font) {
      const char* name = fz_font_name(ctx_, font);
      fi.bold = fz_font_is_bold(ctx_, font) || font_name_is(name, kBoldNames);
      fi.mono = fz_font_is_monospaced(ctx_, font) || font_name_is(name, kMonoNames);
    }
    fonts_.push_back(fi);
    last_ = fonts_.size() - 1;
    return fonts_[last_];
  }

  static constexpr int kMaxSizes = 6;
  fz_context* ctx_;
  pdf::Page& pg_;
  pdf::Line cur_;
  bool horizontal_ = true, block_start_ = false, soft_ = false;
  int spaces_ = 0;  // space characters since the last text character
  float last_x0_ = 0, last_x1_ = 0, last_size_ = 0;  // last text character
  std::vector<pdf::Word> words_;                     // the words of the current line
  size_t last_off_ = 0;                              // its offset in the page text
  uint32_t last_cp_ = 0;                             // its code point (0: none in this line)
  size_t accent_off_ = std::string::npos;            // a spacing accent waiting for its letter
  uint32_t accent_cp_ = 0;
  float accent_cx_ = 0;
  int size_key_[kMaxSizes] = {}, size_count_[kMaxSizes] = {}, nsizes_ = 0;
  std::vector<FontInfo> fonts_;  // fonts seen on this page (few): linear search
  size_t last_ = 0;
};

/// One parse of a PDF, one method per step: open the document, count its pages (recovering a
/// lost page tree), read the title, the pages' text and figures, then check what came out.
class PdfReading {
 public:
  PdfReading(std::string_view bytes, const ParseContext& pctx) : bytes_(bytes), pctx_(pctx) {}

  ParsedDocument run() {
    open();
    count_pages();
    out_.format = "pdf";
    out_.pages = npages_;
    read_title();
    read_pages();
    if (pctx_.figures) figures_->render(s_.doc, out_);
    s_.close_document();

    if (failed_ == npages_)
      throw InputError("not a valid PDF (no page could be read: " + first_error_ +
                       "); the file may be truncated or corrupt");
    if (failed_ > 5)
      out_.warnings.push_back(std::to_string(failed_ - 5) + " more pages could not be read; skipped");

    pdf::build_blocks(pages_, out_.blocks);
    if (pctx_.figures) figures_->place(pages_, out_);
    // A scanned document: no text, but its page images are figures, whose text OCR reads in the
    // figure stage (ingest fails it there if OCR finds none either).
    if (out_.blocks.empty() && out_.figures.empty()) {
      if (s_.diag.repaired || rebuilt_)
        throw InputError("damaged PDF (no text could be recovered); the file may be truncated or corrupt");
      throw InputError(pctx_.figures ? kNoText : kNoTextNoFigures);
    }
    add_warnings();
    if (out_.title.empty()) {
      for (const Block& b : out_.blocks) {
        if (b.kind == BlockKind::Heading && b.level == 1) {
          out_.title = b.text;
          break;
        }
      }
    }
    return std::move(out_);
  }

 private:
  /// Checks the bytes, creates the MuPDF context and opens the document.
  void open() {
    if (bytes_.empty()) throw InputError("empty file (0 bytes); nothing to parse");
    if (!has_pdf_header(bytes_))
      throw InputError("not a PDF file (" + describe_non_pdf(bytes_) +
                       "); check that the file really is a PDF");

    s_.ctx = mupdf::new_context(s_.budget, FZ_STORE_DEFAULT);
    if (!s_.ctx) throw Error("cannot initialise MuPDF (out of memory); retry with fewer parallel jobs");
    ctx_ = s_.ctx;
    jpeg_messages_.emplace(ctx_);
    fz_set_warning_callback(ctx_, on_parse_warning, &s_.diag);
    fz_set_error_callback(ctx_, on_parse_error, &s_.diag);

    std::string err;
    bool ok = guarded(ctx_, &err, [&] {
      fz_register_document_handlers(ctx_);
      s_.stm = fz_open_memory(ctx_, reinterpret_cast<const unsigned char*>(bytes_.data()), bytes_.size());
      s_.doc = fz_open_document_with_stream(ctx_, "application/pdf", s_.stm);
    });
    if (!ok || !s_.doc)
      throw InputError("not a valid PDF (" + one_line(err) + "); the file may be truncated or corrupt");

    int needs_password = 0;
    ok = guarded(ctx_, &err, [&] { needs_password = fz_needs_password(ctx_, s_.doc); });
    if (!ok)
      throw InputError("not a valid PDF (" + one_line(err) + "); the file may be truncated or corrupt");
    if (needs_password) throw InputError(kEncrypted);
  }

  /// The number of pages, from the page tree or, when that is lost, from the page objects.
  void count_pages() {
    std::string err;
    fz_context* ctx = ctx_;
    bool ok = guarded(ctx, &err, [&] { npages_ = fz_count_pages(ctx, s_.doc); });
    // A page object takes some bytes: a larger count is a corrupt page tree (trusting it would
    // mean billions of failing page loads).
    const int64_t max_pages = static_cast<int64_t>(bytes_.size() / 16) + 1;
    if (ok && npages_ > max_pages) npages_ = 0;
    if (!ok || npages_ <= 0) {
      // No page tree (truncated file?): look for the page objects themselves.
      int found = 0;
      std::string err2;
      if (guarded(ctx, &err2, [&] { found = recover_page_tree(ctx, s_.doc); }) && found > 0 &&
          guarded(ctx, &err2, [&] { npages_ = fz_count_pages(ctx, s_.doc); }) && npages_ > 0) {
        rebuilt_ = ok = true;
      }
    }
    if (!ok || npages_ > max_pages)
      throw InputError("not a valid PDF (cannot count pages: " +
                       (ok ? std::string("page tree is corrupt") : one_line(err)) +
                       "); the file may be truncated or corrupt");
    if (npages_ <= 0) {
      if (s_.diag.repaired)
        throw InputError("damaged PDF (no pages could be recovered); the file may be truncated or corrupt");
      throw InputError(kNoText);
    }
  }

  void read_title() {
    char meta[1024];
    int meta_len = -1;
    meta[0] = 0;
    guarded(ctx_, nullptr, [&] {
      meta_len = fz_lookup_metadata(ctx_, s_.doc, FZ_META_INFO_TITLE, meta, sizeof(meta));
    });
    if (meta_len > 0) {
      meta[sizeof(meta) - 1] = 0;
      out_.title = clean_metadata(meta);
    }
  }

  void read_pages() {
    pages_.reserve(static_cast<size_t>(npages_));
    std::memset(&opts_, 0, sizeof(opts_));
    opts_.flags = FZ_STEXT_MEDIABOX_CLIP;  // ligatures expanded, whitespace normalised by MuPDF
    figures_.emplace(ctx_, &s_.budget);
    for (int i = 0; i < npages_; ++i) read_page(i);
  }

  /// Page `i` (0-based): its text lines, and the graphics of its figures when they are wanted.
  void read_page(int i) {
    fz_stext_page* raw = nullptr;
    fz_display_list* list = nullptr;
    std::string err;
    const bool ok = pctx_.figures ? load_page_with_list(i, &raw, &list, &err)
                                  : guarded(ctx_, &err, [&] { raw = fz_new_stext_page_from_page_number(ctx_, s_.doc, i, &opts_); });
    std::unique_ptr<fz_display_list, ListDeleter> list_owner(list, ListDeleter{ctx_});
    if (!ok || !raw) {
      ++failed_;
      if (failed_ >= 200 && failed_ == i + 1)  // nothing readable so far: stop trying
        throw InputError("not a valid PDF (no page could be read: " + one_line(err) +
                         "); the file may be truncated or corrupt");
      if (first_error_.empty()) first_error_ = one_line(err);
      if (failed_ <= 5)
        out_.warnings.push_back("page " + std::to_string(i + 1) + " could not be read (" +
                                one_line(err) + "); page skipped");
      return;
    }
    std::unique_ptr<fz_stext_page, StextDeleter> sp(raw, StextDeleter{ctx_});
    pages_.emplace_back();
    pages_.back().number = i + 1;
    PageExtractor ex(ctx_, pages_.back());
    ex.run(sp.get());
    chars_ += ex.chars;
    unmapped_ += ex.unmapped;
    if (list) figures_->collect(list, pages_.back());
    if (pages_.back().lines.empty()) {
      ++empty_pages_;
      pages_.pop_back();
    }
  }

  /// One interpretation of the page feeds both the text and the figure recorder. What was
  /// recorded before an error is kept: an inline image too large for the memory budget (MuPDF
  /// decodes those while reading the page) loses the rest of the page, not all of it.
  bool load_page_with_list(int i, fz_stext_page** raw, fz_display_list** list, std::string* err) {
    fz_context* ctx = ctx_;
    char cut_short[256] = {};  // why the page's contents stopped early (MuPDF's message)
    const bool ok = guarded(ctx, err, [&] {
      fz_page* page = fz_load_page(ctx, s_.doc, i);
      fz_device* dev = nullptr;
      fz_var(dev);
      fz_try(ctx) {
        *list = fz_new_display_list(ctx, fz_bound_page(ctx, page));
        dev = fz_new_list_device(ctx, *list);
        fz_try(ctx) fz_run_page_contents(ctx, page, dev, fz_identity, nullptr);
        fz_catch(ctx) {
          const char* m = fz_caught_message(ctx);
          std::strncpy(cut_short, m && *m ? m : "unknown MuPDF error", sizeof cut_short - 1);
        }
        fz_close_device(ctx, dev);
      }
      fz_always(ctx) {
        fz_drop_device(ctx, dev);
        fz_drop_page(ctx, page);
      }
      fz_catch(ctx) fz_rethrow(ctx);
      *raw = fz_new_stext_page_from_display_list(ctx, *list, &opts_);
    });
    if (ok && cut_short[0] && ++cut_pages_ <= 5)
      out_.warnings.push_back("page " + std::to_string(i + 1) + " could not be read to its end (" +
                              (std::strstr(cut_short, "malloc") || s_.budget.refused
                                   ? "an inline image needs more than the " + std::to_string(mupdf::kContextMemoryLimit >> 20) +
                                         " MiB of memory allowed per document: "
                                   : std::string()) +
                              one_line(cut_short) + "); the content after that point is missing");
    return ok;
  }

  void add_warnings() {
    if (empty_pages_ > 0 && empty_pages_ * 4 >= npages_ && empty_pages_ >= 2)
      out_.warnings.push_back(std::to_string(empty_pages_) + " of " + std::to_string(npages_) +
                              " pages have no extractable text (scanned images?); " +
                              (pctx_.figures ? "their images are read with OCR as figures"
                                             : "their content is missing (ingest without --no-figures to OCR them)"));
    if (unmapped_ > 0 && unmapped_ * 200 > chars_ + unmapped_)
      out_.warnings.push_back(std::to_string(unmapped_) +
                              " characters have no Unicode mapping (fonts without ToUnicode); "
                              "some text is missing");
    if (rebuilt_)
      out_.warnings.push_back("PDF page tree is missing (truncated file?); pages were recovered "
                              "from the page objects, their order may differ");
    else if (s_.diag.repaired)
      out_.warnings.push_back("PDF structure is damaged and was repaired; some content may be missing");
  }

  std::string_view bytes_;
  const ParseContext& pctx_;
  Session s_;
  fz_context* ctx_ = nullptr;  // s_.ctx
  std::optional<mupdf::JpegMessagesTo> jpeg_messages_;
  int npages_ = 0;
  bool rebuilt_ = false;  // the page tree was rebuilt from the page objects
  ParsedDocument out_;
  std::vector<pdf::Page> pages_;
  fz_stext_options opts_;
  int failed_ = 0, empty_pages_ = 0, cut_pages_ = 0;
  std::string first_error_;
  uint64_t chars_ = 0, unmapped_ = 0;
  std::optional<PdfFigureExtractor> figures_;
};

class PdfParser : public Parser {
 public:
  const char* name() const override { return "pdf"; }

  using Parser::parse;
  ParsedDocument parse(const std::string&, std::string_view bytes, const ParseContext& pctx) const override {
    return PdfReading(bytes, pctx).run();
  }
};

}  // namespace

std::unique_ptr<Parser> make_pdf_parser() { return std::make_unique<PdfParser>(); }

}  // namespace mmkg
