#include "core/location.h"

namespace mmkg {

std::string location_text(const PassageLocation& w) {
  std::string s = w.doc;
  if (w.page > 0 && w.page_end > w.page) s += ", pages " + std::to_string(w.page) + "\u2013" + std::to_string(w.page_end);
  else if (w.page > 0) s += ", page " + std::to_string(w.page);
  if (w.figure_id.empty()) return s + ", chunk " + w.chunk_id;
  if (!w.figure_label.empty()) return s + ", " + w.figure_label;
  return s + ", " + figure_kind_name(w.figure_kind) + " " + w.figure_id;
}

}  // namespace mmkg
