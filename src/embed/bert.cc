// BERT encoder forward pass (see bert.h). Activations are row-major [tokens, features] for all
// sequences of a batch packed back to back; every matrix product is one f32::gemm call, or for the
// linear layers in int8 one int8::linear call. Biases and residuals are folded into the kernels'
// epilogues. None of it looks at more than one token row (linear layers, element-wise kernels) or
// one sequence (attention, pooling) at a time, which is what makes a vector independent of its
// batch. The element-wise kernels (LayerNorm, softmax, GELU) are written in fixed 16-lane blocks
// so the compiler vectorises them, and compiled for AVX-512, AVX2 and baseline x86-64
// (target_clones, chosen at load time); the file is built with -ffp-contract=off
// (CMakeLists.txt), so those clones round alike.
#include "embed/bert.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/simd.h"
#include "embed/safetensors.h"

namespace mmkg {
namespace {

constexpr int kLanes = 16;

// The element-wise kernels work on a float (a row's tail) or a Block of kBlock floats, a GCC
// vector that each clone lowers to its own registers (two SSE, one AVX2 or half an AVX-512
// register): one template, so a block's lanes and a tail element go through the same IEEE
// operations in the same order and round alike. Plain scalar loops were not vectorised at -O2
// (the clamps and the sign select are control flow to GCC's if-conversion), which made GELU a
// fifth of the embedder's time. The helpers take their values by reference and are always
// inlined into the clones (a block passed by value would have a different calling convention in
// each clone: GCC's -Wpsabi).
#define MMKG_BLOCK_FN __attribute__((always_inline)) inline
constexpr int kBlock = 8;
using Block = float __attribute__((vector_size(kBlock * sizeof(float))));
using IBlock = int32_t __attribute__((vector_size(kBlock * sizeof(int32_t))));

MMKG_BLOCK_FN void load(Block& v, const float* p) { std::memcpy(&v, p, sizeof v); }
MMKG_BLOCK_FN void store(float* p, const Block& v) { std::memcpy(p, &v, sizeof v); }

// 2^n for a whole-valued n (as floats), by building the exponent bits.
MMKG_BLOCK_FN void pow2(const float& n, float& out) {
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;
  std::memcpy(&out, &bits, sizeof out);
}
MMKG_BLOCK_FN void pow2(const Block& n, Block& out) {
  const IBlock bits = (__builtin_convertvector(n, IBlock) + 127) << 23;
  std::memcpy(&out, &bits, sizeof out);
}

// x = exp(x) for x <= 88 (Cephes polynomial, relative error ~1e-7); inputs below -87 give ~1e-38.
// The clamps are std::max(x, -87.0f) and std::min(x, 88.0f) spelled as selects.
template <class T>
MMKG_BLOCK_FN void apply_exp(T& x) {
  const T lo = T{} - 87.0f, hi = T{} + 88.0f;
  x = x < lo ? lo : x;
  x = hi < x ? hi : x;
  const T n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;  // round(x / ln 2)
  T r = x - n * 0.693359375f;
  r = r + n * 2.12194440e-4f;
  T p = T{} + 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  T scale;
  pow2(n, scale);
  x = p * scale;
}

// x = exact (erf) GELU of x: 0.5 x (1 + erf(x / sqrt 2)); erf by Abramowitz & Stegun 7.1.26
// (|error| < 1.5e-7), which is below float resolution of the result.
template <class T>
MMKG_BLOCK_FN void apply_gelu(T& x) {
  const T z = x * 0.70710678118654752f;
  const T zero{};
  const T a = z < zero ? -z : z;
  const T t = 1.0f / (1.0f + 0.3275911f * a);
  const T poly = t * (0.254829592f +
                      t * (-0.284496736f + t * (1.421413741f + t * (-1.453152027f + t * 1.061405429f))));
  T ex = -a * a;
  apply_exp(ex);
  T e = 1.0f - poly * ex;
  e = z < zero ? -e : e;
  x = 0.5f * x * (1.0f + e);
}

MMKG_SIMD_CLONES void gelu_inplace(float* x, size_t n) {
  size_t i = 0;
  Block b;
  for (; i + kBlock <= n; i += kBlock) load(b, x + i), apply_gelu(b), store(x + i, b);
  for (; i < n; ++i) apply_gelu(x[i]);
}

// Row-wise softmax of a [rows, cols] matrix, in place. The sums run over kLanes partial sums (two
// blocks), added in lane order, as before the blocks.
MMKG_SIMD_CLONES void softmax_rows(float* s, int rows, int cols) {
  static_assert(kLanes == 2 * kBlock);
  for (int r = 0; r < rows; ++r) {
    float* x = s + static_cast<size_t>(r) * cols;
    Block mx = Block{} - INFINITY, v;
    int i = 0;
    for (; i + kBlock <= cols; i += kBlock) load(v, x + i), mx = mx < v ? v : mx;  // std::max
    float m = -INFINITY;
    for (int j = 0; j < kBlock; ++j) m = std::max(m, mx[j]);
    for (int k = i; k < cols; ++k) m = std::max(m, x[k]);
    Block acc[2] = {};
    for (i = 0; i + kLanes <= cols; i += kLanes) {
      for (int h = 0; h < 2; ++h) {
        load(v, x + i + h * kBlock);
        v -= m;
        apply_exp(v);
        store(x + i + h * kBlock, v);
        acc[h] += v;
      }
    }
    float sum = 0;
    for (int h = 0; h < 2; ++h)
      for (int j = 0; j < kBlock; ++j) sum += acc[h][j];
    for (int k = i; k < cols; ++k) {
      x[k] -= m;
      apply_exp(x[k]);
      sum += x[k];
    }
    float inv = 1.0f / sum;
    for (i = 0; i + kBlock <= cols; i += kBlock) load(v, x + i), store(x + i, v * inv);
    for (int k = i; k < cols; ++k) x[k] *= inv;
  }
}
#undef MMKG_BLOCK_FN

// Row-wise LayerNorm of a [rows, h] matrix, in place (two-pass mean / variance, as PyTorch).
MMKG_SIMD_CLONES void layernorm_rows(float* xs, int rows, int h, const float* g, const float* b,
                                     float eps) {
  for (int r = 0; r < rows; ++r) {
    float* x = xs + static_cast<size_t>(r) * h;
    float acc[kLanes] = {};
    int i = 0;
    for (; i + kLanes <= h; i += kLanes) {
      for (int j = 0; j < kLanes; ++j) acc[j] += x[i + j];
    }
    float sum = 0;
    for (int j = 0; j < kLanes; ++j) sum += acc[j];
    for (int k = i; k < h; ++k) sum += x[k];
    const float mean = sum / static_cast<float>(h);
    float acc2[kLanes] = {};
    for (i = 0; i + kLanes <= h; i += kLanes) {
      for (int j = 0; j < kLanes; ++j) {
        float d = x[i + j] - mean;
        acc2[j] += d * d;
      }
    }
    float var = 0;
    for (int j = 0; j < kLanes; ++j) var += acc2[j];
    for (int k = i; k < h; ++k) var += (x[k] - mean) * (x[k] - mean);
    const float inv = 1.0f / std::sqrt(var / static_cast<float>(h) + eps);
    for (i = 0; i + kLanes <= h; i += kLanes) {
      for (int j = 0; j < kLanes; ++j) x[i + j] = (x[i + j] - mean) * inv * g[i + j] + b[i + j];
    }
    for (int k = i; k < h; ++k) x[k] = (x[k] - mean) * inv * g[k] + b[k];
  }
}

int get_int(const nlohmann::json& j, const char* key, const std::string& path) {
  if (!j.contains(key) || !j[key].is_number_integer() || j[key].get<int64_t>() <= 0 ||
      j[key].get<int64_t>() > (1 << 24)) {
    throw Error("model config " + path + ": missing or invalid \"" + key + "\"");
  }
  return j[key].get<int>();
}

}  // namespace

BertConfig BertConfig::from_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("cannot read model config " + path + "; check the model folder");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw Error("model config " + path + " is not valid JSON (" + e.what() + ")");
  }
  if (!j.is_object()) throw Error("model config " + path + " is not a JSON object");
  auto str = [&](const char* key, const char* dflt) {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : std::string(dflt);
  };
  if (str("model_type", "bert") != "bert") {
    throw Error("model config " + path + ": model_type \"" + str("model_type", "") +
                "\" is not supported (only BERT-family models)");
  }
  if (str("hidden_act", "gelu") != "gelu") {
    throw Error("model config " + path + ": hidden_act \"" + str("hidden_act", "") +
                "\" is not supported (only exact gelu)");
  }
  if (str("position_embedding_type", "absolute") != "absolute") {
    throw Error("model config " + path + ": only absolute position embeddings are supported");
  }
  BertConfig c;
  c.vocab_size = get_int(j, "vocab_size", path);
  c.hidden_size = get_int(j, "hidden_size", path);
  c.num_layers = get_int(j, "num_hidden_layers", path);
  c.num_heads = get_int(j, "num_attention_heads", path);
  c.intermediate_size = get_int(j, "intermediate_size", path);
  c.max_position = get_int(j, "max_position_embeddings", path);
  c.type_vocab_size = j.contains("type_vocab_size") ? get_int(j, "type_vocab_size", path) : 2;
  if (j.contains("layer_norm_eps") && j["layer_norm_eps"].is_number()) {
    c.layer_norm_eps = j["layer_norm_eps"].get<float>();
  }
  if (c.hidden_size % c.num_heads != 0) {
    throw Error("model config " + path + ": hidden_size is not a multiple of num_attention_heads");
  }
  return c;
}

