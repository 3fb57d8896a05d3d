#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "core/text.h"
#include "graph/extractor.h"
#include "graph/graph_types.h"

namespace mmkg::graph {
namespace {

ChunkExtraction run(const std::string& text, const std::string& title = "", const std::string& heading = "") {
  auto ex = make_rule_extractor();
  ExtractInput in;
  in.chunk_id = "c1";
  in.doc_id = "d1";
  in.doc_title = title;
  in.heading_path = heading;
  in.text = text;
  return ex->extract(in);
}

TEST(ExtractDebug, Dump) {
  const char* t = std::getenv("MMKG_EXTRACT_DUMP");
  if (!t) GTEST_SKIP();
  auto r = run(t, "Test Title", "");
  for (auto& x : r.terms)
    std::cout << "T " << x.surface << " [" << x.kind << "] x" << x.count << (x.expansion.empty() ? "" : " exp=" + x.expansion)
              << (x.definition.empty() ? "" : " DEF") << "\n";
  for (auto& x : r.relations) std::cout << "R " << x.src << " -" << x.type << "-> " << x.dst << " w" << x.weight << "\n";
}


// ---------------------------------------------------------------- corpus: throughput and counts
std::string corpus_dir() {
  std::vector<std::filesystem::path> roots = {std::filesystem::current_path()};
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) roots.push_back(exe.parent_path());
  for (auto r : roots)
    for (int up = 0; up < 5 && !r.empty(); ++up, r = r.parent_path())
      if (std::filesystem::exists(r / "examples/corpus/attention_wiki.txt")) return (r / "examples/corpus").string();
  return "";
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// ~1000-character pieces cut at whitespace.
std::vector<std::string> pieces(const std::string& text) {
  std::vector<std::string> out;
  size_t p = 0;
  while (p < text.size()) {
    size_t e = std::min(text.size(), p + 1000);
    if (e < text.size()) {
      size_t sp = text.find_last_of(" \n", e);
      if (sp != std::string::npos && sp > p + 500) e = sp;
    }
    out.push_back(text.substr(p, e - p));
    p = e;
  }
  return out;
}

TEST(ExtractCorpus, ThroughputCountsAndRanking) {
  std::string dir = corpus_dir();
  if (dir.empty()) GTEST_SKIP() << "examples/corpus not found";
  const std::vector<std::string> files = {"attention_wiki.txt", "attention_papers.txt", "attention_monograph.txt"};
  auto ex = make_rule_extractor();
  std::vector<std::vector<ExtractInput>> docs;
  size_t total = 0;
  for (auto& f : files) {
    docs.emplace_back();
    int i = 0;
    for (auto& p : pieces(read_all(dir + "/" + f))) {
      ExtractInput in;
      in.chunk_id = f + "#" + std::to_string(i++);
      in.doc_id = f;
      in.text = p;
      docs.back().push_back(std::move(in));
    }
    total += docs.back().size();
  }
  ex->extract(docs[0][0]);  // load WordNet outside the timing
  std::vector<std::vector<ChunkExtraction>> out(docs.size());
  auto t0 = std::chrono::steady_clock::now();
  for (size_t d = 0; d < docs.size(); ++d)
    for (auto& in : docs[d]) out[d].push_back(ex->extract(in));
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  double rate = total / secs;
  // chunk-level BM25-style idf over all pieces
  std::unordered_map<std::string, int> df;
  for (auto& d : docs)
    for (auto& in : d) {
      std::unordered_set<std::string> seen;
      for (auto& w : words(in.text)) seen.insert(w);
      for (auto& w : seen) ++df[w];
    }
  auto idf = [&](const std::string& w) {
    auto it = df.find(w);
    double n = it == df.end() ? 0 : it->second;
    return std::log(1 + (total - n + 0.5) / (n + 0.5));
  };
  bool report = std::getenv("MMKG_EXTRACT_REPORT") != nullptr;
  if (report) std::cout << "chunks: " << total << " in " << secs << " s = " << rate << " chunks/s\n";
  std::vector<std::map<std::string, double>> ranked(docs.size());
  for (size_t d = 0; d < docs.size(); ++d) {
    auto raw_terms = 0, raw_rels = 0;
    for (auto& c : out[d]) raw_terms += c.terms.size(), raw_rels += c.relations.size();
    rank_terms(out[d], idf);
    std::map<std::string, double> best;  // name_key → score
    std::map<std::string, std::string> shown;
    std::map<std::string, int> rel_types;
    int rels = 0;
    for (auto& c : out[d]) {
      for (auto& t : c.terms) best[name_key(t.surface)] = t.score, shown[name_key(t.surface)] = t.surface;
      for (auto& r : c.relations) ++rel_types[r.type], ++rels;
    }
    ranked[d] = best;
    if (!report) continue;
    std::cout << files[d] << ": " << docs[d].size() << " chunks, candidates " << raw_terms << " terms / " << raw_rels
              << " relations; after ranking " << best.size() << " distinct terms, " << rels << " relations (";
    for (auto& [t, n] : rel_types) std::cout << t << " " << n << " ";
    std::cout << ")\n";
    std::vector<std::pair<double, std::string>> top;
    for (auto& [k, s] : best) top.emplace_back(s, shown[k]);
    std::sort(top.rbegin(), top.rend());
    for (size_t i = 0; i < top.size() && i < 40; ++i) std::cout << "  " << top[i].second << " " << top[i].first << "\n";
    std::cout << "  ... lowest kept:";
    for (size_t i = top.size() > 10 ? top.size() - 10 : 0; i < top.size(); ++i) std::cout << " " << top[i].second << ";";
    std::cout << "\n";
    for (auto& c : out[d])
      for (auto& r : c.relations)
        if (r.type != "co_occurs" && report) std::cout << "    R " << r.src << " -" << r.type << "-> " << r.dst << "\n";
  }
  EXPECT_GT(rate, 200.0);
  EXPECT_TRUE(ranked[2].count("multi head attention"));
  EXPECT_TRUE(ranked[2].count("self attention"));
  EXPECT_TRUE(ranked[1].count("llm"));
  EXPECT_TRUE(ranked[0].count("attention mechanism"));
  EXPECT_FALSE(ranked[2].count("paper"));
  EXPECT_FALSE(ranked[2].count("way"));
}

}  // namespace
}  // namespace mmkg::graph
