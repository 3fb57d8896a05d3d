#include "ingest/ocr.h"

#include <leptonica/allheaders.h>
#include <omp.h>
#include <tesseract/baseapi.h>
#include <tesseract/ocrclass.h>
#include <tesseract/resultiterator.h>
#include <unicode/uchar.h>
#include <unicode/utf8.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <memory>
#include <mutex>
#include <vector>

namespace mmkg {

namespace {

// ---- settings (any change that alters the text read must bump kSettingsVersion) ----

constexpr const char* kSettingsVersion = "v2";  // v2: the text-line test, invert pass only for light text
// Figures are sparse text: axis labels, tick numbers, legend entries, boxes of a diagram, spread
// over the image with no columns. PSM 11 (sparse text) finds each text line on its own. PSM 3
// (auto) lays the image out as columns and paragraphs first: on the test plot it found the same
// labels but glued the tick marks to the numbers beside them and read them as digits ("75 4"),
// ran a legend entry into a tick label ("25 4 Our method") and produced 5x the junk words.
// Prose in a screenshot reads the same under both, line by line. PSM 12 is 11 plus orientation
// detection, which needs osd.traineddata (not installed) and lost a lone digit in the tests.
constexpr tesseract::PageSegMode kPsm = tesseract::PSM_SPARSE_TEXT;
constexpr float kMinWordConfidence = 60;  // below this, figure "words" are mostly shapes read as letters
constexpr int kMinSide = 16;              // smaller than a line of text: nothing to read
// Decoding is refused above this many pixels (as 32-bit RGBA, 128 MB) so a hostile or huge
// image cannot make ingest allocate gigabytes; Leptonica decodes at full size.
constexpr int64_t kMaxDecodePixels = 32'000'000;
// What Tesseract gets: neither side over 4000 px and at most 12 Mpx (bounded time and memory).
constexpr int kOcrMaxSide = 4000;
constexpr int64_t kMaxOcrPixels = 12'000'000;
// Blank test, before Tesseract (which costs 20-700 ms an image). First the grey histogram (Otsu
// split): uniform or without contrast, nothing to read. Then the shapes of the ink: only images
// with a line of text go on (find_text_lines). A threshold on the ink fraction instead (0.2% say)
// would blank a figure holding one short label (a 14 pt word on a 1200 px square is 0.02% ink),
// while specks of dust or JPEG noise, whatever their number, are smaller than letters.
constexpr double kMinStddev = 2.0;      // uniform, up to noise
constexpr double kMinContrast = 40.0;   // grey levels between ink and background means
constexpr int kMinLetterHeight = 4;     // smaller is a speck, or text too small to read even upscaled
constexpr size_t kMinLetters = 3;       // letter-sized components of the main ink: fewer make no word
// A line of text: at least 3 letter-sized components side by side, the shortest word worth
// keeping (junk_word drops lone letters, and two blobs side by side are common in photos). Two
// neighbours in a line: heights within 2x (an "x" beside an "l" or a capital is ~1.4x, "g" beside
// "x" ~1.4x), bottoms (baseline) or tops (x-height, cap height) level within 15% of the taller
// one's height (anti-aliasing moves an edge by a pixel; a texture's blobs are seldom level), and
// the gap between them from a quarter of the shorter one's height of overlap (kerned "AV", italic)
// to the taller one's height (a word space is about 0.3 em, ~0.45 of a capital; a looser screen
// font's letter spacing fits too, while keys on a keyboard photo or the scattered pins of a
// schematic, 2-3 heights apart, do not chain).
constexpr int kMinLineLetters = 3;
constexpr int kMaxLineHeightRatio = 2;
constexpr double kAlignSlack = 0.15;
constexpr double kMaxLetterOverlap = 0.25;
constexpr double kMaxLetterGap = 1.0;
// Text size, as the median height of the text lines: under ~19 px it is upscaled
// toward 24 px (the test diagram's 8 px letters lost "Encoder" and "Decoder" at their own size;
// Tesseract drops text with an x-height under 10 px as noise, textord_min_xheight, and 24 px
// capitals have an x-height of ~17). At most 3x: text smaller than ~6 px read no better at 4x
// or 5x. On the benchmark's screenshots (5 px capitals at 150 dpi) 2.5x instead of 3x kept 83%
// of the words found in the documents' text (3x: 95%, tests/bench in docs/BENCHMARKS.md): the
// tiny text needs the pixels, so the saving comes from what is not read, not from a lower scale.
constexpr double kTargetTextHeight = 24;
constexpr double kMaxUpscale = 3;
// Large text is read at a lower resolution: above twice the target height the image is
// downscaled until the median letter is twice the target, so that text half its size still
// reaches the target. Tesseract's LSTM reads every line at a height of 36 px whatever its size,
// while its layout analysis costs in proportion to the pixels.
constexpr double kLargeTextHeight = 2 * kTargetTextHeight;
constexpr int kOcrDeadlineMs = 20'000;     // a pathological image (dense noise) cannot stall ingest
constexpr const char* kDebianTessdata = "/usr/share/tesseract-ocr/5/tessdata";

struct PixFree {
  void operator()(PIX* p) const { pixDestroy(&p); }
};
using PixPtr = std::unique_ptr<PIX, PixFree>;

// Leptonica and Tesseract both print to stderr (decoding errors, "Estimating resolution",
// "Empty page!!"); the caller reports results itself. Both switches are process-wide, so they
// are set once, before the first engine exists.
void silence_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    setMsgSeverity(L_SEVERITY_NONE);
    tesseract::TessBaseAPI api;
    api.SetVariable("debug_file", "/dev/null");  // a global parameter: set for every engine
  });
}

