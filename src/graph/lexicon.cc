#include "graph/lexicon.h"

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

}  // namespace mmkg::graph
