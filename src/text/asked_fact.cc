#include "text/asked_fact.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "core/ascii.h"

namespace mmkg {

namespace {

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '"')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '?' || s.back() == '.' || s.back() == '"' || s.back() == ','))
    s.remove_suffix(1);
  return std::string(s);
}

bool starts(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends(std::string_view s, std::string_view p) { return s.size() >= p.size() && s.substr(s.size() - p.size()) == p; }

// Words that name a kind of work or thing before its name ("the film X", "song Y"): dropped.
std::string_view drop_category(std::string_view np) {
  for (std::string_view c : {"the film ", "film ", "the song ", "song ", "the album ", "album ", "the book ",
                             "the novel ", "the band ", "the show ", "the series ", "the movie ", "movie "})
    if (starts(lower_ascii(np), c) && np.size() > c.size() && std::isupper(static_cast<unsigned char>(np[c.size()])))
      return np.substr(c.size());
  return np;
}

struct Compound {
  const char* phrase;
  std::array<const char*, 2> chain;
};

// Compound kin terms, as the relations they walk (nearest first).
constexpr std::array<Compound, 22> kCompounds = {{
    {"son-in-law", {"child", "husband"}},          {"daughter-in-law", {"child", "wife"}},
    {"child-in-law", {"child", "spouse"}},          {"brother-in-law", {"spouse", "brother"}},
    {"sister-in-law", {"spouse", "sister"}},
    {"paternal grandfather", {"father", "father"}}, {"paternal grandmother", {"father", "mother"}},
    {"maternal grandfather", {"mother", "father"}}, {"maternal grandmother", {"mother", "mother"}},
    {"grandfather", {"parent", "father"}},          {"grandmother", {"parent", "mother"}},
    {"father-in-law", {"spouse", "father"}},        {"mother-in-law", {"spouse", "mother"}},
    {"father in law", {"spouse", "father"}},        {"mother in law", {"spouse", "mother"}},
    {"stepmother", {"father", "wife"}},             {"stepfather", {"mother", "husband"}},
    {"uncle", {"parent", "brother"}},               {"aunt", {"parent", "sister"}},
    {"grandson", {"child", "son"}},                 {"granddaughter", {"child", "daughter"}},
    {"grandchild", {"child", "child"}},
}};

constexpr std::array<const char*, 27> kRelations = {
    "father", "mother",  "parent",   "husband",  "wife",         "spouse",   "son",    "daughter", "child",
    "brother", "sister", "sibling",  "director", "composer",     "performer", "producer", "writer", "screenwriter",
    "author", "editor",  "founder",  "singer",   "children",     "parents",  "directors", "composers", "performers"};

std::string singular_relation(std::string_view w) {
  if (w == "children") return "child";
  if (w == "singer") return "performer";
  if (w == "parents" || w == "directors" || w == "composers" || w == "performers") return std::string(w.substr(0, w.size() - 1));
  return std::string(w);
}

// "X's R" / "the R of X": the relations from the topic outward, and the topic.
void parse_np(std::string_view np_in, std::vector<std::string>& chain, std::string& topic, int depth = 0) {
  std::string np = trim(np_in);
  if (depth >= 6) {  // relations of relations of ...: more than any question walks
    topic = np;
    return;
  }
  const std::string l = lower_ascii(np);
  // "X's paternal grandfather": the last "'s " whose remainder is a relation phrase.
  for (size_t p = l.rfind("'s "); p != std::string::npos && p > 0; p = p ? l.rfind("'s ", p - 1) : std::string::npos) {
    std::vector<std::string> rel = relation_chain(l.substr(p + 3));
    if (rel.empty()) continue;
    parse_np(np.substr(0, p), chain, topic, depth + 1);
    chain.insert(chain.end(), rel.begin(), rel.end());
    return;
  }
  // "the director of film X" (or "director of X", "the directors of films X and Y")
  for (std::string_view art : {"the ", ""}) {
    if (!starts(l, art)) continue;
    const size_t of = l.find(" of ", art.size());
    if (of == std::string::npos) continue;
    std::vector<std::string> rel = relation_chain(l.substr(art.size(), of - art.size()));
    if (rel.empty()) continue;
    parse_np(drop_category(std::string_view(np).substr(of + 4)), chain, topic, depth + 1);
    chain.insert(chain.end(), rel.begin(), rel.end());
    return;
  }
  topic = std::string(drop_category(np));
}

struct Frame {
  const char* prefix;
  const char* suffix;
  FactProperty property;
};

// Question frames around the phrase that names the entity ("When did ... die").
constexpr std::array<Frame, 34> kFrames = {{
    {"when did ", " die", FactProperty::DeathDate},
    {"when was ", " born", FactProperty::BirthDate},
    {"what is the date of death of ", "", FactProperty::DeathDate},
    {"what is the date of birth of ", "", FactProperty::BirthDate},
    {"what was the date of death of ", "", FactProperty::DeathDate},
    {"when is ", "'s birthday", FactProperty::BirthDate},
    {"what year was ", " born", FactProperty::BirthDate},
    {"what year did ", " die", FactProperty::DeathDate},
    {"where was the place of birth of ", "", FactProperty::BirthPlace},
    {"what is the place of birth of ", "", FactProperty::BirthPlace},
    {"where was ", " born", FactProperty::BirthPlace},
    {"where was the place of death of ", "", FactProperty::DeathPlace},
    {"what is the place of death of ", "", FactProperty::DeathPlace},
    {"where did ", " die", FactProperty::DeathPlace},
    {"what nationality is ", "", FactProperty::Nationality},
    {"what nationality was ", "", FactProperty::Nationality},
    {"what is the nationality of ", "", FactProperty::Nationality},
    {"which country ", " is from", FactProperty::Nationality},
    {"which country is ", " from", FactProperty::Nationality},
    {"what country is ", " from", FactProperty::Nationality},
    {"why did ", " die", FactProperty::CauseOfDeath},
    {"how did ", " die", FactProperty::CauseOfDeath},
    {"what is the cause of death of ", "", FactProperty::CauseOfDeath},
    {"what was the cause of death of ", "", FactProperty::CauseOfDeath},
    {"where did ", " study", FactProperty::Education},
    {"where did ", " graduate", FactProperty::Education},
    {"where was ", " educated", FactProperty::Education},
    {"where does ", " work at", FactProperty::Employer},
    {"where does ", " work", FactProperty::Employer},
    {"where did ", " work", FactProperty::Employer},
    {"when was ", " released", FactProperty::Released},
    {"when did ", " come out", FactProperty::Released},
    {"who is ", "", FactProperty::Identity},
    {"who was ", "", FactProperty::Identity},
}};

// "first", "earlier", "older": the smallest date wins; "later", "younger", "last": the largest.
bool polarity_smallest(const std::string& l, FactProperty p) {
  const bool later = l.find("later") != std::string::npos || l.find(" last") != std::string::npos ||
                     l.find("younger") != std::string::npos || l.find("more recent") != std::string::npos ||
                     l.find("most recent") != std::string::npos || l.find("newer") != std::string::npos ||
                     l.find("longer") != std::string::npos;
  (void)p;
  return !later;
}

FactProperty compared_property(const std::string& l) {
  if (l.find("lived longer") != std::string::npos || l.find("lived shorter") != std::string::npos ||
      l.find("live longer") != std::string::npos)
    return FactProperty::Lifespan;
  if (l.find("died") != std::string::npos || l.find("die ") != std::string::npos) return FactProperty::DeathDate;
  if (l.find("born") != std::string::npos || l.find("older") != std::string::npos ||
      l.find("younger") != std::string::npos || l.find("elder") != std::string::npos)
    return FactProperty::BirthDate;
  for (const char* w : {"released", "came out", "come out", "published", "premiered", "founded", "established", "formed"})
    if (l.find(w) != std::string::npos) return FactProperty::Released;
  return FactProperty::None;
}

// The relations a comparison's frame walks: "the director who died first" -> {director}.
std::vector<std::string> frame_chain(const std::string& l) {
  std::vector<std::string> out;
  size_t best = std::string::npos;
  for (const char* r : kRelations) {
    size_t p = l.find(r);
    if (p != std::string::npos && (p == 0 || !std::isalpha(static_cast<unsigned char>(l[p - 1]))) && p < best) {
      best = p;
      out = {singular_relation(r)};
    }
  }
  for (const Compound& c : kCompounds)
    if (l.find(c.phrase) != std::string::npos) out = {c.chain[0], c.chain[1]};
  return out;
}

std::vector<std::string> split_two(std::string_view s, std::string_view sep) {
  const std::string l = lower_ascii(s);
  size_t p = l.rfind(sep);
  if (p == std::string::npos) return {};
  std::string a = trim(drop_category(trim(s.substr(0, p)))), b = trim(drop_category(trim(s.substr(p + sep.size()))));
  if (a.empty() || b.empty()) return {};
  return {a, b};
}

// "Was A or B born first?", "Did A or B come out later?": the options between the auxiliary and
// the verb, the frame after them.
AskedFact was_a_or_b(const std::string& q, const std::string& l) {
  AskedFact f;
  size_t aux = std::string::npos;
  for (std::string_view a : {"was ", "were ", "did ", "is "})
    if (starts(l, a)) aux = a.size();
  const size_t orp = l.find(" or ");
  if (aux == std::string::npos || orp == std::string::npos) return f;
  size_t verb = std::string::npos;
  for (std::string_view v : {" born ", " released ", " die ", " died ", " come out ", " came out ", " founded ",
                             " established ", " published ", " live ", " lived "}) {
    size_t p = l.rfind(v);
    if (p != std::string::npos && p > orp && (verb == std::string::npos || p < verb)) verb = p;
  }
  if (verb == std::string::npos) return f;
  const std::string frame = l.substr(verb);
  f.property = compared_property(frame + " ");
  if (f.property == FactProperty::None) return f;
  f.options = {trim(q.substr(aux, orp - aux)), trim(q.substr(orp + 4, verb - orp - 4))};
  if (f.options[0].empty() || f.options[1].empty()) return {};
  f.form = AskedFact::Form::Choice;
  f.smallest = polarity_smallest(frame, f.property);
  return f;
}

AskedFact choice(const std::string& q, const std::string& l) {
  AskedFact f;
  if (!starts(l, "which ") && !starts(l, "who ")) return was_a_or_b(q, l);
  size_t comma = q.find(", ");
  std::string frame;
  std::vector<std::string> opts;
  if (comma != std::string::npos) {
    opts = split_two(std::string_view(q).substr(comma + 2), " or ");
    frame = l.substr(0, comma);
  }
  for (std::string_view cue : {" out of ", " between "}) {
    size_t p = l.find(cue);
    if (opts.empty() && p != std::string::npos) {
      opts = split_two(std::string_view(q).substr(p + cue.size()), " and ");
      frame = l.substr(0, p);
    }
  }
  if (opts.size() != 2) return f;
  f.property = compared_property(frame);
  if (f.property == FactProperty::None) return f;
  f.form = AskedFact::Form::Choice;
  f.options = opts;
  f.chain = frame_chain(frame);
  f.smallest = polarity_smallest(frame, f.property);
  return f;
}

AskedFact same(const std::string& q, const std::string& l) {
  AskedFact f;
  if (l.find("same") == std::string::npos) return f;
  size_t aux = std::string::npos;
  for (std::string_view a : {"are ", "is ", "do ", "does ", "did ", "were ", "was "})
    if (starts(l, a)) aux = a.size();
  if (aux == std::string::npos) return f;
  std::string rest = q.substr(aux), lr = l.substr(aux);
  for (std::string_view lead : {"both ", "the movies ", "the films "})
    if (starts(lr, lead)) rest = rest.substr(lead.size()), lr = lr.substr(lead.size());
  // "directors of films A and B have ...": the relation before the names.
  std::vector<std::string> chain;
  const size_t of = lr.find(" of ");
  if (of != std::string::npos && of < 30) {
    std::vector<std::string> rel = relation_chain(lr.substr(0, of));
    if (!rel.empty()) chain = rel, rest = rest.substr(of + 4), lr = lr.substr(of + 4);
  }
  rest = std::string(drop_category(rest));
  for (std::string_view c : {"the films ", "films ", "songs ", "albums ", "books ", "the movies ", "movies ", "the songs "})
    if (starts(lower_ascii(rest), c)) rest = rest.substr(c.size());
  lr = lower_ascii(rest);
  size_t cut = std::string::npos;
  for (std::string_view c : {" both ", " located", " from the same", " have ", " has ", " in the same", " of the same", " originate",
                             " the same", " share", " born in"}) {
    size_t p = lr.find(c);
    if (p != std::string::npos && p < cut) cut = p;
  }
  if (cut == std::string::npos) return f;
  std::vector<std::string> opts = split_two(std::string_view(rest).substr(0, cut), " and ");
  if (opts.size() != 2) return f;
  const std::string tail = lr.substr(cut);
  if (chain.empty()) chain = frame_chain(tail);
  if (tail.find("country") != std::string::npos || tail.find("nationality") != std::string::npos)
    f.property = FactProperty::Nationality;
  else if (tail.find("born") != std::string::npos || tail.find("birthplace") != std::string::npos)
    f.property = FactProperty::BirthPlace;
  else
    return f;
  f.form = AskedFact::Form::Same;
  f.options = opts;
  f.chain = chain;
  return f;
}

AskedFact lookup(const std::string& q, const std::string& l) {
  AskedFact f;
  for (const Frame& fr : kFrames) {
    const std::string_view pre = fr.prefix, suf = fr.suffix;
    if (!starts(l, pre) || !ends(l, suf) || l.size() <= pre.size() + suf.size()) continue;
    std::string np = q.substr(pre.size(), q.size() - pre.size() - suf.size());
    parse_np(np, f.chain, f.topic);
    if (f.topic.empty()) continue;
    // "Who is X?" asks for a definition unless X is someone's relative.
    if (fr.property == FactProperty::Identity && f.chain.empty()) {
      f = {};
      continue;
    }
    f.form = AskedFact::Form::Lookup;
    f.property = fr.property;
    return f;
  }
  return {};
}

}  // namespace

std::vector<std::string> relation_chain(std::string_view phrase) {
  std::string p = trim(phrase);
  p = lower_ascii(p);
  if (starts(p, "the ")) p = p.substr(4);
  for (const Compound& c : kCompounds)
    if (p == c.phrase) return {c.chain[0], c.chain[1]};
  for (const char* r : kRelations)
    if (p == r) return {singular_relation(r)};
  return {};
}

const char* asked_form_name(AskedFact::Form f) {
  switch (f) {
    case AskedFact::Form::None: return "none";
    case AskedFact::Form::Lookup: return "lookup";
    case AskedFact::Form::Choice: return "choice";
    case AskedFact::Form::Same: return "same";
  }
  return "none";
}

AskedFact asked_fact(std::string_view question) {
  const std::string q = trim(question);
  const std::string l = lower_ascii(q);
  AskedFact f = choice(q, l);
  if (f.form == AskedFact::Form::None) f = same(q, l);
  if (f.form == AskedFact::Form::None) f = lookup(q, l);
  return f;
}

}  // namespace mmkg
