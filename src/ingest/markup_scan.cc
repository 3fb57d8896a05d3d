#include "ingest/markup_scan.h"

#include <cctype>

namespace mmkg {

bool is_markup_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

char lower_ascii_char(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

bool iequals_ascii(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower_ascii_char(a[i]) != lower_ascii_char(b[i])) return false;
  return true;
}

namespace {

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' || c == '.';
}

/// Reads the attributes of a tag from `i` (just after its name) to its '>' or the end of `h`,
/// calling `f(key, value, quoted)` for each (the value as written). Returns the offset of the
/// '>', or h.size() when the tag is unterminated.
template <typename F>
size_t read_attributes(std::string_view h, size_t i, F&& f) {
  while (i < h.size() && h[i] != '>') {
    if (is_markup_space(h[i]) || h[i] == '/') {
      ++i;
      continue;
    }
    size_t a = i;
    while (i < h.size() && !is_markup_space(h[i]) && h[i] != '=' && h[i] != '>' && h[i] != '/') ++i;
    const std::string_view key = h.substr(a, i - a);
    while (i < h.size() && is_markup_space(h[i])) ++i;
    std::string_view value;
    bool quoted = false;
    if (i < h.size() && h[i] == '=') {
      ++i;
      while (i < h.size() && is_markup_space(h[i])) ++i;
      if (i < h.size() && (h[i] == '"' || h[i] == '\'')) {
        const char q = h[i++];
        const size_t e = h.find(q, i);
        const size_t end = e == std::string_view::npos ? h.size() : e;
        value = h.substr(i, end - i);
        quoted = true;
        i = e == std::string_view::npos ? h.size() : e + 1;
      } else {
        a = i;
        while (i < h.size() && !is_markup_space(h[i]) && h[i] != '>') ++i;
        value = h.substr(a, i - a);
      }
    }
    f(key, value, quoted);
  }
  return i;
}

}  // namespace

std::string_view MarkupTag::local_name() const {
  std::string_view n = name;
  if (const size_t colon = n.rfind(':'); colon != std::string_view::npos) n.remove_prefix(colon + 1);
  return n;
}

bool TagScanner::next(MarkupTag& t) {
  const std::string_view h = h_;
  while ((pos_ = h.find('<', pos_)) != std::string_view::npos) {
    const size_t lt = pos_++;
    if (h.compare(pos_, 3, "!--") == 0) {
      const size_t e = h.find("-->", pos_);
      if (e == std::string_view::npos) break;
      pos_ = e + 3;
      continue;
    }
    size_t i = pos_;
    const bool closing = i < h.size() && h[i] == '/';
    if (closing) ++i;
    size_t n = i;
    while (n < h.size() && name_char(h[n])) ++n;
    // Not a tag ("<!DOCTYPE", "<?xml", "a < b"): the scan goes on after the '<'.
    if (n == i || n >= h.size() || !(is_markup_space(h[n]) || h[n] == '>' || h[n] == '/')) continue;
    const size_t gt = read_attributes(h, n, [](std::string_view, std::string_view, bool) {});
    t.begin = lt;
    t.name = h.substr(i, n - i);
    t.closing = closing;
    t.terminated = gt < h.size();
    t.end = t.terminated ? gt + 1 : h.size();
    t.self_closing = t.terminated && h[gt - 1] == '/';
    t.attributes = h.substr(n, gt - n);
    pos_ = t.end;
    return true;
  }
  pos_ = h.size();
  return false;
}

TagAttrs tag_attributes(const MarkupTag& tag) {
  TagAttrs attrs;
  read_attributes(tag.attributes, 0, [&](std::string_view k, std::string_view v, bool) {
    std::string key(k);
    for (char& c : key) c = lower_ascii_char(c);
    if (!key.empty()) attrs.emplace_back(std::move(key), decode_entities(v));
  });
  return attrs;
}

const std::string* find_attr(const TagAttrs& attrs, std::string_view name) {
  for (const auto& [k, v] : attrs)
    if (k == name) return &v;
  return nullptr;
}

std::vector<TagAttrs> scan_tags(std::string_view h, std::string_view tag, size_t max_tags) {
  std::vector<TagAttrs> out;
  TagScanner scan(h);
  MarkupTag t;
  while (out.size() < max_tags && scan.next(t))
    if (!t.closing && iequals_ascii(t.local_name(), tag)) out.push_back(tag_attributes(t));
  return out;
}

std::string decode_entities(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out.push_back(s[i]);
      continue;
    }
    const size_t semi = s.find(';', i);
    if (semi == std::string_view::npos || semi - i > 10) {
      out.push_back('&');
      continue;
    }
    const std::string_view ent = s.substr(i + 1, semi - i - 1);
    static const struct { const char* name; const char* text; } kNamed[] = {
        {"amp", "&"}, {"lt", "<"}, {"gt", ">"}, {"quot", "\""}, {"apos", "'"}, {"nbsp", " "}};
    std::string rep;
    if (ent.size() > 1 && ent[0] == '#') {
      const bool hexa = ent[1] == 'x' || ent[1] == 'X';
      unsigned long cp = 0;
      bool ok = ent.size() > (hexa ? 2u : 1u);
      for (size_t k = hexa ? 2 : 1; ok && k < ent.size(); ++k) {
        const char c = ent[k];
        const int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                      : hexa && std::isxdigit(static_cast<unsigned char>(c)) ? lower_ascii_char(c) - 'a' + 10 : -1;
        ok = d >= 0 && cp < 0x110000;
        cp = cp * (hexa ? 16 : 10) + static_cast<unsigned long>(d);
      }
      if (ok && cp > 0 && cp < 0x110000 && !(cp >= 0xD800 && cp <= 0xDFFF)) {
        if (cp < 0x80) {
          rep.push_back(static_cast<char>(cp));
        } else if (cp < 0x800) {
          rep.push_back(static_cast<char>(0xC0 | (cp >> 6)));
          rep.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else if (cp < 0x10000) {
          rep.push_back(static_cast<char>(0xE0 | (cp >> 12)));
          rep.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
          rep.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        } else {
          rep.push_back(static_cast<char>(0xF0 | (cp >> 18)));
          rep.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
          rep.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
          rep.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
        }
      }
    } else {
      for (const auto& e : kNamed)
        if (ent == e.name) rep = e.text;
    }
    if (rep.empty()) {
      out.push_back('&');
      continue;
    }
    out += rep;
    i = semi;
  }
  return out;
}

}  // namespace mmkg
