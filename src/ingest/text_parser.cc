// Plain-text parser. Paragraphs are separated by blank lines; hard-wrapped prose is re-joined;
// list lines stay separate; headings are recognised from general typographic cues only
// (section numbering, "Chapter N", underlines, capitals, a short line before longer text).
// Single pass over the lines with one unit of look-ahead: linear time, and memory is the
// decoded text plus the blocks.
#include <unicode/uchar.h>
#include <unicode/utf8.h>

#include <strings.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/encoding.h"
#include "ingest/parser.h"

namespace mmkg {
namespace {

// A heading is short. Titles of papers and chapters routinely run to ~100 characters, so the
// limits are a little above the usual 80 columns.
constexpr size_t kMaxHeadingChars = 100;
constexpr size_t kMaxHeadingWords = 15;
// In one-paragraph-per-line text (exports, copy-paste), the line before a paragraph line that is
// itself short of paragraph length and lacks sentence punctuation is a title even when long.
constexpr size_t kMaxTitleLineWords = 25;
// Hard-wrapped prose never has lines this long; such a line is a paragraph of its own.
constexpr size_t kLongLine = 160;
// Lines shorter than this everywhere in a paragraph are deliberate breaks, not wrapping.
constexpr size_t kMinWrapWidth = 40;
constexpr size_t kMaxTitle = 200;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r'; }

std::string_view trim_blanks(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

/// Appends `s` with whitespace runs collapsed to one space (no leading space after a newline).
void append_collapsed(std::string& out, std::string_view s) {
  size_t i = 0;
  const size_t n = s.size();
  while (i < n) {
    if (is_space(s[i])) {
      while (i < n && is_space(s[i])) ++i;
      if (i < n && !out.empty() && out.back() != ' ' && out.back() != '\n') out.push_back(' ');
      continue;
    }
    size_t j = i;
    while (j < n && !is_space(s[j])) ++j;
    out.append(s.data() + i, j - i);
    i = j;
  }
}

std::string collapse(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  append_collapsed(out, trim_blanks(s));
  return out;
}

/// Counts words, stopping once `limit` is exceeded (so it is O(1)-ish on huge lines).
size_t count_words(std::string_view s, size_t limit) {
  size_t words = 0;
  bool in_word = false;
  for (char c : s) {
    if (is_space(c)) {
      in_word = false;
    } else if (!in_word) {
      in_word = true;
      if (++words > limit) break;
    }
  }
  return words;
}

bool ends_with_sentence_punct(std::string_view s) {
  s = trim_blanks(s);
  while (!s.empty() && std::strchr("\"')]", s.back()) != nullptr) s.remove_suffix(1);
  return !s.empty() && std::strchr(".,;:?!", s.back()) != nullptr;
}

/// First code point of `s` (U_SENTINEL if none / ill-formed).
UChar32 first_cp(std::string_view s) {
  if (s.empty()) return U_SENTINEL;
  size_t i = 0;
  UChar32 c;
  U8_NEXT(reinterpret_cast<const uint8_t*>(s.data()), i, s.size(), c);
  return c;
}

/// Letter that is not lower-case: "Attention", "Éclair", "注意" all qualify; "the" does not.
bool starts_like_title(std::string_view s) {
  const UChar32 c = first_cp(s);
  return c >= 0 && (u_isalpha(c) || u_isdigit(c)) && !u_islower(c);
}

struct LetterStats {
  size_t letters = 0, lower = 0;
};

LetterStats letter_stats(std::string_view s) {
  LetterStats st;
  auto p = reinterpret_cast<const uint8_t*>(s.data());
  size_t i = 0;
  while (i < s.size()) {
    UChar32 c;
    U8_NEXT(p, i, s.size(), c);
    if (c >= 0 && u_isalpha(c)) {
      ++st.letters;
      st.lower += u_islower(c) ? 1 : 0;
    }
  }
  return st;
}

bool is_short_line(std::string_view s) {
  return s.size() <= kMaxHeadingChars && count_words(s, kMaxHeadingWords) <= kMaxHeadingWords;
}

/// Length of a list marker plus following blank ("- ", "• ", "12. ", "3) "), or 0.
size_t list_marker_len(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && is_space(s[i])) ++i;
  size_t m = 0;
  static const char* const kBullets[] = {"-", "*", "+", "\xE2\x80\xA2" /* • */,
                                         "\xE2\x97\xA6" /* ◦ */, "\xE2\x96\xAA" /* ▪ */,
                                         "\xE2\x80\xA3" /* ‣ */};
  for (const char* b : kBullets) {
    const size_t len = std::strlen(b);
    if (s.compare(i, len, b) == 0) { m = len; break; }
  }
  if (m == 0) {
    size_t d = 0;
    while (i + d < s.size() && d < 4 && s[i + d] >= '0' && s[i + d] <= '9') ++d;
    if (d == 0 || d > 3 || i + d >= s.size() || (s[i + d] != '.' && s[i + d] != ')')) return 0;
    m = d + 1;
  }
  size_t j = i + m;
  if (j >= s.size() || !is_space(s[j])) return 0;
  while (j < s.size() && is_space(s[j])) ++j;
  return j < s.size() ? j : 0;
}

bool is_rule_line(std::string_view s) {
  s = trim_blanks(s);
  if (s.size() < 3) return false;
  const char c = s[0];
  if (c != '=' && c != '-' && c != '*' && c != '_') return false;
  for (char x : s)
    if (x != c && x != ' ') return false;
  return true;
}

struct Numbered {
  int level = 1;
  bool keyword_only = false;   ///< "Chapter 2" with no title after it
  bool ambiguous_list = false; ///< "1. Introduction": could equally be a list item
};

/// Parses "1 Intro", "3.1 Scaled Dot-Product Attention", "A.2 Notation", "Chapter 2: Foundations",
/// "PART IV". Returns nothing for anything else, including table-of-contents lines.
std::optional<Numbered> parse_numbered(std::string_view line) {
  line = trim_blanks(line);
  if (!is_short_line(line) || line.find("...") != std::string_view::npos) return std::nullopt;
  Numbered r;
  size_t i = 0;
  auto digits = [&]() {
    size_t d = 0;
    while (i < line.size() && line[i] >= '0' && line[i] <= '9') ++i, ++d;
    return d;
  };
  static const char* const kWords[] = {"chapter", "part",   "section", "appendix",
                                       "book",    "lecture", "unit",   "lesson"};
  bool keyword = false;
  for (const char* w : kWords) {
    const size_t len = std::strlen(w);
    if (line.size() > len && is_space(line[len]) && strncasecmp(line.data(), w, len) == 0) {
      keyword = true;
      i = len;
      while (i < line.size() && is_space(line[i])) ++i;
      break;
    }
  }
  const size_t num_start = i;
  int components = 0;
  if (keyword && i < line.size() && !(line[i] >= '0' && line[i] <= '9')) {
    // Roman numeral or a single letter: "Part IV", "Appendix B".
    while (i < line.size() && std::strchr("IVXLCDM", line[i]) != nullptr) ++i;
    if (i == num_start && i < line.size() && std::isalpha(static_cast<unsigned char>(line[i]))) ++i;
    if (i == num_start || (i < line.size() && std::isalnum(static_cast<unsigned char>(line[i]))))
      return std::nullopt;
    components = 1;
  } else {
    if (!keyword && i < line.size() && line[i] >= 'A' && line[i] <= 'Z' && i + 1 < line.size() &&
        line[i + 1] == '.') {
      i += 1;  // "A.1 Notation": lettered appendix section, needs at least one number after
      components = 1;
      if (i + 1 >= line.size() || !(line[i + 1] >= '0' && line[i + 1] <= '9')) return std::nullopt;
    } else {
      const size_t d = digits();
      if (d == 0 || d > 3) return std::nullopt;
      components = 1;
    }
    while (i + 1 < line.size() && line[i] == '.' && line[i + 1] >= '0' && line[i + 1] <= '9') {
      ++i;
      const size_t d = digits();
      if (d > 3) return std::nullopt;
      ++components;
    }
  }
  bool delimiter = false;
  if (i < line.size() && (line[i] == '.' || line[i] == ')' || line[i] == ':')) {
    delimiter = true;
    ++i;
  }
  std::string_view rest = line.substr(i);
  if (keyword) {
    // "Chapter 2: Foundations", "Chapter 2 - Foundations", "Chapter 2".
    while (!rest.empty() && (is_space(rest[0]) || std::strchr(":.-", rest[0]) != nullptr))
      rest.remove_prefix(1);
    if (rest.rfind("\xE2\x80\x94", 0) == 0 || rest.rfind("\xE2\x80\x93", 0) == 0)
      rest = trim_blanks(rest.substr(3));  // em/en dash
    if (rest.empty()) {
      r.keyword_only = true;
      r.level = std::min(components, 6);
      return r;
    }
  } else {
    if (rest.empty() || !is_space(rest[0])) return std::nullopt;
    rest = trim_blanks(rest);
    r.ambiguous_list = components == 1 && delimiter;
  }
  // The title: starts like a title, no tab (table-of-contents columns), no sentence end.
  if (!starts_like_title(rest) || rest.find('\t') != std::string_view::npos) return std::nullopt;
  if (ends_with_sentence_punct(rest) && rest.back() != '?') return std::nullopt;
  if (letter_stats(rest).letters == 0) return std::nullopt;
  r.level = std::min(components, 6);
  return r;
}

/// Formula or code characters: such a line is not a title ("Total cost: $O(n^2)$").
bool has_formula_chars(std::string_view s) {
  return s.find_first_of("$={}\\<>") != std::string_view::npos;
}

/// A single line that could be a heading (the context decides). `before_paragraph_line`: the
/// next line is an unwrapped paragraph, which allows longer titles (see kMaxTitleLineWords).
bool heading_like(std::string_view line, bool before_paragraph_line = false) {
  line = trim_blanks(line);
  const bool fits = before_paragraph_line
                        ? line.size() <= kLongLine &&
                              count_words(line, kMaxTitleLineWords) <= kMaxTitleLineWords
                        : is_short_line(line);
  if (!fits || ends_with_sentence_punct(line) || has_formula_chars(line)) return false;
  if (line.find('\t') != std::string_view::npos || list_marker_len(line) != 0) return false;
  if (!starts_like_title(line)) return false;
  return letter_stats(line).letters > 0;  // "2023", "- 12 -" are not headings
}

bool all_caps_heading(std::string_view line) {
  line = trim_blanks(line);
  if (!is_short_line(line) || ends_with_sentence_punct(line) || list_marker_len(line) != 0 ||
      has_formula_chars(line))
    return false;
  const LetterStats st = letter_stats(line);
  return st.letters >= 3 && st.lower == 0 && u_isupper(first_cp(line));
}

/// "Table 3.1: Comparison ...", "Figure 2. A plot", "Fig. 4 Attention maps", "Algorithm 1 ...".
bool is_caption(std::string_view line) {
  line = trim_blanks(line);
  static const char* const kWords[] = {"Table ", "Figure ", "Fig. ", "Algorithm ", "Listing ",
                                       "Exhibit ", "TABLE ", "FIGURE "};
  for (const char* w : kWords) {
    const size_t len = std::strlen(w);
    if (line.compare(0, len, w) != 0) continue;
    size_t i = len;
    if (i < line.size() && line[i] >= 'A' && line[i] <= 'Z') ++i;  // "Table A.3"
    while (i < line.size() && line[i] == '.') ++i;
    const size_t digits_start = i;
    while (i < line.size() && ((line[i] >= '0' && line[i] <= '9') || line[i] == '.')) ++i;
    if (i == digits_start && !(line[len] >= 'A' && line[len] <= 'Z')) return false;
    if (i >= line.size()) return false;
    if (line[i - 1] == '.' || line[i] == ':' || line[i] == '|') return true;  // "Figure 2." / ":"
    // No delimiter: a caption only if what follows reads like a title, not a sentence
    // ("Algorithm 1 Efficient Multi-Head Attention" vs "Table 1 shows that ...").
    return is_space(line[i]) && starts_like_title(trim_blanks(line.substr(i))) && line.size() <= kLongLine;
  }
  return false;
}

struct TextUnit {
  std::vector<std::string_view> lines;  ///< non-blank lines
  int forced_level = 0;                 ///< from an ==== / ---- underline
  bool first_in_file = false;
  size_t chars() const {
    size_t n = 0;
    for (auto l : lines) n += l.size();
    return n;
  }
};

/// Body text that a preceding short line can be the heading of.
bool body_like(const TextUnit& u) {
  if (u.lines.size() > 1 || list_marker_len(u.lines[0]) != 0) return true;
  const std::string_view l = trim_blanks(u.lines[0]);
  return l.size() > kMaxHeadingChars || ends_with_sentence_punct(l);
}

class Builder {
 public:
  explicit Builder(ParsedDocument& doc) : doc_(doc) {}

