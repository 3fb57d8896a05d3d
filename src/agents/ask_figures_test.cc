// Questions about figures: the figure a question names leads the context and is cited; a vision
// model is sent the images of the figures among the passages.
#include <gtest/gtest.h>

#include "agents/ask.h"
#include "core/base64.h"
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

const std::string kFakePng = std::string("\x89PNG\r\n\x1a\n", 8) + "pretend image bytes";

class AskFigures : public ::testing::Test {
 protected:
  void SetUp() override {
    store = Store::open(dir.str());
    using testing::FigureSpec;
    // Two papers with a Figure 1 each; the sandwich paper's body also talks about its figure,
    // in words closer to the question than the figure's own caption.
    testing::put_figure_document(
        *store, "s1", "/c/sandwich.pdf",
        {"The sandwich package shows in its first figure what the figure of kernel weights shows: the figure "
         "shows kernel weights.",
         "Heteroskedasticity-consistent covariance estimators are computed by vcovHC."},
        {FigureSpec{"Figure 1", "Figure 1: Kernel functions for kernel-based HAC estimation.",
                    "Quadratic Spectral, Bartlett and Parzen kernels plotted against the lag.", kFakePng, 7}});
    testing::put_figure_document(*store, "v1", "/c/survival.pdf", {"Kaplan-Meier estimates of survival."},
                                 {FigureSpec{"Figure 1", "Figure 1: Survival curves of the two arms.", "", "", 2}});
  }
  testing::TempDir dir;
  std::unique_ptr<Store> store;
};

nlohmann::json step_named(const AskResult& r, const std::string& name) {
  for (const auto& s : trace_json(r.trace))
    if (s["step"] == name) return s;
  return nullptr;
}

TEST_F(AskFigures, TheNamedFigureLeadsTheContextAndIsCited) {
  AskOptions o;
  AskResult r = testing::ask_with(*store, "What does Figure 1 of the sandwich vignette show?", o, "none");
  ASSERT_TRUE(r.found) << r.answer;
  ASSERT_FALSE(r.context.empty());
  EXPECT_EQ(r.context[0].hit.chunk_id, "s1-fig0");
  bool cites_figure = false;
  for (const auto& c : r.citations) cites_figure = cites_figure || (c.figure_id == "s1-f0" && c.figure_label == "Figure 1");
  EXPECT_TRUE(cites_figure) << r.answer;
  // The figures step says what it found; the retrieve step lists the figures in the context.
  auto f = step_named(r, "figures");
  ASSERT_FALSE(f.is_null()) << trace_json(r.trace).dump();
  EXPECT_EQ(f["labels"], nlohmann::json({"Figure 1"}));
  ASSERT_EQ(f["figures"].size(), 1u);
  EXPECT_EQ(f["figures"][0]["doc"], "sandwich.pdf");
  EXPECT_EQ(f["figures"][0]["pinned"], true);
  EXPECT_EQ(f["figures"][0]["where"], "sandwich.pdf, page 7, Figure 1");  // as a citation says it
  auto rs = step_named(r, "retrieve");
  ASSERT_FALSE(rs["figures"].empty()) << rs.dump();
  EXPECT_EQ(rs["figures"][0]["passage"], 1);
  EXPECT_EQ(rs["figures"][0]["label"], "Figure 1");
  EXPECT_EQ(rs["figures"][0]["page"], 7);
  EXPECT_EQ(rs["figures"][0]["where"], "sandwich.pdf, page 7, Figure 1");
}

TEST_F(AskFigures, AQuestionWithoutAFigureHasNoFiguresStep) {
  AskResult r = testing::ask_with(*store, "How is the covariance estimated?", AskOptions{}, "none");
  EXPECT_TRUE(step_named(r, "figures").is_null());
}

using testing::chat_answer;

TEST_F(AskFigures, AVisionModelIsSentTheFigureImagesAndATextModelIsNot) {
  for (bool vision : {true, false}) {
    mmkg::testing::ScriptedHttpServer srv;
    srv.push_json(200, chat_answer(R"({"subqueries": ["kernel functions"], "tools": ["rag"]})"));
    srv.push_json(200, chat_answer("Figure 1 shows kernel functions for kernel-based HAC estimation [1]."));
    auto model = make_openai_chat(parse_llm_spec(srv.url(std::string("/v1#model=test") + (vision ? "&vision=1" : ""))));
    AskOptions o;
    o.chat = model.get();
    o.judge = JudgeScope::None;
    AskResult r = testing::ask_with(*store, "What does Figure 1 of the sandwich vignette show?", o, "none");
    ASSERT_GE(srv.requests().size(), 2u);
    auto req = nlohmann::json::parse(srv.requests()[1].body);
    const auto& content = req["messages"][1]["content"];
    auto synth = step_named(r, "synthesize");
    if (!vision) {
      EXPECT_TRUE(content.is_string()) << content.dump();
      EXPECT_EQ(synth["images"], 0);
      continue;
    }
    ASSERT_TRUE(content.is_array()) << content.dump();
    ASSERT_EQ(content.size(), 2u);
    EXPECT_EQ(content[0]["type"], "text");
    EXPECT_NE(content[0]["text"].get<std::string>().find("figures of passages [1]"), std::string::npos);
    EXPECT_EQ(content[1]["type"], "image_url");
    EXPECT_EQ(content[1]["image_url"]["url"], "data:image/png;base64," + base64_encode(kFakePng));
    EXPECT_EQ(synth["images"], 1);
    ASSERT_TRUE(r.found);
    EXPECT_EQ(r.citations.at(0).figure_id, "s1-f0") << r.answer;
  }
}

}  // namespace
}  // namespace mmkg
