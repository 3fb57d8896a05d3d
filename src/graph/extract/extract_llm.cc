// The LLM extractor; see extract_llm.h for what is kept and when the rules take over.
#include "graph/extract/extract_llm.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "core/hash.h"
#include "graph/extract/rules.h"
#include "text/words.h"
#include "graph/model/graph_types.h"
#include "graph/extract/terms.h"
#include "text/sentences.h"
#include "llm/chat_model.h"
#include "net/http.h"

namespace mmkg::graph {
namespace {

using json = nlohmann::json;

// Bump when the grounding or output format changes in a way the prompt hash does not see.
constexpr const char* kFormat = "llm-v1";

const char* kSystemPrompt =
    "You extract a knowledge graph from one passage of a document.\n"
    "List the important entities the passage names (technical terms, methods, models, datasets, "
    "metrics, tasks, people, organizations, artifacts) and the relations the passage states "
    "between them.\n"
    "Rules:\n"
    "- Copy each entity name exactly as it is written in the passage.\n"
    "- Entity type: one of concept, method, model, dataset, metric, task, person, organization, "
    "artifact, other.\n"
    "- Entity description: a few words, from the passage, saying what the entity is.\n"
    "- A relation links two entities of your list: source and target are their names. Relation "
    "type: one of uses, part_of, is_a, extends, proposes, compared_with, evaluated_on, related_to. "
    "Relation description: a few words stating the relation as the passage says it.\n"
    "- Use only what the passage says, no outside knowledge.\n"
    "Answer with JSON only: {\"entities\": [{\"name\", \"type\", \"description\"}], "
    "\"relations\": [{\"source\", \"target\", \"type\", \"description\"}]}.";

const char* kGleanPrompt =
    "Some entities or relations of the passage were missed. List only the new ones, not those "
    "above, in the same JSON format. If nothing was missed, answer {\"entities\": [], "
    "\"relations\": []}.";

// Answer limits (the schema's maxLength; small models fill whatever room they are given, so
// these bound an answer to about 8 * 60 + 8 * 80 tokens, within LlmExtractOptions::max_tokens).
constexpr int kMaxNameChars = 60;
constexpr int kMaxDescriptionChars = 100;
constexpr size_t kMaxNameBytes = 100;  // a longer name (from a lenient server) is not an entity
constexpr size_t kMaxNameWords = 8;
constexpr size_t kMaxDescriptionBytes = 300;

// Ordered: the model writes a name before its type and description (see ResponseSchema).
nlohmann::ordered_json make_schema(const LlmExtractOptions& o) {
  using ojson = nlohmann::ordered_json;
  auto str = [](int max_len) { return ojson{{"type", "string"}, {"maxLength", max_len}}; };
  const int name = kMaxNameChars, desc = kMaxDescriptionChars;
  ojson entity = {{"type", "object"},
                 {"properties",
                  {{"name", str(name)},
                   {"type", {{"type", "string"}, {"enum", llm_entity_types()}}},
                   {"description", str(desc)}}},
                 {"required", {"name", "type", "description"}},
                 {"additionalProperties", false}};
  ojson relation = {{"type", "object"},
                   {"properties",
                    {{"source", str(name)},
                     {"target", str(name)},
                     {"type", {{"type", "string"}, {"enum", llm_relation_types()}}},
                     {"description", str(desc)}}},
                   {"required", {"source", "target", "type", "description"}},
                   {"additionalProperties", false}};
  return {{"type", "object"},
          {"properties",
           {{"entities", {{"type", "array"}, {"items", entity}, {"maxItems", o.max_entities}}},
            {"relations", {{"type", "array"}, {"items", relation}, {"maxItems", o.max_relations}}}}},
          {"required", {"entities", "relations"}},
          {"additionalProperties", false}};
}

std::string clean(std::string s, size_t max_bytes) {
  s = collapse_ws(s);
  if (s.size() > max_bytes) s = std::string(utf8_prefix(s, max_bytes));
  return s;
}

std::string normalise_type(std::string t, const std::vector<std::string>& allowed, const char* otherwise) {
  t = lower_ascii(collapse_ws(t));
  for (char& c : t)
    if (c == ' ' || c == '-') c = '_';
  if (t == "organisation") t = "organization";
  if (t == "is_an") t = "is_a";
  if (t == "use" || t == "used_by") t = "uses";
  if (t == "compared_to" || t == "compares") t = "compared_with";
  for (const auto& a : allowed)
    if (a == t) return t;
  return otherwise;
}

// ---- the model's answer, before grounding

struct RawEntity {
  std::string name, type, description;
};
struct RawRelation {
  std::string source, target, type, description;
};
struct RawAnswer {
  bool usable = false;  // a JSON object with an "entities" list
  std::vector<RawEntity> entities;
  std::vector<RawRelation> relations;
};

std::string field(const json& o, std::initializer_list<const char*> keys) {
  for (const char* k : keys)
    if (o.contains(k) && o[k].is_string()) return o[k].get<std::string>();
  return {};
}

RawAnswer read_answer(const json& j) {
  RawAnswer a;
  if (!j.is_object() || !j.contains("entities") || !j["entities"].is_array()) return a;
  a.usable = true;
  for (const auto& e : j["entities"]) {
    if (e.is_string()) a.entities.push_back({e.get<std::string>(), "", ""});
    else if (e.is_object())
      a.entities.push_back({field(e, {"name", "entity"}), field(e, {"type", "entity_type"}),
                            field(e, {"description", "desc"})});
  }
  if (j.contains("relations") && j["relations"].is_array()) {
    for (const auto& r : j["relations"]) {
      if (!r.is_object()) continue;
      a.relations.push_back({field(r, {"source", "src", "head", "from"}), field(r, {"target", "dst", "tail", "to"}),
                             field(r, {"type", "relation", "predicate"}), field(r, {"description", "desc"})});
    }
  }
  return a;
}

// ---- grounding in the chunk text

struct Word {
  size_t b = 0, e = 0;
  std::string key;  // name_key of the lower-cased word: accents folded, singular
};

// Runs of ASCII letters and digits and of non-ASCII bytes, as words() splits them, with offsets.
std::vector<Word> split_words(std::string_view s) {
  std::vector<Word> out;
  auto is_word = [](unsigned char c) { return std::isalnum(c) || c >= 0x80; };
  for (size_t i = 0; i < s.size();) {
    if (!is_word(static_cast<unsigned char>(s[i]))) {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < s.size() && is_word(static_cast<unsigned char>(s[j]))) ++j;
    out.push_back({i, j, name_key(lower_ascii(s.substr(i, j - i)))});
    i = j;
  }
  return out;
}

// Sentences for evidence: ICU sentences, also cut at blank lines and before markdown headings
// (a heading line is not part of the sentence after it).
std::vector<std::pair<size_t, size_t>> evidence_sentences(const std::string& text) {
  std::vector<std::pair<size_t, size_t>> out;
  auto push = [&](size_t b, size_t e) {
    while (b < e && std::isspace(static_cast<unsigned char>(text[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1]))) --e;
    if (e > b) out.emplace_back(b, e);
  };
  for (auto [b, e] : split_sentences(text)) {
    size_t start = b;
    for (size_t p = b; p + 1 < e; ++p) {
      if (text[p] == '\n' && (text[p + 1] == '\n' || text[p + 1] == '#')) {
        push(start, p);
        start = p + 1;
      }
    }
    push(start, e);
  }
  return out;
}

struct Grounded {
  std::string surface;  // the chunk's own spelling of the first occurrence
  std::vector<std::pair<size_t, size_t>> at;  // byte ranges of the occurrences
  std::string type, description;
};

class Grounder {
 public:
  // Words inside markup (link targets, URLs, LaTeX: rules::mask_markup) do not count.
  explicit Grounder(const std::string& text)
      : text_(text), masked_(rules::mask_markup(text)), words_(split_words(masked_)) {}

