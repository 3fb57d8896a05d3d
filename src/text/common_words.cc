#include "text/common_words.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <vector>

#include "text/lexicon.h"

namespace mmkg::graph::rules {

CommonWords::CommonWords(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    // "result%1:19:00:: 1 111": lemma before '%', the tag count last; a lemma's senses are summed.
    size_t pct = line.find('%');
    if (pct == std::string::npos || pct == 0) continue;
    std::istringstream ls(line.substr(pct));
    std::string key;
    int sense = 0, n = 0;
    if (!(ls >> key >> sense >> n) || n <= 0) continue;
    std::string lemma = line.substr(0, pct);
    if (lemma.find('_') != std::string::npos) continue;  // multi-word lemmas: not single words
    counts_[lemma] += n;
  }
  if (counts_.empty()) return;
  std::vector<int> all;
  all.reserve(counts_.size());
  for (const auto& [w, n] : counts_) all.push_back(n);
  size_t rank = std::min(all.size(), static_cast<size_t>(kCommonRank)) - 1;
  std::nth_element(all.begin(), all.begin() + static_cast<long>(rank), all.end(), std::greater<int>());
  min_common_count_ = std::max(1, all[rank]);
}

const CommonWords& CommonWords::get() {
  static const CommonWords cw = [] {
    const char* env = std::getenv("MMKG_WORDNET_DIR");
    std::string dir = env && *env ? env : "/usr/share/wordnet";
    CommonWords c(dir + "/cntlist.rev");
    if (!c.loaded())
      std::cerr << "mmkg: warning: " << dir << "/cntlist.rev (WordNet word frequencies) not found; the graph "
                << "will keep common English words as entities. Install it with `apt-get install wordnet-base` "
                << "(scripts/setup.sh does), or set MMKG_WORDNET_DIR to a WordNet dict directory.\n";
    return c;
  }();
  return cw;
}

int CommonWords::count(std::string_view w) const {
  if (counts_.empty() || w.empty()) return 0;
  std::string l(w);
  auto it = counts_.find(l);
  if (it != counts_.end()) return it->second;
  const Lexicon& lex = Lexicon::get();
  std::string s = lex.singular(l);
  if (s != l && (it = counts_.find(s)) != counts_.end()) return it->second;
  return 0;
}

bool CommonWords::common(std::string_view w) const { return loaded() && count(w) >= min_common_count_; }

}  // namespace mmkg::graph::rules

namespace mmkg::graph::rules {

bool CommonWords::domain(std::string_view w) const {
  if (!loaded() || w.empty()) return false;
  if (count(w) > 0) return false;
  const Lexicon& lex = Lexicon::get();
  std::string l(w);
  bool participle = false;
  if (lex.is_verb(l) || lex.verb_form(l, &participle)) return false;
  // adjectives and adverbs unseen in SemCor are mostly evaluative ("innovative", "usual"): only
  // nouns ("eigenvalue") and words WordNet lacks ("softmax") name things of a domain
  return !lex.known(l) || lex.is_noun(l) || lex.is_noun(lex.singular(l));
}

}  // namespace mmkg::graph::rules
