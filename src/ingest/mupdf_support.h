// Plumbing shared by the parsers built on MuPDF (pdf_parser, pdf_figures, image_decode):
//  - a memory budget per fz_context, so that an image whose decoder needs its full size in
//    memory (indexed colours, JPEG 2000, a corrupt size field) fails with "out of memory"
//    instead of growing the process by gigabytes;
//  - libjpeg's own messages ("Corrupt JPEG data: ..."), which MuPDF leaves on libjpeg's default
//    of printing to stderr, turned into MuPDF warnings of the context decoding on this thread.
#pragma once

#include <mupdf/fitz.h>

#include <cstddef>
#include <string>

namespace mmkg::mupdf {

/// The allocator of one fz_context with a cap on the bytes live at once. Must outlive the
/// context; one context per budget (not thread-safe, like the context itself).
struct MemoryBudget {
  explicit MemoryBudget(size_t limit);
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  size_t limit;
  size_t used = 0;
  size_t peak = 0;
  int refused = 0;  ///< allocations refused for the cap since the last reset_refused()
  fz_alloc_context alloc;
};

/// A new fz_context allocating through `budget`, with MuPDF's own stderr messages switched off
/// (callers install their callbacks after); nullptr when even that fails.
fz_context* new_context(MemoryBudget& budget, size_t store_size);

/// While alive, libjpeg's messages on this thread become warnings of `ctx` ("jpeg: ...");
/// without one they are dropped. Nests (restores the previous context).
class JpegMessagesTo {
 public:
  explicit JpegMessagesTo(fz_context* ctx);
  ~JpegMessagesTo();
  JpegMessagesTo(const JpegMessagesTo&) = delete;
  JpegMessagesTo& operator=(const JpegMessagesTo&) = delete;

 private:
  fz_context* saved_;
};

/// Runs `f` (MuPDF calls only, no C++ objects with destructors) inside fz_try. Returns false
/// and stores MuPDF's message in `err` if it threw.
template <typename F>
__attribute__((noinline)) bool guarded(fz_context* ctx, std::string* err, F&& f) {
  fz_try(ctx) { f(); }
  fz_catch(ctx) {
    const char* msg = fz_caught_message(ctx);
    if (err) err->assign(msg && *msg ? msg : "unknown MuPDF error");
    return false;
  }
  return true;
}

/// One-line version of a MuPDF message (they can contain newlines or be long).
std::string one_line(std::string s);

}  // namespace mmkg::mupdf
