// The MCP protocol: JSON-RPC 2.0 messages, the initialize handshake, ping, and the resources
// (each document as Markdown, each figure as PNG). The tools are in mcp_tools.cc.
#include "server/mcp.h"

#include <httplib.h>

#include <algorithm>

#include "core/error.h"

namespace mmkg::server::mcp {

using nlohmann::json;

const std::vector<std::string>& protocol_versions() {
  static const std::vector<std::string> v = {"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"};
  return v;
}

namespace {

constexpr const char* kInstructions =
    "Search and question answering over the documents of one mmkg store, with citations. `ask` answers a "
    "question with numbered citations (chunk ids); `search` lists matching passages; `get_chunk` and "
    "`get_figure` open what a citation points to (a figure as its PNG); `graph_entity` tells what the "
    "knowledge graph knows of a name; `list_documents` lists the documents. Each document is also a "
    "resource, mmkg://documents/{id}, its whole text as Markdown.";

bool valid_id(const json& id) { return id.is_string() || id.is_number_integer(); }

json result(const json& id, json r) { return {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(r)}}; }

// A request's name among those under way: its connection and its id.
std::string running_key(const Connection& conn, const json& id) { return conn.key + "\n" + id.dump(); }

/// %XX escapes decoded (a document's file name in a URI; '+' stays '+'), by cpp-httplib's decoder.
std::string percent_decode(const std::string& s) { return httplib::detail::decode_url(s, false); }

/// The contents of mmkg://figures/ID: the PNG, or a table's rows as Markdown when it has none.
json figure_contents(Session& s, const std::string& uri, const std::string& id) {
  FigureReport f = s.figure(id);
  if (f.image_path.empty())
    return {{"uri", uri}, {"mimeType", "text/markdown"}, {"text", f.figure.figure.table_markdown}};
  return {{"uri", uri}, {"mimeType", "image/png"}, {"blob", figure_png_base64(f)}};
}

}  // namespace

McpServer::McpServer(SessionRunner run, std::string version, json ask_defaults)
    : run_(std::move(run)), version_(std::move(version)), ask_defaults_(std::move(ask_defaults)) {}

json McpServer::error(const json& id, int code, const std::string& message) {
  return {{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}};
}

std::string McpServer::handle_text(const std::string& text, Connection& conn) const {
  json msg = json::parse(text, nullptr, false);
  json out = msg.is_discarded() ? error(nullptr, kParseError, "the message is not JSON: send one JSON-RPC 2.0 object per line")
                                : handle(msg, conn);
  return out.is_null() ? std::string() : out.dump(-1, ' ', false, json::error_handler_t::replace);
}

json McpServer::handle(const json& msg, Connection& conn) const { return handle(msg, conn, nullptr); }

json McpServer::handle(const json& msg, Connection& conn, const std::shared_ptr<std::atomic<bool>>& stop) const {
  if (msg.is_array()) {
    if (msg.empty()) return error(nullptr, kInvalidRequest, "an empty batch: send at least one message");
    json out = json::array();
    for (const json& m : msg) {
      json r = one(m.is_array() ? json(nullptr) : m, conn, stop);
      if (!r.is_null()) out.push_back(std::move(r));
    }
    return out.empty() ? json(nullptr) : out;
  }
  return one(msg, conn, stop);
}

void McpServer::cancel_all() const {
  std::lock_guard<std::mutex> lk(running_mu_);
  for (auto& [_, flag] : running_) flag->store(true);
}

// notifications/cancelled {requestId, reason}: the request of this connection under way stops.
void McpServer::cancelled(const json& params, const Connection& conn) const {
  if (!params.is_object() || !params.contains("requestId")) return;
  std::lock_guard<std::mutex> lk(running_mu_);
  auto it = running_.find(running_key(conn, params["requestId"]));
  if (it != running_.end()) it->second->store(true);
}

