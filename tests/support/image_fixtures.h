// Test fixtures for images and containers (header-only): PNG written chunk by chunk with zlib (any
// color type and bit depth, or a lying header), JPEG with libjpeg (RGB, gray, CMYK, an EXIF
// orientation), TIFF and BMP from raw bytes, WebP with libwebp, ZIP files (EPUB, DOCX) with
// MuPDF's zip writer, and reading a PNG's pixels back with MuPDF.
#pragma once

#include <jpeglib.h>
#include <mupdf/fitz.h>
#include <webp/encode.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace mmkg::image_fixture {

inline void put32be(std::string& s, uint32_t v) {
  for (int k = 3; k >= 0; --k) s.push_back(static_cast<char>((v >> (8 * k)) & 0xFF));
}
inline void put16le(std::string& s, uint32_t v) {
  s.push_back(static_cast<char>(v & 0xFF));
  s.push_back(static_cast<char>((v >> 8) & 0xFF));
}
inline void put32le(std::string& s, uint32_t v) {
  put16le(s, v & 0xFFFF);
  put16le(s, v >> 16);
}

inline void png_chunk(std::string& out, const char* type, const std::string& data) {
  put32be(out, static_cast<uint32_t>(data.size()));
  std::string td = std::string(type, 4) + data;
  out += td;
  put32be(out, static_cast<uint32_t>(crc32(0, reinterpret_cast<const Bytef*>(td.data()), static_cast<uInt>(td.size()))));
}

/// A PNG from raw rows (without filter bytes). color_type: 0 gray, 2 RGB, 3 indexed, 4 gray+alpha,
/// 6 RGBA; `palette` (RGB triples) for indexed. The IHDR may claim any size (`w`, `h`).
inline std::string png(int w, int h, int color_type, int bit_depth, const std::string& rows,
                       const std::string& palette = "", int row_bytes = -1) {
  std::string out("\x89PNG\r\n\x1a\n", 8);
  std::string ihdr;
  put32be(ihdr, static_cast<uint32_t>(w));
  put32be(ihdr, static_cast<uint32_t>(h));
  ihdr.push_back(static_cast<char>(bit_depth));
  ihdr.push_back(static_cast<char>(color_type));
  ihdr.append(3, '\0');
  png_chunk(out, "IHDR", ihdr);
  if (!palette.empty()) png_chunk(out, "PLTE", palette);
  if (row_bytes < 0) {
    const int channels = color_type == 2 ? 3 : color_type == 4 ? 2 : color_type == 6 ? 4 : 1;
    row_bytes = (w * channels * bit_depth + 7) / 8;
  }
  std::string filtered;
  for (size_t r = 0; r * static_cast<size_t>(row_bytes) < rows.size(); ++r) {
    filtered.push_back('\0');
    filtered += rows.substr(r * row_bytes, row_bytes);
  }
  uLongf len = compressBound(static_cast<uLong>(filtered.size()));
  std::string z(len, '\0');
  compress(reinterpret_cast<Bytef*>(z.data()), &len, reinterpret_cast<const Bytef*>(filtered.data()),
           static_cast<uLong>(filtered.size()));
  z.resize(len);
  png_chunk(out, "IDAT", z);
  png_chunk(out, "IEND", "");
  return out;
}

/// An 8-bit RGB PNG filled with one color.
inline std::string rgb_png(int w, int h, unsigned char r = 200, unsigned char g = 30, unsigned char b = 30) {
  std::string rows;
  for (int i = 0; i < w * h; ++i) rows += {static_cast<char>(r), static_cast<char>(g), static_cast<char>(b)};
  return png(w, h, 2, 8, rows);
}

