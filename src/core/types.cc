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

}  // namespace mmkg
