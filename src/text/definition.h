// Definition questions ("what is X?"): recognising them and finding sentences that define X.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mmkg {

/// X (lower-cased words) when the question asks for a definition: "what is/are X", "define X",
/// "what does X mean", "what is meant by X", "what exactly is X"; empty otherwise. Only the
/// question's first clause counts ("what is X, in a nutshell?" asks for X).
std::string definition_target(const std::string& question);

/// Stems of the words of X, for definition_strength.
std::vector<std::string> definiendum_stems(const std::string& x);

/// How strongly `sentence` reads as a definition of X (given as stems): 1 when X opens the
/// sentence (after at most an article) and a defining verb follows at once or after one word
/// ("The attention mechanism is ..."), 0.3 when that pattern occurs later in the sentence, else 0.
double definition_strength(const std::vector<std::string>& x, std::string_view sentence);

/// A graded definition_strength (0..1) for choosing which sentence opens an answer to "what is
/// X?". The form of the sentence decides: X followed by a copula and a genus ("X is a/an/the/one
/// ...") or by "refers to", "means", "denotes", "is defined as", "stands for", or an appositive
/// ("X, a method that ...") defines X, and so does the gist form "the (main) idea of X is to
/// ..."; "X is used/seen in ..." only says something about it.
/// X counts as the subject when it opens the sentence or its main clause (after an article, or
/// after an introductory phrase ending in a comma), and X may carry one head noun ("the attention
/// mechanism is ..."). A genus followed by a relative or purpose clause ("a component that
/// enables ...", "a method for ...") reads as a full definition; a sentence in the first person
/// ("we", "our") describes the authors' work rather than defining X.
double definition_grade(const std::vector<std::string>& x, std::string_view sentence);

/// X of a definition question, matched in full, by its head: the words before its first
/// preposition ("the Andersen-Gill model for recurrent infections" is defined by sentences about
/// "the Andersen-Gill model"), or by its name without a last kind word ("the Fine-Gray model"
/// by "the Fine-Gray approach is ...").
class Definiendum {
 public:
  explicit Definiendum(const std::string& x);
  bool empty() const { return full_.empty(); }
  /// definition_grade of the full X, or slightly less of its head.
  double grade(std::string_view sentence) const;

 private:
  std::vector<std::string> full_, head_;
  std::vector<std::string> name_;  ///< X without a last kind word ("fine-gray" of "fine-gray model")
};

/// Best Definiendum::grade over the sentences of `text` (headings skipped): which passage holds
/// the fullest definition of X.
double best_definition_grade(const Definiendum& x, std::string_view text);

/// Best definition_strength over the sentences of `text`.
double best_definition_strength(const std::vector<std::string>& x, std::string_view text);

}  // namespace mmkg
