// Structure-aware chunking: split at headings, then paragraphs, then sentences, never mid-word.
#pragma once

#include <string>
#include <vector>

#include "core/types.h"

namespace mmkg {

struct ChunkerOptions {
  size_t target_chars = 1000;  ///< a chunk grows up to about this many bytes of text
  size_t overlap_chars = 150;  ///< trailing sentences (up to this size) repeated at the next chunk's start
  size_t min_chars = 200;      ///< a section shorter than this is merged with the following one
};

/// The document's text as the chunker sees it: blocks rendered to Markdown, joined by blank lines.
/// Chunk offsets index into this string; chunk text == text.substr(start, end - start).
struct RenderedDocument {
  std::string text;
  struct Span {
    size_t start, end;  ///< byte range of the block in `text`
    size_t block;       ///< index into ParsedDocument::blocks
  };
  std::vector<Span> spans;
};

RenderedDocument render_document(const ParsedDocument& doc);

/// Cuts `doc` into chunks. `doc_id` (the document's content hash) seeds the stable chunk ids.
std::vector<Chunk> chunk_document(const ParsedDocument& doc, const RenderedDocument& rendered,
                                  const std::string& doc_id, const ChunkerOptions& opt = {});

}  // namespace mmkg
