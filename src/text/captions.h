// Figure and table captions ("Figure 3: Loss curves.", "Fig. 2.", "Table 1 Results") and the
// sentences that refer to them ("as shown in Figure 3", "Figures 2 and 4", "see Table 1").
// Shared by the parsers (which find captions) and the ingest stage (which gathers references).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mmkg {

/// A caption's label.
struct CaptionLabel {
  bool table = false;   ///< "Table N" rather than "Figure N"
  std::string number;   ///< "3", "2.1", "A.3", "4b"
  size_t end = 0;       ///< byte offset just past the label and its delimiter (":", ".", "|", "—")
  bool delimited = false;  ///< the label is followed by ':' '.' '|' or a dash (not just a space)
  /// "Figure 3" or "Table 3": the canonical label whatever the spelling (Fig., FIGURE).
  std::string label() const { return (table ? "Table " : "Figure ") + number; }
  /// Key matching labels and references: "f:3", "t:3".
  std::string key() const { return (table ? "t:" : "f:") + number; }
};

/// The label at the start of `line` when the line reads as a caption: "Figure 3:", "Fig. 3.",
/// "FIGURE 3 —", "Table 2 |", or a label followed by a title-like phrase ("Figure 2 Attention
/// maps"; not "Figure 2 shows that ..." which is a sentence about it). nullopt otherwise.
std::optional<CaptionLabel> caption_label(std::string_view line);

/// Keys ("f:3", "t:1") of the figures and tables a sentence refers to: "Figure 3", "Fig. 3",
/// "Figs. 2 and 3", "Figures 2-4", "Table 1", "Tables 1 and 2". Ranges are expanded (at most 20).
std::vector<std::string> figure_references(std::string_view sentence);

/// How a figure chunk introduces the words read off a figure or a table (axis labels, legend,
/// cells; ingest/figures.cc writes them as one paragraph after this lead).
inline constexpr std::string_view kFigureTextLead = "Text in the figure: ";
inline constexpr std::string_view kTableTextLead = "Text in the table: ";
/// True when `line` is such a paragraph: labels without syntax, where a phrase chunker cannot
/// tell where one label ends and the next begins ("Survived Sex Male Female Child").
inline bool label_text_line(std::string_view line) {
  return line.substr(0, kFigureTextLead.size()) == kFigureTextLead ||
         line.substr(0, kTableTextLead.size()) == kTableTextLead;
}

}  // namespace mmkg
