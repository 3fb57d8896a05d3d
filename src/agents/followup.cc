#include "agents/followup.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "llm/chat_model.h"
#include "text/words.h"
#include "llm/json_request.h"

namespace mmkg {

namespace {

// The word lists below are general English grammar (question openers, pronouns, connectives),
// not fitted to any document set.

// Openers after which the next word is a verb ("how do I *create* a key"): the opener and the
// verb are not the topic.
const std::vector<std::string> kVerbOpeners = {
    "what is the best way to", "is it possible to", "what do i need to", "do i need to", "how would i",
    "how do i", "how can i", "how should i", "how do you", "how can you", "how do we", "how can we",
    "how to", "can i", "should i", "can you", "could you", "i want to", "i need to"};
// Openers followed by the topic itself.
const std::vector<std::string> kTopicOpeners = {
    "tell me about", "what exactly is", "what is meant by", "what is", "what are", "what's", "who is", "who are",
    "where is", "where are", "when is", "which is", "why is", "why are", "what does", "what do", "what did",
    "how does", "how do", "how did", "why does", "why do", "why did", "where does", "where do", "where did",
    "when does", "when do", "when did", "who does", "who do", "how many", "how much", "how is", "how are",
    "explain", "describe", "define", "is", "are", "does", "do", "did"};
// A last word that is the verb of "what does X *mean*", "how does X *work*".
const std::set<std::string> kTrailingVerbs = {"mean", "do", "work", "contain", "return", "happen", "look", "stand"};
const std::set<std::string> kDeterminers = {"the", "a", "an", "this", "that", "these", "those", "my", "your", "our"};
// Pronouns standing for a thing named before.
const std::set<std::string> kPronouns = {"it", "they", "them", "he", "she", "him"};
const std::set<std::string> kPossessives = {"its", "their", "his"};
// "this" / "that" are pronouns at the end of the question ("how do I undo that?") or before one
// of these verbs ("what does that mean?"); elsewhere they are mostly determiners or relatives.
const std::set<std::string> kAfterDemonstrative = {"mean", "means", "work", "works"};
// "it" is no pronoun in "is it possible to ...", "is it safe to ...".
const std::set<std::string> kExpletiveAfterIt = {"possible", "necessary", "safe",  "true",      "better",
                                                 "ok",       "okay",      "worth", "required",  "important",
                                                 "likely",   "recommended", "advisable", "wise", "normal"};
const std::vector<std::string> kConnectives = {"and then", "and", "also", "so", "then", "but", "ok", "okay", "now"};
const std::vector<std::string> kElliptical = {"what about", "how about", "what of", "same for", "and for"};

struct Tok {
  std::string text;  // as written, without trailing punctuation
  std::string low;
  bool clause_end = false;  // a comma, semicolon or colon followed it
};

std::vector<Tok> tokens(const std::string& s) {
  std::vector<Tok> out;
  std::string cur;
  auto flush = [&] {
    bool clause_end = false;
    while (!cur.empty() && std::string("?!.,;:").find(cur.back()) != std::string::npos) {
      clause_end = clause_end || std::string(",;:").find(cur.back()) != std::string::npos;
      cur.pop_back();
    }
    if (!cur.empty()) out.push_back({cur, lower_ascii(cur), clause_end});
    cur.clear();
  };
  for (char c : s) {
    if (std::isspace(static_cast<unsigned char>(c))) flush();
    else cur += c;
  }
  flush();
  return out;
}

std::string join(const std::vector<Tok>& t, size_t from = 0, size_t to = std::string::npos) {
  std::string out;
  for (size_t i = from; i < std::min(to, t.size()); ++i) out += (out.empty() ? "" : " ") + t[i].text;
  return out;
}

// Length in words of `phrase` when the tokens start with it at `at` (0: they do not).
size_t starts_with(const std::vector<Tok>& t, size_t at, const std::string& phrase) {
  std::vector<Tok> p = tokens(phrase);
  if (at + p.size() > t.size()) return 0;
  for (size_t i = 0; i < p.size(); ++i)
    if (t[at + i].low != p[i].low) return 0;
  return p.size();
}

size_t opener(const std::vector<Tok>& t, const std::vector<std::string>& list, size_t at = 0) {
  for (const auto& p : list)
    if (size_t n = starts_with(t, at, p)) return n;
  return 0;
}

bool demonstrative_pronoun(const std::vector<Tok>& t, size_t i) {
  if (i == 0 || (t[i].low != "this" && t[i].low != "that")) return false;
  return i + 1 == t.size() || kAfterDemonstrative.count(t[i + 1].low) > 0;
}

// Whether a noun phrase before word i of the same question may be what the pronoun there stands
// for: an article before it ("delete a branch and its history"), or, for "they", "them" and
// "their", a plural-looking content word ("how do users change their password").
bool antecedent_before(const std::vector<Tok>& t, size_t i) {
  const bool plural = t[i].low == "they" || t[i].low == "them" || t[i].low == "their";
  for (size_t j = 0; j < i; ++j) {
    if (t[j].low == "a" || t[j].low == "an" || t[j].low == "the") return true;
    if (plural && t[j].low.size() > 3 && t[j].low.back() == 's' && !is_stopword(t[j].low)) return true;
  }
  return false;
}

// A pronoun (or possessive) standing for something named in an earlier turn.
bool pronoun(const std::vector<Tok>& t, size_t i) {
  if (t[i].low == "it" && i + 1 < t.size() && kExpletiveAfterIt.count(t[i + 1].low)) return false;
  const bool is = kPronouns.count(t[i].low) > 0 || kPossessives.count(t[i].low) > 0 || t[i].low == "it's" ||
                  demonstrative_pronoun(t, i);
  return is && !antecedent_before(t, i);
}

std::string question_mark(std::string s) {
  s = collapse_ws(s);
  while (!s.empty() && std::string("?.!").find(s.back()) != std::string::npos) s.pop_back();
  if (s.empty()) return s;
  s[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(s[0])));
  return s + "?";
}

// The topic without its determiner, possessive-ready: "the GPG key" -> "GPG key".
std::string bare(const std::string& topic) {
  std::vector<Tok> t = tokens(topic);
  size_t i = 0;
  while (i < t.size() && kDeterminers.count(t[i].low)) ++i;
  return join(t, i);
}

// Replaces the pronouns of `t` by `topic`; returns how many were replaced.
int substitute(std::vector<Tok>& t, const std::string& topic) {
  int n = 0;
  const std::string b = bare(topic);
  for (size_t i = 0; i < t.size(); ++i) {
    std::string& w = t[i].text;
    if (!pronoun(t, i)) continue;
    if (kPossessives.count(t[i].low)) w = b + "'s";
    else if (t[i].low == "it's") w = topic + " is";
    else w = topic;
    ++n;
  }
  return n;
}

}  // namespace

