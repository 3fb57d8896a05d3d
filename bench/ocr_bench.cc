// OCR of the raster figures of real PDFs, image by image (docs/BENCHMARKS.md, "Figures and OCR"):
// for each figure that ingest would OCR (source "raster" or "file"), this thread's CPU time to
// prepare it (decode, grey, the text test, scaling) and to recognise it, the text height and the
// scale chosen, and the words read. One TSV line per image on stdout, a summary on stderr.
// Two runs' TSVs (one per build) compare with bench/ocr_compare.py. Runs one image at a time.
//   mmkg_ocr_bench [--dump DIR] FILE.pdf...     (--dump: each image as DIR/IMAGE.png, IMAGE as in the TSV)
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/hash.h"
#include "ingest/files.h"
#include "ingest/ocr.h"
#include "ingest/parser.h"

using namespace mmkg;

namespace {

/// The text on one TSV line: tabs and newlines become " | ".
std::string one_field(const std::string& s) {
  std::string out;
  for (char c : s) out += (c == '\t' || c == '\n' || c == '\r') ? std::string(" | ") : std::string(1, c);
  return out;
}

struct Totals {
  int images = 0, skipped = 0, errors = 0;
  double prepare = 0, recognise = 0;
  long words = 0;
};

void bench_file(const std::string& f, const std::string& dump, Totals& t) {
  auto parser = make_pdf_parser();
  ParseContext ctx;
  ctx.figures = true;
  ParsedDocument doc = parser->parse(f, read_file(f, int64_t{1} << 30), ctx);
  std::string name = std::filesystem::path(f).filename().string();
  for (const Figure& fig : doc.figures) {
    if (fig.png.empty() || (fig.source != "raster" && fig.source != "file")) continue;
    OcrResult r = ocr_png(fig.png);
    const std::string image = hash_hex(fig.png).substr(0, 16);
    if (!dump.empty()) std::ofstream(dump + "/" + image + ".png", std::ios::binary) << fig.png;
    ++t.images;
    t.skipped += r.blank;
    t.errors += !r.error.empty();
    t.prepare += r.prepare_seconds;
    t.recognise += r.recognise_seconds;
    t.words += r.words_kept;
    std::printf("%s\t%d\t%s\t%dx%d\t%d\t%d\t%d\t%.3f\t%.1f\t%.1f\t%d\t%s\n", name.c_str(), fig.page,
                image.c_str(), fig.width, fig.height, r.blank ? 1 : 0, r.text_lines, r.text_height,
                r.scale, r.prepare_seconds * 1e3, r.recognise_seconds * 1e3, r.words_kept,
                one_field(r.error.empty() ? r.text : "ERROR: " + r.error).c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string dump;
  int first = 1;
  if (argc > 2 && std::string(argv[1]) == "--dump") dump = argv[2], first = 3;
  if (argc <= first) {
    std::fprintf(stderr, "usage: mmkg_ocr_bench [--dump DIR] FILE.pdf...\n");
    return 2;
  }
  if (!dump.empty()) std::filesystem::create_directories(dump);
  std::string why;
  if (!ocr_available(&why)) {
    std::fprintf(stderr, "mmkg_ocr_bench: %s\n", why.c_str());
    return 1;
  }
  std::printf("file\tpage\timage\tsize\tskipped\tlines\ttext_px\tscale\tprepare_ms\trecognise_ms\twords\ttext\n");
  Totals t;
  for (int i = first; i < argc; ++i) bench_file(argv[i], dump, t);
  std::fprintf(stderr, "%d images: %d skipped, %d errors; CPU %.2f s prepare + %.2f s recognise; %ld words\n", t.images,
               t.skipped, t.errors, t.prepare, t.recognise, t.words);
  return 0;
}