  void add_line(std::string_view raw) {
    const std::string_view line = trim_blanks(raw);
    if (line.empty()) return flush_group();
    if (is_rule_line(line)) {
      // An underline makes the line above a heading; otherwise the rule just separates.
      const char c = line[0];
      if ((c == '=' || c == '-') && !group_.empty() && heading_like(group_.back())) {
        TextUnit h;
        h.lines.push_back(group_.back());
        h.forced_level = c == '=' ? 1 : 2;
        group_.pop_back();
        flush_group();
        push_unit(std::move(h));
        return;
      }
      return flush_group();
    }
    if (line.size() > kLongLine) {
      // A short line right above a paragraph-length line is that paragraph's heading candidate.
      if (group_.size() > 1 && heading_like(group_.back(), /*before_paragraph_line=*/true)) {
        TextUnit h;
        h.lines.push_back(group_.back());
        group_.pop_back();
        flush_group();
        push_unit(std::move(h));
      }
      flush_group();
      group_.push_back(line);
      return flush_group();
    }
    group_.push_back(line);
  }

  void finish() {
    flush_group();
    if (pending_) classify(*pending_, nullptr);
    pending_.reset();
  }

 private:
  void flush_group() {
    if (group_.empty()) return;
    // A numbered or capitalised heading directly on top of its text (no blank line between).
    if (group_.size() > 1) {
      const auto num = parse_numbered(group_[0]);
      const bool strong = num && !num->ambiguous_list && !num->keyword_only;
      if (strong || (all_caps_heading(group_[0]) && letter_stats(group_[1]).lower > 0)) {
        TextUnit h;
        h.lines.push_back(group_[0]);
        push_unit(std::move(h));
        group_.erase(group_.begin());
      }
    }
    TextUnit u;
    u.lines.swap(group_);
    push_unit(std::move(u));
  }

