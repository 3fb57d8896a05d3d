// Helpers for unit tests only: a text document of given chunks written straight to a store.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "store/store.h"

namespace mmkg::testing {

/// Writes document `id` at `path` (its name: the path after "/c/") with one chunk per text,
/// chunk ids "<id>-<i>", every chunk on `page` (0: no pages).
inline void put_text_document(Store& store, const std::string& id, const std::string& path,
                              const std::vector<std::string>& texts, int page = 0) {
  DocumentRecord d;
  d.id = id;
  d.path = path;
  d.name = path.rfind("/c/", 0) == 0 ? path.substr(3) : path;
  d.format = "text";
  std::vector<Chunk> cs;
  for (size_t i = 0; i < texts.size(); ++i) {
    Chunk c;
    c.id = id + "-" + std::to_string(i);
    c.seq = static_cast<int>(i);
    c.text = texts[i];
    c.page_start = c.page_end = page;
    cs.push_back(c);
  }
  store.put_document(d, "", cs, std::nullopt);
}

}  // namespace mmkg::testing
