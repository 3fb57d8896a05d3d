// Stopping an ask (AskOptions::cancel): no step starts once the flag is set, the model call under
// way is abandoned and none follows, and ask() throws Cancelled. The model is a scripted server
// (support/scripted_http_server.h), here to be slow on purpose.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "agents/ask.h"
#include "llm/llm_config.h"
#include "llm/openai_chat.h"
#include "store/store.h"
#include "support/ask_fixtures.h"
#include "support/chat_fixtures.h"
#include "support/scripted_http_server.h"
#include "support/store_fixtures.h"
#include "support/temp_dir.h"

namespace mmkg {
namespace {

using mmkg::testing::chat_answer;
using mmkg::testing::ScriptedHttpServer;

const char* kCancelPlan = R"({"subqueries": ["attention importance of components"], "tools": ["rag"]})";

class AskCancel : public ::testing::Test {
 protected:
  void SetUp() override {
    store = Store::open(dir.str());
    mmkg::testing::put_text_document(
        *store, "w1", "/c/wiki.txt",
        {"Attention is a machine learning method that determines the relative importance of each component in a "
         "sequence relative to the other components in that sequence."},
        0);
  }
  std::string message_of(const AskOptions& o) {
    try {
      mmkg::testing::ask_with(*store, "what is attention?", o, "none");
    } catch (const Cancelled& e) {
      return e.what();
    }
    ADD_FAILURE() << "the ask was not cancelled";
    return "";
  }
  mmkg::testing::TempDir dir;
  std::unique_ptr<Store> store;
};

TEST_F(AskCancel, NoStepStartsOnceTheFlagIsSetAndNoModelCallFollows) {
  ScriptedHttpServer srv;
  srv.push_json(200, chat_answer(kCancelPlan));
  srv.push_json(200, chat_answer("Attention weighs each component of a sequence [1]."));
  auto model = make_openai_chat(parse_llm_spec(srv.url("/v1#model=test")));
  std::atomic<bool> stop{false};
  std::vector<std::string> steps;
  AskOptions o;
  o.chat = model.get();
  o.cancel = &stop;
  o.on_step = [&](const StepRecord& s) {
    steps.push_back(s.step);
    if (s.step == "plan") stop = true;  // the caller leaves once the plan is made
  };
  const std::string why = message_of(o);
  EXPECT_NE(why.find("before the"), std::string::npos) << why;
  EXPECT_EQ(steps, std::vector<std::string>{"plan"});
  EXPECT_EQ(srv.request_count(), 1u);  // the planner's; the synthesizer's never went out
}

TEST_F(AskCancel, TheModelCallUnderWayIsAbandoned) {
  ScriptedHttpServer srv;
  srv.push({ScriptedHttpServer::response(200, chat_answer(kCancelPlan)), 0, 3.0});  // answers only after 3 s
  auto model = make_openai_chat(parse_llm_spec(srv.url("/v1#model=test")));
  std::atomic<bool> stop{false};
  std::thread caller([&] {
    while (srv.request_count() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    stop = true;  // the planner's request is out and unanswered
  });
  AskOptions o;
  o.chat = model.get();
  o.cancel = &stop;
  const std::string why = message_of(o);
  caller.join();
  EXPECT_NE(why.find("during a model call"), std::string::npos) << why;
  EXPECT_EQ(srv.request_count(), 1u);
}

TEST_F(AskCancel, WithoutAModelTheSubQuerySearchesStopToo) {
  std::atomic<bool> stop{true};
  AskOptions o;
  o.cancel = &stop;
  EXPECT_NE(message_of(o).find("before the plan step"), std::string::npos);
  LazyEmbedder emb(EmbedderSpec::parse("none"));
  Searcher searcher(*store, emb);
  SearchOptions so;
  so.cancel = &stop;
  EXPECT_THROW(searcher.search_many({SearchQuery{.text = "attention"}}, so, 1), Cancelled);
  stop = false;
  EXPECT_FALSE(searcher.search_many({SearchQuery{.text = "attention"}}, so, 1)[0].empty());
}

}  // namespace
}  // namespace mmkg