void BertEncoder::load(const SafeTensors& w, LinearLoad linear) {
  const int64_t H = cfg_.hidden_size, I = cfg_.intermediate_size;
  word_emb_ = w.load_floats("embeddings.word_embeddings.weight", {cfg_.vocab_size, H});
  pos_emb_ = w.load_floats("embeddings.position_embeddings.weight", {cfg_.max_position, H});
  type_emb_ = w.load_floats("embeddings.token_type_embeddings.weight", {cfg_.type_vocab_size, H});
  emb_ln_g_ = w.load_floats("embeddings.LayerNorm.weight", {H});
  emb_ln_b_ = w.load_floats("embeddings.LayerNorm.bias", {H});
  layers_.resize(static_cast<size_t>(cfg_.num_layers));
  for (int l = 0; l < cfg_.num_layers; ++l) {
    const std::string p = "encoder.layer." + std::to_string(l) + ".";
    Layer& L = layers_[static_cast<size_t>(l)];
    // One linear layer from one or more stacked tensors [n, k] each (QKV: three), with biases.
    auto load_linear = [&](Linear& lin, const std::vector<std::string>& names, int64_t n, int64_t k) {
      if (linear == LinearLoad::None) return;
      std::vector<std::vector<float>> copies;
      std::vector<const float*> parts;
      for (const auto& name : names) {
        const float* view = linear == LinearLoad::Packed ? w.view_floats(p + name + ".weight", {n, k}) : nullptr;
        if (!view) view = copies.emplace_back(w.load_floats(p + name + ".weight", {n, k})).data();
        parts.push_back(view);
        auto b = w.load_floats(p + name + ".bias", {n});
        lin.b.insert(lin.b.end(), b.begin(), b.end());
      }
      if (linear == LinearLoad::Packed) {  // straight from the file's mapping when it can be
        f32::pack_stacked(parts, static_cast<int>(n), static_cast<int>(k), lin.wf);
      } else {
        for (const float* part : parts) lin.w.insert(lin.w.end(), part, part + n * k);
      }
    };
    load_linear(L.qkv, {"attention.self.query", "attention.self.key", "attention.self.value"}, H, H);
    load_linear(L.out, {"attention.output.dense"}, H, H);
    L.ln1_g = w.load_floats(p + "attention.output.LayerNorm.weight", {H});
    L.ln1_b = w.load_floats(p + "attention.output.LayerNorm.bias", {H});
    load_linear(L.ff1, {"intermediate.dense"}, I, H);
    load_linear(L.ff2, {"output.dense"}, H, I);
    L.ln2_g = w.load_floats(p + "output.LayerNorm.weight", {H});
    L.ln2_b = w.load_floats(p + "output.LayerNorm.bias", {H});
  }
}

