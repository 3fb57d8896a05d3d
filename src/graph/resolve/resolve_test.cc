#include "graph/resolve/resolve.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "core/hash.h"
#include "graph/resolve/acronym.h"
#include "support/memory_graph_store.h"
#include "support/resolve_fixtures.h"

namespace mmkg::graph {
namespace {

using testing::acronym;
using testing::chunk;
using testing::kNoEmbedder;
using testing::MemoryGraphStore;
using testing::term;
using testing::with_alias;

bool has_alias(const Entity& e, const std::string& a) {
  return std::find(e.aliases.begin(), e.aliases.end(), a) != e.aliases.end();
}

// ---- the run's name catalog

TEST(NameCatalog, ListsEveryLexicallyCompatibleNameAndFewOthers) {
  MemoryGraphStore store;
  const std::vector<std::string> names = {"positional encoding", "position encoding",  "relative position encoding",
                                          "encoding",            "American film",      "film",
                                          "French film",         "the film",           "films of the year",
                                          "language model",      "large language model"};
  GraphDelta d;
  for (size_t i = 0; i < names.size(); ++i) d.entities.push_back({"e" + std::to_string(i), names[i], "concept", "", {names[i]}, 1});
  store.upsert(d);
  NameCatalog cat(store);
  // Exhaustive against lexically_compatible: every compatible pair is a candidate (a superset).
  for (const auto& q : names) {
    const std::string qk = name_key(q);
    std::set<std::string> got;
    for (const auto* n : cat.candidates(qk)) got.insert(n->key);
    for (const auto& other : names)
      if (lexically_compatible(qk, name_key(other))) {
        EXPECT_TRUE(got.count(name_key(other))) << q << " / " << other;
      }
  }
  // And a name with a common head reads only its own pairs' lists: not every film.
  std::set<std::string> film;
  for (const auto* n : cat.candidates(name_key("American films"))) film.insert(n->name);
  EXPECT_EQ(film, (std::set<std::string>{"American film"}));
  std::set<std::string> bare;
  for (const auto* n : cat.candidates(name_key("films"))) bare.insert(n->name);
  EXPECT_EQ(bare, (std::set<std::string>{"film", "the film"}));
}

TEST(NameCatalog, KeptInStepByTheRunsDeltasAndSkipsRemovedEntities) {
  MemoryGraphStore store;
  NameCatalog cat(store);
  const EmbedNames one = testing::constant_embedder();  // cosine 1 for every pair
  GraphDelta d1 = resolve_document({chunk("c1", {term("positional encoding")})}, "d1", store, one, {}, &cat);
  store.upsert(d1);
  cat.add(d1);
  // The second document's variant merges with the first's entity through the catalog.
  GraphDelta d2 = resolve_document({chunk("c2", {term("position encoding")})}, "d2", store, one, {}, &cat);
  ASSERT_EQ(d2.entities.size(), 1u);
  EXPECT_EQ(d2.entities[0].id, d1.entities[0].id);
  store.upsert(d2);
  cat.add(d2);
  // Once both documents are gone the entity is too: the catalog still lists it, resolution checks.
  store.remove_document("d1");
  store.remove_document("d2");
  ASSERT_FALSE(store.entity(d1.entities[0].id));
  GraphDelta d3 = resolve_document({chunk("c3", {term("positional encodings")}), chunk("c4", {term("position encoding")})},
                                   "d3", store, one, {}, &cat);
  ASSERT_EQ(d3.entities.size(), 1u);
  EXPECT_TRUE(has_alias(d3.entities[0], "positional encodings"));
  EXPECT_TRUE(has_alias(d3.entities[0], "position encoding"));
}

// ---- acronyms

TEST(Acronym, MatchesInitialsOfHyphenatedPluralAndMixedCaseForms) {
  EXPECT_TRUE(is_acronym_of("MHA", "Multi-Head Attention"));
  EXPECT_TRUE(is_acronym_of("MHA", "multi head attention"));
  EXPECT_TRUE(is_acronym_of("LLMs", "large language models"));
  EXPECT_TRUE(is_acronym_of("LLM", "Large Language Models"));
  EXPECT_TRUE(is_acronym_of("RoPE", "Rotary Position Embedding"));
  EXPECT_TRUE(is_acronym_of("RoPE", "Rotary Positional Embedding"));
  EXPECT_TRUE(is_acronym_of("ViT", "Vision Transformer"));
  EXPECT_TRUE(is_acronym_of("MoBA", "Mixture of Block Attention"));
  EXPECT_TRUE(is_acronym_of("SSMs", "State Space Models"));
  EXPECT_TRUE(is_acronym_of("IOI", "Indirect Object Identification"));
  EXPECT_TRUE(is_acronym_of("ICL", "in-context learning"));
  EXPECT_TRUE(is_acronym_of("BERT", "Bidirectional Encoder Representations from Transformers"));
  EXPECT_TRUE(is_acronym_of("GPT-4", "Generative Pre-trained Transformer 4"));
}

TEST(Acronym, RejectsPhrasesThatDoNotSpellIt) {
  EXPECT_FALSE(is_acronym_of("GPT-4", "Generative Pre-trained Transformer"));  // the version is missing
  EXPECT_FALSE(is_acronym_of("GPT-4", "graph processing tool"));
  EXPECT_FALSE(is_acronym_of("GPT-4", "graph processing tool 3"));
  EXPECT_FALSE(is_acronym_of("MHA", "multi-head attention sink"));  // every content word must give a letter
  EXPECT_FALSE(is_acronym_of("MHA", "masked attention"));
  EXPECT_FALSE(is_acronym_of("MHA", "attention"));
  EXPECT_FALSE(is_acronym_of("LLM", "large model"));
  EXPECT_FALSE(is_acronym_of("RoPE", "relative positional encoding"));
  EXPECT_FALSE(is_acronym_of("ROPE", "rotary position embedding"));  // all caps: letters are initials only
  EXPECT_FALSE(is_acronym_of("AI", "artificial"));
  EXPECT_FALSE(is_acronym_of("SA", "sa"));
  EXPECT_FALSE(is_acronym_of("X", "x ray"));
}

TEST(Acronym, LooseTestAndTrimmingOfTextDefinitions) {
  EXPECT_TRUE(loosely_abbreviates("GOAT", "Generalized Optimal transport Attention with Trainable priors"));
  EXPECT_FALSE(loosely_abbreviates("Luong", "Multiplicative"));
  EXPECT_EQ(trim_expansion("LLMs", "Transformer-based large language models"), "large language models");
  EXPECT_EQ(trim_expansion("MHA", "Multi-Head Attention"), "Multi-Head Attention");
  EXPECT_EQ(trim_expansion("Luong", "Multiplicative"), "");
  EXPECT_TRUE(looks_like_acronym("MHA"));
  EXPECT_TRUE(looks_like_acronym("LLMs"));
  EXPECT_TRUE(looks_like_acronym("RoPE"));
  EXPECT_TRUE(looks_like_acronym("GPT-4"));
  EXPECT_FALSE(looks_like_acronym("Transformer"));
  EXPECT_FALSE(looks_like_acronym("attention"));
  EXPECT_FALSE(looks_like_acronym("A"));
  EXPECT_FALSE(looks_like_acronym("Multi-Head Attention"));
}

// ---- resolution within one document

TEST(Resolve, DefinedAcronymAndLaterMentionsAreOneEntity) {
  // attention_papers.txt: "Multi-Head Attention (MHA) ..." then "MHA" alone in later chunks.
  MemoryGraphStore store;
  std::vector<ChunkExtraction> doc = {
      chunk("c1", {term("Multi-Head Attention", "capitalised"), acronym("MHA", "Multi-Head Attention")}),
      chunk("c2", {acronym("MHA", "", 3), term("attention")}),
  };
  GraphDelta d = resolve_document(doc, "d1", store, kNoEmbedder);
  ASSERT_EQ(d.entities.size(), 2u);
  const Entity* mha = with_alias(d, "MHA");
  ASSERT_NE(mha, nullptr);
  EXPECT_EQ(mha->name, "Multi-Head Attention");
  EXPECT_TRUE(has_alias(*mha, "Multi-Head Attention"));
  EXPECT_EQ(mha->type, "concept");
  EXPECT_NE(with_alias(d, "attention"), mha);
  int mha_mentions = 0;
  for (const Mention& m : d.mentions)
    if (m.entity_id == mha->id) {
      ++mha_mentions;
      if (m.chunk_id == "c2") {
        EXPECT_EQ(m.count, 3);
      }
    }
  EXPECT_EQ(mha_mentions, 2);  // one per chunk
}

TEST(Resolve, CasePluralHyphenAndSpacingVariantsMerge) {
  MemoryGraphStore store;
  std::vector<ChunkExtraction> doc = {
      chunk("c1", {term("multi-head attention"), term("Multi-head Attention")}),
      chunk("c2", {term("multi head attentions"), term("feed-forward network")}),
      chunk("c3", {term("feedforward networks")}),
  };
  GraphDelta d = resolve_document(doc, "d1", store, kNoEmbedder);
  ASSERT_EQ(d.entities.size(), 2u);
  const Entity* mha = with_alias(d, "multi head attentions");
  ASSERT_NE(mha, nullptr);
  EXPECT_EQ(mha->name, "Multi-head Attention");  // a tie in counts: the capitalised form
  EXPECT_EQ(mha->aliases.size(), 3u);
  EXPECT_EQ(with_alias(d, "feed-forward network"), with_alias(d, "feedforward networks"));
}

TEST(Resolve, AttentionAndAttentionSinkStayApartEvenAtCosineOne) {
  MemoryGraphStore store;
  std::vector<ChunkExtraction> doc = {
      chunk("c1", {term("attention", "noun_phrase", 5), term("attention sink"), term("attention mask"),
                   term("self-attention"), term("self attention")}),
  };
  GraphDelta d = resolve_document(doc, "d1", store, testing::constant_embedder());
  ASSERT_EQ(d.entities.size(), 4u);  // attention, attention sink, attention mask, self-attention
  EXPECT_NE(with_alias(d, "attention"), with_alias(d, "attention sink"));
  EXPECT_NE(with_alias(d, "attention"), with_alias(d, "attention mask"));
  EXPECT_EQ(with_alias(d, "self-attention"), with_alias(d, "self attention"));
}

TEST(Resolve, ModifierDoesNotMergeSubtypeWithParentEvenAtCosineOne) {
  MemoryGraphStore store;
  std::vector<ChunkExtraction> doc = {chunk("c1", {term("language model"), term("large language model")})};
  GraphDelta d = resolve_document(doc, "d1", store, testing::constant_embedder());
  EXPECT_EQ(d.entities.size(), 2u);
}

TEST(Resolve, LlmFormsMergeWhenDefined) {
  // attention_papers.txt: "Large Language Models (LLMs)" then "LLMs", "LLM", "large language models".
  MemoryGraphStore store;
  std::vector<ChunkExtraction> doc = {
      chunk("c1", {term("Large Language Models", "capitalised"), acronym("LLMs", "Large Language Models")}),
      chunk("c2", {acronym("LLM"), term("large language models", "noun_phrase", 2), acronym("LLMs")}),
  };
  GraphDelta d = resolve_document(doc, "d1", store, kNoEmbedder);
  ASSERT_EQ(d.entities.size(), 1u);
  const Entity& e = d.entities[0];
  EXPECT_TRUE(has_alias(e, "LLM"));
  EXPECT_TRUE(has_alias(e, "LLMs"));
  EXPECT_TRUE(has_alias(e, "large language models"));
  // Both expansion surfaces are seen twice (the definition counts once): the capitalised one wins.
  EXPECT_EQ(e.name, "Large Language Models");
  EXPECT_EQ(e.id, "e" + hash_hex(name_key(e.name)));
}

TEST(Resolve, DefinitionTrimmedToWhatTheAcronymSpells) {
  MemoryGraphStore store;
  std::vector<ChunkExtraction> doc = {
      chunk("c1", {term("Transformer-based large language models"),
                   acronym("LLMs", "Transformer-based large language models")}),
      chunk("c2", {term("large language models")}),
  };
  GraphDelta d = resolve_document(doc, "d1", store, kNoEmbedder);
  const Entity* llm = with_alias(d, "LLMs");
  ASSERT_NE(llm, nullptr);
  EXPECT_EQ(llm, with_alias(d, "large language models"));
  EXPECT_NE(llm, with_alias(d, "Transformer-based large language models"));
}

TEST(Resolve, UndefinedAcronymJoinsTheOneTermItSpells) {
  MemoryGraphStore store;
  // Inferred: three letters, one matching multi-word term in the document.
  GraphDelta d = resolve_document({chunk("c1", {term("rotary position embedding"), acronym("RoPE")})}, "d1", store,
                                  kNoEmbedder);
  EXPECT_EQ(d.entities.size(), 1u);
  // Ambiguous: two terms spell MHA → the acronym stays alone.
  d = resolve_document({chunk("c1", {term("multi-head attention"), term("masked hierarchical attention"), acronym("MHA")})},
                       "d1", store, kNoEmbedder);
  EXPECT_EQ(d.entities.size(), 3u);
  // Two letters are never inferred.
  d = resolve_document({chunk("c1", {term("language model"), acronym("LM")})}, "d1", store, kNoEmbedder);
  EXPECT_EQ(d.entities.size(), 2u);
  // A version number must be there.
  d = resolve_document({chunk("c1", {term("generative pre-trained transformer"), acronym("GPT-4")})}, "d1", store,
                       kNoEmbedder);
  EXPECT_EQ(d.entities.size(), 2u);
}

TEST(Resolve, RelationsByEntityWithoutSelfLoopsOrderedAndWeighted) {
  MemoryGraphStore store;
  const std::string s1 = "Multi-Head Attention (MHA) runs several attention functions in parallel.";
  const std::string s2 = "MHA extends attention with learned projections.";
  std::vector<ChunkExtraction> doc = {
      chunk("c1", {term("Multi-Head Attention", "capitalised"), acronym("MHA", "Multi-Head Attention"), term("attention")},
            {{"Multi-Head Attention", "MHA", "co_occurs", s1, 1, ""},  // self-loop after resolution
             {"Multi-Head Attention", "attention", "co_occurs", s1, 1, ""},
             {"MHA", "attention", "co_occurs", s1, 1, ""},  // same entities, same sentence: one evidence
             {"MHA", "attention", "extends", s2, 1, ""},
             {"attention", "MHA", "co_occurs", s2, 1, ""}}),
  };
  GraphDelta d = resolve_document(doc, "d1", store, kNoEmbedder);
  const std::string mha = with_alias(d, "MHA")->id, att = with_alias(d, "attention")->id;
  ASSERT_EQ(d.relations.size(), 2u);
  for (const Relation& r : d.relations) {
    EXPECT_NE(r.src, r.dst);
    if (r.type == "co_occurs") {
      EXPECT_LT(r.src, r.dst);
      EXPECT_DOUBLE_EQ(r.weight, 2);  // s1 and s2
      ASSERT_EQ(r.evidence.size(), 2u);
      EXPECT_EQ(r.evidence[0].chunk_id, "c1");
      EXPECT_EQ(r.evidence[0].doc_id, "d1");
    } else {
      EXPECT_EQ(r.type, "extends");
      EXPECT_EQ(r.src, mha);
      EXPECT_EQ(r.dst, att);
      EXPECT_DOUBLE_EQ(r.weight, 1);
      ASSERT_EQ(r.evidence.size(), 1u);
      EXPECT_EQ(r.evidence[0].sentence, s2);
    }
  }
}

TEST(Resolve, StableIdsTypeAndFirstDefinition) {
  TermCandidate t = term("Transformer", "capitalised");
  t.type = "method";
  t.definition = "The Transformer is a model architecture relying entirely on attention.";
  TermCandidate t2 = term("transformers");
  t2.definition = "Transformers are everywhere.";
  std::vector<ChunkExtraction> doc = {chunk("c1", {t}), chunk("c2", {t2})};
  MemoryGraphStore a, b;
  GraphDelta d1 = resolve_document(doc, "d1", a, kNoEmbedder);
  GraphDelta d2 = resolve_document(doc, "d1", b, kNoEmbedder);
  ASSERT_EQ(d1.entities.size(), 1u);
  EXPECT_EQ(d1.entities[0].id, d2.entities[0].id);
  EXPECT_EQ(d1.entities[0].id, "e" + hash_hex("transformer"));
  EXPECT_EQ(d1.entities[0].type, "method");
  EXPECT_EQ(d1.entities[0].description, t.definition);
}

// ---- across documents, through the store

TEST(Resolve, SecondDocumentAcronymResolvesToFirstDocumentsEntity) {
  MemoryGraphStore store;
  GraphDelta d1 = resolve_document(
      {chunk("c1", {term("Multi-Head Attention", "capitalised"), acronym("MHA", "Multi-Head Attention")})}, "d1", store,
      kNoEmbedder);
  store.upsert(d1);
  const std::string id = with_alias(d1, "MHA")->id;

  GraphDelta d2 = resolve_document({chunk("c9", {acronym("MHA", "", 2)}), chunk("c10", {term("multi-head attentions")})},
                                   "d2", store, kNoEmbedder);
  ASSERT_EQ(d2.entities.size(), 1u);
  EXPECT_EQ(d2.entities[0].id, id);
  EXPECT_EQ(d2.entities[0].name, "Multi-Head Attention");  // the stored name is kept
  store.upsert(d2);
  EXPECT_EQ(store.stats().entities, 1);
  EXPECT_EQ(store.mentions_of(id).size(), 3u);
  EXPECT_TRUE(has_alias(*store.entity(id), "multi-head attentions"));

  // A document defining MHA differently gets its own entity.
  GraphDelta d3 = resolve_document({chunk("c20", {term("Mental Health Act"), acronym("MHA", "Mental Health Act")})}, "d3",
                                   store, kNoEmbedder);
  ASSERT_EQ(d3.entities.size(), 1u);
  EXPECT_NE(d3.entities[0].id, id);
}

TEST(Resolve, AcronymOnlyEntityTakesALaterDefinition) {
  MemoryGraphStore store;
  store.upsert(resolve_document({chunk("c1", {acronym("RoPE")})}, "d1", store, kNoEmbedder));
  const std::string id = store.entities().at(0).id;
  GraphDelta d = resolve_document(
      {chunk("c2", {term("Rotary Position Embedding", "capitalised"), acronym("RoPE", "Rotary Position Embedding")})}, "d2",
      store, kNoEmbedder);
  ASSERT_EQ(d.entities.size(), 1u);
  EXPECT_EQ(d.entities[0].id, id);
}

TEST(Resolve, RemovingTheDocumentTakesBackItsContribution) {
  MemoryGraphStore store;
  auto doc = [](const std::string& c) {
    return std::vector<ChunkExtraction>{chunk(c, {term("attention"), term("transformer")},
                                              {{"attention", "transformer", "co_occurs", "s " + c, 1, ""}})};
  };
  store.upsert(resolve_document(doc("a"), "d1", store, kNoEmbedder));
  store.upsert(resolve_document(doc("b"), "d2", store, kNoEmbedder));
  ASSERT_EQ(store.relations().at(0).weight, 2);
  store.remove_document("d1");
  EXPECT_EQ(store.stats().entities, 2);
  EXPECT_EQ(store.relations().at(0).weight, 1);
  store.remove_document("d2");
  EXPECT_EQ(store.stats().entities, 0);
  EXPECT_EQ(store.stats().relations, 0);
}

// ---- embedding merges

TEST(Resolve, NoEmbedderLeavesMorphologicalVariantsApart) {
  MemoryGraphStore store;
  GraphDelta d = resolve_document({chunk("c1", {term("positional encoding"), term("position encoding")})}, "d1", store,
                                  kNoEmbedder);
  EXPECT_EQ(d.entities.size(), 2u);
}

TEST(Resolve, EmbeddingMergesVariantsWithTheNativeEmbedder) {
  MMKG_REQUIRE_NATIVE_EMBEDDER(embed);
  MemoryGraphStore store;
  // Within a document: cosine 0.91 and 0.93 with all-MiniLM-L6-v2, same words up to morphology.
  GraphDelta d = resolve_document(
      {chunk("c1", {term("positional encoding", "noun_phrase", 3), term("position encoding"),
                    term("multi-headed attention"), term("Multi-Head Attention", "capitalised", 2)})},
      "d1", store, embed);
  ASSERT_EQ(d.entities.size(), 2u);
  EXPECT_EQ(with_alias(d, "positional encoding"), with_alias(d, "position encoding"));
  EXPECT_EQ(with_alias(d, "positional encoding")->name, "positional encoding");
  EXPECT_EQ(with_alias(d, "multi-headed attention"), with_alias(d, "Multi-Head Attention"));
  store.upsert(d);

  // Against the store: a second document's spelling reuses the stored entity.
  store.upsert(resolve_document({chunk("c2", {term("Rotary Positional Embedding", "capitalised")})}, "d2", store, embed));
  const std::string rope = store.find_by_key("rotary positional embedding").at(0);
  GraphDelta d3 = resolve_document({chunk("c3", {term("rotary position embedding")})}, "d3", store, embed);
  ASSERT_EQ(d3.entities.size(), 1u);
  EXPECT_EQ(d3.entities[0].id, rope);
}

TEST(Resolve, EmbeddingDoesNotMergeRelatedButDifferentNames) {
  MMKG_REQUIRE_NATIVE_EMBEDDER(embed);
  MemoryGraphStore store;
  // "attention" / "attentional": same stem and head, but cosine 0.88 < 0.90. The others fail the
  // lexical checks whatever their cosine.
  GraphDelta d = resolve_document(
      {chunk("c1", {term("attention"), term("attentional"), term("attention sink"), term("language model"),
                    term("large language model"), term("multi-head attention"), term("multi-query attention"),
                    term("encoder layer"), term("decoder layer")})},
      "d1", store, embed);
  EXPECT_EQ(d.entities.size(), 9u);
}

// Issue 13: two things sharing a head word stay apart whatever the cosine; true aliases merge.
TEST(Resolve, SharedHeadWordIsNoMergeButAliasesAre) {
  MemoryGraphStore store;
  GraphDelta d = resolve_document(
      {chunk("c1", {term("cross-attention"), term("cross-modal attention"), term("additive attention"),
                    term("Efficient Attention", "capitalised"), term("Multi-Head Attention", "capitalised"),
                    acronym("MHA", "Multi-Head Attention")}),
       chunk("c2", {term("multi-head attention", "noun_phrase", 2), acronym("MHA", "", 2)})},
      "d1", store, testing::constant_embedder());
  EXPECT_NE(with_alias(d, "cross-attention"), with_alias(d, "cross-modal attention"));
  EXPECT_NE(with_alias(d, "additive attention"), with_alias(d, "Efficient Attention"));
  const Entity* mha = with_alias(d, "MHA");
  ASSERT_NE(mha, nullptr);
  EXPECT_EQ(mha, with_alias(d, "multi-head attention"));
  EXPECT_EQ(mha, with_alias(d, "Multi-Head Attention"));
  EXPECT_EQ(d.entities.size(), 5u);
}

// An English word in lower case is not the acronym it spells: "acts" stays out of ACT.
TEST(Resolve, EnglishWordIsNotTheAcronymItSpells) {
  MemoryGraphStore store;
  GraphDelta d = resolve_document(
      {chunk("c1", {acronym("ACT", "Attention Calibration Technique"), term("Attention Calibration Technique", "capitalised")}),
       chunk("c2", {term("acts", "noun_phrase", 4), acronym("ACT", "", 2)})},
      "d1", store, kNoEmbedder);
  ASSERT_NE(with_alias(d, "ACT"), nullptr);
  EXPECT_EQ(with_alias(d, "acts"), nullptr);
  EXPECT_EQ(d.entities.size(), 1u);
}

// Names keep their usual case: an acronym written in capitals is displayed so even when
// lower-case copies (URLs, model ids) outnumber it; a camel-case name beats its lower-case form.
TEST(Resolve, DisplayNameKeepsTheUsualCase) {
  MemoryGraphStore store;
  GraphDelta d = resolve_document(
      {chunk("c1", {acronym("BERT", "", 3), term("bert", "noun_phrase", 5)}),
       chunk("c2", {term("FlashAttention", "technical", 2), term("flashattention", "technical", 4)})},
      "d1", store, kNoEmbedder);
  ASSERT_EQ(d.entities.size(), 2u);
  EXPECT_EQ(with_alias(d, "bert")->name, "BERT");
  EXPECT_EQ(with_alias(d, "flashattention")->name, "FlashAttention");
}

// Types read from the text (TermCandidate::type) become the entity type; acronym is no type.
TEST(Resolve, TypedCandidateGivesTheEntityType) {
  MemoryGraphStore store;
  TermCandidate imagenet = term("ImageNet", "capitalised", 2);
  imagenet.type = "dataset";
  TermCandidate mse = acronym("MSE", "Mean Squared Error");
  mse.type = "metric";
  GraphDelta d = resolve_document({chunk("c1", {imagenet, mse, term("Mean Squared Error", "capitalised")})}, "d1",
                                  store, kNoEmbedder);
  EXPECT_EQ(with_alias(d, "ImageNet")->type, "dataset");
  EXPECT_EQ(with_alias(d, "MSE")->type, "metric");
}

}  // namespace
}  // namespace mmkg::graph
