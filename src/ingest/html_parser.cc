// HTML parser on gumbo (HTML5 tree building). Walks the DOM without recursion and turns block
// elements into blocks: headings, paragraphs, list items, code, captions, and each data table
// as one Table block. Scripts, styles, navigation, footers, forms and hidden elements are dropped.
// <img> elements are collected as image references (with their <figure>'s <figcaption>); the
// EPUB parser runs the same walk over each chapter (html_blocks.h).
#include <gumbo.h>
#include <strings.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/encoding.h"
#include "ingest/figure_refs.h"
#include "ingest/html_blocks.h"
#include "ingest/markup_scan.h"
#include "ingest/parser.h"
#include "ingest/tables.h"

namespace mmkg {
namespace {

// gumbo's tree building is quadratic in nesting depth (scope checks walk the open-element
// stack) and it frees the tree recursively, so absurdly deep markup is refused up front.
constexpr int kMaxNesting = 10000;


/// Where the raw text of a script or style element ends: its closing tag `close` ("</script"),
/// in any case, as HTML matches it; npos when it is never closed.
size_t find_closing(std::string_view h, std::string_view close, size_t from) {
  for (size_t i = h.find('<', from); i != std::string_view::npos; i = h.find('<', i + 1))
    if (iequals_ascii(h.substr(i, close.size()), close)) return i;
  return std::string_view::npos;
}

/// Upper estimate of element nesting from a tag scan: opening tags minus closing tags, ignoring
/// void elements and elements whose end tag is optional (they close implicitly).
int estimate_nesting(std::string_view h) {
  static const char* const kNotCounted[] = {
      "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
      "source", "track", "wbr", "p", "li", "dt", "dd", "td", "th", "tr", "option", "optgroup",
      "thead", "tbody", "tfoot", "colgroup", "rb", "rt", "rtc", "rp", "html", "head", "body"};
  int depth = 0, max_depth = 0;
  TagScanner scan(h);
  MarkupTag t;
  while (scan.next(t) && t.terminated) {
    std::string name(t.name);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    bool counted = true;
    for (const char* n : kNotCounted)
      if (name == n) counted = false;
    if (t.closing) {
      if (counted && depth > 0) --depth;
    } else if (counted && !t.self_closing) {
      max_depth = std::max(max_depth, ++depth);
    }
    if (!t.closing && (name == "script" || name == "style")) {
      const size_t e = find_closing(h, name == "script" ? "</script" : "</style", t.end);
      scan.seek(e == std::string_view::npos ? h.size() : e);  // raw text: its "<" are not tags
    }
  }
  return max_depth;
}

struct OutputFree {
  void operator()(GumboOutput* o) const { gumbo_destroy_output(&kGumboDefaultOptions, o); }
};

bool attr_is(const GumboElement& e, const char* name, const char* value) {
  const GumboAttribute* a = gumbo_get_attribute(&e.attributes, name);
  return a && (value == nullptr || strcasecmp(a->value, value) == 0);
}

/// Elements whose content is never document text.
bool is_skipped(const GumboNode* n) {
  if (n->type == GUMBO_NODE_TEMPLATE) return true;
  if (n->type != GUMBO_NODE_ELEMENT) return false;
  const GumboElement& e = n->v.element;
  switch (e.tag) {
    case GUMBO_TAG_SCRIPT: case GUMBO_TAG_STYLE: case GUMBO_TAG_NOSCRIPT: case GUMBO_TAG_TEMPLATE:
    case GUMBO_TAG_NAV: case GUMBO_TAG_FOOTER: case GUMBO_TAG_SVG: case GUMBO_TAG_FORM:
    case GUMBO_TAG_IFRAME: case GUMBO_TAG_OBJECT: case GUMBO_TAG_EMBED: case GUMBO_TAG_CANVAS:
    case GUMBO_TAG_BUTTON: case GUMBO_TAG_SELECT: case GUMBO_TAG_TEXTAREA: case GUMBO_TAG_AUDIO:
    case GUMBO_TAG_VIDEO: case GUMBO_TAG_MAP:
      return true;
    default:
      break;
  }
  return attr_is(e, "hidden", nullptr) || attr_is(e, "aria-hidden", "true") ||
         attr_is(e, "role", "navigation") || attr_is(e, "role", "contentinfo");
}

/// Block kind for block-level elements; false for inline elements.
bool block_kind(GumboTag tag, BlockKind& kind, int& level) {
  level = 0;
  switch (tag) {
    case GUMBO_TAG_H1: case GUMBO_TAG_H2: case GUMBO_TAG_H3:
    case GUMBO_TAG_H4: case GUMBO_TAG_H5: case GUMBO_TAG_H6:
      kind = BlockKind::Heading;
      level = 1 + (tag - GUMBO_TAG_H1);
      return true;
    case GUMBO_TAG_LI: kind = BlockKind::ListItem; return true;
    case GUMBO_TAG_PRE: kind = BlockKind::Code; return true;
    case GUMBO_TAG_FIGCAPTION: case GUMBO_TAG_CAPTION: kind = BlockKind::Caption; return true;
    case GUMBO_TAG_HTML: case GUMBO_TAG_BODY: case GUMBO_TAG_P: case GUMBO_TAG_DIV:
    case GUMBO_TAG_BLOCKQUOTE: case GUMBO_TAG_DT: case GUMBO_TAG_DD: case GUMBO_TAG_DL:
    case GUMBO_TAG_UL: case GUMBO_TAG_OL: case GUMBO_TAG_MENU: case GUMBO_TAG_DIR:
    case GUMBO_TAG_SECTION: case GUMBO_TAG_ARTICLE: case GUMBO_TAG_MAIN: case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_HEADER: case GUMBO_TAG_ADDRESS: case GUMBO_TAG_DETAILS:
    case GUMBO_TAG_SUMMARY: case GUMBO_TAG_FIELDSET: case GUMBO_TAG_LEGEND:
    case GUMBO_TAG_FIGURE: case GUMBO_TAG_HGROUP: case GUMBO_TAG_CENTER: case GUMBO_TAG_HR:
    case GUMBO_TAG_TABLE: case GUMBO_TAG_TR: case GUMBO_TAG_TD: case GUMBO_TAG_TH:
    case GUMBO_TAG_TBODY: case GUMBO_TAG_THEAD: case GUMBO_TAG_TFOOT:
      kind = BlockKind::Paragraph;
      return true;
    default:
      return false;
  }
}

/// Appends text with whitespace runs collapsed to one space.
void append_collapsed(std::string& out, const char* s) {
  for (; *s; ++s) {
    if (is_markup_space(*s)) {
      if (!out.empty() && out.back() != ' ' && out.back() != '\n') out.push_back(' ');
    } else {
      out.push_back(*s);
    }
  }
}

std::string trimmed(std::string s, const char* blanks = " \n") {
  const size_t b = s.find_first_not_of(blanks);
  if (b == std::string::npos) return {};
  s.erase(s.find_last_not_of(blanks) + 1);
  s.erase(0, b);
  return s;
}

/// Drops leading and trailing spaces, newlines and no-break spaces (U+00A0): word processors
/// write "<p>&nbsp;</p>" for empty lines, which is no text.
std::string trim_nbsp(std::string s) {
  auto blank_at_end = [&] {
    if (s.empty()) return size_t{0};
    if (s.back() == ' ' || s.back() == '\n') return size_t{1};
    return s.size() >= 2 && s.compare(s.size() - 2, 2, "\xC2\xA0") == 0 ? size_t{2} : size_t{0};
  };
  while (size_t n = blank_at_end()) s.resize(s.size() - n);
  size_t b = 0;
  for (;;) {
    if (b < s.size() && (s[b] == ' ' || s[b] == '\n')) ++b;
    else if (s.compare(b, 2, "\xC2\xA0") == 0) b += 2;
    else break;
  }
  return s.substr(b);
}

const GumboVector* children_of(const GumboNode* n) {
  if (n->type == GUMBO_NODE_ELEMENT || n->type == GUMBO_NODE_TEMPLATE) return &n->v.element.children;
  if (n->type == GUMBO_NODE_DOCUMENT) return &n->v.document.children;
  return nullptr;
}

enum class Visit { Descend, Skip, Stop };

/// Pre-order walk over the descendants of `root`, iterative (documents can nest deeply);
/// `f(node)` says whether to go into the node's children, pass over them, or stop the walk.
/// Returns true when `f` stopped it.
template <typename F>
bool visit_descendants(const GumboNode* root, F&& f) {
  std::vector<std::pair<const GumboNode*, unsigned>> st{{root, 0}};
  while (!st.empty()) {
    auto& [node, next] = st.back();
    const GumboVector* kids = children_of(node);
    if (!kids || next >= kids->length) {
      st.pop_back();
      continue;
    }
    const auto* c = static_cast<const GumboNode*>(kids->data[next++]);
    switch (f(c)) {
      case Visit::Stop: return true;
      case Visit::Descend: st.push_back({c, 0}); break;
      case Visit::Skip: break;
    }
  }
  return false;
}

/// All text under `root` on one line (skipped elements left out), collapsed.
std::string flat_text(const GumboNode* root) {
  std::string out;
  visit_descendants(root, [&](const GumboNode* c) {
    if (c->type == GUMBO_NODE_TEXT || c->type == GUMBO_NODE_WHITESPACE || c->type == GUMBO_NODE_CDATA) {
      append_collapsed(out, c->v.text.text);
      return Visit::Skip;
    }
    if (c->type != GUMBO_NODE_ELEMENT || is_skipped(c)) return Visit::Skip;
    if (c->v.element.tag == GUMBO_TAG_BR) append_collapsed(out, " ");
    BlockKind k;
    int lvl;
    if (block_kind(c->v.element.tag, k, lvl)) append_collapsed(out, " ");  // <p>a</p><p>b</p>
    return Visit::Descend;
  });
  return trimmed(std::move(out));
}

bool is_element(const GumboNode* n, GumboTag tag) {
  return n->type == GUMBO_NODE_ELEMENT && n->v.element.tag == tag;
}

template <typename F>
void for_each_child(const GumboNode* n, F&& f) {
  if (const GumboVector* kids = children_of(n))
    for (unsigned i = 0; i < kids->length; ++i) f(static_cast<const GumboNode*>(kids->data[i]));
}

/// The rows (tr) of a table, through thead/tbody/tfoot.
std::vector<const GumboNode*> table_rows(const GumboNode* table) {
  std::vector<const GumboNode*> rows;
  for_each_child(table, [&](const GumboNode* c) {
    if (is_element(c, GUMBO_TAG_TR)) rows.push_back(c);
    if (is_element(c, GUMBO_TAG_THEAD) || is_element(c, GUMBO_TAG_TBODY) || is_element(c, GUMBO_TAG_TFOOT))
      for_each_child(c, [&](const GumboNode* r) {
        if (is_element(r, GUMBO_TAG_TR)) rows.push_back(r);
      });
  });
  return rows;
}

/// A table used for page layout (cells holding paragraphs, lists, headings or other tables, or
/// a single column) is walked as ordinary content rather than flattened into one Table block.
bool is_layout_table(const GumboNode* table) {
  size_t max_cells = 0;
  for (const GumboNode* row : table_rows(table)) {
    size_t cells = 0;
    for_each_child(row, [&](const GumboNode* c) {
      cells += is_element(c, GUMBO_TAG_TD) || is_element(c, GUMBO_TAG_TH);
    });
    max_cells = std::max(max_cells, cells);
  }
  if (max_cells <= 1) return true;
  return visit_descendants(table, [](const GumboNode* c) {
    if (c->type != GUMBO_NODE_ELEMENT) return Visit::Skip;
    switch (c->v.element.tag) {
      case GUMBO_TAG_TABLE: case GUMBO_TAG_P: case GUMBO_TAG_UL: case GUMBO_TAG_OL:
      case GUMBO_TAG_PRE: case GUMBO_TAG_BLOCKQUOTE: case GUMBO_TAG_H1: case GUMBO_TAG_H2:
      case GUMBO_TAG_H3: case GUMBO_TAG_H4: case GUMBO_TAG_H5: case GUMBO_TAG_H6:
        return Visit::Stop;
      default:
        return Visit::Descend;
    }
  });
}

/// Text of the first <figcaption> child of a <figure>, empty if none.
std::string figcaption_of(const GumboNode* figure) {
  std::string out;
  for_each_child(figure, [&](const GumboNode* c) {
    if (out.empty() && is_element(c, GUMBO_TAG_FIGCAPTION)) out = flat_text(c);
  });
  return out;
}

class HtmlWalker {
 public:
  HtmlWalker(ParsedDocument& doc, std::vector<ImageRef>* images) : doc_(doc), images_(images) {}

