// BERT WordPiece tokenizer (see wordpiece.h). Mirrors the Hugging Face `tokenizers` pipeline that
// sentence-transformers runs for all-MiniLM-L6-v2:
//   1. special tokens written literally in the text ("[CLS]", "[MASK]", ...) are kept whole,
//   2. BertNormalizer: drop NUL, U+FFFD and control/format characters; whitespace -> ' ';
//      spaces around CJK ideographs; NFD and drop non-spacing marks (Mn); lower-case,
//   3. BertPreTokenizer: split on whitespace, isolate each punctuation character,
//   4. WordPiece: greedy longest-match-first, "##" continuations, [UNK] for words > 100 chars or
//      words the vocabulary cannot cover,
//   5. [CLS] pieces [SEP], truncated to max_tokens (first max_tokens - 2 pieces kept).
#include "embed/wordpiece.h"

#include <unicode/uchar.h>
#include <unicode/unistr.h>

#include <algorithm>
#include <fstream>

#include "core/error.h"
#include "text/unicode.h"

namespace mmkg {
namespace {

constexpr const char* kSpecialTokens[] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};

// The `tokenizers` crate takes its Unicode categories from the `unicode_categories` crate, whose
// tables are Unicode 8.0: a character assigned later has category Cn there (so it is neither
// dropped as a format character, stripped as a mark, nor split as punctuation). Six characters
// changed category since 8.0; they are listed below. Checked by tokenising every code point
// ("a<c>b <c>") with both tokenizers: all 1,111,936 agree.
constexpr uint8_t kTablesMajor = 8;

bool assigned_in_tables(UChar32 c) {
  UVersionInfo age;
  u_charAge(c, age);
  return age[0] != 0 && age[0] <= kTablesMajor;
}

// Unicode 8.0 categories that differ from today's.
bool was_punctuation(UChar32 c) { return c == 0x166D || c == 0x111C9; }  // now So, Mn
bool was_nonspacing_mark(UChar32 c) { return c == 0x1734; }               // now Mc
bool was_not_nonspacing_mark(UChar32 c) {                                  // Lo, Lo, Mc, Po then
  return c == 0x1885 || c == 0x1886 || c == 0xA9BD || c == 0x111C9;
}

// Rust's char::is_whitespace (White_Space property), which BertNormalizer and BertPreTokenizer use.
bool is_whitespace(UChar32 c) {
  if (c == ' ' || (c >= 0x09 && c <= 0x0D)) return true;
  if (c < 0x80) return false;
  return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
         c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

// BERT's "control": categories Cc, Cf, Co, Cs, except \t \n \r (which count as whitespace).
bool is_control(UChar32 c) {
  if (c == '\t' || c == '\n' || c == '\r') return false;
  if (c < 0x20 || c == 0x7F) return true;
  if (c < 0xA0) return c >= 0x80;  // C1 controls
  switch (u_charType(c)) {
    case U_CONTROL_CHAR:
    case U_FORMAT_CHAR:
    case U_PRIVATE_USE_CHAR:
    case U_SURROGATE:
      return assigned_in_tables(c);
    default:
      return false;
  }
}

bool is_punctuation(UChar32 c) {
  if (c < 0x80) {
    return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
           (c >= 123 && c <= 126);
  }
  if (was_punctuation(c)) return true;
  switch (u_charType(c)) {
    case U_CONNECTOR_PUNCTUATION:
    case U_DASH_PUNCTUATION:
    case U_START_PUNCTUATION:
    case U_END_PUNCTUATION:
    case U_INITIAL_PUNCTUATION:
    case U_FINAL_PUNCTUATION:
    case U_OTHER_PUNCTUATION:
      return assigned_in_tables(c);
    default:
      return false;
  }
}

bool is_nonspacing_mark(UChar32 c) {
  if (c < 0x300) return false;
  if (was_nonspacing_mark(c)) return true;
  return u_charType(c) == U_NON_SPACING_MARK && assigned_in_tables(c) &&
         !was_not_nonspacing_mark(c);
}

// The CJK Unified Ideographs blocks BERT isolates (not Hangul, Hiragana or Katakana). The Rust
// `tokenizers` has 0x2B920 where Google's BERT has 0x2B820; we follow Rust (sentence-transformers
// uses it), so U+2B820..U+2B91F stay inside words.
bool is_cjk(UChar32 c) {
  return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
         (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
         (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
         (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

// Decodes one UTF-8 character at s[i]; advances i. Malformed input yields U+FFFD (dropped later).
UChar32 next_cp(std::string_view s, size_t& i) {
  unsigned char c = static_cast<unsigned char>(s[i]);
  if (c < 0x80) {
    ++i;
    return c;
  }
  int len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 0;
  if (len == 0 || c > 0xF4 || i + len > s.size()) {
    ++i;
    return 0xFFFD;
  }
  UChar32 cp = c & (0x3F >> (len - 1));
  for (int k = 1; k < len; ++k) {
    unsigned char d = static_cast<unsigned char>(s[i + k]);
    if ((d & 0xC0) != 0x80) {
      ++i;
      return 0xFFFD;
    }
    cp = (cp << 6) | (d & 0x3F);
  }
  static constexpr UChar32 kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  i += len;
  if (cp < kMin[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0xFFFD;
  return cp;
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

// NFD and drop Mn (strip accents), lower-case, for one whitespace-free segment (in place).
void fold_segment(std::u32string& seg, const WordpieceOptions& opts) {
  bool ascii = std::all_of(seg.begin(), seg.end(), [](char32_t c) { return c < 0x80; });
  if (ascii || !opts.strip_accents) {
    if (!opts.lowercase) return;
    for (auto& c : seg) {
      if (c >= 'A' && c <= 'Z') {
        c += 'a' - 'A';
      } else if (c >= 0x80) {
        c = static_cast<char32_t>(u_tolower(static_cast<UChar32>(c)));
      }
    }
    return;
  }
  const icu::UnicodeString dec = nfd(icu::UnicodeString::fromUTF32(
      reinterpret_cast<const UChar32*>(seg.data()), static_cast<int32_t>(seg.size())));
  seg.clear();
  for (int32_t i = 0; i < dec.length(); i = dec.moveIndex32(i, 1)) {
    UChar32 c = dec.char32At(i);
    if (is_nonspacing_mark(c)) continue;
    seg.push_back(static_cast<char32_t>(opts.lowercase ? u_tolower(c) : c));
  }
}

// Splits a folded segment into words: each punctuation character is a word of its own.
void split_punct(const std::u32string& seg, std::vector<std::u32string>& words) {
  size_t start = 0;
  for (size_t i = 0; i < seg.size(); ++i) {
    if (is_punctuation(static_cast<UChar32>(seg[i]))) {
      if (i > start) words.emplace_back(seg, start, i - start);
      words.emplace_back(1, seg[i]);
      start = i + 1;
    }
  }
  if (seg.size() > start) words.emplace_back(seg, start, seg.size() - start);
}

}  // namespace

WordpieceTokenizer::WordpieceTokenizer(std::vector<std::string> vocab, int max_tokens,
                                       WordpieceOptions opts)
    : vocab_(std::move(vocab)), max_tokens_(max_tokens), opts_(opts) {
  if (max_tokens_ < 2) throw Error("tokenizer: max_tokens must be at least 2 ([CLS] and [SEP])");
  start_.reserve(vocab_.size());
  for (size_t id = 0; id < vocab_.size(); ++id) {
    const std::string& t = vocab_[id];
    std::string_view piece = t;
    bool cont = piece.size() > 2 && piece.substr(0, 2) == "##";
    if (cont) piece.remove_prefix(2);
    size_t chars = 0;
    for (unsigned char c : piece) chars += (c & 0xC0) != 0x80;
    max_piece_chars_ = std::max(max_piece_chars_, chars);
    // A later duplicate wins, as in transformers' load_vocab. A word's first piece is looked up
    // verbatim, a continuation as "##" + piece.
    start_[t] = static_cast<int32_t>(id);
    if (cont) cont_[std::string(piece)] = static_cast<int32_t>(id);
  }
  auto special = [&](const char* name) {
    auto it = start_.find(name);
    if (it == start_.end()) {
      throw Error(std::string("tokenizer: the vocabulary has no ") + name +
                  " token; is this a BERT vocab.txt?");
    }
    return it->second;
  };
  cls_ = special("[CLS]");
  sep_ = special("[SEP]");
  unk_ = special("[UNK]");
  pad_ = special("[PAD]");
}

WordpieceTokenizer WordpieceTokenizer::from_file(const std::string& vocab_path, int max_tokens,
                                                 WordpieceOptions opts) {
  std::ifstream in(vocab_path, std::ios::binary);
  if (!in) throw Error("cannot read tokenizer vocabulary " + vocab_path + "; check the model folder");
  std::vector<std::string> vocab;
  std::string line;
  while (std::getline(in, line)) vocab.push_back(line);  // only '\n' is stripped, as in HF
  if (vocab.empty()) throw Error("tokenizer vocabulary " + vocab_path + " is empty");
  try {
    return WordpieceTokenizer(std::move(vocab), max_tokens, opts);
  } catch (const Error& e) {
    throw Error(vocab_path + ": " + e.what());
  }
}

void WordpieceTokenizer::split_words(std::string_view text, long limit,
                                     std::vector<std::u32string>& words) const {
  std::u32string seg;
  auto flush = [&] {
    if (seg.empty()) return;
    fold_segment(seg, opts_);
    split_punct(seg, words);
    seg.clear();
  };
  size_t i = 0;
  while (i < text.size()) {
    if (limit >= 0 && static_cast<long>(words.size()) >= limit) return;
    UChar32 c = next_cp(text, i);
    if (c == 0 || c == 0xFFFD || is_control(c)) continue;
    if (is_whitespace(c)) {
      flush();
    } else if (opts_.chinese_chars && is_cjk(c)) {
      flush();
      seg.push_back(static_cast<char32_t>(c));
      flush();
    } else {
      seg.push_back(static_cast<char32_t>(c));
    }
  }
  flush();
}

void WordpieceTokenizer::wordpiece(std::string_view word, std::vector<int32_t>& out) const {
  // Byte offset of every character boundary.
  std::vector<size_t> off;
  off.reserve(word.size() + 1);
  for (size_t i = 0; i < word.size(); ++i) {
    if ((static_cast<unsigned char>(word[i]) & 0xC0) != 0x80) off.push_back(i);
  }
  off.push_back(word.size());
  size_t n = off.size() - 1;
  if (n == 0) return;
  if (n > static_cast<size_t>(kMaxWordChars)) {
    out.push_back(unk_);
    return;
  }
  size_t mark = out.size();
  std::string key;
  size_t start = 0;
  while (start < n) {
    const auto& table = start == 0 ? start_ : cont_;
    size_t end = std::min(n, start + max_piece_chars_);
    int32_t found = -1;
    for (; end > start; --end) {
      key.assign(word.data() + off[start], off[end] - off[start]);
      auto it = table.find(key);
      if (it != table.end()) {
        found = it->second;
        break;
      }
    }
    if (found < 0) {
      out.resize(mark);
      out.push_back(unk_);
      return;
    }
    out.push_back(found);
    start = end;
  }
}

std::vector<std::string> WordpieceTokenizer::basic_tokenize(std::string_view text) const {
  std::vector<std::u32string> words;
  split_words(text, -1, words);
  std::vector<std::string> out;
  out.reserve(words.size());
  for (const auto& w : words) {
    std::string s;
    for (char32_t c : w) append_utf8(s, c);
    out.push_back(std::move(s));
  }
  return out;
}

std::vector<int32_t> WordpieceTokenizer::encode(std::string_view text) const {
  const size_t budget = static_cast<size_t>(max_tokens_ - 2);
  std::vector<int32_t> ids;
  ids.push_back(cls_);
  std::vector<std::u32string> words;
  std::string utf8;
  size_t pos = 0;
  while (pos < text.size() && ids.size() - 1 < budget) {
    // The next literal special token, if any, ends this stretch of ordinary text.
    size_t hit = std::string_view::npos, hit_len = 0;
    int32_t hit_id = -1;
    for (size_t b = text.find('[', pos); b != std::string_view::npos; b = text.find('[', b + 1)) {
      for (const char* sp : kSpecialTokens) {
        std::string_view s(sp);
        if (text.substr(b, s.size()) == s) {
          auto it = start_.find(std::string(s));
          if (it == start_.end()) continue;
          hit = b, hit_len = s.size(), hit_id = it->second;
          break;
        }
      }
      if (hit != std::string_view::npos) break;
    }
    std::string_view part = text.substr(pos, hit == std::string_view::npos ? hit : hit - pos);
    words.clear();
    // Every word yields at least one piece, so no more words than the remaining budget matter.
    split_words(part, static_cast<long>(budget - (ids.size() - 1)), words);
    for (const auto& w : words) {
      utf8.clear();
      for (char32_t c : w) append_utf8(utf8, c);
      wordpiece(utf8, ids);
      if (ids.size() - 1 >= budget) break;
    }
    if (hit == std::string_view::npos) break;
    if (ids.size() - 1 < budget) ids.push_back(hit_id);
    pos = hit + hit_len;
  }
  if (ids.size() - 1 > budget) ids.resize(budget + 1);
  ids.push_back(sep_);
  return ids;
}

}  // namespace mmkg
