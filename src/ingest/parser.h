// Parser interface: one implementation per input format, each in its own file.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/types.h"

namespace mmkg {

/// What a parser may use besides the file's bytes.
struct ParseContext {
  /// Folder being ingested: files a document refers to (Markdown/HTML images) are read only
  /// from inside it. Empty: the document's own folder.
  std::string root;
  int64_t max_image_bytes = int64_t{64} << 20;  ///< a larger referenced image is skipped, with a warning
  bool figures = true;                          ///< extract figures and tables (images, regions)
};

/// Parses the bytes of one file into structural blocks (and figures).
/// Implementations throw InputError with a one-line reason for bad input (corrupt, encrypted,
/// empty, wrong type); they never crash on any byte sequence.
class Parser {
 public:
  virtual ~Parser() = default;
  /// Short format name: "pdf", "markdown", "text", "html", "image", "epub", "office".
  virtual const char* name() const = 0;
  /// @param path  the file's path: messages, titles, and the base of relative image links
  /// @param bytes the whole file content
  virtual ParsedDocument parse(const std::string& path, std::string_view bytes, const ParseContext& ctx) const = 0;
  ParsedDocument parse(const std::string& path, std::string_view bytes) const { return parse(path, bytes, ParseContext{}); }
};

std::unique_ptr<Parser> make_pdf_parser();
std::unique_ptr<Parser> make_text_parser();
std::unique_ptr<Parser> make_markdown_parser();
std::unique_ptr<Parser> make_html_parser();
/// A standalone image file (PNG, JPEG, TIFF, WebP, GIF, BMP): one Figure, and the file name as
/// the only text block (OCR adds the image's text later). Format "image".
std::unique_ptr<Parser> make_image_parser();
/// EPUB (2 and 3): the spine's XHTML chapters in order, through the HTML walk, with their images
/// as Figures. Format "epub". DRM-encrypted books are refused.
std::unique_ptr<Parser> make_epub_parser();

/// How Office documents are converted.
struct OfficeOptions {
  /// The LibreOffice program; empty: "soffice", then "libreoffice", looked up in PATH.
  std::string soffice;
  int timeout_seconds = 120;  ///< a conversion running longer is killed
};
/// DOCX, PPTX, XLSX, ODT, ODP, ODS, DOC, PPT, XLS: converted to PDF by LibreOffice (headless,
/// a private profile per conversion) and parsed by the PDF parser. The format is the file's
/// ("docx", ...). Throws InputError naming the packages to install when LibreOffice is missing.
std::unique_ptr<Parser> make_office_parser(OfficeOptions options = {});

}  // namespace mmkg