// Loads English into `api`: TESSDATA_PREFIX or the library's built-in path first, then the
// Debian path (a library built with another prefix still finds Debian's data).
bool init_engine(tesseract::TessBaseAPI& api) {
  silence_once();
  // debug_file again as an init variable: messages printed while loading go nowhere too.
  std::vector<std::string> names{"debug_file"}, values{"/dev/null"};
  auto init = [&](const char* path) {
    return api.Init(path, "eng", tesseract::OEM_LSTM_ONLY, nullptr, 0, &names, &values, false) == 0;
  };
  if (!init(nullptr) && !init(kDebianTessdata)) return false;
  api.SetPageSegMode(kPsm);
  // tessedit_do_invert (a line read with low confidence is read again inverted, which recovers
  // a dark banner with white text inside a light screenshot, ocr_test.cc) is set per image in
  // ocr_png(): on only where prepare() found lines of light letters. An image that is
  // light-on-dark as a whole is inverted before (prepare()): otherwise every line is read twice
  // (+50% CPU on the test diagram).
  return true;
}

// This thread's engine, loaded on first use (~0.1 s); nullptr when English cannot be loaded.
// Engines load one at a time: Init writes Tesseract's global parameters (debug_file above, and any
// global one the language's config sets), which every engine shares, so two threads loading at
// once wrote the same strings together (`make tsan`, OcrThreads.FourThreadsReadTheSameText).
tesseract::TessBaseAPI* thread_engine() {
  thread_local std::unique_ptr<tesseract::TessBaseAPI> api;
  thread_local bool failed = false;
  if (!api && !failed) {
    static std::mutex loading;
    std::lock_guard<std::mutex> one_at_a_time(loading);
    auto a = std::make_unique<tesseract::TessBaseAPI>();
    if (init_engine(*a))
      api = std::move(a);
    else
      failed = true;
  }
  return api.get();
}

// Debian's Tesseract runs OpenMP regions inside each recognition, whose helper threads mostly
// spin-wait: measured on the test diagram, 260 ms of CPU and 350 ms wall against 65 ms and
// 95 ms single-threaded (2 busy cores). Ingest already reads figures in parallel, one per pool
// thread, so this thread's OpenMP regions are made serial while Tesseract runs: OpenMP keeps
// max-active-levels per thread (OpenMP 5), so FAISS and other threads are unaffected. This is
// what Tesseract's docs get with OMP_THREAD_LIMIT=1, without changing the whole process.
class SerialOpenMP {
 public:
  SerialOpenMP() : saved_(omp_get_max_active_levels()) { omp_set_max_active_levels(0); }
  ~SerialOpenMP() { omp_set_max_active_levels(saved_); }
  SerialOpenMP(const SerialOpenMP&) = delete;
  SerialOpenMP& operator=(const SerialOpenMP&) = delete;

 private:
  int saved_;
};

// ---- image preparation ----

struct Histogram {
  bool blank = false;
  bool light_ink = false;  // the ink (minority class) is lighter than the background
  int threshold = 128;     // Otsu: values <= threshold are the dark class
};

