#include "text/asked_quantity.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>

#include "core/ascii.h"
#include "text/lexicon.h"
#include "text/question_words.h"
#include "text/words.h"

namespace mmkg {

namespace {

// An auxiliary or a modal: where a question's noun phrase ends, and what opens a yes/no part.
bool aux_or_modal(std::string_view w) { return is_auxiliary(w) || one_of(w, {"had", "may", "might"}); }

// A unit of time as one canonical word ("secs" → "second"), or "" for none.
std::string time_unit_of(std::string_view w) {
  struct Unit {
    const char* name;
    const char* forms[5];
  };
  static const Unit kUnits[] = {
      {"second", {"second", "seconds", "sec", "secs", "s"}},
      {"millisecond", {"millisecond", "milliseconds", "ms"}},
      {"microsecond", {"microsecond", "microseconds", "us"}},
      {"nanosecond", {"nanosecond", "nanoseconds", "ns"}},
      {"minute", {"minute", "minutes", "min", "mins"}},
      {"hour", {"hour", "hours", "h", "hr", "hrs"}},
      {"day", {"day", "days"}},
      {"week", {"week", "weeks"}},
      {"month", {"month", "months"}},
      {"year", {"year", "years"}},
      {"decade", {"decade", "decades"}},
  };
  for (const Unit& u : kUnits)
    for (const char* f : u.forms)
      if (f && w == f) return u.name;
  return "";
}

// Nouns that make "what/which N" ask for a quantity; the abstract ones name only the quantity
// ("the number of parents": the parents are what the value stands beside).
bool measure_noun(std::string_view w) {
  return one_of(w, {"fraction", "percentage", "percent", "proportion", "share", "number", "size", "value", "amount",
                "ratio", "level", "score", "accuracy", "error", "count", "constant", "probability", "threshold",
                "median", "average", "throughput", "port", "tolerance", "length", "limit", "capacity", "timeout",
                "rate", "duration", "frequency", "weight", "width", "height", "depth", "price", "cost",
                "population", "temperature", "distance", "priority", "maximum", "minimum", "precision", "speed"});
}
// Measures stated by a unit rather than by their own name ("boils at 451 degrees" gives a
// temperature): a number with a unit answers them as well as one beside the noun.
bool physical_noun(std::string_view w) {
  return one_of(w, {"temperature", "weight", "length", "height", "width", "depth", "distance", "speed", "price", "cost",
                "duration", "capacity", "frequency", "throughput", "mass", "volume", "power", "voltage", "memory",
                "bandwidth", "latency"});
}
// Units of measure as texts write them after a number ("451 degrees", "20 litres", "512 MB").
bool unit_word(std::string_view w) {
  return one_of(w, {"degree", "degrees", "°", "°c", "°f", "c", "f", "k", "kelvin", "celsius", "fahrenheit", "m", "cm",
                "mm", "km", "nm", "metre", "metres", "meter", "meters", "mile", "miles", "foot", "feet", "inch",
                "inches", "g", "kg", "mg", "t", "tonnes", "tons", "gram", "grams", "kilogram", "kilograms", "pound",
                "pounds", "lb", "lbs", "l", "ml", "litre", "litres", "liter", "liters", "gallon", "gallons", "b",
                "kb", "mb", "gb", "tb", "kib", "mib", "gib", "byte", "bytes", "bit", "bits", "character",
                "characters", "chars", "hz", "khz", "mhz", "ghz", "w", "kw", "mw", "gw", "watt", "watts",
                "megawatts", "kilowatts", "v", "volt", "volts", "mph", "kph", "kmh", "dollars", "euros", "usd",
                "eur", "tokens", "fps", "ops"});
}

bool abstract_noun(std::string_view w) {
  return one_of(w, {"number", "fraction", "percentage", "percent", "proportion", "share", "amount", "count", "value",
                "size", "maximum", "minimum"});
}
// Modifiers that say which value, not what it stands beside.
bool generic_modifier(std::string_view w) {
  return one_of(w, {"default", "typical", "usual", "exact", "approximate", "total", "overall", "current", "first", "last",
                "new", "maximum", "minimum", "largest", "smallest", "highest", "lowest", "recommended", "required"});
}
bool person_noun(std::string_view w) {
  return one_of(w, {"people", "person", "persons", "individual", "individuals", "subject", "subjects", "participant",
                "participants", "patient", "patients", "respondent", "respondents", "adults", "children", "men",
                "women", "volunteers", "users", "students"});
}

// Where a question's noun phrase ends: a function word, a word that can only be a verb (but a
// participle before a noun modifies it: "the drying tolerance"), or a verb after a plural noun
// ("how many valves ship with it").
bool ends_phrase(const std::string& w, const std::string& prev, const std::string& next) {
  if (aux_or_modal(w) || one_of(w, {"what", "which", "who", "whom", "whose", "how", "why", "when", "where", "in", "on", "at",
                          "for", "from", "with", "by", "to", "per", "than", "as", "into", "over", "under", "between",
                          "about", "a", "an", "the", "this", "that", "these", "those", "and", "or", "but", "it",
                          "they", "i", "you", "we", "he", "she", "its", "their", "there"}))
    return true;
  const graph::Lexicon& lex = graph::Lexicon::get();
  bool participle = false;
  if (!lex.verb_form(w, &participle)) return false;
  const bool noun = lex.is_noun(w) || lex.is_noun(lex.singular(w));  // "seconds", "parents": plural nouns
  if (!noun && !lex.is_adj(w)) return !(participle && w.ends_with("ing") && lex.is_noun(next));
  return prev.size() > 3 && prev.back() == 's' && lex.singular(prev) != prev;
}

struct Phrase {
  std::vector<std::string> words;  // the phrase's words, "of" left out
  bool has_of = false;             // "the number of parents": words after the head's "of"
};

// The noun phrase from ws[j]: at most six words; "of" continues it ("size of constant", "number
// of parents"), the determiners after it are skipped.
Phrase noun_phrase(const std::vector<std::string>& ws, size_t j) {
  Phrase p;
  for (size_t k = j; k < ws.size() && p.words.size() < 6; ++k) {
    const std::string& w = ws[k];
    if (w == "of" && !p.words.empty() && !p.has_of) {
      p.has_of = true;
      while (k + 1 < ws.size() && one_of(ws[k + 1], {"the", "a", "an", "these", "those", "its", "their"})) ++k;
      continue;
    }
    if (ends_phrase(w, p.words.empty() ? "" : p.words.back(), k + 1 < ws.size() ? ws[k + 1] : "")) break;
    p.words.push_back(w);
  }
  return p;
}

// The phrase's words the value must stand beside: without the generic modifiers, and without
// the abstract nouns when anything else is left.
std::vector<std::string> focus_of(const Phrase& p) {
  std::vector<std::string> out;
  for (auto& w : p.words)
    if (!generic_modifier(w) && !abstract_noun(w)) out.push_back(w);
  return out;
}

bool any_of_words(const Phrase& p, bool (*pred)(std::string_view)) {
  return std::any_of(p.words.begin(), p.words.end(), [&](const std::string& w) { return pred(w); });
}

AskedQuantity after_what(const std::vector<std::string>& ws, size_t i) {
  size_t j = i + 1;
  while (j < ws.size() && one_of(ws[j], {"is", "are", "was", "were"})) ++j;
  while (j < ws.size() && one_of(ws[j], {"the", "a", "an"})) ++j;
  const Phrase p = noun_phrase(ws, j);
  AskedQuantity q;
  auto has = [&](std::initializer_list<const char*> set) {
    return std::any_of(p.words.begin(), p.words.end(), [&](const std::string& w) { return one_of(w, set); });
  };
  if (has({"date", "year", "years", "day", "month", "time"})) return q;  // dates: typed elsewhere
  if (has({"version", "versions"})) {
    q.type = QuantityType::Version;
    for (auto& w : p.words)
      if (!generic_modifier(w)) q.focus.push_back(w);
    return q;
  }
  if (has({"factor", "speedup"})) {
    q.type = QuantityType::Ratio;
    return q;
  }
  if (!any_of_words(p, measure_noun)) return q;
  q.focus = focus_of(p);
  q.by_unit = any_of_words(p, physical_noun);
  if (!q.focus.empty()) q.type = QuantityType::Measure;
  return q;
}

// A comparative adjective: "more", "less", or -er of an adjective ("faster", "larger", "bigger",
// "easier"), not a noun that ends so ("water").
bool comparative(const std::string& w) {
  if (w == "more" || w == "less") return true;
  if (w.size() < 4 || !w.ends_with("er")) return false;
  const graph::Lexicon& lex = graph::Lexicon::get();
  const std::string base = w.substr(0, w.size() - 2);
  if (lex.is_adj(base) || lex.is_adj(base + "e")) return true;
  if (base.size() > 2 && base.back() == base[base.size() - 2] && lex.is_adj(base.substr(0, base.size() - 1))) return true;
  return base.back() == 'i' && lex.is_adj(base.substr(0, base.size() - 1) + "y");
}

AskedQuantity after_how(const std::vector<std::string>& ws, size_t i) {
  AskedQuantity q;
  const std::string next = i + 1 < ws.size() ? ws[i + 1] : "";
  if (next == "old") q.type = QuantityType::Age;
  if (next == "long") q.type = QuantityType::Span;
  if (next == "many" || next == "much") {
    const std::string after = i + 2 < ws.size() ? ws[i + 2] : "";
    if (next == "much" && comparative(after)) {
      q.type = QuantityType::Ratio;  // "how much faster", "how much more"
      return q;
    }
    // "how many get dropped": a linking verb (the auxiliaries end the phrase anyway), no noun.
    if (one_of(after, {"get", "got", "become", "became", "remain", "remained", "stay", "stayed"})) return q;
    const Phrase p = noun_phrase(ws, i + 2);
    q.focus = focus_of(p);
    if (q.focus.empty()) return q;
    q.type = any_of_words(p, [](std::string_view w) { return !time_unit_of(w).empty(); }) ? QuantityType::Span
             : next == "many"            ? QuantityType::Count
                                         : QuantityType::Measure;
  }
  return q;
}

// A sentence's pieces: split at spaces and at punctuation that bounds a value ("(default 500)",
// "α = 0.05", "bash-4.0"), lower-cased, with the dots, commas and dashes inside a number kept.
// `attached[i]`: piece i is a number joined to a name by a dash ("SHA-1", "GPT-4", "bash-4.0"):
// part of the name, or the name's version, never a count or a measure.
std::vector<std::string> pieces(std::string_view s, std::vector<char>& attached) {
  std::vector<std::string> out;
  std::string cur;
  bool joined = false;
  auto flush = [&] {
    while (!cur.empty() && std::string_view(".,-'’").find(cur.back()) != std::string_view::npos) cur.pop_back();
    while (!cur.empty() && std::string_view(".,-'#$~").find(cur.front()) != std::string_view::npos) cur.erase(0, 1);
    if (!cur.empty()) {
      out.push_back(lower_ascii(cur));
      attached.push_back(joined);
    }
    joined = false;
    cur.clear();
  };
  for (size_t k = 0; k < s.size(); ++k) {
    const char c = s[k];
    const bool digit_next = k + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[k + 1]));
    if (c == ';') {
      flush();
      out.push_back(";");  // a clause boundary: a value and a focus on either side are not beside
      attached.push_back(false);
    } else if (std::isspace(static_cast<unsigned char>(c)) || std::string_view("()[]{}:\"=<>/|*").find(c) != std::string_view::npos) {
      flush();
    } else if (c == '-' && digit_next && !cur.empty() && std::isalpha(static_cast<unsigned char>(cur.back()))) {
      flush();  // "bash-4.0", "lme4-1.1": the name, then the number
      joined = true;
    } else if (c == ',' && !(digit_next && !cur.empty() && std::isdigit(static_cast<unsigned char>(cur.back())))) {
      flush();  // a comma ends a piece unless it groups digits ("1,456")
    } else {
      cur += c;
    }
  }
  flush();
  return out;
}

