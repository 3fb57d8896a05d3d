// Tests for Office documents: detection, the LibreOffice conversion (skipped without soffice),
// and every way the conversion can fail (not installed, timeout, error exit) with stand-ins.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "ingest/files.h"
#include "ingest/parser.h"
#include "support/image_fixtures.h"
#include "support/temp_dir.h"

namespace mmkg {
namespace {

namespace fx = image_fixture;

bool soffice_installed() {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  size_t i = 0;
  while (i <= dirs.size()) {
    size_t j = dirs.find(':', i);
    if (j == std::string::npos) j = dirs.size();
    const std::string p = dirs.substr(i, j - i) + "/soffice";
    if (j > i && ::access(p.c_str(), X_OK) == 0) return true;
    i = j + 1;
  }
  return false;
}

#define SKIP_WITHOUT_SOFFICE()                                                                  \
  if (!soffice_installed())                                                                     \
  GTEST_SKIP() << "LibreOffice (soffice) is not installed: apt-get install --no-install-recommends " \
                  "libreoffice-writer-nogui libreoffice-calc-nogui to run this test"

const char* kRels =
    "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>"
    "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">"
    "<Relationship Id=\"rId1\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument\" "
    "Target=\"%s\"/></Relationships>";

std::string rels(const std::string& target) {
  std::string s = kRels;
  s.replace(s.find("%s"), 2, target);
  return s;
}

/// A minimal Word document: a big bold title line and a paragraph.
std::string docx(const std::string& title, const std::string& body) {
  const std::string types =
      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>"
      "<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">"
      "<Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>"
      "<Default Extension=\"xml\" ContentType=\"application/xml\"/>"
      "<Override PartName=\"/word/document.xml\" "
      "ContentType=\"application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml\"/></Types>";
  const std::string doc =
      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>"
      "<w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"><w:body>"
      "<w:p><w:r><w:rPr><w:b/><w:sz w:val=\"48\"/></w:rPr><w:t>" + title + "</w:t></w:r></w:p>"
      "<w:p><w:r><w:t>" + body + "</w:t></w:r></w:p></w:body></w:document>";
  return fx::zip({{"[Content_Types].xml", types}, {"_rels/.rels", rels("word/document.xml")}, {"word/document.xml", doc}});
}

/// A minimal Excel workbook with one sheet of inline strings and numbers.
std::string xlsx() {
  const std::string types =
      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>"
      "<Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">"
      "<Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>"
      "<Default Extension=\"xml\" ContentType=\"application/xml\"/>"
      "<Override PartName=\"/xl/workbook.xml\" "
      "ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml\"/>"
      "<Override PartName=\"/xl/worksheets/sheet1.xml\" "
      "ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml\"/></Types>";
  const std::string workbook =
      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>"
      "<workbook xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\" "
      "xmlns:r=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships\">"
      "<sheets><sheet name=\"Animals\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>";
  const std::string wb_rels =
      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>"
      "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">"
      "<Relationship Id=\"rId1\" Type=\"http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet\" "
      "Target=\"worksheets/sheet1.xml\"/></Relationships>";
  const std::string sheet =
      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>"
      "<worksheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/2006/main\"><sheetData>"
      "<row r=\"1\"><c r=\"A1\" t=\"inlineStr\"><is><t>Species</t></is></c><c r=\"B1\" t=\"inlineStr\"><is><t>Count</t></is></c></row>"
      "<row r=\"2\"><c r=\"A2\" t=\"inlineStr\"><is><t>quokka</t></is></c><c r=\"B2\"><v>42</v></c></row>"
      "</sheetData></worksheet>";
  return fx::zip({{"[Content_Types].xml", types}, {"_rels/.rels", rels("xl/workbook.xml")},
                  {"xl/workbook.xml", workbook}, {"xl/_rels/workbook.xml.rels", wb_rels},
                  {"xl/worksheets/sheet1.xml", sheet}});
}

std::string error_of(const Parser& p, const std::string& path, const std::string& bytes) {
  try {
    p.parse(path, bytes);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

/// An executable shell script standing in for soffice.
std::string fake_soffice(const testing::TempDir& d, const std::string& body) {
  const std::string path = d.write("bin/soffice", "#!/bin/sh\n" + body + "\n");
  ::chmod(path.c_str(), 0755);
  return path;
}

TEST(OfficeParser, DetectsOfficeFormatsByContent) {
  EXPECT_EQ(detect_format("report.docx", docx("T", "x")), "docx");
  EXPECT_EQ(detect_format("renamed.zip", docx("T", "x")), "docx");
  EXPECT_EQ(detect_format("book.xlsx", xlsx()), "xlsx");
  EXPECT_EQ(detect_format("notes.odt", fx::zip({{"mimetype", "application/vnd.oasis.opendocument.text"},
                                                {"content.xml", "<x/>"}})), "odt");
  EXPECT_EQ(detect_format("deck", fx::zip({{"mimetype", "application/vnd.oasis.opendocument.presentation"}})), "odp");
  std::string ole("\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1", 8);
  ole += std::string(100, '\0');
  std::string word;
  for (char c : std::string("WordDocument")) word += {c, '\0'};
  EXPECT_EQ(detect_format("old.bin", ole + word), "doc");
  EXPECT_EQ(detect_format("old.xls", ole), "xls") << "unknown streams: the extension decides";
  EXPECT_THROW(detect_format("old.bin", ole), InputError);
  EXPECT_EQ(detect_format("saved-as-html.doc", "<html><body>Word HTML</body></html>"), "doc");
  EXPECT_EQ(detect_format("broken.pptx", std::string("PK\x03\x04", 4) + "junk"), "pptx");
  try {
    detect_format("data.bin", fx::zip({{"a.txt", "hello"}}));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("ZIP archive"), std::string::npos) << e.what();
  }
  for (const char* f : {"docx", "pptx", "xlsx", "odt", "odp", "ods", "doc", "ppt", "xls"}) EXPECT_TRUE(is_office_format(f));
  EXPECT_FALSE(is_office_format("pdf"));
}

TEST(OfficeParser, MissingLibreOfficeIsExplained) {
  const std::string want =
      "cannot read report.docx: LibreOffice is not installed; install the Debian package "
      "libreoffice-core-nogui (plus libreoffice-writer-nogui / -impress-nogui / -calc-nogui) or convert it to PDF";
  OfficeOptions o;
  o.soffice = "/nonexistent/soffice";
  EXPECT_EQ(error_of(*make_office_parser(o), "/in/report.docx", docx("T", "x")), want);

  // Found through PATH by default: an empty PATH finds nothing.
  const char* old = std::getenv("PATH");
  const std::string saved = old ? old : "";
  ::setenv("PATH", "", 1);
  const std::string e = error_of(*make_office_parser(), "/in/report.docx", docx("T", "x"));
  ::setenv("PATH", saved.c_str(), 1);
  EXPECT_EQ(e, want);
}

TEST(OfficeParser, FailedConversionsAreInputErrors) {
  testing::TempDir d;
  OfficeOptions o;
  o.soffice = fake_soffice(d, "echo 'Error: source file could not be loaded'; exit 3");
  std::string e = error_of(*make_office_parser(o), "a.docx", docx("T", "x"));
  EXPECT_NE(e.find("LibreOffice could not convert a.docx to PDF (exit code 3: Error: source file could not be loaded)"),
            std::string::npos) << e;

  o.soffice = fake_soffice(d, "exit 0");  // "succeeds" without writing a PDF
  e = error_of(*make_office_parser(o), "a.docx", docx("T", "x"));
  EXPECT_NE(e.find("could not convert"), std::string::npos) << e;

  // A hung converter (and the child it started) is killed at the timeout.
  o.soffice = fake_soffice(d, "sleep 30 & sleep 30");
  o.timeout_seconds = 1;
  const auto t0 = std::chrono::steady_clock::now();
  e = error_of(*make_office_parser(o), "slow.xlsx", xlsx());
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(10));
  EXPECT_NE(e.find("did not finish converting slow.xlsx to PDF within 1 s"), std::string::npos) << e;
}

TEST(OfficeParser, ConvertsWordDocuments) {
  SKIP_WITHOUT_SOFFICE();
  const auto t0 = std::chrono::steady_clock::now();
  const ParsedDocument d = make_office_parser()->parse(
      "/in/report.docx", docx("Quarterly Report", "The quokka population grew by twelve percent."));
  std::cout << "[ info     ] DOCX conversion and parse: "
            << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s\n";
  EXPECT_EQ(d.format, "docx");
  EXPECT_EQ(d.pages, 1);
  std::string text;
  for (const Block& b : d.blocks) text += b.text + "\n";
  EXPECT_NE(text.find("Quarterly Report"), std::string::npos) << text;
  EXPECT_NE(text.find("The quokka population grew by twelve percent."), std::string::npos) << text;
  EXPECT_EQ(d.title, "Quarterly Report");
}

TEST(OfficeParser, ConvertsSpreadsheets) {
  SKIP_WITHOUT_SOFFICE();
  const ParsedDocument d = make_office_parser()->parse("/in/animals.xlsx", xlsx());
  EXPECT_EQ(d.format, "xlsx");
  std::string text;
  for (const Block& b : d.blocks) text += b.text + "\n";
  EXPECT_NE(text.find("quokka"), std::string::npos) << text;
  EXPECT_NE(text.find("42"), std::string::npos) << text;
}

TEST(OfficeParser, CorruptDocumentIsAnInputError) {
  SKIP_WITHOUT_SOFFICE();
  const std::string e = error_of(*make_office_parser(), "broken.docx", std::string("PK\x03\x04", 4) + std::string(300, 'z'));
  EXPECT_FALSE(e.empty());
  EXPECT_NE(e.find("broken.docx"), std::string::npos) << e;
}

}  // namespace
}  // namespace mmkg