void BertEncoder::pack_layers() {
  const int H = cfg_.hidden_size, I = cfg_.intermediate_size;
  auto pack = [](Linear& lin, int n, int k) { f32::pack_rows(lin.w.data(), n, k, k, lin.wf); };
  for (Layer& L : layers_) {
    pack(L.qkv, 3 * H, H);
    pack(L.out, H, H);
    pack(L.ff1, I, H);
    pack(L.ff2, H, I);
  }
}

BertEncoder::BertEncoder(const BertConfig& config, const SafeTensors& w, BertPrecision precision,
                         const std::vector<std::vector<int32_t>>* calibration)
    : cfg_(config), precision_(BertPrecision::Fp32), isa_(int8::best_isa()), f32_isa_(f32::best_isa()) {
  const bool calibrate = precision == BertPrecision::Int8 && calibration && !calibration->empty();
  // Fp32 packs the weights as it reads them; int8 quantises the raw weights, after calibrating
  // with fp32 layers packed from them.
  load(w, precision == BertPrecision::Fp32 ? LinearLoad::Packed : LinearLoad::Raw);
  if (calibrate) pack_layers();
  if (precision == BertPrecision::Int8) {
    const int64_t H = cfg_.hidden_size;
    InputRanges ranges;
    if (calibrate) {  // an fp32 pass (precision_ is still Fp32) that records the input ranges
      std::vector<int32_t> ids;
      std::vector<int> lens;
      for (const auto& seq : *calibration) {
        if (seq.empty()) continue;
        ids.insert(ids.end(), seq.begin(), seq.end());
        lens.push_back(static_cast<int>(seq.size()));
      }
      std::vector<float> out(lens.size() * static_cast<size_t>(H));
      ranges.resize(layers_.size());
      forward(ids.data(), lens.data(), static_cast<int>(lens.size()), out.data(), &ranges);
      for (auto& layer : ranges) {
        for (auto& r : layer) {
          for (float& v : r) v = std::sqrt(v / static_cast<float>(ids.size()));
        }
      }
    }
    quantise_layers(calibrate ? &ranges : nullptr);
    precision_ = BertPrecision::Int8;
  }
}

