// A chat model that stops when its caller says so: a call is refused once the flag is set, and a
// call under way is abandoned (the HTTP exchange checks the flag while it waits, net/http.h). Both
// throw Cancelled (core/error.h), which no step takes for a model failure to fall back from.
#pragma once

#include <atomic>

#include "core/error.h"
#include "llm/chat_model.h"

namespace mmkg {

class CancellableChat final : public ChatModel {
 public:
  /// Neither is owned; `cancel` must outlive the calls.
  CancellableChat(ChatModel& inner, const std::atomic<bool>& cancel) : inner_(inner), cancel_(cancel) {}

  ChatResponse chat(const ChatRequest& req, const TokenCallback& on_token = {}) override {
    if (stopped()) throw Cancelled("stopped by the caller before a model call");
    ChatRequest r = req;
    if (!r.cancel) r.cancel = &cancel_;
    try {
      return inner_.chat(r, on_token);
    } catch (const Error&) {
      if (stopped()) throw Cancelled("stopped by the caller during a model call");
      throw;
    }
  }
  std::string id() const override { return inner_.id(); }
  Usage total_usage() const override { return inner_.total_usage(); }
  bool vision() const override { return inner_.vision(); }
  int context_window() const override { return inner_.context_window(); }

 private:
  bool stopped() const { return cancel_.load(std::memory_order_relaxed); }
  ChatModel& inner_;
  const std::atomic<bool>& cancel_;
};

}  // namespace mmkg
