// Home passages: the chunk a section's heading says is about an entity (graph_algo.h).
#include <cctype>
#include <set>
#include <unordered_map>

#include "graph/algo/graph_algo.h"

namespace mmkg::graph {

namespace {

/// Name and alias keys → the entities they name, of those `keep` accepts (a key two entities share
/// names neither: callers take keys of one entity only).
template <typename Keep>
std::unordered_map<std::string, std::set<std::string>> entities_by_key(const GraphSnapshot& g, Keep keep) {
  std::unordered_map<std::string, std::set<std::string>> by_key;
  for (const Entity& e : g.entities) {
    if (!keep(e)) continue;
    by_key[name_key(e.name)].insert(e.id);
    for (const auto& a : e.aliases) by_key[name_key(a)].insert(e.id);
  }
  return by_key;
}

}  // namespace

std::vector<HomePassage> home_passages(const GraphSnapshot& g, const std::vector<ChunkLabel>& chunks) {
  const auto by_key = entities_by_key(g, [](const Entity&) { return true; });
  std::vector<HomePassage> out;
  std::set<std::pair<std::string, std::string>> seen;  // (document, heading path): its first chunk only
  for (const ChunkLabel& c : chunks) {
    if (c.heading_path.empty() || !seen.insert({c.doc_id, c.heading_path}).second) continue;
    auto it = by_key.find(name_key(section_heading(c.heading_path)));
    if (it == by_key.end() || it->second.size() != 1) continue;
    out.push_back({*it->second.begin(), c.id});
  }
  return out;
}

namespace {

struct Token {
  std::string text;
  bool capital;  // starts with an upper-case letter, a digit or a non-ASCII letter
};

/// The text's words (runs of letters, digits, apostrophes and non-ASCII bytes) with whether each
/// reads as part of a name; sentence punctuation ends a run of names (an empty token).
std::vector<Token> name_tokens(const std::string& text) {
  std::vector<Token> out;
  size_t i = 0;
  const size_t n = text.size();
  auto word_char = [](unsigned char c) { return std::isalnum(c) || c >= 0x80 || c == '\'' || c == '-'; };
  while (i < n) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (!word_char(c)) {
      if (c == '.' || c == ',' || c == ';' || c == ':' || c == '(' || c == ')' || c == '"' || c == '!' || c == '?')
        out.push_back({"", false});
      ++i;
      continue;
    }
    size_t j = i;
    while (j < n && word_char(static_cast<unsigned char>(text[j]))) ++j;
    const unsigned char f = static_cast<unsigned char>(text[i]);
    out.push_back({text.substr(i, j - i), std::isupper(f) || std::isdigit(f) || f >= 0x80});
    i = j;
  }
  return out;
}

}  // namespace

std::vector<Mention> home_mentions(const GraphSnapshot& g, const std::vector<HomePassage>& homes,
                                   const std::vector<ChunkLabel>& chunks) {
  std::set<std::string> with_home;
  for (const auto& h : homes) with_home.insert(h.entity_id);
  const auto by_key = entities_by_key(g, [&](const Entity& e) { return with_home.count(e.id) > 0; });
  std::set<std::pair<std::string, std::string>> have;  // (entity, chunk)
  for (const Mention& m : g.mentions) have.insert({m.entity_id, m.chunk_id});
  constexpr size_t kMaxWords = 6;
  std::vector<Mention> out;
  for (const ChunkLabel& c : chunks) {
    const std::vector<Token> t = name_tokens(c.text);
    for (size_t b = 0; b < t.size(); ++b) {
      if (!t[b].capital) continue;
      // Longest first: "Lothair II" before "Lothair".
      std::string phrase;
      std::vector<std::string> phrases;
      for (size_t e = b; e < t.size() && e < b + kMaxWords && !t[e].text.empty(); ++e) {
        phrase += (e > b ? " " : "") + t[e].text;
        if (t[e].capital) phrases.push_back(phrase);
      }
      for (auto it = phrases.rbegin(); it != phrases.rend(); ++it) {
        auto k = by_key.find(name_key(*it));
        if (k == by_key.end() || k->second.size() != 1) continue;
        const std::string& id = *k->second.begin();
        if (have.insert({id, c.id}).second) out.push_back({id, c.id, c.doc_id, *it, 1});
        break;
      }
    }
  }
  return out;
}

}  // namespace mmkg::graph
