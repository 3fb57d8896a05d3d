#include "agents/verifier.h"

#include "agents/quote.h"
#include "agents/synthesizer.h"

#include <map>
#include <optional>

#include "retrieve/context_budget.h"
#include "embed/embedder.h"
#include "text/words.h"
#include "text/lexicon.h"
#include "store/store.h"
#include "index/lexical.h"
#include "text/sentences.h"
#include "core/error.h"
#include "llm/json_request.h"

namespace mmkg {

JudgeScope parse_judge_scope(const std::string& s) {
  if (s == "none") return JudgeScope::None;
  if (s == "borderline") return JudgeScope::Borderline;
  if (s == "all") return JudgeScope::All;
  throw UsageError("unknown judge scope '" + s + "'; use none, borderline or all");
}

const char* judge_scope_name(JudgeScope s) {
  switch (s) {
    case JudgeScope::None: return "none";
    case JudgeScope::All: return "all";
    default: return "borderline";
  }
}
namespace {

// What the model was shown of a passage: the chunk's text, or for a chunk the budget trimmed,
// its kept sentences (verbatim, joined by spaces).
std::string shown_text(const Candidate& c) {
  if (!c.trimmed()) return c.hit.text;
  std::string out;
  for (auto [b, e] : shown_sentences(c)) out += (out.empty() ? "" : " ") + c.hit.text.substr(b, e - b);
  return out;
}

std::set<std::string> stem_set(const std::string& text) {
  std::set<std::string> out;
  for (auto& s : content_stems(text)) out.insert(s);
  return out;
}

// Share of the sentence's content stems (as a list, repeats counted) found in `passage`.
double support(const std::vector<std::string>& sentence, const std::set<std::string>& passage) {
  if (sentence.empty()) return 0;
  size_t in = 0;
  for (auto& s : sentence) in += passage.count(s);
  return static_cast<double>(in) / static_cast<double>(sentence.size());
}

// The passage's sentence that best supports `stems` (verbatim, whitespace collapsed) and the
// share of `stems` it holds.
std::pair<std::string, double> best_passage_sentence(const std::string& ptext, const std::vector<std::string>& stems) {
  std::string best;
  double best_score = -1, best_share = 0;
  for (auto [b, e] : split_sentences(ptext)) {
    std::string ps = ptext.substr(b, e - b);
    const std::set<std::string> st = stem_set(ps);
    size_t hit = 0;
    for (auto& x : stems) hit += st.count(x);
    double sc = static_cast<double>(hit) / (1.0 + 0.01 * static_cast<double>(ps.size()));
    if (sc > best_score) {
      best_score = sc, best = collapse_ws(ps);
      best_share = stems.empty() ? 0 : static_cast<double>(hit) / static_cast<double>(stems.size());
    }
  }
  return {best, best_share};
}

double max_cosine(const EmbedTexts& embed, const std::string& sentence, const std::string& ptext) {
  std::vector<std::string> texts = {sentence};
  for (auto [pb, pe] : split_sentences(ptext)) texts.push_back(collapse_ws(ptext.substr(pb, pe - pb)));
  auto vecs = embed(texts);
  double cos = 0;
  for (size_t i = 1; i < vecs.size() && !vecs[0].empty(); ++i) cos = std::max(cos, dot(vecs[0], vecs[i]));
  return cos;
}

struct Judged {
  size_t sentence;  // index into the draft
  size_t passage;   // index into the context
};

// One judge call for all `items`: a verdict per item (nullopt where the judge said nothing).
std::vector<std::optional<bool>> ask_judge(ChatModel& judge, const Draft& draft, const Retrieval& retrieval,
                                           const std::vector<Judged>& items, VerifyReport& report) {
  std::vector<std::optional<bool>> out(items.size());
  std::string claims;
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string source = shown_text(retrieval.context[items[i].passage]);
    claims += "Claim " + std::to_string(i + 1) + ": " + draft.sentences[items[i].sentence].text + "\nSource " +
              std::to_string(i + 1) + ": " + collapse_ws(std::string(utf8_prefix(source, 1500))) + "\n\n";
  }
  const ChatRequest req = json_request(
      "verdicts",
      {{"type", "object"},
       {"properties",
        {{"verdicts",
          {{"type", "array"},
           {"items",
            {{"type", "object"},
             {"properties", {{"claim", {{"type", "integer"}}}, {"supported", {{"type", "boolean"}}}}},
             {"required", {"claim", "supported"}}}}}}}},
       {"required", {"verdicts"}}},
      "You check claims against their sources. A claim is supported only if its source states it; a claim the "
      "source contradicts, or that adds facts the source does not give, is not supported. Answer with JSON: a "
      "verdict for every claim.",
      claims, static_cast<int>(30 + 25 * items.size()));
  try {
    ChatResponse r = judge.chat(req);
    report.judge_usage.prompt += r.usage.prompt;
    report.judge_usage.completion += r.usage.completion;
    report.judge_usage.total += r.usage.total;
    report.judge_ms += r.ms;
    if (r.json.is_object() && r.json.contains("verdicts") && r.json["verdicts"].is_array()) {
      for (const auto& v : r.json["verdicts"]) {
        if (!v.is_object() || !v.contains("claim") || !v.contains("supported")) continue;
        if (!v["claim"].is_number_integer() || !v["supported"].is_boolean()) continue;
        long long k = v["claim"].get<long long>();
        if (k >= 1 && k <= static_cast<long long>(items.size()) && !out[static_cast<size_t>(k - 1)])
          out[static_cast<size_t>(k - 1)] = v["supported"].get<bool>();
      }
    }
    if (!r.json.is_object()) report.judge_error = "the judge's answer was not JSON";
  } catch (const Error& e) {
    report.judge_error = std::string("judge call failed: ") + e.what();
  }
  return out;
}

}  // namespace

