// Candidate term detection for the rule-based extractor (extract_rules.cc): markup masking,
// sentence and token analysis with WordNet parts of speech, noun-phrase chunking, acronyms and
// their definitions. Internal to src/graph; the public interface is extractor.h.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mmkg::graph::rules {

/// Same length as `text`; markup and debris that carry no terms (URLs, citation markers like
/// [12], LaTeX, DokuWiki footnotes and link targets, code, emphasis marks) become spaces, with
/// a '\x01' where the removed span separated words (so no phrase runs across it). Byte offsets
/// into the result are offsets into `text`.
std::string mask_markup(std::string_view text);

/// What a word can be inside a noun phrase.
enum class Role : uint8_t {
  kBreak,     ///< punctuation, function word, number, verb, adverb: ends a phrase
  kModifier,  ///< adjective (or participle after a determiner): may start, may not end a phrase
  kHead,      ///< noun (WordNet or unknown technical word, name, acronym): may start and end
};

struct Token {
  size_t b = 0, e = 0;  ///< byte range in the chunk text
  std::string text;     ///< as written
  std::string lower;
  char punct = 0;       ///< for punctuation: the character ('\x01' for masked debris); 0 for words
  Role role = Role::kBreak;
  bool cap = false;        ///< capitalised name (not merely sentence-initial)
  bool acronym = false;    ///< MHA, LLMs, RoPE, GPT-4
  bool technical = false;  ///< self-attention, FlashAttention, fp16
  bool generic_mod = false;  ///< evaluative/discourse adjective trimmed from phrase starts
  bool word() const { return punct == 0; }
};

struct Span {
  int first = 0, last = 0;  ///< token range [first, last)
  bool nested = false;      ///< a sub-phrase (suffix) of a longer phrase, or an acronym inside one
};

struct Sentence {
  size_t b = 0, e = 0;  ///< byte range in the chunk text
  bool heading = false; ///< a heading line (markdown #, DokuWiki ==, numbered section title)
  bool title_case = false;
  std::vector<Token> toks;
  std::vector<Span> phrases;  ///< maximal phrases (not nested), in order
};

/// Splits `text` (masked as above) into sentences and tokens with roles.
std::vector<Sentence> analyse(std::string_view text, std::string_view masked);
/// Fills Sentence::phrases with maximal noun phrases (at most kMaxWords words).
void chunk_phrases(Sentence& s);
inline constexpr int kMaxWords = 5;

/// The surface of tokens [first, last): token texts joined by one space.
std::string surface(const Sentence& s, int first, int last);

/// Acronym shape: 2-8 characters, mostly upper-case letters (MHA, LLMs, RoPE, GPT-4, BERT).
bool looks_acronym(std::string_view w);
/// Schwartz–Hearst check that `long_form` spells `acronym`; returns the matching suffix of
/// `long_form` (trimmed to whole words), or "" when it does not.
std::string match_expansion(std::string_view acronym, std::string_view long_form);

/// True for a common English noun (WordNet: >= 2 senses, at least one seen in SemCor): "model",
/// "work", "approach", "attention", "task". Single words like these are weak terms.
bool generic_noun(std::string_view lower_word);
/// A single lower-case word too ordinary to be a term alone: a generic noun (above), or a word
/// WordNet also knows as an adjective or a verb form ("small", "remains", "exhibit").
bool weak_single_word(std::string_view lower_word);
/// A lower-case word WordNet lacks that one edit inside it turns into a word it knows: a typo
/// ("specfying", "possiblility"), which no term is built on.
bool misspelt_word(std::string_view lower_word);

}  // namespace mmkg::graph::rules
