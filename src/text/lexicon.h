// English lexicon from WordNet 3.0 (Debian package wordnet-base, installed by `make setup`):
// which parts of speech a word can take, and noun singulars (regular rules checked against the
// lexicon, plus WordNet's irregular plurals). Used by term extraction and name_key().
// We read WordNet's index files ourselves: they are plain text ("lemma pos ..."), and the C
// library (libwordnet) would add a global, non-thread-safe API for four set lookups.
#pragma once

#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace mmkg::graph {

class Lexicon {
 public:
  /// The process-wide lexicon, loaded on first use from $MMKG_WORDNET_DIR or /usr/share/wordnet.
  /// When WordNet is missing, loaded() is false and every lookup answers false (rules only).
  static const Lexicon& get();
  /// Loads from a folder holding index.noun/.verb/.adj/.adv and noun.exc.
  explicit Lexicon(const std::string& dir);

  bool loaded() const { return loaded_; }
  /// Lower-case single words or multi-word lemmas with spaces ("neural network").
  bool is_noun(std::string_view w) const { return nouns_.count(std::string(w)) > 0; }
  bool is_verb(std::string_view w) const { return verbs_.count(std::string(w)) > 0; }
  bool is_adj(std::string_view w) const { return adjs_.count(std::string(w)) > 0; }
  bool is_adv(std::string_view w) const { return advs_.count(std::string(w)) > 0; }
  bool known(std::string_view w) const { return is_noun(w) || is_verb(w) || is_adj(w) || is_adv(w); }

  /// Singular of a lower-case noun: WordNet's irregular plurals ("matrices" → "matrix"), else
  /// the regular rules (-ies → -y, -ches/-shes/-xes/-sses → drop -es, -s → drop) unless the word
  /// is itself a noun lemma and the candidate is not ("series", "bias", "analysis" stay).
  std::string singular(std::string_view w) const;
  /// A lower-case word that is a verb or an inflection of one: the lemma, WordNet's irregular
  /// forms (verb.exc: "driven", "took"), or -s/-es/-ies, -ed/-ied and -ing forms of a verb lemma
  /// (with a dropped -e or a doubled consonant). `participle` (optional) is set for -ing/-ed and
  /// irregular non -s forms.
  bool verb_form(std::string_view w, bool* participle = nullptr) const;

 private:
  bool loaded_ = false;
  std::unordered_set<std::string> nouns_, verbs_, adjs_, advs_;
  std::unordered_map<std::string, std::string> noun_exc_;
  std::unordered_map<std::string, std::string> verb_exc_;  ///< irregular form -> lemma (verb.exc)
};

}  // namespace mmkg::graph
