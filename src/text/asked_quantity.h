// What a quantity question asks for, typed, and whether a sentence supplies it: "how many trees"
// wants a number that counts trees, "how old" an age, "by what factor" a ratio, "which version
// of bash" a version, "which TCP port" a number beside the word "port". The extractive answer's
// honesty rests on it: a passage about the subject that holds some other number does not answer
// (question_shape.h's holds_new_number only asks for any number the question does not hold).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mmkg {

enum class QuantityType {
  None,     ///< not typed: any new number answers (holds_new_number)
  Count,    ///< "how many trees": a number counting the focus ("12 trees", "1,456 persons")
  Span,     ///< "how long", "how many seconds": a number with a unit of time, or "until ..."
  Age,      ///< "how old": "34 years", "aged 20 to 30"
  Ratio,    ///< "by what factor", "how much faster": "3 times", "2.4-fold", "40%", "twice"
  Version,  ///< "which version of X": "4.2.0", "1.1-7", "version 5" beside the focus
  Measure,  ///< "what default tolerance", "which TCP port": a new number beside the focus
};

const char* quantity_type_name(QuantityType t);

struct AskedQuantity {
  QuantityType type = QuantityType::None;
  /// Lower-case words the value must stand beside (the asked noun phrase's content words, the
  /// of-phrase's when the head is abstract: "the number of parents" → parents).
  std::vector<std::string> focus{};
  /// A measure a unit states ("what temperature": "451 degrees" answers it too).
  bool by_unit = false;
};

/// What one question part (question_parts) asks for. None for a yes/no part ("Is there a limit
/// to how many ..."), a part with no quantity, a date ("in which year": dates are typed
/// elsewhere) and a manner ("how strongly", "how far"); and for a Measure or Count whose phrase
/// names nothing but the quantity ("what value is it").
AskedQuantity asked_quantity(std::string_view part);

/// True when `sentence` states a value of the asked type that `question` does not hold, beside
/// the focus where the type needs one (within a few words). For QuantityType::None the caller
/// uses holds_new_number.
bool supplies_quantity(std::string_view sentence, const AskedQuantity& q, std::string_view question);

}  // namespace mmkg