BertEncoder::BertEncoder(const BertConfig& config, const SafeTensors& w, Int8Layers quantised)
    : cfg_(config), precision_(BertPrecision::Int8), isa_(int8::best_isa()), f32_isa_(f32::best_isa()) {
  if (quantised.isa != isa_) {
    throw Error(std::string("int8 layers packed for the ") + int8::isa_name(quantised.isa) + " kernel, not " +
                int8::isa_name(isa_));
  }
  if (quantised.layers.size() != static_cast<size_t>(cfg_.num_layers)) {
    throw Error("int8 layers: " + std::to_string(quantised.layers.size()) + " layers, the model has " +
                std::to_string(cfg_.num_layers));
  }
  load(w, LinearLoad::None);
  const int H = cfg_.hidden_size, I = cfg_.intermediate_size;
  const int shapes[4][2] = {{3 * H, H}, {H, H}, {I, H}, {H, I}};
  for (size_t l = 0; l < layers_.size(); ++l) {
    Layer& L = layers_[l];
    Linear* lins[4] = {&L.qkv, &L.out, &L.ff1, &L.ff2};
    for (int q = 0; q < 4; ++q) {
      int8::PackedWeights& pw = quantised.layers[l][static_cast<size_t>(q)];
      if (pw.n != shapes[q][0] || pw.k != shapes[q][1]) {
        throw Error("int8 layers: layer " + std::to_string(l) + " has a " + std::to_string(pw.n) + " x " +
                    std::to_string(pw.k) + " matrix where the model has " + std::to_string(shapes[q][0]) +
                    " x " + std::to_string(shapes[q][1]));
      }
      lins[q]->wq = std::move(pw);
    }
  }
}

Int8Layers BertEncoder::int8_layers() const {
  Int8Layers out;
  out.isa = isa_;
  if (precision_ != BertPrecision::Int8) return out;
  for (const Layer& L : layers_) out.layers.push_back({L.qkv.wq, L.out.wq, L.ff1.wq, L.ff2.wq});
  return out;
}

namespace {

// Smoothing factors, after SmoothQuant (Xiao et al. 2023): s_j = rms_x[j]^a / amax_w[j]^(1-a), with
// its migration strength a = 0.5. SmoothQuant takes the activations' maximum per channel; with
// per-token activation scales what hurts is the channels that are large in every token, which the
// root mean square measures, and it is stable on a few hundred calibration tokens where the
// maximum is not. Measured (vignette chunks, cosine with fp32, min / mean): none 0.9911 / 0.99897;
// max over 8 texts 0.9927 / 0.99927, over 64 texts 0.9974 / 0.99933; RMS over 2 texts 0.9979 /
// 0.99924; the built-in texts (RMS, native_embedder.cc) 0.9981 / 0.99925. a = 0.3: 0.9967 /
// 0.99850; a = 0.7: 0.9929 / 0.99885.
constexpr float kSmoothAlpha = 0.5f;

// The smoothing factors of W[n, k] for inputs whose channel j has root mean square range[j].
std::vector<float> smoothing(const std::vector<float>& w, int64_t n, int64_t k, const std::vector<float>& range) {
  std::vector<float> wmax(static_cast<size_t>(k), 0.0f), s(static_cast<size_t>(k), 1.0f);
  for (int64_t r = 0; r < n; ++r) {
    for (int64_t c = 0; c < k; ++c) {
      wmax[static_cast<size_t>(c)] = std::max(wmax[static_cast<size_t>(c)], std::fabs(w[static_cast<size_t>(r * k + c)]));
    }
  }
  for (int64_t c = 0; c < k; ++c) {
    const float x = range[static_cast<size_t>(c)], wm = wmax[static_cast<size_t>(c)];
    if (x > 1e-6f && wm > 1e-8f) {
      s[static_cast<size_t>(c)] = std::pow(x, kSmoothAlpha) / std::pow(wm, 1.0f - kSmoothAlpha);
    }
  }
  return s;
}

}  // namespace

