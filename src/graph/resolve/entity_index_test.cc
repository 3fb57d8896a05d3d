#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <random>

#include "support/memory_graph_store.h"
#include "graph/resolve/resolve.h"
#include "support/resolve_fixtures.h"

namespace mmkg::graph {
namespace {

using testing::acronym;
using testing::chunk;
using testing::kNoEmbedder;
using testing::MemoryGraphStore;
using testing::term;

/// A small graph with the corpus's attention vocabulary, built through resolve_document.
void fill(MemoryGraphStore& store, const EmbedNames& embed) {
  std::vector<ChunkExtraction> doc = {
      chunk("c1", {term("attention", "noun_phrase", 9), term("Multi-Head Attention", "capitalised"),
                   acronym("MHA", "Multi-Head Attention"), term("attention sink"), term("self-attention")}),
      chunk("c2", {term("Transformer", "capitalised"), term("large language models"), acronym("LLMs", "large language models"),
                   term("GPT-4"), term("model"), term("encoder layer"), term("position encoding"),
                   term("Attention Is All You Need", "heading")}),
  };
  store.upsert(resolve_document(doc, "d1", store, embed));
}

std::string id_of(MemoryGraphStore& store, const std::string& name) { return store.find_by_key(name_key(name)).at(0); }

TEST(Link, WhatIsAttentionLinksAttention) {
  MemoryGraphStore store;
  fill(store, kNoEmbedder);
  auto index = EntityIndex::build(store, kNoEmbedder);
  for (const char* q : {"what is attention?", "What is Attention", "attention", "explain attention."}) {
    auto links = index->link(q);
    ASSERT_EQ(links.size(), 1u) << q;
    EXPECT_EQ(links[0].entity_id, id_of(store, "attention")) << q;
    EXPECT_EQ(links[0].how, "exact");
    EXPECT_EQ(links[0].score, 1);
  }
}

TEST(Link, AcronymLinksToItsExpansionsEntity) {
  MemoryGraphStore store;
  fill(store, kNoEmbedder);
  auto index = EntityIndex::build(store, kNoEmbedder);
  auto links = index->link("what is MHA?");
  ASSERT_EQ(links.size(), 1u);
  EXPECT_EQ(links[0].name, "Multi-Head Attention");
  EXPECT_EQ(links[0].how, "alias");
  EXPECT_EQ(links[0].phrase, "mha");
  links = index->link("How do LLMs use attention sinks?");
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(links[0].name, "attention sink");  // two words before one
  EXPECT_EQ(links[1].name, "large language models");
}

TEST(Link, LongerMatchSuppressesItsParts) {
  MemoryGraphStore store;
  fill(store, kNoEmbedder);
  auto index = EntityIndex::build(store, kNoEmbedder);
  for (const char* q : {"multi-head attention", "How does Multi Head Attention work?", "multi-head attentions"}) {
    auto links = index->link(q);
    ASSERT_EQ(links.size(), 1u) << q;
    EXPECT_EQ(links[0].name, "Multi-Head Attention") << q;
    EXPECT_EQ(links[0].how, "exact") << q;
  }
  auto links = index->link("who wrote attention is all you need?");
  ASSERT_EQ(links.size(), 1u);
  EXPECT_EQ(links[0].name, "Attention Is All You Need");
  // Partial overlaps are both kept: "attention sink" and "self-attention" share no containment.
  links = index->link("self-attention sink");
  EXPECT_EQ(links.size(), 2u);
}

TEST(Link, TyposLinkFuzzily) {
  MemoryGraphStore store;
  fill(store, kNoEmbedder);
  auto index = EntityIndex::build(store, kNoEmbedder);
  auto links = index->link("what is mutli-head attention?");
  ASSERT_EQ(links.size(), 1u);
  EXPECT_EQ(links[0].name, "Multi-Head Attention");
  EXPECT_EQ(links[0].how, "fuzzy");
  EXPECT_GT(links[0].score, 0.9);
  links = index->link("transfomer");
  ASSERT_EQ(links.size(), 1u);
  EXPECT_EQ(links[0].name, "Transformer");
  links = index->link("atention sinks");
  ASSERT_EQ(links.size(), 1u);
  EXPECT_EQ(links[0].name, "attention sink");
}

TEST(Link, NoFuzzyMatchForRealWordsVersionsOrOtherFirstLetters) {
  MemoryGraphStore store;
  fill(store, kNoEmbedder);
  auto index = EntityIndex::build(store, kNoEmbedder);
  EXPECT_TRUE(index->link("what is a modal?").empty());      // a real word, not a typo of "model"
  EXPECT_TRUE(index->link("GPT-3").empty());                  // not GPT-4
  EXPECT_TRUE(index->link("decoder layer").empty());          // not "encoder layer"
  EXPECT_TRUE(index->link("what is it and why?").empty());    // stop words only
  EXPECT_TRUE(index->link("").empty());
}

TEST(Link, AcronymsSpellingEnglishWordsNeedCapitals) {
  MemoryGraphStore store;
  store.upsert(resolve_document({chunk("c1", {term("unconditional stimuli"), acronym("US", "unconditional stimuli"),
                                              term("Gene Ontology", "capitalised"), acronym("GO", "Gene Ontology")})},
                                "d1", store, kNoEmbedder));
  auto index = EntityIndex::build(store, kNoEmbedder);
  EXPECT_TRUE(index->link("tell us where to go").empty());
  auto links = index->link("which GO terms pair with the US?");
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(links[0].name, "Gene Ontology");
  EXPECT_EQ(links[1].name, "unconditional stimuli");
}

TEST(Link, LookupByNameAliasAndTypo) {
  MemoryGraphStore store;
  fill(store, kNoEmbedder);
  auto index = EntityIndex::build(store, kNoEmbedder);
  auto r = index->lookup("MHA");
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r[0].name, "Multi-Head Attention");
  r = index->lookup("Multi-Head Attention");
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r[0].how, "exact");
  r = index->lookup("multi-head attenton");
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r[0].how, "fuzzy");
  EXPECT_TRUE(index->lookup("retrieval").empty());
}

