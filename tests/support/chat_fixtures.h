// Helpers for unit tests only: the body of an OpenAI-style chat completion, for a scripted model
// server (support/scripted_http_server.h) to reply with.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace mmkg::testing {

// A chat completion whose assistant message is `text`, reporting the given token usage.
inline std::string chat_answer(const std::string& text, int prompt_tokens = 100, int completion_tokens = 20) {
  return nlohmann::json({{"choices", {{{"index", 0}, {"message", {{"role", "assistant"}, {"content", text}}},
                                       {"finish_reason", "stop"}}}},
                         {"usage", {{"prompt_tokens", prompt_tokens}, {"completion_tokens", completion_tokens},
                                    {"total_tokens", prompt_tokens + completion_tokens}}}})
      .dump();
}

}  // namespace mmkg::testing