/// A JPEG from interleaved samples (1 gray, 3 RGB, 4 CMYK as Adobe writes it: inverted), with an
/// optional EXIF orientation (1..8, 0 for none).
inline std::string jpeg(int w, int h, int components, const std::string& samples, int exif_orientation = 0) {
  jpeg_compress_struct c;
  jpeg_error_mgr err;
  c.err = jpeg_std_error(&err);
  jpeg_create_compress(&c);
  unsigned char* mem = nullptr;
  unsigned long size = 0;
  jpeg_mem_dest(&c, &mem, &size);
  c.image_width = static_cast<JDIMENSION>(w);
  c.image_height = static_cast<JDIMENSION>(h);
  c.input_components = components;
  c.in_color_space = components == 1 ? JCS_GRAYSCALE : components == 3 ? JCS_RGB : JCS_CMYK;
  jpeg_set_defaults(&c);
  jpeg_set_quality(&c, 95, TRUE);
  jpeg_start_compress(&c, TRUE);
  if (exif_orientation > 0) {
    std::string exif("Exif\0\0MM\0*", 10);
    put32be(exif, 8);                                  // IFD0 offset
    exif += std::string("\0\x01", 2);                  // one entry
    exif += std::string("\x01\x12\0\x03\0\0\0\x01", 8);  // Orientation, SHORT, count 1
    exif.push_back('\0');
    exif.push_back(static_cast<char>(exif_orientation));
    exif.append(2, '\0');
    exif.append(4, '\0');  // no next IFD
    jpeg_write_marker(&c, JPEG_APP0 + 1, reinterpret_cast<const JOCTET*>(exif.data()), static_cast<unsigned>(exif.size()));
  }
  while (c.next_scanline < c.image_height) {
    JSAMPROW row = reinterpret_cast<JSAMPROW>(const_cast<char*>(samples.data()) +
                                              static_cast<size_t>(c.next_scanline) * w * components);
    jpeg_write_scanlines(&c, &row, 1);
  }
  jpeg_finish_compress(&c);
  jpeg_destroy_compress(&c);
  std::string out(reinterpret_cast<char*>(mem), size);
  std::free(mem);
  return out;
}

inline std::string solid(int w, int h, std::string pixel) {
  std::string s;
  for (int i = 0; i < w * h; ++i) s += pixel;
  return s;
}

/// Uncompressed baseline RGB TIFF (little-endian, one strip).
inline std::string tiff_rgb(int w, int h, unsigned char r, unsigned char g, unsigned char b) {
  const uint32_t data_size = static_cast<uint32_t>(w * h * 3);
  std::string out("II*\0", 4);
  put32le(out, 8 + data_size + 6);  // IFD after the pixels and the BitsPerSample array
  for (int i = 0; i < w * h; ++i) out += {static_cast<char>(r), static_cast<char>(g), static_cast<char>(b)};
  const uint32_t bps_at = 8 + data_size;
  put16le(out, 8), put16le(out, 8), put16le(out, 8);
  struct E {
    uint16_t tag, type;
    uint32_t count, value;
  };
  const E entries[] = {{256, 4, 1, static_cast<uint32_t>(w)}, {257, 4, 1, static_cast<uint32_t>(h)},
                       {258, 3, 3, bps_at}, {259, 3, 1, 1}, {262, 3, 1, 2}, {273, 4, 1, 8},
                       {277, 3, 1, 3}, {278, 4, 1, static_cast<uint32_t>(h)}, {279, 4, 1, data_size}};
  put16le(out, sizeof(entries) / sizeof(entries[0]));
  for (const E& e : entries) {
    put16le(out, e.tag);
    put16le(out, e.type);
    put32le(out, e.count);
    if (e.type == 3 && e.count == 1) {
      put16le(out, e.value);
      put16le(out, 0);
    } else {
      put32le(out, e.value);
    }
  }
  put32le(out, 0);
  return out;
}

/// 24-bit BMP.
inline std::string bmp_rgb(int w, int h, unsigned char r, unsigned char g, unsigned char b) {
  const int row = (w * 3 + 3) / 4 * 4;
  std::string out("BM");
  put32le(out, static_cast<uint32_t>(54 + row * h));
  put32le(out, 0);
  put32le(out, 54);
  put32le(out, 40);
  put32le(out, static_cast<uint32_t>(w));
  put32le(out, static_cast<uint32_t>(h));
  put16le(out, 1);
  put16le(out, 24);
  for (int i = 0; i < 6; ++i) put32le(out, 0);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) out += {static_cast<char>(b), static_cast<char>(g), static_cast<char>(r)};
    out.append(static_cast<size_t>(row - w * 3), '\0');
  }
  return out;
}

