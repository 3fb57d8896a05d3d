// Base64 (RFC 4648, standard alphabet, padded): image data URIs for vision models (llm/), HTTP
// Basic authorization (Neo4j) and, both ways, the shared store's images (store/neo4j_store). In
// core so all share one; no library we link exports a codec (libcurl's is internal), and fifty
// lines do not justify a dependency.
#pragma once

#include <string>
#include <string_view>

namespace mmkg {

/// `bytes` as padded standard base64 ("hi" -> "aGk=").
std::string base64_encode(std::string_view bytes);
/// The bytes of padded or unpadded standard base64 (the shared store's images); throws Error
/// at a character outside the alphabet.
std::string base64_decode(std::string_view text);

}  // namespace mmkg