  void run(const GumboNode* root) {
    ctx_.push_back({BlockKind::Paragraph, 0});
    stack_.push_back({root});
    while (!stack_.empty()) {
      Frame& f = stack_.back();
      const GumboVector* kids = children_of(f.node);
      if (!kids || f.next >= kids->length) {
        leave(f);
        stack_.pop_back();
        continue;
      }
      const auto* c = static_cast<const GumboNode*>(kids->data[f.next++]);
      switch (c->type) {
        case GUMBO_NODE_TEXT: case GUMBO_NODE_WHITESPACE: case GUMBO_NODE_CDATA:
          append_text(c->v.text.text);
          break;
        case GUMBO_NODE_ELEMENT:
          enter(c);  // may push a frame; `f` is not used after this
          break;
        default:
          break;  // comments, templates
      }
    }
    flush();
  }

  std::string html_title;  ///< text of <title>
  std::string first_h1;

 private:
  struct Frame {
    const GumboNode* node;
    unsigned next = 0;
    bool block = false;
    bool pre = false;
    bool figure = false;
    bool saved_suppress = false;
  };
  struct Ctx {
    BlockKind kind;
    int level;
  };

  void enter(const GumboNode* n) {
    if (is_skipped(n)) return;
    const GumboTag tag = n->v.element.tag;
    if (tag == GUMBO_TAG_TITLE) {
      if (html_title.empty()) html_title = flat_text(n);
      return;
    }
    if (tag == GUMBO_TAG_BR) return append_break();
    if (tag == GUMBO_TAG_IMG) return add_image(n->v.element);
    if (tag == GUMBO_TAG_TABLE && !is_layout_table(n)) return emit_table(n);
    Frame f{n};
    f.saved_suppress = suppress_;
    // <header> is site chrome (logo, menus, taglines) except for the page's h1.
    if (tag == GUMBO_TAG_HEADER) suppress_ = true;
    if (tag == GUMBO_TAG_H1) suppress_ = false;
    BlockKind kind;
    int level;
    if (block_kind(tag, kind, level)) {
      flush();
      ctx_.push_back({kind, level});
      f.block = true;
    }
    if (tag == GUMBO_TAG_PRE) {
      f.pre = true;
      ++pre_;
    }
    if (tag == GUMBO_TAG_FIGURE && images_) {
      f.figure = true;
      captions_.push_back(figcaption_of(n));
    }
    stack_.push_back(f);
  }

