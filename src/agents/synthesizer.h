// Extractive synthesizer: the few sentences that best answer the question, each cited.
#pragma once

#include <string>
#include <vector>

#include "agents/rag.h"

namespace mmkg {

class TermStats;

struct Citation {
  int n = 0;                 ///< the [n] marker in the answer
  std::string doc;           ///< document file name
  std::string doc_id;
  std::string chunk_id;
  int page = 0;              ///< first page of the chunk; 0 when the document has no pages
  int page_end = 0;
  std::string heading_path;
  std::string text;          ///< the cited chunk's text
  std::string quote;         ///< the sentence(s) of the chunk used in the answer
};

struct SynthOptions {
  size_t max_sentences = 3;
  size_t max_answer_chars = 800;
  /// Least share of the question's information (IDF-weighted content words) that the best
  /// passage must contain for the question to count as answered.
  double min_coverage = 0.5;
};

struct Answer {
  std::string text;
  std::vector<Citation> citations;
  bool found = false;        ///< false: the answer says the documents do not contain it
  double coverage = 0;       ///< best passage coverage of the question's content words
};

/// A citation numbered `n` for a retrieved chunk (quote empty).
Citation make_citation(const SearchHit& h, int n);

/// The answer given when the documents do not contain one.
extern const char* const kNotFound;

Answer synthesize_extractive(const std::string& question, const Retrieval& retrieval, TermStats& stats,
                             const SynthOptions& opt = {});

}  // namespace mmkg
