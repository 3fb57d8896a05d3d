// Helpers for unit tests only: a text document of given chunks written straight to a store.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "store/store.h"

namespace mmkg::testing {

/// A document record for `path` (its name: the path after "/c/").
inline DocumentRecord document_at(const std::string& id, const std::string& path, const std::string& format) {
  DocumentRecord d;
  d.id = id;
  d.path = path;
  d.name = path.rfind("/c/", 0) == 0 ? path.substr(3) : path;
  d.format = format;
  return d;
}

/// One chunk per text, ids "<id>-<i>", every chunk on `page`.
inline std::vector<Chunk> text_chunks(const std::string& id, const std::vector<std::string>& texts, int page) {
  std::vector<Chunk> cs;
  for (size_t i = 0; i < texts.size(); ++i) {
    Chunk c;
    c.id = id + "-" + std::to_string(i);
    c.seq = static_cast<int>(i);
    c.text = texts[i];
    c.page_start = c.page_end = page;
    cs.push_back(c);
  }
  return cs;
}

/// Writes document `id` at `path` (its name: the path after "/c/") with one chunk per text,
/// chunk ids "<id>-<i>", every chunk on `page` (0: no pages).
inline void put_text_document(Store& store, const std::string& id, const std::string& path,
                              const std::vector<std::string>& texts, int page = 0) {
  store.put_document(document_at(id, path, "text"), "", text_chunks(id, texts, page), std::nullopt);
}

/// `n` background passages cycling through `topics`, numbered ("<topic>, example <i>."): chunks
/// on other subjects, so that each search list's z-scores have a distribution to stand out of.
inline std::vector<std::string> background_passages(const std::vector<std::string>& topics, size_t n) {
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) out.push_back(topics[i % topics.size()] + ", example " + std::to_string(i) + ".");
  return out;
}

/// A figure of put_figure_document: its own chunk's text is "<caption> <text>".
struct FigureSpec {
  std::string label;    ///< "Figure 1"
  std::string caption;  ///< "Figure 1: Loss curves."
  std::string text;     ///< what else its chunk says (references, inner text)
  std::string png;      ///< image bytes; empty: no image
  int page = 1;
};

/// Document `id` at `path` with one text chunk per text (ids "<id>-<i>") and, after them, one
/// figure per spec with its own chunk (ids "<id>-fig<k>", figure ids "<id>-f<k>").
inline void put_figure_document(Store& store, const std::string& id, const std::string& path,
                                const std::vector<std::string>& texts, const std::vector<FigureSpec>& specs) {
  std::vector<Chunk> cs = text_chunks(id, texts, 1);
  std::vector<Figure> figs;
  for (size_t k = 0; k < specs.size(); ++k) {
    Figure f;
    f.id = id + "-f" + std::to_string(k);
    f.seq = static_cast<int>(k);
    f.source = "vector";
    f.page = specs[k].page;
    f.label = specs[k].label;
    f.table = specs[k].label.rfind("Table", 0) == 0;
    f.caption = specs[k].caption;
    f.text = specs[k].text;
    f.png = specs[k].png;
    if (!f.png.empty()) f.image_hash = id + "-img" + std::to_string(k);
    figs.push_back(f);
    Chunk c;
    c.id = id + "-fig" + std::to_string(k);
    c.seq = static_cast<int>(texts.size() + k);
    c.text = specs[k].caption + " " + specs[k].text;
    c.page_start = c.page_end = specs[k].page;
    c.figure_id = f.id;
    cs.push_back(c);
  }
  store.put_document(document_at(id, path, "pdf"), "", cs, std::nullopt, "", figs);
}

}  // namespace mmkg::testing
