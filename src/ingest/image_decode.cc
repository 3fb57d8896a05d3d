// Image decoding on MuPDF (PNG, JPEG, GIF, BMP, TIFF, JPEG 2000, PNM, PSD) and libwebp (WebP).
//
// The MuPDF path draws the image with MuPDF's draw device onto a white RGB (or gray) pixmap of
// the target size: one call converts any colorspace (CMYK, indexed, Lab, 16-bit), flattens
// transparency on white, applies the EXIF orientation and downscales, and for JPEG it decodes at
// a reduced DCT scale, so a large photo never exists at full size in memory. Each call has its
// own fz_context with a capped allocator: whatever a corrupt file claims, MuPDF cannot take more
// than mupdf::kContextMemoryLimit bytes (it reports out of memory, which becomes an InputError).
//
// MuPDF reports errors with setjmp/longjmp: every MuPDF call runs inside `guarded()` with no C++
// object of its own, and C++ exceptions are only thrown outside of fz_try blocks.
#include "ingest/image_decode.h"

#include <mupdf/fitz.h>
#include <webp/decode.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.h"
#include "ingest/byte_order.h"
#include "ingest/mupdf_support.h"

namespace mmkg {
namespace {

using mupdf::guarded;
using mupdf::one_line;


/// Keeps the first warning that says the data is damaged (MuPDF decodes what it can of a
/// truncated or corrupt image and warns).
void on_decode_warning(void* user, const char* msg) {
  auto* first = static_cast<std::string*>(user);
  if (!first->empty() || !msg) return;
  for (const char* w : {"truncated", "premature", "corrupt", "damaged", "broken", "invalid", "error"})
    if (std::strstr(msg, w)) {
      *first = msg;
      return;
    }
}

/// The MuPDF objects of one decode, dropped in reverse order (drops never throw).
struct Mu {
  mupdf::MemoryBudget budget{mupdf::kContextMemoryLimit};
  fz_context* ctx = nullptr;
  fz_buffer* in = nullptr;
  fz_image* image = nullptr;
  fz_pixmap* pix = nullptr;
  fz_device* dev = nullptr;
  fz_buffer* out = nullptr;
  std::string damage;  ///< first warning about damaged data

