// Reading typed facts out of encyclopedic prose without a model: dates, names and places as
// spans of a sentence, and the few ways English states the facts a factoid question asks for
// ("Name (12 May 1950 – 3 June 2000) was an American singer", "born in Port of Spain",
// "directed by Mohan Kumar", "the second son of Emperor Lothair I and Ermengarde of Tours").
// Written here because no library reads these: NER models do not ship in the packages this
// machine can install, and the patterns are those of the language, not of one corpus.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mmkg {

/// A date as prose writes it: a year, a month and year, or a day, month and year.
struct FactDate {
  int year = 0;
  int month = 0;  ///< 0: not given
  int day = 0;    ///< 0: not given
  std::string text;  ///< as written ("20 March 851")
  size_t pos = 0, end = 0;  ///< byte offsets in the string it was found in
};

/// Orders two dates by what both give (a year alone compares by year): <0, 0, >0.
int compare_dates(const FactDate& a, const FactDate& b);

/// Every date in `s`, in order: "20 March 851", "March 20, 1851", "March 1851", "1961" (a year
/// of three or four digits, not part of a longer number, a measure or a range of pages).
std::vector<FactDate> find_dates(std::string_view s);

/// The capitalised name that starts at or after `pos` in `s` (spaces skipped): words that open
/// with a capital letter, joined by spaces and name particles ("Port of Spain", "Ailéan mac
/// Ruaidhrí", "J. Om Prakash"); a single descriptive word followed by a lower-case noun and a
/// name ("American singer Kris Kristofferson") yields the name after them. Empty when the text
/// there does not start with a name.
std::string name_at(std::string_view s, size_t pos);

/// A name as above followed by up to `parts` - 1 further comma-separated names ("Montreal,
/// Quebec"): a place as prose writes it.
std::string place_at(std::string_view s, size_t pos, int parts = 2);

/// A person's or a work's life span as a passage on it opens: the first parenthesis holding a
/// date ("(born 5 May 1950)", "(12 May 1950 – 3 June 2000)", "(d. 851)", "(835 –)") or, without
/// one, "born ... DATE" / "died ... DATE" in its sentences.
struct LifeDates {
  std::optional<FactDate> born, died;
};
LifeDates life_dates(std::string_view passage);

/// The property a factoid question asks of its last entity.
enum class FactProperty {
  None,
  Identity,     ///< the entity itself ("Who is X's father?")
  BirthDate,
  DeathDate,
  BirthPlace,
  DeathPlace,
  Nationality,  ///< a person's nationality, or the country a place or work is in / from
  Released,     ///< when a work came out (its year)
  Lifespan,     ///< how long a person lived (for "who lived longer")
  CauseOfDeath,
  Education,    ///< where a person studied
  Employer,     ///< where a person works or worked
};
const char* fact_property_name(FactProperty p);

/// The value of `property` as `passage` (the entity's own passage, `name` its subject) states it,
/// with the sentence that states it; nullopt when the passage does not state it. Identity and
/// Lifespan have no text value (life_dates gives the latter).
struct FactValue {
  std::string text;
  std::string sentence;
  std::optional<FactDate> date;  ///< dates: the date itself
};
std::optional<FactValue> read_property(std::string_view passage, FactProperty property);

/// Names that `passage` relates to its subject by `relation` ("father", "mother", "parent",
/// "husband", "wife", "spouse", "child", "son", "daughter", "sibling", "director", "composer",
/// "performer", "producer", "writer", "author", "editor", "founder"), best first, each with the
/// sentence that says so. `subject` is the passage's subject as the question names it (a name
/// equal to it is never its own relative).
struct RelatedName {
  std::string name;
  std::string sentence;
};
std::vector<RelatedName> related_names(std::string_view passage, std::string_view relation,
                                       std::string_view subject);

/// Whether `passage` (some other entity's) names `subject` as standing in `relation` to its own
/// subject's inverse: the passage of a child says "son of X" (X's child), a spouse's "married X".
/// Gives the sentence, or empty.
std::string names_as_inverse(std::string_view passage, std::string_view relation, std::string_view subject);

/// +1 when the passage speaks of its subject as he, -1 as she, 0 when it does not tell.
int passage_gender(std::string_view passage);

/// True when two names name the same thing as far as their letters tell: equal once folded, equal
/// without a trailing parenthesis ("Dark River (2017 Film)"), or one is the other after a title
/// word ("Emperor Lothair I" and "Lothair I").
bool same_name(std::string_view a, std::string_view b);

/// Folds a name for comparison: lower case (ASCII), punctuation and runs of spaces as one space,
/// a trailing parenthesis kept apart (`base` gives the name without it).
std::string fold_name(std::string_view name);
std::string fold_name_base(std::string_view name);

}  // namespace mmkg