// Otsu's split of the grey histogram (subsampled to about a million pixels) decides whether
// there is contrast at all, and which side of the split is ink: the minority class.
Histogram analyse(PIX* gray) {
  Histogram out;
  int w = pixGetWidth(gray), h = pixGetHeight(gray);
  int factor = std::max(1, static_cast<int>(std::sqrt(double(w) * h / 1e6)));
  NUMA* na = pixGetGrayHistogram(gray, factor);
  if (!na) return out;
  double hist[256] = {};
  for (int i = 0; i < 256 && i < numaGetCount(na); ++i) {
    float v = 0;
    numaGetFValue(na, i, &v);
    hist[i] = v;
  }
  numaDestroy(&na);
  double total = 0, sum = 0, sum2 = 0;
  for (int i = 0; i < 256; ++i) total += hist[i], sum += i * hist[i], sum2 += double(i) * i * hist[i];
  if (total <= 0) return out.blank = true, out;
  double mean = sum / total;
  double stddev = std::sqrt(std::max(0.0, sum2 / total - mean * mean));
  double best = -1, w_dark = 0, sum_dark = 0, best_dark = 0, best_mdark = 0, best_mlight = 0;
  for (int t = 0; t < 255; ++t) {
    w_dark += hist[t];
    sum_dark += t * hist[t];
    double w_light = total - w_dark;
    if (w_dark <= 0) continue;
    if (w_light <= 0) break;
    double m_dark = sum_dark / w_dark, m_light = (sum - sum_dark) / w_light;
    double between = w_dark * w_light * (m_light - m_dark) * (m_light - m_dark);
    if (between > best) {
      best = between, out.threshold = t;
      best_dark = w_dark, best_mdark = m_dark, best_mlight = m_light;
    }
  }
  out.light_ink = best_dark > total - best_dark;
  out.blank = best < 0 || stddev < kMinStddev || best_mlight - best_mdark < kMinContrast;
  return out;
}

struct Box {
  int x, y, w, h;
};

// The letter-sized connected components of the dark ink (values <= threshold): specks are too
// small, rules and axes too long, a box or a bar area too tall.
std::vector<Box> letter_boxes(PIX* gray, int threshold) {
  std::vector<Box> out;
  PixPtr bin(pixThresholdToBinary(gray, threshold + 1));
  BOXA* boxes = bin ? pixConnCompBB(bin.get(), 8) : nullptr;
  if (!boxes) return out;
  int max_h = std::max(kMinLetterHeight, pixGetHeight(gray) / 2);
  for (int i = 0, n = boxaGetCount(boxes); i < n; ++i) {
    l_int32 x, y, bw, bh;
    if (boxaGetBoxGeometry(boxes, i, &x, &y, &bw, &bh) == 0 && bh >= kMinLetterHeight && bh <= max_h && bw <= 3 * bh)
      out.push_back({x, y, bw, bh});
  }
  boxaDestroy(&boxes);
  return out;
}

// Whether `b` may be the next letter of a line after `a` (b starts to the right of a): of
// similar height, side by side in the same band, and not further apart than a word space.
bool next_in_line(const Box& a, const Box& b) {
  int lo = std::min(a.h, b.h), hi = std::max(a.h, b.h);
  if (hi > kMaxLineHeightRatio * lo) return false;
  // Letters of a line share their bottom (the baseline) or their top (x-height or cap height).
  const double slack = std::max(1.0, kAlignSlack * hi);
  if (std::abs((a.y + a.h) - (b.y + b.h)) > slack && std::abs(a.y - b.y) > slack) return false;
  int gap = b.x - (a.x + a.w);
  return gap >= -kMaxLetterOverlap * lo && gap <= kMaxLetterGap * hi;
}

