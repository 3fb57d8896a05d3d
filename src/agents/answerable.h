// The "the documents do not say" decision of the extractive synthesizer: does any passage of the
// context answer the question at all?
#pragma once

#include <set>
#include <string>
#include <vector>

#include "agents/messages.h"
#include "text/query_terms.h"
#include "text/question_shape.h"

namespace mmkg {

class TermStats;

/// How well the context's sentences answer one part: the best coverage of its terms by any
/// sentence, and by a sentence of the kind it asks for (a number for "how many").
struct PartEvidence {
  double best = 0;
  double best_of_kind = 0;
};

struct Answerability {
  bool answerable = false;
  double coverage = 0;  ///< best passage's IDF share of the question words the corpus holds
  std::string why;      ///< when not answerable: what is missing
};

/// Judges whether the context answers `question`:
///  - a name the question asks about (a capitalised or mixed-case term: "Stata", "FooNet-2")
///    that no chunk of the corpus holds means the documents are about something else;
///  - the best passage must hold at least `min_coverage` of the question's information, counted
///    over the words the corpus holds (IDF-weighted, framing verbs and adverbs discounted; a
///    paraphrase's words the corpus never uses cannot count against it);
///  - a part asking for a number, whose words the passages use, needs a sentence holding a
///    number that covers it nearly as well (2/3; `evidence`, one per part): otherwise the documents
///    discuss the subject but not the figure asked for.
/// `chunk_stems[i]` are the stems passage i shows (with its document name and headings).
Answerability judge_answerable(const std::string& question, const std::vector<QuestionPart>& parts,
                               const std::vector<PartEvidence>& evidence,
                               const std::vector<std::set<std::string>>& chunk_stems, TermStats& stats,
                               double min_coverage);

}  // namespace mmkg