  void leave(const Frame& f) {
    if (f.block) {
      flush();
      ctx_.pop_back();
    }
    if (f.pre) --pre_;
    if (f.figure) captions_.pop_back();
    suppress_ = f.saved_suppress;
  }

  /// Records an <img> (not inside site chrome) before the block that holds it: the pending text
  /// is not flushed, so an image inside a paragraph precedes that paragraph.
  void add_image(const GumboElement& e) {
    if (!images_ || suppress_) return;
    ImageRef r;
    auto get = [&](const char* name, std::string& out) {
      if (const GumboAttribute* a = gumbo_get_attribute(&e.attributes, name)) out = a->value;
    };
    get("src", r.src);
    get("alt", r.alt);
    get("title", r.title);
    if (!captions_.empty()) r.caption = captions_.back();
    r.block = doc_.blocks.size();
    images_->push_back(std::move(r));
  }

  void append_text(const char* s) {
    if (suppress_) return;
    if (pre_ > 0) acc_ += s;
    else append_collapsed(acc_, s);
  }

  void append_break() {
    if (suppress_) return;
    if (pre_ > 0) return acc_.push_back('\n');
    while (!acc_.empty() && acc_.back() == ' ') acc_.pop_back();
    if (!acc_.empty() && acc_.back() != '\n') acc_.push_back('\n');
  }

