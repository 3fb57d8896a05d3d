// The HTML walk behind the HTML parser, shared with the EPUB parser (whose chapters are XHTML).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/types.h"
#include "ingest/figure_refs.h"

namespace mmkg {

struct HtmlTitles {
  std::string title;     ///< text of <title>
  std::string first_h1;  ///< text of the first <h1>
};

/// Appends the blocks of one HTML document (UTF-8) to `doc.blocks`, and its <img> references
/// (each with the index of the block it precedes) to `*images` unless `images` is null.
/// Throws InputError for markup nested too deeply to be a document.
HtmlTitles html_blocks(std::string_view html, ParsedDocument& doc, std::vector<ImageRef>* images);

}  // namespace mmkg
