// The shape of a question, for extractive answers: the parts it asks (one cited sentence each)
// and the kind of answer each part wants (a number, a name, a reason, anything).
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "text/asked_quantity.h"

namespace mmkg {

enum class AnswerKind {
  Any,     ///< no particular shape
  Number,  ///< "how many", "what fraction", "which version", "by what factor", "in which month"
  Name,    ///< "who", "whose", "which paper/package/function", "what is it called"
  Reason,  ///< "why", "what is the reasoning behind"
};

const char* answer_kind_name(AnswerKind k);

struct QuestionPart {
  std::string text;  ///< the words of this part as the question has them
  AnswerKind kind = AnswerKind::Any;
  bool figure = false;  ///< asks which figure or table shows something ("which figure compares ...")
  /// The quantity it asks for, typed (asked_quantity.h); a typed quantity makes the kind Number.
  AskedQuantity quantity{};
  /// The question sets the scene in a statement before it asks ("The HAC paper checks whether
  /// ... . Where do that procedure's p values come from?"): the statement's words find the
  /// passages, the part's words say which sentence answers.
  bool after_scene = false;
};

/// The parts a question asks, in order. A question is split where a conjunction or a comma opens
/// a new interrogative clause ("..., and why?", "... and what does it propose?", "..., or is
/// another tool needed?") and at each of its sentences; a statement that only sets the scene
/// ("The wiki describes X. Which paper ...?") is not a part (its words still help retrieval).
/// A question with one clause gives one part; an empty question gives none.
std::vector<QuestionPart> question_parts(std::string_view question);

/// True when a question part names what it asks about by referring back to the text before it:
/// a pronoun ("what does it offer", "how are they computed", "its cut-offs"), a demonstrative
/// ("these", "those", "this") or "that" used as one: the part's last word or after an auxiliary
/// or a preposition ("which function is that", "where do that procedure's p values come from",
/// "of that"). "that" opening a clause ("argues that ...", "so that ...") does not refer back.
bool refers_to_antecedent(std::string_view part);

/// The kind of answer one clause wants, from its interrogative words.
AnswerKind answer_kind(std::string_view clause);

/// True when `sentence` holds a number that `question` does not (digits, "5%", "1,456", "4.2.0",
/// or a spelled-out number such as "twelve"): what a "how many" part must quote. When the
/// question counts things that are not spans of time ("how many people"), only a number that
/// counts things does: one a plural noun follows ("228 patients", "14 subjects with ..."), a
/// sample size ("n = 214") or a table cell ("| Rottnest Island | 12000 |"); not "after 6
/// months", "a coefficient of 1" or "essentially 0".
bool holds_new_number(std::string_view sentence, std::string_view question);

/// True when `sentence` holds a name or term that `question` does not: a capitalised word that
/// does not open the sentence, an acronym, a mixed-case or digit-bearing token ("vcovHAC",
/// "FP16"), a call ("coeftest()") or a quoted phrase. What a "who/which X" part must quote.
bool holds_new_name(std::string_view sentence, std::string_view question);

/// True when `sentence` gives a name in words that `question` does not hold: "... is also known as
/// the mean cumulative function", "what statisticians call a hazard", "referred to as panel data"
/// (the words after the naming verb are a name even in lower case). Part of holds_new_name.
bool names_in_words(std::string_view sentence, std::string_view question);

/// True when `sentence` states a reason or an explanation in so many words: a causal connective
/// ("because", "since", "due to", "so that", "in order to"), a consequence it draws ("hence",
/// "therefore", "which implies"), or a sentence about a reason ("The rationale is that ...", "the
/// heuristic for choosing X is that ..."). What a "why" part prefers to quote.
bool gives_reason(std::string_view sentence);

/// Capitalised or quoted names of `question` (not its first word): "Lightning Attention-2",
/// "Stata", "Python". Lower-cased words of each name.
std::vector<std::vector<std::string>> question_names(std::string_view question);

}  // namespace mmkg
