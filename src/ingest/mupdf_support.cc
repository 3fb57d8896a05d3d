#include "ingest/mupdf_support.h"

#include <cstdio>  // jpeglib.h needs FILE and size_t first
#include <cstdlib>
#include <cstring>

#include <jpeglib.h>

namespace mmkg::mupdf {

namespace {

constexpr size_t kHeader = 16;  // the block's size lives in front; 16 keeps malloc's alignment

void* cap_malloc(void* user, size_t n) {
  auto* b = static_cast<MemoryBudget*>(user);
  if (n > b->limit - b->used) {  // MuPDF turns this into an "out of memory" error
    ++b->refused;
    return nullptr;
  }
  void* p = std::malloc(n + kHeader);
  if (!p) return nullptr;
  std::memcpy(p, &n, sizeof n);
  b->used += n;
  if (b->used > b->peak) b->peak = b->used;
  return static_cast<char*>(p) + kHeader;
}

void cap_free(void* user, void* p) {
  if (!p) return;
  char* base = static_cast<char*>(p) - kHeader;
  size_t n;
  std::memcpy(&n, base, sizeof n);
  static_cast<MemoryBudget*>(user)->used -= n;
  std::free(base);
}

void* cap_realloc(void* user, void* old, size_t n) {
  if (!old) return cap_malloc(user, n);
  if (n == 0) {
    cap_free(user, old);
    return nullptr;
  }
  auto* b = static_cast<MemoryBudget*>(user);
  char* base = static_cast<char*>(old) - kHeader;
  size_t was;
  std::memcpy(&was, base, sizeof was);
  if (n > was && n - was > b->limit - b->used) {
    ++b->refused;
    return nullptr;
  }
  void* p = std::realloc(base, n + kHeader);
  if (!p) return nullptr;
  std::memcpy(p, &n, sizeof n);
  b->used = b->used - was + n;
  if (b->used > b->peak) b->peak = b->used;
  return static_cast<char*>(p) + kHeader;
}

void quiet(void*, const char*) {}

thread_local fz_context* t_jpeg_ctx = nullptr;

void route_jpeg_message(j_common_ptr cinfo) {
  if (!t_jpeg_ctx) return;
  char msg[JMSG_LENGTH_MAX];
  (*cinfo->err->format_message)(cinfo, msg);
  fz_warn(t_jpeg_ctx, "jpeg: %s", msg);
}

}  // namespace

MemoryBudget::MemoryBudget(size_t cap) : limit(cap), alloc{this, cap_malloc, cap_realloc, cap_free} {}

fz_context* new_context(MemoryBudget& budget, size_t store_size) {
  fz_context* ctx = fz_new_context(&budget.alloc, nullptr, store_size);
  if (ctx) {
    fz_set_warning_callback(ctx, quiet, nullptr);
    fz_set_error_callback(ctx, quiet, nullptr);
  }
  return ctx;
}

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (s.size() > 200) s.resize(200);
  return s;
}

JpegMessagesTo::JpegMessagesTo(fz_context* ctx) : saved_(t_jpeg_ctx) { t_jpeg_ctx = ctx; }
JpegMessagesTo::~JpegMessagesTo() { t_jpeg_ctx = saved_; }

}  // namespace mmkg::mupdf

// MuPDF's JPEG decoders (filter-dct.c, load-jpeg.c) take libjpeg's default error manager and
// replace only error_exit, so libjpeg's warnings ("Corrupt JPEG data: premature end of data
// segment") go straight to stderr, past MuPDF's callbacks. The link wraps jpeg_std_error
// (CMakeLists.txt: --wrap=jpeg_std_error; it applies to MuPDF's static objects, not to other
// shared libraries) so that every error manager MuPDF makes routes its messages here.
extern "C" {
struct jpeg_error_mgr* __real_jpeg_std_error(struct jpeg_error_mgr* err);
struct jpeg_error_mgr* __wrap_jpeg_std_error(struct jpeg_error_mgr* err) {
  struct jpeg_error_mgr* e = __real_jpeg_std_error(err);
  e->output_message = mmkg::mupdf::route_jpeg_message;
  return e;
}
}
