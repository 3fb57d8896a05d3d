// The typed configuration of a Session: every setting that several commands share, parsed and
// validated in one place (Config::validate), with its default and environment variable. Per-call
// settings live in the request structs of session.h.
#pragma once

#include <functional>
#include <string>

#include "embed/embedder.h"
#include "index/searcher.h"

namespace mmkg {

/// Where the knowledge graph lives.
struct GraphBackend {
  enum class Kind { None, Sqlite, Neo4j };
  Kind kind = Kind::Sqlite;
  std::string url;  ///< Neo4j: neo4j://USER:PASS@HOST:PORT[/DB] (the HTTP port); credentials never printed

  /// "none" | "sqlite" (or "") | "neo4j://..." | "http(s)://..." (Neo4j's HTTP API); UsageError otherwise.
  static GraphBackend parse(const std::string& spec);
  bool enabled() const { return kind != Kind::None; }
  /// Where the graph lives without credentials ("sqlite", "neo4j:HOST:PORT/DB"): the store keeps
  /// per key which documents the graph holds.
  std::string key() const;
};

/// How ingest builds the knowledge graph.
enum class ExtractMode { Rules, Llm, None };
/// "rules" | "llm" | "none"; UsageError otherwise.
ExtractMode parse_extract_mode(const std::string& s);

/// A warning for the user (the CLI prints "mmkg: warning: ..." on stderr).
using WarnFn = std::function<void(const std::string&)>;

struct Config {
  /// The store (--store; env MMKG_STORE; default ./mmkg-store): a directory (the embedded SQLite
  /// store) or neo4j://USER:PASS@HOST:PORT[/DB] (a store several processes and machines share).
  std::string store = "mmkg-store";
  /// With a shared store, the folder for this node's caches (--cache; env MMKG_CACHE_DIR; default
  /// $XDG_CACHE_HOME/mmkg, else ~/.cache/mmkg).
  std::string cache;
  /// The embedding model (--embedder; env MMKG_EMBEDDER): native (all-MiniLM-L6-v2),
  /// native:/model/folder, an OpenAI-compatible URL http(s)://HOST/v1#model=NAME&..., openai, or
  /// none (BM25 only); parsed where it is set (EmbedderSpec::parse), the model loads on first use.
  EmbedderSpec embedder;
  /// Hybrid search's fusion (--fusion zscore|relative|rrf; index/fusion.h). Unset (--fusion auto):
  /// z-score with the question's parts for `search` and eval's retrieval rows, relative for
  /// `ask`'s sub-queries (the lexical reranker follows them).
  std::optional<Fusion> fusion;
  /// The fitted ranker's model file (--ranker; Fusion::Fitted, index/ranker.h); empty: the one
  /// built into the binary (models/ranker.json).
  std::string ranker;
  /// The answerability model file (--answerable; agents/answerable.h); empty: the built-in one
  /// (models/answerable.json).
  std::string answerable;
  /// The answer-sentence selector's model file (--selector; agents/sentence_select.h); empty:
  /// the hand-set score.
  std::string selector;
  /// The knowledge graph's backend (--graph; env MMKG_GRAPH; default sqlite).
  GraphBackend graph;
  /// The chat model (--llm): "none", "local" (llama-cpp-python with SmolLM2), an OpenAI-compatible
  /// URL "http(s)://HOST/v1#model=NAME&...", or empty: the config file ($MMKG_CONFIG or
  /// ./mmkg.json), then the environment (MMKG_LLM_BASE_URL, GROQ_API_KEY, ...), else none.
  std::string llm;
  /// Step log on stderr (-v).
  bool verbose = false;
  /// Where warnings go; empty: "mmkg: warning: ..." on stderr.
  WarnFn warn;

  /// The settings the environment gives, as written (empty: unset): the defaults of --store,
  /// --embedder and --graph, which a command line parses once with its own flags.
  struct Env {
    std::string store, embedder, graph, cache;  ///< MMKG_STORE, MMKG_EMBEDDER, MMKG_GRAPH, MMKG_CACHE_DIR
  };
  static Env read_env();
  /// The defaults with the environment applied (read_env(), parsed). Throws UsageError for a bad
  /// MMKG_EMBEDDER or MMKG_GRAPH.
  static Config from_env();
  /// True when `store` names a shared store (neo4j://, http(s)://) rather than a directory.
  bool store_is_shared() const;
  /// A shared store keeps its graph in the same Neo4j database unless --graph said otherwise
  /// (`graph_unset`): sets `graph` to the store's URL then.
  void share_graph_with_store(bool graph_unset);
  /// Throws UsageError naming the setting and what to give instead.
  void validate() const;
};

}  // namespace mmkg
