// Text that is no term: lines of printed code or console output, and tokens of a formula.
// Split out of terms.cc (which masks such text before it looks for terms).
#pragma once

#include <string_view>

namespace mmkg::graph::rules {

/// A line of program code or console output as printed in manuals and vignettes.
bool code_line(std::string_view l);

/// A token of a formula extracted from PDF (a modifier letter or combining mark, or at most
/// three characters with a Greek letter).
bool math_debris(std::string_view w);

}  // namespace mmkg::graph::rules
