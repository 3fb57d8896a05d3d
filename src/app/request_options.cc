#include "app/request_options.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "core/error.h"

namespace mmkg {

using nlohmann::json;

namespace {

constexpr unsigned kAskDoors = kDoorCli | kDoorEval | kDoorHttp | kDoorMcp | kDoorServe;

std::string range_text(const OptionSpec& o) {
  auto num = [&](double v) {
    if (o.type == OptionType::Integer) return std::to_string(static_cast<long long>(v));
    char b[32];
    std::snprintf(b, sizeof b, "%g", v);
    return std::string(b);
  };
  return num(o.min) + " to " + num(o.max);
}

std::string joined(const std::vector<std::string>& v, const std::string& last) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i == 0 ? "" : i + 1 == v.size() ? " " + last + " " : ", ") + v[i];
  return s;
}

/// What the option takes, for errors: "an integer from 1 to 5", "one of bm25, dense or hybrid".
std::string takes(const OptionSpec& o) {
  switch (o.type) {
    case OptionType::Integer: return "an integer from " + range_text(o);
    case OptionType::Number: return "a number from " + range_text(o);
    case OptionType::Boolean: return "true or false";
    case OptionType::Choice: return "one of " + joined(o.choices, "or");
    case OptionType::Text: return "text";
  }
  return "";
}

[[noreturn]] void bad(const OptionSpec& o, Door door, const std::string& got) {
  throw UsageError(o.spelled(door) + " must be " + takes(o) + ", not " + got);
}