  void add(BlockKind kind, int level, std::string text) {
    if (text.empty()) return;
    if (kind == BlockKind::Heading && level == 1 && first_h1.empty()) first_h1 = text;
    Block b;
    b.kind = kind;
    b.level = level;
    b.text = std::move(text);
    doc_.blocks.push_back(std::move(b));
  }

  /// Emits the pending text as a block of the innermost block element's kind.
  void flush() {
    if (acc_.empty()) return;
    const Ctx& c = ctx_.back();
    std::string text = c.kind == BlockKind::Code ? trimmed(std::move(acc_), " \t\r\n")
                                                 : trim_nbsp(std::move(acc_));
    acc_.clear();
    add(c.kind, c.level, std::move(text));
  }

  void emit_table(const GumboNode* table) {
    flush();
    if (suppress_) return;
    for_each_child(table, [&](const GumboNode* c) {
      if (is_element(c, GUMBO_TAG_CAPTION)) add(BlockKind::Caption, 0, flat_text(c));
    });
    // The rows as a GFM pipe table: readable in the body text, and the form that
    // tables_from_blocks turns into a table figure.
    TableRows rows;
    for (const GumboNode* row : table_rows(table)) {
      std::vector<std::string> cells;
      bool any = false;
      for_each_child(row, [&](const GumboNode* c) {
        if (!is_element(c, GUMBO_TAG_TD) && !is_element(c, GUMBO_TAG_TH)) return;
        cells.push_back(flat_text(c));
        any = any || !cells.back().empty();
      });
      if (any) rows.push_back(std::move(cells));
    }
    add(BlockKind::Table, 0, markdown_table(rows));
  }

