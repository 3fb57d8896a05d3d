// Verifier: checks a drafted answer sentence by sentence against the passage each sentence
// cites, and finds the question's gaps (what the answer's sources do not mention).
//
// A model sentence is kept when its cited passage holds at least `min_support` of its content
// words; below `min_lexical_with_embedding` it is unsupported. In between (a paraphrase, or a
// claim the passage only half makes) an LLM judge decides when one is configured, else the
// embedding cosine with the passage's closest sentence. With judge scope "all" the judge is also
// asked about the lexically supported sentences and may veto them (a negation, a swapped
// number). An unsupported sentence is revised to its passage's own best-matching sentence when
// that sentence says most of the same thing, and dropped otherwise; repeats are dropped. When no
// sentence survives, the extractive answer stands.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "agents/messages.h"
#include "llm/chat_model.h"

namespace mmkg {

class TermStats;
class Store;



/// What the LLM judge is asked about: nothing, the sentences the word-overlap check cannot
/// settle, or every sentence (its "no" may then veto a lexically supported one).
enum class JudgeScope { None, Borderline, All };
/// "none" | "borderline" | "all"; throws UsageError otherwise.
JudgeScope parse_judge_scope(const std::string& s);
const char* judge_scope_name(JudgeScope s);

using EmbedTexts = std::function<std::vector<std::vector<float>>(const std::vector<std::string>&)>;

struct VerifyOptions {
  double min_support = 0.6;                 ///< share of content words the cited passage must hold
  double min_lexical_with_embedding = 0.3;  ///< the borderline band's floor
  double min_cosine = 0.8;                  ///< embedding overlap that keeps a borderline sentence
  EmbedTexts embed;                         ///< empty: no embedding check
  /// The LLM judge (nullptr: none) and what it is asked about: "borderline" (sentences in the
  /// band between the two lexical thresholds) or "all" (every sentence above the floor; a "no"
  /// drops or revises even a lexically supported sentence).
  ChatModel* judge = nullptr;
  JudgeScope judge_scope = JudgeScope::Borderline;
  /// Revise an unsupported sentence to the cited passage's best-matching sentence when that
  /// sentence holds at least this share of the model sentence's content words (0 = never).
  double revise_min_overlap = 0.5;
};


/// Verifies `draft` against `retrieval` (see the file comment). Extractive drafts pass through.
Answer verify_draft(const std::string& question, const Retrieval& retrieval, const Draft& draft,
                    const VerifyOptions& opt, VerifyReport& report);

/// The question's informative words that none of the answer's cited passages mentions — or,
/// for an answer that found nothing, none of the retrieved passages. Informative: a content word
/// the corpus holds, at least as rare as the question's average, that is not a verb form (per
/// WordNet: framing words such as "describes", "add", "claim") and does not name a document
/// (`doc_words`: stems of the store's file names and titles, as in "according to the wiki").
/// Empty = no gap.
std::vector<std::string> answer_gaps(const std::string& question, const Answer& answer, const Retrieval& retrieval,
                                     TermStats& stats, const std::set<std::string>& doc_words = {});

/// Stems of the words of every document's file name and title in `store`.
std::set<std::string> document_name_stems(Store& store);

}  // namespace mmkg