  void push_unit(TextUnit&& u) {
    u.first_in_file = !seen_unit_;
    seen_unit_ = true;
    if (pending_) {
      if (classify(*pending_, &u)) {  // the pending unit absorbed this one
        pending_.reset();
        return;
      }
    }
    pending_ = std::move(u);
  }

  void add(BlockKind kind, int level, std::string text) {
    if (text.empty()) return;
    Block b;
    b.kind = kind;
    b.level = kind == BlockKind::Heading ? level : 0;
    b.text = std::move(text);
    doc_.blocks.push_back(std::move(b));
  }

  /// Emits the blocks of `u`. Returns true if it also consumed `next`.
  bool classify(const TextUnit& u, const TextUnit* next) {
    const std::string_view line = u.lines[0];
    if (u.forced_level) {
      add(BlockKind::Heading, u.forced_level, collapse(line));
      return false;
    }
    if (u.lines.size() > 1) {
      emit_lines(u.lines);
      return false;
    }
    const bool next_is_body = next && body_like(*next) && next->chars() > line.size();
    if (const auto num = parse_numbered(line)) {
      if (num->keyword_only) {
        // "Chapter 1" on its own line, the chapter's name on the next: one heading.
        if (next && next->lines.size() == 1 && !next->forced_level && heading_like(next->lines[0]) &&
            !parse_numbered(next->lines[0])) {
          add(BlockKind::Heading, num->level, collapse(line) + ": " + collapse(next->lines[0]));
          return true;
        }
        add(BlockKind::Heading, num->level, collapse(line));
        return false;
      }
      if (!num->ambiguous_list || (next_is_body && list_marker_len(next->lines[0]) == 0)) {
        add(BlockKind::Heading, num->level, collapse(line));
        return false;
      }
    }
    if (is_caption(line)) {
      add(BlockKind::Caption, 0, collapse(line));
      return false;
    }
    if (const size_t m = list_marker_len(line)) {
      add(BlockKind::ListItem, 0, collapse(line.substr(m)));
      return false;
    }
    const int level = u.first_in_file ? 1 : 2;
    if (all_caps_heading(line) && (next || !u.first_in_file)) {
      add(BlockKind::Heading, level, collapse(line));
      return false;
    }
    const bool before_paragraph_line =
        next && next->lines.size() == 1 && next->lines[0].size() > kLongLine;
    if (heading_like(line, before_paragraph_line) &&
        (u.first_in_file ? next != nullptr : next_is_body)) {
      add(BlockKind::Heading, level, collapse(line));
      return false;
    }
    add(BlockKind::Paragraph, 0, collapse(line));
    return false;
  }

