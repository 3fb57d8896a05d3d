// Writing a file of a store's folder so that a reader (or a process killed meanwhile) sees either
// no file or the whole one: the figure images of the embedded store, the source files a shared
// store's local copy keeps.
#pragma once

#include <string>
#include <string_view>

namespace mmkg {

/// Writes `bytes` to `path` through a temporary file of this process (PATH.tmpPID, which
/// Store::leftover_files recognises once the process is gone), renamed into place; makes the
/// folder. Throws StoreFullError when the bytes cannot be written (disk full, read-only) and
/// IOError when the rename fails, naming the file as `what` ("the figure image").
void write_file_atomically(const std::string& path, std::string_view bytes, const std::string& what);

}  // namespace mmkg