std::string question_topic(const std::string& question) {
  std::vector<Tok> t = tokens(question);
  size_t from = 0;
  if (size_t n = opener(t, kVerbOpeners)) from = std::min(t.size(), n + 1);
  else from = opener(t, kTopicOpeners);
  size_t to = t.size();
  // "where do quokkas *live*", "how does attention *work*": after do/does/did, a short rest
  // ends with its verb.
  const std::string& aux = from > 0 ? t[from - 1].low : std::string();
  const bool after_do = aux == "do" || aux == "does" || aux == "did";
  if (from > 0 && to - from > 1 && (kTrailingVerbs.count(t[to - 1].low) || (after_do && to - from <= 4))) --to;
  if (to - from > 1 && t[to - 1].low == "for" && t[to - 2].low == "stand") to -= 2;
  for (size_t i = from; i < to; ++i)  // the first clause only
    if (t[i].low == "if" || t[i].low == "when" || t[i].low == "so" || t[i].clause_end) {
      to = i + (t[i].clause_end && t[i].low != "if" && t[i].low != "when" && t[i].low != "so");
      break;
    }
  // "this", "my": the topic keeps an article only ("a GPG key" reads well in its place).
  while (from < to && kDeterminers.count(t[from].low) && t[from].low != "a" && t[from].low != "an" && t[from].low != "the")
    ++from;
  if (to - from > 8) to = from + 8;
  return join(t, from, to);
}

bool is_follow_up(const std::string& question) {
  std::vector<Tok> t = tokens(question);
  if (t.empty()) return false;
  if (opener(t, kElliptical) || opener(t, kConnectives)) return true;
  for (size_t i = 0; i < t.size(); ++i)
    if (pronoun(t, i)) return true;
  return false;
}

