#include "agents/llm_synthesizer.h"

#include <regex>

#include "retrieve/context_budget.h"
#include "text/words.h"
#include "text/sentences.h"

namespace mmkg {
namespace {

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// A vision model also sees the images of the figures among the passages, in passage order,
// after the text; the text says which passage each image belongs to.
void attach_figure_images(ChatModel& model, const Retrieval& retrieval, const LlmSynthOptions& lopt, Message& user,
                          Draft& d) {
  if (!model.vision() || !lopt.figure_png) return;
  std::string which;
  for (size_t i = 0; i < retrieval.context.size() && user.images.size() < lopt.max_images; ++i) {
    const SearchHit& h = retrieval.context[i].hit;
    if (h.figure_id.empty()) continue;
    std::string png = lopt.figure_png(h.figure_id);
    if (png.empty()) continue;
    user.images.push_back(ImagePart{.mime = "image/png", .bytes = std::move(png)});
    which += (which.empty() ? "[" : ", [") + std::to_string(i + 1) + "]";
  }
  if (user.images.empty()) return;
  d.images = user.images.size();
  user.content += "\n\nThe images that follow show the figures of passages " + which +
                  ", in that order. Cite the passage of a figure for what you read in its image.";
}

}  // namespace

Draft draft_extractive(const Question& question, const Retrieval& retrieval, TermStats& stats,
                       const SynthOptions& opt) {
  Draft d;
  d.extractive = synthesize_extractive(question, retrieval, stats, opt);
  return d;
}

Draft draft_llm(ChatModel& model, const Question& question, const Retrieval& retrieval, TermStats& stats,
                const SynthOptions& opt, const LlmSynthOptions& lopt) {
  Draft d = draft_extractive(question, retrieval, stats, opt);
  if (!d.extractive.found) {
    d.fallback = "the documents do not cover the question";
    return d;
  }
  // The passages are the budgeted context exactly as the budget counted them (context_budget.h):
  // the budget alone decides what the model sees.
  const size_t n = retrieval.context.size();
  d.passages = n;
  std::string passages;
  for (size_t i = 0; i < n; ++i) passages += format_passage(i + 1, retrieval.context[i]);
  ChatRequest req;
  req.temperature = 0;
  req.max_tokens = lopt.max_tokens;
  req.messages = {
      Message::system("You answer questions using only the numbered passages you are given. Write two or three "
                      "short sentences. End every sentence with the number of the passage it comes from in "
                      "square brackets, like [2]. If the passages do not answer the question, reply exactly: "
                      "NOT FOUND"),
      Message::user("Passages:\n\n" + passages + "Question: " + question.standalone)};
  attach_figure_images(model, retrieval, lopt, req.messages.back(), d);
  ChatResponse resp = model.chat(req);
  d.usage = resp.usage;
  d.model_ms = resp.ms;
  d.cached = resp.cached;

  const std::string text = trim(resp.text);
  if (text.empty() || text.find("NOT FOUND") != std::string::npos) {
    d.fallback = text.empty() ? "the model returned nothing" : "the model found no answer";
    return d;
  }
  static const std::regex marker(R"(\[(\d+)\])");
  for (auto [b, e] : split_sentences(text)) {
    std::string s = text.substr(b, e - b);
    DraftSentence ds;
    for (std::sregex_iterator it(s.begin(), s.end(), marker), end; it != end; ++it) {
      const std::string digits = (*it)[1].str();
      if (digits.size() > 4) continue;  // not a passage number
      size_t k = std::stoul(digits);
      if (k >= 1 && k <= n) ds.cited.insert(k - 1);
    }
    std::string bare = collapse_ws(std::regex_replace(s, marker, ""));
    for (const char* p : {" .", " ,", " ;", " :", " !", " ?"})  // "sequence [1]." left "sequence ."
      for (size_t at; (at = bare.find(p)) != std::string::npos;) bare.erase(at, 1);
    if (bare.empty()) continue;
    ds.text = std::move(bare);
    d.sentences.push_back(std::move(ds));
  }
  if (d.sentences.empty()) d.fallback = "the model's answer had no sentence";
  return d;
}

}  // namespace mmkg
