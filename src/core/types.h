// Core value types shared by every pipeline stage.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mmkg {

/// Kind of a structural block recovered by a parser.
enum class BlockKind { Heading, Paragraph, ListItem, Code, Table, Caption };

const char* block_kind_name(BlockKind k);

/// One structural unit of a parsed document, in reading order.
struct Block {
  BlockKind kind = BlockKind::Paragraph;
  int level = 0;      ///< heading level 1..6 for Heading, 0 otherwise
  std::string text;   ///< clean UTF-8, no Markdown markers (the chunker renders '#')
  int page = 0;       ///< 1-based page number; 0 when the format has no pages
};

/// What a parser returns: blocks in reading order plus document metadata.
struct ParsedDocument {
  std::string format;                 ///< "pdf", "markdown", "text", "html"
  std::string title;                  ///< best guess, may be empty
  int pages = 0;                      ///< number of pages (0 for formats without pages)
  std::vector<Block> blocks;
  std::vector<std::string> warnings;  ///< non-fatal problems worth telling the user
};

/// A retrievable piece of a document.
struct Chunk {
  std::string id;            ///< stable: hash of the document's content hash and the offsets (which fix the text)
  std::string doc_id;        ///< content hash of the document
  int seq = 0;               ///< 0-based position within the document
  int page_start = 0;        ///< 0 when the format has no pages
  int page_end = 0;
  std::string heading_path;  ///< "Intro > Background" (" > " separated)
  int64_t start = 0;         ///< byte offsets into the document's rendered text
  int64_t end = 0;
  std::string text;
  std::vector<float> vector;  ///< embedding, when computed (not part of the chunk's identity)
};

}  // namespace mmkg
