// The default token counter: the text is cut into the pieces BPE tokenizers start from (letter
// runs, single digits, punctuation, newline runs, non-ASCII characters), each piece is given
// the tokens it costs on average, and the sum is scaled up so that real tokenizers rarely
// count more. Weights fitted (relative least squares) on the 383 chunks of examples/corpus, as
// stored and with whitespace collapsed (766 texts: prose, LaTeX, headings, numbers), against the
// largest of SmolLM2's, cl100k's and o200k's counts; docs/EVAL.md ("Token counter") has the
// errors and bench/token_counts.py repeats the measurement.
#include <cmath>

#include "text/tokens.h"

namespace mmkg {
namespace {

struct Weights {
  double word = 0.95;       // per run of ASCII letters (a common word is one token)
  double letter = 0.023;    // plus per letter (long and rare words split)
  double upper = 0.62;      // plus per letter after the first of an all-caps run (acronyms split)
  double digit = 1.55;      // per digit (SmolLM2 splits numbers into single digits)
  double punct = 0.8;       // per ASCII punctuation or symbol character (LaTeX is mostly these)
  double newline = 1.33;    // per run of line breaks
  double spaces = 1.0;      // per run of two or more spaces or tabs (a single space is free)
  double non_ascii = 1.5;   // per non-ASCII character (byte-level BPE: often two tokens)
  double scale = 1.1;       // safety factor: fitted sum x 1.1 over-counts 97% of chunks
};

bool letter(unsigned char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

class EstimateTokenCounter : public TokenCounter {
 public:
  explicit EstimateTokenCounter(Weights w) : w_(w) {}
  std::string name() const override { return "estimate"; }
  size_t count(std::string_view s) const override {
    double t = 0;
    const size_t n = s.size();
    for (size_t i = 0; i < n;) {
      const unsigned char c = static_cast<unsigned char>(s[i]);
      if (letter(c)) {
        size_t j = i;
        bool caps = true;
        for (; j < n && letter(static_cast<unsigned char>(s[j])); ++j) caps = caps && s[j] >= 'A' && s[j] <= 'Z';
        const double len = static_cast<double>(j - i);
        t += w_.word + w_.letter * len + (caps && j - i >= 2 ? w_.upper * (len - 1) : 0.0);
        i = j;
      } else if (c >= '0' && c <= '9') {
        t += w_.digit;
        ++i;
      } else if (c == '\n' || c == '\r') {
        while (i < n && (s[i] == '\n' || s[i] == '\r')) ++i;
        t += w_.newline;
      } else if (c == ' ' || c == '\t') {
        size_t j = i;
        while (j < n && (s[j] == ' ' || s[j] == '\t')) ++j;
        if (j - i >= 2) t += w_.spaces;
        i = j;
      } else if (c < 0x80) {
        t += w_.punct;
        ++i;
      } else {
        t += w_.non_ascii;  // one UTF-8 character: skip its continuation bytes
        ++i;
        while (i < n && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) ++i;
      }
    }
    return static_cast<size_t>(std::ceil(t * w_.scale));
  }

 private:
  Weights w_;
};

}  // namespace

std::unique_ptr<TokenCounter> make_estimate_token_counter() { return std::make_unique<EstimateTokenCounter>(Weights{}); }

}  // namespace mmkg
