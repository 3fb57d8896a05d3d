// Images a document refers to (Markdown, HTML, EPUB): resolving a reference to bytes (confined
// to the ingested folder), decoding them, and recording them as Figures in reading order, with
// one warning per image that cannot be used. Shared by the Markdown, HTML and EPUB parsers.
#pragma once

#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/types.h"
#include "ingest/parser.h"

namespace mmkg {

/// Where the bytes of referenced images come from: files on disk, entries of an archive.
class ImageSource {
 public:
  enum class Status { Ok, Ignored, Failed };
  struct Loaded {
    Status status = Status::Ignored;
    std::string key;     ///< identity of the image (resolved path): one Figure per key
    std::string bytes;   ///< Ok: the file's content
    std::string reason;  ///< Failed: why, one line ("file not found", "outside ...")
  };
  virtual ~ImageSource() = default;
  /// `src` as written in the document (entities decoded, URL escapes not). Remote URLs are
  /// Ignored; data: URIs never reach a source (the collector decodes them).
  virtual Loaded load(const std::string& src) const = 0;
};

/// Image files next to a document: `src` is URL-decoded and resolved against the document's
/// folder; after resolving ".." and symlinks it must lie inside `ctx.root` (the document's own
/// folder when root is empty). Files above `ctx.max_image_bytes` are refused unread.
class FileImageSource final : public ImageSource {
 public:
  FileImageSource(const std::string& doc_path, const ParseContext& ctx);
  Loaded load(const std::string& src) const override;

 private:
  std::filesystem::path dir_;   ///< the document's folder (absolute)
  std::filesystem::path root_;  ///< canonical confinement root
  int64_t max_bytes_;
};

/// One image reference as met in the document.
struct ImageRef {
  std::string src;
  std::string alt;
  std::string title;
  std::string caption;  ///< an explicit caption (HTML figcaption); empty if none
  size_t block = 0;     ///< index of the block the image precedes (doc.blocks.size() at the time)
};

/// Turns image references into Figures of `doc`: decodes each image once (one Figure per
/// resolved image), skips remote URLs silently and warns once per unusable image. Images
/// smaller than kMinFigureSide on a side (spacers, bullets, icons) are dropped silently.
class FigureCollector {
 public:
  static constexpr int kMinFigureSide = 16;
  static constexpr size_t kMaxFigures = 500;   ///< per document; more are skipped with a warning
  static constexpr size_t kMaxWarnings = 20;   ///< individual warnings; the rest are counted

  FigureCollector(const ImageSource& source, ParsedDocument& doc, int64_t max_image_bytes);
  void add(const ImageRef& ref);
  /// Adds the summary warnings (images over the limits). Call once, after the last add().
  void finish();

 private:
  void warn(const std::string& src, const std::string& reason);

  const ImageSource& source_;
  ParsedDocument& doc_;
  int64_t max_bytes_;
  std::set<std::string> seen_;
  size_t warnings_ = 0, unreported_ = 0, over_limit_ = 0;
};

/// The images a Markdown or HTML file at `doc_path` shows, as Figures of `doc`: resolved by a
/// FileImageSource, collected by a FigureCollector (warnings included). Nothing when `images` is empty.
void add_file_figures(const std::string& doc_path, const ParseContext& ctx, const std::vector<ImageRef>& images,
                      ParsedDocument& doc);

/// "Figure 3", "Fig. 2b", "FIGURE S1" when `caption` starts with a figure label (as written,
/// whitespace collapsed, trailing punctuation dropped); empty otherwise.
std::string figure_label(std::string_view caption);

/// Decodes %XX escapes (invalid escapes are kept as written; "+" is not a space in paths).
std::string url_decode(std::string_view s);

}  // namespace mmkg
