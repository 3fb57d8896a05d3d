// Definition questions ("what is X?"): recognising them and finding sentences that define X.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mmkg {

/// X (lower-cased words) when the question asks for a definition: "what is/are X", "define X",
/// "what does X mean", "what is meant by X"; empty otherwise.
std::string definition_target(const std::string& question);

/// Stems of the words of X, for definition_strength.
std::vector<std::string> definiendum_stems(const std::string& x);

/// How strongly `sentence` reads as a definition of X (given as stems): 1 when X opens the
/// sentence (after at most an article) and a defining verb follows at once or after one word
/// ("The attention mechanism is ..."), 0.3 when that pattern occurs later in the sentence, else 0.
double definition_strength(const std::vector<std::string>& x, std::string_view sentence);

/// Best definition_strength over the sentences of `text`.
double best_definition_strength(const std::vector<std::string>& x, std::string_view text);

}  // namespace mmkg
