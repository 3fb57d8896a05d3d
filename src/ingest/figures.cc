#include "ingest/figures.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/hash.h"
#include "ingest/formats.h"
#include "ingest/ocr.h"
#include "text/captions.h"
#include "text/sentences.h"
#include "text/words.h"

namespace mmkg {

namespace {

constexpr size_t kMaxReferenceBytes = 400;  // a longer "sentence" is a run-on block: cut

std::string trim_copy(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && static_cast<unsigned char>(s[b]) <= ' ') ++b;
  while (e > b && static_cast<unsigned char>(s[e - 1]) <= ' ') --e;
  return std::string(s.substr(b, e - b));
}

/// A cached per-image result (a JSON object), or null when there is none or it is unreadable.
nlohmann::json cached_result(const FigureCache& cache, const std::string& key) {
  if (!cache.get) return nullptr;
  std::optional<std::string> v;
  try {
    v = cache.get(key);
  } catch (const std::exception&) {  // an unreadable cache is a cache miss: the work is redone
    return nullptr;
  }
  if (!v) return nullptr;
  nlohmann::json j = nlohmann::json::parse(*v, nullptr, false);
  return j.is_object() ? j : nlohmann::json(nullptr);
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

void prepare_figures(ParsedDocument& doc, const std::string& doc_id, size_t max_references) {
  std::map<std::string, std::vector<size_t>> by_key;  // "f:3" -> figures with that label
  for (size_t i = 0; i < doc.figures.size(); ++i) {
    Figure& f = doc.figures[i];
    f.seq = static_cast<int>(i);
    f.id = hash_hex(doc_id + ":figure:" + std::to_string(i));
    if (!f.png.empty()) f.image_hash = hash_hex(f.png);
    if (f.caption.empty() && !f.alt.empty()) f.caption = f.alt;
    if (f.label.empty() && !f.caption.empty()) {
      if (auto lab = caption_label(f.caption)) {
        f.label = lab->label();
        f.table = f.table || lab->table;
      }
    }
    if (!f.label.empty())
      if (auto lab = caption_label(f.label)) by_key[lab->key()].push_back(i);
  }
  if (by_key.empty()) return;
  // References: sentences of the text that name a figure's label, other than its caption.
  for (const Block& b : doc.blocks) {
    if (b.kind == BlockKind::Caption || b.kind == BlockKind::Code) continue;
    auto own = caption_label(b.text);
    for (auto [s, e] : split_sentences(b.text)) {
      std::string_view sent = std::string_view(b.text).substr(s, e - s);
      if (own && s == 0) continue;  // the caption sentence itself
      auto keys = figure_references(sent);
      if (keys.empty()) continue;
      std::string text = trim_copy(utf8_prefix(sent, kMaxReferenceBytes));
      if (text.size() < 12) continue;
      for (const auto& k : keys) {
        auto it = by_key.find(k);
        if (it == by_key.end()) continue;
        for (size_t fi : it->second) {
          Figure& f = doc.figures[fi];
          if (f.references.size() >= max_references) continue;
          if (std::find(f.references.begin(), f.references.end(), text) == f.references.end())
            f.references.push_back(text);
        }
      }
    }
  }
}

namespace {

/// One run of the figure stage's slow steps: OCR of raster images and the vision model's
/// descriptions, as tasks read from the cache first and run on a small pool. The figures'
/// fields and the stats are written under `mu_`.
class FigureTextRun {
 public:
  FigureTextRun(ParsedDocument& doc, const FigureOptions& opt, const FigureCache& cache, FigureStats& st)
      : doc_(doc), opt_(opt), cache_(cache), st_(st) {}

  void run() {
    std::string why;
    const bool ocr_on = opt_.ocr && ocr_available(&why);
    ocr_id_ = ocr_on ? ocr_engine_id() : std::string();
    for (size_t i = 0; i < doc_.figures.size(); ++i) {
      const Figure& f = doc_.figures[i];
      if (f.png.empty()) continue;
      if (ocr_on && (f.source == "raster" || f.source == "file")) tasks_.push_back({i, false});
      if (opt_.describer) tasks_.push_back({i, true});
    }
    if (tasks_.empty()) return;
    // The cache is read here, on the calling thread, before the pool starts: its reader is one
    // store connection, which is not for sharing between threads.
    hits_.resize(tasks_.size());
    for (size_t t = 0; t < tasks_.size(); ++t) hits_[t] = cached_result(cache_, key_of(tasks_[t]));
    run_pool();
  }

 private:
  struct Task {
    size_t fig;
    bool describe;  // else OCR
  };

  std::string key_of(const Task& task) const {
    const Figure& f = doc_.figures[task.fig];
    return task.describe ? "vlm|" + opt_.describer->id() + "|" + f.image_hash + "|" + hash_hex(f.caption)
                         : "ocr|" + ocr_id_ + "|" + f.image_hash;
  }

  void run_pool() {
    unsigned hw = std::max(1u, std::thread::hardware_concurrency());
    size_t n = std::min<size_t>(tasks_.size(), opt_.threads > 0 ? static_cast<size_t>(opt_.threads) : hw);
    // An exception must not leave a pool thread (that would end the process); the other threads
    // go on with the remaining figures.
    auto guarded_run = [&] {
      try {
        work();
      } catch (const std::exception& e) {
        std::lock_guard lk(mu_);
        st_.warnings.push_back(std::string("figure text: ") + e.what() + "; some figures keep their caption only");
      }
    };
    if (n <= 1) {
      guarded_run();
    } else {
      std::vector<std::thread> pool;
      for (size_t i = 0; i < n; ++i) pool.emplace_back(guarded_run);
      for (auto& t : pool) t.join();
    }
  }

  /// A pool thread: takes the next task until none is left.
  void work() {
    for (;;) {
      size_t t = next_.fetch_add(1);
      if (t >= tasks_.size()) return;
      const Task task = tasks_[t];
      Figure& f = doc_.figures[task.fig];
      const std::string where = (f.page ? "page " + std::to_string(f.page) + ", " : std::string()) +
                                (f.label.empty() ? "figure " + std::to_string(f.seq + 1) : f.label);
      const std::string key = key_of(task);
      nlohmann::json res = std::move(hits_[t]);
      if (!task.describe) ocr(f, where, key, std::move(res));
      else describe(f, where, key, std::move(res));
    }
  }

  /// OCR of the figure's image (or its cached result): the text read is added to the figure's.
  void ocr(Figure& f, const std::string& where, const std::string& key, nlohmann::json res) {
    const bool cached = res.is_object();
    double secs = 0;
    if (!cached) {
      auto t0 = std::chrono::steady_clock::now();
      OcrResult r = ocr_png(f.png);
      secs = seconds_since(t0);
      if (!r.error.empty()) {
        std::lock_guard lk(mu_);
        st_.warnings.push_back(where + ": OCR failed (" + r.error + "); the figure keeps its caption only");
        ++st_.ocr_runs;
        st_.ocr_seconds += secs;
        return;
      }
      res = {{"text", r.text}, {"conf", r.confidence}, {"blank", r.blank}};
    }
    std::lock_guard lk(mu_);
    if (cached) ++st_.ocr_cached;
    else {
      ++st_.ocr_runs;
      st_.ocr_seconds += secs;
      st_.cache_new.emplace_back(key, res.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
    if (!cached && res.value("blank", false)) ++st_.ocr_skipped;
    std::string text = res.value("text", "");
    if (!text.empty()) {
      f.text = f.text.empty() ? text : f.text + "\n" + text;
      f.text_source = f.text_source.empty() || f.text_source == "ocr" ? "ocr" : f.text_source + "+ocr";
      f.ocr_confidence = res.value("conf", -1.0f);
    }
  }

  /// The vision model's description of the figure (or its cached result).
  void describe(Figure& f, const std::string& where, const std::string& key, nlohmann::json res) {
    const bool cached = res.is_object();
    double secs = 0;
    if (!cached) {
      auto t0 = std::chrono::steady_clock::now();
      try {
        DescribedFigure d = opt_.describer->describe(f);
        res = {{"description", d.description}, {"text", d.text}, {"kind", d.kind}};
      } catch (const std::exception& e) {
        std::lock_guard lk(mu_);
        ++st_.describe_failed;
        st_.describe_seconds += seconds_since(t0);
        st_.warnings.push_back(where + ": the vision model failed (" + std::string(e.what()) +
                               "); the figure has no description");
        return;
      }
      secs = seconds_since(t0);
    }
    std::lock_guard lk(mu_);
    if (cached) ++st_.describe_cached;
    else {
      ++st_.described;
      st_.describe_seconds += secs;
      st_.cache_new.emplace_back(key, res.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
    f.description = res.value("description", "");
    f.visual_kind = res.value("kind", "");
    std::string seen = res.value("text", "");
    // The model's reading of the image helps where OCR found nothing.
    if (f.text.empty() && !seen.empty()) {
      f.text = seen;
      f.text_source = "vlm";
    }
  }

  ParsedDocument& doc_;
  const FigureOptions& opt_;
  const FigureCache& cache_;
  FigureStats& st_;
  std::string ocr_id_;
  std::vector<Task> tasks_;
  std::vector<nlohmann::json> hits_;  // cached results, by task
  std::mutex mu_;                     // guards st_ and the figures' fields written by tasks
  std::atomic<size_t> next_{0};
};

}  // namespace

FigureStats enrich_figures(ParsedDocument& doc, const FigureOptions& opt, const FigureCache& cache) {
  FigureStats st;
  for (const Figure& f : doc.figures) (f.table ? st.tables : st.figures) += 1;
  FigureTextRun(doc, opt, cache, st).run();
  return st;
}

std::string figure_chunk_text(const Figure& f) {
  std::string out;
  auto para = [&](const std::string& s) {
    if (s.empty()) return;
    if (!out.empty()) out += "\n\n";
    out += s;
  };
  std::string head = f.caption;
  if (head.empty()) head = f.label.empty() ? std::string(f.table ? "Table" : "Figure") : f.label;
  para(head);
  para(f.table_markdown);
  if (!f.references.empty()) {
    // The sentences that refer to it, as they are: an extractive answer can quote them.
    std::string refs;
    for (size_t i = 0; i < f.references.size(); ++i) refs += (i ? " " : "") + f.references[i];
    para(refs);
  }
  if (!f.text.empty()) para(std::string(f.table ? kTableTextLead : kFigureTextLead) + collapse_ws(f.text));
  if (!f.description.empty()) para("Description: " + f.description);
  return out;
}

void add_figure_chunks(ParsedDocument& doc, RenderedDocument& rendered, const std::string& doc_id,
                       std::vector<Chunk>& chunks) {
  const size_t body_end = rendered.text.size();
  const size_t text_chunks = chunks.size();
  for (Figure& f : doc.figures) {
    size_t off = body_end;
    for (const auto& sp : rendered.spans)
      if (sp.block >= f.block) {
        off = sp.start;
        break;
      }
    f.offset = static_cast<int64_t>(off);
    // Nothing to search by (no caption, references, text or description): the figure is kept
    // (an image in the store and the export) but gets no chunk.
    if (f.caption.empty() && f.references.empty() && f.text.empty() && f.description.empty() &&
        f.table_markdown.empty())
      continue;
    Chunk c;
    c.doc_id = doc_id;
    c.seq = static_cast<int>(chunks.size());
    c.page_start = c.page_end = f.page;
    for (size_t i = 0; i < text_chunks; ++i)
      if (chunks[i].start <= static_cast<int64_t>(off)) c.heading_path = chunks[i].heading_path;
    rendered.text += "\n\n";
    c.start = static_cast<int64_t>(rendered.text.size());
    rendered.text += figure_chunk_text(f);
    c.end = static_cast<int64_t>(rendered.text.size());
    c.text = rendered.text.substr(static_cast<size_t>(c.start));
    c.figure_id = f.id;
    if (format_info(doc.format).paged && f.page > 0 && f.x1 > f.x0 && f.y1 > f.y0)
      c.boxes.push_back({f.page, std::floor(f.x0), std::floor(f.y0), std::ceil(f.x1), std::ceil(f.y1)});
    c.id = hash_hex(doc_id + ":figure:" + f.id);
    chunks.push_back(std::move(c));
  }
}

}  // namespace mmkg
