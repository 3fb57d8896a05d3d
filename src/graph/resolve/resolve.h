// Entity resolution (one node per real-world thing) and entity linking (question phrases →
// entities). Case, plural, hyphen and spacing variants share a name_key(); acronyms merge with
// their expansions; near-duplicates merge by name and embedding similarity; distinct things
// ("attention" vs "attention sink") stay apart.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
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

/// The stored entities' names indexed for the merge step, which looks for stored names that are
/// lexically_compatible() with a new one: the same head word and 80% of the content-word stems
/// shared. Two such names share the head and, unless both are the head alone, one more content
/// stem; so names are listed under (head stem, other content stem) pairs, and under (head stem)
/// when they have no other, and a lookup reads the lists of its own pairs only (not every name
/// with a common head such as "film"). One per ingest run: read from the store once, on first
/// use, then kept in step with what the run upserts (add()), so that resolving a document costs
/// the same whatever the size of the store. An entity a removal took away may still be listed:
/// callers check that it exists before merging.
class NameCatalog {
 public:
  explicit NameCatalog(GraphStore& store) : store_(store) {}
  struct Name {
    std::string id, name, key;  ///< key: name_key(name)
  };
  /// Stored names that may be lexically_compatible with `key` (a superset; each at most once, in
  /// the order they were added); `key` itself may be among them.
  std::vector<const Name*> candidates(const std::string& key);
  /// Names of the delta's entities that are not listed yet (an existing entity keeps its name).
  void add(const GraphDelta& delta);

 private:
  void load();
  void insert(const std::string& id, const std::string& name);
  GraphStore& store_;
  bool loaded_ = false;
  std::vector<Name> names_;
  std::unordered_map<std::string, std::vector<size_t>> by_pair_;  ///< "head\x1fstem" → names_
  std::unordered_set<std::string> ids_;
};

/// Resolves one document's ranked extractions against the graph already in `store` and returns
/// what to upsert: entities (new ones with fresh ids, existing ones with new aliases), mentions
/// and relations, all by entity id. `catalog`: the run's NameCatalog of `store` (the caller
/// add()s the returned delta once upserted); nullptr reads the stored names for this document.
GraphDelta resolve_document(const std::vector<ChunkExtraction>& document, const std::string& doc_id,
                            GraphStore& store, const EmbedNames& embed, const ResolveOptions& options = {},
                            NameCatalog* catalog = nullptr);

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
