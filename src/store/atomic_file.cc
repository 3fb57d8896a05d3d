#include "store/atomic_file.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"

namespace mmkg {

namespace fs = std::filesystem;

void write_file_atomically(const std::string& path, std::string_view bytes, const std::string& what) {
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  const std::string tmp = path + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.flush();
    if (!out) {
      fs::remove(tmp, ec);
      throw StoreFullError(path + ": cannot write " + what +
                           " (disk full or read-only?); free some space and run the ingest again");
    }
  }
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw IOError(path + ": cannot store " + what + " (" + ec.message() + ")");
  }
}

}  // namespace mmkg
