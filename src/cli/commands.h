// The mmkg subcommands. Each returns the process exit code: 0 ok, 1 some inputs failed,
// 2 usage/configuration error.
#pragma once

#include <string>
#include <vector>

#include <memory>
#include <nlohmann/json.hpp>

#include "agents/ask.h"
#include "graph/graph_builder.h"
#include "ingest/ingest.h"

namespace mmkg {
class ChatModel;
class LocalModelServer;
class Store;
}  // namespace mmkg

namespace mmkg::cli {

/// Options every command shares.
struct Common {
  std::string store;     ///< store directory (--store, MMKG_STORE, ./mmkg-store)
  bool json = false;     ///< one JSON object on stdout
  bool verbose = false;  ///< step log on stderr
  std::string embedder = "native";  ///< --embedder / MMKG_EMBEDDER: native, native:/path, none
  std::string fusion = "relative";  ///< --fusion: hybrid fusion, relative or rrf
  std::string graph = "sqlite";     ///< --graph / MMKG_GRAPH: sqlite, neo4j://USER:PASS@HOST:PORT[/DB], none
};

/// `extract`: rules, llm or none; `llm`: the --llm value for --extract llm (empty: config file,
/// then environment).
int cmd_ingest(const Common& c, const std::vector<std::string>& paths, const IngestOptions& opt, bool progress,
               const std::string& extract, const std::string& llm = "");
int cmd_search(const Common& c, const std::string& query, int k, const std::string& mode);
/// `rerank`: the --rerank spec (make_reranker); built here with the store, embedder and model.
int cmd_ask(const Common& c, const std::string& question, const AskOptions& opt, const std::string& llm,
            const std::string& rerank = "none");
int cmd_delete(const Common& c, const std::vector<std::string>& docs);
int cmd_stats(const Common& c);
int cmd_graph(const Common& c, const std::string& action, const std::string& name, const std::string& format,
              const std::string& output);
/// eval's retrieval options beyond the search mode.
struct EvalFlags {
  std::string rerank = "none";  ///< --rerank: scored as "<mode>+rerank" and used for --answers
  size_t context_tokens = RetrieveOptions{}.max_context_tokens;  ///< --context-tokens for --answers
  size_t rerank_top_n = RetrieveOptions{}.rerank_top_n;         ///< --rerank-top
  double rerank_weight = RetrieveOptions{}.rerank_weight;       ///< --rerank-weight
  AskOptions ask;  ///< the query team's options for --answers (--max-rounds, --judge, --parallel)
};
int cmd_eval(const Common& c, const std::string& qa_path, bool answers, const std::string& mode,
             const std::string& llm = "", const EvalFlags& flags = {});

/// The graph store named by c.graph on `store` (nullptr for --graph none).
std::unique_ptr<graph::GraphStore> open_graph(const Common& c, Store& store);
/// Where the graph lives, without credentials ("sqlite", "neo4j:HOST:PORT/DB").
std::string graph_backend_key(const std::string& spec);
nlohmann::json graph_sync_json(const graph::GraphSyncResult& g);

/// The language model for ask/eval (llm_open.cc): nullptr for none; for `--llm local` starts the
/// local server into `local` (stopped when it is destroyed). Responses are cached in the store.
std::unique_ptr<ChatModel> open_llm(const Common& c, Store& store, const std::string& llm,
                                    std::unique_ptr<LocalModelServer>& local);

/// The language model for ingest --extract llm, connected (and for `--llm local` started) on
/// its first request, so a run with nothing to extract starts nothing. `chat` is null when no
/// model is configured. Throws UsageError for a bad --llm value or a missing local model.
struct LazyLlm {
  std::unique_ptr<ChatModel> chat;
  std::string model;    ///< the model's name for ids ("SmolLM2-135M-Instruct.Q4_1"); no secrets
  int concurrency = 1;  ///< requests in flight at once (LlmConfig::concurrency)
};
LazyLlm open_llm_lazy(const Common& c, const std::string& store_dir, const std::string& llm);

/// Prints `mmkg: error: <subject>: <message>` (or without subject) on stderr.
void print_error(const std::string& subject, const std::string& message);

}  // namespace mmkg::cli
