// The question as every agent reads it: analysed once (its parts and their kinds, what it asks
// to define, the figures it names, the fact it asks for, whether it ranges across documents),
// then passed by reference from the planner to the verifier. The graph step adds the entities it
// linked. No step parses the question's string again.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "graph/resolve/resolve.h"
#include "index/searcher.h"
#include "text/asked_fact.h"
#include "text/question_shape.h"

namespace mmkg {

struct Question {
  std::string asked;       ///< as the user wrote it
  std::string standalone;  ///< a follow-up made standalone (the rewrite step); else `asked`
  std::string searched;    ///< `standalone` with the corpus's acronyms written in: what retrieval reads
  /// The parts `standalone` asks (text/question_shape.h question_parts), each with its kind; at
  /// least one (the whole question, of any kind, when no part reads as one).
  std::vector<QuestionPart> parts;
  /// The parts of `searched`, as the searcher decomposes them (Searcher::search); the same
  /// texts as `parts` unless an acronym was written in.
  std::vector<QueryPart> search_parts;
  std::string definiendum;         ///< X of "what is X?" (text/definition.h), of `standalone`; else empty
  std::string search_definiendum;  ///< the same of `searched`, which the planner searches for
  std::vector<std::string> figure_keys; ///< the figures and tables it names ("f:3", text/captions.h)
  bool broad = false;                   ///< asks for a list or an overview (is_broad_question)
  bool across = false;                  ///< ranges over several documents (asks_across_documents)
  AskedFact fact;                       ///< the factoid it asks, if any (text/asked_fact.h)
  /// The graph's links for the question (entity name, alias or dense match), best first; set by
  /// the graph step, empty without a graph.
  std::vector<graph::EntityLink> entities;

  /// True when the question asks two or more things: the second may need a hop.
  bool two_parts() const { return parts.size() >= 2; }
};

/// Writes a question's acronyms in (Session::expand_query); empty: the question as it is.
using ExpandFn = std::function<std::string(const std::string&)>;

/// The analysed question. `standalone` empty: `asked` itself.
Question analyse_question(const std::string& asked, const std::string& standalone = {}, const ExpandFn& expand = {});

/// True for questions that ask for a list or an overview across documents ("which papers ...",
/// "what approaches ...", "main themes"): a general reading of the question's form.
bool is_broad_question(const std::string& question);

/// True for questions about several documents of the collection: broad ones (is_broad_question)
/// and those naming a plural just before "collection" or "corpus" ("the packages in this
/// collection"). They get the graph's cross references ordered by breadth (graph_lists).
bool asks_across_documents(const std::string& question);

}  // namespace mmkg