  /// The key of a name (its words' keys, leading articles dropped), empty when the name cannot
  /// be an entity (too long, only stop words or numbers).
  std::string key(const std::string& name, std::vector<std::string>* parts = nullptr) const {
    if (name.empty() || name.size() > kMaxNameBytes) return {};
    std::vector<Word> w = split_words(name);
    while (!w.empty() && (w.front().key == "the" || w.front().key == "a" || w.front().key == "an"))
      w.erase(w.begin());
    if (w.empty() || w.size() > kMaxNameWords) return {};
    bool content = false;
    for (const Word& x : w) {
      const std::string lw = lower_ascii(name.substr(x.b, x.e - x.b));
      if (!is_stopword(lw) && lw.find_first_not_of("0123456789") != std::string::npos) content = true;
    }
    if (!content) return {};
    std::string k;
    for (const Word& x : w) {
      if (parts) parts->push_back(x.key);
      k += (k.empty() ? "" : " ") + x.key;
    }
    return k;
  }

  /// Finds the name in the text; false when it does not occur (a hallucinated entity).
  bool find(const std::string& name, std::string& k, Grounded& g) const {
    std::vector<std::string> parts;
    k = key(name, &parts);
    if (k.empty()) return false;
    const size_t n = parts.size();
    for (size_t i = 0; i + n <= words_.size(); ++i) {
      size_t m = 0;
      while (m < n && words_[i + m].key == parts[m]) ++m;
      if (m < n) continue;
      const size_t b = words_[i].b, e = words_[i + n - 1].e;
      if (g.at.empty()) {
        // The text's own spelling, unless markup runs through it ("**Sparse attention** patterns"):
        // then its words joined by spaces.
        if (text_.compare(b, e - b, masked_, b, e - b) == 0) {
          g.surface = text_.substr(b, e - b);
        } else {
          for (size_t m = 0; m < n; ++m)
            g.surface += (m ? " " : "") + text_.substr(words_[i + m].b, words_[i + m].e - words_[i + m].b);
        }
      }
      g.at.emplace_back(b, e);
      i += n - 1;
    }
    return !g.at.empty();
  }