  /// A multi-line unit: list items one per marker (continuations joined), prose joined with a
  /// space where it looks hard-wrapped, with a newline where lines are deliberately short.
  void emit_lines(const std::vector<std::string_view>& lines) {
    size_t max_len = 0;
    for (auto l : lines) max_len = std::max(max_len, l.size());
    std::string cur;
    BlockKind kind = BlockKind::Paragraph;
    std::string_view prev;
    for (auto l : lines) {
      if (const size_t m = list_marker_len(l)) {
        add(kind, 0, std::move(cur));
        cur.clear();
        kind = BlockKind::ListItem;
        append_collapsed(cur, l.substr(m));
      } else if (cur.empty()) {
        append_collapsed(cur, l);
      } else {
        const bool wrapped = kind == BlockKind::ListItem ||
                             (max_len >= kMinWrapWidth && prev.size() * 2 >= max_len &&
                              prev.find('\t') == std::string_view::npos &&
                              l.find('\t') == std::string_view::npos);
        cur.push_back(wrapped ? ' ' : '\n');
        append_collapsed(cur, l);
      }
      prev = l;
    }
    add(kind, 0, std::move(cur));
  }

  ParsedDocument& doc_;
  std::vector<std::string_view> group_;
  std::optional<TextUnit> pending_;
  bool seen_unit_ = false;
};

/// Cuts at a UTF-8 boundary, preferably a word boundary, to at most `max` bytes.
std::string cut_title(std::string s, size_t max) {
  if (s.size() <= max) return s;
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  const size_t space = s.rfind(' ', cut);
  if (space != std::string::npos && space > max / 2) cut = space;
  s.resize(cut);
  return s;
}

/// Title from a raw first line: without decoration such as "====== Name ======" (wiki markup
/// flattened into the text), cut where such a run starts.
std::string title_from_line(std::string_view line) {
  const char* kDeco = "=#*_~-+ \t";
  const size_t b = line.find_first_not_of(kDeco);
  if (b == std::string_view::npos) return {};
  line = line.substr(b, 4 * kMaxTitle);
  for (size_t i = 0; i + 2 < line.size(); ++i) {
    const char c = line[i];
    if (std::strchr("=#*_~", c) != nullptr && line[i + 1] == c && line[i + 2] == c) {
      line = line.substr(0, i);
      break;
    }
  }
  return cut_title(collapse(line), kMaxTitle);
}

class TextParser final : public Parser {
 public:
  const char* name() const override { return "text"; }

  using Parser::parse;
  ParsedDocument parse(const std::string& path, std::string_view bytes, const ParseContext& ctx) const override {
    ParsedDocument doc;
    doc.format = "text";
    const std::string text = decode_text_file(bytes, doc.warnings);

    Builder builder(doc);
    std::string_view first_line;
    size_t pos = 0;
    while (pos < text.size()) {
      const void* nl = std::memchr(text.data() + pos, '\n', text.size() - pos);
      const size_t end = nl ? static_cast<const char*>(nl) - text.data() : text.size();
      const std::string_view line(text.data() + pos, end - pos);
      if (first_line.empty()) first_line = trim_blanks(line);
      builder.add_line(line);
      pos = end + 1;
    }
    builder.finish();
    if (doc.blocks.empty()) throw InputError("empty file (no text)");

    for (const Block& b : doc.blocks) {
      if (b.kind == BlockKind::Heading) {
        doc.title = cut_title(b.text, kMaxTitle);
        break;
      }
    }
    if (doc.title.empty()) doc.title = title_from_line(first_line);
    return doc;
  }
};

}  // namespace

std::unique_ptr<Parser> make_text_parser() { return std::make_unique<TextParser>(); }

}  // namespace mmkg
