// Token counts of texts by mmkg's counters, for comparison with real tokenizers
// (bench/token_counts.py). Reads JSON lines {"text": "..."} on stdin; writes one JSON line per
// input: {"estimate": n, "chars:4": n}.
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "text/tokens.h"

int main() {
  auto est = mmkg::make_token_counter("estimate");
  auto c4 = mmkg::make_token_counter("chars:4");
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    const std::string text = nlohmann::json::parse(line).at("text").get<std::string>();
    std::cout << nlohmann::json{{est->name(), est->count(text)}, {c4->name(), c4->count(text)}}.dump() << "\n";
  }
  return 0;
}
