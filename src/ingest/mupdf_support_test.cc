// MuPDF plumbing: the memory budget refuses what is over the cap, and libjpeg's messages land in
// MuPDF's warnings instead of on stderr.
#include "ingest/mupdf_support.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/image_fixtures.h"

namespace mmkg {
namespace {

void collect(void* user, const char* msg) { static_cast<std::vector<std::string>*>(user)->push_back(msg); }

TEST(MupdfSupport, BudgetRefusesAllocationsOverTheCapAndRecovers) {
  mupdf::MemoryBudget budget(8 << 20);
  fz_context* ctx = mupdf::new_context(budget, 1 << 20);
  ASSERT_TRUE(ctx);
  void* volatile big = nullptr;
  volatile bool threw = false;
  fz_try(ctx) big = fz_malloc(ctx, 16 << 20);
  fz_catch(ctx) threw = true;
  EXPECT_TRUE(threw);
  EXPECT_EQ(big, nullptr);
  EXPECT_GE(budget.refused, 1);
  void* volatile small = nullptr;
  fz_try(ctx) small = fz_malloc(ctx, 1 << 20);
  fz_catch(ctx) small = nullptr;
  EXPECT_NE(small, nullptr);
  fz_free(ctx, small);
  EXPECT_LE(budget.peak, budget.limit);
  fz_drop_context(ctx);
  EXPECT_EQ(budget.used, 0u);
}

TEST(MupdfSupport, LibjpegMessagesBecomeWarningsNotStderr) {
  std::string rgb;
  for (int i = 0; i < 64 * 64; ++i) rgb += std::string{char(i % 64 * 4), char(i / 64 * 4), char(90)};
  std::string jpeg = image_fixture::jpeg(64, 64, 3, rgb);
  jpeg.resize(jpeg.size() / 2);
  mupdf::MemoryBudget budget(64 << 20);
  fz_context* ctx = mupdf::new_context(budget, 1 << 20);
  ASSERT_TRUE(ctx);
  std::vector<std::string> warnings;
  fz_set_warning_callback(ctx, collect, &warnings);
  ::testing::internal::CaptureStderr();
  {
    mupdf::JpegMessagesTo route(ctx);
    fz_buffer* volatile buf = nullptr;
    fz_image* volatile img = nullptr;
    fz_pixmap* volatile pix = nullptr;
    fz_try(ctx) {
      buf = fz_new_buffer_from_copied_data(ctx, reinterpret_cast<const unsigned char*>(jpeg.data()), jpeg.size());
      img = fz_new_image_from_buffer(ctx, buf);
      pix = fz_get_pixmap_from_image(ctx, img, nullptr, nullptr, nullptr, nullptr);
    }
    fz_always(ctx) {
      fz_drop_pixmap(ctx, pix);
      fz_drop_image(ctx, img);
      fz_drop_buffer(ctx, buf);
    }
    fz_catch(ctx) {}
    fz_flush_warnings(ctx);
  }
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
  bool from_libjpeg = false;
  for (const auto& w : warnings) from_libjpeg |= w.rfind("jpeg: ", 0) == 0;
  EXPECT_TRUE(from_libjpeg) << warnings.size();
  fz_drop_context(ctx);
}

}  // namespace
}  // namespace mmkg
