#include "text/lexicon.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace mmkg::graph {
namespace {

void load_index(const std::string& path, std::unordered_set<std::string>& out) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == ' ') continue;  // licence header lines start with spaces
    std::string lemma = line.substr(0, line.find(' '));
    for (char& c : lemma) if (c == '_') c = ' ';
    out.insert(std::move(lemma));
  }
}

bool ends_with(std::string_view s, std::string_view suf) {
  return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
}

}  // namespace

Lexicon::Lexicon(const std::string& dir) {
  load_index(dir + "/index.noun", nouns_);
  load_index(dir + "/index.verb", verbs_);
  load_index(dir + "/index.adj", adjs_);
  load_index(dir + "/index.adv", advs_);
  std::ifstream exc(dir + "/noun.exc");
  std::string line;
  while (std::getline(exc, line)) {  // "plural singular [singular...]"; the first singular wins
    std::istringstream ls(line);
    std::string plural, single;
    if (!(ls >> plural >> single)) continue;
    for (char& c : plural) if (c == '_') c = ' ';
    for (char& c : single) if (c == '_') c = ' ';
    noun_exc_.emplace(plural, single);
  }
  std::ifstream vx(dir + "/verb.exc");
  while (std::getline(vx, line)) {  // "form lemma"
    std::istringstream ls(line);
    std::string form, base;
    if (ls >> form >> base) verb_exc_.emplace(form, base);
  }
  loaded_ = !nouns_.empty();
}

const Lexicon& Lexicon::get() {
  static const Lexicon lex([] {
    const char* env = std::getenv("MMKG_WORDNET_DIR");
    return std::string(env && *env ? env : "/usr/share/wordnet");
  }());
  return lex;
}

std::string Lexicon::singular(std::string_view w) const {
  std::string s(w);
  if (auto it = noun_exc_.find(s); it != noun_exc_.end()) return it->second;
  if (s.size() <= 3 || !ends_with(s, "s")) return s;
  std::string cand;
  if (ends_with(s, "ies") && s.size() > 4) cand = s.substr(0, s.size() - 3) + "y";
  else if (ends_with(s, "sses") || ends_with(s, "ches") || ends_with(s, "shes") || ends_with(s, "xes") ||
           ends_with(s, "zzes"))
    cand = s.substr(0, s.size() - 2);
  else if (ends_with(s, "ss") || ends_with(s, "us") || ends_with(s, "is"))
    return s;  // loss, corpus, analysis: not plurals
  else
    cand = s.substr(0, s.size() - 1);
  if (loaded_ && is_noun(s) && !is_noun(cand)) return s;  // "series", "bias", "news"
  return cand;
}

bool Lexicon::verb_form(std::string_view w, bool* participle) const {
  bool part_dummy = false;
  bool& part = participle ? *participle : part_dummy;
  part = false;
  const std::string l(w);
  if (is_verb(l)) return true;
  auto try_base = [&](const std::string& base) { return base.size() >= 2 && is_verb(base); };
  if (auto it = verb_exc_.find(l); it != verb_exc_.end()) {
    part = !ends_with(l, "s");
    return true;
  }
  size_t n = l.size();
  if (ends_with(l, "ing") && n > 5) {
    std::string st = l.substr(0, n - 3);
    part = true;
    if (try_base(st) || try_base(st + "e")) return true;
    if (st.size() >= 2 && st[st.size() - 1] == st[st.size() - 2] && try_base(st.substr(0, st.size() - 1))) return true;
    part = false;
  }
  if (ends_with(l, "ed") && n > 4) {
    std::string st = l.substr(0, n - 2);
    part = true;
    if (try_base(st) || try_base(st + "e") || try_base(l.substr(0, n - 1))) return true;
    if (ends_with(l, "ied") && try_base(l.substr(0, n - 3) + "y")) return true;
    if (st.size() >= 2 && st[st.size() - 1] == st[st.size() - 2] && try_base(st.substr(0, st.size() - 1))) return true;
    part = false;
  }
  if (ends_with(l, "ies") && n > 4 && try_base(l.substr(0, n - 3) + "y")) return true;
  if (ends_with(l, "es") && n > 3 && try_base(l.substr(0, n - 2))) return true;
  if (ends_with(l, "s") && !ends_with(l, "ss") && n > 3 && try_base(l.substr(0, n - 1))) return true;
  return false;
}

}  // namespace mmkg::graph
