// Where the chat model lives: base URL, model, API key and client limits, resolved from the
// --llm value, a config file and the environment (in that order of precedence, field by field).
#pragma once

#include <string>

namespace mmkg {

struct LlmConfig {
  std::string base_url;  ///< OpenAI-compatible base, e.g. "https://api.openai.com/v1" (no trailing /)
  std::string model;     ///< sent as "model"; empty lets the server pick (llama.cpp servers)
  std::string api_key;   ///< secret: sent as a bearer token only; never print it
  double timeout_s = 120;  ///< one whole request
  double stall_s = 60;     ///< silence after the first byte that counts as a stalled stream
  int concurrency = 4;     ///< requests in flight at once per client (1 for --llm local)
  int max_retries = 4;     ///< transport/status retries after the first attempt
  bool disabled = false;   ///< --llm none: no model (answers are extractive)
  /// The model takes images (option vision=1, config key llm.vision): figures may be sent to it.
  bool vision = false;
  /// The model's context window in tokens when known: set for the local server (its n_ctx), not
  /// read from a spec; 0: not known (ChatModel::context_window).
  int ctx = 0;
  /// --llm local: a local server is to be started by the caller (which then fills base_url).
  bool local = false;
  std::string source;  ///< where base_url came from: "--llm", "config file PATH", "MMKG_LLM_BASE_URL", ...

  /// A usable remote model is configured.
  bool configured() const { return !disabled && !base_url.empty(); }
  /// The base URL with credentials redacted, for messages.
  std::string describe() const;
};

constexpr const char* kGroqBaseUrl = "https://api.groq.com/openai/v1";
constexpr const char* kOpenAiBaseUrl = "https://api.openai.com/v1";
constexpr const char* kGroqDefaultModel = "llama-3.1-8b-instant";
constexpr const char* kOpenAiDefaultModel = "gpt-4o-mini";  // takes images too
constexpr const char* kGroqDefaultVisionModel = "meta-llama/llama-4-scout-17b-16e-instruct";

/// Parses an --llm value: "none", "local[#concurrency=N&timeout=S&retries=N]", or
/// "http(s)://host/v1#model=NAME&key_env=VAR&timeout=S&concurrency=N&retries=N&vision=1". Throws
/// UsageError for anything else. The key comes from key_env, else from the environment as in
/// resolve_llm_config.
LlmConfig parse_llm_spec(const std::string& spec);

/// Parses a --vlm value, the vision model that describes figures: an http(s) spec as for --llm,
/// with vision on (vision=0 is refused: a VLM must take images). Only the spec counts (no config
/// file, no MMKG_LLM_* variables): the chat model's settings, and its key, are not the VLM's. The
/// key comes from key_env, else GROQ_API_KEY / OPENAI_API_KEY for those services, else none.
/// Without model=, Groq gets kGroqDefaultVisionModel and OpenAI gpt-4o-mini. Throws UsageError
/// for none, local (SmolLM2 sees no images) or a bad spec.
LlmConfig parse_vlm_spec(const std::string& spec);

/// Resolves the configuration. Each field takes the first source that sets it:
///  1. `llm_flag` (the --llm value; empty = not given),
///  2. the config file: $MMKG_CONFIG, else ./mmkg.json when it exists, keys under "llm":
///     base_url, model, api_key_env, timeout, concurrency, max_retries, vision,
///  3. the environment: MMKG_LLM_BASE_URL, MMKG_LLM_MODEL, MMKG_LLM_API_KEY; without a base URL,
///     GROQ_API_KEY or else OPENAI_API_KEY selects that service (and its default model).
/// With nothing configured the result has configured() == false. Throws UsageError for a bad
/// flag or config file (the message never holds a key).
LlmConfig resolve_llm_config(const std::string& llm_flag = "");

/// "http://h:1" -> "http://h:1/v1"; strips a trailing "/" and "/chat/completions".
std::string normalise_llm_base_url(std::string url);

}  // namespace mmkg
