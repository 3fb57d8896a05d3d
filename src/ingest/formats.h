// The file formats mmkg reads, in one table: each format's name (as stored with a document),
// extensions, MIME types, reader, and what the walker, ingest and uploads need to know about
// it; plus telling a file's format from its content (magic bytes, a ZIP's entries) and name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mmkg {

/// The parser family that reads a format (ingest/parser.h: one parser per family).
enum class Reader { Pdf, Markdown, Html, Text, Image, Epub, Office };

struct FormatInfo {
  const char* name;  ///< "pdf", "markdown", "html", "text", "image", "epub", "docx", ... (Document::format)
  Reader reader;
  /// Lower-case, with the dot. Files with these are taken from folders; the first is the one an
  /// upload gets when its own name says something else.
  std::vector<std::string> extensions;
  /// Also kept on an upload's name, but not taken from folders (".csv", ".log" as text).
  std::vector<std::string> upload_extensions;
  /// The first is the format's own; the others name it too (an EPUB manifest's "text/html").
  std::vector<std::string> mime_types;
  bool text = false;          ///< UTF-8 text: an upload must decode as UTF-8
  bool shows_images = false;  ///< a page that shows image files by name (they become its figures)
  bool zip = false;           ///< a ZIP container whose `mimetype` entry names it
  bool paged = false;         ///< fixed pages the page view renders (PDF)
  /// Bumped when the reader's output changes enough that stored documents must be read again
  /// (document_id() includes it above 1).
  int reader_revision = 1;
};

/// Every format, in a fixed order.
const std::vector<FormatInfo>& formats();
/// The format named `name`; nullptr when none is.
const FormatInfo* find_format(std::string_view name);
/// The format named `name`; plain text for an unknown name (a store written by a newer mmkg).
const FormatInfo& format_info(std::string_view name);
/// The format whose `extensions` (or, with `uploads`, `upload_extensions`) hold `ext`
/// (".PDF" matches ".pdf"); nullptr when none does.
const FormatInfo* format_for_extension(std::string_view ext, bool uploads = false);
/// The format a MIME type names ("text/html; charset=utf-8" names HTML); nullptr when none.
const FormatInfo* format_for_mime(std::string_view mime);

/// True for the formats make_office_parser() converts ("docx", "xls", ...).
bool is_office_format(const std::string& format);

/// Chooses the parser for a file from its content (magic bytes, the entries of a ZIP) and then
/// its extension. Returns "pdf", "markdown", "html", "text", "image", "epub" or an Office format
/// ("docx", "pptx", "xlsx", "odt", "odp", "ods", "doc", "ppt", "xls"). Throws InputError for
/// content that no parser handles (archives, executables), naming what the content really is,
/// and for an image under a document's extension ("this pdf file is really a JPEG image").
std::string detect_format(const std::string& path, std::string_view bytes);

/// What well-known binary content is, from its magic bytes ("JPEG image", "ZIP archive", ...),
/// or empty when unknown.
std::string sniff_binary(std::string_view bytes);

/// How an uploaded file is stored: the extension to append to its name so that its content's
/// format is the one its name says (empty when it already does: "scan.bin" holding a PDF gets
/// ".pdf", "notes.md" nothing), and whether that format is text. Throws InputError for content
/// no parser reads.
struct UploadFormat {
  std::string extension;
  bool text = false;
};
UploadFormat upload_format(const std::string& name, std::string_view bytes);

}  // namespace mmkg
