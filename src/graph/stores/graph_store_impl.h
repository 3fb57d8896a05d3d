// Internal to the graph-store backends: the delta normalisation both share, so that the SQLite
// and Neo4j stores apply GraphDelta's merge rules identically.
#pragma once

#include <string>
#include <vector>

#include "graph/model/graph_types.h"

namespace mmkg::graph::detail {

/// Schema version of the graph tables (SQLite) and graph meta node (Neo4j).
/// 1: first version. 2: relations have a description (graph_relations.description in SQLite,
/// REL.description in Neo4j). 3: figure and table nodes linked to the entities they depict
/// (graph_figures and graph_depicts in SQLite, :Figure and DEPICTS in Neo4j). 4: Neo4j's chunk
/// nodes carry their text (heading_path, text, context) in the full-text index mmkg_chunk_text,
/// which can serve search's lexical side; nothing changes in SQLite (the store's FTS5 index
/// holds the text there). 5: SQLite's evidence rows are unique by the hash of their sentence
/// (graph_evidence.sentence_hash), not by the sentence; nothing changes in Neo4j. Older graphs
/// are migrated on open.
inline constexpr int kGraphSchemaVersion = 5;

/// One evidence sentence with the share of the relation weight it carries.
struct WeightedEvidence {
  Evidence ev;
  double weight = 0;
};

/// A relation as written: the weight to add (the sum of its evidence weights plus any weight
/// given without evidence) and its evidence, deduplicated by (chunk_id, sentence).
struct RelationWrite {
  std::string src, dst, type;
  double weight = 0;
  std::vector<WeightedEvidence> evidence;
  std::string description{};  ///< the first non-empty description of the merged relations
};

/// Entities merged by id within the delta (first-seen order), with the merge rules of GraphDelta;
/// each entity's aliases deduplicated, its name included.
std::vector<Entity> merge_entities(const std::vector<Entity>& in);

/// Mentions merged by (entity_id, chunk_id) within the delta: counts added, first surface kept.
std::vector<Mention> merge_mentions(const std::vector<Mention>& in);

/// Relations merged by (src, dst, type) within the delta (symmetric types put in src < dst
/// order). A relation's weight is spread evenly over its evidence (rule-based relations: weight =
/// evidence count, so 1 each); identical (chunk_id, sentence) evidence is merged, weights added;
/// the first non-empty description is kept.
std::vector<RelationWrite> merge_relations(const std::vector<Relation>& in);

/// Figures deduplicated by id within the delta: the last one given replaces the earlier ones (as
/// a later upsert replaces a stored figure), at the place of the first. Each figure's entity
/// ids deduplicated (first occurrence kept), empty ids dropped.
std::vector<FigureNode> merge_figures(const std::vector<FigureNode>& in);

}  // namespace mmkg::graph::detail
