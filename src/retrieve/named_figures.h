// Figures and tables a question names: "What does Figure 3 of the survival paper show?",
// "Which method is best in Table 2?". Search ranks passages by their words, and "Figure 3" is
// in the caption of every paper's third figure, so a question that names one is answered from
// that figure's own chunk (caption, referring sentences, text inside it, description), pinned to
// the head of the context (RankedList::pin). The document is the one whose file name the
// question mentions; without one, the label must be unambiguous in the store.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "retrieve/retrieval.h"

namespace mmkg {

class Store;

struct NamedFigure {
  std::string label;      ///< "Figure 3"
  std::string figure_id;
  std::string chunk_id;   ///< the figure's own chunk
  std::string doc_name;
  int page = 0;
  bool doc_named = false; ///< the question names its document
  bool pinned = false;    ///< unambiguous: leads the context
  /// Stems of the question's words that name it: the label ("figur", "3"), the document's name
  /// words and document nouns ("paper", "vignette") next to them. Its chunk says them implicitly.
  std::vector<std::string> where;
};

struct NamedFigures {
  std::vector<std::string> labels;   ///< labels the question names, in order ("Figure 3")
  std::vector<NamedFigure> figures;  ///< stored figures carrying them (at most 3 per label)
  /// The figures' chunks as ranked lists for retrieve(): the pinned ones lead the context, the
  /// ambiguous ones (the same label in several documents, none named) compete like graph hits.
  std::vector<RankedList> lists() const;
};

/// Looks up the figures and tables `question` refers to by label: `keys` are those labels as
/// text/captions.h figure_references reads them ("f:3", "t:1"); the question's other words
/// choose among documents.
NamedFigures find_named_figures(Store& store, std::string_view question, const std::vector<std::string>& keys);

}  // namespace mmkg
