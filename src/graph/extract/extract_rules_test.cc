#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "graph/extract/rules.h"
#include "text/words.h"
#include "graph/model/extractor.h"
#include "graph/model/graph_types.h"
#include "graph/extract/terms.h"

namespace mmkg::graph {
namespace {

ChunkExtraction run(const std::string& text, const std::string& title = "", const std::string& heading = "") {
  auto ex = make_rule_extractor();
  ExtractInput in;
  in.chunk_id = "c1";
  in.doc_id = "d1";
  in.doc_title = title;
  in.heading_path = heading;
  in.text = text;
  return ex->extract(in);
}

const TermCandidate* find_term(const ChunkExtraction& r, const std::string& surface) {
  for (auto& t : r.terms)
    if (t.surface == surface) return &t;
  return nullptr;
}

const TermCandidate* find_key(const ChunkExtraction& r, const std::string& key) {
  for (auto& t : r.terms)
    if (name_key(t.surface) == key) return &t;
  return nullptr;
}

bool has_rel(const ChunkExtraction& r, const std::string& src, const std::string& type, const std::string& dst) {
  for (auto& x : r.relations)
    if (name_key(x.src) == name_key(src) && name_key(x.dst) == name_key(dst) && x.type == type) return true;
  return false;
}

int count_type(const ChunkExtraction& r, const std::string& type) {
  int n = 0;
  for (auto& x : r.relations) n += x.type == type;
  return n;
}

std::string dump(const ChunkExtraction& r) {
  std::string s;
  for (auto& t : r.terms) s += "T " + t.surface + " [" + t.kind + "] x" + std::to_string(t.count) + "\n";
  for (auto& x : r.relations) s += "R " + x.src + " -" + x.type + "-> " + x.dst + "\n";
  return s;
}

// Every relation end is a term of the same extraction, and every sentence is verbatim.
void check_consistent(const ChunkExtraction& r, const std::string& text) {
  std::set<std::string> surfaces;
  for (auto& t : r.terms) surfaces.insert(t.surface);
  for (auto& x : r.relations) {
    EXPECT_TRUE(surfaces.count(x.src)) << x.src;
    EXPECT_TRUE(surfaces.count(x.dst)) << x.dst;
    EXPECT_NE(text.find(x.sentence), std::string::npos) << x.sentence;
  }
  for (auto& t : r.terms)
    if (!t.definition.empty()) { EXPECT_NE(text.find(t.definition), std::string::npos); }
}

TEST(ExtractRules, IdAndEmptyText) {
  auto ex = make_rule_extractor();
  EXPECT_EQ(ex->id(), "rules-v4");
  auto r = run("");
  EXPECT_EQ(r.chunk_id, "c1");
  EXPECT_TRUE(r.terms.empty());
  EXPECT_TRUE(r.relations.empty());
  EXPECT_TRUE(run("   \n\n  ").terms.empty());
}

TEST(ExtractRules, AcronymAfterLongForm) {
  std::string text = "Multi-Head Attention (MHA) splits the queries into several heads. MHA is used in every layer.";
  auto r = run(text);
  const TermCandidate* mha = find_term(r, "MHA");
  ASSERT_NE(mha, nullptr) << dump(r);
  EXPECT_EQ(mha->kind, "acronym");
  EXPECT_EQ(mha->type, "acronym");
  EXPECT_EQ(mha->expansion, "Multi-Head Attention");
  EXPECT_EQ(mha->count, 2);
  ASSERT_NE(find_term(r, "Multi-Head Attention"), nullptr) << dump(r);
  check_consistent(r, text);
}

TEST(ExtractRules, AcronymBeforeLongFormAndOrStyle) {
  auto r = run("We compare against MHA (multi-head attention) in all experiments.");
  const TermCandidate* mha = find_term(r, "MHA");
  ASSERT_NE(mha, nullptr) << dump(r);
  EXPECT_EQ(mha->expansion, "multi-head attention");
  EXPECT_NE(find_term(r, "multi-head attention"), nullptr) << dump(r);

  r = run("The decoder shares keys through grouped query attention, or GQA, to save memory.");
  const TermCandidate* gqa = find_term(r, "GQA");
  ASSERT_NE(gqa, nullptr) << dump(r);
  EXPECT_EQ(gqa->expansion, "grouped query attention");

  // shapes: plural, mixed case, version suffix
  r = run("Large Language Models (LLMs) rely on Rotary Position Embedding (RoPE), unlike GPT-4 and BERT.");
  ASSERT_NE(find_term(r, "LLMs"), nullptr) << dump(r);
  EXPECT_EQ(find_term(r, "LLMs")->expansion, "Large Language Models");
  ASSERT_NE(find_term(r, "RoPE"), nullptr) << dump(r);
  EXPECT_EQ(find_term(r, "RoPE")->expansion, "Rotary Position Embedding");
  ASSERT_NE(find_term(r, "GPT-4"), nullptr) << dump(r);
  EXPECT_EQ(find_term(r, "GPT-4")->kind, "acronym");
  ASSERT_NE(find_term(r, "BERT"), nullptr);
  EXPECT_TRUE(find_term(r, "BERT")->expansion.empty());

  // a parenthesis that does not spell the acronym is no definition
  r = run("We report results for BERT (the base model) on GLUE.");
  ASSERT_NE(find_term(r, "BERT"), nullptr);
  EXPECT_TRUE(find_term(r, "BERT")->expansion.empty());
}

TEST(ExtractRules, AcronymShapeAndExpansionMatching) {
  for (const char* a : {"MHA", "LLMs", "RoPE", "GPT-4", "BERT", "QKV", "LLaMA-2", "CoT"})
    EXPECT_TRUE(rules::looks_acronym(a)) << a;
  for (const char* a : {"The", "A", "II", "Hello", "attention", "VERYLONGWORD", "Transformer"})
    EXPECT_FALSE(rules::looks_acronym(a)) << a;
  EXPECT_EQ(rules::match_expansion("CoT", "with Chain-of-Thought"), "Chain-of-Thought");
  EXPECT_EQ(rules::match_expansion("QKV", "based on query-key-value"), "query-key-value");
  EXPECT_EQ(rules::match_expansion("MHA", "the weather today"), "");
}

TEST(ExtractRules, CapitalisedNamesNotSentenceStarts) {
  auto r = run("Attention mechanisms are popular. Later, the Vision Transformer was trained by Google Research on images.");
  const TermCandidate* vit = find_term(r, "Vision Transformer");
  ASSERT_NE(vit, nullptr) << dump(r);
  EXPECT_EQ(vit->kind, "capitalised");
  ASSERT_NE(find_term(r, "Google Research"), nullptr) << dump(r);
  const TermCandidate* am = find_key(r, "attention mechanism");
  ASSERT_NE(am, nullptr) << dump(r);
  EXPECT_EQ(am->kind, "noun_phrase");  // capital only because the sentence starts there
  EXPECT_EQ(find_term(r, "Later"), nullptr);
}

TEST(ExtractRules, TechnicalTokensAndNounPhrases) {
  auto r = run("The encoder combines self-attention with feed-forward layers, and FlashAttention computes "
               "exact attention in fp16 on GPUs. The 12 layers of the network share their weights.");
  const TermCandidate* sa = find_term(r, "self-attention");
  ASSERT_NE(sa, nullptr) << dump(r);
  EXPECT_EQ(sa->kind, "technical");
  EXPECT_NE(find_term(r, "feed-forward layers"), nullptr) << dump(r);
  EXPECT_NE(find_term(r, "FlashAttention"), nullptr) << dump(r);
  EXPECT_NE(find_term(r, "fp16"), nullptr) << dump(r);
  EXPECT_NE(find_term(r, "exact attention"), nullptr) << dump(r);
  for (auto& t : r.terms) {
    EXPECT_NE(t.surface, "The") << dump(r);
    EXPECT_NE(t.surface, "12");
    EXPECT_NE(t.surface.rfind("the ", 0), 0u) << t.surface;
    EXPECT_NE(t.surface.rfind("their ", 0), 0u) << t.surface;
  }
}

TEST(ExtractRules, NoDebrisFromMarkup) {
  std::string text =
      "In this paper, Luong et al. [23] proposed simplified attention mechanisms (see https://example.com/a_b?x=1). "
      "The scaling factor $1/\\sqrt{d_k}$ prevents the dot products \\mathbf{q}_i from growing [Vaswani et al., 2017]. "
      "The [[transformer|Transformer architecture]] extends **multi-head attention** "
      "(([[https://arxiv.org/abs/1706.03762|Vaswani et al. - Attention Is All You Need (2017]])). "
      "Use `torch.nn.MultiheadAttention` or <b>bold</b> text in 2019 and 3.5 cases.";
  auto r = run(text);
  for (auto& t : r.terms) {
    for (const char* bad : {"[", "]", "http", "$", "\\", "*", "|", "`", "<", "et al", "sqrt", "mathbf", "arxiv", "torch"})
      EXPECT_EQ(t.surface.find(bad), std::string::npos) << t.surface << " has " << bad;
    EXPECT_NE(t.surface, "et");
    EXPECT_NE(t.surface, "al");
    EXPECT_NE(t.surface, "2019");
    EXPECT_NE(t.surface, "this paper");
  }
  EXPECT_NE(find_term(r, "Transformer architecture"), nullptr) << dump(r);
  EXPECT_NE(find_term(r, "multi-head attention"), nullptr) << dump(r);
  EXPECT_NE(find_term(r, "simplified attention mechanisms"), nullptr) << dump(r);
  EXPECT_TRUE(has_rel(r, "Transformer architecture", "extends", "multi-head attention")) << dump(r);
  check_consistent(r, text);
}

TEST(ExtractRules, HeadingTerms) {
  auto r = run("Each head attends to a subspace.", "", "3 Multi-Head Attention > 3.2 Scaled Dot-Product Attention > Introduction");
  const TermCandidate* h = find_term(r, "Multi-Head Attention");
  ASSERT_NE(h, nullptr) << dump(r);
  EXPECT_EQ(h->kind, "heading");
  ASSERT_NE(find_term(r, "Scaled Dot-Product Attention"), nullptr) << dump(r);
  EXPECT_EQ(find_term(r, "Introduction"), nullptr);
  // headings in the text: markdown, DokuWiki, numbered section lines
  r = run("## Positional Encoding\nSinusoidal encodings add order.\n\n====== Attention Sinks ====== Sinks absorb attention.\n"
          "2.3 The General Attention Function\nIt maps queries to outputs.");
  for (const char* s : {"Positional Encoding", "Attention Sinks", "General Attention Function"}) {
    const TermCandidate* t = find_term(r, s);
    ASSERT_NE(t, nullptr) << s << "\n" << dump(r);
    EXPECT_EQ(t->kind, "heading") << s;
  }
  // a long title-like heading path part is no term
  r = run("Text.", "", "How we trained a model that does many things well");
  EXPECT_EQ(find_term(r, "How we trained a model that does many things well"), nullptr);
}

TEST(ExtractRules, Definitions) {
  std::string text = "Self-attention is a mechanism that relates positions of a single sequence. "
                     "Layer normalization refers to rescaling activations per token. "
                     "Multi-Query Attention (MQA) is a variant that shares keys. "
                     "Dropout, which is a regularizer, zeroes activations. The mechanism of dropout is a puzzle.";
  auto r = run(text);
  ASSERT_NE(find_term(r, "Self-attention"), nullptr) << dump(r);
  EXPECT_EQ(find_term(r, "Self-attention")->definition, "Self-attention is a mechanism that relates positions of a single sequence.");
  ASSERT_NE(find_term(r, "Layer normalization"), nullptr) << dump(r);
  EXPECT_EQ(find_term(r, "Layer normalization")->definition, "Layer normalization refers to rescaling activations per token.");
  ASSERT_NE(find_term(r, "MQA"), nullptr) << dump(r);
  EXPECT_EQ(find_term(r, "MQA")->definition, "Multi-Query Attention (MQA) is a variant that shares keys.");
  EXPECT_EQ(find_term(r, "Multi-Query Attention")->definition, find_term(r, "MQA")->definition);
  ASSERT_NE(find_key(r, "dropout"), nullptr) << dump(r);
  EXPECT_EQ(find_key(r, "dropout")->definition, "Dropout, which is a regularizer, zeroes activations.");
  EXPECT_EQ(count_type(r, "is_a"), 2) << dump(r);  // not "dropout is a puzzle"
  check_consistent(r, text);
}

TEST(ExtractRules, IsAPatterns) {
  auto r = run("BERT is a bidirectional language model. Linear attention is a type of efficient attention. "
               "Efficient attention methods such as Performer, Linformer and Reformer reduce memory. "
               "Dropout and other regularization techniques help. We evaluate RoBERTa, a robustly trained encoder, on GLUE.");
  EXPECT_TRUE(has_rel(r, "BERT", "is_a", "bidirectional language model")) << dump(r);
  EXPECT_TRUE(has_rel(r, "Linear attention", "is_a", "efficient attention")) << dump(r);
  for (const char* x : {"Performer", "Linformer", "Reformer"})
    EXPECT_TRUE(has_rel(r, x, "is_a", "Efficient attention methods")) << x << "\n" << dump(r);
  EXPECT_TRUE(has_rel(r, "Dropout", "is_a", "regularization techniques")) << dump(r);
  EXPECT_TRUE(has_rel(r, "RoBERTa", "is_a", "robustly trained encoder") || has_rel(r, "RoBERTa", "is_a", "trained encoder"))
      << dump(r);
  // negation is no relation
  r = run("Attention is not a panacea.");
  EXPECT_EQ(count_type(r, "is_a"), 0) << dump(r);
}

TEST(ExtractRules, HeadWordHyponymy) {
  const std::string text =
      "## Attention variants\n\nAttention lets a model weigh its inputs. Linear attention and multi-head "
      "attention differ in how attention is computed, and self-attention relates a sequence to itself. The "
      "spectral kernel HAC estimator refines the HAC estimator. Non-linearity breaks linearity. Achim Zeileis (2004) and "
      "Zeileis et al. (2006) wrote the package. The third way is providing a grapcon generator taking parameters and returning a function of the "
      "parameters.";
  auto r = run(text);
  check_consistent(r, text);
  EXPECT_TRUE(has_rel(r, "Linear attention", "is_a", "attention")) << dump(r);
  EXPECT_TRUE(has_rel(r, "multi-head attention", "is_a", "attention")) << dump(r);
  EXPECT_TRUE(has_rel(r, "self-attention", "is_a", "attention")) << "a hyphen joins words too\n" << dump(r);
  // the longest term the phrase ends with is its parent, not a shorter one
  EXPECT_TRUE(has_rel(r, "spectral kernel HAC estimator", "is_a", "HAC estimator")) << dump(r);
  EXPECT_FALSE(has_rel(r, "spectral kernel HAC estimator", "is_a", "estimator")) << dump(r);
  // a phrase with a preposition is headed by its first noun; a negating prefix is no kind of
  auto h = run("The analysis of variance (ANOVA) splits the variance of the response by its sources.");
  ASSERT_TRUE(find_key(h, "analysis of variance")) << dump(h);
  ASSERT_TRUE(find_key(h, "variance")) << dump(h);
  EXPECT_EQ(count_type(h, "is_a"), 0) << dump(h);
  ASSERT_TRUE(find_key(r, "non linearity") && find_key(r, "linearity")) << dump(r);
  EXPECT_FALSE(has_rel(r, "Non-linearity", "is_a", "linearity")) << dump(r);
  // a clause the chunker kept in a phrase is no modifier
  for (const auto& x : r.relations)
    EXPECT_FALSE(x.type == "is_a" && x.src.find("taking") != std::string::npos) << dump(r);
  // a person's full name is no kind of its surname
  ASSERT_TRUE(find_term(r, "Achim Zeileis") && find_term(r, "Zeileis")) << dump(r);
  EXPECT_FALSE(has_rel(r, "Achim Zeileis", "is_a", "Zeileis")) << dump(r);
  // the evidence is a statement, not the heading
  for (const auto& x : r.relations)
    if (x.type == "is_a" && name_key(x.src) == "linear attention") { EXPECT_EQ(x.sentence.find('#'), std::string::npos); }
}

TEST(ExtractRules, PartOfUsesExtendsPatterns) {
  std::string text = "The encoder stack is part of the Transformer. "
                     "The Transformer block consists of multi-head attention and a feed-forward network. "
                     "The Transformer uses residual connections. RoPE relies on rotation matrices. "
                     "Grouped query attention is based on key sharing. "
                     "Transformer-XL extends the Transformer with segment recurrence. "
                     "FlashAttention-2 builds on FlashAttention.";
  auto r = run(text);
  EXPECT_TRUE(has_rel(r, "encoder stack", "part_of", "Transformer")) << dump(r);
  EXPECT_TRUE(has_rel(r, "multi-head attention", "part_of", "Transformer block")) << dump(r);
  EXPECT_TRUE(has_rel(r, "feed-forward network", "part_of", "Transformer block")) << dump(r);
  EXPECT_TRUE(has_rel(r, "Transformer", "uses", "residual connections")) << dump(r);
  EXPECT_TRUE(has_rel(r, "RoPE", "uses", "rotation matrices")) << dump(r);
  EXPECT_TRUE(has_rel(r, "Grouped query attention", "uses", "key sharing")) << dump(r);
  EXPECT_TRUE(has_rel(r, "Transformer-XL", "extends", "Transformer")) << dump(r);
  EXPECT_TRUE(has_rel(r, "FlashAttention-2", "extends", "FlashAttention")) << dump(r);
  check_consistent(r, text);
  for (auto& x : r.relations)
    if (x.type == "uses" && x.src == "RoPE") { EXPECT_EQ(x.sentence, "RoPE relies on rotation matrices."); }
}

TEST(ExtractRules, SoftwareAndComputationPatterns) {
  std::string text = "The Newey-West estimator is implemented in the sandwich package. "
                     "The Brier score is computed using the Kaplan-Meier estimate. "
                     "The survival package includes the Cox model and the Aalen-Johansen estimator. "
                     "The robust variance is available in survfit.";
  auto r = run(text);
  EXPECT_TRUE(has_rel(r, "Newey-West estimator", "part_of", "sandwich package")) << dump(r);
  EXPECT_TRUE(has_rel(r, "Brier score", "uses", "Kaplan-Meier estimate")) << dump(r);
  EXPECT_TRUE(has_rel(r, "Cox model", "part_of", "survival package")) << dump(r);
  EXPECT_TRUE(has_rel(r, "Aalen-Johansen estimator", "part_of", "survival package")) << dump(r);
  EXPECT_TRUE(has_rel(r, "robust variance", "part_of", "survfit")) << dump(r);
  check_consistent(r, text);
}

TEST(ExtractRules, ProposesNeedsTheDocumentTitle) {
  std::string text = "We propose the Transformer, a network architecture based solely on attention. "
                     "The proposed model is faster.";
  auto r = run(text, "Attention Is All You Need");
  const TermCandidate* title = find_term(r, "Attention Is All You Need");
  ASSERT_NE(title, nullptr) << dump(r);
  EXPECT_EQ(title->kind, "heading");
  EXPECT_TRUE(has_rel(r, "Attention Is All You Need", "proposes", "Transformer")) << dump(r);
  EXPECT_TRUE(has_rel(r, "Attention Is All You Need", "proposes", "model")) << dump(r);
  check_consistent(r, text);
  r = run(text);  // no title: no proposes relation, no title term
  EXPECT_EQ(count_type(r, "proposes"), 0) << dump(r);
  // the title is no term when nothing is proposed
  r = run("Attention weights sum to one.", "Some Title");
  EXPECT_EQ(find_term(r, "Some Title"), nullptr);
}

TEST(ExtractRules, ComparedWithIsSymmetricAndOrdered) {
  std::string text = "Softmax attention outperforms linear attention on recall tasks. "
                     "Mamba versus Transformer: Mamba is faster than the Transformer on long inputs. "
                     "Compared with RNNs, Transformers train in parallel.";
  auto r = run(text);
  int n = 0;
  for (auto& x : r.relations)
    if (x.type == "compared_with") {
      ++n;
      EXPECT_LT(lower_ascii(x.src), lower_ascii(x.dst)) << x.src << " / " << x.dst;
    }
  EXPECT_GE(n, 3) << dump(r);
  EXPECT_TRUE(has_rel(r, "linear attention", "compared_with", "Softmax attention")) << dump(r);
  EXPECT_TRUE(has_rel(r, "Mamba", "compared_with", "Transformer")) << dump(r);
  EXPECT_TRUE(has_rel(r, "RNNs", "compared_with", "Transformers")) << dump(r);
  check_consistent(r, text);
}

TEST(ExtractRules, CooccurrenceIsCappedPerSentence) {
  std::string text = "BERT, GPT-4, RoPE, ALiBi, FlashAttention, Mamba, Performer, Linformer, Reformer, Longformer, "
                     "BigBird, Mistral, Llama, Falcon and Gemma appear together in this sentence.";
  auto r = run(text);
  EXPECT_GE(r.terms.size(), 15u) << dump(r);
  int co = count_type(r, "co_occurs");
  EXPECT_GT(co, 0);
  EXPECT_LE(co, 8 * 7 / 2) << dump(r);
  // two sentences with the same pair weigh 2
  r = run("Softmax attention and linear attention differ. Softmax attention and linear attention both use queries.");
  bool found = false;
  for (auto& x : r.relations)
    if (x.type == "co_occurs" && name_key(x.src) == "linear attention" && name_key(x.dst) == "softmax attention") {
      found = true;
      EXPECT_EQ(x.weight, 2);
      EXPECT_EQ(x.sentence, "Softmax attention and linear attention differ.");
    }
  EXPECT_TRUE(found) << dump(r);
}

TEST(ExtractRules, CorpusSentences) {
  // attention_papers.txt
  auto r = run("Despite superior reasoning prowess demonstrated by Large Language Models (LLMs) with Chain-of-Thought "
               "(CoT) prompting, a lack of understanding prevails around the internal mechanisms of the models that "
               "facilitate CoT generation.");
  ASSERT_NE(find_term(r, "LLMs"), nullptr) << dump(r);
  EXPECT_EQ(find_term(r, "LLMs")->expansion, "Large Language Models");
  ASSERT_NE(find_term(r, "CoT"), nullptr) << dump(r);
  EXPECT_EQ(find_term(r, "CoT")->expansion, "Chain-of-Thought");
  EXPECT_EQ(find_term(r, "CoT")->count, 2);
  EXPECT_NE(find_term(r, "CoT generation"), nullptr) << dump(r);
  EXPECT_NE(find_term(r, "internal mechanisms"), nullptr) << dump(r);
  r = run("We present causal head gating (CHG), a scalable method for interpreting the functional roles of attention "
          "heads in transformer models.", "Causal Head Gating: A Framework for Interpreting Roles of Attention Heads");
  ASSERT_NE(find_term(r, "CHG"), nullptr) << dump(r);
  EXPECT_EQ(find_term(r, "CHG")->expansion, "causal head gating");
  EXPECT_NE(find_term(r, "attention heads"), nullptr) << dump(r);
  EXPECT_NE(find_term(r, "transformer models"), nullptr) << dump(r);
  EXPECT_TRUE(has_rel(r, "Causal Head Gating: A Framework for Interpreting Roles of Attention Heads", "proposes",
                      "causal head gating"))
      << dump(r);
  EXPECT_TRUE(has_rel(r, "causal head gating", "is_a", "scalable method")) << dump(r);
  // attention_wiki.txt (DokuWiki)
  r = run("===== Core Mechanism and Functionality ===== Attention mechanisms operate through a mathematical framework "
          "based on query-key-value (QKV) computations.");
  ASSERT_NE(find_term(r, "QKV"), nullptr) << dump(r);
  EXPECT_EQ(find_term(r, "QKV")->expansion, "query-key-value");
  EXPECT_NE(find_term(r, "mathematical framework"), nullptr) << dump(r);
  EXPECT_EQ(find_term(r, "Core Mechanism")->kind, "heading");
  r = run("The **attention mechanism** is a fundamental neural network component that enables models to selectively "
          "focus on different parts of an input sequence when processing information.");
  EXPECT_TRUE(has_rel(r, "attention mechanism", "is_a", "neural network component")) << dump(r);
  EXPECT_FALSE(find_term(r, "attention mechanism")->definition.empty());
  // attention_monograph.txt
  r = run("The Transformer architecture is presented with complete mathematical derivations of all components, "
          "including multi-head attention, positional encoding schemes, feed-forward networks, and layer normalization.");
  for (const char* t : {"Transformer architecture", "multi-head attention", "positional encoding schemes",
                        "feed-forward networks", "layer normalization", "mathematical derivations"})
    EXPECT_NE(find_term(r, t), nullptr) << t << "\n" << dump(r);
}

TEST(ExtractRules, Robustness) {
  auto ex = make_rule_extractor();
  ExtractInput in;
  in.chunk_id = "g";
  // 100 KB of random bytes
  std::mt19937 rng(7);
  in.text.resize(100 * 1024);
  for (auto& c : in.text) c = static_cast<char>(rng() & 0xFF);
  auto r = ex->extract(in);
  EXPECT_LT(r.terms.size(), 20000u);
  EXPECT_LT(r.relations.size(), 200000u);
  // 100 KB of printable garbage with brackets and dollars
  const std::string alphabet = "abcXYZ019 -_()[]{}$$\\**==|<>.,;:\n'\"";
  for (auto& c : in.text) c = alphabet[rng() % alphabet.size()];
  r = ex->extract(in);
  EXPECT_LT(r.relations.size(), 200000u);
  // unicode
  in.text = "Die Aufmerksamkeit (attention) im Café Théorie: 注意力机制 ist ein Mechanismus — “Transformer” — "
            "naïve self-attention über Wörter. Emoji 🤖 tokens, Ελληνικά γράμματα αβγ, and √d scaling × 2.";
  r = ex->extract(in);
  check_consistent(r, in.text);
  bool sa = false;
  for (auto& t : r.terms) sa = sa || t.surface.find("self-attention") != std::string::npos;
  EXPECT_TRUE(sa) << dump(r);
  // one huge sentence without punctuation: co-occurrence stays bounded
  in.text.clear();
  const char* ws[] = {"attention", "Transformer", "BERT", "softmax", "kernel", "RoPE", "encoder", "decoder", "and", "of"};
  for (int i = 0; i < 20000; ++i) in.text += std::string(ws[rng() % 10]) + (i % 7 == 0 ? "Net" : "") + " ";
  auto t0 = std::chrono::steady_clock::now();
  r = ex->extract(in);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LE(count_type(r, "co_occurs"), 28);
  EXPECT_LT(secs, 5.0);
  // unterminated markup
  in.text = "$$ \\frac{a}{ (( [[ http://x `code ** [12 $x";
  r = ex->extract(in);
  check_consistent(r, in.text);
}

TEST(ExtractRules, ThreadSafe) {
  auto ex = make_rule_extractor();
  ExtractInput in;
  in.chunk_id = "t";
  in.text = "Multi-Head Attention (MHA) is a mechanism. The Transformer uses residual connections. "
            "Linear attention outperforms softmax attention.";
  auto want = dump(ex->extract(in));
  std::vector<std::thread> th;
  std::atomic<int> bad{0};
  for (int k = 0; k < 4; ++k)
    th.emplace_back([&] {
      for (int i = 0; i < 200; ++i)
        if (dump(ex->extract(in)) != want) ++bad;
    });
  for (auto& t : th) t.join();
  EXPECT_EQ(bad.load(), 0);
}

// Issue 13: debris of web pages, PDFs and printed code gives no terms.
TEST(ExtractRules, NoTermsFromGluedLinesCodeLigaturesOrFormulae) {
  // a menu word glued to a title, and a title line run into the next line
  auto r = run("Get papers in your inbox!\nSubscribeHow to think step-by-step: chain-of-thought reasoning\n"
               "Despite superior reasoning prowess, large models fail.");
  for (auto& t : r.terms) {
    EXPECT_EQ(t.surface.find("Subscribe"), std::string::npos) << dump(r);
    EXPECT_EQ(t.surface.find("reasoning Despite"), std::string::npos) << dump(r);
  }
  EXPECT_NE(find_term(r, "chain-of-thought reasoning"), nullptr) << dump(r);
  // the same glued word in the document title (the source of "we propose X")
  r = run("In this paper we propose the FlashGate kernel.", "SubscribeHow to think step-by-step");
  for (auto& t : r.terms) EXPECT_EQ(t.surface.find("Subscribe"), std::string::npos) << dump(r);
  EXPECT_NE(find_term(r, "How to think step-by-step"), nullptr) << dump(r);
  // printed R code: no identifiers from it
  r = run("The model is fitted by maximum likelihood.\nR> fit_htn <- coxph(Surv(time, status) ~ htnvar, data = pbcdat)\n"
          "The hazard ratio is estimated.");
  for (auto& t : r.terms) EXPECT_EQ(t.surface.find("htnvar"), std::string::npos) << dump(r);
  EXPECT_NE(find_key(r, "hazard ratio"), nullptr) << dump(r);
  // a call with named arguments run into a line of output: no argument names
  r = run("The curves are drawn.\nn events median sex=F 631 423 > plot(mfit1, col=c(1,2), xscale=12, lwd=2, xlab=\"Years\")\n"
          "The hazard ratio is drawn.");
  for (auto& t : r.terms) {
    EXPECT_EQ(t.surface.find("xscale"), std::string::npos) << dump(r);
    EXPECT_EQ(t.surface.find("lwd"), std::string::npos) << dump(r);
  }
  EXPECT_NE(find_key(r, "hazard ratio"), nullptr) << dump(r);
  // printed output: list access and rows of numbers
  r = run("The fit is shown.\ncfit1$cmap\ncoef exp(coef) se(coef) mspikevar 0.0164 1.0165 0.0084 0.0069 2.4 0.02\n"
          "The hazard ratio is shown.");
  for (auto& t : r.terms) EXPECT_EQ(t.surface.find("mspikevar"), std::string::npos) << dump(r);
  // lost ligatures ("eect" for effect, "rst" for first) and formula symbols are no words
  r = run("The age eect of the rst shift is small. The estimate \xcb\x86\xcf\x83 of the variance is unbiased.");
  for (auto& t : r.terms) {
    EXPECT_EQ(t.surface.find("eect"), std::string::npos) << dump(r);
    EXPECT_EQ(t.surface.find("rst"), std::string::npos) << dump(r);
    EXPECT_EQ(t.surface.find("\xcf\x83"), std::string::npos) << dump(r);
  }
}

TEST(ExtractRank, DropsGenericWordsKeepsTechnicalTerms) {
  auto ex = make_rule_extractor();
  std::vector<ChunkExtraction> doc;
  const char* chunks[] = {
      "Multi-Head Attention (MHA) is a mechanism of the Transformer. The model uses an approach in this work.",
      "The approach of the model uses MHA and rotary position embeddings. The work improves the model.",
      "Rotary position embeddings rotate queries and keys. The model and the approach are described in this work.",
      "Our work trains the model. Flash attention kernels compute exact attention.",
  };
  int i = 0;
  for (const char* c : chunks) {
    ExtractInput in;
    in.chunk_id = "c" + std::to_string(i++);
    in.text = c;
    doc.push_back(ex->extract(in));
  }
  // common words have a low idf, rare technical words a high one
  auto idf = [](const std::string& w) {
    static const std::set<std::string> common = {"model", "approach", "work", "mechanism", "attention", "queries", "keys"};
    return common.count(w) ? 0.2 : 3.0;
  };
  ASSERT_NE(find_key(doc[0], "model"), nullptr) << dump(doc[0]);
  rank_terms(doc, idf);
  std::set<std::string> kept;
  for (auto& c : doc)
    for (auto& t : c.terms) {
      kept.insert(name_key(t.surface));
      EXPECT_GT(t.score, 0) << t.surface;
    }
  for (const char* g : {"model", "approach", "work", "mechanism", "attention"}) EXPECT_FALSE(kept.count(g)) << g;
  for (const char* k : {"mha", "multi head attention", "rotary position embedding", "transformer"})
    EXPECT_TRUE(kept.count(k)) << k;
  for (auto& c : doc)
    for (auto& r : c.relations) {
      EXPECT_TRUE(find_term(c, r.src)) << r.src;
      EXPECT_TRUE(find_term(c, r.dst)) << r.dst;
    }
  // the acronym with its expansion outranks a plain phrase seen as often
  double mha = 0, exact = 0;
  for (auto& c : doc)
    for (auto& t : c.terms) {
      if (t.surface == "MHA") mha = t.score;
      if (t.surface == "exact attention") exact = t.score;
    }
  EXPECT_GT(mha, exact);
  // an empty document, and an idf that knows nothing, do not crash
  std::vector<ChunkExtraction> none;
  rank_terms(none, idf);
  rank_terms(doc, [](const std::string&) { return 0.0; });
}

// ---------------------------------------------------------------- corpus: throughput and counts
std::string corpus_dir() {
  std::vector<std::filesystem::path> roots = {std::filesystem::current_path()};
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) roots.push_back(exe.parent_path());
  for (auto r : roots)
    for (int up = 0; up < 5 && !r.empty(); ++up, r = r.parent_path())
      if (std::filesystem::exists(r / "examples/corpus/attention_wiki.txt")) return (r / "examples/corpus").string();
  return "";
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ~1000-character pieces cut at whitespace.
std::vector<std::string> pieces(const std::string& text) {
  std::vector<std::string> out;
  size_t p = 0;
  while (p < text.size()) {
    size_t e = std::min(text.size(), p + 1000);
    if (e < text.size()) {
      size_t sp = text.find_last_of(" \n", e);
      if (sp != std::string::npos && sp > p + 500) e = sp;
    }
    out.push_back(text.substr(p, e - p));
    p = e;
  }
  return out;
}

TEST(ExtractCorpus, ThroughputCountsAndRanking) {
  std::string dir = corpus_dir();
  if (dir.empty()) GTEST_SKIP() << "examples/corpus not found";
  const std::vector<std::string> files = {"attention_wiki.txt", "attention_papers.txt", "attention_monograph.txt"};
  auto ex = make_rule_extractor();
  std::vector<std::vector<ExtractInput>> docs;
  size_t total = 0;
  for (auto& f : files) {
    docs.emplace_back();
    int i = 0;
    for (auto& p : pieces(read_all(dir + "/" + f))) {
      ExtractInput in;
      in.chunk_id = f + "#" + std::to_string(i++);
      in.doc_id = f;
      in.text = p;
      docs.back().push_back(std::move(in));
    }
    total += docs.back().size();
  }
  ex->extract(docs[0][0]);  // load WordNet outside the timing
  std::vector<std::vector<ChunkExtraction>> out(docs.size());
  auto t0 = std::chrono::steady_clock::now();
  for (size_t d = 0; d < docs.size(); ++d)
    for (auto& in : docs[d]) out[d].push_back(ex->extract(in));
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double rate = total / secs;
  // chunk-level BM25-style idf over all pieces
  std::unordered_map<std::string, int> df;
  for (auto& d : docs)
    for (auto& in : d) {
      std::unordered_set<std::string> seen;
      for (auto& w : words(in.text)) seen.insert(w);
      for (auto& w : seen) ++df[w];
    }
  auto idf = [&](const std::string& w) {
    auto it = df.find(w);
    double n = it == df.end() ? 0 : it->second;
    return std::log(1 + (total - n + 0.5) / (n + 0.5));
  };
  bool report = std::getenv("MMKG_EXTRACT_REPORT") != nullptr;
  if (report) std::cout << "chunks: " << total << " in " << secs << " s = " << rate << " chunks/s\n";
  std::vector<std::map<std::string, double>> ranked(docs.size());
  for (size_t d = 0; d < docs.size(); ++d) {
    auto raw_terms = 0, raw_rels = 0;
    for (auto& c : out[d]) raw_terms += c.terms.size(), raw_rels += c.relations.size();
    rank_terms(out[d], idf);
    std::map<std::string, double> best;  // name_key → score
    std::map<std::string, std::string> shown;
    std::map<std::string, int> rel_types;
    int rels = 0;
    for (auto& c : out[d]) {
      for (auto& t : c.terms) best[name_key(t.surface)] = t.score, shown[name_key(t.surface)] = t.surface;
      for (auto& r : c.relations) ++rel_types[r.type], ++rels;
    }
    ranked[d] = best;
    if (!report) continue;
    std::cout << files[d] << ": " << docs[d].size() << " chunks, candidates " << raw_terms << " terms / " << raw_rels
              << " relations; after ranking " << best.size() << " distinct terms, " << rels << " relations (";
    for (auto& [t, n] : rel_types) std::cout << t << " " << n << " ";
    std::cout << ")\n";
    std::vector<std::pair<double, std::string>> top;
    for (auto& [k, s] : best) top.emplace_back(s, shown[k]);
    std::sort(top.rbegin(), top.rend());
    for (size_t i = 0; i < top.size() && i < 40; ++i) std::cout << "  " << top[i].second << " " << top[i].first << "\n";
    std::cout << "  ... lowest kept:";
    for (size_t i = top.size() > 10 ? top.size() - 10 : 0; i < top.size(); ++i) std::cout << " " << top[i].second << ";";
    std::cout << "\n";
    for (auto& c : out[d])
      for (auto& r : c.relations)
        if (r.type != "co_occurs" && report) std::cout << "    R " << r.src << " -" << r.type << "-> " << r.dst << "\n";
  }
  EXPECT_GT(rate, 200.0);
  EXPECT_TRUE(ranked[2].count("multi head attention"));
  EXPECT_TRUE(ranked[2].count("self attention"));
  EXPECT_TRUE(ranked[1].count("llm"));
  EXPECT_TRUE(ranked[0].count("attention mechanism"));
  EXPECT_FALSE(ranked[2].count("paper"));
  EXPECT_FALSE(ranked[2].count("way"));
}

TEST(SectionSubjects, TheFirstChunkOfASectionGetsItsHeadingAsATerm) {
  std::vector<ChunkExtraction> doc(4);
  doc[0].terms.push_back({"Emperor Lothair I", "capitalised", "", "", "", 1, 2.5});
  const std::vector<std::string> paths = {"Aas Ka Panchhi", "Aas Ka Panchhi", "Manual > 3.2 set terminal", "Introduction"};
  add_section_subjects(doc, paths);
  ASSERT_EQ(doc[0].terms.size(), 2u);
  EXPECT_EQ(doc[0].terms[1].surface, "Aas Ka Panchhi");
  EXPECT_EQ(doc[0].terms[1].kind, "heading");
  EXPECT_EQ(doc[0].terms[1].score, 2.5) << "the chunk's best score: kept whatever its termhood";
  EXPECT_TRUE(doc[1].terms.empty()) << "the section's second chunk";
  ASSERT_EQ(doc[2].terms.size(), 1u);
  EXPECT_EQ(doc[2].terms[0].surface, "set terminal") << "the section number dropped";
  EXPECT_TRUE(doc[3].terms.empty()) << "a generic section name names nothing";
  // A heading the chunk already has as a term, or that reads as a sentence, is not added.
  std::vector<ChunkExtraction> again(2);
  again[0].terms.push_back({"aas ka panchhi", "noun_phrase", "", "", "", 1, 1.0});
  add_section_subjects(again, {"Aas Ka Panchhi", "Why would anyone do this?"});
  EXPECT_EQ(again[0].terms.size(), 1u);
  EXPECT_TRUE(again[1].terms.empty());
}

}  // namespace
}  // namespace mmkg::graph
