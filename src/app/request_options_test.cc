// The option tables themselves: names, defaults read off a default-made request, the checks every
// door shares, and the errors that name the option as the door spells it.
#include "app/request_options.h"

#include <gtest/gtest.h>

#include <set>

#include "core/error.h"

namespace mmkg {
namespace {

using nlohmann::json;

template <class Table>
void well_formed(const Table& table) {
  std::set<std::string> names;
  for (const auto& o : table) {
    EXPECT_TRUE(names.insert(o.spec.name).second) << "two options named " << o.spec.name;
    EXPECT_NE(o.spec.doors, 0u) << o.spec.name << " has no front door";
    EXPECT_FALSE(o.spec.help.empty()) << o.spec.name;
    EXPECT_NO_THROW(o.spec.check(o.spec.fallback, kDoorHttp)) << o.spec.name << "'s default is outside its own range";
    if (o.spec.type == OptionType::Integer || o.spec.type == OptionType::Number) {
      EXPECT_LT(o.spec.min, o.spec.max);
    }
  }
}

TEST(RequestOptions, EachTableIsWellFormedAndItsDefaultsAreTheRequestsOwn) {
  well_formed(search_options());
  well_formed(ask_options());
  const AskRequest a;
  for (const auto& o : ask_options()) EXPECT_EQ(o.get(a), o.spec.fallback) << o.spec.name;
  EXPECT_EQ(ask_options().front().spec.fallback, a.options.retrieve.k_per_query);
}

TEST(RequestOptions, ValuesAreCheckedAndAppliedWhateverTheDoor) {
  AskRequest r;
  apply_options({{"max_rounds", 3}, {"rerank", "lexical+embed"}, {"graph_lists", true}, {"rerank_weight", 0.25}}, r,
                kDoorHttp);
  EXPECT_EQ(r.options.max_rounds, 3);
  EXPECT_TRUE(r.rerank.uses(RerankerKind::Embed));
  EXPECT_TRUE(r.options.graph_lists);
  EXPECT_DOUBLE_EQ(r.options.retrieve.rerank_weight, 0.25);
  EXPECT_TRUE(r.fit_context);
  EXPECT_THROW(apply_options({{"max_rounds", 2.5}}, r, kDoorHttp), UsageError);
  EXPECT_THROW(apply_options({{"max_rounds", "3"}}, r, kDoorHttp), UsageError);
  EXPECT_THROW(apply_options({{"parallel", 2}}, r, kDoorHttp), UsageError);  // the operator's, not a client's
  apply_options({{"parallel", 2}}, r, kDoorServe);
  EXPECT_EQ(r.options.retrieve.parallel, 2);
  EXPECT_THROW(apply_options(json::array({1}), r, kDoorHttp), UsageError);
}

TEST(RequestOptions, ErrorsNameTheOptionAsTheDoorSpellsItAndSayWhatItTakes) {
  AskRequest r;
  auto message = [&](const json& given, Door door) {
    try {
      apply_options(given, r, door);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(message({{"max_rounds", 9}}, kDoorCli), "--max-rounds must be an integer from 1 to 5, not 9");
  EXPECT_EQ(message({{"max_rounds", 9}}, kDoorHttp), "max_rounds must be an integer from 1 to 5, not 9");
  EXPECT_EQ(message({{"judge", "some"}}, kDoorMcp), "judge must be one of none, borderline or all, not \"some\"");
  EXPECT_NE(message({{"context_tokens", 20}}, kDoorCli).find("--context-tokens: 20 tokens leave no room"), std::string::npos);
  EXPECT_NE(message({{"rerank", "cross"}}, kDoorHttp).find("rerank: unknown reranker 'cross'"), std::string::npos);
  EXPECT_NE(message({{"top_k", 3}}, kDoorHttp).find("option top_k is not known here; the options are k, mode,"),
            std::string::npos);
  const OptionSpec& k = ask_options().front().spec;
  EXPECT_EQ(k.flag(), "-k");
  EXPECT_EQ(k.parse_text("7", kDoorCli), 7);
  EXPECT_THROW(k.parse_text("7x", kDoorCli), UsageError);
  EXPECT_THROW(k.parse_text("", kDoorCli), UsageError);
}

TEST(RequestOptions, GivingTheContextsSizeByHandStopsItBeingFittedToTheModel) {
  for (const char* name : {"context_tokens", "context_chunks"}) {
    AskRequest r;
    apply_options({{name, 60}}, r, kDoorCli);
    EXPECT_FALSE(r.fit_context) << name;
  }
  AskRequest r;
  apply_options({{"k", 9}}, r, kDoorCli);
  EXPECT_TRUE(r.fit_context);
}

TEST(RequestOptions, EachSubQueryRetrievesAtLeastHalfTheContext) {
  RetrieveOptions o;
  o.k_per_query = 5;
  o.max_chunks = 8;
  EXPECT_EQ(sub_query_depth(o), 5);
  o.max_chunks = 31;
  EXPECT_EQ(sub_query_depth(o), 16);
}

}  // namespace
}  // namespace mmkg
