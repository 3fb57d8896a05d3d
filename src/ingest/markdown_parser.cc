// Markdown parser on libcmark (CommonMark). Walks cmark's AST without recursion and turns
// headings, paragraphs, list items, code, quotes and HTML blocks into flat blocks of clean text.
// Not CommonMark but common: YAML front matter (skipped) and GFM pipe tables (kept as Table).
// Images (inline, reference-style and raw HTML <img>) stay in the text as their alt text and,
// when they are local files, become Figures placed before the block that holds them.
#include <cmark.h>
#include <strings.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/encoding.h"
#include "ingest/figure_refs.h"
#include "ingest/markup_scan.h"
#include "ingest/parser.h"
#include "ingest/tables.h"

namespace mmkg {
namespace {

struct NodeFree {
  void operator()(cmark_node* n) const { cmark_node_free(n); }
};
struct IterFree {
  void operator()(cmark_iter* i) const { cmark_iter_free(i); }
};
using NodePtr = std::unique_ptr<cmark_node, NodeFree>;
using IterPtr = std::unique_ptr<cmark_iter, IterFree>;

bool is_hspace(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r'; }

/// Collapses runs of horizontal whitespace, drops blanks around newlines, keeps one newline per
/// run, trims the ends.
std::string tidy(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  bool space = false, newline = false;
  for (char c : s) {
    if (c == '\n') {
      newline = true;
      continue;
    }
    if (is_hspace(c)) {
      space = true;
      continue;
    }
    if (!out.empty()) {
      if (newline) out.push_back('\n');
      else if (space) out.push_back(' ');
    }
    space = newline = false;
    out.push_back(c);
  }
  return out;
}

/// Text of the inline content under `node`: emphasis, links and code keep their text, images
/// become their alt text (their children), raw inline HTML tags are dropped.
std::string inline_text(cmark_node* node, bool softbreak_as_newline) {
  std::string out;
  IterPtr it(cmark_iter_new(node));
  cmark_event_type ev;
  while ((ev = cmark_iter_next(it.get())) != CMARK_EVENT_DONE) {
    if (ev != CMARK_EVENT_ENTER) continue;
    cmark_node* n = cmark_iter_get_node(it.get());
    switch (cmark_node_get_type(n)) {
      case CMARK_NODE_TEXT:
      case CMARK_NODE_CODE:
        if (const char* lit = cmark_node_get_literal(n)) out += lit;
        break;
      case CMARK_NODE_SOFTBREAK:
        out.push_back(softbreak_as_newline ? '\n' : ' ');
        break;
      case CMARK_NODE_LINEBREAK:
        out.push_back('\n');
        break;
      default:
        break;
    }
  }
  return tidy(out);
}

/// Appends code point `cp` as UTF-8 if it is a valid, non-NUL scalar value.
void append_cp(std::string& out, long cp) {
  if (cp <= 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return;
  uint8_t buf[4];
  size_t len = 0;
  U8_APPEND_UNSAFE(buf, len, static_cast<UChar32>(cp));
  out.append(reinterpret_cast<const char*>(buf), len);
}

// Raw HTML blocks inside Markdown are usually small (a <div>, a <details>, an <img>); a full
// HTML parser would be overkill, so this strips tags, comments, script/style bodies and decodes
// the handful of entities that occur in practice.
std::string strip_html(std::string_view h) {
  std::string out;
  size_t i = 0;
  auto skip_to = [&](std::string_view end) {
    const size_t p = h.find(end, i);
    i = p == std::string_view::npos ? h.size() : p + end.size();
  };
  auto starts_ci = [&](const char* w) {
    const size_t len = std::strlen(w);
    return h.size() - i >= len && strncasecmp(h.data() + i, w, len) == 0;
  };
  while (i < h.size()) {
    const char c = h[i];
    if (c == '<') {
      if (h.compare(i, 4, "<!--") == 0) { skip_to("-->"); continue; }
      if (starts_ci("<script")) { skip_to("</script>"); continue; }
      if (starts_ci("<style")) { skip_to("</style>"); continue; }
      skip_to(">");
      out.push_back(' ');  // tags separate words ("<td>a</td><td>b</td>")
      continue;
    }
    if (c == '&') {
      const size_t semi = h.find(';', i);
      if (semi != std::string_view::npos && semi - i <= 10) {
        const std::string_view ent = h.substr(i + 1, semi - i - 1);
        static const struct { const char* name; const char* text; } kNamed[] = {
            {"amp", "&"}, {"lt", "<"}, {"gt", ">"}, {"quot", "\""}, {"apos", "'"},
            {"nbsp", " "}, {"mdash", "\xE2\x80\x94"}, {"ndash", "\xE2\x80\x93"},
            {"hellip", "\xE2\x80\xA6"}, {"copy", "\xC2\xA9"}};
        bool done = false;
        if (ent.size() > 1 && ent[0] == '#') {
          const bool hex = ent[1] == 'x' || ent[1] == 'X';
          const std::string num(ent.substr(hex ? 2 : 1));
          char* end = nullptr;
          const long cp = std::strtol(num.c_str(), &end, hex ? 16 : 10);
          if (!num.empty() && end && *end == '\0') {
            append_cp(out, cp);
            done = true;
          }
        } else {
          for (const auto& e : kNamed) {
            if (ent == e.name) {
              out += e.text;
              done = true;
              break;
            }
          }
        }
        if (done) {
          i = semi + 1;
          continue;
        }
      }
    }
    out.push_back(c == '\n' ? ' ' : c);
    ++i;
  }
  return tidy(out);
}

/// The images under `node` (Markdown images and <img> tags of raw HTML), in document order, each
/// placed before block `block`.
void find_images(cmark_node* node, size_t block, std::vector<ImageRef>& out) {
  IterPtr it(cmark_iter_new(node));
  cmark_event_type ev;
  while ((ev = cmark_iter_next(it.get())) != CMARK_EVENT_DONE) {
    if (ev != CMARK_EVENT_ENTER) continue;
    cmark_node* n = cmark_iter_get_node(it.get());
    const cmark_node_type type = cmark_node_get_type(n);
    if (type == CMARK_NODE_IMAGE) {
      ImageRef r;
      if (const char* url = cmark_node_get_url(n)) r.src = url;
      if (const char* title = cmark_node_get_title(n)) r.title = title;
      r.alt = inline_text(n, false);
      r.block = block;
      out.push_back(std::move(r));
    } else if (type == CMARK_NODE_HTML_INLINE || type == CMARK_NODE_HTML_BLOCK) {
      const char* lit = cmark_node_get_literal(n);
      for (const TagAttrs& a : scan_tags(lit ? lit : "", "img")) {
        ImageRef r;
        if (const std::string* v = find_attr(a, "src")) r.src = *v;
        if (const std::string* v = find_attr(a, "alt")) r.alt = *v;
        if (const std::string* v = find_attr(a, "title")) r.title = *v;
        r.block = block;
        out.push_back(std::move(r));
      }
    }
  }
}

/// GFM pipe table: a header row with pipes and a delimiter row like |---|:--:|.
bool is_pipe_table(std::string_view text) {
  const size_t nl = text.find('\n');
  if (nl == std::string_view::npos) return false;
  const std::string_view header = text.substr(0, nl);
  std::string_view delim = text.substr(nl + 1);
  delim = delim.substr(0, delim.find('\n'));
  if (header.find('|') == std::string_view::npos) return false;
  bool dash = false, pipe = false;
  for (char c : delim) {
    if (c == '-') dash = true;
    else if (c == '|') pipe = true;
    else if (c != ':' && c != ' ' && c != '\t') return false;
  }
  return dash && (pipe || header.find('|') != std::string_view::npos);
}

/// The source lines of a node (1-based, inclusive), block-quote markers dropped and blanks
/// collapsed: a pipe table as written, with its escaped pipes ("a \\| b"), which the parsed
/// text no longer tells apart from cell borders.
std::string source_lines(std::string_view text, int first, int last) {
  std::string out;
  size_t pos = 0;
  for (int line = 1; line <= last && pos <= text.size(); ++line) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    if (line >= first) {
      std::string_view l = text.substr(pos, nl - pos);
      while (!l.empty() && (l.front() == '>' || is_hspace(l.front()))) l.remove_prefix(1);
      if (!out.empty()) out += '\n';
      bool space = false;
      for (char c : l) {
        if (is_hspace(c)) {
          space = true;
          continue;
        }
        if (space && !out.empty() && out.back() != '\n') out += ' ';
        space = false;
        out += c;
      }
    }
    pos = nl + 1;
  }
  return out;
}

/// Length of YAML front matter ("---\n...\n---\n" at the very top), 0 if none. Sets `title`
/// from a `title:` key when there is one.
size_t front_matter(std::string_view t, std::string& title) {
  if (t.rfind("---", 0) != 0) return 0;
  size_t eol = t.find('\n');
  if (eol == std::string_view::npos) return 0;
  for (size_t k = 3; k < eol; ++k)
    if (!is_hspace(t[k])) return 0;
  size_t pos = eol + 1;
  std::string found_title;
  bool first = true;
  while (pos < t.size()) {
    size_t end = t.find('\n', pos);
    if (end == std::string_view::npos) end = t.size();
    std::string_view line = t.substr(pos, end - pos);
    while (!line.empty() && is_hspace(line.back())) line.remove_suffix(1);
    if (line == "---" || line == "...") {
      title = found_title;
      return std::min(end + 1, t.size());
    }
    if (first && !line.empty()) {
      // YAML starts with "key:"; anything else means the "---" was a thematic break.
      first = false;
      size_t k = 0;
      while (k < line.size() && (std::isalnum(static_cast<unsigned char>(line[k])) ||
                                 line[k] == '_' || line[k] == '-'))
        ++k;
      if (k == 0 || k >= line.size() || line[k] != ':') return 0;
    }
    if (found_title.empty() && line.rfind("title:", 0) == 0) {
      std::string v = tidy(line.substr(6));
      if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
        v = v.substr(1, v.size() - 2);
      found_title = v;
    }
    pos = end + 1;
  }
  return 0;  // no closing fence: not front matter, just a thematic break
}

/// The walk over a parsed Markdown document: one method per kind of block node. Images are
/// gathered during the walk and decoded afterwards (decoding is the slow part).
class MarkdownWalk {
 public:
  MarkdownWalk(std::string_view body, const ParseContext& ctx, ParsedDocument& doc)
      : body_(body), ctx_(ctx), doc_(doc) {}

  std::vector<ImageRef> images;

  /// Iterating (not recursing) keeps deeply nested quotes/lists from exhausting the stack.
  void run(cmark_node* root) {
    IterPtr it(cmark_iter_new(root));
    cmark_event_type ev;
    while ((ev = cmark_iter_next(it.get())) != CMARK_EVENT_DONE) {
      if (ev != CMARK_EVENT_ENTER) continue;
      cmark_node* n = cmark_iter_get_node(it.get());
      switch (cmark_node_get_type(n)) {
        case CMARK_NODE_HEADING:
          images_of(n);
          add(BlockKind::Heading, cmark_node_get_heading_level(n), inline_text(n, false));
          cmark_iter_reset(it.get(), n, CMARK_EVENT_EXIT);
          break;
        case CMARK_NODE_PARAGRAPH:
          paragraph(n);
          cmark_iter_reset(it.get(), n, CMARK_EVENT_EXIT);
          break;
        case CMARK_NODE_ITEM:
          item(n);
          break;
        case CMARK_NODE_CODE_BLOCK: {
          std::string code = cmark_node_get_literal(n) ? cmark_node_get_literal(n) : "";
          while (!code.empty() && (code.back() == '\n' || is_hspace(code.back()))) code.pop_back();
          add(BlockKind::Code, 0, std::move(code));
          break;
        }
        case CMARK_NODE_HTML_BLOCK:
          images_of(n);
          if (const char* lit = cmark_node_get_literal(n)) add(BlockKind::Paragraph, 0, strip_html(lit));
          break;
        default:
          break;  // document, block quote, list: descend; thematic break: nothing
      }
    }
  }

 private:
  void images_of(cmark_node* n) {
    if (ctx_.figures) find_images(n, doc_.blocks.size(), images);
  }

  void add(BlockKind kind, int level, std::string text) {
    if (text.empty()) return;
    Block b;
    b.kind = kind;
    b.level = level;
    b.text = std::move(text);
    doc_.blocks.push_back(std::move(b));
  }

  /// A paragraph outside a list item (an item's paragraphs are its text): a GFM pipe table
  /// becomes a Table block.
  void paragraph(cmark_node* n) {
    cmark_node* parent = cmark_node_parent(n);
    if (parent && cmark_node_get_type(parent) == CMARK_NODE_ITEM) return;
    images_of(n);
    std::string text = inline_text(n, false);
    std::string rows;  // a table needs its rows, i.e. soft breaks as newlines
    if (text.find('|') != std::string::npos && is_pipe_table(rows = inline_text(n, true))) {
      std::string src = source_lines(body_, cmark_node_get_start_line(n), cmark_node_get_end_line(n));
      add(BlockKind::Table, 0, is_pipe_table(src) ? std::move(src) : std::move(rows));
    } else
      add(BlockKind::Paragraph, 0, std::move(text));
  }

  /// The item's own paragraphs make its text; nested lists and code blocks are visited by the
  /// iteration afterwards and become blocks of their own.
  void item(cmark_node* n) {
    std::string text;
    for (cmark_node* c = cmark_node_first_child(n); c; c = cmark_node_next(c)) {
      if (cmark_node_get_type(c) != CMARK_NODE_PARAGRAPH) continue;
      images_of(c);
      if (!text.empty()) text.push_back(' ');
      text += inline_text(c, false);
    }
    add(BlockKind::ListItem, 0, std::move(text));
  }

  std::string_view body_;
  const ParseContext& ctx_;
  ParsedDocument& doc_;
};

/// Title: first level-1 heading, else first heading, else the front matter's `title:`.
std::string markdown_title(const std::vector<Block>& blocks, const std::string& fm_title) {
  std::string title;
  for (const Block& b : blocks) {
    if (b.kind == BlockKind::Heading && b.level == 1) {
      title = b.text;
      break;
    }
  }
  for (const Block& b : blocks) {
    if (!title.empty()) break;
    if (b.kind == BlockKind::Heading) title = b.text;
  }
  if (title.empty()) title = fm_title;
  return title;
}

class MarkdownParser final : public Parser {
 public:
  const char* name() const override { return "markdown"; }

  using Parser::parse;
  ParsedDocument parse(const std::string& path, std::string_view bytes, const ParseContext& ctx) const override {
    ParsedDocument doc;
    doc.format = "markdown";
    const std::string text = decode_text_file(bytes, doc.warnings);

    std::string fm_title;
    const size_t skip = front_matter(text, fm_title);
    std::string_view body = std::string_view(text).substr(skip);
    NodePtr root(cmark_parse_document(body.data(), body.size(), CMARK_OPT_DEFAULT));
    if (!root) throw InputError("cannot parse Markdown (out of memory?)");

    MarkdownWalk walk(body, ctx, doc);
    walk.run(root.get());
    if (doc.blocks.empty()) throw InputError("no text in Markdown file (only markup or front matter)");
    add_file_figures(path, ctx, walk.images, doc);
    if (ctx.figures) tables_from_blocks(doc);
    doc.title = markdown_title(doc.blocks, fm_title);
    return doc;
  }
};

}  // namespace

std::unique_ptr<Parser> make_markdown_parser() { return std::make_unique<MarkdownParser>(); }

}  // namespace mmkg
