// An MCP server (Model Context Protocol, modelcontextprotocol.io): AI clients search the store, ask
// it questions and read its documents as tools and resources. Written here on nlohmann-json: no
// C++ MCP library is packaged in Debian, and what a server needs (JSON-RPC 2.0, the initialize
// handshake, tools, resources) is small. Transport-independent: a JSON-RPC message in, the
// response out. `mmkg mcp` (cli/cmd_mcp.cc) moves messages over stdio, `mmkg serve` over
// Streamable HTTP at /mcp (routes_mcp.cc). Every call goes through the Session and renders its
// report with app/json.h, the same JSON as the CLI's --json and the HTTP API.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "app/session.h"

namespace mmkg::server::mcp {

/// JSON-RPC 2.0 error codes, and MCP's own.
enum ErrorCode : int {
  kParseError = -32700,
  kInvalidRequest = -32600,
  kMethodNotFound = -32601,
  kInvalidParams = -32602,
  kInternalError = -32603,
  kResourceNotFound = -32002,
};

/// The protocol versions answered, oldest first. A client offering another gets the last.
const std::vector<std::string>& protocol_versions();

/// How heavy a call is, so that a transport can choose the session it runs on.
enum class Work {
  Light,  ///< store reads: a chunk, a figure, the documents (the HTTP server's shared session)
  Query,  ///< search and the graph (a leased reader)
  Ask,    ///< an answer (a leased reader; counted as an ask)
};

/// Runs `fn` on a Session suited to `work`: the only one (stdio), or one the server chooses.
using SessionRunner = std::function<void(Work work, const std::function<void(Session&)>& fn)>;

/// One client connection: what it agreed at initialize.
struct Connection {
  std::string version;       ///< the protocol version; empty before initialize (the latest applies)
  bool initialized = false;  ///< notifications/initialized came
  /// Which connection it is, for notifications/cancelled to find its requests: the HTTP session's
  /// id; empty over stdio (one connection).
  std::string key;
};

/// The URI of a document's resource and of a figure's ("mmkg://documents/ID", "mmkg://figures/ID").
inline constexpr const char* kDocumentUri = "mmkg://documents/";
inline constexpr const char* kFigureUri = "mmkg://figures/";

class McpServer {
 public:
  /// `version`: mmkg's, for serverInfo. `ask_defaults`: the ask options (app/request_options.h,
  /// the serve door) the ask tool starts from (ServeOptions::ask_defaults).
  McpServer(SessionRunner run, std::string version, nlohmann::json ask_defaults = nlohmann::json::object());

  /// The response to one parsed message: a request's result or error; null for a notification
  /// or a response (nothing to send). A batch (array) is answered with an array (null when all
  /// its messages were notifications). Never throws: a failure is a JSON-RPC error.
  nlohmann::json handle(const nlohmann::json& message, Connection& conn) const;
  /// As above; `stop` (set from any thread: the transport saw its client leave) stops the
  /// message's requests as notifications/cancelled does. A cancelled request is not answered.
  nlohmann::json handle(const nlohmann::json& message, Connection& conn,
                        const std::shared_ptr<std::atomic<bool>>& stop) const;
  /// Stops every request under way (the client is gone: it closed its end of stdout).
  void cancel_all() const;
  /// handle() of the text of one message; a parse error (-32700) when it is not JSON. Empty when
  /// there is nothing to send.
  std::string handle_text(const std::string& text, Connection& conn) const;

  /// An error response to request `id` (null when it is unknown).
  static nlohmann::json error(const nlohmann::json& id, int code, const std::string& message);

  /// resources/list answers pages of at most `n` documents (default 100), each with the
  /// `nextCursor` of the next page while there is one.
  void set_page_size(size_t n) { page_size_ = n ? n : 1; }

 private:
  nlohmann::json one(const nlohmann::json& message, Connection& conn, const std::shared_ptr<std::atomic<bool>>& stop) const;
  nlohmann::json request(const std::string& method, const nlohmann::json& params, Connection& conn,
                         const std::atomic<bool>* stop) const;
  void cancelled(const nlohmann::json& params, const Connection& conn) const;
  nlohmann::json initialize(const nlohmann::json& params, Connection& conn) const;
  nlohmann::json call_tool(const nlohmann::json& params, const Connection& conn, const std::atomic<bool>* stop) const;
  nlohmann::json list_resources(const nlohmann::json& params) const;
  nlohmann::json read_resource(const nlohmann::json& params) const;

  SessionRunner run_;
  std::string version_;
  nlohmann::json ask_defaults_;
  /// The requests under way, by connection key and request id, with their stop flags.
  mutable std::mutex running_mu_;
  mutable std::map<std::string, std::shared_ptr<std::atomic<bool>>> running_;
  size_t page_size_ = 100;
};

/// A request's failure as a JSON-RPC error (thrown inside McpServer, caught in handle()).
struct RpcError : std::runtime_error {
  RpcError(int code, const std::string& message, nlohmann::json data = nullptr)
      : std::runtime_error(message), code(code), data(std::move(data)) {}
  int code;
  nlohmann::json data;
};

// ---- the tools (mcp_tools.cc)

/// tools/list's list: name, title, description, inputSchema, outputSchema, annotations.
nlohmann::json tool_list();
/// The CallToolResult of tool `name` on `args` (content, structuredContent, isError). RpcError
/// kInvalidParams for an unknown tool; arguments that break the tool's inputSchema give an
/// isError result from protocol 2025-11-25 on (SEP-1303), kInvalidParams before it.
/// What a tool runs with besides its arguments.
struct ToolEnv {
  /// The ask options (app/request_options.h, the serve door) the ask tool starts from, its
  /// arguments over them (ServeOptions::ask_defaults).
  nlohmann::json ask_defaults = nlohmann::json::object();
  /// Set when the call is cancelled (AskOptions::cancel); nullptr: never. Not owned.
  const std::atomic<bool>* cancel = nullptr;
};
nlohmann::json call_tool(const SessionRunner& run, const std::string& name, const nlohmann::json& args,
                         bool invalid_args_are_tool_errors, const ToolEnv& env);
/// The PNG of a figure with an image, base64 (IOError when the store lost it).
std::string figure_png_base64(const FigureReport& f);
/// Why `args` break `schema` (the subset of JSON Schema the tools use: type, required, enum,
/// minimum, maximum, minLength, additionalProperties false); empty when they do not.
std::string schema_violation(const nlohmann::json& schema, const nlohmann::json& args);

}  // namespace mmkg::server::mcp
