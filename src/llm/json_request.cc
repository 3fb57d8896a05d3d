#include "llm/json_request.h"

namespace mmkg {

ChatRequest json_request(std::string schema_name, nlohmann::ordered_json schema, std::string system, std::string user,
                         int max_tokens) {
  ChatRequest req;
  req.temperature = 0;
  req.max_tokens = max_tokens;
  ResponseSchema rs;
  rs.name = std::move(schema_name);
  rs.schema = std::move(schema);
  req.response_schema = std::move(rs);
  req.messages = {Message::system(std::move(system)), Message::user(std::move(user))};
  return req;
}

}  // namespace mmkg
