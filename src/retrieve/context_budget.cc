#include "retrieve/context_budget.h"

#include <algorithm>
#include <limits>

#include "text/tokens.h"
#include "text/words.h"
#include "text/sentences.h"

namespace mmkg {
namespace {

constexpr const char* kGap = "\xE2\x80\xA6";  // "…": text of the chunk left out here

// The text of `c` showing only `ranges` of its chunk (sorted, each within a sentence list `all`
// given by index), with "…" before, between and after where sentences were left out.
std::string join_shown(const std::string& chunk, const std::vector<std::pair<size_t, size_t>>& all,
                       const std::vector<size_t>& idx, const std::vector<std::pair<size_t, size_t>>& ranges) {
  std::string out;
  for (size_t k = 0; k < idx.size(); ++k) {
    const bool gap_before = k == 0 ? idx[k] > 0 : idx[k] != idx[k - 1] + 1;
    if (gap_before) out += out.empty() ? std::string(kGap) + " " : std::string(" ") + kGap + " ";
    else if (!out.empty()) out += ' ';
    out.append(chunk, ranges[k].first, ranges[k].second - ranges[k].first);
    const bool cut = ranges[k].second < all[idx[k]].second;  // a sentence cut to fit
    if (k + 1 == idx.size() && (idx[k] + 1 < all.size() || cut)) out += std::string(" ") + kGap;
  }
  return out;
}

// Trims `c` to the sentences that best cover `terms` within `room` tokens as passage `n`.
// Returns false (c unchanged) when no covering sentence fits; with `cut_if_needed`, the best
// sentence is then cut at a word boundary instead.
bool trim_to_fit(Candidate& c, size_t n, const std::vector<QueryTerm>& terms, size_t room,
                 const TokenCounter& counter, bool cut_if_needed) {
  const std::string& chunk = c.hit.text;
  const auto all = split_sentences(chunk);
  if (all.empty()) return false;
  std::vector<std::pair<double, size_t>> order;  // (coverage, sentence index)
  for (size_t i = 0; i < all.size(); ++i) {
    double cov = term_coverage(stem_set(std::string_view(chunk).substr(all[i].first, all[i].second - all[i].first)), terms);
    if (cov > 0) order.emplace_back(cov, i);
  }
  // Best coverage first; among equals, the earlier sentence.
  std::stable_sort(order.begin(), order.end(), [](auto& a, auto& b) { return a.first > b.first; });
  if (order.empty() && cut_if_needed) order.emplace_back(0, 0);  // the first passage: its opening
  std::vector<size_t> chosen;
  auto render = [&](const std::vector<size_t>& idx, const std::vector<std::pair<size_t, size_t>>& ranges) {
    Candidate t;
    t.hit.doc = c.hit.doc;
    t.text = join_shown(chunk, all, idx, ranges);
    return std::make_pair(t.text, counter.count(format_passage(n, t)));
  };
  auto ranges_of = [&](const std::vector<size_t>& idx) {
    std::vector<std::pair<size_t, size_t>> r;
    for (size_t i : idx) r.push_back(all[i]);
    return r;
  };
  for (auto& [cov, i] : order) {
    std::vector<size_t> trial = chosen;
    trial.insert(std::upper_bound(trial.begin(), trial.end(), i), i);
    if (render(trial, ranges_of(trial)).second <= room) chosen = std::move(trial);
  }
  if (!chosen.empty()) {
    auto ranges = ranges_of(chosen);
    auto [text, tokens] = render(chosen, ranges);
    c.text = std::move(text);
    c.tokens = tokens;
    c.shown = std::move(ranges);
    return true;
  }
  if (!cut_if_needed || order.empty()) return false;
  // Not even the best sentence fits: the longest word-boundary prefix of it that does.
  const size_t i = order.front().second;
  const auto [b, e] = all[i];
  size_t lo = 0, hi = e - b;  // bytes of the sentence kept: lo fits, hi + 1 does not
  auto fits = [&](size_t len) { return render({i}, {{b, b + len}}).second <= room; };
  while (lo < hi) {
    size_t mid = (lo + hi + 1) / 2;
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  size_t len = utf8_prefix(std::string_view(chunk).substr(b, lo), lo).size();
  while (len > 0 && chunk[b + len - 1] != ' ' && b + len < e) --len;  // back to a word boundary
  while (len > 0 && chunk[b + len - 1] == ' ') --len;
  if (len == 0) return false;
  std::vector<std::pair<size_t, size_t>> ranges = {{b, b + len}};
  auto [text, tokens] = render({i}, ranges);
  c.text = std::move(text);
  c.tokens = tokens;
  c.shown = std::move(ranges);
  return true;
}

}  // namespace

std::string format_passage(size_t n, const Candidate& c) {
  return "[" + std::to_string(n) + "] (" + c.hit.doc + ")\n" + collapse_ws(c.text) + "\n\n";
}

void pack_context(std::vector<Candidate> ranked, const std::vector<QueryTerm>& terms, const BudgetOptions& opt,
                  Retrieval& r) {
  const TokenCounter& counter = opt.counter ? *opt.counter : default_token_counter();
  const size_t limit = opt.max_tokens ? opt.max_tokens : std::numeric_limits<size_t>::max();
  for (size_t i = 0; i < ranked.size() && i < opt.max_chunks; ++i) {  // the context without a budget
    Candidate whole = ranked[i];
    whole.text = whole.hit.text;
    r.unbudgeted_chars += whole.text.size();
    r.unbudgeted_tokens += counter.count(format_passage(i + 1, whole));
  }
  size_t used = 0;
  for (auto& c : ranked) {
    if (r.context.size() >= opt.max_chunks || used >= limit) break;
    const size_t n = r.context.size() + 1;
    c.text = c.hit.text;
    c.shown.clear();
    c.tokens = counter.count(format_passage(n, c));
    if (used + c.tokens > limit) {
      if (!trim_to_fit(c, n, terms, limit - used, counter, r.context.empty())) {
        ++r.skipped_chunks;
        continue;
      }
      ++r.trimmed_chunks;
    }
    used += c.tokens;
    r.context_chars += c.text.size();
    r.context.push_back(std::move(c));
  }
  r.context_tokens = used;
}

std::vector<std::pair<size_t, size_t>> shown_sentences(const Candidate& c) {
  if (!c.trimmed()) return split_sentences(c.hit.text);
  std::vector<std::pair<size_t, size_t>> out;
  for (auto [b, e] : c.shown)
    for (auto [sb, se] : split_sentences(std::string_view(c.hit.text).substr(b, e - b))) out.emplace_back(b + sb, b + se);
  return out;
}

ContextSize context_for_model(int window) {
  const long w = window > 0 ? window : 8192;
  const long tokens = std::clamp<long>(w - 1100, 1500, 6000);
  ContextSize c;
  c.tokens = static_cast<size_t>(tokens);
  c.chunks = std::max<size_t>(8, c.tokens * 16 / 3000);
  return c;
}

}  // namespace mmkg