  ParsedDocument& doc_;
  std::vector<ImageRef>* images_;   ///< null: images are not collected
  std::vector<std::string> captions_;  ///< figcaptions of the enclosing <figure>s
  std::vector<Frame> stack_;
  std::vector<Ctx> ctx_;
  std::string acc_;
  bool suppress_ = false;
  int pre_ = 0;
};

class HtmlParser final : public Parser {
 public:
  const char* name() const override { return "html"; }

  using Parser::parse;
  ParsedDocument parse(const std::string& path, std::string_view bytes, const ParseContext& ctx) const override {
    ParsedDocument doc;
    doc.format = "html";
    const std::string text = decode_text_file(bytes, doc.warnings);

    std::vector<ImageRef> images;
    const HtmlTitles t = html_blocks(text, doc, ctx.figures ? &images : nullptr);
    if (doc.blocks.empty())
      throw InputError("no readable text in HTML (only markup, scripts or navigation)");
    add_file_figures(path, ctx, images, doc);
    if (ctx.figures) tables_from_blocks(doc);

    doc.title = !t.title.empty() ? t.title : t.first_h1;
    if (doc.title.empty()) {
      for (const Block& b : doc.blocks) {
        if (b.kind == BlockKind::Heading) {
          doc.title = b.text;
          break;
        }
      }
    }
    return doc;
  }
};

}  // namespace

HtmlTitles html_blocks(std::string_view html, ParsedDocument& doc, std::vector<ImageRef>* images) {
  if (estimate_nesting(html) > kMaxNesting) {
    throw InputError("HTML nests elements more than " + std::to_string(kMaxNesting) +
                     " levels deep; this is not a readable document");
  }
  GumboOptions options = kGumboDefaultOptions;
  options.max_errors = 0;  // we do not report parse errors; do not collect millions of them
  std::unique_ptr<GumboOutput, OutputFree> out(gumbo_parse_with_options(&options, html.data(), html.size()));
  if (!out) throw InputError("cannot parse HTML (out of memory?)");
  HtmlWalker w(doc, images);
  w.run(out->document);
  return {w.html_title, w.first_h1};
}

std::unique_ptr<Parser> make_html_parser() { return std::make_unique<HtmlParser>(); }

}  // namespace mmkg
