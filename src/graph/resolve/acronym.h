// Acronym tests used by entity resolution and linking. is_acronym_of (declared in resolve.h) is
// the strict test used to *infer* that an acronym abbreviates a term; the loose test below
// (Schwartz & Hearst 2003) only checks an expansion the text itself defined ("... (MHA)").
#pragma once

#include <string>
#include <string_view>

namespace mmkg::graph {

/// True when `s` is written like an acronym: one token (hyphens allowed: "GPT-4", "Cell-DETR"),
/// at most 12 characters, at least two upper-case letters, a plural "s" allowed ("LLMs"), and no
/// upper-case-first ordinary word ("Transformer"). "RoPE", "MoBA", "ViT", "SSMs" are acronyms.
bool looks_like_acronym(std::string_view s);

/// Schwartz & Hearst's test for a definition written in the text: every letter and digit of the
/// acronym occurs, in order, in `phrase`, and its first letter starts a word. Accepts
/// "Generalized Optimal transport Attention with Trainable priors" for GOAT; rejects
/// "Multiplicative" for "Luong".
bool loosely_abbreviates(std::string_view acronym, std::string_view phrase);

/// The part of a text-defined expansion the acronym abbreviates: the longest suffix of `phrase`
/// (whole words) that passes is_acronym_of, leading articles dropped ("Transformer-based large
/// language models" → "large language models" for LLMs; "the Protein Region Proposal Network" →
/// "Protein Region Proposal Network"); else the shortest suffix of at most min(n + 5, 2n) words
/// (n letters) that loosely_abbreviates it; else "" (no definition: "Multiplicative" for "Luong").
std::string trim_expansion(std::string_view acronym, std::string_view phrase);

}  // namespace mmkg::graph
