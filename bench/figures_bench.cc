// Figure extraction on real PDFs: parse time with and without figures, figures found against
// captions counted in the text, and (with --dump DIR) the PNGs and a TSV of what was found,
// to look at. A stage benchmark: it drives the PDF parser directly, as the ingest stage does.
//   mmkg_figures_bench [--dump DIR] [--rounds N] FILE.pdf...
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "ingest/files.h"
#include "ingest/parser.h"
#include "text/captions.h"

using namespace mmkg;

int main(int argc, char** argv) {
  std::string dump;
  int rounds = 3;
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--dump" && i + 1 < argc) dump = argv[++i];
    else if (a == "--rounds" && i + 1 < argc) rounds = std::stoi(argv[++i]);
    else files.push_back(a);
  }
  if (files.empty()) {
    std::fprintf(stderr, "usage: mmkg_figures_bench [--dump DIR] [--rounds N] FILE.pdf...\n");
    return 2;
  }
  auto parser = make_pdf_parser();
  std::printf("%-26s %6s %9s %9s %8s %8s %8s %8s %8s\n", "file", "pages", "ms_text", "ms_figs", "figures", "captions",
              "matched", "tcaps", "tables");
  for (const auto& f : files) {
    std::string bytes = read_file(f, int64_t{1} << 30);
    auto time = [&](bool figs, ParsedDocument* keep) {
      double best = 1e18;
      for (int r = 0; r < rounds; ++r) {
        ParseContext ctx;
        ctx.figures = figs;
        auto t0 = std::chrono::steady_clock::now();
        ParsedDocument d = parser->parse(f, bytes, ctx);
        best = std::min(best, std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        if (keep) *keep = std::move(d);
      }
      return best;
    };
    ParsedDocument doc;
    double t_text = time(false, nullptr);
    double t_figs = time(true, &doc);
    // Figure captions in the text: distinct "Figure N" labels that start a block.
    // Table captions likewise, matched by tables with rows (table_markdown).
    std::set<std::string> captions, matched, tcaps, tmatched;
    for (const Block& b : doc.blocks) {
      auto lab = caption_label(b.text);
      if (lab && lab->delimited) (lab->table ? tcaps : captions).insert(lab->label());
    }
    for (const Figure& fig : doc.figures) {
      if (captions.count(fig.label)) matched.insert(fig.label);
      if (tcaps.count(fig.label) && !fig.table_markdown.empty()) tmatched.insert(fig.label);
    }
    std::string name = std::filesystem::path(f).filename().string();
    std::printf("%-26s %6d %9.1f %9.1f %8zu %8zu %8zu %8zu %8zu\n", name.c_str(), doc.pages, t_text, t_figs,
                doc.figures.size(), captions.size(), matched.size(), tcaps.size(), tmatched.size());
    if (!dump.empty()) {
      std::filesystem::create_directories(dump);
      std::ofstream tsv(dump + "/" + name + ".tsv");
      int k = 0;
      for (const Figure& fig : doc.figures) {
        std::string png = dump + "/" + name + "-" + std::to_string(fig.page) + "-" + std::to_string(k++) + ".png";
        if (!fig.table_markdown.empty()) {  // a table without image: its caption and rows
          png.replace(png.size() - 4, 4, ".md");
          std::ofstream(png, std::ios::binary) << fig.caption << "\n\n" << fig.table_markdown << "\n";
        } else {
          std::ofstream(png, std::ios::binary) << fig.png;
        }
        tsv << png << "\t" << fig.page << "\t" << fig.source << "\t" << fig.label << "\t" << fig.width << "x" << fig.height
            << "\t" << fig.caption.substr(0, 100) << "\t" << fig.text.size() << "\n";
      }
      for (const auto& c : captions)
        if (!matched.count(c)) tsv << "MISSING\t" << c << "\n";
      for (const auto& c : tcaps)
        if (!tmatched.count(c)) tsv << "MISSING\t" << c << "\n";
      for (const auto& w : doc.warnings) tsv << "WARNING\t" << w << "\n";
    }
  }
  return 0;
}
