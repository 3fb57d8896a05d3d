// Where an installed mmkg finds its data: beside the executable, in the usual prefix layout
// (`make install` and the .deb put bin/mmkg, share/mmkg/ui and share/mmkg/models/... under one
// prefix; docs/INSTALL.md).
#pragma once

#include <string>
#include <string_view>

namespace mmkg {

/// The folder holding the running executable (from /proc/self/exe); "" when it cannot be read.
std::string executable_dir();

/// `<executable dir>/../share/mmkg/<rel>`, normalised, when that file or folder exists; else "".
/// `exe_dir` overrides the executable's folder (tests).
std::string installed_data_path(std::string_view rel, const std::string& exe_dir = executable_dir());

}  // namespace mmkg
