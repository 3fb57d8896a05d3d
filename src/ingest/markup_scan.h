// The one hand-written tag scanner of ingest, for HTML and XML text where a full parser is not
// wanted: the nesting estimate before gumbo (html_parser.cc), the <img> tags of raw HTML in
// Markdown, the container and package documents of an EPUB and the XHTML empty elements of its
// chapters (epub_parser.cc). Lenient, not a parser: it finds "<name ...>" and "</name ...>",
// passes over comments, reads attributes as the HTML tokenizer does (quotes only after '=', a
// quoted '>' stays inside the tag), and anything else ("<!DOCTYPE", "<?xml", a lone '<') is
// text to it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mmkg {

/// White space between a tag's name and attributes (HTML's, and \v).
bool is_markup_space(char c);
/// ASCII case-insensitive equality, as HTML compares tag and attribute names.
bool iequals_ascii(std::string_view a, std::string_view b);
/// ASCII lower case of one character.
char lower_ascii_char(char c);

/// One tag found by TagScanner; offsets into the scanned text.
struct MarkupTag {
  size_t begin = 0;            ///< the '<'
  size_t end = 0;              ///< just past the '>' (the end of the text when unterminated)
  std::string_view name;       ///< as written, a namespace prefix included ("dc:title")
  bool closing = false;        ///< "</name ...>"
  bool self_closing = false;   ///< "<name .../>": the character before the '>' is '/'
  bool terminated = false;     ///< false: the text ends before the tag's '>'
  std::string_view attributes; ///< the text between the name and the end of the tag

  /// The name without its namespace prefix ("title" for "dc:title").
  std::string_view local_name() const;
};

/// Walks the tags of a piece of markup in order.
class TagScanner {
 public:
  explicit TagScanner(std::string_view markup) : h_(markup) {}

  /// The next tag; false when there is none left (or an unterminated comment hides the rest).
  bool next(MarkupTag& tag);
  /// Goes on scanning from offset `pos`: past raw text (a <script>'s body) the caller skips.
  void seek(size_t pos) { pos_ = pos; }

 private:
  std::string_view h_;
  size_t pos_ = 0;
};

/// The attributes of one start tag, names lower-cased, values with entities decoded.
using TagAttrs = std::vector<std::pair<std::string, std::string>>;

/// The attributes of `tag`, in order.
TagAttrs tag_attributes(const MarkupTag& tag);

/// Value of attribute `name` (lower case), or nullptr.
const std::string* find_attr(const TagAttrs& attrs, std::string_view name);

/// Every start tag named `tag` (case-insensitive, a namespace prefix "opf:" ignored) in a piece
/// of HTML or XML, in order, with its attributes. Returns at most `max_tags` tags.
std::vector<TagAttrs> scan_tags(std::string_view markup, std::string_view tag, size_t max_tags = 100000);

/// Decodes the common named entities and numeric character references.
std::string decode_entities(std::string_view s);

}  // namespace mmkg
