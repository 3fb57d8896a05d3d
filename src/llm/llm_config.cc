#include "llm/llm_config.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "net/http.h"

namespace mmkg {
namespace {

using json = nlohmann::json;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

double positive_number(const std::string& what, const std::string& v) {
  try {
    size_t used = 0;
    double d = std::stod(v, &used);
    if (used == v.size() && d > 0) return d;
  } catch (...) {
  }
  throw UsageError(what + "=" + v + " must be a positive number");
}

int non_negative_int(const std::string& what, const std::string& v, bool allow_zero) {
  try {
    size_t used = 0;
    int n = std::stoi(v, &used);
    if (used == v.size() && (n > 0 || (allow_zero && n == 0))) return n;
  } catch (...) {
  }
  throw UsageError(what + "=" + v + " must be a " + (allow_zero ? "non-negative" : "positive") +
                   " whole number");
}

bool flag(const std::string& what, const std::string& v) {
  if (v.empty() || v == "1" || v == "true" || v == "yes") return true;  // a bare "#vision" too
  if (v == "0" || v == "false" || v == "no") return false;
  throw UsageError(what + "=" + v + " must be 1 or 0");
}

std::string key_from_env_var(const std::string& var, const std::string& where) {
  std::string k = env(var.c_str());
  if (k.empty()) throw UsageError(where + " names " + var + ", an empty environment variable; export it");
  return k;
}

// The key for a base URL when none was named: MMKG_LLM_API_KEY, else the service's own variable.
std::string default_key_for(const std::string& base_url) {
  std::string k = env("MMKG_LLM_API_KEY");
  if (!k.empty()) return k;
  if (base_url.find("api.groq.com") != std::string::npos) return env("GROQ_API_KEY");
  if (base_url.find("api.openai.com") != std::string::npos) return env("OPENAI_API_KEY");
  return {};
}

std::string default_model_for(const std::string& base_url) {
  if (base_url.find("api.groq.com") != std::string::npos) return kGroqDefaultModel;
  if (base_url.find("api.openai.com") != std::string::npos) return kOpenAiDefaultModel;
  return {};
}

// Fields a source may set; unset = nullopt/empty.
struct Partial {
  std::string base_url, model, api_key, source;
  bool key_set = false;
  std::optional<double> timeout_s;
  std::optional<int> concurrency, max_retries, ctx;
  std::optional<bool> vision;
};

void apply(LlmConfig& c, const Partial& p, bool& have_url, bool& have_model, bool& have_key,
           bool& have_timeout, bool& have_conc, bool& have_retries, bool& have_vision) {
  if (!have_url && !p.base_url.empty()) c.base_url = p.base_url, c.source = p.source, have_url = true;
  if (!have_model && !p.model.empty()) c.model = p.model, have_model = true;
  if (!have_key && p.key_set) c.api_key = p.api_key, have_key = true;
  if (!have_timeout && p.timeout_s) c.timeout_s = *p.timeout_s, have_timeout = true;
  if (!have_conc && p.concurrency) c.concurrency = *p.concurrency, have_conc = true;
  if (!have_retries && p.max_retries) c.max_retries = *p.max_retries, have_retries = true;
  if (!have_vision && p.vision) c.vision = *p.vision, have_vision = true;
  if (c.ctx == 0 && p.ctx) c.ctx = *p.ctx;  // the first source that knows the window
}

Partial parse_url_spec(const std::string& spec) {
  Partial p;
  std::string s = spec;
  const auto options = split_fragment_options(s);
  p.base_url = normalise_llm_base_url(s);
  p.source = "--llm";
  for (const auto& [key, val] : options) {
    if (key == "model") p.model = val;
    else if (key == "key_env") p.api_key = key_from_env_var(val, "key_env"), p.key_set = true;
    else if (key == "timeout") p.timeout_s = positive_number("timeout", val);
    else if (key == "concurrency") p.concurrency = non_negative_int("concurrency", val, false);
    else if (key == "retries") p.max_retries = non_negative_int("retries", val, true);
    else if (key == "vision") p.vision = flag("vision", val);
    else if (key == "ctx") p.ctx = non_negative_int("ctx", val, false);
    else
      throw UsageError("unknown --llm option \"" + key +
                       "\"; use model, key_env, timeout, concurrency, retries, vision or ctx");
  }
  return p;
}

Partial from_file(const std::string& path, bool required) {
  Partial p;
  std::ifstream in(path);
  if (!in) {
    if (required) throw UsageError("cannot read the config file " + path + " (MMKG_CONFIG); fix the path");
    return p;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  json j;
  try {
    j = json::parse(ss.str());
  } catch (const std::exception& e) {
    throw UsageError("config file " + path + " is not valid JSON (" + e.what() + "); fix it");
  }
  if (!j.is_object() || !j.contains("llm")) return p;
  const json& l = j["llm"];
  if (!l.is_object()) throw UsageError("config file " + path + ": \"llm\" must be an object");
  auto str = [&](const char* k) -> std::string {
    if (!l.contains(k)) return {};
    if (!l[k].is_string()) throw UsageError("config file " + path + ": llm." + k + " must be a string");
    return l[k].get<std::string>();
  };
  auto num = [&](const char* k) -> std::optional<double> {
    if (!l.contains(k)) return std::nullopt;
    if (!l[k].is_number() || l[k].get<double>() < 0)
      throw UsageError("config file " + path + ": llm." + k + " must be a non-negative number");
    return l[k].get<double>();
  };
  if (l.contains("api_key")) {
    throw UsageError("config file " + path + ": llm.api_key is not read (keys do not belong in files); "
                     "put the key in an environment variable and name it in llm.api_key_env");
  }
  if (auto u = str("base_url"); !u.empty()) p.base_url = normalise_llm_base_url(u), p.source = "config file " + path;
  p.model = str("model");
  if (auto ke = str("api_key_env"); !ke.empty()) {
    p.api_key = key_from_env_var(ke, "config file " + path + ": llm.api_key_env");
    p.key_set = true;
  }
  if (auto t = num("timeout")) {
    if (*t <= 0) throw UsageError("config file " + path + ": llm.timeout must be positive");
    p.timeout_s = *t;
  }
  if (auto c = num("concurrency")) {
    if (*c < 1) throw UsageError("config file " + path + ": llm.concurrency must be at least 1");
    p.concurrency = static_cast<int>(*c);
  }
  if (auto r = num("max_retries")) p.max_retries = static_cast<int>(*r);
  if (l.contains("vision")) {
    if (!l["vision"].is_boolean()) throw UsageError("config file " + path + ": llm.vision must be true or false");
    p.vision = l["vision"].get<bool>();
  }
  return p;
}

Partial from_env() {
  Partial p;
  p.base_url = env("MMKG_LLM_BASE_URL");
  if (!p.base_url.empty()) {
    p.base_url = normalise_llm_base_url(p.base_url);
    p.source = "MMKG_LLM_BASE_URL";
  } else if (!env("GROQ_API_KEY").empty()) {
    p.base_url = kGroqBaseUrl;
    p.source = "GROQ_API_KEY";
  } else if (!env("OPENAI_API_KEY").empty()) {
    p.base_url = kOpenAiBaseUrl;
    p.source = "OPENAI_API_KEY";
  }
  p.model = env("MMKG_LLM_MODEL");
  return p;
}

}  // namespace

std::string LlmConfig::describe() const {
  if (disabled) return "none";
  if (base_url.empty()) return local ? "local" : "(not configured)";
  return (model.empty() ? std::string() : model + " at ") + redact_url(base_url);
}

std::string normalise_llm_base_url(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  const std::string suffix = "/chat/completions";
  if (s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0) {
    s.resize(s.size() - suffix.size());
  }
  const size_t scheme = s.find("://");
  if (scheme != std::string::npos && s.find('/', scheme + 3) == std::string::npos) s += "/v1";
  return s;
}

LlmConfig parse_llm_spec(const std::string& spec) {
  LlmConfig c;
  if (spec == "none") {
    c.disabled = true;
    c.source = "--llm";
    return c;
  }
  if (spec == "local" || spec.rfind("local#", 0) == 0) {
    // Hook: the caller starts the local model server and fills base_url (and model).
    c.local = true;
    c.source = "--llm";
    // llama-cpp-python's server answers one request at a time: more in flight only queue there,
    // and interleaved conversations lose its reuse of the previous request's prompt prefix.
    c.concurrency = 1;
    std::string s = spec;
    for (const auto& [key, val] : split_fragment_options(s)) {
      if (key == "concurrency") c.concurrency = non_negative_int("concurrency", val, false);
      else if (key == "timeout") c.timeout_s = positive_number("timeout", val);
      else if (key == "retries") c.max_retries = non_negative_int("retries", val, true);
      else
        throw UsageError("unknown --llm local option \"" + key +
                         "\"; use concurrency, timeout or retries (MMKG_LOCAL_MODEL names another .gguf model)");
    }
    return c;
  }
  if (spec.rfind("http://", 0) != 0 && spec.rfind("https://", 0) != 0) {
    throw UsageError("--llm \"" + redact_url(spec) + "\" is not none, local[#concurrency=N] or an http(s) URL "
                     "such as https://api.openai.com/v1#model=gpt-4o-mini");
  }
  Partial p = parse_url_spec(spec);
  bool u = false, m = false, k = false, t = false, cc = false, r = false, v = false;
  apply(c, p, u, m, k, t, cc, r, v);
  if (!k) c.api_key = default_key_for(c.base_url);
  if (!m) c.model = default_model_for(c.base_url);
  return c;
}

LlmConfig parse_vlm_spec(const std::string& spec) {
  if (spec.rfind("http://", 0) != 0 && spec.rfind("https://", 0) != 0) {
    throw UsageError("--vlm \"" + redact_url(spec) + "\" is not the URL of a vision model; give an OpenAI-compatible "
                     "server's, such as http://127.0.0.1:11434/v1#model=qwen2.5vl (Ollama), or leave --vlm out");
  }
  std::string probe = spec;
  bool named_model = false, named_key = false;
  for (const auto& [key, val] : split_fragment_options(probe)) {
    if (key == "vision" && !flag("vision", val)) {
      throw UsageError("--vlm with vision=0 names a model that takes no images; drop vision=0 or leave --vlm out");
    }
    named_model = named_model || (key == "model" && !val.empty());
    named_key = named_key || key == "key_env";
  }
  LlmConfig c;
  try {
    c = parse_llm_spec(spec);
  } catch (const UsageError& e) {
    // The same options as --llm; name the flag the user actually gave.
    std::string msg = e.what();
    for (size_t p; (p = msg.find("--llm")) != std::string::npos;) msg.replace(p, 5, "--vlm");
    throw UsageError(msg);
  }
  c.vision = true;
  // MMKG_LLM_API_KEY belongs to the chat model's server; sent to another host it would leak.
  // Without key_env, only a service's own variable goes to that service.
  if (!named_key) {
    c.api_key.clear();
    if (c.base_url.find("api.groq.com") != std::string::npos) c.api_key = env("GROQ_API_KEY");
    if (c.base_url.find("api.openai.com") != std::string::npos) c.api_key = env("OPENAI_API_KEY");
  }
  // Groq's default chat model sees no images; its vision model does.
  if (!named_model && c.base_url.find("api.groq.com") != std::string::npos) c.model = kGroqDefaultVisionModel;
  return c;
}

LlmConfig resolve_llm_config(const std::string& llm_flag) {
  LlmConfig c;
  bool u = false, m = false, k = false, t = false, cc = false, r = false, v = false;
  if (!llm_flag.empty()) {
    if (llm_flag == "none" || llm_flag == "local" || llm_flag.rfind("local#", 0) == 0) return parse_llm_spec(llm_flag);
    if (llm_flag.rfind("http://", 0) != 0 && llm_flag.rfind("https://", 0) != 0) parse_llm_spec(llm_flag);  // throws
    apply(c, parse_url_spec(llm_flag), u, m, k, t, cc, r, v);
  }
  const std::string cfg_env = env("MMKG_CONFIG");
  if (!cfg_env.empty()) {
    apply(c, from_file(cfg_env, true), u, m, k, t, cc, r, v);
  } else if (std::filesystem::exists("mmkg.json")) {
    apply(c, from_file("mmkg.json", false), u, m, k, t, cc, r, v);
  }
  Partial e = from_env();
  // A key from the environment belongs to whichever base URL won.
  apply(c, e, u, m, k, t, cc, r, v);
  if (!k && !c.base_url.empty()) c.api_key = default_key_for(c.base_url);
  if (!m) c.model = default_model_for(c.base_url);
  return c;
}

}  // namespace mmkg
