#include "text/tokens.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/error.h"

namespace mmkg {
namespace {

// One token per `ratio` bytes, rounded up: the rule of thumb ("4 characters per token"). Kept for
// comparison and for models whose ratio is known; it under-counts mathematics and code badly.
class RatioTokenCounter : public TokenCounter {
 public:
  explicit RatioTokenCounter(double ratio) : ratio_(ratio) {}
  std::string name() const override {
    char buf[32];
    std::snprintf(buf, sizeof buf, "chars:%g", ratio_);
    return buf;
  }
  size_t count(std::string_view text) const override {
    return static_cast<size_t>(std::ceil(static_cast<double>(text.size()) / ratio_));
  }

 private:
  double ratio_;
};

}  // namespace

std::unique_ptr<TokenCounter> make_token_counter(const std::string& spec) {
  if (spec.empty() || spec == "estimate") return make_estimate_token_counter();
  if (spec.rfind("chars:", 0) == 0) {
    const std::string n = spec.substr(6);
    char* end = nullptr;
    double r = std::strtod(n.c_str(), &end);
    if (!n.empty() && end && *end == '\0' && r > 0 && std::isfinite(r)) return std::make_unique<RatioTokenCounter>(r);
  }
  throw UsageError("unknown token counter '" + spec + "'; use estimate or chars:N (bytes per token, e.g. chars:4)");
}

const TokenCounter& default_token_counter() {
  static const TokenCounter* counter = make_estimate_token_counter().release();
  return *counter;
}

}  // namespace mmkg