json McpServer::one(const json& msg, Connection& conn, const std::shared_ptr<std::atomic<bool>>& stop) const {
  if (!msg.is_object() || msg.value("jsonrpc", json()) != "2.0")
    return error(nullptr, kInvalidRequest, "not a JSON-RPC 2.0 message: give an object with \"jsonrpc\": \"2.0\"");
  if (!msg.contains("method")) {
    if (msg.contains("result") || msg.contains("error")) return nullptr;  // a response: this server asks nothing
    return error(nullptr, kInvalidRequest, "a request needs a method");
  }
  const json id = msg.contains("id") ? msg["id"] : json();
  const bool notification = !msg.contains("id");
  if (!notification && !valid_id(id)) return error(nullptr, kInvalidRequest, "the id must be a string or an integer");
  if (!msg["method"].is_string()) return notification ? json() : error(id, kInvalidRequest, "the method must be a string");
  const std::string method = msg["method"];
  const json params = msg.contains("params") ? msg["params"] : json::object();
  if (notification) {
    if (method == "notifications/initialized") conn.initialized = true;
    if (method == "notifications/cancelled") cancelled(params, conn);
    return nullptr;  // others (progress, roots changed) need nothing from this server
  }
  if (!params.is_object()) return error(id, kInvalidParams, "params must be an object");
  // The request is findable by notifications/cancelled while it runs.
  const auto flag = stop ? stop : std::make_shared<std::atomic<bool>>(false);
  const std::string key = running_key(conn, id);
  {
    std::lock_guard<std::mutex> lk(running_mu_);
    running_[key] = flag;
  }
  struct Unlist {
    const McpServer& s;
    const std::string& key;
    ~Unlist() {
      std::lock_guard<std::mutex> lk(s.running_mu_);
      s.running_.erase(key);
    }
  } unlist{*this, key};
  try {
    json r = result(id, request(method, params, conn, flag.get()));
    return flag->load() ? json() : r;  // cancelled: no answer (the client no longer waits for one)
  } catch (const RpcError& e) {
    json err = error(id, e.code, e.what());
    if (!e.data.is_null()) err["error"]["data"] = e.data;
    return err;
  } catch (const std::exception& e) {
    if (flag->load()) return nullptr;
    return error(id, kInternalError, std::string("internal error: ") + e.what());
  }
}

json McpServer::request(const std::string& method, const json& params, Connection& conn,
                          const std::atomic<bool>* stop) const {
  if (method == "initialize") return initialize(params, conn);
  if (method == "ping") return json::object();
  if (method == "tools/list") return {{"tools", tool_list()}};
  if (method == "tools/call") return call_tool(params, conn, stop);
  if (method == "resources/list") return list_resources(params);
  if (method == "resources/read") return read_resource(params);
  if (method == "resources/templates/list")
    return {{"resourceTemplates",
             {{{"uriTemplate", std::string(kDocumentUri) + "{key}"},
               {"name", "document"},
               {"title", "A document as Markdown"},
               {"description", "A document's whole text as Markdown, its figures linked in place; key: its id, "
                               "id prefix or file name (percent-encoded)"},
               {"mimeType", "text/markdown"}},
              {{"uriTemplate", std::string(kFigureUri) + "{id}"},
               {"name", "figure"},
               {"title", "A figure's image"},
               {"description", "A figure's PNG (a table without image: its rows as Markdown); id: a figure_id"},
               {"mimeType", "image/png"}}}}};
  throw RpcError(kMethodNotFound, "method " + method + " is not offered: this server has tools and resources");
}

json McpServer::initialize(const json& params, Connection& conn) const {
  if (!params.contains("protocolVersion") || !params["protocolVersion"].is_string())
    throw RpcError(kInvalidParams, "initialize needs params.protocolVersion, the client's protocol version");
  const std::string asked = params["protocolVersion"];
  const auto& v = protocol_versions();
  conn.version = std::find(v.begin(), v.end(), asked) != v.end() ? asked : v.back();
  return {{"protocolVersion", conn.version},
          {"capabilities", {{"tools", {{"listChanged", false}}}, {"resources", {{"subscribe", false}, {"listChanged", false}}}}},
          {"serverInfo", {{"name", "mmkg"}, {"title", "mmkg: documents in, cited answers out"}, {"version", version_}}},
          {"instructions", kInstructions}};
}

