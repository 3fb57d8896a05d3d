#include "llm/vision.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <optional>

#include "core/hash.h"
#include "llm/openai_chat.h"

namespace mmkg {
namespace {

using json = nlohmann::json;

// Room for a few sentences and the labels of a dense chart; a model that runs past it leaves
// JSON cut short, which parse_figure_answer salvages.
constexpr int kMaxTokens = 600;
// A long caption (or one that swallowed a paragraph) would crowd out the instruction.
constexpr size_t kMaxHintChars = 600;

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Cuts at a character boundary of UTF-8 (never inside a multi-byte sequence).
std::string clip(const std::string& s, size_t n) {
  if (s.size() <= n) return s;
  size_t cut = n;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "...";
}

// A field as text: strings as they are, lists joined, anything else as JSON.
std::string as_text(const json& v) {
  if (v.is_null()) return {};
  if (v.is_string()) return trim(v.get<std::string>());
  if (v.is_array()) {
    std::string out;
    for (const auto& x : v) {
      const std::string t = as_text(x);
      if (t.empty()) continue;
      if (!out.empty()) out += "; ";
      out += t;
    }
    return out;
  }
  return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

// The first of `names` the object has (models rename keys: "summary", "type", ...).
std::string field(const json& j, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (j.contains(n)) return as_text(j[n]);
  }
  return {};
}

// The value of string field `key` in JSON that may end mid-way (max_tokens reached): the text
// after "key": " up to its closing quote or the end, unescaped as far as it is whole.
std::string salvage_string(std::string_view s, std::string_view key) {
  const std::string quoted = "\"" + std::string(key) + "\"";
  size_t p = s.find(quoted);
  if (p == std::string_view::npos) return {};
  p += quoted.size();
  while (p < s.size() && std::isspace(static_cast<unsigned char>(s[p]))) ++p;
  if (p >= s.size() || s[p] != ':') return {};
  ++p;
  while (p < s.size() && std::isspace(static_cast<unsigned char>(s[p]))) ++p;
  if (p >= s.size() || s[p] != '"') return {};
  std::string raw;
  bool esc = false;
  for (++p; p < s.size(); ++p) {
    const char c = s[p];
    if (!esc && c == '"') break;
    esc = !esc && c == '\\';
    raw += c;
  }
  // Drop an escape cut in half (a lone backslash, a partial \uXXXX) and unescape the rest.
  for (size_t drop = 0; drop <= 6 && drop <= raw.size(); ++drop) {
    try {
      std::string piece = raw.substr(0, raw.size() - drop);
      for (char& c : piece) {
        if (static_cast<unsigned char>(c) < 0x20) c = ' ';  // raw newlines a grammar let through
      }
      return trim(json::parse("\"" + piece + "\"").get<std::string>());
    } catch (const std::exception&) {
    }
  }
  return trim(raw);
}

// An object answer with at least one field we know, looked for one level down too ({"figure":
// {...}}); nullopt when it has none.
std::optional<FigureDescription> from_object(const json& j) {
  static const char* known[] = {"description", "summary", "caption", "content", "text", "ocr", "labels", "words",
                                "kind", "type", "category"};
  if (!std::any_of(std::begin(known), std::end(known), [&](const char* k) { return j.contains(k); })) {
    if (j.size() == 1 && j.begin()->is_object()) return from_object(*j.begin());
    return std::nullopt;
  }
  FigureDescription d;
  d.description = field(j, {"description", "summary", "caption", "content"});
  d.text = field(j, {"text", "ocr", "labels", "words"});
  d.kind = normalise_figure_kind(field(j, {"kind", "type", "category"}));
  return d;
}

}  // namespace

const std::vector<std::string>& VisionDescriber::kinds() {
  static const std::vector<std::string> k = {"chart", "diagram", "photo", "screenshot", "table", "other"};
  return k;
}

std::string VisionDescriber::default_prompt() {
  return "Describe this figure for a search index. Answer in JSON with \"description\" (what it shows and its "
         "main point, 1-3 sentences), \"text\" (the words and numbers written in it) and \"kind\" (one of chart, "
         "diagram, photo, screenshot, table, other).";
}

VisionDescriber::VisionDescriber(ChatModel& model, std::string prompt)
    : model_(model), prompt_(std::move(prompt)), prompt_hash_(hash_hex(prompt_)) {
  if (!model_.vision()) {
    throw UsageError("the figure describer needs a model that takes images, and " + model_.id() +
                     " is not marked so; give a vision model (--vlm URL#model=NAME) or add vision=1 to its spec");
  }
  if (trim(prompt_).empty()) throw UsageError("the figure describer's prompt is empty; pass none to use the default");
}

ChatRequest VisionDescriber::request(const std::string& png, const std::string& caption_hint) const {
  std::string text = prompt_;
  const std::string hint = trim(caption_hint);
  if (!hint.empty()) text += "\nIts caption in the document: " + clip(hint, kMaxHintChars);
  ChatRequest r;
  r.messages = {Message::user(std::move(text), {ImagePart{"image/png", png}})};
  r.temperature = 0;
  r.max_tokens = kMaxTokens;
  // Properties in the order a constrained model should write them: looking, reading, then naming.
  nlohmann::ordered_json kinds = nlohmann::ordered_json::array();
  for (const auto& k : VisionDescriber::kinds()) kinds.push_back(k);
  nlohmann::ordered_json schema = {
      {"type", "object"},
      {"properties",
       {{"description", {{"type", "string"}}}, {"text", {{"type", "string"}}}, {"kind", {{"type", "string"}, {"enum", kinds}}}}},
      {"required", {"description", "text", "kind"}}};
  r.response_schema = ResponseSchema{"figure", std::move(schema), /*lenient=*/true};
  return r;
}

FigureDescription VisionDescriber::describe(const std::string& png, const std::string& caption_hint) const {
  if (png.empty()) throw Error("the figure describer was given an empty image; describe only figures with PNG bytes");
  ChatResponse r;
  try {
    r = model_.chat(request(png, caption_hint));
  } catch (const UsageError&) {
    throw;  // configuration: already says what to change
  } catch (const Error& e) {
    // HTTP status and network errors too: to a caller, a figure that could not be described.
    throw LlmError(std::string("could not describe a figure: ") + e.what());
  }
  return parse_figure_answer(r.text, r.json);
}

std::string VisionDescriber::cache_key(const std::string& image_hash, const std::string& caption_hint) const {
  std::string k = "mmkg-vlm-v1\n" + model_.id() + "\n" + prompt_hash_ + "\n" + image_hash;
  const std::string hint = trim(caption_hint);
  if (!hint.empty()) k += "\n" + hash_hex(clip(hint, kMaxHintChars));
  return hash_hex(k);
}

FigureDescription parse_figure_answer(std::string_view text, const json& parsed) {
  if (parsed.is_object()) {
    if (auto d = from_object(parsed)) return *d;
  }
  if (auto j = parse_json_lenient(text); j && j->is_object()) {
    if (auto d = from_object(*j)) return *d;
  }
  // JSON cut off by max_tokens: the string fields as far as they got.
  if (const size_t b = text.find('{'); b != std::string_view::npos && text.find("\"description\"", b) != std::string_view::npos) {
    FigureDescription d;
    d.description = salvage_string(text, "description");
    d.text = salvage_string(text, "text");
    d.kind = normalise_figure_kind(salvage_string(text, "kind"));
    if (!d.description.empty()) return d;
  }
  FigureDescription d;
  d.description = trim(text);
  d.kind = "other";
  return d;
}

std::string normalise_figure_kind(std::string_view kind) {
  const std::string k = trim(lower(kind));
  for (const auto& known : VisionDescriber::kinds()) {
    if (k == known) return known;
  }
  auto has = [&](const char* w) { return k.find(w) != std::string::npos; };
  // Before "chart": a flowchart is a diagram.
  if (has("screen") || has("user interface") || k == "ui") return "screenshot";
  if (has("flow") || has("diagram") || has("schematic") || has("architecture") || has("drawing")) return "diagram";
  if (has("photo") || has("picture")) return "photo";  // before "graph": a photograph is a photo
  if (has("chart") || has("plot") || has("graph") || has("histogram")) return "chart";
  if (has("table")) return "table";
  return "other";
}

}  // namespace mmkg
