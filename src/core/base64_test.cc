// Base64: the RFC 4648 test vectors and every byte value.
#include "core/base64.h"

#include "core/error.h"

#include <gtest/gtest.h>

namespace mmkg {
namespace {

TEST(Base64, Rfc4648Vectors) {
  EXPECT_EQ(base64_encode(""), "");
  EXPECT_EQ(base64_encode("f"), "Zg==");
  EXPECT_EQ(base64_encode("fo"), "Zm8=");
  EXPECT_EQ(base64_encode("foo"), "Zm9v");
  EXPECT_EQ(base64_encode("foob"), "Zm9vYg==");
  EXPECT_EQ(base64_encode("fooba"), "Zm9vYmE=");
  EXPECT_EQ(base64_encode("foobar"), "Zm9vYmFy");
}

TEST(Base64, BinaryBytes) {
  EXPECT_EQ(base64_encode(std::string("\x89PNG\r\n\x1a\n", 8)), "iVBORw0KGgo=");
  EXPECT_EQ(base64_encode(std::string("\0\xff\xfe", 3)), "AP/+");
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  const std::string enc = base64_encode(all);
  EXPECT_EQ(enc.size(), 344u);
  EXPECT_EQ(enc.substr(0, 8), "AAECAwQF");
  EXPECT_EQ(enc.substr(enc.size() - 8), "/P3+/w==");
}

TEST(Base64, DecodeRoundTripsEveryLengthAndByte) {
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  for (size_t n = 0; n <= all.size(); n += 37) EXPECT_EQ(base64_decode(base64_encode(all.substr(0, n))), all.substr(0, n));
  EXPECT_EQ(base64_decode("Zm9vYg=="), "foob");
  EXPECT_EQ(base64_decode("Zm9vYg"), "foob") << "padding is optional";
  EXPECT_THROW(base64_decode("Zm9v!"), Error);
}

}  // namespace
}  // namespace mmkg
