// The relations of text/fact_spans.h: who a passage names as its subject's director, father or
// wife, by the phrases English uses for them.
#include <algorithm>
#include <array>
#include <cstring>

#include "text/fact_spans.h"
#include "text/fact_spans_detail.h"

namespace mmkg {

namespace {

using fact_detail::find_words;
using fact_detail::sentences_of;

enum class Take {
  Names,       ///< the names right after the cue ("directed by A and B", "his father, A")
  AfterBy,     ///< the names after a "by" that follows the cue ("the music ... is by A")
  FirstParent, ///< "son of A and B": A
  LastParent,  ///< "son of A and B": B
  Parents,     ///< "son of A and B": both
  Before,      ///< the name right before the cue ("Katherine Mansfield, whom he married")
};

struct Cue {
  const char* relation;
  const char* words;
  Take take;
};

// The phrases, per relation, in the order they are tried; a relation may have several.
constexpr std::array<Cue, 52> kCues = {{
    {"director", "directed by", Take::Names},     {"director", "director", Take::Names},
    {"director", "film by", Take::Names},         {"director", "direction of", Take::Names},
    {"composer", "composed by", Take::Names},     {"composer", "music by", Take::Names},
    {"composer", "score by", Take::Names},        {"composer", "music", Take::AfterBy},
    {"composer", "composer", Take::Names},        {"performer", "recorded by", Take::Names},
    {"performer", "performed by", Take::Names},   {"performer", "sung by", Take::Names},
    {"performer", "song by", Take::Names},        {"performer", "single by", Take::Names},
    {"performer", "song", Take::AfterBy},         {"performer", "single", Take::AfterBy},
    {"performer", "recorded", Take::AfterBy},     {"producer", "produced by", Take::Names},
    {"producer", "producer", Take::Names},        {"writer", "written by", Take::Names},
    {"writer", "screenplay by", Take::Names},     {"writer", "writer", Take::Names},
    {"author", "written by", Take::Names},        {"author", "novel by", Take::Names},
    {"author", "book by", Take::Names},           {"editor", "edited by", Take::Names},
    {"founder", "founded by", Take::Names},       {"founder", "founder", Take::Names},
    {"father", "father", Take::Names},            {"father", "son of", Take::FirstParent},
    {"father", "daughter of", Take::FirstParent}, {"father", "child of", Take::FirstParent},
    {"father", "born to", Take::FirstParent},     {"mother", "mother", Take::Names},
    {"mother", "son of", Take::LastParent},       {"mother", "daughter of", Take::LastParent},
    {"mother", "child of", Take::LastParent},     {"mother", "born to", Take::LastParent},
    {"parent", "son of", Take::Parents},          {"parent", "daughter of", Take::Parents},
    {"parent", "child of", Take::Parents},        {"spouse", "married", Take::Names},
    {"spouse", "married to", Take::Names},        {"spouse", "wife", Take::Names},
    {"spouse", "husband", Take::Names},           {"spouse", "spouse", Take::Names},
    {"spouse", "wife of", Take::Names},           {"spouse", "husband of", Take::Names},
    {"spouse", "widow of", Take::Names},          {"child", "son", Take::Names},
    {"child", "daughter", Take::Names},           {"child", "father of", Take::Names},
}};

constexpr std::array<Cue, 13> kMoreCues = {{
    {"composer", "song", Take::AfterBy},  // "a song written by X": a song's writer composed it
    {"spouse", "whom he married", Take::Before}, {"spouse", "whom she married", Take::Before},
    {"spouse", "who married him", Take::Before}, {"spouse", "who married her", Take::Before},
    {"child", "mother of", Take::Names}, {"child", "children", Take::Names},
    {"child", "sons", Take::Names},      {"child", "daughters", Take::Names},
    {"sibling", "brother", Take::Names}, {"sibling", "sister", Take::Names},
    {"sibling", "brother of", Take::Names}, {"sibling", "sister of", Take::Names},
}};

// The relation a question word stands for in the cue table ("husband" and "wife" read the
// spouse's cues, "son" and "daughter" the child's).
std::string cue_relation(std::string_view r) {
  if (r == "husband" || r == "wife") return "spouse";
  if (r == "son" || r == "daughter") return "child";
  if (r == "brother" || r == "sister") return "sibling";
  if (r == "singer" || r == "artist" || r == "band") return "performer";
  if (r == "screenwriter") return "writer";
  return std::string(r);
}

using fact_detail::is_space;

// Skips ", ", "was", "is", "named", "called", "the" after a cue ("his father, the Duke X").
size_t skip_fillers(std::string_view s, size_t i) {
  for (int n = 0; n < 3; ++n) {
    while (i < s.size() && (is_space(s[i]) || s[i] == ',' || s[i] == ':')) ++i;
    bool skipped = false;
    for (std::string_view f : {"was ", "is ", "named ", "called ", "the "})
      if (s.substr(i, f.size()) == f) {
        i += f.size();
        skipped = true;
        break;
      }
    if (!skipped) break;
  }
  return i;
}

// The names from `i`: one, and those "and" or ", " join to it.
std::vector<std::string> names_list(std::string_view s, size_t i) {
  std::vector<std::string> out;
  for (int n = 0; n < 4 && i < s.size(); ++n) {
    std::string nm = name_at(s, i);
    if (nm.empty()) break;
    size_t at = s.find(nm, i);
    if (at == std::string_view::npos) break;
    out.push_back(nm);
    size_t e = at + nm.size();
    std::string_view rest = s.substr(e);
    if (rest.substr(0, 5) == " and ") i = e + 5;
    else if (rest.substr(0, 6) == ", and ") i = e + 6;
    else break;
  }
  return out;
}

// The name that ends where the cue at `begin` starts (", " between them): the longest name that
// name_at reads from a word start before it and that ends there.
std::vector<std::string> name_before(std::string_view s, size_t begin) {
  size_t e = begin;
  while (e > 0 && (s[e - 1] == ' ' || s[e - 1] == ',')) --e;
  for (size_t j = 0; j < e; ++j) {
    if (j > 0 && s[j - 1] != ' ') continue;
    std::string nm = name_at(s.substr(0, e), j);
    if (nm.empty()) continue;
    size_t at = s.find(nm, j);
    if (at != std::string_view::npos && at + nm.size() == e) return {nm};
  }
  return {};
}

std::vector<std::string> take_names(std::string_view s, size_t begin, size_t end, Take take) {
  if (take == Take::Before) return name_before(s, begin);
  if (take == Take::AfterBy) {
    size_t by = find_words(s.substr(0, std::min(s.size(), end + 40)), "by", end);
    return by == std::string_view::npos ? std::vector<std::string>{} : names_list(s, by + 2);
  }
  std::vector<std::string> names = names_list(s, take == Take::Names ? skip_fillers(s, end) : end);
  if (names.empty()) return names;
  if (take == Take::FirstParent) return {names.front()};
  if (take == Take::LastParent) return {names.back()};
  return names;
}

template <size_t N>
void read_cues(const std::array<Cue, N>& cues, const std::string& rel, std::string_view relation,
               std::string_view s, std::string_view subject, std::vector<std::pair<int, RelatedName>>& out) {
  for (const Cue& c : cues) {
    if (rel != c.relation) continue;
    // "husband of X" names the subject's wife, "wife of X" her husband.
    const std::string_view w = c.words;
    if ((relation == "husband" && (w == "husband of")) || (relation == "wife" && (w == "wife of" || w == "widow of")))
      continue;
    for (size_t i = find_words(s, w); i != std::string_view::npos; i = find_words(s, w, i + 1))
      for (const std::string& n : take_names(s, i, i + w.size(), c.take)) {
        if (!subject.empty() && same_name(n, subject)) continue;
        // A parent read off "son of A" (one name) may be either parent: weaker than "son of A and B".
        int score = c.take == Take::FirstParent || c.take == Take::LastParent || c.take == Take::Parents ? 1 : 2;
        out.push_back({score, {n, std::string(s)}});
      }
  }
}

}  // namespace

bool same_name(std::string_view a, std::string_view b) {
  const std::string fa = fold_name(a), fb = fold_name(b);
  if (fa.empty() || fb.empty()) return false;
  if (fa == fb || fold_name_base(a) == fold_name_base(b)) return true;
  // "Emperor Lothair I" and "Lothair I": a title word before the same name.
  auto tail = [](const std::string& f) {
    size_t sp = f.find(' ');
    return sp == std::string::npos ? std::string() : f.substr(sp + 1);
  };
  return (tail(fa) == fold_name_base(b) && fa.size() > fb.size()) || (tail(fb) == fold_name_base(a) && fb.size() > fa.size());
}

std::vector<RelatedName> related_names(std::string_view passage, std::string_view relation, std::string_view subject) {
  const std::string rel = cue_relation(relation);
  std::vector<std::pair<int, RelatedName>> found;
  for (std::string_view s : sentences_of(passage)) {
    read_cues(kCues, rel, relation, s, subject, found);
    read_cues(kMoreCues, rel, relation, s, subject, found);
  }
  std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<RelatedName> out;
  for (auto& [score, r] : found)
    if (std::none_of(out.begin(), out.end(), [&](const RelatedName& o) { return same_name(o.name, r.name); }))
      out.push_back(std::move(r));
  return out;
}

std::string names_as_inverse(std::string_view passage, std::string_view relation, std::string_view subject) {
  const std::string rel = cue_relation(relation);
  std::string inverse;
  if (rel == "child") inverse = "parent";
  else if (rel == "father" || rel == "mother" || rel == "parent") inverse = "child";
  else if (rel == "spouse" || rel == "sibling") inverse = rel;
  if (inverse.empty()) return {};
  for (const RelatedName& r : related_names(passage, inverse, ""))
    if (same_name(r.name, subject)) return r.sentence;
  return {};
}

}  // namespace mmkg
