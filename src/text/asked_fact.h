// What a factoid question asks for, read from its words: the entity it names, the relations it
// walks from there ("the director of film X", "X's paternal grandfather") and the property it
// wants of the last one (a date, a place, a nationality), or two entities it compares by one.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "text/fact_spans.h"

namespace mmkg {

struct AskedFact {
  enum class Form {
    None,    ///< not a factoid question this reads
    Lookup,  ///< "When did X's mother die?": one value
    Choice,  ///< "Which film came out first, A or B?": one of the options
    Same,    ///< "Are A and B in the same country?": yes or no
  };
  Form form = Form::None;
  FactProperty property = FactProperty::None;
  /// Relations walked from the entity, nearest first ("the director of X's father": father,
  /// then director); each a relation word of text/fact_spans.h related_names.
  std::vector<std::string> chain;
  std::string topic;                 ///< Lookup: the entity named, as written
  std::vector<std::string> options;  ///< Choice, Same: the entities compared, as written
  /// Choice: the option with the smallest value wins (first, earlier, older); false: the largest.
  bool smallest = true;
};

/// The form, entity, relations and property of `question`; Form::None when it is no question of
/// these shapes.
AskedFact asked_fact(std::string_view question);

/// The relations a relation phrase stands for, nearest first: "mother" -> {mother}, "paternal
/// grandfather" -> {father, father}, "mother-in-law" -> {spouse, mother}; empty when the phrase
/// is no relation.
std::vector<std::string> relation_chain(std::string_view phrase);

const char* asked_form_name(AskedFact::Form f);

}  // namespace mmkg
