// The LLM extractor against a scripted OpenAI-compatible server: the request it sends, gleaning,
// grounding (hallucinated entities dropped, verbatim evidence), rule fallback for unusable
// answers, transport failures that are not cached, and the extraction cache through sync_graph.
// tests/e2e/test_llm_extract.py runs it against a real llama-cpp-python server.
#include "graph/extract/extract_llm.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "graph/extract/rules.h"
#include "graph/model/graph_store.h"
#include "llm/openai_chat.h"
#include "support/llm_extract_fixtures.h"
#include "support/scripted_http_server.h"

namespace mmkg::graph {
namespace {

using json = nlohmann::json;
using mmkg::testing::ScriptedHttpServer;
using namespace llm_extract_fixture;

ExtractInput input(const std::string& text = kText) { return {"c1", "d1", "Notes", "Intro", text}; }

const TermCandidate* llm_term(const ChunkExtraction& x, const std::string& surface) {
  for (const auto& t : x.terms)
    if (t.surface == surface) return &t;
  return nullptr;
}

const RelationCandidate* llm_relation(const ChunkExtraction& x, const std::string& src, const std::string& dst) {
  for (const auto& r : x.relations)
    if (r.src == src && r.dst == dst) return &r;
  return nullptr;
}

TEST(LlmExtract, AsksForSchemaJsonAtTemperatureZeroThenGleansInTheSameConversation) {
  ScriptedHttpServer s;
  s.push_json(200, answer(graph({ent("Transformer", "model"), ent("multi-head attention", "method")},
                                {rel("Transformer", "multi-head attention", "uses")})));
  s.push_json(200, answer(graph({})));
  OpenAiChat chat(config(s), no_sleep());
  LlmExtractOptions o;
  o.model = "test-model";
  auto ex = make_llm_extractor(chat, o);
  EXPECT_EQ(ex->id(), "llm-v1:test-model:" + llm_extract_prompt_version(o));
  EXPECT_EQ(ex->parallelism(), 4);
  ex->extract(input());
  ASSERT_EQ(s.request_count(), 2u);
  json b = json::parse(s.requests()[0].body);
  EXPECT_EQ(b["temperature"], 0);
  EXPECT_EQ(b["response_format"]["type"], "json_schema");
  const json& schema = b["response_format"]["json_schema"]["schema"];
  EXPECT_EQ(schema["required"], json({"entities", "relations"}));
  EXPECT_EQ(schema["properties"]["entities"]["items"]["properties"]["type"]["enum"], json(llm_entity_types()));
  EXPECT_EQ(b["messages"][0]["role"], "system");
  const std::string user = b["messages"][1]["content"];
  EXPECT_NE(user.find(kText), std::string::npos);
  EXPECT_NE(user.find("Document: Notes"), std::string::npos);
  json g = json::parse(s.requests()[1].body);
  ASSERT_EQ(g["messages"].size(), 4u);
  EXPECT_EQ(g["messages"][2]["role"], "assistant");
  EXPECT_NE(g["messages"][2]["content"].get<std::string>().find("multi-head attention"), std::string::npos);
  EXPECT_NE(g["messages"][3]["content"].get<std::string>().find("missed"), std::string::npos);
  auto c = ex->counters();
  EXPECT_EQ(c.model_calls, 2);
  EXPECT_EQ(c.prompt_tokens, 200);
  EXPECT_EQ(c.completion_tokens, 40);
  EXPECT_EQ(c.fallbacks, 0);
}

TEST(LlmExtract, TheModelIdAndThePromptDecideTheId) {
  ScriptedHttpServer s;
  OpenAiChat chat(config(s), no_sleep());
  LlmExtractOptions a, b;
  a.model = b.model = "m1";
  b.gleaning = false;
  EXPECT_NE(make_llm_extractor(chat, a)->id(), make_llm_extractor(chat, b)->id());
  b = a;
  b.model = "m2";
  EXPECT_NE(make_llm_extractor(chat, a)->id(), make_llm_extractor(chat, b)->id());
  EXPECT_EQ(make_llm_extractor(chat, a)->id(), make_llm_extractor(chat, a)->id());
  EXPECT_EQ(make_llm_extractor(chat, {})->id().rfind("llm-v1:openai:test-model@", 0), 0u);
}

TEST(LlmExtract, GleaningAddsOnlyNewItemsAndTheFirstPassKeepsItsTypes) {
  ScriptedHttpServer s;
  s.push_json(200, answer(graph({ent("Transformer", "model", "An encoder-decoder model."),
                                 ent("multi-head attention", "method")},
                                {rel("Transformer", "multi-head attention", "uses", "The Transformer uses it.")})));
  s.push_json(200, answer(graph({ent("Multi-Head Attentions", "concept", "Attention in parallel heads."),
                                 ent("BERT", "model"), ent("BooksCorpus", "dataset")},
                                {rel("BERT", "BooksCorpus", "uses", "BERT is pre-trained on BooksCorpus."),
                                 rel("Transformer", "multi-head attention", "uses")})));
  OpenAiChat chat(config(s), no_sleep());
  auto ex = make_llm_extractor(chat, {});
  ChunkExtraction x = ex->extract(input());
  ASSERT_EQ(x.terms.size(), 4u);
  const TermCandidate* mha = llm_term(x, "multi-head attention");
  ASSERT_TRUE(mha);
  EXPECT_EQ(mha->kind, "llm");
  EXPECT_EQ(mha->type, "method");                              // first pass wins
  EXPECT_EQ(mha->definition, "Attention in parallel heads.");  // an empty one is filled
  EXPECT_EQ(llm_term(x, "Transformer")->definition, "An encoder-decoder model.");
  EXPECT_EQ(llm_term(x, "BooksCorpus")->type, "dataset");
  ASSERT_EQ(x.relations.size(), 2u);  // the repeated relation counts once
  const RelationCandidate* r = llm_relation(x, "BERT", "BooksCorpus");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->type, "uses");
  EXPECT_EQ(r->description, "BERT is pre-trained on BooksCorpus.");
  EXPECT_EQ(r->sentence, "BERT is a language model pre-trained on BooksCorpus.");
}

TEST(LlmExtract, EntitiesNotInTheTextAreDroppedWithTheirRelations) {
  ScriptedHttpServer s;
  s.push_json(200, answer(graph({ent("Transformer", "model"), ent("Quantum Banana", "artifact"),
                                 ent("GPT-4", "model"), ent("the", "concept"), ent("80.5", "metric")},
                                {rel("Quantum Banana", "Transformer", "uses"), rel("Transformer", "GPT-4", "extends"),
                                 rel("Transformer", "Transformer", "is_a")})));
  s.push_json(200, answer(graph({})));
  OpenAiChat chat(config(s), no_sleep());
  auto ex = make_llm_extractor(chat, {});
  ChunkExtraction x = ex->extract(input());
  ASSERT_EQ(x.terms.size(), 1u);
  EXPECT_EQ(x.terms[0].surface, "Transformer");
  EXPECT_TRUE(x.relations.empty());
}

TEST(LlmExtract, EvidenceIsAVerbatimSentenceAndTypesAreNormalised) {
  ScriptedHttpServer s;
  // GLUE is not listed as an entity but occurs in the text: it is grounded as an (untyped) end.
  s.push_json(200, answer(graph({ent("bert", "Model"), ent("language models", "gizmo"),
                                 ent("the Transformer", "Organisation")},
                                {rel("BERT", "GLUE", "evaluated on", "BERT reaches 80.5 on GLUE."),
                                 rel("BERT", "language model", "is a"), rel("Transformer", "BERT", "frobnicates")})));
  s.push_json(200, answer(graph({})));
  OpenAiChat chat(config(s), no_sleep());
  auto ex = make_llm_extractor(chat, {});
  ChunkExtraction x = ex->extract(input());
  EXPECT_EQ(llm_term(x, "BERT")->type, "model");
  EXPECT_EQ(llm_term(x, "language model")->type, "other");  // the text's own (singular) spelling
  EXPECT_EQ(llm_term(x, "Transformer")->type, "organization");
  ASSERT_TRUE(llm_term(x, "GLUE"));
  EXPECT_EQ(llm_term(x, "GLUE")->type, "");
  const RelationCandidate* glue = llm_relation(x, "BERT", "GLUE");
  ASSERT_TRUE(glue);
  EXPECT_EQ(glue->type, "evaluated_on");
  // No sentence holds both ends: the first sentence holding either.
  EXPECT_EQ(glue->sentence, "BERT is a language model pre-trained on BooksCorpus.");
  EXPECT_EQ(llm_relation(x, "BERT", "language model")->type, "is_a");
  EXPECT_EQ(llm_relation(x, "Transformer", "BERT")->type, "related_to");
  for (const auto& r : x.relations) EXPECT_NE(kText.find(r.sentence), std::string::npos) << r.sentence;
}

TEST(LlmExtract, NamesInsideMarkupDoNotCountAndMarkupLeavesTheSurface) {
  const std::string text =
      "**Sparse attention** patterns help. See [[large_language_models|Large language models]] and "
      "[[https://arxiv.org/abs/1|Vaswani et al.]].";
  ScriptedHttpServer s;
  s.push_json(200, answer(graph({ent("Sparse attention patterns", "method"), ent("large_language_models", "model"),
                                 ent("Large language models", "model"), ent("arxiv", "artifact")})));
  s.push_json(200, answer(graph({})));
  OpenAiChat chat(config(s), no_sleep());
  ChunkExtraction x = make_llm_extractor(chat, {})->extract(input(text));
  std::vector<std::string> surfaces;
  for (const auto& t : x.terms) surfaces.push_back(t.surface);
  // The link target and the URL are markup; the link's text is a name.
  EXPECT_EQ(surfaces, (std::vector<std::string>{"Sparse attention patterns", "Large language models"}));
}

TEST(LlmExtract, UnusableAnswersFallBackToTheRules) {
  ScriptedHttpServer s;
  s.push_json(200, raw_answer("Sure! Here are some entities: Transformer, BERT"));
  s.push_json(200, raw_answer("I cannot produce JSON."));  // the client's one repair attempt
  OpenAiChat chat(config(s), no_sleep());
  auto ex = make_llm_extractor(chat, {});
  ChunkExtraction x = ex->extract(input());
  EXPECT_EQ(x.chunk_id, "c1");
  EXPECT_FALSE(x.terms.empty());
  for (const auto& t : x.terms) EXPECT_NE(t.kind, "llm");
  auto c = ex->counters();
  EXPECT_EQ(c.fallbacks, 1);
  EXPECT_NE(c.first_fallback.find("chunk c1"), std::string::npos) << c.first_fallback;

  // JSON without an entity list, and entities none of which occur in the text, fall back too.
  s.push_json(200, answer({{"answer", "none"}}));
  s.push_json(200, answer({{"answer", "none"}}));  // the client asks once more for the schema's keys
  EXPECT_FALSE(ex->extract(input()).terms.empty());
  s.push_json(200, answer(graph({ent("Quantum Banana", "artifact")})));
  s.push_json(200, answer(graph({})));
  EXPECT_FALSE(ex->extract(input()).terms.empty());
  EXPECT_EQ(ex->counters().fallbacks, 3);
}

TEST(LlmExtract, AChunkTheServerRefusesFallsBackAndAFailingGleaningKeepsTheFirstPass) {
  ScriptedHttpServer s;
  s.push_json(400, R"({"error":{"message":"Requested tokens (5000) exceed context window of 4096"}})");
  OpenAiChat chat(config(s), no_sleep());
  auto ex = make_llm_extractor(chat, {});
  ChunkExtraction x = ex->extract(input());
  EXPECT_FALSE(x.terms.empty());
  EXPECT_EQ(ex->counters().fallbacks, 1);
  EXPECT_NE(ex->counters().first_fallback.find("context window"), std::string::npos);

  s.push_json(200, answer(graph({ent("BERT", "model")})));
  s.push_json(400, R"({"error":{"message":"Requested tokens exceed context window"}})");
  x = ex->extract(input());
  ASSERT_EQ(x.terms.size(), 1u);
  EXPECT_EQ(x.terms[0].kind, "llm");
  EXPECT_EQ(ex->counters().fallbacks, 1);
}

TEST(LlmExtract, TransportFailuresPropagate) {
  ScriptedHttpServer s;
  for (int i = 0; i < 2; ++i) s.push_json(503, R"({"error":{"message":"overloaded"}})");
  OpenAiChat chat(config(s), no_sleep());
  auto ex = make_llm_extractor(chat, {});
  EXPECT_THROW(ex->extract(input()), HttpStatusError);
  EXPECT_EQ(ex->counters().fallbacks, 0);

  LlmConfig down = config(s);
  down.base_url = "http://127.0.0.1:1/v1";  // nothing listens there
  OpenAiChat nobody(down, no_sleep());
  EXPECT_THROW(make_llm_extractor(nobody, {})->extract(input()), NetError);
}

TEST(LlmExtract, RankTermsKeepsWhatTheModelChose) {
  auto doc = [](const std::string& kind) {
    TermCandidate t;
    t.surface = "model";  // a generic single word the termhood filter drops
    t.kind = kind;
    return std::vector<ChunkExtraction>{{"c1", {t}, {}}};
  };
  auto idf = [](const std::string&) { return 1.0; };
  auto rules = doc("noun_phrase");
  rank_terms(rules, idf);
  EXPECT_TRUE(rules[0].terms.empty());
  auto llm = doc("llm");
  rank_terms(llm, idf);
  ASSERT_EQ(llm[0].terms.size(), 1u);
  EXPECT_GE(llm[0].terms[0].score, 0.5);
}

}  // namespace
}  // namespace mmkg::graph