// A number as a text states one: digits first ("12", "0.05", "4.2.0", "1,456", "2x", "40%",
// "10ms") or a "v" before them ("v2.3"); a few letters after the digits at most (a unit).
bool number_piece(const std::string& p) {
  size_t k = (p.size() > 1 && p[0] == 'v' && std::isdigit(static_cast<unsigned char>(p[1]))) ? 1 : 0;
  if (k >= p.size() || !std::isdigit(static_cast<unsigned char>(p[k]))) return false;
  size_t letters = 0;
  for (char c : p) letters += std::isalpha(static_cast<unsigned char>(c)) != 0;
  return letters <= 4;
}

bool version_piece(const std::string& p) {
  if (!number_piece(p)) return false;
  if (p[0] == 'v') return true;
  for (size_t k = 1; k + 1 < p.size(); ++k)
    if (p[k] == '.' && std::isdigit(static_cast<unsigned char>(p[k - 1])) &&
        std::isdigit(static_cast<unsigned char>(p[k + 1])))
      return true;
  return false;
}

// The letters after a number's digits ("10ms" → "ms"), or "".
std::string unit_suffix(const std::string& p) {
  const size_t k = p.find_first_not_of("0123456789.,");
  return k == std::string::npos ? std::string() : p.substr(k);
}

