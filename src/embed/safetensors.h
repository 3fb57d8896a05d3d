// Read-only loader for the safetensors format (Hugging Face): an 8-byte little-endian header
// length N, N bytes of JSON {name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {...}},
// then the raw little-endian tensor data (offsets are relative to the end of the header).
// The file is memory-mapped; every structural problem is an Error naming the file and the problem.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/mapped_file.h"

namespace mmkg {

class SafeTensors {
 public:
  struct Tensor {
    std::string dtype;           // "F32", "F16", "BF16", "I64", ...
    std::vector<int64_t> shape;  // row-major
    size_t begin = 0, end = 0;   // byte range inside the data section
  };

  /// Maps `path` and validates its header: JSON well formed, every tensor's dtype known, shape
  /// non-negative, data_offsets inside the file and matching shape * dtype size.
  /// Throws Error("<path>: <problem>") otherwise.
  explicit SafeTensors(const std::string& path);
  ~SafeTensors();
  SafeTensors(const SafeTensors&) = delete;
  SafeTensors& operator=(const SafeTensors&) = delete;

  const std::string& path() const { return path_; }
  /// Tensor names as stored in the file.
  std::vector<std::string> names() const;
  /// The tensor called `name` or, failing that, "bert." + name or `name` without a "bert."
  /// prefix (checkpoints are saved both from BertModel and from BertFor* heads). nullptr if none.
  const Tensor* find(const std::string& name) const;

  /// Copies tensor `name` (see find) into floats, converting F16/BF16; checks that its shape is
  /// `expected_shape`. Throws Error naming the file and the tensor when it is missing, has another
  /// shape, or is not a floating-point tensor.
  std::vector<float> load_floats(const std::string& name,
                                 const std::vector<int64_t>& expected_shape) const;

  /// Tensor `name` read in place, without a copy, when it is F32 and 4-byte aligned in the file
  /// (valid while this object lives); else null, and load_floats() gives a copy. Shape checked as
  /// load_floats() does.
  const float* view_floats(const std::string& name, const std::vector<int64_t>& expected_shape) const;

 private:
  /// The tensor `name` (see find) when it has `shape`; Error naming both otherwise.
  const Tensor& checked(const std::string& name, const std::vector<int64_t>& shape) const;
  std::string path_;
  MappedFile file_;  // the whole file, read in place
  const unsigned char* data_ = nullptr;  // start of the data section
  std::map<std::string, Tensor> tensors_;
};

}  // namespace mmkg
