// BERT encoder forward pass on the CPU (OpenBLAS SGEMM for every matrix product) with mean
// pooling and L2 normalisation: the sentence-transformers recipe of all-MiniLM-L6-v2 and other
// BERT-family sentence models (absolute positions, post-LayerNorm, exact GELU).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

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

class BertEncoder {
 public:
  /// Copies the weights named by Hugging Face's BertModel (with or without a "bert." prefix) out
  /// of `weights`, checking every shape against `config`. Throws Error on any mismatch.
  BertEncoder(const BertConfig& config, const SafeTensors& weights);

  const BertConfig& config() const { return cfg_; }
  int dim() const { return cfg_.hidden_size; }

  /// Encodes `n` sequences stored back to back in `ids` (lens[i] ids each, every one
  /// <= max_position, all < vocab_size) and writes each sequence's mean-pooled, L2-normalised
  /// last hidden state to out[i * dim() ...]. Sequences are packed, not padded: each token attends
  /// only to the tokens of its own sequence, which is exactly what BERT's padding mask computes.
  /// Thread-safe (scratch memory is per call); BLAS threading is the caller's choice.
  void embed_packed(const int32_t* ids, const int* lens, int n, float* out) const;

 private:
  struct Layer {
    std::vector<float> qkv_w, qkv_b;  // [3H, H] (query, key, value rows stacked), [3H]
    std::vector<float> out_w, out_b;  // [H, H], [H]
    std::vector<float> ln1_g, ln1_b;  // attention output LayerNorm
    std::vector<float> ff1_w, ff1_b;  // [I, H], [I]
    std::vector<float> ff2_w, ff2_b;  // [H, I], [H]
    std::vector<float> ln2_g, ln2_b;  // output LayerNorm
  };

  BertConfig cfg_;
  std::vector<float> word_emb_, pos_emb_, type_emb_, emb_ln_g_, emb_ln_b_;
  std::vector<Layer> layers_;
};

}  // namespace mmkg
