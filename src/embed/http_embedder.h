// The OpenAI-compatible HTTP embedder: POST {base}/embeddings on any server that speaks the
// OpenAI embeddings API (OpenAI, Ollama, llama.cpp and llama-cpp-python servers, vLLM, TEI).
#pragma once

#include <memory>
#include <string>

#include "embed/embedder.h"
#include "net/http.h"

namespace mmkg {

/// Settings of the HTTP embedder, parsed from a spec such as
///   http://127.0.0.1:8080/v1#model=embeddinggemma&prompts=gemma&batch=32
/// Options go in the URL fragment (never sent to the server), separated by '&', values
/// percent-decoded ('+' is a space):
///   model=NAME          the "model" field of each request (default: empty, fine for servers
///                       that serve one model)
///   prompts=STYLE       gemma: EmbeddingGemma's "task: search result | query: " for queries and
///                       "title: none | text: " for documents; e5: "query: " / "passage: ";
///                       nomic: "search_query: " / "search_document: "; none (default)
///   query_prefix=TEXT   explicit query prefix (overrides prompts)
///   doc_prefix=TEXT     explicit document prefix (overrides prompts)
///   batch=N             texts per request (default 32); lowered automatically when the server
///                       refuses a batch but takes its halves
///   parallel=N          requests in flight at once (default 2)
///   dim=N               expected dimension; a different answer is an error
///   key_env=VAR         environment variable holding the API key (default MMKG_EMBED_API_KEY,
///                       then OPENAI_API_KEY for api.openai.com)
///   timeout=SECONDS     per request (default 120)
/// "openai" alone means https://api.openai.com/v1#model=text-embedding-3-small.
/// The prompts put before queries and documents: none, a model family's (prompts=gemma, e5,
/// nomic) or the user's own (query_prefix=, doc_prefix=).
enum class PromptStyle { None, Gemma, E5, Nomic, Custom };
/// "none", "gemma", "e5", "nomic", "custom" (a part of the embedder's id).
const char* prompt_style_name(PromptStyle s);

struct HttpEmbedderConfig {
  std::string url;  // the full .../embeddings endpoint
  std::string model;
  PromptStyle style = PromptStyle::None;
  std::string query_prefix;
  std::string doc_prefix;
  int batch = 32;
  int parallel = 2;
  int dim = 0;
  std::string api_key;  // never printed
  double timeout_s = 120;
};

/// Parses a spec (see HttpEmbedderConfig). Throws UsageError with what to do on a bad spec.
HttpEmbedderConfig parse_http_embedder_spec(const std::string& spec);

/// Connects (one probe request to learn the dimension) and returns the embedder. Throws Error
/// naming the server when it cannot be reached or answers something that is not embeddings.
/// `policy` is for tests (recorded sleeps); the default retries 5 times with backoff.
std::unique_ptr<Embedder> make_http_embedder(const HttpEmbedderConfig& config,
                                             const RetryPolicy& policy = {});

}  // namespace mmkg
