// Server-sent events (text/event-stream) parsing, incremental: feed bytes as they arrive, get
// whole events. Follows the WHATWG rules that matter for LLM streams: "data:" lines of one event
// are joined with "\n", a blank line ends an event, ":" lines are comments, CR, LF and CRLF all
// end a line, and one optional space after the colon is dropped.
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace mmkg {

struct SseEvent {
  std::string event;  ///< "event:" field; empty = "message"
  std::string data;
  std::string id;
};

class SseParser {
 public:
  using Handler = std::function<void(const SseEvent&)>;
  explicit SseParser(Handler on_event) : on_event_(std::move(on_event)) {}

  /// Parses a piece of the stream; calls the handler for each event it completes.
  void feed(std::string_view bytes);
  /// End of stream: a last event without its closing blank line is still delivered.
  void finish();
  /// Events delivered so far.
  size_t events() const { return count_; }

 private:
  void line(std::string_view l);
  void dispatch();

  Handler on_event_;
  std::string buf_;
  bool skip_lf_ = false;  // the previous piece ended with CR: a leading LF belongs to it
  SseEvent cur_;
  bool has_data_ = false;
  size_t count_ = 0;
};

}  // namespace mmkg
