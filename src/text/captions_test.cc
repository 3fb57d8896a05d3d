#include "text/captions.h"

#include <gtest/gtest.h>

namespace mmkg {
namespace {

TEST(Captions, LabelsWithDelimiters) {
  auto a = caption_label("Figure 1: The Transformer - model architecture.");
  ASSERT_TRUE(a);
  EXPECT_FALSE(a->table);
  EXPECT_EQ(a->number, "1");
  EXPECT_EQ(a->label(), "Figure 1");
  EXPECT_TRUE(a->delimited);
  EXPECT_EQ(std::string("Figure 1: The Transformer - model architecture.").substr(a->end), "The Transformer - model architecture.");
  auto b = caption_label("Fig. 3. Loss curves");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->key(), "f:3");
  auto c = caption_label("Table 2.1: Results");
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->table);
  EXPECT_EQ(c->number, "2.1");
  auto d = caption_label("TABLE A.3 | Ablations");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->number, "A.3");
  auto e = caption_label("Figure 4b \xE2\x80\x94 zoom");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->number, "4b");
}

TEST(Captions, TitleWithoutDelimiterButNotSentences) {
  EXPECT_TRUE(caption_label("Figure 2 Attention maps of layer 5"));
  EXPECT_FALSE(caption_label("Figure 2 shows that the loss falls"));
  EXPECT_FALSE(caption_label("Table of contents"));
  EXPECT_FALSE(caption_label("Figures are drawn with ggplot"));
  EXPECT_FALSE(caption_label("The Figure 2: not at the start"));
  EXPECT_FALSE(caption_label("Tablet 2: a device"));
  EXPECT_TRUE(caption_label("Figure 7"));  // a label alone on its line
}

TEST(Captions, References) {
  using V = std::vector<std::string>;
  EXPECT_EQ(figure_references("as shown in Figure 3, the loss falls"), V{"f:3"});
  EXPECT_EQ(figure_references("see Fig. 2 and Table 1."), (V{"f:2", "t:1"}));
  EXPECT_EQ(figure_references("Figures 2 and 4 compare"), (V{"f:2", "f:4"}));
  EXPECT_EQ(figure_references("Figs. 2, 3, and 5"), (V{"f:2", "f:3", "f:5"}));
  EXPECT_EQ(figure_references("Figures 2-4 plot"), (V{"f:2", "f:3", "f:4"}));
  EXPECT_EQ(figure_references("Tables 1 and 2 list"), (V{"t:1", "t:2"}));
  EXPECT_TRUE(figure_references("a configuration figure without number").empty());
  EXPECT_TRUE(figure_references("SubFigure 3").empty());
}

}  // namespace
}  // namespace mmkg