// The whole of `t` read as a number by `read` (std::stoll, std::stod, which skip leading space);
// nullopt when it is empty, out of range or has anything after the number.
template <class T, class Read>
std::optional<T> whole_number(const std::string& t, Read read) {
  size_t used = 0;
  try {
    const T v = read(t, &used);
    if (used > 0 && used == t.size()) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

template <class Request>
json table_default(const RequestOption<Request>& o) {
  return o.get(Request{});
}

template <class Request>
std::vector<RequestOption<Request>> with_fallbacks(std::vector<RequestOption<Request>> table) {
  for (auto& o : table) o.spec.fallback = table_default(o);
  return table;
}

template <class Request>
void apply_table(const std::vector<RequestOption<Request>>& table, const json& given, Request& r, Door door) {
  if (given.is_null()) return;
  if (!given.is_object()) throw UsageError("the options must be an object of name: value");
  for (const auto& [name, value] : given.items()) {
    auto it = std::find_if(table.begin(), table.end(), [&](const auto& o) { return o.spec.name == name && o.spec.at(door); });
    if (it == table.end()) {
      std::vector<std::string> names;
      for (const auto& o : table)
        if (o.spec.at(door)) names.push_back(o.spec.spelled(door));
      throw UsageError("option " + name + " is not known here; the options are " + joined(names, "and"));
    }
    it->spec.check(value, door);
    try {
      it->set(r, value);
    } catch (const UsageError& e) {
      throw UsageError(it->spec.spelled(door) + ": " + e.what());
    }
  }
}

template <class Request>
std::vector<OptionSpec> specs_at(const std::vector<RequestOption<Request>>& table, Door door) {
  std::vector<OptionSpec> out;
  for (const auto& o : table)
    if (o.spec.at(door)) out.push_back(o.spec);
  return out;
}

OptionSpec integer(std::string name, double lo, double hi, std::string help, unsigned doors) {
  return {std::move(name), OptionType::Integer, lo, hi, {}, std::move(help), doors, nullptr};
}
OptionSpec number(std::string name, double lo, double hi, std::string help, unsigned doors) {
  return {std::move(name), OptionType::Number, lo, hi, {}, std::move(help), doors, nullptr};
}
OptionSpec boolean(std::string name, std::string help, unsigned doors) {
  return {std::move(name), OptionType::Boolean, 0, 0, {}, std::move(help), doors, nullptr};
}
OptionSpec choice(std::string name, std::vector<std::string> choices, std::string help, unsigned doors) {
  return {std::move(name), OptionType::Choice, 0, 0, std::move(choices), std::move(help), doors, nullptr};
}
OptionSpec text(std::string name, std::string help, unsigned doors) {
  return {std::move(name), OptionType::Text, 0, 0, {}, std::move(help), doors, nullptr};
}

const std::vector<std::string> kModes = {"bm25", "dense", "hybrid"};

}  // namespace

std::string OptionSpec::flag() const {
  if (name.size() == 1) return "-" + name;
  std::string f = "--" + name;
  std::replace(f.begin(), f.end(), '_', '-');
  return f;
}

std::string OptionSpec::spelled(Door door) const { return door == kDoorCli || door == kDoorEval || door == kDoorServe ? flag() : name; }

json OptionSpec::schema() const {
  json s;
  switch (type) {
    case OptionType::Integer:
      s = {{"type", "integer"}, {"minimum", static_cast<long long>(min)}, {"maximum", static_cast<long long>(max)}};
      break;
    case OptionType::Number: s = {{"type", "number"}, {"minimum", min}, {"maximum", max}}; break;
    case OptionType::Boolean: s = {{"type", "boolean"}}; break;
    case OptionType::Choice: s = {{"type", "string"}, {"enum", choices}}; break;
    case OptionType::Text: s = {{"type", "string"}, {"minLength", 1}}; break;
  }
  s["default"] = fallback;
  s["description"] = help;
  return s;
}

json OptionSpec::parse_text(const std::string& t, Door door) const {
  json v;
  switch (type) {
    case OptionType::Integer: {
      const auto n = whole_number<long long>(t, [](const std::string& x, size_t* used) { return std::stoll(x, used); });
      if (!n) bad(*this, door, "\"" + t + "\"");
      v = *n;
      break;
    }
    case OptionType::Number: {
      const auto d = whole_number<double>(t, [](const std::string& x, size_t* used) { return std::stod(x, used); });
      if (!d) bad(*this, door, "\"" + t + "\"");
      v = *d;
      break;
    }
    case OptionType::Boolean:
      if (t == "true" || t == "on" || t == "yes" || t == "1") v = true;
      else if (t == "false" || t == "off" || t == "no" || t == "0") v = false;
      else bad(*this, door, "\"" + t + "\"");
      break;
    case OptionType::Choice:
    case OptionType::Text: v = t; break;
  }
  check(v, door);
  return v;
}

void OptionSpec::check(const json& v, Door door) const {
  switch (type) {
    case OptionType::Integer:
      if (!v.is_number_integer()) bad(*this, door, v.dump());
      if (v.get<double>() < min || v.get<double>() > max) bad(*this, door, v.dump());
      return;
    case OptionType::Number:
      if (!v.is_number() || !std::isfinite(v.get<double>())) bad(*this, door, v.dump());
      if (v.get<double>() < min || v.get<double>() > max) bad(*this, door, v.dump());
      return;
    case OptionType::Boolean:
      if (!v.is_boolean()) bad(*this, door, v.dump());
      return;
    case OptionType::Choice:
      if (!v.is_string() || std::find(choices.begin(), choices.end(), v.get<std::string>()) == choices.end())
        bad(*this, door, v.dump());
      return;
    case OptionType::Text:
      if (!v.is_string() || v.get<std::string>().empty()) bad(*this, door, v.dump());
      return;
  }
}

const std::vector<RequestOption<SearchRequest>>& search_options() {
  constexpr unsigned doors = kDoorCli | kDoorHttp | kDoorMcp;
  static const auto table = with_fallbacks<SearchRequest>({
      {integer("k", 1, 1000, "number of results", doors), [](const SearchRequest& r) -> json { return r.k; },
       [](SearchRequest& r, const json& v) { r.k = v.get<int>(); }},
      {choice("mode", kModes, "bm25 (words), dense (embeddings) or hybrid (the fusion of both)", doors),
       [](const SearchRequest& r) -> json { return search_mode_name(r.mode); },
       [](SearchRequest& r, const json& v) { r.mode = parse_search_mode(v.get<std::string>()); }},
  });
  return table;
}

const std::vector<RequestOption<AskRequest>>& ask_options() {
  using R = AskRequest;
  constexpr unsigned all = kAskDoors;
  constexpr unsigned per_question = kAskDoors & ~kDoorEval;  // eval has its own -k and --mode
  static const auto table = with_fallbacks<R>({
      {integer("k", 1, 100, "chunks retrieved per sub-query (at least half the context's passages)", per_question),
       [](const R& r) -> json { return r.options.retrieve.k_per_query; },
       [](R& r, const json& v) { r.options.retrieve.k_per_query = v.get<int>(); }},
      {choice("mode", kModes, "retrieval per sub-query: bm25, dense or hybrid", per_question),
       [](const R& r) -> json { return search_mode_name(r.options.retrieve.mode); },
       [](R& r, const json& v) { r.options.retrieve.mode = parse_search_mode(v.get<std::string>()); }},
      {integer("context_tokens", 0, 100000,
               "token budget of the context the answer is written from (0: no limit but the passage cap; at least "
               "50 otherwise; with a model and neither given, fitted to the model: up to 6000 tokens and 32 passages)",
               all),
       [](const R& r) -> json { return r.options.retrieve.max_context_tokens; },
       [](R& r, const json& v) {
         const auto t = v.get<size_t>();
         if (t > 0 && t < 50)
           throw UsageError(std::to_string(t) + " tokens leave no room for a passage; give at least 50 (1500 is the default), or 0 for no limit");
         r.options.retrieve.max_context_tokens = t;
       }},
      {integer("context_chunks", 1, 64, "most passages in the context (each sub-query then retrieves at least half as many)",
               all),
       [](const R& r) -> json { return r.options.retrieve.max_chunks; },
       [](R& r, const json& v) { r.options.retrieve.max_chunks = v.get<size_t>(); }},
      {text("rerank",
            "reranker of the retrieved chunks: none, lexical, embed (sentence vectors), llm (needs a model), or "
            "several joined by '+'",
            all),
       [](const R& r) -> json { return r.rerank.text(); },
       [](R& r, const json& v) { r.rerank = RerankSpec::parse(v.get<std::string>()); }},
      {integer("rerank_top", 2, 200, "candidates the reranker sees", all),
       [](const R& r) -> json { return r.options.retrieve.rerank_top_n; },
       [](R& r, const json& v) { r.options.retrieve.rerank_top_n = v.get<size_t>(); }},
      {number("rerank_weight", 0, 1, "share of the reranker's order in the blend with the fused order (1: its order alone)",
              all),
       [](const R& r) -> json { return r.options.retrieve.rerank_weight; },
       [](R& r, const json& v) { r.options.retrieve.rerank_weight = v.get<double>(); }},
      {integer("max_rounds", 1, 5, "orchestrator rounds: follow-up rounds search for what the verifier found missing", all),
       [](const R& r) -> json { return r.options.max_rounds; },
       [](R& r, const json& v) { r.options.max_rounds = v.get<int>(); }},
      {choice("judge", {"none", "borderline", "all"},
              "LLM judge in the verifier (with a model): none, borderline (sentences the word-overlap check cannot "
              "settle) or all (may veto supported sentences)",
              all),
       [](const R& r) -> json { return judge_scope_name(r.options.judge); },
       [](R& r, const json& v) { r.options.judge = parse_judge_scope(v.get<std::string>()); }},
      {boolean("graph_lists",
               "fuse the knowledge graph's chunk lists (PPR, relation evidence, bridge hops) into retrieval; false: "
               "the graph only links entities and gives facts",
               all),
       [](const R& r) -> json { return r.options.graph_lists; },
       [](R& r, const json& v) { r.options.graph_lists = v.get<bool>(); }},
      {boolean("direct",
               "open a factoid answer (a date, place, name, one of two options, yes/no) with the direct answer read "
               "off the passages, walking the question's relations; false: the cited sentences alone",
               all),
       [](const R& r) -> json { return r.options.synth.direct; },
       [](R& r, const json& v) { r.options.synth.direct = v.get<bool>(); }},
      {integer("parallel", 0, 64, "threads for the sub-query searches (0: one per core; 1: one after another)",
               kDoorCli | kDoorEval | kDoorServe),
       [](const R& r) -> json { return r.options.retrieve.parallel; },
       [](R& r, const json& v) { r.options.retrieve.parallel = v.get<int>(); }},
  });
  return table;
}

void apply_options(const json& given, SearchRequest& r, Door door) { apply_table(search_options(), given, r, door); }

void apply_options(const json& given, AskRequest& r, Door door) {
  apply_table(ask_options(), given, r, door);
  if (given.is_object() && (given.contains("context_tokens") || given.contains("context_chunks"))) r.fit_context = false;
}

json options_in(json fields, std::initializer_list<const char*> own) {
  if (fields.is_object())
    for (const char* f : own) fields.erase(f);
  return fields;
}

std::vector<OptionSpec> door_options(const std::vector<RequestOption<SearchRequest>>& t, Door d) { return specs_at(t, d); }
std::vector<OptionSpec> door_options(const std::vector<RequestOption<AskRequest>>& t, Door d) { return specs_at(t, d); }

}  // namespace mmkg
