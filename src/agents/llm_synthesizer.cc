#include "agents/llm_synthesizer.h"

#include <map>
#include <regex>
#include <set>

#include "agents/context_budget.h"
#include "core/text.h"
#include "ingest/sentences.h"

namespace mmkg {
namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::set<std::string> content_stem_set(const std::string& text) {
  std::set<std::string> out;
  for (auto& s : content_stems(text)) out.insert(s);
  return out;
}

// Share of the sentence's content stems (as a list, repeats counted) found in the passage's.
double support(const std::vector<std::string>& sentence, const std::set<std::string>& passage) {
  if (sentence.empty()) return 0;
  size_t in = 0;
  for (auto& s : sentence) in += passage.count(s);
  return static_cast<double>(in) / static_cast<double>(sentence.size());
}

}  // namespace

Answer synthesize_llm(ChatModel& model, const std::string& question, const Retrieval& retrieval, TermStats& stats,
                      const SynthOptions& opt, const LlmSynthOptions& lopt, LlmSynthReport& report) {
  Answer extractive = synthesize_extractive(question, retrieval, stats, opt);
  if (!extractive.found) {
    report.fallback = "the documents do not cover the question";
    return extractive;
  }
  // The passages are the budgeted context exactly as the budget counted them (context_budget.h):
  // the budget alone decides what the model sees.
  const size_t n = retrieval.context.size();
  std::string passages;
  for (size_t i = 0; i < n; ++i) passages += format_passage(i + 1, retrieval.context[i]);
  // Each passage's shown sentences (verbatim chunk text) and their stems, computed once.
  std::vector<std::vector<std::string>> passage_sents(n);
  std::vector<std::set<std::string>> passage_stems(n);
  for (size_t i = 0; i < n; ++i) {
    const std::string& chunk = retrieval.context[i].hit.text;
    for (auto [b, e] : shown_sentences(retrieval.context[i])) {
      passage_sents[i].push_back(chunk.substr(b, e - b));
      auto st = content_stems(passage_sents[i].back());
      passage_stems[i].insert(st.begin(), st.end());
    }
  }
  ChatRequest req;
  req.temperature = 0;
  req.max_tokens = lopt.max_tokens;
  req.messages = {
      Message::system("You answer questions using only the numbered passages you are given. Write two or three "
                      "short sentences. End every sentence with the number of the passage it comes from in "
                      "square brackets, like [2]. If the passages do not answer the question, reply exactly: "
                      "NOT FOUND"),
      Message::user("Passages:\n\n" + passages + "Question: " + question)};
  ChatResponse resp = model.chat(req);
  report.usage = resp.usage;
  report.model_ms = resp.ms;
  report.cached = resp.cached;

  // Verify sentence by sentence against the cited passage (or, uncited, the best passage).
  const std::string text = trim(resp.text);
  if (text.empty() || text.find("NOT FOUND") != std::string::npos) {
    report.fallback = text.empty() ? "the model returned nothing" : "the model found no answer";
    return extractive;
  }
  static const std::regex marker(R"(\[(\d+)\])");
  Answer ans;
  ans.coverage = extractive.coverage;
  std::map<size_t, int> cite_no;  // passage index -> [n] in the answer
  std::vector<std::set<std::string>> kept_stems;
  for (auto [b, e] : split_sentences(text)) {
    std::string s = text.substr(b, e - b);
    std::set<size_t> cited;
    for (std::sregex_iterator it(s.begin(), s.end(), marker), end; it != end; ++it) {
      size_t k = std::stoul((*it)[1].str());
      if (k >= 1 && k <= n) cited.insert(k - 1);
    }
    std::string bare = collapse_ws(std::regex_replace(s, marker, ""));
    for (const char* p : {" .", " ,", " ;", " :", " !", " ?"})  // "sequence [1]." left "sequence ."
      for (size_t at; (at = bare.find(p)) != std::string::npos;) bare.erase(at, 1);
    if (bare.empty()) continue;
    ++report.model_sentences;
    const std::vector<std::string> bare_stems = content_stems(bare);
    // The best-supporting passage among the cited ones (all passages when none is cited).
    double best = 0;
    size_t where = 0;
    for (size_t i = 0; i < n; ++i) {
      if (!cited.empty() && !cited.count(i)) continue;
      double sup = support(bare_stems, passage_stems[i]);
      if (sup > best) best = sup, where = i;
    }
    bool by_embedding = false;
    if (best < lopt.min_support && best >= lopt.min_lexical_with_embedding && lopt.embed) {
      // A paraphrase: compare with each sentence of the passage by embedding.
      std::vector<std::string> texts = {bare};
      for (const auto& ps : passage_sents[where]) texts.push_back(collapse_ws(ps));
      auto vecs = lopt.embed(texts);
      double cos = 0;
      for (size_t i = 1; i < vecs.size() && !vecs[0].empty(); ++i) {
        if (vecs[i].size() != vecs[0].size()) continue;
        double dot = 0;
        for (size_t d = 0; d < vecs[0].size(); ++d) dot += static_cast<double>(vecs[0][d]) * vecs[i][d];
        cos = std::max(cos, dot);
      }
      by_embedding = cos >= lopt.min_cosine;
    }
    if (best < lopt.min_support && !by_embedding) continue;  // unsupported: dropped
    // A sentence that repeats one already kept (small models loop) is dropped too.
    std::set<std::string> stems(bare_stems.begin(), bare_stems.end());
    bool repeat = false;
    for (const auto& k : kept_stems) {
      size_t inter = 0;
      for (const auto& x : stems) inter += k.count(x);
      const size_t uni = stems.size() + k.size() - inter;
      repeat = repeat || (uni > 0 && static_cast<double>(inter) / static_cast<double>(uni) > 0.8);
    }
    if (repeat) continue;
    kept_stems.push_back(std::move(stems));
    if (by_embedding) ++report.kept_by_embedding;
    ++report.kept_sentences;
    auto [it, fresh] = cite_no.try_emplace(where, static_cast<int>(ans.citations.size()) + 1);
    if (fresh) ans.citations.push_back(make_citation(retrieval.context[where].hit, it->second));
    // The quote is verbatim from the passage: its sentence that best supports the model's.
    Citation& c = ans.citations[static_cast<size_t>(it->second - 1)];
    std::string quote;
    double qbest = -1;
    for (const auto& ps : passage_sents[where]) {
      const std::set<std::string> st = content_stem_set(ps);
      size_t hit = 0;
      for (auto& x : bare_stems) hit += st.count(x);
      double sc = static_cast<double>(hit) / (1.0 + 0.01 * static_cast<double>(ps.size()));
      if (sc > qbest) qbest = sc, quote = collapse_ws(ps);
    }
    if (c.quote.find(quote) == std::string::npos) c.quote += (c.quote.empty() ? "" : " ") + quote;
    while (!bare.empty() && (bare.back() == '.' || bare.back() == '!' || bare.back() == '?' || bare.back() == ' '))
      bare.pop_back();
    ans.text += (ans.text.empty() ? "" : " ") + bare + " [" + std::to_string(it->second) + "].";
  }
  if (report.kept_sentences == 0) {
    report.fallback = "no sentence of the model's answer is supported by the passage it cites";
    return extractive;
  }
  ans.found = true;
  report.used_model = true;
  return ans;
}

}  // namespace mmkg