TEST(Link, EmbeddingLinksParaphrasesWithTheNativeEmbedder) {
  MMKG_REQUIRE_NATIVE_EMBEDDER(embed);
  MemoryGraphStore store;
  fill(store, embed);
  auto index = EntityIndex::build(store, embed);
  // "positional encodings" is no typo of "position encoding" ("positional" is a word); MiniLM
  // gives cosine 0.88.
  auto links = index->link("how are positional encodings computed?");
  ASSERT_FALSE(links.empty());
  EXPECT_EQ(links[0].name, "position encoding");
  EXPECT_EQ(links[0].how, "embedding");
  EXPECT_GE(links[0].score, 0.8);
  // Lexical links are unchanged by the embedder.
  links = index->link("what is attention?");
  ASSERT_EQ(links.size(), 1u);
  EXPECT_EQ(links[0].how, "exact");
}

// ---- latency

/// A synthetic graph: `n` distinct names of 1-4 words from a general technical vocabulary.
void fill_synthetic(MemoryGraphStore& store, int n) {
  static const char* mods[] = {"sparse", "linear", "causal", "masked", "gated", "local", "global", "rotary",
                               "relative", "absolute", "hierarchical", "recurrent", "convolutional", "adaptive",
                               "multi", "cross", "self", "dense", "low rank", "quantized", "distilled", "bidirectional",
                               "contrastive", "generative", "latent", "residual", "stochastic", "deterministic",
                               "graph", "spectral", "temporal", "spatial", "dynamic", "static", "neural", "memory"};
  static const char* heads[] = {"attention", "encoder", "decoder", "embedding", "network", "layer", "model", "head",
                                "transformer", "kernel", "mechanism", "representation", "cache", "router", "gate",
                                "module", "loss", "objective", "optimizer", "tokenizer", "projection", "normalization",
                                "retrieval", "index", "benchmark", "dataset", "pipeline", "policy", "estimator"};
  std::mt19937 rng(7);
  std::set<std::string> names;
  GraphDelta delta;
  while (static_cast<int>(names.size()) < n) {
    int words = 1 + static_cast<int>(rng() % 4);
    std::string name;
    for (int i = 0; i + 1 < words; ++i) name += std::string(mods[rng() % std::size(mods)]) + " ";
    name += heads[rng() % std::size(heads)];
    if (names.size() > 1000) name += " " + std::to_string(names.size());  // beyond the combinations
    if (!names.insert(name).second) continue;
    Entity e;
    e.id = "e" + std::to_string(names.size());
    e.name = name;
    e.aliases = {name};
    delta.entities.push_back(e);
    delta.mentions.push_back({e.id, "c", "d", name, 1});
  }
  store.upsert(delta);
}