int median(std::vector<int>& v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

struct TextLines {
  int lines = 0;             // chains of at least kMinLineLetters components
  std::vector<int> heights;  // of each of those lines: the median of its components' (px)
};

// The cheap "carries text" test: links each letter-sized component to the nearest one on its
// right that continues its line (next_in_line) and counts the chains of kMinLineLetters or more.
// A word, a number or a label of three characters makes one; the blobs of a photo or the marks
// of a plot seldom line up so, and fewer components than that make no word worth reading.
TextLines find_text_lines(std::vector<Box> boxes) {
  TextLines out;
  std::sort(boxes.begin(), boxes.end(), [](const Box& a, const Box& b) { return a.x < b.x; });
  const size_t n = boxes.size();
  std::vector<size_t> parent(n);
  for (size_t i = 0; i < n; ++i) parent[i] = i;
  auto root = [&](size_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (size_t i = 0; i < n; ++i) {
    const Box& a = boxes[i];
    size_t best = n;
    int best_gap = 0;
    // Candidates start after a's left edge and no further than the widest gap allowed.
    for (size_t j = i + 1; j < n && boxes[j].x <= a.x + a.w + kMaxLetterGap * 2 * a.h; ++j) {
      if (boxes[j].x <= a.x || !next_in_line(a, boxes[j])) continue;
      int gap = boxes[j].x - (a.x + a.w);
      if (best == n || gap < best_gap) best = j, best_gap = gap;
    }
    if (best < n) parent[root(best)] = root(i);
  }
  std::vector<std::vector<int>> members(n);
  for (size_t i = 0; i < n; ++i) members[root(i)].push_back(boxes[i].h);
  for (auto& line : members) {
    if (line.size() < kMinLineLetters) continue;
    ++out.lines;
    out.heights.push_back(median(line));
  }
  return out;
}

// libpng prints its errors and warnings to stderr (Leptonica leaves its default handlers), so
// a PNG is checked here first: every chunk's CRC, and the file must reach its IEND chunk. Only
// the chunks that make the pixels are kept in `out` (IHDR, PLTE, tRNS, IDAT, IEND): ancillary
// ones (colour profiles, text) are what libpng warns about in sound files, and OCR needs none.
// Returns the problem, or "" with `out` set; other formats are left to Leptonica (`out` empty).
std::string clean_png(const std::string& b, std::string& out) {
  if (b.size() < 8 || std::memcmp(b.data(), "\x89PNG\r\n\x1a\n", 8) != 0) return "";
  out.assign(b, 0, 8);
  auto be32 = [&](size_t at) {
    auto u = [&](size_t i) { return static_cast<uint32_t>(static_cast<unsigned char>(b[at + i])); };
    return u(0) << 24 | u(1) << 16 | u(2) << 8 | u(3);
  };
  for (size_t pos = 8;;) {
    if (b.size() - pos < 12 || be32(pos) > b.size() - pos - 12)
      return "truncated PNG (it ends inside a chunk); re-extract the figure";
    uint32_t len = be32(pos);
    auto type = reinterpret_cast<const Bytef*>(b.data() + pos + 4);
    if (crc32(0, type, len + 4) != be32(pos + 8 + len))
      return "corrupt PNG (a chunk fails its checksum); re-extract the figure";
    bool critical = (type[0] & 0x20) == 0;  // an upper-case first letter, the PNG rule
    if (critical || std::memcmp(type, "tRNS", 4) == 0) out.append(b, pos, 12 + size_t{len});
    if (std::memcmp(type, "IEND", 4) == 0) return "";
    pos += 12 + size_t{len};
  }
}

// This thread's CPU seconds: what one image costs, whatever else the machine is doing.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

PIX* scaled(PIX* pix, double f) { return pixScale(pix, static_cast<float>(f), static_cast<float>(f)); }

// Scales `pix` so that letters of median height `letters` px are the size Tesseract reads best
// (kTargetTextHeight up to kMaxUpscale, kLargeTextHeight down); returns the factor applied
// (1 when the text is fine as it is, or memory ran out: it is then read at its own size).
double resize_for_text(PixPtr& pix, double letters) {
  const int w = pixGetWidth(pix.get()), h = pixGetHeight(pix.get());
  double f = 1;
  if (letters < kTargetTextHeight / 1.25)
    f = std::min({kTargetTextHeight / letters, kMaxUpscale, double(kOcrMaxSide) / std::max(w, h),
                  std::sqrt(double(kMaxOcrPixels) / w / h)});
  else if (letters > kLargeTextHeight)
    f = std::max(kLargeTextHeight / letters, double(kMinSide) / std::min(w, h));
  if (f < 1.25 && f > 0.8) return 1;  // a small change gains nothing and blurs the letters
  PixPtr resized(scaled(pix.get(), f));
  if (!resized) return 1;
  pix = std::move(resized);
  return f;
}

// Decodes `bytes` into the 8-bit grey image Tesseract reads (dark ink on light, sized for
// recognition), or says why not: sets `r.error` or `r.blank` and returns nullptr.
PixPtr prepare(const std::string& bytes, OcrResult& r, bool* light_text) {
  if (bytes.empty()) return r.error = "empty image data; the figure has no image to OCR", nullptr;
  auto data = reinterpret_cast<const l_uint8*>(bytes.data());
  l_int32 format = 0, w = 0, h = 0, bps = 0, spp = 0, cmap = 0;
  if (pixReadHeaderMem(data, bytes.size(), &format, &w, &h, &bps, &spp, &cmap) != 0 || w <= 0 || h <= 0)
    return r.error = "not a readable image (corrupt, truncated or unsupported format); re-extract the figure", nullptr;
  if (w < kMinSide || h < kMinSide) return r.blank = true, nullptr;
  if (int64_t{w} * h > kMaxDecodePixels)
    return r.error = "image is " + std::to_string(w) + "x" + std::to_string(h) + " px, over the " +
                     std::to_string(kMaxDecodePixels / 1'000'000) +
                     " Mpx OCR limit; not decoded (downscale the image to have it read)",
           nullptr;
  std::string png;
  if (std::string damage = clean_png(bytes, png); !damage.empty()) return r.error = damage, nullptr;
  if (!png.empty()) data = reinterpret_cast<const l_uint8*>(png.data());
  PixPtr pix(pixReadMem(data, png.empty() ? bytes.size() : png.size()));
  if (!pix)
    return r.error = "the image could not be decoded (corrupt or truncated data); re-extract the figure", nullptr;
  // Transparent pixels often hold black RGB (only alpha says "background"): blend over white.
  if (pixGetSpp(pix.get()) == 4) pix.reset(pixRemoveAlpha(pix.get()));
  if (pix) pix.reset(pixConvertTo8(pix.get(), 0));
  if (!pix) return r.error = "the image could not be converted to grey (unusual pixel format)", nullptr;
  w = pixGetWidth(pix.get()), h = pixGetHeight(pix.get());
  double down = std::min({1.0, double(kOcrMaxSide) / w, double(kOcrMaxSide) / h, std::sqrt(double(kMaxOcrPixels) / w / h)});
  if (down < 1) {
    pix.reset(scaled(pix.get(), down));
    if (!pix) return r.error = "the image could not be downscaled (out of memory?)", nullptr;
    w = pixGetWidth(pix.get()), h = pixGetHeight(pix.get());
  }
  Histogram hist = analyse(pix.get());
  if (hist.blank) return r.blank = true, nullptr;
  int threshold = hist.threshold;
  if (hist.light_ink) {
    pixInvert(pix.get(), pix.get());
    threshold = 254 - threshold;  // the light class (> t) becomes values < 255 - t
  }
  // Lines of dark letters, and of light letters inside dark areas (a banner, a dark button).
  std::vector<Box> letters_dark = letter_boxes(pix.get(), threshold);
  // Fewer than 3 letters of the main ink make no word: the light ink is not looked at either (on
  // the benchmark, lines "found" there in such images were the gaps between dark shapes).
  if (letters_dark.size() < kMinLetters) return r.blank = true, nullptr;
  TextLines dark = find_text_lines(std::move(letters_dark));
  PixPtr inverted(pixInvert(nullptr, pix.get()));
  TextLines light = inverted ? find_text_lines(letter_boxes(inverted.get(), 254 - threshold)) : TextLines{};
  inverted.reset();
  r.text_lines = dark.lines + light.lines;
  if (r.text_lines == 0) return r.blank = true, nullptr;
  *light_text = light.lines > 0;
  std::vector<int>& heights = dark.heights;
  heights.insert(heights.end(), light.heights.begin(), light.heights.end());
  // The median line, not the median letter: the peaks of a dense waveform chain like letters,
  // many to a line, but make one or two lines among a screenshot's dozens.
  const double letters = median(heights);
  r.text_height = static_cast<int>(std::lround(letters / down));
  r.scale = down * resize_for_text(pix, letters);
  return pix;
}

// ---- recognition ----

// Words that are not words: no letter or digit, mostly punctuation, or a stray single
// character (figures are full of shapes read as "l", "|", "o", "-"). "a", "A", "I" and digits
// are real one-character words.
bool junk_word(const std::string& w) {
  int n = 0, alnum = 0;
  std::vector<UChar32> cps;
  for (int32_t i = 0, len = static_cast<int32_t>(w.size()); i < len;) {
    UChar32 c;
    U8_NEXT(w.data(), i, len, c);
    if (c < 0) return true;  // invalid UTF-8
    cps.push_back(c);
    ++n;
    if (u_isalnum(c)) ++alnum;
  }
  if (alnum == 0 || 2 * alnum < n) return true;
  auto first = std::find_if(cps.begin(), cps.end(), [](UChar32 c) { return u_isalnum(c); });
  auto last = std::find_if(cps.rbegin(), cps.rend(), [](UChar32 c) { return u_isalnum(c); }).base();
  if (last - first == 1) {
    UChar32 c = *first;
    return !(u_isdigit(c) || c == 'a' || c == 'A' || c == 'I');
  }
  return false;
}

void read_words(tesseract::TessBaseAPI& api, OcrResult& r) {
  std::unique_ptr<tesseract::ResultIterator> it(api.GetIterator());
  if (!it || it->Empty(tesseract::RIL_WORD)) return;
  std::string line;
  double conf_sum = 0;
  auto end_line = [&] {
    if (line.empty()) return;
    if (!r.text.empty()) r.text += '\n';
    r.text += line;
    line.clear();
  };
  do {
    if (it->IsAtBeginningOf(tesseract::RIL_TEXTLINE)) end_line();
    std::unique_ptr<char[]> word(it->GetUTF8Text(tesseract::RIL_WORD));
    if (!word || !word[0]) continue;
    float conf = it->Confidence(tesseract::RIL_WORD);
    if (conf < kMinWordConfidence || junk_word(word.get())) {
      ++r.words_dropped;
      continue;
    }
    if (!line.empty()) line += ' ';
    line += word.get();
    conf_sum += conf;
    ++r.words_kept;
  } while (it->Next(tesseract::RIL_WORD));
  end_line();
  if (r.words_kept > 0) r.confidence = static_cast<float>(conf_sum / r.words_kept);
}

}  // namespace

bool ocr_available(std::string* why) {
  static const bool ok = thread_engine() != nullptr;
  if (!ok && why)
    *why = "Tesseract cannot load its English data (eng.traineddata); install tesseract-ocr-eng "
           "(scripts/setup.sh does) or set TESSDATA_PREFIX to the folder holding eng.traineddata";
  return ok;
}

std::string ocr_engine_id() {
  return std::string("tesseract ") + tesseract::TessBaseAPI::Version() + " eng psm" +
         std::to_string(static_cast<int>(kPsm)) + " " + kSettingsVersion;
}

OcrResult ocr_png(const std::string& png_bytes) {
  OcrResult r;
  try {
    silence_once();
    const double t0 = thread_cpu_seconds();
    bool light_text = false;
    PixPtr pix = prepare(png_bytes, r, &light_text);
    r.prepare_seconds = thread_cpu_seconds() - t0;
    if (!pix) return r.scale = 0, r;
    std::string why;
    tesseract::TessBaseAPI* api = ocr_available(&why) ? thread_engine() : nullptr;
    if (!api) return r.error = why.empty() ? "Tesseract could not be started on this thread (out of memory?)" : why, r;
    SerialOpenMP serial;
    struct ClearAfter {  // frees the image and results, keeps the loaded model
      tesseract::TessBaseAPI* api;
      ~ClearAfter() { api->Clear(); }
    } clear_after{api};
    // Tesseract reads a line again inverted when its confidence is low: the way a light label on
    // a dark banner is read, but on an image without light text only a second reading of the
    // junk lines (20% of the benchmark's recognition time, 4 of 697 known words).
    api->SetVariable("tessedit_do_invert", light_text ? "1" : "0");
    api->SetImage(pix.get());
    // Small text was scaled up to about 10 pt at 300 dpi; stating a resolution spares
    // Tesseract a guess (and its warning), and larger text reads the same under it.
    api->SetSourceResolution(300);
    tesseract::ETEXT_DESC monitor;
    monitor.set_deadline_msecs(kOcrDeadlineMs);
    const double t1 = thread_cpu_seconds();
    const int failed = api->Recognize(&monitor);
    r.recognise_seconds = thread_cpu_seconds() - t1;
    if (failed != 0) {
      r.error = monitor.deadline_exceeded() ? "OCR stopped after " + std::to_string(kOcrDeadlineMs / 1000) +
                                                  " s (a very busy image); the figure keeps no OCR text"
                                            : "Tesseract failed on this image; the figure keeps no OCR text";
    } else {
      read_words(*api, r);
    }
  } catch (const std::exception& e) {
    r = OcrResult{};
    r.error = std::string("OCR failed: ") + e.what();
  }
  return r;
}

}  // namespace mmkg
