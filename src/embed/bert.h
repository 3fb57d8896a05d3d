// BERT encoder forward pass on the CPU with mean pooling and L2 normalisation: the
// sentence-transformers recipe of all-MiniLM-L6-v2 and other BERT-family sentence models (absolute
// positions, post-LayerNorm, exact GELU). The linear layers run in fp32 (gemm_f32.h) or in int8
// (gemm_int8.h: per-channel int8 weights, per-token uint8 activations); the attention products
// (gemm_f32.h), LayerNorm, softmax and GELU are fp32 in both. Every step works on one token row or
// one sequence at a time, with kernels whose result for a row does not depend on the others, so a
// text's vector is the same bits whatever it is batched with and however many threads run.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "embed/gemm_f32.h"
#include "embed/gemm_int8.h"

namespace mmkg {

class SafeTensors;

/// The fields of a Hugging Face BERT config.json that the forward pass needs.
struct BertConfig {
  int vocab_size = 0;
  int hidden_size = 0;
  int num_layers = 0;
  int num_heads = 0;
  int intermediate_size = 0;
  int max_position = 0;
  int type_vocab_size = 0;
  float layer_norm_eps = 1e-12f;

  /// Reads and checks config.json (model_type bert, hidden_act gelu, absolute positions, hidden
  /// size divisible by the number of heads). Throws Error naming the file and the problem.
  static BertConfig from_file(const std::string& path);
};

/// Arithmetic of the linear layers (the four per-layer weight matrices).
enum class BertPrecision { Fp32, Int8 };

/// The int8 form of an encoder's linear layers, per layer QKV, output, FF1, FF2 (quantised,
/// smoothed and packed for one int8::Isa): what the int8 constructor computes from the fp32
/// weights and a calibration pass, and what int8_cache.h stores so a later process skips that.
struct Int8Layers {
  int8::Isa isa = int8::Isa::Scalar;
  std::vector<std::array<int8::PackedWeights, 4>> layers;
};

class BertEncoder {
 public:
  /// Copies the weights named by Hugging Face's BertModel (with or without a "bert." prefix) out
  /// of `weights`, checking every shape against `config`. Throws Error on any mismatch. With
  /// Int8, the linear layers' weights are quantised and packed here (their fp32 copies dropped)
  /// and run by the kernel of int8::best_isa() as of construction.
  ///
  /// `calibration` (Int8 only, may be null or empty): token sequences run through the fp32 model
  /// once before quantising, to measure each linear layer's inputs per channel (root mean square);
  /// the int8 layers then smooth their inputs with those (PackedWeights::in_inv), which brings
  /// the int8 vectors closer to fp32's. Without it the inputs are quantised as they come.
  BertEncoder(const BertConfig& config, const SafeTensors& weights,
              BertPrecision precision = BertPrecision::Fp32,
              const std::vector<std::vector<int32_t>>* calibration = nullptr);
  /// Int8 from layers computed earlier (int8_layers() of an encoder of the same model and code,
  /// for the kernel of int8::best_isa()): no fp32 copy of the linear weights, no calibration.
  /// Throws Error when a shape or the kernel does not match.
  BertEncoder(const BertConfig& config, const SafeTensors& weights, Int8Layers quantised);

  /// Int8 only: the quantised linear layers (to cache them).
  Int8Layers int8_layers() const;

  const BertConfig& config() const { return cfg_; }
  int dim() const { return cfg_.hidden_size; }
  BertPrecision precision() const { return precision_; }
  /// The int8 kernel in use (meaningful with Int8 only).
  int8::Isa int8_isa() const { return isa_; }
  /// The fp32 kernel of the attention products (and of the linear layers with Fp32).
  f32::Isa f32_isa() const { return f32_isa_; }

  /// Encodes `n` sequences stored back to back in `ids` (lens[i] ids each, every one
  /// <= max_position, all < vocab_size) and writes each sequence's mean-pooled, L2-normalised
  /// last hidden state to out[i * dim() ...]. Sequences are packed, not padded: each token attends
  /// only to the tokens of its own sequence, which is exactly what BERT's padding mask computes.
  /// Thread-safe (scratch memory is per call); BLAS threading is the caller's choice.
  void embed_packed(const int32_t* ids, const int* lens, int n, float* out) const {
    forward(ids, lens, n, out, nullptr);
  }

 private:
  /// Per layer, the inputs' root mean square per channel of its four linear layers (QKV, output,
  /// FF1, FF2); forward() adds up squares, the constructor turns them into the RMS.
  using InputRanges = std::vector<std::array<std::vector<float>, 4>>;
  void forward(const int32_t* ids, const int* lens, int n, float* out, InputRanges* ranges) const;
  /// What load() does with the linear layers' weights: leaves them (Int8 from cached layers),
  /// copies them raw into Linear::w (to quantise), or packs them for gemm_f32 into Linear::wf.
  enum class LinearLoad { None, Raw, Packed };
  /// The embeddings, the LayerNorm parameters and, as `linear` says, the linear layers.
  void load(const SafeTensors& w, LinearLoad linear);
  /// Packs the raw linear weights for gemm_f32 (Int8's calibration pass), keeping the raw ones.
  void pack_layers();
  /// Int8: quantises the four linear layers of every layer, smoothed by `ranges` when not null.
  void quantise_layers(const InputRanges* ranges);
  /// One linear layer: its fp32 weight [n, k] (raw until packed or quantised), packed for
  /// gemm_f32 (Fp32, and Int8's calibration pass), bias [n], and int8 form (Int8; bias included).
  struct Linear {
    std::vector<float> w, b;
    f32::Packed wf;
    int8::PackedWeights wq;
  };
  struct Layer {
    Linear qkv;                       // [3H, H] (query, key, value rows stacked)
    Linear out;                       // [H, H]
    std::vector<float> ln1_g, ln1_b;  // attention output LayerNorm
    Linear ff1;                       // [I, H]
    Linear ff2;                       // [H, I]
    std::vector<float> ln2_g, ln2_b;  // output LayerNorm
  };

  // y[T, n] (+)= x[T, k] W^T + b in the encoder's precision.
  void linear(const float* x, int rows, const Linear& l, float* y, bool accumulate, int8::QuantRows& scratch) const;
  // forward()'s steps. x[T, H] = LayerNorm(word + position + token type 0 embeddings) of the n
  // packed sequences (T tokens in all).
  void embed_tokens(const int32_t* ids, const int* lens, int n, int T, float* x) const;
  // ctx[T, H] = scaled dot-product attention of qkv[T, 3H], per sequence and head; `scores`
  // (max_len^2), `keys` and `values` are scratch.
  void attention(const float* qkv, const int* lens, int n, float* ctx, std::vector<float>& scores, f32::Packed& keys,
                 f32::Packed& values) const;

  BertConfig cfg_;
  BertPrecision precision_ = BertPrecision::Fp32;
  int8::Isa isa_ = int8::Isa::Scalar;
  f32::Isa f32_isa_ = f32::Isa::Scalar;
  std::vector<float> word_emb_, pos_emb_, type_emb_, emb_ln_g_, emb_ln_b_;
  std::vector<Layer> layers_;
};

}  // namespace mmkg
