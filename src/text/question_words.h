// Small word tests the question readers share (question_shape, asked_quantity, definition): one
// home, so that two files of text/ never hold same-named helpers that a unity build could join.
#pragma once

#include <initializer_list>
#include <string_view>

namespace mmkg {

/// True when `w` is one of `set`.
inline bool one_of(std::string_view w, std::initializer_list<const char*> set) {
  for (const char* s : set)
    if (w == s) return true;
  return false;
}

/// Auxiliaries that open a yes/no question ("Is there ...", "..., or is another tool needed?").
inline bool is_auxiliary(std::string_view w) {
  return one_of(w, {"is", "are", "was", "were", "does", "do", "did", "can", "could", "should", "would", "will", "has",
                    "have", "must"});
}

}  // namespace mmkg
