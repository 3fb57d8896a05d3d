// General-English word frequency for the rule-based extractor: which single words are so common
// in any English text ("results", "approach", "performance", "ability") that, alone, they name no
// domain thing. The source is WordNet's cntlist.rev (Debian package wordnet-base): the SemCor
// sense-tag counts, ~260,000 tagged words of the Brown corpus, general English of every genre.
// Used by the graph extractor (which words alone name no domain thing) and by the answerability
// check (which question words are how questions paraphrase).
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>

namespace mmkg::graph::rules {

class CommonWords {
 public:
  /// Reads a cntlist.rev file ("lemma%sense_key sense_number tag_count" per line). Missing or
  /// unreadable: loaded() is false and every word counts as uncommon (nothing is filtered).
  explicit CommonWords(const std::string& cntlist_path);
  /// The process-wide list: $MMKG_WORDNET_DIR/cntlist.rev, else /usr/share/wordnet/cntlist.rev.
  /// When absent, prints one warning to stderr saying how to install it.
  static const CommonWords& get();

  bool loaded() const { return !counts_.empty(); }
  /// Tagged occurrences of the lemma of `lower_word` (plural "results" → "result"), 0 if unseen.
  int count(std::string_view lower_word) const;
  /// Among the kCommonRank most frequent lemmas of general English.
  bool common(std::string_view lower_word) const;
  /// A word general English does not use: unknown to WordNet ("softmax", "mgcv",
  /// "heteroscedastic"), or a WordNet noun never seen in SemCor ("eigenvalue"). Adjectives and
  /// adverbs unseen there are mostly evaluative ("innovative"), and verbs and their forms ("reasoned", "leaving") are general English. SemCor is small: some general words
  /// never occur in it ("overview") and count as domain words, which errs on keeping a phrase.
  /// False when the list is missing.
  bool domain(std::string_view lower_word) const;

  /// The size of a general-service vocabulary: the New General Service List (Browne et al. 2013)
  /// covers ~90% of general English with 2,800 words. A word among that many most frequent lemmas
  /// is part of the vocabulary every text uses, whatever its domain.
  static constexpr int kCommonRank = 2800;

 private:
  std::unordered_map<std::string, int> counts_;
  int min_common_count_ = 1;  // the count of the kCommonRank-th lemma
};

}  // namespace mmkg::graph::rules
