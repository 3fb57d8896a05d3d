// Tests of the safetensors loader on small crafted files: dtypes, the "bert." prefix, and refusal
// of truncated files, bad offsets, wrong shapes, missing tensors and malformed headers.
#include "embed/safetensors.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "support/temp_dir.h"

namespace mmkg {
namespace {

// Serialises {name: (dtype, shape, bytes)} into the safetensors layout.
struct Entry {
  std::string name, dtype;
  std::vector<int64_t> shape;
  std::string bytes;
};

std::string build(const std::vector<Entry>& entries, const nlohmann::json* header_override = nullptr) {
  nlohmann::json h = nlohmann::json::object();
  h["__metadata__"] = {{"format", "pt"}};
  std::string data;
  for (const auto& e : entries) {
    h[e.name] = {{"dtype", e.dtype},
                 {"shape", e.shape},
                 {"data_offsets", {data.size(), data.size() + e.bytes.size()}}};
    data += e.bytes;
  }
  std::string header = (header_override ? *header_override : h).dump();
  std::string out(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
  return out + header + data;
}

std::string f32_bytes(std::vector<float> v) {
  std::string s(v.size() * 4, '\0');
  std::memcpy(s.data(), v.data(), s.size());
  return s;
}

std::string u16_bytes(std::vector<uint16_t> v) {
  std::string s(v.size() * 2, '\0');
  std::memcpy(s.data(), v.data(), s.size());
  return s;
}

// Expects `fn` to throw Error whose message contains every one of `parts`.
template <typename Fn>
void expect_error(Fn fn, std::vector<std::string> parts) {
  try {
    fn();
    ADD_FAILURE() << "no error thrown";
  } catch (const Error& e) {
    for (const auto& p : parts) EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << e.what();
  }
}

TEST(SafetensorsLoader, ReadsF32F16Bf16) {
  testing::TempDir tmp;
  auto path = tmp.write(
      "m.safetensors",
      build({{"w", "F32", {2, 2}, f32_bytes({1.0f, -2.5f, 3.0f, 0.125f})},
             {"h", "F16", {3}, u16_bytes({0x3C00, 0xC100, 0x0001})},  // 1, -2.5, 2^-24
             {"b", "BF16", {2}, u16_bytes({0x3F80, 0xC020})},         // 1, -2.5
             {"ids", "I64", {1}, std::string(8, '\0')}}));
  SafeTensors st(path);
  EXPECT_EQ(st.names().size(), 4u);
  EXPECT_EQ(st.load_floats("w", {2, 2}), (std::vector<float>{1.0f, -2.5f, 3.0f, 0.125f}));
  auto h = st.load_floats("h", {3});
  EXPECT_EQ(h[0], 1.0f);
  EXPECT_EQ(h[1], -2.5f);
  EXPECT_EQ(h[2], std::ldexp(1.0f, -24));
  EXPECT_EQ(st.load_floats("b", {2}), (std::vector<float>{1.0f, -2.5f}));
  expect_error([&] { st.load_floats("ids", {1}); }, {"m.safetensors", "ids", "I64"});
}

TEST(SafetensorsLoader, AcceptsNamesWithOrWithoutBertPrefix) {
  testing::TempDir tmp;
  auto path = tmp.write("m.safetensors", build({{"bert.embeddings.x", "F32", {1}, f32_bytes({7})},
                                                {"pooler.y", "F32", {1}, f32_bytes({8})}}));
  SafeTensors st(path);
  EXPECT_EQ(st.load_floats("embeddings.x", {1})[0], 7.0f);
  EXPECT_EQ(st.load_floats("bert.embeddings.x", {1})[0], 7.0f);
  EXPECT_EQ(st.load_floats("bert.pooler.y", {1})[0], 8.0f);
  EXPECT_EQ(st.find("nothing"), nullptr);
}

TEST(SafetensorsLoader, RefusesTruncatedFile) {
  testing::TempDir tmp;
  std::string good = build({{"w", "F32", {4, 4}, f32_bytes(std::vector<float>(16, 1.0f))}});
  // Cut inside the data, inside the header, and inside the length prefix.
  auto a = tmp.write("data.safetensors", good.substr(0, good.size() - 10));
  expect_error([&] { SafeTensors st(a); }, {"data.safetensors", "out of range"});
  auto b = tmp.write("header.safetensors", good.substr(0, 20));
  expect_error([&] { SafeTensors st(b); }, {"header.safetensors", "truncated"});
  auto c = tmp.write("len.safetensors", good.substr(0, 5));
  expect_error([&] { SafeTensors st(c); }, {"len.safetensors", "truncated"});
  expect_error([&] { SafeTensors st(tmp.file("missing.safetensors")); },
               {"missing.safetensors", "cannot open"});
}

TEST(SafetensorsLoader, RefusesBadOffsets) {
  testing::TempDir tmp;
  nlohmann::json h = {{"w", {{"dtype", "F32"}, {"shape", {2}}, {"data_offsets", {4, 100}}}}};
  auto a = tmp.write("far.safetensors", build({{"w", "F32", {2}, f32_bytes({1, 2})}}, &h));
  expect_error([&] { SafeTensors st(a); }, {"far.safetensors", "w", "out of range"});
  h = {{"w", {{"dtype", "F32"}, {"shape", {2}}, {"data_offsets", {8, 0}}}}};
  auto b = tmp.write("rev.safetensors", build({{"w", "F32", {2}, f32_bytes({1, 2})}}, &h));
  expect_error([&] { SafeTensors st(b); }, {"rev.safetensors", "out of range"});
  h = {{"w", {{"dtype", "F32"}, {"shape", {3}}, {"data_offsets", {0, 8}}}}};
  auto c = tmp.write("size.safetensors", build({{"w", "F32", {2}, f32_bytes({1, 2})}}, &h));
  expect_error([&] { SafeTensors st(c); }, {"size.safetensors", "needs 12"});
  h = {{"w", {{"dtype", "F32"}, {"shape", {2}}, {"data_offsets", {-1, 8}}}}};
  auto d = tmp.write("neg.safetensors", build({{"w", "F32", {2}, f32_bytes({1, 2})}}, &h));
  expect_error([&] { SafeTensors st(d); }, {"neg.safetensors", "data_offsets"});
}

TEST(SafetensorsLoader, RefusesWrongShapeAndMissingTensor) {
  testing::TempDir tmp;
  auto path = tmp.write("m.safetensors", build({{"w", "F32", {2, 3}, f32_bytes({1, 2, 3, 4, 5, 6})}}));
  SafeTensors st(path);
  expect_error([&] { st.load_floats("w", {3, 2}); }, {"m.safetensors", "w", "[2, 3]", "[3, 2]"});
  expect_error([&] { st.load_floats("v", {1}); }, {"m.safetensors", "missing tensor v"});
}

TEST(SafetensorsLoader, RefusesMalformedHeader) {
  testing::TempDir tmp;
  std::string bad = build({});
  std::string junk = "{not json";
  std::string file(8, '\0');
  file[0] = static_cast<char>(junk.size());
  auto a = tmp.write("junk.safetensors", file + junk);
  expect_error([&] { SafeTensors st(a); }, {"junk.safetensors", "not valid JSON"});
  nlohmann::json h = {{"w", {{"dtype", "F99"}, {"shape", {1}}, {"data_offsets", {0, 4}}}}};
  auto b = tmp.write("dtype.safetensors", build({{"w", "F32", {1}, f32_bytes({1})}}, &h));
  expect_error([&] { SafeTensors st(b); }, {"dtype.safetensors", "unknown dtype F99"});
  std::string huge(8, '\xff');
  auto c = tmp.write("huge.safetensors", huge + "{}");
  expect_error([&] { SafeTensors st(c); }, {"huge.safetensors", "implausible"});
}

}  // namespace
}  // namespace mmkg
