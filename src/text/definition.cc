#include "text/definition.h"

#include "text/question_words.h"
#include "text/words.h"
#include "text/sentences.h"

#include <algorithm>
#include <cctype>

namespace mmkg {

std::string definition_target(const std::string& question) {
  // The first clause: "what is the Fine-Gray model, in a nutshell?" asks about the model.
  auto ws = words(std::string_view(question).substr(0, question.find_first_of(",;?")));
  // A hedge between the wh-word and the verb does not change the question: "what exactly is X".
  if (ws.size() > 2 && (ws[1] == "exactly" || ws[1] == "actually" || ws[1] == "really")) ws.erase(ws.begin() + 1);
  size_t b = 0, e = ws.size();
  auto at = [&](size_t i, std::initializer_list<const char*> opts) {
    if (i >= ws.size()) return false;
    for (auto o : opts)
      if (ws[i] == o) return true;
    return false;
  };
  if (at(0, {"what", "who"}) && at(1, {"is", "are", "was", "were"})) {
    b = 2;
    if (at(2, {"meant"}) && at(3, {"by"})) b = 4;
  } else if (at(0, {"define", "describe", "explain"})) {
    b = 1;
  } else if (at(0, {"what"}) && at(1, {"does", "do"}) && e >= 4 && at(e - 1, {"mean", "stand"})) {
    b = 2;
    --e;
  } else if (at(0, {"what"}) && at(1, {"does", "do"}) && e >= 5 && at(e - 2, {"stand"}) && at(e - 1, {"for"})) {
    b = 2;
    e -= 2;
  } else {
    return "";
  }
  while (b < e && at(b, {"a", "an", "the"})) ++b;
  if (b >= e || e - b > 6) return "";  // not a short noun phrase: a different kind of question
  std::string x;
  for (size_t i = b; i < e; ++i) x += (x.empty() ? "" : " ") + ws[i];
  return x;
}

std::vector<std::string> definiendum_stems(const std::string& x) {
  std::vector<std::string> out;
  for (auto& w : words(x)) out.push_back(stem(w));
  return out;
}

double definition_strength(const std::vector<std::string>& x, std::string_view sentence) {
  if (x.empty()) return 0;
  auto sw = words(sentence);
  static const char* kVerbs[] = {"is", "are", "refers", "means", "denotes", "describes", "was", "were"};
  for (size_t i = 0; i + x.size() <= sw.size(); ++i) {
    bool match = true;
    for (size_t k = 0; k < x.size() && match; ++k) match = stem(sw[i + k]) == x[k];
    if (!match) continue;
    // X opens the sentence (after at most an article) and is its subject: the verb follows at
    // once or after one head noun ("The attention mechanism is ...").
    bool opens = i == 0 || (i == 1 && (sw[0] == "the" || sw[0] == "a" || sw[0] == "an"));
    for (size_t j = i + x.size(); j < sw.size() && j <= i + x.size() + 1; ++j)
      for (auto v : kVerbs)
        if (sw[j] == v) return opens ? 1.0 : 0.3;
  }
  return 0;
}

namespace {

// A parenthesis is an aside: "A mosaic plot (Hartigan and Kleiner 1984) is ..." defines the plot.
std::string without_asides(std::string_view sentence_in) {
  std::string sentence;
  int depth = 0;
  for (char c : sentence_in) {
    if (c == '(') ++depth;
    else if (c == ')' && depth > 0) --depth;
    else if (depth == 0) sentence += c;
  }
  return sentence;
}

// Words as words() makes them, each with whether markup or a clause mark (",;:=*#|>") stands
// between it and the word before: "====== Title ====== The **X** is ..." opens a clause at "The".
struct MarkedWords {
  std::vector<std::string> sw;
  std::vector<bool> sep;
};

MarkedWords marked_words(const std::string& sentence) {
  MarkedWords out;
  bool mark = true;
  size_t i = 0;
  // Curly quotes are punctuation, not letters: “meat” is the word meat.
  auto curly_quote = [&](size_t k) {
    return sentence.compare(k, 2, "\xE2\x80") == 0 && k + 2 < sentence.size() &&
           std::string_view("\x98\x99\x9C\x9D").find(sentence[k + 2]) != std::string_view::npos;
  };
  auto word_byte = [&](size_t k) {
    const unsigned char c = static_cast<unsigned char>(sentence[k]);
    return (std::isalnum(c) || c >= 0x80) && !curly_quote(k);
  };
  while (i < sentence.size()) {
    unsigned char c = static_cast<unsigned char>(sentence[i]);
    if (curly_quote(i)) {
      i += 3;
      continue;
    }
    if (!word_byte(i)) {
      mark = mark || std::string_view(",;:=*#|>").find(static_cast<char>(c)) != std::string_view::npos;
      ++i;
      continue;
    }
    size_t b = i;
    while (i < sentence.size() && word_byte(i)) ++i;
    out.sw.push_back(lower_ascii(std::string_view(sentence).substr(b, i - b)));
    out.sep.push_back(mark);
    mark = false;
  }
  return out;
}

// A hedge between the copula and the genus does not change the form: "is basically a".
void drop_copula_hedges(MarkedWords& m) {
  auto& sw = m.sw;
  for (size_t i = 1; i + 1 < sw.size(); ++i)
    if ((sw[i - 1] == "is" || sw[i - 1] == "are") &&
        (one_of(sw[i], {"basically", "simply", "essentially", "just", "generally", "usually", "often", "also",
                        "commonly", "typically", "merely", "formally", "roughly"}))) {
      sw.erase(sw.begin() + static_cast<long>(i));
      m.sep.erase(m.sep.begin() + static_cast<long>(i));
    }
}

// How the words after X at `j` define it: `form` 1 for a copula and a genus or a defining verb,
// 0.8 for an appositive, 0.35 for a bare copula, 0 for none; `genus_at` where the genus starts.
struct Form {
  double form = 0;
  size_t genus_at = 0;
};

// The defining form right after X, or after one head noun ("the attention mechanism is"), or
// after a short "of" phrase that says whose X it is ("the meat of the sandwich M is the variance
// of ..."): then the form is read at the copula.
Form defining_form(const MarkedWords& m, size_t j) {
  const auto& sw = m.sw;
  const auto& sep = m.sep;
  double form = 0;
  size_t genus_at = 0;
  size_t h_last = j + 1;
  if (j < sw.size() && sw[j] == "of" && !sep[j])
    for (size_t h = j + 2; h < sw.size() && h <= j + 5 && !sep[h]; ++h)
      if (sw[h] == "is" || sw[h] == "are") {
        h_last = h;
        break;
      }
  for (size_t h = j; h <= h_last && h < sw.size() && form == 0; ++h) {
    if (h > j + 1 && h < h_last) continue;  // inside the "of" phrase
    const std::string& v = sw[h];
    const std::string n = h + 1 < sw.size() ? sw[h + 1] : "";
    const std::string n2 = h + 2 < sw.size() ? sw[h + 2] : "";
    if (one_of(v, {"is", "are"}) && one_of(n, {"a", "an", "the", "one", "any", "defined", "called", "known"})) {
      form = 1.0;
      genus_at = h + 2;
    } else if ((one_of(v, {"refers", "refer"}) && n == "to") || one_of(v, {"means", "denotes", "denote"}) ||
               (one_of(v, {"stands", "stand"}) && n == "for")) {
      form = 1.0;
      genus_at = h + 1;
    } else if (one_of(v, {"is", "are"}) && one_of(n, {"defined", "described"}) && n2 == "as") {
      form = 1.0;
      genus_at = h + 3;
    } else if (one_of(v, {"is", "are", "was", "were"})) {
      form = 0.35;  // "X is used in ...", "X is often seen ...": about X, not what it is
      genus_at = h + 1;
    }
    if (h == j && form == 0) {
      // Appositive: "X, a method that ..." (the comma is in the text between X and "a").
      if (sep[h] && one_of(v, {"a", "an"})) {
        form = 0.8;
        genus_at = h + 1;
      }
    }
  }
  return {form, genus_at};
}

// The gist form: "The (primary) idea of X is to turn ...", "The essence of X is ...". What X
// does in one clause is how authors summarise a method they do not define by a genus. True when
// X at `i`, read with a bare copula, is written so.
bool gist_form(const MarkedWords& m, size_t i) {
  const auto& sw = m.sw;
  const auto& sep = m.sep;
  const size_t a = i > 0 && one_of(sw[i - 1], {"the", "a", "an"}) && !sep[i] ? i - 1 : i;  // "of the X"
  if (!(a >= 2 && one_of(sw[a - 1], {"of", "behind"}) &&
        one_of(sw[a - 2], {"idea", "ideas", "essence", "gist", "principle", "intuition"})))
    return false;
  size_t k = a - 2;  // back over the article and at most one adjective before the noun
  if (k > 0 && !sep[k] && !one_of(sw[k - 1], {"the", "a", "an"})) --k;
  if (k > 0 && !sep[k] && one_of(sw[k - 1], {"the", "a", "an"})) --k;
  return sep[k];
}

// The grade of X matched at word `i` (0 without a defining form after it).
double grade_at(const MarkedWords& m, size_t i, size_t x_size) {
  const auto& sw = m.sw;
  const auto& sep = m.sep;
  auto [form, genus_at] = defining_form(m, i + x_size);
  if (form == 0) return 0;
  // Subject position: X opens the sentence (after an article or a determiner-like word), or
  // opens the main clause after an introductory phrase ("In machine learning, attention is").
  bool subject = sep[i] || (i > 0 && sep[i - 1] && one_of(sw[i - 1], {"the", "a", "an"}));
  if (form == 0.35 && gist_form(m, i)) {
    form = 1.0;
    subject = true;
  }
  double g = form * (subject ? 0.8 : 0.3);
  // A relative or purpose clause after the genus: "a component that enables ...".
  for (size_t k = genus_at; k < sw.size() && k < genus_at + 6; ++k)
    if (one_of(sw[k], {"that", "which", "whose", "where", "who", "used", "for"})) {
      if (form >= 0.8) g += 0.2;
      break;
    }
  return g;
}

}  // namespace

double definition_grade(const std::vector<std::string>& x, std::string_view sentence_in) {
  if (x.empty()) return 0;
  MarkedWords m = marked_words(without_asides(sentence_in));
  drop_copula_hedges(m);
  const auto& sw = m.sw;
  double best = 0;
  for (size_t i = 0; i + x.size() <= sw.size(); ++i) {
    bool match = true;
    for (size_t k = 0; k < x.size() && match; ++k) match = stem(sw[i + k]) == x[k];
    if (!match) continue;
    best = std::max(best, grade_at(m, i, x.size()));
  }
  // First person: the authors' own work ("we propose", "our method").
  for (auto& w : sw)
    if (one_of(w, {"we", "our", "us"})) {
      best *= 0.6;
      break;
    }
  return std::min(best, 1.0);
}

Definiendum::Definiendum(const std::string& x) : full_(definiendum_stems(x)) {
  auto ws = words(x);
  // "the Fine-Gray model" is defined as often by sentences about "the Fine-Gray approach" or
  // "Fine-Gray" alone: a last word that only says what kind of thing a name is (model, method,
  // test ...) may be any such word in the sentence. definition_grade allows one head noun
  // after X, so the name without its kind word matches "the Fine-Gray approach is ...".
  static const char* kKinds[] = {"model", "models", "method", "methods", "approach", "test", "tests", "estimator",
                                 "technique", "algorithm", "framework", "procedure", "statistic", "function",
                                 "package", "library", "tool", "mechanism", "scheme", "plot", "diagram", "measure"};
  if (ws.size() >= 2)
    for (auto k : kKinds)
      if (ws.back() == k)
        for (size_t i = 0; i + 1 < ws.size(); ++i)
          if (!name_.empty() || !one_of(ws[i], {"the", "a", "an"})) name_.push_back(stem(ws[i]));
  static const char* kPreps[] = {"for", "of", "in", "on", "with", "from", "by", "under", "at"};
  for (size_t i = 1; i < ws.size(); ++i)
    for (auto p : kPreps)
      if (ws[i] == p) {
        for (size_t k = 0; k < i; ++k) head_.push_back(stem(ws[k]));
        return;
      }
}

double Definiendum::grade(std::string_view sentence) const {
  if (full_.empty()) return 0;
  double g = definition_grade(full_, sentence);
  if (!head_.empty()) g = std::max(g, 0.9 * definition_grade(head_, sentence));
  if (!name_.empty()) g = std::max(g, 0.9 * definition_grade(name_, sentence));
  return g;
}

double best_definition_grade(const Definiendum& x, std::string_view text) {
  double best = 0;
  for (auto [b, e] : split_sentences(text)) {
    if (text[b] == '#') continue;
    best = std::max(best, x.grade(text.substr(b, e - b)));
  }
  return best;
}

double best_definition_strength(const std::vector<std::string>& x, std::string_view text) {
  double best = 0;
  for (auto [b, e] : split_sentences(text)) {
    if (text[b] == '#') continue;
    best = std::max(best, definition_strength(x, text.substr(b, e - b)));
    if (best >= 1.0) break;
  }
  return best;
}

}  // namespace mmkg
