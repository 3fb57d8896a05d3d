// The SSE parser: events split anywhere, every line ending, comments, multi-line data.
#include "llm/sse.h"

#include <gtest/gtest.h>

#include <vector>

namespace mmkg {
namespace {

std::vector<SseEvent> parse_in_pieces(const std::string& s, size_t piece) {
  std::vector<SseEvent> out;
  SseParser p([&](const SseEvent& e) { out.push_back(e); });
  for (size_t i = 0; i < s.size(); i += piece) p.feed(std::string_view(s).substr(i, piece));
  p.finish();
  return out;
}

TEST(Sse, EventsSurviveAnySplit) {
  const std::string s =
      ": keep-alive\n\ndata: {\"a\":1}\n\nevent: note\nid: 7\ndata:first\ndata: second\n\ndata: [DONE]\n\n";
  for (size_t piece : {1u, 2u, 3u, 7u, 1000u}) {
    auto ev = parse_in_pieces(s, piece);
    ASSERT_EQ(ev.size(), 3u) << piece;
    EXPECT_EQ(ev[0].data, "{\"a\":1}");
    EXPECT_EQ(ev[1].event, "note");
    EXPECT_EQ(ev[1].id, "7");
    EXPECT_EQ(ev[1].data, "first\nsecond");
    EXPECT_EQ(ev[2].data, "[DONE]");
  }
}

TEST(Sse, CrLfAndCrLineEndings) {
  for (size_t piece : {1u, 5u, 100u}) {
    auto a = parse_in_pieces("data: x\r\n\r\ndata: y\r\rdata: z\n\n", piece);
    ASSERT_EQ(a.size(), 3u);
    EXPECT_EQ(a[0].data, "x");
    EXPECT_EQ(a[1].data, "y");
    EXPECT_EQ(a[2].data, "z");
  }
}

TEST(Sse, LastEventWithoutBlankLineIsDeliveredAtFinish) {
  auto a = parse_in_pieces("data: one\n\ndata: two", 4);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[1].data, "two");
  EXPECT_TRUE(parse_in_pieces("\n\n: only comments\n\n", 3).empty());
}

}  // namespace
}  // namespace mmkg