namespace {

// Lexical support of one draft sentence by its best cited passage (any passage when none is cited).
struct Check {
  std::vector<std::string> stems;
  double lexical = 0;
  size_t where = 0;
};

std::vector<Check> lexical_checks(const Draft& draft, const std::vector<std::set<std::string>>& passage_stems) {
  std::vector<Check> checks(draft.sentences.size());
  for (size_t s = 0; s < draft.sentences.size(); ++s) {
    Check& c = checks[s];
    c.stems = content_stems(draft.sentences[s].text);
    for (size_t i = 0; i < passage_stems.size(); ++i) {
      if (!draft.sentences[s].cited.empty() && !draft.sentences[s].cited.count(i)) continue;
      double sup = support(c.stems, passage_stems[i]);
      if (sup > c.lexical) c.lexical = sup, c.where = i;
    }
  }
  return checks;
}

// The judge's verdict on each sentence it is asked about: those in the band the word overlap
// cannot settle, and with JudgeScope::All the strongly supported ones too.
std::vector<std::optional<bool>> judge_verdicts(const Draft& draft, const Retrieval& retrieval,
                                                const std::vector<Check>& checks, const VerifyOptions& opt,
                                                VerifyReport& report) {
  std::vector<std::optional<bool>> verdict(draft.sentences.size());
  if (!opt.judge) return verdict;
  std::vector<Judged> to_judge;
  for (size_t s = 0; s < checks.size(); ++s) {
    const bool strong = checks[s].lexical >= opt.min_support;
    const bool band = !strong && checks[s].lexical >= opt.min_lexical_with_embedding;
    if (band || (strong && opt.judge_scope == JudgeScope::All)) to_judge.push_back({s, checks[s].where});
  }
  if (to_judge.empty()) return verdict;
  report.judged = to_judge.size();
  auto v = ask_judge(*opt.judge, draft, retrieval, to_judge, report);
  for (size_t i = 0; i < to_judge.size(); ++i) {
    verdict[to_judge[i].sentence] = v[i];
    report.judge_answered += v[i].has_value();
  }
  return verdict;
}

// Whether a draft sentence stays, and how: strongly supported (unless the judge vetoes it), in
// the band and confirmed by the judge or the embedding, or revised to its passage's own best
// sentence when enough of it overlaps.
struct Decision {
  bool keep = false, by_embedding = false, by_judge = false, revised = false;
  std::string text, quote;
};

Decision decide(const Check& c, std::string text, const std::string& ptext, const std::optional<bool>& verdict,
                const VerifyOptions& opt, VerifyReport& report) {
  Decision d;
  const bool strong = c.lexical >= opt.min_support;
  const bool band = !strong && c.lexical >= opt.min_lexical_with_embedding;
  if (strong) {
    d.keep = !(verdict && !*verdict);
    if (!d.keep) ++report.judge_vetoes;
  } else if (band) {
    if (verdict) {
      d.keep = d.by_judge = *verdict;
    } else if (opt.embed) {
      d.keep = d.by_embedding = max_cosine(opt.embed, text, ptext) >= opt.min_cosine;
    }
  }
  auto [quote, share] = best_passage_sentence(ptext, c.stems);
  if (!d.keep && opt.revise_min_overlap > 0 && !quote.empty() && share >= opt.revise_min_overlap) {
    text = quote;  // the source's own words replace the unsupported claim
    d.keep = d.revised = true;
    d.by_embedding = d.by_judge = false;
  }
  d.text = std::move(text);
  d.quote = std::move(quote);
  return d;
}

// A sentence that repeats one already kept (small models loop): more than 80% of its words shared.
bool repeats(const std::set<std::string>& stems, const std::vector<std::set<std::string>>& kept) {
  for (const auto& k : kept) {
    size_t inter = 0;
    for (const auto& x : stems) inter += k.count(x);
    const size_t uni = stems.size() + k.size() - inter;
    if (uni > 0 && static_cast<double>(inter) / static_cast<double>(uni) > 0.8) return true;
  }
  return false;
}

}  // namespace

