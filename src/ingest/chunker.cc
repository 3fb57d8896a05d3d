#include "ingest/chunker.h"

#include <algorithm>
#include <cmath>

#include "core/hash.h"
#include "text/sentences.h"

namespace mmkg {

RenderedDocument render_document(const ParsedDocument& doc) {
  RenderedDocument r;
  size_t total = 0;
  for (const auto& b : doc.blocks) total += b.text.size() + 12;
  r.text.reserve(total);
  for (size_t i = 0; i < doc.blocks.size(); ++i) {
    const Block& b = doc.blocks[i];
    if (b.text.empty()) continue;
    if (!r.text.empty()) r.text += "\n\n";
    size_t start = r.text.size();
    switch (b.kind) {
      case BlockKind::Heading:
        r.text.append(static_cast<size_t>(std::clamp(b.level, 1, 6)), '#');
        r.text += ' ';
        r.text += b.text;
        break;
      case BlockKind::ListItem:
        r.text += "- ";
        r.text += b.text;
        break;
      case BlockKind::Code:
        r.text += "```\n";
        r.text += b.text;
        r.text += "\n```";
        break;
      default:
        r.text += b.text;
    }
    r.spans.push_back({start, r.text.size(), i});
  }
  return r;
}

namespace {

// The smallest piece the packer moves around: a whole block, a sentence of a long block, or a
// word-bounded slice of an over-long sentence.
struct Unit {
  size_t start, end;
  int page;
  bool heading;          // a heading block: starts a new section
  bool section_start;    // first unit of a block (a paragraph boundary precedes it)
  std::string path;      // heading path in force for this unit
  size_t block;          // index into ParsedDocument::blocks
};

bool ws(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

// Splits [b, e) of `text` into slices of at most `limit` bytes, cutting at the last whitespace
// before the limit; a run without whitespace longer than the limit is cut at a UTF-8 boundary.
void split_words(const std::string& text, size_t b, size_t e, size_t limit,
                 std::vector<std::pair<size_t, size_t>>& out) {
  while (e - b > limit) {
    size_t cut = b + limit;
    size_t sp = cut;
    while (sp > b && !ws(text[sp])) --sp;
    if (sp > b) {
      cut = sp;
    } else {
      while (cut > b && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
      if (cut == b) cut = b + limit;  // cannot happen with valid UTF-8
    }
    out.emplace_back(b, cut);
    b = cut;
    while (b < e && ws(text[b])) ++b;
  }
  if (e > b) out.emplace_back(b, e);
}

// Appends the box of block `b` (rounded outwards to whole points) to `out`, merged into the last
// box when it is on the same page, in the same column (their x ranges overlap by half the
// narrower one) and at most a paragraph gap below or above it.
void add_block_box(const Block& b, std::vector<PageBox>& out) {
  if (b.page <= 0 || !(b.x1 > b.x0) || !(b.y1 > b.y0)) return;
  PageBox box{b.page, std::floor(b.x0), std::floor(b.y0), std::ceil(b.x1), std::ceil(b.y1)};
  if (!out.empty()) {
    PageBox& last = out.back();
    const float overlap = std::min(last.x1, box.x1) - std::max(last.x0, box.x0);
    const float narrower = std::min(last.x1 - last.x0, box.x1 - box.x0);
    const float gap = std::max(box.y0 - last.y1, last.y0 - box.y1);
    if (last.page == box.page && overlap >= 0.5f * narrower && gap <= 12.0f) {
      last.x0 = std::min(last.x0, box.x0), last.y0 = std::min(last.y0, box.y0);
      last.x1 = std::max(last.x1, box.x1), last.y1 = std::max(last.y1, box.y1);
      return;
    }
  }
  out.push_back(box);
}

std::string join_path(const std::vector<std::string>& stack) {
  std::string p;
  for (const auto& h : stack) {
    if (h.empty()) continue;
    if (!p.empty()) p += " > ";
    p += h;
  }
  return p;
}

/// Step 1 of chunk_document: the units of the rendered blocks, each with its heading path.
std::vector<Unit> make_units(const ParsedDocument& doc, const RenderedDocument& r, size_t target) {
  const std::string& text = r.text;
  std::vector<Unit> units;
  std::vector<std::string> stack;  // index = level - 1
  for (const auto& span : r.spans) {
    const Block& b = doc.blocks[span.block];
    if (b.kind == BlockKind::Heading) {
      size_t lvl = static_cast<size_t>(std::clamp(b.level, 1, 6));
      stack.resize(lvl);
      stack[lvl - 1] = b.text.size() > 200 ? std::string(b.text.substr(0, 200)) : b.text;
    }
    std::string path = join_path(stack);
    size_t len = span.end - span.start;
    if (len <= target || b.kind == BlockKind::Heading) {
      std::vector<std::pair<size_t, size_t>> parts;
      split_words(text, span.start, span.end, target, parts);
      for (size_t i = 0; i < parts.size(); ++i)
        units.push_back({parts[i].first, parts[i].second, b.page, b.kind == BlockKind::Heading && i == 0,
                         i == 0, path, span.block});
      continue;
    }
    auto sents = split_sentences(std::string_view(text).substr(span.start, len));
    bool first = true;
    for (auto [sb, se] : sents) {
      std::vector<std::pair<size_t, size_t>> parts;
      split_words(text, span.start + sb, span.start + se, target, parts);
      for (auto [pb, pe] : parts) {
        units.push_back({pb, pe, b.page, false, first, path, span.block});
        first = false;
      }
    }
  }
  return units;
}

/// The chunk of units [first, j): `first` is where the overlap carried from the chunk before
/// starts, `i` the first unit of its own (its heading path is the chunk's).
Chunk make_chunk(const ParsedDocument& doc, const std::string& text, const std::vector<Unit>& units,
                 size_t first, size_t i, size_t j, const std::string& doc_id, int seq) {
  const size_t start = units[first].start;
  Chunk c;
  c.doc_id = doc_id;
  c.seq = seq;
  c.start = static_cast<int64_t>(start);
  c.end = static_cast<int64_t>(units[j - 1].end);
  c.text = text.substr(start, units[j - 1].end - start);
  c.heading_path = units[i].path;
  int lo = 0, hi = 0;
  for (size_t k = first; k < j; ++k) {
    int p = units[k].page;
    if (p <= 0) continue;
    lo = lo == 0 ? p : std::min(lo, p);
    hi = std::max(hi, p);
  }
  c.page_start = lo;
  c.page_end = hi;
  for (size_t k = first; k < j; ++k)
    if (k == first || units[k].block != units[k - 1].block) add_block_box(doc.blocks[units[k].block], c.boxes);
  c.id = hash_hex(doc_id + ":" + std::to_string(c.start) + ":" + std::to_string(c.end));
  return c;
}

}  // namespace

std::vector<Chunk> chunk_document(const ParsedDocument& doc, const RenderedDocument& r,
                                  const std::string& doc_id, const ChunkerOptions& opt) {
  const size_t target = std::max<size_t>(opt.target_chars, 64);

  // 1. Units with their heading paths.
  const std::vector<Unit> units = make_units(doc, r, target);

  // 2. Greedy packing. A chunk is a contiguous byte range of `text`.
  std::vector<Chunk> chunks;
  size_t i = 0;
  size_t overlap_from = SIZE_MAX;  // first unit of the overlap carried into the next chunk
  while (i < units.size()) {
    size_t first = (overlap_from != SIZE_MAX) ? overlap_from : i;
    size_t j = i;  // exclusive end
    size_t start = units[first].start;
    while (j < units.size()) {
      const Unit& u = units[j];
      size_t len_with = u.end - start;
      bool has_own = j > i;
      if (has_own && u.heading && units[j - 1].end - start >= opt.min_chars) break;
      if (has_own && len_with > target) break;
      ++j;
    }
    if (j == i) ++j;  // always make progress
    chunks.push_back(make_chunk(doc, r.text, units, first, i, j, doc_id, static_cast<int>(chunks.size())));

    // Overlap: when the next chunk continues the same block (no heading, no paragraph break),
    // repeat the trailing sentences of this one that fit in overlap_chars.
    overlap_from = SIZE_MAX;
    if (j < units.size() && !units[j].heading && !units[j].section_start && opt.overlap_chars > 0) {
      size_t k = j;
      while (k > i + 1 && !units[k].section_start &&
             units[j - 1].end - units[k - 1].start <= opt.overlap_chars)
        --k;
      if (k < j && k > i) overlap_from = k;
    }
    i = j;
  }
  return chunks;
}

}  // namespace mmkg
