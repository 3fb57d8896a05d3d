// Tests for standalone image files: one Figure per document, its name as text, clear errors.
#include <gtest/gtest.h>

#include <string>

#include "core/error.h"
#include "ingest/files.h"
#include "ingest/parser.h"
#include "support/image_fixtures.h"
#include "support/parser_fixtures.h"

namespace mmkg {
namespace {

namespace fx = image_fixture;

ParsedDocument image_parse(const std::string& path, const std::string& bytes) {
  return make_image_parser()->parse(path, bytes);
}

TEST(ImageParser, PngIsOneFigureNamedByTheFile) {
  EXPECT_STREQ(make_image_parser()->name(), "image");
  const ParsedDocument d = image_parse("/data/scans/IMG_2041-whiteboard.png", fx::rgb_png(64, 48));
  EXPECT_EQ(d.format, "image");
  EXPECT_EQ(d.pages, 0);
  EXPECT_EQ(d.title, "IMG_2041-whiteboard");
  EXPECT_EQ(testing::render_blocks(d), "P:IMG 2041 whiteboard");
  ASSERT_EQ(d.figures.size(), 1u);
  const Figure& f = d.figures[0];
  EXPECT_EQ(f.source, "file");
  EXPECT_EQ(f.block, 0u);
  EXPECT_EQ(f.width, 64);
  EXPECT_EQ(f.height, 48);
  EXPECT_EQ(f.png.substr(0, 4), "\x89PNG");
  EXPECT_TRUE(f.id.empty());
  EXPECT_TRUE(d.warnings.empty());
}

TEST(ImageParser, JpegTiffWebpBmp) {
  EXPECT_EQ(image_parse("photo.jpg", fx::jpeg(30, 20, 3, fx::solid(30, 20, "\x40\x50\x60"))).figures.at(0).width, 30);
  EXPECT_EQ(image_parse("scan.tiff", fx::tiff_rgb(20, 20, 1, 2, 3)).figures.at(0).height, 20);
  EXPECT_EQ(image_parse("pic.webp", fx::webp_rgba(26, 22, fx::solid(26, 22, std::string("\x01\x02\x03\xFF", 4))))
                .figures.at(0).width, 26);
  EXPECT_EQ(image_parse("old.bmp", fx::bmp_rgb(17, 19, 1, 2, 3)).figures.at(0).height, 19);
  // A name without letters still gives the document some text.
  EXPECT_EQ(testing::render_blocks(image_parse("___.png", fx::rgb_png(20, 20))), "P:image");
}

TEST(ImageParser, LargeImagesAreDownscaled) {
  const ParsedDocument d = image_parse("wide.png", fx::rgb_png(5000, 20));
  ASSERT_EQ(d.figures.size(), 1u);
  EXPECT_EQ(d.figures[0].width, 4096);
  EXPECT_EQ(d.figures[0].height, 16);
}

TEST(ImageParser, CorruptAndHugeImagesAreInputErrors) {
  const std::string png = fx::rgb_png(32, 32);
  EXPECT_THROW(image_parse("cut.png", png.substr(0, png.size() / 2)), InputError);
  EXPECT_THROW(image_parse("junk.png", "\x89PNG\r\n\x1a\n and then nothing useful"), InputError);
  try {
    image_parse("huge.png", fx::png(30000, 30000, 2, 8, "x"));
    FAIL() << "a 30000 x 30000 image is refused";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("over the limit"), std::string::npos) << e.what();
  }
}

TEST(ImageParser, DetectFormatRoutesImagesHere) {
  EXPECT_EQ(detect_format("a.png", fx::rgb_png(2, 2)), "image");
  EXPECT_EQ(detect_format("noext", fx::jpeg(8, 8, 1, std::string(64, 'a'))), "image");
  EXPECT_EQ(detect_format("x.TIF", fx::tiff_rgb(2, 2, 0, 0, 0)), "image");
  EXPECT_EQ(detect_format("x.webp", fx::webp_rgba(2, 2, std::string(16, '\x7f'))), "image");
  EXPECT_EQ(detect_format("x.bmp", fx::bmp_rgb(2, 2, 0, 0, 0)), "image");
  EXPECT_EQ(detect_format("x.gif", "GIF89a\x01\x00"), "image");
  EXPECT_EQ(detect_format("fake.png", "not an image at all"), "image") << "the image parser explains";
  try {
    detect_format("photo.pdf", fx::rgb_png(2, 2));
    FAIL() << "an image named like a document is a mistake worth naming";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("really a PNG image"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace mmkg
