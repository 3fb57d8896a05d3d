#include "retrieve/named_figures.h"

#include <algorithm>
#include <map>
#include <set>

#include "retrieve/fusion_weights.h"
#include "store/store.h"
#include "text/captions.h"
#include "text/words.h"

namespace mmkg {

namespace {

constexpr size_t kMaxPerLabel = 3;

std::string label_of_key(const std::string& key) {  // "f:3" → "Figure 3"
  return (key.rfind("t:", 0) == 0 ? "Table " : "Figure ") + key.substr(2);
}

// Nouns for a document, as questions call one ("the survival vignette", "the installation
// guide"): when the question names a figure's document, they are part of the name, not of what
// is asked. A general English list, not any corpus's.
bool is_document_noun(const std::string& stem_word) {
  static const std::set<std::string> nouns = [] {
    std::set<std::string> s;
    for (const char* w : {"paper", "article", "vignette", "document", "manual", "report", "guide", "book", "chapter",
                          "section", "appendix", "thesis", "study", "slide", "tutorial", "handbook", "note",
                          "preprint", "file", "pdf", "publication", "documentation", "whitepaper", "page"})
      s.insert(stem(w));
    return s;
  }();
  return nouns.count(stem_word) > 0;
}

// How many content words of the document's file name (extension dropped, stemmed) the question
// uses: "the sandwich vignette" names sandwich.pdf, "the attention paper" names
// attention_is_all_you_need.pdf. Digits alone never count (they are figure numbers).
struct NameMatch {
  std::set<std::string> shared;  ///< name words the question uses
  size_t unmatched = 0;          ///< name words it does not ("the sandwich vignette" fits
                                 ///< sandwich.pdf better than sandwich-OOP.pdf)
  bool better_than(const NameMatch& o) const {
    return shared.size() != o.shared.size() ? shared.size() > o.shared.size() : unmatched < o.unmatched;
  }
  bool same_as(const NameMatch& o) const { return shared.size() == o.shared.size() && unmatched == o.unmatched; }
};

NameMatch name_overlap(const std::set<std::string>& question_stems, const std::string& doc_name) {
  std::string base = doc_name;
  if (size_t dot = base.rfind('.'); dot != std::string::npos && dot > 0) base.resize(dot);
  NameMatch m;
  std::set<std::string> seen;
  for (const auto& s : content_stems(base)) {
    if (s.size() < 3 || s.find_first_not_of("0123456789") == std::string::npos || !seen.insert(s).second) continue;
    if (question_stems.count(s)) m.shared.insert(s);
    else ++m.unmatched;
  }
  return m;
}

}  // namespace

NamedFigures find_named_figures(Store& store, std::string_view question, const std::vector<std::string>& keys) {
  NamedFigures out;
  if (keys.empty()) return out;
  std::set<std::string> qstems;
  for (auto& s : content_stems(question)) qstems.insert(s);
  for (const auto& key : keys) {
    const std::string label = label_of_key(key);
    out.labels.push_back(label);
    std::vector<StoredFigure> found = store.figures_labelled(label);
    std::erase_if(found, [](const StoredFigure& f) { return f.chunk_id.empty(); });
    if (found.empty()) continue;
    // Prefer the documents the question names (most name words first).
    std::map<std::string, NameMatch> overlap;
    NameMatch best;
    for (const auto& f : found) {
      const NameMatch& m = overlap[f.doc_id] = name_overlap(qstems, f.doc_name);
      if (m.better_than(best)) best = m;
    }
    const bool doc_named = !best.shared.empty();
    if (doc_named) std::erase_if(found, [&](const StoredFigure& f) { return !overlap[f.doc_id].same_as(best); });
    std::set<std::string> docs;
    for (const auto& f : found) docs.insert(f.doc_id);
    // One document: that is the figure (a document may repeat a label, e.g. "Table 1" in an
    // appendix: the first in reading order leads). Several and none named: ambiguous.
    const bool pinned = docs.size() == 1;
    std::vector<std::string> label_stems = content_stems(label);
    for (size_t i = 0; i < found.size() && i < kMaxPerLabel; ++i) {
      const StoredFigure& f = found[i];
      std::vector<std::string> where = label_stems;
      const auto& named = overlap[f.doc_id].shared;
      where.insert(where.end(), named.begin(), named.end());
      if (!named.empty())
        for (const auto& s : qstems)
          if (is_document_noun(s)) where.push_back(s);
      out.figures.push_back(NamedFigure{.label = label,
                                        .figure_id = f.figure.id,
                                        .chunk_id = f.chunk_id,
                                        .doc_name = f.doc_name,
                                        .page = f.figure.page,
                                        .doc_named = doc_named,
                                        .pinned = pinned && i == 0,
                                        .where = std::move(where)});
    }
  }
  return out;
}

std::vector<RankedList> NamedFigures::lists() const {
  RankedList pin{.name = "figures named in the question", .chunk_ids = {}, .weight = kFusionWeights.named_figure, .pin = true};
  RankedList maybe{.name = "figures the question may name", .chunk_ids = {}, .weight = kFusionWeights.possible_figure};
  for (const auto& f : figures) {
    (f.pinned ? pin : maybe).chunk_ids.push_back(f.chunk_id);
    if (f.pinned) pin.where.insert(pin.where.end(), f.where.begin(), f.where.end());
  }
  std::vector<RankedList> out;
  if (!pin.chunk_ids.empty()) out.push_back(std::move(pin));
  if (!maybe.chunk_ids.empty()) out.push_back(std::move(maybe));
  return out;
}

}  // namespace mmkg
