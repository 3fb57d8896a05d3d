#include "text/definition.h"

#include "text/words.h"
#include "text/sentences.h"

namespace mmkg {

std::string definition_target(const std::string& question) {
  auto ws = words(question);
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
