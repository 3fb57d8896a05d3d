// Decoding image files of any common format into a bounded-size PNG, the one form figures are
// stored, OCR'd and shown in.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mmkg {

struct DecodedImage {
  std::string png;                    ///< 8-bit RGB or gray PNG, no alpha
  int width = 0, height = 0;          ///< pixel size of `png`
  int source_width = 0, source_height = 0;  ///< size before downscaling and EXIF rotation
  std::vector<std::string> warnings;  ///< content lost on the way (other TIFF pages, ...)
};

/// Images larger than this (either side, or in total) are refused before they are decoded.
constexpr int kMaxImageSide = 20000;
constexpr long long kMaxImagePixels = 100'000'000;

/// Decodes PNG, JPEG, GIF (first frame), BMP, TIFF (first page), WebP (still images) and the
/// other raster formats MuPDF reads (JPEG 2000, PNM, PSD). CMYK, indexed, 16-bit and gray+alpha
/// images become 8-bit RGB or gray, transparency is flattened on white, the EXIF orientation is
/// applied, and an image with a side above `max_side` is downscaled to fit (memory stays bounded:
/// the declared size is checked first, JPEGs are decoded at a reduced scale).
/// Throws InputError with a one-line reason ("<what>: ..." when `what` is not empty) for bytes
/// that are no image, are corrupt, or declare a size above kMaxImageSide / kMaxImagePixels.
/// Never crashes on any byte sequence. Thread-safe (each call has its own MuPDF context).
DecodedImage decode_image(std::string_view bytes, const std::string& what, int max_side = 4096);

/// "PNG", "JPEG", "GIF", "BMP", "TIFF", "WebP" from the magic bytes, or empty.
std::string image_kind(std::string_view bytes);

}  // namespace mmkg
