// Embedder interface: texts → L2-normalised vectors. One backend per file (native BERT, HTTP).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace mmkg {

/// Queries and documents may be embedded differently (EmbeddingGemma-style prompts).
enum class EmbedKind { Query, Document };

class Embedder {
 public:
  virtual ~Embedder() = default;
  /// Identifies model and settings; stored with every vector so a model change is detected.
  /// e.g. "native:all-MiniLM-L6-v2".
  virtual std::string id() const = 0;
  /// id() plus settings that do not change the vectors' identity (the native embedder's
  /// precision and kernel), for logs and reports; never stored.
  virtual std::string describe() const { return id(); }
  /// Vector dimension.
  virtual int dim() const = 0;
  /// Embeds `texts`; returns texts.size() * dim() floats, row-major, each row L2-normalised.
  /// Thread-safe. Throws Error (with a what-to-do message) when the model cannot run.
  virtual std::vector<float> embed(const std::vector<std::string>& texts, EmbedKind kind) = 0;
};

/// embed() with one vector per text (instead of one flat row-major array).
std::vector<std::vector<float>> embed_rows(Embedder& embedder, const std::vector<std::string>& texts, EmbedKind kind);

/// Dot product of two vectors (their cosine when L2-normalised, as embedders return them),
/// accumulated in double; 0 when their sizes differ.
double dot(const std::vector<float>& a, const std::vector<float>& b);

/// Arithmetic of the encoder's linear layers. Int8 vectors have cosine >= 0.99 with the Fp32 ones
/// (docs/BENCHMARKS.md), so both share one Embedder::id() and a store embedded with one is
/// searched with the other.
enum class NativePrecision {
  Auto,  ///< Int8 where the CPU has an int8 kernel (AVX2 or AVX-512 VNNI), else Fp32
  Fp32,  ///< fp32 kernels (gemm_f32.h)
  Int8,  ///< int8 weights and activations (gemm_int8.h); the scalar kernel on CPUs without AVX2
};

/// "fp32", "int8" or "auto".
const char* native_precision_name(NativePrecision p);

struct HttpEmbedderConfig;  // embed/http_embedder.h

/// Which embedder to use, parsed once from its text (Config does, from --embedder):
///   "none"                   no embedder (BM25 only)
///   "native"                 the bundled all-MiniLM-L6-v2 (found automatically, see README), in
///                            int8 where the CPU has an int8 kernel (AVX2 or better), else fp32
///   "native:/path/to/model"  a BERT-family sentence-transformers folder
///   "native:fp32", "native:int8", "native:int8:/path/to/model"  the same with a forced precision
///   "http(s)://HOST/v1#model=NAME&prompts=gemma..."  an OpenAI-compatible /v1/embeddings server
///                            (options in http_embedder.h); "openai" = api.openai.com
struct EmbedderSpec {
  enum class Kind { None, Native, Http };
  Kind kind = Kind::Native;
  std::string text = "native";  ///< as given, for messages
  /// Native: a model folder of the user's; empty: the bundled model.
  std::string folder;
  NativePrecision precision = NativePrecision::Auto;
  /// Http: the server, model and options (never null for Kind::Http).
  std::shared_ptr<const HttpEmbedderConfig> http;

  /// UsageError for an empty or unknown spec, naming the forms there are.
  static EmbedderSpec parse(const std::string& text);
  static EmbedderSpec none() { return parse("none"); }
  /// A model folder of the user's (native:/path, native:int8:/path), as opposed to the bundled
  /// model or a server: such a folder failing to load is a wrong setting; the bundled model
  /// missing is not.
  bool names_folder() const { return kind == Kind::Native && !folder.empty(); }
};

/// Builds the embedder `spec` names (nullptr for none). Throws Error when the model cannot be
/// loaded or the server reached.
std::unique_ptr<Embedder> make_embedder(const EmbedderSpec& spec);
/// make_embedder(EmbedderSpec::parse(text)), for tests and benches.
std::unique_ptr<Embedder> make_embedder(const std::string& text);

/// An embedder chosen by spec and built on first use, so that a command that never embeds (BM25
/// search, stats) never loads a model. One per session, shared by search, the graph's entity
/// names and the verifier. Thread-safe.
class LazyEmbedder {
 public:
  /// The embedder `spec` names (none: BM25 only).
  explicit LazyEmbedder(EmbedderSpec spec);
  /// An embedder built elsewhere (tests, benches); not owned. nullptr: none.
  explicit LazyEmbedder(Embedder* ready);

  /// The embedder, built on the first call; nullptr when none is configured or it failed to
  /// load (unavailable_reason() says why). A UsageError (bad spec) is thrown, not remembered.
  Embedder* get();
  /// Empty when get() returns an embedder; otherwise why not.
  std::string unavailable_reason();
  /// True when the spec is none.
  bool disabled() const { return spec_.kind == EmbedderSpec::Kind::None; }
  const EmbedderSpec& spec() const { return spec_; }

 private:
  EmbedderSpec spec_;
  std::mutex mu_;
  bool tried_ = false;
  std::unique_ptr<Embedder> owned_;
  Embedder* embedder_ = nullptr;
  std::string why_not_;
};

}  // namespace mmkg
