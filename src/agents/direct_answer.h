// The one-line direct answer: the date, place, name or yes/no a factoid question asks for, read
// from the retrieved passages by walking the question's relations from the entity it names
// (text/asked_fact.h) through the passages on each entity (text/fact_spans.h). No model.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "retrieve/retrieval.h"
#include "text/asked_fact.h"

namespace mmkg {

/// One entity the walk reached: its name, the passage on it and the relation and sentence that
/// led there (empty for the entity named). `passage` indexes the context, then
/// DirectAnswer::fetched after it; npos: no passage on it.
struct HopStep {
  std::string entity;
  std::string relation{};
  size_t passage = static_cast<size_t>(-1);
  std::string sentence{};  ///< the sentence that names it in that relation, or states the value
  /// The passage `sentence` is in (the previous entity's for a relation read off it; npos: none).
  size_t source = static_cast<size_t>(-1);
};

/// Finds the passages on an entity outside the context: its own passage (its name searched in the
/// store; the hit whose document or first heading is that name) first, then the rest of its
/// document in order; empty when none is.
using FindHome = std::function<std::vector<SearchHit>(const std::string& name)>;

struct DirectAnswer {
  bool found = false;
  std::string text;  ///< "20 March 851", "Phoolwari", "yes"
  /// "date", "place", "name", "nationality", "cause", "option" (one of the question's), "yes_no".
  std::string kind;
  AskedFact asked;
  /// The walks, one per entity the question names (two for a comparison), each from the entity
  /// to the one whose property answers; the last step of each gives the value's sentence.
  std::vector<std::vector<HopStep>> paths;
  /// Passages the walk fetched with FindHome (an entity's own passage that retrieval left out).
  std::vector<SearchHit> fetched;
  /// What was missing when not found ("no passage on Ermengarde of Tours gives the date of death").
  std::string why;
};

/// Reads the answer to `asked` off `context` (hit.text of each passage), fetching with
/// `find_home` (may be empty) the passage on an entity the context lacks: the second hop's.
/// Not found when the question has no factoid form, an entity it names has no passage, a
/// relation or the property is not stated, or a comparison's values are missing or equal.
DirectAnswer direct_answer(const AskedFact& asked, const std::vector<Candidate>& context,
                           const FindHome& find_home = {});

/// The passage of `hits` on `name`: the one whose document or first heading is that name, or
/// whose text opens with it; npos when none is.
size_t home_among(const std::vector<const SearchHit*>& hits, const std::string& name);

/// The passage hit `i` of a direct answer's walk reads: the context's, then the fetched ones.
const SearchHit* walk_passage(const DirectAnswer& d, const std::vector<Candidate>& context, size_t i);

}  // namespace mmkg