std::string singular(const std::string& w) { return graph::Lexicon::get().singular(w); }

// The focus words as they may stand in a sentence: singulars, and every person noun when the
// focus counts people ("how many people" is answered by "228 patients").
std::set<std::string> focus_forms(const std::vector<std::string>& focus) {
  std::set<std::string> out;
  for (auto& w : focus) {
    out.insert(singular(w));
    if (person_noun(w))
      for (auto* p : {"people", "person", "individual", "subject", "participant", "patient", "respondent", "adult",
                      "child", "children", "man", "men", "woman", "women", "volunteer", "user", "student"})
        out.insert(p);
  }
  return out;
}

bool is_focus(const std::string& piece, const std::set<std::string>& forms) {
  for (auto& w : words(piece))
    if (forms.count(w) || forms.count(singular(w))) return true;
  return false;
}

}  // namespace

const char* quantity_type_name(QuantityType t) {
  switch (t) {
    case QuantityType::Count: return "count";
    case QuantityType::Span: return "span";
    case QuantityType::Age: return "age";
    case QuantityType::Ratio: return "ratio";
    case QuantityType::Version: return "version";
    case QuantityType::Measure: return "measure";
    default: return "none";
  }
}

AskedQuantity asked_quantity(std::string_view part) {
  const std::vector<std::string> ws = words(part);
  if (ws.empty() || aux_or_modal(ws[0])) return {};  // a yes/no question asks no quantity
  for (size_t i = 0; i < ws.size(); ++i) {
    if (ws[i] == "how") return after_how(ws, i);
    if (ws[i] == "what" || ws[i] == "which") return after_what(ws, i);
  }
  return {};
}

