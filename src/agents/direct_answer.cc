#include "agents/direct_answer.h"

#include <algorithm>
#include <optional>
#include <set>

#include "text/countries.h"
#include "text/fact_spans.h"

namespace mmkg {

namespace {

constexpr size_t kNone = static_cast<size_t>(-1);

std::string doc_title(const SearchHit& h) {
  std::string t = h.doc;
  size_t slash = t.find_last_of('/');
  if (slash != std::string::npos) t = t.substr(slash + 1);
  size_t dot = t.find_last_of('.');
  if (dot != std::string::npos && dot > 0) t = t.substr(0, dot);
  return t;
}

std::string first_heading(const SearchHit& h) {
  std::string p = h.heading_path;
  size_t sep = p.find(" > ");
  return sep == std::string::npos ? p : p.substr(0, sep);
}

// +1 for relations whose person is a man, -1 a woman, 0 either.
int relation_gender(const std::string& r) {
  if (r == "father" || r == "husband" || r == "son" || r == "brother") return 1;
  if (r == "mother" || r == "wife" || r == "daughter" || r == "sister") return -1;
  return 0;
}

// The passages a walk reads: the context's, and those it fetched.
struct Pool {
  std::vector<const SearchHit*> hits;
  std::vector<SearchHit>* fetched;
  const FindHome* find_home;
  size_t context_size;

  // What the walk reads of passage `i`: its document's passages in the pool, in document order
  // (the opening chunk states the dates, a later one may state the place).
  std::string text(size_t i) const {
    std::vector<const SearchHit*> same;
    for (const SearchHit* h : hits)
      if (h->doc_id == hits[i]->doc_id && !h->doc_id.empty()) same.push_back(h);
    if (same.size() <= 1) return hits[i]->text;
    std::sort(same.begin(), same.end(), [](const SearchHit* a, const SearchHit* b) { return a->start < b->start; });
    std::string out;
    for (const SearchHit* h : same) out += (out.empty() ? "" : "\n\n") + h->text;
    return out;
  }

  // The passage on `name`: in the pool (its document's opening chunk fetched when the pool has a
  // later one only), else fetched with the rest of its document (all added to the pool).
  size_t home(const std::string& name) {
    size_t i = home_among(hits, name);
    if (i != kNone && hits[i]->start == 0) return i;
    if (!find_home || !*find_home) return i;
    std::vector<SearchHit> got = (*find_home)(name);
    widened.insert(name);
    if (got.empty()) return i;
    const std::string first = got.front().chunk_id;
    add(std::move(got));
    for (size_t j = 0; j < hits.size(); ++j)
      if (hits[j]->chunk_id == first) return j;
    return i;
  }

  // The rest of `name`'s document, when the walk found nothing in what the pool holds of it;
  // true when that added a passage.
  bool widen(const std::string& name) {
    if (!find_home || !*find_home || !widened.insert(name).second) return false;
    const size_t before = hits.size();
    add((*find_home)(name));
    return hits.size() > before;
  }

  void add(std::vector<SearchHit> got) {
    for (SearchHit& h : got)
      if (std::none_of(hits.begin(), hits.end(), [&](const SearchHit* x) { return x->chunk_id == h.chunk_id; }))
        fetched->push_back(std::move(h));
    // The pool points into `fetched`: rebuilt after the pushes (its storage may move).
    hits.resize(context_size);
    for (const SearchHit& f : *fetched) hits.push_back(&f);
  }