json McpServer::call_tool(const json& params, const Connection& conn, const std::atomic<bool>* stop) const {
  if (!params.contains("name") || !params["name"].is_string())
    throw RpcError(kInvalidParams, "tools/call needs params.name, a tool's name (tools/list names them)");
  const json args = params.contains("arguments") ? params["arguments"] : json::object();
  if (!args.is_object()) throw RpcError(kInvalidParams, "params.arguments must be an object");
  // SEP-1303 (2025-11-25): arguments the schema refuses are the tool's error, which the model sees.
  const bool tool_errors = conn.version.empty() || conn.version >= "2025-11-25";
  return mcp::call_tool(run_, params["name"].get<std::string>(), args, tool_errors, ToolEnv{ask_defaults_, stop});
}

json McpServer::list_resources(const json& params) const {
  // The cursor is the offset of the page's first document, as this server wrote it.
  size_t from = 0;
  if (params.is_object() && params.contains("cursor")) {
    const json& c = params["cursor"];
    const std::string s = c.is_string() ? c.get<std::string>() : "";
    if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
      throw RpcError(kInvalidParams, "params.cursor is not one this server gave: pass a nextCursor back as it came");
    from = std::stoul(s);
  }
  StatsReport r;
  run_(Work::Light, [&](Session& s) { r = s.store_stats(true); });
  json out = json::array();
  for (size_t i = from; i < r.docs.size() && i < from + page_size_; ++i) {
    const DocumentRecord& d = r.docs[i];
    const std::string what = d.format + (d.pages > 0 ? ", " + std::to_string(d.pages) + " pages" : std::string()) +
                             ", " + std::to_string(d.chunks) + " chunks";
    out.push_back({{"uri", kDocumentUri + d.id},
                   {"name", d.name},
                   {"title", d.title.empty() ? d.name : d.title},
                   {"description", d.name + " (" + what + ") as Markdown"},
                   {"mimeType", "text/markdown"}});
  }
  json result = {{"resources", out}};
  // A cursor past the end (documents deleted meanwhile) gives an empty last page.
  if (from + page_size_ < r.docs.size()) result["nextCursor"] = std::to_string(from + page_size_);
  return result;
}

json McpServer::read_resource(const json& params) const {
  if (!params.contains("uri") || !params["uri"].is_string())
    throw RpcError(kInvalidParams, "resources/read needs params.uri (resources/list gives them)");
  const std::string uri = params["uri"];
  const std::string doc(kDocumentUri), fig(kFigureUri);
  const bool is_doc = uri.rfind(doc, 0) == 0 && uri.size() > doc.size();
  const bool is_fig = uri.rfind(fig, 0) == 0 && uri.size() > fig.size();
  if (!is_doc && !is_fig)
    throw RpcError(kResourceNotFound, "no resource " + uri + ": give mmkg://documents/{key} or mmkg://figures/{id}",
                   {{"uri", uri}});
  json contents;
  try {
    run_(Work::Light, [&](Session& s) {
      if (is_fig) {
        contents = figure_contents(s, uri, percent_decode(uri.substr(fig.size())));
        return;
      }
      DocumentMarkdown d = s.document_markdown(percent_decode(uri.substr(doc.size())), kFigureUri);
      contents = {{"uri", uri}, {"mimeType", "text/markdown"}, {"text", d.markdown}};
    });
  } catch (const NotFoundError& e) {
    throw RpcError(kResourceNotFound, e.what(), {{"uri", uri}});
  } catch (const UsageError& e) {
    throw RpcError(kInvalidParams, e.what(), {{"uri", uri}});
  }
  return {{"contents", json::array({contents})}};
}

}  // namespace mmkg::server::mcp
