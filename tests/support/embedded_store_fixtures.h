// Helpers for unit tests only: a text document with embedded chunks written straight to a store
// (store_fixtures.h without vectors).
#pragma once

#include <string>
#include <vector>

#include "embed/embedder.h"
#include "support/store_fixtures.h"

namespace mmkg::testing {

/// Writes text document `id` (path "/c/<id>.txt") with one chunk per text, embedded by `emb`:
/// chunk ids "<id>-<i>", seq i × `seq_step` (10: passages far apart, no two adjacent).
inline void put_embedded_document(Store& store, Embedder& emb, const std::string& id,
                                  const std::vector<std::string>& texts, int seq_step = 1) {
  std::vector<Chunk> cs = text_chunks(id, texts, 0);
  for (auto& c : cs) {
    c.seq *= seq_step;
    c.vector = emb.embed({c.text}, EmbedKind::Document);
  }
  store.put_document(document_at(id, "/c/" + id + ".txt", "text"), "", cs, std::nullopt, emb.id());
}

}  // namespace mmkg::testing
