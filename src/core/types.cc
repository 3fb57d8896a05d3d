#include "core/types.h"

namespace mmkg {

const char* block_kind_name(BlockKind k) {
  switch (k) {
    case BlockKind::Heading: return "heading";
    case BlockKind::Paragraph: return "paragraph";
    case BlockKind::ListItem: return "list_item";
    case BlockKind::Code: return "code";
    case BlockKind::Table: return "table";
    case BlockKind::Caption: return "caption";
  }
  return "paragraph";
}

const char* figure_kind_name(FigureKind k) { return k == FigureKind::Table ? "table" : "figure"; }

FigureKind figure_kind_from_name(std::string_view name) {
  return name == "table" ? FigureKind::Table : FigureKind::Figure;
}

}  // namespace mmkg
