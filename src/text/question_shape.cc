#include "text/question_shape.h"

#include <cctype>

#include "text/lexicon.h"
#include "text/question_words.h"
#include "text/sentences.h"
#include "text/words.h"

namespace mmkg {

namespace {

bool is_wh(const std::string& w) { return one_of(w, {"what", "which", "who", "whom", "whose", "how", "why", "when", "where"}); }

// Verbs of a request that is a question without a question mark: "Define X", "List the ...".
bool is_request(const std::string& w) { return one_of(w, {"define", "describe", "explain", "list", "name", "give", "tell"}); }

// A word with its byte range in the text it came from.
struct Tok {
  std::string word;  // lower-cased, as words() makes it
  size_t begin, end;
};

// words() with byte offsets (same rule: ASCII letters/digits and non-ASCII bytes form words).
std::vector<Tok> tokens(std::string_view s) {
  std::vector<Tok> out;
  size_t i = 0;
  auto word_byte = [](unsigned char c) { return std::isalnum(c) || c >= 0x80; };
  while (i < s.size()) {
    if (!word_byte(static_cast<unsigned char>(s[i]))) {
      ++i;
      continue;
    }
    size_t b = i;
    while (i < s.size() && word_byte(static_cast<unsigned char>(s[i]))) ++i;
    out.push_back({lower_ascii(s.substr(b, i - b)), b, i});
  }
  return out;
}

// Whitespace-separated pieces with surrounding punctuation stripped, case kept.
std::vector<std::string> raw_pieces(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    size_t b = i;
    while (i < s.size() && !std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    std::string p(s.substr(b, i - b));
    while (!p.empty() && std::string_view("\"'`([{<“‘").find(p.front()) != std::string_view::npos) p.erase(0, 1);
    bool call = p.size() > 2 && p.find("()") != std::string::npos;
    while (!p.empty() && std::string_view("\"'`)]}>.,;:!?”’").find(p.back()) != std::string_view::npos) p.pop_back();
    if (call) p += "()";
    if (!p.empty()) out.push_back(std::move(p));
  }
  return out;
}

std::set<std::string> word_set(std::string_view s) {
  std::set<std::string> out;
  for (auto& w : words(s)) out.insert(w);
  return out;
}

bool interrogative(std::string_view sentence) {
  std::string t = collapse_ws(sentence);
  if (!t.empty() && t.back() == '?') return true;
  auto ws = words(t);
  return !ws.empty() && (is_wh(ws[0]) || is_request(ws[0]));
}

// Splits one interrogative sentence where "and"/"or" (or a comma) opens a new interrogative
// clause: a wh-word, a preposition + wh-word ("and by what factor", "and at which levels"), or
// an auxiliary after "or"/", and" ("..., or is another tool needed?").
// A part that asks which figure or table shows something: "which figure compares ...", "what
// table lists ...".
bool asks_for_figure(std::string_view part) {
  const auto ws = words(part);
  for (size_t i = 0; i + 1 < ws.size(); ++i)
    if ((ws[i] == "which" || ws[i] == "what") &&
        (ws[i + 1] == "figure" || ws[i + 1] == "table" || ws[i + 1] == "plot" || ws[i + 1] == "graph" ||
         ws[i + 1] == "chart" || ws[i + 1] == "diagram"))
      return true;
  return false;
}

QuestionPart make_part(std::string text) {
  QuestionPart p{.text = std::move(text)};
  p.kind = answer_kind(p.text);
  p.figure = asks_for_figure(p.text);
  p.quantity = asked_quantity(p.text);
  if (p.quantity.type != QuantityType::None && p.kind != AnswerKind::Reason) p.kind = AnswerKind::Number;
  return p;
}

void split_clauses(std::string_view s, std::vector<QuestionPart>& out) {
  auto ts = tokens(s);
  std::vector<size_t> cuts;  // byte offsets where a new clause starts
  for (size_t i = 1; i + 1 < ts.size(); ++i) {
    const std::string& w = ts[i].word;
    bool conj = w == "and" || w == "or";
    if (!conj) continue;
    const std::string& n = ts[i + 1].word;
    const bool comma = s.substr(ts[i - 1].end, ts[i].begin - ts[i - 1].end).find(',') != std::string_view::npos;
    bool opens = is_wh(n) || (i + 2 < ts.size() && one_of(n, {"by", "at", "in", "to", "for", "from", "on", "of", "with"}) &&
                              is_wh(ts[i + 2].word));
    if (!opens && (comma || w == "or") && is_auxiliary(n)) opens = true;
    if (opens) cuts.push_back(ts[i].begin);
  }
  size_t b = 0;
  cuts.push_back(s.size());
  for (size_t c : cuts) {
    std::string part = collapse_ws(s.substr(b, c - b));
    while (!part.empty() && (part.back() == ',' || part.back() == ';')) part.pop_back();
    auto ws = words(part);
    if (!ws.empty() && (ws[0] == "and" || ws[0] == "or")) part = collapse_ws(std::string_view(part).substr(ws[0].size()));
    if (!words(part).empty()) out.push_back(make_part(part));
    b = c;
  }
}

// Spelled-out numbers, as answers quote them ("twelve patients", "a third of the heads").
bool number_word(const std::string& w) {
  return one_of(w, {"two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "twenty",
                "thirty", "forty", "fifty", "hundred", "thousand", "million", "billion", "half", "twice", "thrice",
                "dozen"});
}

}  // namespace

const char* answer_kind_name(AnswerKind k) {
  switch (k) {
    case AnswerKind::Number: return "number";
    case AnswerKind::Name: return "name";
    case AnswerKind::Reason: return "reason";
    default: return "any";
  }
}

AnswerKind answer_kind(std::string_view clause) {
  auto ws = words(clause);
  // Nouns that make "what/which N" ask for a quantity: measures, counts, dates and versions.
  auto quantity = [](const std::string& w) {
    return one_of(w, {"fraction", "percentage", "percent", "proportion", "share", "number", "size", "value", "values",
                  "factor", "month", "year", "day", "date", "version", "amount", "ratio", "level", "levels",
                  "score", "accuracy", "error", "count", "constant", "probability", "threshold", "thresholds",
                  "map", "auc", "f1", "bleu", "speedup", "throughput", "median", "average"});
  };
  for (size_t i = 0; i < ws.size(); ++i) {
    const std::string& w = ws[i];
    const std::string n = i + 1 < ws.size() ? ws[i + 1] : "";
    if (w == "why" || (w == "how" && n == "come")) return AnswerKind::Reason;
    if (w == "how" && one_of(n, {"many", "much", "large", "long", "old", "strongly", "big", "small", "fast",
                             "far", "high", "low"}))
      return AnswerKind::Number;
    if (w == "what" || w == "which") {
      // "what R version", "which confidence levels": a quantity noun within the next three words.
      for (size_t k = i + 1; k < ws.size() && k <= i + 3; ++k)
        if (quantity(ws[k])) return AnswerKind::Number;
      for (size_t k = i + 1; k < ws.size() && k <= i + 3; ++k)
        if (one_of(ws[k], {"reason", "reasoning", "point", "purpose", "rationale", "motivation"})) return AnswerKind::Reason;
    }
  }
  for (size_t i = 0; i < ws.size(); ++i) {
    const std::string& w = ws[i];
    if (one_of(w, {"who", "whom", "whose"})) return AnswerKind::Name;
    if (one_of(w, {"called", "call", "named", "name"}) && i > 0) return AnswerKind::Name;
    if (w == "which" && i + 1 < ws.size() && !is_auxiliary(ws[i + 1])) return AnswerKind::Name;
  }
  return AnswerKind::Any;
}

std::vector<QuestionPart> question_parts(std::string_view question) {
  std::vector<QuestionPart> out;
  std::vector<std::string_view> asks;
  bool scene = false;
  for (auto [b, e] : split_sentences(question)) {
    std::string_view s = question.substr(b, e - b);
    if (interrogative(s)) asks.push_back(s);
    else if (asks.empty() && !words(s).empty()) scene = true;
  }
  if (asks.empty()) {  // no clause reads as a question: the whole text is one part
    std::string t = collapse_ws(question);
    if (!words(t).empty()) out.push_back(make_part(t));
    return out;
  }
  for (auto s : asks) split_clauses(s, out);
  for (auto& p : out) p.after_scene = scene;
  return out;
}

bool refers_to_antecedent(std::string_view part) {
  const std::vector<std::string> ws = words(part);
  for (size_t i = 0; i < ws.size(); ++i) {
    const std::string& w = ws[i];
    if (one_of(w, {"it", "its", "they", "them", "their", "this", "these", "those"})) return true;
    if (w != "that") continue;
    // "that" as a demonstrative: at the end ("is that"), or where a determiner stands, after an
    // auxiliary or a preposition ("does that package's", "of that"); after a verb or "so" it
    // opens a clause.
    if (i + 1 == ws.size()) return true;
    if (i > 0 && (is_auxiliary(ws[i - 1]) || one_of(ws[i - 1], {"of", "in", "on", "for", "from", "with", "by", "about", "to", "at"})))
      return true;
  }
  return false;
}

namespace {

bool time_unit(const std::string& w) {
  return one_of(w, {"second", "seconds", "minute", "minutes", "hour", "hours", "day", "days", "week", "weeks", "month",
                "months", "year", "years", "decade", "decades", "time", "times"});
}

// True when the question asks "how many" of things that are not spans of time ("how many
// people", "how many iterations"), and of nothing that is ("how many days").
bool counts_no_time(std::string_view question) {
  const std::vector<std::string> ws = words(question);
  bool counts = false;
  for (size_t i = 0; i + 2 < ws.size(); ++i)
    if (ws[i] == "how" && ws[i + 1] == "many") {
      if (time_unit(ws[i + 2])) return false;
      counts = true;
    }
  return counts;
}

// True when the number at ts[i] counts things: a plural noun follows it, next or after one word
// ("228 patients", "14 subjects", "three new cases"), not a span of time ("6 months"); or it is
// a sample size ("n = 214"); or it fills a table cell ("| Rottnest Island | 12000 |": what it
// counts is the column's header).
bool counts_things(std::string_view sentence, const std::vector<Tok>& ts, size_t i) {
  const graph::Lexicon& lex = graph::Lexicon::get();
  if (i > 0 && ts[i - 1].word == "n") return true;
  size_t after = ts[i].end, before = ts[i].begin;
  while (after < sentence.size() && sentence[after] == ' ') ++after;
  while (before > 0 && sentence[before - 1] == ' ') --before;
  if ((after < sentence.size() && sentence[after] == '|') || (before > 0 && sentence[before - 1] == '|')) return true;
  for (size_t j = i + 1; j < ts.size() && j <= i + 2; ++j) {
    const std::string& w = ts[j].word;
    if (time_unit(w)) return false;
    if (w.size() < 3 || w.back() != 's') continue;
    // A plural noun: WordNet's singular, or the word less -s or -es ("fetuses", which the
    // regular rules make "fetuse").
    const std::string sing = lex.singular(w);
    if ((sing != w && lex.is_noun(sing)) || lex.is_noun(w.substr(0, w.size() - 1)) ||
        lex.is_noun(w.substr(0, w.size() - 2)))
      return true;
  }
  return false;
}

}  // namespace

bool holds_new_number(std::string_view sentence, std::string_view question) {
  const std::set<std::string> qw = word_set(question);
  // "How many people ...": "after 6 months" or "999 days" is a span of time, not the count.
  const bool no_spans = counts_no_time(question);
  auto ts = tokens(sentence);
  for (size_t i = 0; i < ts.size(); ++i) {
    const std::string& w = ts[i].word;
    bool digit = false;
    for (char c : w) digit = digit || std::isdigit(static_cast<unsigned char>(c));
    // Spelled-out numbers mostly describe ("three woodlands", "the two forms"); the figure a
    // question asks for is written in digits, except for halves and doublings.
    if (!digit && !(number_word(w) && (w == "half" || w == "twice"))) continue;
    if (qw.count(w)) continue;
    // "Figure 3", "Table 2", "Section 4", "(5)": labels and references, not quantities.
    if (i > 0 && one_of(ts[i - 1].word, {"figure", "fig", "table", "section", "equation", "eq", "chapter", "page", "appendix",
                                     "panel", "step", "line"}))
      continue;
    if (no_spans && !counts_things(sentence, ts, i)) continue;
    return true;
  }
  return false;
}

bool gives_reason(std::string_view sentence) {
  static const std::set<std::string> kCue = {"because", "since",     "hence",   "therefore", "thus",
                                             "reason",  "reasons",   "rationale", "motivation", "motivated",
                                             "implies", "imply",     "explains", "explanation", "heuristic"};
  const std::vector<std::string> ws = words(sentence);
  for (size_t i = 0; i < ws.size(); ++i) {
    if (kCue.count(ws[i])) return true;
    const std::string& next = i + 1 < ws.size() ? ws[i + 1] : "";
    // "due to", "owing to", "so that", "in order to", "... is that" (what a reason is, stated)
    if ((ws[i] == "due" || ws[i] == "owing") && next == "to") return true;
    if (ws[i] == "so" && next == "that") return true;
    if (ws[i] == "order" && next == "to" && i > 0 && ws[i - 1] == "in") return true;
    if (ws[i] == "is" && next == "that") return true;
  }
  return false;
}

bool holds_new_name(std::string_view sentence, std::string_view question) {
  const std::set<std::string> qw = word_set(question);
  auto pieces = raw_pieces(sentence);
  for (size_t i = 0; i < pieces.size(); ++i) {
    const std::string& p = pieces[i];
    bool upper_first = std::isupper(static_cast<unsigned char>(p[0]));
    bool inner_upper = false, digit = false, alpha = false;
    for (size_t k = 0; k < p.size(); ++k) {
      unsigned char c = static_cast<unsigned char>(p[k]);
      inner_upper = inner_upper || (k > 0 && std::isupper(c));
      digit = digit || std::isdigit(c);
      alpha = alpha || std::isalpha(c);
    }
    const bool call = p.size() > 2 && p.ends_with("()");
    const bool name = alpha && ((upper_first && i > 0) || inner_upper || (digit && alpha) || call);
    if (!name || p == "I") continue;
    bool fresh = false;
    for (auto& w : words(p)) fresh = fresh || !qw.count(w);
    if (fresh) return true;
  }
  // A quoted phrase: "the \"software lottery\"", “like this”.
  for (auto [open, close] : {std::pair<std::string_view, std::string_view>{"\"", "\""}, {"\xE2\x80\x9C", "\xE2\x80\x9D"}}) {
    size_t a = sentence.find(open);
    if (a != std::string_view::npos && sentence.find(close, a + open.size()) != std::string_view::npos) return true;
  }
  return names_in_words(sentence, question);
}

bool names_in_words(std::string_view sentence, std::string_view question) {
  const std::set<std::string> qw = word_set(question);
  const std::vector<std::string> ws = words(sentence);
  for (size_t i = 0; i + 1 < ws.size(); ++i) {
    size_t next = 0;
    if ((ws[i] == "known" || ws[i] == "denoted") && i + 2 < ws.size() && ws[i + 1] == "as")
      next = i + 2;
    else if (ws[i] == "referred" && i + 3 < ws.size() && ws[i + 1] == "to" && ws[i + 2] == "as")
      next = i + 3;
    else if (ws[i] == "called" || ws[i] == "termed" || ws[i] == "dubbed" || ws[i] == "named")
      next = i + 1;
    if (next == 0) continue;
    while (next < ws.size() && (ws[next] == "the" || ws[next] == "a" || ws[next] == "an")) ++next;
    if (next < ws.size() && !qw.count(ws[next]) && !is_stopword(ws[next])) return true;
  }
  return false;
}

std::vector<std::vector<std::string>> question_names(std::string_view question) {
  std::vector<std::vector<std::string>> out;
  for (auto [b, e] : split_sentences(question)) {
    auto pieces = raw_pieces(question.substr(b, e - b));
    std::vector<std::string> cur;
    auto flush = [&] {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    };
    for (size_t i = 0; i < pieces.size(); ++i) {
      const std::string& p = pieces[i];
      bool cap = std::isupper(static_cast<unsigned char>(p[0])) != 0;
      bool inner = false;
      for (size_t k = 1; k < p.size(); ++k) inner = inner || std::isupper(static_cast<unsigned char>(p[k]));
      // The sentence's first word is capitalised by grammar, not because it is a name.
      if (i == 0 && !inner) cap = false;
      if ((cap || inner) && p != "I") {
        for (auto& w : words(p)) cur.push_back(w);
      } else {
        flush();
      }
    }
    flush();
  }
  return out;
}

}  // namespace mmkg
