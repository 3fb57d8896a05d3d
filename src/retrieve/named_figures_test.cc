#include "retrieve/named_figures.h"

#include <gtest/gtest.h>

#include "store/store.h"
#include "support/store_fixtures.h"
#include "support/temp_dir.h"
#include "text/captions.h"

namespace mmkg {
namespace {

NamedFigures named(Store& store, std::string_view question) {
  return find_named_figures(store, question, figure_references(question));
}

class NamedFiguresTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store = Store::open(dir.str());
    using testing::FigureSpec;
    testing::put_figure_document(*store, "s1", "/c/sandwich.pdf", {"Sandwich estimators of the covariance."},
                                 {FigureSpec{"Figure 1", "Figure 1: Kernel weights.", "", "", 3},
                                  FigureSpec{"Table 2", "Table 2: Coefficients.", "", "", 5}});
    testing::put_figure_document(*store, "v1", "/c/survival-analysis.pdf", {"Survival curves."},
                                 {FigureSpec{"Figure 1", "Figure 1: Kaplan-Meier curves.", "", "", 2}});
  }
  testing::TempDir dir;
  std::unique_ptr<Store> store;
};

TEST_F(NamedFiguresTest, TheDocumentNamedInTheQuestionPinsItsFigure) {
  NamedFigures nf = named(*store, "What does Figure 1 of the sandwich vignette show?");
  ASSERT_EQ(nf.labels, std::vector<std::string>{"Figure 1"});
  ASSERT_EQ(nf.figures.size(), 1u);
  EXPECT_EQ(nf.figures[0].figure_id, "s1-f0");
  EXPECT_EQ(nf.figures[0].chunk_id, "s1-fig0");
  EXPECT_EQ(nf.figures[0].page, 3);
  EXPECT_TRUE(nf.figures[0].doc_named);
  EXPECT_TRUE(nf.figures[0].pinned);
  auto lists = nf.lists();
  ASSERT_EQ(lists.size(), 1u);
  EXPECT_TRUE(lists[0].pin);
  EXPECT_EQ(lists[0].chunk_ids, std::vector<std::string>{"s1-fig0"});

  // Of two documents the question's words fit, the one with fewer other name words wins.
  testing::put_figure_document(*store, "o1", "/c/sandwich-OOP.pdf", {"Object-oriented sandwiches."},
                               {testing::FigureSpec{"Figure 1", "Figure 1: Structure.", "", "", 9}});
  nf = named(*store, "What does Figure 1 of the sandwich vignette show?");
  ASSERT_EQ(nf.figures.size(), 1u);
  EXPECT_EQ(nf.figures[0].figure_id, "s1-f0");
  EXPECT_TRUE(nf.figures[0].pinned);
  nf = named(*store, "What does Figure 1 of the sandwich OOP vignette show?");
  ASSERT_EQ(nf.figures.size(), 1u);
  EXPECT_EQ(nf.figures[0].figure_id, "o1-f0");

  // Name words are stemmed: "the survival analyses" names survival-analysis.pdf.
  nf = named(*store, "In Fig. 1 of the survival analyses, what is plotted?");
  ASSERT_EQ(nf.figures.size(), 1u);
  EXPECT_EQ(nf.figures[0].figure_id, "v1-f0");
}

TEST_F(NamedFiguresTest, AnAmbiguousLabelIsNotPinned) {
  NamedFigures nf = named(*store, "What does Figure 1 show?");
  ASSERT_EQ(nf.figures.size(), 2u);
  EXPECT_FALSE(nf.figures[0].pinned);
  EXPECT_FALSE(nf.figures[1].pinned);
  auto lists = nf.lists();
  ASSERT_EQ(lists.size(), 1u);
  EXPECT_FALSE(lists[0].pin);
  EXPECT_EQ(lists[0].chunk_ids.size(), 2u);
}

TEST_F(NamedFiguresTest, AUniqueLabelNeedsNoDocumentAndMissingLabelsAreReported) {
  NamedFigures nf = named(*store, "Which coefficient is largest in Table 2 and Figure 9?");
  EXPECT_EQ(nf.labels, (std::vector<std::string>{"Table 2", "Figure 9"}));
  ASSERT_EQ(nf.figures.size(), 1u);
  EXPECT_EQ(nf.figures[0].figure_id, "s1-f1");
  EXPECT_FALSE(nf.figures[0].doc_named);
  EXPECT_TRUE(nf.figures[0].pinned);

  nf = named(*store, "What are sandwich estimators?");
  EXPECT_TRUE(nf.labels.empty());
  EXPECT_TRUE(nf.figures.empty());
  EXPECT_TRUE(nf.lists().empty());
}

}  // namespace
}  // namespace mmkg
