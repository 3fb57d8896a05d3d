// Value types of the knowledge graph: entities, mentions, relations with evidence, communities.
// Shared by extraction, entity resolution, the graph stores (SQLite, Neo4j) and graph retrieval.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/types.h"

namespace mmkg::graph {

/// Where a relation (or a definition) was read: the chunk and the sentence itself.
struct Evidence {
  std::string chunk_id;
  std::string doc_id;
  std::string sentence;
};

/// One node per real-world thing, after entity resolution.
struct Entity {
  std::string id;                    ///< "e" + 16 hex; stable for the life of the entity
  std::string name;                  ///< display name ("Multi-Head Attention")
  std::string type = "concept";      ///< concept | acronym | person | organization | method | ...
  std::string description;           ///< a defining sentence, when one was found
  std::vector<std::string> aliases;  ///< every surface form seen, the name included ("MHA", ...)
  double score = 0;                  ///< termhood (higher = more clearly a term of the corpus)
};

/// An entity type that says nothing ("" or "concept"). The first specific type a later document
/// gives replaces it (in the resolver and in every GraphStore's upsert: a later document may say
/// that "Achim Zeileis" is a person); a specific type stays.
inline bool untyped(const std::string& type) { return type.empty() || type == "concept"; }

/// An entity occurs in a chunk (`count` times, first seen as `surface`).
struct Mention {
  std::string entity_id;
  std::string chunk_id;
  std::string doc_id;
  std::string surface;
  int count = 1;
};

/// True for the symmetric relation types, co_occurs and compared_with: a relation of one says the
/// same read either way, so it is kept once, with src < dst (extraction, merging and the stores).
inline bool symmetric_relation(std::string_view type) { return type == "co_occurs" || type == "compared_with"; }

/// A typed edge between two entities. Identity: (src, dst, type). For the symmetric types
/// co_occurs and compared_with, src < dst. `weight` = number of evidence sentences (co-occurrence
/// strength; LLM-extracted relations also weigh 1 per sentence).
struct Relation {
  std::string src;
  std::string dst;
  std::string type;  ///< co_occurs | is_a | part_of | uses | extends | proposes | compared_with | ...
  double weight = 0;
  std::vector<Evidence> evidence;
  /// What the relation says in words (LLM extraction), e.g. "BERT is pre-trained with masked
  /// language modelling"; empty for rule-based relations. Merged like an entity description:
  /// the first non-empty one stays.
  std::string description{};
};

/// A Leiden community of entities with an extractive summary.
struct Community {
  std::string id;
  int level = 0;
  std::string title;                    ///< its most central entity names
  std::string summary;                  ///< extractive: sentences that best cover its entities
  std::vector<std::string> entity_ids;
  std::vector<std::string> chunk_ids;   ///< chunks the summary's sentences come from
};

/// A figure or table of a document (mmkg::Figure) as a node: linked to its document, page and
/// own chunk (caption, references, inner text, description), and to the entities that chunk
/// mentions, which the figure depicts or names. Identity: id (the store's figure id).
struct FigureNode {
  std::string id;
  std::string doc_id;
  std::string chunk_id;                 ///< its own chunk; empty for a figure with nothing to search by
  FigureKind kind = FigureKind::Figure;
  std::string label;                    ///< "Figure 3", "Table 2"; empty when uncaptioned
  std::string caption;
  int page = 0;                         ///< 1-based, 0 when the format has no pages
  std::vector<std::string> entity_ids;  ///< entities it depicts or mentions, in the order given
};

/// What one document (or one batch) adds to the graph. Entities are merged by id: aliases are
/// unioned, the higher score kept, an empty description filled. Mentions and relation evidence
/// are added; a relation's weight grows by the weight given here. Figures replace the stored
/// figure of the same id, entity links included (links to unknown entities are dropped).
struct GraphDelta {
  std::vector<Entity> entities;
  std::vector<Mention> mentions;
  std::vector<Relation> relations;
  // `= {}` so that the many {entities, mentions, relations} initialisers stay warning-free.
  std::vector<FigureNode> figures = {};
};

struct GraphStats {
  long long entities = 0;
  long long relations = 0;
  long long mentions = 0;
  long long aliases = 0;      ///< alias rows (surface forms) over all entities
  long long communities = 0;
  long long figures = 0;      ///< figure and table nodes
};

/// The key two names must share to be the same entity: lower-case, accents folded, hyphens,
/// underscores, slashes and runs of space become one space, possessive 's dropped, and the
/// last word singularised ("Multi-head  Attentions" → "multi head attention").
std::string name_key(std::string_view name);

/// The heading a section's path ends with ("Commands > 3.2 set terminal" → "set terminal"): its
/// last " > " part, white space collapsed, a leading section number dropped: one with a dot
/// ("2.1.3 ", "4. ") anywhere, one without ("3 ") below the top only ("3 Dots" is a title).
std::string section_heading(const std::string& heading_path);

/// The words of a name_key (split at its single spaces).
std::vector<std::string> key_words(const std::string& key);
/// A key without its spaces ("feed forward" → "feedforward"), to join spacing variants.
std::string key_compact(const std::string& key);

}  // namespace mmkg::graph