  std::set<std::string> widened;
};

// The entity `relation` leads to from `from`: a name its passage relates to it by that relation,
// or the subject of another passage that names `from` as the inverse relative ("son of X");
// those with a passage of their own first. nullopt when no passage says.
std::optional<HopStep> hop(const HopStep& from, const std::string& relation, Pool& pool) {
  std::vector<HopStep> cands;
  if (from.passage != kNone) {
    std::vector<RelatedName> names = related_names(pool.text(from.passage), relation, from.entity);
    if (names.empty() && pool.widen(from.entity)) names = related_names(pool.text(from.passage), relation, from.entity);
    for (const RelatedName& r : names) cands.push_back({r.name, relation, kNone, r.sentence, from.passage});
  }
  for (size_t i = 0; i < pool.hits.size(); ++i) {
    if (i == from.passage) continue;
    std::string s = names_as_inverse(pool.text(i), relation, from.entity);
    if (!s.empty()) cands.push_back({doc_title(*pool.hits[i]), relation, i, s, i});
  }
  const int want = relation_gender(relation);
  std::optional<HopStep> best;
  for (size_t c = 0; c < cands.size() && c < 4; ++c) {
    HopStep& h = cands[c];
    if (h.passage == kNone) h.passage = pool.home(h.entity);
    if (want && h.passage != kNone && passage_gender(pool.text(h.passage)) == -want) continue;
    if (!best || (best->passage == kNone && h.passage != kNone)) best = h;
    if (best->passage != kNone) break;
  }
  return best;
}

// The walk from `name` along `chain`; the steps so far and whether it reached the end.
bool walk(const std::string& name, const std::vector<std::string>& chain, Pool& pool, std::vector<HopStep>& path,
          std::string& why) {
  path = {{name, "", pool.home(name), ""}};
  if (path.back().passage == kNone) {
    why = "no passage is on " + name;
    return false;
  }
  for (const std::string& rel : chain) {
    std::optional<HopStep> next = hop(path.back(), rel, pool);
    if (!next) {
      why = "no passage names the " + rel + " of " + path.back().entity;
      return false;
    }
    path.push_back(*next);
  }
  return true;
}

struct Value {
  std::string text;
  std::optional<FactDate> date;
  double span = 0;  // Lifespan: years lived
};

// The asked property of the walk's last entity, its sentence added to the path.
std::optional<Value> value_at(std::vector<HopStep>& path, FactProperty property, Pool& pool, std::string& why) {
  HopStep& last = path.back();
  if (property == FactProperty::Identity) return Value{last.entity, std::nullopt, 0};
  if (last.passage == kNone) {
    why = "no passage is on " + last.entity;
    return std::nullopt;
  }
  const std::string& text = pool.text(last.passage);
  if (property == FactProperty::Lifespan) {
    LifeDates d = life_dates(text);
    if (!d.born || !d.died) {
      why = "no passage on " + last.entity + " gives both dates of their life";
      return std::nullopt;
    }
    const double years = (d.died->year - d.born->year) + (d.died->month - d.born->month) / 12.0;
    std::optional<FactValue> b = read_property(text, FactProperty::BirthDate);
    path.push_back({last.entity, "lifespan", last.passage, b ? b->sentence : "", last.passage});
    return Value{std::to_string(static_cast<int>(years)) + " years", std::nullopt, years};
  }
  std::optional<FactValue> v = read_property(text, property);
  if (!v && pool.widen(last.entity)) v = read_property(pool.text(last.passage), property);
  if (!v) {
    why = "no passage on " + last.entity + " gives the " + std::string(fact_property_name(property));
    std::replace(why.begin(), why.end(), '_', ' ');
    return std::nullopt;
  }
  path.push_back({last.entity, fact_property_name(property), last.passage, v->sentence, last.passage});
  return Value{v->text, v->date, 0};
}

const char* kind_of(FactProperty p) {
  switch (p) {
    case FactProperty::BirthDate:
    case FactProperty::DeathDate:
    case FactProperty::Released: return "date";
    case FactProperty::BirthPlace:
    case FactProperty::DeathPlace:
    case FactProperty::Education:
    case FactProperty::Employer: return "place";
    case FactProperty::Nationality: return "nationality";
    case FactProperty::CauseOfDeath: return "cause";
    default: return "name";
  }
}

// Orders two values of a comparison: <0 when a is smaller.
std::optional<int> compare(const Value& a, const Value& b, FactProperty p) {
  if (p == FactProperty::Lifespan) return a.span < b.span ? -1 : a.span > b.span ? 1 : 0;
  if (!a.date || !b.date) {
    // Released reads a year; FactValue::date is set for those too.
    return std::nullopt;
  }
  return compare_dates(*a.date, *b.date);
}

}  // namespace

size_t home_among(const std::vector<const SearchHit*>& hits, const std::string& name) {
  size_t best = kNone;
  for (size_t i = 0; i < hits.size(); ++i)
    if (same_name(doc_title(*hits[i]), name) && (best == kNone || hits[i]->start < hits[best]->start)) best = i;
  if (best != kNone) return best;
  for (size_t i = 0; i < hits.size(); ++i)
    if (!hits[i]->heading_path.empty() && same_name(first_heading(*hits[i]), name)) return i;
  const std::string f = fold_name(name);
  for (size_t i = 0; i < hits.size(); ++i) {
    const std::string open = fold_name(std::string_view(hits[i]->text).substr(0, f.size() + 40));
    if (!f.empty() && open.compare(0, f.size(), f) == 0 && (open.size() == f.size() || open[f.size()] == ' '))
      return i;
  }
  return kNone;
}

const SearchHit* walk_passage(const DirectAnswer& d, const std::vector<Candidate>& context, size_t i) {
  if (i < context.size()) return &context[i].hit;
  if (i != kNone && i - context.size() < d.fetched.size()) return &d.fetched[i - context.size()];
  return nullptr;
}

DirectAnswer direct_answer(const AskedFact& asked, const std::vector<Candidate>& context, const FindHome& find_home) {
  DirectAnswer d;
  d.asked = asked;
  if (asked.form == AskedFact::Form::None) return d;
  Pool pool{{}, &d.fetched, &find_home, context.size(), {}};
  for (const Candidate& c : context) pool.hits.push_back(&c.hit);
  std::vector<std::string> names = asked.form == AskedFact::Form::Lookup ? std::vector<std::string>{asked.topic}
                                                                          : asked.options;
  std::vector<Value> values;
  for (const std::string& n : names) {
    std::vector<HopStep> path;
    if (!walk(n, asked.chain, pool, path, d.why)) return d;
    std::optional<Value> v = value_at(path, asked.property, pool, d.why);
    d.paths.push_back(std::move(path));
    if (!v) return d;
    values.push_back(*v);
  }
  if (asked.form == AskedFact::Form::Lookup) {
    d.text = values[0].text;
    d.kind = kind_of(asked.property);
  } else if (asked.form == AskedFact::Form::Same) {
    // "French" and "France" are one country; a value the country list lacks compares as written.
    auto key = [&](const Value& v) {
      std::string k = asked.property == FactProperty::Nationality ? country_key(v.text) : "";
      return k.empty() ? fold_name(v.text) : k;
    };
    d.text = key(values[0]) == key(values[1]) ? "yes" : "no";
    d.kind = "yes_no";
  } else {
    std::optional<int> c = compare(values[0], values[1], asked.property);
    if (!c || *c == 0) {
      d.why = "the passages do not tell " + names[0] + " and " + names[1] + " apart by " +
              fact_property_name(asked.property);
      return d;
    }
    d.text = (*c < 0) == asked.smallest ? names[0] : names[1];
    d.kind = "option";
  }
  d.found = true;
  return d;
}

}  // namespace mmkg