  Mu() {
    ctx = mupdf::new_context(budget, 32 << 20);
    if (!ctx) throw Error("cannot initialise MuPDF (out of memory); retry with fewer parallel jobs");
    fz_set_warning_callback(ctx, on_decode_warning, &damage);
  }
  Mu(const Mu&) = delete;
  Mu& operator=(const Mu&) = delete;
  ~Mu() {
    if (out) fz_drop_buffer(ctx, out);
    if (dev) fz_drop_device(ctx, dev);
    if (pix) fz_drop_pixmap(ctx, pix);
    if (image) fz_drop_image(ctx, image);
    if (in) fz_drop_buffer(ctx, in);
    fz_drop_context(ctx);
  }
};

[[noreturn]] void fail(const std::string& what, const std::string& reason) {
  throw InputError(what.empty() ? reason : what + ": " + reason);
}

void check_size(const std::string& what, long long w, long long h) {
  if (w <= 0 || h <= 0) fail(what, "image declares no size (" + std::to_string(w) + " x " + std::to_string(h) + "); the file is corrupt");
  if (w > kMaxImageSide || h > kMaxImageSide || w * h > kMaxImagePixels)
    fail(what, "image is " + std::to_string(w) + " x " + std::to_string(h) + " pixels, over the limit of " +
                   std::to_string(kMaxImageSide) + " per side and " + std::to_string(kMaxImagePixels / 1'000'000) +
                   " megapixels; downscale it first");
}


/// The size a PNG, GIF, BMP or JPEG header declares, read before any decoder sees the file (some
/// refuse absurd sizes with a vaguer message, others would try). False when not found.
bool declared_size(std::string_view b, const std::string& kind, long long& w, long long& h) {
  if (kind == "PNG" && b.size() >= 24 && b.substr(12, 4) == "IHDR") {
    w = static_cast<long long>(be16(b, 16)) << 16 | be16(b, 18);
    h = static_cast<long long>(be16(b, 20)) << 16 | be16(b, 22);
    return true;
  }
  if (kind == "GIF" && b.size() >= 10) {
    w = le16(b, 6);
    h = le16(b, 8);
    return true;
  }
  if (kind == "BMP" && b.size() >= 26 && le16(b, 14) >= 40 && b.size() >= 30) {
    w = static_cast<int32_t>(le16(b, 18) | le16(b, 20) << 16);
    h = static_cast<int32_t>(le16(b, 22) | le16(b, 24) << 16);
    if (h < 0) h = -h;  // top-down bitmap
    return true;
  }
  if (kind == "JPEG") {
    // Walk the marker segments to the first start-of-frame (SOF0..SOF15 but DHT, JPG, DAC).
    size_t i = 2;
    while (i + 9 < b.size() && static_cast<uint8_t>(b[i]) == 0xFF) {
      const uint8_t m = static_cast<uint8_t>(b[i + 1]);
      if (m == 0xFF) {
        ++i;
        continue;
      }
      if (m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC) {
        h = be16(b, i + 5);
        w = be16(b, i + 7);
        return true;
      }
      if (m == 0xD8 || (m >= 0xD0 && m <= 0xD7) || m == 0x01) {
        i += 2;
        continue;
      }
      i += 2 + be16(b, i + 2);
    }
  }
  return false;
}

/// Target size: (w, h) shrunk to fit in max_side x max_side, aspect kept, at least 1 pixel.
void fit(int w, int h, int max_side, int& tw, int& th) {
  max_side = std::max(max_side, 1);
  const double s = std::min(1.0, static_cast<double>(max_side) / std::max(w, h));
  tw = std::max(1, static_cast<int>(std::lround(w * s)));
  th = std::max(1, static_cast<int>(std::lround(h * s)));
}

/// Encodes 8-bit samples (n = 1 gray or 3 RGB, no alpha) as PNG into `out`.
void encode_png(Mu& mu, int w, int h, int n, unsigned char* samples, std::string& out) {
  std::string err;
  fz_context* ctx = mu.ctx;
  bool ok = guarded(ctx, &err, [&] {
    mu.pix = fz_new_pixmap_with_data(ctx, n == 1 ? fz_device_gray(ctx) : fz_device_rgb(ctx), w, h, nullptr, 0,
                                     w * n, samples);
    mu.out = fz_new_buffer_from_pixmap_as_png(ctx, mu.pix, fz_default_color_params);
  });
  if (!ok) throw InputError("cannot encode the image as PNG (" + one_line(err) + ")");
  unsigned char* data = nullptr;
  const size_t len = fz_buffer_storage(ctx, mu.out, &data);
  out.assign(reinterpret_cast<const char*>(data), len);
}

struct WebPBuffer {
  WebPDecoderConfig config;
  ~WebPBuffer() { WebPFreeDecBuffer(&config.output); }
};

DecodedImage decode_webp(std::string_view bytes, const std::string& what, int max_side) {
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  WebPBuffer buf;
  if (!WebPInitDecoderConfig(&buf.config)) throw Error("libwebp version mismatch; rebuild mmkg");
  WebPBitstreamFeatures& f = buf.config.input;
  if (WebPGetFeatures(data, bytes.size(), &f) != VP8_STATUS_OK)
    fail(what, "not a valid WebP image (bad or truncated header)");
  if (f.has_animation) fail(what, "animated WebP is not supported; convert a frame to PNG");
  check_size(what, f.width, f.height);
  DecodedImage img;
  img.source_width = f.width;
  img.source_height = f.height;
  fit(f.width, f.height, max_side, img.width, img.height);
  // libwebp scales while decoding, row by row: only the output is ever in memory.
  buf.config.options.use_scaling = img.width != f.width || img.height != f.height;
  buf.config.options.scaled_width = img.width;
  buf.config.options.scaled_height = img.height;
  buf.config.output.colorspace = MODE_RGBA;
  const VP8StatusCode st = WebPDecode(data, bytes.size(), &buf.config);
  if (st != VP8_STATUS_OK)
    fail(what, st == VP8_STATUS_NOT_ENOUGH_DATA ? "WebP image is truncated" : "WebP image data is corrupt");
  const WebPRGBABuffer& rgba = buf.config.output.u.RGBA;
  const int w = buf.config.output.width, h = buf.config.output.height;
  img.width = w;
  img.height = h;
  std::vector<unsigned char> rgb(static_cast<size_t>(w) * h * 3);
  for (int y = 0; y < h; ++y) {
    const uint8_t* s = rgba.rgba + static_cast<size_t>(y) * rgba.stride;
    unsigned char* d = rgb.data() + static_cast<size_t>(y) * w * 3;
    for (int x = 0; x < w; ++x, s += 4, d += 3) {
      const int a = s[3];  // straight alpha: composite on white
      for (int c = 0; c < 3; ++c) d[c] = static_cast<unsigned char>((s[c] * a + 255 * (255 - a) + 127) / 255);
    }
  }
  Mu mu;
  encode_png(mu, w, h, 3, rgb.data(), img.png);
  return img;
}

DecodedImage decode_mupdf(std::string_view bytes, const std::string& what, int max_side, const std::string& kind) {
  long long dw = 0, dh = 0;
  if (declared_size(bytes, kind, dw, dh) && dw > 0 && dh > 0) check_size(what, dw, dh);
  Mu mu;
  mupdf::JpegMessagesTo jpeg_messages(mu.ctx);  // damage in a JPEG is reported like MuPDF's own
  fz_context* ctx = mu.ctx;
  std::string err;
  bool ok = guarded(ctx, &err, [&] {
    // Shared, not copied: `bytes` outlives `mu`.
    mu.in = fz_new_buffer_from_shared_data(ctx, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
    mu.image = fz_new_image_from_buffer(ctx, mu.in);
  });
  if (!ok || !mu.image) {
    if (kind.empty())
      fail(what, "not an image format that can be read (PNG, JPEG, GIF, BMP, TIFF, WebP are; " + one_line(err) + ")");
    fail(what, "cannot read this " + kind + " image (" + one_line(err) + "); the file may be truncated or corrupt");
  }
  DecodedImage img;
  img.source_width = mu.image->w;
  img.source_height = mu.image->h;
  check_size(what, mu.image->w, mu.image->h);

  if (kind == "TIFF") {
    int pages = 0;
    guarded(ctx, nullptr, [&] {
      pages = fz_load_tiff_subimage_count(ctx, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size());
    });
    if (pages > 1)
      img.warnings.push_back("TIFF has " + std::to_string(pages) + " pages; only the first one is kept");
  }

  // MuPDF orientations 2, 4, 6 and 8 turn the image by 90 degrees (image.h).
  const uint8_t orientation = fz_image_orientation(ctx, mu.image);
  const bool turned = orientation % 2 == 0 && orientation != 0;
  const int ow = turned ? mu.image->h : mu.image->w;
  const int oh = turned ? mu.image->w : mu.image->h;
  int tw = 0, th = 0;
  fit(ow, oh, max_side, tw, th);
  fz_colorspace* cs = mu.image->colorspace;
  const bool gray = !cs || fz_colorspace_is_gray(ctx, cs);

  ok = guarded(ctx, &err, [&] {
    mu.pix = fz_new_pixmap(ctx, gray ? fz_device_gray(ctx) : fz_device_rgb(ctx), tw, th, nullptr, 0);
    fz_clear_pixmap_with_value(ctx, mu.pix, 255);  // transparency ends up on white
    mu.dev = fz_new_draw_device(ctx, fz_identity, mu.pix);
    const fz_matrix ctm = fz_concat(fz_image_orientation_matrix(ctx, mu.image),
                                    fz_scale(static_cast<float>(tw), static_cast<float>(th)));
    fz_fill_image(ctx, mu.dev, mu.image, ctm, 1.0f, fz_default_color_params);
    fz_close_device(ctx, mu.dev);
    mu.out = fz_new_buffer_from_pixmap_as_png(ctx, mu.pix, fz_default_color_params);
  });
  if (!ok) {
    const std::string name = kind.empty() ? "image" : kind + " image";
    if (err.find("malloc") != std::string::npos || err.find("out of memory") != std::string::npos)
      fail(what, "decoding this " + std::to_string(mu.image->w) + " x " + std::to_string(mu.image->h) + " " + name +
                     " needs more than " + std::to_string(mupdf::kContextMemoryLimit >> 20) + " MiB of memory; downscale it first");
    fail(what, "cannot decode this " + name + " (" + one_line(err) + "); the file may be truncated or corrupt");
  }
  if (!mu.damage.empty())
    img.warnings.push_back("the image data is damaged (" + one_line(mu.damage) + "); part of it may be blank");
  unsigned char* data = nullptr;
  const size_t len = fz_buffer_storage(ctx, mu.out, &data);
  img.png.assign(reinterpret_cast<const char*>(data), len);
  img.width = tw;
  img.height = th;
  return img;
}

}  // namespace

std::string image_kind(std::string_view b) {
  auto starts = [&](std::string_view m) { return b.substr(0, m.size()) == m; };
  if (starts("\x89PNG\r\n\x1a\n")) return "PNG";
  if (starts("\xFF\xD8\xFF")) return "JPEG";
  if (starts("GIF87a") || starts("GIF89a")) return "GIF";
  if (starts(std::string_view("II*\0", 4)) || starts(std::string_view("MM\0*", 4))) return "TIFF";
  if (starts("RIFF") && b.size() >= 12 && b.substr(8, 4) == "WEBP") return "WebP";
  if (starts("BM") && b.size() >= 26 && b[14] != 0 && b[15] == 0 && b[16] == 0 && b[17] == 0) return "BMP";
  return "";
}

DecodedImage decode_image(std::string_view bytes, const std::string& what, int max_side) {
  if (bytes.empty()) fail(what, "empty image file (0 bytes)");
  const std::string kind = image_kind(bytes);
  if (kind == "WebP") return decode_webp(bytes, what, max_side);
  const std::string_view head = bytes.substr(0, 512);
  if (head.find("<svg") != std::string_view::npos || head.find("<?xml") == 0)
    fail(what, "SVG (vector) images are not supported; convert it to PNG");
  return decode_mupdf(bytes, what, max_side, kind);
}

}  // namespace mmkg