bool supplies_quantity(std::string_view sentence, const AskedQuantity& q, std::string_view question) {
  if (q.type == QuantityType::None) return false;
  std::vector<char> attached;
  const std::vector<std::string> ps = pieces(sentence, attached);
  std::set<std::string> units;  // "how many seconds": a number of seconds, not of days
  for (auto& w : q.focus)
    if (std::string u = time_unit_of(w); !u.empty()) units.insert(u);
  auto time_ok = [&](const std::string& w) {
    const std::string u = time_unit_of(w);
    return !u.empty() && (units.empty() || units.count(u));
  };
  std::set<std::string> asked;
  for (auto& w : words(question)) asked.insert(w);
  const std::set<std::string> forms = focus_forms(q.focus);
  auto near_focus = [&](size_t i, size_t before, size_t after) {
    for (size_t j = i; j > 0 && j + before > i && ps[j - 1] != ";"; --j)
      if (is_focus(ps[j - 1], forms)) return true;
    for (size_t j = i + 1; j < ps.size() && j <= i + after && ps[j] != ";"; ++j)
      if (is_focus(ps[j], forms)) return true;
    return false;
  };
  auto at = [&](size_t j) -> const std::string& {
    static const std::string none;
    return j < ps.size() ? ps[j] : none;
  };
  for (size_t i = 0; i < ps.size(); ++i) {
    const std::string& p = ps[i];
    const bool spelled = one_of(p, {"two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                                "twelve", "twenty", "hundred", "thousand"});
    if (q.type == QuantityType::Ratio &&
        (one_of(p, {"twice", "double", "doubles", "halves", "thrice", "triple"}) ||
         (p == "magnitude" && one_of(at(i - 1), {"of"}) && one_of(at(i - 2), {"order", "orders"}))))
      return true;
    if (!number_piece(p) && !(spelled && q.type == QuantityType::Count)) continue;
    if (attached[i] && q.type != QuantityType::Version) continue;
    bool fresh = false;
    for (auto& w : words(p)) fresh = fresh || !asked.count(w);
    if (!fresh) continue;
    if (i > 0 && one_of(ps[i - 1], {"figure", "fig", "table", "section", "equation", "eq", "chapter", "page", "appendix",
                                "panel", "step", "line", "p", "pp", "ref"}))
      continue;  // a label or a reference, not a quantity
    const std::string& n1 = at(i + 1);
    const std::string& n2 = at(i + 2);
    switch (q.type) {
      case QuantityType::Count:  // a whole number ("1,456", "twelve"), not "0.05" or "40%"
        if (p.find_first_of(".%") == std::string::npos && near_focus(i, 4, 3)) return true;
        break;
      case QuantityType::Span:
        if (time_ok(n1) || time_ok(n2) || time_ok(unit_suffix(p))) return true;
        break;
      case QuantityType::Age:
        if (one_of(n1, {"year", "years", "yr", "yrs", "months"}) || one_of(n2, {"year", "years", "months"}) ||
            one_of(at(i - 1), {"aged", "age", "ages"}))
          return true;
        break;
      case QuantityType::Ratio:
        if (p.back() == 'x' || p.find('%') != std::string::npos || p.find("fold") != std::string::npos ||
            one_of(n1, {"times", "fold", "percent", "%", "x", "×"}) || (at(i - 1) == "of" && at(i - 2) == "factor"))
          return true;
        break;
      case QuantityType::Version:
        if ((version_piece(p) || one_of(at(i - 1), {"version", "release", "v"})) &&
            (near_focus(i, 6, 6) || one_of(at(i - 1), {"version", "release"})))
          return true;
        break;
      case QuantityType::Measure:
        if (near_focus(i, 4, 4) || (q.by_unit && (unit_word(n1) || unit_word(unit_suffix(p))))) return true;
        break;
      default: break;
    }
  }
  // "How long": a span stated by its end ("stored ... until they are cleaned", "kept forever").
  if (q.type == QuantityType::Span && q.focus.empty())
    for (auto& p : ps)
      if (one_of(p, {"until", "forever", "indefinitely", "permanently", "never"})) return true;
  return false;
}

}  // namespace mmkg
