// Countries and the adjectives of nationality that name them ("French" and "France", "American"
// and "United States"), so that two passages that say where something is from in either form
// compare equal. A fixed list of the world's larger and historical states: general knowledge,
// not read from any corpus.
#pragma once

#include <string>
#include <string_view>

namespace mmkg {

/// The country `text` names or whose nationality it gives, lower-cased ("united states" for
/// "American", "United States Army", "U.S."); the first part of a compound nationality
/// ("American-Argentine" -> "united states"). Empty when it names none of the list.
std::string country_key(std::string_view text);

}  // namespace mmkg