void BertEncoder::quantise_layers(const InputRanges* ranges) {
  const int64_t H = cfg_.hidden_size, I = cfg_.intermediate_size;
  for (size_t l = 0; l < layers_.size(); ++l) {
    Layer& L = layers_[l];
    auto quantise = [&](Linear& lin, int64_t n, int64_t k, int which) {
      std::vector<float> s;
      if (ranges) s = smoothing(lin.w, n, k, (*ranges)[l][static_cast<size_t>(which)]);
      lin.wq = int8::PackedWeights::quantise(lin.w.data(), static_cast<int>(n), static_cast<int>(k), lin.b.data(),
                                             isa_, s.empty() ? nullptr : s.data());
      std::vector<float>().swap(lin.w);
      std::vector<float>().swap(lin.b);
      lin.wf = f32::Packed{};
    };
    // Measured (vignette chunks, minimum cosine with fp32, before smoothing): all four in int8
    // 0.9911; keeping one in fp32 gives 0.9961 (QKV), 0.9920 (output), 0.9951 (FF1), 0.9970
    // (FF2): the error is spread over all four, so all four are int8.
    quantise(L.qkv, 3 * H, H, 0);
    quantise(L.out, H, H, 1);
    quantise(L.ff1, I, H, 2);
    quantise(L.ff2, H, I, 3);
  }
}

void BertEncoder::linear(const float* x, int rows, const Linear& l, float* y, bool accumulate,
                         int8::QuantRows& scratch) const {
  if (precision_ == BertPrecision::Int8) {
    int8::linear(isa_, x, rows, l.wq, y, accumulate, scratch);
    return;
  }
  f32::gemm(f32_isa_, x, rows, l.wf.k, l.wf, y, l.wf.n, {.alpha = 1.0f, .bias = l.b.data(), .accumulate = accumulate});
}

void BertEncoder::embed_tokens(const int32_t* ids, const int* lens, int n, int T, float* x) const {
  const int H = cfg_.hidden_size;
  // Embeddings: word + position + token type 0, then LayerNorm.
  for (int s = 0, row = 0; s < n; ++s) {
    for (int p = 0; p < lens[s]; ++p, ++row) {
      const int32_t id = ids[row];
      if (id < 0 || id >= cfg_.vocab_size) throw Error("embedder: token id out of range");
      const float* we = &word_emb_[static_cast<size_t>(id) * H];
      const float* pe = &pos_emb_[static_cast<size_t>(p) * H];
      float* xr = &x[static_cast<size_t>(row) * H];
      for (int k = 0; k < H; ++k) xr[k] = we[k] + pe[k] + type_emb_[k];
    }
  }
  layernorm_rows(x, T, H, emb_ln_g_.data(), emb_ln_b_.data(), cfg_.layer_norm_eps);
}

void BertEncoder::attention(const float* qkv, const int* lens, int n, float* ctx, std::vector<float>& scores,
                            f32::Packed& keys, f32::Packed& values) const {
  const int H = cfg_.hidden_size, NH = cfg_.num_heads;
  const int D = H / NH;
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  // Scaled dot-product attention, per sequence and head.
  for (int s = 0, off = 0; s < n; off += lens[s], ++s) {
    const int l = lens[s];
    for (int h = 0; h < NH; ++h) {
      const float* q = &qkv[static_cast<size_t>(off) * 3 * H + static_cast<size_t>(h) * D];
      const float* k = q + H;
      const float* v = q + 2 * H;
      f32::pack_rows(k, l, D, 3 * H, keys);
      f32::gemm(f32_isa_, q, l, 3 * H, keys, scores.data(), l, {.alpha = scale});
      softmax_rows(scores.data(), l, l);
      f32::pack_transposed(v, l, D, 3 * H, values);
      f32::gemm(f32_isa_, scores.data(), l, l, values, &ctx[static_cast<size_t>(off) * H + static_cast<size_t>(h) * D],
                H, {});
    }
  }
}

