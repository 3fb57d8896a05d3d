// Helpers shared by the resolution and linking tests only (header-only).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "core/hash.h"
#include "support/embed_fixtures.h"
#include "embed/embedder.h"
#include "graph/model/extractor.h"
#include "graph/resolve/resolve.h"

namespace mmkg::graph::testing {

inline TermCandidate term(std::string surface, std::string kind = "noun_phrase", int count = 1) {
  TermCandidate t;
  t.surface = std::move(surface);
  t.kind = std::move(kind);
  t.count = count;
  t.score = 1;
  return t;
}

inline TermCandidate acronym(std::string surface, std::string expansion = "", int count = 1) {
  TermCandidate t = term(std::move(surface), "acronym", count);
  t.expansion = std::move(expansion);
  return t;
}

inline ChunkExtraction chunk(std::string id, std::vector<TermCandidate> terms, std::vector<RelationCandidate> rels = {}) {
  return ChunkExtraction{std::move(id), std::move(terms), std::move(rels)};
}

/// The entity of `delta` that has `surface` as an alias, or nullptr.
inline const Entity* with_alias(const GraphDelta& delta, const std::string& surface) {
  for (const Entity& e : delta.entities)
    for (const std::string& a : e.aliases)
      if (a == surface) return &e;
  return nullptr;
}

/// Deterministic pseudo-embeddings (hash-seeded unit vectors): unrelated names are near-orthogonal.
inline EmbedNames hash_embedder(int dim = 384) {
  return [dim](const std::vector<std::string>& names) {
    std::vector<std::vector<float>> out;
    for (const std::string& n : names) {
      uint64_t s = hash64(n) | 1;
      std::vector<float> v(dim);
      double norm = 0;
      for (int i = 0; i < dim; ++i) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        v[i] = static_cast<float>(static_cast<int64_t>(s % 2001) - 1000);
        norm += static_cast<double>(v[i]) * v[i];
      }
      for (float& x : v) x = static_cast<float>(x / std::sqrt(norm));
      out.push_back(std::move(v));
    }
    return out;
  };
}

/// No name vectors at all: entities link by the lexical rules only.
inline const EmbedNames kNoEmbedder = [](const std::vector<std::string>&) { return std::vector<std::vector<float>>{}; };

/// Every name gets the same vector: cosine 1 between any two names (to show the lexical guards).
inline EmbedNames constant_embedder() {
  return [](const std::vector<std::string>& names) {
    return std::vector<std::vector<float>>(names.size(), std::vector<float>{1.f, 0.f, 0.f});
  };
}

/// The installed all-MiniLM-L6-v2 as EmbedNames, loaded once per test process; null (and a loud
/// message) when the model is not installed.
inline std::shared_ptr<Embedder> native_embedder_or_null() {
  static std::shared_ptr<Embedder> e = []() -> std::shared_ptr<Embedder> {
    std::string why;
    if (mmkg::testing::minilm_dir_or_empty(&why).empty()) {
      std::cerr << "\n*** all-MiniLM-L6-v2 NOT INSTALLED: embedding tests are SKIPPED (" << why << ") ***\n\n";
      return nullptr;
    }
    return std::shared_ptr<Embedder>(make_embedder("native"));
  }();
  return e;
}

inline EmbedNames as_embed_names(std::shared_ptr<Embedder> e) {
  return [e](const std::vector<std::string>& names) {
    std::vector<std::vector<float>> out;
    if (!e || names.empty()) return out;
    std::vector<float> flat = e->embed(names, EmbedKind::Document);
    const size_t d = static_cast<size_t>(e->dim());
    for (size_t i = 0; i < names.size(); ++i) out.emplace_back(flat.begin() + i * d, flat.begin() + (i + 1) * d);
    return out;
  };
}

}  // namespace mmkg::graph::testing

#define MMKG_REQUIRE_NATIVE_EMBEDDER(var)                                                         \
  auto var##_model = mmkg::graph::testing::native_embedder_or_null();                             \
  if (!var##_model) GTEST_SKIP() << "*** all-MiniLM-L6-v2 is not installed (make setup) ***"; \
  mmkg::graph::EmbedNames var = mmkg::graph::testing::as_embed_names(var##_model)