 private:
  const std::string& text_;
  const std::string masked_;  // same length as text_
  std::vector<Word> words_;
};

bool inside(const std::vector<std::pair<size_t, size_t>>& at, std::pair<size_t, size_t> s) {
  for (auto [b, e] : at)
    if (b >= s.first && e <= s.second) return true;
  return false;
}

// The answer of both passes, grounded: terms and relations as the builder expects them.
ChunkExtraction ground(const ExtractInput& in, const RawAnswer& a, const LlmExtractOptions& o) {
  ChunkExtraction out;
  out.chunk_id = in.chunk_id;
  Grounder gr(in.text);
  std::vector<std::string> order;  // keys in first-seen order
  std::unordered_map<std::string, Grounded> kept;
  auto add = [&](const std::string& name, const std::string& type, const std::string& desc) -> std::string {
    std::string k;
    Grounded g;
    if (!gr.find(name, k, g)) return {};
    auto it = kept.find(k);
    if (it == kept.end()) {
      if (order.size() >= static_cast<size_t>(o.max_entities)) return {};
      g.type = type;
      g.description = desc;
      order.push_back(k);
      it = kept.emplace(k, std::move(g)).first;
    } else {
      if (it->second.type.empty()) it->second.type = type;
      if (it->second.description.empty()) it->second.description = desc;
    }
    return k;
  };
  for (const RawEntity& e : a.entities)
    add(clean(e.name, kMaxNameBytes * 2), normalise_type(e.type, llm_entity_types(), "other"),
        clean(e.description, kMaxDescriptionBytes));

  const auto sentences = evidence_sentences(in.text);
  std::map<std::tuple<std::string, std::string, std::string>, bool> seen;
  for (const RawRelation& r : a.relations) {
    if (out.relations.size() >= static_cast<size_t>(o.max_relations)) break;
    // An end the model did not list is grounded like an entity (untyped).
    const std::string s = add(clean(r.source, kMaxNameBytes * 2), "", "");
    const std::string d = add(clean(r.target, kMaxNameBytes * 2), "", "");
    if (s.empty() || d.empty() || s == d) continue;
    const std::string type = normalise_type(r.type, llm_relation_types(), "related_to");
    if (!seen.emplace(std::make_tuple(s, d, type), true).second) continue;
    const Grounded& gs = kept.at(s);
    const Grounded& gd = kept.at(d);
    const std::pair<size_t, size_t>* best = nullptr;
    for (const auto& sen : sentences)
      if (inside(gs.at, sen) && inside(gd.at, sen)) {
        best = &sen;
        break;
      }
    if (!best)
      for (const auto& sen : sentences)
        if (inside(gs.at, sen) || inside(gd.at, sen)) {
          best = &sen;
          break;
        }
    if (!best) continue;  // an occurrence across a sentence boundary only
    RelationCandidate rc;
    rc.src = gs.surface;
    rc.dst = gd.surface;
    rc.type = type;
    rc.sentence = in.text.substr(best->first, best->second - best->first);
    rc.description = clean(r.description, kMaxDescriptionBytes);
    out.relations.push_back(std::move(rc));
  }
  for (const std::string& k : order) {
    const Grounded& g = kept.at(k);
    TermCandidate t;
    t.surface = g.surface;
    t.kind = "llm";
    t.type = g.type;
    t.definition = g.description;
    t.count = static_cast<int>(g.at.size());
    out.terms.push_back(std::move(t));
  }
  return out;
}

// ---- the extractor

class LlmExtractor final : public Extractor {
 public:
  LlmExtractor(ChatModel& chat, LlmExtractOptions o)
      : chat_(chat), o_(std::move(o)), schema_(make_schema(o_)), rules_(make_rule_extractor()) {
    std::string model = o_.model.empty() ? chat_.id() : o_.model;
    id_ = std::string(kFormat) + ":" + model + ":" + llm_extract_prompt_version(o_);
    requests_at_start_ = chat_.total_usage().requests;
  }

  std::string id() const override { return id_; }
  int parallelism() const override { return std::max(1, o_.parallelism); }

