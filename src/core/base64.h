// Base64 (RFC 4648, standard alphabet, padded): image data URIs for vision models (llm/) and HTTP
// Basic authorization (graph/stores, Neo4j). In core so both share one; no library we link
// exports an encoder (libcurl's is internal), and twenty lines do not justify a dependency.
#pragma once

#include <string>
#include <string_view>

namespace mmkg {

/// `bytes` as padded standard base64 ("hi" -> "aGk=").
std::string base64_encode(std::string_view bytes);

}  // namespace mmkg
