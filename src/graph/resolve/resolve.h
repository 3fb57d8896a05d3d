// Entity resolution (one node per real-world thing) and entity linking (question phrases →
// entities). Case, plural, hyphen and spacing variants share a name_key(); acronyms merge with
// their expansions; near-duplicates merge by name and embedding similarity; distinct things
// ("attention" vs "attention sink") stay apart.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "graph/model/extractor.h"
#include "graph/model/graph_store.h"
#include "graph/model/graph_types.h"

namespace mmkg::graph {

/// Embeds names (entity names, question phrases): one L2-normalised vector per input, or an
/// empty result when no embedder is configured (embedding steps are then skipped).
using EmbedNames = std::function<std::vector<std::vector<float>>(const std::vector<std::string>&)>;

struct ResolveOptions {
  /// Cosine above which two names whose keys differ may merge (only when they also pass the
  /// lexical checks: same head word, high token overlap). Documented in resolve.cc.
  double merge_cosine = 0.90;
};

/// Resolves one document's ranked extractions against the graph already in `store` and returns
/// what to upsert: entities (new ones with fresh ids, existing ones with new aliases), mentions
/// and relations, all by entity id.
GraphDelta resolve_document(const std::vector<ChunkExtraction>& document, const std::string& doc_id,
                            GraphStore& store, const EmbedNames& embed, const ResolveOptions& options = {});

/// True when `acronym` ("MHA", "LLMs", "RoPE") abbreviates `phrase` ("multi-head attention",
/// "large language models", "rotary position embedding").
bool is_acronym_of(const std::string& acronym, const std::string& phrase);

/// True when two name keys may name one thing: equal (or equal without spaces), or the same head
/// word (stemmed) and at least 80% of the content-word stems shared ("positional encoding" /
/// "position encoding"; not "language model" / "large language model", not "cross attention" /
/// "cross modal attention"). Used by resolution and by embedding links.
bool lexically_compatible(const std::string& key_a, const std::string& key_b);

/// A linked entity with how it was found.
struct EntityLink {
  std::string entity_id;
  std::string name;
  std::string phrase;  ///< the question phrase that linked
  std::string how;     ///< exact | alias | fuzzy | embedding
  double score = 0;    ///< 1 for exact/alias, similarity otherwise
};

/// In-memory index over the store's entities for linking: keys and aliases, character trigrams
/// for fuzzy matching, and name vectors for embedding matching. Build once per query process.
class EntityIndex {
 public:
  static std::unique_ptr<EntityIndex> build(GraphStore& store, const EmbedNames& embed);
  virtual ~EntityIndex() = default;
  /// Links the phrases of a question (all n-grams up to 6 words are tried; longer matches win
  /// over their parts) to at most `max_links` entities, best first.
  virtual std::vector<EntityLink> link(const std::string& question, int max_links = 8) = 0;
  /// Entities whose name or alias matches `name` (exact, alias, then fuzzy/embedding), best first.
  virtual std::vector<EntityLink> lookup(const std::string& name, int max_results = 5) = 0;
};

}  // namespace mmkg::graph
