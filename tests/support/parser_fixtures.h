// Test helper shared by the parser tests (header-only).
#pragma once

#include <string>

#include "core/types.h"

namespace mmkg::testing {

/// Compact view of a parse: "H1:title|P:text|L:item|C:code|T:table|F:caption".
inline std::string render_blocks(const ParsedDocument& d) {
  std::string out;
  for (const Block& b : d.blocks) {
    if (!out.empty()) out += "|";
    switch (b.kind) {
      case BlockKind::Heading: out += "H" + std::to_string(b.level); break;
      case BlockKind::Paragraph: out += "P"; break;
      case BlockKind::ListItem: out += "L"; break;
      case BlockKind::Code: out += "C"; break;
      case BlockKind::Table: out += "T"; break;
      case BlockKind::Caption: out += "F"; break;
    }
    out += ":" + b.text;
  }
  return out;
}

}  // namespace mmkg::testing
