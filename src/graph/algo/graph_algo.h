// Graph algorithms for retrieval: personalised PageRank from linked entities to rank chunks
// (HippoRAG-style) and Leiden communities (libigraph) with extractive summaries.
#pragma once

#include <functional>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "graph/model/graph_types.h"

namespace mmkg::graph {

/// An entity's home passage: the chunk whose subject it is (home_passages()).
struct HomePassage {
  std::string entity_id;
  std::string chunk_id;
};

/// The whole graph in memory (read once from a GraphStore), with the entities' home passages.
struct GraphSnapshot {
  std::vector<Entity> entities;
  std::vector<Relation> relations;
  std::vector<Mention> mentions;
  std::vector<HomePassage> homes{};
};

/// A chunk as home_passages() reads it: its id, its document and its heading path
/// ("Intro > Background"), in document order.
struct ChunkLabel {
  std::string id;
  std::string doc_id;
  std::string heading_path;
  std::string text{};  ///< for home_mentions(); may be empty
};

/// The passages that are about an entity: the first chunk of a section whose heading
/// (section_heading(): the last part of the heading path, its number dropped) is a name or alias
/// of the entity, up to name_key() ("Lothair II"
/// for the passage under "# Lothair II"; "set terminal" for a manual's section of that name).
/// A heading that names no entity, or several, makes no home.
std::vector<HomePassage> home_passages(const GraphSnapshot& g, const std::vector<ChunkLabel>& chunks);

/// Mentions of the entities that have a home passage (`homes`), found by name in the chunks'
/// text: a passage that names "Ermengarde of Tours" links to her home even where the extractor
/// did not take the name as a term. A match is a run of up to 6 words whose name_key() is a name
/// or alias key of exactly one such entity, every word of it starting with a capital or a digit
/// where it is a letter (a proper name as written; "place of birth" in lower case is no mention of
/// the article "Place of birth"). Only mentions the snapshot lacks, count 1, in chunk order.
std::vector<Mention> home_mentions(const GraphSnapshot& g, const std::vector<HomePassage>& homes,
                                   const std::vector<ChunkLabel>& chunks);

struct PprOptions {
  double damping = 0.5;  ///< probability of following an edge (HippoRAG uses 0.5)
  int iterations = 50;
  double tolerance = 1e-8;
  /// Weight of the edge between an entity and its home passage (GraphSnapshot::homes), added to
  /// any mention edge: a passage about the entity passes on more of its mass than one that names
  /// it in passing (a mention's edge weighs log1p(count), 0.69 for one mention).
  double home_weight = 2.0;
};

/// Personalised PageRank over the entity graph (relation weights; each entity also linked to the
/// chunks that mention it and to its home passages), restarting at `seeds` (entity id → weight)
/// and at `chunk_seeds` (chunk id → weight: passages a retriever found). Returns chunks ranked by
/// their PPR mass, best first, at most `k`.
std::vector<std::pair<std::string, double>> rank_chunks_by_ppr(const GraphSnapshot& g,
                                                               const std::map<std::string, double>& seeds,
                                                               int k, const PprOptions& options = {},
                                                               const std::map<std::string, double>& chunk_seeds = {});

/// Entity PPR scores (entity id → score), for explaining and for expanding neighbourhoods.
std::map<std::string, double> entity_ppr(const GraphSnapshot& g, const std::map<std::string, double>& seeds,
                                         const PprOptions& options = {});

/// What the hops that weigh shared entities by specificity read (rank_chunks_by_bridge,
/// rank_cross_references): each entity's chunk count and each chunk's document, over the chunks
/// that have mentions. One pass over the mentions, made once per snapshot (GraphContext) rather
/// than once per hop and question.
struct MentionStats {
  std::unordered_map<std::string, int> df;              ///< entity id → chunks that mention it
  std::unordered_map<std::string, std::string> doc_of;  ///< chunk id → its document id
  size_t chunks = 0;                                    ///< chunks with at least one mention
  /// log(C / df): how specific an entity is. A package or function named in few passages is a
  /// bridge (high); a word named in almost every passage ("model") is not (near 0). 0 when unknown.
  double specificity(const std::string& entity_id) const;
};

MentionStats mention_stats(const GraphSnapshot& g);

struct BridgeOptions {
  /// How many of the seed chunks the hop starts from; by default all given (retrieval gives the
  /// chunks its sub-queries ranked within their cut: the whole first hop, no extra parameter).
  size_t seeds = std::numeric_limits<size_t>::max();
  int k = 10;        ///< chunks returned
};

/// Bridge-entity expansion for questions that need a second hop: chunks that share specific
/// entities with `seed_chunks` (the retrievers' best chunks, best first) and lie in another
/// document than the seeds naming those entities. Each shared entity adds its inverse document
/// frequency over the chunks, log(C / df): a package or function named in few passages is a
/// bridge, a word named everywhere is not. Seeds themselves are not returned. Best first, at
/// most `k`; empty when nothing bridges.
std::vector<std::pair<std::string, double>> rank_chunks_by_bridge(const GraphSnapshot& g,
                                                                  const std::vector<std::string>& seed_chunks,
                                                                  const BridgeOptions& options = {});
/// The same with the snapshot's statistics computed once beforehand (`stats` = mention_stats(g)).
std::vector<std::pair<std::string, double>> rank_chunks_by_bridge(const GraphSnapshot& g, const MentionStats& stats,
                                                                  const std::vector<std::string>& seed_chunks,
                                                                  const BridgeOptions& options = {});

/// A document as the graph's document layer sees it: its id (Mention::doc_id), file name and title.
struct DocumentLabel {
  std::string id;
  std::string file_name;  ///< "lmtest-intro.pdf"
  std::string title;      ///< "strucchange: An R Package for ..."; may be empty
};

/// The coined names a document goes by: the words of its file name (without the extension) and
/// of its title's head before a colon ("strucchange: An R Package ...") that are no English word
/// (WordNet), no stop word and at least 3 letters: "lmtest", "strucchange", "bert". English words
/// in a file name ("survival", "intro") name a topic, not the document. Lower case, sorted.
std::vector<std::string> document_name_terms(const DocumentLabel& doc);

/// The document layer of the graph: for each chunk, the other documents it names (cross
/// references). A chunk names document D when it mentions an entity whose name holds one of D's
/// name terms ("package lmtest" names lmtest-intro.pdf) and its own document does not go by that
/// term. Chunk id → ids of the named documents, sorted.
std::map<std::string, std::vector<std::string>> cross_references(const GraphSnapshot& g,
                                                                  const std::vector<DocumentLabel>& docs);

struct CrossRefOptions {
  int k = 10;  ///< chunks returned
  /// Order by how many documents a passage names first (a question about the collection: the
  /// passage that relates the most of its documents, such as "the packages A, B and C are
  /// required"), then by shared entities. Every named document counts, found or not: the question
  /// asks about the whole collection, and which of its documents the retrievers' first hits
  /// happen to reach says little about which ones the answer spans (the passage must still lie in
  /// a found document and name one).
  bool breadth = false;
};

/// Cross-reference passages between the documents the retrievers found: chunks that name a
/// document among those of `first_hits` (the retrievers' best chunks) and lie in one of them, the
/// first hits left out. Scored by the entities they share with the first hits, each adding
/// log(C / df) as in rank_chunks_by_bridge (here the first hits' own documents count too: the
/// passage that names the other document is often the one after the first hit); see
/// CrossRefOptions::breadth. Best first, at most `k`; chunks sharing no entity are left out.
std::vector<std::pair<std::string, double>> rank_cross_references(
    const GraphSnapshot& g, const std::map<std::string, std::vector<std::string>>& xrefs,
    const std::vector<std::string>& first_hits, const CrossRefOptions& options = {});
/// The same with the snapshot's statistics computed once beforehand (`stats` = mention_stats(g)).
std::vector<std::pair<std::string, double>> rank_cross_references(
    const GraphSnapshot& g, const MentionStats& stats, const std::map<std::string, std::vector<std::string>>& xrefs,
    const std::vector<std::string>& first_hits, const CrossRefOptions& options = {});

struct CommunityOptions {
  double resolution = 1.0;  ///< Leiden resolution (modularity objective)
  int min_size = 3;         ///< smaller communities are not kept
  int summary_sentences = 3;
  unsigned seed = 42;       ///< fixed, so runs are repeatable
};

/// Leiden communities over the entity graph (relation weights), each with a title (its most
/// central entity names) and an extractive summary: `sentence_source(chunk_id)` gives the text of
/// a chunk; the summary is the sentences that mention the most of the community's entities.
std::vector<Community> detect_communities(const GraphSnapshot& g,
                                          const std::function<std::string(const std::string&)>& chunk_text,
                                          const CommunityOptions& options = {});

}  // namespace mmkg::graph
