// safetensors loader (see safetensors.h): mmap, strict header validation, F32/F16/BF16 -> float.
#include "embed/safetensors.h"

#include <bit>
#include <cstring>
#include <nlohmann/json.hpp>

#include "core/error.h"

namespace mmkg {
namespace {

static_assert(std::endian::native == std::endian::little, "safetensors data is little-endian");

// A header longer than this is certainly not a model we want (the format's own limit is 100 MB).
constexpr uint64_t kMaxHeader = 100u << 20;

size_t dtype_size(const std::string& dtype) {
  if (dtype == "F64" || dtype == "I64" || dtype == "U64") return 8;
  if (dtype == "F32" || dtype == "I32" || dtype == "U32") return 4;
  if (dtype == "F16" || dtype == "BF16" || dtype == "I16" || dtype == "U16") return 2;
  if (dtype == "I8" || dtype == "U8" || dtype == "BOOL" || dtype == "F8_E4M3" ||
      dtype == "F8_E5M2")
    return 1;
  return 0;
}

std::string shape_str(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

float half_to_float(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1F;
  uint32_t mant = h & 0x3FF;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: renormalise
      exp = 127 - 15 + 1;
      while (!(mant & 0x400)) {
        mant <<= 1;
        --exp;
      }
      bits = sign | (exp << 23) | ((mant & 0x3FF) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7F800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

}  // namespace

SafeTensors::SafeTensors(const std::string& path) : path_(path), file_(path) {
  auto fail = [&](const std::string& problem) -> Error {
    return Error("safetensors file " + path_ + ": " + problem);
  };
  switch (file_.status()) {
    case MappedFile::Status::Ok: break;
    case MappedFile::Status::NotAFile: throw fail("not a regular file");
    case MappedFile::Status::Missing:
    case MappedFile::Status::Unreadable: throw fail("cannot open (" + file_.error() + ")");
    case MappedFile::Status::Unmappable: throw fail("cannot mmap (" + file_.error() + ")");
  }
  const auto* map = reinterpret_cast<const unsigned char*>(file_.data());
  const size_t size = file_.size();
  if (size < 8) throw fail("truncated (" + std::to_string(size) + " bytes, no header length)");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | map[i];
  if (n > kMaxHeader) throw fail("header length " + std::to_string(n) + " is implausible");
  if (8 + n > size) {
    throw fail("truncated (header of " + std::to_string(n) + " bytes, file of " +
               std::to_string(size) + " bytes)");
  }
  data_ = map + 8 + n;
  const size_t data_size = size - 8 - n;
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(map + 8, map + 8 + n);
  } catch (const nlohmann::json::exception& e) {
    throw fail(std::string("header is not valid JSON (") + e.what() + ")");
  }
  if (!header.is_object()) throw fail("header is not a JSON object");
  for (const auto& [name, v] : header.items()) {
    if (name == "__metadata__") continue;
    auto bad = [&](const std::string& what) { return fail("tensor " + name + ": " + what); };
    if (!v.is_object()) throw bad("entry is not an object");
    Tensor t;
    if (!v.contains("dtype") || !v["dtype"].is_string()) throw bad("no dtype");
    t.dtype = v["dtype"].get<std::string>();
    size_t esize = dtype_size(t.dtype);
    if (esize == 0) throw bad("unknown dtype " + t.dtype);
    if (!v.contains("shape") || !v["shape"].is_array()) throw bad("no shape");
    uint64_t numel = 1;
    for (const auto& d : v["shape"]) {
      if (!d.is_number_integer() || d.get<int64_t>() < 0) throw bad("bad shape");
      t.shape.push_back(d.get<int64_t>());
      uint64_t dim = static_cast<uint64_t>(t.shape.back());
      if (dim != 0 && numel > (uint64_t{1} << 48) / dim) throw bad("shape too large");
      numel *= dim;
    }
    const auto& off = v.contains("data_offsets") ? v["data_offsets"] : nlohmann::json();
    if (!off.is_array() || off.size() != 2 || !off[0].is_number_unsigned() ||
        !off[1].is_number_unsigned()) {
      throw bad("data_offsets must be two non-negative integers");
    }
    uint64_t b = off[0].get<uint64_t>(), e = off[1].get<uint64_t>();
    if (b > e || e > data_size) {
      throw bad("data_offsets [" + std::to_string(b) + ", " + std::to_string(e) +
                "] out of range (data section is " + std::to_string(data_size) +
                " bytes; truncated file?)");
    }
    if (e - b != numel * esize) {
      throw bad("data_offsets cover " + std::to_string(e - b) + " bytes but shape " +
                shape_str(t.shape) + " of " + t.dtype + " needs " +
                std::to_string(numel * esize));
    }
    t.begin = static_cast<size_t>(b);
    t.end = static_cast<size_t>(e);
    tensors_.emplace(name, std::move(t));
  }
}

SafeTensors::~SafeTensors() = default;

std::vector<std::string> SafeTensors::names() const {
  std::vector<std::string> out;
  for (const auto& [name, t] : tensors_) out.push_back(name);
  return out;
}

const SafeTensors::Tensor* SafeTensors::find(const std::string& name) const {
  if (auto it = tensors_.find(name); it != tensors_.end()) return &it->second;
  if (auto it = tensors_.find("bert." + name); it != tensors_.end()) return &it->second;
  if (name.rfind("bert.", 0) == 0) {
    if (auto it = tensors_.find(name.substr(5)); it != tensors_.end()) return &it->second;
  }
  return nullptr;
}

const SafeTensors::Tensor& SafeTensors::checked(const std::string& name, const std::vector<int64_t>& shape) const {
  const Tensor* t = find(name);
  if (!t) throw Error("safetensors file " + path_ + ": missing tensor " + name);
  if (t->shape != shape) {
    throw Error("safetensors file " + path_ + ": tensor " + name + " has shape " + shape_str(t->shape) +
                ", the model config needs " + shape_str(shape));
  }
  return *t;
}

const float* SafeTensors::view_floats(const std::string& name, const std::vector<int64_t>& expected_shape) const {
  const Tensor* t = &checked(name, expected_shape);
  const unsigned char* p = data_ + t->begin;
  if (t->dtype != "F32" || reinterpret_cast<uintptr_t>(p) % alignof(float) != 0) return nullptr;
  return reinterpret_cast<const float*>(p);  // x86/ARM are little-endian, like the format
}

std::vector<float> SafeTensors::load_floats(const std::string& name,
                                            const std::vector<int64_t>& expected_shape) const {
  const Tensor* t = &checked(name, expected_shape);
  const unsigned char* p = data_ + t->begin;
  const size_t bytes = t->end - t->begin;
  std::vector<float> out;
  if (t->dtype == "F32") {
    out.resize(bytes / 4);
    std::memcpy(out.data(), p, bytes);  // x86/ARM are little-endian, like the format
  } else if (t->dtype == "F16" || t->dtype == "BF16") {
    out.resize(bytes / 2);
    const bool bf16 = t->dtype == "BF16";
    for (size_t i = 0; i < out.size(); ++i) {
      uint16_t h = static_cast<uint16_t>(p[2 * i] | (p[2 * i + 1] << 8));
      if (bf16) {
        uint32_t bits = static_cast<uint32_t>(h) << 16;
        std::memcpy(&out[i], &bits, 4);
      } else {
        out[i] = half_to_float(h);
      }
    }
  } else {
    throw Error("safetensors file " + path_ + ": tensor " + name + " has dtype " + t->dtype +
                "; expected F32, F16 or BF16");
  }
  return out;
}

}  // namespace mmkg
