// Core value types shared by every pipeline stage.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mmkg {

/// Kind of a structural block recovered by a parser.
enum class BlockKind { Heading, Paragraph, ListItem, Code, Table, Caption };

const char* block_kind_name(BlockKind k);

/// A figure or a table (a figure's own chunk, a graph Figure node, a citation of one).
enum class FigureKind { Figure, Table };

/// "figure" or "table": the name the stores, the exports and the JSON use.
const char* figure_kind_name(FigureKind k);
/// The kind a store or a graph wrote: "table" is a table, anything else a figure.
FigureKind figure_kind_from_name(std::string_view name);

/// One structural unit of a parsed document, in reading order.
struct Block {
  BlockKind kind = BlockKind::Paragraph;
  int level = 0;      ///< heading level 1..6 for Heading, 0 otherwise
  std::string text;   ///< clean UTF-8, no Markdown markers (the chunker renders '#')
  int page = 0;       ///< 1-based page number; 0 when the format has no pages
  /// Where the block's lines lie on its page (PDF only): the union of their boxes, in page space
  /// (points, y down, as MuPDF reports them); all 0 when the format has no pages.
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

/// A rectangle on a page of a PDF: where a chunk's text lies (points, y down, page space).
struct PageBox {
  int page = 0;  ///< 1-based
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  bool operator==(const PageBox&) const = default;
};

/// A figure or a table of a document: an image (embedded raster, region of vector drawing
/// rendered by MuPDF, image file referenced by Markdown/HTML, standalone image file) or a table
/// (rows, rendered as a Markdown table), with everything that makes it searchable.
struct Figure {
  std::string id;        ///< assigned at ingest: hash of the document id and `seq`
  int seq = 0;           ///< 0-based order within the document
  bool table = false;    ///< a Table node rather than a Figure node
  std::string source;    ///< how it was found: "raster", "vector", "file", "table"
  int page = 0;          ///< 1-based page, 0 when the format has no pages
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;  ///< region in page space (points, y down); 0 if none
  size_t block = 0;      ///< position in reading order: it precedes blocks[block] (or ends the document)
  int64_t offset = 0;    ///< the same position as a byte offset in the rendered text (set by the chunker)
  std::string label;     ///< "Figure 3", "Table 2"; empty when uncaptioned
  std::string caption;   ///< the caption as written ("Figure 3: Loss curves."), or alt text/figcaption
  std::string alt;       ///< alt text or title from Markdown/HTML, when any
  std::vector<std::string> references;  ///< sentences elsewhere that refer to it ("as Figure 3 shows")
  std::string text;          ///< text inside: the PDF text of a vector region, or OCR words
  std::string text_source;   ///< "pdf", "ocr" or "" (none)
  float ocr_confidence = -1; ///< mean word confidence 0..100 of the kept OCR words; -1 without OCR
  std::string description;   ///< from a vision model, when one is configured
  std::string visual_kind;   ///< from a vision model: chart, diagram, photo, screenshot, table
  std::string table_markdown;  ///< tables: the rows as a Markdown table
  std::string png;           ///< the image as PNG bytes (empty for a table without an image)
  int width = 0, height = 0; ///< pixel size of `png`
  std::string image_hash;    ///< content hash of `png` (its file name in the store's figures/)
  FigureKind kind() const { return table ? FigureKind::Table : FigureKind::Figure; }
};

/// What a parser returns: blocks in reading order plus document metadata.
struct ParsedDocument {
  std::string format;                 ///< "pdf", "markdown", "text", "html", "image", "epub", ...
  std::string title;                  ///< best guess, may be empty
  int pages = 0;                      ///< number of pages (0 for formats without pages)
  std::vector<Block> blocks;
  std::vector<Figure> figures;        ///< in reading order; `Figure::block` places each one
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
  /// A figure's or table's own chunk (its caption, references, inner text and description):
  /// the figure's id; empty for a chunk of the document's text.
  std::string figure_id;
  /// Where the chunk's text lies on its pages (PDF only; empty for other formats): the box of
  /// every block the chunk covers (whole, even when the chunk covers part of it), merged per page
  /// when adjacent, in reading order, rounded outwards to whole points. A figure's chunk: the
  /// figure's region. Not part of the chunk's identity.
  std::vector<PageBox> boxes;
};

}  // namespace mmkg
