#include "llm/sse.h"

namespace mmkg {

void SseParser::feed(std::string_view bytes) {
  for (char c : bytes) {
    if (skip_lf_) {
      skip_lf_ = false;
      if (c == '\n') continue;
    }
    if (c == '\r' || c == '\n') {
      line(buf_);
      buf_.clear();
      skip_lf_ = c == '\r';
    } else {
      buf_ += c;
    }
  }
}

void SseParser::finish() {
  if (!buf_.empty()) {
    line(buf_);
    buf_.clear();
  }
  dispatch();
}

void SseParser::line(std::string_view l) {
  if (l.empty()) {
    dispatch();
    return;
  }
  if (l.front() == ':') return;  // comment / keep-alive
  std::string_view field = l, value;
  if (auto colon = l.find(':'); colon != std::string_view::npos) {
    field = l.substr(0, colon);
    value = l.substr(colon + 1);
    if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  }
  if (field == "data") {
    if (has_data_) cur_.data += '\n';
    cur_.data.append(value);
    has_data_ = true;
  } else if (field == "event") {
    cur_.event = std::string(value);
  } else if (field == "id") {
    cur_.id = std::string(value);
  }  // "retry" and unknown fields are ignored
}

void SseParser::dispatch() {
  if (has_data_) {
    ++count_;
    on_event_(cur_);
  }
  cur_ = SseEvent{};
  has_data_ = false;
}

}  // namespace mmkg
