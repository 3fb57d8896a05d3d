// Standalone image files: a document of one Figure. Its only text is the file name (as words);
// the OCR stage adds the words in the image to the Figure later.
#include <filesystem>
#include <string>

#include "ingest/image_decode.h"
#include "ingest/parser.h"

namespace mmkg {
namespace {

/// "IMG_2041-scan" -> "IMG 2041 scan": separators become spaces, so the name is searchable.
std::string name_words(const std::string& stem) {
  std::string out;
  for (char c : stem) {
    const bool sep = c == '_' || c == '-' || c == '.' || c == ' ' || c == '\t' || c == '+';
    if (sep) {
      if (!out.empty() && out.back() != ' ') out.push_back(' ');
    } else if (static_cast<unsigned char>(c) >= 0x20) {
      out.push_back(c);
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

class ImageParser final : public Parser {
 public:
  const char* name() const override { return "image"; }

  using Parser::parse;
  // ctx.figures does not apply: the image is the document's content, not an extra.
  ParsedDocument parse(const std::string& path, std::string_view bytes, const ParseContext&) const override {
    DecodedImage img = decode_image(bytes, "");
    ParsedDocument doc;
    doc.format = "image";
    const std::string stem = std::filesystem::path(path).stem().string();
    doc.title = stem;
    Block b;
    b.kind = BlockKind::Paragraph;
    b.text = name_words(stem);
    if (b.text.empty()) b.text = "image";
    doc.blocks.push_back(std::move(b));
    Figure f;
    f.source = "file";
    f.block = 0;
    f.png = std::move(img.png);
    f.width = img.width;
    f.height = img.height;
    doc.figures.push_back(std::move(f));
    doc.warnings = std::move(img.warnings);
    return doc;
  }
};

}  // namespace

std::unique_ptr<Parser> make_image_parser() { return std::make_unique<ImageParser>(); }

}  // namespace mmkg