namespace {

// Mean pooling over each sequence's tokens of x[T, H], then L2 normalisation (eps 1e-12 as
// PyTorch), into out[n, H].
void mean_pool(const float* x, const int* lens, int n, int H, float* out) {
  for (int s = 0, off = 0; s < n; off += lens[s], ++s) {
    float* o = out + static_cast<size_t>(s) * H;
    std::vector<double> acc(static_cast<size_t>(H), 0.0);
    for (int p = 0; p < lens[s]; ++p) {
      const float* xr = &x[static_cast<size_t>(off + p) * H];
      for (int k = 0; k < H; ++k) acc[static_cast<size_t>(k)] += xr[k];
    }
    double norm = 0;
    for (int k = 0; k < H; ++k) {
      acc[static_cast<size_t>(k)] /= lens[s];
      norm += acc[static_cast<size_t>(k)] * acc[static_cast<size_t>(k)];
    }
    const double inv = 1.0 / std::max(std::sqrt(norm), 1e-12);
    for (int k = 0; k < H; ++k) o[k] = static_cast<float>(acc[static_cast<size_t>(k)] * inv);
  }
}

}  // namespace

void BertEncoder::forward(const int32_t* ids, const int* lens, int n, float* out, InputRanges* ranges) const {
  const int H = cfg_.hidden_size, I = cfg_.intermediate_size;
  int T = 0, max_len = 0;
  for (int s = 0; s < n; ++s) {
    if (lens[s] <= 0 || lens[s] > cfg_.max_position) {
      throw Error("embedder: sequence of " + std::to_string(lens[s]) + " tokens (model maximum " +
                  std::to_string(cfg_.max_position) + ")");
    }
    T += lens[s];
    max_len = std::max(max_len, lens[s]);
  }
  const size_t t = static_cast<size_t>(T);
  std::vector<float> x(t * H), qkv(t * 3 * H), ctx(t * H), ff(t * I);
  std::vector<float> scores(static_cast<size_t>(max_len) * max_len);
  int8::QuantRows qscratch;  // int8: the activation codes of the current linear layer
  f32::Packed keys, values;  // one sequence's keys and values of one head, packed

  embed_tokens(ids, lens, n, T, x.data());

  // Calibration: the root mean square per channel of each linear layer's input.
  auto record = [&](size_t layer, int which, const float* a, int k) {
    if (!ranges) return;
    auto& r = (*ranges)[layer][static_cast<size_t>(which)];
    r.resize(static_cast<size_t>(k), 0.0f);
    // Accumulated as sums of squares here, turned into the root mean square after the pass.
    for (size_t row = 0; row < t; ++row) {
      for (int c = 0; c < k; ++c) r[static_cast<size_t>(c)] += a[row * k + c] * a[row * k + c];
    }
  };
  for (size_t li = 0; li < layers_.size(); ++li) {
    const Layer& L = layers_[li];
    record(li, 0, x.data(), H);
    // Q, K, V in one product: qkv[T, 3H] = x W_qkv^T + b.
    linear(x.data(), T, L.qkv, qkv.data(), false, qscratch);
    attention(qkv.data(), lens, n, ctx.data(), scores, keys, values);
    // Output projection + bias + residual, LayerNorm.
    record(li, 1, ctx.data(), H);
    linear(ctx.data(), T, L.out, x.data(), true, qscratch);
    layernorm_rows(x.data(), T, H, L.ln1_g.data(), L.ln1_b.data(), cfg_.layer_norm_eps);
    // Feed-forward: GELU(x W1^T + b1) W2^T + b2 + x, LayerNorm.
    record(li, 2, x.data(), H);
    linear(x.data(), T, L.ff1, ff.data(), false, qscratch);
    gelu_inplace(ff.data(), t * I);
    record(li, 3, ff.data(), I);
    linear(ff.data(), T, L.ff2, x.data(), true, qscratch);
    layernorm_rows(x.data(), T, H, L.ln2_g.data(), L.ln2_b.data(), cfg_.layer_norm_eps);
  }

  mean_pool(x.data(), lens, n, H, out);
}

}  // namespace mmkg