void measure(int n, const EmbedNames& embed, const char* label) {
  MemoryGraphStore store;
  fill_synthetic(store, n);
  auto t0 = std::chrono::steady_clock::now();
  auto index = EntityIndex::build(store, embed);
  auto t1 = std::chrono::steady_clock::now();
  const std::vector<std::string> questions = {
      "what is sparse attention?", "How does the rotary embedding differ from relative embedding in long contexts?",
      "compare masked self attention with causal attention", "what is the mutli head attention mechanism used for",
      "Which benchmark and dataset evaluate the gated router of a mixture of experts model?",
      "explain low-rank projection and quantized cache", "why do transformers need layer normalization after residual layers"};
  const int rounds = 20;
  size_t links = 0;
  auto t2 = std::chrono::steady_clock::now();
  for (int r = 0; r < rounds; ++r)
    for (const auto& q : questions) links += index->link(q).size();
  auto t3 = std::chrono::steady_clock::now();
  double build_ms = std::chrono::duration<double, std::milli>(t1 - t0).count();
  double per_q_ms = std::chrono::duration<double, std::milli>(t3 - t2).count() / (rounds * questions.size());
  std::printf("[ latency  ] %s: %d entities, build %.0f ms, link %.3f ms/question (%zu links)\n", label, n, build_ms,
              per_q_ms, links / rounds);
  EXPECT_LT(per_q_ms, 250.0) << label;  // generous: the machine is shared
  EXPECT_GT(links, 0u);
}

TEST(Link, LatencyOnSyntheticGraphs) {
  // Hash vectors stand in for the model here: they cost nothing, so this measures the index
  // (n-grams, keys, trigrams, the sgemm over every name vector).
  measure(2000, testing::hash_embedder(), "lexical + vectors (hash embedder)");
  measure(50000, testing::hash_embedder(), "lexical + vectors (hash embedder)");
  measure(50000, kNoEmbedder, "lexical only");
}

TEST(Link, LatencyWithTheNativeEmbedder) {
  MMKG_REQUIRE_NATIVE_EMBEDDER(embed);
  measure(2000, embed, "native all-MiniLM-L6-v2");
}

// An embedding link never swaps one modifier for another under the same head word: with every
// cosine 1, "cross-attention" does not find "cross-modal attention" (nor "additive attention"
// "Efficient Attention"), while a name with another head still does.
TEST(Link, EmbeddingDoesNotSwapModifiersUnderOneHead) {
  MemoryGraphStore store;
  store.upsert(resolve_document({chunk("c1", {term("cross-modal attention"), term("Efficient Attention", "capitalised")})},
                                "d1", store, kNoEmbedder));
  auto index = EntityIndex::build(store, testing::constant_embedder());
  EXPECT_TRUE(index->lookup("cross-attention").empty());
  EXPECT_TRUE(index->lookup("additive attention").empty());
  EXPECT_FALSE(index->lookup("attention kernel").empty());  // another head: the cosine decides
}

}  // namespace
}  // namespace mmkg::graph