Rewrite rewrite_with_rules(const std::string& question, const std::string& previous, const std::string& topic) {
  Rewrite r;
  r.asked = question;
  r.question = question;
  r.previous = previous;
  r.method = "none";
  if (previous.empty() || !is_follow_up(question)) return r;
  r.topic = topic.empty() ? question_topic(previous) : topic;
  if (r.topic.empty()) return r;
  std::vector<Tok> t = tokens(question);
  size_t at = 0;
  for (size_t n; (n = opener(t, kConnectives, at)) && !opener(t, kElliptical, at);) at += n;
  std::vector<Tok> rest(t.begin() + static_cast<long>(at), t.end());
  const size_t ell = opener(rest, kElliptical);
  std::vector<Tok> y(rest.begin() + static_cast<long>(ell), rest.end());
  const bool asks = opener(y, kVerbOpeners) || opener(y, kTopicOpeners) ||
                    (!y.empty() && (y[0].low == "which" || y[0].low == "who" || y[0].low == "where" ||
                                    y[0].low == "when" || y[0].low == "why" || y[0].low == "how" || y[0].low == "what"));
  const int replaced = substitute(y, r.topic);
  std::string out;
  if (asks) {
    out = join(y);  // a question of its own: "and how do I renew it?"
  } else if (y.empty()) {
    out = previous;
  } else if (replaced > 0 || ell == 0) {
    // "what about its default?", "and the default?": what is that, of the topic.
    out = "what is " + join(y) + (replaced > 0 ? "" : " of " + r.topic);
  } else {
    // "what about an SSH key?": the previous question, about this instead.
    std::string low = lower_ascii(previous), topic = lower_ascii(r.topic);
    size_t pos = low.find(topic);
    out = pos == std::string::npos ? join(y) + ": " + previous
                                   : previous.substr(0, pos) + join(y) + previous.substr(pos + topic.size());
  }
  r.question = question_mark(out);
  r.method = "rules";
  return r;
}

namespace {

// A model's rewrite is used only when it reads as a standalone question about the same things:
// not empty or long, no pronoun left, and it shares a content word with the follow-up (when the
// follow-up has one) and with the previous question.
std::string check_model_rewrite(const std::string& q, const std::string& asked, const std::string& previous) {
  if (q.empty()) return "the model wrote no question";
  if (q.size() > 2 * (asked.size() + previous.size()) + 40) return "the model's question is too long";
  for (const Tok& w : tokens(q))
    if (kPronouns.count(w.low) || kPossessives.count(w.low)) return "the model's question still says \"" + w.text + "\"";
  auto shares = [](const std::string& a, const std::string& b) {
    std::vector<std::string> x = content_stems(a), y = content_stems(b);
    if (y.empty()) return true;
    return std::any_of(x.begin(), x.end(), [&](const std::string& s) { return std::count(y.begin(), y.end(), s) > 0; });
  };
  if (!shares(q, asked)) return "the model's question drops the follow-up's words";
  if (!shares(q, previous)) return "the model's question drops the earlier question's topic";
  return "";
}

std::string model_rewrite(ChatModel& model, const std::string& question, const std::vector<ChatTurn>& history,
                          const std::string& previous, std::string& fallback) {
  std::string convo;
  size_t from = history.size() > 4 ? history.size() - 4 : 0;
  for (size_t i = from; i < history.size(); ++i) {
    const ChatTurn& h = history[i];
    if (h.role != "user" && h.role != "assistant") continue;
    convo += (h.role == "user" ? "User: " : "Assistant: ") + std::string(utf8_prefix(collapse_ws(h.text), 400)) + "\n";
  }
  const ChatRequest req = json_request(
      "standalone_question",
      {{"type", "object"}, {"properties", {{"question", {{"type", "string"}}}}}, {"required", {"question"}}},
      "Rewrite the user's last question so that it can be understood without the conversation: replace pronouns "
      "and omitted words with what they refer to. Keep its meaning; do not answer it. Answer with JSON only.",
      "Conversation:\n" + convo + "\nLast question: " + question, 80);
  try {
    ChatResponse r = model.chat(req);
    std::string q;
    if (r.json.is_object() && r.json.contains("question") && r.json["question"].is_string())
      q = collapse_ws(r.json["question"].get<std::string>());
    fallback = check_model_rewrite(q, question, previous);
    return fallback.empty() ? question_mark(q) : "";
  } catch (const LlmError& e) {
    // The model answered, but not with usable JSON (a small model may not): the rules go on.
    fallback = std::string("the model's answer was not usable: ") + e.what();
    return "";
  } catch (const Cancelled&) {
    throw;  // the caller stopped the ask: not a model failure
  } catch (const std::exception& e) {
    fallback = std::string("model call failed: ") + e.what();
    return "";
  }
}

}  // namespace

Rewrite rewrite_follow_up(const std::string& question, const std::vector<ChatTurn>& history, ChatModel* model) {
  std::string previous, topic;
  for (const ChatTurn& h : history) {
    const std::string text = collapse_ws(h.text);
    if (h.role != "user" || text.empty()) continue;
    Rewrite turn = rewrite_with_rules(text, previous, topic);
    previous = turn.question;
    topic = turn.method == "rules" ? turn.topic : question_topic(previous);
  }
  Rewrite r = rewrite_with_rules(question, previous, topic);
  if (!model || previous.empty() || !is_follow_up(question)) return r;
  std::string fallback;
  std::string q = model_rewrite(*model, question, history, previous, fallback);
  if (q.empty()) {
    r.fallback = fallback;
    return r;
  }
  r.question = q;
  r.method = "llm";
  return r;
}

}  // namespace mmkg
