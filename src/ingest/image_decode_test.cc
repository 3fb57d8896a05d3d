// Tests for image decoding: every format, color conversions, transparency, orientation,
// downscaling, refused sizes and corrupt bytes.
#include "ingest/image_decode.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core/error.h"
#include "support/image_fixtures.h"

namespace mmkg {
namespace {

namespace fx = image_fixture;

std::string image_error_of(const std::string& bytes, const std::string& what = "") {
  try {
    decode_image(bytes, what);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(ImageDecode, PngRgbRoundTrip) {
  const DecodedImage d = decode_image(fx::rgb_png(40, 30, 200, 30, 30), "x.png");
  EXPECT_EQ(d.width, 40);
  EXPECT_EQ(d.height, 30);
  EXPECT_EQ(d.source_width, 40);
  const fx::Pixels p = fx::read_png(d.png);
  ASSERT_EQ(p.n, 3);
  EXPECT_EQ(p.at(5, 5)[0], 200);
  EXPECT_EQ(p.at(5, 5)[1], 30);
  EXPECT_TRUE(d.warnings.empty());
}

TEST(ImageDecode, GrayStaysGray) {
  const DecodedImage d = decode_image(fx::png(20, 20, 0, 8, std::string(400, '\x80')), "");
  const fx::Pixels p = fx::read_png(d.png);
  EXPECT_EQ(p.n, 1);
  EXPECT_EQ(p.at(3, 3)[0], 0x80);
}

TEST(ImageDecode, SixteenBitPng) {
  std::string rows;
  for (int i = 0; i < 16 * 16; ++i) rows += std::string("\xFF\xFF\x00\x00\x80\x00", 6);  // R max, G 0, B half
  const DecodedImage d = decode_image(fx::png(16, 16, 2, 16, rows), "");
  const fx::Pixels p = fx::read_png(d.png);
  ASSERT_EQ(p.n, 3);
  EXPECT_EQ(p.at(1, 1)[0], 255);
  EXPECT_EQ(p.at(1, 1)[1], 0);
  EXPECT_NEAR(p.at(1, 1)[2], 128, 2);
}

TEST(ImageDecode, IndexedPng) {
  const std::string palette("\x00\x00\xFF\x00\xFF\x00", 6);  // 0 blue, 1 green
  std::string rows;
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 16; ++x) rows.push_back(x < 8 ? 0 : 1);
  const DecodedImage d = decode_image(fx::png(16, 16, 3, 8, rows, palette), "");
  const fx::Pixels p = fx::read_png(d.png);
  ASSERT_EQ(p.n, 3);
  EXPECT_EQ(p.at(2, 2)[2], 255);   // blue
  EXPECT_EQ(p.at(12, 2)[1], 255);  // green
}

TEST(ImageDecode, AlphaIsFlattenedOnWhite) {
  std::string rows;
  for (int y = 0; y < 16; ++y)
    for (int x = 0; x < 16; ++x) rows += x < 8 ? std::string("\x00\x00\x00\x00", 4) : std::string("\x00\x00\x00\xFF", 4);
  const DecodedImage d = decode_image(fx::png(16, 16, 6, 8, rows), "");
  const fx::Pixels p = fx::read_png(d.png);
  ASSERT_EQ(p.n, 3) << "no alpha channel in the output";
  EXPECT_EQ(p.at(2, 2)[0], 255) << "transparent pixels are white";
  EXPECT_EQ(p.at(12, 2)[0], 0) << "opaque black stays black";
}

TEST(ImageDecode, JpegRgbGrayAndCmyk) {
  DecodedImage d = decode_image(fx::jpeg(32, 24, 3, fx::solid(32, 24, "\x20\x40\xE0")), "");
  EXPECT_EQ(d.width, 32);
  EXPECT_EQ(d.height, 24);
  fx::Pixels p = fx::read_png(d.png);
  EXPECT_NEAR(p.at(10, 10)[2], 0xE0, 6);

  d = decode_image(fx::jpeg(16, 16, 1, std::string(256, '\x30')), "");
  EXPECT_EQ(fx::read_png(d.png).n, 1);

  // Cyan, stored inverted as Adobe's CMYK JPEGs are: C=255 M=Y=K=0.
  d = decode_image(fx::jpeg(16, 16, 4, fx::solid(16, 16, std::string("\x00\xFF\xFF\xFF", 4))), "cmyk.jpg");
  p = fx::read_png(d.png);
  ASSERT_EQ(p.n, 3) << "CMYK becomes RGB";
  EXPECT_LT(p.at(8, 8)[0], 100);
  EXPECT_GT(p.at(8, 8)[2], 150);
}

TEST(ImageDecode, ExifOrientationTurnsTheImage) {
  // 40 x 20, EXIF orientation 6: shown turned by 90 degrees, so 20 x 40.
  const DecodedImage d = decode_image(fx::jpeg(40, 20, 3, fx::solid(40, 20, "\x80\x80\x80"), 6), "");
  EXPECT_EQ(d.source_width, 40);
  EXPECT_EQ(d.width, 20);
  EXPECT_EQ(d.height, 40);
}

TEST(ImageDecode, TiffBmpWebp) {
  DecodedImage d = decode_image(fx::tiff_rgb(20, 10, 10, 200, 10), "scan.tif");
  EXPECT_EQ(d.width, 20);
  EXPECT_EQ(d.height, 10);
  EXPECT_EQ(fx::read_png(d.png).at(3, 3)[1], 200);

  d = decode_image(fx::bmp_rgb(18, 12, 250, 5, 5), "");
  EXPECT_EQ(d.width, 18);
  EXPECT_EQ(fx::read_png(d.png).at(3, 3)[0], 250);

  std::string rgba;
  for (int y = 0; y < 20; ++y)
    for (int x = 0; x < 30; ++x) rgba += x < 15 ? std::string("\x10\x20\xF0\xFF", 4) : std::string("\x00\x00\x00\x00", 4);
  d = decode_image(fx::webp_rgba(30, 20, rgba), "");
  EXPECT_EQ(d.width, 30);
  EXPECT_EQ(d.height, 20);
  const fx::Pixels p = fx::read_png(d.png);
  EXPECT_EQ(p.at(2, 2)[2], 0xF0);
  EXPECT_EQ(p.at(25, 2)[0], 255) << "transparent WebP pixels are white";
}

TEST(ImageDecode, DownscalesToMaxSide) {
  DecodedImage d = decode_image(fx::rgb_png(300, 150), "", 100);
  EXPECT_EQ(d.width, 100);
  EXPECT_EQ(d.height, 50);
  EXPECT_EQ(d.source_width, 300);
  EXPECT_EQ(fx::read_png(d.png).w, 100);
  d = decode_image(fx::jpeg(400, 100, 3, fx::solid(400, 100, "\x80\x80\x80")), "", 200);
  EXPECT_EQ(d.width, 200);
  EXPECT_EQ(d.height, 50);
  std::string rgba = fx::solid(300, 30, std::string("\x80\x80\x80\xFF", 4));
  d = decode_image(fx::webp_rgba(300, 30, rgba), "", 150);
  EXPECT_EQ(d.width, 150);
  EXPECT_EQ(d.height, 15);
}

TEST(ImageDecode, HugeDeclaredSizeIsRefusedUndecoded) {
  // The header claims 50000 x 50000 (7.5 GB as RGB); the data is a few bytes.
  std::string e = image_error_of(fx::png(50000, 50000, 2, 8, std::string(30, 'x')), "big.png");
  EXPECT_NE(e.find("big.png: image is 50000 x 50000 pixels, over the limit"), std::string::npos) << e;
  e = image_error_of(fx::png(15000, 15000, 0, 8, std::string(30, 'x')));  // 225 MP: within a side, over the total
  EXPECT_NE(e.find("megapixels"), std::string::npos) << e;
  // A JPEG's SOF with 60000 x 60000.
  std::string j = fx::jpeg(8, 8, 3, fx::solid(8, 8, "\x80\x80\x80"));
  const size_t sof = j.find("\xFF\xC0");
  ASSERT_NE(sof, std::string::npos);
  j[sof + 5] = '\xEA', j[sof + 6] = '\x60', j[sof + 7] = '\xEA', j[sof + 8] = '\x60';
  e = image_error_of(j);
  EXPECT_NE(e.find("over the limit"), std::string::npos) << e;
}

TEST(ImageDecode, CorruptAndForeignBytesThrowInputError) {
  EXPECT_NE(image_error_of("").find("empty"), std::string::npos);
  EXPECT_NE(image_error_of("hello, this is text").find("not an image format"), std::string::npos);
  const std::string png = fx::rgb_png(32, 32);
  EXPECT_NE(image_error_of(png.substr(0, png.size() / 2), "cut.png").find("cut.png: cannot read this PNG image"),
            std::string::npos);
  EXPECT_NE(image_error_of(fx::jpeg(24, 24, 3, fx::solid(24, 24, "\x20\x40\x60")).substr(0, 300)).find("JPEG"),
            std::string::npos);
  // MuPDF decodes what it can of damaged pixel data: that is a warning, not an error.
  std::string broken = png;
  for (size_t i = 40; i < broken.size() - 12; ++i) broken[i] = static_cast<char>(i * 7);  // no IDAT left
  const DecodedImage d = decode_image(broken, "");
  ASSERT_EQ(d.warnings.size(), 1u);
  EXPECT_NE(d.warnings[0].find("the image data is damaged"), std::string::npos) << d.warnings[0];
  EXPECT_NE(image_error_of("<svg xmlns='http://www.w3.org/2000/svg'/>").find("SVG"), std::string::npos);
  EXPECT_FALSE(image_error_of(std::string("RIFF\x10\0\0\0WEBPVP8 ", 16)).empty());
}

TEST(ImageDecode, MutatedImagesNeverCrash) {
  std::string rgba = fx::solid(24, 24, std::string("\x10\x80\xF0\xC0", 4));
  const std::vector<std::string> seeds = {
      fx::rgb_png(24, 24), fx::jpeg(24, 24, 3, fx::solid(24, 24, "\x20\x40\x60")),
      fx::jpeg(24, 24, 4, fx::solid(24, 24, std::string("\x10\x20\x30\x40", 4))),
      fx::tiff_rgb(24, 24, 1, 2, 3), fx::bmp_rgb(24, 24, 1, 2, 3), fx::webp_rgba(24, 24, rgba)};
  std::mt19937 rng(12345);
  int decoded = 0, refused = 0;
  for (const std::string& seed : seeds) {
    for (int round = 0; round < 150; ++round) {
      std::string b = seed;
      const int edits = 1 + static_cast<int>(rng() % 8);
      for (int k = 0; k < edits; ++k) b[rng() % b.size()] = static_cast<char>(rng());
      if (round % 5 == 0) b.resize(rng() % b.size());
      try {
        const DecodedImage d = decode_image(b, "fuzz");
        EXPECT_FALSE(d.png.empty());
        EXPECT_GT(d.width, 0);
        ++decoded;
      } catch (const InputError&) {
        ++refused;
      }
    }
  }
  EXPECT_EQ(decoded + refused, 900);
}

TEST(ImageDecode, ImageKindFromMagic) {
  EXPECT_EQ(image_kind(fx::rgb_png(2, 2)), "PNG");
  EXPECT_EQ(image_kind(fx::tiff_rgb(2, 2, 0, 0, 0)), "TIFF");
  EXPECT_EQ(image_kind(fx::bmp_rgb(2, 2, 0, 0, 0)), "BMP");
  EXPECT_EQ(image_kind("GIF89a...."), "GIF");
  EXPECT_EQ(image_kind("BMW is a car brand, not a bitmap"), "");
  EXPECT_EQ(image_kind("plain"), "");
}

}  // namespace
}  // namespace mmkg
