// Telling prose from the code and markup that documents interleave with it: an extractive answer
// quotes statements, never a line of code.
#pragma once

#include <string_view>

namespace mmkg {

/// True when `sentence` reads as code rather than prose: a console prompt ("R> fit <- lm(y ~ x)",
/// "$ make", ">>> f()"), an assignment arrow, or a line dense in code symbols ({}[]();=<>~$#_)
/// with few plain words. Prose that mentions one call ("use coeftest() here") is still prose.
bool looks_like_code(std::string_view sentence);

/// True when `sentence` is not a statement: a table-of-contents line, a title or a label
/// ("6.5.1 FP16/FP32 Mixed Precision 32") has fewer than two function words ("the", "of", "is"),
/// or it is a fragment left by an equation ("where S is the score matrix", LaTeX commands).
bool not_a_statement(std::string_view sentence);

}  // namespace mmkg
