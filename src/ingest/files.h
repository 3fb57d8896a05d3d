// Finding input files (recursive, loop-safe) and reading them safely; their formats are in
// formats.h.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ingest/formats.h"

namespace mmkg {

struct FileError {
  std::string path;
  std::string error;
};

struct FileList {
  std::vector<std::string> files;   ///< absolute, lexically normal paths, sorted, unique
  std::vector<FileError> errors;    ///< missing paths, symlink loops, unreadable directories
  std::vector<FileError> skipped;   ///< symlinks inside a folder that lead out of it (warnings)
  int ignored = 0;                  ///< files inside folders with unsupported extensions
};

/// Expands files and folders (recursively). Files named explicitly are always taken; inside
/// folders only the extensions of formats() are taken (.pdf .md .markdown .txt .text .html .htm
/// .xhtml, images .png .jpg .jpeg .tif .tiff .webp .gif .bmp, .epub, Office .docx .pptx .xlsx
/// .odt .odp .ods .doc .ppt .xls), hidden entries (".name") and Office lock files ("~$name") are skipped.
/// Directory symlink cycles are reported once. A symlink met inside a folder whose target lies
/// outside that folder (`link.txt -> /etc/passwd`) is skipped with a warning in `skipped`, as
/// `grep -r` does, unless `follow_symlinks`; links that stay inside the folder are followed.
/// Paths named explicitly are always followed.
FileList collect_files(const std::vector<std::string>& paths, bool follow_symlinks = false);

/// Drops from `list` the image files that a Markdown or HTML page of the same list shows (by
/// file name): they are that page's figures, not documents of their own. Images named in
/// `paths` (the command line) stay.
void drop_linked_images(FileList& list, const std::vector<std::string>& paths);

/// Reads a regular file whole. Throws InputError for non-regular files, permission problems,
/// empty files and files above `max_bytes` (naming the limit and the flag that raises it).
std::string read_file(const std::string& path, int64_t max_bytes);

}  // namespace mmkg