  ExtractorCounters counters() const override {
    ExtractorCounters c;
    c.model_calls = calls_.load();
    c.model_requests = chat_.total_usage().requests - requests_at_start_;
    c.model_cached = cached_.load();
    c.fallbacks = fallbacks_.load();
    c.prompt_tokens = prompt_.load();
    c.completion_tokens = completion_.load();
    std::lock_guard<std::mutex> g(mu_);
    c.first_fallback = first_fallback_;
    return c;
  }

  ChunkExtraction extract(const ExtractInput& in) override {
    std::string user;
    if (!in.doc_title.empty()) user += "Document: " + in.doc_title + "\n";
    if (!in.heading_path.empty()) user += "Section: " + in.heading_path + "\n";
    user += "Passage:\n\"\"\"\n" + in.text + "\n\"\"\"";
    std::vector<Message> msgs = {Message::system(kSystemPrompt), Message::user(user)};
    ChatResponse first;
    std::string why;
    if (!ask(msgs, first, why)) return fallback(in, why);
    RawAnswer answer = read_answer(first.json);
    if (!answer.usable) return fallback(in, "the answer has no \"entities\" list");
    if (o_.gleaning) {
      msgs.push_back(Message::assistant(first.json.dump()));
      msgs.push_back(Message::user(kGleanPrompt));
      ChatResponse more;
      if (ask(msgs, more, why)) {  // an unusable gleaning answer leaves the first pass as it is
        RawAnswer extra = read_answer(more.json);
        answer.entities.insert(answer.entities.end(), extra.entities.begin(), extra.entities.end());
        answer.relations.insert(answer.relations.end(), extra.relations.begin(), extra.relations.end());
      }
    }
    ChunkExtraction out = ground(in, answer, o_);
    if (out.terms.empty()) return fallback(in, "no entity the model named occurs in the chunk");
    return out;
  }

 private:
  // One request. False (with why) for an answer that is unusable or a request the server refuses
  // for this chunk; transport failures and other errors propagate.
  bool ask(const std::vector<Message>& msgs, ChatResponse& r, std::string& why) {
    ChatRequest req;
    req.messages = msgs;
    req.temperature = 0;
    req.max_tokens = o_.max_tokens;
    req.response_schema = ResponseSchema{"knowledge_graph", schema_};
    try {
      r = chat_.chat(req);
    } catch (const LlmError& e) {
      ++calls_;
      why = e.what();
      return false;
    } catch (const HttpStatusError& e) {
      if (e.status() != 400 && e.status() != 413 && e.status() != 422) throw;
      ++calls_;
      why = e.what();
      return false;
    }
    if (r.cached) {
      ++cached_;
    } else {
      ++calls_;
      prompt_ += r.usage.prompt;
      completion_ += r.usage.completion;
    }
    return true;
  }

  ChunkExtraction fallback(const ExtractInput& in, const std::string& why) {
    ++fallbacks_;
    {
      std::lock_guard<std::mutex> g(mu_);
      if (first_fallback_.empty()) first_fallback_ = "chunk " + in.chunk_id + ": " + why;
    }
    ChunkExtraction out = rules_->extract(in);
    out.chunk_id = in.chunk_id;
    return out;
  }

  ChatModel& chat_;
  const LlmExtractOptions o_;
  const nlohmann::ordered_json schema_;
  std::unique_ptr<Extractor> rules_;
  std::string id_;
  std::atomic<long long> calls_{0}, cached_{0}, fallbacks_{0}, prompt_{0}, completion_{0};
  long long requests_at_start_ = 0;
  mutable std::mutex mu_;
  std::string first_fallback_;
};

}  // namespace

const std::vector<std::string>& llm_entity_types() {
  static const std::vector<std::string> t = {"concept", "method", "model",        "dataset",  "metric",
                                             "task",    "person", "organization", "artifact", "other"};
  return t;
}

const std::vector<std::string>& llm_relation_types() {
  static const std::vector<std::string> t = {"uses",    "part_of",       "is_a",         "extends",
                                             "proposes", "compared_with", "evaluated_on", "related_to"};
  return t;
}

std::string llm_extract_prompt_version(const LlmExtractOptions& o) {
  const std::string all = std::string(kFormat) + "\n" + kSystemPrompt + "\n" + make_schema(o).dump() + "\n" +
                          (o.gleaning ? kGleanPrompt : "no gleaning") + "\nmax_tokens=" +
                          std::to_string(o.max_tokens);
  return hash_hex(all).substr(0, 8);
}

std::unique_ptr<Extractor> make_llm_extractor(ChatModel& chat, LlmExtractOptions options) {
  return std::make_unique<LlmExtractor>(chat, std::move(options));
}

}  // namespace mmkg::graph
