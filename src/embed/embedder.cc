// make_embedder: the one place where an embedder spec ("native", "native:int8:/path", "http://...") is parsed
// and dispatched to its backend. Each backend lives in its own file and exposes a
// make_<backend>_embedder function; add new schemes to the table below.
#include "embed/embedder.h"

#include <algorithm>
#include <cctype>
#include <utility>

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

namespace {

// A word that reads as a number format (fp16, bf16, int4, q8, f32, ...) rather than a folder.
bool looks_like_precision(const std::string& s) {
  for (const char* prefix : {"fp", "bf", "f", "int", "uint", "i", "u", "q"}) {
    const std::string p = prefix;
    if (s.size() > p.size() && s.compare(0, p.size(), p) == 0 &&
        std::all_of(s.begin() + static_cast<long>(p.size()), s.end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; })) {
      return true;
    }
  }
  return false;
}

// The part of a spec after "native:": [PRECISION[:FOLDER]] or FOLDER. A folder literally named
// fp32 or int8 is given as ./fp32. An empty dir is the bundled all-MiniLM-L6-v2.
struct NativeSpec {
  NativeEmbedderOptions opts;
  std::string dir;
};

NativeSpec parse_native_spec(const std::string& spec, const std::string& arg) {
  NativeSpec out;
  const size_t colon = arg.find(':');
  const std::string head = arg.substr(0, colon);
  out.dir = arg;
  if (head == "fp32" || head == "int8") {
    out.opts.precision = head == "fp32" ? NativePrecision::Fp32 : NativePrecision::Int8;
    out.dir = colon == std::string::npos ? "" : arg.substr(colon + 1);
    if (colon != std::string::npos && out.dir.empty()) {
      throw UsageError("embedder spec \"" + spec + "\" needs a folder after the last colon; use native:" + head +
                       " or native:" + head + ":/path");
    }
  } else if (looks_like_precision(head)) {
    throw UsageError("embedder spec \"" + spec + "\": unknown precision \"" + head +
                     "\"; the native embedder runs fp32 or int8 (native:fp32, native:int8, "
                     "native:int8:/path), or give a model folder");
  }
  return out;
}

// Splits a spec into its scheme and the rest ("native:int8" -> "native", "int8").
std::pair<std::string, std::string> split_scheme(const std::string& spec) {
  const size_t colon = spec.find(':');
  return {spec.substr(0, colon), colon == std::string::npos ? "" : spec.substr(colon + 1)};
}

}  // namespace

EmbedderSpec EmbedderSpec::parse(const std::string& spec) {
  EmbedderSpec out;
  out.text = spec;
  if (spec.empty())
    throw UsageError("--embedder is empty; use native, native:/model/folder, an http(s):// URL or none");
  if (spec == "none") {
    out.kind = Kind::None;
    return out;
  }
  const auto [scheme, arg] = split_scheme(spec);
  if (scheme == "native") {
    if (spec.size() > scheme.size() && arg.empty()) {
      throw UsageError("embedder spec \"native:\" needs a folder or a precision; use native, native:int8, "
                       "native:fp32 or native:/path");
    }
    const NativeSpec ns = parse_native_spec(spec, arg);
    out.folder = ns.dir;  // empty: the bundled model, found on disk
    out.precision = ns.opts.precision;
    return out;
  }
  if (scheme == "http" || scheme == "https" || spec == "openai" || spec.rfind("openai#", 0) == 0) {
    out.kind = Kind::Http;
    out.http = std::make_shared<const HttpEmbedderConfig>(parse_http_embedder_spec(spec));
    return out;
  }
  throw UsageError("unknown embedder \"" + spec +
                   "\"; use native (the bundled all-MiniLM-L6-v2; native:fp32 or native:int8 to force a precision), "
                   "native:/path/to/model, or the URL of an "
                   "OpenAI-compatible server such as http://127.0.0.1:8080/v1#model=NAME");
}

std::unique_ptr<Embedder> make_embedder(const EmbedderSpec& spec) {
  switch (spec.kind) {
    case EmbedderSpec::Kind::None: return nullptr;
    case EmbedderSpec::Kind::Native: {
      NativeEmbedderOptions opts;
      opts.precision = spec.precision;
      return make_native_embedder(spec.folder, opts);
    }
    case EmbedderSpec::Kind::Http: return make_http_embedder(*spec.http);
  }
  return nullptr;
}

std::unique_ptr<Embedder> make_embedder(const std::string& text) { return make_embedder(EmbedderSpec::parse(text)); }

LazyEmbedder::LazyEmbedder(EmbedderSpec spec) : spec_(std::move(spec)) {
  if (disabled()) {
    tried_ = true;
    why_not_ = "no embedder configured (--embedder none)";
  }
}

LazyEmbedder::LazyEmbedder(Embedder* ready) : LazyEmbedder(EmbedderSpec::none()) {
  if (ready) {
    spec_.text = ready->id();
    spec_.kind = EmbedderSpec::Kind::Native;
    why_not_.clear();
  }
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
