// "llm" reranker: listwise. The chat model sees the question and the first passages (numbered,
// each cut to a few hundred bytes) and answers {"ranking": [numbers, most relevant first]} as
// structured output. Passages it ranks go first in its order; the rest keep the fused order
// after them. A failed call or an unusable ranking (no valid passage number) keeps the fused
// order, and says why.
#include <algorithm>
#include <cstdlib>
#include <set>

#include "retrieve/rerank.h"
#include "text/words.h"
#include "llm/chat_model.h"
#include "llm/json_request.h"

namespace mmkg {
namespace {

constexpr size_t kMaxPassages = 10;       // one prompt of about 1,500 tokens
constexpr size_t kPassageBytes = 600;

std::string excerpt(const std::string& s, size_t n = 120) {
  std::string c = collapse_ws(s);
  return c.size() <= n ? c : std::string(utf8_prefix(c, n)) + "...";
}

class LlmReranker : public Reranker {
 public:
  explicit LlmReranker(ChatModel& chat) : chat_(chat) {}
  std::string name() const override { return "llm"; }

  std::vector<double> score(const std::string& question, const std::vector<const SearchHit*>& passages,
                            std::string& why) override {
    const size_t m = std::min(kMaxPassages, passages.size());
    std::string list;
    for (size_t i = 0; i < m; ++i) {
      std::string t = collapse_ws(passages[i]->text);
      if (t.size() > kPassageBytes) t = std::string(utf8_prefix(t, kPassageBytes)) + " ...";
      list += "[" + std::to_string(i + 1) + "] " + t + "\n\n";
    }
    const ChatRequest req = json_request(
        "ranking",
        {{"type", "object"},
         {"properties",
          {{"ranking",
            {{"type", "array"},
             {"items", {{"type", "integer"}, {"minimum", 1}, {"maximum", static_cast<int>(m)}}},
             {"maxItems", static_cast<int>(m)}}}}},
         {"required", {"ranking"}}},
        "You rank passages by how well they answer a question. Answer with JSON only: {\"ranking\": [passage "
        "numbers, the most useful first]}. Leave out passages that do not help answer the question.",
        "Question: " + question + "\n\nPassages:\n\n" + list + "Question: " + question, static_cast<int>(24 + 4 * m));
    ChatResponse r;
    try {
      r = chat_.chat(req);
    } catch (const Error& e) {
      why = std::string("model call failed: ") + e.what();
      return {};
    }
    std::vector<size_t> ranking;
    std::set<size_t> seen;
    if (r.json.is_object() && r.json.contains("ranking") && r.json["ranking"].is_array()) {
      for (const auto& v : r.json["ranking"]) {
        long long k = 0;
        if (v.is_number_integer()) k = v.get<long long>();
        else if (v.is_string()) k = std::atoll(v.get<std::string>().c_str());  // "3": a small model's habit
        if (k >= 1 && static_cast<size_t>(k) <= m && seen.insert(static_cast<size_t>(k)).second)
          ranking.push_back(static_cast<size_t>(k - 1));
      }
    }
    if (ranking.empty()) {
      why = "the model's ranking names no passage (" + excerpt(r.text) + ")";
      return {};
    }
    // Ranked passages above every other one, in the model's order; the rest tie at 0 (the
    // stable sort keeps their fused order).
    std::vector<double> out(passages.size(), 0.0);
    for (size_t p = 0; p < ranking.size(); ++p) out[ranking[p]] = static_cast<double>(2 * m - p);
    return out;
  }

 private:
  ChatModel& chat_;
};

}  // namespace

std::unique_ptr<Reranker> make_llm_reranker(ChatModel& chat) { return std::make_unique<LlmReranker>(chat); }

}  // namespace mmkg
