#include "ingest/formats.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "core/error.h"
#include "support/image_fixtures.h"

namespace mmkg {
namespace {

namespace fx = image_fixture;

TEST(Formats, EveryExtensionAndNameBelongsToOneFormat) {
  std::set<std::string> names, exts;
  for (const FormatInfo& f : formats()) {
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
    EXPECT_FALSE(f.extensions.empty()) << f.name;
    EXPECT_FALSE(f.mime_types.empty()) << f.name;
    for (const auto& e : f.extensions) EXPECT_TRUE(exts.insert(e).second) << e;
    for (const auto& e : f.upload_extensions) EXPECT_TRUE(exts.insert(e).second) << e;
    EXPECT_EQ(find_format(f.name), &f);
  }
  EXPECT_EQ(format_for_extension(".HTM")->name, std::string("html"));
  EXPECT_EQ(format_for_extension(".docx")->reader, Reader::Office);
  EXPECT_EQ(format_for_extension(".csv"), nullptr) << "folders do not take .csv";
  EXPECT_EQ(format_for_extension(".csv", true)->name, std::string("text")) << "an upload keeps it";
  EXPECT_EQ(format_for_extension(".zip"), nullptr);
  EXPECT_EQ(format_info("no-such-format").name, std::string("text"));
  EXPECT_TRUE(is_office_format("xls"));
  EXPECT_FALSE(is_office_format("epub"));
  EXPECT_EQ(format_for_mime("text/html; charset=utf-8")->name, std::string("html"));
  EXPECT_EQ(format_for_mime("application/xhtml+xml")->name, std::string("html"));
  EXPECT_EQ(format_for_mime("application/zip"), nullptr);
}

TEST(Formats, OnlyPdfHasPagesAndARevisedReader) {
  for (const FormatInfo& f : formats()) {
    EXPECT_EQ(f.paged, f.reader == Reader::Pdf) << f.name;
    EXPECT_EQ(f.reader_revision, f.reader == Reader::Pdf ? 2 : 1) << f.name;
    EXPECT_EQ(f.shows_images, f.reader == Reader::Markdown || f.reader == Reader::Html) << f.name;
  }
}

TEST(Formats, AnUploadGetsTheExtensionItsContentNeeds) {
  EXPECT_EQ(upload_format("report.pdf", "%PDF-1.7 ...").extension, "");
  EXPECT_EQ(upload_format("scan.bin", "%PDF-1.7 ...").extension, ".pdf");
  const UploadFormat md = upload_format("notes.markdown", "# Title");
  EXPECT_EQ(md.extension, "");
  EXPECT_TRUE(md.text);
  EXPECT_EQ(upload_format("notes", "just words").extension, ".txt");
  EXPECT_EQ(upload_format("table.CSV", "a,b").extension, "");
  EXPECT_EQ(upload_format("page", "<!DOCTYPE html><html>").extension, ".html");
  const UploadFormat png = upload_format("shot.bin", fx::rgb_png(2, 2));
  EXPECT_EQ(png.extension, ".png");
  EXPECT_FALSE(png.text);
  EXPECT_EQ(upload_format("photo.jpeg", fx::jpeg(8, 8, 1, std::string(64, 'a'))).extension, "");
  EXPECT_EQ(upload_format("photo.png", fx::jpeg(8, 8, 1, std::string(64, 'a'))).extension, ".jpg");
  EXPECT_THROW(upload_format("a.txt", "PK\x03\x04 rest"), InputError);
}

}  // namespace
}  // namespace mmkg
