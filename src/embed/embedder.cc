// make_embedder: the one place where an embedder spec ("native", "native:/path", "http://...") is parsed
// and dispatched to its backend. Each backend lives in its own file and exposes a
// make_<backend>_embedder function; add new schemes to the table below.
#include "embed/embedder.h"

#include "core/error.h"
#include "embed/http_embedder.h"
#include "embed/native_embedder.h"

namespace mmkg {

std::vector<std::vector<float>> embed_rows(Embedder& embedder, const std::vector<std::string>& texts, EmbedKind kind) {
  const std::vector<float> flat = embedder.embed(texts, kind);
  const size_t d = static_cast<size_t>(embedder.dim());
  std::vector<std::vector<float>> out(texts.size());
  for (size_t i = 0; i < texts.size() && (i + 1) * d <= flat.size(); ++i)
    out[i].assign(flat.begin() + static_cast<long>(i * d), flat.begin() + static_cast<long>((i + 1) * d));
  return out;
}

double dot(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return 0;
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i) s += static_cast<double>(a[i]) * b[i];
  return s;
}

std::unique_ptr<Embedder> make_embedder(const std::string& spec) {
  const size_t colon = spec.find(':');
  const std::string scheme = spec.substr(0, colon);
  const std::string arg = colon == std::string::npos ? "" : spec.substr(colon + 1);

  if (scheme == "native") {
    if (colon != std::string::npos && arg.empty()) {
      throw UsageError("embedder spec \"native:\" needs a folder; use native or native:/path");
    }
    return make_native_embedder(arg);  // empty arg: the bundled all-MiniLM-L6-v2, found on disk
  }
  if (scheme == "http" || scheme == "https" || spec == "openai" || spec.rfind("openai#", 0) == 0) {
    return make_http_embedder(parse_http_embedder_spec(spec));
  }

  throw UsageError("unknown embedder \"" + spec +
                   "\"; use native (the bundled all-MiniLM-L6-v2), native:/path/to/model, or the URL of an "
                   "OpenAI-compatible server such as http://127.0.0.1:8080/v1#model=NAME");
}

LazyEmbedder::LazyEmbedder(std::string spec) : spec_(std::move(spec)) {
  if (spec_ == "none") {
    tried_ = true;
    why_not_ = "no embedder configured (--embedder none)";
  }
}

LazyEmbedder::LazyEmbedder(Embedder* ready) : LazyEmbedder(ready ? ready->id() : "none") {
  tried_ = true;
  embedder_ = ready;
}

Embedder* LazyEmbedder::get() {
  std::lock_guard<std::mutex> g(mu_);
  if (tried_) return embedder_;
  try {
    owned_ = make_embedder(spec_);
    embedder_ = owned_.get();
  } catch (const UsageError&) {
    throw;
  } catch (const Error& e) {
    why_not_ = e.what();
  }
  tried_ = true;
  return embedder_;
}

std::string LazyEmbedder::unavailable_reason() {
  get();
  std::lock_guard<std::mutex> g(mu_);
  return why_not_;
}

}  // namespace mmkg
