#include "agents/planner.h"

#include <algorithm>
#include <set>

#include "text/words.h"
#include "index/lexical.h"
#include "llm/chat_model.h"
#include "llm/json_request.h"

namespace mmkg {

const char* planner_kind_name(PlannerKind k) {
  switch (k) {
    case PlannerKind::Rules: return "rules";
    case PlannerKind::Llm: return "llm";
    case PlannerKind::Followup: return "followup";
  }
  return "rules";
}

Plan plan_rules(const Question& q, TermStats& stats, size_t max_phrases) {
  const std::string& question = q.searched;
  Plan p;
  p.parts = q.search_parts;
  p.subqueries.push_back(question);
  p.matches.emplace_back();
  auto ws = words(question);
  struct Phrase {
    std::string text;
    double weight;
  };
  std::vector<Phrase> phrases;
  std::vector<std::string> run;
  auto flush = [&]() {
    if (run.empty()) return;
    Phrase ph{"", 0};
    for (auto& w : run) {
      if (!ph.text.empty()) ph.text += ' ';
      ph.text += w;
      ph.weight += stats.idf(w);
    }
    phrases.push_back(std::move(ph));
    run.clear();
  };
  for (auto& w : ws) {
    if (is_stopword(w)) flush();
    else run.push_back(w);
  }
  flush();
  std::stable_sort(phrases.begin(), phrases.end(), [](const Phrase& a, const Phrase& b) { return a.weight > b.weight; });
  std::string qnorm = collapse_ws(lower_ascii(question));
  for (auto& ph : phrases) {
    if (p.subqueries.size() > max_phrases) break;
    if (ph.text == qnorm) continue;
    if (std::find(p.subqueries.begin(), p.subqueries.end(), ph.text) != p.subqueries.end()) continue;
    p.subqueries.push_back(ph.text);
    p.matches.emplace_back();
  }
  // A definition question also looks for "X is/are/refers to/means ..." with a little slack
  // ("the attention mechanism is ...").
  p.definiendum = q.search_definiendum;
  if (!p.definiendum.empty()) {
    std::string x = "\"" + p.definiendum + "\"";
    std::string m;
    for (const char* verb : {"is", "are", "refers", "means", "denotes"})
      m += std::string(m.empty() ? "" : " OR ") + "NEAR(" + x + " \"" + verb + "\", 2)";
    p.subqueries.push_back(p.definiendum + " is ...");
    p.matches.push_back(m);
  }
  return p;
}

namespace {

// The model's sub-queries a plan keeps, after the question itself.
constexpr size_t kMaxModelQueries = 4;

// Two worked plans, sent as earlier turns of the conversation: a model of 135M parameters copies
// a plan it is shown far more reliably than it follows a description of one, and given only the
// description it fills the schema with strings unrelated to the question. The examples are
// invented, one a two-hop question and one a how-to, so that neither is copied as an answer.
const std::pair<const char*, const char*> kPlanExamples[] = {
    {"Which river flows through the capital of the country where the Eiffel Tower stands?",
     R"({"subqueries": ["Eiffel Tower country", "capital of France", "river through Paris"]})"},
    {"How does the engine's cooling system prevent overheating at high speed?",
     R"({"subqueries": ["engine cooling system", "overheating at high speed"]})"},
};

ChatRequest plan_request(const std::string& question) {
  // Bounded strings and a bounded list: the grammar the server derives from the schema then ends
  // every query and the list, so a small model cannot run out of tokens inside a string.
  const nlohmann::ordered_json query = {{"type", "string"}, {"minLength", 3}, {"maxLength", 60}};
  ChatRequest req = json_request(
      "plan",
      {{"type", "object"},
       {"properties",
        {{"subqueries", {{"type", "array"}, {"items", query}, {"minItems", 2}, {"maxItems", kMaxModelQueries}}},
         {"tools", {{"type", "array"}, {"items", {{"type", "string"}, {"enum", {"rag", "graph"}}}}, {"maxItems", 2}}}}},
       {"required", {"subqueries"}}},
      "You plan searches over a document collection. Given a question, write 2 to 4 short search queries that "
      "together find the passages needed to answer it. Use the question's own key words. Answer with JSON only.",
      question, 200);
  std::vector<Message> shots;
  for (const auto& [q, plan] : kPlanExamples) {
    shots.push_back(Message::user(q));
    shots.push_back(Message::assistant(plan));
  }
  req.messages.insert(req.messages.begin() + 1, shots.begin(), shots.end());
  return req;
}

}  // namespace

Plan plan_llm(ChatModel& model, const Question& asked, TermStats& stats, std::string* fallback) {
  Plan rules = plan_rules(asked, stats);
  const std::string& question = asked.searched;
  const ChatRequest req = plan_request(question);
  try {
    ChatResponse r = model.chat(req);
    std::vector<std::string> subs;
    if (r.json.is_object() && r.json.contains("subqueries") && r.json["subqueries"].is_array()) {
      for (const auto& q : r.json["subqueries"])
        if (q.is_string()) subs.push_back(collapse_ws(q.get<std::string>()));
    }
    Plan p;
    p.planner = PlannerKind::Llm;
    p.parts = rules.parts;
    p.subqueries.push_back(question);
    p.matches.emplace_back();
    const std::string qn = collapse_ws(lower_ascii(question));
    // Queries must share a content word with the question: a small model may drift.
    const std::vector<std::string> stems = content_stems(question);
    const std::set<std::string> qs(stems.begin(), stems.end());
    for (auto& q : subs) {
      if (p.subqueries.size() >= 1 + kMaxModelQueries) break;
      bool related = false;
      for (auto& x : content_stems(q)) related = related || qs.count(x);
      if (q.empty() || !related || collapse_ws(lower_ascii(q)) == qn) continue;
      if (std::find(p.subqueries.begin(), p.subqueries.end(), q) != p.subqueries.end()) continue;
      p.subqueries.push_back(q);
      p.matches.emplace_back();
    }
    if (p.subqueries.size() < 2) {
      if (fallback) *fallback = "the model proposed no usable sub-query";
      return rules;
    }
    if (r.json.contains("tools") && r.json["tools"].is_array())
      for (const auto& t : r.json["tools"])
        if (t.is_string()) p.tools.push_back(t.get<std::string>());
    p.definiendum = rules.definiendum;  // keep the definition sub-query (a precise FTS expression)
    if (!p.definiendum.empty()) {
      p.subqueries.push_back(rules.subqueries.back());
      p.matches.push_back(rules.matches.back());
    }
    return p;
  } catch (const Error& e) {
    if (fallback) *fallback = std::string("model call failed: ") + e.what();
    return rules;
  }
}

Plan plan_followup(const Plan& previous, const Question& asked, const std::vector<std::string>& gaps) {
  const std::string& question = asked.searched;
  Plan p = previous;
  p.followup_from = std::min(previous.followup_from, previous.subqueries.size());
  const std::string any = fts_query(question);
  // The question's phrases: maximal runs of content words.
  std::vector<std::vector<std::string>> phrases(1);
  for (auto& w : words(question)) {
    if (is_stopword(w)) {
      if (!phrases.back().empty()) phrases.emplace_back();
    } else {
      phrases.back().push_back(w);
    }
  }
  size_t added = 0;
  for (const auto& g : gaps) {
    if (added >= 2) break;
    std::string text = g;
    for (const auto& ph : phrases) {
      if (std::find(ph.begin(), ph.end(), g) == ph.end()) continue;
      text.clear();
      for (auto& w : ph) text += (text.empty() ? "" : " ") + w;
    }
    std::string match = "\"" + g + "\"";
    if (!any.empty()) match += " AND (" + any + ")";
    if (std::find(p.matches.begin(), p.matches.end(), match) != p.matches.end()) continue;
    p.subqueries.push_back(text);
    p.matches.push_back(match);
    ++added;
  }
  return p;
}

}  // namespace mmkg