/// Lossless WebP from RGBA samples.
inline std::string webp_rgba(int w, int h, const std::string& rgba) {
  uint8_t* out = nullptr;
  const size_t n = WebPEncodeLosslessRGBA(reinterpret_cast<const uint8_t*>(rgba.data()), w, h, w * 4, &out);
  std::string s(reinterpret_cast<char*>(out), n);
  WebPFree(out);
  return s;
}

/// A ZIP with the given entries in order; entries named "mimetype" are stored uncompressed.
inline std::string zip(const std::vector<std::pair<std::string, std::string>>& entries) {
  fz_context* ctx = fz_new_context(nullptr, nullptr, FZ_STORE_DEFAULT);
  fz_buffer* result = nullptr;
  fz_output* out = nullptr;
  fz_zip_writer* zw = nullptr;
  std::string bytes;
  fz_var(result);
  fz_var(out);
  fz_var(zw);
  fz_try(ctx) {
    result = fz_new_buffer(ctx, 1024);
    out = fz_new_output_with_buffer(ctx, result);
    zw = fz_new_zip_writer_with_output(ctx, out);
    out = nullptr;  // the writer owns it now
    for (const auto& [name, data] : entries) {
      fz_buffer* b = fz_new_buffer_from_copied_data(ctx, reinterpret_cast<const unsigned char*>(data.data()), data.size());
      fz_try(ctx) fz_write_zip_entry(ctx, zw, name.c_str(), b, name != "mimetype");
      fz_always(ctx) fz_drop_buffer(ctx, b);
      fz_catch(ctx) fz_rethrow(ctx);
    }
    fz_close_zip_writer(ctx, zw);
  }
  fz_always(ctx) {
    fz_drop_zip_writer(ctx, zw);
    fz_drop_output(ctx, out);
  }
  fz_catch(ctx) {
    fz_drop_buffer(ctx, result);
    fz_drop_context(ctx);
    throw std::runtime_error("zip fixture failed");
  }
  unsigned char* data = nullptr;
  const size_t len = fz_buffer_storage(ctx, result, &data);
  bytes.assign(reinterpret_cast<const char*>(data), len);
  fz_drop_buffer(ctx, result);
  fz_drop_context(ctx);
  return bytes;
}

/// Pixels of a decoded PNG (8-bit, no alpha) as MuPDF reads them back.
struct Pixels {
  int w = 0, h = 0, n = 0;
  std::vector<unsigned char> samples;
  const unsigned char* at(int x, int y) const { return samples.data() + (static_cast<size_t>(y) * w + x) * n; }
};

inline Pixels read_png(const std::string& png_bytes) {
  Pixels p;
  fz_context* ctx = fz_new_context(nullptr, nullptr, FZ_STORE_DEFAULT);
  fz_buffer* buf = nullptr;
  fz_image* img = nullptr;
  fz_pixmap* pix = nullptr;
  fz_var(buf);
  fz_var(img);
  fz_var(pix);
  volatile bool ok = true;  // set in fz_catch, after a longjmp
  fz_try(ctx) {
    buf = fz_new_buffer_from_copied_data(ctx, reinterpret_cast<const unsigned char*>(png_bytes.data()), png_bytes.size());
    img = fz_new_image_from_buffer(ctx, buf);
    pix = fz_get_pixmap_from_image(ctx, img, nullptr, nullptr, nullptr, nullptr);
  }
  fz_catch(ctx) ok = false;
  if (ok && pix) {
    p.w = fz_pixmap_width(ctx, pix);
    p.h = fz_pixmap_height(ctx, pix);
    p.n = fz_pixmap_components(ctx, pix);  // alpha included
    const unsigned char* s = fz_pixmap_samples(ctx, pix);
    const int stride = fz_pixmap_stride(ctx, pix);
    for (int y = 0; y < p.h; ++y) p.samples.insert(p.samples.end(), s + y * stride, s + y * stride + p.w * p.n);
  }
  fz_drop_pixmap(ctx, pix);
  fz_drop_image(ctx, img);
  fz_drop_buffer(ctx, buf);
  fz_drop_context(ctx);
  if (!ok) throw std::runtime_error("read_png: MuPDF cannot read it");
  return p;
}

}  // namespace mmkg::image_fixture
