#include "text/countries.h"

#include <array>
#include <cctype>
#include <utility>

namespace mmkg {

namespace {

struct Country {
  const char* name;
  const char* demonym;
  const char* other;  ///< another name or adjective ("" when none)
};

constexpr std::array<Country, 84> kCountries = {{
    {"united states", "american", "usa"},       {"united kingdom", "british", "uk"},
    {"england", "english", ""},                 {"scotland", "scottish", ""},
    {"wales", "welsh", ""},                     {"ireland", "irish", ""},
    {"france", "french", ""},                   {"germany", "german", "west german"},
    {"italy", "italian", ""},                   {"spain", "spanish", ""},
    {"portugal", "portuguese", ""},             {"netherlands", "dutch", "holland"},
    {"belgium", "belgian", ""},                 {"switzerland", "swiss", ""},
    {"austria", "austrian", ""},                {"denmark", "danish", ""},
    {"norway", "norwegian", ""},                {"sweden", "swedish", ""},
    {"finland", "finnish", ""},                 {"iceland", "icelandic", ""},
    {"poland", "polish", ""},                   {"czech republic", "czech", "czechoslovak"},
    {"slovakia", "slovak", ""},                 {"hungary", "hungarian", ""},
    {"romania", "romanian", ""},                {"bulgaria", "bulgarian", ""},
    {"greece", "greek", ""},                    {"turkey", "turkish", ""},
    {"russia", "russian", "soviet"},            {"ukraine", "ukrainian", ""},
    {"belarus", "belarusian", ""},              {"estonia", "estonian", ""},
    {"latvia", "latvian", ""},                  {"lithuania", "lithuanian", ""},
    {"serbia", "serbian", "yugoslav"},          {"croatia", "croatian", ""},
    {"slovenia", "slovene", "slovenian"},       {"bosnia and herzegovina", "bosnian", ""},
    {"albania", "albanian", ""},                {"georgia", "georgian", ""},
    {"armenia", "armenian", ""},                {"azerbaijan", "azerbaijani", ""},
    {"iran", "iranian", "persian"},             {"iraq", "iraqi", ""},
    {"israel", "israeli", ""},                  {"egypt", "egyptian", ""},
    {"saudi arabia", "saudi", ""},              {"syria", "syrian", ""},
    {"lebanon", "lebanese", ""},                {"jordan", "jordanian", ""},
    {"india", "indian", ""},                    {"pakistan", "pakistani", ""},
    {"bangladesh", "bangladeshi", ""},          {"sri lanka", "sri lankan", ""},
    {"nepal", "nepalese", "nepali"},            {"china", "chinese", ""},
    {"japan", "japanese", ""},                  {"korea", "korean", "south korea"},
    {"taiwan", "taiwanese", ""},                {"vietnam", "vietnamese", ""},
    {"thailand", "thai", ""},                   {"myanmar", "burmese", "burma"},
    {"cambodia", "cambodian", ""},              {"indonesia", "indonesian", ""},
    {"philippines", "filipino", "philippine"},  {"malaysia", "malaysian", ""},
    {"australia", "australian", ""},            {"new zealand", "new zealander", ""},
    {"canada", "canadian", ""},                 {"mexico", "mexican", ""},
    {"brazil", "brazilian", ""},                {"argentina", "argentine", "argentinian"},
    {"chile", "chilean", ""},                   {"peru", "peruvian", ""},
    {"colombia", "colombian", ""},              {"venezuela", "venezuelan", ""},
    {"cuba", "cuban", ""},                      {"puerto rico", "puerto rican", ""},
    {"south africa", "south african", ""},      {"nigeria", "nigerian", ""},
    {"kenya", "kenyan", ""},                    {"ethiopia", "ethiopian", ""},
    {"morocco", "moroccan", ""},                {"algeria", "algerian", ""},
}};

std::string lower_words(std::string_view s) {
  std::string out;
  for (char c : s) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || u >= 0x80) out += static_cast<char>(std::tolower(u));
    else if (!out.empty() && out.back() != ' ') out += ' ';
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

bool starts_words(const std::string& s, std::string_view w) {
  return !w.empty() && s.compare(0, w.size(), w) == 0 && (s.size() == w.size() || s[w.size()] == ' ');
}

}  // namespace

std::string country_key(std::string_view text) {
  // "American-Argentine": the first part; "U.S." folds to "u s".
  std::string_view first = text.substr(0, text.find('-'));
  std::string t = lower_words(first);
  if (t == "u s" || t == "us") return "united states";
  if (t == "u k") return "united kingdom";
  const Country* best = nullptr;
  size_t best_len = 0;
  for (const Country& c : kCountries)
    for (std::string_view w : {std::string_view(c.name), std::string_view(c.demonym), std::string_view(c.other)})
      if (starts_words(t, w) && w.size() > best_len) best = &c, best_len = w.size();
  return best ? best->name : "";
}

}  // namespace mmkg
