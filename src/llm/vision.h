// Figure descriptions from a vision model (VLM): one chat request per figure, the PNG attached,
// asking what the figure shows, the text in it and its kind, as JSON. Written for small local
// VLMs (llava, qwen2.5vl on Ollama) as much as for hosted ones, so the prompt is short, the
// answer is structured output where the server constrains it (ResponseSchema, lenient), and any
// answer is usable: JSON, JSON in prose, JSON cut off at max_tokens, or plain prose (then all of
// it is the description and the kind is "other"). Only transport failures throw.
//
// Retries and rate limits are the client's (OpenAiChat retries 429 with retry-after, and 5xx,
// with backoff); the concurrency cap is the client's too (LlmConfig::concurrency).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "llm/chat_model.h"

namespace mmkg {

/// What a vision model says about one figure (Figure::description, Figure::visual_kind).
struct FigureDescription {
  std::string description;  ///< what the figure shows and its point, a few sentences
  std::string text;         ///< the words and numbers written in it, as read (may be empty)
  std::string kind;         ///< chart, diagram, photo, screenshot, table or other
};

class VisionDescriber {
 public:
  /// `model` must take images (vision()) and outlive the describer; throws UsageError otherwise.
  /// `prompt` replaces default_prompt() (the caption hint is appended to it).
  explicit VisionDescriber(ChatModel& model, std::string prompt = default_prompt());

  /// The instruction sent with each figure: short, because small VLMs follow short prompts best.
  static std::string default_prompt();
  /// The kinds a description may have, "other" last.
  static const std::vector<std::string>& kinds();

  /// Describes the PNG `png`, with `caption_hint` (the figure's caption or alt text; may be
  /// empty) in the prompt. One request (temperature 0, so a model with an LlmCache answers a
  /// repeat from the cache). Never throws on a bad answer; throws LlmError when the request fails
  /// after the client's retries (server down, 5xx or 429 throughout), UsageError when the model
  /// is misconfigured, Error for an empty `png`. Thread-safe whenever model.chat() is, which
  /// ChatModel promises: call it from as many threads as the model's concurrency allows.
  FigureDescription describe(const std::string& png, const std::string& caption_hint = "") const;

  /// A key for storing describe()'s answer: model id, prompt hash and `image_hash` (the figure's
  /// content hash), and the caption hint when one is passed (pass the one given to describe():
  /// it is part of the prompt, so of the answer). Changes whenever any of them changes.
  std::string cache_key(const std::string& image_hash, const std::string& caption_hint = "") const;

  const std::string& prompt() const { return prompt_; }
  const ChatModel& model() const { return model_; }

 private:
  ChatRequest request(const std::string& png, const std::string& caption_hint) const;

  ChatModel& model_;
  std::string prompt_;
  std::string prompt_hash_;
};

/// Reads a vision model's answer: `parsed` (the client's structured-output JSON, or null) else
/// JSON found leniently in `text`, else string fields salvaged from JSON cut off mid-way, else
/// `text` as the description with kind "other". Never throws.
FigureDescription parse_figure_answer(std::string_view text, const nlohmann::json& parsed = nullptr);

/// A kind as a model writes it ("Bar chart", "flowchart", "photograph") -> one of kinds();
/// unknown -> "other".
std::string normalise_figure_kind(std::string_view kind);

}  // namespace mmkg