Answer verify_draft(const std::string& question, const Retrieval& retrieval, const Draft& draft,
                    const VerifyOptions& opt, VerifyReport& report) {
  (void)question;
  if (!draft.from_model()) {
    report.fallback = draft.fallback;
    return draft.extractive;
  }
  const size_t n = std::min(draft.passages, retrieval.context.size());
  std::vector<std::string> shown(n);                     // what the model saw of each passage
  std::vector<std::set<std::string>> passage_stems(n);  // computed once, used for every sentence
  for (size_t i = 0; i < n; ++i) {
    shown[i] = shown_text(retrieval.context[i]);
    passage_stems[i] = stem_set(shown[i]);
  }
  const std::vector<Check> checks = lexical_checks(draft, passage_stems);
  const std::vector<std::optional<bool>> verdict = judge_verdicts(draft, retrieval, checks, opt, report);

  Answer ans;
  ans.answerability = draft.extractive.answerability;  // the extractive judgement's inputs
  ans.answerability_score = draft.extractive.answerability_score;
  ans.coverage = draft.extractive.coverage;
  std::map<size_t, int> cite_no;  // passage index -> [n] in the answer
  std::vector<std::set<std::string>> kept_stems;
  for (size_t s = 0; s < draft.sentences.size(); ++s) {
    ++report.model_sentences;
    const Check& c = checks[s];
    Decision d = decide(c, draft.sentences[s].text, shown[c.where], verdict[s], opt, report);
    const std::vector<std::string> final_stems = d.revised ? content_stems(d.text) : c.stems;
    std::set<std::string> stems(final_stems.begin(), final_stems.end());
    if (!d.keep || repeats(stems, kept_stems)) {
      ++report.dropped;
      continue;
    }
    kept_stems.push_back(std::move(stems));
    report.kept_by_embedding += d.by_embedding;
    report.kept_by_judge += d.by_judge;
    report.revised += d.revised;
    ++report.kept_sentences;
    auto [it, fresh] = cite_no.try_emplace(c.where, static_cast<int>(ans.citations.size()) + 1);
    if (fresh) ans.citations.push_back(make_citation(retrieval.context[c.where].hit, it->second));
    // The quote is verbatim from the passage: its sentence that best supports the model's.
    Citation& cit = ans.citations[static_cast<size_t>(it->second - 1)];
    add_quote(cit, d.quote);
    std::string& text = d.text;
    while (!text.empty() && (text.back() == '.' || text.back() == '!' || text.back() == '?' || text.back() == ' '))
      text.pop_back();
    ans.text += (ans.text.empty() ? "" : " ") + text + " [" + std::to_string(it->second) + "].";
  }
  if (report.kept_sentences == 0) {
    report.fallback = "no sentence of the model's answer is supported by the passage it cites";
    return draft.extractive;
  }
  ans.found = true;
  report.used_model = true;
  return ans;
}

std::set<std::string> document_name_stems(Store& store) {
  std::set<std::string> out;
  for (const auto& d : store.documents()) {
    for (auto& w : words(d.name)) out.insert(stem(w));
    for (auto& w : words(d.title)) out.insert(stem(w));
  }
  return out;
}

std::vector<std::string> answer_gaps(const std::string& question, const Answer& answer, const Retrieval& retrieval,
                                     TermStats& stats, const std::set<std::string>& doc_words) {
  const graph::Lexicon& lex = graph::Lexicon::get();
  const double absent = stats.absent_idf();  // a word no chunk holds
  struct Word {
    std::string word, stem;
    double idf;
  };
  std::vector<Word> present;
  std::set<std::string> seen;
  double sum = 0;
  for (auto& w : words(question)) {
    if (is_stopword(w)) continue;
    std::string st = stem(w);
    if (!seen.insert(st).second) continue;
    if (doc_words.count(st)) continue;              // names a document: "according to the wiki"
    if (lex.loaded() && (lex.verb_form(w) || lex.is_adv(w))) continue;  // framing: "describes", "add", "claim"
    double idf = stats.idf(w);
    if (idf >= absent - 1e-9) continue;  // not in the corpus: no retrieval can find it
    present.push_back({w, st, idf});
    sum += idf;
  }
  if (present.empty()) return {};
  const double mean = sum / static_cast<double>(present.size());
  std::set<std::string> sources;
  auto add = [&](const std::string& text) {
    for (auto& w : words(text)) sources.insert(stem(w));
  };
  if (answer.found && !answer.citations.empty()) {
    for (const auto& c : answer.citations) add(c.text);
  } else {
    for (const auto& c : retrieval.context) add(c.hit.text);
  }
  std::vector<std::string> gaps;
  for (const auto& w : present)
    if (w.idf >= mean && !sources.count(w.stem)) gaps.push_back(w.word);
  return gaps;
}

}  // namespace mmkg
