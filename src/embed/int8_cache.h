// The int8 encoder's quantised layers cached on disk, so that only the first process after a model
// or code change pays for the fp32 calibration pass and the quantisation (about 0.3 s on the
// 2-vCPU dev machine, more than a whole CLI search), and every later one reads ~12 MB instead.
//
// File format (version 1, native little-endian):
//   "MMKGINT8", u32 format version, u32 key length, key bytes,
//   u32 int8::Isa, u32 layer count, per layer 4 matrices (QKV, output, FF1, FF2) each as
//   i32 n, k, kp, then six arrays (data, scale, sum, bias, in_inv, wide) each as u64 count + items,
//   then u64 XXH3 of every byte before it.
// The key names what the layers were computed from (the model files' hash, the encoder code's
// hash, the kernel); a file whose key, size or checksum is not as expected is ignored and rebuilt.
// The folder also remembers the model files' hash (model_files_hash). Writers write a private
// temporary file and rename it into place, so two processes building the
// same cache at once each leave a whole file and a reader never sees half of one.
#pragma once

#include <optional>
#include <string>

#include "embed/bert.h"

namespace mmkg {

/// Where caches go: $MMKG_CACHE_DIR, else $XDG_CACHE_HOME/mmkg, else $HOME/.cache/mmkg; "" when
/// none of these is set.
std::string default_cache_dir();

/// 16 hex digits of XXH3 over the model's files (config.json, model.safetensors, vocab.txt,
/// tokenizer_config.json). With a `cache_dir`, the hash is remembered there (model-*.hash) under
/// the files' identity (path, device, inode, size, mtime, ctime), so it is computed once per
/// version of the files.
std::string model_files_hash(const std::string& model_dir, const std::string& cache_dir = "");

/// The key of the int8 layers of the model in `model_dir` for the kernel `isa`: the model files'
/// hash, the hash of the encoder's source code taken at build time, the compiler, and the kernel.
std::string int8_cache_key(const std::string& model_dir, int8::Isa isa, const std::string& cache_dir = "");

/// The file that holds the layers of `key` inside `dir`.
std::string int8_cache_path(const std::string& dir, const std::string& key);

/// The layers stored at `path` under `key`, or nullopt when the file is missing, unreadable,
/// truncated, corrupt, or was written for another key (`why` then says which, when not null).
std::optional<Int8Layers> read_int8_cache(const std::string& path, const std::string& key,
                                          std::string* why = nullptr);

/// Writes `layers` under `key` to `path` (its folder created if needed) atomically. Returns false
/// with `why` set when it cannot (a read-only folder, a full disk): the cache is an optimisation.
/// Afterwards, older int8 cache files in the folder beyond the newest kKeepFiles are removed.
bool write_int8_cache(const std::string& path, const std::string& key, const Int8Layers& layers,
                      std::string* why = nullptr);

/// How many int8 cache files a folder keeps (one per model, code version and kernel).
constexpr int kKeepInt8CacheFiles = 4;

}  // namespace mmkg
