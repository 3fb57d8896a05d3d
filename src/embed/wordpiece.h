// BERT WordPiece tokenizer, identical to Hugging Face BertTokenizer(Fast) for uncased models
// (all-MiniLM-L6-v2): BertNormalizer (clean text, Chinese characters, NFD accent stripping,
// lower-casing) + BertPreTokenizer (whitespace and punctuation) + greedy WordPiece.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace mmkg {

/// The BertNormalizer switches of tokenizer_config.json (defaults: an uncased model).
struct WordpieceOptions {
  bool lowercase = true;       // do_lower_case
  bool strip_accents = true;   // strip_accents (null in the config = same as do_lower_case)
  bool chinese_chars = true;   // tokenize_chinese_chars
};

class WordpieceTokenizer {
 public:
  /// `vocab`: token strings, id = index (the lines of vocab.txt). `max_tokens` counts [CLS] and
  /// [SEP] (the model's max_seq_length, 256 for all-MiniLM-L6-v2). Throws Error if a special
  /// token ([CLS], [SEP], [UNK], [PAD]) is missing or max_tokens < 2.
  WordpieceTokenizer(std::vector<std::string> vocab, int max_tokens, WordpieceOptions opts = {});

  /// Reads vocab.txt (one token per line, UTF-8). Throws Error naming the file on failure.
  static WordpieceTokenizer from_file(const std::string& vocab_path, int max_tokens,
                                      WordpieceOptions opts = {});

  /// Token ids of `text` (UTF-8; invalid bytes are dropped like U+FFFD): [CLS] pieces [SEP].
  /// Truncation policy (what sentence-transformers does: tokenizer(truncation=True,
  /// max_length=max_seq_length)): a text longer than max_tokens keeps its FIRST max_tokens - 2
  /// word-pieces followed by [SEP]; the rest of the text is ignored. Thread-safe.
  std::vector<int32_t> encode(std::string_view text) const;

  /// The normalised, pre-tokenised words of `text` (before WordPiece); for tests and debugging.
  std::vector<std::string> basic_tokenize(std::string_view text) const;

  /// Appends the WordPiece ids of one pre-tokenised word (greedy longest-match-first; [UNK] for
  /// a word longer than 100 characters or one that cannot be covered by the vocabulary).
  void wordpiece(std::string_view word, std::vector<int32_t>& out) const;

  int vocab_size() const { return static_cast<int>(vocab_.size()); }
  int max_tokens() const { return max_tokens_; }
  const std::string& token(int id) const { return vocab_.at(static_cast<size_t>(id)); }
  int cls_id() const { return cls_; }
  int sep_id() const { return sep_; }
  int unk_id() const { return unk_; }
  int pad_id() const { return pad_; }

  /// BERT's longest word (in code points) before it becomes [UNK].
  static constexpr int kMaxWordChars = 100;

 private:
  /// Normalises `text` into code points and splits it into words; stops early once `limit`
  /// words have been produced (each word yields at least one piece), limit < 0 = no limit.
  void split_words(std::string_view text, long limit, std::vector<std::u32string>& words) const;

  std::vector<std::string> vocab_;
  std::unordered_map<std::string, int32_t> start_;  // pieces that may begin a word
  std::unordered_map<std::string, int32_t> cont_;   // "##x" continuation pieces, stored as "x"
  size_t max_piece_chars_ = 1;                      // longest piece in code points
  int max_tokens_;
  WordpieceOptions opts_;
  int cls_ = -1, sep_ = -1, unk_ = -1, pad_ = -1;
};

}  // namespace mmkg
