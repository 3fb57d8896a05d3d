// The figure stage of ingest: between parsing and chunking, a document's figures and tables
// get their ids and image hashes, labels and references ("as shown in Figure 3"), text from
// OCR (raster images) and a description from a vision model (when one is configured), each
// cached by image hash; then each becomes a chunk of its own so that search finds it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/types.h"
#include "ingest/chunker.h"

namespace mmkg {

/// What a vision model said about one figure.
struct DescribedFigure {
  std::string description;  ///< what it shows
  std::string text;         ///< text it read in the image
  std::string kind;         ///< chart, diagram, photo, screenshot, table, other
};

/// A vision model describing figures (implemented in app/ over the llm layer). Must be safe to
/// call from several threads at once.
class FigureDescriber {
 public:
  virtual ~FigureDescriber() = default;
  /// Identifies model and prompt: part of the cache key, so another model or prompt describes again.
  virtual std::string id() const = 0;
  /// One model call; throws Error on failure (the figure then goes without a description).
  virtual DescribedFigure describe(const Figure& fig) = 0;
};

/// Cache of per-image results (the store's figure_cache), looked up by the parse workers and
/// filled by the writer. Either function may be empty.
struct FigureCache {
  /// Called on enrich_figures' calling thread only (before its worker threads start); may throw
  /// (a failed read counts as a miss).
  std::function<std::optional<std::string>(const std::string& key)> get;
};

struct FigureOptions {
  bool enabled = true;                     ///< extract figures and tables at all (--no-figures)
  bool ocr = true;                         ///< OCR raster figures (Tesseract) when available
  int threads = 0;                         ///< OCR / description threads; 0 = number of cores
  FigureDescriber* describer = nullptr;    ///< vision model, optional
  size_t max_references = 5;               ///< sentences kept per figure
};

/// Counters of the figure stage for one document (summed into IngestResult).
struct FigureStats {
  int figures = 0, tables = 0;
  int ocr_runs = 0, ocr_cached = 0;
  int ocr_skipped = 0;  ///< of ocr_runs: blank or without a line of text, so Tesseract did not run
  double ocr_seconds = 0;
  int described = 0, describe_cached = 0, describe_failed = 0;
  double describe_seconds = 0;
  /// New cache entries (key, value) for the writer to store.
  std::vector<std::pair<std::string, std::string>> cache_new;
  std::vector<std::string> warnings;
};

/// Ids, image hashes, labels from captions, references from the text. `doc_id` seeds the ids.
void prepare_figures(ParsedDocument& doc, const std::string& doc_id, size_t max_references = 5);

/// OCR and descriptions (cached by image hash through `cache`), run on `opt.threads` threads.
FigureStats enrich_figures(ParsedDocument& doc, const FigureOptions& opt, const FigureCache& cache);

/// Sets each figure's offset in `rendered` and appends one chunk per figure (its text is
/// appended to `rendered.text`, so chunk text == text.substr(start, end - start) still holds).
void add_figure_chunks(ParsedDocument& doc, RenderedDocument& rendered, const std::string& doc_id,
                       std::vector<Chunk>& chunks);

/// The searchable text of a figure's chunk: caption, references, inner text, description.
std::string figure_chunk_text(const Figure& fig);

}  // namespace mmkg
