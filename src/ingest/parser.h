// Parser interface: one implementation per input format, each in its own file.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "core/error.h"
#include "core/types.h"

namespace mmkg {

/// Parses the bytes of one file into structural blocks.
/// Implementations throw InputError with a one-line reason for bad input (corrupt, encrypted,
/// empty, wrong type); they never crash on any byte sequence.
class Parser {
 public:
  virtual ~Parser() = default;
  /// Short format name: "pdf", "markdown", "text", "html".
  virtual const char* name() const = 0;
  /// @param path  used only for messages and titles
  /// @param bytes the whole file content
  virtual ParsedDocument parse(const std::string& path, std::string_view bytes) const = 0;
};

std::unique_ptr<Parser> make_pdf_parser();
std::unique_ptr<Parser> make_text_parser();
std::unique_ptr<Parser> make_markdown_parser();
std::unique_ptr<Parser> make_html_parser();

}  // namespace mmkg
