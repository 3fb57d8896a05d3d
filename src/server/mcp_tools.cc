// The MCP tools: search, ask, get_chunk, get_figure, graph_entity, list_documents. Each has a JSON
// Schema for its arguments (checked here before the Session is called) and, where it returns
// structured content, one for its result; each result is the JSON of app/json.h (the CLI's
// --json) with a text rendering for the model.
#include <algorithm>
#include <fstream>
#include <sstream>

#include "app/cite.h"
#include "app/json.h"
#include "app/request_options.h"
#include "core/base64.h"
#include "core/error.h"
#include "server/context.h"
#include "server/mcp.h"

namespace mmkg::server::mcp {

using nlohmann::json;

namespace {

// ---- schemas

json str_arg(const std::string& description) { return {{"type", "string"}, {"minLength", 1}, {"description", description}}; }

json int_arg(const std::string& description, int lo, int hi, int fallback) {
  return {{"type", "integer"}, {"minimum", lo}, {"maximum", hi}, {"default", fallback}, {"description", description}};
}

/// The JSON Schemas of the options the MCP tools take, by name (app/request_options.h).
template <class Table>
json option_schemas(const Table& table) {
  json out = json::object();
  for (const OptionSpec& o : door_options(table, kDoorMcp)) out[o.name] = o.schema();
  return out;
}

json object_schema(json properties, json required) {
  return {{"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(required)},
          {"additionalProperties", false}};
}

/// An output object: its typed fields required; more may come.
json output(json properties) {
  json required = json::array();
  for (const auto& [k, v] : properties.items()) required.push_back(k);
  return {{"type", "object"}, {"properties", std::move(properties)}, {"required", std::move(required)}};
}

const json kString = {{"type", "string"}};
const json kOptString = {{"type", json::array({"string", "null"})}};
const json kOptInt = {{"type", json::array({"integer", "null"})}};
const json kArray = {{"type", "array"}};

json list_of(json item) { return {{"type", "array"}, {"items", std::move(item)}}; }

json passage_fields() {
  return {{"doc", kString}, {"doc_id", kString}, {"chunk_id", kString}, {"page", kOptInt}, {"page_end", kOptInt},
          {"kind", kString}, {"figure_id", kOptString}, {"text", kString}, {"boxes", kArray}};
}

json with(json fields, const json& more) {
  fields.update(more);
  return fields;
}

// ---- results

json text(const std::string& s) { return {{"type", "text"}, {"text", s}}; }

json ok(json content, json structured) {
  json r = {{"content", std::move(content)}, {"isError", false}};
  if (!structured.is_null()) r["structuredContent"] = std::move(structured);
  return r;
}

json tool_error(const std::string& message) { return {{"content", json::array({text(message)})}, {"isError", true}}; }


// ---- the tools

json search(Session& s, const json& a, const ToolEnv&) {
  SearchRequest r;
  r.query = a["query"].get<std::string>();
  apply_options(options_in(a, {"query"}), r, kDoorMcp);
  const SearchReport rep = s.search(r);
  std::string t = rep.hits.empty() ? "No passage matches \"" + r.query + "\"." : "";
  for (size_t i = 0; i < rep.hits.size(); ++i)
    t += std::to_string(i + 1) + ". " + location_text(location_of(rep.hits[i])) + "\n" + rep.hits[i].snippet + "\n\n";
  return ok(json::array({text(t)}), search_json(rep));
}

json ask(Session& s, const json& a, const ToolEnv& env) {
  AskRequest r;
  r.question = a["question"].get<std::string>();
  apply_options(env.ask_defaults, r, kDoorServe);
  r.options.cancel = env.cancel;
  apply_options(options_in(a, {"question"}), r, kDoorMcp);
  const AskResult res = s.ask(r);
  json j = ask_json(r.question, res);
  j.erase("trace");  // the agents' steps: for debugging, not for a model
  return ok(json::array({text(answer_with_sources(res.answer, res.citations))}), j);
}

json get_chunk(Session& s, const json& a, const ToolEnv&) {
  const ChunkReport c = s.chunk_info(a["chunk_id"].get<std::string>());
  const Chunk& k = c.chunk.chunk;
  const std::string head =
      location_text(location_of(c.chunk)) + (k.heading_path.empty() ? "" : " (" + k.heading_path + ")");
  return ok(json::array({text(head + "\n\n" + k.text)}), chunk_json(c));
}

json get_figure(Session& s, const json& a, const ToolEnv&) {
  FigureReport f = s.figure(a["figure_id"].get<std::string>());
  json j = figure_json(f.figure);
  json content = json::array();
  if (!f.image_path.empty())
    content.push_back({{"type", "image"}, {"data", figure_png_base64(f)}, {"mimeType", "image/png"}});
  std::string t = location_text(location_of(f.figure));
  if (!j["caption"].get<std::string>().empty()) t += "\ncaption: " + j["caption"].get<std::string>();
  if (!j["text"].get<std::string>().empty()) t += "\ntext in it: " + j["text"].get<std::string>();
  if (j["description"].is_string()) t += "\ndescription: " + j["description"].get<std::string>();
  if (j["table"].is_string()) t += "\n\n" + j["table"].get<std::string>();
  content.push_back(text(t));
  return ok(content, j);
}

json graph_entity(Session& s, const json& a, const ToolEnv&) {
  const EntityReport r = s.graph_entity(a["name"].get<std::string>(), true, a.value("limit", 20));
  const graph::Entity& e = r.entity;
  std::string t = e.name + " (" + e.type + ")";
  if (!e.description.empty()) t += ": " + e.description;
  if (e.aliases.size() > 1) t += "\naliases: " + json(e.aliases).dump();
  for (const auto& n : r.neighbors) {
    t += "\n- " + n.relation + (n.outgoing ? " -> " : " <- ") + n.name;
    for (const auto& x : n.evidence)
      t += "\n    \"" + x.sentence + "\" (" + location_text(location_of(x)) + ")";
  }
  return ok(json::array({text(t)}), entity_json(r, true));
}

std::string lowered(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

json list_documents(Session& s, const json& a, const ToolEnv&) {
  const json all = stats_json(s.store_stats(true))["docs"];
  const std::string part = lowered(a.value("name_contains", ""));
  const size_t offset = a.value("offset", 0), limit = a.value("limit", 100);
  json docs = json::array();
  size_t total = 0;
  for (const json& d : all) {
    if (!part.empty() && lowered(d["doc"].get<std::string>()).find(part) == std::string::npos) continue;
    if (total++ < offset || docs.size() >= limit) continue;
    docs.push_back(d);
    docs.back()["uri"] = kDocumentUri + d["id"].get<std::string>();
  }
  std::string t = total == 0 ? (part.empty() ? "The store has no documents.\n" : "No document's name contains that.\n") : "";
  for (const json& d : docs)
    t += d["doc"].get<std::string>() + " (" + d["format"].get<std::string>() + ", " + std::to_string(d["chunks"].get<int>()) +
         " chunks): " + d["uri"].get<std::string>() + "\n";
  const size_t next = offset + docs.size();
  json out = {{"documents", docs}, {"total", total}, {"next_offset", nullptr}};
  if (next < total && !docs.empty()) {
    out["next_offset"] = next;
    t += "(" + std::to_string(docs.size()) + " of " + std::to_string(total) + " documents; call again with offset " +
         std::to_string(next) + " for more)\n";
  }
  return ok(json::array({text(t)}), out);
}

struct Tool {
  json definition;
  Work work;
  json (*run)(Session&, const json& args, const ToolEnv& env);
};

const json kReadOnly = {{"readOnlyHint", true}, {"destructiveHint", false}, {"idempotentHint", true}, {"openWorldHint", false}};

json define(const std::string& name, const std::string& title, const std::string& description, json input, json out) {
  json d = {{"name", name}, {"title", title}, {"description", description}, {"inputSchema", std::move(input)},
            {"annotations", with(kReadOnly, {{"title", title}})}};
  if (!out.is_null()) d["outputSchema"] = std::move(out);
  return d;
}

std::vector<Tool> make_tools() {
  const json citation = output(with(passage_fields(), {{"n", {{"type", "integer"}}}, {"quote", kString}}));
  const json hit = output(with(passage_fields(), {{"rank", {{"type", "integer"}}}, {"score", {{"type", "number"}}}, {"snippet", kString}}));
  const json document = output({{"id", kString}, {"doc", kString}, {"path", kString}, {"format", kString}, {"uri", kString}});
  return {
      {define("search", "Search passages",
              "Passages of the documents that match a query, best first, with their document, page and chunk id.",
              object_schema(with({{"query", str_arg("what to look for")}}, option_schemas(search_options())), {"query"}),
              output({{"query", kString}, {"mode", kString}, {"results", list_of(hit)}})),
       Work::Query, search},
      {define("ask", "Ask the documents",
              "A cited answer to a question from the documents: the answer text with numbered sources; the citations "
              "(document, page, chunk id, quote) as structured content. found is false when the documents do not answer.",
              object_schema(with({{"question", str_arg("the question")}}, option_schemas(ask_options())), {"question"}),
              output({{"question", kString}, {"answer", kString}, {"found", {{"type", "boolean"}}},
                      {"citations", list_of(citation)}})),
       Work::Ask, ask},
      {define("get_chunk", "Open a chunk",
              "One passage (chunk) by its id, as search and ask cite it: its text, document, pages and page boxes.",
              object_schema({{"chunk_id", str_arg("a chunk_id from search or ask")}}, {"chunk_id"}),
              output(with(passage_fields(), {{"heading_path", kString}}))),
       Work::Light, get_chunk},
      {define("get_figure", "Open a figure",
              "A figure or table by its id (figure_id in search and ask results): its image as PNG, with its label, "
              "caption, the text read in it and a table's rows.",
              object_schema({{"figure_id", str_arg("a figure_id, or a unique prefix of one")}}, {"figure_id"}),
              output({{"id", kString}, {"doc", kString}, {"kind", kString}, {"page", kOptInt}, {"label", kOptString},
                      {"caption", kString}})),
       Work::Light, get_figure},
      {define("graph_entity", "Look up an entity",
              "What the knowledge graph knows of a name: the entity, its aliases, its related entities with the "
              "sentences that say so (evidence), and the figures that show it.",
              object_schema({{"name", str_arg("a name, alias or acronym (\"MHA\")")},
                             {"limit", int_arg("related entities at most", 1, 500, 20)}},
                            {"name"}),
              output({{"id", kString}, {"name", kString}, {"aliases", list_of(kString)}, {"type", kString},
                      {"neighbors", kArray}, {"figures", kArray}})),
       Work::Query, graph_entity},
      {define("list_documents", "List the documents",
              "The documents in the store: name, format, pages, chunks, and the URI of each one's resource; at "
              "most `limit` at a time (next_offset says where the next page starts), optionally only those whose "
              "file name contains a text.",
              object_schema({{"name_contains", str_arg("only documents whose file name contains this (any case)")},
                             {"offset", int_arg("documents to skip (next_offset of the previous call)", 0, 1000000000, 0)},
                             {"limit", int_arg("documents at most", 1, 1000, 100)}},
                            json::array()),
              output({{"documents", list_of(document)}, {"total", {{"type", "integer"}}}, {"next_offset", kOptInt}})),
       Work::Light, list_documents},
  };
}

const std::vector<Tool>& tools() {
  static const std::vector<Tool> t = make_tools();
  return t;
}

const char* type_name(const json& v) {
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "boolean";
  if (v.is_number_integer()) return "integer";
  if (v.is_number()) return "number";
  if (v.is_array()) return "array";
  if (v.is_object()) return "object";
  return "null";
}

/// Why `v` breaks the property schema `p` of argument `name`; empty when it does not.
std::string property_violation(const std::string& name, const json& p, const json& v) {
  const std::string want = p.value("type", "");
  const std::string got = type_name(v);
  const bool type_ok = want.empty() || want == got || (want == "number" && got == "integer");
  if (!type_ok) return "argument " + name + " must be of type " + want + ", not " + got;
  if (p.contains("enum") && std::find(p["enum"].begin(), p["enum"].end(), v) == p["enum"].end())
    return "argument " + name + " must be one of " + p["enum"].dump();
  if (v.is_number() && p.contains("minimum") && v.get<double>() < p["minimum"].get<double>())
    return "argument " + name + " must be at least " + p["minimum"].dump();
  if (v.is_number() && p.contains("maximum") && v.get<double>() > p["maximum"].get<double>())
    return "argument " + name + " must be at most " + p["maximum"].dump();
  if (v.is_string() && p.contains("minLength") && v.get<std::string>().size() < p["minLength"].get<size_t>())
    return "argument " + name + " must not be empty";
  return "";
}

}  // namespace

std::string figure_png_base64(const FigureReport& f) {
  std::ifstream in(f.image_path, std::ios::binary);
  if (!in) throw IOError("figure " + f.figure.figure.id + ": its image is missing from the store; ingest its document again");
  std::ostringstream ss;
  ss << in.rdbuf();
  return base64_encode(ss.str());
}

std::string schema_violation(const json& schema, const json& args) {
  if (!args.is_object()) return "the arguments must be an object";
  const json& props = schema["properties"];
  for (const auto& r : schema.value("required", json::array()))
    if (!args.contains(r.get<std::string>())) return "argument " + r.get<std::string>() + " is required";
  for (const auto& [k, v] : args.items()) {
    if (!props.contains(k)) {
      if (schema.value("additionalProperties", true)) continue;
      return "argument " + k + " is not known; the tool takes " + (props.empty() ? std::string("none") : props.dump());
    }
    std::string why = property_violation(k, props[k], v);
    if (!why.empty()) return why;
  }
  return "";
}

json tool_list() {
  json out = json::array();
  for (const Tool& t : tools()) out.push_back(t.definition);
  return out;
}

json call_tool(const SessionRunner& run, const std::string& name, const json& args, bool invalid_args_are_tool_errors,
               const ToolEnv& env) {
  auto it = std::find_if(tools().begin(), tools().end(), [&](const Tool& t) { return t.definition["name"] == name; });
  if (it == tools().end())
    throw RpcError(kInvalidParams, "unknown tool " + name + "; tools/list names the tools", {{"tool", name}});
  const std::string why = schema_violation(it->definition["inputSchema"], args);
  if (!why.empty()) {
    const std::string msg = name + ": " + why + " (see the tool's inputSchema)";
    if (invalid_args_are_tool_errors) return tool_error(msg);
    throw RpcError(kInvalidParams, msg);
  }
  try {
    json out;
    run(it->work, [&](Session& s) { out = it->run(s, args, env); });
    return out;
  } catch (const Error& e) {
    return tool_error(e.what());  // no such chunk, an ambiguous id, no graph, a busy server, ...
  } catch (const std::exception& e) {
    return tool_error(name + " failed: " + e.what());
  }
}

}  // namespace mmkg::server::mcp
