// mmkg_retrieve_bench: the RAG retriever's sub-query searches, sequential versus parallel.
//
//   mmkg_retrieve_bench --store DIR --questions FILE.jsonl [--mode hybrid] [--runs 5]
//                       [--embedder native] [--json OUT]
//
// For every question of FILE (JSON lines with a "question" field: the dev set), builds the rule
// plan (the question plus key phrases, as `mmkg ask --llm none` does) and times retrieve() with
//   sequential  RetrieveOptions::parallel = 1: one sub-query after another, each embedded alone
//   parallel    RetrieveOptions::parallel = 0: all sub-queries embedded in one batch, the searches
//               on one thread per core, each with its own SQLite read connection
// alternating the two per question, --runs times after one untimed warm-up pass (which loads
// the model, the vector index and the reader connections). Reports the median over runs of the
// summed per-question time, the speed-up, and checks that both give the same context.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "agents/planner.h"
#include "app/session.h"
#include "retrieve/retrieval.h"
#include "core/error.h"
#include "index/lexical.h"
#include "index/searcher.h"
#include "store/store.h"

using namespace mmkg;
using Clock = std::chrono::steady_clock;

int main(int argc, char** argv) {
  std::string store_dir, qpath, mode = "hybrid", embedder = "native", json_out;
  int runs = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--store") store_dir = v;
    else if (a == "--questions") qpath = v;
    else if (a == "--mode") mode = v;
    else if (a == "--runs") runs = std::stoi(v);
    else if (a == "--embedder") embedder = v;
    else if (a == "--json") json_out = v;
    else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return 2;
    }
  }
  if (store_dir.empty() || qpath.empty()) {
    std::fprintf(stderr, "usage: mmkg_retrieve_bench --store DIR --questions FILE.jsonl [--mode M] [--runs N]\n");
    return 2;
  }
  try {
    // Through the Session, as `mmkg ask` opens its store and searcher.
    Config cfg;
    cfg.store = store_dir;
    cfg.embedder = mmkg::EmbedderSpec::parse(embedder);
    auto session = Session::open(cfg);
    Store* store = &session->store();
    Searcher& searcher = session->searcher();
    TermStats stats(*store);
    std::vector<Plan> plans;
    std::ifstream in(qpath);
    for (std::string line; std::getline(in, line);) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      plans.push_back(plan_rules(analyse_question(nlohmann::json::parse(line).at("question").get<std::string>()), stats));
    }
    size_t subqueries = 0;
    for (auto& p : plans) subqueries += p.subqueries.size();
    RetrieveOptions seq, par;
    seq.mode = par.mode = parse_search_mode(mode);
    seq.parallel = 1;
    par.parallel = 0;
    std::vector<double> t_seq, t_par;
    size_t same = 0;
    for (int run = 0; run <= runs; ++run) {
      double s = 0, p = 0;
      for (auto& plan : plans) {
        auto t0 = Clock::now();
        Retrieval a = retrieve(*store, searcher, plan, seq);
        auto t1 = Clock::now();
        Retrieval b = retrieve(*store, searcher, plan, par);
        auto t2 = Clock::now();
        s += std::chrono::duration<double, std::milli>(t1 - t0).count();
        p += std::chrono::duration<double, std::milli>(t2 - t1).count();
        if (run == 0) {
          bool eq = a.context.size() == b.context.size();
          for (size_t i = 0; eq && i < a.context.size(); ++i) eq = a.context[i].hit.chunk_id == b.context[i].hit.chunk_id;
          same += eq;
        }
      }
      if (run > 0) t_seq.push_back(s), t_par.push_back(p);  // run 0 is the warm-up
    }
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    const double ms = median(t_seq), mp = median(t_par), nq = static_cast<double>(plans.size());
    std::printf("questions %zu (%zu sub-queries, %.2f per question), mode %s, runs %d\n", plans.size(), subqueries,
                static_cast<double>(subqueries) / nq, mode.c_str(), runs);
    std::printf("sequential: %.2f ms per question\nparallel:   %.2f ms per question\nspeed-up:   %.2fx\n",
                ms / nq, mp / nq, ms / mp);
    std::printf("same context: %zu of %zu questions\n", same, plans.size());
    if (!json_out.empty()) {
      nlohmann::json j = {{"questions", plans.size()}, {"subqueries", subqueries}, {"mode", mode},
                          {"runs", runs}, {"sequential_ms_per_question", ms / nq},
                          {"parallel_ms_per_question", mp / nq}, {"speedup", ms / mp},
                          {"same_context", same}};
      std::ofstream(json_out) << j.dump(2) << "\n";
    }
    return same == plans.size() ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mmkg_retrieve_bench: %s\n", e.what());
    return 1;
  }
}
